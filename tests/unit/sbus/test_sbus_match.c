/*
 * Unit tests of src/sbus/sbus_match.c: parsing match rules (valid rules, quoting and
 * escaping, unknown and duplicate keys, bad values, the length limit), matching messages on
 * each key, and the equality RemoveMatch relies on. Every test allocates under one talloc
 * context that must be empty again in teardown.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <string.h>

#include "sbus/sbus_match.h"

static int setup(void **state)
{
    *state = talloc_new(NULL);
    return *state == NULL ? -1 : 0;
}

static int teardown(void **state)
{
    assert_int_equal(talloc_total_blocks(*state), 1);
    talloc_free(*state);
    return 0;
}

static struct sbus_match_rule *parse_ok(TALLOC_CTX *ctx, const char *text)
{
    struct sbus_match_rule *rule = NULL;

    assert_int_equal(sbus_match_rule_parse(ctx, text, &rule), EOK);
    assert_non_null(rule);
    return rule;
}

static void parse_bad(TALLOC_CTX *ctx, const char *text)
{
    struct sbus_match_rule *rule = NULL;
    errno_t ret;

    ret = sbus_match_rule_parse(ctx, text, &rule);
    if (ret != EINVAL) {
        fail_msg("rule \"%s\" gave %d, expected EINVAL", text, ret);
    }
    assert_null(rule);
}

static void test_parse_full(void **state)
{
    struct sbus_match_rule *rule;

    rule = parse_ok(*state, "type='signal',sender='sssd.nss',interface='sssd.Iface',"
                    "member='Changed',path='/sssd',destination=':1.4',arg0='x',arg2='z'");
    assert_int_equal(rule->type, DBUS_MESSAGE_TYPE_SIGNAL);
    assert_string_equal(rule->sender, "sssd.nss");
    assert_string_equal(rule->interface, "sssd.Iface");
    assert_string_equal(rule->member, "Changed");
    assert_string_equal(rule->path, "/sssd");
    assert_null(rule->path_namespace);
    assert_string_equal(rule->destination, ":1.4");
    assert_int_equal(rule->num_args, 3);
    assert_string_equal(rule->args[0], "x");
    assert_null(rule->args[1]);
    assert_string_equal(rule->args[2], "z");
    talloc_free(rule);

    rule = parse_ok(*state, "path_namespace='/org/a',type=method_call,arg63=last");
    assert_int_equal(rule->type, DBUS_MESSAGE_TYPE_METHOD_CALL);
    assert_string_equal(rule->path_namespace, "/org/a");
    assert_int_equal(rule->num_args, 64);
    assert_string_equal(rule->args[63], "last");
    talloc_free(rule);

    rule = parse_ok(*state, "type='method_return'");
    assert_int_equal(rule->type, DBUS_MESSAGE_TYPE_METHOD_RETURN);
    talloc_free(rule);
    rule = parse_ok(*state, "type='error'");
    assert_int_equal(rule->type, DBUS_MESSAGE_TYPE_ERROR);
    talloc_free(rule);
}

static void test_parse_empty_and_spacing(void **state)
{
    struct sbus_match_rule *rule;

    rule = parse_ok(*state, "");
    assert_int_equal(rule->type, DBUS_MESSAGE_TYPE_INVALID);
    assert_null(rule->sender);
    assert_null(rule->interface);
    assert_null(rule->member);
    assert_null(rule->path);
    assert_int_equal(rule->num_args, 0);
    talloc_free(rule);

    rule = parse_ok(*state, "  type='signal', \tmember='M',");
    assert_int_equal(rule->type, DBUS_MESSAGE_TYPE_SIGNAL);
    assert_string_equal(rule->member, "M");
    talloc_free(rule);
}

static void test_parse_escaping(void **state)
{
    struct sbus_match_rule *rule;

    /* Quote, escaped apostrophe outside quotes, quote again. */
    rule = parse_ok(*state, "arg0='it'\\''s'");
    assert_string_equal(rule->args[0], "it's");
    talloc_free(rule);

    /* Inside quotes a backslash is literal. */
    rule = parse_ok(*state, "arg0='a\\b'");
    assert_string_equal(rule->args[0], "a\\b");
    talloc_free(rule);

    /* Outside quotes \' is an apostrophe; other backslashes stay. */
    rule = parse_ok(*state, "arg0=a\\'b\\c");
    assert_string_equal(rule->args[0], "a'b\\c");
    talloc_free(rule);

    /* Commas and '=' inside quotes are data. */
    rule = parse_ok(*state, "arg0='a,b=c',arg1=''");
    assert_string_equal(rule->args[0], "a,b=c");
    assert_string_equal(rule->args[1], "");
    talloc_free(rule);

    /* Unquoted values end at a comma. */
    rule = parse_ok(*state, "member=Foo,interface=a.b");
    assert_string_equal(rule->member, "Foo");
    assert_string_equal(rule->interface, "a.b");
    talloc_free(rule);
}

