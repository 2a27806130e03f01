/*
 * Unit tests of src/db (sysdb) on temporary cache files: stores and lookups of users and
 * groups, takeover of a uid or gid, case modes, expiry, delete, enumeration, transactions,
 * invalid and huge input, persistence and format upgrade. Member lists, group lists
 * (initgroups) and large groups are in test_sysdb_lists.c. The whole suite runs once per
 * ldb back-end (tdb, mdb); every test checks that it leaves no talloc blocks behind
 * (sysdb_fixture.c).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tests/unit/db/sysdb_fixture.h"
#include "util/util.h"
#include "db/sysdb.h"
#include "db/sysdb_rcache.h"
#include "db/sysdb_private.h"
#include "db/sysdb_creds.h"

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

/* ldap_user_principal: stored with the user, read by sysdb_get_user_upn, replaced and
 * removed by later stores, refused when not UTF-8. */
static void test_user_upn(void **state)
{
    struct test_ctx *tc = *state;
    struct sysdb_user u = { .name = "joe", .uid = 1001, .gid = 1001,
                            .upn = "j.doe@OTHER.REALM" };
    struct sysdb_user *r;
    char *upn = NULL;

    assert_int_equal(sysdb_get_user_upn(tc->mem, tc->sysdb, "joe", &upn), ENOENT);
    assert_int_equal(sysdb_store_user(tc->sysdb, &u, NOW, TMO), EOK);
    assert_int_equal(sysdb_get_user_upn(tc->mem, tc->sysdb, "joe", &upn), EOK);
    assert_string_equal(upn, "j.doe@OTHER.REALM");
    talloc_free(upn);
    assert_int_equal(sysdb_get_user_upn(tc->mem, tc->sysdb, "joe@" DOM, &upn), EOK);
    talloc_free(upn);
    /* Lookups through the read cache do not carry it. */
    assert_int_equal(sysdb_get_user_by_name(tc->mem, tc->sysdb, "joe", &r), EOK);
    assert_null(r->upn);
    talloc_free(r);

    u.upn = "joe.new@OTHER.REALM";
    assert_int_equal(sysdb_store_user(tc->sysdb, &u, NOW, TMO), EOK);
    assert_int_equal(sysdb_get_user_upn(tc->mem, tc->sysdb, "joe", &upn), EOK);
    assert_string_equal(upn, "joe.new@OTHER.REALM");
    talloc_free(upn);

    /* The directory dropped it: so does the cache. */
    u.upn = NULL;
    assert_int_equal(sysdb_store_user(tc->sysdb, &u, NOW, TMO), EOK);
    assert_int_equal(sysdb_get_user_upn(tc->mem, tc->sysdb, "joe", &upn), ENOENT);

    u.upn = "bad\xff@REALM";
    assert_int_equal(sysdb_store_user(tc->sysdb, &u, NOW, TMO), EINVAL);
    assert_int_equal(sysdb_get_user_upn(tc->mem, tc->sysdb, "nobody", &upn), ENOENT);
    assert_int_equal(sysdb_get_user_upn(tc->mem, tc->sysdb, NULL, &upn), EINVAL);
}

/* Users by e-mail address (SSSD's lookup by e-mail): exact in a case-sensitive domain,
 * several holders all returned, an address changed or removed is no longer found. */
