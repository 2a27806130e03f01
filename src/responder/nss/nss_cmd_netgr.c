/*
 * The netgroup commands of sssd_nss, as SSSD 2.8 answers them:
 *   SETNETGRENT(name)  looks the netgroup up (cache_req CACHE_REQ_NETGROUP: domains in
 *                      order, negative cache, back-end on a miss, the expired entry when
 *                      offline) and answers every record at once: SSSD's libnss_sss (2.5
 *                      and later) and ours read the whole netgroup from this reply and
 *                      never send GETNETGRENT, which is what makes innetgr() thread-safe.
 *                      num_results counts the records plus one for the netgroup itself,
 *                      as SSSD's does: an empty netgroup is found (1, 0, no records), a
 *                      missing one is the reply "0, 0". The position of GETNETGRENT
 *                      stays at the first record.
 *   GETNETGRENT(count) for older clients: up to count records after the ones this
 *                      connection was already given, an empty reply at the end or without
 *                      a SETNETGRENT first. The netgroup is looked up again when the
 *                      responder no longer remembers it.
 *   ENDNETGRENT        forgets the connection's netgroup; status 0.
 * Records are uint32 SSS_NETGR_REP_TRIPLE + host\0 user\0 domain\0, or
 * SSS_NETGR_REP_GROUP + name\0 (sss_cli.h); the snapshots are nss_netgr.c's.
 */
#include <stdio.h>

#include "responder/nss/nss_private.h"
#include "sss_client/sss_cli.h"

struct nss_netgr_cmd_state {
    struct resp_request *rreq;
    struct nss_ctx *nctx;
    struct nss_request nreq;
    const char *name;       /* the netgroup: the request's, or the connection's */
    uint32_t count;         /* records to answer at most */
    bool from_start;        /* SETNETGRENT: from the first record */
    uint64_t start_usec;
};

static void nss_netgr_log(struct nss_netgr_cmd_state *state, const char *how,
                          const char *domain, uint32_t num, errno_t ret)
{
    uint64_t d = sss_monotonic_usec() - state->start_usec;

    DEBUG(SSSDBG_TRACE_FUNC, "%s %s: %s%s%s, %u records, %llu.%03llu ms\n",
          nss_cmd_name(state->nreq.cmd), state->name,
          ret == EOK ? how : (ret == ENOENT ? "not found" : "failed: "),
          ret == EOK ? " " : (ret == ENOENT ? "" : sss_strerror(ret)),
          ret == EOK && domain != NULL ? domain : "", num,
          (unsigned long long)(d / 1000), (unsigned long long)(d % 1000));
}

/* Answers from snap (NULL: not found) at the connection's position. */
static errno_t nss_netgr_answer(struct nss_netgr_cmd_state *state,
                                const struct nss_netgr_snap *snap)
{
    struct resp_request *rreq = state->rreq;
    struct nss_enum_client *ec;
    struct nss_reply *reply;
    uint32_t pos = 0;
    uint32_t entries;
    errno_t ret;

    ec = nss_enum_client(rreq, false);
    if (!state->from_start && ec != NULL) {
        pos = ec->netgr_pos;
    }
    reply = nss_reply_new(state, state->nreq.cmd, NULL);
    if (reply == NULL) {
        return ENOMEM;
    }
    if (snap != NULL) {
        ret = state->from_start ? nss_reply_netgr_found(reply) : EOK;
        if (ret == EOK) {
            ret = nss_netgr_fill(snap, &pos, state->count, reply);
        }
        if (ret != EOK) {
            talloc_free(reply);
            return ret;
        }
        /* SETNETGRENT leaves the position at the start, as SSSD does: a client older
         * than 2.5 reads only the count from it and then asks GETNETGRENT. */
        if (ec != NULL && !state->from_start) {
            ec->netgr_pos = pos;
        }
    }
    entries = nss_reply_num_results(reply);
    ret = resp_request_done(rreq, nss_reply_finish(rreq, reply));
    if (ret == EOK) {
        nss_probe_done(rreq, &state->nreq, snap != NULL ? EOK : ENOENT, entries,
                       snap != NULL ? snap->dom->name : NULL);
    }
    return ret;
}

static void nss_netgr_lookup_done(struct tevent_req *subreq);

/* Answers from what the responder remembers of the netgroup, or looks it up first. */
static errno_t nss_netgr_run(struct nss_netgr_cmd_state *state)
{
    struct nss_netgr_snap *snap;
    struct tevent_req *subreq;
    errno_t ret;

    snap = nss_netgr_mem_find(state->nctx, state->name, time(NULL));
    if (snap != NULL) {
        ret = nss_netgr_answer(state, snap);
        nss_netgr_log(state, "remembered from", snap->dom->name, snap->num, ret);
        if (ret == EOK) {
            talloc_free(state);
        }
        return ret;
    }
    subreq = cache_req_send(state, resp_request_ev(state->rreq), state->nctx->rctx,
                            CACHE_REQ_NETGROUP, state->name, 0, 0,
                            resp_request_id(state->rreq));
    if (subreq == NULL) {
        return ENOMEM;
    }
    tevent_req_set_callback(subreq, nss_netgr_lookup_done, state);
    return EOK;
}

