/*
 * Unit tests of the runtime of the generated bus code (src/sbus/sbus_gen*.c) on its own:
 * the value checks that keep libdbus from aborting, request-key text, the signature-driven
 * writer and reader, the message builders, and what happens without a connection. The
 * invoker and the callers are tested through generated code in tests/unit/sss_iface.
 * Every test checks the talloc NULL-context baseline.
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
    assert_true(sbus_gen_valid_fixed("x", DBUS_MAXIMUM_ARRAY_LENGTH, 1));
    assert_false(sbus_gen_valid_fixed("x", DBUS_MAXIMUM_ARRAY_LENGTH + 1, 1));
    assert_false(sbus_gen_valid_fixed(NULL, 1, 1));
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

/* Every supported type, written then read back. */
static void test_write_read_all_types(void **state)
{
    const char *strv[] = { "one", "", "thr\xc3\xa9\x65", NULL };
    const uint32_t au[] = { 0, 1, UINT32_MAX };
    const char *sig = "ybnqiuxtsoasau";
    DBusMessage *msg;
    uint8_t y;
    bool b;
    int16_t n;
    uint16_t q;
    int32_t i;
    uint32_t u;
    int64_t x;
    uint64_t t;
    const char *str;
    const char *obj;
    const char **as;
    const uint32_t *ua;
    uint32_t n_ua;

    msg = dbus_message_new_signal("/t", "sssd.test", "S");
    assert_non_null(msg);
    assert_int_equal(sbus_gen_write(msg, sig, (uint8_t)200, true, (int16_t)INT16_MIN,
                                    (uint16_t)UINT16_MAX, (int32_t)INT32_MIN,
                                    (uint32_t)UINT32_MAX, (int64_t)INT64_MIN,
                                    (uint64_t)UINT64_MAX, "str", "/obj/path", strv, au,
                                    (uint32_t)3), EOK);
    assert_string_equal(dbus_message_get_signature(msg), sig);

    assert_int_equal(sbus_gen_read(*state, msg, sig, &y, &b, &n, &q, &i, &u, &x, &t, &str,
                                   &obj, &as, &ua, &n_ua), EOK);
    assert_int_equal(y, 200);
    assert_true(b);
    assert_int_equal(n, INT16_MIN);
    assert_int_equal(q, UINT16_MAX);
    assert_int_equal(i, INT32_MIN);
    assert_int_equal(u, UINT32_MAX);
    assert_true(x == INT64_MIN);
    assert_true(t == UINT64_MAX);
    assert_string_equal(str, "str");
    assert_string_equal(obj, "/obj/path");
    assert_string_equal(as[0], "one");
    assert_string_equal(as[1], "");
    assert_string_equal(as[2], "thr\xc3\xa9\x65");
    assert_null(as[3]);
    assert_ptr_equal(talloc_parent(as), *state);    /* string arrays are copies */
    assert_int_equal(n_ua, 3);
    assert_int_equal(ua[2], UINT32_MAX);
    talloc_free(as);
    dbus_message_unref(msg);
}

static void test_write_read_empty(void **state)
{
    DBusMessage *msg;
    const char **as = NULL;
    const uint32_t *ua = (const uint32_t *)state;
    uint32_t n_ua = 7;
    bool b = true;

    /* Empty arrays (NULL is empty), false, and no arguments at all. */
    msg = dbus_message_new_signal("/t", "sssd.test", "S");
    assert_non_null(msg);
    assert_int_equal(sbus_gen_write(msg, ""), EOK);
    assert_int_equal(sbus_gen_read(*state, msg, ""), EOK);
    assert_int_equal(sbus_gen_write(msg, "basau", false, NULL, NULL, (uint32_t)0), EOK);
    assert_int_equal(sbus_gen_read(*state, msg, "basau", &b, &as, &ua, &n_ua), EOK);
    assert_false(b);
    assert_non_null(as);
    assert_null(as[0]);
    assert_null(ua);
    assert_int_equal(n_ua, 0);
    talloc_free(as);
    dbus_message_unref(msg);
}

