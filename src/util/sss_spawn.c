/*
 * Children started off the loop (sss_offloop.h): sss_spawn_send() is an offloop job that
 * calls posix_spawn() on a worker thread. posix_spawn's vfork (CLONE_VM: no copy of a big
 * process's page tables, unlike fork) holds its caller until the child has exec'd, up to
 * several ms: that thread, not the loop, waits. Everything the thread reads is copied
 * into the job on the loop first (the environment too: the loop may setenv() meanwhile).
 * Also the reaper that collects killed or finished children without blocking the loop.
 */
#include "config.h"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "util/sss_offloop.h"

#define SSS_REAP_USEC 20000
#define SSS_REAP_TRIES 500      /* 10 s, then SIGKILL again and keep trying */

extern char **environ;

struct spawn_job {
    char *path;
    char **argv;
    char **envp;
    unsigned int flags;
    /* Results: */
    int err;
    pid_t pid;
    int in_fd;
    int out_fd;
};

struct sss_spawn_state {
    struct spawn_job *job;
};

static void spawn_strv_free(char **v)
{
    if (v == NULL) {
        return;
    }
    for (size_t i = 0; v[i] != NULL; i++) {
        free(v[i]);
    }
    free(v);
}

static char **spawn_strv_dup(const char * const *v)
{
    size_t n = 0;
    char **copy;

    while (v[n] != NULL) {
        n++;
    }
    copy = calloc(n + 1, sizeof(*copy));
    if (copy == NULL) {
        return NULL;
    }
    for (size_t i = 0; i < n; i++) {
        copy[i] = strdup(v[i]);
        if (copy[i] == NULL) {
            spawn_strv_free(copy);
            return NULL;
        }
    }
    return copy;
}

/* Drop: on the loop or on the worker thread, so no talloc and no reaper timer. */
static void spawn_job_drop(void *arg)
{
    struct spawn_job *job = arg;
    int status;

    if (job->pid > 0) {
        kill(job->pid, SIGKILL);
        /* SIGKILL is prompt; an ECHILD (reaped elsewhere) ends this too. */
        while (waitpid(job->pid, &status, 0) < 0 && errno == EINTR) {
        }
    }
    if (job->in_fd >= 0) {
        close(job->in_fd);
    }
    if (job->out_fd >= 0) {
        close(job->out_fd);
    }
    free(job->path);
    spawn_strv_free(job->argv);
    spawn_strv_free(job->envp);
    free(job);
}

/* On the worker thread. */
static void spawn_job_run(void *arg)
{
    struct spawn_job *job = arg;
    posix_spawn_file_actions_t fa;
    posix_spawnattr_t attr;
    int to_child[2] = { -1, -1 };
    int from_child[2] = { -1, -1 };
    sigset_t none;
    int err;

    if (((job->flags & SSS_SPAWN_STDIN) != 0 && pipe2(to_child, O_CLOEXEC) != 0)
            || ((job->flags & SSS_SPAWN_STDOUT) != 0 && pipe2(from_child, O_CLOEXEC) != 0)) {
        job->err = errno;
        goto done;
    }
    posix_spawn_file_actions_init(&fa);
    posix_spawnattr_init(&attr);
    /* The thread blocks every signal: the child starts with none blocked. */
    sigemptyset(&none);
    posix_spawnattr_setsigmask(&attr, &none);
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK);
    if (to_child[0] >= 0) {
        posix_spawn_file_actions_adddup2(&fa, to_child[0], STDIN_FILENO);
    }
    if (from_child[1] >= 0) {
        posix_spawn_file_actions_adddup2(&fa, from_child[1], STDOUT_FILENO);
    }
    posix_spawn_file_actions_addclosefrom_np(&fa, 3);
    err = posix_spawn(&job->pid, job->path, &fa, &attr, job->argv, job->envp);
    posix_spawn_file_actions_destroy(&fa);
    posix_spawnattr_destroy(&attr);
    if (err != 0) {
        job->err = err;
        job->pid = -1;
        goto done;
    }
    job->in_fd = to_child[1];
    job->out_fd = from_child[0];
    to_child[1] = from_child[0] = -1;
    if ((job->in_fd >= 0 && fcntl(job->in_fd, F_SETFL, O_NONBLOCK) != 0)
            || (job->out_fd >= 0 && fcntl(job->out_fd, F_SETFL, O_NONBLOCK) != 0)) {
        job->err = errno;   /* the loop side drops it: killed and reaped */
    }
done:
    for (int i = 0; i < 2; i++) {
        if (to_child[i] >= 0) {
            close(to_child[i]);
        }
        if (from_child[i] >= 0) {
            close(from_child[i]);
        }
    }
}

static const struct sss_offloop_ops spawn_ops = {
    .run = spawn_job_run,
    .drop = spawn_job_drop,
};

static void sss_spawn_done(struct tevent_req *subreq);