static void test_user_email(void **state)
{
    struct test_ctx *tc = *state;
    struct sysdb_user u = { .name = "alice", .uid = 1001, .gid = 1001,
                            .email = "alice@mail.example" };
    struct sysdb_user **users;
    struct sysdb_user *r;
    size_t count;

    assert_int_equal(sysdb_get_users_by_email(tc->mem, tc->sysdb, "alice@mail.example",
                                              &users, &count), ENOENT);
    assert_int_equal(sysdb_store_user(tc->sysdb, &u, NOW, TMO), EOK);
    assert_int_equal(sysdb_get_users_by_email(tc->mem, tc->sysdb, "alice@mail.example",
                                              &users, &count), EOK);
    assert_int_equal(count, 1);
    assert_string_equal(users[0]->name, "alice@" DOM);
    assert_string_equal(users[0]->email, "alice@mail.example");
    assert_int_equal(users[0]->uid, 1001);
    assert_null(users[1]);
    talloc_free(users);
    /* Case-sensitive domain: another spelling is another address. */
    assert_int_equal(sysdb_get_users_by_email(tc->mem, tc->sysdb, "Alice@mail.example",
                                              &users, &count), ENOENT);
    /* The address is returned by the lookups by name too (read cache included). */
    assert_int_equal(sysdb_get_user_by_name(tc->mem, tc->sysdb, "alice", &r), EOK);
    assert_string_equal(r->email, "alice@mail.example");
    assert_non_null(r->extra);
    assert_null(r->extra[0]);
    talloc_free(r);

    /* A second holder: both returned. */
    u.name = "bob";
    u.uid = 1002;
    assert_int_equal(sysdb_store_user(tc->sysdb, &u, NOW, TMO), EOK);
    assert_int_equal(sysdb_get_users_by_email(tc->mem, tc->sysdb, "alice@mail.example",
                                              &users, &count), EOK);
    assert_int_equal(count, 2);
    talloc_free(users);

    /* Bob's address changes, alice's is removed. */
    u.email = "bob@mail.example";
    assert_int_equal(sysdb_store_user(tc->sysdb, &u, NOW, TMO), EOK);
    u.name = "alice";
    u.uid = 1001;
    u.email = NULL;
    assert_int_equal(sysdb_store_user(tc->sysdb, &u, NOW, TMO), EOK);
    assert_int_equal(sysdb_get_users_by_email(tc->mem, tc->sysdb, "alice@mail.example",
                                              &users, &count), ENOENT);
    assert_int_equal(sysdb_get_users_by_email(tc->mem, tc->sysdb, "bob@mail.example",
                                              &users, &count), EOK);
    assert_int_equal(count, 1);
    assert_string_equal(users[0]->name, "bob@" DOM);
    talloc_free(users);
    assert_int_equal(sysdb_get_user_by_name(tc->mem, tc->sysdb, "alice", &r), EOK);
    assert_null(r->email);
    talloc_free(r);

    /* Deleted users hold nothing; an address no name could be is EINVAL. */
    assert_int_equal(sysdb_delete_user(tc->sysdb, "bob"), EOK);
    assert_int_equal(sysdb_get_users_by_email(tc->mem, tc->sysdb, "bob@mail.example",
                                              &users, &count), ENOENT);
    assert_int_equal(sysdb_get_users_by_email(tc->mem, tc->sysdb, "", &users, &count),
                     EINVAL);
}

/* SIDs (objectSIDString): stored for users and groups, returned by every lookup (read
 * cache included, so through the flat form), found through the index by kind, changed or
 * removed by the next store, gone with the entry. */
