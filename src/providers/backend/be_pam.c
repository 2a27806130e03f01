/*
 * The back-end's PAM requests (be_pam.h): the dispatch by command and provider, the
 * user's DN from the cache (or a refresh when it is missing), the LDAP steps through
 * sdap_auth, and the mapping of every outcome to a PAM status and reply items.
 *
 * An authentication online: the bind (with the ppolicy control: "must change" ->
 * PAM_NEW_AUTHTOK_REQD, grace logins and expiry -> USER_INFO), then ldap_pwd_policy when
 * set (sdap_auth_policy: shadow / mit_kerberos expiry and warnings), then on success the
 * credentials are cached (be_pam_creds.c). Offline: the cached credentials decide.
 * ACCT_MGMT: be_pam_access.c.
 */
#include <strings.h>

#include <security/pam_appl.h>

#include "providers/backend/be_pam_private.h"
#include "providers/krb5/krb5_common.h"
#include "confdb/confdb.h"
#include "db/sysdb.h"
#include "sss_client/sss_cli.h"
#include "sss_iface/sss_dp.h"

static enum be_pam_provider be_pam_provider_kind(const char *name, bool access)
{
    if (strcmp(name, "none") == 0 && !access) {
        return BE_PAM_PROV_NONE;
    }
    if (strcmp(name, "ldap") == 0 && !access) {
        return BE_PAM_PROV_LDAP;
    }
    if ((strcmp(name, "krb5") == 0 || strcmp(name, "ad") == 0) && !access) {  /* ad: krb5 */
        return BE_PAM_PROV_KRB5;
    }
    if (strcmp(name, "permit") == 0 && access) {
        return BE_PAM_PROV_PERMIT;
    }
    if (strcmp(name, "deny") == 0 && access) {
        return BE_PAM_PROV_DENY;
    }
    if (strcmp(name, "simple") == 0 && access) {
        return BE_PAM_PROV_SIMPLE;
    }
    if ((strcmp(name, "ldap") == 0 || strcmp(name, "ad") == 0) && access) {  /* ad: sdap rules */
        return BE_PAM_PROV_LDAP;
    }
    return BE_PAM_PROV_UNAVAILABLE;
}

static errno_t be_pam_read_provider(struct be_ctx *be, TALLOC_CTX *tmp_ctx,
                                    const char *option, bool access,
                                    enum be_pam_provider *_kind, char **_name)
{
    char *name = NULL;
    errno_t ret;

    ret = confdb_get_string(be->cdb, tmp_ctx, be->section, option, &name);
    if (ret != EOK) {
        return ret;
    }
    if (name == NULL) {
        name = talloc_strdup(tmp_ctx, access ? "permit" : "none");
        if (name == NULL) {
            return ENOMEM;
        }
    }
    *_kind = be_pam_provider_kind(name, access);
    if (*_kind == BE_PAM_PROV_UNAVAILABLE) {
        DEBUG(SSSDBG_CRIT_FAILURE, "Domain %s: %s = %s is not available in this build: %s\n",
              be->domain, option, name, access ? "every account check is denied"
              : "those requests fail");
    }
    if (_name != NULL) {
        *_name = name;
    }
    return EOK;
}

