/*
 * sdap_ppolicy: the LDAP password policy controls of a bind (draft-behera-ldap-password-
 * policy, OpenLDAP's ppolicy overlay), as SSSD 2.8 uses them: the request control sent with
 * the user's simple bind, the response control parsed into expiry warning, grace logins and
 * error, and the PAM outcome of the bind with the USER_INFO payload SSSD sends for it
 * (SSS_PAM_USER_INFO_GRACE_LOGIN or SSS_PAM_USER_INFO_EXPIRE_WARN: uint32 type, uint32
 * value, host byte order), which the back-end only appends to its reply.
 *
 * Outcome (SSSD's simple_bind_done and check_pwexpire_ldap):
 *   bind success, error changeAfterReset -> PAM_NEW_AUTHTOK_REQD (the password was reset);
 *   bind success, grace logins given     -> PAM_SUCCESS + GRACE_LOGIN(grace);
 *   bind success, expiry given (> 0)     -> PAM_SUCCESS + EXPIRE_WARN(seconds), unless a
 *                                           warning time is set and the expiry is further;
 *   invalidCredentials                   -> PAM_AUTH_ERR (also with passwordExpired: the
 *                                           grace logins are exhausted).
 */
#ifndef SSS_SDAP_PPOLICY_H
#define SSS_SDAP_PPOLICY_H

#include <stdbool.h>
#include <stdint.h>
#include <ldap.h>

#include "util/sss_errors.h"

struct sdap_ppolicy {
    bool present;                     /* the response control was there */
    int32_t expire;                   /* seconds before the password expires; -1: none */
    int32_t grace;                    /* grace logins remaining; -1: none */
    LDAPPasswordPolicyError error;    /* PP_noError: none */
};

/* The non-critical request control (no value). Free with ldap_control_free(). ENOMEM. */
errno_t sdap_ppolicy_request_control(LDAPControl **_ctrl);

/*
 * Finds and parses the response control among a bind's response controls (ctrls may be
 * NULL: then *_pp says not present). ld is the connection the bind ran on (libldap keeps
 * its error there). EINVAL: the control is malformed (logged); nothing is trusted from it.
 */
errno_t sdap_ppolicy_parse(LDAP *ld, LDAPControl **ctrls, struct sdap_ppolicy *_pp);

#define SDAP_USER_INFO_U32_LEN 8

/* The PAM outcome of a bind. */
struct sdap_ppolicy_verdict {
    int pam_status;
    size_t info_len;                        /* 0, or SDAP_USER_INFO_U32_LEN */
    uint8_t info[SDAP_USER_INFO_U32_LEN];   /* the SSS_PAM_USER_INFO item's data */
};

/*
 * The outcome of a bind that ended with ldap_result (LDAP_SUCCESS or
 * LDAP_INVALID_CREDENTIALS: anything else, such as a server error, is the caller's to map,
 * EINVAL here) and the parsed control pp. warning: seconds (pwd_expiration_warning); <= 0
 * warns at any expiry the server reports.
 */
errno_t sdap_ppolicy_bind_verdict(int ldap_result, const struct sdap_ppolicy *pp,
                                  int64_t warning, struct sdap_ppolicy_verdict *_verdict);

/* An SSS_PAM_USER_INFO payload of one uint32 value: type, then value. */
void sdap_user_info_u32(uint32_t type, uint32_t value, uint8_t out[SDAP_USER_INFO_U32_LEN]);

#endif /* SSS_SDAP_PPOLICY_H */
