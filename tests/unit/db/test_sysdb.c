/*
 * Unit tests of src/db (sysdb) on temporary cache files: stores and lookups, takeover of a
 * uid or gid, case modes, expiry, initgroups, member lists, transactions, invalid and huge
 * input, persistence, and large groups. The whole suite runs once per ldb back-end (tdb,
 * mdb). Every test checks that it leaves no talloc blocks behind.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tests/unit/common/tc_common.h"
#include "util/util.h"
#include "db/sysdb.h"
#include "db/sysdb_rcache.h"
#include "db/sysdb_private.h"

#define DOM "test.dom"
#define NOW 1700000000
#define TMO 5400

static enum sysdb_backend backend = SYSDB_BACKEND_TDB;

struct test_ctx {
    struct tc_leaks leaks;
    TALLOC_CTX *mem;
    char *dir;                  /* on mem */
    struct sysdb_ctx *sysdb;
};

static int setup_mode(void **state, enum sysdb_case mode)
{
    struct test_ctx *tc;

    tc = calloc(1, sizeof(*tc));
    assert_non_null(tc);
    tc_leak_start(&tc->leaks);
    tc->mem = talloc_new(NULL);
    assert_non_null(tc->mem);
    tc->dir = tc_tmpdir(tc->mem, "test_sysdb");
    assert_int_equal(sysdb_open_ext(tc->mem, tc->dir, DOM, mode, backend, &tc->sysdb), EOK);
    *state = tc;
    return 0;
}

static int setup(void **state)
{
    return setup_mode(state, SYSDB_CASE_SENSITIVE);
}

static int setup_insensitive(void **state)
{
    return setup_mode(state, SYSDB_CASE_INSENSITIVE);
}

static int setup_preserving(void **state)
{
    return setup_mode(state, SYSDB_CASE_PRESERVING);
}

static int teardown(void **state)
{
    struct test_ctx *tc = *state;

    talloc_free(tc->sysdb);
    tc_tmpdir_remove(tc->dir);
    talloc_free(tc->mem);
    tc_leak_check(&tc->leaks);
    free(tc);
    return 0;
}

static void store_user(struct sysdb_ctx *sysdb, const char *name, uint32_t uid)
{
    struct sysdb_user u = { .name = name, .uid = uid, .gid = uid, .gecos = "G",
                            .home = "/home/x", .shell = "/bin/sh" };

    assert_int_equal(sysdb_store_user(sysdb, &u, NOW, TMO), EOK);
}

static void store_group(struct sysdb_ctx *sysdb, const char *name, uint32_t gid,
                        const char **members)
{
    struct sysdb_group g = { .name = name, .gid = gid, .members = members };

    assert_int_equal(sysdb_store_group(sysdb, &g, true, NOW, TMO), EOK);
}

static void test_store_get_user(void **state)
{
    struct test_ctx *tc = *state;
    struct sysdb_user u = { .name = "joe", .uid = 1001, .gid = 1002, .gecos = "Joe Doe",
                            .home = "/home/joe", .shell = "/bin/bash",
                            .orig_dn = "uid=joe,dc=example" };
    struct sysdb_user *r;

    assert_int_equal(sysdb_get_user_by_name(tc->mem, tc->sysdb, "joe", &r), ENOENT);
    assert_int_equal(sysdb_get_user_by_uid(tc->mem, tc->sysdb, 1001, &r), ENOENT);
    assert_int_equal(sysdb_store_user(tc->sysdb, &u, NOW, TMO), EOK);

    assert_int_equal(sysdb_get_user_by_name(tc->mem, tc->sysdb, "joe", &r), EOK);
    assert_string_equal(r->name, "joe@" DOM);
    assert_int_equal(r->uid, 1001);
    assert_int_equal(r->gid, 1002);
    assert_string_equal(r->gecos, "Joe Doe");
    assert_string_equal(r->home, "/home/joe");
    assert_string_equal(r->shell, "/bin/bash");
    assert_string_equal(r->orig_dn, "uid=joe,dc=example");
    assert_int_equal(r->last_update, NOW);
    assert_int_equal(r->expire, NOW + TMO);
    talloc_free(r);

    assert_int_equal(sysdb_get_user_by_name(tc->mem, tc->sysdb, "joe@TEST.DOM", &r), EOK);
    assert_string_equal(r->name, "joe@" DOM);
    talloc_free(r);

    assert_int_equal(sysdb_get_user_by_uid(tc->mem, tc->sysdb, 1001, &r), EOK);
    assert_string_equal(r->name, "joe@" DOM);
    talloc_free(r);

    /* Optional attributes may be missing. */
    u.name = "min";
    u.uid = 1003;
    u.gecos = u.home = u.shell = u.orig_dn = NULL;
    assert_int_equal(sysdb_store_user(tc->sysdb, &u, NOW, TMO), EOK);
    assert_int_equal(sysdb_get_user_by_uid(tc->mem, tc->sysdb, 1003, &r), EOK);
    assert_null(r->gecos);
    assert_null(r->home);
    assert_null(r->shell);
    assert_null(r->orig_dn);
    talloc_free(r);

    /* The primary gid is not a group's gid. */
    struct sysdb_group *g;
    assert_int_equal(sysdb_get_group_by_gid(tc->mem, tc->sysdb, 1002, &g), ENOENT);
}

