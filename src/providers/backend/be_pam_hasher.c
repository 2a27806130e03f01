/*
 * The back-end's password hasher (be_pam_private.h): the cached-credential hashes
 * (sysdb_creds_hash, yescrypt, a few ms each) are offloop jobs (sss_offloop.h) on a pool
 * of one worker thread, so that the event loop never spends that time, and the callbacks
 * run on the loop in submission order (a later password of a user is always stored after
 * an earlier one). The thread starts with the first job.
 *
 * Nothing in the thread touches talloc, the cache or the log: jobs are plain malloc'd
 * blocks holding a copy of the password and the result, both wiped before they are freed.
 * Freeing the hasher frees its requests: the jobs left are dropped without calling their
 * callbacks (the one running, by its thread when it ends).
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "providers/backend/be_pam_private.h"
#include "util/sss_offloop.h"

struct be_pam_hash_job {
    uint8_t *pw;                    /* malloc'd copy, wiped */
    size_t len;
    uint32_t min_len;
    errno_t ret;
    char hash[SYSDB_CREDS_HASH_SIZE];
};

struct be_pam_hash_call {
    be_pam_hash_done_fn done;
    void *pvt;
    struct be_pam_hash_job *job;
};

struct be_pam_hasher {
    struct tevent_context *ev;
    struct sss_offloop *pool;
};

static void be_pam_hash_job_drop(void *arg)
{
    struct be_pam_hash_job *job = arg;

    if (job->pw != NULL) {
        explicit_bzero(job->pw, job->len);
        free(job->pw);
    }
    explicit_bzero(job, sizeof(*job));
    free(job);
}

/* On the worker thread. */
static void be_pam_hash_job_run(void *arg)
{
    struct be_pam_hash_job *job = arg;

    job->ret = sysdb_creds_hash(job->pw, job->len, job->min_len, job->hash);
    explicit_bzero(job->pw, job->len);
}

static const struct sss_offloop_ops be_pam_hash_ops = {
    .run = be_pam_hash_job_run,
    .drop = be_pam_hash_job_drop,
};

/* On the loop: the caller's callback, then the job is wiped and freed. */
static void be_pam_hash_done(struct tevent_req *subreq)
{
    struct be_pam_hash_call *call = tevent_req_callback_data_void(subreq);
    struct be_pam_hash_job *job = call->job;
    errno_t ret;

    ret = sss_offloop_recv(subreq);
    if (ret == EOK) {
        ret = job->ret;
    }
    /* The callback may submit again or free its own state, never the hasher. */
    call->done(call->pvt, ret, ret == EOK ? job->hash : NULL);
    talloc_free(subreq);
}

errno_t be_pam_hasher_create(TALLOC_CTX *mem_ctx, struct tevent_context *ev,
                             struct be_pam_hasher **_h)
{
    struct be_pam_hasher *h;
    errno_t ret;

    SSS_CHECK_ARG(ev != NULL && _h != NULL, EINVAL);
    h = talloc_zero(mem_ctx, struct be_pam_hasher);
    if (h == NULL) {
        return ENOMEM;
    }
    h->ev = ev;
    /* One thread: the jobs complete in submission order. */
    ret = sss_offloop_create(h, ev, 1, &h->pool);
    if (ret != EOK) {
        talloc_free(h);
        return ret == ENOMEM ? ENOMEM : EIO;
    }
    *_h = h;
    return EOK;
}

errno_t be_pam_hasher_submit(struct be_pam_hasher *h, const uint8_t *pw, size_t len,
                             uint32_t min_len, be_pam_hash_done_fn done, void *pvt)
{
    struct be_pam_hash_call *call;
    struct be_pam_hash_job *job;
    struct tevent_req *subreq;

    SSS_CHECK_ARG(h != NULL && pw != NULL && len > 0 && done != NULL, EINVAL);
    job = calloc(1, sizeof(*job));
    if (job == NULL) {
        return ENOMEM;
    }
    job->pw = malloc(len);
    if (job->pw == NULL) {
        be_pam_hash_job_drop(job);
        return ENOMEM;
    }
    memcpy(job->pw, pw, len);
    job->len = len;
    job->min_len = min_len;
    subreq = sss_offloop_send(h, h->ev, h->pool, &be_pam_hash_ops, job);
    if (subreq == NULL) {
        be_pam_hash_job_drop(job);
        return ENOMEM;
    }
    /* From here on freeing subreq drops the job. */
    call = talloc_zero(subreq, struct be_pam_hash_call);
    if (call == NULL) {
        talloc_free(subreq);
        return ENOMEM;
    }
    call->done = done;
    call->pvt = pvt;
    call->job = job;
    tevent_req_set_callback(subreq, be_pam_hash_done, call);
    return EOK;
}
