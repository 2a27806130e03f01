/*
 * Enumeration: every user and group of the directory, into the cache.
 *
 * A round (be_enum_send) fetches users then groups with sdap's paged enumerations, stores
 * them BE_ENUM_SLICE entries per transaction with a loop turn between slices (groups of more
 * than BE_BIG_GROUP members go through be_store_group_send, which slices their member
 * lists), then removes stale cached entries of the kind just enumerated: those whose
 * lastUpdate is older than the start of the round, i.e. that the round did not store and that
 * no lookup refreshed meanwhile. Only a complete, successful answer removes anything, and
 * then it removes what it does not hold, even when it holds nothing: the last user deleted
 * from the directory leaves the cache too (as with SSSD). A failed or partial answer (sdap's
 * EOVERFLOW: a size or administrative limit, a referral, a paged search cut short) fails the
 * round before its removal step, and the cache keeps what it had; a search base that does
 * not exist is an error too (ENOENT), not an empty directory.
 * Groups stored by enumeration carry the member lists a lookup by name gives (sdap flattens
 * nested groups down to ldap_group_nesting_level for both).
 *
 * The periodic task (enumerate = true) runs a round after registration and then one every
 * ldap_enumeration_refresh_timeout seconds after the end of the previous round. A round
 * due while the domain is offline is skipped. A round failing with ENETUNREACH takes the
 * domain offline. "*" requests run a round of one kind through be_account.c.
 */
#include <assert.h>

#include "providers/backend/be_ctx.h"
#include "providers/ldap/sdap.h"
#include "db/sysdb.h"

/* Member names stored per transaction at most (small groups batched together). */
#define BE_ENUM_SLICE_NAMES 5000

enum be_enum_phase {
    BE_ENUM_FETCH_USERS,
    BE_ENUM_STORE_USERS,
    BE_ENUM_PURGE_USERS,
    BE_ENUM_FETCH_GROUPS,
    BE_ENUM_STORE_GROUPS,
    BE_ENUM_PURGE_GROUPS,
    BE_ENUM_DONE,
};

struct be_enum_state {
    struct tevent_context *ev;
    struct be_ctx *be;
    int what;
    time_t start;
    enum be_enum_phase phase;
    struct sdap_user **users;
    size_t num_users;
    struct sdap_group **groups;
    size_t num_groups;
    size_t idx;
    char **stale;               /* names to remove, NULL until computed */
    size_t num_stale;
    size_t deleted;
};

static void be_enum_continue(struct tevent_req *req);
static void be_enum_fetched(struct tevent_req *subreq);
static void be_enum_step(struct tevent_req *subreq);
static void be_enum_big_group_done(struct tevent_req *subreq);

struct tevent_req *be_enum_send(TALLOC_CTX *mem_ctx, struct tevent_context *ev,
                                struct be_ctx *be, int what)
{
    struct be_enum_state *state;
    struct tevent_req *req;

    req = tevent_req_create(mem_ctx, &state, struct be_enum_state);
    if (req == NULL) {
        return NULL;
    }
    SSS_CHECK_ARG(be != NULL && be->id_ctx != NULL, sss_req_post(req, ev, EINVAL));
    SSS_CHECK_ARG((what & (BE_ENUM_USERS | BE_ENUM_GROUPS)) != 0, sss_req_post(req, ev, EINVAL));
    state->ev = ev;
    state->be = be;
    state->what = what;
    state->start = time(NULL);
    state->phase = (what & BE_ENUM_USERS) ? BE_ENUM_FETCH_USERS : BE_ENUM_FETCH_GROUPS;
    DEBUG(SSSDBG_TRACE_FUNC, "Enumerating the %s of %s\n",
          what == BE_ENUM_USERS ? "users" : what == BE_ENUM_GROUPS ? "groups"
          : "users and groups", be->domain);
    be_enum_continue(req);
    if (!tevent_req_is_in_progress(req)) {
        return tevent_req_post(req, ev);
    }
    return req;
}

