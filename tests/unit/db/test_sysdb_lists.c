/*
 * Unit tests of sysdb's lists on temporary cache files: a user's group list (initgroups,
 * with gids read or given), group member lists (duplicates, case modes, built in slices,
 * stored expired or left unwritten when seen through initgroups), the packed format, and
 * groups and group lists of tens of thousands of names. Runs once per ldb back-end (tdb,
 * mdb); every test checks that it leaves no talloc blocks behind (sysdb_fixture.c).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>

#include "tests/unit/db/sysdb_fixture.h"
#include "util/util.h"
#include "db/sysdb.h"
#include "db/sysdb_private.h"

static void test_initgroups(void **state)
{
    struct test_ctx *tc = *state;
    const char *groups[] = { "g3", "g1", "g2", "g1", NULL };
    const char *bad[] = { "g1", "nope", NULL };
    const char **names;
    uint32_t *gids;
    size_t count;
    time_t expire;

    store_user(tc->sysdb, "joe", 1001);
    store_group(tc->sysdb, "g1", 2001, NULL);
    store_group(tc->sysdb, "g2", 2002, NULL);
    store_group(tc->sysdb, "g3", 2003, NULL);

    assert_int_equal(sysdb_get_initgroups(tc->mem, tc->sysdb, "joe", &gids, &count, &expire),
                     ENOENT);
    assert_int_equal(sysdb_store_initgroups(tc->sysdb, "nobody", groups, NOW, TMO), ENOENT);
    assert_int_equal(sysdb_store_initgroups(tc->sysdb, "joe", groups, NOW, 60), EOK);
    assert_int_equal(sysdb_get_initgroups(tc->mem, tc->sysdb, "joe", &gids, &count, &expire),
                     EOK);
    assert_int_equal(count, 3);
    assert_int_equal(gids[0], 2003);
    assert_int_equal(gids[1], 2001);
    assert_int_equal(gids[2], 2002);
    assert_int_equal(expire, NOW + 60);
    talloc_free(gids);
    assert_int_equal(sysdb_get_initgroups_names(tc->mem, tc->sysdb, "joe", &names, &count,
                                                NULL), EOK);
    assert_int_equal(count, 3);
    assert_string_equal(names[0], "g3@" DOM);
    assert_null(names[3]);
    talloc_free(names);

    /* A group that is not cached: refused, the old list stays. */
    assert_int_equal(sysdb_store_initgroups(tc->sysdb, "joe", bad, NOW, 60), ENOENT);
    assert_int_equal(sysdb_get_initgroups(tc->mem, tc->sysdb, "joe", &gids, &count, NULL),
                     EOK);
    assert_int_equal(count, 3);
    talloc_free(gids);

    /* In no groups at all. */
    assert_int_equal(sysdb_store_initgroups(tc->sysdb, "joe", NULL, NOW, 60), EOK);
    assert_int_equal(sysdb_get_initgroups(tc->mem, tc->sysdb, "joe", &gids, &count, &expire),
                     EOK);
    assert_int_equal(count, 0);
    assert_null(gids);
}

/* sysdb_store_group_ext says when a store left the group expired for want of members. */
static void test_group_stored_expired(void **state)
{
    struct test_ctx *tc = *state;
    const char *members[] = { "ann", NULL };
    struct sysdb_group grp = { .name = "pf", .gid = 3000 };
    struct sysdb_group *g;
    bool expired = false;

    /* New, without members: expired, reported. */
    assert_int_equal(sysdb_store_group_ext(tc->sysdb, &grp, false, NOW, TMO, &expired), EOK);
    assert_true(expired);
    /* Seen again through initgroups: still the same entry, no longer "stored expired" by
     * this store (it kept what was there). */
    expired = true;
    assert_int_equal(sysdb_store_group_ext(tc->sysdb, &grp, false, NOW, TMO, &expired), EOK);
    assert_false(expired);
    /* With members (what the prefetch stores): fresh, not reported. */
    grp.members = members;
    expired = true;
    assert_int_equal(sysdb_store_group_ext(tc->sysdb, &grp, true, NOW, TMO, &expired), EOK);
    assert_false(expired);
    assert_int_equal(sysdb_get_group_by_gid(tc->mem, tc->sysdb, 3000, &g), EOK);
    assert_int_equal(g->expire, NOW + TMO);
    assert_string_equal(g->members[0], "ann@" DOM);
    talloc_free(g);
    /* Cached with members, seen through initgroups: kept, fresh, not reported. */
    grp.members = NULL;
    expired = true;
    assert_int_equal(sysdb_store_group_ext(tc->sysdb, &grp, false, NOW + 1, TMO, &expired),
                     EOK);
    assert_false(expired);
    assert_int_equal(sysdb_get_group_by_gid(tc->mem, tc->sysdb, 3000, &g), EOK);
    assert_int_equal(g->expire, NOW + TMO);
    assert_string_equal(g->members[0], "ann@" DOM);
    talloc_free(g);
    /* Its gid changed: expired again, reported. */
    grp.gid = 3001;
    assert_int_equal(sysdb_store_group_ext(tc->sysdb, &grp, false, NOW, TMO, &expired), EOK);
    assert_true(expired);
    /* Refused: the flag is left alone. */
    grp.gid = 0;
    expired = true;
    assert_int_equal(sysdb_store_group_ext(tc->sysdb, &grp, false, NOW, TMO, &expired), EINVAL);
    assert_true(expired);
    /* NULL flag: the plain store. */
    grp.name = "pf2";
    grp.gid = 3002;
    assert_int_equal(sysdb_store_group_ext(tc->sysdb, &grp, false, NOW, TMO, NULL), EOK);
}

