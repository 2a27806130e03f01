/*
 * Unit tests of the code sbus_codegen.py generates: message builders, key functions, callers,
 * method and signal invokers, on the real interfaces (src/sss_iface/sss_iface_*.xml) and on a test
 * interface with every supported type (test_iface.xml). The transport is a test double
 * (sbus_reply_capture.c); the messages are real libdbus messages.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <unistd.h>
#include <inttypes.h>
#include <cmocka.h>

#include "util/util.h"
#include "sss_iface/sss_iface.h"
#include "tests/unit/sss_iface/test_iface_gen.h"
#include "tests/unit/sss_iface/sbus_reply_capture.h"
#include "tests/unit/common/tc_common.h"

#define DP_NAME "sssd.domain_ldap_2etest"

struct test_ctx {
    TALLOC_CTX *mem;
    struct tevent_context *ev;
    struct sbus_connection *conn;
};

static struct test_ctx *tctx;

static int setup(void **state)
{
    sbus_capture_reset();
    tctx = talloc_zero(NULL, struct test_ctx);
    assert_non_null(tctx);
    tctx->mem = talloc_new(tctx);
    tctx->ev = tevent_context_init(tctx);
    assert_non_null(tctx->ev);
    tctx->conn = sbus_capture_connection(tctx, tctx->ev);
    assert_non_null(tctx->conn);
    return 0;
}

static int teardown(void **state)
{
    /* Every request, reply and copy must be gone (or hang off mem, freed by the test). */
    assert_int_equal(talloc_total_blocks(tctx->mem), 1);
    sbus_capture_reset();
    talloc_free(tctx);
    tctx = NULL;
    return 0;
}

static void run_until_replied(unsigned int replies)
{
    while (sbus_capture.replies < replies) {
        assert_int_equal(tevent_loop_once(tctx->ev), 0);
    }
}

static void assert_header(DBusMessage *msg, int type, const char *dest, const char *path,
                          const char *iface, const char *member, const char *signature)
{
    assert_non_null(msg);
    assert_int_equal(dbus_message_get_type(msg), type);
    if (dest == NULL) {
        assert_null(dbus_message_get_destination(msg));
    } else {
        assert_string_equal(dbus_message_get_destination(msg), dest);
    }
    assert_string_equal(dbus_message_get_path(msg), path);
    assert_string_equal(dbus_message_get_interface(msg), iface);
    assert_string_equal(dbus_message_get_member(msg), member);
    assert_string_equal(dbus_message_get_signature(msg), signature);
}

/* ---------------------------------------------------------------------------------------- */
/* Builders                                                                                 */
/* ---------------------------------------------------------------------------------------- */

static void test_builder_register_service(void **state)
{
    DBusMessage *msg;
    const char *name;
    dbus_uint16_t version;
    dbus_uint16_t type;

    msg = sbus_msg_sssd_monitor_RegisterService(SSS_BUS_MONITOR, SSS_BUS_PATH, "nss",
                                                SSS_SERVICE_VERSION, SSS_SERVICE_TYPE_RESPONDER);
    assert_header(msg, DBUS_MESSAGE_TYPE_METHOD_CALL, "sssd.monitor", "/sssd", "sssd.monitor",
                  "RegisterService", "sqq");
    assert_true(dbus_message_get_args(msg, NULL, DBUS_TYPE_STRING, &name,
                                      DBUS_TYPE_UINT16, &version, DBUS_TYPE_UINT16, &type,
                                      DBUS_TYPE_INVALID));
    assert_string_equal(name, "nss");
    assert_int_equal(version, 1);
    assert_int_equal(type, 1);
    dbus_message_unref(msg);
}

static void test_builder_get_account_info(void **state)
{
    DBusMessage *msg;
    dbus_uint32_t dp_flags, entry_type, cli_id;
    dbus_uint64_t req_id;
    const char *filter, *domain, *extra;

    msg = sbus_msg_sssd_dataprovider_getAccountInfo(DP_NAME, SSS_BUS_PATH, 1, 0x0001,
                                                    "name=alice", "ldap.test", "", 42,
                                                    UINT64_C(0x1234567890));
    assert_header(msg, DBUS_MESSAGE_TYPE_METHOD_CALL, DP_NAME, "/sssd", "sssd.dataprovider",
                  "getAccountInfo", "uusssut");
    assert_true(dbus_message_get_args(msg, NULL, DBUS_TYPE_UINT32, &dp_flags,
                                      DBUS_TYPE_UINT32, &entry_type,
                                      DBUS_TYPE_STRING, &filter, DBUS_TYPE_STRING, &domain,
                                      DBUS_TYPE_STRING, &extra, DBUS_TYPE_UINT32, &cli_id,
                                      DBUS_TYPE_UINT64, &req_id, DBUS_TYPE_INVALID));
    assert_int_equal(dp_flags, 1);
    assert_int_equal(entry_type, 1);
    assert_string_equal(filter, "name=alice");
    assert_string_equal(domain, "ldap.test");
    assert_string_equal(extra, "");
    assert_int_equal(cli_id, 42);
    assert_true(req_id == UINT64_C(0x1234567890));
    dbus_message_unref(msg);
}

static void test_builder_no_args(void **state)
{
    DBusMessage *msg;

    msg = sbus_msg_sssd_service_Ping("sssd.nss", SSS_BUS_PATH);
    assert_header(msg, DBUS_MESSAGE_TYPE_METHOD_CALL, "sssd.nss", "/sssd", "sssd.service",
                  "Ping", "");
    dbus_message_unref(msg);

    msg = sbus_msg_org_freedesktop_DBus_Hello(SBUS_DBUS_NAME, SBUS_DBUS_PATH);
    assert_header(msg, DBUS_MESSAGE_TYPE_METHOD_CALL, "org.freedesktop.DBus",
                  "/org/freedesktop/DBus", "org.freedesktop.DBus", "Hello", "");
    dbus_message_unref(msg);
}

static void test_builder_invalid(void **state)
{
    /* Anything libdbus would abort on is refused up front. */
    assert_null(sbus_msg_sssd_monitor_RegisterService(SSS_BUS_MONITOR, SSS_BUS_PATH, NULL,
                                                      1, 1));
    assert_null(sbus_msg_sssd_monitor_RegisterService(SSS_BUS_MONITOR, SSS_BUS_PATH,
                                                      "bad\xff utf-8", 1, 1));
    assert_null(sbus_msg_sssd_monitor_RegisterService(SSS_BUS_MONITOR, "no-slash", "nss", 1, 1));
    assert_null(sbus_msg_sssd_monitor_RegisterService(SSS_BUS_MONITOR, NULL, "nss", 1, 1));
    assert_null(sbus_msg_sssd_monitor_RegisterService(NULL, SSS_BUS_PATH, "nss", 1, 1));
    assert_null(sbus_msg_sssd_monitor_RegisterService("not a bus name", SSS_BUS_PATH, "nss",
                                                      1, 1));
    assert_null(sbus_signal_msg_sssd_Responder_Domain_SetActive(SSS_BUS_PATH, NULL));
    assert_null(sbus_signal_msg_sssd_Responder_Domain_SetActive("//", "ldap.test"));
}

