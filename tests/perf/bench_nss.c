/*
 * In-process timing of lookups through the sss NSS module: it dlopens libnss_sss.so.2 and
 * calls its entry points directly (no other NSS source can answer), so the figures are the
 * module + responder + back-end path and nothing else. Prints p50/p90/p99 and the mean per
 * lookup; never fails on timing.
 *
 * Usage: bench_nss LIBNSS_SSS MODE N PREFIX [START [PROCS [RANGE]]]
 *   MODE  pwnam      getpwnam of PREFIX<START..START+N-1> (%06d), each once
 *         pwnam1     getpwnam of PREFIX itself, N times (warm; set SSS_NSS_USE_MEMCACHE=NO
 *                    to measure the responder, leave it unset for memory-cache hits)
 *         grnam1     getgrnam of PREFIX, N times
 *         grnam      getgrnam of PREFIX<START..START+N-1> (%05d), each once
 *         initgr1    initgroups of PREFIX, N times
 *         initgr     initgroups of PREFIX<START..>, each once
 *         tput       throughput: PROCS processes (default 8) each do N getpwnam of
 *                    PREFIX<START + (i % RANGE)> (RANGE default 1000; each process starts at
 *                    another offset); prints lookups per second over the wall time
 *         tputi      the same with initgroups
 * A failed lookup counts in "failures" (and the first failure's name and status are printed).
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
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

typedef enum nss_status (*getpwnam_fn)(const char *, struct passwd *, char *, size_t, int *);
typedef enum nss_status (*getgrnam_fn)(const char *, struct group *, char *, size_t, int *);
typedef enum nss_status (*initgr_fn)(const char *, gid_t, long *, long *, gid_t **, long,
                                     int *);

static getpwnam_fn pwnam;
static getgrnam_fn grnam;
static initgr_fn initgr;
static char buf[4 * 1024 * 1024];
static gid_t *groups;
static long groups_size;

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

static int load(const char *path)
{
    void *lib = dlopen(path, RTLD_NOW);

    if (lib == NULL) {
        fprintf(stderr, "cannot load %s: %s\n", path, dlerror());
        return -1;
    }
    pwnam = (getpwnam_fn)dlsym(lib, "_nss_sss_getpwnam_r");
    grnam = (getgrnam_fn)dlsym(lib, "_nss_sss_getgrnam_r");
    initgr = (initgr_fn)dlsym(lib, "_nss_sss_initgroups_dyn");
    groups_size = 16;
    groups = malloc(sizeof(gid_t) * (size_t)groups_size);
    return pwnam && grnam && initgr && groups ? 0 : -1;
}

/* One lookup of the given kind ('p' passwd, 'g' group, 'i' initgroups). */
static enum nss_status lookup(char kind, const char *name, int *err)
{
    struct passwd pw;
    struct group gr;
    long gstart = 0;

    *err = 0;
    switch (kind) {
    case 'p':
        return pwnam(name, &pw, buf, sizeof(buf), err);
    case 'g':
        return grnam(name, &gr, buf, sizeof(buf), err);
    default:
        /* initgroups_dyn grows the array with realloc as needed */
        return initgr(name, (gid_t)-1, &gstart, &groups_size, &groups, 0, err);
    }
}

static int throughput(char kind, long n, const char *prefix, long start, long procs,
                      long range)
{
    double t0, t1;
    long p, failures = 0;
    int status;

    t0 = now_us();
    for (p = 0; p < procs; p++) {
        pid_t pid = fork();

        if (pid < 0) {
            perror("fork");
            return 1;
        }
        if (pid == 0) {
            long i, fail = 0;
            char name[256];
            int err;

            for (i = 0; i < n; i++) {
                snprintf(name, sizeof(name), "%s%06ld", prefix,
                         start + (i + p * range / procs) % range);
                if (lookup(kind, name, &err) != NSS_STATUS_SUCCESS) {
                    fail++;
                }
            }
            _exit(fail > 255 ? 255 : (int)fail);
        }
    }
    for (p = 0; p < procs; p++) {
        if (wait(&status) > 0 && (!WIFEXITED(status) || WEXITSTATUS(status) != 0)) {
            failures++;
        }
    }
    t1 = now_us();
    printf("%-8s procs=%ld n=%ld each  %.0f lookups/s  (%.1f us per lookup per process)  "
           "processes with failures %ld\n",
           kind == 'p' ? "tput" : "tputi", procs, n,
           (double)(n * procs) / ((t1 - t0) / 1e6), (t1 - t0) / (double)n, failures);
    return 0;
}

int main(int argc, char *argv[])
{
    const char *mode, *prefix;
    long n, start, i, failures = 0;
    double *t, t0, sum = 0;
    char name[256];
    char kind;
    int ranged;

    if (argc < 5) {
        fprintf(stderr, "usage: %s LIBNSS_SSS MODE N PREFIX [START [PROCS [RANGE]]]\n",
                argv[0]);
        return 1;
    }
    mode = argv[2];
    n = atol(argv[3]);
    prefix = argv[4];
    start = argc > 5 ? atol(argv[5]) : 0;
    if (n <= 0 || load(argv[1]) != 0) {
        return 1;
    }
    kind = strncmp(mode, "pwnam", 5) == 0 ? 'p' : strncmp(mode, "grnam", 5) == 0 ? 'g' : 'i';
    if (strncmp(mode, "tput", 4) == 0) {
        return throughput(mode[4] == 'i' ? 'i' : 'p', n, prefix, start,
                          argc > 6 ? atol(argv[6]) : 8, argc > 7 ? atol(argv[7]) : 1000);
    }
    ranged = strcmp(mode, "pwnam") == 0 || strcmp(mode, "initgr") == 0 ||
             strcmp(mode, "grnam") == 0;

    t = calloc((size_t)n, sizeof(*t));
    if (t == NULL) {
        return 1;
    }
    for (i = 0; i < n; i++) {
        enum nss_status st;
        int err;

        if (strcmp(mode, "grnam") == 0) {
            snprintf(name, sizeof(name), "%s%05ld", prefix, start + i);
        } else if (ranged) {
            snprintf(name, sizeof(name), "%s%06ld", prefix, start + i);
        } else {
            snprintf(name, sizeof(name), "%s", prefix);
        }
        t0 = now_us();
        st = lookup(kind, name, &err);
        t[i] = now_us() - t0;
        sum += t[i];
        if (st != NSS_STATUS_SUCCESS) {
            if (failures++ == 0) {
                fprintf(stderr, "%s %s: status %d errno %d\n", mode, name, (int)st, err);
            }
        }
    }
    qsort(t, (size_t)n, sizeof(*t), cmp_double);
    printf("%-8s n=%ld  p50 %.1f us  p90 %.1f us  p99 %.1f us  max %.1f us  mean %.1f us  "
           "total %.0f ms  failures %ld\n",
           mode, n, t[n / 2], t[n * 9 / 10], t[n * 99 / 100], t[n - 1], sum / (double)n,
           sum / 1000, failures);
    free(t);
    free(groups);
    return 0;
}