static void test_write_invalid(void **state)
{
    const char *bad_strv[] = { "a", "\xff", NULL };
    DBusMessage *msg;

    msg = dbus_message_new_signal("/t", "sssd.test", "S");
    assert_non_null(msg);
    /* What libdbus would abort on is refused. */
    assert_int_equal(sbus_gen_write(msg, "s", NULL), EINVAL);
    assert_int_equal(sbus_gen_write(msg, "s", "bad\xff utf-8"), EINVAL);
    assert_int_equal(sbus_gen_write(msg, "o", "not/a/path"), EINVAL);
    assert_int_equal(sbus_gen_write(msg, "as", bad_strv), EINVAL);
    assert_int_equal(sbus_gen_write(msg, "au", NULL, (uint32_t)2), EINVAL);
    /* Types generated code never uses. */
    assert_int_equal(sbus_gen_write(msg, "v", NULL), EINVAL);
    assert_int_equal(sbus_gen_write(msg, "ay", NULL), EINVAL);
    assert_int_equal(sbus_gen_write(NULL, ""), EINVAL);
    dbus_message_unref(msg);
}

static void test_read_mismatch(void **state)
{
    DBusMessage *msg;
    uint32_t u = 5;
    const char *s = "kept";

    msg = dbus_message_new_signal("/t", "sssd.test", "S");
    assert_non_null(msg);
    assert_int_equal(sbus_gen_write(msg, "u", (uint32_t)1), EOK);
    /* Too few, too many, another type: nothing is written. */
    assert_int_equal(sbus_gen_read(*state, msg, ""), ERR_SBUS_INVALID_ARGS);
    assert_int_equal(sbus_gen_read(*state, msg, "uu", &u, &u), ERR_SBUS_INVALID_ARGS);
    assert_int_equal(sbus_gen_read(*state, msg, "s", &s), ERR_SBUS_INVALID_ARGS);
    assert_int_equal(u, 5);
    assert_string_equal(s, "kept");
    assert_int_equal(sbus_gen_read(*state, msg, "v", &s), EINVAL);
    dbus_message_unref(msg);
}

/* sbus_gen_read_copy_va() through "...", as sbus_gen_call_recv() uses it. */
static errno_t read_copy(TALLOC_CTX *mem_ctx, DBusMessage *msg, const char *sig, ...)
{
    va_list ap;
    errno_t ret;

    va_start(ap, sig);
    ret = sbus_gen_read_copy_va(mem_ctx, msg, sig, ap);
    va_end(ap);
    return ret;
}

static void test_read_copy(void **state)
{
    const char *strv[] = { "a", NULL };
    const uint32_t au[] = { 9 };
    TALLOC_CTX *out = talloc_new(*state);
    DBusMessage *msg;
    const char *s = NULL;
    const char **as = NULL;
    const uint32_t *ua = NULL;
    uint32_t n_ua = 0;

    msg = dbus_message_new_signal("/t", "sssd.test", "S");
    assert_non_null(msg);
    assert_int_equal(sbus_gen_write(msg, "ssasau", "x", "y", strv, au, (uint32_t)1), EOK);
    /* Everything is copied onto out; a NULL pointer skips its value. */
    assert_int_equal(read_copy(out, msg, "ssasau", &s, NULL, &as, &ua, &n_ua), EOK);
    dbus_message_unref(msg);
    assert_string_equal(s, "x");
    assert_string_equal(as[0], "a");
    assert_int_equal(n_ua, 1);
    assert_int_equal(ua[0], 9);
    assert_ptr_equal(talloc_parent(s), out);
    assert_ptr_equal(talloc_parent(as), out);
    assert_ptr_equal(talloc_parent(ua), out);
    assert_int_equal(talloc_total_blocks(out), 1 + 1 + 2 + 1);    /* out, s, as (+"a"), ua */
    talloc_free(out);
}

