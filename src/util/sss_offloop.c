/*
 * The worker-thread pool behind sss_offloop_send() (sss_offloop.h). The loop side (struct
 * sss_offloop, talloc) owns a malloc'd core shared with the threads: a mutex, the FIFO of
 * jobs to run, the list of finished ones and the eventfd that wakes the loop. Each job is
 * a malloc'd block in exactly one state; the state moves only under the lock:
 *
 *   QUEUED -> RUNNING -> DONE, then delivered (the request is done; its state holds the
 *   job, which no thread sees any more)
 *
 * Freeing the request drops the job at once in any state but RUNNING; a RUNNING job is
 * marked abandoned (req = NULL) and the thread drops it when run returns. The core is
 * freed by the last of the pool and its threads to let go of it, so freeing a pool never
 * waits for a job that blocks.
 */
#include "config.h"

#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "util/sss_offloop.h"

enum offloop_job_st {
    JOB_QUEUED,
    JOB_RUNNING,
    JOB_DONE,
};

struct offloop_job {
    struct sss_list link;           /* in todo, running or done; guarded by the lock */
    enum offloop_job_st st;         /* guarded by the lock */
    struct tevent_req *req;         /* NULL: abandoned while running (the thread drops) */
    bool orphan;                    /* its pool is gone: the request drops it, no lock */
    bool delivered;                 /* its request is done (the loop's alone, no lock) */
    const struct sss_offloop_ops *ops;
    void *arg;
};

struct offloop_core {
    pthread_mutex_t lock;
    pthread_cond_t cond;
    struct sss_list todo;
    struct sss_list running;
    struct sss_list done;
    unsigned int ntodo;
    unsigned int nthreads;
    unsigned int idle;
    unsigned int max;
    bool stop;                      /* the pool is gone: threads leave, nobody writes efd */
    int efd;
};

struct sss_offloop {
    struct tevent_context *ev;
    struct tevent_fd *fde;
    struct offloop_core *core;
};

struct sss_offloop_state {
    struct sss_offloop *pool;
    struct offloop_job *job;
};

/* ev's shared pool; one loop thread uses it, so no lock. */
static struct sss_offloop *offloop_shared;

static void offloop_job_drop(struct offloop_job *job)
{
    if (job->ops != NULL && job->ops->drop != NULL) {
        job->ops->drop(job->arg);
    }
    free(job);
}

static void offloop_core_free(struct offloop_core *core)
{
    pthread_cond_destroy(&core->cond);
    pthread_mutex_destroy(&core->lock);
    free(core);
}

static void *offloop_thread(void *pvt)
{
    struct offloop_core *core = pvt;
    struct offloop_job *job;
    uint64_t one = 1;
    bool last;
    ssize_t n;

    pthread_mutex_lock(&core->lock);
    for (;;) {
        while (!core->stop && sss_list_is_empty(&core->todo)) {
            core->idle++;
            pthread_cond_wait(&core->cond, &core->lock);
            core->idle--;
        }
        if (core->stop) {
            break;
        }
        job = sss_list_first_entry(&core->todo, struct offloop_job, link);
        sss_list_unlink(&job->link);
        core->ntodo--;
        job->st = JOB_RUNNING;
        sss_list_link_tail(&core->running, &job->link);
        pthread_mutex_unlock(&core->lock);

        job->ops->run(job->arg);

        pthread_mutex_lock(&core->lock);
        sss_list_unlink(&job->link);
        if (job->req == NULL) {
            /* Its request was freed meanwhile: the result goes nowhere. */
            pthread_mutex_unlock(&core->lock);
            offloop_job_drop(job);
            pthread_mutex_lock(&core->lock);
            continue;
        }
        job->st = JOB_DONE;
        sss_list_link_tail(&core->done, &job->link);
        /* The counter only wakes the loop; EAGAIN (saturated) needs no second wake. */
        do {
            n = write(core->efd, &one, sizeof(one));
        } while (n < 0 && errno == EINTR);
    }
    core->nthreads--;
    last = core->nthreads == 0;
    pthread_mutex_unlock(&core->lock);
    if (last) {
        /* stop is set: the pool is gone and this was the last user of the core. */
        offloop_core_free(core);
    }
    return NULL;
}

