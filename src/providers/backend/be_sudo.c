/*
 * be_sudo: the sudo provider of a back-end (see be_sudo.h): the refresh request shared by
 * the periodic tasks and the sudoHandler bus method, and the two timers.
 */
#include <assert.h>
#include <inttypes.h>
#include <stdlib.h>
#include <strings.h>
#include <sys/random.h>
#include <unistd.h>

#include "confdb/confdb.h"
#include "db/sysdb.h"
#include "db/sysdb_sudo.h"
#include "providers/backend/be_sudo.h"
#include "providers/ldap/sdap_sudo.h"
#include "sss_iface/sss_dp.h"
#include "util/sss_hash.h"
#include "util/probes.h"
#include "util/sss_list.h"

struct be_sudo {
    struct be_ctx *be;
    struct sdap_sudo_opts *opts;
    uint32_t timeout;               /* entry_cache_sudo_timeout */
    struct be_sudo_task *full;      /* the periodic refreshes */
    struct be_sudo_task *smart;
    struct be_sudo_stats stats;
};

/* ---- one refresh --------------------------------------------------------------------- */

struct be_sudo_refresh_state {
    struct tevent_context *ev;
    struct be_sudo *sudo;
    enum sdap_sudo_refresh kind;
    const char **names;             /* RULES: asked for */
    size_t num_names;
    struct sdap_sudo_result *res;
    const char **stale;             /* to remove, once computed */
    size_t num_stale;
    size_t idx;
    bool storing;
    uint64_t start_usec;
    uint64_t max_step_usec;         /* the longest stretch this refresh held the loop */
    struct tevent_timer *lag_timer; /* the loop-lag watch (below) */
    struct timeval lag_due;
    uint64_t max_lag_usec;
    time_t now;
    uint64_t rid;                   /* for the done probe, fired from _recv */
};

static void be_sudo_refresh_searched(struct tevent_req *subreq);
static void be_sudo_refresh_step(struct tevent_req *subreq);

static bool be_sudo_name_eq(const void *item, const void *key, void *ctx)
{
    (void)ctx;
    return strcasecmp(item, key) == 0;
}

static uint64_t be_sudo_name_hash(const char *s)
{
    uint64_t h = sss_hash_bytes(NULL, 0);
    char c;

    for (; *s != '\0'; s++) {
        c = (*s >= 'A' && *s <= 'Z') ? (char)(*s + 32) : *s;
        h = sss_hash_add(h, &c, 1);
    }
    return h;
}

static const char *be_sudo_kind_str(enum sdap_sudo_refresh kind)
{
    return kind == SDAP_SUDO_FULL ? "full" : kind == SDAP_SUDO_SMART ? "smart" : "rules";
}

/* While a refresh runs, a timer every BE_SUDO_LAG_MS measures how late the loop serves it:
 * the worst lateness is the longest the loop was held by anything (this refresh's steps,
 * libldap's reading of its pages, other requests), logged with the refresh. */
#define BE_SUDO_LAG_MS 5

static void be_sudo_lag_tick(struct tevent_context *ev, struct tevent_timer *te,
                             struct timeval now, void *pvt)
{
    struct be_sudo_refresh_state *state = pvt;
    struct timeval t = tevent_timeval_current();
    int64_t late = (int64_t)(t.tv_sec - state->lag_due.tv_sec) * 1000000
                   + (t.tv_usec - state->lag_due.tv_usec);

    if (late > 0 && (uint64_t)late > state->max_lag_usec) {
        state->max_lag_usec = (uint64_t)late;
    }
    state->lag_due = tevent_timeval_current_ofs(0, BE_SUDO_LAG_MS * 1000);
    state->lag_timer = tevent_add_timer(ev, state, state->lag_due, be_sudo_lag_tick, state);
}

