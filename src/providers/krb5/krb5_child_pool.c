/*
 * Where krb5_child processes come from (krb5_child_client.h): a spawner thread, and spares.
 *
 * Starting a child from the event loop with fork() copied sssd_be's page tables each time
 * (dup_mmap: 0.5-1 ms of the loop's CPU per login; 20 logins at once stalled lookups for
 * 20 ms and more), and posix_spawn's vfork would hold the loop until the child exec'd.
 * So one worker thread starts the children with posix_spawn (CLONE_VM: no copy, and only
 * that thread waits for the exec), and hands them to the loop through a mutex-guarded FIFO
 * and an eventfd, as the password hasher does.
 *
 * A spare is a child started ahead of time: exec'd, libkrb5 loaded and its context made,
 * blocked reading its empty stdin. It holds no secret: the request (and the password)
 * reaches it only when a login takes it, after which it is that login's child alone and
 * a new spare is started. cfg->spares of them are kept (the auth provider keeps one, the
 * LDAP provider's keytab renewals none). A spare that died meanwhile, or was started with
 * another debug level, or before a krb5.conf it reads was changed (libkrb5 keeps what it
 * read at its start, the default realm for one), is dropped and the next one (or a new
 * one) used. A spare that sssd_be never uses exits when sssd_be does (its stdin reaches
 * EOF).
 *
 * Nothing in the thread touches talloc or the log: the command line is built on the loop
 * before the thread starts and never changes; the debug level is passed by value.
 */
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/eventfd.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "providers/krb5/krb5_child_client.h"
#include "util/sss_list.h"

/* A child started by the thread: its pid, our ends of its stdin and stdout. */
struct krb5_child_proc {
    struct sss_list link;
    errno_t ret;
    pid_t pid;
    int in_fd;
    int out_fd;
    int level;                  /* the debug level it was started with */
    struct timespec started;    /* when (to tell a krb5.conf edited since) */
};

struct krb5_child_wait {
    struct sss_list link;
    struct krb5_child_pool *pool;   /* NULL once served or the pool is gone */
    krb5_child_take_fn fn;
    void *pvt;
};

struct krb5_child_pool {
    struct krb5_child_cfg *cfg;
    struct tevent_context *ev;
    struct tevent_fd *fde;
    int efd;
    char *argv[5];              /* malloc'd; argv[1] is the thread's own buffer */
    char *envp[3];
    char *confs;                /* KRB5_CONFIG's files, ':'-separated (malloc'd) */
    pthread_mutex_t lock;
    pthread_cond_t cond;
    struct sss_list todo;       /* guarded by lock: children to start (allocated here) */
    struct sss_list done;       /* guarded by lock: started, for the loop */
    bool stop;                  /* guarded by lock */
    bool started;
    pthread_t thread;
    /* The loop's alone: */
    unsigned int asked;         /* asked of the thread, not back yet */
    struct sss_list ready;      /* spares */
    unsigned int nready;
    struct sss_list waiting;    /* requests waiting for a child */
    unsigned int nwaiting;
    bool failing;               /* the last start failed: no spare until the next take */
};

