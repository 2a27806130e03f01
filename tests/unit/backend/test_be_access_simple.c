/*
 * Unit tests of be_access_simple (access_provider = simple): the decision table of
 * sssd-simple(5) (empty lists, allow lists, deny lists winning, groups including the
 * primary one), short and qualified names, the domain's case rule (sensitive, insensitive,
 * preserving), list parsing (spaces, empty items), invalid and hostile input. The case rule
 * comes from a real cache opened in a temporary directory. Leak checks on every test.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>

#include "tests/unit/common/tc_common.h"
#include "util/util.h"
#include "providers/backend/be_access_simple.h"

#define DOM "simple.test"

struct test_ctx {
    struct tc_leaks leaks;
    TALLOC_CTX *mem;
    char *dir;
    struct sysdb_ctx *sysdb;
};

static int setup_mode(void **state, enum sysdb_case mode)
{
    struct test_ctx *tc = calloc(1, sizeof(*tc));

    assert_non_null(tc);
    tc_leak_start(&tc->leaks);
    tc->mem = talloc_new(NULL);
    tc->dir = tc_tmpdir(tc->mem, "test_be_access_simple");
    assert_int_equal(sysdb_open(tc->mem, tc->dir, DOM, mode, &tc->sysdb), EOK);
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

static struct be_access_simple *rules(struct test_ctx *tc, const char *au, const char *du,
                                      const char *ag, const char *dg)
{
    struct be_access_simple *r = NULL;

    assert_int_equal(be_access_simple_parse(tc->mem, tc->sysdb, au, du, ag, dg, &r), EOK);
    assert_non_null(r);
    return r;
}

/* 1 allowed, 0 denied, -1 error. */
static int decide(struct be_access_simple *r, const char *user, const char *const *groups)
{
    bool allowed = false;
    errno_t ret;

    ret = be_access_simple_check(r, user, groups, &allowed);
    if (ret != EOK) {
        return -1;
    }
    return allowed ? 1 : 0;
}

static const char *const g_staff[] = { "joe", "staff", NULL };      /* primary, then others */
static const char *const g_admins[] = { "joe", "staff", "admins", NULL };
static const char *const g_none[] = { NULL };

static void test_empty_allows_all(void **state)
{
    struct test_ctx *tc = *state;
    struct be_access_simple *r = rules(tc, NULL, "", " , ", NULL);

    assert_true(be_access_simple_is_empty(r));
    assert_int_equal(decide(r, "joe", g_staff), 1);
    assert_int_equal(decide(r, "anyone", NULL), 1);
    talloc_free(r);
}

static void test_allow_users(void **state)
{
    struct test_ctx *tc = *state;
    struct be_access_simple *r = rules(tc, "joe, ann@" DOM, NULL, NULL, NULL);

    assert_false(be_access_simple_is_empty(r));
    assert_int_equal(decide(r, "joe", NULL), 1);
    assert_int_equal(decide(r, "joe@" DOM, g_none), 1);
    assert_int_equal(decide(r, "ann", NULL), 1);
    assert_int_equal(decide(r, "bob", g_admins), 0);
    /* Case sensitive domain: another case is another user. */
    assert_int_equal(decide(r, "Joe", NULL), 0);
    /* No substring or prefix matches. */
    assert_int_equal(decide(r, "jo", NULL), 0);
    assert_int_equal(decide(r, "joey", NULL), 0);
    talloc_free(r);
}

