/*
 * Unit tests of sysdb's read cache (src/db/sysdb_rcache.c): warm lookups are hits and return
 * correct, self-contained results; a commit by ANOTHER process (this binary re-executed as a
 * writer) is seen by the very next lookup, for users, ids, groups, group lists and cached
 * misses; reads inside our own transaction see its uncommitted writes and a cancel leaves no
 * trace; tdb caches run uncached and still answer right.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tests/unit/common/tc_common.h"
#include "util/util.h"
#include "db/sysdb.h"
#include "db/sysdb_rcache.h"

#define DOM "rc.dom"
#define NOW 1700000000
#define TMO 5400

struct rc_test {
    TALLOC_CTX *mem;
    char *dir;                  /* on mem */
    struct sysdb_ctx *sysdb;
    enum sysdb_backend backend;
};

static int setup_backend(void **state, enum sysdb_backend backend)
{
    struct rc_test *t = calloc(1, sizeof(*t));

    assert_non_null(t);
    t->mem = talloc_new(NULL);
    assert_non_null(t->mem);
    t->dir = tc_tmpdir(t->mem, "test_sysdb_rcache");
    t->backend = backend;
    assert_int_equal(sysdb_open_ext(t->mem, t->dir, DOM, SYSDB_CASE_INSENSITIVE, backend,
                                    &t->sysdb), EOK);
    *state = t;
    return 0;
}

static int setup_mdb(void **state)
{
    return setup_backend(state, SYSDB_BACKEND_MDB);
}

static int setup_tdb(void **state)
{
    return setup_backend(state, SYSDB_BACKEND_TDB);
}

static int teardown(void **state)
{
    struct rc_test *t = *state;

    talloc_free(t->sysdb);
    tc_tmpdir_remove(t->dir);
    talloc_free(t->mem);
    free(t);
    return 0;
}

static void store_user(struct sysdb_ctx *sysdb, const char *name, uint32_t uid,
                       const char *gecos)
{
    struct sysdb_user u = { .name = name, .uid = uid, .gid = uid, .gecos = gecos,
                            .home = "/home/x", .shell = "/bin/sh" };

    assert_int_equal(sysdb_store_user(sysdb, &u, NOW, TMO), EOK);
}

static void store_group(struct sysdb_ctx *sysdb, const char *name, uint32_t gid,
                        const char **members)
{
    struct sysdb_group g = { .name = name, .gid = gid, .members = members };

    assert_int_equal(sysdb_store_group(sysdb, &g, true, NOW, TMO), EOK);
}

static uint64_t hits(struct sysdb_ctx *sysdb)
{
    struct sysdb_rcache_stats st;

    sysdb_rcache_stats(sysdb, &st);
    return st.hits;
}

static void assert_gecos(struct rc_test *t, const char *name, const char *gecos)
{
    struct sysdb_user *u;

    assert_int_equal(sysdb_get_user_by_name(t->mem, t->sysdb, name, &u), EOK);
    assert_string_equal(u->gecos, gecos);
    talloc_free(u);
}

/* The writer: this binary run as another process, changing the cache in one step. */
static int writer(const char *dir, const char *backend, const char *step)
{
    struct sysdb_ctx *sysdb;
    errno_t ret;

    ret = sysdb_open_ext(NULL, dir, DOM, SYSDB_CASE_INSENSITIVE,
                         strcmp(backend, "tdb") == 0 ? SYSDB_BACKEND_TDB : SYSDB_BACKEND_MDB,
                         &sysdb);
    if (ret != EOK) {
        return 2;
    }
    if (strcmp(step, "1") == 0) {
        struct sysdb_user joe = { .name = "joe", .uid = 5000, .gid = 5000, .gecos = "after" };
        struct sysdb_user ann = { .name = "ann", .uid = 5001, .gid = 5001, .gecos = "Ann" };
        struct sysdb_group g1 = { .name = "g1", .gid = 6000,
                                  .members = (const char *[]){ "joe", "ann", NULL } };

        ret = sysdb_store_user(sysdb, &joe, NOW, TMO);
        if (ret == EOK) ret = sysdb_store_user(sysdb, &ann, NOW, TMO);
        if (ret == EOK) ret = sysdb_store_group(sysdb, &g1, true, NOW, TMO);
        if (ret == EOK) {
            ret = sysdb_store_initgroups(sysdb, "joe", (const char *[]){ "g1", NULL },
                                         NOW, TMO);
        }
    } else if (strcmp(step, "big") == 0) {
        /* Group "big" of 3,000 members gets a 3,001st. */
        const char **m = talloc_array(sysdb, const char *, 3002);
        struct sysdb_group big = { .name = "big", .gid = 7000, .members = m };

        for (int i = 0; i < 3001; i++) {
            m[i] = talloc_asprintf(m, "member%04d", i);
        }
        m[3001] = NULL;
        ret = sysdb_store_group(sysdb, &big, true, NOW, TMO);
    } else {
        ret = sysdb_delete_user(sysdb, "ann");
        if (ret == EOK) ret = sysdb_expire_user(sysdb, "joe");
    }
    talloc_free(sysdb);
    return ret == EOK ? 0 : 1;
}

