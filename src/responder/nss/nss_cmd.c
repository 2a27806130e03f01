/*
 * The NSS lookup commands: GETPWNAM, GETPWUID, GETGRNAM, GETGRGID, INITGR and their _EX
 * variants. One handler parses the body, maps the command to a cache_req lookup (the _EX
 * flags, honoured for root only: NO_CACHE asks the back-end first; INVALIDATE_CACHE also
 * drops the memory-cache record), and when the lookup ends builds the reply (nss_cmd_pw.c,
 * nss_cmd_gr.c, nss_cmd_initgr.c) and logs one line: command, key, domain, result,
 * source, duration.
 * The lookup hangs on the client request, so a client that goes away cancels it.
 */
#include <stdio.h>

#include "responder/nss/nss_private.h"
#include "responder/common/resp_names.h"
#include "sss_client/sss_cli.h"

/* The _EX flags that bypass or drop caches, honoured for root only. */
#define NSS_CMD_CACHE_FLAGS (SSS_NSS_EX_FLAG_NO_CACHE | SSS_NSS_EX_FLAG_INVALIDATE_CACHE)

struct nss_cmd_state {
    struct resp_request *rreq;
    struct nss_ctx *nctx;
    struct nss_request nreq;
    enum cache_req_type type;
    uint64_t start_usec;
};

/* The lookup a command asks for; EINVAL for a command this handler does not serve. */
static errno_t nss_cmd_type(uint32_t cmd, enum cache_req_type *_type,
                            enum nss_mc_type *_mc)
{
    switch (cmd) {
    case SSS_NSS_GETPWNAM:
    case SSS_NSS_GETPWNAM_EX:
    case SSS_NSS_GETORIGBYUSERNAME:
        *_type = CACHE_REQ_USER_BY_NAME;
        *_mc = NSS_MC_PASSWD;
        return EOK;
    case SSS_NSS_GETPWUID:
    case SSS_NSS_GETPWUID_EX:
        *_type = CACHE_REQ_USER_BY_ID;
        *_mc = NSS_MC_PASSWD;
        return EOK;
    case SSS_NSS_GETGRNAM:
    case SSS_NSS_GETGRNAM_EX:
        *_type = CACHE_REQ_GROUP_BY_NAME;
        *_mc = NSS_MC_GROUP;
        return EOK;
    case SSS_NSS_GETGRGID:
    case SSS_NSS_GETGRGID_EX:
        *_type = CACHE_REQ_GROUP_BY_ID;
        *_mc = NSS_MC_GROUP;
        return EOK;
    case SSS_NSS_INITGR:
    case SSS_NSS_INITGR_EX:
        *_type = CACHE_REQ_INITGROUPS;
        *_mc = NSS_MC_INITGROUPS;
        return EOK;
    }
    return EINVAL;
}

/* GETORIGBYNAME goes to nss_cmd_sid.c (a user, else a group); only the user form is here. */
static bool nss_cmd_is_orig(uint32_t cmd)
{
    return cmd == SSS_NSS_GETORIGBYUSERNAME;
}

uint32_t nss_mc_record_ttl(struct nss_ctx *nctx, struct cache_req_result *res)
{
    time_t now = time(NULL);

    if (res->source == CACHE_REQ_SRC_STALE || res->expire <= now) {
        return 0;
    }
    if ((uint64_t)(res->expire - now) < nctx->memcache_timeout) {
        return (uint32_t)(res->expire - now);
    }
    return nctx->memcache_timeout;
}

/* Whether a domain before dom could answer a by-name lookup of short_name. */
static bool nss_earlier_domain_takes_name(struct resp_ctx *rctx, struct resp_domain *dom,
                                          const char *short_name, bool user)
{
    struct resp_domain *d;

    for (d = rctx->domains; d < dom; d++) {
        if (d->fqnames) {
            continue;
        }
        if (user ? resp_user_is_filtered(rctx, d, short_name)
                 : resp_group_is_filtered(rctx, d, short_name)) {
            continue;
        }
        return true;
    }
    return false;
}

bool nss_earlier_domain_takes_id(struct resp_ctx *rctx, struct resp_domain *dom,
                                        uint32_t id)
{
    struct resp_domain *d;

    for (d = rctx->domains; d < dom; d++) {
        if (id >= d->min_id && (d->max_id == 0 || id <= d->max_id)) {
            return true;
        }
    }
    return false;
}