static struct tevent_req *be_sudo_refresh_send(TALLOC_CTX *mem_ctx, struct tevent_context *ev,
                                               struct be_sudo *sudo,
                                               enum sdap_sudo_refresh kind,
                                               const char **names)
{
    struct be_sudo_refresh_state *state;
    struct sysdb_sudo_meta meta = { 0 };
    struct tevent_req *req;
    struct tevent_req *subreq;
    char *filter = NULL;
    errno_t ret;

    req = tevent_req_create(mem_ctx, &state, struct be_sudo_refresh_state);
    if (req == NULL) {
        return NULL;
    }
    state->ev = ev;
    state->sudo = sudo;
    state->kind = kind;
    state->start_usec = sss_monotonic_usec();
    state->now = time(NULL);
    state->rid = sss_probe_req_id();
    PROBE(SUDO_REFRESH_START, state->rid, sudo->be->domain, be_sudo_kind_str(kind));
    if (kind == SDAP_SUDO_RULES) {
        for (; names != NULL && names[state->num_names] != NULL; state->num_names++) {
        }
        if (state->num_names == 0) {
            return sss_req_post(req, ev, EOK);      /* nothing asked, nothing to do */
        }
        state->names = names;
    }
    if (kind == SDAP_SUDO_SMART) {
        ret = sysdb_sudo_get_meta(state, sudo->be->sysdb, &meta);
        if (ret != EOK) {
            return sss_req_post(req, ev, ret);
        }
    }
    ret = sdap_sudo_filter(state, sudo->opts, kind, meta.max_usn, meta.max_modts, names,
                           state->num_names, &filter);
    if (ret != EOK) {
        return sss_req_post(req, ev, ret);
    }
    DEBUG(SSSDBG_TRACE_FUNC, "%s refresh of the sudo rules of %s: %s\n",
          be_sudo_kind_str(kind), sudo->be->domain, filter);
    subreq = sdap_sudo_search_send(state, ev, sudo->be->id_ctx, sudo->opts, filter);
    if (subreq == NULL) {
        return sss_req_post(req, ev, ENOMEM);
    }
    tevent_req_set_callback(subreq, be_sudo_refresh_searched, req);
    state->lag_due = tevent_timeval_current_ofs(0, BE_SUDO_LAG_MS * 1000);
    state->lag_timer = tevent_add_timer(ev, state, state->lag_due, be_sudo_lag_tick, state);
    return req;
}

static void be_sudo_refresh_next(struct tevent_req *req)
{
    struct be_sudo_refresh_state *state = tevent_req_data(req, struct be_sudo_refresh_state);
    struct tevent_req *subreq;

    subreq = be_yield_send(state, state->ev);
    if (subreq == NULL) {
        tevent_req_error(req, ENOMEM);
        return;
    }
    tevent_req_set_callback(subreq, be_sudo_refresh_step, req);
}

static void be_sudo_note_step(struct be_sudo_refresh_state *state, uint64_t start)
{
    uint64_t d = sss_monotonic_usec() - start;

    if (d > state->max_step_usec) {
        state->max_step_usec = d;
    }
    be_step_done(state->sudo->be, start);
}

static void be_sudo_refresh_searched(struct tevent_req *subreq)
{
    struct tevent_req *req = tevent_req_callback_data(subreq, struct tevent_req);
    struct be_sudo_refresh_state *state = tevent_req_data(req, struct be_sudo_refresh_state);
    errno_t ret;

    uint64_t start = sss_monotonic_usec();

    ret = sdap_sudo_search_recv(state, subreq, &state->res);
    talloc_free(subreq);
    if (ret != EOK) {
        DEBUG(SSSDBG_OP_FAILURE, "%s refresh of the sudo rules of %s failed: %s\n",
              be_sudo_kind_str(state->kind), state->sudo->be->domain, sss_strerror(ret));
        tevent_req_error(req, ret);
        return;
    }
    state->sudo->stats.skipped_entries += state->res->skipped;
    if (state->res->skipped > 0) {
        DEBUG(SSSDBG_MINOR_FAILURE, "%zu malformed sudoRole entries skipped\n",
              state->res->skipped);
    }
    state->storing = true;
    be_sudo_note_step(state, start);
    be_sudo_refresh_next(req);
}