static void run_writer(struct rc_test *t, const char *step)
{
    int status;
    pid_t pid;

    pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        execl("/proc/self/exe", "test_sysdb_rcache", "--writer", t->dir,
              t->backend == SYSDB_BACKEND_TDB ? "tdb" : "mdb", step, (char *)NULL);
        _exit(3);
    }
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
}

static void test_warm_hits(void **state)
{
    struct rc_test *t = *state;
    struct sysdb_rcache_stats st;
    struct sysdb_user *u;
    struct sysdb_group *g;
    uint64_t h;

    store_user(t->sysdb, "Joe", 5000, "before");
    store_group(t->sysdb, "g1", 6000, (const char *[]){ "joe", NULL });
    assert_gecos(t, "joe", "before");
    h = hits(t->sysdb);
    /* Another spelling of the same key is the same entry. */
    assert_gecos(t, "JOE@RC.DOM", "before");
    assert_int_equal(sysdb_get_user_by_name(t->mem, t->sysdb, "joe", &u), EOK);
    assert_string_equal(u->name, "joe@rc.dom");
    assert_int_equal(u->uid, 5000);
    assert_string_equal(u->home, "/home/x");
    assert_null(u->orig_dn);
    /* One allocation: the strings live inside the result. */
    assert_int_equal(talloc_total_blocks(u), 1);
    talloc_free(u);
    /* The group's store left it in the cache (sysdb_pending.c): a hit already. */
    assert_int_equal(sysdb_get_group_by_gid(t->mem, t->sysdb, 6000, &g), EOK);
    talloc_free(g);
    assert_int_equal(sysdb_get_group_by_gid(t->mem, t->sysdb, 6000, &g), EOK);
    assert_string_equal(g->name, "g1@rc.dom");
    assert_string_equal(g->members[0], "joe@rc.dom");
    assert_null(g->members[1]);
    assert_null(g->member_groups[0]);
    talloc_free(g);

    sysdb_rcache_stats(t->sysdb, &st);
    assert_true(st.enabled);
    assert_int_equal(st.hits, h + 4);
}

/* Everything cached before another process's commit is re-read after it. */
static void test_other_process(void **state)
{
    struct rc_test *t = *state;
    struct sysdb_user *u;
    struct sysdb_group *g;
    uint32_t *gids;
    size_t count;
    time_t expire;
    bool have;

    store_user(t->sysdb, "joe", 5000, "before");
    /* Twice each: the second read is served by the cache (on mdb). */
    for (int i = 0; i < 2; i++) {
        assert_gecos(t, "joe", "before");
        assert_int_equal(sysdb_get_user_by_uid(t->mem, t->sysdb, 5000, &u), EOK);
        assert_string_equal(u->gecos, "before");
        talloc_free(u);
        assert_int_equal(sysdb_get_user_by_name(t->mem, t->sysdb, "ann", &u), ENOENT);
        assert_int_equal(sysdb_get_user_by_uid(t->mem, t->sysdb, 5001, &u), ENOENT);
        assert_int_equal(sysdb_get_group_by_name(t->mem, t->sysdb, "g1", &g), ENOENT);
        assert_int_equal(sysdb_get_user_initgroups(t->mem, t->sysdb, "joe", &u, &have, &gids,
                                                   &count, &expire), EOK);
        assert_false(have);
        assert_null(gids);
        talloc_free(u);
    }

    run_writer(t, "1");

    assert_gecos(t, "joe", "after");
    assert_int_equal(sysdb_get_user_by_uid(t->mem, t->sysdb, 5000, &u), EOK);
    assert_string_equal(u->gecos, "after");
    talloc_free(u);
    assert_gecos(t, "ann", "Ann");
    assert_int_equal(sysdb_get_user_by_uid(t->mem, t->sysdb, 5001, &u), EOK);
    talloc_free(u);
    assert_int_equal(sysdb_get_group_by_name(t->mem, t->sysdb, "g1", &g), EOK);
    assert_string_equal(g->members[1], "ann@rc.dom");
    talloc_free(g);
    assert_int_equal(sysdb_get_user_initgroups(t->mem, t->sysdb, "joe", &u, &have, &gids,
                                               &count, &expire), EOK);
    assert_true(have);
    assert_int_equal(count, 1);
    assert_int_equal(gids[0], 6000);
    assert_int_equal(expire, NOW + TMO);
    assert_string_equal(u->gecos, "after");
    talloc_free(u);
    talloc_free(gids);

    /* And a second writer commit after those (now cached) answers. */
    run_writer(t, "2");
    assert_int_equal(sysdb_get_user_by_name(t->mem, t->sysdb, "ann", &u), ENOENT);
    assert_int_equal(sysdb_get_user_by_uid(t->mem, t->sysdb, 5001, &u), ENOENT);
    assert_int_equal(sysdb_get_user_by_name(t->mem, t->sysdb, "joe", &u), EOK);
    assert_int_equal(u->expire, 1);
    talloc_free(u);
    assert_int_equal(sysdb_get_initgroups(t->mem, t->sysdb, "joe", &gids, &count, &expire),
                     EOK);
    assert_int_equal(expire, 1);
    talloc_free(gids);
}

