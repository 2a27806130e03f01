/*
 * sysdb benchmark, run by hand: [BENCH_SYSDB_USERS=N] ./bench_sysdb [scratch dir] [tdb|mdb|both]
 * For each ldb back-end: 10,000 user saves, 1,000 groups of 10 members, groups of 5,000 and
 * 50,000 members (cold and re-save, in one call and in 1,000-name slices), an initgroups
 * save of 5,000 groups, lookups by name / uid / gid (p50 and p99), initgroups and getgrnam
 * reads, the file size per user, and the peak RSS. Prints a table; never fails on timing.
 *
 * ./bench_sysdb [dir] warm (or warm-tdb): only the warm reads a responder does per request (getpwnam,
 * getpwuid, getgrnam, getgrgid, initgroups as one call and as the older two calls), each in
 * its own function bench_warm_<op>() looping BENCH_SYSDB_LOOPS times (default 20,000) over
 * 1,000 users, so that `valgrind --tool=callgrind --toggle-collect='bench_warm_*'` gives
 * instructions per operation. SSS_SYSDB_NO_RCACHE=1 turns the read cache off to compare.
 *
 * ./bench_sysdb dir disk [name|random]: the responder's path for "all users once, empty
 * cache": BENCH_SYSDB_USERS users (default 100,000) shaped like the perf directory's, each
 * stored in its own transaction, in name order or in a shuffled order; prints the file's
 * allocated size per user (what `du` counts) and the mean store time.
 */
#include "config.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/util.h"
#include "db/sysdb.h"

#define NOW 1700000000
#define TMO 5400
static size_t USERS = 10000;   /* BENCH_SYSDB_USERS overrides */

static void die(const char *what, errno_t ret)
{
    fprintf(stderr, "bench_sysdb: %s: %s\n", what, sss_strerror(ret));
    exit(1);
}

/* Opens the cache of domain in dir after removing any file an earlier run left. */
static struct sysdb_ctx *open_fresh(TALLOC_CTX *mem, const char *dir, const char *domain,
                                    enum sysdb_backend backend)
{
    struct sysdb_ctx *sysdb;
    char path[512];
    errno_t ret;

    snprintf(path, sizeof(path), "%s/cache_%s.ldb", dir, domain);
    unlink(path);
    snprintf(path, sizeof(path), "%s/cache_%s.ldb-lock", dir, domain);
    unlink(path);
    ret = sysdb_open_ext(mem, dir, domain, SYSDB_CASE_SENSITIVE, backend, &sysdb);
    if (ret != EOK) {
        die("open", ret);
    }
    return sysdb;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a;
    uint64_t y = *(const uint64_t *)b;

    return x < y ? -1 : x > y;
}

static void report_pct(const char *what, uint64_t *t, size_t n)
{
    qsort(t, n, sizeof(*t), cmp_u64);
    printf("  %-44s p50 %8.2f us   p99 %8.2f us\n", what, t[n / 2] / 1000.0,
           t[n * 99 / 100] / 1000.0);
}

static uint64_t now_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static const char **make_names(TALLOC_CTX *mem_ctx, const char *prefix, size_t n)
{
    const char **names = talloc_array(mem_ctx, const char *, n + 1);
    size_t i;

    for (i = 0; i < n; i++) {
        names[i] = talloc_asprintf(names, "%s%06zu", prefix, i);
    }
    names[n] = NULL;
    return names;
}

static double store_big_group(struct sysdb_ctx *sysdb, const char *name, uint32_t gid,
                              const char **members)
{
    struct sysdb_group grp = { .name = name, .gid = gid, .members = members };
    uint64_t t0 = now_ns();
    errno_t ret;

    ret = sysdb_store_group(sysdb, &grp, true, NOW, TMO);
    if (ret != EOK) {
        die("store group", ret);
    }
    return (now_ns() - t0) / 1e6;
}

/* The same save as the back-end would do it: slices of 1,000 names (one per LDAP page),
 * then the write. Returns the longest single step and the total, in ms. */
