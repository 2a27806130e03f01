/*
 * sss_cache, telling the responders: connect to the master bus as a plain client, emit the
 * memory cache and negative cache signals, then ask the bus whether sssd.nss has an owner.
 * Signals need no answer, but this question does, and the bus handles one connection's
 * messages in order: once it answers, the signals sent before have been routed, so the
 * connection may be closed without losing them. The answer also says whether a running
 * sssd_nss was there to reset its memory cache; when not, the caller resets the files.
 */
#include "util/util.h"

#include "sss_iface/sss_iface.h"
#include "tools/sss_cache.h"

bool sss_cache_notice_empty(const struct sss_cache_notice *n)
{
    return !(n->mc_users || n->mc_groups || n->mc_initgroups || n->n_gids > 0
             || n->neg_users || n->neg_groups);
}

struct sss_cache_notify_state {
    struct tevent_context *ev;
    const struct sss_cache_notice *notice;
    struct sbus_connection *conn;
    bool nss_told;
};

static void sss_cache_notify_connected(struct tevent_req *subreq);
static void sss_cache_notify_asked(struct tevent_req *subreq);

struct tevent_req *sss_cache_notify_send(TALLOC_CTX *mem_ctx, struct tevent_context *ev,
                                         const char *address,
                                         const struct sss_cache_notice *notice)
{
    struct sss_cache_notify_state *state;
    struct tevent_req *req;
    struct tevent_req *subreq;

    req = tevent_req_create(mem_ctx, &state, struct sss_cache_notify_state);
    if (req == NULL) {
        return NULL;
    }
    if (ev == NULL || address == NULL || notice == NULL) {
        DEBUG(SSSDBG_CRIT_FAILURE, "Invalid argument: %s\n",
              ev == NULL ? "ev != NULL" : address == NULL ? "address != NULL"
                                                          : "notice != NULL");
        return sss_req_post(req, ev, EINVAL);
    }
    state->ev = ev;
    state->notice = notice;

    subreq = sbus_connect_send(state, ev, address, NULL);
    if (subreq == NULL) {
        return sss_req_post(req, ev, ENOMEM);
    }
    tevent_req_set_callback(subreq, sss_cache_notify_connected, req);
    return req;
}

/* An argument-free signal, and whether the notice wants it. */
struct sss_cache_signal {
    bool wanted;
    errno_t (*emit)(struct sbus_connection *conn, const char *path);
};

/* Emits the wanted signals of a list, in order; stops at the first failure. */
static errno_t sss_cache_emit_list(struct sbus_connection *conn,
                                   const struct sss_cache_signal *list, size_t count)
{
    errno_t ret;
    size_t i;

    for (i = 0; i < count; i++) {
        if (!list[i].wanted) {
            continue;
        }
        ret = list[i].emit(conn, SSS_BUS_PATH);
        if (ret != EOK) {
            return ret;
        }
    }
    return EOK;
}

/* Emits every signal of the notice; stops at the first failure. */
static errno_t sss_cache_notify_emit(struct sbus_connection *conn,
                                     const struct sss_cache_notice *n)
{
    const struct sss_cache_signal all[] = {
        { n->mc_users, sbus_emit_sssd_nss_MemoryCache_InvalidateAllUsers },
        { n->mc_groups, sbus_emit_sssd_nss_MemoryCache_InvalidateAllGroups },
    };
    const struct sss_cache_signal then[] = {
        { n->mc_initgroups, sbus_emit_sssd_nss_MemoryCache_InvalidateAllInitgroups },
        { n->neg_users, sbus_emit_sssd_Responder_NegativeCache_ResetUsers },
        { n->neg_groups, sbus_emit_sssd_Responder_NegativeCache_ResetGroups },
    };
    errno_t ret;
    size_t i;

    ret = sss_cache_emit_list(conn, all, SSS_ARRAY_SIZE(all));
    if (ret != EOK) {
        return ret;
    }
    /* Groups one by one, unless they all go. */
    for (i = 0; !n->mc_groups && i < n->n_gids; i++) {
        ret = sbus_emit_sssd_nss_MemoryCache_InvalidateGroupById(conn, SSS_BUS_PATH,
                                                                 n->gids[i]);
        if (ret != EOK) {
            return ret;
        }
    }
    return sss_cache_emit_list(conn, then, SSS_ARRAY_SIZE(then));
}