static void test_new_messages(void **state)
{
    DBusMessage *msg = NULL;

    assert_int_equal(sbus_gen_new_call(&msg, "sssd.nss", "/sssd", "sssd.service",
                                       "SetDebugLevel", "u", (uint32_t)0x10), EOK);
    assert_int_equal(dbus_message_get_type(msg), DBUS_MESSAGE_TYPE_METHOD_CALL);
    assert_string_equal(dbus_message_get_destination(msg), "sssd.nss");
    assert_string_equal(dbus_message_get_signature(msg), "u");
    dbus_message_unref(msg);

    assert_int_equal(sbus_gen_new_signal(&msg, "/sssd", "sssd.service", "GoOffline", ""), EOK);
    assert_int_equal(dbus_message_get_type(msg), DBUS_MESSAGE_TYPE_SIGNAL);
    assert_null(dbus_message_get_destination(msg));
    dbus_message_unref(msg);

    /* Nothing is made of invalid parts. */
    msg = NULL;
    assert_int_equal(sbus_gen_new_call(&msg, "no bus name", "/sssd", "sssd.service", "Ping",
                                       ""), EINVAL);
    assert_int_equal(sbus_gen_new_call(&msg, NULL, "/sssd", "sssd.service", "Ping", ""),
                     EINVAL);
    assert_int_equal(sbus_gen_new_call(&msg, "sssd.nss", "sssd", "sssd.service", "Ping", ""),
                     EINVAL);
    assert_int_equal(sbus_gen_new_signal(&msg, "/sssd", "sssd.Responder.Domain", "SetActive",
                                         "s", NULL), EINVAL);
    assert_null(msg);
}

/* The same message built by libdbus, argument by argument. */
static DBusMessage *libdbus_built(int type)
{
    DBusMessage *msg;
    uint8_t y = 0xfe;
    dbus_bool_t b = TRUE;
    int16_t n = -2;
    uint16_t q = 0xfffe;
    int32_t i = -3;
    uint32_t u = 0xfffffffd;
    int64_t x = -4;
    uint64_t t = 0xfffffffffffffffcULL;
    const char *s = "user\xc3\xa9@dom";
    const char *o = "/sssd/x";
    const char *empty = "";

    msg = type == DBUS_MESSAGE_TYPE_SIGNAL
          ? dbus_message_new_signal("/sssd", "sssd.test", "Member")
          : dbus_message_new_method_call("sssd.domain_a", "/sssd", "sssd.test", "Member");
    assert_non_null(msg);
    assert_true(dbus_message_append_args(msg, DBUS_TYPE_BYTE, &y, DBUS_TYPE_BOOLEAN, &b,
                                         DBUS_TYPE_INT16, &n, DBUS_TYPE_STRING, &s,
                                         DBUS_TYPE_UINT16, &q, DBUS_TYPE_INT64, &x,
                                         DBUS_TYPE_INT32, &i, DBUS_TYPE_UINT32, &u,
                                         DBUS_TYPE_UINT64, &t, DBUS_TYPE_OBJECT_PATH, &o,
                                         DBUS_TYPE_STRING, &empty, DBUS_TYPE_INVALID));
    return msg;
}

/* msg's wire form with the serial zeroed: libdbus numbers its messages when sent, the
 * whole-message builder (sbus_wire_build.c) when built. */
static char *wire_without_serial(DBusMessage *msg, int *_len)
{
    char *bytes = NULL;

    dbus_message_set_serial(msg, 1);
    assert_true(dbus_message_marshal(msg, &bytes, _len));
    assert_true(*_len > 12);
    memset(bytes + 8, 0, 4);
    return bytes;
}

/* Calls and signals of basic types are written whole (sbus_wire_build.c); they must carry exactly
 * what libdbus's own appending makes of the same values. */