static void store_big_group_sliced(struct sysdb_ctx *sysdb, const char *name, uint32_t gid,
                                   const char **members, size_t n,
                                   double *_max_step, double *_total)
{
    struct sysdb_group grp = { .name = name, .gid = gid };
    struct sysdb_name_list *list;
    uint64_t t0 = now_ns();
    uint64_t s;
    uint64_t max = 0;
    size_t i;
    errno_t ret;

    ret = sysdb_name_list_new(NULL, sysdb, &list);
    if (ret != EOK) {
        die("list", ret);
    }
    for (i = 0; i < n; i += 1000) {
        s = now_ns();
        ret = sysdb_name_list_add(list, members + i, n - i < 1000 ? n - i : 1000);
        if (ret != EOK) {
            die("list add", ret);
        }
        s = now_ns() - s;
        max = s > max ? s : max;
    }
    s = now_ns();
    ret = sysdb_store_group_lists(sysdb, &grp, list, NULL, NOW, TMO);
    if (ret != EOK) {
        die("store lists", ret);
    }
    s = now_ns() - s;
    max = s > max ? s : max;
    talloc_free(list);
    *_max_step = max / 1e6;
    *_total = (now_ns() - t0) / 1e6;
}

static void bench(const char *dir, enum sysdb_backend backend, const char *label)
{
    TALLOC_CTX *mem = talloc_new(NULL);
    struct sysdb_ctx *sysdb;
    struct sysdb_user u = { .gecos = "Benchmark User", .home = "/home/x",
                            .shell = "/bin/bash" };
    struct sysdb_group grp = { 0 };
    struct sysdb_user *ru;
    struct sysdb_group *rg;
    const char **users;
    const char **big;
    const char **groups;
    const char *members[11];
    uint64_t *t;
    uint64_t t0;
    uint32_t *gids;
    size_t count;
    size_t i;
    double a;
    double b;
    struct stat st;
    errno_t ret;

    sysdb = open_fresh(mem, dir, "bench", backend);
    printf("%s (%s)\n", label, sysdb_path(sysdb));

    users = make_names(mem, "user", USERS);
    t = talloc_array(mem, uint64_t, USERS);

    t0 = now_ns();
    for (i = 0; i < USERS; i++) {
        u.name = users[i];
        u.uid = u.gid = 10000 + i;
        ret = sysdb_store_user(sysdb, &u, NOW, TMO);
        if (ret != EOK) {
            die("store user", ret);
        }
    }
    printf("  %-44s %8.2f us/user\n", "store 10,000 users (one transaction each)",
           (now_ns() - t0) / 1e3 / USERS);

    t0 = now_ns();
    for (i = 0; i < 1000; i++) {
        size_t j;
        for (j = 0; j < 10; j++) {
            members[j] = users[(i * 10 + j) % USERS];
        }
        members[10] = NULL;
        grp.name = talloc_asprintf(mem, "grp%04zu", i);
        grp.gid = 20000 + i;
        grp.members = members;
        ret = sysdb_store_group(sysdb, &grp, true, NOW, TMO);
        if (ret != EOK) {
            die("store group", ret);
        }
    }
    printf("  %-44s %8.2f us/group\n", "store 1,000 groups of 10 members",
           (now_ns() - t0) / 1e3 / 1000);

    big = make_names(mem, "member", 50000);
    big[5000] = NULL;
    a = store_big_group(sysdb, "big5k", 30000, big);
    b = store_big_group(sysdb, "big5k", 30000, big);
    printf("  %-44s %8.2f ms cold %8.2f ms re-save\n", "store group of 5,000 members", a, b);
    big[5000] = talloc_asprintf(big, "member%06d", 5000);
    a = store_big_group(sysdb, "big50k", 30001, big);
    b = store_big_group(sysdb, "big50k", 30001, big);
    printf("  %-44s %8.2f ms cold %8.2f ms re-save\n", "store group of 50,000 members", a, b);
    store_big_group_sliced(sysdb, "big50k_sliced", 30002, big, 50000, &a, &b);
    printf("  %-44s %8.2f ms max step, %6.2f ms total\n",
           "  same, 1,000-name slices (cold)", a, b);

    t0 = now_ns();
    ret = sysdb_get_group_by_name(mem, sysdb, "big50k", &rg);
    if (ret != EOK) {
        die("get big group", ret);
    }
    printf("  %-44s %8.2f ms\n", "read group of 50,000 members", (now_ns() - t0) / 1e6);
    talloc_free(rg);

    groups = make_names(mem, "ig", 5000);
    t0 = now_ns();
    ret = sysdb_transaction_start(sysdb);
    for (i = 0; ret == EOK && i < 5000; i++) {
        grp.name = groups[i];
        grp.gid = 40000 + i;
        grp.members = NULL;
        ret = sysdb_store_group(sysdb, &grp, false, NOW, TMO);
    }
    if (ret == EOK) {
        ret = sysdb_store_initgroups(sysdb, users[0], groups, NOW, TMO);
    }
    if (ret == EOK) {
        ret = sysdb_transaction_commit(sysdb);
    }
    if (ret != EOK) {
        die("initgroups", ret);
    }
    a = (now_ns() - t0) / 1e6;
    t0 = now_ns();
    ret = sysdb_store_initgroups(sysdb, users[0], groups, NOW, TMO);
    if (ret != EOK) {
        die("initgroups", ret);
    }
    printf("  %-44s %8.2f ms (with the 5,000 group saves: %.2f ms)\n",
           "initgroups save, user in 5,000 groups", (now_ns() - t0) / 1e6, a);
    t0 = now_ns();
    ret = sysdb_get_initgroups(mem, sysdb, users[0], &gids, &count, NULL);
    if (ret != EOK || count != 5000) {
        die("get initgroups", ret);
    }
    printf("  %-44s %8.2f ms\n", "initgroups read, 5,000 groups", (now_ns() - t0) / 1e6);
    talloc_free(gids);

    for (i = 0; i < USERS; i++) {
        t0 = now_ns();
        ret = sysdb_get_user_by_name(mem, sysdb, users[(i * 7919) % USERS], &ru);
        t[i] = now_ns() - t0;
        if (ret != EOK) {
            die("get user", ret);
        }
        talloc_free(ru);
    }
    report_pct("user lookup by name", t, USERS);
    for (i = 0; i < USERS; i++) {
        t0 = now_ns();
        ret = sysdb_get_user_by_uid(mem, sysdb, 10000 + (i * 7919) % USERS, &ru);
        t[i] = now_ns() - t0;
        if (ret != EOK) {
            die("get user by uid", ret);
        }
        talloc_free(ru);
    }
    report_pct("user lookup by uid", t, USERS);
    for (i = 0; i < 1000; i++) {
        t0 = now_ns();
        ret = sysdb_get_group_by_gid(mem, sysdb, 20000 + (i * 7919) % 1000, &rg);
        t[i] = now_ns() - t0;
        if (ret != EOK) {
            die("get group by gid", ret);
        }
        talloc_free(rg);
    }
    report_pct("group (10 members) lookup by gid", t, 1000);
    for (i = 0; i < 1000; i++) {
        t0 = now_ns();
        ret = sysdb_get_user_by_name(mem, sysdb, "nobody", &ru);
        t[i] = now_ns() - t0;
        if (ret != ENOENT) {
            die("get missing user", ret);
        }
    }
    report_pct("user lookup by name, miss", t, 1000);

    if (stat(sysdb_path(sysdb), &st) == 0) {
        printf("  %-44s %8.1f MB, %6.0f bytes/user (all data / 10,000)\n",
               "file size", st.st_blocks * 512 / 1e6, st.st_blocks * 512.0 / USERS);
    }
    talloc_free(mem);
}

