/*
 * Unit tests of src/db/sysdb_sudo (the sudo rules of a domain) on temporary cache files, once
 * per ldb back-end: rules stored and read back with every attribute and multi-valued ones in
 * order, replaced by name (case-insensitively), deleted, the name list and the generation
 * kept by every write, expiry (one rule, all, unknown), the refresh bookkeeping, refused
 * names and values leaving the cache as it was, and users untouched by rule writes.
 * Every test checks for talloc leaks (sysdb_fixture.c).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <string.h>

#include "tests/unit/db/sysdb_fixture.h"
#include "util/util.h"
#include "db/sysdb_sudo.h"

static struct sysdb_sudo_rule *mk_rule(TALLOC_CTX *mem, const char *name, const char *user,
                                       const char *cmd)
{
    struct sysdb_sudo_rule *r = talloc_zero(mem, struct sysdb_sudo_rule);

    assert_non_null(r);
    r->name = talloc_strdup(r, name);
    r->values[SYSDB_SUDO_USER] = talloc_zero_array(r, const char *, 3);
    r->values[SYSDB_SUDO_USER][0] = talloc_strdup(r, user);
    r->values[SYSDB_SUDO_USER][1] = talloc_strdup(r, "%admins");
    r->values[SYSDB_SUDO_COMMAND] = talloc_zero_array(r, const char *, 2);
    r->values[SYSDB_SUDO_COMMAND][0] = talloc_strdup(r, cmd);
    r->orig_dn = talloc_asprintf(r, "cn=%s,ou=SUDOers,dc=test", name);
    return r;
}

static uint64_t gen_of(struct test_ctx *tc)
{
    uint64_t gen = 0;

    assert_int_equal(sysdb_sudo_gen(tc->sysdb, &gen), EOK);
    return gen;
}

static void test_store_read(void **state)
{
    struct test_ctx *tc = *state;
    struct sysdb_sudo_rule *rules[2];
    struct sysdb_sudo_rule **all;
    struct sysdb_sudo_rule *r;
    size_t n;

    assert_int_equal(gen_of(tc), 0);
    assert_int_equal(sysdb_sudo_get_all(tc->mem, tc->sysdb, &all, &n), EOK);
    assert_int_equal(n, 0);
    talloc_free(all);

    rules[0] = mk_rule(tc->mem, "alice_true", "alice", "/bin/true");
    rules[1] = mk_rule(tc->mem, "r,2=odd+name", "bob", "/bin/false");
    assert_int_equal(sysdb_sudo_store(tc->sysdb, rules, 2, NOW, TMO), EOK);
    assert_int_equal(gen_of(tc), 1);

    assert_int_equal(sysdb_sudo_get_rule(tc->mem, tc->sysdb, "r,2=odd+name", &r), EOK);
    assert_string_equal(r->name, "r,2=odd+name");
    assert_int_equal(r->num_values[SYSDB_SUDO_USER], 2);
    assert_string_equal(r->values[SYSDB_SUDO_USER][0], "bob");
    assert_string_equal(r->values[SYSDB_SUDO_USER][1], "%admins");
    assert_null(r->values[SYSDB_SUDO_USER][2]);
    assert_string_equal(r->values[SYSDB_SUDO_COMMAND][0], "/bin/false");
    assert_int_equal(r->num_values[SYSDB_SUDO_HOST], 0);
    assert_null(r->values[SYSDB_SUDO_HOST][0]);
    assert_int_equal(r->expire, NOW + TMO);
    assert_int_equal(r->last_update, NOW);
    assert_string_equal(r->orig_dn, "cn=r,2=odd+name,ou=SUDOers,dc=test");
    talloc_free(r);

    assert_int_equal(sysdb_sudo_get_all(tc->mem, tc->sysdb, &all, &n), EOK);
    assert_int_equal(n, 2);
    assert_null(all[2]);
    talloc_free(all);

    /* Replaced by name, whatever the case: still two rules, new values. */
    talloc_free(rules[0]);
    rules[0] = mk_rule(tc->mem, "ALICE_TRUE", "alice", "/usr/bin/id");
    assert_int_equal(sysdb_sudo_store(tc->sysdb, rules, 1, NOW + 10, TMO), EOK);
    assert_int_equal(gen_of(tc), 2);
    assert_int_equal(sysdb_sudo_get_all(tc->mem, tc->sysdb, &all, &n), EOK);
    assert_int_equal(n, 2);
    talloc_free(all);
    assert_int_equal(sysdb_sudo_get_rule(tc->mem, tc->sysdb, "alice_true", &r), EOK);
    assert_string_equal(r->values[SYSDB_SUDO_COMMAND][0], "/usr/bin/id");
    assert_int_equal(r->expire, NOW + 10 + TMO);
    talloc_free(r);
    talloc_free(rules[0]);
    talloc_free(rules[1]);
}