errno_t be_pam_init(struct be_ctx *be)
{
    TALLOC_CTX *tmp_ctx;
    struct be_pam *pam;
    int days = -1;
    errno_t ret;

    SSS_CHECK_ARG(be != NULL, EINVAL);
    tmp_ctx = talloc_new(NULL);
    pam = talloc_zero(be, struct be_pam);
    if (tmp_ctx == NULL || pam == NULL) {
        ret = ENOMEM;
        goto done;
    }
    ret = be_pam_read_provider(be, tmp_ctx, "auth_provider", false, &pam->auth, NULL);
    if (ret == EOK) {
        ret = be_pam_read_provider(be, tmp_ctx, "chpass_provider", false, &pam->chpass, NULL);
    }
    if (ret == EOK) {
        ret = be_pam_read_provider(be, tmp_ctx, "access_provider", true, &pam->access,
                                   &pam->access_name);
    }
    if (ret == EOK) {
        ret = be_pam_creds_init(be, pam);
    }
    if (ret != EOK) {
        goto done;
    }
    pam->access_name = talloc_steal(pam, pam->access_name);
    /* SSSD: the domain's pwd_expiration_warning, else [pam] pam_pwd_expiration_warning;
     * neither written: -1, each policy's default. */
    if (confdb_is_set(be->cdb, be->section, "pwd_expiration_warning")) {
        ret = confdb_get_int(be->cdb, be->section, "pwd_expiration_warning", &days);
    } else if (confdb_is_set(be->cdb, "pam", "pam_pwd_expiration_warning")) {
        ret = confdb_get_int(be->cdb, "pam", "pam_pwd_expiration_warning", &days);
    }
    if (ret != EOK) {
        goto done;
    }
    pam->pwd_warning = days < 0 ? -1 : (int64_t)days * 86400;
    if (pam->auth == BE_PAM_PROV_LDAP || pam->chpass == BE_PAM_PROV_LDAP
            || pam->access == BE_PAM_PROV_LDAP) {
        if (be->id_ctx == NULL) {
            DEBUG(SSSDBG_CRIT_FAILURE, "Domain %s: the LDAP auth and access providers need "
                  "the LDAP id provider's servers (id_provider = ldap): they fail\n",
                  be->domain);
        } else {
            ret = sdap_auth_ctx_create(pam, be->cdb, be->domain, be->id_ctx,
                                       pam->pwd_warning, &pam->sdap);
            if (ret == EOK) {
                ret = sdap_auth_policy_create(pam, be->cdb, be->domain,
                                              pam->access == BE_PAM_PROV_LDAP,
                                              pam->pwd_warning, &pam->policy);
            }
            if (ret != EOK) {
                goto done;
            }
        }
    }
    if (pam->auth == BE_PAM_PROV_KRB5 || pam->chpass == BE_PAM_PROV_KRB5) {
        ret = krb5_ctx_create(pam, be->ev, be->cdb, be->domain, be->section, SSSD_STATE_DIR,
                              &pam->krb5);
        if (ret != EOK && ret != ENOMEM) {
            /* Not a restart loop: those requests fail (PAM_SYSTEM_ERR) until it is fixed. */
            DEBUG(SSSDBG_CRIT_FAILURE, "Domain %s: the krb5 provider is not usable: %s\n",
                  be->domain, sss_strerror(ret));
            ret = EOK;
        }
        if (ret != EOK) {
            goto done;
        }
    }
    ret = be_pam_access_init(be, pam);
    if (ret != EOK) {
        goto done;
    }
    be->pam = pam;
    pam = NULL;
    ret = EOK;
done:
    talloc_free(pam);
    talloc_free(tmp_ctx);
    return ret;
}

/* ---- one request ------------------------------------------------------------------- */

static int be_pam_wipe(uint8_t *p)
{
    explicit_bzero(p, talloc_get_size(p));
    return 0;
}

static errno_t be_pam_copy_tok(TALLOC_CTX *mem_ctx, const struct be_pam_tok *in,
                               struct be_pam_tok *out)
{
    uint8_t *copy = NULL;

    out->type = in->type;
    out->len = in->data != NULL ? in->len : 0;
    out->data = NULL;
    if (out->len == 0) {
        return EOK;
    }
    copy = talloc_memdup(mem_ctx, in->data, out->len);
    if (copy == NULL) {
        return ENOMEM;
    }
    talloc_set_destructor(copy, be_pam_wipe);
    out->data = copy;
    return EOK;
}

errno_t be_pam_add_item(struct be_pam_state *state, uint32_t type, const void *data,
                               uint32_t len)
{
    size_t old = state->items != NULL ? talloc_get_size(state->items) : 0;
    uint8_t *p;

    if (old + 2 * sizeof(uint32_t) + len > SSS_DP_PAM_MAX_ITEMS_LEN) {
        return E2BIG;
    }
    p = talloc_realloc(state, state->items, uint8_t, old + 2 * sizeof(uint32_t) + len);
    if (p == NULL) {
        return ENOMEM;
    }
    memcpy(p + old, &type, sizeof(type));
    memcpy(p + old + sizeof(uint32_t), &len, sizeof(len));
    if (len > 0) {
        memcpy(p + old + 2 * sizeof(uint32_t), data, len);
    }
    state->items = p;
    return EOK;
}