/* --- warm reads --- */

#define WARM_USERS 1000
#define WARM_GROUPS 100
static size_t LOOPS = 20000;   /* BENCH_SYSDB_LOOPS overrides */

static void warm_report(const char *what, uint64_t t0)
{
    printf("  %-44s %8.3f us/op\n", what, (now_ns() - t0) / 1e3 / LOOPS);
}

static __attribute__((noinline)) void bench_warm_getpwnam(struct sysdb_ctx *sysdb,
                                                          const char **users)
{
    struct sysdb_user *u;
    size_t i;

    for (i = 0; i < LOOPS; i++) {
        if (sysdb_get_user_by_name(NULL, sysdb, users[(i * 7919) % WARM_USERS], &u) != EOK) {
            die("warm getpwnam", EIO);
        }
        talloc_free(u);
    }
}

static __attribute__((noinline)) void bench_warm_getpwuid(struct sysdb_ctx *sysdb)
{
    struct sysdb_user *u;
    size_t i;

    for (i = 0; i < LOOPS; i++) {
        if (sysdb_get_user_by_uid(NULL, sysdb, 10000 + (i * 7919) % WARM_USERS, &u) != EOK) {
            die("warm getpwuid", EIO);
        }
        talloc_free(u);
    }
}

static __attribute__((noinline)) void bench_warm_getgrnam(struct sysdb_ctx *sysdb,
                                                          const char **groups)
{
    struct sysdb_group *g;
    size_t i;

    for (i = 0; i < LOOPS; i++) {
        if (sysdb_get_group_by_name(NULL, sysdb, groups[(i * 7919) % WARM_GROUPS], &g)
                != EOK) {
            die("warm getgrnam", EIO);
        }
        talloc_free(g);
    }
}