/* Starts what the current phase needs: a fetch, or a loop turn before the next slice. */
static void be_enum_continue(struct tevent_req *req)
{
    struct be_enum_state *state = tevent_req_data(req, struct be_enum_state);
    struct tevent_req *subreq;

    if (state->phase == BE_ENUM_FETCH_GROUPS && !(state->what & BE_ENUM_GROUPS)) {
        state->phase = BE_ENUM_DONE;
    }
    switch (state->phase) {
    case BE_ENUM_FETCH_USERS:
        subreq = sdap_enumerate_users_send(state, state->ev, state->be->id_ctx);
        break;
    case BE_ENUM_FETCH_GROUPS:
        subreq = sdap_enumerate_groups_send(state, state->ev, state->be->id_ctx);
        break;
    case BE_ENUM_DONE:
        DEBUG(SSSDBG_TRACE_FUNC, "Enumeration of %s done: %zu users, %zu groups, "
              "%zu stale entries removed\n", state->be->domain, state->num_users,
              state->num_groups, state->deleted);
        tevent_req_done(req);
        return;
    default:
        subreq = be_yield_send(state, state->ev);
        if (subreq != NULL) {
            tevent_req_set_callback(subreq, be_enum_step, req);
            return;
        }
        break;
    }
    if (subreq == NULL) {
        tevent_req_error(req, ENOMEM);
        return;
    }
    tevent_req_set_callback(subreq, be_enum_fetched, req);
}

static void be_enum_fetched(struct tevent_req *subreq)
{
    struct tevent_req *req = tevent_req_callback_data(subreq, struct tevent_req);
    struct be_enum_state *state = tevent_req_data(req, struct be_enum_state);
    errno_t ret;

    if (state->phase == BE_ENUM_FETCH_USERS) {
        ret = sdap_enumerate_users_recv(state, subreq, &state->users, &state->num_users);
        state->phase = BE_ENUM_STORE_USERS;
    } else {
        ret = sdap_enumerate_groups_recv(state, subreq, &state->groups, &state->num_groups);
        state->phase = BE_ENUM_STORE_GROUPS;
    }
    talloc_free(subreq);
    if (ret != EOK) {
        DEBUG(SSSDBG_OP_FAILURE, "Enumeration of %s failed: %s\n", state->be->domain,
              sss_strerror(ret));
        tevent_req_error(req, ret);
        return;
    }
    state->idx = 0;
    be_enum_continue(req);
}

/* Up to BE_ENUM_SLICE users in one transaction. */
static errno_t be_enum_store_users(struct be_enum_state *state, bool *_finished)
{
    struct be_ctx *be = state->be;
    time_t now = time(NULL);
    size_t end = state->idx + BE_ENUM_SLICE;
    errno_t ret;

    end = end > state->num_users ? state->num_users : end;
    ret = sysdb_transaction_start(be->sysdb);
    if (ret != EOK) {
        return ret;
    }
    for (; state->idx < end; state->idx++) {
        ret = be_store_user(be, state->users[state->idx], now);
        if (ret == EINVAL) {
            ret = EOK;      /* refused: counted and logged, the others are stored */
        }
        if (ret != EOK) {
            goto done;
        }
    }
done:
    ret = sysdb_transaction_end(be->sysdb, ret);
    *_finished = state->idx == state->num_users;
    return ret;
}

/* Small groups, up to BE_ENUM_SLICE of them or BE_ENUM_SLICE_NAMES member names, in one
 * transaction; stops before a big group (stored on its own, sliced). */
static errno_t be_enum_store_groups(struct be_enum_state *state)
{
    struct be_ctx *be = state->be;
    time_t now = time(NULL);
    size_t count = 0;
    size_t names = 0;
    struct sdap_group *g;
    errno_t ret;

    ret = sysdb_transaction_start(be->sysdb);
    if (ret != EOK) {
        return ret;
    }
    while (state->idx < state->num_groups && count < BE_ENUM_SLICE
           && names < BE_ENUM_SLICE_NAMES) {
        g = state->groups[state->idx];
        if (be_group_is_big(g)) {
            break;
        }
        ret = be_store_group(be, g, true, now);
        if (ret == EINVAL) {
            ret = EOK;      /* refused: counted and logged, the others are stored */
        }
        if (ret != EOK) {
            goto done;
        }
        names += g->num_member_users + g->num_member_groups;
        count++;
        state->idx++;
    }
done:
    return sysdb_transaction_end(be->sysdb, ret);
}

/* First call: the stale names (a scan of the cache reading each entry's name and update
 * time only). Later calls: remove a slice. */