/* Packed name lists split at every NUL, across the 16-byte steps of the scan: names of
 * every length from 0 to 40 in a row, so each ends at each offset of a step. */
static void test_packed_split(void **state)
{
    struct test_ctx *tc = *state;
    char buf[2048];
    struct ldb_val val;
    const char **names = NULL;
    size_t count = 0;
    size_t len = 0;
    size_t i;

    for (i = 0; i <= 40; i++) {
        memset(buf + len, 'a' + (int)(i % 26), i);
        len += i;
        buf[len++] = '\0';
    }
    val.data = (uint8_t *)buf;
    val.length = len;
    assert_int_equal(sysdb_packed_split(tc->mem, &val, &names, &count), EOK);
    assert_int_equal(count, 41);
    for (i = 0; i <= 40; i++) {
        assert_int_equal(strlen(names[i]), i);
        assert_true(i == 0 || names[i][0] == 'a' + (int)(i % 26));
    }
    assert_null(names[41]);
    talloc_free(names);
    /* empty list; a list not ending in NUL is corrupt */
    val.length = 0;
    assert_int_equal(sysdb_packed_split(tc->mem, &val, &names, &count), EOK);
    assert_int_equal(count, 0);
    assert_null(names[0]);
    talloc_free(names);
    val.length = 3;
    memcpy(buf, "abc", 3);
    assert_int_equal(sysdb_packed_split(tc->mem, &val, &names, &count), EIO);
}

/* A cached group seen again through an initgroups, unchanged, is not written at all (a
 * modify would rewrite its whole member list); a changed original DN is written. */
static void test_group_unchanged_not_written(void **state)
{
    struct test_ctx *tc = *state;
    const char *members[] = { "ann", "bob", NULL };
    struct sysdb_group grp = { .name = "same", .gid = 3100, .members = members,
                               .orig_dn = "cn=same,dc=x" };
    struct sysdb_group *g;
    uint64_t gen;

    assert_int_equal(sysdb_store_group(tc->sysdb, &grp, true, NOW, TMO), EOK);
    gen = sysdb_rcache_gen(tc->sysdb);
    grp.members = NULL;
    assert_int_equal(sysdb_store_group(tc->sysdb, &grp, false, NOW + 5, TMO), EOK);
    /* mdb: no commit happened (the generation is LMDB's last transaction id) */
    assert_true(sysdb_rcache_gen(tc->sysdb) == gen);
    grp.orig_dn = "cn=same,ou=moved,dc=x";
    assert_int_equal(sysdb_store_group(tc->sysdb, &grp, false, NOW + 5, TMO), EOK);
    assert_true(gen == 0 || sysdb_rcache_gen(tc->sysdb) != gen);
    assert_int_equal(sysdb_get_group_by_gid(tc->mem, tc->sysdb, 3100, &g), EOK);
    assert_string_equal(g->orig_dn, "cn=same,ou=moved,dc=x");
    assert_int_equal(g->expire, NOW + TMO);
    assert_string_equal(g->members[1], "bob@" DOM);
    talloc_free(g);
}