static void test_parse_invalid(void **state)
{
    parse_bad(*state, "type='signal',bogus='x'");
    parse_bad(*state, "eavesdrop='true'");
    parse_bad(*state, "arg0path='/a'");
    parse_bad(*state, "arg='x'");
    parse_bad(*state, "arg64='x'");
    parse_bad(*state, "arg01='x'");
    parse_bad(*state, "type='signal");             /* unterminated quote */
    parse_bad(*state, "type");                     /* no '=' */
    parse_bad(*state, "='x'");                     /* empty key */
    parse_bad(*state, "type='signal',,member='M'"); /* empty entry */
    parse_bad(*state, "ty pe='signal'");
    parse_bad(*state, "type='bogus'");
    parse_bad(*state, "type=''");
    parse_bad(*state, "interface='noDot'");
    parse_bad(*state, "interface='a..b'");
    parse_bad(*state, "member='a.b'");
    parse_bad(*state, "member=''");
    parse_bad(*state, "path='relative'");
    parse_bad(*state, "path='/trailing/'");
    parse_bad(*state, "path_namespace='x'");
    parse_bad(*state, "sender='not a name'");
    parse_bad(*state, "destination='1.bad'");
    parse_bad(*state, "path='/a',path_namespace='/a'");
    parse_bad(*state, "type='signal' ,member='M'"); /* the space belongs to the value */
}

static void test_parse_duplicates(void **state)
{
    parse_bad(*state, "type='signal',type='signal'");
    parse_bad(*state, "sender='a.b',sender='a.b'");
    parse_bad(*state, "interface='a.b',interface='a.c'");
    parse_bad(*state, "member='A',member='B'");
    parse_bad(*state, "path='/a',path='/b'");
    parse_bad(*state, "path_namespace='/a',path_namespace='/b'");
    parse_bad(*state, "destination='a.b',destination='a.b'");
    parse_bad(*state, "arg3='x',arg3='y'");
}

static void test_parse_length(void **state)
{
    struct sbus_match_rule *rule;
    char text[SBUS_MATCH_RULE_MAX_LEN + 2];
    size_t prefix = strlen("arg0='");

    /* Exactly the limit: arg0='xxx...x' */
    memset(text, 'x', sizeof(text));
    memcpy(text, "arg0='", prefix);
    text[SBUS_MATCH_RULE_MAX_LEN - 1] = '\'';
    text[SBUS_MATCH_RULE_MAX_LEN] = '\0';
    rule = parse_ok(*state, text);
    assert_int_equal(strlen(rule->args[0]), SBUS_MATCH_RULE_MAX_LEN - prefix - 1);
    talloc_free(rule);

    /* One byte more. */
    text[SBUS_MATCH_RULE_MAX_LEN - 1] = 'x';
    text[SBUS_MATCH_RULE_MAX_LEN] = '\'';
    text[SBUS_MATCH_RULE_MAX_LEN + 1] = '\0';
    parse_bad(*state, text);

    assert_int_equal(sbus_match_rule_parse(*state, NULL, &rule), EINVAL);
}

