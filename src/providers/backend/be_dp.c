/*
 * The bus side of the back-end: sssd.dataprovider.getAccountInfo at SSS_BUS_PATH (an
 * asynchronous handler: the reply leaves once the cache write committed, or for a user
 * found by name or uid just before it: be_reply_first.c) and the
 * sssd.service signals that drive the online state (GoOffline, ResetOffline).
 * A getAccountInfo reply that says the cache is up to date also carries what a read of the
 * asked key gives right after the commit (sysdb_reply.h), so that the responder need not
 * read it back from ldb; that is also what lets a reply go before the commit.
 * The handlers only check the domain and hand the request to be_account.c, and
 * sssd.dataprovider.pamHandler (never logged with its tokens) to be_pam.c.
 */
#include <strings.h>

#include "providers/backend/be_ctx.h"
#include "providers/backend/be_pam.h"
#include "providers/backend/be_sudo.h"
#include "sss_iface/sss_iface.h"
#include "sss_iface/sss_dp.h"
#include "db/sysdb_reply.h"

struct be_dp_state {
    struct be_ctx *be;
    uint64_t req_id;
    uint32_t entry_type;        /* without flags */
    const char *filter;         /* a copy; NULL when out of memory (nothing carried) */
    uint16_t dp_error;
    uint32_t error;
    const char *message;
    uint64_t gen;               /* the carried entry: gen 0 when none */
    uint8_t *entry;
    size_t entry_len;
};

/* The read cache key a getAccountInfo of type and filter stands for. false: none (by
 * e-mail, enumeration, netgroups, a bad filter). */
static bool be_dp_reply_key(uint32_t type, const char *filter, struct sysdb_reply_key *_key)
{
    struct be_filter f;
    const char *why;

    if (be_parse_filter(type, filter, &f, &why) != EOK) {
        return false;
    }
    if (f.kind != BE_FILTER_NAME && f.kind != BE_FILTER_ID) {
        return false;
    }
    switch (type) {
    case SSS_DP_USER:
        _key->kind = f.kind == BE_FILTER_NAME ? SYSDB_RC_USER_NAME : SYSDB_RC_USER_UID;
        break;
    case SSS_DP_GROUP:
        _key->kind = f.kind == BE_FILTER_NAME ? SYSDB_RC_GROUP_NAME : SYSDB_RC_GROUP_GID;
        break;
    case SSS_DP_INITGROUPS:
        if (f.kind != BE_FILTER_NAME) {
            return false;
        }
        _key->kind = SYSDB_RC_INITGR;
        break;
    default:
        return false;
    }
    _key->name = f.name;
    _key->id = f.id;
    return true;
}

/* The answer is sent before the store (be_reply_first.c): the entry being stored, which
 * is what a read of key gives once it commits. Only the requests of its operation are
 * answered while it is set: same type and filter. */
static void be_dp_carry_first(const struct be_carried *c, struct be_dp_state *state,
                              const struct sysdb_reply_key *key)
{
    bool same;

    same = c->type == state->entry_type
           && (key->kind == SYSDB_RC_USER_NAME
               ? c->filter.kind == BE_FILTER_NAME && strcmp(c->filter.name, key->name) == 0
               : key->kind == SYSDB_RC_USER_UID && c->filter.kind == BE_FILTER_ID
                 && c->filter.id == key->id);
    if (!same) {
        DEBUG(SSSDBG_CRIT_FAILURE, "An answer of another request while one is carried: "
              "nothing carried\n");
        return;
    }
    state->entry = talloc_memdup(state, c->blob, c->len);
    if (state->entry != NULL) {
        state->gen = c->gen;
        state->entry_len = c->len;
    }
}

/* After a successful request: the entry to carry, if there is one to vouch for. Nothing
 * carried is never an error: the caller then reads its cache. */
static void be_dp_carry_entry(struct be_ctx *be, struct be_dp_state *state)
{
    struct sysdb_reply_key key;
    void *blob = NULL;
    size_t len = 0;
    uint64_t gen = 0;
    errno_t ret;

    if (state->dp_error != SSS_DP_ERR_OK || be->sysdb == NULL || state->filter == NULL
            || !be_dp_reply_key(state->entry_type, state->filter, &key)) {
        return;
    }
    if (be->carrying != NULL) {
        be_dp_carry_first(be->carrying, state, &key);
        return;
    }
    ret = sysdb_reply_get(state, be->sysdb, &key, &gen, &blob, &len);
    if (ret != EOK) {
        DEBUG(SSSDBG_TRACE_INTERNAL, "No entry carried in the reply: %s\n", sss_strerror(ret));
        return;
    }
    if (len > UINT32_MAX) {
        talloc_free(blob);
        return;
    }
    state->gen = gen;
    state->entry = blob;
    state->entry_len = len;
}

static void be_dp_get_account_info_done(struct tevent_req *subreq);

