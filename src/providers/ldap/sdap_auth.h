/*
 * LDAP authentication and password change for the back-end's PAM requests: a simple bind
 * as the user, and the RFC 3062 password-modify extended operation, on a connection of the
 * auth's own (never the shared lookup connection, whose identity must not change), opened
 * through the domain's failover list (ldap_uri, ldap_backup_uri; servers that fail are
 * marked bad for the lookups too). Everything runs on the tevent loop (sdap_connect.c:
 * non-blocking connect, TLS handshake in a helper thread, asynchronous bind).
 *
 * TLS is required: the password crosses the network only over ldaps:// or after StartTLS
 * (ldap_id_use_start_tls = true), unless ldap_auth_disable_tls_never_use_in_production =
 * true; otherwise the request is refused before any connection, with a log line saying so.
 *
 * Passwords are bytes from the client: an empty one, or one holding a NUL, is refused
 * (EACCES) without asking the server (an LDAP bind with an empty password is an anonymous
 * bind and would "succeed"). Copies made here are wiped after use; nothing logs them.
 *
 * Errors from _recv: EACCES (wrong password, or a refused empty one), EKEYREVOKED (the
 * server refused the bind because the account is locked: Active Directory's "data 775"
 * diagnostic; never a success either), ENETUNREACH (no
 * server could be reached: offline), ETIMEDOUT, EIO / ENOTCONN (connection lost),
 * ERR_INVALID_CONFIG (no TLS), EPERM (the server refused the password change; *_msg says
 * why when it did), ENOMEM, EINVAL.
 */
#ifndef SSS_SDAP_AUTH_H
#define SSS_SDAP_AUTH_H

#include "providers/ldap/sdap.h"
#include "providers/ldap/sdap_ppolicy.h"
#include "providers/ldap/sdap_access_rules.h"

struct sdap_auth_ctx;

/* Idle authentication connections kept for reuse (one per login running in parallel). */
#define SDAP_AUTH_IDLE_MAX 8

/* Reads ldap_auth_disable_tls_never_use_in_production of the domain; shares id_ctx's
 * options and failover list. pwd_warning: seconds before a ppolicy expiry the user is
 * warned (pwd_expiration_warning; <= 0: at any expiry the server reports).
 * Errors: EINVAL, ENOMEM, confdb's. */
errno_t sdap_auth_ctx_create(TALLOC_CTX *mem_ctx, struct confdb *cdb, const char *domain,
                             struct sdap_id_ctx *id_ctx, int64_t pwd_warning,
                             struct sdap_auth_ctx **_actx);

/*
 * Binds as dn with password pw (len bytes), asking for the password policy control. When
 * new_pw is not NULL, then changes the password from pw to new_pw with the
 * password-modify extended operation, as that user.
 * On failure *_msg (when given) may get the server's diagnostic text, on mem_ctx of _recv.
 * *_pp (when given) is the bind's ppolicy verdict (sdap_ppolicy.h): on EOK, PAM_SUCCESS
 * (maybe with a GRACE_LOGIN or EXPIRE_WARN item) or PAM_NEW_AUTHTOK_REQD (the password
 * was reset and must be changed); meaningful for an authentication only.
 */
struct tevent_req *sdap_auth_send(TALLOC_CTX *mem_ctx, struct tevent_context *ev,
                                  struct sdap_auth_ctx *actx, const char *dn,
                                  const uint8_t *pw, size_t len,
                                  const uint8_t *new_pw, size_t new_len);
errno_t sdap_auth_recv(TALLOC_CTX *mem_ctx, struct tevent_req *req, char **_msg,
                       struct sdap_ppolicy_verdict *_pp);

/* Connections opened and binds sent, for tests and diagnostics. */
void sdap_auth_get_counts(struct sdap_auth_ctx *actx, uint64_t *_connects, uint64_t *_binds);

/* The id context the auth context shares (its options, failover list, connection). */
struct sdap_id_ctx *sdap_auth_id_ctx(struct sdap_auth_ctx *actx);

/* ---- access_provider = ldap and ldap_pwd_policy (sdap_auth_access.c) ------------------ */

struct sdap_auth_policy;

/* Reads ldap_pwd_policy, and with access_ldap the access options (ldap_access_order,
 * ldap_access_filter, ldap_account_expire_policy, ldap_pwdlockout_dn). pwd_warning:
 * seconds (pwd_expiration_warning), < 0 when not set. Errors: ERR_INVALID_CONFIG (logged),
 * ENOMEM, EINVAL, confdb's. */
errno_t sdap_auth_policy_create(TALLOC_CTX *mem_ctx, struct confdb *cdb, const char *domain,
                                bool access_ldap, int64_t pwd_warning,
                                struct sdap_auth_policy **_pol);
/* True when ldap_pwd_policy is not none (an authentication reads the user's entry). */
bool sdap_auth_policy_checks_pwd(const struct sdap_auth_policy *pol);

/*
 * Reads the user's entry (dn) and what the rules need, on the shared lookup connection,
 * and decides: for_auth, ldap_pwd_policy after a successful bind (PAM_SUCCESS maybe with
 * expire_warn, PAM_NEW_AUTHTOK_REQD, PAM_ACCT_EXPIRED); otherwise ldap_access_order for the
 * PAM service (PAM_SUCCESS, PAM_PERM_DENIED, PAM_ACCT_EXPIRED, PAM_NEW_AUTHTOK_REQD, with
 * SYSTEM_INFO text or a warning). A malformed value denies. Errors (nothing decided):
 * those of the search (ENETUNREACH: no server, ETIMEDOUT, EIO), ENOMEM, EINVAL.
 */
struct tevent_req *sdap_auth_policy_send(TALLOC_CTX *mem_ctx, struct tevent_context *ev,
                                         struct sdap_auth_ctx *actx,
                                         const struct sdap_auth_policy *pol,
                                         const char *dn, const char *service, bool for_auth);
errno_t sdap_auth_policy_recv(struct tevent_req *req, struct sdap_access_verdict *_verdict);

#endif /* SSS_SDAP_AUTH_H */
