/*
 * The PAM steps of auth_provider = krb5 and chpass_provider = krb5 (be_pam.c dispatches
 * here). The user's uid, gid and home come from the cache (a refresh when missing); the
 * principal is the one the directory gave (ldap_user_principal), else user@krb5_realm, as
 * SSSD's find_or_guess_upn does. The answer of krb5_child maps to PAM as SSSD 2.8 does:
 *
 *   OK                 PAM_SUCCESS; the ccache as ENV_ITEM KRB5CCNAME=...; what libkrb5
 *                      had to tell the user (the KDC's password expiry warning) as
 *                      TEXT_MSG; cached credentials stored; the TGT registered for renewal
 *   wrong password     PAM_AUTH_ERR              unknown principal   PAM_USER_UNKNOWN
 *   password expired   PAM_NEW_AUTHTOK_REQD (pam_sss then changes it)
 *   KDC unreachable,   offline: the cached credentials decide (USER_INFO OFFLINE_AUTH), and
 *   child timed out    the KDC counts as offline for offline_timeout seconds
 *   kpasswd refused    PAM_AUTHTOK_ERR + USER_INFO CHPASS_ERROR with the KDC's text
 *   not validated      PAM_AUTH_ERR (a KDC without our host key: maybe spoofed)
 *   locked             PAM_PERM_DENIED           anything else       PAM_SYSTEM_ERR
 */
#include <security/pam_appl.h>

#include "providers/backend/be_pam_private.h"
#include <time.h>

#include "providers/krb5/krb5_common.h"
#include "db/sysdb.h"
#include "sss_client/sss_cli.h"
#include "sss_iface/sss_dp.h"

struct krb5_pam_state {
    struct krb5_child_req creq;
    struct krb5_renew_item item;
};

errno_t krb5_find_upn(TALLOC_CTX *mem_ctx, struct sysdb_ctx *sysdb, struct krb5_ctx *kctx,
                      const char *user, const char **_upn)
{
    char *upn = NULL;
    errno_t ret;

    SSS_CHECK_ARG(sysdb != NULL && kctx != NULL && user != NULL && _upn != NULL, EINVAL);
    ret = sysdb_get_user_upn(mem_ctx, sysdb, user, &upn);
    if (ret == ENOENT) {
        upn = talloc_asprintf(mem_ctx, "%s@%s", user, kctx->realm);
        ret = upn != NULL ? EOK : ENOMEM;
    }
    if (ret != EOK) {
        return ret;
    }
    DEBUG(SSSDBG_TRACE_FUNC, "[%s]: principal [%s]\n", user, upn);
    *_upn = upn;
    return EOK;
}
static void krb5_pam_child_done(struct tevent_req *subreq);

static void krb5_pam_offline(struct be_pam_state *state, struct tevent_req *req,
                             const struct krb5_renew_item *item)
{
    struct krb5_ctx *kctx = state->be->pam->krb5;
    uint32_t status;

    if (state->req.cmd != SSS_PAM_AUTHENTICATE) {
        be_pam_add_user_info(state, SSS_PAM_USER_INFO_OFFLINE_CHPASS, NULL, 0);
        be_pam_finish(req, PAM_AUTHINFO_UNAVAIL);
        return;
    }
    status = be_pam_creds_offline(state);
    if (status == PAM_SUCCESS && kctx->store_pw_if_offline && item != NULL) {
        krb5_renew_add_offline(kctx, item, state->req.authtok.data, state->req.authtok.len);
    }
    be_pam_finish(req, status);
}