/* Our own transaction: its reads see its writes; a cancel leaves the cached state right. */
static void test_own_transaction(void **state)
{
    struct rc_test *t = *state;

    store_user(t->sysdb, "joe", 5000, "one");
    assert_gecos(t, "joe", "one");
    assert_gecos(t, "joe", "one");
    assert_int_equal(sysdb_transaction_start(t->sysdb), EOK);
    store_user(t->sysdb, "joe", 5000, "two");
    assert_gecos(t, "joe", "two");
    assert_int_equal(sysdb_transaction_cancel(t->sysdb), EOK);
    assert_gecos(t, "joe", "one");
    assert_int_equal(sysdb_transaction_start(t->sysdb), EOK);
    store_user(t->sysdb, "joe", 5000, "three");
    assert_gecos(t, "joe", "three");
    assert_int_equal(sysdb_transaction_commit(t->sysdb), EOK);
    assert_gecos(t, "joe", "three");
}

/* More entries than slots, and a group too big to keep: answers stay right. */
static void test_pressure(void **state)
{
    struct rc_test *t = *state;
    const char **members;
    struct sysdb_group *g;
    struct sysdb_user *u;
    char name[32];
    size_t i;

    members = talloc_array(t->mem, const char *, 3001);
    assert_int_equal(sysdb_transaction_start(t->sysdb), EOK);
    for (i = 0; i < 3000; i++) {
        snprintf(name, sizeof(name), "member%04zu", i);
        members[i] = talloc_strdup(members, name);
        store_user(t->sysdb, members[i], 10000 + i, name);
    }
    members[3000] = NULL;
    store_group(t->sysdb, "big", 7000, members);
    assert_int_equal(sysdb_transaction_commit(t->sysdb), EOK);

    for (int pass = 0; pass < 2; pass++) {
        for (i = 0; i < 3000; i++) {
            assert_int_equal(sysdb_get_user_by_uid(t->mem, t->sysdb, 10000 + i, &u), EOK);
            assert_string_equal(u->gecos, members[i]);
            talloc_free(u);
            assert_gecos(t, members[i], members[i]);
        }
        assert_int_equal(sysdb_get_group_by_name(t->mem, t->sysdb, "big", &g), EOK);
        assert_string_equal(g->members[2999], "member2999@rc.dom");
        assert_null(g->members[3000]);
        talloc_free(g);
    }
}

static void store_big(struct rc_test *t, size_t n)
{
    const char **members = talloc_array(t->mem, const char *, n + 1);
    size_t i;

    for (i = 0; i < n; i++) {
        members[i] = talloc_asprintf(members, "member%04zu", i);
    }
    members[n] = NULL;
    store_group(t->sysdb, "big", 7000, members);
    talloc_free(members);
}

/* Groups too big for the read cache (sysdb_bigcache.c): a warm read shares the kept
 * parsed group (same arrays, no copy), a result outlives its slot, and any commit, ours
 * or another process's, is seen by the next read. */