static struct tevent_req *
be_dp_get_account_info_send(TALLOC_CTX *mem_ctx, struct tevent_context *ev,
                            struct sbus_request *sbus_req, void *data, uint32_t dp_flags,
                            uint32_t entry_type, const char *filter, const char *domain,
                            const char *extra, uint32_t cli_id, uint64_t req_id)
{
    struct be_ctx *be = talloc_get_type(data, struct be_ctx);
    struct be_dp_state *state;
    struct tevent_req *req;
    struct tevent_req *subreq = NULL;
    bool ours;

    req = tevent_req_create(mem_ctx, &state, struct be_dp_state);
    if (req == NULL) {
        return NULL;
    }
    state->req_id = req_id;
    state->be = be;
    state->entry_type = entry_type & SSS_DP_TYPE_MASK;
    state->filter = talloc_strdup(state, filter != NULL ? filter : "");
    /* The caller's request id for the check and the request; the bus dispatch this runs
     * in (and a post of the refusal) goes on under its own. */
    {
        SSS_REQ_ID_SCOPE(req_id);

        DEBUG(SSSDBG_TRACE_INTERNAL, "getAccountInfo from %s (cli_id %u, flags %#x): type "
              "%#x, filter '%s', domain '%s'\n", sbus_req->sender, cli_id, dp_flags,
              entry_type, filter, domain);
        ours = domain != NULL && strcasecmp(domain, be->domain) == 0;
        if (!ours) {
            state->dp_error = SSS_DP_ERR_FATAL;
            state->error = EINVAL;
            state->message = talloc_asprintf(state, "domain '%s' is not served here (this "
                                             "is the back-end of %s)", domain, be->domain);
            DEBUG(SSSDBG_OP_FAILURE, "%s\n", state->message);
        } else {
            subreq = be_account_info_send(state, ev, be, entry_type, filter, req_id);
            if (subreq != NULL) {
                be_account_info_reply_first(subreq);
            }
        }
    }
    if (!ours) {
        return sss_req_post(req, ev, state->message == NULL ? ENOMEM : EOK);
    }
    if (subreq == NULL) {
        return sss_req_post(req, ev, ENOMEM);
    }
    tevent_req_set_callback(subreq, be_dp_get_account_info_done, req);
    return req;
}

static void be_dp_get_account_info_done(struct tevent_req *subreq)
{
    struct tevent_req *req = tevent_req_callback_data(subreq, struct tevent_req);
    struct be_dp_state *state = tevent_req_data(req, struct be_dp_state);
    errno_t ret;

    ret = be_account_info_recv(state, subreq, &state->dp_error, &state->error,
                               &state->message);
    talloc_free(subreq);
    if (ret == EOK) {
        SSS_REQ_ID_SCOPE(state->req_id);
        be_dp_carry_entry(state->be, state);
    }
    be_req_finish(req, ret);
}

static errno_t be_dp_get_account_info_recv(TALLOC_CTX *mem_ctx, struct tevent_req *req,
                                           uint16_t *_dp_error, uint32_t *_error,
                                           const char **_message, uint64_t *_gen,
                                           const uint8_t **_entry, uint32_t *_n_entry)
{
    struct be_dp_state *state = tevent_req_data(req, struct be_dp_state);

    TEVENT_REQ_RETURN_ON_ERROR(req);
    *_dp_error = state->dp_error;
    *_error = state->error;
    *_message = talloc_steal(mem_ctx, state->message);
    *_gen = state->gen;
    *_entry = talloc_steal(mem_ctx, state->entry);
    *_n_entry = (uint32_t)state->entry_len;
    return EOK;
}

/* ---- pamHandler ---- */

struct be_dp_pam_state {
    uint32_t status;
    uint8_t *items;
    size_t items_len;
};

static void be_dp_pam_done(struct tevent_req *subreq);

static struct tevent_req *
be_dp_pam_send(TALLOC_CTX *mem_ctx, struct tevent_context *ev, struct sbus_request *sbus_req,
               void *data, uint32_t cmd, const char *user, const char *domain,
               const char *service, const char *tty, const char *ruser, const char *rhost,
               uint32_t cli_pid, uint32_t cli_flags, bool priv, uint32_t authtok_type,
               const uint8_t *authtok, uint32_t n_authtok, uint32_t newauthtok_type,
               const uint8_t *newauthtok, uint32_t n_newauthtok, uint64_t req_id)
{
    struct be_ctx *be = talloc_get_type(data, struct be_ctx);
    struct be_dp_pam_state *state;
    struct tevent_req *req;
    struct tevent_req *subreq;
    struct be_pam_req preq = {
        .cmd = cmd, .user = user, .service = service, .tty = tty, .ruser = ruser,
        .rhost = rhost, .cli_pid = cli_pid, .cli_flags = cli_flags, .priv = priv,
        .authtok = { authtok_type, authtok, n_authtok },
        .newauthtok = { newauthtok_type, newauthtok, n_newauthtok },
        .req_id = req_id,
    };
    SSS_REQ_ID_SCOPE(req_id);

    req = tevent_req_create(mem_ctx, &state, struct be_dp_pam_state);
    if (req == NULL) {
        return NULL;
    }
    if (domain == NULL || strcasecmp(domain, be->domain) != 0 || be->pam == NULL) {
        DEBUG(SSSDBG_OP_FAILURE, "pamHandler from %s for domain '%s' refused (this is the "
              "back-end of %s)\n", sbus_req->sender, domain, be->domain);
        return sss_req_post(req, ev, EINVAL);
    }
    subreq = be_pam_send(state, ev, be, &preq);
    if (subreq == NULL) {
        return sss_req_post(req, ev, ENOMEM);
    }
    tevent_req_set_callback(subreq, be_dp_pam_done, req);
    return req;
}

