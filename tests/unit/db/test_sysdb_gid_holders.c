/*
 * Unit tests of what a group store finds its gid's holders with, instead of a search per
 * store. The table an initgroups reads in one search before storing its groups
 * (sysdb_groups_prefetch, src/db/sysdb_gid_holders.c): group stores after it give the same
 * cache as stores that search their own gid, also when the batch's own writes change what
 * the search found (a gid taken over, a gid twice, a group's gid moving, a delete), and the
 * table never outlives the transaction level it was read at. The gid's unique index a
 * group lookup's store relies on (sysdb_write_unique): it refuses a second holder, a rename
 * still replaces the old entry, and a cache that holds a gid twice (written without the
 * index) opens, upgrades and is repaired by the next store. Once per ldb back-end.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdlib.h>

#include "tests/unit/db/sysdb_fixture.h"
#include "util/util.h"
#include "db/sysdb.h"
#include "db/sysdb_private.h"

/* A group seen through an initgroups (no members), as be_store_group_seen stores it. */
static bool seen(struct sysdb_ctx *sysdb, const char *name, uint32_t gid)
{
    struct sysdb_group g = { .name = name, .gid = gid };
    bool expired = false;

    assert_int_equal(sysdb_store_group_ext(sysdb, &g, false, NOW, TMO, &expired), EOK);
    return expired;
}

static void prefetch(struct sysdb_ctx *sysdb, const uint32_t *gids, size_t n)
{
    assert_int_equal(sysdb_groups_prefetch(sysdb, gids, n), EOK);
}

static void assert_group(struct test_ctx *tc, const char *name, uint32_t gid)
{
    struct sysdb_group *g;

    assert_int_equal(sysdb_get_group_by_name(tc->mem, tc->sysdb, name, &g), EOK);
    assert_int_equal(g->gid, gid);
    talloc_free(g);
}

static void assert_no_group(struct test_ctx *tc, const char *name)
{
    struct sysdb_group *g;

    assert_int_equal(sysdb_get_group_by_name(tc->mem, tc->sysdb, name, &g), ENOENT);
}

static size_t num_groups(struct sysdb_ctx *sysdb)
{
    struct sysdb_group **groups;
    size_t count;

    assert_int_equal(sysdb_enumerate_groups(NULL, sysdb, &groups, &count), EOK);
    talloc_free(groups);
    return count;
}

/* A renamed group replaces its old entry; a cached group seen unchanged keeps its members
 * and expiry; a new one is stored expired. */
static void test_batch_takeover_unchanged_new(void **state)
{
    struct test_ctx *tc = *state;
    const char *members[] = { "ann", NULL };
    const uint32_t gids[] = { 3000, 3001, 3002 };
    struct sysdb_group *g;

    store_group(tc->sysdb, "old", 3000, NULL);
    store_group(tc->sysdb, "keep", 3001, members);
    assert_int_equal(sysdb_transaction_start(tc->sysdb), EOK);
    prefetch(tc->sysdb, gids, 3);
    assert_true(seen(tc->sysdb, "new", 3000));     /* a new name: members unknown */
    assert_false(seen(tc->sysdb, "keep", 3001));
    assert_true(seen(tc->sysdb, "fresh", 3002));
    assert_int_equal(sysdb_transaction_commit(tc->sysdb), EOK);

    assert_no_group(tc, "old");
    assert_group(tc, "new", 3000);
    assert_int_equal(sysdb_get_group_by_name(tc->mem, tc->sysdb, "keep", &g), EOK);
    assert_string_equal(g->members[0], "ann@" DOM);
    assert_int_equal(g->expire, NOW + TMO);
    talloc_free(g);
    assert_group(tc, "fresh", 3002);
    assert_int_equal(num_groups(tc->sysdb), 3);
}

/* The same gid twice in one batch: the second store takes it over from the first, which
 * the search made before either could not know about. */
static void test_batch_gid_twice(void **state)
{
    struct test_ctx *tc = *state;
    const uint32_t gids[] = { 4000, 4000 };

    assert_int_equal(sysdb_transaction_start(tc->sysdb), EOK);
    prefetch(tc->sysdb, gids, 2);
    seen(tc->sysdb, "a", 4000);
    seen(tc->sysdb, "b", 4000);
    assert_int_equal(sysdb_transaction_commit(tc->sysdb), EOK);
    assert_no_group(tc, "a");
    assert_group(tc, "b", 4000);
    assert_int_equal(num_groups(tc->sysdb), 1);
}

/* A group whose gid moves in the batch no longer holds the old one: the next group with
 * the old gid must not delete it. */