/* On the loop: the finished jobs' requests are done, their callbacks deferred. */
static void offloop_readable(struct tevent_context *ev, struct tevent_fd *fde,
                             uint16_t flags, void *pvt)
{
    struct sss_offloop *pool = talloc_get_type_abort(pvt, struct sss_offloop);
    struct offloop_core *core = pool->core;
    struct sss_list done = SSS_LIST_INIT(done);
    struct offloop_job *job;
    uint64_t count;
    ssize_t n;

    (void)fde;
    (void)flags;
    do {
        n = read(core->efd, &count, sizeof(count));
    } while (n < 0 && errno == EINTR);

    pthread_mutex_lock(&core->lock);
    sss_list_splice_tail(&done, &core->done);
    pthread_mutex_unlock(&core->lock);

    /* No callback runs here, so nothing can free the pool or a job under this walk. */
    while (!sss_list_is_empty(&done)) {
        job = sss_list_first_entry(&done, struct offloop_job, link);
        sss_list_unlink(&job->link);
        job->delivered = true;
        tevent_req_defer_callback(job->req, ev);
        tevent_req_done(job->req);
    }
}

/* Fails req with ECANCELED from the loop (no callback runs here). */
static void offloop_cancel_req(struct sss_offloop *pool, struct tevent_req *req)
{
    tevent_req_defer_callback(req, pool->ev);
    tevent_req_error(req, ECANCELED);
}

static int offloop_pool_destructor(struct sss_offloop *pool)
{
    struct offloop_core *core = pool->core;
    struct sss_offloop_state *state;
    struct offloop_job *job;
    struct offloop_job *tmp;
    bool last;
    int efd;

    if (offloop_shared == pool) {
        offloop_shared = NULL;
    }
    talloc_zfree(pool->fde);
    pthread_mutex_lock(&core->lock);
    core->stop = true;
    pthread_cond_broadcast(&core->cond);
    sss_list_for_each_entry_safe(job, tmp, &core->running, link) {
        /* Its thread drops it when run returns; nothing writes to efd any more. */
        if (job->req == NULL) {
            continue;       /* already abandoned by its request */
        }
        state = tevent_req_data(job->req, struct sss_offloop_state);
        state->job = NULL;
        offloop_cancel_req(pool, job->req);
        job->req = NULL;
    }
    sss_list_splice_tail(&core->todo, &core->done);
    sss_list_for_each_entry_safe(job, tmp, &core->todo, link) {
        /* Not the core's any more: the request drops it when it is freed. */
        sss_list_unlink(&job->link);
        job->orphan = true;
        offloop_cancel_req(pool, job->req);
    }
    core->ntodo = 0;
    last = core->nthreads == 0;
    efd = core->efd;
    /* Once unlocked, the last thread to leave may free core. */
    pthread_mutex_unlock(&core->lock);
    close(efd);
    if (last) {
        offloop_core_free(core);
    }
    return 0;
}

errno_t sss_offloop_create(TALLOC_CTX *mem_ctx, struct tevent_context *ev,
                           unsigned int max_threads, struct sss_offloop **_pool)
{
    struct sss_offloop *pool;
    struct offloop_core *core;

    SSS_CHECK_ARG(ev != NULL && max_threads > 0 && _pool != NULL, EINVAL);
    core = calloc(1, sizeof(*core));
    if (core == NULL) {
        return ENOMEM;
    }
    core->efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    if (core->efd < 0) {
        free(core);
        return EMFILE;
    }
    pthread_mutex_init(&core->lock, NULL);
    pthread_cond_init(&core->cond, NULL);
    sss_list_init(&core->todo);
    sss_list_init(&core->running);
    sss_list_init(&core->done);
    core->max = max_threads;
    pool = talloc_zero(mem_ctx, struct sss_offloop);
    if (pool == NULL) {
        close(core->efd);
        offloop_core_free(core);
        return ENOMEM;
    }
    pool->ev = ev;
    pool->core = core;
    talloc_set_destructor(pool, offloop_pool_destructor);
    pool->fde = tevent_add_fd(ev, pool, core->efd, TEVENT_FD_READ, offloop_readable, pool);
    if (pool->fde == NULL) {
        talloc_free(pool);
        return ENOMEM;
    }
    *_pool = pool;
    return EOK;
}

static struct sss_offloop *offloop_get_shared(struct tevent_context *ev)
{
    struct sss_offloop *pool;

