/*
 * The back-end's password hasher (be_pam_private.h): one worker thread that makes the
 * cached-credential hashes (sysdb_creds_hash, yescrypt, a few ms each), so that the event
 * loop never spends that time. Jobs go in through a mutex-guarded FIFO; finished ones come
 * back through a second FIFO and an eventfd the loop watches, and their callbacks run on
 * the loop, in submission order (a later password of a user is always stored after an
 * earlier one). The thread starts with the first job.
 *
 * Nothing in the thread touches talloc, the cache or the log: jobs are plain malloc'd
 * blocks holding a copy of the password and the result, both wiped before they are freed.
 * Freeing the hasher stops the thread (after the job it is on), joins it, and drops the
 * jobs left without calling their callbacks.
 */
#include "config.h"

#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "providers/backend/be_pam_private.h"
#include "util/sss_list.h"

struct be_pam_hash_job {
    struct sss_list link;
    uint8_t *pw;                    /* malloc'd copy, wiped */
    size_t len;
    uint32_t min_len;
    errno_t ret;
    char hash[SYSDB_CREDS_HASH_SIZE];
    be_pam_hash_done_fn done;
    void *pvt;
};

struct be_pam_hasher {
    struct tevent_context *ev;
    struct tevent_fd *fde;
    int efd;
    pthread_mutex_t lock;
    pthread_cond_t cond;
    struct sss_list todo;           /* guarded by lock */
    struct sss_list finished;       /* guarded by lock */
    bool stop;                      /* guarded by lock */
    bool started;
    pthread_t thread;
};

static void be_pam_hash_job_free(struct be_pam_hash_job *job)
{
    if (job->pw != NULL) {
        explicit_bzero(job->pw, job->len);
        free(job->pw);
    }
    explicit_bzero(job, sizeof(*job));
    free(job);
}

static void *be_pam_hasher_main(void *arg)
{
    struct be_pam_hasher *h = arg;
    struct be_pam_hash_job *job;
    uint64_t one = 1;
    ssize_t n;

    pthread_mutex_lock(&h->lock);
    for (;;) {
        while (!h->stop && sss_list_is_empty(&h->todo)) {
            pthread_cond_wait(&h->cond, &h->lock);
        }
        if (h->stop) {
            break;
        }
        job = sss_list_first_entry(&h->todo, struct be_pam_hash_job, link);
        sss_list_unlink(&job->link);
        pthread_mutex_unlock(&h->lock);

        job->ret = sysdb_creds_hash(job->pw, job->len, job->min_len, job->hash);
        explicit_bzero(job->pw, job->len);

        pthread_mutex_lock(&h->lock);
        sss_list_link_tail(&h->finished, &job->link);
        /* The counter only wakes the loop; EAGAIN (saturated) needs no second wake. */
        do {
            n = write(h->efd, &one, sizeof(one));
        } while (n < 0 && errno == EINTR);
    }
    pthread_mutex_unlock(&h->lock);
    return NULL;
}

/* On the loop: runs the callbacks of the finished jobs, in order. */
static void be_pam_hasher_fd(struct tevent_context *ev, struct tevent_fd *fde,
                             uint16_t flags, void *pvt)
{
    struct be_pam_hasher *h = talloc_get_type_abort(pvt, struct be_pam_hasher);
    struct sss_list done = SSS_LIST_INIT(done);
    struct be_pam_hash_job *job;
    uint64_t count;
    ssize_t n;

    (void)ev;
    (void)fde;
    (void)flags;
    do {
        n = read(h->efd, &count, sizeof(count));
    } while (n < 0 && errno == EINTR);

    pthread_mutex_lock(&h->lock);
    sss_list_splice_tail(&done, &h->finished);
    pthread_mutex_unlock(&h->lock);

    while (!sss_list_is_empty(&done)) {
        job = sss_list_first_entry(&done, struct be_pam_hash_job, link);
        sss_list_unlink(&job->link);
        /* The callback may submit again or free its own state, never the hasher. */
        job->done(job->pvt, job->ret, job->ret == EOK ? job->hash : NULL);
        be_pam_hash_job_free(job);
    }
}

static int be_pam_hasher_destructor(struct be_pam_hasher *h)
{
    struct be_pam_hash_job *job;
    struct be_pam_hash_job *tmp;

    if (h->started) {
        pthread_mutex_lock(&h->lock);
        h->stop = true;
        pthread_cond_signal(&h->cond);
        pthread_mutex_unlock(&h->lock);
        pthread_join(h->thread, NULL);
    }
    sss_list_for_each_entry_safe(job, tmp, &h->todo, link) {
        sss_list_unlink(&job->link);
        be_pam_hash_job_free(job);
    }
    sss_list_for_each_entry_safe(job, tmp, &h->finished, link) {
        sss_list_unlink(&job->link);
        be_pam_hash_job_free(job);
    }
    talloc_free(h->fde);
    h->fde = NULL;
    if (h->efd >= 0) {
        close(h->efd);
    }
    pthread_cond_destroy(&h->cond);
    pthread_mutex_destroy(&h->lock);
    return 0;
}

errno_t be_pam_hasher_create(TALLOC_CTX *mem_ctx, struct tevent_context *ev,
                             struct be_pam_hasher **_h)
{
    struct be_pam_hasher *h;

    SSS_CHECK_ARG(ev != NULL && _h != NULL, EINVAL);
    h = talloc_zero(mem_ctx, struct be_pam_hasher);
    if (h == NULL) {
        return ENOMEM;
    }
    h->ev = ev;
    sss_list_init(&h->todo);
    sss_list_init(&h->finished);
    pthread_mutex_init(&h->lock, NULL);
    pthread_cond_init(&h->cond, NULL);
    h->efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    talloc_set_destructor(h, be_pam_hasher_destructor);
    if (h->efd < 0) {
        talloc_free(h);
        return EIO;
    }
    h->fde = tevent_add_fd(ev, h, h->efd, TEVENT_FD_READ, be_pam_hasher_fd, h);
    if (h->fde == NULL) {
        talloc_free(h);
        return ENOMEM;
    }
    *_h = h;
    return EOK;
}

errno_t be_pam_hasher_submit(struct be_pam_hasher *h, const uint8_t *pw, size_t len,
                             uint32_t min_len, be_pam_hash_done_fn done, void *pvt)
{
    struct be_pam_hash_job *job;
    int err;

    SSS_CHECK_ARG(h != NULL && pw != NULL && len > 0 && done != NULL, EINVAL);
    job = calloc(1, sizeof(*job));
    if (job == NULL) {
        return ENOMEM;
    }
    job->pw = malloc(len);
    if (job->pw == NULL) {
        be_pam_hash_job_free(job);
        return ENOMEM;
    }
    memcpy(job->pw, pw, len);
    job->len = len;
    job->min_len = min_len;
    job->done = done;
    job->pvt = pvt;

    if (!h->started) {
        /* The thread takes no signal: tevent's handlers belong to the loop's thread. */
        sigset_t all;
        sigset_t old;

        sigfillset(&all);
        pthread_sigmask(SIG_SETMASK, &all, &old);
        err = pthread_create(&h->thread, NULL, be_pam_hasher_main, h);
        pthread_sigmask(SIG_SETMASK, &old, NULL);
        if (err != 0) {
            be_pam_hash_job_free(job);
            return err;
        }
        h->started = true;
    }
    pthread_mutex_lock(&h->lock);
    sss_list_link_tail(&h->todo, &job->link);
    pthread_cond_signal(&h->cond);
    pthread_mutex_unlock(&h->lock);
    return EOK;
}