void be_pam_add_user_info(struct be_pam_state *state, uint32_t subtype,
                                 const void *data, uint32_t len)
{
    uint8_t buf[sizeof(uint32_t) + 512];

    if (len > sizeof(buf) - sizeof(uint32_t)) {
        len = sizeof(buf) - sizeof(uint32_t);
    }
    memcpy(buf, &subtype, sizeof(subtype));
    if (len > 0) {
        memcpy(buf + sizeof(uint32_t), data, len);
    }
    if (be_pam_add_item(state, SSS_PAM_USER_INFO, buf, sizeof(uint32_t) + len) != EOK) {
        DEBUG(SSSDBG_OP_FAILURE, "reply item dropped (no room)\n");
    }
}

errno_t be_pam_user_dn(struct be_pam_state *state, const char **_dn)
{
    struct sysdb_user *user = NULL;
    errno_t ret;

    ret = sysdb_get_user_by_name(state, state->be->sysdb, state->req.user, &user);
    if (ret != EOK) {
        return ret;
    }
    if (user->orig_dn == NULL || user->orig_dn[0] == '\0') {
        talloc_free(user);
        return ENODATA;
    }
    *_dn = user->orig_dn;
    return EOK;
}

void be_pam_add_verdict_items(struct be_pam_state *state, const struct sdap_access_verdict *v)
{
    uint32_t secs;

    if (v->system_info != NULL) {
        (void)be_pam_add_item(state, SSS_PAM_SYSTEM_INFO, v->system_info,
                              (uint32_t)strlen(v->system_info) + 1);
    }
    if (v->expire_warn >= 0) {
        secs = v->expire_warn > UINT32_MAX ? UINT32_MAX : (uint32_t)v->expire_warn;
        be_pam_add_user_info(state, SSS_PAM_USER_INFO_EXPIRE_WARN, &secs, sizeof(secs));
    }
}

void be_pam_finish(struct tevent_req *req, uint32_t status)
{
    struct be_pam_state *state = tevent_req_data(req, struct be_pam_state);

    state->status = status;
    DEBUG(SSSDBG_TRACE_FUNC, "PAM %#x for [%s@%s] service [%s]: pam_status %u\n",
          state->req.cmd, state->req.user, state->be->domain, state->req.service, status);
    /* The tokens go as soon as the answer is known. */
    talloc_free(discard_const(state->req.authtok.data));
    talloc_free(discard_const(state->req.newauthtok.data));
    state->req.authtok.data = NULL;
    state->req.newauthtok.data = NULL;
    tevent_req_done(req);
}

static errno_t be_pam_dispatch(struct tevent_req *req);
static void be_pam_refresh_done(struct tevent_req *subreq);
static void be_pam_auth_done(struct tevent_req *subreq);
static void be_pam_policy_done(struct tevent_req *subreq);

struct tevent_req *be_pam_send(TALLOC_CTX *mem_ctx, struct tevent_context *ev,
                               struct be_ctx *be, const struct be_pam_req *preq)
{
    struct be_pam_state *state;
    struct tevent_req *req;
    errno_t ret;

    req = tevent_req_create(mem_ctx, &state, struct be_pam_state);
    if (req == NULL) {
        return NULL;
    }
    if (ev == NULL || be == NULL || be->pam == NULL || preq == NULL || preq->user == NULL) {
        (void)sss_arg_invalid(__func__, "ev, be, be->pam, preq, preq->user");
        if (ev == NULL) {
            talloc_free(req);
            return NULL;
        }
        return sss_req_post(req, ev, EINVAL);
    }
    state->ev = ev;
    state->be = be;
    state->req = *preq;
    state->req.user = talloc_strdup(state, preq->user);
    state->req.service = talloc_strdup(state, preq->service ? preq->service : "");
    if (state->req.user == NULL || state->req.service == NULL) {
        return sss_req_post(req, ev, ENOMEM);
    }
    state->req.tty = state->req.ruser = state->req.rhost = "";
    ret = be_pam_copy_tok(state, &preq->authtok, &state->req.authtok);
    if (ret == EOK) {
        ret = be_pam_copy_tok(state, &preq->newauthtok, &state->req.newauthtok);
    }
    if (ret != EOK) {
        return sss_req_post(req, ev, ret);
    }
    DEBUG(SSSDBG_TRACE_FUNC, "PAM %#x for [%s@%s] service [%s] pid %u%s\n", preq->cmd,
          preq->user, be->domain, state->req.service, preq->cli_pid,
          preq->priv ? " (privileged)" : "");
    ret = be_pam_dispatch(req);
    if (ret != EOK) {
        return sss_req_post(req, ev, ret);
    }
    if (tevent_req_is_in_progress(req)) {
        return req;
    }
    return tevent_req_post(req, ev);
}

