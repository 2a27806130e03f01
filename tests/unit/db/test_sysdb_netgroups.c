/*
 * Unit tests of the sysdb netgroup cache (sysdb_netgroups.h) on temporary cache files, once
 * per ldb back-end: store, read back, replace, delete, expire one and all, list, case
 * modes, refusal of bad values, and the triple splitter's SSSD-compatible rules (spaces,
 * empty fields, "-", malformed triples). Leak-checked in teardown (sysdb_fixture.c).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "tests/unit/db/sysdb_fixture.h"
#include "util/util.h"
#include "db/sysdb_netgroups.h"

static void store_ng(struct sysdb_ctx *sysdb, const char *name, const char **triples,
                     const char **members, time_t now, uint32_t tmo)
{
    struct sysdb_netgroup ng = {
        .name = name, .triples = triples, .members = members, .orig_dn = "cn=x,dc=t",
    };

    assert_int_equal(sysdb_store_netgroup(sysdb, &ng, now, tmo), EOK);
}

static void test_netgroup_store_get(void **state)
{
    struct test_ctx *tc = *state;
    const char *triples[] = { "(host1,alice,dom)", "(-,bob,)", NULL };
    const char *members[] = { "inner", "missing", NULL };
    const char *fewer[] = { "(h,,)", NULL };
    struct sysdb_netgroup *ng;

    assert_int_equal(sysdb_get_netgroup(tc->mem, tc->sysdb, "ng1", &ng), ENOENT);
    store_ng(tc->sysdb, "ng1", triples, members, NOW, TMO);
    assert_int_equal(sysdb_get_netgroup(tc->mem, tc->sysdb, "ng1", &ng), EOK);
    assert_string_equal(ng->name, "ng1@" DOM);
    assert_string_equal(ng->triples[0], "(host1,alice,dom)");
    assert_string_equal(ng->triples[1], "(-,bob,)");
    assert_null(ng->triples[2]);
    assert_string_equal(ng->members[0], "inner");
    assert_string_equal(ng->members[1], "missing");
    assert_null(ng->members[2]);
    assert_string_equal(ng->orig_dn, "cn=x,dc=t");
    assert_int_equal(ng->last_update, NOW);
    assert_int_equal(ng->expire, NOW + TMO);
    talloc_free(ng);

    /* Replaced: the members go away, fewer triples. By the internal name too. */
    store_ng(tc->sysdb, "ng1@" DOM, fewer, NULL, NOW + 1, 10);
    assert_int_equal(sysdb_get_netgroup(tc->mem, tc->sysdb, "ng1", &ng), EOK);
    assert_string_equal(ng->triples[0], "(h,,)");
    assert_null(ng->triples[1]);
    assert_null(ng->members[0]);
    assert_int_equal(ng->expire, NOW + 11);
    talloc_free(ng);

    /* An empty netgroup is a netgroup. */
    store_ng(tc->sysdb, "empty", NULL, NULL, NOW, TMO);
    assert_int_equal(sysdb_get_netgroup(tc->mem, tc->sysdb, "empty", &ng), EOK);
    assert_null(ng->triples[0]);
    assert_null(ng->members[0]);
    talloc_free(ng);

    /* A user of the same name is another entry. */
    store_user(tc->sysdb, "ng1", 1001);
    assert_int_equal(sysdb_get_netgroup(tc->mem, tc->sysdb, "ng1", &ng), EOK);
    talloc_free(ng);
}

static void test_netgroup_delete_expire_list(void **state)
{
    struct test_ctx *tc = *state;
    const char *triples[] = { "(a,b,c)", NULL };
    struct sysdb_netgroup *ng;
    const char **names;
    size_t count;

    assert_int_equal(sysdb_list_netgroups(tc->mem, tc->sysdb, &names, &count), EOK);
    assert_int_equal(count, 0);
    talloc_free(names);
    assert_int_equal(sysdb_expire_all_netgroups(tc->sysdb), EOK);
    assert_int_equal(sysdb_expire_netgroup(tc->sysdb, "nope"), ENOENT);
    assert_int_equal(sysdb_delete_netgroup(tc->sysdb, "nope"), ENOENT);

    store_ng(tc->sysdb, "a", triples, NULL, NOW, TMO);
    store_ng(tc->sysdb, "b", triples, NULL, NOW, TMO);
    store_ng(tc->sysdb, "c", triples, NULL, NOW, TMO);
    store_user(tc->sysdb, "u", 1001);
    assert_int_equal(sysdb_list_netgroups(tc->mem, tc->sysdb, &names, &count), EOK);
    assert_int_equal(count, 3);
    talloc_free(names);

    assert_int_equal(sysdb_expire_netgroup(tc->sysdb, "a"), EOK);
    assert_int_equal(sysdb_get_netgroup(tc->mem, tc->sysdb, "a", &ng), EOK);
    assert_int_equal(ng->expire, 1);
    assert_string_equal(ng->triples[0], "(a,b,c)");
    talloc_free(ng);
    assert_int_equal(sysdb_get_netgroup(tc->mem, tc->sysdb, "b", &ng), EOK);
    assert_int_equal(ng->expire, NOW + TMO);
    talloc_free(ng);

    assert_int_equal(sysdb_expire_all_netgroups(tc->sysdb), EOK);
    assert_int_equal(sysdb_get_netgroup(tc->mem, tc->sysdb, "c", &ng), EOK);
    assert_int_equal(ng->expire, 1);
    talloc_free(ng);

    assert_int_equal(sysdb_delete_netgroup(tc->sysdb, "b"), EOK);
    assert_int_equal(sysdb_get_netgroup(tc->mem, tc->sysdb, "b", &ng), ENOENT);
    assert_int_equal(sysdb_list_netgroups(tc->mem, tc->sysdb, &names, &count), EOK);
    assert_int_equal(count, 2);
    talloc_free(names);
}