unsigned int nss_mc_record_keys(struct nss_ctx *nctx, struct cache_req_result *res,
                                const struct nss_request *nreq, const char *out_name,
                                uint32_t id, bool user)
{
    struct resp_ctx *rctx = nctx->rctx;
    unsigned int keys = 0;
    bool by_name = nreq != NULL && nreq->kind == NSS_REQ_NAME;

    /* The name: asked as written (the walk just resolved it), qualified, or no earlier
     * domain takes it. A name asked in another form (qualified, another case) resolved
     * something else than the output name. */
    if ((by_name && strcmp(nreq->name, out_name) == 0)
            || res->domain->fqnames || rctx->output_fqnames
            || !nss_earlier_domain_takes_name(rctx, res->domain, res->short_name, user)) {
        keys |= NSS_MC_KEY_NAME;
    }
    if (!by_name || !nss_earlier_domain_takes_id(rctx, res->domain, id)) {
        keys |= NSS_MC_KEY_ID;
    }
    return keys;
}

static void nss_cmd_invalidate(struct nss_cmd_state *state, enum nss_mc_type mc_type)
{
    struct nss_mc *mc = state->nctx->mc[mc_type];
    errno_t ret;

    if (state->nreq.kind == NSS_REQ_NAME) {
        ret = nss_mc_invalidate_name(mc, state->nreq.name);
    } else {
        ret = nss_mc_invalidate_id(mc, state->nreq.id);
    }
    if (ret != EOK && ret != ENOENT) {
        DEBUG(SSSDBG_MINOR_FAILURE, "Cannot invalidate the memory-cache record: %s\n",
              sss_strerror(ret));
    }
}

static void nss_cmd_log(struct nss_cmd_state *state, struct cache_req_result *res,
                        errno_t ret)
{
    uint64_t d = sss_monotonic_usec() - state->start_usec;
    char key[32];

    if (!debug_enabled(SSSDBG_TRACE_FUNC)) {
        return;
    }
    if (state->nreq.kind != NSS_REQ_NAME) {
        snprintf(key, sizeof(key), "%u", state->nreq.id);
    }
    DEBUG(SSSDBG_TRACE_FUNC, "%s %s: %s%s%s%s%s, %llu.%03llu ms\n",
          nss_cmd_name(state->nreq.cmd),
          state->nreq.kind == NSS_REQ_NAME ? state->nreq.name : key,
          ret == EOK ? "found in " : (ret == ENOENT ? "not found" : "failed: "),
          ret == EOK ? res->domain->name : (ret == ENOENT ? "" : sss_strerror(ret)),
          ret == EOK ? " (" : "",
          ret == EOK ? cache_req_source_str(res->source) : "",
          ret == EOK ? ")" : "",
          (unsigned long long)(d / 1000), (unsigned long long)(d % 1000));
}

static void nss_cmd_lookup_done(struct tevent_req *subreq);

errno_t nss_cmd_lookup(struct resp_request *rreq)
{
    struct nss_ctx *nctx = talloc_get_type(resp_request_pvt(rreq), struct nss_ctx);
    struct nss_cmd_state *state;
    struct tevent_req *subreq;
    enum nss_mc_type mc_type;
    const uint8_t *body;
    uint32_t flags = 0;
    size_t len;
    errno_t ret;

    state = talloc_zero(rreq, struct nss_cmd_state);
    if (state == NULL) {
        return ENOMEM;
    }
    state->rreq = rreq;
    state->nctx = nctx;
    state->start_usec = sss_monotonic_usec();
    body = resp_request_body(rreq, &len);
    ret = nss_request_parse(resp_request_cmd(rreq), body, len, &state->nreq);
    nss_probe_start(rreq, ret == EOK ? &state->nreq : NULL);
    if (ret == EBADMSG) {
        /* No correct client sends this: the connection is closed (the socket server logs
         * one rate-limited line). */
        talloc_free(state);
        nss_probe_done(rreq, NULL, EBADMSG, 0, NULL);
        return EBADMSG;
    }
    if (ret != EOK) {
        goto bad_request;
    }
    ret = nss_cmd_type(state->nreq.cmd, &state->type, &mc_type);
    if (ret != EOK) {
        goto bad_request;
    }
    if ((state->nreq.flags & NSS_CMD_CACHE_FLAGS) != 0
            && resp_client_creds(resp_request_client(rreq))->uid != 0) {
        /* Root only: any user could otherwise make each of its lookups an LDAP search
         * and evict everybody's memory-cache records. Ignored, not refused: the answer
         * is the same one the lookup without them gives. */
        DEBUG(SSSDBG_TRACE_FUNC, "%s from uid %d: cache flags 0x%x ignored (root only)\n",
              nss_cmd_name(state->nreq.cmd),
              (int)resp_client_creds(resp_request_client(rreq))->uid, state->nreq.flags);
        state->nreq.flags &= ~(uint32_t)NSS_CMD_CACHE_FLAGS;
    }
    if (mc_type == NSS_MC_GROUP) {
        /* The groups of recent initgroups answers first: `id` asks getgrgid of each gid
         * right after its initgroups, and the rest of them are then memory-cache hits. */
        nss_initgr_mc_flush(nctx);
    }
    if (state->nreq.flags & SSS_NSS_EX_FLAG_INVALIDATE_CACHE) {
        nss_cmd_invalidate(state, mc_type);
    }
    if (state->nreq.flags & (SSS_NSS_EX_FLAG_NO_CACHE | SSS_NSS_EX_FLAG_INVALIDATE_CACHE)) {
        flags |= CACHE_REQ_BYPASS_CACHE;
    }
    subreq = cache_req_send(state, resp_request_ev(rreq), nctx->rctx, state->type,
                            state->nreq.kind == NSS_REQ_NAME ? state->nreq.name : NULL,
                            state->nreq.id, flags, resp_request_id(rreq));
    if (subreq == NULL) {
        nss_probe_done(rreq, &state->nreq, ENOMEM, 0, NULL);
        talloc_free(state);
        return ENOMEM;
    }
    tevent_req_set_callback(subreq, nss_cmd_lookup_done, state);
    if (tevent_req_is_in_progress(subreq)) {
        /* Waiting on the back-end (a login's next lookup after its initgroups): the
         * queued records are written meanwhile. One answered from the cache is answered
         * first (nss_cmd_lookup_done). */
        nss_initgr_mc_flush(nctx);
    }
    return EOK;

bad_request:
    /* A well-formed request for a name no entry can have: answered (status EINVAL). */
    talloc_free(state);
    nss_probe_done(rreq, NULL, EINVAL, 0, NULL);
    return resp_request_done_status(rreq, EINVAL);
}

