/*
 * The back-end's PAM side (sssd.dataprovider.pamHandler, sss_dp.h): one request of sssd_pam
 * for a user of this domain, dispatched by command to the domain's providers:
 *
 *   AUTHENTICATE          auth_provider   ldap: bind as the user (sdap_auth.h) with the
 *                                         ppolicy control, then ldap_pwd_policy; none
 *   CHAUTHTOK_PRELIM      chpass_provider ldap: the old password checked by a bind; root's
 *                                         request without a password (a reset): refused
 *                                         with PAM_PERM_DENIED, as SSSD 2.8 does
 *   CHAUTHTOK             chpass_provider ldap: bind, then the password-modify exop; the
 *                                         server's refusal text as USER_INFO CHPASS_ERROR
 *   ACCT_MGMT             access_provider permit | deny | simple | ldap (be_pam_access.c)
 *   SETCRED, OPEN_SESSION, CLOSE_SESSION, PREAUTH   PAM_SUCCESS (no session provider;
 *                                         PREAUTH has nothing to offer password logins)
 *
 * Offline (the domain offline, or every server failing during the request) an
 * authentication is checked against the cached credentials (be_pam_creds.c) when
 * cache_credentials is on, else PAM_AUTHINFO_UNAVAIL; every successful online
 * authentication stores them. A provider that is "none" gives
 * PAM_MODULE_UNKNOWN, as SSSD does for a target without a provider.
 *
 * Ownership: struct be_pam lives on the be_ctx; requests on the caller's mem_ctx. The
 * tokens are copied into wiped-on-free buffers and never logged.
 */
#ifndef SSS_BE_PAM_H
#define SSS_BE_PAM_H

#include "providers/backend/be_ctx.h"

enum be_pam_provider {
    BE_PAM_PROV_NONE,           /* "none" */
    BE_PAM_PROV_LDAP,
    BE_PAM_PROV_KRB5,           /* auth and chpass only (src/providers/krb5) */
    BE_PAM_PROV_PERMIT,         /* access only */
    BE_PAM_PROV_DENY,           /* access only */
    BE_PAM_PROV_SIMPLE,         /* access only */
    BE_PAM_PROV_UNAVAILABLE,    /* configured, but not built here: never grants anything */
};

struct be_pam_tok {
    uint32_t type;              /* SSS_AUTHTOK_TYPE_* */
    const uint8_t *data;
    size_t len;
};

/* One request, as pamHandler carries it (strings never NULL). */
struct be_pam_req {
    uint32_t cmd;
    const char *user;           /* short name, as the domain stores it */
    const char *service;
    const char *tty;
    const char *ruser;
    const char *rhost;
    uint32_t cli_pid;
    uint32_t cli_flags;
    bool priv;
    struct be_pam_tok authtok;
    struct be_pam_tok newauthtok;
    uint64_t req_id;
};

/* Reads the providers (auth_provider, chpass_provider, access_provider) and the PAM
 * options of the domain, and sets be->pam. Errors: ENOMEM, confdb's, sdap_auth's. */
errno_t be_pam_init(struct be_ctx *be);

/* The answer is always a PAM status (the request fails only with ENOMEM / EINVAL):
 * *_items are the reply items packed as sss_dp.h says (NULL when none), on mem_ctx. */
struct tevent_req *be_pam_send(TALLOC_CTX *mem_ctx, struct tevent_context *ev,
                               struct be_ctx *be, const struct be_pam_req *preq);
errno_t be_pam_recv(TALLOC_CTX *mem_ctx, struct tevent_req *req, uint32_t *_status,
                    uint8_t **_items, size_t *_items_len);

#endif /* SSS_BE_PAM_H */
