/*
 * In-process timing of lookups through the sss NSS module: it dlopens libnss_sss.so.2 and
 * calls its entry points directly (no other NSS source can answer), so the figures are the
 * module + responder + back-end path and nothing else. Prints p50/p90/p99 and the mean per
 * lookup; never fails on timing.
 *
 * Usage: bench_nss LIBNSS_SSS MODE N PREFIX [START]
 *   MODE  pwnam      getpwnam of PREFIX<START..START+N-1> (%06d), each once
 *         pwnam1     getpwnam of PREFIX itself, N times (warm; set SSS_NSS_USE_MEMCACHE=NO
 *                    to measure the responder, leave it unset for memory-cache hits)
 *         grnam1     getgrnam of PREFIX, N times
 *         initgr1    initgroups of PREFIX, N times
 *         initgr     initgroups of PREFIX<START..>, each once
 */
#include <dlfcn.h>
#include <errno.h>
#include <grp.h>
#include <nss.h>
#include <pwd.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef enum nss_status (*getpwnam_fn)(const char *, struct passwd *, char *, size_t, int *);
typedef enum nss_status (*getgrnam_fn)(const char *, struct group *, char *, size_t, int *);
typedef enum nss_status (*initgr_fn)(const char *, gid_t, long *, long *, gid_t **, long,
                                     int *);

static double now_us(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;

    return x < y ? -1 : x > y;
}

int main(int argc, char *argv[])
{
    static char buf[4 * 1024 * 1024];
    const char *mode, *prefix;
    void *lib;
    getpwnam_fn pwnam;
    getgrnam_fn grnam;
    initgr_fn initgr;
    long n, start, i, failures = 0, size, ngroups;
    double *t, t0, sum = 0;
    char name[256];
    gid_t *groups;

    if (argc < 5) {
        fprintf(stderr, "usage: %s LIBNSS_SSS MODE N PREFIX [START]\n", argv[0]);
        return 1;
    }
    mode = argv[2];
    n = atol(argv[3]);
    prefix = argv[4];
    start = argc > 5 ? atol(argv[5]) : 0;
    lib = dlopen(argv[1], RTLD_NOW);
    if (lib == NULL || n <= 0) {
        fprintf(stderr, "cannot load %s: %s\n", argv[1], dlerror());
        return 1;
    }
    pwnam = (getpwnam_fn)dlsym(lib, "_nss_sss_getpwnam_r");
    grnam = (getgrnam_fn)dlsym(lib, "_nss_sss_getgrnam_r");
    initgr = (initgr_fn)dlsym(lib, "_nss_sss_initgroups_dyn");
    t = calloc((size_t)n, sizeof(*t));
    groups = malloc(sizeof(gid_t) * 16);
    if (t == NULL || groups == NULL || pwnam == NULL || grnam == NULL || initgr == NULL) {
        return 1;
    }

    for (i = 0; i < n; i++) {
        struct passwd pw;
        struct group gr;
        enum nss_status st;
        int err = 0;
        long gstart = 0;

        if (strcmp(mode, "pwnam") == 0 || strcmp(mode, "initgr") == 0) {
            snprintf(name, sizeof(name), "%s%06ld", prefix, start + i);
        } else {
            snprintf(name, sizeof(name), "%s", prefix);
        }
        t0 = now_us();
        if (strncmp(mode, "pwnam", 5) == 0) {
            st = pwnam(name, &pw, buf, sizeof(buf), &err);
        } else if (strcmp(mode, "grnam1") == 0) {
            st = grnam(name, &gr, buf, sizeof(buf), &err);
        } else {
            size = 16;
            st = initgr(name, (gid_t)-1, &gstart, &size, &groups, 0, &err);
            ngroups = gstart;
            (void)ngroups;
        }
        t[i] = now_us() - t0;
        sum += t[i];
        if (st != NSS_STATUS_SUCCESS) {
            failures++;
        }
    }
    qsort(t, (size_t)n, sizeof(*t), cmp_double);
    printf("%-8s n=%ld  p50 %.1f us  p90 %.1f us  p99 %.1f us  mean %.1f us  failures %ld\n",
           mode, n, t[n / 2], t[n * 9 / 10], t[n * 99 / 100], sum / (double)n, failures);
    free(t);
    free(groups);
    dlclose(lib);
    return 0;
}
