/*
 * Adaptive busy polling (see resp_busy_poll.h). The probe is an epoll set of our own that
 * holds the same sockets as the tevent loop; tevent's trace points around its wait tell
 * how long the loop slept, and the BEFORE_WAIT point is where the spin happens: when a
 * socket becomes readable during the spin, tevent's own epoll_wait returns at once.
 */
#include <assert.h>
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
    bool missed;                    /* this wait's spin caught nothing */
    int last_fd;                    /* the client of the last request */
    unsigned int run;               /* requests in a row from that client */
    unsigned int open;              /* requests of this process not ended */
    uint64_t wait_start;
    struct resp_busy_poll_stats stats;
    tevent_trace_callback_t prev_cb;
    void *prev_data;
} bp = { .epfd = -1, .last_fd = -1 };

static uint64_t bp_now_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/* A yield that took this long gave the CPU to another task. */
#define BP_YIELDED_NS 5000

/* true when a socket became readable during the spin */
static bool bp_spin(void)
{
    struct epoll_event e;
    uint64_t deadline = bp.wait_start + (uint64_t)bp.spin_ns;
    uint64_t t0;
    uint64_t t1;

    bp.stats.spins++;
    for (t1 = bp.wait_start; t1 < deadline; ) {
        if (epoll_wait(bp.epfd, &e, 1, 0) != 0) {
            bp.stats.caught++;
            return true;        /* something to do (or an error: let tevent see it) */
        }
        /* Another task wants this CPU: often the client itself, woken here by our reply
         * (socket wake-ups are "sync": the scheduler expects the waker to sleep). Spinning
         * on would share the CPU with it and delay the very request we wait for. */
        t0 = bp_now_ns();
        sched_yield();
        t1 = bp_now_ns();
        if (t1 - t0 > BP_YIELDED_NS) {
            bp.stats.yielded++;
            return false;
        }
    }
    return false;
}

static void bp_trace(enum tevent_trace_point point, void *data)
{
    if (point == TEVENT_TRACE_BEFORE_WAIT) {
        bp.wait_start = bp_now_ns();
        bp.missed = bp.spin_next && bp.run >= RESP_BUSY_POLL_RUN && bp.open == 0
                    && !bp_spin();
    } else if (point == TEVENT_TRACE_AFTER_WAIT) {
        /* Only a request that comes within the spin is caught by one: after a spin that
         * caught nothing, or a sleep longer than a spin, the next wait does not spin. A
         * client that takes longer between requests (id reads /etc/group between its
         * lookups) gains nothing, and the spin would sit on the CPU it wants. */
        bp.spin_next = !bp.missed && bp_now_ns() - bp.wait_start < (uint64_t)bp.spin_ns;
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
    bp.last_fd = -1;
    bp.run = 0;
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
    bp.open++;
}

void resp_busy_poll_request_done(void)
{
    /* One call per resp_busy_poll_request(), whatever loop the request ran on: the count
     * is the process's, never reset. */
    assert(bp.open > 0);
    bp.open--;
}

void resp_busy_poll_get_stats(struct resp_busy_poll_stats *stats)
{
    *stats = bp.stats;
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
