/*
 * Calls a libnss_sss module's functions directly, the way programs that bypass glibc do
 * (ctypes users, test tools, nscd-like caches), and prints exactly what the module left
 * behind: status, *errnop, and for initgroups *start, *size and the array. The compatibility
 * tests run it with SSSD's library and with ours on the same replies and compare the output.
 * The module is dlopen()ed as "libnss_sss.so.2" (found through LD_LIBRARY_PATH).
 *   nss_direct initgroups USER START SIZE LIMIT   (the array starts as START copies of gid 7)
 *   nss_direct getpwnam NAME | getpwuid UID | getgrnam NAME | getgrgid GID
 */
#include <dlfcn.h>
#include <errno.h>
#include <grp.h>
#include <nss.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef enum nss_status (*initgr_fn)(const char *, gid_t, long int *, long int *, gid_t **,
                                     long int, int *);
typedef enum nss_status (*pwnam_fn)(const char *, struct passwd *, char *, size_t, int *);
typedef enum nss_status (*pwuid_fn)(uid_t, struct passwd *, char *, size_t, int *);
typedef enum nss_status (*grnam_fn)(const char *, struct group *, char *, size_t, int *);
typedef enum nss_status (*grgid_fn)(gid_t, struct group *, char *, size_t, int *);

static void *sym(void *lib, const char *name)
{
    void *f = dlsym(lib, name);

    if (f == NULL) {
        fprintf(stderr, "%s: %s\n", name, dlerror());
        exit(2);
    }
    return f;
}

static int call_initgroups(void *lib, char **argv)
{
    initgr_fn fn = (initgr_fn)sym(lib, "_nss_sss_initgroups_dyn");
    long int start = atol(argv[3]);
    long int size = atol(argv[4]);
    long int limit = atol(argv[5]);
    gid_t *groups = malloc((size > 0 ? (size_t)size : 1) * sizeof(gid_t));
    enum nss_status st;
    int err = -1;
    long int i;

    if (groups == NULL || start < 0 || start > size) {
        return 2;
    }
    for (i = 0; i < start; i++) {
        groups[i] = 7;
    }
    st = fn(argv[2], 7, &start, &size, &groups, limit, &err);
    printf("status=%d errno=%d start=%ld size=%ld groups=", (int)st, err, start, size);
    for (i = 0; i < start; i++) {
        printf("%s%u", i > 0 ? "," : "", (unsigned)groups[i]);
    }
    printf("\n");
    free(groups);
    return 0;
}

int main(int argc, char **argv)
{
    static char buf[65536];
    enum nss_status st;
    struct passwd pw;
    struct group gr;
    void *lib;
    int err = -1;

    if (argc < 3) {
        fprintf(stderr, "usage: see the comment at the top of nss_direct.c\n");
        return 2;
    }
    lib = dlopen("libnss_sss.so.2", RTLD_NOW);
    if (lib == NULL) {
        fprintf(stderr, "%s\n", dlerror());
        return 2;
    }
    if (strcmp(argv[1], "initgroups") == 0 && argc == 6) {
        return call_initgroups(lib, argv);
    } else if (strcmp(argv[1], "getpwnam") == 0) {
        st = ((pwnam_fn)sym(lib, "_nss_sss_getpwnam_r"))(argv[2], &pw, buf, sizeof(buf), &err);
    } else if (strcmp(argv[1], "getpwuid") == 0) {
        st = ((pwuid_fn)sym(lib, "_nss_sss_getpwuid_r"))((uid_t)atol(argv[2]), &pw, buf,
                                                          sizeof(buf), &err);
    } else if (strcmp(argv[1], "getgrnam") == 0) {
        st = ((grnam_fn)sym(lib, "_nss_sss_getgrnam_r"))(argv[2], &gr, buf, sizeof(buf), &err);
    } else if (strcmp(argv[1], "getgrgid") == 0) {
        st = ((grgid_fn)sym(lib, "_nss_sss_getgrgid_r"))((gid_t)atol(argv[2]), &gr, buf,
                                                          sizeof(buf), &err);
    } else {
        fprintf(stderr, "unknown call %s\n", argv[1]);
        return 2;
    }
    printf("status=%d errno=%d\n", (int)st, err);
    return 0;
}