static void be_dp_pam_done(struct tevent_req *subreq)
{
    struct tevent_req *req = tevent_req_callback_data(subreq, struct tevent_req);
    struct be_dp_pam_state *state = tevent_req_data(req, struct be_dp_pam_state);
    errno_t ret;

    ret = be_pam_recv(state, subreq, &state->status, &state->items, &state->items_len);
    talloc_free(subreq);
    be_req_finish(req, ret);
}

static errno_t be_dp_pam_recv(TALLOC_CTX *mem_ctx, struct tevent_req *req,
                              uint32_t *_status, const uint8_t **_items, uint32_t *_n_items)
{
    struct be_dp_pam_state *state = tevent_req_data(req, struct be_dp_pam_state);

    TEVENT_REQ_RETURN_ON_ERROR(req);
    *_status = state->status;
    *_items = talloc_steal(mem_ctx, state->items);
    *_n_items = (uint32_t)state->items_len;
    return EOK;
}

/* ---- sudoHandler: the request itself is be_sudo.c's ---- */
static struct tevent_req *
be_dp_sudo_handler_send(TALLOC_CTX *mem_ctx, struct tevent_context *ev,
                        struct sbus_request *sbus_req, void *data, uint32_t dp_flags,
                        uint32_t type, const char **rules, uint64_t req_id)
{
    struct be_ctx *be = talloc_get_type(data, struct be_ctx);

    {
        SSS_REQ_ID_SCOPE(req_id);
        DEBUG(SSSDBG_TRACE_INTERNAL, "sudoHandler from %s (flags %#x): type %u\n",
              sbus_req->sender, dp_flags, type);
    }
    return be_sudo_handler_send(mem_ctx, ev, be, type, rules, req_id);
}

static void be_dp_go_offline(struct sbus_request *sbus_req, void *data)
{
    struct be_ctx *be = talloc_get_type(data, struct be_ctx);

    DEBUG(SSSDBG_TRACE_FUNC, "GoOffline from %s\n", sbus_req->sender);
    be_go_offline(be, "asked by sssd.service.GoOffline");
}

static void be_dp_reset_offline(struct sbus_request *sbus_req, void *data)
{
    struct be_ctx *be = talloc_get_type(data, struct be_ctx);

    DEBUG(SSSDBG_TRACE_FUNC, "ResetOffline from %s: %s\n", sbus_req->sender,
          be_is_offline(be) ? "probing the servers now" : "forgetting bad server marks");
    be_reset_offline(be);
}

errno_t be_dp_register(struct be_ctx *be, struct sbus_connection *conn)
{
    struct sbus_method *methods;
    struct sbus_interface *iface;
    struct sbus_listener *listeners;
    errno_t ret;

    SSS_CHECK_ARG(be != NULL, EINVAL);
    SSS_CHECK_ARG(conn != NULL, EINVAL);
    methods = talloc_zero_array(be, struct sbus_method, 4);
    iface = talloc_zero(be, struct sbus_interface);
    listeners = talloc_zero_array(be, struct sbus_listener, 3);
    if (methods == NULL || iface == NULL || listeners == NULL) {
        return ENOMEM;
    }
    methods[0] = (struct sbus_method)SBUS_METHOD_ASYNC_sssd_dataprovider_getAccountInfo(
        be_dp_get_account_info_send, be_dp_get_account_info_recv, be);
    methods[1] = (struct sbus_method)SBUS_METHOD_ASYNC_sssd_dataprovider_pamHandler(
        be_dp_pam_send, be_dp_pam_recv, be);
    methods[2] = (struct sbus_method)SBUS_METHOD_ASYNC_sssd_dataprovider_sudoHandler(
        be_dp_sudo_handler_send, be_sudo_handler_recv, be);
    methods[3] = (struct sbus_method)SBUS_METHODS_END;
    iface->name = SBUS_IFACE_sssd_dataprovider;
    iface->methods = methods;
    listeners[0] = (struct sbus_listener)SBUS_LISTENER_sssd_service_GoOffline(
        be_dp_go_offline, be);
    listeners[1] = (struct sbus_listener)SBUS_LISTENER_sssd_service_ResetOffline(
        be_dp_reset_offline, be);
    listeners[2] = (struct sbus_listener)SBUS_LISTENERS_END;

    be->conn = conn;
    ret = sbus_connection_add_interface(conn, SSS_BUS_PATH, iface);
    if (ret != EOK) {
        goto done;
    }
    ret = sbus_connection_add_listeners(conn, listeners);
    if (ret == EOK) {
        ret = be_status_register(be, conn);
    }
done:
    if (ret != EOK) {
        DEBUG(SSSDBG_FATAL_FAILURE, "Cannot serve sssd.dataprovider: %s\n", sss_strerror(ret));
    }
    return ret;
}
