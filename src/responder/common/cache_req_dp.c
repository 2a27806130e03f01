/*
 * cache_req's back-end side: sssd.dataprovider.getAccountInfo calls (sss_dp.h is the
 * contract) to "sssd.domain_<escaped>" at /sssd, built with the generated message and key
 * functions so that identical calls in flight are one call on the bus, and sent with the
 * responder's reply timeout. Also the fire-and-forget refresh of
 * entry_cache_nowait_percentage, whose call hangs on the struct resp_ctx.
 * The reply may carry the entry the back-end stored (gen, entry: sss_dp.h); a back-end
 * that sends only (dp_error, error, message) is read as carrying none.
 */
#include <stdio.h>

#include "responder/common/cache_req_private.h"
#include "sss_iface/sss_iface.h"
#include "sss_iface/sss_dp.h"
#include "responder/common/resp_metrics.h"
#include "db/sysdb_rcache.h"

uint32_t cache_req_dp_type(enum cache_req_type type)
{
    switch (type) {
    case CACHE_REQ_USER_BY_NAME:
    case CACHE_REQ_USER_BY_ID:
    case CACHE_REQ_USER_BY_SID:
        return SSS_DP_USER;
    case CACHE_REQ_GROUP_BY_NAME:
    case CACHE_REQ_GROUP_BY_ID:
    case CACHE_REQ_GROUP_BY_SID:
        return SSS_DP_GROUP;
    case CACHE_REQ_INITGROUPS:
        return SSS_DP_INITGROUPS;
    case CACHE_REQ_NETGROUP:
        return SSS_DP_NETGROUP;
    }
    return SSS_DP_USER;
}

char *cache_req_dp_filter(TALLOC_CTX *mem_ctx, const char *name, uint32_t id)
{
    if (name != NULL) {
        return talloc_asprintf(mem_ctx, SSS_DP_FILTER_NAME "%s", name);
    }
    return talloc_asprintf(mem_ctx, SSS_DP_FILTER_ID "%u", id);
}

struct cache_req_dp_state {
    uint16_t dp_error;
    uint32_t error;
    struct cache_req_dp_entry carried;  /* blob on the state */
    /* for sssd:dp_request_done */
    uint64_t req_id;
    const char *domain;
    const char *entry;
    const char *filter;         /* copied only while traced, else "" */
};

/* The entry argument of the dp_request probes: "user", "enum_users" ... */
static const char *cache_req_dp_entry(uint32_t dp_type, const char *filter)
{
    bool all = strcmp(filter, SSS_DP_FILTER_ENUM) == 0;

    switch (dp_type & SSS_DP_TYPE_MASK) {
    case SSS_DP_USER: return all ? "enum_users" : "user";
    case SSS_DP_GROUP: return all ? "enum_groups" : "group";
    case SSS_DP_INITGROUPS: return "initgroups";
    case SSS_DP_NETGROUP: return "netgroup";
    }
    return "?";
}

/* Ends the call with sssd:dp_request_done. ret: EOK (state->dp_error and error hold the
 * back-end's answer) or why the call failed (dp_error TIMEOUT for no reply, else FATAL). */
static void cache_req_dp_finish(struct tevent_req *req, errno_t ret)
{
    struct cache_req_dp_state *state = tevent_req_data(req, struct cache_req_dp_state);

    if (PROBE_ENABLED(DP_REQUEST_DONE)) {
        int dp_error = ret == EOK ? state->dp_error
                                  : (ret == ERR_SBUS_NO_REPLY ? SSS_DP_ERR_TIMEOUT
                                                              : SSS_DP_ERR_FATAL);

        PROBE(DP_REQUEST_DONE, state->req_id, state->domain, state->entry, state->filter,
              dp_error, ret == EOK ? (int)state->error : ret);
    }
    if (ret != EOK) {
        tevent_req_error(req, ret);
        return;
    }
    tevent_req_done(req);
}

static void cache_req_dp_done(struct tevent_req *subreq);

struct tevent_req *cache_req_dp_send(TALLOC_CTX *mem_ctx, struct resp_ctx *rctx,
                                     struct resp_domain *dom, uint32_t dp_type,
                                     const char *filter, uint64_t req_id)
{
    struct cache_req_dp_state *state;
    struct tevent_req *req;
    struct tevent_req *subreq;
    errno_t ret;

    SSS_CHECK_ARG(rctx != NULL && dom != NULL && filter != NULL, NULL);
    req = tevent_req_create(mem_ctx, &state, struct cache_req_dp_state);
    if (req == NULL) {
        return NULL;
    }
    state->req_id = req_id;
    state->domain = dom->name;
    state->entry = cache_req_dp_entry(dp_type, filter);
    state->filter = "";
    if (PROBE_ENABLED(DP_REQUEST_SEND) || PROBE_ENABLED(DP_REQUEST_DONE)) {
        state->filter = talloc_strdup(state, filter);
        if (state->filter == NULL) {
            state->filter = "";
        }
        PROBE(DP_REQUEST_SEND, req_id, dom->name, state->entry, filter);
    }
    if (rctx->conn == NULL) {
        ret = ERR_SBUS_DISCONNECTED;
        goto done;
    }
    /* The call goes out under the id it carries (a background refresh has its own); its
     * message is made only if it is not chained onto an identical one in flight. */
    {
        SSS_REQ_ID_SCOPE(req_id);
        resp_metrics_dp_call();
        subreq = sbus_call_sssd_dataprovider_getAccountInfo_raw_send(
            state, rctx->conn, rctx->dp_timeout_ms, dom->bus_name, SSS_BUS_PATH,
            SSS_DP_FLAG_NONE, dp_type, filter, dom->name, "", 0, req_id);
    }
    if (subreq == NULL) {
        ret = ENOMEM;
        goto done;
    }
    rctx->dp_calls++;
    tevent_req_set_callback(subreq, cache_req_dp_done, req);
    return req;
done:
    cache_req_dp_finish(req, ret);
    return tevent_req_post(req, rctx->ev);
}