static void test_update_user(void **state)
{
    struct test_ctx *tc = *state;
    struct sysdb_user u = { .name = "joe", .uid = 1001, .gid = 1001, .gecos = "old",
                            .shell = "/bin/sh" };
    const char *groups[] = { "g1", NULL };
    struct sysdb_user *r;
    uint32_t *gids;
    size_t count;

    assert_int_equal(sysdb_store_user(tc->sysdb, &u, NOW, TMO), EOK);
    store_group(tc->sysdb, "g1", 2001, NULL);
    assert_int_equal(sysdb_store_initgroups(tc->sysdb, "joe", groups, NOW, TMO), EOK);

    u.gecos = "new";
    u.shell = NULL;
    assert_int_equal(sysdb_store_user(tc->sysdb, &u, NOW + 10, 20), EOK);
    assert_int_equal(sysdb_get_user_by_name(tc->mem, tc->sysdb, "joe", &r), EOK);
    assert_string_equal(r->gecos, "new");
    assert_null(r->shell);
    assert_int_equal(r->last_update, NOW + 10);
    assert_int_equal(r->expire, NOW + 30);
    talloc_free(r);

    /* The group list survives a user update. */
    assert_int_equal(sysdb_get_initgroups(tc->mem, tc->sysdb, "joe", &gids, &count, NULL), EOK);
    assert_int_equal(count, 1);
    assert_int_equal(gids[0], 2001);
    talloc_free(gids);
}

static void test_rename_by_uid(void **state)
{
    struct test_ctx *tc = *state;
    struct sysdb_user *r;
    struct sysdb_group *g;
    size_t count;
    struct sysdb_user **users;

    store_user(tc->sysdb, "joe", 1001);
    store_user(tc->sysdb, "jim", 1001);
    assert_int_equal(sysdb_get_user_by_name(tc->mem, tc->sysdb, "joe", &r), ENOENT);
    assert_int_equal(sysdb_get_user_by_uid(tc->mem, tc->sysdb, 1001, &r), EOK);
    assert_string_equal(r->name, "jim@" DOM);
    talloc_free(r);
    assert_int_equal(sysdb_enumerate_users(tc->mem, tc->sysdb, &users, &count), EOK);
    assert_int_equal(count, 1);
    talloc_free(users);

    store_group(tc->sysdb, "old", 3000, NULL);
    store_group(tc->sysdb, "new", 3000, NULL);
    assert_int_equal(sysdb_get_group_by_name(tc->mem, tc->sysdb, "old", &g), ENOENT);
    assert_int_equal(sysdb_get_group_by_gid(tc->mem, tc->sysdb, 3000, &g), EOK);
    assert_string_equal(g->name, "new@" DOM);
    talloc_free(g);

    /* Changing one's own uid keeps one entry. */
    store_user(tc->sysdb, "jim", 1005);
    assert_int_equal(sysdb_get_user_by_uid(tc->mem, tc->sysdb, 1001, &r), ENOENT);
    assert_int_equal(sysdb_get_user_by_uid(tc->mem, tc->sysdb, 1005, &r), EOK);
    talloc_free(r);
}

