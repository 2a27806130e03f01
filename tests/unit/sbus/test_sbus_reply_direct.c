/*
 * Generated replies written to the bus socket by sbus itself (src/sbus/sbus_reply_direct.c),
 * end to end through the real master bus in one tevent loop, with the back-end's own
 * method (sssd.dataprovider.getAccountInfo, outputs qustay): a reply that fits the wire
 * builder goes out directly and arrives whole; one too large for it goes through libdbus
 * and arrives whole too; replies to calls in a row keep their order and pairing; a reply
 * to a caller that has gone is dropped without harm.
 * With the callee's send buffer shrunk (SO_SNDBUF): a small reply while libdbus still holds
 * a big one written in part waits behind it, and a direct reply the socket takes in part
 * is finished whole (sbus_reply_direct_rest) before anything else goes out.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <signal.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>

#include "util/util.h"
#include "sbus/sbus.h"
#include "sbus/sbus_server.h"
#include "sss_iface/sss_iface.h"
#include "tests/unit/common/tc_common.h"
#include "tests/unit/common/tc_bus.h"

#define CALLEE "sssd.test_direct"
#define BIG 9000                /* over SBUS_WIRE_MAX_LEN: libdbus builds and sends it */
#define MID 3000                /* direct, yet over half the smallest send buffer */
#define ROOMY_SNDBUF (256 * 1024)

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

/* The callee's socket, whose send buffer the handler or a timer enlarges. */
static int callee_fd = -1;

static void callee_sndbuf(int size)
{
    /* setsockopt() also wakes a poll() waiting on the socket for room. */
    (void)setsockopt(callee_fd, SOL_SOCKET, SO_SNDBUF, &size, sizeof(size));
}

/* Runs while sbus_reply_direct_rest() waits for room nobody else can make: the master
 * reading the callee's socket runs in this same loop. */
static void on_alarm(int sig)
{
    (void)sig;
    callee_sndbuf(ROOMY_SNDBUF);
}

/* A peer that wakes the writer every second yet never makes room, for STALL_TICKS seconds
 * (long past the 5 s the rest of a direct write may take in all): then room comes. */
#define STALL_TICKS 12
static volatile sig_atomic_t ticks;

static void on_tick(int sig)
{
    (void)sig;
    if (++ticks == STALL_TICKS) {
        callee_sndbuf(ROOMY_SNDBUF);
    }
}

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
    if (strncmp(filter, "mid", 3) == 0) {
        /* The reply is left with no room part way: a timer makes some 50 ms later. */
        struct itimerval it = { .it_value = { .tv_usec = 50000 } };

        *_n_entry = MID;
        assert_int_equal(setitimer(ITIMER_REAL, &it, NULL), 0);
    } else if (strncmp(filter, "stall", 5) == 0) {
        struct itimerval it = { .it_interval = { .tv_sec = 1 }, .it_value = { .tv_sec = 1 } };
        struct sigaction sa = { .sa_handler = on_tick };

        *_n_entry = MID;
        ticks = 0;
        assert_int_equal(sigaction(SIGALRM, &sa, NULL), 0);
        assert_int_equal(setitimer(ITIMER_REAL, &it, NULL), 0);
    } else if (strncmp(filter, "grow", 4) == 0) {
        /* Room for this reply while libdbus still holds part of the one before. */
        callee_sndbuf(ROOMY_SNDBUF);
    }
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

/* The callee's send buffer at its smallest (the kernel's floor, some 4.5 KB). */
static void shrink_callee(struct test_ctx *t)
{
    struct sigaction sa = { .sa_handler = on_alarm };

    assert_true(dbus_connection_get_socket(sbus_connection_get_dbus(t->callee), &callee_fd));
    callee_sndbuf(1);
    assert_int_equal(sigaction(SIGALRM, &sa, NULL), 0);
}

static void unshrink_callee(void)
{
    struct itimerval off = { { 0 } };
    struct sigaction sa = { .sa_handler = SIG_DFL };

    assert_int_equal(setitimer(ITIMER_REAL, &off, NULL), 0);
    assert_int_equal(sigaction(SIGALRM, &sa, NULL), 0);
    callee_fd = -1;
}

/* The big reply fills the small buffer and libdbus keeps its rest queued; the next call is
 * dispatched at once (one message per tevent immediate, before any socket is polled) and
 * its handler makes room. The small reply must still go behind the big one, through
 * libdbus: written now it would land inside the big one's bytes. */
static void test_reply_behind_partial_libdbus(void **state)
{
    struct test_ctx *t = *state;
    struct answer *big = talloc_zero(t, struct answer);
    struct answer *small = talloc_zero(t, struct answer);

    shrink_callee(t);
    answered = 0;
    call(t, big, "big", 50);
    call(t, small, "grow", 51);
    wait_for(t, big);
    wait_for(t, small);
    unshrink_callee();
    check(t, big, "big", 50, BIG);
    check(t, small, "grow", 51, strlen("grow"));
    assert_int_equal(big->order, 0);
    assert_int_equal(small->order, 1);
    assert_int_equal(sbus_connection_direct_replies(t->callee), 0);
}

/* A small direct reply sits unread in the small buffer, so the socket takes only part of
 * the MID one; the rest waits for room (a timer makes it) and goes out whole, then the
 * replies after it. */
static void test_partial_direct_finished(void **state)
{
    struct test_ctx *t = *state;
    struct answer *a[3];
    const char *filters[3] = { "name=first", "mid", "name=last" };
    uint32_t sizes[3] = { strlen("name=first"), MID, strlen("name=last") };
    size_t i;

    shrink_callee(t);
    answered = 0;
    for (i = 0; i < 3; i++) {
        a[i] = talloc_zero(t, struct answer);
        assert_non_null(a[i]);
        call(t, a[i], filters[i], 60 + i);
    }
    for (i = 0; i < 3; i++) {
        wait_for(t, a[i]);
    }
    unshrink_callee();
    for (i = 0; i < 3; i++) {
        check(t, a[i], filters[i], 60 + i, sizes[i]);
        assert_int_equal(a[i]->order, i);
    }
    assert_int_equal(sbus_connection_direct_rests(t->callee), 1);
    assert_int_equal(sbus_connection_direct_replies(t->callee), 3);
}

/* The rest of a partial direct write has 5 s in all, however often poll() is woken: here
 * a signal every second. Past that the callee's connection is shut down and the call fails,
 * long before room comes (STALL_TICKS). */
static void test_partial_direct_deadline(void **state)
{
    struct test_ctx *t = *state;
    struct answer *first = talloc_zero(t, struct answer);
    struct answer *stall = talloc_zero(t, struct answer);
    int at_answer;

    shrink_callee(t);
    answered = 0;
    call(t, first, "name=first", 70);
    call(t, stall, "stall", 71);
    wait_for(t, first);
    wait_for(t, stall);
    at_answer = ticks;
    unshrink_callee();
    check(t, first, "name=first", 70, strlen("name=first"));
    assert_int_equal(sbus_connection_direct_rests(t->callee), 1);
    assert_int_not_equal(stall->ret, EOK);
    assert_true(at_answer < STALL_TICKS);
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
        cmocka_unit_test_setup_teardown(test_reply_behind_partial_libdbus, setup, teardown),
        cmocka_unit_test_setup_teardown(test_partial_direct_finished, setup, teardown),
        cmocka_unit_test_setup_teardown(test_partial_direct_deadline, setup, teardown),
    };

    /* tevent registers its backends once per process: not a test's leak. */
    talloc_free(tevent_context_init(NULL));
    return cmocka_run_group_tests(tests, NULL, NULL);
}