/* ---- the dispatch ------------------------------------------------------------------- */

static bool be_pam_needs_ldap(uint32_t cmd)
{
    return cmd == SSS_PAM_AUTHENTICATE || cmd == SSS_PAM_CHAUTHTOK_PRELIM
           || cmd == SSS_PAM_CHAUTHTOK;
}

/* The user's DN: the cached originalDN, else a refresh of the user first. */
static errno_t be_pam_ldap(struct tevent_req *req)
{
    struct be_pam_state *state = tevent_req_data(req, struct be_pam_state);
    struct be_pam *pam = state->be->pam;
    const struct be_pam_tok *tok = &state->req.authtok;
    const char *dn = NULL;
    struct tevent_req *subreq;
    const uint8_t *new_pw = NULL;
    size_t new_len = 0;
    errno_t ret;

    if (pam->sdap == NULL) {
        be_pam_finish(req, PAM_SYSTEM_ERR);
        return EOK;
    }
    if (state->req.cmd == SSS_PAM_CHAUTHTOK_PRELIM && state->req.priv
            && tok->type != SSS_AUTHTOK_TYPE_PASSWORD) {
        /* SSSD 2.8's rule: root resetting a password is not supported. */
        DEBUG(SSSDBG_CONF_SETTINGS, "Password reset by root is not supported.\n");
        be_pam_finish(req, PAM_PERM_DENIED);
        return EOK;
    }
    if (tok->type != SSS_AUTHTOK_TYPE_PASSWORD || tok->len == 0) {
        DEBUG(SSSDBG_TRACE_FUNC, "[%s]: no password given (token type %u)\n",
              state->req.user, tok->type);
        be_pam_finish(req, PAM_AUTH_ERR);
        return EOK;
    }
    if (be_is_offline(state->be)) {
        be_offline_request_seen(state->be);
        if (state->req.cmd == SSS_PAM_AUTHENTICATE) {
            be_pam_finish(req, be_pam_creds_offline(state));
        } else {
            be_pam_add_user_info(state, SSS_PAM_USER_INFO_OFFLINE_CHPASS, NULL, 0);
            be_pam_finish(req, PAM_AUTHINFO_UNAVAIL);
        }
        return EOK;
    }
    ret = be_pam_user_dn(state, &dn);
    if (ret != EOK && ret != ENOENT && ret != ENODATA) {
        return ret;
    }
    if (ret != EOK) {
        if (state->refreshed) {
            DEBUG(SSSDBG_TRACE_FUNC, "[%s] is not in the directory\n", state->req.user);
            be_pam_finish(req, PAM_USER_UNKNOWN);
            return EOK;
        }
        return be_pam_refresh_user(req, be_pam_ldap);
    }
    if (state->req.cmd == SSS_PAM_CHAUTHTOK) {
        new_pw = state->req.newauthtok.data;
        new_len = state->req.newauthtok.len;
        if (state->req.newauthtok.type != SSS_AUTHTOK_TYPE_PASSWORD || new_len == 0) {
            DEBUG(SSSDBG_OP_FAILURE, "[%s]: password change without a new password\n",
                  state->req.user);
            be_pam_finish(req, PAM_AUTHTOK_ERR);
            return EOK;
        }
    }
    subreq = sdap_auth_send(state, state->ev, pam->sdap, dn, tok->data, tok->len,
                            new_pw, new_len);
    if (subreq == NULL) {
        return ENOMEM;
    }
    tevent_req_set_callback(subreq, be_pam_auth_done, req);
    return EOK;
}