static void test_deny_users(void **state)
{
    struct test_ctx *tc = *state;
    struct be_access_simple *r = rules(tc, NULL, "bob", NULL, NULL);

    assert_int_equal(decide(r, "bob", NULL), 0);
    assert_int_equal(decide(r, "bob@" DOM, NULL), 0);
    assert_int_equal(decide(r, "joe", NULL), 1);
    talloc_free(r);

    /* Deny wins over allow, for users and for groups. */
    r = rules(tc, "joe,bob", "bob", NULL, NULL);
    assert_int_equal(decide(r, "bob", NULL), 0);
    assert_int_equal(decide(r, "joe", NULL), 1);
    assert_int_equal(decide(r, "ann", NULL), 0);
    talloc_free(r);
    r = rules(tc, "joe", NULL, NULL, "admins");
    assert_int_equal(decide(r, "joe", g_staff), 1);
    assert_int_equal(decide(r, "joe", g_admins), 0);
    talloc_free(r);
}

static void test_groups(void **state)
{
    struct test_ctx *tc = *state;
    const char *const primary_only[] = { "staff", NULL };
    struct be_access_simple *r = rules(tc, NULL, NULL, "staff", NULL);

    assert_int_equal(decide(r, "joe", g_staff), 1);
    /* The primary group counts (the caller lists it). */
    assert_int_equal(decide(r, "ann", primary_only), 1);
    assert_int_equal(decide(r, "bob", g_none), 0);
    assert_int_equal(decide(r, "bob", NULL), 0);
    talloc_free(r);

    /* Allowed by user, or by group; denied by group even then. */
    r = rules(tc, "ann", NULL, "staff", "admins");
    assert_int_equal(decide(r, "ann", NULL), 1);
    assert_int_equal(decide(r, "joe", g_staff), 1);
    assert_int_equal(decide(r, "joe", g_admins), 0);
    assert_int_equal(decide(r, "ann", g_admins), 0);
    talloc_free(r);

    /* Only a deny group: everyone else is allowed. */
    r = rules(tc, NULL, NULL, NULL, "admins@" DOM);
    assert_int_equal(decide(r, "joe", g_staff), 1);
    assert_int_equal(decide(r, "joe", g_admins), 0);
    assert_int_equal(decide(r, "nobody", NULL), 1);
    talloc_free(r);

    /* A group list does not stand for users, nor a user list for groups. */
    r = rules(tc, "staff", NULL, "joe", NULL);
    assert_int_equal(decide(r, "bob", primary_only), 0);
    assert_int_equal(decide(r, "joe", primary_only), 0);
    assert_int_equal(decide(r, "staff", NULL), 1);
    talloc_free(r);
}

static void test_case_insensitive(void **state)
{
    struct test_ctx *tc = *state;
    const char *const groups[] = { "ADMINS", NULL };
    struct be_access_simple *r = rules(tc, "Joe, ÉLODIE", "BOB@SIMPLE.TEST", NULL, "admins");

    assert_int_equal(decide(r, "joe", NULL), 1);
    assert_int_equal(decide(r, "JOE@" DOM, NULL), 1);
    assert_int_equal(decide(r, "élodie", NULL), 1);
    assert_int_equal(decide(r, "Bob", NULL), 0);
    assert_int_equal(decide(r, "joe", groups), 0);
    talloc_free(r);
}

static void test_case_preserving(void **state)
{
    struct test_ctx *tc = *state;
    struct be_access_simple *r = rules(tc, "Joe", NULL, NULL, NULL);

    assert_int_equal(decide(r, "joe", NULL), 1);
    assert_int_equal(decide(r, "JOE", NULL), 1);
    assert_int_equal(decide(r, "ann", NULL), 0);
    talloc_free(r);
}

static void test_other_domain_and_parsing(void **state)
{
    struct test_ctx *tc = *state;
    struct be_access_simple *r;

    /* joe@other is not this domain's joe. */
    r = rules(tc, "joe@other.test", NULL, NULL, NULL);
    assert_int_equal(decide(r, "joe", NULL), 0);
    talloc_free(r);
    /* Spaces and tabs trimmed, empty items skipped; inner spaces are part of a name. */
    r = rules(tc, " ,\tjoe ,, domain users ,", NULL, NULL, NULL);
    assert_int_equal(decide(r, "joe", NULL), 1);
    assert_int_equal(decide(r, "domain users", NULL), 1);
    assert_int_equal(decide(r, "domain", NULL), 0);
    talloc_free(r);
}

