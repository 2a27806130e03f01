/*
 * One PAM request in sssd_pam, from the client's packet to the reply:
 *
 *   1. the body is parsed (pam_req.c); a malformed one gets PAM_SYSTEM_ERR, as from SSSD;
 *   2. the domains the client may use: pam_sss's domains= list when given, and for a
 *      client whose uid is not in pam_trusted_users only pam_public_domains;
 *   3. the user is looked up with cache_req as an initgroups (identity and groups), asking
 *      the back-end first unless this responder refreshed that name less than
 *      pam_id_timeout seconds ago (so one login's auth, account and session steps cost one
 *      directory round, and the groups access control sees are the login's own);
 *      not found, or found in a domain the client may not use -> PAM_USER_UNKNOWN;
 *   4. sssd.dataprovider.pamHandler on the user's back-end with the tokens; no answer (the
 *      back-end is gone, or too slow) -> PAM_AUTHINFO_UNAVAIL, never success;
 *   5. the reply: the status, DOMAIN_NAME, SSSD's account messages (below), then the
 *      back-end's items minus what pam_verbosity hides (SSSD's filter_responses).
 * Account messages, as SSSD's pam_reply adds them: USER_INFO ACCOUNT_EXPIRED ("Permission
 * denied. " and the text, shown by pam_sss) carrying pam_account_expired_message when the
 * status is PAM_ACCT_EXPIRED and the service is sshd or pam_verbosity is at least 2, and
 * carrying pam_account_locked_message when the back-end says the account is locked
 * (SSS_DP_PAM_ACCOUNT_LOCKED, an item that never leaves).
 * The tokens live on the request (wiped when it is freed) and are never logged.
 */
#include <strings.h>

#include "responder/pam/pam_private.h"
#include "responder/common/cache_req.h"
#include "responder/common/resp_names.h"
#include "sbus/sbus_gen.h"
#include "sss_iface/sss_iface.h"
#include "sss_iface/sss_dp.h"
#include "util/sss_csv.h"
#include "util/sss_hash.h"

#include <security/pam_appl.h>

struct pam_recent {
    char *name;
    time_t at;
};

struct pam_cmd_state {
    struct resp_request *rreq;
    struct pam_ctx *pctx;
    bool priv;
    uid_t uid;
    uint64_t req_id;
    struct pam_data *pd;
    const char *domain;             /* the user's domain once known */
    char *short_name;
};

static void pam_cmd_lookup_done(struct tevent_req *subreq);
static void pam_cmd_dp_done(struct tevent_req *subreq);

/* ---- the reply --------------------------------------------------------------------- */

struct pam_filter_ctx {
    struct pam_cmd_state *state;
    struct pam_reply_build *b;
    bool locked;                    /* the back-end sent SSS_DP_PAM_ACCOUNT_LOCKED */
};

/* SSSD's filter_responses: what pam_verbosity lets through. */
static bool pam_item_shown(int verbosity, uint32_t type, const uint8_t *data, uint32_t len)
{
    uint32_t info;
    int64_t expire;

    if (type == SSS_PAM_DOMAIN_NAME || (type & 0x01000000) != 0) {
        return false;       /* ours alone; SSS_SERVER_INFO items never leave */
    }
    if (type != SSS_PAM_USER_INFO) {
        return true;
    }
    if (verbosity == PAM_VERBOSITY_NO_MESSAGES || len < sizeof(uint32_t)) {
        return false;
    }
    memcpy(&info, data, sizeof(info));
    if (info == SSS_PAM_USER_INFO_OFFLINE_AUTH) {
        if (len != sizeof(uint32_t) + sizeof(int64_t)) {
            return false;
        }
        memcpy(&expire, data + sizeof(uint32_t), sizeof(expire));
        if ((expire == 0 && verbosity < PAM_VERBOSITY_INFO)
                || (expire > 0 && verbosity < PAM_VERBOSITY_IMPORTANT)) {
            return false;
        }
    }
    return true;
}