static __attribute__((noinline)) void bench_warm_getgrgid(struct sysdb_ctx *sysdb)
{
    struct sysdb_group *g;
    size_t i;

    for (i = 0; i < LOOPS; i++) {
        if (sysdb_get_group_by_gid(NULL, sysdb, 20000 + (i * 7919) % WARM_GROUPS, &g) != EOK) {
            die("warm getgrgid", EIO);
        }
        talloc_free(g);
    }
}

#ifndef BENCH_OLD_API
/* initgroups as one call: the user and its list from one read. (BENCH_OLD_API: built
 * against a sysdb without it, to compare before and after.) */
static __attribute__((noinline)) void bench_warm_initgr(struct sysdb_ctx *sysdb,
                                                        const char **users)
{
    struct sysdb_user *u;
    uint32_t *gids;
    size_t count;
    time_t expire;
    bool have;
    size_t i;

    for (i = 0; i < LOOPS; i++) {
        if (sysdb_get_user_initgroups(NULL, sysdb, users[(i * 7919) % WARM_USERS], &u, &have,
                                      &gids, &count, &expire) != EOK || !have || count != 10) {
            die("warm initgroups", EIO);
        }
        talloc_free(u);
        talloc_free(gids);
    }
}

#endif

/* initgroups as cache_req did it until now: the user, then its list. */
static __attribute__((noinline)) void bench_warm_initgr2(struct sysdb_ctx *sysdb,
                                                         const char **users)
{
    struct sysdb_user *u;
    uint32_t *gids;
    size_t count;
    time_t expire;
    size_t i;

    for (i = 0; i < LOOPS; i++) {
        if (sysdb_get_user_by_name(NULL, sysdb, users[(i * 7919) % WARM_USERS], &u) != EOK
                || sysdb_get_initgroups(NULL, sysdb, u->name, &gids, &count, &expire) != EOK
                || count != 10) {
            die("warm initgroups (2 calls)", EIO);
        }
        talloc_free(u);
        talloc_free(gids);
    }
}