static void test_sid(void **state)
{
    struct test_ctx *tc = *state;
    struct sysdb_user u = { .name = "alice", .uid = 1001, .gid = 2001,
                            .sid = "S-1-5-21-1-2-3-1104" };
    struct sysdb_group g = { .name = "devs", .gid = 2001, .sid = "S-1-5-21-1-2-3-1105" };
    struct sysdb_user *r;
    struct sysdb_group *rg;
    int i;

    assert_int_equal(sysdb_store_user(tc->sysdb, &u, NOW, TMO), EOK);
    assert_int_equal(sysdb_store_group(tc->sysdb, &g, true, NOW, TMO), EOK);
    /* Twice: the ldb read, then the read cache's flat copy. */
    for (i = 0; i < 2; i++) {
        assert_int_equal(sysdb_get_user_by_name(tc->mem, tc->sysdb, "alice", &r), EOK);
        assert_string_equal(r->sid, "S-1-5-21-1-2-3-1104");
        talloc_free(r);
        assert_int_equal(sysdb_get_group_by_gid(tc->mem, tc->sysdb, 2001, &rg), EOK);
        assert_string_equal(rg->sid, "S-1-5-21-1-2-3-1105");
        talloc_free(rg);
        assert_int_equal(sysdb_get_user_by_sid(tc->mem, tc->sysdb, "S-1-5-21-1-2-3-1104", &r),
                         EOK);
        assert_string_equal(r->name, "alice@" DOM);
        assert_int_equal(r->uid, 1001);
        talloc_free(r);
        assert_int_equal(sysdb_get_group_by_sid(tc->mem, tc->sysdb, "S-1-5-21-1-2-3-1105",
                                                &rg), EOK);
        assert_string_equal(rg->name, "devs@" DOM);
        talloc_free(rg);
    }
    /* By kind: a user's SID is no group's, and the other way round; exact match only. */
    assert_int_equal(sysdb_get_group_by_sid(tc->mem, tc->sysdb, "S-1-5-21-1-2-3-1104", &rg),
                     ENOENT);
    assert_int_equal(sysdb_get_user_by_sid(tc->mem, tc->sysdb, "S-1-5-21-1-2-3-1105", &r),
                     ENOENT);
    assert_int_equal(sysdb_get_user_by_sid(tc->mem, tc->sysdb, "S-1-5-21-1-2-3-110", &r),
                     ENOENT);
    assert_int_equal(sysdb_get_user_by_sid(tc->mem, tc->sysdb, "", &r), EINVAL);
    /* A filter's special characters are a value, not a filter. */
    assert_int_equal(sysdb_get_user_by_sid(tc->mem, tc->sysdb, "*", &r), ENOENT);
    assert_int_equal(sysdb_get_user_by_sid(tc->mem, tc->sysdb, "S-1-5-21-1-2-3-1104)(x=*",
                                           &r), ENOENT);

    /* Changed, then removed. */
    u.sid = "S-1-5-21-1-2-3-2000";
    assert_int_equal(sysdb_store_user(tc->sysdb, &u, NOW, TMO), EOK);
    assert_int_equal(sysdb_get_user_by_sid(tc->mem, tc->sysdb, "S-1-5-21-1-2-3-1104", &r),
                     ENOENT);
    assert_int_equal(sysdb_get_user_by_sid(tc->mem, tc->sysdb, "S-1-5-21-1-2-3-2000", &r),
                     EOK);
    talloc_free(r);
    u.sid = NULL;
    assert_int_equal(sysdb_store_user(tc->sysdb, &u, NOW, TMO), EOK);
    assert_int_equal(sysdb_get_user_by_sid(tc->mem, tc->sysdb, "S-1-5-21-1-2-3-2000", &r),
                     ENOENT);
    assert_int_equal(sysdb_get_user_by_name(tc->mem, tc->sysdb, "alice", &r), EOK);
    assert_null(r->sid);
    talloc_free(r);
    /* A group seen again without members (initgroups) takes its new SID too. */
    g.sid = "S-1-5-21-1-2-3-3000";
    assert_int_equal(sysdb_store_group(tc->sysdb, &g, false, NOW, TMO), EOK);
    assert_int_equal(sysdb_get_group_by_sid(tc->mem, tc->sysdb, "S-1-5-21-1-2-3-3000", &rg),
                     EOK);
    talloc_free(rg);
    assert_int_equal(sysdb_delete_group(tc->sysdb, "devs"), EOK);
    assert_int_equal(sysdb_get_group_by_sid(tc->mem, tc->sysdb, "S-1-5-21-1-2-3-3000", &rg),
                     ENOENT);
}

/* ldap_user_extra_attrs: name, value pairs (a name once per value) kept in order, returned
 * by every lookup (read cache included), replaced or removed by the next store; an odd
 * list is refused. */
