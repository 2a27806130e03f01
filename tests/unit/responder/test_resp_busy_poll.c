/*
 * resp_busy_poll: when the loop spins and when it does not. The spin is set to 300 ms
 * (_SSS_BUSY_POLL_US) so that a spin shows as a loop turn that lasts at least that long,
 * against a few milliseconds for a turn without one: the margins are 50x, not a timing.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "util/util.h"
#include "responder/common/resp_busy_poll.h"

#define SPIN_MS 300

struct loop {
    struct tevent_context *ev;
    int sv[2];              /* sv[0] watched and served, sv[1] the client's end */
    int reads;
    int trace_points;       /* seen by a trace callback installed before ours */
};

static void prior_trace(enum tevent_trace_point point, void *data)
{
    ((struct loop *)data)->trace_points++;
}

static void on_readable(struct tevent_context *ev, struct tevent_fd *fde, uint16_t flags,
                        void *pvt)
{
    struct loop *l = pvt;
    char c;

    assert_int_equal(read(l->sv[0], &c, 1), 1);
    l->reads++;
}

static void on_timer(struct tevent_context *ev, struct tevent_timer *te, struct timeval tv,
                     void *pvt)
{
    *(struct tevent_timer **)pvt = NULL;
}

static uint64_t now_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* One loop turn that ends by a 5 ms timer unless a request is already there; its ms. */
static uint64_t turn(struct loop *l)
{
    struct tevent_timer *te;
    uint64_t t0 = now_ms();
    uint64_t ms;

    te = tevent_add_timer(l->ev, l->ev, tevent_timeval_current_ofs(0, 5000), on_timer, &te);
    assert_non_null(te);
    assert_int_equal(tevent_loop_once(l->ev), 0);
    ms = now_ms() - t0;
    talloc_free(te);        /* not fired: a request ended the turn */
    return ms;
}

/* A short turn: a request is waiting, so the loop's sleep is short. */
static void served_turn(struct loop *l)
{
    int before = l->reads;

    assert_int_equal(write(l->sv[1], "x", 1), 1);
    assert_true(turn(l) < SPIN_MS / 2);
    assert_int_equal(l->reads, before + 1);
}

/* n requests of the client on fd, each answered */
static void requests(int fd, int n)
{
    while (n-- > 0) {
        resp_busy_poll_request(fd);
        resp_busy_poll_request_done();
    }
}

static void test_spin_rules(void **state)
{
    struct loop l = { 0 };
    int other[2];

    assert_int_equal(setenv("_SSS_BUSY_POLL_US", "300000", 1), 0);
    l.ev = tevent_context_init(NULL);
    assert_non_null(l.ev);
    tevent_set_trace_callback(l.ev, prior_trace, &l);
    assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, l.sv), 0);
    assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, other), 0);
    resp_busy_poll_watch(l.ev, l.sv[0]);
    resp_busy_poll_watch(l.ev, other[0]);
    assert_non_null(tevent_add_fd(l.ev, l.ev, l.sv[0], TEVENT_FD_READ, on_readable, &l));

    /* requests back to back from one client: the next turn spins (nothing comes) */
    served_turn(&l);
    requests(l.sv[0], RESP_BUSY_POLL_RUN);
    assert_true(turn(&l) >= SPIN_MS);
    /* that turn slept long: no spin after it */
    assert_true(turn(&l) < SPIN_MS / 2);

    /* a request arriving while it spins ends the spin at once */
    served_turn(&l);
    assert_int_equal(write(l.sv[1], "y", 1), 1);
    assert_true(turn(&l) < SPIN_MS / 2);
    assert_int_equal(l.reads, 3);

    /* fewer than RESP_BUSY_POLL_RUN in a row from one client: no spin */
    served_turn(&l);
    requests(l.sv[0], RESP_BUSY_POLL_RUN);
    requests(other[0], 1);
    requests(l.sv[0], RESP_BUSY_POLL_RUN - 1);
    assert_true(turn(&l) < SPIN_MS / 2);

    /* a request still open (its reply being written, or waiting for the back-end): the
     * loop waits for sockets the spin does not check, so no spin */
    served_turn(&l);
    requests(l.sv[0], RESP_BUSY_POLL_RUN);
    resp_busy_poll_request(l.sv[0]);
    assert_true(turn(&l) < SPIN_MS / 2);
    resp_busy_poll_request_done();
    served_turn(&l);
    assert_true(turn(&l) >= SPIN_MS);

    /* the client's fd closed: its run is forgotten (a new client may get the number) */
    served_turn(&l);
    requests(l.sv[0], RESP_BUSY_POLL_RUN);
    resp_busy_poll_unwatch(l.sv[0]);
    assert_true(turn(&l) < SPIN_MS / 2);

    /* the trace callback set before ours still sees every point */
    assert_true(l.trace_points >= 4 * 7);

    talloc_free(l.ev);
    close(l.sv[0]);
    close(l.sv[1]);
    close(other[0]);
    close(other[1]);
}

/* _SSS_BUSY_POLL_US=0 switches it off; a new loop after the old one was freed is probed. */
static void test_off_and_new_loop(void **state)
{
    struct loop l = { 0 };

    assert_int_equal(setenv("_SSS_BUSY_POLL_US", "0", 1), 0);
    l.ev = tevent_context_init(NULL);
    assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, l.sv), 0);
    resp_busy_poll_watch(l.ev, l.sv[0]);
    assert_non_null(tevent_add_fd(l.ev, l.ev, l.sv[0], TEVENT_FD_READ, on_readable, &l));
    served_turn(&l);
    requests(l.sv[0], RESP_BUSY_POLL_RUN);
    assert_true(turn(&l) < SPIN_MS / 2);
    talloc_free(l.ev);
    close(l.sv[0]);
    close(l.sv[1]);

    /* that loop is gone: a new one is probed, with the spin switched on again */
    assert_int_equal(setenv("_SSS_BUSY_POLL_US", "300000", 1), 0);
    l.ev = tevent_context_init(NULL);
    assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, l.sv), 0);
    resp_busy_poll_watch(l.ev, l.sv[0]);
    assert_non_null(tevent_add_fd(l.ev, l.ev, l.sv[0], TEVENT_FD_READ, on_readable, &l));
    served_turn(&l);
    requests(l.sv[0], RESP_BUSY_POLL_RUN);
    assert_true(turn(&l) >= SPIN_MS);
    talloc_free(l.ev);
    close(l.sv[0]);
    close(l.sv[1]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_spin_rules),
        cmocka_unit_test(test_off_and_new_loop),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