static void test_case_sensitive(void **state)
{
    struct test_ctx *tc = *state;
    struct sysdb_user *r;

    store_user(tc->sysdb, "Joe", 1001);
    store_user(tc->sysdb, "joe", 1002);
    assert_int_equal(sysdb_get_user_by_name(tc->mem, tc->sysdb, "Joe", &r), EOK);
    assert_int_equal(r->uid, 1001);
    assert_string_equal(r->name, "Joe@" DOM);
    talloc_free(r);
    assert_int_equal(sysdb_get_user_by_name(tc->mem, tc->sysdb, "JOE", &r), ENOENT);
}

static void test_case_insensitive(void **state)
{
    struct test_ctx *tc = *state;
    const char *members[] = { "Ann", "ANN", "\xc3\x89lise", NULL };
    struct sysdb_user *r;
    struct sysdb_group *g;
    struct sysdb_user **users;
    size_t count;

    store_user(tc->sysdb, "Joe", 1001);
    assert_int_equal(sysdb_get_user_by_name(tc->mem, tc->sysdb, "jOE@Test.Dom", &r), EOK);
    assert_string_equal(r->name, "joe@" DOM);
    talloc_free(r);
    store_user(tc->sysdb, "JOE", 1001);
    assert_int_equal(sysdb_enumerate_users(tc->mem, tc->sysdb, &users, &count), EOK);
    assert_int_equal(count, 1);
    talloc_free(users);

    store_group(tc->sysdb, "Admins", 2000, members);
    assert_int_equal(sysdb_get_group_by_name(tc->mem, tc->sysdb, "ADMINS", &g), EOK);
    assert_string_equal(g->name, "admins@" DOM);
    assert_string_equal(g->members[0], "ann@" DOM);
    assert_string_equal(g->members[1], "\xc3\xa9lise@" DOM);
    assert_null(g->members[2]);
    talloc_free(g);

    /* Non-ASCII folding. */
    store_user(tc->sysdb, "\xc3\x89MILE", 1003);
    assert_int_equal(sysdb_get_user_by_name(tc->mem, tc->sysdb, "\xc3\xa9mile", &r), EOK);
    assert_string_equal(r->name, "\xc3\xa9mile@" DOM);
    talloc_free(r);
}

static void test_case_preserving(void **state)
{
    struct test_ctx *tc = *state;
    const char *members[] = { "Ann", "ANN", "bob", NULL };
    struct sysdb_user *r;
    struct sysdb_group *g;
    struct sysdb_user **users;
    size_t count;

    store_user(tc->sysdb, "Joe", 1001);
    assert_int_equal(sysdb_get_user_by_name(tc->mem, tc->sysdb, "jOE", &r), EOK);
    assert_string_equal(r->name, "Joe@" DOM);
    talloc_free(r);
    store_user(tc->sysdb, "JOE", 1001);
    assert_int_equal(sysdb_enumerate_users(tc->mem, tc->sysdb, &users, &count), EOK);
    assert_int_equal(count, 1);
    assert_string_equal(users[0]->name, "JOE@" DOM);
    talloc_free(users);

    store_group(tc->sysdb, "Admins", 2000, members);
    assert_int_equal(sysdb_get_group_by_name(tc->mem, tc->sysdb, "admins", &g), EOK);
    assert_string_equal(g->name, "Admins@" DOM);
    assert_string_equal(g->members[0], "Ann@" DOM);
    assert_string_equal(g->members[1], "bob@" DOM);
    assert_null(g->members[2]);
    talloc_free(g);
}

static void test_expiry(void **state)
{
    struct test_ctx *tc = *state;
    struct sysdb_user u = { .name = "joe", .uid = 1001, .gid = 1001 };
    struct sysdb_user *r;

    assert_int_equal(sysdb_store_user(tc->sysdb, &u, NOW, 0), EOK);
    assert_int_equal(sysdb_get_user_by_name(tc->mem, tc->sysdb, "joe", &r), EOK);
    assert_int_equal(r->expire, NOW);
    talloc_free(r);
    assert_int_equal(sysdb_store_user(tc->sysdb, &u, NOW, UINT32_MAX), EOK);
    assert_int_equal(sysdb_get_user_by_name(tc->mem, tc->sysdb, "joe", &r), EOK);
    assert_int_equal(r->expire, (time_t)NOW + UINT32_MAX);
    talloc_free(r);
}

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