static errno_t pam_add_backend_item(void *pvt, uint32_t type, const uint8_t *data,
                                    uint32_t len)
{
    struct pam_filter_ctx *f = pvt;

    if (type == SSS_DP_PAM_ACCOUNT_LOCKED) {
        f->locked = true;
        return EOK;
    }
    if (!pam_item_shown(f->state->pctx->verbosity, type, data, len)) {
        DEBUG(SSSDBG_TRACE_ALL, "reply item %#x not sent (pam_verbosity %d)\n", type,
              f->state->pctx->verbosity);
        return EOK;
    }
    return pam_reply_add(f->b, type, data, len);
}

/* USER_INFO ACCOUNT_EXPIRED with msg: uint32 subtype, uint32 length, the text (no NUL). */
static errno_t pam_add_account_msg(struct pam_reply_build *b, const char *msg)
{
    uint32_t len = (uint32_t)strnlen(msg, SSS_DP_PAM_MAX_ITEMS_LEN);
    uint32_t head[2] = { SSS_PAM_USER_INFO_ACCOUNT_EXPIRED, len };
    uint8_t buf[sizeof(head) + SSS_DP_PAM_MAX_ITEMS_LEN];

    memcpy(buf, head, sizeof(head));
    memcpy(buf + sizeof(head), msg, len);
    return pam_reply_add(b, SSS_PAM_USER_INFO, buf, (uint32_t)sizeof(head) + len);
}

/* The back-end's "account locked" mark, looked for before anything is added. */
static errno_t pam_find_locked(void *pvt, uint32_t type, const uint8_t *data, uint32_t len)
{
    (void)data;
    (void)len;
    if (type == SSS_DP_PAM_ACCOUNT_LOCKED) {
        *(bool *)pvt = true;
    }
    return EOK;
}

/* Answers the client; items may be NULL. Ends the request either way. */
static void pam_cmd_reply(struct pam_cmd_state *state, uint32_t status,
                          const uint8_t *items, size_t items_len)
{
    struct pam_reply_build b;
    struct pam_filter_ctx f = { .state = state, .b = &b };
    errno_t ret;

    ret = pam_reply_start(&b, state, state->pd != NULL ? state->pd->cmd
                                                        : resp_request_cmd(state->rreq),
                          status);
    if (ret == EOK && state->domain != NULL) {
        ret = pam_reply_add(&b, SSS_PAM_DOMAIN_NAME, state->domain,
                            strlen(state->domain) + 1);
    }
    if (ret == EOK && items != NULL && items_len > 0) {
        (void)pam_items_walk(items, items_len, pam_find_locked, &f.locked);
    }
    /* SSSD's order on the wire: the locked message, then the expired one. */
    if (ret == EOK && f.locked) {
        ret = pam_add_account_msg(&b, state->pctx->locked_message);
    }
    if (ret == EOK && status == PAM_ACCT_EXPIRED && state->pd != NULL
            && (strcasecmp(state->pd->service, "sshd") == 0
                || state->pctx->verbosity >= PAM_VERBOSITY_INFO)) {
        ret = pam_add_account_msg(&b, state->pctx->expired_message);
    }
    if (ret == EOK && items != NULL && items_len > 0) {
        ret = pam_items_walk(items, items_len, pam_add_backend_item, &f);
        if (ret == EINVAL) {
            DEBUG(SSSDBG_OP_FAILURE, "the back-end's reply items are malformed: dropped\n");
            ret = EOK;
        }
    }
    DEBUG(SSSDBG_TRACE_FUNC, "PAM %s for [%s]@[%s] (%s socket): pam_status %u\n",
          state->pd != NULL ? pam_cmd_name(state->pd->cmd) : "request",
          state->pd != NULL ? state->pd->user : "", state->domain ? state->domain : "",
          state->priv ? "private" : "public", status);
    if (ret != EOK) {
        DEBUG(SSSDBG_CRIT_FAILURE, "Cannot build the PAM reply: %s\n", sss_strerror(ret));
        resp_request_abort(state->rreq);
        return;
    }
    /* The tokens are not needed any more. */
    if (state->pd != NULL) {
        pam_tok_clear(&state->pd->authtok);
        pam_tok_clear(&state->pd->newauthtok);
    }
    ret = resp_request_done(state->rreq, b.reply);
    if (ret != EOK) {
        resp_request_abort(state->rreq);
    }
}

