/*
 * End-to-end tests of the client half of sbus against the real master server, all in one
 * tevent loop: method calls and replies, chaining of identical calls (one destination:
 * chained; two destinations: not), unknown services and methods, timeouts, and signals that
 * reach the connections that listen and no other (never the sender).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdlib.h>
#include <unistd.h>

#include "util/util.h"
#include "sbus/sbus.h"
#include "sbus/sbus_server.h"
#include "tests/unit/common/tc_common.h"
#include "tests/unit/common/tc_bus.h"

#define TEST_IFACE "test.Echo"
#define TEST_SIGNAL_IFACE "test.Notify"
#define TEST_PATH "/test"

struct peer {
    struct sbus_connection *conn;
    unsigned int calls;             /* method handler invocations */
    unsigned int signals;           /* signal handler invocations */
    char *last_sender;
    struct sbus_request *held;      /* a request the handler did not answer yet */
};

static struct tc_leaks leaks;

struct test_ctx {
    char *dir;                      /* on the NULL context: outlives the test context */
    struct tevent_context *ev;
    struct sbus_server *server;
    struct peer a, b, c;
};

/* ---- hand-written invokers: what the generator emits, for a known signature ---- */

static void echo_invoker(struct sbus_request *sbus_req, const struct sbus_method *method)
{
    struct peer *p = method->data;
    const char *text = NULL;
    DBusMessage *reply;

    p->calls++;
    talloc_free(p->last_sender);
    p->last_sender = talloc_strdup(NULL, sbus_req->sender);
    if (!dbus_message_get_args(sbus_req->message, NULL, DBUS_TYPE_STRING, &text,
                               DBUS_TYPE_INVALID)) {
        sbus_request_reply_error(sbus_req, ERR_SBUS_INVALID_ARGS);
        return;
    }
    if (strcmp(text, "hold") == 0) {
        p->held = sbus_req;     /* answered later by the test */
        return;
    }
    if (strcmp(text, "fail") == 0) {
        sbus_request_reply_error(sbus_req, EPERM);
        return;
    }
    reply = dbus_message_new_method_return(sbus_req->message);
    assert_non_null(reply);
    assert_true(dbus_message_append_args(reply, DBUS_TYPE_STRING, &text, DBUS_TYPE_INVALID));
    sbus_request_reply(sbus_req, reply);
}

static void ping_signal_invoker(struct sbus_request *sbus_req, const struct sbus_listener *l)
{
    struct peer *p = l->data;

    p->signals++;
    talloc_free(sbus_req);
}

static void dummy_handler(void) { }

static struct sbus_method echo_methods_a[] = {
    { .member = "Echo", .invoker = echo_invoker }, { .member = NULL } };
static struct sbus_method echo_methods_b[] = {
    { .member = "Echo", .invoker = echo_invoker }, { .member = NULL } };
static struct sbus_method echo_methods_c[] = {
    { .member = "Echo", .invoker = echo_invoker }, { .member = NULL } };

/* ---- helpers ---- */

struct done_flag {
    bool done;
    errno_t ret;
    DBusMessage *reply;
    TALLOC_CTX *mem;
    uint64_t req_id;            /* sss_debug_req_id when the callback ran */
};

static void call_done(struct tevent_req *req)
{
    struct done_flag *f = tevent_req_callback_data_void(req);

    f->req_id = sss_debug_req_id;
    f->ret = sbus_call_recv(f->mem, req, &f->reply);
    talloc_free(req);
    f->done = true;
}

static struct tevent_req *start_echo(struct test_ctx *t, struct peer *from, const char *dest,
                                     const char *text, bool keyed, int timeout_ms,
                                     struct done_flag *f)
{
    struct tevent_req *req;
    DBusMessage *msg;
    char *key = NULL;

    msg = dbus_message_new_method_call(dest, TEST_PATH, TEST_IFACE, "Echo");
    assert_non_null(msg);
    assert_true(dbus_message_append_args(msg, DBUS_TYPE_STRING, &text, DBUS_TYPE_INVALID));
    if (keyed) {
        key = sbus_key_create(t, dest, TEST_IFACE, "Echo", TEST_PATH, text);
        assert_non_null(key);
    }
    f->mem = t;
    req = sbus_call_send(t, from->conn, msg, key, timeout_ms);
    talloc_free(key);
    assert_non_null(req);
    tevent_req_set_callback(req, call_done, f);
    return req;
}

