/*
 * sdap_access_rules: the LDAP access and password-expiry rules as pure functions of a user's
 * LDAP attributes and a time. No I/O: the back-end fetches the attributes (from the server,
 * or from its cache), calls these, and turns the verdict into the PAM reply. Facts from
 * SSSD 2.8 (src/providers/ldap/sdap_access.c, ldap_auth.c, sssd-ldap(5)):
 *
 * ldap_access_order: a comma list of filter, lockout (deprecated form of ppolicy), ppolicy,
 * expire, pwd_expire_policy_reject, pwd_expire_policy_warn, pwd_expire_policy_renew,
 * authorized_service, host; evaluated in order, the first denial wins. "filter" is an LDAP
 * search (ldap_access_filter) the caller runs. "rhost" (SSSD 2.x) is refused as not
 * supported; any other word is a configuration error.
 *
 * ldap_account_expire_policy ("expire"):
 *   shadow   shadowExpire (days since the epoch, > 0): expired when today > it
 *            -> PAM_ACCT_EXPIRED. (SSSD 2.8 compares with ">"; later releases use ">=".)
 *   ad       userAccountControl bit 0x2 (disabled) -> PAM_PERM_DENIED; accountExpires
 *            (100 ns since 1601, 0 and 0x7FFFFFFFFFFFFFFF = never) in the past
 *            -> PAM_ACCT_EXPIRED.
 *   rhds, 389ds  nsAccountLock = TRUE -> PAM_PERM_DENIED.
 *   ipa      as rhds, then as ad.
 *   nds      loginDisabled = TRUE, loginExpirationTime (generalized time) in the past, or
 *            loginAllowedTimeMap (42 bytes, one bit per UTC half hour from Sunday 00:00)
 *            without the current half hour -> PAM_PERM_DENIED.
 *   A missing attribute allows. A malformed value is an error (EINVAL): callers deny.
 *   (SSSD reads a malformed number as 0, i.e. allows; we do not. SSSD's time-map test
 *   never matches the first half hour of each byte; ours tests the right bit.)
 *   Each denial carries SSSD's SYSTEM_INFO text.
 *
 * lockout / ppolicy: pwdAccountLockedTime "000001010000Z" = locked for good. Otherwise, for
 *   lockout: not locked (SSSD ignores the time); for ppolicy: not locked when the time is in
 *   the future, unlocked when the policy's pwdLockoutDuration is known, non-zero and over,
 *   locked otherwise -> PAM_PERM_DENIED. The caller checks first that the policy entry has
 *   pwdLockout TRUE (else nothing is locked), as SSSD does.
 *
 * ldap_pwd_policy:
 *   shadow        only when shadowLastChange is present. <= 0: must change now (expired).
 *                 Account expired (today > shadowExpire, or password age > shadowMax +
 *                 shadowInactive); expired (age > shadowMax); warning when
 *                 age > shadowMax - shadowWarning (seconds left; 0 days left = the seconds
 *                 until midnight UTC). -1 or missing = not set. A last change in the future
 *                 is ignored (ok).
 *   mit_kerberos  only when krbLastPwdChange is present: krbPasswordExpiration (generalized
 *                 time) in the past -> expired; within the warning time (pwd_expiration_
 *                 warning, default 7 days) -> warning with the seconds left.
 *   The results map to PAM as SSSD maps them: authentication: expired ->
 *   PAM_NEW_AUTHTOK_REQD, account expired -> PAM_ACCT_EXPIRED; access rules:
 *   pwd_expire_policy_reject expired -> PAM_PERM_DENIED, _warn -> PAM_SUCCESS, _renew ->
 *   PAM_NEW_AUTHTOK_REQD.
 *
 * Generalized times are "YYYYMMDDHHMMSS[.fraction]Z" (UTC); anything else is malformed.
 */
#ifndef SSS_SDAP_ACCESS_RULES_H
#define SSS_SDAP_ACCESS_RULES_H

#include <stdbool.h>
#include <stdint.h>
#include <time.h>
#include <lber.h>
#include <talloc.h>

#include "util/sss_errors.h"

/* One attribute of the user's entry, as ldap_get_values_len() gives it. */
struct sdap_rule_attr {
    const char *name;            /* matched without regard to case */
    struct berval **values;      /* NULL-terminated; NULL = no value */
};

/* What a rule decided. */
struct sdap_access_verdict {
    int pam_status;              /* PAM_SUCCESS, PAM_PERM_DENIED, PAM_ACCT_EXPIRED,
                                  * PAM_NEW_AUTHTOK_REQD */
    const char *system_info;     /* static text to send as SYSTEM_INFO, or NULL */
    int64_t expire_warn;         /* >= 0: send USER_INFO EXPIRE_WARN with these seconds;
                                  * -1: no warning */
};

enum sdap_access_rule {
    SDAP_ACCESS_FILTER,
    SDAP_ACCESS_LOCKOUT,
    SDAP_ACCESS_PPOLICY,
    SDAP_ACCESS_EXPIRE,
    SDAP_ACCESS_PWD_EXPIRE_REJECT,
    SDAP_ACCESS_PWD_EXPIRE_WARN,
    SDAP_ACCESS_PWD_EXPIRE_RENEW,
    SDAP_ACCESS_SERVICE,
    SDAP_ACCESS_HOST,
};

