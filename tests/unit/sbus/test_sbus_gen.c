/*
 * Unit tests of src/sbus/sbus_gen.c, the runtime of the generated bus code, on its own:
 * the value checks that keep libdbus from aborting, the copies of what libdbus allocates,
 * and request-key text. What generated code does with them is tested on generated code in
 * tests/unit/sss_iface. Every test checks the talloc NULL-context baseline.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <string.h>

#include "util/util.h"
#include "sbus/sbus_gen.h"
#include "tests/unit/common/tc_common.h"

static struct tc_leaks leaks;

static int setup(void **state)
{
    tc_leak_start(&leaks);
    *state = talloc_new(NULL);
    return *state == NULL ? -1 : 0;
}

static int teardown(void **state)
{
    talloc_free(*state);
    tc_leak_check(&leaks);
    return 0;
}

static void test_valid_values(void **state)
{
    const char *good[] = { "a", "", "thr\xc3\xa9\x65", NULL };
    const char *bad[] = { "a", "\xff", NULL };
    const uint32_t au[] = { 1 };
    int count = -1;

    assert_true(sbus_gen_valid_string(""));
    assert_true(sbus_gen_valid_string("thr\xc3\xa9\x65"));
    assert_false(sbus_gen_valid_string(NULL));
    assert_false(sbus_gen_valid_string("bad\xff utf-8"));

    assert_true(sbus_gen_valid_path("/"));
    assert_true(sbus_gen_valid_path("/sssd/x_1"));
    assert_false(sbus_gen_valid_path(NULL));
    assert_false(sbus_gen_valid_path("sssd"));
    assert_false(sbus_gen_valid_path("//"));

    assert_true(sbus_gen_valid_bus_name("sssd.nss"));
    assert_true(sbus_gen_valid_bus_name(":1.42"));
    assert_false(sbus_gen_valid_bus_name(NULL));
    assert_false(sbus_gen_valid_bus_name("sssd"));
    assert_false(sbus_gen_valid_bus_name("not a bus name"));

    assert_true(sbus_gen_valid_strv(good, &count));
    assert_int_equal(count, 3);
    assert_true(sbus_gen_valid_strv(NULL, &count));     /* NULL is empty */
    assert_int_equal(count, 0);
    count = -1;
    assert_false(sbus_gen_valid_strv(bad, &count));
    assert_int_equal(count, -1);                        /* untouched on failure */

    assert_true(sbus_gen_valid_uarray(au, 1));
    assert_true(sbus_gen_valid_uarray(NULL, 0));
    assert_false(sbus_gen_valid_uarray(NULL, 2));
    assert_false(sbus_gen_valid_uarray(au, DBUS_MAXIMUM_ARRAY_LENGTH));
}

/* A string array as libdbus hands one out (dbus_malloc'ed). */
static char **raw_strv(const char **strv, int *_count)
{
    DBusMessage *msg;
    char **raw = NULL;
    int count = 0;

    for (count = 0; strv[count] != NULL; count++) {
    }
    msg = dbus_message_new_signal("/t", "sssd.test", "S");
    assert_non_null(msg);
    assert_true(dbus_message_append_args(msg, DBUS_TYPE_ARRAY, DBUS_TYPE_STRING, &strv, count,
                                         DBUS_TYPE_INVALID));
    assert_true(dbus_message_get_args(msg, NULL, DBUS_TYPE_ARRAY, DBUS_TYPE_STRING, &raw,
                                      &count, DBUS_TYPE_INVALID));
    dbus_message_unref(msg);
    *_count = count;
    return raw;
}

static void test_take_strv(void **state)
{
    const char *in[] = { "one", "", "three", NULL };
    const char *none[] = { NULL };
    const char **strv = NULL;
    char **raw;
    int count;

    raw = raw_strv(in, &count);
    assert_true(sbus_gen_take_strv(*state, raw, count, &strv));
    assert_non_null(strv);
    assert_string_equal(strv[0], "one");
    assert_string_equal(strv[1], "");
    assert_string_equal(strv[2], "three");
    assert_null(strv[3]);
    assert_ptr_equal(talloc_parent(strv), *state);
    assert_ptr_equal(talloc_parent(strv[1]), strv);
    talloc_free(strv);

    /* Empty: a NULL-terminated array all the same. */
    raw = raw_strv(none, &count);
    assert_true(sbus_gen_take_strv(*state, raw, count, &strv));
    assert_non_null(strv);
    assert_null(strv[0]);
    talloc_free(strv);
}

static void test_key_string(void **state)
{
    const char *plain = "name=alice";

    /* Nothing to escape: the string itself, no copy. */
    assert_ptr_equal(sbus_gen_key_string(*state, plain), plain);
    assert_string_equal(sbus_gen_key_string(*state, "a:b%c"), "a%3ab%25c");
    assert_string_equal(sbus_gen_key_string(*state, "::"), "%3a%3a");
    assert_string_equal(sbus_gen_key_string(*state, ""), "");
    assert_null(sbus_gen_key_string(*state, NULL));
    talloc_free_children(*state);
}

static void test_no_args(void **state)
{
    DBusMessage *msg;
    dbus_uint32_t u = 1;

    msg = dbus_message_new_method_call("sssd.nss", "/sssd", "sssd.service", "Ping");
    assert_non_null(msg);
    assert_int_equal(sbus_gen_no_args(msg), EOK);
    assert_true(dbus_message_append_args(msg, DBUS_TYPE_UINT32, &u, DBUS_TYPE_INVALID));
    assert_int_equal(sbus_gen_no_args(msg), ERR_SBUS_INVALID_ARGS);
    dbus_message_unref(msg);
}

static void test_invoke_state(void **state)
{
    struct sbus_request *sbus_req = talloc_zero(*state, struct sbus_request);
    const struct sbus_method method = { .member = "M" };
    struct sbus_gen_invoke_state *invoke;

    assert_non_null(sbus_req);
    invoke = sbus_gen_invoke_state_create(sbus_req, &method);
    assert_non_null(invoke);
    assert_ptr_equal(invoke->sbus_req, sbus_req);
    assert_ptr_equal(invoke->method, &method);
    assert_ptr_equal(talloc_parent(invoke), sbus_req);  /* goes with the request */
    talloc_free(sbus_req);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_valid_values, setup, teardown),
        cmocka_unit_test_setup_teardown(test_take_strv, setup, teardown),
        cmocka_unit_test_setup_teardown(test_key_string, setup, teardown),
        cmocka_unit_test_setup_teardown(test_no_args, setup, teardown),
        cmocka_unit_test_setup_teardown(test_invoke_state, setup, teardown),
    };
    int rc;

    debug_level = 0;
    rc = cmocka_run_group_tests(tests, NULL, NULL);
    dbus_shutdown();
    return rc;
}
