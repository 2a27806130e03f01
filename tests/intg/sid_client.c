/*
 * A libsss_nss_idmap client for the by-SID tests (test_ad_sid.sh): loads the library
 * named on the command line (SSSD 2.8's own, or ours) with dlopen, so the same program
 * asks both, and prints one line per answer:
 *     rc=<errno> type=<sss_id_type> value=<SID, name or id>
 * or for origbyname and origbygroupname one "key=value" line per pair after the rc line.
 * Usage: sid_client LIB sidbyname|sidbyuid|sidbygid|sidbyid|namebysid|idbysid|
 *                       origbyname|origbygroupname KEY
 * The prototypes are those of SSSD's public sss_nss_idmap.h.
 */
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct kv { char *key; char *value; };

typedef int (*by_str_fn)(const char *, char **, int *);
typedef int (*by_id_fn)(uint32_t, char **, int *);
typedef int (*id_fn)(const char *, uint32_t *, int *);
typedef int (*orig_fn)(const char *, struct kv **, int *);
typedef void (*free_kv_fn)(struct kv *);

static void *sym(void *lib, const char *name)
{
    void *f = dlsym(lib, name);

    if (f == NULL) {
        fprintf(stderr, "%s: %s\n", name, dlerror());
        exit(2);
    }
    return f;
}

int main(int argc, char **argv)
{
    const char *op;
    const char *key;
    void *lib;
    char *s = NULL;
    struct kv *list = NULL;
    uint32_t id = 0;
    int type = -1;
    int rc;
    size_t i;

    if (argc != 4) {
        fprintf(stderr, "usage: %s LIB OP KEY\n", argv[0]);
        return 2;
    }
    op = argv[2];
    key = argv[3];
    lib = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
    if (lib == NULL) {
        fprintf(stderr, "%s\n", dlerror());
        return 2;
    }
    if (strcmp(op, "sidbyname") == 0 || strcmp(op, "namebysid") == 0) {
        rc = ((by_str_fn)sym(lib, strcmp(op, "sidbyname") == 0 ? "sss_nss_getsidbyname"
                                                              : "sss_nss_getnamebysid"))
             (key, &s, &type);
    } else if (strcmp(op, "sidbyuid") == 0 || strcmp(op, "sidbygid") == 0
               || strcmp(op, "sidbyid") == 0) {
        char fn[32];
        snprintf(fn, sizeof(fn), "sss_nss_get%s", op);
        rc = ((by_id_fn)sym(lib, fn))((uint32_t)strtoul(key, NULL, 10), &s, &type);
    } else if (strcmp(op, "idbysid") == 0) {
        rc = ((id_fn)sym(lib, "sss_nss_getidbysid"))(key, &id, &type);
        if (rc == 0) {
            printf("rc=0 type=%d value=%u\n", type, id);
            return 0;
        }
    } else if (strcmp(op, "origbygroupname") == 0 || strcmp(op, "origbyname") == 0) {
        char fn[40];
        snprintf(fn, sizeof(fn), "sss_nss_get%s", op);
        rc = ((orig_fn)sym(lib, fn))(key, &list, &type);
        printf("rc=%d type=%d\n", rc, rc == 0 ? type : -1);
        for (i = 0; rc == 0 && list != NULL && list[i].key != NULL; i++) {
            printf("%s=%s\n", list[i].key, list[i].value);
        }
        if (list != NULL) {
            ((free_kv_fn)sym(lib, "sss_nss_free_kv"))(list);
        }
        return 0;
    } else {
        fprintf(stderr, "unknown op %s\n", op);
        return 2;
    }
    printf("rc=%d type=%d value=%s\n", rc, rc == 0 ? type : -1, rc == 0 && s ? s : "");
    free(s);
    return 0;
}