static void test_builder_signals(void **state)
{
    DBusMessage *msg;
    dbus_uint32_t gid;
    const char *name;

    msg = sbus_signal_msg_sssd_nss_MemoryCache_InvalidateGroupById(SSS_BUS_PATH, 1000);
    assert_header(msg, DBUS_MESSAGE_TYPE_SIGNAL, NULL, "/sssd", "sssd.nss.MemoryCache",
                  "InvalidateGroupById", "u");
    assert_true(dbus_message_get_args(msg, NULL, DBUS_TYPE_UINT32, &gid, DBUS_TYPE_INVALID));
    assert_int_equal(gid, 1000);
    dbus_message_unref(msg);

    msg = sbus_signal_msg_sssd_Responder_Domain_SetInconsistent(SSS_BUS_PATH, "ldap.test");
    assert_header(msg, DBUS_MESSAGE_TYPE_SIGNAL, NULL, "/sssd", "sssd.Responder.Domain",
                  "SetInconsistent", "s");
    assert_true(dbus_message_get_args(msg, NULL, DBUS_TYPE_STRING, &name, DBUS_TYPE_INVALID));
    assert_string_equal(name, "ldap.test");
    dbus_message_unref(msg);

    msg = sbus_signal_msg_sssd_service_RotateLogs(SSS_BUS_PATH);
    assert_header(msg, DBUS_MESSAGE_TYPE_SIGNAL, NULL, "/sssd", "sssd.service", "RotateLogs", "");
    dbus_message_unref(msg);

    msg = sbus_signal_msg_sssd_Responder_NegativeCache_ResetGroups(SSS_BUS_PATH);
    assert_header(msg, DBUS_MESSAGE_TYPE_SIGNAL, NULL, "/sssd", "sssd.Responder.NegativeCache",
                  "ResetGroups", "");
    dbus_message_unref(msg);
}

static void test_constants(void **state)
{
    assert_string_equal(SBUS_IFACE_sssd_nss_MemoryCache, "sssd.nss.MemoryCache");
    assert_string_equal(SBUS_MEMBER_sssd_dataprovider_getAccountInfo, "getAccountInfo");
    assert_non_null(strstr(sbus_introspect_sssd_dataprovider,
                           "<arg name=\"req_id\" type=\"t\" direction=\"in\"/>"));
    assert_non_null(strstr(sbus_introspect_sssd_nss_MemoryCache,
                           "<signal name=\"InvalidateGroupById\">"));
}

/* ---------------------------------------------------------------------------------------- */
/* Keys                                                                                     */
/* ---------------------------------------------------------------------------------------- */

static char *dp_key(const char *dest, uint32_t dp_flags, uint32_t entry_type, const char *filter,
                    const char *domain, const char *extra, uint32_t cli_id, uint64_t req_id)
{
    char *key;

    key = sbus_key_sssd_dataprovider_getAccountInfo(tctx->mem, dest, SSS_BUS_PATH, dp_flags,
                                                    entry_type, filter, domain, extra, cli_id,
                                                    req_id);
    assert_non_null(key);
    return key;
}

static void test_key_format(void **state)
{
    char *key;
    char *expected;

    key = dp_key(DP_NAME, 1, 1, "name=alice", "ldap.test", "", 7, 99);
    expected = talloc_asprintf(tctx->mem, "%u:method:" DP_NAME
                               ":sssd.dataprovider.getAccountInfo:/sssd:1:name=alice:ldap.test:",
                               (unsigned)geteuid());
    assert_string_equal(key, expected);
    talloc_free(key);
    talloc_free(expected);
}

static void test_key_equality(void **state)
{
    char *base = dp_key(DP_NAME, 1, 1, "name=alice", "ldap.test", "", 7, 99);

    /* The same call to the same destination: one key. */
    assert_string_equal(base, dp_key(DP_NAME, 1, 1, "name=alice", "ldap.test", "", 7, 99));
    /* Not part of the key: dp_flags, cli_id, req_id. */
    assert_string_equal(base, dp_key(DP_NAME, 0, 1, "name=alice", "ldap.test", "", 7, 99));
    assert_string_equal(base, dp_key(DP_NAME, 1, 1, "name=alice", "ldap.test", "", 8, 99));
    assert_string_equal(base, dp_key(DP_NAME, 1, 1, "name=alice", "ldap.test", "", 7, 100));
    /* Part of the key: the destination and every key argument. */
    assert_string_not_equal(base, dp_key("sssd.domain_other", 1, 1, "name=alice", "ldap.test",
                                         "", 7, 99));
    assert_string_not_equal(base, dp_key(DP_NAME, 1, 2, "name=alice", "ldap.test", "", 7, 99));
    assert_string_not_equal(base, dp_key(DP_NAME, 1, 1, "name=bob", "ldap.test", "", 7, 99));
    assert_string_not_equal(base, dp_key(DP_NAME, 1, 1, "name=alice", "other", "", 7, 99));
    assert_string_not_equal(base, dp_key(DP_NAME, 1, 1, "name=alice", "ldap.test", "x", 7, 99));
    /* ':' inside a string cannot make two different calls look alike. */
    assert_string_not_equal(dp_key(DP_NAME, 1, 1, "a:b", "c", "", 7, 99),
                            dp_key(DP_NAME, 1, 1, "a", "b:c", "", 7, 99));
    assert_non_null(strstr(dp_key(DP_NAME, 1, 1, "a:b%", "c", "", 7, 99), ":a%3ab%25:c:"));
    talloc_free_children(tctx->mem);
}

static void test_key_all_types(void **state)
{
    const char *strv[] = { "a", NULL };
    const uint32_t au[] = { 1, 2 };
    char *key;
    char *expected;
    char *other;

    key = sbus_key_sssd_test_Types_Echo(tctx->mem, "sssd.test", "/t", 255, true, -3, 65535,
                                        INT32_MIN, UINT32_MAX, INT64_MIN, UINT64_MAX, "s", "/o",
                                        strv, au, 2);
    assert_non_null(key);
    expected = talloc_asprintf(tctx->mem, "%u:method:sssd.test:sssd.test.Types.Echo:/t:"
                               "255:true:-3:65535:-2147483648:4294967295:"
                               "-9223372036854775808:18446744073709551615:s:/o",
                               (unsigned)geteuid());
    assert_string_equal(key, expected);

    /* Arrays are not key arguments. */
    other = sbus_key_sssd_test_Types_Echo(tctx->mem, "sssd.test", "/t", 255, true, -3, 65535,
                                          INT32_MIN, UINT32_MAX, INT64_MIN, UINT64_MAX, "s",
                                          "/o", NULL, NULL, 0);
    assert_string_equal(key, other);
    other = sbus_key_sssd_test_Types_Echo(tctx->mem, "sssd.test", "/t", 255, false, -3, 65535,
                                          INT32_MIN, UINT32_MAX, INT64_MIN, UINT64_MAX, "s",
                                          "/o", NULL, NULL, 0);
    assert_string_not_equal(key, other);
    talloc_free_children(tctx->mem);
}

