/*
 * resp_busy_poll: when the loop spins and when it does not, read from its counters (a spin
 * may end early whenever the machine is busy, so nothing here depends on time).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <unistd.h>

#include "util/util.h"
#include "responder/common/resp_busy_poll.h"

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

/* One loop turn, ended by a request already waiting or by a 2 ms timer. */
static void turn(struct loop *l)
{
    struct tevent_timer *te;

    te = tevent_add_timer(l->ev, l->ev, tevent_timeval_current_ofs(0, 2000), on_timer, &te);
    assert_non_null(te);
    assert_int_equal(tevent_loop_once(l->ev), 0);
    talloc_free(te);        /* not fired: a request ended the turn */
}

/* A turn with a request waiting: the loop's sleep is short, so the next one may spin. */
static void served_turn(struct loop *l)
{
    int before = l->reads;

    assert_int_equal(write(l->sv[1], "x", 1), 1);
    turn(l);
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

static uint64_t spins(void)
{
    struct resp_busy_poll_stats st;

    resp_busy_poll_get_stats(&st);
    return st.spins;
}

static uint64_t caught(void)
{
    struct resp_busy_poll_stats st;

    resp_busy_poll_get_stats(&st);
    return st.caught;
}

/* Whether the next turn spins. */
static bool turn_spins(struct loop *l)
{
    uint64_t s0 = spins();

    turn(l);
    return spins() == s0 + 1;
}

/* A loop serving sv[0], watched by the probe (prior: a trace callback set before). */
static void loop_open(struct loop *l, const char *spin_us, bool prior)
{
    assert_int_equal(setenv("_SSS_BUSY_POLL_US", spin_us, 1), 0);
    l->ev = tevent_context_init(NULL);
    assert_non_null(l->ev);
    if (prior) {
        tevent_set_trace_callback(l->ev, prior_trace, l);
    }
    assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, l->sv), 0);
    resp_busy_poll_watch(l->ev, l->sv[0]);
    assert_non_null(tevent_add_fd(l->ev, l->ev, l->sv[0], TEVENT_FD_READ, on_readable, l));
}

static void loop_close(struct loop *l)
{
    talloc_free(l->ev);
    close(l->sv[0]);
    close(l->sv[1]);
}

static void test_spin_rules(void **state)
{
    struct loop l = { 0 };
    int other[2];
    uint64_t c0;

    /* a spin far longer than any turn here: a turn that spins sleeps long after it */
    loop_open(&l, "20000", true);
    assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, other), 0);
    resp_busy_poll_watch(l.ev, other[0]);

    /* requests back to back from one client, all answered, a short sleep: it spins */
    served_turn(&l);
    requests(l.sv[0], RESP_BUSY_POLL_RUN);
    assert_true(turn_spins(&l));
    /* nothing came: that turn slept as long as the spin (20 ms, the timer waits for it),
     * so the next one does not spin (it would have gained nothing) */
    assert_false(turn_spins(&l));

    /* a request arriving while it spins ends the spin (found by the spin) */
    served_turn(&l);
    c0 = caught();
    assert_int_equal(write(l.sv[1], "y", 1), 1);
    assert_true(turn_spins(&l));
    assert_int_equal(caught(), c0 + 1);
    assert_int_equal(l.reads, 3);

    /* the setting is read once, when the loop is first probed */
    served_turn(&l);
    requests(l.sv[0], RESP_BUSY_POLL_RUN);
    assert_int_equal(setenv("_SSS_BUSY_POLL_US", "0", 1), 0);
    assert_true(turn_spins(&l));

    /* fewer than RESP_BUSY_POLL_RUN in a row from one client: no spin */
    served_turn(&l);
    requests(l.sv[0], RESP_BUSY_POLL_RUN);
    requests(other[0], 1);
    requests(l.sv[0], RESP_BUSY_POLL_RUN - 1);
    assert_false(turn_spins(&l));

    /* a request still open (its reply being written, or waiting for the back-end): the
     * loop waits for sockets the spin does not check, so no spin */
    served_turn(&l);
    requests(l.sv[0], RESP_BUSY_POLL_RUN);
    resp_busy_poll_request(l.sv[0]);
    assert_false(turn_spins(&l));
    resp_busy_poll_request_done();
    served_turn(&l);
    assert_true(turn_spins(&l));

    /* the client's fd closed: its run is forgotten (a new client may get the number) */
    served_turn(&l);
    requests(l.sv[0], RESP_BUSY_POLL_RUN);
    resp_busy_poll_unwatch(l.sv[0]);
    assert_false(turn_spins(&l));

    /* the trace callback set before ours still sees every point */
    assert_true(l.trace_points >= 4 * 14);

    loop_close(&l);
    close(other[0]);
    close(other[1]);
}

/* _SSS_BUSY_POLL_US=0 switches it off; a new loop after the old one was freed is probed. */
static void test_off_and_new_loop(void **state)
{
    struct loop l = { 0 };

    loop_open(&l, "0", false);
    served_turn(&l);
    requests(l.sv[0], RESP_BUSY_POLL_RUN);
    assert_false(turn_spins(&l));
    loop_close(&l);

    loop_open(&l, "20000", false);
    served_turn(&l);
    requests(l.sv[0], RESP_BUSY_POLL_RUN);
    assert_true(turn_spins(&l));
    loop_close(&l);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_spin_rules),
        cmocka_unit_test(test_off_and_new_loop),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