/* The names to remove: cached rules the full answer lacks, or asked rules it lacks. */
static errno_t be_sudo_compute_stale(struct be_sudo_refresh_state *state)
{
    struct sss_hash_table *seen;
    const char **cand;
    size_t num_cand;
    size_t i;
    errno_t ret;

    if (state->kind == SDAP_SUDO_SMART) {
        state->num_stale = 0;
        state->stale = talloc_zero_array(state, const char *, 1);
        return state->stale == NULL ? ENOMEM : EOK;
    }
    seen = sss_hash_table_new(state, state->res->num_rules, be_sudo_name_eq, NULL);
    if (seen == NULL) {
        return ENOMEM;
    }
    for (i = 0; i < state->res->num_rules; i++) {
        ret = sss_hash_table_insert(seen, be_sudo_name_hash(state->res->rules[i]->name),
                                    state->res->rules[i]->name,
                                    discard_const(state->res->rules[i]->name), NULL);
        if (ret != EOK && ret != EEXIST) {
            return ret;
        }
    }
    if (state->kind == SDAP_SUDO_FULL) {
        ret = sysdb_sudo_names(state, state->sudo->be->sysdb, &cand, &num_cand);
        if (ret != EOK) {
            return ret;
        }
    } else {
        cand = state->names;
        num_cand = state->num_names;
    }
    state->stale = talloc_zero_array(state, const char *, num_cand + 1);
    if (state->stale == NULL) {
        return ENOMEM;
    }
    for (i = 0; i < num_cand; i++) {
        if (sss_hash_table_get(seen, be_sudo_name_hash(cand[i]), cand[i]) == NULL) {
            DEBUG(SSSDBG_TRACE_FUNC, "sudo rule %s is no longer in the directory: "
                  "removed\n", cand[i]);
            state->stale[state->num_stale++] = cand[i];
        }
    }
    talloc_free(seen);
    return EOK;
}

/* One slice: BE_SUDO_SLICE rules stored, or removed; then the bookkeeping. */
static void be_sudo_refresh_step(struct tevent_req *subreq)
{
    struct tevent_req *req = tevent_req_callback_data(subreq, struct tevent_req);
    struct be_sudo_refresh_state *state = tevent_req_data(req, struct be_sudo_refresh_state);
    struct be_ctx *be = state->sudo->be;
    uint64_t start;
    size_t n;
    errno_t ret;

    ret = be_yield_recv(subreq);
    talloc_free(subreq);
    if (ret != EOK) {
        tevent_req_error(req, ret);
        return;
    }
    start = sss_monotonic_usec();
    if (state->storing) {
        n = state->res->num_rules - state->idx;
        n = n > BE_SUDO_SLICE ? BE_SUDO_SLICE : n;
        ret = sysdb_sudo_store(be->sysdb, state->res->rules + state->idx, n, state->now,
                               state->sudo->timeout);
        state->idx += n;
        if (ret == EOK && state->idx == state->res->num_rules) {
            state->storing = false;
            state->idx = 0;
            ret = be_sudo_compute_stale(state);
        }
    } else if (state->idx < state->num_stale) {
        n = state->num_stale - state->idx;
        n = n > BE_SUDO_SLICE ? BE_SUDO_SLICE : n;
        ret = sysdb_sudo_delete(be->sysdb, state->stale + state->idx, n);
        state->idx += n;
    } else {
        ret = sysdb_sudo_set_meta(be->sysdb, state->kind == SDAP_SUDO_FULL ? state->now : 0,
                                  state->res->max_usn, state->res->max_modts);
        be_sudo_note_step(state, start);
        if (ret == EOK) {
            DEBUG(SSSDBG_TRACE_FUNC, "%s refresh of the sudo rules of %s: %zu rules stored, "
                  "%zu removed in %" PRIu64 " ms (longest step %" PRIu64 " us, loop held "
                  "at most %" PRIu64 " us)\n",
                  be_sudo_kind_str(state->kind), be->domain, state->res->num_rules,
                  state->num_stale, (sss_monotonic_usec() - state->start_usec) / 1000,
                  state->max_step_usec, state->max_lag_usec);
        }
        be_req_finish(req, ret);
        return;
    }
    be_sudo_note_step(state, start);
    if (ret != EOK) {
        DEBUG(SSSDBG_OP_FAILURE, "sudo rules of %s: cannot write the cache: %s\n",
              be->domain, sss_strerror(ret));
        tevent_req_error(req, ret);
        return;
    }
    be_sudo_refresh_next(req);
}