/* ---------------------------------------------------------------------------------------- */
/* Method invokers                                                                          */
/* ---------------------------------------------------------------------------------------- */

struct register_record {
    unsigned int calls;
    char *name;
    uint16_t version;
    uint16_t type;
    errno_t result;
    struct sbus_request *sbus_req;
};

static errno_t register_handler(TALLOC_CTX *mem_ctx, struct sbus_request *sbus_req, void *data,
                                const char *name, uint16_t version, uint16_t type,
                                uint16_t *_monitor_version)
{
    struct register_record *rec = data;

    rec->calls++;
    rec->sbus_req = sbus_req;
    rec->name = talloc_strdup(tctx->mem, name);
    rec->version = version;
    rec->type = type;
    if (rec->result == EOK) {
        *_monitor_version = SSS_MONITOR_VERSION;
    }
    return rec->result;
}

static void invoke(const struct sbus_method *table, const char *member, DBusMessage *msg)
{
    struct sbus_request *sbus_req;
    size_t i;

    sbus_req = sbus_capture_request(tctx->mem, tctx->conn, msg, ":1.7");
    assert_non_null(sbus_req);
    dbus_message_unref(msg);
    for (i = 0; table[i].member != NULL; i++) {
        if (strcmp(table[i].member, member) == 0) {
            table[i].invoker(sbus_req, &table[i]);
            return;
        }
    }
    fail_msg("no %s in the table", member);
}

static void test_invoke_sync(void **state)
{
    struct register_record rec = { 0 };
    const struct sbus_method methods[] = {
        SBUS_METHOD_SYNC_sssd_monitor_RegisterService(register_handler, &rec),
        SBUS_METHODS_END
    };
    DBusMessage *msg;
    DBusMessage *reply;
    dbus_uint16_t monitor_version;

    msg = sbus_msg_sssd_monitor_RegisterService(SSS_BUS_MONITOR, SSS_BUS_PATH, "pam", 1,
                                                SSS_SERVICE_TYPE_RESPONDER);
    assert_non_null(msg);
    dbus_message_set_serial(msg, 77);
    invoke(methods, "RegisterService", msg);

    assert_int_equal(rec.calls, 1);
    assert_string_equal(rec.name, "pam");
    assert_int_equal(rec.version, 1);
    assert_int_equal(rec.type, SSS_SERVICE_TYPE_RESPONDER);
    assert_int_equal(sbus_capture.replies, 1);
    assert_int_equal(sbus_capture.reply_error, EOK);

    reply = sbus_capture_take_reply();
    assert_non_null(reply);
    assert_int_equal(dbus_message_get_type(reply), DBUS_MESSAGE_TYPE_METHOD_RETURN);
    assert_int_equal(dbus_message_get_reply_serial(reply), 77);
    assert_string_equal(dbus_message_get_signature(reply), "q");
    assert_true(dbus_message_get_args(reply, NULL, DBUS_TYPE_UINT16, &monitor_version,
                                      DBUS_TYPE_INVALID));
    assert_int_equal(monitor_version, SSS_MONITOR_VERSION);
    dbus_message_unref(reply);
    talloc_free(rec.name);
}

static void test_invoke_sync_error(void **state)
{
    struct register_record rec = { .result = ERR_SBUS_ACCESS_DENIED };
    const struct sbus_method methods[] = {
        SBUS_METHOD_SYNC_sssd_monitor_RegisterService(register_handler, &rec),
        SBUS_METHODS_END
    };
    DBusMessage *reply;

    invoke(methods, "RegisterService",
           sbus_msg_sssd_monitor_RegisterService(SSS_BUS_MONITOR, SSS_BUS_PATH, "pam", 1, 1));
    assert_int_equal(rec.calls, 1);
    assert_int_equal(sbus_capture.replies, 1);
    assert_int_equal(sbus_capture.reply_error, ERR_SBUS_ACCESS_DENIED);
    reply = sbus_capture.reply;
    assert_int_equal(dbus_message_get_type(reply), DBUS_MESSAGE_TYPE_ERROR);
    assert_string_equal(dbus_message_get_error_name(reply), DBUS_ERROR_ACCESS_DENIED);
    talloc_free(rec.name);
}

static void test_invoke_bad_args(void **state)
{
    struct register_record rec = { 0 };
    const struct sbus_method methods[] = {
        SBUS_METHOD_SYNC_sssd_monitor_RegisterService(register_handler, &rec),
        SBUS_METHODS_END
    };
    DBusMessage *msg;
    const char *name = "nss";
    dbus_uint16_t version = 1;
    dbus_uint32_t wrong = 1;

    /* Too few arguments. */
    msg = dbus_message_new_method_call(SSS_BUS_MONITOR, SSS_BUS_PATH, "sssd.monitor",
                                       "RegisterService");
    assert_true(dbus_message_append_args(msg, DBUS_TYPE_STRING, &name, DBUS_TYPE_UINT16,
                                         &version, DBUS_TYPE_INVALID));
    invoke(methods, "RegisterService", msg);
    assert_int_equal(sbus_capture.reply_error, ERR_SBUS_INVALID_ARGS);
    assert_string_equal(dbus_message_get_error_name(sbus_capture.reply), DBUS_ERROR_INVALID_ARGS);

    /* A wrong type. */
    msg = dbus_message_new_method_call(SSS_BUS_MONITOR, SSS_BUS_PATH, "sssd.monitor",
                                       "RegisterService");
    assert_true(dbus_message_append_args(msg, DBUS_TYPE_STRING, &name, DBUS_TYPE_UINT16,
                                         &version, DBUS_TYPE_UINT32, &wrong, DBUS_TYPE_INVALID));
    invoke(methods, "RegisterService", msg);
    assert_int_equal(sbus_capture.reply_error, ERR_SBUS_INVALID_ARGS);

    /* One argument too many. */
    msg = sbus_msg_sssd_monitor_RegisterService(SSS_BUS_MONITOR, SSS_BUS_PATH, "nss", 1, 1);
    assert_true(dbus_message_append_args(msg, DBUS_TYPE_UINT32, &wrong, DBUS_TYPE_INVALID));
    invoke(methods, "RegisterService", msg);
    assert_int_equal(sbus_capture.reply_error, ERR_SBUS_INVALID_ARGS);

    /* Arguments to a method that takes none. */
    msg = dbus_message_new_method_call("sssd.nss", SSS_BUS_PATH, "sssd.service", "Ping");
    assert_true(dbus_message_append_args(msg, DBUS_TYPE_STRING, &name, DBUS_TYPE_INVALID));
    invoke((const struct sbus_method[]){
               SBUS_METHOD_SYNC_sssd_service_Ping(NULL, NULL), SBUS_METHODS_END
           }, "Ping", msg);
    assert_int_equal(sbus_capture.reply_error, ERR_SBUS_INVALID_ARGS);

    assert_int_equal(rec.calls, 0);
    assert_int_equal(sbus_capture.replies, 4);
}

