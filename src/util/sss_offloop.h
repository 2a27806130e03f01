/*
 * Blocking work off the event loop: the one way the daemons run something that blocks
 * (a password hash, a TLS handshake, a DNS query, the fork/exec of a child) without the
 * loop paying for it. A job runs FN(ARG) on a worker thread of a pool and completes as a
 * tevent request on the loop; sss_spawn_send() is such a job that posix_spawn()s a child
 * and returns its pid and pipe ends.
 *
 * The contract with the caller's ARG (the only thing the thread and the loop share):
 *  - ops->run(arg) runs on a worker thread: it may block, but it must not touch talloc,
 *    the log, the loop or anything the loop may change meanwhile. Keep ARG malloc'd.
 *  - When the request is done (sss_offloop_recv() gives EOK), run has returned: the
 *    caller reads its results in ARG, taking (and clearing) what it wants to keep.
 *  - ops->drop(arg) frees ARG exactly once, when the request is freed: at once on the
 *    loop if run is not running, or on the worker thread right after run returns if it
 *    is (the cancellation race: nothing is freed twice, the late result is dropped). So
 *    drop must be thread-safe too: free(), close(), kill(), no talloc.
 *  - ops->hurry(arg), optional, is called on the loop (under the pool's lock, with run
 *    still in progress) when the request is freed mid-run, to make run return sooner
 *    (shutdown() of the socket it blocks on). It must not block.
 *
 * A pool has at most max_threads threads, started on demand, detached, taking no signal
 * (those belong to the loop); jobs wait in FIFO order, so a pool of one thread completes
 * jobs in submission order. Callbacks are deferred to the loop (never run inside the
 * pool's handler), in completion order. Freeing a pool fails its waiting requests with
 * ECANCELED (later, from the loop) and leaves running jobs to be dropped by their thread.
 */
#ifndef SSS_OFFLOOP_H
#define SSS_OFFLOOP_H

#include <sys/types.h>

#include "util/util.h"

/* Threads of an event context's shared pool (sss_offloop_send with pool NULL). */
#define SSS_OFFLOOP_SHARED_THREADS 8

typedef void (*sss_offloop_fn)(void *arg);

struct sss_offloop_ops {
    sss_offloop_fn run;         /* required: on a worker thread */
    sss_offloop_fn drop;        /* optional: frees arg (thread-safe) */
    sss_offloop_fn hurry;       /* optional: on the loop, ends a running run sooner */
};

struct sss_offloop;

/* A pool of at most max_threads (>= 1) worker threads whose jobs complete on ev. */
errno_t sss_offloop_create(TALLOC_CTX *mem_ctx, struct tevent_context *ev,
                           unsigned int max_threads, struct sss_offloop **_pool);

/* Runs ops->run(arg) on a thread of pool (NULL: ev's shared pool). ops must outlive the
 * request (a static const). Errors: EINVAL, ENOMEM, or pthread_create's (EAGAIN) when
 * the pool has no thread and none can be started; ECANCELED when the pool is freed
 * first. When the request cannot even be created (NULL), arg is NOT dropped. */
struct tevent_req *sss_offloop_send(TALLOC_CTX *mem_ctx, struct tevent_context *ev,
                                    struct sss_offloop *pool,
                                    const struct sss_offloop_ops *ops, void *arg);
errno_t sss_offloop_recv(struct tevent_req *req);

/* ---- children ------------------------------------------------------------------------- */

#define SSS_SPAWN_STDIN  0x1    /* a pipe to the child's stdin (otherwise ours) */
#define SSS_SPAWN_STDOUT 0x2    /* a pipe from the child's stdout (otherwise ours) */

/*
 * Starts path with argv (and envp; NULL: a copy of our environment taken now, on the
 * loop) from a thread of pool (NULL: ev's shared pool), with an empty signal mask and
 * no descriptor of ours above stderr. Gives the pid and our non-blocking, close-on-exec
 * ends of the pipes asked for in flags (-1 for the others); they are the caller's after
 * sss_spawn_recv() (until then, freeing the request kills and reaps the child). Errors
 * are posix_spawn's (ENOENT, EACCES...) or the pool's.
 */
struct tevent_req *sss_spawn_send(TALLOC_CTX *mem_ctx, struct tevent_context *ev,
                                  struct sss_offloop *pool, const char *path,
                                  const char * const *argv, const char * const *envp,
                                  unsigned int flags);
errno_t sss_spawn_recv(struct tevent_req *req, pid_t *_pid, int *_in_fd, int *_out_fd);

/* Kills pid first when kill_it, then reaps it without waiting on the loop: polled from a
 * timer on mem_ctx (give something that outlives the request, ev itself will do); a child
 * still there after 10 s is sent SIGKILL (again), every 10 s, until it is reaped. */
void sss_child_reap(TALLOC_CTX *mem_ctx, struct tevent_context *ev, pid_t pid, bool kill_it);

#endif /* SSS_OFFLOOP_H */