static void test_batch_gid_moves(void **state)
{
    struct test_ctx *tc = *state;
    const uint32_t gids[] = { 5001, 5000 };

    store_group(tc->sysdb, "x", 5000, NULL);
    assert_int_equal(sysdb_transaction_start(tc->sysdb), EOK);
    prefetch(tc->sysdb, gids, 2);
    seen(tc->sysdb, "x", 5001);
    seen(tc->sysdb, "y", 5000);
    assert_int_equal(sysdb_transaction_commit(tc->sysdb), EOK);
    assert_group(tc, "x", 5001);
    assert_group(tc, "y", 5000);
    assert_int_equal(num_groups(tc->sysdb), 2);
}

/* A holder deleted in the transaction after the search is not deleted again. */
static void test_batch_after_delete(void **state)
{
    struct test_ctx *tc = *state;
    const uint32_t gids[] = { 6000, 6001 };

    store_group(tc->sysdb, "z", 6000, NULL);
    assert_int_equal(sysdb_transaction_start(tc->sysdb), EOK);
    prefetch(tc->sysdb, gids, 2);
    assert_int_equal(sysdb_delete_group(tc->sysdb, "z"), EOK);
    seen(tc->sysdb, "z2", 6000);
    assert_int_equal(sysdb_transaction_commit(tc->sysdb), EOK);
    assert_no_group(tc, "z");
    assert_group(tc, "z2", 6000);
}

/* Used by the stores of its own level, gone when that level closes; needs a transaction. */
static void test_table_lifetime(void **state)
{
    struct test_ctx *tc = *state;
    const uint32_t gids[] = { 7000, 7001 };
    struct ldb_message **msgs;
    size_t count;

    store_group(tc->sysdb, "p", 7000, NULL);
    assert_int_equal(sysdb_groups_prefetch(tc->sysdb, gids, 2), EINVAL);
    assert_int_equal(sysdb_transaction_start(tc->sysdb), EOK);
    assert_int_equal(sysdb_transaction_start(tc->sysdb), EOK);
    prefetch(tc->sysdb, gids, 2);
    assert_int_equal(sysdb_gid_holders_get(tc->sysdb, 7000, &msgs, &count), EOK);
    assert_int_equal(count, 1);
    assert_int_equal(sysdb_gid_holders_get(tc->sysdb, 7001, &msgs, &count), EOK);
    assert_int_equal(count, 0);
    assert_int_equal(sysdb_gid_holders_get(tc->sysdb, 7002, &msgs, &count), ENOENT);
    assert_int_equal(sysdb_transaction_commit(tc->sysdb), EOK);
    assert_int_equal(sysdb_gid_holders_get(tc->sysdb, 7000, &msgs, &count), ENOENT);
    assert_int_equal(sysdb_transaction_commit(tc->sysdb), EOK);
    /* A cancelled level drops it too. */
    assert_int_equal(sysdb_transaction_start(tc->sysdb), EOK);
    prefetch(tc->sysdb, gids, 2);
    assert_int_equal(sysdb_transaction_cancel(tc->sysdb), EOK);
    assert_int_equal(sysdb_gid_holders_get(tc->sysdb, 7000, &msgs, &count), ENOENT);
}

/* More gids than one search takes: every one is filed, each under its own gid. */
static void test_many_gids(void **state)
{
    struct test_ctx *tc = *state;
    struct ldb_message **msgs;
    uint32_t gids[40];
    char name[32];
    size_t count;
    size_t i;

    for (i = 0; i < 40; i++) {
        gids[i] = 9039 - i;
        snprintf(name, sizeof(name), "m%zu", i);
        if (i % 3 != 0) {
            store_group(tc->sysdb, name, gids[i], NULL);
        }
    }
    assert_int_equal(sysdb_transaction_start(tc->sysdb), EOK);
    prefetch(tc->sysdb, gids, 40);
    for (i = 0; i < 40; i++) {
        assert_int_equal(sysdb_gid_holders_get(tc->sysdb, gids[i], &msgs, &count), EOK);
        assert_int_equal(count, i % 3 != 0 ? 1 : 0);
        if (count == 1) {
            snprintf(name, sizeof(name), "m%zu@" DOM, i);
            assert_string_equal(sysdb_msg_name(tc->sysdb, msgs[0]), name);
        }
    }
    assert_int_equal(sysdb_transaction_commit(tc->sysdb), EOK);
}

/* The same random stores, batched with a prefetch and one by one, give the same groups
 * (names drawn from a few, gids from fewer: renames, takeovers and moves in every batch). */
