/*
 * Adaptive busy polling (see resp_busy_poll.h). The probe is an epoll set of our own that
 * holds the same sockets as the tevent loop; tevent's trace points around its wait tell
 * how long the loop slept, and the BEFORE_WAIT point is where the spin happens: when a
 * socket becomes readable during the spin, tevent's own epoll_wait returns at once.
 */
#include <sched.h>
#include <stdlib.h>
#include <sys/epoll.h>
#include <time.h>
#include <unistd.h>

#include "util/util.h"
#include "responder/common/resp_busy_poll.h"

static struct {
    struct tevent_context *ev;      /* the loop the probe serves */
    int epfd;
    long spin_ns;                   /* 0: off */
    bool spin_next;                 /* the last sleep was short */
    int last_fd;                    /* the client of the last request */
    unsigned int run;               /* requests in a row from that client */
    uint64_t wait_start;
    tevent_trace_callback_t prev_cb;
    void *prev_data;
} bp = { NULL, -1, 0, false, -1, 0, 0, NULL, NULL };

static uint64_t bp_now_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static void bp_spin(void)
{
    struct epoll_event e;
    uint64_t deadline = bp.wait_start + (uint64_t)bp.spin_ns;

    do {
        if (epoll_wait(bp.epfd, &e, 1, 0) != 0) {
            return;             /* something to do (or an error: let tevent see it) */
        }
        /* Whatever else waits for this CPU (the client itself, when it shares it) runs
         * first. */
        sched_yield();
    } while (bp_now_ns() < deadline);
}

static void bp_trace(enum tevent_trace_point point, void *data)
{
    if (point == TEVENT_TRACE_BEFORE_WAIT) {
        bp.wait_start = bp_now_ns();
        if (bp.spin_next && bp.run >= RESP_BUSY_POLL_RUN) {
            bp_spin();
        }
    } else if (point == TEVENT_TRACE_AFTER_WAIT) {
        bp.spin_next = bp_now_ns() - bp.wait_start < RESP_BUSY_POLL_BURST_US * 1000ULL;
    }
    if (bp.prev_cb != NULL) {
        bp.prev_cb(point, bp.prev_data);
    }
}

/* Freed with the loop: the probe is not carried over to a loop at the same address. */
static int bp_guard_destructor(int *guard)
{
    if (bp.epfd >= 0) {
        close(bp.epfd);
    }
    bp.epfd = -1;
    bp.ev = NULL;
    return 0;
}

static bool bp_setup(struct tevent_context *ev)
{
    const char *env;
    int *guard;

    if (bp.ev != NULL) {
        return bp.ev == ev && bp.epfd >= 0;     /* one probed loop per process */
    }
    guard = talloc_zero(ev, int);
    if (guard == NULL) {
        return false;
    }
    talloc_set_destructor(guard, bp_guard_destructor);
    bp.ev = ev;
    bp.spin_next = false;
    /* _SSS_BUSY_POLL_US: the spin in microseconds, 0 to switch it off (benchmarks). */
    env = getenv("_SSS_BUSY_POLL_US");
    bp.spin_ns = (env != NULL ? strtol(env, NULL, 10) : RESP_BUSY_POLL_SPIN_US) * 1000L;
    if (bp.spin_ns <= 0) {
        return false;
    }
    bp.epfd = epoll_create1(EPOLL_CLOEXEC);
    if (bp.epfd < 0) {
        DEBUG(SSSDBG_MINOR_FAILURE, "No busy polling: epoll_create1: %s\n", strerror(errno));
        return false;
    }
    tevent_get_trace_callback(ev, &bp.prev_cb, &bp.prev_data);
    tevent_set_trace_callback(ev, bp_trace, NULL);
    return true;
}

void resp_busy_poll_watch(struct tevent_context *ev, int fd)
{
    struct epoll_event e = { .events = EPOLLIN, .data.fd = fd };

    if (!bp_setup(ev)) {
        return;
    }
    if (epoll_ctl(bp.epfd, EPOLL_CTL_ADD, fd, &e) != 0) {
        DEBUG(SSSDBG_MINOR_FAILURE, "Busy polling will not see fd %d: %s\n", fd,
              strerror(errno));
    }
}

void resp_busy_poll_request(int fd)
{
    bp.run = fd == bp.last_fd ? bp.run + (bp.run < RESP_BUSY_POLL_RUN) : 1;
    bp.last_fd = fd;
}

void resp_busy_poll_unwatch(int fd)
{
    if (bp.epfd >= 0) {
        epoll_ctl(bp.epfd, EPOLL_CTL_DEL, fd, NULL);
    }
    if (bp.last_fd == fd) {
        bp.last_fd = -1;    /* a new client may get this fd number */
        bp.run = 0;
    }
}
