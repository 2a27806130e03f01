/*
 * Adaptive busy polling of a responder's sockets.
 *
 * Between two requests of a client that asks many in a row (getent, id, a burst of
 * lookups of one process), the responder sleeps in epoll_wait and the next request must
 * wake it. On an idle machine waking an idle CPU costs several microseconds of a ~20 us
 * round trip. So when the last RESP_BUSY_POLL_RUN requests came from the same client, all
 * of them are answered, and the loop's last sleep was shorter than the spin, it first checks its client
 * sockets without sleeping, for at most RESP_BUSY_POLL_SPIN_US, and sleeps only if nothing
 * came.
 * - While a request is open (its reply is being written, or it waits for the back-end on
 *   the bus), the loop waits for sockets the spin does not check: no spin (it delayed each
 *   partial write of a big group's reply by the whole spin).
 * - A responder that gets requests now and then never spins: its sleeps are long.
 * - Many clients at once (more than the cores) make requests alternate between clients:
 *   no spin either, so it never takes CPU time the clients need (measured: 8 clients on
 *   2 cores lost 7% of their throughput when the responder spun for them).
 * One probe per process, bound to the event context of the first watched fd.
 */
#ifndef RESP_BUSY_POLL_H
#define RESP_BUSY_POLL_H

#include <tevent.h>

/* How long the loop checks its sockets before it sleeps; also the longest sleep after
 * which it spins next time (a longer one would not have been saved by the spin). */
#define RESP_BUSY_POLL_SPIN_US 50
#define RESP_BUSY_POLL_RUN 4

/* Adds fd (a listening or client socket served on ev) to the sockets checked while
 * spinning. Failures only mean no spinning (logged once). */
void resp_busy_poll_watch(struct tevent_context *ev, int fd);

/* A request of the client on fd is being served; ..._done: a request ended (each
 * request makes one call of each). */
void resp_busy_poll_request(int fd);
void resp_busy_poll_request_done(void);

/* What the spins did, since the process started (tests, benchmarks). */
struct resp_busy_poll_stats {
    uint64_t spins;         /* loop waits that began with a spin */
    uint64_t caught;        /* of those, ended by a readable socket */
    uint64_t yielded;       /* ended because another task wanted the CPU */
};
void resp_busy_poll_get_stats(struct resp_busy_poll_stats *stats);

/* Removes fd; call before closing it. */
void resp_busy_poll_unwatch(int fd);

#endif /* RESP_BUSY_POLL_H */