/* _removed (may be NULL): how many cached rules the refresh removed. */
static errno_t be_sudo_refresh_recv(struct tevent_req *req, size_t *_removed)
{
    struct be_sudo_refresh_state *state = tevent_req_data(req, struct be_sudo_refresh_state);
    enum tevent_req_state tstate = TEVENT_REQ_DONE;
    uint64_t err = 0;
    bool failed;

    /* Every refresh ends here once, whichever way it ended. */
    failed = tevent_req_is_error(req, &tstate, &err);
    PROBE(SUDO_REFRESH_DONE, state->rid, state->sudo->be->domain,
          be_sudo_kind_str(state->kind),
          !failed ? 0 : tstate == TEVENT_REQ_USER_ERROR ? (int)err : EIO,
          failed || state->res == NULL ? 0 : (unsigned int)state->res->num_rules,
          failed ? 0 : (unsigned int)state->num_stale);
    TEVENT_REQ_RETURN_ON_ERROR(req);
    if (_removed != NULL) {
        *_removed = state->num_stale;
    }
    return EOK;
}

/* ---- the periodic tasks -------------------------------------------------------------- */

struct be_sudo_task {
    struct be_sudo *sudo;
    bool full;
    int interval;                   /* s; 0: off (a full refresh still runs at start-up) */
    struct tevent_timer *timer;
    struct tevent_req *running;
    uint64_t req_id;                /* of the refresh in flight: an internal request */
    struct sss_list waiters;        /* sudoHandler FULL requests joined to `running` */
};

static void be_sudo_wake_waiters(struct be_sudo_task *task, errno_t ret);

static void be_sudo_fire(struct tevent_context *ev, struct tevent_timer *te,
                         struct timeval now, void *pvt);
static void be_sudo_task_done(struct tevent_req *subreq);

/* A draw in [0, max] for the random offset. From the kernel, not random(): nothing seeds
 * random() in sssd_be, so every host would draw the same sequence and hosts started
 * together would refresh together, which is what the offset is there to prevent. */
static int be_sudo_draw(int max)
{
    uint32_t v;

    if (getrandom(&v, sizeof(v), GRND_NONBLOCK) != sizeof(v)) {
        v = (uint32_t)time(NULL) ^ ((uint32_t)getpid() << 16);
    }
    return (int)(v % ((uint32_t)max + 1));
}

/* The timer of the next refresh belongs to no request. */
static void be_sudo_schedule(struct be_sudo_task *task, int seconds)
{
    struct be_sudo *sudo = task->sudo;
    int extra = 0;
    SSS_REQ_ID_SCOPE(0);

    talloc_zfree(task->timer);
    if (sudo->opts->random_offset > 0) {
        /* Each run is put off by its own draw, so that hosts started together spread
         * their refreshes (and do not all hit the server in the same second). */
        extra = be_sudo_draw(sudo->opts->random_offset);
    }
    DEBUG(SSSDBG_TRACE_FUNC, "Next %s sudo refresh of %s in %d s (%d + random offset %d "
          "of at most %d)\n", task->full ? "full" : "smart", sudo->be->domain,
          seconds + extra, seconds, extra, sudo->opts->random_offset);
    seconds += extra;
    task->timer = tevent_add_timer(sudo->be->ev, task, tevent_timeval_current_ofs(seconds, 0),
                                   be_sudo_fire, task);
    if (task->timer == NULL) {
        DEBUG(SSSDBG_CRIT_FAILURE, "Cannot schedule the sudo refresh of %s\n",
              sudo->be->domain);
    }
}

/* The next run one interval from now; none without an interval (a run due, the one at
 * start-up, is dropped: the refresh that just ended stands for it). */
static void be_sudo_reschedule(struct be_sudo_task *task)
{
    if (task->interval > 0) {
        be_sudo_schedule(task, task->interval);
    } else {
        talloc_zfree(task->timer);
    }
}

/* Starts the task's refresh now (the caller checked that none runs). The request is an
 * internal one with its own id, whoever asked for it. false: it could not start. */