static void test_invoke_bad_table(void **state)
{
    /* An entry without a handler answers an error instead of crashing. */
    invoke((const struct sbus_method[]){
               SBUS_METHOD_SYNC_sssd_service_Ping(NULL, NULL), SBUS_METHODS_END
           }, "Ping", sbus_msg_sssd_service_Ping("sssd.nss", SSS_BUS_PATH));
    assert_int_equal(sbus_capture.reply_error, ERR_INTERNAL);
}

static errno_t ping_handler(TALLOC_CTX *mem_ctx, struct sbus_request *sbus_req, void *data)
{
    (*(unsigned int *)data)++;
    return EOK;
}

static errno_t set_debug_level_handler(TALLOC_CTX *mem_ctx, struct sbus_request *sbus_req,
                                       void *data, uint32_t level)
{
    *(uint32_t *)data = level;
    return EOK;
}

static void test_invoke_empty_reply(void **state)
{
    unsigned int pings = 0;
    uint32_t level = 0;
    const struct sbus_method methods[] = {
        SBUS_METHOD_SYNC_sssd_service_Ping(ping_handler, &pings),
        SBUS_METHOD_SYNC_sssd_service_SetDebugLevel(set_debug_level_handler, &level),
        SBUS_METHODS_END
    };

    invoke(methods, "Ping", sbus_msg_sssd_service_Ping("sssd.nss", SSS_BUS_PATH));
    assert_int_equal(pings, 1);
    assert_int_equal(sbus_capture.reply_error, EOK);
    assert_int_equal(dbus_message_get_type(sbus_capture.reply), DBUS_MESSAGE_TYPE_METHOD_RETURN);
    assert_string_equal(dbus_message_get_signature(sbus_capture.reply), "");

    invoke(methods, "SetDebugLevel",
           sbus_msg_sssd_service_SetDebugLevel("sssd.nss", SSS_BUS_PATH, 0x3ff0));
    assert_int_equal(level, 0x3ff0);
    assert_int_equal(sbus_capture.reply_error, EOK);
    assert_string_equal(dbus_message_get_signature(sbus_capture.reply), "");
}

/* An asynchronous getAccountInfo handler: answers on the next loop iteration. */
struct account_record {
    unsigned int sends;
    uint32_t entry_type;
    uint64_t req_id;
    errno_t result;
    bool bad_output;
};

struct account_state {
    const char *message;
    uint32_t entry_type;
};

static struct tevent_req *account_send(TALLOC_CTX *mem_ctx, struct tevent_context *ev,
                                       struct sbus_request *sbus_req, void *data,
                                       uint32_t dp_flags, uint32_t entry_type,
                                       const char *filter, const char *domain, const char *extra,
                                       uint32_t cli_id, uint64_t req_id)
{
    struct account_record *rec = data;
    struct account_state *state;
    struct tevent_req *req;

    rec->sends++;
    rec->entry_type = entry_type;
    rec->req_id = req_id;
    req = tevent_req_create(mem_ctx, &state, struct account_state);
    if (req == NULL) {
        return NULL;
    }
    state->entry_type = entry_type;
    state->message = rec->bad_output
                     ? NULL
                     : talloc_asprintf(state, "%s@%s", filter, domain);
    return sss_req_post(req, ev, rec->result);
}

static errno_t account_recv(TALLOC_CTX *mem_ctx, struct tevent_req *req, uint16_t *_dp_error,
                            uint32_t *_error, const char **_message, uint64_t *_gen,
                            const uint8_t **_entry, uint32_t *_n_entry)
{
    struct account_state *state = tevent_req_data(req, struct account_state);
    static const uint8_t entry[] = { 1, 2, 3 };

    TEVENT_REQ_RETURN_ON_ERROR(req);
    *_dp_error = 0;
    *_error = state->entry_type + 1000;
    *_message = talloc_steal(mem_ctx, state->message);
    *_gen = state->entry_type + 7000;
    *_entry = entry;
    *_n_entry = sizeof(entry);
    return EOK;
}

static struct tevent_req *account_send_fails(TALLOC_CTX *mem_ctx, struct tevent_context *ev,
                                             struct sbus_request *sbus_req, void *data,
                                             uint32_t dp_flags, uint32_t entry_type,
                                             const char *filter, const char *domain,
                                             const char *extra, uint32_t cli_id,
                                             uint64_t req_id)
{
    return NULL;
}

static DBusMessage *account_msg(void)
{
    return sbus_msg_sssd_dataprovider_getAccountInfo(DP_NAME, SSS_BUS_PATH, 0, 2, "name=alice",
                                                     "ldap.test", "", 3, 123);
}

static void test_invoke_async(void **state)
{
    struct account_record rec = { 0 };
    const struct sbus_method methods[] = {
        SBUS_METHOD_ASYNC_sssd_dataprovider_getAccountInfo(account_send, account_recv, &rec),
        SBUS_METHODS_END
    };
    dbus_uint16_t dp_error;
    dbus_uint32_t error;
    const char *message;

    invoke(methods, "getAccountInfo", account_msg());
    assert_int_equal(rec.sends, 1);
    assert_int_equal(rec.entry_type, 2);
    assert_true(rec.req_id == 123);
    assert_int_equal(sbus_capture.replies, 0);      /* not before the handler finishes */
    run_until_replied(1);

    assert_int_equal(sbus_capture.reply_error, EOK);
    assert_string_equal(dbus_message_get_signature(sbus_capture.reply), "qustay");
    assert_true(dbus_message_get_args(sbus_capture.reply, NULL, DBUS_TYPE_UINT16, &dp_error,
                                      DBUS_TYPE_UINT32, &error, DBUS_TYPE_STRING, &message,
                                      DBUS_TYPE_INVALID));
    assert_int_equal(dp_error, 0);
    assert_int_equal(error, 1002);
    assert_string_equal(message, "name=alice@ldap.test");
}

static void test_invoke_async_errors(void **state)
{
    struct account_record rec = { .result = ENOENT };
    const struct sbus_method methods[] = {
        SBUS_METHOD_ASYNC_sssd_dataprovider_getAccountInfo(account_send, account_recv, &rec),
        SBUS_METHODS_END
    };
    const struct sbus_method failing[] = {
        SBUS_METHOD_ASYNC_sssd_dataprovider_getAccountInfo(account_send_fails, account_recv,
                                                           NULL),
        SBUS_METHODS_END
    };

    /* The handler fails. */
    invoke(methods, "getAccountInfo", account_msg());
    run_until_replied(1);
    assert_int_equal(sbus_capture.reply_error, ENOENT);
    assert_string_equal(dbus_message_get_error_name(sbus_capture.reply), "sssd.Error.Errno");

    /* The handler succeeds with an output that cannot be sent (a NULL string). */
    rec.result = EOK;
    rec.bad_output = true;
    invoke(methods, "getAccountInfo", account_msg());
    run_until_replied(2);
    assert_int_equal(sbus_capture.reply_error, ERR_INTERNAL);

    /* The handler cannot start. */
    invoke(failing, "getAccountInfo", account_msg());
    assert_int_equal(sbus_capture.replies, 3);
    assert_int_equal(sbus_capture.reply_error, ENOMEM);
}