static void test_new_messages_wire(void **state)
{
    static const int types[] = { DBUS_MESSAGE_TYPE_METHOD_CALL, DBUS_MESSAGE_TYPE_SIGNAL };
    const char *sig = "ybnsqxiutos";
    DBusMessage *ours;
    DBusMessage *theirs;
    char *a;
    char *b;
    int alen;
    int blen;
    size_t k;
    errno_t ret;

    for (k = 0; k < sizeof(types) / sizeof(types[0]); k++) {
        ours = NULL;
        if (types[k] == DBUS_MESSAGE_TYPE_SIGNAL) {
            ret = sbus_gen_new_signal(&ours, "/sssd", "sssd.test", "Member", sig, 0xfe, 1, -2,
                                      "user\xc3\xa9@dom", 0xfffe, (int64_t)-4, (int32_t)-3,
                                      (uint32_t)0xfffffffd, (uint64_t)0xfffffffffffffffcULL,
                                      "/sssd/x", "");
        } else {
            ret = sbus_gen_new_call(&ours, "sssd.domain_a", "/sssd", "sssd.test", "Member",
                                    sig, 0xfe, 1, -2, "user\xc3\xa9@dom", 0xfffe,
                                    (int64_t)-4, (int32_t)-3, (uint32_t)0xfffffffd,
                                    (uint64_t)0xfffffffffffffffcULL, "/sssd/x", "");
        }
        assert_int_equal(ret, EOK);
        /* Built whole: it was numbered from the builder's range. */
        assert_true(dbus_message_get_serial(ours) & 0x80000000U);
        assert_int_equal(dbus_message_get_no_reply(ours),
                         types[k] == DBUS_MESSAGE_TYPE_SIGNAL);
        theirs = libdbus_built(types[k]);
        a = wire_without_serial(ours, &alen);
        b = wire_without_serial(theirs, &blen);
        assert_int_equal(alen, blen);
        assert_memory_equal(a, b, alen);
        dbus_free(a);
        dbus_free(b);
        dbus_message_unref(ours);
        dbus_message_unref(theirs);
    }

    /* Byte and uint32 arrays are built whole too; string arrays are still appended
     * through libdbus, numbered when sent. */
    ours = NULL;
    assert_int_equal(sbus_gen_new_call(&ours, "sssd.nss", "/sssd", "sssd.test", "Member",
                                       "sau", "x", NULL, (uint32_t)0), EOK);
    assert_true(dbus_message_get_serial(ours) & 0x80000000U);
    assert_string_equal(dbus_message_get_signature(ours), "sau");
    dbus_message_unref(ours);
    ours = NULL;
    assert_int_equal(sbus_gen_new_call(&ours, "sssd.nss", "/sssd", "sssd.test", "Member",
                                       "sas", "x", NULL), EOK);
    assert_int_equal(dbus_message_get_serial(ours), 0);
    assert_string_equal(dbus_message_get_signature(ours), "sas");
    dbus_message_unref(ours);
}