static bool be_sudo_task_run(struct be_sudo_task *task)
{
    struct be_sudo *sudo = task->sudo;

    assert(task->running == NULL);
    task->req_id = sss_new_req_id();
    SSS_REQ_ID_SCOPE(task->req_id);
    task->running = be_sudo_refresh_send(task, sudo->be->ev, sudo,
                                         task->full ? SDAP_SUDO_FULL : SDAP_SUDO_SMART, NULL);
    if (task->running == NULL) {
        return false;
    }
    tevent_req_set_callback(task->running, be_sudo_task_done, task);
    return true;
}

static void be_sudo_fire(struct tevent_context *ev, struct tevent_timer *te,
                         struct timeval now, void *pvt)
{
    struct be_sudo_task *task = talloc_get_type(pvt, struct be_sudo_task);
    struct be_sudo *sudo = task->sudo;
    struct sysdb_sudo_meta meta;
    errno_t ret;

    task->timer = NULL;
    if (be_is_offline(sudo->be) || task->running != NULL
            || (!task->full && sudo->full->running != NULL)) {
        DEBUG(SSSDBG_TRACE_FUNC, "%s sudo refresh of %s skipped (%s)\n",
              task->full ? "Full" : "Smart", sudo->be->domain,
              be_is_offline(sudo->be) ? "offline" : "a refresh is running");
        be_sudo_reschedule(task);
        return;
    }
    if (!task->full) {
        ret = sysdb_sudo_get_meta(task, sudo->be->sysdb, &meta);
        if (ret == EOK) {
            talloc_free(discard_const(meta.max_usn));
            talloc_free(discard_const(meta.max_modts));
        }
        if (ret != EOK || meta.last_full == 0) {
            be_sudo_reschedule(task);
            return;     /* nothing to be smart about before a full refresh */
        }
    }
    if (!be_sudo_task_run(task)) {
        be_sudo_reschedule(task);
    }
}

static void be_sudo_task_done(struct tevent_req *subreq)
{
    struct be_sudo_task *task = tevent_req_callback_data(subreq, struct be_sudo_task);
    struct be_sudo *sudo = task->sudo;
    struct be_sudo_refresh_state *state = tevent_req_data(subreq,
                                                          struct be_sudo_refresh_state);
    uint64_t took = sss_monotonic_usec() - state->start_usec;
    errno_t ret;
    SSS_REQ_ID_SCOPE(task->req_id);

    ret = be_sudo_refresh_recv(subreq, NULL);
    talloc_free(subreq);
    task->running = NULL;
    be_sudo_wake_waiters(task, ret);
    if (ret == EOK && task->full) {
        sudo->stats.full++;
        sudo->stats.last_full_usec = took;
    } else if (ret == EOK) {
        sudo->stats.smart++;
    } else {
        sudo->stats.failed++;
        if (ret == ENETUNREACH) {
            be_go_offline(sudo->be, "the sudo refresh found no LDAP server");
        }
    }
    be_sudo_reschedule(task);
}

static struct be_sudo_task *be_sudo_task_new(struct be_sudo *sudo, bool full, int interval)
{
    struct be_sudo_task *task = talloc_zero(sudo, struct be_sudo_task);

    if (task != NULL) {
        task->sudo = sudo;
        task->full = full;
        task->interval = interval;
        sss_list_init(&task->waiters);
    }
    return task;
}

/* ---- set-up -------------------------------------------------------------------------- */

static errno_t be_sudo_applies(struct be_ctx *be, bool *_applies)
{
    TALLOC_CTX *tmp_ctx = talloc_new(NULL);
    char **services;
    char *provider = NULL;
    bool listed = false;
    size_t i;
    errno_t ret;

    if (tmp_ctx == NULL) {
        return ENOMEM;
    }
    ret = confdb_get_services(be->cdb, tmp_ctx, &services);
    for (i = 0; ret == EOK && services[i] != NULL; i++) {
        listed = listed || strcmp(services[i], "sudo") == 0;
    }
    if (ret == EOK) {
        ret = confdb_get_string(be->cdb, tmp_ctx, be->section, "sudo_provider", &provider);
    }
    if (ret == EOK) {
        *_applies = listed && provider != NULL && strcmp(provider, "ldap") == 0
                    && be->id_ctx != NULL;
        if (listed && !*_applies) {
            DEBUG(SSSDBG_CONF_SETTINGS, "sudo is a service, but domain %s has sudo_provider "
                  "%s%s: no sudo rules from it\n", be->domain, provider ? provider : "none",
                  be->id_ctx == NULL ? " without the LDAP id provider" : "");
        }
    }
    talloc_free(tmp_ctx);
    return ret;
}