static void test_delete_and_names(void **state)
{
    struct test_ctx *tc = *state;
    struct sysdb_sudo_rule *rules[3];
    const char *gone[] = { "b", "never-stored", "" };
    const char **names;
    struct sysdb_sudo_rule *r;
    size_t n;
    int i;

    rules[0] = mk_rule(tc->mem, "a", "alice", "/bin/true");
    rules[1] = mk_rule(tc->mem, "b", "bob", "/bin/true");
    rules[2] = mk_rule(tc->mem, "c", "carol", "/bin/true");
    assert_int_equal(sysdb_sudo_store(tc->sysdb, rules, 3, NOW, TMO), EOK);
    assert_int_equal(sysdb_sudo_delete(tc->sysdb, gone, 3), EOK);
    assert_int_equal(gen_of(tc), 2);
    assert_int_equal(sysdb_sudo_get_rule(tc->mem, tc->sysdb, "b", &r), ENOENT);
    assert_int_equal(sysdb_sudo_names(tc->mem, tc->sysdb, &names, &n), EOK);
    assert_int_equal(n, 2);
    assert_true((strcmp(names[0], "a") == 0 && strcmp(names[1], "c") == 0)
                || (strcmp(names[0], "c") == 0 && strcmp(names[1], "a") == 0));
    talloc_free(names);
    /* Every rule gone: an empty set, not an error. */
    gone[0] = "a";
    gone[1] = "c";
    assert_int_equal(sysdb_sudo_delete(tc->sysdb, gone, 2), EOK);
    assert_int_equal(sysdb_sudo_names(tc->mem, tc->sysdb, &names, &n), EOK);
    assert_int_equal(n, 0);
    talloc_free(names);
    for (i = 0; i < 3; i++) {
        talloc_free(rules[i]);
    }
}

static void test_expire_and_meta(void **state)
{
    struct test_ctx *tc = *state;
    struct sysdb_sudo_rule *rules[2];
    struct sysdb_sudo_rule *r;
    struct sysdb_sudo_meta meta;

    rules[0] = mk_rule(tc->mem, "a", "alice", "/bin/true");
    rules[1] = mk_rule(tc->mem, "b", "bob", "/bin/true");
    assert_int_equal(sysdb_sudo_store(tc->sysdb, rules, 2, NOW, TMO), EOK);
    assert_int_equal(sysdb_sudo_expire(tc->sysdb, "A"), EOK);
    assert_int_equal(sysdb_sudo_expire(tc->sysdb, "zz"), ENOENT);
    assert_int_equal(sysdb_sudo_get_rule(tc->mem, tc->sysdb, "a", &r), EOK);
    assert_true(r->expire < NOW);
    talloc_free(r);
    assert_int_equal(sysdb_sudo_get_rule(tc->mem, tc->sysdb, "b", &r), EOK);
    assert_int_equal(r->expire, NOW + TMO);
    talloc_free(r);
    assert_int_equal(sysdb_sudo_expire_all(tc->sysdb), EOK);
    assert_int_equal(sysdb_sudo_get_rule(tc->mem, tc->sysdb, "b", &r), EOK);
    assert_true(r->expire < NOW);
    talloc_free(r);

    assert_int_equal(sysdb_sudo_get_meta(tc->mem, tc->sysdb, &meta), EOK);
    assert_int_equal(meta.last_full, 0);
    assert_null(meta.max_usn);
    assert_int_equal(sysdb_sudo_set_meta(tc->sysdb, NOW, NULL, "20240101000000Z"), EOK);
    assert_int_equal(sysdb_sudo_set_meta(tc->sysdb, 0, "42", NULL), EOK);
    assert_int_equal(sysdb_sudo_get_meta(tc->mem, tc->sysdb, &meta), EOK);
    assert_int_equal(meta.last_full, NOW);
    assert_string_equal(meta.max_usn, "42");
    assert_string_equal(meta.max_modts, "20240101000000Z");
    assert_int_equal(meta.gen, 3);
    talloc_free(discard_const(meta.max_usn));
    talloc_free(discard_const(meta.max_modts));
    talloc_free(rules[0]);
    talloc_free(rules[1]);
}

static void test_refused_leaves_cache(void **state)
{
    struct test_ctx *tc = *state;
    struct sysdb_sudo_rule *rules[2];
    struct sysdb_sudo_rule **all;
    size_t n;

    store_user(tc->sysdb, "joe", 1000);
    rules[0] = mk_rule(tc->mem, "good", "alice", "/bin/true");
    rules[1] = mk_rule(tc->mem, "bad", "bob", "/bin/true");
    rules[1]->values[SYSDB_SUDO_COMMAND][0] = "\xff\xfe not utf-8";
    assert_int_equal(sysdb_sudo_store(tc->sysdb, rules, 2, NOW, TMO), EINVAL);
    assert_int_equal(sysdb_sudo_get_all(tc->mem, tc->sysdb, &all, &n), EOK);
    assert_int_equal(n, 0);     /* one transaction: the good rule is not half-stored */
    talloc_free(all);
    rules[1]->name = "";
    rules[1]->values[SYSDB_SUDO_COMMAND][0] = "/bin/true";
    assert_int_equal(sysdb_sudo_store(tc->sysdb, &rules[1], 1, NOW, TMO), EINVAL);
    assert_int_equal(sysdb_sudo_store(tc->sysdb, rules, 1, NOW, TMO), EOK);
    /* Users are untouched by rule writes. */
    struct sysdb_user *u;
    assert_int_equal(sysdb_get_user_by_name(tc->mem, tc->sysdb, "joe", &u), EOK);
    assert_int_equal(u->uid, 1000);
    talloc_free(u);
    talloc_free(rules[0]);
    talloc_free(rules[1]);
}

static const struct CMUnitTest tests[] = {
    T(test_store_read),
    T(test_delete_and_names),
    T(test_expire_and_meta),
    T(test_refused_leaves_cache),
};

int main(void)
{
    int failed;

    sysdb_fixture_warm_up();
    backend = SYSDB_BACKEND_TDB;
    failed = cmocka_run_group_tests_name("sysdb_sudo_tdb", tests, NULL, NULL);
    backend = SYSDB_BACKEND_MDB;
    failed += cmocka_run_group_tests_name("sysdb_sudo_mdb", tests, NULL, NULL);
    return failed;
}
