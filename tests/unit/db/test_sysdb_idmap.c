/*
 * sysdb_idmap.c: the ID-mapping slices recorded in a domain's cache. Stored, replaced by
 * SID, kept across a reopen of the cache file (what a restart reads), malformed input
 * refused; on both back-ends.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "util/util.h"
#include "db/sysdb_idmap.h"
#include "tests/unit/db/sysdb_fixture.h"

#define SID_A "S-1-5-21-1-2-3"
#define SID_B "S-1-5-21-4-5-6"

/* The slice recorded for sid, or -1. */
static int64_t slice_of(struct sysdb_ctx *sysdb, const char *sid, const char **_name)
{
    struct sysdb_idmap *maps = NULL;
    size_t n = 0;
    int64_t found = -1;
    size_t i;

    assert_int_equal(sysdb_idmap_list(NULL, sysdb, &maps, &n), EOK);
    for (i = 0; i < n; i++) {
        if (strcmp(maps[i].sid, sid) == 0) {
            assert_int_equal(found, -1);        /* one record per SID */
            found = maps[i].slice;
            if (_name != NULL) {
                *_name = talloc_strdup(NULL, maps[i].name);
            }
        }
    }
    talloc_free(maps);
    return found;
}

static void test_store_list(void **state)
{
    struct test_ctx *tc = *state;
    struct sysdb_idmap *maps = NULL;
    const char *name = NULL;
    size_t n = 7;

    assert_int_equal(sysdb_idmap_list(tc->mem, tc->sysdb, &maps, &n), EOK);
    assert_int_equal(n, 0);
    talloc_free(maps);
    assert_int_equal(sysdb_idmap_store(tc->sysdb, "ad.test", SID_A, 0), EOK);
    assert_int_equal(sysdb_idmap_store(tc->sysdb, SID_B, SID_B, 4093), EOK);
    assert_int_equal(slice_of(tc->sysdb, SID_A, &name), 0);
    assert_string_equal(name, "ad.test");
    talloc_free(discard_const(name));
    assert_int_equal(slice_of(tc->sysdb, SID_B, NULL), 4093);
    /* the same SID again: replaced, not added */
    assert_int_equal(sysdb_idmap_store(tc->sysdb, "other", SID_B, 12), EOK);
    assert_int_equal(slice_of(tc->sysdb, SID_B, &name), 12);
    assert_string_equal(name, "other");
    talloc_free(discard_const(name));
    assert_int_equal(slice_of(tc->sysdb, SID_A, NULL), 0);
    /* users and groups are not disturbed, nor do they disturb the records */
    store_user(tc->sysdb, "joe", 1000);
    assert_int_equal(slice_of(tc->sysdb, SID_A, NULL), 0);
}

static void test_reopen(void **state)
{
    struct test_ctx *tc = *state;
    struct sysdb_ctx *again = NULL;

    assert_int_equal(sysdb_idmap_store(tc->sysdb, "ad.test", SID_A, 7777), EOK);
    talloc_free(tc->sysdb);
    tc->sysdb = NULL;
    assert_int_equal(sysdb_open_ext(tc->mem, tc->dir, DOM, SYSDB_CASE_SENSITIVE, backend,
                                    &again), EOK);
    tc->sysdb = again;
    assert_int_equal(slice_of(tc->sysdb, SID_A, NULL), 7777);
}

static void test_refused(void **state)
{
    struct test_ctx *tc = *state;

    assert_int_equal(sysdb_idmap_store(tc->sysdb, "", SID_A, 1), EINVAL);
    assert_int_equal(sysdb_idmap_store(tc->sysdb, "a b", SID_A, 1), EINVAL);
    assert_int_equal(sysdb_idmap_store(tc->sysdb, "a", "S-1 -5", 1), EINVAL);
    assert_int_equal(sysdb_idmap_store(tc->sysdb, "a", NULL, 1), EINVAL);
    assert_int_equal(sysdb_idmap_store(tc->sysdb, "a\xff", SID_A, 1), EINVAL);
    assert_int_equal(slice_of(tc->sysdb, SID_A, NULL), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        T(test_store_list),
        T(test_reopen),
        T(test_refused),
    };
    int failed;

    sysdb_fixture_warm_up();
    backend = SYSDB_BACKEND_TDB;
    failed = cmocka_run_group_tests_name("sysdb_idmap_tdb", tests, NULL, NULL);
    backend = SYSDB_BACKEND_MDB;
    failed += cmocka_run_group_tests_name("sysdb_idmap_mdb", tests, NULL, NULL);
    return failed;
}