static void test_batch_same_as_unbatched(void **state)
{
    struct test_ctx *tc = *state;
    struct sysdb_ctx *plain;
    struct sysdb_group **a;
    struct sysdb_group **b;
    char names[8][8];
    uint32_t gids[8];
    size_t na;
    size_t nb;
    size_t i;
    size_t j;
    int round;
    char *dir;

    dir = tc_tmpdir(tc->mem, "test_gidh");
    assert_int_equal(sysdb_open_ext(tc->mem, dir, DOM, SYSDB_CASE_SENSITIVE, backend, &plain),
                     EOK);
    srandom(18);
    for (round = 0; round < 40; round++) {
        for (i = 0; i < 8; i++) {
            snprintf(names[i], sizeof(names[i]), "g%ld", random() % 12);
            gids[i] = 8000 + random() % 6;
        }
        assert_int_equal(sysdb_transaction_start(tc->sysdb), EOK);
        prefetch(tc->sysdb, gids, 8);
        for (i = 0; i < 8; i++) {
            assert_int_equal(seen(tc->sysdb, names[i], gids[i]), seen(plain, names[i], gids[i]));
        }
        assert_int_equal(sysdb_transaction_commit(tc->sysdb), EOK);
    }
    assert_int_equal(sysdb_enumerate_groups(tc->mem, tc->sysdb, &a, &na), EOK);
    assert_int_equal(sysdb_enumerate_groups(tc->mem, plain, &b, &nb), EOK);
    assert_int_equal(na, nb);
    for (i = 0; i < na; i++) {
        for (j = 0; j < nb && strcmp(a[i]->name, b[j]->name) != 0; j++) {
        }
        assert_true(j < nb);
        assert_int_equal(a[i]->gid, b[j]->gid);
        assert_int_equal(a[i]->expire, b[j]->expire);
    }
    talloc_free(a);
    talloc_free(b);
    talloc_free(plain);
    tc_tmpdir_remove(dir);
}

/* A second group with a gid is refused by the index: the write that would make it fails
 * and leaves nothing behind. */
static void test_gid_index_unique(void **state)
{
    struct test_ctx *tc = *state;
    struct ldb_message *msg;
    const char *stored;

    store_group(tc->sysdb, "a", 3000, NULL);
    assert_int_equal(sysdb_entry_msg(tc->mem, tc->sysdb, SYSDB_KIND_GROUP, "b", 3000, &msg,
                                     &stored), EOK);
    assert_int_equal(sysdb_transaction_start(tc->sysdb), EOK);
    assert_int_equal(sysdb_write_unique(tc->sysdb, msg), EEXIST);
    assert_int_equal(sysdb_transaction_commit(tc->sysdb), EOK);
    talloc_free(msg);
    assert_no_group(tc, "b");
    assert_group(tc, "a", 3000);
}

/* A group lookup's store of a renamed group, and of a group taking another's gid: the old
 * holder goes, the members are the new ones. */
static void test_lookup_store_rename(void **state)
{
    struct test_ctx *tc = *state;
    const char *m1[] = { "ann", NULL };
    const char *m2[] = { "bob", NULL };
    struct sysdb_group *g;

    store_group(tc->sysdb, "old", 3000, m1);
    store_group(tc->sysdb, "other", 3001, m1);
    store_group(tc->sysdb, "new", 3000, m2);
    store_group(tc->sysdb, "other", 3000, m1);      /* gid changed onto a held one */
    assert_no_group(tc, "old");
    assert_no_group(tc, "new");
    assert_int_equal(sysdb_get_group_by_gid(tc->mem, tc->sysdb, 3000, &g), EOK);
    assert_string_equal(g->name, "other@" DOM);
    assert_string_equal(g->members[0], "ann@" DOM);
    talloc_free(g);
    assert_int_equal(num_groups(tc->sysdb), 1);
}

/* Two groups holding one gid, as a cache written without the unique index may have. */
static void write_gid_twice(struct sysdb_ctx *sysdb, uint32_t gid)
{
    struct ldb_schema_attribute *a;
    struct ldb_message *msg;
    const char *stored;

    store_group(sysdb, "twice1", gid, NULL);
    /* This context only (the flag is registered at each open, never written). */
    a = discard_const(ldb_schema_attribute_by_name(sysdb->ldb, SYSDB_A_GID_IDX));
    a->flags &= ~LDB_ATTR_FLAG_UNIQUE_INDEX;
    assert_int_equal(sysdb_entry_msg(NULL, sysdb, SYSDB_KIND_GROUP, "twice2", gid, &msg,
                                     &stored), EOK);
    assert_int_equal(sysdb_msg_set_times(msg, SYSDB_A_LAST_UPDATE, SYSDB_A_EXPIRE, NOW,
                                         NOW + TMO), EOK);
    assert_int_equal(sysdb_transaction_start(sysdb), EOK);
    assert_int_equal(sysdb_write_entry(sysdb, msg, SYSDB_EXISTS_NO), EOK);
    assert_int_equal(sysdb_transaction_commit(sysdb), EOK);
    talloc_free(msg);
    a->flags |= LDB_ATTR_FLAG_UNIQUE_INDEX;
}