errno_t krb5_pam(struct tevent_req *req)
{
    struct be_pam_state *state = tevent_req_data(req, struct be_pam_state);
    struct krb5_ctx *kctx = state->be->pam->krb5;
    const struct be_pam_tok *tok = &state->req.authtok;
    struct krb5_pam_state *ks;
    struct sysdb_user *user = NULL;
    struct krb5_ccname_vars vars;
    struct tevent_req *subreq;
    char *ccname = NULL;
    char *dir = NULL;
    errno_t ret;

    if (kctx == NULL) {
        be_pam_finish(req, PAM_SYSTEM_ERR);
        return EOK;
    }
    if (state->req.cmd == SSS_PAM_CHAUTHTOK_PRELIM && state->req.priv
            && tok->type != SSS_AUTHTOK_TYPE_PASSWORD) {
        DEBUG(SSSDBG_CONF_SETTINGS, "Password reset by root is not supported.\n");
        be_pam_finish(req, PAM_PERM_DENIED);
        return EOK;
    }
    if (tok->type != SSS_AUTHTOK_TYPE_PASSWORD || tok->len == 0
            || memchr(tok->data, '\0', tok->len) != NULL) {
        be_pam_finish(req, PAM_AUTH_ERR);
        return EOK;
    }
    if (state->req.cmd == SSS_PAM_CHAUTHTOK
            && (state->req.newauthtok.type != SSS_AUTHTOK_TYPE_PASSWORD
                || state->req.newauthtok.len == 0
                || memchr(state->req.newauthtok.data, '\0', state->req.newauthtok.len) != NULL)) {
        be_pam_finish(req, PAM_AUTHTOK_ERR);
        return EOK;
    }
    ret = sysdb_get_user_by_name(state, state->be->sysdb, state->req.user, &user);
    if (ret != EOK && ret != ENOENT) {
        return ret;
    }
    if (ret == ENOENT) {
        if (state->refreshed || be_is_offline(state->be)) {
            be_pam_finish(req, state->refreshed ? PAM_USER_UNKNOWN : PAM_AUTHINFO_UNAVAIL);
            return EOK;
        }
        return be_pam_refresh_user(req, krb5_pam);
    }
    ks = talloc_zero(state, struct krb5_pam_state);
    if (ks == NULL) {
        return ENOMEM;
    }
    ks->item.user = state->req.user;
    ks->item.uid = user->uid;
    ks->item.gid = user->gid;
    ret = krb5_find_upn(ks, state->be->sysdb, kctx, state->req.user, &ks->item.principal);
    if (ret != EOK) {
        return ret;
    }
    if (state->req.cmd != SSS_PAM_CHAUTHTOK_PRELIM) {
        vars = (struct krb5_ccname_vars) {
            .user = state->req.user, .uid = user->uid, .principal = ks->item.principal,
            .realm = kctx->realm, .home = user->home, .pid = state->req.cli_pid,
        };
        ret = krb5_ccname_expand(ks, kctx->ccachedir, &vars, &dir);
        if (ret == EOK) {
            vars.ccachedir = dir;
            ret = krb5_ccname_expand(ks, kctx->ccname_tmpl, &vars, &ccname);
        }
        if (ret == ENOMEM) {
            return ret;
        }
        if (ret != EOK) {
            DEBUG(SSSDBG_CRIT_FAILURE, "[%s]: no ccache name from [%s]\n", state->req.user,
                  kctx->ccname_tmpl);
            be_pam_finish(req, PAM_SYSTEM_ERR);
            return EOK;
        }
        ks->item.ccname = ccname;
    }
    if (krb5_kdc_offline(kctx)) {
        krb5_pam_offline(state, req, &ks->item);
        return EOK;
    }
    ks->creq = (struct krb5_child_req) {
        .cmd = state->req.cmd == SSS_PAM_AUTHENTICATE ? KRB5_CHILD_AUTH
               : state->req.cmd == SSS_PAM_CHAUTHTOK ? KRB5_CHILD_CHPASS
               : KRB5_CHILD_CHPASS_PRELIM,
        .flags = (kctx->validate ? KRB5_CHILD_F_VALIDATE : 0)
                 | (kctx->canonicalize ? KRB5_CHILD_F_CANONICALIZE : 0)
                 | (kctx->enterprise ? KRB5_CHILD_F_ENTERPRISE : 0),
        .uid = user->uid, .gid = user->gid,
        .lifetime = kctx->lifetime, .renewable_lifetime = kctx->renewable_lifetime,
        .principal = ks->item.principal,
        .ccname = ccname != NULL ? ccname : "",
        .keytab = kctx->keytab,
        .password = talloc_strndup(ks, (const char *)tok->data, tok->len),
        .new_password = state->req.cmd == SSS_PAM_CHAUTHTOK
                        ? talloc_strndup(ks, (const char *)state->req.newauthtok.data,
                                         state->req.newauthtok.len)
                        : "",
        .realm = kctx->realm,
        .service = "",
    };
    if (ks->creq.cmd == KRB5_CHILD_AUTH) {
        /* The salt the KDC named at the principal's last login: one AS exchange. */
        krb5_salt_hint_get(kctx, ks->item.principal, &ks->creq.hint);
    }
    if (ks->creq.password == NULL || ks->creq.new_password == NULL) {
        return ENOMEM;
    }
    subreq = krb5_child_send(ks, state->ev, kctx->child, &ks->creq);
    /* The request is encoded: the copies go now. */
    explicit_bzero(discard_const(ks->creq.password), strlen(ks->creq.password));
    explicit_bzero(discard_const(ks->creq.new_password), strlen(ks->creq.new_password));
    if (subreq == NULL) {
        return ENOMEM;
    }
    tevent_req_set_callback(subreq, krb5_pam_child_done, req);
    return EOK;
}