/* ---------------------------------------------------------------------------------------- */
/* Callers                                                                                  */
/* ---------------------------------------------------------------------------------------- */

/* Answers a captured call by running it through a server table, like a peer would. */
static DBusMessage *loopback_answer(DBusMessage *call, errno_t *_error, void *data)
{
    const struct sbus_method *table = data;
    unsigned int replies = sbus_capture.replies;

    /* Copied: stamping the sender on the call moves its header fields. */
    char *member = talloc_strdup(tctx->mem, dbus_message_get_member(call));

    invoke(table, member, dbus_message_ref(call));
    talloc_free(member);
    run_until_replied(replies + 1);
    return sbus_capture_take_reply();
}

static void test_call_keyed(void **state)
{
    struct account_record rec = { 0 };
    const struct sbus_method methods[] = {
        SBUS_METHOD_ASYNC_sssd_dataprovider_getAccountInfo(account_send, account_recv, &rec),
        SBUS_METHODS_END
    };
    TALLOC_CTX *out_ctx = talloc_new(tctx->mem);
    struct tevent_req *req;
    uint16_t dp_error = 99;
    uint32_t error = 99;
    const char *message = NULL;
    uint64_t gen = 0;
    const uint8_t *entry = NULL;
    uint32_t n_entry = 0;
    char *key;

    sbus_capture.answer = loopback_answer;
    sbus_capture.answer_data = discard_const(methods);

    req = sbus_call_sssd_dataprovider_getAccountInfo_send(tctx->mem, tctx->conn, DP_NAME,
                                                          SSS_BUS_PATH, 0, 1, "name=bob",
                                                          "ldap.test", "", 5, 777);
    assert_non_null(req);
    assert_int_equal(sbus_capture.calls, 1);
    assert_header(sbus_capture.sent, DBUS_MESSAGE_TYPE_METHOD_CALL, DP_NAME, "/sssd",
                  "sssd.dataprovider", "getAccountInfo", "uusssut");
    key = dp_key(DP_NAME, 0, 1, "name=bob", "ldap.test", "", 5, 777);
    assert_string_equal(sbus_capture.key, key);
    talloc_free(key);

    tc_wait_req(tctx->ev, req);
    assert_int_equal(sbus_call_sssd_dataprovider_getAccountInfo_recv(out_ctx, req, &dp_error,
                                                                     &error, &message, &gen,
                                                                     &entry, &n_entry), EOK);
    talloc_free(req);
    assert_int_equal(dp_error, 0);
    assert_int_equal(error, 1001);
    assert_true(gen == 7001);
    assert_int_equal(n_entry, 3);
    assert_int_equal(entry[2], 3);
    assert_string_equal(message, "name=bob@ldap.test");
    assert_ptr_equal(talloc_parent(message), out_ctx);     /* outlives the request */
    assert_true(rec.req_id == 777);

    /* NULL output pointers are allowed. */
    req = sbus_call_sssd_dataprovider_getAccountInfo_send(tctx->mem, tctx->conn, DP_NAME,
                                                          SSS_BUS_PATH, 0, 1, "name=bob",
                                                          "ldap.test", "", 5, 778);
    tc_wait_req(tctx->ev, req);
    assert_int_equal(sbus_call_sssd_dataprovider_getAccountInfo_recv(out_ctx, req, NULL, &error,
                                                                     NULL, NULL, NULL, NULL),
                     EOK);
    talloc_free(req);
    talloc_free(out_ctx);
}

static void test_call_unkeyed(void **state)
{
    struct register_record rec = { 0 };
    const struct sbus_method methods[] = {
        SBUS_METHOD_SYNC_sssd_monitor_RegisterService(register_handler, &rec),
        SBUS_METHODS_END
    };
    struct tevent_req *req;
    uint16_t monitor_version = 0;

    sbus_capture.answer = loopback_answer;
    sbus_capture.answer_data = discard_const(methods);
    req = sbus_call_sssd_monitor_RegisterService_send(tctx->mem, tctx->conn, SSS_BUS_MONITOR,
                                                      SSS_BUS_PATH, "sudo", 1, 1);
    assert_non_null(req);
    assert_null(sbus_capture.key);
    tc_wait_req(tctx->ev, req);
    assert_int_equal(sbus_call_sssd_monitor_RegisterService_recv(tctx->mem, req,
                                                                 &monitor_version), EOK);
    assert_int_equal(monitor_version, SSS_MONITOR_VERSION);
    assert_string_equal(rec.name, "sudo");
    talloc_free(req);
    talloc_free(rec.name);
}

static void test_call_errors(void **state)
{
    struct register_record rec = { .result = EPERM };
    const struct sbus_method methods[] = {
        SBUS_METHOD_SYNC_sssd_monitor_RegisterService(register_handler, &rec),
        SBUS_METHODS_END
    };
    struct tevent_req *req;
    uint16_t monitor_version = 55;

    /* The remote handler's error comes back as its errno. */
    sbus_capture.answer = loopback_answer;
    sbus_capture.answer_data = discard_const(methods);
    req = sbus_call_sssd_monitor_RegisterService_send(tctx->mem, tctx->conn, SSS_BUS_MONITOR,
                                                      SSS_BUS_PATH, "sudo", 1, 1);
    tc_wait_req(tctx->ev, req);
    assert_int_equal(sbus_call_sssd_monitor_RegisterService_recv(tctx->mem, req,
                                                                 &monitor_version), EPERM);
    assert_int_equal(monitor_version, 55);
    talloc_free(req);
    talloc_free(rec.name);

    /* The transport's error. */
    sbus_capture.answer = NULL;
    req = sbus_call_sssd_monitor_RegisterService_send(tctx->mem, tctx->conn, SSS_BUS_MONITOR,
                                                      SSS_BUS_PATH, "sudo", 1, 1);
    tc_wait_req(tctx->ev, req);
    assert_int_equal(sbus_call_sssd_monitor_RegisterService_recv(tctx->mem, req,
                                                                 &monitor_version),
                     ERR_SBUS_NO_REPLY);
    talloc_free(req);

    /* Invalid arguments never reach the transport. */
    sbus_capture.calls = 0;
    req = sbus_call_sssd_monitor_RegisterService_send(tctx->mem, tctx->conn, SSS_BUS_MONITOR,
                                                      SSS_BUS_PATH, NULL, 1, 1);
    assert_non_null(req);
    tc_wait_req(tctx->ev, req);
    assert_int_equal(sbus_call_sssd_monitor_RegisterService_recv(tctx->mem, req,
                                                                 &monitor_version), EINVAL);
    assert_int_equal(sbus_capture.calls, 0);
    talloc_free(req);

    assert_null(sbus_call_sssd_monitor_RegisterService_send(tctx->mem, NULL, SSS_BUS_MONITOR,
                                                            SSS_BUS_PATH, "nss", 1, 1));
    assert_int_equal(monitor_version, 55);
}

