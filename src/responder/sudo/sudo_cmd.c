/*
 * sssd_sudo's request (sudo_private.h): find the user and its groups through cache_req,
 * pick the user's rules from the domain's cached rule set (a parsed copy kept while the
 * cache's rule generation is unchanged: one small read per request when nothing changed),
 * refresh them through the back-end when they expired, and answer.
 */
#include <inttypes.h>
#include <string.h>

#include "responder/common/cache_req.h"
#include "responder/sudo/sudo_private.h"
#include "sss_iface/sss_iface.h"
#include "sss_iface/sss_dp.h"
#include "util/probes.h"

errno_t sudo_ctx_create(TALLOC_CTX *mem_ctx, struct resp_ctx *rctx, struct sudo_ctx **_sctx)
{
    struct sudo_ctx *sctx;
    errno_t ret;

    SSS_CHECK_ARG(rctx != NULL && _sctx != NULL, EINVAL);
    sctx = talloc_zero(mem_ctx, struct sudo_ctx);
    if (sctx == NULL) {
        return ENOMEM;
    }
    sctx->rctx = rctx;
    sctx->snaps = talloc_zero_array(sctx, struct sudo_snap, rctx->num_domains + 1);
    if (sctx->snaps == NULL) {
        talloc_free(sctx);
        return ENOMEM;
    }
    ret = confdb_get_bool(rctx->cdb, "sudo", "sudo_timed", &sctx->timed);
    if (ret == EOK) {
        ret = confdb_get_int(rctx->cdb, "sudo", "sudo_threshold", &sctx->threshold);
    }
    if (ret == EOK) {
        ret = confdb_get_bool(rctx->cdb, "sudo", "sudo_inverse_order", &sctx->inverse_order);
    }
    if (ret != EOK) {
        talloc_free(sctx);
        return ret;
    }
    *_sctx = sctx;
    return EOK;
}

/* The domain's parsed rules, read again when the cache's generation moved. */
static errno_t sudo_snap_get(struct sudo_ctx *sctx, struct resp_domain *dom,
                             struct sysdb_ctx *sysdb, struct sudo_snap **_snap)
{
    struct sudo_snap *snap = &sctx->snaps[dom - sctx->rctx->domains];
    TALLOC_CTX *mem;
    uint64_t gen;
    errno_t ret;

    ret = sysdb_sudo_gen(sysdb, &gen);
    if (ret != EOK) {
        return ret;
    }
    if (!snap->loaded || snap->gen != gen) {
        mem = talloc_new(sctx);
        if (mem == NULL) {
            return ENOMEM;
        }
        ret = sysdb_sudo_get_all(mem, sysdb, &snap->rules, &snap->num_rules);
        if (ret != EOK) {
            talloc_free(mem);
            snap->loaded = false;
            return ret;
        }
        talloc_free(snap->mem);
        snap->mem = mem;
        snap->gen = gen;
        snap->loaded = true;
        DEBUG(SSSDBG_TRACE_FUNC, "sudo rules of %s read: %zu rules (generation %" PRIu64 ")\n",
              dom->name, snap->num_rules, gen);
    }
    *_snap = snap;
    return EOK;
}

struct sudo_get_rules_state {
    struct tevent_context *ev;
    struct sudo_ctx *sctx;
    enum sudo_req_type type;
    uint32_t uid;
    const char *name;               /* as sudo sent it (the caller's memory) */
    uint64_t req_id;
    struct resp_domain *dom;
    struct sysdb_ctx *sysdb;
    struct sudo_user_info user;
    bool refreshed;
    const struct sysdb_sudo_rule **picked;
    size_t num_picked;
    uint8_t *body;
    size_t len;
};

static void sudo_get_rules_user_done(struct tevent_req *subreq);
static void sudo_get_rules_dp_done(struct tevent_req *subreq);
static errno_t sudo_get_rules_pick(struct tevent_req *req);

static const char *sudo_req_type_name(enum sudo_req_type type)
{
    return type == SUDO_REQ_DEFAULTS ? "GET_DEFAULTS" : "GET_SUDORULES";
}

struct tevent_req *sudo_get_rules_send(TALLOC_CTX *mem_ctx, struct tevent_context *ev,
                                       struct sudo_ctx *sctx, enum sudo_req_type type,
                                       uint32_t uid, const char *name, uint64_t req_id)
{
    struct sudo_get_rules_state *state;
    struct tevent_req *req;
    struct tevent_req *subreq;

    req = tevent_req_create(mem_ctx, &state, struct sudo_get_rules_state);
    if (req == NULL) {
        return NULL;
    }
    SSS_CHECK_ARG(sctx != NULL && name != NULL, sss_req_post(req, ev, EINVAL));
    state->ev = ev;
    state->sctx = sctx;
    state->type = type;
    state->uid = uid;
    state->name = name;
    state->req_id = req_id;
    PROBE(SUDO_REQUEST_START, req_id, sudo_req_type_name(type), name, uid);
    subreq = cache_req_send(state, ev, sctx->rctx, CACHE_REQ_INITGROUPS, name, 0, 0, req_id);
    if (subreq == NULL) {
        return sss_req_post(req, ev, ENOMEM);
    }
    tevent_req_set_callback(subreq, sudo_get_rules_user_done, req);
    return req;
}