/* ---- which domains the client may use ------------------------------------------------ */

bool pam_uid_trusted(struct pam_ctx *pctx, uid_t uid)
{
    size_t i;

    if (pctx->trusted_uids == NULL || uid == 0) {
        return true;
    }
    for (i = 0; i < pctx->num_trusted; i++) {
        if (pctx->trusted_uids[i] == uid) {
            return true;
        }
    }
    return false;
}

/* Whether name is in the comma-separated list (pam_sss's domains=), ignoring case and
 * blanks around the names. */
static bool pam_in_csv(const char *list, const char *name)
{
    const char *pos = list;
    const char *item;
    size_t n = strlen(name);
    size_t len;

    while (sss_csv_next(&pos, " ", &item, &len)) {
        if (len > 0 && len == n && strncasecmp(item, name, n) == 0) {
            return true;
        }
    }
    return false;
}

static bool pam_domain_allowed(struct pam_cmd_state *state, const char *domain)
{
    struct pam_ctx *pctx = state->pctx;
    size_t i;

    if (state->pd->domains[0] != '\0' && !pam_in_csv(state->pd->domains, domain)) {
        return false;
    }
    if (pam_uid_trusted(pctx, state->uid) || pctx->public_all) {
        return true;
    }
    for (i = 0; pctx->public_domains[i] != NULL; i++) {
        if (strcasecmp(pctx->public_domains[i], domain) == 0) {
            return true;
        }
    }
    return false;
}

/* ---- pam_id_timeout: who was refreshed lately ------------------------------------------ */

static bool pam_recent_keep(void *item, void *ctx)
{
    struct pam_recent *r = item;
    const time_t *cutoff = ctx;

    if (r->at >= *cutoff) {
        return true;
    }
    talloc_free(r);
    return false;
}

static bool pam_recent_fresh(struct pam_ctx *pctx, const char *name, time_t now)
{
    struct pam_recent *r;

    if (pctx->recent == NULL || pctx->id_timeout == 0) {
        return false;
    }
    r = sss_hash_table_get(pctx->recent, sss_hash_str(name), name);
    return r != NULL && now - r->at < (time_t)pctx->id_timeout && now >= r->at;
}

static void pam_recent_note(struct pam_ctx *pctx, const char *name, time_t now)
{
    uint64_t h = sss_hash_str(name);
    struct pam_recent *r;
    time_t cutoff = now - (time_t)pctx->id_timeout;

    if (pctx->recent == NULL || pctx->id_timeout == 0) {
        return;
    }
    r = sss_hash_table_get(pctx->recent, h, name);
    if (r != NULL) {
        r->at = now;
        return;
    }
    if (sss_hash_table_count(pctx->recent) >= PAM_ID_TABLE_MAX) {
        (void)sss_hash_table_filter(pctx->recent, pam_recent_keep, &cutoff);
        if (sss_hash_table_count(pctx->recent) >= PAM_ID_TABLE_MAX) {
            cutoff = now + 1;
            (void)sss_hash_table_filter(pctx->recent, pam_recent_keep, &cutoff);
        }
    }
    r = talloc_zero(pctx->recent, struct pam_recent);
    if (r == NULL) {
        return;
    }
    r->name = talloc_strdup(r, name);
    r->at = now;
    if (r->name == NULL || sss_hash_table_insert(pctx->recent, h, r->name, r, NULL) != EOK) {
        talloc_free(r);     /* only costs a refresh next time */
    }
}

/* ---- the request ---------------------------------------------------------------------- */

/* libdbus takes valid UTF-8 only: a field that is not is sent empty (it only informs). */
static void pam_utf8_or_empty(char **field)
{
    if (!sbus_gen_valid_string(*field)) {
        (*field)[0] = '\0';
    }
}