/* A signal /a/b sssd.Iface.Changed from :1.7 carrying the string arguments given. */
static DBusMessage *make_signal(const char *path, const char *sender, const char *arg0,
                                const char *arg1)
{
    DBusMessage *msg;

    msg = dbus_message_new_signal(path, "sssd.Iface", "Changed");
    assert_non_null(msg);
    assert_true(dbus_message_set_sender(msg, sender));
    if (arg0 != NULL) {
        assert_true(dbus_message_append_args(msg, DBUS_TYPE_STRING, &arg0,
                                             DBUS_TYPE_INVALID));
    }
    if (arg1 != NULL) {
        assert_true(dbus_message_append_args(msg, DBUS_TYPE_STRING, &arg1,
                                             DBUS_TYPE_INVALID));
    }
    return msg;
}

static bool rule_matches(TALLOC_CTX *ctx, const char *text, DBusMessage *msg)
{
    struct sbus_match_rule *rule = parse_ok(ctx, text);
    bool result = sbus_match_rule_matches(rule, msg);

    talloc_free(rule);
    return result;
}

static void test_match_fields(void **state)
{
    DBusMessage *msg = make_signal("/a/b", ":1.7", "first", "second");
    DBusMessage *call;

    assert_true(rule_matches(*state, "", msg));
    assert_true(rule_matches(*state, "type='signal'", msg));
    assert_false(rule_matches(*state, "type='method_call'", msg));
    assert_true(rule_matches(*state, "interface='sssd.Iface'", msg));
    assert_false(rule_matches(*state, "interface='sssd.Other'", msg));
    assert_true(rule_matches(*state, "member='Changed'", msg));
    assert_false(rule_matches(*state, "member='Changed2'", msg));
    assert_true(rule_matches(*state, "path='/a/b'", msg));
    assert_false(rule_matches(*state, "path='/a'", msg));
    assert_true(rule_matches(*state, "path_namespace='/a'", msg));
    assert_true(rule_matches(*state, "path_namespace='/a/b'", msg));
    assert_true(rule_matches(*state, "path_namespace='/'", msg));
    assert_false(rule_matches(*state, "path_namespace='/a/b/c'", msg));
    assert_false(rule_matches(*state, "path_namespace='/a/bc'", msg));
    assert_true(rule_matches(*state, "sender=':1.7'", msg));
    assert_false(rule_matches(*state, "sender=':1.8'", msg));
    assert_false(rule_matches(*state, "destination=':1.7'", msg));
    assert_true(rule_matches(*state, "arg0='first'", msg));
    assert_false(rule_matches(*state, "arg0='second'", msg));
    assert_true(rule_matches(*state, "arg1='second'", msg));
    assert_true(rule_matches(*state, "arg0='first',arg1='second'", msg));
    assert_false(rule_matches(*state, "arg2='x'", msg));
    assert_true(rule_matches(*state, "type='signal',interface='sssd.Iface',member='Changed',"
                             "path='/a/b',sender=':1.7',arg1='second'", msg));
    assert_false(rule_matches(*state, "type='signal',interface='sssd.Iface',member='Changed',"
                              "path='/a/b',sender=':1.7',arg1='third'", msg));
    dbus_message_unref(msg);

    /* argN only matches string arguments. */
    msg = dbus_message_new_signal("/a", "sssd.Iface", "Changed");
    assert_non_null(msg);
    {
        dbus_uint32_t u = 5;
        assert_true(dbus_message_append_args(msg, DBUS_TYPE_UINT32, &u, DBUS_TYPE_INVALID));
    }
    assert_false(rule_matches(*state, "arg0='5'", msg));
    assert_true(rule_matches(*state, "member='Changed'", msg));
    dbus_message_unref(msg);

    /* No arguments at all. */
    msg = make_signal("/a", ":1.7", NULL, NULL);
    assert_false(rule_matches(*state, "arg0=''", msg));
    dbus_message_unref(msg);

    /* destination and method calls. */
    call = dbus_message_new_method_call("sssd.nss", "/sssd", "sssd.Iface", "Get");
    assert_non_null(call);
    assert_true(rule_matches(*state, "type='method_call',destination='sssd.nss'", call));
    assert_false(rule_matches(*state, "type='signal'", call));
    assert_false(rule_matches(*state, "sender=':1.1'", call));   /* no sender */
    dbus_message_unref(call);

    assert_false(sbus_match_rule_matches(NULL, NULL));
}

