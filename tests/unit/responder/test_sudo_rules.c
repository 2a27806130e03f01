/*
 * Unit tests of the sudo responder's pure parts (src/responder/sudo/sudo_rules.c) and of
 * libsss_sudo's reply parser (src/sss_client/sudo/sss_sudo_parse.c): the sudoUser match
 * (name, #uid, %group, %#gid, +netgroup, ALL, case modes, near misses), defaults, sudo_timed
 * bounds and generalized time, sudoOrder sorting, the request parser's refusals, and the
 * reply built by the responder read back by the client parser (the wire contract), then
 * every truncation and forged count of that reply refused without a crash or a leak.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "tests/unit/common/tc_common.h"
#include "responder/sudo/sudo_rules.h"
#include "sss_client/sudo/sss_sudo_private.h"

static struct sysdb_sudo_rule *mk(TALLOC_CTX *mem, const char *name, const char *users,
                                  const char *order)
{
    struct sysdb_sudo_rule *r = talloc_zero(mem, struct sysdb_sudo_rule);
    char *copy = talloc_strdup(r, users);
    char *save = NULL;
    char *tok;
    size_t n = 0;
    size_t a;

    r->name = talloc_strdup(r, name);
    for (a = 0; a < SYSDB_SUDO_ATTR_MAX; a++) {
        r->values[a] = talloc_zero_array(r, const char *, 1);
    }
    r->values[SYSDB_SUDO_USER] = talloc_zero_array(r, const char *, 8);
    for (tok = strtok_r(copy, " ", &save); tok != NULL; tok = strtok_r(NULL, " ", &save)) {
        r->values[SYSDB_SUDO_USER][n++] = tok;
    }
    r->values[SYSDB_SUDO_COMMAND] = talloc_zero_array(r, const char *, 2);
    r->values[SYSDB_SUDO_COMMAND][0] = "/bin/true";
    if (order != NULL) {
        r->values[SYSDB_SUDO_ORDER] = talloc_zero_array(r, const char *, 2);
        r->values[SYSDB_SUDO_ORDER][0] = order;
    }
    return r;
}

static const char *const groups[] = { "wheel", "Devs", NULL };
static const uint32_t gids[] = { 1000, 2000, 3000 };
static const struct sudo_user_info alice = {
    .name = "alice", .fqname = "alice@ldap", .uid = 1000, .groups = groups, .gids = gids,
    .num_gids = 3, .case_sensitive = true,
};

static void test_match(void **state)
{
    TALLOC_CTX *mem = talloc_new(NULL);
    struct sudo_user_info ci = alice;
    struct {
        const char *users;
        bool match;
    } cases[] = {
        { "alice", true }, { "alice@ldap", true }, { "ALICE", false }, { "bob", false },
        { "#1000", true }, { "#1001", false }, { "#", false }, { "#1000x", false },
        { "%wheel", true }, { "%Devs", true }, { "%devs", false }, { "%nope", false },
        { "%#2000", true }, { "%#3000", true }, { "%#4000", false }, { "%#", false },
        { "%#99999999999999999999", false }, { "+admins", true }, { "ALL", true },
        { "all", false }, { "bob %nope #7 alice", true }, { "", false },
    };
    size_t i;

    (void)state;
    for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct sysdb_sudo_rule *r = mk(mem, "r", cases[i].users, NULL);
        if (sudo_rule_matches_user(r, &alice) != cases[i].match) {
            fail_msg("sudoUser '%s': expected %s", cases[i].users,
                     cases[i].match ? "a match" : "no match");
        }
    }
    ci.case_sensitive = false;
    assert_true(sudo_rule_matches_user(mk(mem, "r", "ALICE", NULL), &ci));
    assert_true(sudo_rule_matches_user(mk(mem, "r", "%devs", NULL), &ci));
    assert_true(sudo_rule_is_defaults(mk(mem, "Defaults", "", NULL)));
    assert_false(sudo_rule_is_defaults(mk(mem, "defaults2", "", NULL)));
    talloc_free(mem);
}

static void test_time(void **state)
{
    TALLOC_CTX *mem = talloc_new(NULL);
    struct sysdb_sudo_rule *r = mk(mem, "t", "alice", NULL);
    time_t t;

    (void)state;
    assert_int_equal(sudo_parse_gentime("20240101000000Z", &t), EOK);
    assert_int_equal(t, 1704067200);
    assert_int_equal(sudo_parse_gentime("20240101000000.5Z", &t), EOK);
    assert_int_equal(t, 1704067200);
    assert_int_equal(sudo_parse_gentime("20240101020000+0200", &t), EOK);
    assert_int_equal(t, 1704067200);
    assert_int_equal(sudo_parse_gentime("2024010100000Z", &t), EINVAL);
    assert_int_equal(sudo_parse_gentime("20241301000000Z", &t), EINVAL);
    assert_int_equal(sudo_parse_gentime("20240101000000", &t), EINVAL);
    assert_int_equal(sudo_parse_gentime("20240101000000Zjunk", &t), EINVAL);

    assert_true(sudo_rule_valid_at(r, 1704067200));        /* no bounds */
    r->values[SYSDB_SUDO_NOTBEFORE] = talloc_zero_array(r, const char *, 2);
    r->values[SYSDB_SUDO_NOTBEFORE][0] = "20240101000000Z";
    r->values[SYSDB_SUDO_NOTAFTER] = talloc_zero_array(r, const char *, 3);
    r->values[SYSDB_SUDO_NOTAFTER][0] = "20240201000000Z";
    assert_false(sudo_rule_valid_at(r, 1704067199));
    assert_true(sudo_rule_valid_at(r, 1704067200));
    assert_false(sudo_rule_valid_at(r, 1706745601));
    r->values[SYSDB_SUDO_NOTAFTER][1] = "20250101000000Z";     /* any bound suffices */
    assert_true(sudo_rule_valid_at(r, 1706745601));
    r->values[SYSDB_SUDO_NOTAFTER][1] = "garbage";              /* unparsable: invalid */
    assert_false(sudo_rule_valid_at(r, 1704067300));
    talloc_free(mem);
}