static void test_big_groups_shared(void **state)
{
    struct rc_test *t = *state;
    struct sysdb_group *g1;
    struct sysdb_group *g2;
    struct sysdb_group *other;
    char name[32];
    int i;

    store_big(t, 3000);     /* ~50 KB of names: above SYSDB_RCACHE_MAX_ENTRY */
    assert_int_equal(sysdb_get_group_by_gid(t->mem, t->sysdb, 7000, &g1), EOK);
    assert_int_equal(sysdb_get_group_by_gid(t->mem, t->sysdb, 7000, &g2), EOK);
    assert_ptr_equal(g1->members, g2->members);
    assert_string_equal(g2->members[2999], "member2999@rc.dom");
    assert_null(g2->members[3000]);
    assert_string_equal(g2->name, "big@rc.dom");
    assert_int_equal(g2->expire, NOW + TMO);
    /* by name: its own entry, then shared as well */
    talloc_free(g2);
    assert_int_equal(sysdb_get_group_by_name(t->mem, t->sysdb, "big", &g2), EOK);
    assert_ptr_not_equal(g1->members, g2->members);
    talloc_free(g2);
    assert_int_equal(sysdb_get_group_by_name(t->mem, t->sysdb, "BIG", &g2), EOK);
    assert_string_equal(g2->members[0], "member0000@rc.dom");
    talloc_free(g2);

    /* Four other big groups push "big" (by gid) out while g1 still uses its data. */
    for (i = 0; i < 4; i++) {
        const char *m[1200];
        int k;

        for (k = 0; k < 1199; k++) {
            m[k] = talloc_asprintf(t->mem, "user%d_%04d", i, k);
        }
        m[1199] = NULL;
        snprintf(name, sizeof(name), "other%d", i);
        store_group(t->sysdb, name, 7100 + i, m);
        assert_int_equal(sysdb_get_group_by_gid(t->mem, t->sysdb, 7100 + i, &other), EOK);
        assert_string_equal(other->members[1198], talloc_asprintf(t->mem, "user%d_1198@rc.dom", i));
        talloc_free(other);
    }
    assert_string_equal(g1->members[1234], "member1234@rc.dom");   /* still valid */
    talloc_free(g1);

    /* another process adds a member: the next read has it */
    assert_int_equal(sysdb_get_group_by_gid(t->mem, t->sysdb, 7000, &g1), EOK);
    assert_int_equal(sysdb_get_group_by_gid(t->mem, t->sysdb, 7000, &g2), EOK);
    assert_ptr_equal(g1->members, g2->members);
    talloc_free(g2);
    run_writer(t, "big");
    assert_int_equal(sysdb_get_group_by_gid(t->mem, t->sysdb, 7000, &g2), EOK);
    assert_ptr_not_equal(g1->members, g2->members);
    assert_string_equal(g2->members[3000], "member3000@rc.dom");
    assert_null(g1->members[3000]);     /* the old result is untouched */
    talloc_free(g1);
    talloc_free(g2);

    /* inside our own transaction nothing is shared, and its writes are seen */
    assert_int_equal(sysdb_transaction_start(t->sysdb), EOK);
    store_big(t, 2500);
    assert_int_equal(sysdb_get_group_by_gid(t->mem, t->sysdb, 7000, &g1), EOK);
    assert_int_equal(sysdb_get_group_by_gid(t->mem, t->sysdb, 7000, &g2), EOK);
    assert_ptr_not_equal(g1->members, g2->members);
    assert_null(g2->members[2500]);
    talloc_free(g1);
    talloc_free(g2);
    assert_int_equal(sysdb_transaction_cancel(t->sysdb), EOK);
    assert_int_equal(sysdb_get_group_by_gid(t->mem, t->sysdb, 7000, &g1), EOK);
    assert_string_equal(g1->members[3000], "member3000@rc.dom");
    talloc_free(g1);
}

static void test_tdb_uncached(void **state)
{
    struct rc_test *t = *state;
    struct sysdb_rcache_stats st;

    sysdb_rcache_stats(t->sysdb, &st);
    assert_false(st.enabled);
    test_other_process(state);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_warm_hits, setup_mdb, teardown),
        cmocka_unit_test_setup_teardown(test_other_process, setup_mdb, teardown),
        cmocka_unit_test_setup_teardown(test_own_transaction, setup_mdb, teardown),
        cmocka_unit_test_setup_teardown(test_pressure, setup_mdb, teardown),
        cmocka_unit_test_setup_teardown(test_big_groups_shared, setup_mdb, teardown),
        cmocka_unit_test_setup_teardown(test_tdb_uncached, setup_tdb, teardown),
    };

    if (argc == 5 && strcmp(argv[1], "--writer") == 0) {
        return writer(argv[2], argv[3], argv[4]);
    }
    return cmocka_run_group_tests(tests, NULL, NULL);
}