static void krb5_pam_chpass_error(struct be_pam_state *state, const char *msg)
{
    uint8_t buf[sizeof(uint32_t) + 256];
    uint32_t len = (uint32_t)strlen(msg);

    if (len == 0) {
        return;
    }
    if (len > sizeof(buf) - sizeof(uint32_t)) {
        len = sizeof(buf) - sizeof(uint32_t);
    }
    memcpy(buf, &len, sizeof(len));
    memcpy(buf + sizeof(uint32_t), msg, len);
    be_pam_add_user_info(state, SSS_PAM_USER_INFO_CHPASS_ERROR, buf, sizeof(uint32_t) + len);
}

static void krb5_pam_success(struct be_pam_state *state, struct krb5_pam_state *ks,
                             const struct krb5_child_rsp *rsp)
{
    struct krb5_ctx *kctx = state->be->pam->krb5;
    char *env;

    if (rsp->ccname[0] == '\0') {
        return;
    }
    env = talloc_asprintf(state, "KRB5CCNAME=%s", rsp->ccname);
    if (env != NULL) {
        (void)be_pam_add_item(state, SSS_PAM_ENV_ITEM, env, (uint32_t)strlen(env) + 1);
    }
    ks->item.ccname = rsp->ccname;
    ks->item.starttime = time(NULL);
    ks->item.endtime = (time_t)rsp->endtime;
    ks->item.renew_till = (time_t)rsp->renew_till;
    krb5_renew_add(kctx, &ks->item);
}

static void krb5_pam_child_done(struct tevent_req *subreq)
{
    struct tevent_req *req = tevent_req_callback_data(subreq, struct tevent_req);
    struct be_pam_state *state = tevent_req_data(req, struct be_pam_state);
    struct krb5_pam_state *ks = talloc_get_type_abort(talloc_parent(subreq),
                                                      struct krb5_pam_state);
    struct krb5_ctx *kctx = state->be->pam->krb5;
    struct krb5_child_rsp *rsp = NULL;
    errno_t ret;

    SSS_REQ_ID_SCOPE(state->req.req_id);
    ret = krb5_child_recv(ks, subreq, &rsp);
    talloc_free(subreq);
    if (ret == ETIMEDOUT) {
        krb5_kdc_mark_offline(kctx);
        krb5_pam_offline(state, req, &ks->item);
        return;
    }
    if (ret != EOK) {
        DEBUG(SSSDBG_OP_FAILURE, "krb5_child for [%s] failed: %s\n", state->req.user,
              sss_strerror(ret));
        be_pam_finish(req, PAM_SYSTEM_ERR);
        return;
    }
    DEBUG(SSSDBG_TRACE_FUNC, "krb5_child for [%s]: status %u\n", state->req.user, rsp->status);
    switch (rsp->status) {
    case KRB5_CHILD_OK:
        if (ks->creq.cmd == KRB5_CHILD_AUTH) {
            krb5_salt_hint_set(kctx, ks->item.principal, &rsp->hint);
        }
        krb5_pam_success(state, ks, rsp);
        if (rsp->message[0] != '\0') {
            /* libkrb5's words for the user (an expiry warning): SSSD's TEXT_MSG. */
            (void)be_pam_add_item(state, SSS_PAM_TEXT_MSG, rsp->message,
                                  (uint32_t)strlen(rsp->message) + 1);
        }
        if (state->req.cmd == SSS_PAM_AUTHENTICATE) {
            be_pam_creds_save(state);
        }
        be_pam_finish(req, PAM_SUCCESS);
        return;
    case KRB5_CHILD_WRONG_PASSWORD:
        be_pam_finish(req, PAM_AUTH_ERR);
        return;
    case KRB5_CHILD_UNKNOWN_PRINCIPAL:
        be_pam_finish(req, PAM_USER_UNKNOWN);
        return;
    case KRB5_CHILD_KDC_UNREACHABLE:
        krb5_kdc_mark_offline(kctx);
        krb5_pam_offline(state, req, &ks->item);
        return;
    case KRB5_CHILD_PASSWORD_EXPIRED:
        be_pam_finish(req, state->req.cmd == SSS_PAM_AUTHENTICATE ? PAM_NEW_AUTHTOK_REQD
                                                                    : PAM_AUTHTOK_ERR);
        return;
    case KRB5_CHILD_CHPASS_REJECTED:
        krb5_pam_chpass_error(state, rsp->message);
        be_pam_finish(req, PAM_AUTHTOK_ERR);
        return;
    case KRB5_CHILD_VALIDATE_FAILED:
        DEBUG(SSSDBG_CRIT_FAILURE, "[%s]: the TGT could not be validated with the host "
              "keytab: refused\n", state->req.user);
        be_pam_finish(req, PAM_AUTH_ERR);
        return;
    case KRB5_CHILD_ACCOUNT_LOCKED:
        be_pam_finish(req, PAM_PERM_DENIED);
        return;
    default:
        be_pam_finish(req, PAM_SYSTEM_ERR);
        return;
    }
}