static errno_t be_enum_purge(struct be_enum_state *state, bool users, bool *_finished)
{
    struct be_ctx *be = state->be;
    size_t fetched = users ? state->num_users : state->num_groups;
    size_t end;
    errno_t ret;

    if (state->stale == NULL) {
        ret = sysdb_names_updated_before(state, be->sysdb, !users, state->start,
                                         &state->stale, &state->num_stale);
        if (ret != EOK) {
            return ret;
        }
        if (fetched == 0 && state->num_stale > 0) {
            DEBUG(SSSDBG_MINOR_FAILURE, "The directory holds no %s any more: removing the "
                  "%zu cached ones\n", users ? "users" : "groups", state->num_stale);
        }
        state->idx = 0;
        *_finished = state->num_stale == 0;
        return EOK;
    }
    end = state->idx + BE_ENUM_SLICE;
    end = end > state->num_stale ? state->num_stale : end;
    ret = sysdb_transaction_start(be->sysdb);
    if (ret != EOK) {
        return ret;
    }
    for (; state->idx < end; state->idx++) {
        ret = users ? sysdb_delete_user(be->sysdb, state->stale[state->idx])
                    : sysdb_delete_group(be->sysdb, state->stale[state->idx]);
        if (ret == ENOENT) {
            ret = EOK;      /* removed meanwhile */
            continue;
        }
        if (ret != EOK) {
            goto done;
        }
        state->deleted++;
        be->stats.enum_deleted++;
        DEBUG(SSSDBG_TRACE_FUNC, "%s %s is no longer in the directory: removed\n",
              users ? "user" : "group", state->stale[state->idx]);
    }
done:
    ret = sysdb_transaction_end(be->sysdb, ret);
    *_finished = state->idx == state->num_stale;
    return ret;
}

static void be_enum_step(struct tevent_req *subreq)
{
    struct tevent_req *req = tevent_req_callback_data(subreq, struct tevent_req);
    struct be_enum_state *state = tevent_req_data(req, struct be_enum_state);
    uint64_t start;
    bool finished = false;
    errno_t ret;

    ret = be_yield_recv(subreq);
    talloc_free(subreq);
    if (ret != EOK) {
        goto done;
    }
    start = sss_monotonic_usec();
    switch (state->phase) {
    case BE_ENUM_STORE_USERS:
        ret = be_enum_store_users(state, &finished);
        if (ret == EOK && finished) {
            state->phase = BE_ENUM_PURGE_USERS;
            talloc_zfree(state->stale);
        }
        break;
    case BE_ENUM_STORE_GROUPS:
        if (state->idx < state->num_groups && be_group_is_big(state->groups[state->idx])) {
            subreq = be_store_group_send(state, state->ev, state->be,
                                         state->groups[state->idx]);
            if (subreq == NULL) {
                ret = ENOMEM;
                goto done;
            }
            tevent_req_set_callback(subreq, be_enum_big_group_done, req);
            return;
        }
        ret = be_enum_store_groups(state);
        if (ret == EOK && state->idx == state->num_groups) {
            state->phase = BE_ENUM_PURGE_GROUPS;
            talloc_zfree(state->stale);
        }
        break;
    case BE_ENUM_PURGE_USERS:
    case BE_ENUM_PURGE_GROUPS:
        ret = be_enum_purge(state, state->phase == BE_ENUM_PURGE_USERS, &finished);
        if (ret == EOK && finished) {
            state->phase = state->phase == BE_ENUM_PURGE_USERS ? BE_ENUM_FETCH_GROUPS
                                                               : BE_ENUM_DONE;
        }
        break;
    default:
        ret = ERR_INTERNAL;
        break;
    }
    be_step_done(state->be, start);
done:
    if (ret != EOK) {
        DEBUG(SSSDBG_OP_FAILURE, "Enumeration of %s: cannot write the cache: %s\n",
              state->be->domain, sss_strerror(ret));
        tevent_req_error(req, ret);
        return;
    }
    be_enum_continue(req);
}

static void be_enum_big_group_done(struct tevent_req *subreq)
{
    struct tevent_req *req = tevent_req_callback_data(subreq, struct tevent_req);
    struct be_enum_state *state = tevent_req_data(req, struct be_enum_state);
    errno_t ret;

    ret = be_store_group_recv(subreq);
    talloc_free(subreq);
    if (ret != EOK && ret != EINVAL) {
        tevent_req_error(req, ret);
        return;
    }
    state->idx++;
    if (state->idx == state->num_groups) {
        state->phase = BE_ENUM_PURGE_GROUPS;
        talloc_zfree(state->stale);
    }
    be_enum_continue(req);
}