/* The user's group names (the initgroups list and the primary group when cached) and
 * gids (primary first). */
static errno_t sudo_user_groups(struct sudo_get_rules_state *state,
                                struct cache_req_result *res)
{
    struct sysdb_group *primary = NULL;
    const char **names = NULL;
    const char **all;
    uint32_t *gids;
    size_t count = 0;
    size_t n = 0;
    size_t i;
    time_t expire;
    char *short_name;
    errno_t ret;

    ret = sysdb_get_initgroups_names(state, state->sysdb, res->user->name, &names, &count,
                                     &expire);
    if (ret == ENOENT) {
        count = 0;
        names = NULL;
    } else if (ret != EOK) {
        return ret;
    }
    ret = sysdb_get_group_by_gid(state, state->sysdb, res->user->gid, &primary);
    if (ret != EOK && ret != ENOENT) {
        return ret;
    }
    all = talloc_zero_array(state, const char *, count + 2);
    gids = talloc_zero_array(state, uint32_t, res->num_gids + 1);
    if (all == NULL || gids == NULL) {
        return ENOMEM;
    }
    for (i = 0; i <= count; i++) {
        const char *g = i < count ? names[i] : (primary != NULL ? primary->name : NULL);

        if (g == NULL) {
            continue;
        }
        ret = sysdb_short_name(all, state->sysdb, g, &short_name);
        if (ret != EOK) {
            return ret;
        }
        all[n++] = short_name;
    }
    gids[0] = res->user->gid;
    memcpy(gids + 1, res->gids, res->num_gids * sizeof(uint32_t));
    state->user.groups = all;
    state->user.gids = gids;
    state->user.num_gids = res->num_gids + 1;
    return EOK;
}

static void sudo_get_rules_user_done(struct tevent_req *subreq)
{
    struct tevent_req *req = tevent_req_callback_data(subreq, struct tevent_req);
    struct sudo_get_rules_state *state = tevent_req_data(req, struct sudo_get_rules_state);
    struct cache_req_result *res = NULL;
    errno_t ret;

    ret = cache_req_recv(state, subreq, &res);
    talloc_free(subreq);
    if (ret != EOK) {
        DEBUG(ret == ENOENT ? SSSDBG_TRACE_FUNC : SSSDBG_OP_FAILURE,
              "sudo: no user to give rules to: %s\n", sss_strerror(ret));
        tevent_req_error(req, ret == ENOENT ? ENOENT : EIO);
        return;
    }
    if (res->user->uid != state->uid) {
        DEBUG(SSSDBG_MINOR_FAILURE, "sudo asked for %s with uid %u, but the user's uid is "
              "%u: no rules\n", res->user->name, state->uid, res->user->uid);
        tevent_req_error(req, ENOENT);
        return;
    }
    state->dom = res->domain;
    ret = resp_domain_sysdb(state->sctx->rctx, state->dom, &state->sysdb);
    if (ret == EOK) {
        ret = sudo_user_groups(state, res);
    }
    if (ret != EOK) {
        tevent_req_error(req, ret);
        return;
    }
    state->user.name = res->short_name;
    state->user.fqname = res->user->name;
    state->user.uid = res->user->uid;
    state->user.case_sensitive = state->dom->case_mode == SYSDB_CASE_SENSITIVE;
    ret = sudo_get_rules_pick(req);
    if (ret == EAGAIN) {
        return;
    }
    if (ret != EOK) {
        tevent_req_error(req, ret);
        return;
    }
    tevent_req_done(req);
}

/* Asks the back-end for a refresh: the names given, or everything. */
static errno_t sudo_get_rules_refresh(struct tevent_req *req, const char **names, bool full)
{
    struct sudo_get_rules_state *state = tevent_req_data(req, struct sudo_get_rules_state);
    struct tevent_req *subreq;
    const char *none[] = { NULL };

    if (state->sctx->rctx->conn == NULL) {
        return ERR_SBUS_DISCONNECTED;
    }
    DEBUG(SSSDBG_TRACE_FUNC, "sudo: asking %s for a %s refresh\n", state->dom->name,
          full ? "full" : "rules");
    subreq = sbus_call_sssd_dataprovider_sudoHandler_send(
        state, state->sctx->rctx->conn, state->dom->bus_name, SSS_BUS_PATH, SSS_DP_FLAG_NONE,
        full ? SSS_DP_SUDO_FULL : SSS_DP_SUDO_RULES, full ? none : names, state->req_id);
    if (subreq == NULL) {
        return ENOMEM;
    }
    state->sctx->dp_refreshes++;
    state->refreshed = true;
    tevent_req_set_callback(subreq, sudo_get_rules_dp_done, req);
    return EAGAIN;
}