static void test_sort(void **state)
{
    TALLOC_CTX *mem = talloc_new(NULL);
    const struct sysdb_sudo_rule *rules[5];

    (void)state;
    rules[0] = mk(mem, "c", "x", "10");
    rules[1] = mk(mem, "b", "x", NULL);
    rules[2] = mk(mem, "a", "x", "2.5");
    rules[3] = mk(mem, "d", "x", "10");
    rules[4] = mk(mem, "e", "x", "-1");
    sudo_rules_sort(rules, 5, false);
    assert_string_equal(rules[0]->name, "b");   /* no order first */
    assert_string_equal(rules[1]->name, "e");
    assert_string_equal(rules[2]->name, "a");
    assert_string_equal(rules[3]->name, "c");   /* ties by name */
    assert_string_equal(rules[4]->name, "d");
    sudo_rules_sort(rules, 5, true);
    assert_string_equal(rules[0]->name, "b");
    assert_string_equal(rules[1]->name, "c");
    assert_string_equal(rules[3]->name, "a");
    assert_string_equal(rules[4]->name, "e");
    talloc_free(mem);
}

static void test_query(void **state)
{
    uint8_t buf[64];
    const char *name;
    uint32_t uid = 1234;

    (void)state;
    memcpy(buf, &uid, 4);
    memcpy(buf + 4, "alice", 6);
    uid = 0;
    assert_int_equal(sudo_parse_query(buf, 10, &uid, &name), EOK);
    assert_int_equal(uid, 1234);
    assert_string_equal(name, "alice");
    assert_int_equal(sudo_parse_query(buf, 9, &uid, &name), EINVAL);  /* no NUL */
    assert_int_equal(sudo_parse_query(buf, 5, &uid, &name), EINVAL);  /* empty name */
    assert_int_equal(sudo_parse_query(buf, 3, &uid, &name), EINVAL);
    assert_int_equal(sudo_parse_query(NULL, 0, &uid, &name), EINVAL);
    memcpy(buf + 4, "al\0ce", 6);
    assert_int_equal(sudo_parse_query(buf, 10, &uid, &name), EINVAL); /* NUL inside */
    memcpy(buf + 4, "al\xc3\x28" "e", 6);
    assert_int_equal(sudo_parse_query(buf, 10, &uid, &name), EINVAL); /* bad UTF-8 */
    memcpy(buf + 4, "\xc3\xa9t\xc3\xa9", 6);
    assert_int_equal(sudo_parse_query(buf, 10, &uid, &name), EOK);   /* UTF-8 name */
}

/* The responder's reply for two rules, read by the client library's parser. */
static void build_two(TALLOC_CTX *mem, uint8_t **body, size_t *len)
{
    const struct sysdb_sudo_rule *rules[2];
    struct sysdb_sudo_rule *r;

    r = mk(mem, "first", "alice %wheel", "1");
    r->values[SYSDB_SUDO_OPTION] = talloc_zero_array(r, const char *, 3);
    r->values[SYSDB_SUDO_OPTION][0] = "!authenticate";
    r->values[SYSDB_SUDO_OPTION][1] = "env_keep+=X";
    rules[0] = r;
    rules[1] = mk(mem, "second", "ALL", NULL);
    assert_int_equal(sudo_build_reply(mem, rules, 2, body, len), EOK);
}