/* Makes the file one of format 3: the version, and @INDEXLIST without the SID index. */
static void make_version_3(struct sysdb_ctx *sysdb)
{
    struct ldb_message *msg;

    msg = ldb_msg_new(NULL);
    msg->dn = ldb_dn_new(msg, sysdb->ldb, "@INDEXLIST");
    assert_int_equal(ldb_msg_add_empty(msg, "@IDXATTR", LDB_FLAG_MOD_DELETE, NULL),
                     LDB_SUCCESS);
    assert_int_equal(ldb_msg_add_string(msg, "@IDXATTR", SYSDB_A_SID), LDB_SUCCESS);
    assert_int_equal(ldb_modify(sysdb->ldb, msg), LDB_SUCCESS);
    talloc_free(msg);
    msg = ldb_msg_new(NULL);
    msg->dn = ldb_dn_new(msg, sysdb->ldb, "cn=sysdb");
    assert_int_equal(ldb_msg_add_empty(msg, "version", LDB_FLAG_MOD_REPLACE, NULL),
                     LDB_SUCCESS);
    assert_int_equal(ldb_msg_add_string(msg, "version", "3"), LDB_SUCCESS);
    assert_int_equal(ldb_modify(sysdb->ldb, msg), LDB_SUCCESS);
    talloc_free(msg);
}

static void gid_twice_reopened(struct test_ctx *tc, bool old_format)
{
    const char *members[] = { "ann", NULL };
    struct sysdb_ctx *sysdb;
    struct sysdb_group *g;
    char *dir;

    dir = tc_tmpdir(tc->mem, "test_gidh_twice");
    assert_int_equal(sysdb_open_ext(tc->mem, dir, DOM, SYSDB_CASE_SENSITIVE, backend, &sysdb),
                     EOK);
    if (old_format) {
        make_version_3(sysdb);
    }
    write_gid_twice(sysdb, 3000);
    talloc_free(sysdb);
    assert_int_equal(sysdb_open_ext(tc->mem, dir, DOM, SYSDB_CASE_SENSITIVE, backend, &sysdb),
                     EOK);
    if (old_format) {
        /* The reindex of the upgrade refuses them: the file is emptied and set up anew. */
        assert_int_equal(num_groups(sysdb), 0);
        write_gid_twice(sysdb, 3000);
    } else {
        assert_int_equal(sysdb_get_group_by_gid(tc->mem, sysdb, 3000, &g), EOK);
        talloc_free(g);
    }
    /* Either store path takes the gid over from both. */
    store_group(sysdb, "lookup", 3000, members);
    assert_int_equal(num_groups(sysdb), 1);
    write_gid_twice(sysdb, 3001);
    talloc_free(sysdb);
    assert_int_equal(sysdb_open_ext(tc->mem, dir, DOM, SYSDB_CASE_SENSITIVE, backend, &sysdb),
                     EOK);
    assert_false(seen(sysdb, "twice2", 3001));
    assert_int_equal(num_groups(sysdb), 2);
    assert_int_equal(sysdb_get_group_by_gid(tc->mem, sysdb, 3001, &g), EOK);
    assert_string_equal(g->name, "twice2@" DOM);
    talloc_free(g);
    talloc_free(sysdb);
    tc_tmpdir_remove(dir);
}

static void test_gid_twice_old_cache(void **state)
{
    gid_twice_reopened(*state, false);
    gid_twice_reopened(*state, true);   /* upgraded in place: ldb reindexes every record */
}

static const struct CMUnitTest tests[] = {
    T(test_batch_takeover_unchanged_new),
    T(test_batch_gid_twice),
    T(test_batch_gid_moves),
    T(test_batch_after_delete),
    T(test_table_lifetime),
    T(test_many_gids),
    T(test_batch_same_as_unbatched),
    T(test_gid_index_unique),
    T(test_lookup_store_rename),
    T(test_gid_twice_old_cache),
};

int main(void)
{
    int failed;

    sysdb_fixture_warm_up();
    backend = SYSDB_BACKEND_TDB;
    failed = cmocka_run_group_tests_name("gid_holders_tdb", tests, NULL, NULL);
    backend = SYSDB_BACKEND_MDB;
    failed += cmocka_run_group_tests_name("gid_holders_mdb", tests, NULL, NULL);
    return failed;
}