static void test_delete(void **state)
{
    struct test_ctx *tc = *state;
    struct sysdb_user *r;
    struct sysdb_group *g;

    store_user(tc->sysdb, "joe", 1001);
    store_group(tc->sysdb, "grp", 2001, NULL);
    assert_int_equal(sysdb_delete_user(tc->sysdb, "joe"), EOK);
    assert_int_equal(sysdb_delete_user(tc->sysdb, "joe"), ENOENT);
    assert_int_equal(sysdb_get_user_by_uid(tc->mem, tc->sysdb, 1001, &r), ENOENT);
    assert_int_equal(sysdb_delete_group(tc->sysdb, "grp"), EOK);
    assert_int_equal(sysdb_delete_group(tc->sysdb, "grp"), ENOENT);
    assert_int_equal(sysdb_get_group_by_gid(tc->mem, tc->sysdb, 2001, &g), ENOENT);
}

static void test_expire(void **state)
{
    struct test_ctx *tc = *state;
    const char *groups[] = { "g1", NULL };
    struct sysdb_user *r;
    struct sysdb_group *g;
    uint32_t *gids;
    size_t count;
    time_t expire;

    store_user(tc->sysdb, "joe", 1001);
    store_user(tc->sysdb, "ann", 1002);
    store_group(tc->sysdb, "g1", 2001, NULL);
    store_group(tc->sysdb, "g2", 2002, NULL);
    assert_int_equal(sysdb_store_initgroups(tc->sysdb, "joe", groups, NOW, TMO), EOK);

    assert_int_equal(sysdb_expire_user(tc->sysdb, "joe"), EOK);
    assert_int_equal(sysdb_expire_user(tc->sysdb, "nobody"), ENOENT);
    assert_int_equal(sysdb_get_user_by_name(tc->mem, tc->sysdb, "joe", &r), EOK);
    assert_int_equal(r->expire, 1);
    talloc_free(r);
    assert_int_equal(sysdb_get_initgroups(tc->mem, tc->sysdb, "joe", &gids, &count, &expire),
                     EOK);
    assert_int_equal(expire, 1);
    talloc_free(gids);
    assert_int_equal(sysdb_get_user_by_name(tc->mem, tc->sysdb, "ann", &r), EOK);
    assert_int_equal(r->expire, NOW + TMO);
    talloc_free(r);
    /* Expiring a user without a group list does not invent one. */
    assert_int_equal(sysdb_expire_user(tc->sysdb, "ann"), EOK);
    assert_int_equal(sysdb_get_initgroups(tc->mem, tc->sysdb, "ann", &gids, &count, &expire),
                     ENOENT);

    assert_int_equal(sysdb_expire_group(tc->sysdb, "g1"), EOK);
    assert_int_equal(sysdb_get_group_by_name(tc->mem, tc->sysdb, "g1", &g), EOK);
    assert_int_equal(g->expire, 1);
    talloc_free(g);
    assert_int_equal(sysdb_expire_all_groups(tc->sysdb), EOK);
    assert_int_equal(sysdb_get_group_by_name(tc->mem, tc->sysdb, "g2", &g), EOK);
    assert_int_equal(g->expire, 1);
    talloc_free(g);
    assert_int_equal(sysdb_expire_all_users(tc->sysdb), EOK);
    assert_int_equal(sysdb_get_user_by_name(tc->mem, tc->sysdb, "ann", &r), EOK);
    assert_int_equal(r->expire, 1);
    talloc_free(r);
}

static void test_enumerate(void **state)
{
    struct test_ctx *tc = *state;
    const char *members[] = { "u1", NULL };
    struct sysdb_user **users;
    struct sysdb_group **groups;
    size_t count;
    size_t i;
    int seen = 0;

    assert_int_equal(sysdb_enumerate_users(tc->mem, tc->sysdb, &users, &count), EOK);
    assert_int_equal(count, 0);
    assert_null(users[0]);
    talloc_free(users);

    store_user(tc->sysdb, "u1", 1001);
    store_user(tc->sysdb, "u2", 1002);
    store_group(tc->sysdb, "g1", 2001, members);
    assert_int_equal(sysdb_enumerate_users(tc->mem, tc->sysdb, &users, &count), EOK);
    assert_int_equal(count, 2);
    for (i = 0; i < count; i++) {
        seen |= users[i]->uid == 1001 ? 1 : users[i]->uid == 1002 ? 2 : 4;
    }
    assert_int_equal(seen, 3);
    assert_null(users[2]);
    talloc_free(users);
    assert_int_equal(sysdb_enumerate_groups(tc->mem, tc->sysdb, &groups, &count), EOK);
    assert_int_equal(count, 1);
    assert_string_equal(groups[0]->members[0], "u1@" DOM);
    talloc_free(groups);
}