static DBusMessage *wrong_reply_answer(DBusMessage *call, errno_t *_error, void *data)
{
    DBusMessage *reply;
    const char *text = "not a q";

    dbus_message_set_serial(call, 5);
    reply = dbus_message_new_method_return(call);

    dbus_message_append_args(reply, DBUS_TYPE_STRING, &text, DBUS_TYPE_INVALID);
    return reply;
}

static void test_call_bad_reply(void **state)
{
    struct tevent_req *req;
    uint16_t monitor_version = 55;

    sbus_capture.answer = wrong_reply_answer;
    req = sbus_call_sssd_monitor_RegisterService_send(tctx->mem, tctx->conn, SSS_BUS_MONITOR,
                                                      SSS_BUS_PATH, "nss", 1, 1);
    tc_wait_req(tctx->ev, req);
    assert_int_equal(sbus_call_sssd_monitor_RegisterService_recv(tctx->mem, req,
                                                                 &monitor_version),
                     ERR_SBUS_INVALID_ARGS);
    assert_int_equal(monitor_version, 55);
    talloc_free(req);

    /* A method without outputs still checks that the reply is empty. */
    req = sbus_call_sssd_service_Ping_send(tctx->mem, tctx->conn, "sssd.nss", SSS_BUS_PATH);
    tc_wait_req(tctx->ev, req);
    assert_int_equal(sbus_call_sssd_service_Ping_recv(tctx->mem, req), ERR_SBUS_INVALID_ARGS);
    talloc_free(req);
}

/* org.freedesktop.DBus: string arrays and booleans. */
static errno_t list_names_handler(TALLOC_CTX *mem_ctx, struct sbus_request *sbus_req, void *data,
                                  const char ***_names)
{
    const char **names = talloc_zero_array(mem_ctx, const char *, 4);

    names[0] = "org.freedesktop.DBus";
    names[1] = "sssd.monitor";
    names[2] = talloc_strdup(names, ":1.3");
    *_names = names;
    return EOK;
}

static errno_t has_owner_handler(TALLOC_CTX *mem_ctx, struct sbus_request *sbus_req, void *data,
                                 const char *name, bool *_has_owner)
{
    *_has_owner = strcmp(name, "sssd.nss") == 0;
    return EOK;
}

static void test_call_dbus(void **state)
{
    const struct sbus_method methods[] = {
        SBUS_METHOD_SYNC_org_freedesktop_DBus_ListNames(list_names_handler, NULL),
        SBUS_METHOD_SYNC_org_freedesktop_DBus_NameHasOwner(has_owner_handler, NULL),
        SBUS_METHODS_END
    };
    struct tevent_req *req;
    const char **names = NULL;
    bool has_owner = false;

    sbus_capture.answer = loopback_answer;
    sbus_capture.answer_data = discard_const(methods);

    req = sbus_call_org_freedesktop_DBus_ListNames_send(tctx->mem, tctx->conn, SBUS_DBUS_NAME,
                                                        SBUS_DBUS_PATH);
    tc_wait_req(tctx->ev, req);
    assert_int_equal(sbus_call_org_freedesktop_DBus_ListNames_recv(tctx->mem, req, &names), EOK);
    talloc_free(req);
    assert_non_null(names);
    assert_string_equal(names[0], "org.freedesktop.DBus");
    assert_string_equal(names[1], "sssd.monitor");
    assert_string_equal(names[2], ":1.3");
    assert_null(names[3]);
    talloc_free(names);

    req = sbus_call_org_freedesktop_DBus_NameHasOwner_send(tctx->mem, tctx->conn,
                                                           SBUS_DBUS_NAME, SBUS_DBUS_PATH,
                                                           "sssd.nss");
    tc_wait_req(tctx->ev, req);
    assert_int_equal(sbus_call_org_freedesktop_DBus_NameHasOwner_recv(tctx->mem, req,
                                                                      &has_owner), EOK);
    assert_true(has_owner);
    talloc_free(req);

    req = sbus_call_org_freedesktop_DBus_NameHasOwner_send(tctx->mem, tctx->conn,
                                                           SBUS_DBUS_NAME, SBUS_DBUS_PATH,
                                                           "sssd.pam");
    tc_wait_req(tctx->ev, req);
    assert_int_equal(sbus_call_org_freedesktop_DBus_NameHasOwner_recv(tctx->mem, req,
                                                                      &has_owner), EOK);
    assert_false(has_owner);
    talloc_free(req);
}

/* Every type, there and back: sssd.test.Types.Echo answers its inputs. */
static errno_t echo_handler(TALLOC_CTX *mem_ctx, struct sbus_request *sbus_req, void *data,
                            uint8_t v_y, bool v_b, int16_t v_n, uint16_t v_q, int32_t v_i,
                            uint32_t v_u, int64_t v_x, uint64_t v_t, const char *v_s,
                            const char *v_o, const char **v_as, const uint32_t *v_au,
                            uint32_t n_v_au, uint8_t *_r_y, bool *_r_b, int16_t *_r_n,
                            uint16_t *_r_q, int32_t *_r_i, uint32_t *_r_u, int64_t *_r_x,
                            uint64_t *_r_t, const char **_r_s, const char **_r_o,
                            const char ***_r_as, const uint32_t **_r_au, uint32_t *_n_r_au)
{
    *_r_y = v_y;
    *_r_b = v_b;
    *_r_n = v_n;
    *_r_q = v_q;
    *_r_i = v_i;
    *_r_u = v_u;
    *_r_x = v_x;
    *_r_t = v_t;
    *_r_s = v_s;
    *_r_o = v_o;
    *_r_as = v_as;
    *_r_au = v_au;
    *_n_r_au = n_v_au;
    return EOK;
}