/* EAGAIN: a refresh is under way. EOK: state->body holds the answer. */
static errno_t sudo_get_rules_pick(struct tevent_req *req)
{
    struct sudo_get_rules_state *state = tevent_req_data(req, struct sudo_get_rules_state);
    struct sudo_ctx *sctx = state->sctx;
    struct sysdb_sudo_meta meta;
    struct sudo_snap *snap;
    const char **expired;
    size_t num_expired = 0;
    time_t now = time(NULL);
    size_t i;
    size_t n = 0;
    bool match;
    errno_t ret;

    ret = sudo_snap_get(sctx, state->dom, state->sysdb, &snap);
    if (ret != EOK) {
        return ret;
    }
    if (!state->refreshed && state->dom->online) {
        ret = sysdb_sudo_get_meta(state, state->sysdb, &meta);
        if (ret != EOK) {
            return ret;
        }
        if (meta.last_full == 0) {
            /* No full refresh yet (the back-end has just started): wait for one rather
             * than answer from a cache that knows nothing. */
            return sudo_get_rules_refresh(req, NULL, true);
        }
    }
    talloc_free(state->picked);
    state->picked = talloc_array(state, const struct sysdb_sudo_rule *, snap->num_rules + 1);
    expired = talloc_array(state, const char *, snap->num_rules + 1);
    if (state->picked == NULL || expired == NULL) {
        return ENOMEM;
    }
    for (i = 0; i < snap->num_rules; i++) {
        match = state->type == SUDO_REQ_DEFAULTS ? sudo_rule_is_defaults(snap->rules[i])
                : sudo_rule_matches_user(snap->rules[i], &state->user);
        if (!match) {
            continue;
        }
        if (snap->rules[i]->expire < now) {
            expired[num_expired++] = snap->rules[i]->name;
        }
        if (sctx->timed && !sudo_rule_valid_at(snap->rules[i], now)) {
            continue;
        }
        state->picked[n++] = snap->rules[i];
    }
    expired[num_expired] = NULL;
    if (num_expired > 0 && !state->refreshed && state->dom->online) {
        return sudo_get_rules_refresh(req, expired,
                                      num_expired > (size_t)(sctx->threshold > 0
                                                             ? sctx->threshold : 0));
    }
    talloc_free(expired);
    state->num_picked = n;
    sudo_rules_sort(state->picked, n, sctx->inverse_order);
    ret = sudo_build_reply(state, state->picked, n, &state->body, &state->len);
    if (ret == EOK) {
        DEBUG(SSSDBG_TRACE_FUNC, "sudo: %zu %s for %s@%s\n", n,
              state->type == SUDO_REQ_DEFAULTS ? "defaults entries" : "rules",
              state->user.name, state->dom->name);
    }
    return ret;
}

static void sudo_get_rules_dp_done(struct tevent_req *subreq)
{
    struct tevent_req *req = tevent_req_callback_data(subreq, struct tevent_req);
    struct sudo_get_rules_state *state = tevent_req_data(req, struct sudo_get_rules_state);
    const char *message = NULL;
    uint16_t dp_error = 0;
    uint32_t error = 0;
    errno_t ret;
    SSS_REQ_ID_SCOPE(state->req_id);

    ret = sbus_call_sssd_dataprovider_sudoHandler_recv(state, subreq, &dp_error, &error,
                                                       &message);
    talloc_free(subreq);
    if (ret != EOK || dp_error != SSS_DP_ERR_OK) {
        /* The cached rules answer (offline, back-end gone, ...). */
        DEBUG(SSSDBG_MINOR_FAILURE, "sudo: refresh of %s failed (%s): answering from the "
              "cache\n", state->dom->name, ret != EOK ? sss_strerror(ret)
              : (message != NULL ? message : "?"));
    }
    ret = sudo_get_rules_pick(req);
    if (ret == EAGAIN) {
        return;
    }
    if (ret != EOK) {
        tevent_req_error(req, ret);
        return;
    }
    tevent_req_done(req);
}

errno_t sudo_get_rules_recv(TALLOC_CTX *mem_ctx, struct tevent_req *req, uint8_t **_body,
                            size_t *_len, size_t *_num_rules)
{
    struct sudo_get_rules_state *state = tevent_req_data(req, struct sudo_get_rules_state);

    enum tevent_req_state tstate = TEVENT_REQ_DONE;
    uint64_t err;

    if (tevent_req_is_error(req, &tstate, &err)) {
        PROBE(SUDO_REQUEST_DONE, state->req_id, sudo_req_type_name(state->type),
              state->name != NULL ? state->name : "", tstate == TEVENT_REQ_USER_ERROR ? (int)err : EIO, 0,
              state->dom != NULL ? state->dom->name : "");
    }
    TEVENT_REQ_RETURN_ON_ERROR(req);
    PROBE(SUDO_REQUEST_DONE, state->req_id, sudo_req_type_name(state->type), state->name, 0,
          (unsigned int)state->num_picked, state->dom->name);
    *_body = talloc_steal(mem_ctx, state->body);
    *_len = state->len;
    if (_num_rules != NULL) {
        *_num_rules = state->num_picked;
    }
    return EOK;
}