static const char *reply_text(DBusMessage *reply)
{
    const char *text = NULL;

    assert_true(dbus_message_get_args(reply, NULL, DBUS_TYPE_STRING, &text, DBUS_TYPE_INVALID));
    return text;
}

/* ---- fixtures ---- */

static int setup(void **state)
{
    struct test_ctx *t;
    static struct sbus_interface ia, ib, ic;

    tc_leak_start(&leaks);
    t = talloc_zero(NULL, struct test_ctx);
    assert_non_null(t);
    t->dir = tc_tmpdir(NULL, "test_sbus_calls");
    t->ev = tevent_context_init(t);
    assert_non_null(t->ev);
    t->server = tc_bus_server(t, t->ev, t->dir);

    t->a.conn = tc_bus_connect(t, t->ev, t->server, "test.a");
    t->b.conn = tc_bus_connect(t, t->ev, t->server, "test.b");
    t->c.conn = tc_bus_connect(t, t->ev, t->server, "test.c");

    echo_methods_a[0].data = &t->a;
    echo_methods_b[0].data = &t->b;
    echo_methods_c[0].data = &t->c;
    ia = (struct sbus_interface){ TEST_IFACE, echo_methods_a };
    ib = (struct sbus_interface){ TEST_IFACE, echo_methods_b };
    ic = (struct sbus_interface){ TEST_IFACE, echo_methods_c };
    assert_int_equal(sbus_connection_add_interface(t->a.conn, TEST_PATH, &ia), EOK);
    assert_int_equal(sbus_connection_add_interface(t->b.conn, TEST_PATH, &ib), EOK);
    assert_int_equal(sbus_connection_add_interface(t->c.conn, TEST_PATH, &ic), EOK);
    assert_int_equal(sbus_connection_add_interface(t->c.conn, TEST_PATH, &ic), EEXIST);
    *state = t;
    return 0;
}

static int teardown(void **state)
{
    struct test_ctx *t = *state;
    char *dir = t->dir;
    char *path;

    talloc_free(t->a.last_sender);
    talloc_free(t->b.last_sender);
    talloc_free(t->c.last_sender);
    talloc_free(t);
    /* Freeing the server removed its socket (tc_bus_server put it at <dir>/bus). */
    path = talloc_asprintf(NULL, "%s/bus", dir);
    assert_non_null(path);
    assert_int_equal(access(path, F_OK), -1);
    talloc_free(path);
    tc_tmpdir_remove(dir);
    talloc_free(dir);
    /* Nothing of ours is left on the heap. */
    tc_leak_check(&leaks);
    return 0;
}

/* ---- tests ---- */

static void test_call_and_reply(void **state)
{
    struct test_ctx *t = *state;
    struct done_flag f = { 0 };

    start_echo(t, &t->a, "test.b", "hello", false, 0, &f);
    tc_wait_flag(t->ev, &f.done);
    assert_int_equal(f.ret, EOK);
    assert_string_equal(reply_text(f.reply), "hello");
    assert_int_equal(t->b.calls, 1);
    /* The master bus stamped the caller's unique name as sender. */
    assert_string_equal(t->b.last_sender, sbus_connection_get_unique_name(t->a.conn));
    assert_string_equal(sbus_connection_get_name(t->b.conn), "test.b");
}

static void test_remote_error(void **state)
{
    struct test_ctx *t = *state;
    struct done_flag f = { 0 };

    start_echo(t, &t->a, "test.b", "fail", false, 0, &f);
    tc_wait_flag(t->ev, &f.done);
    assert_int_equal(f.ret, EPERM);
}

static void test_chain_same_destination(void **state)
{
    struct test_ctx *t = *state;
    struct done_flag f1 = { 0 }, f2 = { 0 }, f3 = { 0 };
    DBusMessage *reply;
    const char *text = "hold";

    start_echo(t, &t->a, "test.b", "hold", true, 0, &f1);
    start_echo(t, &t->a, "test.b", "hold", true, 0, &f2);
    start_echo(t, &t->a, "test.b", "hold", true, 0, &f3);
    /* Three callers, one call on the wire. */
    assert_int_equal(sbus_call_in_flight(t->a.conn), 1);
    while (t->b.held == NULL) {
        assert_int_equal(tevent_loop_once(t->ev), 0);
    }
    assert_int_equal(t->b.calls, 1);

    reply = dbus_message_new_method_return(t->b.held->message);
    assert_true(dbus_message_append_args(reply, DBUS_TYPE_STRING, &text, DBUS_TYPE_INVALID));
    sbus_request_reply(t->b.held, reply);
    t->b.held = NULL;

    tc_wait_flag(t->ev, &f1.done);
    tc_wait_flag(t->ev, &f2.done);
    tc_wait_flag(t->ev, &f3.done);
    assert_int_equal(f1.ret, EOK);
    assert_int_equal(f2.ret, EOK);
    assert_int_equal(f3.ret, EOK);
    assert_string_equal(reply_text(f3.reply), "hold");
    assert_int_equal(t->b.calls, 1);
    assert_int_equal(sbus_call_in_flight(t->a.conn), 0);
}