/* The words of ldap_access_order (NULL or "": the default, "filter"). A repeated word is
 * kept once (logged). *_rules is a talloc array on mem_ctx. ERR_INVALID_CONFIG (logged with
 * the word) for an unknown or unsupported word or an empty item; ENOMEM. */
errno_t sdap_access_order_parse(TALLOC_CTX *mem_ctx, const char *value,
                                enum sdap_access_rule **_rules, size_t *_count);

/* access_provider = ad: picks from ad_access_filter the filter for a user of domain (and
 * forest), as SSSD's AD provider does. The value is a '?'-separated list of
 *   FILTER                   any user (the least specific; an item that starts with '('
 *                            is always this form);
 *   FOREST:NAME:(FILTER)     users of forest NAME;
 *   DOM:NAME:(FILTER) or NAME:(FILTER)   users of domain NAME (the most specific);
 * names compared without regard to case; among the matching items the most specific
 * wins, the first of equals. A malformed item is logged and skipped (at worst the user
 * is denied). *_filter: in parentheses, on mem_ctx; NULL when value is NULL/empty or no
 * item applies (the caller denies then, as SSSD does). ENOMEM, EINVAL. */
errno_t sdap_ad_access_filter_pick(TALLOC_CTX *mem_ctx, const char *value,
                                   const char *domain, const char *forest, char **_filter);

enum sdap_expire_policy {
    SDAP_EXPIRE_NONE,            /* not set: "expire" denies everyone, as SSSD */
    SDAP_EXPIRE_SHADOW,
    SDAP_EXPIRE_AD,
    SDAP_EXPIRE_RHDS,            /* rhds and 389ds */
    SDAP_EXPIRE_IPA,
    SDAP_EXPIRE_NDS,
};

/* ldap_account_expire_policy (case-insensitive; NULL or "": NONE). ERR_INVALID_CONFIG. */
errno_t sdap_expire_policy_parse(const char *value, enum sdap_expire_policy *_policy);

/* The "expire" rule. EINVAL: bad arguments or a malformed attribute value. */
errno_t sdap_access_expire(enum sdap_expire_policy policy, const struct sdap_rule_attr *attrs,
                           size_t count, time_t now, struct sdap_access_verdict *_verdict);

/* The "lockout" (ppolicy false) or "ppolicy" rule. lockout_duration: the policy entry's
 * pwdLockoutDuration (seconds, decimal) or NULL when unknown. EINVAL: malformed values. */
errno_t sdap_access_lockout(bool ppolicy, const struct sdap_rule_attr *attrs, size_t count,
                            const char *lockout_duration, time_t now,
                            struct sdap_access_verdict *_verdict);

/* "authorized_service" (attribute authorizedService, value the PAM service) and "host"
 * (attribute host, value this host's name): no attribute -> denied; "!value" -> denied;
 * value or "*" -> allowed; nothing matching -> denied (PAM_PERM_DENIED). Case-insensitive.
 * The caller passes the attribute name (ldap_user_authorized_service / _host). */
errno_t sdap_access_match_list(const char *attr_name, const struct sdap_rule_attr *attrs,
                               size_t count, const char *value,
                               struct sdap_access_verdict *_verdict);

enum sdap_pwd_policy {
    SDAP_PWD_POLICY_NONE,
    SDAP_PWD_POLICY_SHADOW,
    SDAP_PWD_POLICY_MIT_KERBEROS,
};

/* ldap_pwd_policy (case-insensitive; NULL or "": none). ERR_INVALID_CONFIG. */
errno_t sdap_pwd_policy_parse(const char *value, enum sdap_pwd_policy *_policy);

enum sdap_pwexpire_state {
    SDAP_PWEXPIRE_OK,
    SDAP_PWEXPIRE_WARN,              /* ok, with seconds left */
    SDAP_PWEXPIRE_EXPIRED,           /* the password must be changed */
    SDAP_PWEXPIRE_ACCOUNT_EXPIRED,
};

struct sdap_pwexpire {
    enum sdap_pwexpire_state state;
    int64_t seconds_left;            /* WARN only */
};

/* Evaluates the password policy. krb_warning: pwd_expiration_warning in seconds, < 0 for
 * the default (7 days). EINVAL: bad arguments or a malformed value. */
errno_t sdap_pwexpire_check(enum sdap_pwd_policy policy, const struct sdap_rule_attr *attrs,
                            size_t count, time_t now, int64_t krb_warning,
                            struct sdap_pwexpire *_result);

/* Where a password-expiry result is used. */
enum sdap_pwexpire_use {
    SDAP_PWEXPIRE_FOR_AUTH,          /* after the bind of an authentication */
    SDAP_PWEXPIRE_FOR_REJECT,        /* access rule pwd_expire_policy_reject */
    SDAP_PWEXPIRE_FOR_WARN,          /* pwd_expire_policy_warn */
    SDAP_PWEXPIRE_FOR_RENEW,         /* pwd_expire_policy_renew */
};

/* The verdict of a password-expiry result (a WARN result carries expire_warn). */
void sdap_pwexpire_verdict(const struct sdap_pwexpire *result, enum sdap_pwexpire_use use,
                           struct sdap_access_verdict *_verdict);

/* "YYYYMMDDHHMMSS[.fraction]Z" -> seconds since the epoch. EINVAL when malformed. */
errno_t sdap_generalized_time(const char *s, size_t len, time_t *_t);

#endif /* SSS_SDAP_ACCESS_RULES_H */