static void sss_cache_notify_connected(struct tevent_req *subreq)
{
    struct tevent_req *req = tevent_req_callback_data(subreq, struct tevent_req);
    struct sss_cache_notify_state *state = tevent_req_data(req,
                                                          struct sss_cache_notify_state);
    errno_t ret;

    ret = sbus_connect_recv(state, subreq, &state->conn);
    talloc_free(subreq);
    if (ret != EOK) {
        tevent_req_error(req, ret);
        return;
    }
    ret = sss_cache_notify_emit(state->conn, state->notice);
    if (ret != EOK) {
        tevent_req_error(req, ret);
        return;
    }
    subreq = sbus_call_org_freedesktop_DBus_NameHasOwner_send(state, state->conn,
                                                              SBUS_DBUS_NAME, SBUS_DBUS_PATH,
                                                              SSS_BUS_NSS);
    if (subreq == NULL) {
        tevent_req_error(req, ENOMEM);
        return;
    }
    tevent_req_set_callback(subreq, sss_cache_notify_asked, req);
}

static void sss_cache_notify_asked(struct tevent_req *subreq)
{
    struct tevent_req *req = tevent_req_callback_data(subreq, struct tevent_req);
    struct sss_cache_notify_state *state = tevent_req_data(req,
                                                          struct sss_cache_notify_state);
    bool has_owner = false;
    errno_t ret;

    ret = sbus_call_org_freedesktop_DBus_NameHasOwner_recv(state, subreq, &has_owner);
    talloc_free(subreq);
    if (ret != EOK) {
        tevent_req_error(req, ret);
        return;
    }
    state->nss_told = has_owner;
    tevent_req_done(req);
}

errno_t sss_cache_notify_recv(struct tevent_req *req, bool *_nss_told)
{
    struct sss_cache_notify_state *state = tevent_req_data(req,
                                                          struct sss_cache_notify_state);

    TEVENT_REQ_RETURN_ON_ERROR(req);
    if (_nss_told != NULL) {
        *_nss_told = state->nss_told;
    }
    return EOK;
}

errno_t sss_cache_notify(const char *address, const struct sss_cache_notice *notice,
                         int timeout_ms, bool *_nss_told)
{
    TALLOC_CTX *tmp_ctx;
    struct tevent_context *ev;
    struct tevent_req *req = NULL;
    errno_t ret;

    if (timeout_ms <= 0) {
        timeout_ms = SSS_CACHE_BUS_TIMEOUT_MS;
    }
    tmp_ctx = talloc_new(NULL);
    if (tmp_ctx == NULL) {
        return ENOMEM;
    }
    ev = tevent_context_init(tmp_ctx);
    if (ev == NULL) {
        ret = ENOMEM;
        goto done;
    }
    req = sss_cache_notify_send(tmp_ctx, ev, address, notice);
    if (req == NULL) {
        ret = ENOMEM;
        goto done;
    }
    if (!tevent_req_set_endtime(req, ev, tevent_timeval_current_ofs(timeout_ms / 1000,
                                                                     (timeout_ms % 1000) * 1000))) {
        ret = ENOMEM;
        goto done;
    }
    if (!tevent_req_poll(req, ev)) {
        ret = EIO;
        goto done;
    }
    ret = sss_cache_notify_recv(req, _nss_told);

done:
    /* The connection (inside req) goes before the loop it runs on. */
    talloc_free(req);
    talloc_free(tmp_ctx);
    return ret;
}