static void test_user_extra(void **state)
{
    struct test_ctx *tc = *state;
    const char *extra[] = { "phone", "+1 555", "phone", "+1 556", "dept", "ops", NULL };
    const char *odd[] = { "phone", NULL };
    struct sysdb_user u = { .name = "joe", .uid = 1001, .gid = 1001, .extra = extra };
    struct sysdb_user *r;
    int i;

    assert_int_equal(sysdb_store_user(tc->sysdb, &u, NOW, TMO), EOK);
    for (i = 0; i < 2; i++) {   /* read from ldb, then from the read cache */
        assert_int_equal(sysdb_get_user_by_name(tc->mem, tc->sysdb, "joe", &r), EOK);
        assert_string_equal(r->extra[0], "phone");
        assert_string_equal(r->extra[1], "+1 555");
        assert_string_equal(r->extra[3], "+1 556");
        assert_string_equal(r->extra[4], "dept");
        assert_string_equal(r->extra[5], "ops");
        assert_null(r->extra[6]);
        talloc_free(r);
    }
    u.extra = odd;
    assert_int_equal(sysdb_store_user(tc->sysdb, &u, NOW, TMO), EINVAL);
    u.extra = NULL;
    assert_int_equal(sysdb_store_user(tc->sysdb, &u, NOW, TMO), EOK);
    assert_int_equal(sysdb_get_user_by_uid(tc->mem, tc->sysdb, 1001, &r), EOK);
    assert_null(r->extra[0]);
    talloc_free(r);
}

/* case_sensitive = false: addresses compare folded. */
static void test_user_email_insensitive(void **state)
{
    struct test_ctx *tc = *state;
    struct sysdb_user u = { .name = "Alice", .uid = 1001, .gid = 1001,
                            .email = "Alice@Mail.Example" };
    struct sysdb_user **users;
    size_t count;

    assert_int_equal(sysdb_store_user(tc->sysdb, &u, NOW, TMO), EOK);
    assert_int_equal(sysdb_get_users_by_email(tc->mem, tc->sysdb, "ALICE@mail.example",
                                              &users, &count), EOK);
    assert_int_equal(count, 1);
    assert_string_equal(users[0]->name, "alice@" DOM);
    talloc_free(users);
}

/* A cache of format version 2 (no e-mail nor SID index) or 3 (no SID index) is upgraded in
 * place on open: its users and their cached credentials stay; a user stored then is found
 * by e-mail address and by SID. */