errno_t be_sudo_init(struct be_ctx *be)
{
    struct be_sudo *sudo;
    bool applies = false;
    int timeout;
    errno_t ret;

    SSS_CHECK_ARG(be != NULL, EINVAL);
    ret = be_sudo_applies(be, &applies);
    if (ret != EOK || !applies) {
        return ret;
    }
    sudo = talloc_zero(be, struct be_sudo);
    if (sudo == NULL) {
        return ENOMEM;
    }
    sudo->be = be;
    ret = sdap_sudo_opts_read(sudo, be->cdb, be->domain, &sudo->opts);
    if (ret == EOK) {
        ret = confdb_get_int(be->cdb, be->section, "entry_cache_sudo_timeout", &timeout);
    }
    if (ret != EOK) {
        talloc_free(sudo);
        return ret;
    }
    sudo->timeout = timeout > 0 ? (uint32_t)timeout : 0;
    be->sudo = sudo;
    return EOK;
}

errno_t be_sudo_start(struct be_ctx *be)
{
    SSS_CHECK_ARG(be != NULL, EINVAL);
    if (be->sudo == NULL || be->sudo->full != NULL) {
        return EOK;
    }
    be->sudo->full = be_sudo_task_new(be->sudo, true, be->sudo->opts->full_interval);
    be->sudo->smart = be_sudo_task_new(be->sudo, false, be->sudo->opts->smart_interval);
    if (be->sudo->full == NULL || be->sudo->smart == NULL) {
        return ENOMEM;
    }
    /* The first full refresh now (plus the random offset), whatever the interval. */
    be_sudo_schedule(be->sudo->full, 0);
    be_sudo_reschedule(be->sudo->smart);
    return EOK;
}

void be_sudo_get_stats(struct be_ctx *be, struct be_sudo_stats *_stats)
{
    static const struct be_sudo_stats none;

    *_stats = be != NULL && be->sudo != NULL ? be->sudo->stats : none;
}

/* ---- on request ---------------------------------------------------------------------- */

struct be_sudo_handler_state {
    struct be_sudo *sudo;
    uint32_t type;
    uint16_t dp_error;
    uint32_t error;
    const char *message;
    struct tevent_req *req;
    struct sss_list link;           /* in the full task's waiters while joined */
};

static int be_sudo_handler_state_destroy(struct be_sudo_handler_state *state)
{
    sss_list_unlink(&state->link);
    return 0;
}

static void be_sudo_handler_finish(struct be_sudo_handler_state *state, errno_t ret)
{
    state->dp_error = be_dp_error_of(ret);
    state->error = ret;
    state->message = ret == EOK ? "Success" : sss_strerror(ret);
    tevent_req_done(state->req);
}

/* The periodic full refresh ended: the requests that joined it get its result. Each is
 * unlinked before it completes, and the head is read again every time, so a callback that
 * frees another waiter does no harm. */
static void be_sudo_wake_waiters(struct be_sudo_task *task, errno_t ret)
{
    struct be_sudo_handler_state *w;

    while (!sss_list_is_empty(&task->waiters)) {
        w = sss_list_first_entry(&task->waiters, struct be_sudo_handler_state, link);
        sss_list_unlink(&w->link);
        be_sudo_handler_finish(w, ret);
    }
}

static void be_sudo_handler_done(struct tevent_req *subreq);

