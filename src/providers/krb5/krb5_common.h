/*
 * The Kerberos provider of sssd_be (auth_provider = krb5, chpass_provider = krb5):
 *
 *   krb5_common.c   the domain's krb5_* options, the KDC-offline state
 *   krb5_ccname.c   ccache name templates (%u %U %p %r %h %d %P %%, XXXXXX), lifetimes
 *   krb5_child_client.h   running krb5_child (shared with the LDAP provider's GSSAPI)
 *   krb5_auth.c     the PAM steps (be_pam.c dispatches AUTHENTICATE and CHAUTHTOK here)
 *   krb5_renew.c    krb5_renew_interval: the TGTs of logged-in users renewed in the
 *                   background, krb5_store_password_if_offline
 *   krb5_pwkey.c    that password, kept as a kernel key
 * Every libkrb5 call that can block runs in krb5_child (krb5_child.c).
 */
#ifndef SSS_KRB5_COMMON_H
#define SSS_KRB5_COMMON_H

#include "util/util.h"
#include "providers/krb5/krb5_child_msg.h"
#include "providers/krb5/krb5_child_client.h"

struct confdb;
struct sss_hash_table;

#define KRB5_DEFAULT_CCNAME_TMPL "FILE:%d/krb5cc_%U_XXXXXX"
#define KRB5_DEFAULT_CCACHEDIR "/tmp"
#define KRB5_DEFAULT_AUTH_TIMEOUT 6

struct krb5_ctx {
    char *domain;
    char *realm;
    char *ccname_tmpl;          /* krb5_ccname_template */
    char *ccachedir;            /* krb5_ccachedir */
    char *keytab;               /* krb5_keytab ("" : the default keytab) */
    struct krb5_child_cfg *child;   /* where krb5_child is, the KDC list, the timeout */
    bool validate;
    bool canonicalize;
    bool enterprise;
    bool store_pw_if_offline;
    int lifetime;               /* seconds, 0: the KDC's default */
    int renewable_lifetime;     /* seconds, 0: none */
    int renew_interval;         /* seconds, 0: no background renewal */
    int auth_timeout;           /* krb5_auth_timeout: the child is killed after it */
    int offline_timeout;        /* after an unreachable KDC, logins use the cache this long */
    time_t offline_until;
    struct tevent_context *ev;
    struct krb5_renew *renew;   /* krb5_renew.c */
    struct sss_hash_table *salt_hints;  /* krb5_salt_hints.c; made at the first hint */
};

/* Reads the options of section (a domain) and writes the KDC list snippet under
 * state_dir. Errors: ERR_INVALID_CONFIG (no realm, bad lifetime), ENOMEM, EIO. */
errno_t krb5_ctx_create(TALLOC_CTX *mem_ctx, struct tevent_context *ev, struct confdb *cdb,
                        const char *domain, const char *section, const char *state_dir,
                        struct krb5_ctx **_ctx);

/* True while the KDC is taken as unreachable (logins go to the cached credentials). */
bool krb5_kdc_offline(struct krb5_ctx *kctx);
void krb5_kdc_mark_offline(struct krb5_ctx *kctx);

/* ---- krb5_auth.c --------------------------------------------------------------------- */

struct sysdb_ctx;
/* The principal to log user in as: the cached ldap_user_principal, else user@krb5_realm.
 * Errors: EINVAL (a name the cache refuses), ENOMEM, EIO. */
errno_t krb5_find_upn(TALLOC_CTX *mem_ctx, struct sysdb_ctx *sysdb, struct krb5_ctx *kctx,
                      const char *user, const char **_upn);

/* ---- krb5_ccname.c ------------------------------------------------------------------ */

struct krb5_ccname_vars {
    const char *user;           /* %u */
    uint32_t uid;               /* %U */
    const char *principal;      /* %p */
    const char *realm;          /* %r */
    const char *home;           /* %h (NULL: %h is an error) */
    const char *ccachedir;      /* %d (NULL: %d is an error, as in krb5_ccachedir) */
    uint32_t pid;               /* %P (0: %P is an error) */
};

/* Expands a template. Errors: EINVAL (unknown or unavailable %x, a trailing %), E2BIG
 * (longer than PATH_MAX), ENOMEM. */
errno_t krb5_ccname_expand(TALLOC_CTX *mem_ctx, const char *tmpl,
                           const struct krb5_ccname_vars *vars, char **_name);

/* A lifetime as SSSD's krb5_*lifetime options take it: a number of seconds, or numbers
 * with s/m/h/d units ("1d12h", "90m"). Errors: EINVAL (and the value is refused). */
errno_t krb5_parse_lifetime(const char *str, int *_secs);

/* ---- krb5_renew.c ------------------------------------------------------------------- */

struct krb5_renew_item {
    const char *user;
    const char *principal;
    const char *ccname;
    uint32_t uid;
    uint32_t gid;
    time_t starttime;           /* when we got it (renewal at half the lifetime) */
    time_t endtime;
    time_t renew_till;
};

/* Starts the renewal timer when krb5_renew_interval is set. */
errno_t krb5_renew_init(struct krb5_ctx *kctx);
/* A user's fresh TGT to renew (replaces the user's previous one). */
void krb5_renew_add(struct krb5_ctx *kctx, const struct krb5_renew_item *item);
/* krb5_store_password_if_offline: keeps the password (wiped on free) to get a TGT when the
 * KDC is back. */
void krb5_renew_add_offline(struct krb5_ctx *kctx, const struct krb5_renew_item *item,
                            const uint8_t *pw, size_t len);

/* ---- krb5_salt_hints.c ------------------------------------------------------------- */

/* The salt hint kept for principal (etype 0: none); the salt stays kctx's, valid until
 * the next krb5_salt_hint_set. */
void krb5_salt_hint_get(struct krb5_ctx *kctx, const char *principal,
                        struct krb5_child_salt_hint *_hint);
/* Keeps hint for principal (copied); etype 0 forgets the principal's. */
void krb5_salt_hint_set(struct krb5_ctx *kctx, const char *principal,
                        const struct krb5_child_salt_hint *hint);

/* ---- krb5_pwkey.c -------------------------------------------------------------------- */

/* Keeps pw in a kernel key of this process (possessor-only, destroyed by the kernel
 * after timeout seconds, 0: none). desc names it: a key of the same desc is replaced (the
 * kernel's add_key), so each holder uses its own. Errors: the kernel's (ENOSYS, EDQUOT,
 * ENOMEM...). */
errno_t krb5_pwkey_store(const char *desc, const uint8_t *pw, size_t len,
                         unsigned int timeout, int32_t *_serial);
/* The key's bytes, NUL-terminated, in a buffer on mem_ctx wiped when freed. Errors:
 * ENOKEY or EACCES (dropped), EKEYEXPIRED (timed out), ENOMEM. */
errno_t krb5_pwkey_read(TALLOC_CTX *mem_ctx, int32_t serial, uint8_t **_pw);
/* Invalidates the key (the kernel destroys and wipes it); serial <= 0: nothing. */
void krb5_pwkey_drop(int32_t serial);

#endif /* SSS_KRB5_COMMON_H */