struct tevent_req *sss_spawn_send(TALLOC_CTX *mem_ctx, struct tevent_context *ev,
                                  struct sss_offloop *pool, const char *path,
                                  const char * const *argv, const char * const *envp,
                                  unsigned int flags)
{
    struct sss_spawn_state *state;
    struct tevent_req *subreq;
    struct tevent_req *req;
    struct spawn_job *job;
    errno_t ret;

    req = tevent_req_create(mem_ctx, &state, struct sss_spawn_state);
    if (req == NULL) {
        return NULL;
    }
    if (!SSS_ARG_VALID(ev != NULL && path != NULL && argv != NULL && argv[0] != NULL
                       && (flags & ~(SSS_SPAWN_STDIN | SSS_SPAWN_STDOUT)) == 0)) {
        ret = EINVAL;
        goto done;
    }
    job = calloc(1, sizeof(*job));
    if (job == NULL) {
        ret = ENOMEM;
        goto done;
    }
    job->pid = -1;
    job->in_fd = job->out_fd = -1;
    job->flags = flags;
    job->path = strdup(path);
    job->argv = spawn_strv_dup(argv);
    job->envp = spawn_strv_dup(envp != NULL ? envp : (const char * const *)environ);
    if (job->path == NULL || job->argv == NULL || job->envp == NULL) {
        spawn_job_drop(job);
        ret = ENOMEM;
        goto done;
    }
    subreq = sss_offloop_send(state, ev, pool, &spawn_ops, job);
    if (subreq == NULL) {
        spawn_job_drop(job);
        ret = ENOMEM;
        goto done;
    }
    /* The subrequest owns job: freeing it (with state) kills and reaps the child. */
    state->job = job;
    tevent_req_set_callback(subreq, sss_spawn_done, req);
    return req;
done:
    return sss_req_post(req, ev, ret);
}

static void sss_spawn_done(struct tevent_req *subreq)
{
    struct tevent_req *req = tevent_req_callback_data(subreq, struct tevent_req);
    struct sss_spawn_state *state = tevent_req_data(req, struct sss_spawn_state);
    errno_t ret;

    ret = sss_offloop_recv(subreq);
    if (ret == EOK && state->job->err != 0) {
        ret = state->job->err;
    }
    if (ret != EOK) {
        talloc_free(subreq);        /* drops the job: a half-made child is killed */
        state->job = NULL;
        tevent_req_error(req, ret);
        return;
    }
    /* Kept (with job) until _recv takes the pid and the pipes. */
    tevent_req_done(req);
}

errno_t sss_spawn_recv(struct tevent_req *req, pid_t *_pid, int *_in_fd, int *_out_fd)
{
    struct sss_spawn_state *state = tevent_req_data(req, struct sss_spawn_state);
    struct spawn_job *job = state->job;

    TEVENT_REQ_RETURN_ON_ERROR(req);
    if (job->pid <= 0) {
        return ENOENT;    /* already taken */
    }
    *_pid = job->pid;
    if (_in_fd != NULL) {
        *_in_fd = job->in_fd;
        job->in_fd = -1;
    }
    if (_out_fd != NULL) {
        *_out_fd = job->out_fd;
        job->out_fd = -1;
    }
    job->pid = -1;          /* the caller's now: the drop leaves it alone */
    return EOK;
}

/* ---- the reaper ------------------------------------------------------------------------ */

struct sss_zombie {
    pid_t pid;
    int tries;
};

static void sss_zombie_tick(struct tevent_context *ev, struct tevent_timer *te,
                            struct timeval now, void *pvt)
{
    struct sss_zombie *z = talloc_get_type_abort(pvt, struct sss_zombie);
    int status;

    (void)te;
    (void)now;
    if (waitpid(z->pid, &status, WNOHANG) != 0) {
        talloc_free(z);     /* reaped (or not ours any more: ECHILD) */
        return;
    }
    if (++z->tries % SSS_REAP_TRIES == 0) {
        /* Still there after its answer or a SIGKILL: never left as a zombie. */
        kill(z->pid, SIGKILL);
    }
    if (tevent_add_timer(ev, z, tevent_timeval_current_ofs(0, SSS_REAP_USEC),
                         sss_zombie_tick, z) == NULL) {
        talloc_free(z);     /* out of memory: init reaps it when we exit */
    }
}

void sss_child_reap(TALLOC_CTX *mem_ctx, struct tevent_context *ev, pid_t pid, bool kill_it)
{
    struct sss_zombie *z;
    int status;

    if (pid <= 0) {
        return;
    }
    if (kill_it) {
        kill(pid, SIGKILL);
    }
    if (waitpid(pid, &status, WNOHANG) != 0) {
        return;
    }
    z = talloc_zero(mem_ctx, struct sss_zombie);
    if (z == NULL) {
        return;
    }
    z->pid = pid;
    if (tevent_add_timer(ev, z, tevent_timeval_current_ofs(0, SSS_REAP_USEC),
                         sss_zombie_tick, z) == NULL) {
        talloc_free(z);
    }
}