static bool owns_sssd_nss(const char *name, void *pvt)
{
    (*(int *)pvt)++;
    return strcmp(name, "sssd.nss") == 0;
}

static void test_match_sender_alias(void **state)
{
    DBusMessage *msg = make_signal("/a", ":1.7", NULL, NULL);
    struct sbus_match_rule *rule;
    int calls = 0;

    rule = parse_ok(*state, "sender='sssd.nss'");
    assert_false(sbus_match_rule_matches(rule, msg));
    assert_true(sbus_match_rule_matches_full(rule, msg, owns_sssd_nss, &calls));
    assert_int_equal(calls, 1);
    talloc_free(rule);

    rule = parse_ok(*state, "sender='sssd.pam'");
    assert_false(sbus_match_rule_matches_full(rule, msg, owns_sssd_nss, &calls));
    talloc_free(rule);

    /* The literal sender is compared first; no callback needed. */
    calls = 0;
    rule = parse_ok(*state, "sender=':1.7'");
    assert_true(sbus_match_rule_matches_full(rule, msg, owns_sssd_nss, &calls));
    assert_int_equal(calls, 0);
    talloc_free(rule);

    dbus_message_unref(msg);
}

static void test_equal(void **state)
{
    struct sbus_match_rule *a;
    struct sbus_match_rule *b;

    a = parse_ok(*state, "type='signal',interface='a.b',member='M',arg1='x'");
    b = parse_ok(*state, " arg1=x,member=M,interface='a.b',type=signal");
    assert_true(sbus_match_rule_equal(a, b));
    assert_true(sbus_match_rule_equal(b, a));
    talloc_free(b);

    b = parse_ok(*state, "type='signal',interface='a.b',member='M'");
    assert_false(sbus_match_rule_equal(a, b));
    assert_false(sbus_match_rule_equal(b, a));
    talloc_free(b);

    b = parse_ok(*state, "type='signal',interface='a.b',member='M',arg1='y'");
    assert_false(sbus_match_rule_equal(a, b));
    talloc_free(b);

    b = parse_ok(*state, "interface='a.b',member='M',arg1='x'");
    assert_false(sbus_match_rule_equal(a, b));
    talloc_free(b);

    b = parse_ok(*state, "type='signal',interface='a.b',member='M',arg1='x',path='/p'");
    assert_false(sbus_match_rule_equal(a, b));
    talloc_free(b);

    b = parse_ok(*state, "type='signal',interface='a.b',member='M',arg1='x',arg5=''");
    assert_false(sbus_match_rule_equal(a, b));
    talloc_free(b);

    assert_true(sbus_match_rule_equal(a, a));
    assert_false(sbus_match_rule_equal(a, NULL));
    assert_true(sbus_match_rule_equal(NULL, NULL));
    talloc_free(a);

    a = parse_ok(*state, "sender='x.y',destination='z.w',path_namespace='/n'");
    b = parse_ok(*state, "sender='x.y',destination='z.w',path_namespace='/n'");
    assert_true(sbus_match_rule_equal(a, b));
    talloc_free(b);
    b = parse_ok(*state, "sender='x.y',destination='z.v',path_namespace='/n'");
    assert_false(sbus_match_rule_equal(a, b));
    talloc_free(b);
    talloc_free(a);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_parse_full, setup, teardown),
        cmocka_unit_test_setup_teardown(test_parse_empty_and_spacing, setup, teardown),
        cmocka_unit_test_setup_teardown(test_parse_escaping, setup, teardown),
        cmocka_unit_test_setup_teardown(test_parse_invalid, setup, teardown),
        cmocka_unit_test_setup_teardown(test_parse_duplicates, setup, teardown),
        cmocka_unit_test_setup_teardown(test_parse_length, setup, teardown),
        cmocka_unit_test_setup_teardown(test_match_fields, setup, teardown),
        cmocka_unit_test_setup_teardown(test_match_sender_alias, setup, teardown),
        cmocka_unit_test_setup_teardown(test_equal, setup, teardown),
    };
    int failed;

    failed = cmocka_run_group_tests(tests, NULL, NULL);
    dbus_shutdown();
    return failed;
}