static void test_transactions(void **state)
{
    struct test_ctx *tc = *state;
    struct sysdb_user u = { .name = "joe", .uid = 1001, .gid = 1001 };
    struct sysdb_user *r;

    assert_int_equal(sysdb_transaction_commit(tc->sysdb), EINVAL);
    assert_int_equal(sysdb_transaction_cancel(tc->sysdb), EINVAL);

    assert_int_equal(sysdb_transaction_start(tc->sysdb), EOK);
    assert_int_equal(sysdb_store_user(tc->sysdb, &u, NOW, TMO), EOK);
    assert_int_equal(sysdb_get_user_by_name(tc->mem, tc->sysdb, "joe", &r), EOK);
    talloc_free(r);
    assert_int_equal(sysdb_transaction_cancel(tc->sysdb), EOK);
    assert_int_equal(sysdb_get_user_by_name(tc->mem, tc->sysdb, "joe", &r), ENOENT);

    /* A failed store inside the caller's transaction dooms it. */
    assert_int_equal(sysdb_transaction_start(tc->sysdb), EOK);
    assert_int_equal(sysdb_store_user(tc->sysdb, &u, NOW, TMO), EOK);
    assert_int_equal(sysdb_store_initgroups(tc->sysdb, "joe",
                                            (const char *[]){ "missing", NULL }, NOW, TMO),
                     ENOENT);
    assert_int_equal(sysdb_transaction_commit(tc->sysdb), EIO);
    assert_int_equal(sysdb_get_user_by_name(tc->mem, tc->sysdb, "joe", &r), ENOENT);

    /* Nested commits reach the file at the outermost one. */
    assert_int_equal(sysdb_transaction_start(tc->sysdb), EOK);
    assert_int_equal(sysdb_transaction_start(tc->sysdb), EOK);
    assert_int_equal(sysdb_store_user(tc->sysdb, &u, NOW, TMO), EOK);
    assert_int_equal(sysdb_transaction_commit(tc->sysdb), EOK);
    assert_int_equal(sysdb_transaction_commit(tc->sysdb), EOK);
    assert_int_equal(sysdb_get_user_by_name(tc->mem, tc->sysdb, "joe", &r), EOK);
    talloc_free(r);

    /* transaction_end: an error cancels and is returned as it was; EOK commits. */
    u.name = "ann";
    u.uid = 1002;
    assert_int_equal(sysdb_transaction_start(tc->sysdb), EOK);
    assert_int_equal(sysdb_store_user(tc->sysdb, &u, NOW, TMO), EOK);
    assert_int_equal(sysdb_transaction_end(tc->sysdb, ERANGE), ERANGE);
    assert_int_equal(sysdb_get_user_by_name(tc->mem, tc->sysdb, "ann", &r), ENOENT);
    assert_int_equal(sysdb_transaction_start(tc->sysdb), EOK);
    assert_int_equal(sysdb_store_user(tc->sysdb, &u, NOW, TMO), EOK);
    assert_int_equal(sysdb_transaction_end(tc->sysdb, EOK), EOK);
    assert_int_equal(sysdb_get_user_by_name(tc->mem, tc->sysdb, "ann", &r), EOK);
    talloc_free(r);
    assert_int_equal(sysdb_transaction_end(tc->sysdb, EOK), EINVAL);  /* none open */
}

