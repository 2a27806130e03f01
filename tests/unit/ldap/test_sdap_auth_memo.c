/*
 * Unit tests of sdap_auth_memo (access_provider = ad's memo of the user's entry): an
 * entry is found within the window only, not from the future, by DN without regard to
 * case, as a copy that outlives the memo's own; a window of 0 keeps nothing; a full memo
 * makes room. Leak checks on every test.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/unit/common/tc_common.h"
#include "util/util.h"
#include "providers/ldap/sdap_auth_memo.h"

#define NOW 1700000000
#define DN "CN=alice,CN=Users,DC=ad,DC=test"

/* A two-attribute entry: userAccountControl (one value), accountExpires (holding a NUL). */
struct entry {
    struct sdap_rule_attr attrs[2];
    struct berval bv[2];
    struct berval *vals[2][2];
};

static void entry_init(struct entry *e, const char *uac)
{
    e->bv[0] = (struct berval){ .bv_len = strlen(uac), .bv_val = (char *)uac };
    e->bv[1] = (struct berval){ .bv_len = 3, .bv_val = (char *)"1\0002" };
    for (int i = 0; i < 2; i++) {
        e->vals[i][0] = &e->bv[i];
        e->vals[i][1] = NULL;
        e->attrs[i].values = e->vals[i];
    }
    e->attrs[0].name = "userAccountControl";
    e->attrs[1].name = "accountExpires";
}

static int setup_leaks(void **state)
{
    struct tc_leaks *l = calloc(1, sizeof(*l));

    tc_leak_start(l);
    *state = l;
    return 0;
}

static int teardown_leaks(void **state)
{
    tc_leak_check(*state);
    free(*state);
    return 0;
}

static void test_window(void **state)
{
    TALLOC_CTX *tmp = talloc_new(NULL);
    struct sdap_auth_memo *memo = sdap_auth_memo_new(tmp, 5);
    struct sdap_rule_attr *attrs = NULL;
    struct entry e;
    size_t num = 0;

    (void)state;
    assert_non_null(memo);
    entry_init(&e, "512");
    assert_int_equal(sdap_auth_memo_get(memo, tmp, DN, NOW, &attrs, &num), ENOENT);
    sdap_auth_memo_put(memo, DN, NOW, e.attrs, 2);
    assert_int_equal(sdap_auth_memo_get(memo, tmp, DN, NOW + 4, &attrs, &num), EOK);
    assert_int_equal(num, 2);
    assert_string_equal(attrs[0].name, "userAccountControl");
    assert_int_equal(attrs[0].values[0]->bv_len, 3);
    assert_memory_equal(attrs[0].values[0]->bv_val, "512", 3);
    assert_null(attrs[0].values[1]);
    assert_int_equal(attrs[1].values[0]->bv_len, 3);
    assert_memory_equal(attrs[1].values[0]->bv_val, "1\0002", 3);
    /* The window's end, and a clock that went back: not used. */
    assert_int_equal(sdap_auth_memo_get(memo, tmp, DN, NOW + 5, &attrs, &num), ENOENT);
    assert_int_equal(sdap_auth_memo_get(memo, tmp, DN, NOW - 1, &attrs, &num), ENOENT);
    /* DNs compare without regard to case; another DN is another entry. */
    assert_int_equal(sdap_auth_memo_get(memo, tmp, "cn=ALICE,cn=users,dc=AD,dc=test", NOW,
                                        &attrs, &num), EOK);
    assert_int_equal(sdap_auth_memo_get(memo, tmp, "CN=bob,CN=Users,DC=ad,DC=test", NOW,
                                        &attrs, &num), ENOENT);
    talloc_free(tmp);
}

static void test_replace_and_copy(void **state)
{
    TALLOC_CTX *tmp = talloc_new(NULL);
    struct sdap_auth_memo *memo = sdap_auth_memo_new(tmp, 5);
    struct sdap_rule_attr *attrs = NULL;
    struct entry e;
    size_t num = 0;

    (void)state;
    entry_init(&e, "512");
    sdap_auth_memo_put(memo, DN, NOW, e.attrs, 2);
    assert_int_equal(sdap_auth_memo_get(memo, tmp, DN, NOW, &attrs, &num), EOK);
    /* A newer read replaces the older; the copy handed out before stays as it was. */
    entry_init(&e, "514");
    sdap_auth_memo_put(memo, DN, NOW + 3, e.attrs, 2);
    assert_memory_equal(attrs[0].values[0]->bv_val, "512", 3);
    assert_int_equal(sdap_auth_memo_get(memo, tmp, DN, NOW + 7, &attrs, &num), EOK);
    assert_memory_equal(attrs[0].values[0]->bv_val, "514", 3);
    /* The memo gone, its copies stay usable. */
    talloc_free(memo);
    assert_memory_equal(attrs[0].values[0]->bv_val, "514", 3);
    talloc_free(tmp);
}

static void test_no_window_and_full(void **state)
{
    TALLOC_CTX *tmp = talloc_new(NULL);
    struct sdap_auth_memo *off = sdap_auth_memo_new(tmp, 0);
    struct sdap_auth_memo *memo = sdap_auth_memo_new(tmp, 5);
    struct sdap_rule_attr *attrs = NULL;
    struct entry e;
    size_t num = 0;
    char dn[64];

    (void)state;
    entry_init(&e, "512");
    sdap_auth_memo_put(off, DN, NOW, e.attrs, 2);
    assert_int_equal(sdap_auth_memo_get(off, tmp, DN, NOW, &attrs, &num), ENOENT);
    assert_int_equal(sdap_auth_memo_get(NULL, tmp, DN, NOW, &attrs, &num), ENOENT);
    /* More users than the memo holds: the newest is always there. */
    for (int i = 0; i < 5000; i++) {
        snprintf(dn, sizeof(dn), "CN=u%d,CN=Users,DC=ad,DC=test", i);
        sdap_auth_memo_put(memo, dn, NOW, e.attrs, 2);
        assert_int_equal(sdap_auth_memo_get(memo, tmp, dn, NOW, &attrs, &num), EOK);
    }
    talloc_free(tmp);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_window, setup_leaks, teardown_leaks),
        cmocka_unit_test_setup_teardown(test_replace_and_copy, setup_leaks, teardown_leaks),
        cmocka_unit_test_setup_teardown(test_no_window_and_full, setup_leaks, teardown_leaks),
    };
    int failed;

    failed = cmocka_run_group_tests_name("sdap_auth_memo", tests, NULL, NULL);
    talloc_disable_null_tracking();     /* frees the tracking context (LeakSanitizer) */
    return failed;
}
