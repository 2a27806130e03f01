/*
 * What the files of the back-end's PAM side share (be_pam.c: the dispatch and the LDAP
 * steps; be_pam_creds.c: cached credentials; be_pam_access.c: access_provider). Not for
 * anyone else: the public interface is be_pam.h.
 */
#ifndef SSS_BE_PAM_PRIVATE_H
#define SSS_BE_PAM_PRIVATE_H

#include "providers/backend/be_pam.h"
#include "providers/backend/be_access_simple.h"
#include "providers/ldap/sdap_auth.h"
#include "db/sysdb_creds.h"

struct sss_hash_table;
struct be_pam_saves;
struct krb5_ctx;

struct be_pam {
    enum be_pam_provider auth;
    enum be_pam_provider chpass;
    enum be_pam_provider access;
    char *access_name;              /* for the log of an unavailable provider */
    bool cache_credentials;
    struct sysdb_creds_policy creds;    /* offline_* of [pam], the domain's minimal length */
    int64_t pwd_warning;            /* seconds: pwd_expiration_warning, else [pam]'s; -1 */
    struct sdap_auth_ctx *sdap;     /* when a provider is ldap */
    struct krb5_ctx *krb5;          /* when auth or chpass is krb5 */
    struct sdap_auth_policy *policy;    /* ldap_pwd_policy, access_provider = ldap */
    struct be_access_simple *simple;    /* access_provider = simple */
    /* access_provider = ldap: the last online verdict per user (PAM status), which
     * decides while offline; a user never checked online is denied offline. */
    struct sss_hash_table *last_access;
    struct be_pam_saves *saves;     /* cached-credential refreshes (be_pam_creds.c) */
};

struct be_pam_state;
/* A step of a PAM request that reads the user from the cache: finishes req now or from a
 * callback. Errors: ENOMEM, sysdb's. */
typedef errno_t (*be_pam_step_fn)(struct tevent_req *req);

struct be_pam_state {
    struct tevent_context *ev;
    struct be_ctx *be;
    struct be_pam_req req;          /* strings and tokens copied onto the state */
    uint32_t status;
    uint8_t *items;                 /* packed reply items */
    bool refreshed;                 /* the user was looked up once already */
    be_pam_step_fn step;            /* to run again after that lookup */
    uint32_t auth_status;           /* a successful bind's status, before the policy */
};

/* Appends one reply item (E2BIG past SSS_DP_PAM_MAX_ITEMS_LEN, ENOMEM). */
errno_t be_pam_add_item(struct be_pam_state *state, uint32_t type, const void *data,
                        uint32_t len);
/* USER_INFO: uint32 subtype, then data (dropped, logged, when there is no room). */
void be_pam_add_user_info(struct be_pam_state *state, uint32_t subtype, const void *data,
                          uint32_t len);
/* The user's directory DN from the cache (on state). ENOENT: the user is not cached;
 * ENODATA: cached without a DN; sysdb's errors. */
errno_t be_pam_user_dn(struct be_pam_state *state, const char **_dn);
/* A policy verdict's items: SYSTEM_INFO text and the EXPIRE_WARN user info. */
void be_pam_add_verdict_items(struct be_pam_state *state, const struct sdap_access_verdict *v);
/* The user is not in the cache: looks the user up once (state->refreshed), then runs
 * step again; offline, an authentication goes to the cached credentials; a failed lookup
 * is PAM_AUTHINFO_UNAVAIL. Errors: ENOMEM. */
errno_t be_pam_refresh_user(struct tevent_req *req, be_pam_step_fn step);
/* Ends the request with status (the tokens are wiped at once). */
void be_pam_finish(struct tevent_req *req, uint32_t status);

/* ---- be_pam_creds.c ---------------------------------------------------------------- */

/* Reads cache_credentials and the offline policy. */
errno_t be_pam_creds_init(struct be_ctx *be, struct be_pam *pam);
/* After a successful online authentication: stores the password's hash (when
 * cache_credentials), shortly after the answer. Failures are logged; the login still
 * succeeds. */
void be_pam_creds_save(struct be_pam_state *state);
/* The domain is offline: the PAM status of an authentication against the cached hash,
 * with the USER_INFO items SSSD sends (OFFLINE_AUTH, OFFLINE_AUTH_DELAYED). */
uint32_t be_pam_creds_offline(struct be_pam_state *state);

/* ---- be_pam_hasher.c -------------------------------------------------------------- */

struct be_pam_hasher;
/* Called on the loop with a job's result: hash (sysdb_creds_hash's, "" when not
 * cacheable) when ret is EOK, else NULL. hash is wiped after the call. */
typedef void (*be_pam_hash_done_fn)(void *pvt, errno_t ret, const char *hash);
/* A hasher on ev (its one worker thread starts with the first job). Errors: ENOMEM, EIO. */
errno_t be_pam_hasher_create(TALLOC_CTX *mem_ctx, struct tevent_context *ev,
                             struct be_pam_hasher **_h);
/* Queues sysdb_creds_hash(pw, len, min_len) (pw copied); done(pvt, ...) runs on the loop,
 * jobs in submission order; never if the hasher is freed first. Errors: EINVAL, ENOMEM;
 * a job that cannot run (no thread: EAGAIN) reaches done with its error. */
errno_t be_pam_hasher_submit(struct be_pam_hasher *h, const uint8_t *pw, size_t len,
                             uint32_t min_len, be_pam_hash_done_fn done, void *pvt);

/* ---- be_pam_access.c --------------------------------------------------------------- */

/* Reads access_provider's options (simple_*, the ldap ones through sdap_auth_policy). */
errno_t be_pam_access_init(struct be_ctx *be, struct be_pam *pam);
/* ACCT_MGMT: decides, finishing req now or from a callback. Errors: ENOMEM. */
errno_t be_pam_access(struct tevent_req *req);

/* ---- src/providers/krb5/krb5_auth.c ----------------------------------------------- */

/* AUTHENTICATE, CHAUTHTOK_PRELIM, CHAUTHTOK with the krb5 provider: finishes req now or
 * from a callback. Errors: ENOMEM. */
errno_t krb5_pam(struct tevent_req *req);

#endif /* SSS_BE_PAM_PRIVATE_H */
