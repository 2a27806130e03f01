/*
 * sysdb_subdomains.c: the trusted domains recorded in a domain's cache. Written whole,
 * replaced whole (a trust gone is gone), emptied, kept across a reopen of the cache file,
 * found by DNS or flat name in any case, malformed input refused; a trusted domain's
 * cached users and groups purged, nobody else's; on both back-ends.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "util/util.h"
#include "db/sysdb_subdomains.h"
#include "tests/unit/db/sysdb_fixture.h"

static const struct sysdb_subdom B = { "b.test", "B", "S-1-5-21-4-5-6", 3, 2, 8 };
static const struct sysdb_subdom C = { "c.test", "CEE", "S-1-5-21-7-8-9", 1, 2, 0 };

static size_t count(struct sysdb_ctx *sysdb)
{
    struct sysdb_subdom *subs = NULL;
    size_t n = 99;

    assert_int_equal(sysdb_subdom_list(NULL, sysdb, &subs, &n), EOK);
    talloc_free(subs);
    return n;
}

static void test_replace_list(void **state)
{
    struct test_ctx *tc = *state;
    struct sysdb_subdom both[2] = { B, C };
    struct sysdb_subdom *subs = NULL;
    struct sysdb_subdom found;
    size_t n = 0;

    assert_int_equal(count(tc->sysdb), 0);
    assert_int_equal(sysdb_subdom_replace(tc->sysdb, both, 2), EOK);
    assert_int_equal(sysdb_subdom_list(tc->mem, tc->sysdb, &subs, &n), EOK);
    assert_int_equal(n, 2);
    assert_string_equal(subs[0].name, "b.test");
    assert_string_equal(subs[0].flat, "B");
    assert_string_equal(subs[0].sid, "S-1-5-21-4-5-6");
    assert_int_equal(subs[0].direction, 3);
    assert_int_equal(subs[0].type, 2);
    assert_int_equal(subs[0].attributes, 8);
    assert_string_equal(subs[1].name, "c.test");
    assert_int_equal(sysdb_subdom_find(tc->mem, tc->sysdb, "cee", &found), EOK);
    assert_string_equal(found.name, "c.test");
    assert_int_equal(sysdb_subdom_find(tc->mem, tc->sysdb, "B.TEST", &found), EOK);
    assert_string_equal(found.sid, "S-1-5-21-4-5-6");
    /* c.test is no longer trusted: gone */
    assert_int_equal(sysdb_subdom_replace(tc->sysdb, both, 1), EOK);
    assert_int_equal(count(tc->sysdb), 1);
    assert_int_equal(sysdb_subdom_find(tc->mem, tc->sysdb, "c.test", &found), ENOENT);
    /* no trust at all, twice (the attribute already gone) */
    assert_int_equal(sysdb_subdom_replace(tc->sysdb, NULL, 0), EOK);
    assert_int_equal(count(tc->sysdb), 0);
    assert_int_equal(sysdb_subdom_replace(tc->sysdb, NULL, 0), EOK);
    assert_int_equal(count(tc->sysdb), 0);
    /* users are not disturbed, nor do they disturb the list */
    assert_int_equal(sysdb_subdom_replace(tc->sysdb, both, 2), EOK);
    store_user(tc->sysdb, "joe", 1000);
    assert_int_equal(count(tc->sysdb), 2);
}

static void test_reopen(void **state)
{
    struct test_ctx *tc = *state;
    struct sysdb_ctx *again = NULL;

    assert_int_equal(sysdb_subdom_replace(tc->sysdb, &B, 1), EOK);
    talloc_free(tc->sysdb);
    tc->sysdb = NULL;
    assert_int_equal(sysdb_open_ext(tc->mem, tc->dir, DOM, SYSDB_CASE_SENSITIVE, backend,
                                    &again), EOK);
    tc->sysdb = again;
    assert_int_equal(count(tc->sysdb), 1);
}

static void test_refused(void **state)
{
    struct test_ctx *tc = *state;
    struct sysdb_subdom bad;

    assert_int_equal(sysdb_subdom_replace(tc->sysdb, &B, 1), EOK);
    bad = B;
    bad.name = "";
    assert_int_equal(sysdb_subdom_replace(tc->sysdb, &bad, 1), EINVAL);
    bad = B;
    bad.flat = "B C";
    assert_int_equal(sysdb_subdom_replace(tc->sysdb, &bad, 1), EINVAL);
    bad = B;
    bad.sid = NULL;
    assert_int_equal(sysdb_subdom_replace(tc->sysdb, &bad, 1), EINVAL);
    bad = B;
    bad.name = "b\xff";
    assert_int_equal(sysdb_subdom_replace(tc->sysdb, &bad, 1), EINVAL);
    assert_int_equal(sysdb_subdom_replace(tc->sysdb, NULL, 1), EINVAL);
    /* a refused list leaves the recorded one */
    assert_int_equal(count(tc->sysdb), 1);
}

static bool has_user(struct test_ctx *tc, const char *name)
{
    struct sysdb_user *u = NULL;
    errno_t ret = sysdb_get_user_by_name(tc->mem, tc->sysdb, name, &u);

    assert_true(ret == EOK || ret == ENOENT);
    return ret == EOK;
}

static bool has_group(struct test_ctx *tc, const char *name)
{
    struct sysdb_group *g = NULL;
    errno_t ret = sysdb_get_group_by_name(tc->mem, tc->sysdb, name, &g);

    assert_true(ret == EOK || ret == ENOENT);
    return ret == EOK;
}

static void test_purge(void **state)
{
    struct test_ctx *tc = *state;
    size_t removed = 99;

    store_user(tc->sysdb, "dave@b.test", 5001);
    store_user(tc->sysdb, "erin@B.TEST", 5002);
    store_user(tc->sysdb, "joe", 5003);
    store_user(tc->sysdb, "carl@c.test", 5004);
    store_user(tc->sysdb, "x@sub.b.test", 5005);       /* another domain's */
    store_group(tc->sysdb, "staff@b.test", 6001, NULL);
    store_group(tc->sysdb, "staff", 6002, NULL);
    assert_int_equal(sysdb_subdom_purge(tc->sysdb, "b.test", &removed), EOK);
    assert_int_equal(removed, 3);
    assert_false(has_user(tc, "dave@b.test"));
    assert_false(has_user(tc, "erin@B.TEST"));
    assert_false(has_group(tc, "staff@b.test"));
    assert_true(has_user(tc, "joe"));
    assert_true(has_user(tc, "carl@c.test"));
    assert_true(has_user(tc, "x@sub.b.test"));
    assert_true(has_group(tc, "staff"));
    assert_int_equal(sysdb_subdom_purge(tc->sysdb, "b.test", &removed), EOK);
    assert_int_equal(removed, 0);
    assert_int_equal(sysdb_subdom_purge(tc->sysdb, "a b", &removed), EINVAL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        T(test_replace_list),
        T(test_reopen),
        T(test_refused),
        T(test_purge),
    };
    int failed;

    sysdb_fixture_warm_up();
    backend = SYSDB_BACKEND_TDB;
    failed = cmocka_run_group_tests_name("sysdb_subdomains_tdb", tests, NULL, NULL);
    backend = SYSDB_BACKEND_MDB;
    failed += cmocka_run_group_tests_name("sysdb_subdomains_mdb", tests, NULL, NULL);
    return failed;
}