errno_t pam_cmd_forward(struct resp_request *rreq)
{
    struct pam_sock *sock = resp_request_pvt(rreq);
    struct pam_cmd_state *state;
    struct tevent_req *subreq;
    const struct ucred *cred;
    struct resp_domain *dom = NULL;
    const uint8_t *body;
    size_t len;
    uint32_t flags;
    errno_t ret;

    state = talloc_zero(rreq, struct pam_cmd_state);
    if (state == NULL) {
        return ENOMEM;
    }
    state->rreq = rreq;
    state->pctx = sock->pctx;
    state->req_id = resp_request_id(rreq);
    cred = resp_client_creds(resp_request_client(rreq));
    state->uid = cred->uid;
    /* Only root's requests on the private socket are privileged (SSSD's pd->priv). */
    state->priv = sock->priv && cred->uid == 0;

    body = resp_request_body(rreq, &len);
    ret = pam_req_parse(state, resp_request_cmd(rreq), body, len, &state->pd);
    if (ret != EOK) {
        DEBUG(SSSDBG_OP_FAILURE, "malformed PAM request %s from uid %u: %s\n",
              pam_cmd_name(resp_request_cmd(rreq)), (unsigned)cred->uid, sss_strerror(ret));
        state->pd = NULL;
        pam_cmd_reply(state, PAM_SYSTEM_ERR, NULL, 0);
        return EOK;
    }
    DEBUG(SSSDBG_TRACE_FUNC, "PAM %s for [%s] service [%s] from uid %u pid %u\n",
          pam_cmd_name(state->pd->cmd), sbus_gen_valid_string(state->pd->user)
          ? state->pd->user : "(not UTF-8)", sbus_gen_valid_string(state->pd->service)
          ? state->pd->service : "", (unsigned)cred->uid, (unsigned)cred->pid);
    if (!sbus_gen_valid_string(state->pd->user)) {
        pam_cmd_reply(state, PAM_USER_UNKNOWN, NULL, 0);
        return EOK;
    }
    pam_utf8_or_empty(&state->pd->service);
    pam_utf8_or_empty(&state->pd->tty);
    pam_utf8_or_empty(&state->pd->ruser);
    pam_utf8_or_empty(&state->pd->rhost);
    pam_utf8_or_empty(&state->pd->domains);

    ret = resp_parse_name(state, state->pctx->rctx, state->pd->user, &dom,
                          &state->short_name);
    if (ret != EOK || (dom != NULL && !pam_domain_allowed(state, dom->name))) {
        DEBUG(SSSDBG_TRACE_FUNC, "[%s]: %s\n", state->pd->user, ret != EOK
              ? "no such domain or name" : "a domain this client may not use");
        pam_cmd_reply(state, PAM_USER_UNKNOWN, NULL, 0);
        return EOK;
    }
    flags = pam_recent_fresh(state->pctx, state->pd->user, time(NULL))
            ? 0 : CACHE_REQ_BYPASS_CACHE;
    subreq = cache_req_send(state, resp_request_ev(rreq), state->pctx->rctx,
                            CACHE_REQ_INITGROUPS, state->pd->user, 0, flags, state->req_id);
    if (subreq == NULL) {
        return ENOMEM;
    }
    tevent_req_set_callback(subreq, pam_cmd_lookup_done, state);
    return EOK;
}

static errno_t pam_cmd_dp_send(struct pam_cmd_state *state)
{
    struct pam_data *pd = state->pd;
    struct resp_domain *dom = resp_domain_find(state->pctx->rctx, state->domain);
    struct tevent_req *subreq;

    if (dom == NULL || state->pctx->rctx->conn == NULL) {
        return ERR_SBUS_DISCONNECTED;
    }
    {
        SSS_REQ_ID_SCOPE(state->req_id);
        /* Not keyed: a login is never chained to another. Its message is composed and
         * written as the call goes out (an invalid argument fails the call, EINVAL). */
        subreq = sbus_call_sssd_dataprovider_pamHandler_raw_send(
            state, state->pctx->rctx->conn, PAM_DP_TIMEOUT_MS, dom->bus_name, SSS_BUS_PATH,
            pd->cmd, state->short_name, dom->name, pd->service, pd->tty, pd->ruser, pd->rhost,
            pd->cli_pid, pd->cli_flags, state->priv, pd->authtok.type, pd->authtok.data,
            pd->authtok.len, pd->newauthtok.type, pd->newauthtok.data, pd->newauthtok.len,
            state->req_id);
    }
    if (subreq == NULL) {
        return ENOMEM;
    }
    state->pctx->dp_calls++;
    tevent_req_set_callback(subreq, pam_cmd_dp_done, state);
    return EOK;
}

