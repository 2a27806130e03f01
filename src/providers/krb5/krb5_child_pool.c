/*
 * Where krb5_child processes come from (krb5_child_client.h): a spawner thread, and spares.
 *
 * Starting a child from the event loop with fork() copied sssd_be's page tables each time
 * (dup_mmap: 0.5-1 ms of the loop's CPU per login; 20 logins at once stalled lookups for
 * 20 ms and more), and posix_spawn's vfork would hold the loop until the child exec'd.
 * So the children are started with sss_spawn_send (sss_offloop.h: posix_spawn, CLONE_VM:
 * no copy, from the pool's one worker thread, which alone waits for the exec), and come
 * back to the loop as requests completing in the order they were asked.
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
 * The command line is built once; the debug level is put in when a child is asked for.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "providers/krb5/krb5_child_client.h"
#include "util/sss_list.h"
#include "util/sss_offloop.h"

/* A started child: its pid, our ends of its stdin and stdout. */
struct krb5_child_proc {
    struct sss_list link;
    pid_t pid;
    int in_fd;
    int out_fd;
    int level;                  /* the debug level it was started with */
    struct timespec started;    /* when (to tell a krb5.conf edited since) */
};

/* One child asked of the worker thread (on its spawn request). */
struct krb5_child_start {
    struct krb5_child_pool *pool;
    int level;
    struct timespec started;
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
    struct sss_offloop *spawner;    /* one thread: children start in the order asked */
    char *argv[5];              /* argv[1] is set per child */
    char *envp[3];
    char *confs;                /* KRB5_CONFIG's files, ':'-separated (malloc'd) */
    unsigned int asked;         /* spawn requests under way */
    struct sss_list ready;      /* spares */
    unsigned int nready;
    struct sss_list waiting;    /* requests waiting for a child */
    unsigned int nwaiting;
    bool failing;               /* the last start failed: no spare until the next take */
};

/* Drops a child nobody will use: killed, its pipes closed, reaped without waiting. */
static void krb5_child_proc_drop(struct krb5_child_pool *pool, struct krb5_child_proc *p)
{
    if (p->pid > 0) {
        sss_child_reap(pool->cfg, pool->ev, p->pid, true);
    }
    if (p->in_fd >= 0) {
        close(p->in_fd);
    }
    if (p->out_fd >= 0) {
        close(p->out_fd);
    }
    free(p);
}

static void krb5_child_pool_started(struct tevent_req *subreq);

static errno_t krb5_child_pool_ask(struct krb5_child_pool *pool)
{
    unsigned int spares = pool->failing ? 0 : (unsigned int)pool->cfg->spares;
    unsigned int have = pool->nready + pool->asked;
    unsigned int need = pool->nwaiting + spares;
    struct krb5_child_start *start;
    struct tevent_req *subreq;
    char level[32];

    for (; have < need; have++) {
        (void)snprintf(level, sizeof(level), "--debug-level=%#x", debug_level);
        pool->argv[1] = level;      /* copied by sss_spawn_send */
        subreq = sss_spawn_send(pool, pool->ev, pool->spawner, pool->argv[0],
                                (const char * const *)pool->argv,
                                (const char * const *)pool->envp,
                                SSS_SPAWN_STDIN | SSS_SPAWN_STDOUT);
        pool->argv[1] = NULL;
        if (subreq == NULL) {
            return ENOMEM;
        }
        start = talloc_zero(subreq, struct krb5_child_start);
        if (start == NULL) {
            talloc_free(subreq);
            return ENOMEM;
        }
        start->pool = pool;
        start->level = debug_level;
        /* The coarse clock, as file times are stamped: a krb5.conf written a moment
         * after this (within one clock tick) gets an mtime that a fine CLOCK_REALTIME
         * reading here could be later than, and the spare, which may have read the old
         * file, would pass for fresh. */
        (void)clock_gettime(CLOCK_REALTIME_COARSE, &start->started);
        tevent_req_set_callback(subreq, krb5_child_pool_started, start);
        pool->asked++;
    }
    return EOK;
}