static errno_t be_pam_dispatch(struct tevent_req *req)
{
    struct be_pam_state *state = tevent_req_data(req, struct be_pam_state);
    struct be_pam *pam = state->be->pam;
    enum be_pam_provider prov;

    switch (state->req.cmd) {
    case SSS_PAM_ACCT_MGMT:
        return be_pam_access(req);
    case SSS_PAM_SETCRED:
    case SSS_PAM_OPEN_SESSION:
    case SSS_PAM_CLOSE_SESSION:
    case SSS_PAM_PREAUTH:
        be_pam_finish(req, PAM_SUCCESS);
        return EOK;
    default:
        break;
    }
    if (!be_pam_needs_ldap(state->req.cmd)) {
        be_pam_finish(req, PAM_SYSTEM_ERR);
        return EOK;
    }
    prov = state->req.cmd == SSS_PAM_AUTHENTICATE ? pam->auth : pam->chpass;
    if (prov == BE_PAM_PROV_KRB5) {
        return krb5_pam(req);
    }
    if (prov != BE_PAM_PROV_LDAP) {
        DEBUG(SSSDBG_TRACE_FUNC, "no %s provider for this domain\n",
              state->req.cmd == SSS_PAM_AUTHENTICATE ? "auth" : "chpass");
        be_pam_finish(req, PAM_MODULE_UNKNOWN);
        return EOK;
    }
    return be_pam_ldap(req);
}

errno_t be_pam_refresh_user(struct tevent_req *req, be_pam_step_fn step)
{
    struct be_pam_state *state = tevent_req_data(req, struct be_pam_state);
    struct tevent_req *subreq;
    char *filter;

    assert(!state->refreshed && step != NULL);
    state->refreshed = true;
    state->step = step;
    filter = talloc_asprintf(state, "%s%s", SSS_DP_FILTER_NAME, state->req.user);
    if (filter == NULL) {
        return ENOMEM;
    }
    subreq = be_account_info_send(state, state->ev, state->be, SSS_DP_USER, filter,
                                  state->req.req_id);
    if (subreq == NULL) {
        return ENOMEM;
    }
    tevent_req_set_callback(subreq, be_pam_refresh_done, req);
    return EOK;
}

static void be_pam_refresh_done(struct tevent_req *subreq)
{
    struct tevent_req *req = tevent_req_callback_data(subreq, struct tevent_req);
    struct be_pam_state *state = tevent_req_data(req, struct be_pam_state);
    uint16_t dp_error = SSS_DP_ERR_FATAL;
    uint32_t error = 0;
    const char *msg = NULL;
    errno_t ret;

    SSS_REQ_ID_SCOPE(state->req.req_id);
    ret = be_account_info_recv(state, subreq, &dp_error, &error, &msg);
    talloc_free(subreq);
    if (ret != EOK) {
        tevent_req_error(req, ret);
        return;
    }
    if (dp_error == SSS_DP_ERR_OFFLINE) {
        be_pam_finish(req, state->req.cmd == SSS_PAM_AUTHENTICATE
                           ? be_pam_creds_offline(state) : PAM_AUTHINFO_UNAVAIL);
        return;
    }
    if (dp_error != SSS_DP_ERR_OK) {
        DEBUG(SSSDBG_OP_FAILURE, "refresh of [%s] failed: %s\n", state->req.user,
              msg != NULL ? msg : "");
        be_pam_finish(req, PAM_AUTHINFO_UNAVAIL);
        return;
    }
    ret = state->step(req);
    if (ret != EOK) {
        tevent_req_error(req, ret);
    }
}