static void nss_netgr_lookup_done(struct tevent_req *subreq)
{
    struct nss_netgr_cmd_state *state = tevent_req_callback_data(subreq,
                                                                 struct nss_netgr_cmd_state);
    struct resp_request *rreq = state->rreq;
    struct cache_req_result *res = NULL;
    struct nss_netgr_snap *snap = NULL;
    errno_t ret;

    SSS_REQ_ID_SCOPE(resp_request_id(rreq));
    ret = cache_req_recv(state, subreq, &res);
    talloc_free(subreq);
    if (ret == ENOENT) {
        nss_netgr_mem_forget(state->nctx, state->name);
        nss_netgr_log(state, "", NULL, 0, ENOENT);
        ret = nss_netgr_answer(state, NULL);
        goto done;
    }
    if (ret != EOK) {
        goto done;
    }
    ret = nss_netgr_snap_build(state, state->name, res, &snap);
    if (ret != EOK) {
        goto done;
    }
    snap = nss_netgr_mem_keep(state->nctx, snap);
    nss_netgr_log(state, cache_req_source_str(res->source), res->domain->name, snap->num,
                  EOK);
    ret = nss_netgr_answer(state, snap);
done:
    if (ret != EOK) {
        DEBUG(SSSDBG_OP_FAILURE, "Cannot answer %s %s: %s\n", nss_cmd_name(state->nreq.cmd),
              state->name, sss_strerror(ret));
        nss_probe_done(rreq, &state->nreq, ret, 0, NULL);
        resp_request_done_status(rreq, ret == ENOMEM ? ENOMEM : EIO);
    }
    talloc_free(state);
}

/* Parses the request; EBADMSG closes the connection, EINVAL is answered "not found". */
static errno_t nss_netgr_start(struct resp_request *rreq, struct nss_netgr_cmd_state **_state)
{
    struct nss_netgr_cmd_state *state;
    const uint8_t *body;
    size_t len;
    errno_t ret;

    state = talloc_zero(rreq, struct nss_netgr_cmd_state);
    if (state == NULL) {
        return ENOMEM;
    }
    state->rreq = rreq;
    state->nctx = talloc_get_type(resp_request_pvt(rreq), struct nss_ctx);
    state->start_usec = sss_monotonic_usec();
    body = resp_request_body(rreq, &len);
    ret = nss_request_parse(resp_request_cmd(rreq), body, len, &state->nreq);
    nss_probe_start(rreq, ret == EOK ? &state->nreq : NULL);
    if (ret != EOK) {
        talloc_free(state);
        return ret;
    }
    *_state = state;
    return EOK;
}

errno_t nss_cmd_setnetgrent(struct resp_request *rreq)
{
    struct nss_netgr_cmd_state *state = NULL;
    struct nss_enum_client *ec;
    errno_t ret;

    ret = nss_netgr_start(rreq, &state);
    if (ret == EINVAL) {
        /* A name no netgroup can have: not found, as SSSD answers. */
        ec = nss_enum_client(rreq, false);
        if (ec != NULL) {
            talloc_zfree(ec->netgr_name);
        }
        nss_probe_done(rreq, NULL, ENOENT, 0, NULL);
        return resp_request_done(rreq, nss_reply_finish(rreq, nss_reply_new(rreq,
                                                        resp_request_cmd(rreq), NULL)));
    }
    if (ret != EOK) {
        nss_probe_done(rreq, NULL, ret, 0, NULL);
        return ret;
    }
    ec = nss_enum_client(rreq, true);
    if (ec == NULL) {
        ret = ENOMEM;
        goto fail;
    }
    talloc_free(ec->netgr_name);
    ec->netgr_name = talloc_strdup(ec, state->nreq.name);
    ec->netgr_pos = 0;
    if (ec->netgr_name == NULL) {
        ret = ENOMEM;
        goto fail;
    }
    state->name = ec->netgr_name;
    state->count = UINT32_MAX;
    state->from_start = true;
    ret = nss_netgr_run(state);
    if (ret != EOK) {
        goto fail;
    }
    return EOK;
fail:
    nss_probe_done(rreq, &state->nreq, ret, 0, NULL);
    talloc_free(state);
    return ret;
}

errno_t nss_cmd_getnetgrent(struct resp_request *rreq)
{
    struct nss_netgr_cmd_state *state = NULL;
    struct nss_enum_client *ec;
    errno_t ret;

    ret = nss_netgr_start(rreq, &state);
    if (ret != EOK) {
        /* Only a malformed count can fail here. */
        nss_probe_done(rreq, NULL, ret, 0, NULL);
        return ret == ENOMEM ? ENOMEM : EBADMSG;
    }
    ec = nss_enum_client(rreq, false);
    if (ec == NULL || ec->netgr_name == NULL) {
        DEBUG(SSSDBG_TRACE_FUNC, "GETNETGRENT without SETNETGRENT: no records\n");
        state->name = "";
        ret = nss_netgr_answer(state, NULL);
        talloc_free(state);
        return ret;
    }
    state->name = talloc_strdup(state, ec->netgr_name);
    if (state->name == NULL) {
        ret = ENOMEM;
        goto fail;
    }
    /* SSSD's client asks for 256 records a time; NSS_ENUM_MAX_PER_REPLY bounds a reply as
     * for the other enumerations. */
    state->count = state->nreq.count < NSS_ENUM_MAX_PER_REPLY ? state->nreq.count
                                                              : NSS_ENUM_MAX_PER_REPLY;
    ret = nss_netgr_run(state);
    if (ret != EOK) {
        goto fail;
    }
    return EOK;
fail:
    nss_probe_done(rreq, &state->nreq, ret, 0, NULL);
    talloc_free(state);
    return ret;
}

errno_t nss_cmd_endnetgrent(struct resp_request *rreq)
{
    struct nss_enum_client *ec = nss_enum_client(rreq, false);
    errno_t ret;

    nss_probe_start(rreq, NULL);
    if (ec != NULL) {
        talloc_zfree(ec->netgr_name);
        ec->netgr_pos = 0;
    }
    ret = resp_request_done_status(rreq, 0);
    nss_probe_done(rreq, NULL, ret, 0, NULL);
    return ret;
}