/* sysdb_store_initgroups_gids: the caller's gids recorded without reading the groups. */
static void test_initgroups_given_gids(void **state)
{
    struct test_ctx *tc = *state;
    const char *groups[] = { "g3", "g1", "g2", NULL };
    const uint32_t gids_in[] = { 2003, 2001, 2002 };
    const char *dup[] = { "g3", "g1", "g3", NULL };
    const uint32_t dup_gids[] = { 9, 9, 9 };
    const uint32_t zero[] = { 2003, 0, 2002 };
    uint32_t *gids;
    size_t count;
    time_t expire;

    store_user(tc->sysdb, "joe", 1001);
    store_group(tc->sysdb, "g1", 2001, NULL);
    store_group(tc->sysdb, "g2", 2002, NULL);
    store_group(tc->sysdb, "g3", 2003, NULL);

    assert_int_equal(sysdb_store_initgroups_gids(tc->sysdb, "joe", groups, gids_in, NOW, 60),
                     EOK);
    assert_int_equal(sysdb_get_initgroups(tc->mem, tc->sysdb, "joe", &gids, &count, &expire),
                     EOK);
    assert_int_equal(count, 3);
    assert_int_equal(gids[0], 2003);
    assert_int_equal(gids[1], 2001);
    assert_int_equal(gids[2], 2002);
    assert_int_equal(expire, NOW + 60);
    talloc_free(gids);

    /* A name twice: the list drops it, so the given gids no longer line up: they are
     * ignored and the groups read (the bogus 9s never show). */
    assert_int_equal(sysdb_store_initgroups_gids(tc->sysdb, "joe", dup, dup_gids, NOW, 60),
                     EOK);
    assert_int_equal(sysdb_get_initgroups(tc->mem, tc->sysdb, "joe", &gids, &count, NULL),
                     EOK);
    assert_int_equal(count, 2);
    assert_int_equal(gids[0], 2003);
    assert_int_equal(gids[1], 2001);
    talloc_free(gids);

    /* Refused: a gid 0, or no gids for a non-empty list; the old list stays. */
    assert_int_equal(sysdb_store_initgroups_gids(tc->sysdb, "joe", groups, zero, NOW, 60),
                     EINVAL);
    assert_int_equal(sysdb_store_initgroups_gids(tc->sysdb, "joe", groups, NULL, NOW, 60),
                     EINVAL);
    assert_int_equal(sysdb_get_initgroups(tc->mem, tc->sysdb, "joe", &gids, &count, NULL),
                     EOK);
    assert_int_equal(count, 2);
    talloc_free(gids);
    /* An empty list needs no gids; an unknown user is still ENOENT. */
    assert_int_equal(sysdb_store_initgroups_gids(tc->sysdb, "joe", NULL, NULL, NOW, 60), EOK);
    assert_int_equal(sysdb_store_initgroups_gids(tc->sysdb, "nobody", groups, gids_in, NOW,
                                                 60), ENOENT);
}

static void test_group_members(void **state)
{
    struct test_ctx *tc = *state;
    const char *members[] = { "ann", "bob", "ann", "carl@" DOM, NULL };
    const char *nested[] = { "sub", NULL };
    struct sysdb_group grp = { .name = "staff", .gid = 2000, .members = members,
                               .member_groups = nested, .orig_dn = "cn=staff" };
    struct sysdb_group *g;

    assert_int_equal(sysdb_store_group(tc->sysdb, &grp, true, NOW, TMO), EOK);
    assert_int_equal(sysdb_get_group_by_gid(tc->mem, tc->sysdb, 2000, &g), EOK);
    assert_string_equal(g->name, "staff@" DOM);
    assert_string_equal(g->orig_dn, "cn=staff");
    assert_string_equal(g->members[0], "ann@" DOM);
    assert_string_equal(g->members[1], "bob@" DOM);
    assert_string_equal(g->members[2], "carl@" DOM);
    assert_null(g->members[3]);
    assert_string_equal(g->member_groups[0], "sub@" DOM);
    assert_null(g->member_groups[1]);
    talloc_free(g);

    /* Without members (seen through initgroups): the lists and the expiry stay. */
    grp.members = NULL;
    grp.member_groups = NULL;
    assert_int_equal(sysdb_store_group(tc->sysdb, &grp, false, NOW + 5, TMO), EOK);
    assert_int_equal(sysdb_get_group_by_name(tc->mem, tc->sysdb, "staff", &g), EOK);
    assert_string_equal(g->members[2], "carl@" DOM);
    assert_int_equal(g->last_update, NOW);
    assert_int_equal(g->expire, NOW + TMO);
    talloc_free(g);

    /* With an empty list: cleared. */
    assert_int_equal(sysdb_store_group(tc->sysdb, &grp, true, NOW, TMO), EOK);
    assert_int_equal(sysdb_get_group_by_name(tc->mem, tc->sysdb, "staff", &g), EOK);
    assert_non_null(g->members);
    assert_null(g->members[0]);
    assert_null(g->member_groups[0]);
    talloc_free(g);

    /* A new group stored without members has empty lists and is stored expired: its
     * members are unknown, a group lookup must fetch them. */
    grp.name = "other";
    grp.gid = 2001;
    assert_int_equal(sysdb_store_group(tc->sysdb, &grp, false, NOW, TMO), EOK);
    assert_int_equal(sysdb_get_group_by_name(tc->mem, tc->sysdb, "other", &g), EOK);
    assert_null(g->members[0]);
    assert_int_equal(g->expire, 0);
    talloc_free(g);

    /* Its gid changed: the cached members belong to the old group, expired again. */
    grp.members = members;
    assert_int_equal(sysdb_store_group(tc->sysdb, &grp, true, NOW, TMO), EOK);
    grp.members = NULL;
    grp.gid = 2002;
    assert_int_equal(sysdb_store_group(tc->sysdb, &grp, false, NOW, TMO), EOK);
    assert_int_equal(sysdb_get_group_by_name(tc->mem, tc->sysdb, "other", &g), EOK);
    assert_int_equal(g->gid, 2002);
    assert_int_equal(g->expire, 0);
    talloc_free(g);
}