    if (offloop_shared != NULL && offloop_shared->ev == ev) {
        return offloop_shared;
    }
    /* Another event context's (tests make several): that one keeps its own. */
    if (sss_offloop_create(ev, ev, SSS_OFFLOOP_SHARED_THREADS, &pool) != EOK) {
        return NULL;
    }
    offloop_shared = pool;
    return pool;
}

static int offloop_state_destructor(struct sss_offloop_state *state)
{
    struct offloop_job *job = state->job;
    struct offloop_core *core;

    if (job == NULL) {
        return 0;
    }
    state->job = NULL;
    /* Only the loop writes these two: no lock (st is the threads' too). */
    if (job->orphan || job->delivered) {
        offloop_job_drop(job);
        return 0;
    }
    core = state->pool->core;
    pthread_mutex_lock(&core->lock);
    if (job->st == JOB_RUNNING) {
        /* The cancellation race: the thread drops it when run returns. */
        job->req = NULL;
        if (job->ops->hurry != NULL) {
            job->ops->hurry(job->arg);
        }
        pthread_mutex_unlock(&core->lock);
        return 0;
    }
    if (job->st == JOB_QUEUED) {
        core->ntodo--;
    }
    sss_list_unlink(&job->link);
    pthread_mutex_unlock(&core->lock);
    offloop_job_drop(job);
    return 0;
}

/* Starts one more thread of the pool (its count already taken under the lock). */
static int offloop_start_thread(struct offloop_core *core)
{
    pthread_attr_t attr;
    pthread_t tid;
    sigset_t all;
    sigset_t old;
    int err;

    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    err = pthread_create(&tid, &attr, offloop_thread, core);
    pthread_attr_destroy(&attr);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    return err;
}

struct tevent_req *sss_offloop_send(TALLOC_CTX *mem_ctx, struct tevent_context *ev,
                                    struct sss_offloop *pool,
                                    const struct sss_offloop_ops *ops, void *arg)
{
    struct sss_offloop_state *state;
    struct offloop_job *job;
    struct offloop_core *core;
    struct tevent_req *req;
    bool more;
    errno_t ret;
    int err;

    req = tevent_req_create(mem_ctx, &state, struct sss_offloop_state);
    if (req == NULL) {
        return NULL;
    }
    job = calloc(1, sizeof(*job));
    if (job == NULL) {
        talloc_free(req);
        return NULL;
    }
    /* From here on freeing the request drops arg. */
    job->ops = ops;
    job->arg = arg;
    job->req = req;
    job->orphan = true;
    state->job = job;
    talloc_set_destructor(state, offloop_state_destructor);
    if (!SSS_ARG_VALID(ev != NULL && ops != NULL && ops->run != NULL)) {
        ret = EINVAL;
        goto done;
    }
    if (pool == NULL) {
        pool = offloop_get_shared(ev);
        if (pool == NULL) {
            ret = ENOMEM;
            goto done;
        }
    }
    assert(pool->ev == ev);
    state->pool = pool;
    core = pool->core;

    pthread_mutex_lock(&core->lock);
    job->orphan = false;
    job->st = JOB_QUEUED;
    sss_list_link_tail(&core->todo, &job->link);
    core->ntodo++;
    more = core->idle < core->ntodo && core->nthreads < core->max;
    if (more) {
        core->nthreads++;
    }
    pthread_cond_signal(&core->cond);
    pthread_mutex_unlock(&core->lock);
    if (!more) {
        return req;
    }
    err = offloop_start_thread(core);
    if (err == 0) {
        return req;
    }
    pthread_mutex_lock(&core->lock);
    core->nthreads--;
    if (core->nthreads > 0) {
        /* The threads there are will get to it. */
        pthread_mutex_unlock(&core->lock);
        return req;
    }
    sss_list_unlink(&job->link);
    core->ntodo--;
    job->orphan = true;
    pthread_mutex_unlock(&core->lock);
    DEBUG(SSSDBG_CRIT_FAILURE, "cannot start a worker thread: %s\n", strerror(err));
    ret = err;
done:
    return sss_req_post(req, ev, ret);
}

errno_t sss_offloop_recv(struct tevent_req *req)
{
    TEVENT_REQ_RETURN_ON_ERROR(req);
    return EOK;
}