static void test_call_all_types(void **state)
{
    const struct sbus_method methods[] = {
        SBUS_METHOD_SYNC_sssd_test_Types_Echo(echo_handler, NULL),
        SBUS_METHODS_END
    };
    const char *strv[] = { "one", "", "thr\xc3\xa9\x65", NULL };
    const uint32_t au[] = { 0, 1, UINT32_MAX };
    struct tevent_req *req;
    uint8_t y;
    bool b;
    int16_t n;
    uint16_t q;
    int32_t i;
    uint32_t u;
    int64_t x;
    uint64_t t;
    const char *s;
    const char *o;
    const char **as;
    const uint32_t *ua;
    uint32_t n_ua;

    sbus_capture.answer = loopback_answer;
    sbus_capture.answer_data = discard_const(methods);

    req = sbus_call_sssd_test_Types_Echo_send(tctx->mem, tctx->conn, "sssd.test", "/t", 200,
                                              true, INT16_MIN, UINT16_MAX, INT32_MIN,
                                              UINT32_MAX, INT64_MIN, UINT64_MAX, "str",
                                              "/obj/path", strv, au, 3);
    assert_non_null(req);
    assert_string_equal(dbus_message_get_signature(sbus_capture.sent), "ybnqiuxtsoasau");
    tc_wait_req(tctx->ev, req);
    assert_int_equal(sbus_call_sssd_test_Types_Echo_recv(tctx->mem, req, &y, &b, &n, &q, &i, &u,
                                                         &x, &t, &s, &o, &as, &ua, &n_ua), EOK);
    talloc_free(req);
    assert_int_equal(y, 200);
    assert_true(b);
    assert_int_equal(n, INT16_MIN);
    assert_int_equal(q, UINT16_MAX);
    assert_int_equal(i, INT32_MIN);
    assert_int_equal(u, UINT32_MAX);
    assert_true(x == INT64_MIN);
    assert_true(t == UINT64_MAX);
    assert_string_equal(s, "str");
    assert_string_equal(o, "/obj/path");
    assert_string_equal(as[0], "one");
    assert_string_equal(as[1], "");
    assert_string_equal(as[2], "thr\xc3\xa9\x65");
    assert_null(as[3]);
    assert_int_equal(n_ua, 3);
    assert_int_equal(ua[0], 0);
    assert_int_equal(ua[1], 1);
    assert_int_equal(ua[2], UINT32_MAX);
    talloc_free(discard_const(s));
    talloc_free(discard_const(o));
    talloc_free(as);
    talloc_free(discard_const(ua));

    /* Empty arrays (NULL is empty) and false. */
    req = sbus_call_sssd_test_Types_Echo_send(tctx->mem, tctx->conn, "sssd.test", "/t", 0, false,
                                              0, 0, 0, 0, 0, 0, "", "/", NULL, NULL, 0);
    tc_wait_req(tctx->ev, req);
    assert_int_equal(sbus_call_sssd_test_Types_Echo_recv(tctx->mem, req, &y, &b, &n, &q, &i, &u,
                                                         &x, &t, &s, &o, &as, &ua, &n_ua), EOK);
    talloc_free(req);
    assert_false(b);
    assert_string_equal(s, "");
    assert_non_null(as);
    assert_null(as[0]);
    assert_int_equal(n_ua, 0);
    assert_null(ua);
    talloc_free(discard_const(s));
    talloc_free(discard_const(o));
    talloc_free(as);

    /* Invalid arrays are refused before anything is sent. */
    strv[1] = "\xff";
    assert_null(sbus_msg_sssd_test_Types_Echo("sssd.test", "/t", 0, false, 0, 0, 0, 0, 0, 0, "",
                                              "/", strv, NULL, 0));
    assert_null(sbus_msg_sssd_test_Types_Echo("sssd.test", "/t", 0, false, 0, 0, 0, 0, 0, 0, "",
                                              "/", NULL, NULL, 2));
    assert_null(sbus_msg_sssd_test_Types_Echo("sssd.test", "/t", 0, false, 0, 0, 0, 0, 0, 0, "",
                                              "not/a/path", NULL, NULL, 0));
}

/* ay: bytes of any value (NUL too) there and back, empty as NULL, too long refused. */
static errno_t echo_bytes_handler(TALLOC_CTX *mem_ctx, struct sbus_request *sbus_req,
                                  void *data, const uint8_t *v_ay, uint32_t n_v_ay,
                                  uint32_t v_u, const uint8_t **_r_ay, uint32_t *_n_r_ay,
                                  uint32_t *_r_u)
{
    *_r_ay = v_ay;
    *_n_r_ay = n_v_ay;
    *_r_u = v_u;
    return EOK;
}

static void test_call_bytes(void **state)
{
    const struct sbus_method methods[] = {
        SBUS_METHOD_SYNC_sssd_test_Types_EchoBytes(echo_bytes_handler, NULL),
        SBUS_METHODS_END
    };
    const uint8_t bytes[] = { 'p', 0, 0xff, 'w' };
    struct tevent_req *req;
    const uint8_t *ay;
    uint32_t n_ay;
    uint32_t u;

    sbus_capture.answer = loopback_answer;
    sbus_capture.answer_data = discard_const(methods);

    req = sbus_call_sssd_test_Types_EchoBytes_send(tctx->mem, tctx->conn, "sssd.test", "/t",
                                                   bytes, sizeof(bytes), 9);
    assert_non_null(req);
    assert_string_equal(dbus_message_get_signature(sbus_capture.sent), "ayu");
    tc_wait_req(tctx->ev, req);
    assert_int_equal(sbus_call_sssd_test_Types_EchoBytes_recv(tctx->mem, req, &ay, &n_ay, &u),
                     EOK);
    talloc_free(req);
    assert_int_equal(n_ay, sizeof(bytes));
    assert_memory_equal(ay, bytes, sizeof(bytes));
    assert_int_equal(u, 9);
    talloc_free(discard_const(ay));

    req = sbus_call_sssd_test_Types_EchoBytes_send(tctx->mem, tctx->conn, "sssd.test", "/t",
                                                   NULL, 0, 1);
    tc_wait_req(tctx->ev, req);
    assert_int_equal(sbus_call_sssd_test_Types_EchoBytes_recv(tctx->mem, req, &ay, &n_ay, &u),
                     EOK);
    talloc_free(req);
    assert_int_equal(n_ay, 0);
    assert_null(ay);

    assert_null(sbus_msg_sssd_test_Types_EchoBytes("sssd.test", "/t", NULL, 3, 0));
}

/* ---------------------------------------------------------------------------------------- */
/* Signals                                                                                  */
/* ---------------------------------------------------------------------------------------- */

static void test_emit(void **state)
{
    dbus_uint32_t gid;

    assert_int_equal(sbus_emit_sssd_nss_MemoryCache_InvalidateGroupById(tctx->conn, SSS_BUS_PATH,
                                                                        4242), EOK);
    assert_int_equal(sbus_capture.signals, 1);
    assert_header(sbus_capture.sent, DBUS_MESSAGE_TYPE_SIGNAL, NULL, "/sssd",
                  "sssd.nss.MemoryCache", "InvalidateGroupById", "u");
    assert_true(dbus_message_get_args(sbus_capture.sent, NULL, DBUS_TYPE_UINT32, &gid,
                                      DBUS_TYPE_INVALID));
    assert_int_equal(gid, 4242);

    sbus_capture.emit_error = ERR_SBUS_DISCONNECTED;
    assert_int_equal(sbus_emit_sssd_service_GoOffline(tctx->conn, SSS_BUS_PATH),
                     ERR_SBUS_DISCONNECTED);
    assert_int_equal(sbus_capture.signals, 2);

    assert_int_equal(sbus_emit_sssd_Responder_Domain_SetActive(tctx->conn, SSS_BUS_PATH, NULL),
                     EINVAL);
    assert_int_equal(sbus_emit_sssd_service_GoOffline(NULL, SSS_BUS_PATH), EINVAL);
    assert_int_equal(sbus_capture.signals, 2);
}