/* Chained callers share one call on the wire, but each callback resumes under the request
 * id its caller had (sss_req_id_track), not under the first caller's. */
static void test_chained_callers_keep_their_ids(void **state)
{
    struct test_ctx *t = *state;
    struct done_flag f1 = { 0 }, f2 = { 0 };
    DBusMessage *reply;
    const char *text = "hold";

    sss_req_id_track(t->ev);
    sss_debug_req_id = 0x1001;
    start_echo(t, &t->a, "test.b", "hold", true, 0, &f1);
    sss_debug_req_id = 0x2002;
    start_echo(t, &t->a, "test.b", "hold", true, 0, &f2);
    sss_debug_req_id = 0;
    assert_int_equal(sbus_call_in_flight(t->a.conn), 1);
    while (t->b.held == NULL) {
        assert_int_equal(tevent_loop_once(t->ev), 0);
    }
    reply = dbus_message_new_method_return(t->b.held->message);
    assert_true(dbus_message_append_args(reply, DBUS_TYPE_STRING, &text, DBUS_TYPE_INVALID));
    sbus_request_reply(t->b.held, reply);
    t->b.held = NULL;

    tc_wait_flag(t->ev, &f1.done);
    tc_wait_flag(t->ev, &f2.done);
    assert_int_equal(f1.ret, EOK);
    assert_int_equal(f2.ret, EOK);
    assert_int_equal(f1.req_id, 0x1001);
    assert_int_equal(f2.req_id, 0x2002);
    sss_debug_req_id = 0;
}

/* The request id a call carries: its last argument when that is a uint64, else 0. */
static void test_message_req_id(void **state)
{
    DBusMessage *msg;
    dbus_uint64_t id = 0x1234500000007ULL;
    dbus_uint64_t ids[] = { 1, 2 };
    const dbus_uint64_t *p = ids;
    const char *s = "x";
    dbus_uint32_t u = 9;
    char text[SBUS_MEMBER_TEXT_MAX];

    msg = dbus_message_new_method_call("a.b", "/p", "sssd.dataprovider", "getAccountInfo");
    assert_non_null(msg);
    assert_int_equal(sbus_message_req_id(msg), 0);      /* no arguments */
    assert_true(dbus_message_append_args(msg, DBUS_TYPE_STRING, &s, DBUS_TYPE_UINT32, &u,
                                         DBUS_TYPE_UINT64, &id, DBUS_TYPE_INVALID));
    assert_true(sbus_message_req_id(msg) == id);
    assert_string_equal(sbus_message_member_text(msg, text, sizeof(text)),
                        "sssd.dataprovider.getAccountInfo");
    dbus_message_unref(msg);

    /* A uint64 that is not last, or an array of them, is no request id. */
    msg = dbus_message_new_method_call("a.b", "/p", NULL, "M");
    assert_non_null(msg);
    assert_true(dbus_message_append_args(msg, DBUS_TYPE_UINT64, &id, DBUS_TYPE_STRING, &s,
                                         DBUS_TYPE_ARRAY, DBUS_TYPE_UINT64, &p, 2,
                                         DBUS_TYPE_INVALID));
    assert_int_equal(sbus_message_req_id(msg), 0);
    assert_string_equal(sbus_message_member_text(msg, text, sizeof(text)), "M");
    dbus_message_unref(msg);

    /* Signals carry none. */
    msg = dbus_message_new_signal("/p", "i.f", "S");
    assert_non_null(msg);
    assert_true(dbus_message_append_args(msg, DBUS_TYPE_UINT64, &id, DBUS_TYPE_INVALID));
    assert_int_equal(sbus_message_req_id(msg), 0);
    dbus_message_unref(msg);
}