static void nss_cmd_lookup_done(struct tevent_req *subreq)
{
    struct nss_cmd_state *state = tevent_req_callback_data(subreq, struct nss_cmd_state);
    struct resp_request *rreq = state->rreq;
    struct cache_req_result *res = NULL;
    struct nss_reply *reply;
    unsigned int entries;
    errno_t result;
    errno_t ret;

    SSS_REQ_ID_SCOPE(resp_request_id(rreq));
    ret = cache_req_recv(state, subreq, &res);
    talloc_free(subreq);
    nss_cmd_log(state, res, ret);
    if (ret != EOK && ret != ENOENT) {
        goto done;
    }
    result = ret;
    reply = nss_reply_new(state, state->nreq.cmd, state->nctx->pwfield);
    if (reply == NULL) {
        ret = ENOMEM;
        goto done;
    }
    if (ret == EOK) {
        switch (state->type) {
        case CACHE_REQ_USER_BY_NAME:
        case CACHE_REQ_USER_BY_ID:
            ret = nss_cmd_is_orig(state->nreq.cmd)
                      ? nss_orig_answer(state->nctx, reply, res)
                      : nss_pw_answer(state->nctx, reply, res, &state->nreq);
            break;
        case CACHE_REQ_GROUP_BY_NAME:
        case CACHE_REQ_GROUP_BY_ID:
            ret = nss_gr_answer(state->nctx, reply, res, &state->nreq);
            break;
        case CACHE_REQ_INITGROUPS:
            ret = nss_initgr_answer(state->nctx, reply, res, state->nreq.name);
            break;
        case CACHE_REQ_NETGROUP:
        case CACHE_REQ_USER_BY_SID:
        case CACHE_REQ_GROUP_BY_SID:
            ret = EINVAL;   /* nss_cmd_netgr.c, nss_cmd_sid.c */
            break;
        }
        if (ret != EOK) {
            goto done;
        }
    }
    entries = nss_reply_num_results(reply);
    ret = resp_request_done(rreq, nss_reply_finish(rreq, reply));
    if (ret == EOK) {
        nss_probe_done(rreq, &state->nreq, result, entries,
                       result == EOK ? res->domain->name : NULL);
        if (state->type != CACHE_REQ_INITGROUPS) {
            /* Answered: the records queued meanwhile. An initgroups answer's own wait
             * for the client's next lookup (nss_initgr_mc.c). */
            nss_initgr_mc_flush(state->nctx);
        }
    }
done:
    if (ret != EOK) {
        DEBUG(SSSDBG_OP_FAILURE, "Cannot answer %s: %s\n", nss_cmd_name(state->nreq.cmd),
              sss_strerror(ret));
        nss_probe_done(rreq, &state->nreq, ret, 0, NULL);
        resp_request_done_status(rreq, ret == ENOMEM ? ENOMEM : EIO);
    }
    talloc_free(state);
}