static void prev_version_upgraded(struct test_ctx *tc, const char *version)
{
    struct sysdb_user u = { .name = "old", .uid = 1001, .gid = 1001 };
    const struct sysdb_creds_policy pol = { 0 };
    const uint8_t pw[] = "Secret123";
    struct ldb_message *msg;
    struct sysdb_ctx *sysdb;
    struct sysdb_user **users;
    struct sysdb_user *r;
    size_t count;
    char *dir;

    dir = tc_tmpdir(tc->mem, "test_sysdb_prev");
    assert_int_equal(sysdb_open_ext(tc->mem, dir, DOM, SYSDB_CASE_SENSITIVE, backend, &sysdb),
                     EOK);
    assert_int_equal(sysdb_store_user(sysdb, &u, NOW, TMO), EOK);
    assert_int_equal(sysdb_creds_save(sysdb, "old", pw, sizeof(pw) - 1, &pol, NOW), EOK);
    /* Made a file of that version: the version, and @INDEXLIST without what came later. */
    msg = ldb_msg_new(tc->mem);
    msg->dn = ldb_dn_new(msg, sysdb->ldb, "@INDEXLIST");
    assert_int_equal(ldb_msg_add_empty(msg, "@IDXATTR", LDB_FLAG_MOD_DELETE, NULL),
                     LDB_SUCCESS);
    if (strcmp(version, "2") == 0) {
        assert_int_equal(ldb_msg_add_string(msg, "@IDXATTR", "mailk"), LDB_SUCCESS);
    }
    assert_int_equal(ldb_msg_add_string(msg, "@IDXATTR", "objectSIDString"), LDB_SUCCESS);
    assert_int_equal(ldb_modify(sysdb->ldb, msg), LDB_SUCCESS);
    talloc_free(msg);
    msg = ldb_msg_new(tc->mem);
    msg->dn = ldb_dn_new(msg, sysdb->ldb, "cn=sysdb");
    assert_int_equal(ldb_msg_add_empty(msg, "version", LDB_FLAG_MOD_REPLACE, NULL),
                     LDB_SUCCESS);
    assert_int_equal(ldb_msg_add_string(msg, "version", version), LDB_SUCCESS);
    assert_int_equal(ldb_modify(sysdb->ldb, msg), LDB_SUCCESS);
    talloc_free(msg);
    talloc_free(sysdb);

    assert_int_equal(sysdb_open_ext(tc->mem, dir, DOM, SYSDB_CASE_SENSITIVE, backend, &sysdb),
                     EOK);
    assert_int_equal(sysdb_get_user_by_name(tc->mem, sysdb, "old", &r), EOK);
    talloc_free(r);
    assert_int_equal(sysdb_creds_check(sysdb, "old", pw, sizeof(pw) - 1, &pol, NOW, NULL, NULL),
                     EOK);
    u.email = "old@mail.example";
    u.sid = "S-1-5-21-7-8-9-1001";
    assert_int_equal(sysdb_store_user(sysdb, &u, NOW, TMO), EOK);
    assert_int_equal(sysdb_get_users_by_email(tc->mem, sysdb, "old@mail.example", &users,
                                              &count), EOK);
    assert_int_equal(count, 1);
    talloc_free(users);
    assert_int_equal(sysdb_get_user_by_sid(tc->mem, sysdb, u.sid, &r), EOK);
    talloc_free(r);
    talloc_free(sysdb);
    /* Reopened: the current version now, nothing emptied. */
    assert_int_equal(sysdb_open_ext(tc->mem, dir, DOM, SYSDB_CASE_SENSITIVE, backend, &sysdb),
                     EOK);
    assert_int_equal(sysdb_get_users_by_email(tc->mem, sysdb, "old@mail.example", &users,
                                              &count), EOK);
    talloc_free(users);
    assert_int_equal(sysdb_get_user_by_sid(tc->mem, sysdb, u.sid, &r), EOK);
    talloc_free(r);
    talloc_free(sysdb);
    tc_tmpdir_remove(dir);
}

static void test_prev_version_upgraded(void **state)
{
    prev_version_upgraded(*state, "2");
    prev_version_upgraded(*state, "3");
}

static const struct CMUnitTest tests[] = {
    T(test_store_get_user),
    T(test_update_user),
    T(test_rename_by_uid),
    T(test_case_sensitive),
    cmocka_unit_test_setup_teardown(test_case_insensitive, setup_insensitive, teardown),
    T(test_user_email),
    T(test_user_extra),
    T(test_sid),
    cmocka_unit_test_setup_teardown(test_user_email_insensitive, setup_insensitive, teardown),
    cmocka_unit_test_setup_teardown(test_case_preserving, setup_preserving, teardown),
    T(test_expiry),
    T(test_delete),
    T(test_expire),
    T(test_enumerate),
    T(test_transactions),
    T(test_invalid_input),
    T(test_huge_attrs),
    T(test_reopen),
    T(test_old_version_rebuilt),
    T(test_prev_version_upgraded),
    T(test_names),
    T(test_user_upn),
};

int main(void)
{
    int failed;

    sysdb_fixture_warm_up();
    backend = SYSDB_BACKEND_TDB;
    failed = cmocka_run_group_tests_name("sysdb_tdb", tests, NULL, NULL);
    backend = SYSDB_BACKEND_MDB;
    failed += cmocka_run_group_tests_name("sysdb_mdb", tests, NULL, NULL);
    return failed;
}