static void test_no_chain_two_destinations(void **state)
{
    struct test_ctx *t = *state;
    struct done_flag f1 = { 0 }, f2 = { 0 };
    char *k1, *k2;

    k1 = sbus_key_create(t, "test.b", TEST_IFACE, "Echo", TEST_PATH, "x");
    k2 = sbus_key_create(t, "test.c", TEST_IFACE, "Echo", TEST_PATH, "x");
    assert_string_not_equal(k1, k2);

    start_echo(t, &t->a, "test.b", "hold", true, 0, &f1);
    start_echo(t, &t->a, "test.c", "hold", true, 0, &f2);
    assert_int_equal(sbus_call_in_flight(t->a.conn), 2);
    while (t->b.held == NULL || t->c.held == NULL) {
        assert_int_equal(tevent_loop_once(t->ev), 0);
    }
    /* Both services were asked. */
    assert_int_equal(t->b.calls, 1);
    assert_int_equal(t->c.calls, 1);
    sbus_request_reply_error(t->b.held, ENOENT);
    sbus_request_reply_error(t->c.held, EACCES);
    t->b.held = t->c.held = NULL;
    tc_wait_flag(t->ev, &f1.done);
    tc_wait_flag(t->ev, &f2.done);
    assert_int_equal(f1.ret, ENOENT);
    assert_int_equal(f2.ret, EACCES);
}

static void test_cancelled_waiter_keeps_chain(void **state)
{
    struct test_ctx *t = *state;
    struct done_flag f1 = { 0 }, f2 = { 0 };
    struct tevent_req *r1;

    r1 = start_echo(t, &t->a, "test.b", "hold", true, 0, &f1);
    start_echo(t, &t->a, "test.b", "hold", true, 0, &f2);
    talloc_free(r1);    /* the first caller gives up */
    assert_int_equal(sbus_call_in_flight(t->a.conn), 1);
    while (t->b.held == NULL) {
        assert_int_equal(tevent_loop_once(t->ev), 0);
    }
    sbus_request_reply_error(t->b.held, ENOENT);
    t->b.held = NULL;
    tc_wait_flag(t->ev, &f2.done);
    assert_int_equal(f2.ret, ENOENT);
    assert_false(f1.done);
}

static void test_unknown_service(void **state)
{
    struct test_ctx *t = *state;
    struct done_flag f = { 0 };
    uint64_t start = sss_monotonic_usec();

    start_echo(t, &t->a, "test.nobody", "hello", false, 0, &f);
    tc_wait_flag(t->ev, &f.done);
    assert_int_equal(f.ret, ERR_SBUS_UNKNOWN_SERVICE);
    /* Failed at once, not at the 30 s call timeout. */
    assert_true(sss_monotonic_usec() - start < 5000000);
}

static void test_unknown_method(void **state)
{
    struct test_ctx *t = *state;
    struct done_flag f = { 0 };
    struct tevent_req *req;
    DBusMessage *msg;

    msg = dbus_message_new_method_call("test.b", TEST_PATH, TEST_IFACE, "NoSuchMethod");
    f.mem = t;
    req = sbus_call_send(t, t->a.conn, msg, NULL, 0);
    tevent_req_set_callback(req, call_done, &f);
    tc_wait_flag(t->ev, &f.done);
    assert_int_equal(f.ret, ERR_SBUS_UNKNOWN_METHOD);
}

static void test_timeout(void **state)
{
    struct test_ctx *t = *state;
    struct done_flag f = { 0 };

    start_echo(t, &t->a, "test.b", "hold", false, 200, &f);
    tc_wait_flag(t->ev, &f.done);
    assert_int_equal(f.ret, ERR_SBUS_NO_REPLY);
    assert_non_null(t->b.held);
    /* A late answer to a call nobody waits for is harmless. */
    sbus_request_reply(t->b.held, NULL);
    t->b.held = NULL;
}

static void test_disconnected_service(void **state)
{
    struct test_ctx *t = *state;
    struct done_flag f = { 0 };
    int i;

    talloc_zfree(t->c.conn);
    /* Let the server notice the peer left. */
    for (i = 0; i < 50; i++) {
        tevent_loop_once(t->ev);
        if (sbus_server_connection_count(t->server) == 2) {
            break;
        }
    }
    assert_int_equal(sbus_server_connection_count(t->server), 2);
    start_echo(t, &t->a, "test.c", "hello", false, 0, &f);
    tc_wait_flag(t->ev, &f.done);
    assert_int_equal(f.ret, ERR_SBUS_UNKNOWN_SERVICE);
}