static void test_name_list_chunks(void **state)
{
    struct test_ctx *tc = *state;
    struct sysdb_name_list *list;
    const char *a[] = { "u1", "u2", "u3" };
    const char *b[] = { "u3", "u4", NULL };
    const char *bad[] = { "u5", "", NULL };
    struct sysdb_group grp = { .name = "big", .gid = 4000 };
    struct sysdb_group *g;

    assert_int_equal(sysdb_name_list_new(tc->mem, tc->sysdb, &list), EOK);
    assert_int_equal(sysdb_name_list_add(list, a, 3), EOK);
    assert_int_equal(sysdb_name_list_add(list, b, (size_t)-1), EOK);
    assert_int_equal(sysdb_name_list_add(list, bad, (size_t)-1), EINVAL);
    assert_int_equal(sysdb_name_list_count(list), 5);
    assert_int_equal(sysdb_store_group_lists(tc->sysdb, &grp, list, NULL, NOW, TMO), EOK);
    talloc_free(list);
    assert_int_equal(sysdb_get_group_by_name(tc->mem, tc->sysdb, "big", &g), EOK);
    assert_string_equal(g->members[3], "u4@" DOM);
    assert_string_equal(g->members[4], "u5@" DOM);
    assert_null(g->members[5]);
    talloc_free(g);
}

static void test_large_group(void **state)
{
    struct test_ctx *tc = *state;
    const size_t n = 50000;
    const char **members;
    struct sysdb_group *g;
    char want[64];
    size_t i;

    members = talloc_array(tc->mem, const char *, n + 1);
    assert_non_null(members);
    for (i = 0; i < n; i++) {
        members[i] = talloc_asprintf(members, "member%06zu", i);
    }
    members[n] = NULL;
    store_group(tc->sysdb, "huge", 5000, members);
    talloc_free(members);

    assert_int_equal(sysdb_get_group_by_gid(tc->mem, tc->sysdb, 5000, &g), EOK);
    for (i = 0; i < n; i++) {
        snprintf(want, sizeof(want), "member%06zu@" DOM, i);
        assert_string_equal(g->members[i], want);
    }
    assert_null(g->members[n]);
    talloc_free(g);
}

static void test_large_initgroups(void **state)
{
    struct test_ctx *tc = *state;
    const size_t n = 5000;
    const char **names;
    uint32_t *gids;
    size_t count;
    size_t i;

    store_user(tc->sysdb, "joe", 1001);
    names = talloc_array(tc->mem, const char *, n + 1);
    assert_non_null(names);
    assert_int_equal(sysdb_transaction_start(tc->sysdb), EOK);
    for (i = 0; i < n; i++) {
        names[i] = talloc_asprintf(names, "group%05zu", i);
        store_group(tc->sysdb, names[i], 100000 + i, NULL);
    }
    names[n] = NULL;
    assert_int_equal(sysdb_store_initgroups(tc->sysdb, "joe", names, NOW, TMO), EOK);
    assert_int_equal(sysdb_transaction_commit(tc->sysdb), EOK);
    talloc_free(names);

    assert_int_equal(sysdb_get_initgroups(tc->mem, tc->sysdb, "joe", &gids, &count, NULL),
                     EOK);
    assert_int_equal(count, n);
    for (i = 0; i < n; i++) {
        assert_int_equal(gids[i], 100000 + i);
    }
    talloc_free(gids);
}

static const struct CMUnitTest tests[] = {
    T(test_initgroups),
    T(test_group_members),
    T(test_group_stored_expired),
    T(test_group_unchanged_not_written),
    T(test_packed_split),
    T(test_initgroups_given_gids),
    T(test_name_list_chunks),
    T(test_large_group),
    T(test_large_initgroups),
};

int main(void)
{
    int failed;

    sysdb_fixture_warm_up();
    backend = SYSDB_BACKEND_TDB;
    failed = cmocka_run_group_tests_name("sysdb_lists_tdb", tests, NULL, NULL);
    backend = SYSDB_BACKEND_MDB;
    failed += cmocka_run_group_tests_name("sysdb_lists_mdb", tests, NULL, NULL);
    return failed;
}
