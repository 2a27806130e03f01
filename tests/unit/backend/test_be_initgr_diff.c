/*
 * be_initgr_diff(): which groups a user joined or left between two initgroups lists.
 * The lists come from the cache (old) and the directory (new), in any order, possibly with
 * a group twice; the result drives both the memory-cache notice and the expiry of the
 * changed groups, so a missed gid is a stale answer and an extra one a wasted refresh.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "providers/backend/be_initgr_notify.h"
#include "tests/unit/common/tc_common.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

static void expect_diff(const uint32_t *old, size_t n_old, const uint32_t *new, size_t n_new,
                        const uint32_t *want, size_t n_want)
{
    struct tc_leaks leaks;
    TALLOC_CTX *ctx;
    uint32_t *changed = NULL;
    size_t n = 99;
    size_t i;

    tc_leak_start(&leaks);
    ctx = talloc_new(NULL);
    assert_int_equal(be_initgr_diff(ctx, old, n_old, new, n_new, &changed, &n), EOK);
    assert_int_equal(n, n_want);
    for (i = 0; i < n; i++) {
        assert_int_equal(changed[i], want[i]);
    }
    talloc_free(ctx);
    tc_leak_check(&leaks);
}

static void test_same_groups_any_order(void **state)
{
    const uint32_t old[] = { 30, 10, 20 };
    const uint32_t new[] = { 20, 30, 10, 10 };

    (void)state;
    expect_diff(old, N(old), new, N(new), NULL, 0);
}

static void test_joined_and_left(void **state)
{
    const uint32_t old[] = { 5, 7, 9, 4000000000u };
    const uint32_t new[] = { 9, 8, 1, 4000000000u };
    const uint32_t want[] = { 1, 5, 7, 8 };

    (void)state;
    expect_diff(old, N(old), new, N(new), want, N(want));
}

static void test_empty_sides(void **state)
{
    const uint32_t some[] = { 3, 3, 2 };
    const uint32_t want[] = { 2, 3 };

    (void)state;
    expect_diff(NULL, 0, some, N(some), want, N(want));
    expect_diff(some, N(some), NULL, 0, want, N(want));
    expect_diff(NULL, 0, NULL, 0, NULL, 0);
}

static void test_big_lists(void **state)
{
    TALLOC_CTX *ctx = talloc_new(NULL);
    uint32_t *old = talloc_array(ctx, uint32_t, 5000);
    uint32_t *new = talloc_array(ctx, uint32_t, 5000);
    uint32_t *changed;
    size_t n;
    uint32_t i;

    (void)state;
    for (i = 0; i < 5000; i++) {
        old[i] = 100000 + i;
        new[4999 - i] = 100000 + i + (i == 1234 ? 9000 : 0);  /* one group swapped */
    }
    assert_int_equal(be_initgr_diff(ctx, old, 5000, new, 5000, &changed, &n), EOK);
    assert_int_equal(n, 2);
    assert_int_equal(changed[0], 101234);
    assert_int_equal(changed[1], 110234);
    talloc_free(ctx);
}

static void test_bad_args(void **state)
{
    uint32_t *changed;
    size_t n;

    (void)state;
    assert_int_equal(be_initgr_diff(NULL, NULL, 1, NULL, 0, &changed, &n), EINVAL);
    assert_int_equal(be_initgr_diff(NULL, NULL, 0, NULL, 0, NULL, &n), EINVAL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_same_groups_any_order),
        cmocka_unit_test(test_joined_and_left),
        cmocka_unit_test(test_empty_sides),
        cmocka_unit_test(test_big_lists),
        cmocka_unit_test(test_bad_args),
    };

    int failed = cmocka_run_group_tests(tests, NULL, NULL);

    tc_leak_end();
    return failed;
}