struct signal_record {
    unsigned int calls;
    uint32_t gid;
    char *name;
    char *owners;
};

static void gid_listener(struct sbus_request *sbus_req, void *data, uint32_t gid)
{
    struct signal_record *rec = data;

    rec->calls++;
    rec->gid = gid;
}

static void set_active_listener(struct sbus_request *sbus_req, void *data, const char *name)
{
    struct signal_record *rec = data;

    rec->calls++;
    rec->name = talloc_strdup(tctx->mem, name);
}

static void name_owner_listener(struct sbus_request *sbus_req, void *data, const char *name,
                                const char *old_owner, const char *new_owner)
{
    struct signal_record *rec = data;

    rec->calls++;
    rec->owners = talloc_asprintf(tctx->mem, "%s:%s:%s", name, old_owner, new_owner);
}

static void deliver(const struct sbus_listener *listeners, DBusMessage *msg)
{
    struct sbus_request *sbus_req;
    size_t i;

    assert_non_null(msg);
    sbus_req = sbus_capture_request(tctx->mem, tctx->conn, msg, ":1.9");
    dbus_message_unref(msg);
    for (i = 0; listeners[i].interface != NULL; i++) {
        if (strcmp(listeners[i].interface, dbus_message_get_interface(sbus_req->message)) == 0
                && strcmp(listeners[i].member, dbus_message_get_member(sbus_req->message)) == 0) {
            listeners[i].invoker(sbus_req, &listeners[i]);
            return;
        }
    }
    fail_msg("no listener");
}

static void test_listeners(void **state)
{
    struct signal_record rec = { 0 };
    const struct sbus_listener listeners[] = {
        SBUS_LISTENER_sssd_nss_MemoryCache_InvalidateGroupById(gid_listener, &rec),
        SBUS_LISTENER_sssd_Responder_Domain_SetActive(set_active_listener, &rec),
        SBUS_LISTENER_org_freedesktop_DBus_NameOwnerChanged(name_owner_listener, &rec),
        SBUS_LISTENERS_END
    };
    DBusMessage *msg;
    const char *wrong = "1000";

    assert_null(listeners[0].path);
    assert_string_equal(listeners[0].interface, "sssd.nss.MemoryCache");
    assert_string_equal(listeners[0].member, "InvalidateGroupById");

    deliver(listeners, sbus_signal_msg_sssd_nss_MemoryCache_InvalidateGroupById(SSS_BUS_PATH,
                                                                                1000));
    assert_int_equal(rec.calls, 1);
    assert_int_equal(rec.gid, 1000);

    deliver(listeners, sbus_signal_msg_sssd_Responder_Domain_SetActive(SSS_BUS_PATH, "ad.test"));
    assert_int_equal(rec.calls, 2);
    assert_string_equal(rec.name, "ad.test");
    talloc_free(rec.name);

    deliver(listeners, sbus_signal_msg_org_freedesktop_DBus_NameOwnerChanged(SBUS_DBUS_PATH,
                                                                             "sssd.nss", "",
                                                                             ":1.4"));
    assert_int_equal(rec.calls, 3);
    assert_string_equal(rec.owners, "sssd.nss:::1.4");
    talloc_free(rec.owners);

    /* Bad arguments: dropped, the listener is not called, the request is freed. */
    msg = dbus_message_new_signal(SSS_BUS_PATH, "sssd.nss.MemoryCache", "InvalidateGroupById");
    assert_true(dbus_message_append_args(msg, DBUS_TYPE_STRING, &wrong, DBUS_TYPE_INVALID));
    deliver(listeners, msg);
    assert_int_equal(rec.calls, 3);
}

static void everything_listener(struct sbus_request *sbus_req, void *data, bool v_b,
                                int64_t v_x, const char *v_s, const char *v_o, const char **v_as,
                                const uint32_t *v_au, uint32_t n_v_au)
{
    struct signal_record *rec = data;

    rec->calls++;
    rec->name = talloc_asprintf(tctx->mem, "%d %"PRId64" %s %s %s,%s %u:%u,%u", v_b, v_x, v_s,
                                v_o, v_as[0], v_as[1], n_v_au, v_au[0], v_au[1]);
    assert_null(v_as[2]);
}

static void test_signal_all_types(void **state)
{
    struct signal_record rec = { 0 };
    const struct sbus_listener listeners[] = {
        SBUS_LISTENER_sssd_test_Types_Everything(everything_listener, &rec),
        SBUS_LISTENERS_END
    };
    const char *strv[] = { "a", "b", NULL };
    const uint32_t au[] = { 7, 8 };

    deliver(listeners, sbus_signal_msg_sssd_test_Types_Everything("/t", true, -5, "s", "/o",
                                                                  strv, au, 2));
    assert_int_equal(rec.calls, 1);
    assert_string_equal(rec.name, "1 -5 s /o a,b 2:7,8");
    talloc_free(rec.name);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_builder_register_service, setup, teardown),
        cmocka_unit_test_setup_teardown(test_builder_get_account_info, setup, teardown),
        cmocka_unit_test_setup_teardown(test_builder_no_args, setup, teardown),
        cmocka_unit_test_setup_teardown(test_builder_invalid, setup, teardown),
        cmocka_unit_test_setup_teardown(test_builder_signals, setup, teardown),
        cmocka_unit_test_setup_teardown(test_constants, setup, teardown),
        cmocka_unit_test_setup_teardown(test_key_format, setup, teardown),
        cmocka_unit_test_setup_teardown(test_key_equality, setup, teardown),
        cmocka_unit_test_setup_teardown(test_key_all_types, setup, teardown),
        cmocka_unit_test_setup_teardown(test_invoke_sync, setup, teardown),
        cmocka_unit_test_setup_teardown(test_invoke_sync_error, setup, teardown),
        cmocka_unit_test_setup_teardown(test_invoke_bad_args, setup, teardown),
        cmocka_unit_test_setup_teardown(test_invoke_bad_table, setup, teardown),
        cmocka_unit_test_setup_teardown(test_invoke_empty_reply, setup, teardown),
        cmocka_unit_test_setup_teardown(test_invoke_async, setup, teardown),
        cmocka_unit_test_setup_teardown(test_invoke_async_errors, setup, teardown),
        cmocka_unit_test_setup_teardown(test_call_keyed, setup, teardown),
        cmocka_unit_test_setup_teardown(test_call_unkeyed, setup, teardown),
        cmocka_unit_test_setup_teardown(test_call_errors, setup, teardown),
        cmocka_unit_test_setup_teardown(test_call_bad_reply, setup, teardown),
        cmocka_unit_test_setup_teardown(test_call_dbus, setup, teardown),
        cmocka_unit_test_setup_teardown(test_call_bytes, setup, teardown),
        cmocka_unit_test_setup_teardown(test_call_all_types, setup, teardown),
        cmocka_unit_test_setup_teardown(test_emit, setup, teardown),
        cmocka_unit_test_setup_teardown(test_listeners, setup, teardown),
        cmocka_unit_test_setup_teardown(test_signal_all_types, setup, teardown),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