static void bench_warm(const char *dir, enum sysdb_backend backend, const char *label)
{
    TALLOC_CTX *mem = talloc_new(NULL);
    struct sysdb_ctx *sysdb;
    struct sysdb_user u = { .gecos = "Benchmark User", .home = "/home/x",
                            .shell = "/bin/bash" };
    struct sysdb_group grp = { 0 };
    const char **users = make_names(mem, "user", WARM_USERS);
    const char **groups = make_names(mem, "grp", WARM_GROUPS);
    const char *mine[11];
    const char *members[11];
    char path[512];
    uint64_t t0;
    size_t i;
    size_t j;
    errno_t ret;

    snprintf(path, sizeof(path), "%s/cache_warm.ldb", dir);
    unlink(path);
    snprintf(path, sizeof(path), "%s/cache_warm.ldb-lock", dir);
    unlink(path);
    ret = sysdb_open_ext(mem, dir, "warm", SYSDB_CASE_SENSITIVE, backend, &sysdb);
    if (ret != EOK) {
        die("open", ret);
    }
    ret = sysdb_transaction_start(sysdb);
    for (i = 0; ret == EOK && i < WARM_USERS; i++) {
        u.name = users[i];
        u.uid = u.gid = 10000 + i;
        u.orig_dn = talloc_asprintf(users, "uid=%s,ou=people,dc=example,dc=com", users[i]);
        ret = sysdb_store_user(sysdb, &u, NOW, TMO);
    }
    for (i = 0; ret == EOK && i < WARM_GROUPS; i++) {
        for (j = 0; j < 10; j++) {
            members[j] = users[(i * 10 + j) % WARM_USERS];
        }
        members[10] = NULL;
        grp.name = groups[i];
        grp.gid = 20000 + i;
        grp.members = members;
        ret = sysdb_store_group(sysdb, &grp, true, NOW, TMO);
    }
    for (i = 0; ret == EOK && i < WARM_USERS; i++) {
        for (j = 0; j < 10; j++) {
            mine[j] = groups[(i + j * 7) % WARM_GROUPS];
        }
        mine[10] = NULL;
        ret = sysdb_store_initgroups(sysdb, users[i], mine, NOW, TMO);
    }
    if (ret == EOK) {
        ret = sysdb_transaction_commit(sysdb);
    }
    if (ret != EOK) {
        die("warm setup", ret);
    }
    printf("%s, warm reads (%zu loops over %d users, %d groups of 10)%s\n", label, LOOPS,
           WARM_USERS, WARM_GROUPS, getenv("SSS_SYSDB_NO_RCACHE") ? ", read cache off" : "");

    /* One pass first: what follows is warm. */
    bench_warm_getpwnam(sysdb, users);
    t0 = now_ns();
    bench_warm_getpwnam(sysdb, users);
    warm_report("getpwnam (user by name)", t0);
    bench_warm_getpwuid(sysdb);
    t0 = now_ns();
    bench_warm_getpwuid(sysdb);
    warm_report("getpwuid (user by uid)", t0);
    bench_warm_getgrnam(sysdb, groups);
    t0 = now_ns();
    bench_warm_getgrnam(sysdb, groups);
    warm_report("getgrnam (group of 10 by name)", t0);
    bench_warm_getgrgid(sysdb);
    t0 = now_ns();
    bench_warm_getgrgid(sysdb);
    warm_report("getgrgid (group of 10 by gid)", t0);
#ifndef BENCH_OLD_API
    bench_warm_initgr(sysdb, users);
    t0 = now_ns();
    bench_warm_initgr(sysdb, users);
    warm_report("initgroups, one call (10 groups)", t0);
#endif
    bench_warm_initgr2(sysdb, users);
    t0 = now_ns();
    bench_warm_initgr2(sysdb, users);
    warm_report("initgroups, user + list (two calls)", t0);
    talloc_free(mem);
}

/* The file size of users alone (what "bytes per user" means). */
static void bench_size(const char *dir, enum sysdb_backend backend)
{
    TALLOC_CTX *mem = talloc_new(NULL);
    struct sysdb_ctx *sysdb;
    struct sysdb_user u = { .gecos = "Benchmark User", .home = "/home/x",
                            .shell = "/bin/bash" };
    const char **users = make_names(mem, "user", USERS);
    struct stat st;
    char path[512];
    size_t i;
    errno_t ret;

    snprintf(path, sizeof(path), "%s/cache_size.ldb", dir);
    unlink(path);
    snprintf(path, sizeof(path), "%s/cache_size.ldb-lock", dir);
    unlink(path);
    ret = sysdb_open_ext(mem, dir, "size", SYSDB_CASE_SENSITIVE, backend, &sysdb);
    if (ret != EOK) {
        die("open", ret);
    }
    ret = sysdb_transaction_start(sysdb);
    for (i = 0; ret == EOK && i < USERS; i++) {
        u.name = users[i];
        u.uid = u.gid = 10000 + i;
        u.orig_dn = talloc_asprintf(users, "uid=%s,ou=people,dc=example,dc=com", users[i]);
        ret = sysdb_store_user(sysdb, &u, NOW, TMO);
    }
    if (ret == EOK) {
        ret = sysdb_transaction_commit(sysdb);
    }
    if (ret != EOK) {
        die("store", ret);
    }
    if (stat(sysdb_path(sysdb), &st) == 0) {
        printf("  %-44s %8.0f bytes/user (on disk, 10,000 users only)\n", "cache size",
               st.st_blocks * 512.0 / USERS);
    }
    talloc_free(mem);
}