static void test_invalid(void **state)
{
    struct test_ctx *tc = *state;
    struct be_access_simple *r = NULL;
    char *big;
    char *many;
    bool allowed = true;
    size_t i;

    /* A name longer than a name may be, or not UTF-8: a configuration error. */
    big = talloc_zero_size(tc->mem, 400);
    memset(big, 'a', 399);
    assert_int_equal(be_access_simple_parse(tc->mem, tc->sysdb, big, NULL, NULL, NULL, &r),
                     ERR_INVALID_CONFIG);
    assert_int_equal(be_access_simple_parse(tc->mem, tc->sysdb, NULL, NULL, NULL,
                                            "ok,\xff\xfe", &r), ERR_INVALID_CONFIG);
    assert_null(r);
    assert_int_equal(be_access_simple_parse(tc->mem, NULL, "joe", NULL, NULL, NULL, &r),
                     EINVAL);
    assert_int_equal(be_access_simple_parse(tc->mem, tc->sysdb, "joe", NULL, NULL, NULL,
                                            NULL), EINVAL);

    /* A long list works and is exact. */
    many = talloc_strdup(tc->mem, "");
    for (i = 0; i < 5000; i++) {
        many = talloc_asprintf_append(many, "user%zu,", i);
    }
    r = rules(tc, many, NULL, NULL, NULL);
    assert_int_equal(decide(r, "user4999", NULL), 1);
    assert_int_equal(decide(r, "user5000", NULL), 0);

    /* Bad names at check time: an error, never a decision. */
    assert_int_equal(be_access_simple_check(r, big, NULL, &allowed), EINVAL);
    assert_int_equal(be_access_simple_check(r, "", NULL, &allowed), EINVAL);
    assert_int_equal(be_access_simple_check(r, NULL, NULL, &allowed), EINVAL);
    assert_int_equal(be_access_simple_check(NULL, "joe", NULL, &allowed), EINVAL);
    assert_int_equal(be_access_simple_check(r, "joe", NULL, NULL), EINVAL);
    talloc_free(r);
    r = rules(tc, NULL, NULL, "g", NULL);
    {
        const char *const bad_groups[] = { "\xff", NULL };
        assert_int_equal(be_access_simple_check(r, "joe", bad_groups, &allowed), EINVAL);
    }
    assert_true(allowed);   /* untouched on error */
    talloc_free(r);
    talloc_free(many);
    talloc_free(big);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_empty_allows_all, setup, teardown),
        cmocka_unit_test_setup_teardown(test_allow_users, setup, teardown),
        cmocka_unit_test_setup_teardown(test_deny_users, setup, teardown),
        cmocka_unit_test_setup_teardown(test_groups, setup, teardown),
        cmocka_unit_test_setup_teardown(test_case_insensitive, setup_insensitive, teardown),
        cmocka_unit_test_setup_teardown(test_case_preserving, setup_preserving, teardown),
        cmocka_unit_test_setup_teardown(test_other_domain_and_parsing, setup, teardown),
        cmocka_unit_test_setup_teardown(test_invalid, setup, teardown),
    };

    TALLOC_CTX *mem;
    struct sysdb_ctx *sysdb;
    char *dir;

    /* ldb loads its modules once per process onto the NULL context: before any baseline. */
    talloc_enable_null_tracking();
    talloc_free(tevent_context_init(NULL));
    mem = talloc_new(NULL);
    dir = tc_tmpdir(mem, "test_be_access_simple");
    assert_int_equal(sysdb_open(mem, dir, DOM, SYSDB_CASE_SENSITIVE, &sysdb), EOK);
    talloc_free(sysdb);
    tc_tmpdir_remove(dir);
    talloc_free(mem);
    return cmocka_run_group_tests_name("be_access_simple", tests, NULL, NULL);
}
