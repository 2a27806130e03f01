/*
 * Generated method calls written to the bus socket by sbus itself (sbus_call_out.h,
 * sbus_gen.c, sbus_reply_direct.c), end to end through the real master bus in one tevent
 * loop, with the responders' own call (sssd.dataprovider.getAccountInfo): a small call
 * goes out directly and arrives whole; one too large for the composer goes through
 * libdbus and arrives whole; calls in a row, both kinds mixed, arrive in order, each
 * answered with its own reply; an identical call in flight is joined, not sent again; a
 * call with an invalid argument fails and sends nothing; the raw caller's timeout holds.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <string.h>

#include "util/util.h"
#include "sbus/sbus.h"
#include "sbus/sbus_server.h"
#include "sss_iface/sss_iface.h"
#include "tests/unit/common/tc_common.h"
#include "tests/unit/common/tc_bus.h"

#define CALLEE "sssd.test_call_direct"
#define BIG 6000                /* a filter over SBUS_WIRE_MAX_LEN: libdbus sends the call */
#define ROW 40

static struct tc_leaks leaks;

struct test_ctx {
    char *dir;
    struct tevent_context *ev;
    struct sbus_server *server;
    struct sbus_connection *caller;
    struct sbus_connection *callee;
    struct sbus_method methods[2];
    struct sbus_interface iface;
    unsigned int handled;           /* calls the callee got */
    uint64_t seen[ROW];             /* their req_ids, in the order they came */
    bool silent;                    /* the handler answers nothing */
};

struct handler_state {
    const char *message;
    uint64_t gen;
};

static struct tevent_req *handler_send(TALLOC_CTX *mem_ctx, struct tevent_context *ev,
                                       struct sbus_request *sbus_req, void *data,
                                       uint32_t dp_flags, uint32_t entry_type,
                                       const char *filter, const char *domain,
                                       const char *extra, uint32_t cli_id, uint64_t req_id)
{
    struct test_ctx *t = data;
    struct handler_state *state;
    struct tevent_req *req;

    /* Answers with the filter as the message and the req_id as gen; records the call. */
    req = tevent_req_create(mem_ctx, &state, struct handler_state);
    assert_non_null(req);
    if (t->handled < ROW) {
        t->seen[t->handled] = req_id;
    }
    t->handled++;
    if (t->silent) {
        return req;     /* never done: the caller's timeout ends it */
    }
    state->message = talloc_strdup(state, filter);
    state->gen = req_id;
    tevent_req_done(req);
    return tevent_req_post(req, ev);
}

static errno_t handler_recv(TALLOC_CTX *mem_ctx, struct tevent_req *req,
                            uint16_t *_dp_error, uint32_t *_error, const char **_message,
                            uint64_t *_gen, const uint8_t **_entry, uint32_t *_n_entry)
{
    struct handler_state *state = tevent_req_data(req, struct handler_state);

    TEVENT_REQ_RETURN_ON_ERROR(req);
    *_dp_error = 0;
    *_error = 0;
    *_message = talloc_steal(mem_ctx, state->message);
    *_gen = state->gen;
    *_entry = NULL;
    *_n_entry = 0;
    return EOK;
}

static int setup(void **state)
{
    struct test_ctx *t;

    tc_leak_start(&leaks);
    t = talloc_zero(NULL, struct test_ctx);
    assert_non_null(t);
    t->dir = tc_tmpdir(t, "test_sbus_call_direct");
    t->ev = tevent_context_init(t);
    assert_non_null(t->ev);
    t->server = tc_bus_server(t, t->ev, t->dir);
    t->caller = tc_bus_connect(t, t->ev, t->server, "sssd.test_caller");
    t->callee = tc_bus_connect(t, t->ev, t->server, CALLEE);
    t->methods[0] = (struct sbus_method)SBUS_METHOD_ASYNC_sssd_dataprovider_getAccountInfo(
                        handler_send, handler_recv, t);
    t->methods[1] = (struct sbus_method)SBUS_METHODS_END;
    t->iface.name = SBUS_IFACE_sssd_dataprovider;
    t->iface.methods = t->methods;
    assert_int_equal(sbus_connection_add_interface(t->callee, SSS_BUS_PATH, &t->iface), EOK);
    *state = t;
    return 0;
}