/* On the loop: a child the thread started goes to the first waiting request, else
 * becomes a spare. */
static void krb5_child_pool_started(struct tevent_req *subreq)
{
    struct krb5_child_start *start = tevent_req_callback_data(subreq,
                                                              struct krb5_child_start);
    struct krb5_child_pool *pool = start->pool;
    struct krb5_child_proc *p;
    struct krb5_child_wait *w;
    errno_t ret;

    pool->asked--;
    p = calloc(1, sizeof(*p));
    if (p == NULL) {
        ret = ENOMEM;
        talloc_free(subreq);        /* kills and reaps the child */
    } else {
        p->pid = -1;
        p->in_fd = p->out_fd = -1;
        p->level = start->level;
        p->started = start->started;
        ret = sss_spawn_recv(subreq, &p->pid, &p->in_fd, &p->out_fd);
        talloc_free(subreq);
    }
    pool->failing = ret != EOK;
    if (ret != EOK) {
        DEBUG(SSSDBG_CRIT_FAILURE, "cannot start %s: %s\n", pool->cfg->child_path,
              strerror(ret));
    }
    w = sss_list_is_empty(&pool->waiting) ? NULL
        : sss_list_first_entry(&pool->waiting, struct krb5_child_wait, link);
    if (w == NULL) {
        if (ret == EOK && pool->nready < (unsigned int)pool->cfg->spares) {
            sss_list_link_tail(&pool->ready, &p->link);
            pool->nready++;
        } else if (p != NULL) {
            krb5_child_proc_drop(pool, p);
        }
        (void)krb5_child_pool_ask(pool);
        return;
    }
    sss_list_unlink(&w->link);
    pool->nwaiting--;
    w->pool = NULL;
    if (ret != EOK) {
        if (p != NULL) {
            krb5_child_proc_drop(pool, p);
        }
        (void)krb5_child_pool_ask(pool);
        w->fn(w->pvt, ret, -1, -1, -1);
        return;
    }
    (void)krb5_child_pool_ask(pool);
    /* The request owns the pid and the pipes from here on. */
    w->fn(w->pvt, EOK, p->pid, p->in_fd, p->out_fd);
    free(p);
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

    /* The spawn requests under way (children of pool) kill their children when freed. */
    sss_list_for_each_entry_safe(p, tmp, &pool->ready, link) {
        sss_list_unlink(&p->link);
        krb5_child_proc_drop(pool, p);
    }
    sss_list_for_each_entry_safe(w, wtmp, &pool->waiting, link) {
        sss_list_unlink(&w->link);
        w->pool = NULL;
    }
    for (int i = 0; i < 5; i++) {
        free(pool->argv[i]);
    }
    for (int i = 0; i < 3; i++) {
        free(pool->envp[i]);
    }
    free(pool->confs);
    pool->cfg->pool = NULL;
    return 0;
}

static errno_t krb5_child_pool_create(struct krb5_child_cfg *cfg, struct tevent_context *ev)
{
    struct krb5_child_pool *pool;
    const char *sys_conf = getenv("KRB5_CONFIG");
    errno_t ret;
    int n;

    pool = talloc_zero(cfg, struct krb5_child_pool);
    if (pool == NULL) {
        return ENOMEM;
    }
    pool->cfg = cfg;
    pool->ev = ev;
    sss_list_init(&pool->ready);
    sss_list_init(&pool->waiting);
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
    if (pool->argv[0] == NULL || pool->argv[2] == NULL || pool->envp[0] == NULL
            || pool->envp[1] == NULL || pool->confs == NULL
            || (getenv("SSS_KRB5_CHILD_STDERR") != NULL && pool->argv[3] == NULL)) {
        talloc_free(pool);
        return ENOMEM;
    }
    ret = sss_offloop_create(pool, ev, 1, &pool->spawner);
    if (ret != EOK) {
        talloc_free(pool);
        return ret;
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