static void be_pam_auth_done(struct tevent_req *subreq)
{
    struct tevent_req *req = tevent_req_callback_data(subreq, struct tevent_req);
    struct be_pam_state *state = tevent_req_data(req, struct be_pam_state);
    struct be_pam *pam = state->be->pam;
    struct sdap_ppolicy_verdict pp;
    const char *dn = NULL;
    char *msg = NULL;
    errno_t ret;

    SSS_REQ_ID_SCOPE(state->req.req_id);
    ret = sdap_auth_recv(state, subreq, &msg, &pp);
    talloc_free(subreq);
    switch (ret) {
    case EOK:
        if (state->req.cmd != SSS_PAM_AUTHENTICATE) {
            /* The old password was right: that is all a password change needs. */
            be_pam_finish(req, PAM_SUCCESS);
            return;
        }
        if (pp.info_len > 0) {
            (void)be_pam_add_item(state, SSS_PAM_USER_INFO, pp.info, (uint32_t)pp.info_len);
        }
        if (pp.pam_status != PAM_SUCCESS) {
            /* ppolicy: the password was reset and must be changed first. */
            be_pam_finish(req, (uint32_t)pp.pam_status);
            return;
        }
        if (!sdap_auth_policy_checks_pwd(pam->policy)) {
            be_pam_creds_save(state);
            be_pam_finish(req, PAM_SUCCESS);
            return;
        }
        ret = be_pam_user_dn(state, &dn);
        if (ret == EOK) {
            subreq = sdap_auth_policy_send(state, state->ev, pam->sdap, pam->policy, dn,
                                           state->req.service, true);
            ret = subreq == NULL ? ENOMEM : EOK;
        }
        if (ret != EOK) {
            tevent_req_error(req, ret);
            return;
        }
        tevent_req_set_callback(subreq, be_pam_policy_done, req);
        return;
    case EACCES:
        be_pam_finish(req, PAM_AUTH_ERR);
        return;
    case EKEYREVOKED:
        /* SSSD: ERR_ACCOUNT_LOCKED -> PAM_PERM_DENIED with account_locked, for which
         * sssd_pam shows pam_account_locked_message. */
        DEBUG(SSSDBG_TRACE_FUNC, "[%s]: the server says the account is locked\n",
              state->req.user);
        (void)be_pam_add_item(state, SSS_DP_PAM_ACCOUNT_LOCKED, NULL, 0);
        be_pam_finish(req, PAM_PERM_DENIED);
        return;
    case EPERM:
        if (msg != NULL) {
            uint32_t len = (uint32_t)strlen(msg);
            uint8_t buf[sizeof(uint32_t) + 256];

            if (len > sizeof(buf) - sizeof(uint32_t)) {
                len = sizeof(buf) - sizeof(uint32_t);
            }
            memcpy(buf, &len, sizeof(len));
            memcpy(buf + sizeof(uint32_t), msg, len);
            be_pam_add_user_info(state, SSS_PAM_USER_INFO_CHPASS_ERROR, buf,
                                 sizeof(uint32_t) + len);
        }
        be_pam_finish(req, PAM_AUTHTOK_ERR);
        return;
    case ENETUNREACH:
        be_go_offline(state->be, "no LDAP server reachable for authentication");
        be_pam_finish(req, state->req.cmd == SSS_PAM_AUTHENTICATE
                           ? be_pam_creds_offline(state) : PAM_AUTHINFO_UNAVAIL);
        return;
    case ERR_INVALID_CONFIG:
        be_pam_finish(req, PAM_SYSTEM_ERR);
        return;
    case ENOMEM:
        tevent_req_error(req, ret);
        return;
    default:
        /* Timeout, connection lost: nobody could say yes or no. */
        DEBUG(SSSDBG_OP_FAILURE, "authentication of [%s] did not complete: %s\n",
              state->req.user, sss_strerror(ret));
        be_pam_finish(req, PAM_AUTHINFO_UNAVAIL);
        return;
    }
}

/* ldap_pwd_policy after a successful bind: expired -> the password must be changed. */
static void be_pam_policy_done(struct tevent_req *subreq)
{
    struct tevent_req *req = tevent_req_callback_data(subreq, struct tevent_req);
    struct be_pam_state *state = tevent_req_data(req, struct be_pam_state);
    struct sdap_access_verdict v;
    errno_t ret;

    SSS_REQ_ID_SCOPE(state->req.req_id);
    ret = sdap_auth_policy_recv(subreq, &v);
    talloc_free(subreq);
    if (ret == ENOMEM) {
        tevent_req_error(req, ret);
        return;
    }
    if (ret != EOK) {
        /* The password is right but its policy cannot be read: not a success. */
        DEBUG(SSSDBG_OP_FAILURE, "password policy of [%s] not read: %s\n", state->req.user,
              sss_strerror(ret));
        be_pam_finish(req, PAM_AUTHINFO_UNAVAIL);
        return;
    }
    be_pam_add_verdict_items(state, &v);
    if (v.pam_status == PAM_SUCCESS) {
        be_pam_creds_save(state);
    }
    be_pam_finish(req, (uint32_t)v.pam_status);
}

errno_t be_pam_recv(TALLOC_CTX *mem_ctx, struct tevent_req *req, uint32_t *_status,
                    uint8_t **_items, size_t *_items_len)
{
    struct be_pam_state *state = tevent_req_data(req, struct be_pam_state);

    TEVENT_REQ_RETURN_ON_ERROR(req);
    *_status = state->status;
    *_items_len = state->items != NULL ? talloc_get_size(state->items) : 0;
    *_items = talloc_steal(mem_ctx, state->items);
    return EOK;
}