static void test_callee_dies_mid_call(void **state)
{
    struct test_ctx *t = *state;
    struct done_flag f = { 0 };
    uint64_t start;

    /* b takes the call and dies before answering: a must hear at once, not at 30 s. */
    start_echo(t, &t->a, "test.b", "hold", false, 0, &f);
    while (t->b.held == NULL) {
        assert_int_equal(tevent_loop_once(t->ev), 0);
    }
    start = sss_monotonic_usec();
    t->b.held = NULL;           /* freed with its connection */
    talloc_zfree(t->b.conn);
    tc_wait_flag(t->ev, &f.done);
    assert_int_equal(f.ret, ERR_SBUS_NO_REPLY);
    assert_true(sss_monotonic_usec() - start < 2000000);
}

static void test_connection_freed_with_calls_in_flight(void **state)
{
    struct test_ctx *t = *state;
    struct done_flag f1 = { 0 }, f2 = { 0 };
    struct tevent_req *r2;

    /* The caller's own connection goes while two calls wait: both fail, none hangs, and
     * freeing a request afterwards touches nothing that is gone. */
    start_echo(t, &t->a, "test.b", "hold", true, 0, &f1);
    r2 = start_echo(t, &t->a, "test.c", "hold", false, 0, &f2);
    while (t->b.held == NULL || t->c.held == NULL) {
        assert_int_equal(tevent_loop_once(t->ev), 0);
    }
    talloc_zfree(t->a.conn);
    tc_wait_flag(t->ev, &f1.done);
    assert_int_equal(f1.ret, ERR_SBUS_DISCONNECTED);
    (void)r2;
    tc_wait_flag(t->ev, &f2.done);
    assert_int_equal(f2.ret, ERR_SBUS_DISCONNECTED);
    sbus_request_reply(t->b.held, NULL);
    sbus_request_reply(t->c.held, NULL);
    t->b.held = t->c.held = NULL;
}

static void free_conn_invoker(struct sbus_request *sbus_req, const struct sbus_listener *l)
{
    struct peer *p = l->data;

    p->signals++;
    talloc_free(sbus_req);
    talloc_zfree(p->conn);  /* the handler ends its own connection */
}

static void test_listener_frees_connection(void **state)
{
    struct test_ctx *t = *state;
    static struct sbus_listener lb[3];
    struct done_flag f = { 0 };

    /* Two listeners for one signal; the first frees the connection: the second must not
     * run on freed memory. */
    lb[0] = (struct sbus_listener){ TEST_SIGNAL_IFACE, "Ping", NULL, free_conn_invoker,
                                    dummy_handler, &t->b };
    lb[1] = (struct sbus_listener){ TEST_SIGNAL_IFACE, "Ping", NULL, ping_signal_invoker,
                                    dummy_handler, &t->b };
    assert_int_equal(sbus_connection_add_listeners(t->b.conn, lb), EOK);
    start_echo(t, &t->b, "test.a", "sync", false, 0, &f);
    tc_wait_flag(t->ev, &f.done);
    assert_int_equal(sbus_emit_signal(t->a.conn,
                                      dbus_message_new_signal(TEST_PATH, TEST_SIGNAL_IFACE,
                                                              "Ping")), EOK);
    while (t->b.conn != NULL) {
        assert_int_equal(tevent_loop_once(t->ev), 0);
    }
    assert_int_equal(t->b.signals, 1);
}

static void test_signal_reaches_listeners_only(void **state)
{
    struct test_ctx *t = *state;
    static struct sbus_listener la[2], lb[2], lc[2];
    DBusMessage *sig;
    struct done_flag f = { 0 };

    /* a and b listen; c does not. a emits. */
    la[0] = (struct sbus_listener){ TEST_SIGNAL_IFACE, "Ping", NULL, ping_signal_invoker,
                                    dummy_handler, &t->a };
    lb[0] = (struct sbus_listener){ TEST_SIGNAL_IFACE, "Ping", NULL, ping_signal_invoker,
                                    dummy_handler, &t->b };
    assert_int_equal(sbus_connection_add_listeners(t->a.conn, la), EOK);
    assert_int_equal(sbus_connection_add_listeners(t->b.conn, lb), EOK);
    lc[0] = (struct sbus_listener){ TEST_SIGNAL_IFACE, "Other", NULL, ping_signal_invoker,
                                    dummy_handler, &t->c };
    assert_int_equal(sbus_connection_add_listeners(t->c.conn, lc), EOK);

    /* A round trip from each listener makes sure its AddMatch is in place. */
    start_echo(t, &t->b, "test.a", "sync", false, 0, &f);
    tc_wait_flag(t->ev, &f.done);
    f.done = false;
    start_echo(t, &t->c, "test.a", "sync", false, 0, &f);
    tc_wait_flag(t->ev, &f.done);

    sig = dbus_message_new_signal(TEST_PATH, TEST_SIGNAL_IFACE, "Ping");
    assert_int_equal(sbus_emit_signal(t->a.conn, sig), EOK);

    while (t->b.signals == 0) {
        assert_int_equal(tevent_loop_once(t->ev), 0);
    }
    /* Give any wrong delivery the chance to happen: one more round trip through c and a. */
    f.done = false;
    start_echo(t, &t->c, "test.a", "sync", false, 0, &f);
    tc_wait_flag(t->ev, &f.done);
    f.done = false;
    start_echo(t, &t->b, "test.c", "sync", false, 0, &f);
    tc_wait_flag(t->ev, &f.done);

    assert_int_equal(t->b.signals, 1);
    assert_int_equal(t->c.signals, 0);   /* no matching rule */
    assert_int_equal(t->a.signals, 0);   /* never back to the sender */
}