/* Replies likewise: to the caller, answering its serial, no reply expected. */
static void test_new_reply_wire(void **state)
{
    DBusMessage *call;
    DBusMessage *ours = NULL;
    DBusMessage *theirs;
    uint16_t q = 3;
    uint32_t u = 22;
    const char *s = "Success";
    char *a;
    char *b;
    int alen;
    int blen;

    call = dbus_message_new_method_call("sssd.domain_a", "/sssd", "sssd.test", "Member");
    assert_non_null(call);
    dbus_message_set_serial(call, 0x1234);
    assert_true(dbus_message_set_sender(call, ":1.7"));
    assert_int_equal(sbus_gen_new_reply(&ours, call, "qus", q, u, s), EOK);
    assert_true(dbus_message_get_serial(ours) & 0x80000000U);
    assert_int_equal(dbus_message_get_reply_serial(ours), 0x1234);
    theirs = dbus_message_new_method_return(call);
    assert_non_null(theirs);
    assert_true(dbus_message_append_args(theirs, DBUS_TYPE_UINT16, &q, DBUS_TYPE_UINT32, &u,
                                         DBUS_TYPE_STRING, &s, DBUS_TYPE_INVALID));
    a = wire_without_serial(ours, &alen);
    b = wire_without_serial(theirs, &blen);
    assert_int_equal(alen, blen);
    assert_memory_equal(a, b, alen);
    dbus_free(a);
    dbus_free(b);
    dbus_message_unref(ours);
    dbus_message_unref(theirs);

    /* getAccountInfo's reply with a carried entry (ay), and au: the same bytes as libdbus
     * appends, for a few lengths (alignment after the length and after the array). */
    {
        static const uint8_t bytes[7] = { 1, 2, 3, 4, 5, 6, 7 };
        static const uint32_t words[3] = { 10, 20, 30 };
        const uint8_t *bp = bytes;
        const uint32_t *wp = words;
        uint64_t t = 77;
        int n;

        for (n = 0; n <= 7; n += 3) {
            ours = NULL;
            assert_int_equal(sbus_gen_new_reply(&ours, call, "qustayau", q, u, s, t,
                                                n ? bytes : NULL, (uint32_t)n, words,
                                                (uint32_t)(n % 4)), EOK);
            assert_true(dbus_message_get_serial(ours) & 0x80000000U);
            theirs = dbus_message_new_method_return(call);
            assert_non_null(theirs);
            assert_true(dbus_message_append_args(theirs, DBUS_TYPE_UINT16, &q,
                                                 DBUS_TYPE_UINT32, &u, DBUS_TYPE_STRING, &s,
                                                 DBUS_TYPE_UINT64, &t,
                                                 DBUS_TYPE_ARRAY, DBUS_TYPE_BYTE, &bp, n,
                                                 DBUS_TYPE_ARRAY, DBUS_TYPE_UINT32, &wp,
                                                 n % 4, DBUS_TYPE_INVALID));
            a = wire_without_serial(ours, &alen);
            b = wire_without_serial(theirs, &blen);
            assert_int_equal(alen, blen);
            assert_memory_equal(a, b, alen);
            dbus_free(a);
            dbus_free(b);
            dbus_message_unref(ours);
            dbus_message_unref(theirs);
        }
    }

    /* An invalid value makes no reply. */
    ours = NULL;
    assert_int_equal(sbus_gen_new_reply(&ours, call, "s", "\xff"), EINVAL);
    assert_null(ours);
    dbus_message_unref(call);
}

static void test_no_connection(void **state)
{
    DBusMessage *msg;
    TALLOC_CTX *call_state = NULL;
    char *key = talloc_strdup(NULL, "key");

    /* The key is consumed even when nothing can be sent. */
    assert_null(sbus_gen_call_start(*state, NULL, &call_state));
    assert_null(sbus_gen_call_raw_send(*state, NULL, 0, EOK, key, "sssd.nss", "/sssd",
                                       "sssd.service", "Ping", ""));
    msg = dbus_message_new_signal("/sssd", "sssd.service", "GoOffline");
    assert_int_equal(sbus_gen_emit(NULL, EOK, msg), EINVAL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_valid_values, setup, teardown),
        cmocka_unit_test_setup_teardown(test_key_string, setup, teardown),
        cmocka_unit_test_setup_teardown(test_write_read_all_types, setup, teardown),
        cmocka_unit_test_setup_teardown(test_write_read_empty, setup, teardown),
        cmocka_unit_test_setup_teardown(test_write_invalid, setup, teardown),
        cmocka_unit_test_setup_teardown(test_read_mismatch, setup, teardown),
        cmocka_unit_test_setup_teardown(test_read_copy, setup, teardown),
        cmocka_unit_test_setup_teardown(test_new_messages, setup, teardown),
        cmocka_unit_test_setup_teardown(test_new_messages_wire, setup, teardown),
        cmocka_unit_test_setup_teardown(test_new_reply_wire, setup, teardown),
        cmocka_unit_test_setup_teardown(test_no_connection, setup, teardown),
    };
    int rc;

    debug_level = 0;
    rc = cmocka_run_group_tests(tests, NULL, NULL);
    dbus_shutdown();
    /* tc_leak_start() turned on null tracking; its context would be LeakSanitizer's only
     * find, since nothing else of this test is left on it. */
    talloc_disable_null_tracking();
    return rc;
}