struct tevent_req *be_sudo_handler_send(TALLOC_CTX *mem_ctx, struct tevent_context *ev,
                                        struct be_ctx *be, uint32_t type,
                                        const char **names, uint64_t req_id)
{
    struct be_sudo_handler_state *state;
    struct tevent_req *req;
    struct tevent_req *subreq;
    SSS_REQ_ID_SCOPE(req_id);

    req = tevent_req_create(mem_ctx, &state, struct be_sudo_handler_state);
    if (req == NULL) {
        return NULL;
    }
    SSS_CHECK_ARG(be != NULL, sss_req_post(req, ev, EINVAL));
    state->sudo = be->sudo;
    state->type = type;
    state->req = req;
    talloc_set_destructor(state, be_sudo_handler_state_destroy);
    if (be->sudo == NULL || (type != SSS_DP_SUDO_FULL && type != SSS_DP_SUDO_RULES)) {
        state->dp_error = SSS_DP_ERR_FATAL;
        state->error = be->sudo == NULL ? ENOTSUP : EINVAL;
        state->message = be->sudo == NULL ? "sudo is not served by this domain"
                                          : "unknown sudo request type";
        return sss_req_post(req, ev, EOK);
    }
    if (be_is_offline(be)) {
        be_offline_request_seen(be);
        state->dp_error = SSS_DP_ERR_OFFLINE;
        state->error = ENETUNREACH;
        state->message = "offline";
        return sss_req_post(req, ev, EOK);
    }
    if (type == SSS_DP_SUDO_FULL && be->sudo->full != NULL
            && (be->sudo->full->running != NULL || be_sudo_task_run(be->sudo->full))) {
        /* Every full refresh is the full task's, so that two never run at once: the one
         * under way (the one at start-up, typically) or the one started now answers this
         * request, and the periodic one is rescheduled from its end. */
        sss_list_link_tail(&be->sudo->full->waiters, &state->link);
        return req;
    }
    subreq = be_sudo_refresh_send(state, ev, be->sudo,
                                  type == SSS_DP_SUDO_FULL ? SDAP_SUDO_FULL : SDAP_SUDO_RULES,
                                  names);
    if (subreq == NULL) {
        return sss_req_post(req, ev, ENOMEM);
    }
    tevent_req_set_callback(subreq, be_sudo_handler_done, req);
    return req;
}

/* A rules refresh found rules deleted in the directory. Others deleted with them are
 * still cached (a smart refresh never sees deletions), so, as SSSD does when its rules
 * refresh answers ENOENT, a full refresh follows at once without anyone waiting for it:
 * one only, the full task's (none when one is already under way). */
static void be_sudo_full_after_deletion(struct be_sudo *sudo, size_t removed)
{
    if (sudo->full == NULL || sudo->full->running != NULL) {
        DEBUG(SSSDBG_TRACE_FUNC, "%zu sudo rules deleted in the directory; a full refresh "
              "is already under way\n", removed);
        return;
    }
    DEBUG(SSSDBG_TRACE_FUNC, "%zu sudo rules deleted in the directory: a full refresh "
          "now, out of band\n", removed);
    if (!be_sudo_task_run(sudo->full)) {
        DEBUG(SSSDBG_OP_FAILURE, "Cannot start the sudo full refresh of %s\n",
              sudo->be->domain);
    }
}

static void be_sudo_handler_done(struct tevent_req *subreq)
{
    struct tevent_req *req = tevent_req_callback_data(subreq, struct tevent_req);
    struct be_sudo_handler_state *state = tevent_req_data(req, struct be_sudo_handler_state);
    size_t removed = 0;
    errno_t ret;

    ret = be_sudo_refresh_recv(subreq, &removed);
    talloc_free(subreq);
    if (ret == EOK) {
        if (state->type == SSS_DP_SUDO_FULL) {
            state->sudo->stats.full++;
        } else {
            state->sudo->stats.rules++;
        }
        if (removed > 0) {
            be_sudo_full_after_deletion(state->sudo, removed);
        }
    } else {
        state->sudo->stats.failed++;
        if (ret == ENETUNREACH) {
            be_go_offline(state->sudo->be, "the sudo refresh found no LDAP server");
        }
    }
    be_sudo_handler_finish(state, ret);
}

errno_t be_sudo_handler_recv(TALLOC_CTX *mem_ctx, struct tevent_req *req,
                             uint16_t *_dp_error, uint32_t *_error, const char **_message)
{
    struct be_sudo_handler_state *state = tevent_req_data(req, struct be_sudo_handler_state);

    TEVENT_REQ_RETURN_ON_ERROR(req);
    *_dp_error = state->dp_error;
    *_error = state->error;
    *_message = talloc_strdup(mem_ctx, state->message);
    return *_message == NULL ? ENOMEM : EOK;
}