static void test_bad_arguments(void **state)
{
    struct test_ctx *t = *state;
    struct sbus_connection *conn = NULL;
    struct tevent_req *req;
    pid_t pid;

    assert_null(sbus_call_send(t, NULL, NULL, NULL, 0));
    req = sbus_call_send(t, t->a.conn, NULL, NULL, 0);
    assert_non_null(req);
    talloc_free(req);
    assert_int_equal(sbus_emit_signal(t->a.conn, NULL), EINVAL);
    assert_int_equal(sbus_connection_add_interface(t->a.conn, "not a path", NULL), EINVAL);
    assert_int_equal(sbus_connection_add_listeners(t->a.conn, NULL), EINVAL);
    assert_null(sbus_key_create(t, NULL, "i", "m", "/p", NULL));

    /* Public entry points answer a NULL object (and log it) instead of crashing. */
    assert_null(sbus_connection_get_ev(NULL));
    assert_null(sbus_connection_get_unique_name(NULL));
    assert_int_equal(sbus_call_in_flight(NULL), 0);
    assert_null(sbus_server_get_address(NULL));
    assert_int_equal(sbus_server_connection_count(NULL), 0);
    assert_int_equal(sbus_server_name_pid(NULL, "test.a", &pid), EINVAL);
    assert_int_equal(sbus_server_name_pid(t->server, "test.a", NULL), EINVAL);
    assert_null(sbus_connect_send(t, NULL, sbus_server_get_address(t->server), NULL));

    /* A connection to no address fails from the loop. */
    req = sbus_connect_send(t, t->ev, NULL, NULL);
    tc_wait_req(t->ev, req);
    assert_int_equal(sbus_connect_recv(t, req, &conn), EINVAL);
    talloc_free(req);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_call_and_reply, setup, teardown),
        cmocka_unit_test_setup_teardown(test_remote_error, setup, teardown),
        cmocka_unit_test_setup_teardown(test_chain_same_destination, setup, teardown),
        cmocka_unit_test_setup_teardown(test_chained_callers_keep_their_ids, setup,
                                        teardown),
        cmocka_unit_test(test_message_req_id),
        cmocka_unit_test_setup_teardown(test_no_chain_two_destinations, setup, teardown),
        cmocka_unit_test_setup_teardown(test_cancelled_waiter_keeps_chain, setup, teardown),
        cmocka_unit_test_setup_teardown(test_unknown_service, setup, teardown),
        cmocka_unit_test_setup_teardown(test_unknown_method, setup, teardown),
        cmocka_unit_test_setup_teardown(test_timeout, setup, teardown),
        cmocka_unit_test_setup_teardown(test_disconnected_service, setup, teardown),
        cmocka_unit_test_setup_teardown(test_callee_dies_mid_call, setup, teardown),
        cmocka_unit_test_setup_teardown(test_connection_freed_with_calls_in_flight, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_listener_frees_connection, setup, teardown),
        cmocka_unit_test_setup_teardown(test_signal_reaches_listeners_only, setup, teardown),
        cmocka_unit_test_setup_teardown(test_bad_arguments, setup, teardown),
    };
    int rc;

    debug_level = 0;
    talloc_enable_null_tracking();
    /* tevent registers its backends once, on the NULL context: not a leak of ours. */
    talloc_free(tevent_context_init(NULL));
    rc = cmocka_run_group_tests(tests, NULL, NULL);
    dbus_shutdown();
    return rc;
}