errno_t be_enum_recv(struct tevent_req *req)
{
    TEVENT_REQ_RETURN_ON_ERROR(req);
    return EOK;
}

/* ---- the periodic task ------------------------------------------------------------- */

struct be_enum_task {
    struct be_ctx *be;
    struct tevent_timer *timer;
    struct tevent_req *round;
    uint64_t req_id;            /* of the round in flight: an internal request */
};

/* The probes' name of a periodic round: users and groups, filter "*". */
#define BE_ENUM_ROUND_ENTRY "enum_all"

static void be_enum_task_round_done(struct tevent_req *subreq);
static void be_enum_task_fire(struct tevent_context *ev, struct tevent_timer *te,
                              struct timeval now, void *pvt);

/* The timer of the next round belongs to no request (the round takes an id of its own). */
static void be_enum_task_schedule(struct be_enum_task *task, int seconds)
{
    SSS_REQ_ID_SCOPE(0);

    talloc_zfree(task->timer);
    task->timer = tevent_add_timer(task->be->ev, task, tevent_timeval_current_ofs(seconds, 0),
                                   be_enum_task_fire, task);
    if (task->timer == NULL) {
        DEBUG(SSSDBG_CRIT_FAILURE, "Cannot schedule the enumeration of %s\n",
              task->be->domain);
    }
}

static void be_enum_task_fire(struct tevent_context *ev, struct tevent_timer *te,
                              struct timeval now, void *pvt)
{
    struct be_enum_task *task = talloc_get_type(pvt, struct be_enum_task);
    struct be_ctx *be = task->be;

    task->timer = NULL;
    if (be_is_offline(be)) {
        DEBUG(SSSDBG_TRACE_FUNC, "Domain %s is offline: enumeration round skipped\n",
              be->domain);
        be_enum_task_schedule(task, be->enum_refresh);
        return;
    }
    /* A round is a request of its own: its LDAP and cache work carries this id. */
    task->req_id = sss_new_req_id();
    SSS_REQ_ID_SCOPE(task->req_id);
    PROBE(BE_REQUEST_START, task->req_id, be->domain, BE_ENUM_ROUND_ENTRY, "*", 0);
    task->round = be_enum_send(task, ev, be, BE_ENUM_USERS | BE_ENUM_GROUPS);
    if (task->round == NULL) {
        PROBE(BE_REQUEST_DONE, task->req_id, be->domain, BE_ENUM_ROUND_ENTRY, "*",
              (int)be_dp_error_of(ENOMEM), ENOMEM);
        be_enum_task_schedule(task, be->enum_refresh);
        return;
    }
    tevent_req_set_callback(task->round, be_enum_task_round_done, task);
}

static void be_enum_task_round_done(struct tevent_req *subreq)
{
    struct be_enum_task *task = tevent_req_callback_data(subreq, struct be_enum_task);
    errno_t ret;
    SSS_REQ_ID_SCOPE(task->req_id);

    assert(task->round == subreq);
    ret = be_enum_recv(subreq);
    talloc_free(subreq);
    task->round = NULL;
    PROBE(BE_REQUEST_DONE, task->req_id, task->be->domain, BE_ENUM_ROUND_ENTRY, "*",
          (int)be_dp_error_of(ret), ret);
    if (ret == ENETUNREACH) {
        be_go_offline(task->be, "enumeration found no LDAP server");
    } else if (ret == EOK) {
        task->be->stats.enum_rounds++;
    }
    be_enum_task_schedule(task, task->be->enum_refresh);
}

errno_t be_enum_task_start(struct be_ctx *be)
{
    SSS_CHECK_ARG(be != NULL, EINVAL);
    if (!be->enumerate || !be->id_supported || be->enum_task != NULL) {
        return EOK;
    }
    be->enum_task = talloc_zero(be, struct be_enum_task);
    if (be->enum_task == NULL) {
        return ENOMEM;
    }
    be->enum_task->be = be;
    be_enum_task_schedule(be->enum_task, 0);
    return be->enum_task->timer != NULL ? EOK : ENOMEM;
}
