/*
 * Cached-credentials benchmark, run by hand: ./bench_sysdb_creds [scratch dir] [tdb|mdb]
 * Prints the cost of one libcrypt hash for yescrypt ($y$) at costs 1-5 and SHA-512 ($6$) at
 * 5,000-50,000 rounds (what SYSDB_CREDS_YESCRYPT_COST was chosen from), then the cost of
 * sysdb_creds_save() and of sysdb_creds_check() (right password: read + hash, no write;
 * wrong password: read + hash + counted write) on a cache of 1,000 users, p50 and p99.
 * Never fails on timing.
 */
#include "config.h"

#include <crypt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/util.h"
#include "db/sysdb.h"
#include "db/sysdb_creds.h"

#define NOW 1700000000
#define LOOPS 200

static void die(const char *what, errno_t ret)
{
    fprintf(stderr, "bench_sysdb_creds: %s: %s\n", what, sss_strerror(ret));
    exit(1);
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a;
    uint64_t y = *(const uint64_t *)b;

    return x < y ? -1 : x > y;
}

static void report(const char *what, uint64_t *us, size_t n)
{
    qsort(us, n, sizeof(*us), cmp_u64);
    printf("%-44s p50 %7.3f ms  p99 %7.3f ms\n", what, us[n / 2] / 1000.0,
           us[n * 99 / 100] / 1000.0);
}

static void bench_method(const char *prefix, unsigned long count)
{
    static struct crypt_data cd;
    char setting[CRYPT_GENSALT_OUTPUT_SIZE];
    char what[64];
    uint64_t us[LOOPS / 4];
    uint64_t t0;
    size_t i;

    if (crypt_gensalt_rn(prefix, count, NULL, 0, setting, sizeof(setting)) == NULL) {
        printf("%s cost %lu: not supported\n", prefix, count);
        return;
    }
    for (i = 0; i < SSS_ARRAY_SIZE(us); i++) {
        t0 = sss_monotonic_usec();
        if (crypt_rn("correct horse battery", setting, &cd, sizeof(cd)) == NULL) {
            die("crypt_rn", ERR_INTERNAL);
        }
        us[i] = sss_monotonic_usec() - t0;
    }
    snprintf(what, sizeof(what), "crypt_rn %s cost %lu", prefix, count);
    report(what, us, SSS_ARRAY_SIZE(us));
}

int main(int argc, char **argv)
{
    const char *dir = argc > 1 ? argv[1] : "/tmp";
    enum sysdb_backend be = SYSDB_BACKEND_MDB;
    static const unsigned long y_costs[] = { 1, 2, 3, 4, 5 };
    static const unsigned long sha_rounds[] = { 5000, 10000, 20000, 50000 };
    struct sysdb_creds_policy pol = { .failed_attempts = 0, .failed_delay_min = 5 };
    struct sysdb_ctx *sysdb;
    struct sysdb_user u = { .gecos = "G", .home = "/home/x", .shell = "/bin/sh" };
    char name[32];
    char path[512];
    uint64_t us[LOOPS];
    uint64_t t0;
    TALLOC_CTX *mem;
    errno_t ret;
    size_t i;

    if (argc > 2 && strcmp(argv[2], "tdb") == 0) {
        be = SYSDB_BACKEND_TDB;
    }
    for (i = 0; i < SSS_ARRAY_SIZE(y_costs); i++) {
        bench_method("$y$", y_costs[i]);
    }
    for (i = 0; i < SSS_ARRAY_SIZE(sha_rounds); i++) {
        bench_method("$6$", sha_rounds[i]);
    }

    mem = talloc_new(NULL);
    snprintf(path, sizeof(path), "%s/cache_creds.bench.ldb", dir);
    unlink(path);
    ret = sysdb_open_ext(mem, dir, "creds.bench", SYSDB_CASE_SENSITIVE, be, &sysdb);
    if (ret != EOK) {
        die("open", ret);
    }
    for (i = 0; i < 1000; i++) {
        snprintf(name, sizeof(name), "user%zu", i);
        u.name = name;
        u.uid = u.gid = 10000 + i;
        ret = sysdb_store_user(sysdb, &u, NOW, 5400);
        if (ret != EOK) {
            die("store", ret);
        }
    }
    printf("cache: %s, yescrypt cost %d\n", be == SYSDB_BACKEND_MDB ? "mdb" : "tdb",
           SYSDB_CREDS_YESCRYPT_COST);
    for (i = 0; i < LOOPS; i++) {
        snprintf(name, sizeof(name), "user%zu", i);
        t0 = sss_monotonic_usec();
        ret = sysdb_creds_save(sysdb, name, (const uint8_t *)"Secret123!", 10, &pol, NOW);
        us[i] = sss_monotonic_usec() - t0;
        if (ret != EOK) {
            die("save", ret);
        }
    }
    report("sysdb_creds_save (online login)", us, LOOPS);
    for (i = 0; i < LOOPS; i++) {
        snprintf(name, sizeof(name), "user%zu", i);
        t0 = sss_monotonic_usec();
        ret = sysdb_creds_check(sysdb, name, (const uint8_t *)"Secret123!", 10, &pol, NOW,
                                NULL, NULL);
        us[i] = sss_monotonic_usec() - t0;
        if (ret != EOK) {
            die("check", ret);
        }
    }
    report("sysdb_creds_check, right password", us, LOOPS);
    for (i = 0; i < LOOPS; i++) {
        snprintf(name, sizeof(name), "user%zu", i);
        t0 = sss_monotonic_usec();
        ret = sysdb_creds_check(sysdb, name, (const uint8_t *)"Wrong", 5, &pol, NOW,
                                NULL, NULL);
        us[i] = sss_monotonic_usec() - t0;
        if (ret != ERR_AUTH_FAILED) {
            die("check wrong", ret);
        }
    }
    report("sysdb_creds_check, wrong password (counted)", us, LOOPS);
    talloc_free(mem);
    unlink(path);
    return 0;
}