static void cache_req_dp_done(struct tevent_req *subreq)
{
    struct tevent_req *req = tevent_req_callback_data(subreq, struct tevent_req);
    struct cache_req_dp_state *state = tevent_req_data(req, struct cache_req_dp_state);
    DBusMessage *reply = NULL;
    const char *message = NULL;
    dbus_uint16_t dp_error = 0;
    dbus_uint32_t error = 0;
    dbus_uint64_t gen = 0;
    const uint8_t *blob = NULL;
    int len = 0;
    TALLOC_CTX *tmp_ctx = talloc_new(NULL);
    errno_t ret;

    if (tmp_ctx == NULL) {
        talloc_free(subreq);
        cache_req_dp_finish(req, ENOMEM);
        return;
    }
    ret = sbus_call_recv(tmp_ctx, subreq, &reply);
    talloc_free(subreq);
    if (ret != EOK) {
        goto done;
    }
    if (!dbus_message_get_args(reply, NULL, DBUS_TYPE_UINT16, &dp_error,
                               DBUS_TYPE_UINT32, &error, DBUS_TYPE_STRING, &message,
                               DBUS_TYPE_UINT64, &gen, DBUS_TYPE_ARRAY, DBUS_TYPE_BYTE,
                               &blob, &len, DBUS_TYPE_INVALID)) {
        /* An older back-end: the three first arguments only, no entry carried. */
        gen = 0;
        len = 0;
        if (!dbus_message_get_args(reply, NULL, DBUS_TYPE_UINT16, &dp_error,
                                   DBUS_TYPE_UINT32, &error, DBUS_TYPE_STRING, &message,
                                   DBUS_TYPE_INVALID)) {
            ret = ERR_SBUS_INVALID_ARGS;
            goto done;
        }
    }
    state->dp_error = dp_error;
    state->error = error;
    if (dp_error == SSS_DP_ERR_OK && gen != 0 && len > SYSDB_RCACHE_MAX_ENTRY) {
        /* Checked before the copy: the read cache would refuse it anyway, and the length
         * is the sender's. Nothing carried, the cache is read instead. */
        DEBUG(SSSDBG_TRACE_FUNC, "Carried entry of %d bytes over the read cache's limit: "
              "not taken\n", len);
    } else if (dp_error == SSS_DP_ERR_OK && gen != 0) {
        /* A copy: the message goes, and the read cache wants it aligned. */
        state->carried.blob = len > 0 ? talloc_memdup(state, blob, (size_t)len) : NULL;
        if (len == 0 || state->carried.blob != NULL) {
            state->carried.gen = gen;
            state->carried.len = (size_t)len;
        }
    }
    if (dp_error != 0) {
        DEBUG(SSSDBG_TRACE_FUNC, "Back-end answered dp_error %u, error %u: %s\n", dp_error,
              error, message);
    }
done:
    talloc_free(tmp_ctx);
    cache_req_dp_finish(req, ret);
}

errno_t cache_req_dp_recv(TALLOC_CTX *mem_ctx, struct tevent_req *req, uint16_t *_dp_error,
                          uint32_t *_error, struct cache_req_dp_entry *_entry)
{
    struct cache_req_dp_state *state = tevent_req_data(req, struct cache_req_dp_state);

    TEVENT_REQ_RETURN_ON_ERROR(req);
    *_dp_error = state->dp_error;
    *_error = state->error;
    if (_entry != NULL) {
        *_entry = state->carried;
        _entry->blob = talloc_steal(mem_ctx, state->carried.blob);
    }
    return EOK;
}

static void cache_req_refresh_done(struct tevent_req *subreq)
{
    uint16_t dp_error;
    uint32_t error;
    errno_t ret;

    ret = cache_req_dp_recv(NULL, subreq, &dp_error, &error, NULL);
    talloc_free(subreq);
    if (ret != EOK) {
        DEBUG(SSSDBG_TRACE_FUNC, "Background refresh failed: %s\n", sss_strerror(ret));
    }
}

void cache_req_dp_refresh(struct resp_ctx *rctx, struct resp_domain *dom, uint32_t dp_type,
                          const char *filter, uint64_t req_id)
{
    struct tevent_req *subreq;

    DEBUG(SSSDBG_TRACE_FUNC, "Refreshing %s in domain %s in the background\n", filter,
          dom->name);
    subreq = cache_req_dp_send(rctx, rctx, dom, dp_type, filter, req_id);
    if (subreq == NULL) {
        DEBUG(SSSDBG_OP_FAILURE, "Cannot start a background refresh: out of memory\n");
        return;
    }
    tevent_req_set_callback(subreq, cache_req_refresh_done, NULL);
}