static void test_netgroup_bad_values(void **state)
{
    struct test_ctx *tc = *state;
    const char *empty_triple[] = { "", NULL };
    const char *bad_utf8[] = { "(\xff,,)", NULL };
    struct sysdb_netgroup ng = { .name = "x" };
    struct sysdb_netgroup *got;

    ng.triples = empty_triple;
    assert_int_equal(sysdb_store_netgroup(tc->sysdb, &ng, NOW, TMO), EINVAL);
    ng.triples = NULL;
    ng.members = bad_utf8;
    assert_int_equal(sysdb_store_netgroup(tc->sysdb, &ng, NOW, TMO), EINVAL);
    ng.members = NULL;
    ng.name = "";
    assert_int_equal(sysdb_store_netgroup(tc->sysdb, &ng, NOW, TMO), EINVAL);
    assert_int_equal(sysdb_get_netgroup(tc->mem, tc->sysdb, "x", &got), ENOENT);
}

static void test_netgroup_insensitive(void **state)
{
    struct test_ctx *tc = *state;
    struct sysdb_netgroup *ng;

    store_ng(tc->sysdb, "MixedNG", NULL, NULL, NOW, TMO);
    assert_int_equal(sysdb_get_netgroup(tc->mem, tc->sysdb, "mixedng", &ng), EOK);
    talloc_free(ng);
    assert_int_equal(sysdb_get_netgroup(tc->mem, tc->sysdb, "MIXEDNG", &ng), EOK);
    talloc_free(ng);
}

static void split_ok(const char *triple, const char *h, const char *u, const char *d)
{
    char *host = (char *)"x";
    char *user = (char *)"x";
    char *domain = (char *)"x";
    TALLOC_CTX *mem = talloc_new(NULL);

    assert_int_equal(sysdb_netgr_split_triple(mem, triple, &host, &user, &domain), EOK);
    if (h == NULL) assert_null(host); else assert_string_equal(host, h);
    if (u == NULL) assert_null(user); else assert_string_equal(user, u);
    if (d == NULL) assert_null(domain); else assert_string_equal(domain, d);
    talloc_free(mem);
}

static void test_netgroup_split_triple(void **state)
{
    char *h, *u, *d;
    const char *bad[] = {
        "", "host,user,dom", "(host,user)", "(host,user,dom", "(a,b,c) x", "(a,b,c)(d,e,f)",
        "x(a,b,c)",
    };
    size_t i;

    (void)state;
    split_ok("(host,user,domain)", "host", "user", "domain");
    split_ok("(,,)", NULL, NULL, NULL);
    split_ok("  ( h1 , u1 ,  d1 )  ", "h1", "u1", "d1");
    split_ok("(-,alice,)", "-", "alice", NULL);
    split_ok("(,-,)", NULL, "-", NULL);
    split_ok("(a b,c,d)", "a b", "c", "d");
    split_ok("((a,b,c)", "(a", "b", "c");     /* as SSSD: only the first ( is syntax */
    for (i = 0; i < SSS_ARRAY_SIZE(bad); i++) {
        assert_int_equal(sysdb_netgr_split_triple(NULL, bad[i], &h, &u, &d), EINVAL);
    }
}

static const struct CMUnitTest tests[] = {
    T(test_netgroup_store_get),
    T(test_netgroup_delete_expire_list),
    T(test_netgroup_bad_values),
    cmocka_unit_test_setup_teardown(test_netgroup_insensitive, setup_insensitive, teardown),
    cmocka_unit_test(test_netgroup_split_triple),
};

int main(void)
{
    int failed;

    sysdb_fixture_warm_up();
    backend = SYSDB_BACKEND_TDB;
    failed = cmocka_run_group_tests_name("sysdb_netgroups_tdb", tests, NULL, NULL);
    backend = SYSDB_BACKEND_MDB;
    failed += cmocka_run_group_tests_name("sysdb_netgroups_mdb", tests, NULL, NULL);
    return failed;
}