static void krb5_child_proc_start(struct krb5_child_pool *pool, struct krb5_child_proc *p)
{
    posix_spawn_file_actions_t fa;
    posix_spawnattr_t attr;
    sigset_t none;
    int to_child[2] = { -1, -1 };
    int from_child[2] = { -1, -1 };
    char level[32];
    char *argv[5];
    int err;

    memcpy(argv, pool->argv, sizeof(argv));
    (void)clock_gettime(CLOCK_REALTIME, &p->started);
    (void)snprintf(level, sizeof(level), "--debug-level=%#x", p->level);
    argv[1] = level;
    if (pipe2(to_child, O_CLOEXEC) != 0 || pipe2(from_child, O_CLOEXEC) != 0) {
        p->ret = errno;
        goto done;
    }
    posix_spawn_file_actions_init(&fa);
    posix_spawnattr_init(&attr);
    sigemptyset(&none);
    /* Our thread blocks every signal: the child starts with none blocked. */
    posix_spawnattr_setsigmask(&attr, &none);
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK);
    posix_spawn_file_actions_adddup2(&fa, to_child[0], STDIN_FILENO);
    posix_spawn_file_actions_adddup2(&fa, from_child[1], STDOUT_FILENO);
    posix_spawn_file_actions_addclosefrom_np(&fa, 3);
    err = posix_spawn(&p->pid, argv[0], &fa, &attr, argv, pool->envp);
    posix_spawn_file_actions_destroy(&fa);
    posix_spawnattr_destroy(&attr);
    if (err != 0) {
        p->ret = err;
        p->pid = -1;
        goto done;
    }
    p->in_fd = to_child[1];
    p->out_fd = from_child[0];
    to_child[1] = from_child[0] = -1;
    if (fcntl(p->in_fd, F_SETFL, O_NONBLOCK) != 0
            || fcntl(p->out_fd, F_SETFL, O_NONBLOCK) != 0) {
        p->ret = errno;     /* the loop kills and reaps it */
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

static void *krb5_child_pool_main(void *arg)
{
    struct krb5_child_pool *pool = arg;
    struct krb5_child_proc *p;
    uint64_t one = 1;
    ssize_t n;

    pthread_mutex_lock(&pool->lock);
    for (;;) {
        while (!pool->stop && sss_list_is_empty(&pool->todo)) {
            pthread_cond_wait(&pool->cond, &pool->lock);
        }
        if (pool->stop) {
            break;
        }
        p = sss_list_first_entry(&pool->todo, struct krb5_child_proc, link);
        sss_list_unlink(&p->link);
        pthread_mutex_unlock(&pool->lock);

        krb5_child_proc_start(pool, p);

        pthread_mutex_lock(&pool->lock);
        sss_list_link_tail(&pool->done, &p->link);
        /* The counter only wakes the loop; EAGAIN (saturated) needs no second wake. */
        do {
            n = write(pool->efd, &one, sizeof(one));
        } while (n < 0 && errno == EINTR);
    }
    pthread_mutex_unlock(&pool->lock);
    return NULL;
}

/* Drops a child nobody will use: killed, its pipes closed, reaped without waiting. */
static void krb5_child_proc_drop(struct krb5_child_pool *pool, struct krb5_child_proc *p)
{
    if (p->pid > 0) {
        krb5_child_reap_pid(pool->cfg, pool->ev, p->pid, true);
    }
    if (p->in_fd >= 0) {
        close(p->in_fd);
    }
    if (p->out_fd >= 0) {
        close(p->out_fd);
    }
    free(p);
}

static errno_t krb5_child_pool_ask(struct krb5_child_pool *pool)
{
    unsigned int spares = pool->failing ? 0 : (unsigned int)pool->cfg->spares;
    unsigned int have = pool->nready + pool->asked;
    unsigned int need = pool->nwaiting + spares;
    struct sss_list todo = SSS_LIST_INIT(todo);
    struct krb5_child_proc *p;
    sigset_t all;
    sigset_t old;
    int err;

    if (need <= have) {
        return EOK;
    }
    if (!pool->started) {
        /* The thread takes no signal: tevent's handlers belong to the loop's thread. */
        sigfillset(&all);
        pthread_sigmask(SIG_SETMASK, &all, &old);
        err = pthread_create(&pool->thread, NULL, krb5_child_pool_main, pool);
        pthread_sigmask(SIG_SETMASK, &old, NULL);
        if (err != 0) {
            return err;
        }
        pool->started = true;
    }
    for (; have < need; have++) {
        p = calloc(1, sizeof(*p));
        if (p == NULL) {
            break;
        }
        p->pid = -1;
        p->in_fd = p->out_fd = -1;
        p->level = debug_level;
        sss_list_link_tail(&todo, &p->link);
        pool->asked++;
    }
    pthread_mutex_lock(&pool->lock);
    sss_list_splice_tail(&pool->todo, &todo);
    pthread_cond_signal(&pool->cond);
    pthread_mutex_unlock(&pool->lock);
    return EOK;
}

/* On the loop: the children the thread started go to the waiting requests, in order,
 * then become spares. */
static void krb5_child_pool_fd(struct tevent_context *ev, struct tevent_fd *fde,
                               uint16_t flags, void *pvt)
{
    struct krb5_child_pool *pool = talloc_get_type_abort(pvt, struct krb5_child_pool);
    struct sss_list done = SSS_LIST_INIT(done);
    struct krb5_child_proc *p;
    struct krb5_child_wait *w;
    uint64_t count = 0;
    ssize_t r;

    (void)ev;
    (void)fde;
    (void)flags;
    do {
        r = read(pool->efd, &count, sizeof(count));
    } while (r < 0 && errno == EINTR);

    pthread_mutex_lock(&pool->lock);
    sss_list_splice_tail(&done, &pool->done);
    pthread_mutex_unlock(&pool->lock);

    while (!sss_list_is_empty(&done)) {
        p = sss_list_first_entry(&done, struct krb5_child_proc, link);
        sss_list_unlink(&p->link);
        pool->asked--;
        pool->failing = p->ret != EOK;
        w = sss_list_is_empty(&pool->waiting) ? NULL
            : sss_list_first_entry(&pool->waiting, struct krb5_child_wait, link);
        if (p->ret != EOK) {
            DEBUG(SSSDBG_CRIT_FAILURE, "cannot start %s: %s\n", pool->cfg->child_path,
                  strerror(p->ret));
        }
        if (w == NULL) {
            if (p->ret == EOK && pool->nready < (unsigned int)pool->cfg->spares) {
                sss_list_link_tail(&pool->ready, &p->link);
                pool->nready++;
            } else {
                krb5_child_proc_drop(pool, p);
            }
            continue;
        }
        sss_list_unlink(&w->link);
        pool->nwaiting--;
        w->pool = NULL;
        if (p->ret != EOK) {
            w->fn(w->pvt, p->ret, -1, -1, -1);
            krb5_child_proc_drop(pool, p);
            continue;
        }
        /* The request owns the pid and the pipes from here on. */
        w->fn(w->pvt, EOK, p->pid, p->in_fd, p->out_fd);
        free(p);
    }
    (void)krb5_child_pool_ask(pool);
}

static int krb5_child_wait_destructor(struct krb5_child_wait *w)
{
    if (w->pool != NULL) {
        sss_list_unlink(&w->link);
        w->pool->nwaiting--;
    }
    return 0;
}

static int krb5_child_pool_destructor(struct krb5_child_pool *pool)
{
    struct krb5_child_proc *p;
    struct krb5_child_proc *tmp;
    struct krb5_child_wait *w;
    struct krb5_child_wait *wtmp;

    if (pool->started) {
        pthread_mutex_lock(&pool->lock);
        pool->stop = true;
        pthread_cond_signal(&pool->cond);
        pthread_mutex_unlock(&pool->lock);
        pthread_join(pool->thread, NULL);
    }
    sss_list_splice_tail(&pool->ready, &pool->done);
    sss_list_splice_tail(&pool->ready, &pool->todo);
    sss_list_for_each_entry_safe(p, tmp, &pool->ready, link) {
        sss_list_unlink(&p->link);
        krb5_child_proc_drop(pool, p);
    }
    sss_list_for_each_entry_safe(w, wtmp, &pool->waiting, link) {
        sss_list_unlink(&w->link);
        w->pool = NULL;
    }
    talloc_zfree(pool->fde);
    if (pool->efd >= 0) {
        close(pool->efd);
    }
    for (int i = 0; i < 5; i++) {
        if (i != 1) {
            free(pool->argv[i]);
        }
    }
    for (int i = 0; i < 3; i++) {
        free(pool->envp[i]);
    }
    free(pool->confs);
    pthread_cond_destroy(&pool->cond);
    pthread_mutex_destroy(&pool->lock);
    pool->cfg->pool = NULL;
    return 0;
}

static errno_t krb5_child_pool_create(struct krb5_child_cfg *cfg, struct tevent_context *ev)
{
    struct krb5_child_pool *pool;
    const char *sys_conf = getenv("KRB5_CONFIG");
    int n;

    pool = talloc_zero(cfg, struct krb5_child_pool);
    if (pool == NULL) {
        return ENOMEM;
    }
    pool->cfg = cfg;
    pool->ev = ev;
    pool->efd = -1;
    sss_list_init(&pool->todo);
    sss_list_init(&pool->done);
    sss_list_init(&pool->ready);
    sss_list_init(&pool->waiting);
    pthread_mutex_init(&pool->lock, NULL);
    pthread_cond_init(&pool->cond, NULL);
    talloc_set_destructor(pool, krb5_child_pool_destructor);
    cfg->pool = pool;

    if (sys_conf == NULL || sys_conf[0] == '\0') {
        sys_conf = "/etc/krb5.conf";
    }
    /* The child's environment: our KDC list, then the system's; nothing of ours. */
    pool->argv[0] = strdup(cfg->child_path);
    pool->argv[2] = strdup("--logger=files");
    pool->argv[3] = getenv("SSS_KRB5_CHILD_STDERR") != NULL ? strdup("--logger=stderr") : NULL;
    /* The AD provider may have put our KDC list in KRB5_CONFIG already (ad_servers.c). */
    n = cfg->conf_path != NULL && strstr(sys_conf, cfg->conf_path) == NULL
        ? asprintf(&pool->envp[0], "KRB5_CONFIG=%s:%s", cfg->conf_path, sys_conf)
        : asprintf(&pool->envp[0], "KRB5_CONFIG=%s", sys_conf);
    if (n < 0) {
        pool->envp[0] = NULL;
    }
    pool->confs = pool->envp[0] != NULL ? strdup(pool->envp[0] + strlen("KRB5_CONFIG=")) : NULL;
    pool->envp[1] = strdup("PATH=/usr/sbin:/usr/bin:/sbin:/bin");
    pool->efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    if (pool->argv[0] == NULL || pool->argv[2] == NULL || pool->envp[0] == NULL
            || pool->envp[1] == NULL || pool->confs == NULL
            || (getenv("SSS_KRB5_CHILD_STDERR") != NULL && pool->argv[3] == NULL)) {
        talloc_free(pool);
        return ENOMEM;
    }
    if (pool->efd < 0) {
        talloc_free(pool);
        return EIO;
    }
    pool->fde = tevent_add_fd(ev, pool, pool->efd, TEVENT_FD_READ, krb5_child_pool_fd, pool);
    if (pool->fde == NULL) {
        talloc_free(pool);
        return ENOMEM;
    }
    return EOK;
}

/* A krb5.conf the spare read was changed since it was started. */
static bool krb5_child_conf_changed(struct krb5_child_pool *pool,
                                    const struct timespec *started)
{
    char path[PATH_MAX];
    const char *c = pool->confs;
    const char *end;
    struct stat st;
    size_t len;

    while (c != NULL && *c != '\0') {
        end = strchr(c, ':');
        len = end != NULL ? (size_t)(end - c) : strlen(c);
        if (len > 0 && len < sizeof(path)) {
            memcpy(path, c, len);
            path[len] = '\0';
            if (stat(path, &st) == 0
                    && (st.st_mtim.tv_sec > started->tv_sec
                        || (st.st_mtim.tv_sec == started->tv_sec
                            && st.st_mtim.tv_nsec >= started->tv_nsec))) {
                return true;
            }
        }
        c = end != NULL ? end + 1 : NULL;
    }
    return false;
}

errno_t krb5_child_pool_take(TALLOC_CTX *mem_ctx, struct tevent_context *ev,
                             struct krb5_child_cfg *cfg, krb5_child_take_fn fn, void *pvt,
                             struct krb5_child_wait **_wait)
{
    struct krb5_child_pool *pool;
    struct krb5_child_proc *p;
    struct krb5_child_wait *w;
    int status;
    errno_t ret;

    SSS_CHECK_ARG(ev != NULL && cfg != NULL && fn != NULL && _wait != NULL, EINVAL);
    if (cfg->pool == NULL) {
        ret = krb5_child_pool_create(cfg, ev);
        if (ret != EOK) {
            return ret;
        }
    }
    pool = cfg->pool;
    assert(pool->ev == ev);
    pool->failing = false;
    while (!sss_list_is_empty(&pool->ready)) {
        p = sss_list_first_entry(&pool->ready, struct krb5_child_proc, link);
        sss_list_unlink(&p->link);
        pool->nready--;
        if (p->level != debug_level || waitpid(p->pid, &status, WNOHANG) != 0
                || krb5_child_conf_changed(pool, &p->started)) {
            DEBUG(SSSDBG_TRACE_FUNC, "spare krb5_child %d is gone or stale: dropped\n",
                  (int)p->pid);
            krb5_child_proc_drop(pool, p);
            continue;
        }
        *_wait = NULL;
        (void)krb5_child_pool_ask(pool);    /* its replacement */
        fn(pvt, EOK, p->pid, p->in_fd, p->out_fd);
        free(p);
        return EOK;
    }
    w = talloc_zero(mem_ctx, struct krb5_child_wait);
    if (w == NULL) {
        return ENOMEM;
    }
    w->fn = fn;
    w->pvt = pvt;
    w->pool = pool;
    sss_list_link_tail(&pool->waiting, &w->link);
    pool->nwaiting++;
    talloc_set_destructor(w, krb5_child_wait_destructor);
    ret = krb5_child_pool_ask(pool);
    if (ret != EOK) {
        talloc_free(w);
        return ret;
    }
    *_wait = w;
    return EOK;
}

errno_t krb5_child_pool_prestart(struct krb5_child_cfg *cfg, struct tevent_context *ev)
{
    errno_t ret;

    SSS_CHECK_ARG(ev != NULL && cfg != NULL, EINVAL);
    if (cfg->spares <= 0) {
        return EOK;
    }
    if (cfg->pool == NULL) {
        ret = krb5_child_pool_create(cfg, ev);
        if (ret != EOK) {
            return ret;
        }
    }
    return krb5_child_pool_ask(cfg->pool);
}
