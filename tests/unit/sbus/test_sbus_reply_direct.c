/*
 * Generated replies written to the bus socket by sbus itself (src/sbus/sbus_reply_direct.c),
 * end to end through the real master bus in one tevent loop, with the back-end's own
 * method (sssd.dataprovider.getAccountInfo, outputs qustay): a reply that fits the wire
 * builder goes out directly and arrives whole; one too large for it goes through libdbus
 * and arrives whole too; replies to calls in a row keep their order and pairing; a reply
 * to a caller that has gone is dropped without harm.
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

#define CALLEE "sssd.test_direct"
#define BIG 9000                /* over SBUS_WIRE_MAX_LEN: libdbus builds and sends it */

static struct tc_leaks leaks;

struct test_ctx {
    char *dir;
    struct tevent_context *ev;
    struct sbus_server *server;
    struct sbus_connection *caller;
    struct sbus_connection *callee;
    struct sbus_method methods[2];
    struct sbus_interface iface;
    uint8_t entry[BIG];
};

/* Answers with the filter's length as the entry's size ("big...": BIG) and the req_id as
 * gen. */
static errno_t handler(TALLOC_CTX *mem_ctx, struct sbus_request *sbus_req, void *data,
                       uint32_t dp_flags, uint32_t entry_type, const char *filter,
                       const char *domain, const char *extra, uint32_t cli_id,
                       uint64_t req_id, uint16_t *_dp_error, uint32_t *_error,
                       const char **_message, uint64_t *_gen, const uint8_t **_entry,
                       uint32_t *_n_entry)
{
    struct test_ctx *t = data;

    *_dp_error = 7;
    *_error = entry_type;
    *_message = talloc_asprintf(mem_ctx, "%s@%s", filter, domain);
    *_gen = req_id;
    *_entry = t->entry;
    *_n_entry = strncmp(filter, "big", 3) == 0 ? BIG : (uint32_t)strlen(filter);
    return *_message == NULL ? ENOMEM : EOK;
}

static int setup(void **state)
{
    struct test_ctx *t;
    size_t i;

    tc_leak_start(&leaks);
    t = talloc_zero(NULL, struct test_ctx);
    assert_non_null(t);
    t->dir = tc_tmpdir(t, "test_sbus_reply_direct");
    t->ev = tevent_context_init(t);
    assert_non_null(t->ev);
    t->server = tc_bus_server(t, t->ev, t->dir);
    t->caller = tc_bus_connect(t, t->ev, t->server, "sssd.test_caller");
    t->callee = tc_bus_connect(t, t->ev, t->server, CALLEE);
    for (i = 0; i < BIG; i++) {
        t->entry[i] = (uint8_t)(i * 7 + 1);
    }
    t->methods[0] = (struct sbus_method)SBUS_METHOD_SYNC_sssd_dataprovider_getAccountInfo(
                        handler, t);
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
    uint16_t dp_error;
    uint32_t error;
    const char *message;
    uint64_t gen;
    const uint8_t *entry;
    uint32_t n_entry;
    unsigned int order;
};

static unsigned int answered;

static void call_done(struct tevent_req *req)
{
    struct answer *a = tevent_req_callback_data_void(req);

    a->ret = sbus_call_sssd_dataprovider_getAccountInfo_recv(a, req, &a->dp_error, &a->error,
                                                             &a->message, &a->gen, &a->entry,
                                                             &a->n_entry);
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

static void check(struct test_ctx *t, struct answer *a, const char *filter, uint64_t req_id,
                  uint32_t n)
{
    char *expected = talloc_asprintf(a, "%s@dom", filter);

    assert_int_equal(a->ret, EOK);
    assert_int_equal(a->dp_error, 7);
    assert_int_equal(a->error, 1);
    assert_string_equal(a->message, expected);
    assert_int_equal(a->gen, req_id);
    assert_int_equal(a->n_entry, n);
    assert_memory_equal(a->entry, t->entry, n);
}

static void test_small_reply_direct(void **state)
{
    struct test_ctx *t = *state;
    struct answer *a = talloc_zero(t, struct answer);

    assert_int_equal(sbus_connection_direct_replies(t->callee), 0);
    call(t, a, "name=joe", 42);
    wait_for(t, a);
    check(t, a, "name=joe", 42, strlen("name=joe"));
    /* Written by sbus, not queued through libdbus. */
    assert_int_equal(sbus_connection_direct_replies(t->callee), 1);
}

static void test_big_reply_through_libdbus(void **state)
{
    struct test_ctx *t = *state;
    struct answer *a = talloc_zero(t, struct answer);

    call(t, a, "big", 43);
    wait_for(t, a);
    check(t, a, "big", 43, BIG);
    assert_int_equal(sbus_connection_direct_replies(t->callee), 0);
}

/* Direct and libdbus replies mixed, many calls in flight: each answer is its call's. */
static void test_replies_in_a_row(void **state)
{
    struct test_ctx *t = *state;
    struct answer *a[40];
    char filter[32];
    size_t i;

    answered = 0;
    for (i = 0; i < 40; i++) {
        a[i] = talloc_zero(t, struct answer);
        assert_non_null(a[i]);
    }
    for (i = 0; i < 40; i++) {
        /* Every filter another: identical calls in flight would be chained into one. */
        snprintf(filter, sizeof(filter), i % 5 == 4 ? "big%zu" : "name=u%zu", i);
        call(t, a[i], filter, 100 + i);
    }
    for (i = 0; i < 40; i++) {
        wait_for(t, a[i]);
    }
    for (i = 0; i < 40; i++) {
        snprintf(filter, sizeof(filter), i % 5 == 4 ? "big%zu" : "name=u%zu", i);
        check(t, a[i], filter, 100 + i, i % 5 == 4 ? BIG : (uint32_t)strlen(filter));
        /* The callee answers in the order it was asked: so do the answers arrive. */
        assert_int_equal(a[i]->order, i);
    }
    /* Most go out directly; one meeting a full socket or a queued big reply goes through
     * libdbus, in order all the same. */
    assert_true(sbus_connection_direct_replies(t->callee) >= 1);
    assert_true(sbus_connection_direct_replies(t->callee) <= 32);
}

/* The caller's connection is gone before the callee answers: the master drops the reply
 * and the callee goes on serving. */
static void test_caller_gone(void **state)
{
    struct test_ctx *t = *state;
    struct answer *a = talloc_zero(t, struct answer);
    struct sbus_connection *other;
    struct tevent_req *req;

    other = tc_bus_connect(t, t->ev, t->server, "sssd.test_gone");
    req = sbus_call_sssd_dataprovider_getAccountInfo_send(t, other, CALLEE, SSS_BUS_PATH, 0, 1,
                                                          "name=gone", "dom", "", 0, 1);
    assert_non_null(req);
    /* Let the call leave, then drop the caller with it. */
    assert_int_equal(tevent_loop_once(t->ev), 0);
    talloc_free(req);
    talloc_free(other);
    call(t, a, "name=after", 2);
    wait_for(t, a);
    check(t, a, "name=after", 2, strlen("name=after"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_small_reply_direct, setup, teardown),
        cmocka_unit_test_setup_teardown(test_big_reply_through_libdbus, setup, teardown),
        cmocka_unit_test_setup_teardown(test_replies_in_a_row, setup, teardown),
        cmocka_unit_test_setup_teardown(test_caller_gone, setup, teardown),
    };

    /* tevent registers its backends once per process: not a test's leak. */
    talloc_free(tevent_context_init(NULL));
    return cmocka_run_group_tests(tests, NULL, NULL);
}