static void test_roundtrip(void **state)
{
    struct tc_leaks leaks;
    TALLOC_CTX *mem;
    struct sss_sudo_result *res = NULL;
    char *domain = NULL;
    char **values = NULL;
    uint32_t error = 99;
    uint8_t *body;
    size_t len;

    (void)state;
    tc_leak_start(&leaks);
    mem = talloc_new(NULL);
    build_two(mem, &body, &len);
    assert_int_equal(sss_sudo_parse_reply(body, len, &error, &domain, &res), 0);
    assert_int_equal(error, SSS_SUDO_ERROR_OK);
    assert_string_equal(domain, "");
    assert_int_equal(res->num_rules, 2);
    assert_int_equal(res->rules[0].num_attrs, 5);  /* cn, sudoUser, sudoCommand, Option, Order */
    assert_int_equal(sss_sudo_get_values(&res->rules[0], "SUDOOPTION", &values), 0);
    assert_string_equal(values[0], "!authenticate");
    assert_string_equal(values[1], "env_keep+=X");
    assert_null(values[2]);
    sss_sudo_free_values(values);
    assert_int_equal(sss_sudo_get_values(&res->rules[1], "cn", &values), 0);
    assert_string_equal(values[0], "second");
    sss_sudo_free_values(values);
    assert_int_equal(sss_sudo_get_values(&res->rules[1], "sudoOrder", &values), ENOENT);
    sss_sudo_free_result(res);
    free(domain);

    /* An error reply: only the code. */
    error = ENOENT;
    res = NULL;
    assert_int_equal(sss_sudo_parse_reply((uint8_t *)&error, 4, &error, NULL, &res), 0);
    assert_int_equal(error, ENOENT);
    assert_null(res);
    talloc_free(mem);
    tc_leak_check(&leaks);
}

static void test_malformed(void **state)
{
    struct tc_leaks leaks;
    TALLOC_CTX *mem;
    struct sss_sudo_result *res;
    uint32_t error;
    uint32_t huge = 0x40000000;
    uint8_t *body;
    uint8_t *copy;
    size_t len;
    size_t cut;

    (void)state;
    tc_leak_start(&leaks);
    mem = talloc_new(NULL);
    build_two(mem, &body, &len);
    /* Every truncation (in an exact-size buffer) is refused. */
    for (cut = 0; cut < len; cut++) {
        copy = malloc(cut ? cut : 1);
        memcpy(copy, body, cut);
        res = NULL;
        assert_int_equal(sss_sudo_parse_reply(copy, cut, &error, NULL, &res), EBADMSG);
        assert_null(res);
        free(copy);
    }
    /* Bytes left over. */
    copy = malloc(len + 1);
    memcpy(copy, body, len);
    copy[len] = 0;
    assert_int_equal(sss_sudo_parse_reply(copy, len + 1, &error, NULL, &res), EBADMSG);
    free(copy);
    /* A rule count the bytes cannot hold is refused before anything is allocated. */
    memcpy(body + 5, &huge, 4);
    assert_int_equal(sss_sudo_parse_reply(body, len, &error, NULL, &res), EBADMSG);
    huge = 3;
    memcpy(body + 5, &huge, 4);
    assert_int_equal(sss_sudo_parse_reply(body, len, &error, NULL, &res), EBADMSG);
    huge = 2;
    memcpy(body + 5, &huge, 4);
    huge = 0x7fffffff;                  /* the first rule's attribute count */
    memcpy(body + 9, &huge, 4);
    assert_int_equal(sss_sudo_parse_reply(body, len, &error, NULL, &res), EBADMSG);
    assert_int_equal(sss_sudo_parse_reply(NULL, 4, &error, NULL, &res), EINVAL);
    talloc_free(mem);
    tc_leak_check(&leaks);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_match),
        cmocka_unit_test(test_time),
        cmocka_unit_test(test_sort),
        cmocka_unit_test(test_query),
        cmocka_unit_test(test_roundtrip),
        cmocka_unit_test(test_malformed),
    };

    int failed;

    failed = cmocka_run_group_tests(tests, NULL, NULL);
    talloc_disable_null_tracking();     /* frees the tracking context (LeakSanitizer) */
    return failed;
}