static void pam_cmd_lookup_done(struct tevent_req *subreq)
{
    struct pam_cmd_state *state = tevent_req_callback_data(subreq, struct pam_cmd_state);
    struct cache_req_result *res = NULL;
    errno_t ret;

    SSS_REQ_ID_SCOPE(state->req_id);
    ret = cache_req_recv(state, subreq, &res);
    talloc_free(subreq);
    if (ret == ENOENT) {
        DEBUG(SSSDBG_TRACE_FUNC, "user [%s] not found\n", state->pd->user);
        pam_cmd_reply(state, PAM_USER_UNKNOWN, NULL, 0);
        return;
    }
    if (ret != EOK) {
        DEBUG(SSSDBG_OP_FAILURE, "lookup of [%s] failed: %s\n", state->pd->user,
              sss_strerror(ret));
        pam_cmd_reply(state, PAM_SYSTEM_ERR, NULL, 0);
        return;
    }
    if (!pam_domain_allowed(state, res->domain->name)) {
        DEBUG(SSSDBG_TRACE_FUNC, "[%s] is in [%s], a domain this client may not use\n",
              state->pd->user, res->domain->name);
        pam_cmd_reply(state, PAM_USER_UNKNOWN, NULL, 0);
        return;
    }
    if (res->source == CACHE_REQ_SRC_DP) {
        pam_recent_note(state->pctx, state->pd->user, time(NULL));
    }
    state->domain = talloc_strdup(state, res->domain->name);
    state->short_name = talloc_steal(state, res->short_name);
    if (state->domain == NULL || state->short_name == NULL) {
        pam_cmd_reply(state, PAM_BUF_ERR, NULL, 0);
        return;
    }
    ret = pam_cmd_dp_send(state);
    if (ret != EOK) {
        DEBUG(SSSDBG_OP_FAILURE, "pamHandler for [%s] not sent: %s\n", state->pd->user,
              sss_strerror(ret));
        pam_cmd_reply(state, PAM_AUTHINFO_UNAVAIL, NULL, 0);
    }
}

static void pam_cmd_dp_done(struct tevent_req *subreq)
{
    struct pam_cmd_state *state = tevent_req_callback_data(subreq, struct pam_cmd_state);
    DBusMessage *reply = NULL;
    dbus_uint32_t status = PAM_AUTHINFO_UNAVAIL;
    const uint8_t *items = NULL;
    int n_items = 0;
    TALLOC_CTX *tmp_ctx;
    errno_t ret;

    SSS_REQ_ID_SCOPE(state->req_id);
    tmp_ctx = talloc_new(state);
    if (tmp_ctx == NULL) {
        talloc_free(subreq);
        pam_cmd_reply(state, PAM_BUF_ERR, NULL, 0);
        return;
    }
    ret = sbus_call_recv(tmp_ctx, subreq, &reply);
    talloc_free(subreq);
    if (ret != EOK) {
        DEBUG(SSSDBG_OP_FAILURE, "no answer from the back-end of [%s]: %s\n", state->domain,
              sss_strerror(ret));
        status = PAM_AUTHINFO_UNAVAIL;
        goto done;
    }
    if (!dbus_message_get_args(reply, NULL, DBUS_TYPE_UINT32, &status,
                               DBUS_TYPE_ARRAY, DBUS_TYPE_BYTE, &items, &n_items,
                               DBUS_TYPE_INVALID)
            || n_items < 0 || n_items > SSS_DP_PAM_MAX_ITEMS_LEN) {
        DEBUG(SSSDBG_OP_FAILURE, "the back-end of [%s] answered a malformed reply\n",
              state->domain);
        status = PAM_AUTHINFO_UNAVAIL;
        items = NULL;
        n_items = 0;
    }
done:
    pam_cmd_reply(state, status, items, (size_t)n_items);
    talloc_free(tmp_ctx);
}