static int teardown(void **state)
{
    struct test_ctx *t = *state;
    char *dir = talloc_steal(NULL, t->dir);

    talloc_free(t);
    tc_tmpdir_remove(dir);
    talloc_free(dir);
    tc_leak_check(&leaks);
    return 0;
}

struct answer {
    bool done;
    errno_t ret;
    const char *message;
    uint64_t gen;
    unsigned int order;
};

static unsigned int answered;

static void call_done(struct tevent_req *req)
{
    struct answer *a = tevent_req_callback_data_void(req);

    a->ret = sbus_call_sssd_dataprovider_getAccountInfo_recv(a, req, NULL, NULL,
                                                             &a->message, &a->gen, NULL,
                                                             NULL);
    a->done = true;
    a->order = answered++;
    talloc_free(req);
}

static void call(struct test_ctx *t, struct answer *a, const char *filter, uint64_t req_id)
{
    struct tevent_req *req;

    req = sbus_call_sssd_dataprovider_getAccountInfo_send(t, t->caller, CALLEE, SSS_BUS_PATH,
                                                          0, 1, filter, "dom", "", 0, req_id);
    assert_non_null(req);
    tevent_req_set_callback(req, call_done, a);
}

static void wait_for(struct test_ctx *t, struct answer *a)
{
    while (!a->done) {
        assert_int_equal(tevent_loop_once(t->ev), 0);
    }
}

static void check(struct answer *a, const char *filter, uint64_t req_id)
{
    assert_int_equal(a->ret, EOK);
    assert_string_equal(a->message, filter);
    assert_int_equal(a->gen, req_id);
}

/* A filter of len bytes, its content from seed: a call that arrives cut or shifted would
 * not carry it. */
static char *make_filter(TALLOC_CTX *mem_ctx, size_t len, unsigned int seed)
{
    char *filter = talloc_zero_size(mem_ctx, len + 1);
    size_t i;

    assert_non_null(filter);
    for (i = 0; i < len; i++) {
        filter[i] = (char)('a' + (i * 7 + seed) % 26);
    }
    return filter;
}

static void test_small_call_direct(void **state)
{
    struct test_ctx *t = *state;
    struct answer *a = talloc_zero(t, struct answer);

    assert_int_equal(sbus_connection_direct_calls(t->caller), 0);
    call(t, a, "name=joe", 42);
    wait_for(t, a);
    check(a, "name=joe", 42);
    /* Written by sbus, not queued through libdbus. */
    assert_int_equal(sbus_connection_direct_calls(t->caller), 1);
    assert_int_equal(t->handled, 1);
}

static void test_big_call_through_libdbus(void **state)
{
    struct test_ctx *t = *state;
    struct answer *a = talloc_zero(t, struct answer);
    char *filter = make_filter(t, BIG, 3);

    call(t, a, filter, 43);
    wait_for(t, a);
    check(a, filter, 43);
    assert_int_equal(sbus_connection_direct_calls(t->caller), 0);
}

/* Direct and libdbus calls mixed, many in flight: they reach the callee in the order they
 * were made, whole, and each answer is its call's. */