static void test_invalid_input(void **state)
{
    struct test_ctx *tc = *state;
    struct sysdb_user u = { .name = "joe", .uid = 1001, .gid = 1001 };
    struct sysdb_group g = { .name = "grp", .gid = 2001 };
    const char *bad_members[] = { "ok", "bad\xff", NULL };
    char longname[SYSDB_NAME_MAX + 2];
    struct sysdb_user *r;
    struct sysdb_user **users;
    size_t count;

    assert_int_equal(sysdb_store_user(NULL, &u, NOW, TMO), EINVAL);
    assert_int_equal(sysdb_store_user(tc->sysdb, NULL, NOW, TMO), EINVAL);
    u.name = "";
    assert_int_equal(sysdb_store_user(tc->sysdb, &u, NOW, TMO), EINVAL);
    assert_int_equal(sysdb_get_user_by_name(tc->mem, tc->sysdb, "", &r), EINVAL);
    u.name = "bad\xc3";
    assert_int_equal(sysdb_store_user(tc->sysdb, &u, NOW, TMO), EINVAL);
    u.name = "over\xc0\xaflong";
    assert_int_equal(sysdb_store_user(tc->sysdb, &u, NOW, TMO), EINVAL);
    u.name = "surrogate\xed\xa0\x80";
    assert_int_equal(sysdb_store_user(tc->sysdb, &u, NOW, TMO), EINVAL);
    memset(longname, 'a', sizeof(longname) - 1);
    longname[sizeof(longname) - 1] = '\0';
    u.name = longname;
    assert_int_equal(sysdb_store_user(tc->sysdb, &u, NOW, TMO), EINVAL);
    longname[SYSDB_NAME_MAX] = '\0';
    assert_int_equal(sysdb_store_user(tc->sysdb, &u, NOW, TMO), EOK);

    u.name = "root";
    u.uid = 0;
    assert_int_equal(sysdb_store_user(tc->sysdb, &u, NOW, TMO), EINVAL);
    u.uid = 1002;
    u.gid = 0;
    assert_int_equal(sysdb_store_user(tc->sysdb, &u, NOW, TMO), EINVAL);
    u.gid = 1002;
    u.gecos = "bad\xfe";
    assert_int_equal(sysdb_store_user(tc->sysdb, &u, NOW, TMO), EINVAL);

    g.gid = 0;
    assert_int_equal(sysdb_store_group(tc->sysdb, &g, true, NOW, TMO), EINVAL);
    g.gid = 2001;
    g.members = bad_members;
    assert_int_equal(sysdb_store_group(tc->sysdb, &g, true, NOW, TMO), EINVAL);
    assert_int_equal(sysdb_store_group(tc->sysdb, &g, false, NOW, TMO), EOK);

    /* Only the one valid user got in. */
    assert_int_equal(sysdb_enumerate_users(tc->mem, tc->sysdb, &users, &count), EOK);
    assert_int_equal(count, 1);
    talloc_free(users);

    /* Awkward but valid names: DN specials, an '@' of another realm. */
    u.name = "a,b=c+d\\e\"f<g>;h #";
    u.gecos = NULL;
    assert_int_equal(sysdb_store_user(tc->sysdb, &u, NOW, TMO), EOK);
    assert_int_equal(sysdb_get_user_by_name(tc->mem, tc->sysdb, u.name, &r), EOK);
    assert_string_equal(r->name, "a,b=c+d\\e\"f<g>;h #@" DOM);
    talloc_free(r);
    u.name = "joe@OTHER.ORG";
    u.uid = 1003;
    assert_int_equal(sysdb_store_user(tc->sysdb, &u, NOW, TMO), EOK);
    assert_int_equal(sysdb_get_user_by_uid(tc->mem, tc->sysdb, 1003, &r), EOK);
    assert_string_equal(r->name, "joe@OTHER.ORG@" DOM);
    talloc_free(r);
}

static void test_huge_attrs(void **state)
{
    struct test_ctx *tc = *state;
    struct sysdb_user u = { .name = "joe", .uid = 1001, .gid = 1001 };
    struct sysdb_user *r;
    char *big;

    big = talloc_size(tc->mem, 1024 * 1024 + 1);
    assert_non_null(big);
    memset(big, 'x', 1024 * 1024);
    big[1024 * 1024] = '\0';
    u.gecos = big;
    assert_int_equal(sysdb_store_user(tc->sysdb, &u, NOW, TMO), EINVAL);
    big[SYSDB_ATTR_MAX + 1] = '\0';
    assert_int_equal(sysdb_store_user(tc->sysdb, &u, NOW, TMO), EINVAL);
    u.gecos = NULL;
    u.home = big;
    assert_int_equal(sysdb_store_user(tc->sysdb, &u, NOW, TMO), EINVAL);
    big[SYSDB_ATTR_MAX] = '\0';
    assert_int_equal(sysdb_store_user(tc->sysdb, &u, NOW, TMO), EOK);
    assert_int_equal(sysdb_get_user_by_name(tc->mem, tc->sysdb, "joe", &r), EOK);
    assert_int_equal(strlen(r->home), SYSDB_ATTR_MAX);
    talloc_free(r);
    talloc_free(big);
}