/* One user as the LDAP back-end stores it from the perf directory (tests/perf). */
static errno_t disk_store_one(struct sysdb_ctx *sysdb, size_t i)
{
    char name[32], gecos[32], home[48], odn[96];
    struct sysdb_user u = { .name = name, .gecos = gecos, .home = home,
                            .shell = "/bin/bash", .orig_dn = odn };

    snprintf(name, sizeof(name), "user%06zu", i);
    snprintf(gecos, sizeof(gecos), "User %zu", i);
    snprintf(home, sizeof(home), "/home/%s", name);
    snprintf(odn, sizeof(odn), "uid=%s,ou=People,dc=perf,dc=test", name);
    u.uid = (uint32_t)(100000 + i);
    u.gid = 500000;
    return sysdb_store_user(sysdb, &u, NOW, TMO);
}

static void bench_disk(const char *dir, const char *order, size_t n)
{
    TALLOC_CTX *mem = talloc_new(NULL);
    struct sysdb_ctx *sysdb;
    size_t *perm = talloc_array(mem, size_t, n);
    struct stat st;
    uint64_t t0;
    size_t i;
    errno_t ret;

    for (i = 0; i < n; i++) {
        perm[i] = i;
    }
    if (strcmp(order, "random") == 0) {
        srandom(42);   /* the same order every run */
        for (i = n - 1; i > 0; i--) {
            size_t j = (size_t)random() % (i + 1);
            size_t t = perm[i];

            perm[i] = perm[j];
            perm[j] = t;
        }
    }
    sysdb = open_fresh(mem, dir, "perf", SYSDB_BACKEND_MDB);
    t0 = now_ns();
    for (i = 0; i < n; i++) {
        ret = disk_store_one(sysdb, perm[i]);
        if (ret != EOK) {
            die("store", ret);
        }
    }
    t0 = now_ns() - t0;
    if (stat(sysdb_path(sysdb), &st) != 0) {
        die("stat", errno);
    }
    printf("  %zu users, %s order: %.0f KB allocated, %.3f KB/user, store %.1f us/user\n",
           n, order, st.st_blocks / 2.0, st.st_blocks / 2.0 / n, t0 / 1000.0 / n);
    talloc_free(mem);
}

int main(int argc, char **argv)
{
    char tmpl[] = "/tmp/bench_sysdb-XXXXXX";
    const char *dir = argc > 1 && argv[1][0] != '\0' ? argv[1] : NULL;
    const char *which = argc > 2 ? argv[2] : "both";
    struct rusage ru;

    if (getenv("BENCH_SYSDB_USERS") != NULL && atol(getenv("BENCH_SYSDB_USERS")) >= 1000) {
        USERS = (size_t)atol(getenv("BENCH_SYSDB_USERS"));
    }
    if (getenv("BENCH_SYSDB_LOOPS") != NULL && atol(getenv("BENCH_SYSDB_LOOPS")) >= 100) {
        LOOPS = (size_t)atol(getenv("BENCH_SYSDB_LOOPS"));
    }
    if (dir == NULL) {
        dir = mkdtemp(tmpl);
        if (dir == NULL) {
            perror("mkdtemp");
            return 1;
        }
    }
    if (strcmp(which, "disk") == 0) {
        bench_disk(dir, argc > 3 ? argv[3] : "name",
                   getenv("BENCH_SYSDB_USERS") != NULL ? USERS : 100000);
        return 0;
    }
    if (strcmp(which, "warm") == 0 || strcmp(which, "warm-tdb") == 0) {
        bench_warm(dir, which[4] == '\0' ? SYSDB_BACKEND_MDB : SYSDB_BACKEND_TDB, which);
        return 0;
    }
    if (strcmp(which, "tdb") == 0 || strcmp(which, "both") == 0) {
        bench(dir, SYSDB_BACKEND_TDB, "tdb");
        bench_size(dir, SYSDB_BACKEND_TDB);
    }
    if (strcmp(which, "mdb") == 0 || strcmp(which, "both") == 0) {
        bench(dir, SYSDB_BACKEND_MDB, "mdb");
        bench_size(dir, SYSDB_BACKEND_MDB);
    }
    getrusage(RUSAGE_SELF, &ru);
    printf("peak RSS %ld KB (whole run)\nfiles left in %s\n", ru.ru_maxrss, dir);
    return 0;
}