static void test_calls_in_a_row(void **state)
{
    struct test_ctx *t = *state;
    struct answer *a[ROW];
    char *filter[ROW];
    size_t i;

    answered = 0;
    for (i = 0; i < ROW; i++) {
        a[i] = talloc_zero(t, struct answer);
        assert_non_null(a[i]);
        /* Every filter another: identical calls in flight would be chained into one. */
        filter[i] = make_filter(t, i % 5 == 4 ? BIG + i : 10 + i, (unsigned int)i);
    }
    for (i = 0; i < ROW; i++) {
        call(t, a[i], filter[i], 100 + i);
    }
    for (i = 0; i < ROW; i++) {
        wait_for(t, a[i]);
    }
    assert_int_equal(t->handled, ROW);
    for (i = 0; i < ROW; i++) {
        check(a[i], filter[i], 100 + i);
        assert_int_equal(t->seen[i], 100 + i);
        assert_int_equal(a[i]->order, i);
    }
    /* The small ones go out directly until a big one sits in libdbus's queue; after it,
     * libdbus keeps the order by sending them too. */
    assert_true(sbus_connection_direct_calls(t->caller) >= 1);
    assert_true(sbus_connection_direct_calls(t->caller) <= 32);
}

/* The same call while one is in flight joins it: one call on the wire, two answers. */
static void test_chained_call_sends_nothing(void **state)
{
    struct test_ctx *t = *state;
    struct answer *a = talloc_zero(t, struct answer);
    struct answer *b = talloc_zero(t, struct answer);

    call(t, a, "name=twice", 7);
    call(t, b, "name=twice", 7);
    assert_int_equal(sbus_call_in_flight(t->caller), 1);
    assert_int_equal(sbus_connection_direct_calls(t->caller), 1);
    wait_for(t, a);
    wait_for(t, b);
    check(a, "name=twice", 7);
    check(b, "name=twice", 7);
    assert_int_equal(t->handled, 1);
    assert_int_equal(sbus_connection_direct_calls(t->caller), 1);
}

/* A string libdbus would refuse: the call fails with EINVAL and nothing leaves. */
static void test_invalid_argument_sends_nothing(void **state)
{
    struct test_ctx *t = *state;
    struct answer *a = talloc_zero(t, struct answer);

    call(t, a, "bad\xff", 8);
    wait_for(t, a);
    assert_int_equal(a->ret, EINVAL);
    assert_int_equal(sbus_call_in_flight(t->caller), 0);
    assert_int_equal(sbus_connection_direct_calls(t->caller), 0);
    assert_int_equal(t->handled, 0);
}

static void raw_done(struct tevent_req *req)
{
    struct answer *a = tevent_req_callback_data_void(req);

    a->ret = sbus_call_recv(a, req, NULL);
    a->done = true;
    talloc_free(req);
}

/* The raw caller's own timeout ends a call the callee never answers. */
static void test_raw_timeout(void **state)
{
    struct test_ctx *t = *state;
    struct answer *a = talloc_zero(t, struct answer);
    struct tevent_req *req;

    t->silent = true;
    req = sbus_call_sssd_dataprovider_getAccountInfo_raw_send(t, t->caller, 200, CALLEE,
                                                              SSS_BUS_PATH, 0, 1, "name=late",
                                                              "dom", "", 0, 9);
    assert_non_null(req);
    tevent_req_set_callback(req, raw_done, a);
    wait_for(t, a);
    assert_int_equal(a->ret, ERR_SBUS_NO_REPLY);
    assert_int_equal(t->handled, 1);
    assert_int_equal(sbus_connection_direct_calls(t->caller), 1);
    assert_int_equal(sbus_call_in_flight(t->caller), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_small_call_direct, setup, teardown),
        cmocka_unit_test_setup_teardown(test_big_call_through_libdbus, setup, teardown),
        cmocka_unit_test_setup_teardown(test_calls_in_a_row, setup, teardown),
        cmocka_unit_test_setup_teardown(test_chained_call_sends_nothing, setup, teardown),
        cmocka_unit_test_setup_teardown(test_invalid_argument_sends_nothing, setup, teardown),
        cmocka_unit_test_setup_teardown(test_raw_timeout, setup, teardown),
    };

    /* tevent registers its backends once per process: not a test's leak. */
    talloc_free(tevent_context_init(NULL));
    return cmocka_run_group_tests(tests, NULL, NULL);
}