static void test_reopen(void **state)
{
    struct test_ctx *tc = *state;
    struct sysdb_ctx *again;
    struct sysdb_user *r;
    struct stat st;

    store_user(tc->sysdb, "joe", 1001);
    assert_int_equal(stat(sysdb_path(tc->sysdb), &st), 0);
    assert_int_equal(st.st_mode & 0777, 0600);
    talloc_zfree(tc->sysdb);

    assert_int_equal(sysdb_open_ext(tc->mem, tc->dir, DOM, SYSDB_CASE_INSENSITIVE, backend,
                                    &again), EINVAL);
    assert_int_equal(sysdb_open_ext(tc->mem, tc->dir, DOM, SYSDB_CASE_SENSITIVE, backend,
                                    &again), EOK);
    assert_int_equal(sysdb_get_user_by_uid(tc->mem, again, 1001, &r), EOK);
    assert_string_equal(r->name, "joe@" DOM);
    talloc_free(r);
    talloc_free(again);

    assert_int_equal(sysdb_open_ext(tc->mem, tc->dir, "bad/dom", SYSDB_CASE_SENSITIVE,
                                    backend, &again), EINVAL);
}

static void test_names(void **state)
{
    struct test_ctx *tc = *state;
    char *s;

    assert_int_equal(sysdb_fqname(tc->mem, tc->sysdb, "joe", &s), EOK);
    assert_string_equal(s, "joe@" DOM);
    talloc_free(s);
    assert_int_equal(sysdb_short_name(tc->mem, tc->sysdb, "joe@" DOM, &s), EOK);
    assert_string_equal(s, "joe");
    talloc_free(s);
    assert_int_equal(sysdb_short_name(tc->mem, tc->sysdb, "joe@other", &s), EOK);
    assert_string_equal(s, "joe@other");
    talloc_free(s);
    assert_string_equal(sysdb_domain(tc->sysdb), DOM);
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

/* Adds an entry with the given string attributes (and a GUID for mdb) through plain ldb. */
static void raw_add(struct ldb_context *ldb, const char *dn, uint8_t guid_tag, ...)
{
    struct ldb_message *msg = ldb_msg_new(ldb);
    uint8_t guid[16] = { 0 };
    const char *attr;
    va_list ap;

    msg->dn = ldb_dn_new(msg, ldb, dn);
    va_start(ap, guid_tag);
    while ((attr = va_arg(ap, const char *)) != NULL) {
        assert_int_equal(ldb_msg_add_string(msg, attr, va_arg(ap, const char *)), LDB_SUCCESS);
    }
    va_end(ap);
    if (backend == SYSDB_BACKEND_MDB && guid_tag != 0) {
        guid[15] = guid_tag;
        assert_int_equal(ldb_msg_add_value(msg, "objectGUID",
                                           &(struct ldb_val){ guid, 16 }, NULL), LDB_SUCCESS);
    }
    assert_int_equal(ldb_add(ldb, msg), LDB_SUCCESS);
    talloc_free(msg);
}

/* A cache written by format version 1 (DNs under cn=<domain>,cn=sysdb, long attribute
 * names, objectGUID keys for mdb) is emptied and set up again on open, not refused. */
static void test_old_version_rebuilt(void **state)
{
    struct test_ctx *tc = *state;
    char *dir;
    char url[128];
    struct ldb_context *ldb;
    struct sysdb_ctx *sysdb;
    struct sysdb_user *r;
    struct sysdb_user **users;
    size_t count;

    dir = tc_tmpdir(tc->mem, "test_sysdb_v1");
    snprintf(url, sizeof(url), "%s://%s/cache_" DOM ".ldb",
             backend == SYSDB_BACKEND_MDB ? "mdb" : "tdb", dir);
    ldb = ldb_init(tc->mem, NULL);
    assert_non_null(ldb);
    assert_int_equal(ldb_connect(ldb, url, 0, NULL), LDB_SUCCESS);
    if (backend == SYSDB_BACKEND_MDB) {
        raw_add(ldb, "@INDEXLIST", 0, "@IDXATTR", "uidNumber", "@IDXGUID", "objectGUID",
                "@IDX_DN_GUID", "GUID", NULL);
    } else {
        raw_add(ldb, "@INDEXLIST", 0, "@IDXATTR", "uidNumber", NULL);
    }
    raw_add(ldb, "cn=sysdb", 1, "version", "1", "domain", DOM, "caseMode", "sensitive", NULL);
    raw_add(ldb, "name=old@" DOM ",cn=users,cn=" DOM ",cn=sysdb", 2, "objectClass", "user",
            "name", "old@" DOM, "uidNumber", "1001", "primaryGid", "1001",
            "lastUpdate", "1", "dataExpireTimestamp", "2", NULL);
    talloc_free(ldb);

    assert_int_equal(sysdb_open_ext(tc->mem, dir, DOM, SYSDB_CASE_SENSITIVE, backend, &sysdb),
                     EOK);
    assert_int_equal(sysdb_get_user_by_name(tc->mem, sysdb, "old", &r), ENOENT);
    assert_int_equal(sysdb_get_user_by_uid(tc->mem, sysdb, 1001, &r), ENOENT);
    assert_int_equal(sysdb_enumerate_users(tc->mem, sysdb, &users, &count), EOK);
    assert_int_equal(count, 0);
    talloc_free(users);
    store_user(sysdb, "new", 1001);
    talloc_free(sysdb);

    /* Reopened: version 2 now, the new entry kept. */
    assert_int_equal(sysdb_open_ext(tc->mem, dir, DOM, SYSDB_CASE_SENSITIVE, backend, &sysdb),
                     EOK);
    assert_int_equal(sysdb_get_user_by_uid(tc->mem, sysdb, 1001, &r), EOK);
    assert_string_equal(r->name, "new@" DOM);
    talloc_free(r);
    assert_int_equal(sysdb_enumerate_users(tc->mem, sysdb, &users, &count), EOK);
    assert_int_equal(count, 1);
    talloc_free(users);
    talloc_free(sysdb);
    tc_tmpdir_remove(dir);
}

#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)

static const struct CMUnitTest tests[] = {
    T(test_store_get_user),
    T(test_update_user),
    T(test_rename_by_uid),
    T(test_case_sensitive),
    cmocka_unit_test_setup_teardown(test_case_insensitive, setup_insensitive, teardown),
    cmocka_unit_test_setup_teardown(test_case_preserving, setup_preserving, teardown),
    T(test_expiry),
    T(test_initgroups),
    T(test_group_members),
    T(test_group_stored_expired),
    T(test_group_unchanged_not_written),
    T(test_packed_split),
    T(test_initgroups_given_gids),
    T(test_name_list_chunks),
    T(test_delete),
    T(test_expire),
    T(test_enumerate),
    T(test_transactions),
    T(test_invalid_input),
    T(test_huge_attrs),
    T(test_reopen),
    T(test_old_version_rebuilt),
    T(test_names),
    T(test_large_group),
    T(test_large_initgroups),
};

/* Opens and closes a cache of each back-end before any baseline is taken: ldb loads its
 * back-end modules once per process, onto the NULL context. */
static void warm_up(void)
{
    TALLOC_CTX *mem;
    struct sysdb_ctx *sysdb;
    char *dir;

    talloc_enable_null_tracking();
    talloc_free(tevent_context_init(NULL));
    mem = talloc_new(NULL);
    assert_non_null(mem);
    dir = tc_tmpdir(mem, "test_sysdb_warm");
    assert_int_equal(sysdb_open_ext(mem, dir, "tdb.dom", SYSDB_CASE_SENSITIVE,
                                    SYSDB_BACKEND_TDB, &sysdb), EOK);
    assert_int_equal(sysdb_open_ext(mem, dir, "mdb.dom", SYSDB_CASE_SENSITIVE,
                                    SYSDB_BACKEND_MDB, &sysdb), EOK);
    tc_tmpdir_remove(dir);
    talloc_free(mem);
}

int main(void)
{
    int failed;

    warm_up();
    backend = SYSDB_BACKEND_TDB;
    failed = cmocka_run_group_tests_name("sysdb_tdb", tests, NULL, NULL);
    backend = SYSDB_BACKEND_MDB;
    failed += cmocka_run_group_tests_name("sysdb_mdb", tests, NULL, NULL);
    return failed;
}
