/*
 * Cached credentials for the back-end's PAM requests (be_pam_private.h): with
 * cache_credentials = true, every successful online authentication stores the password's
 * salted hash (sysdb_creds), and an authentication while the domain is offline is checked
 * against it, as SSSD 2.8 does:
 *   match                 PAM_SUCCESS + USER_INFO OFFLINE_AUTH (int64: when the cached
 *                         password stops being accepted, 0 = never)
 *   wrong password        PAM_AUTH_ERR (counted: offline_failed_login_attempts)
 *   too many failures     PAM_PERM_DENIED + USER_INFO OFFLINE_AUTH_DELAYED (int64: when
 *                         the user may try again) while offline_failed_login_delay runs
 *   no hash, hash expired PAM_AUTHINFO_UNAVAIL (nobody can say yes)
 * The hash is stored shortly after the answer (BE_PAM_SAVE_DELAY): its few milliseconds
 * of libcrypt work and the cache write then delay neither this login nor the ACCT_MGMT that
 * follows it; at most BE_PAM_SAVE_MAX saves wait (beyond, the save runs at once). A save
 * that never runs (the process killed) only means the previous hash stays.
 * The policy options live in [pam] (offline_credentials_expiration,
 * offline_failed_login_attempts, offline_failed_login_delay) and in the domain
 * (cache_credentials_minimal_first_factor_length), as in SSSD.
 */
#include <security/pam_appl.h>

#include "providers/backend/be_pam_private.h"
#include "confdb/confdb.h"
#include "db/sysdb.h"
#include "sss_client/sss_cli.h"

static errno_t be_pam_creds_uint(struct be_ctx *be, const char *section, const char *option,
                                 uint32_t *_value)
{
    int v = 0;
    errno_t ret;

    ret = confdb_get_int(be->cdb, section, option, &v);
    if (ret != EOK) {
        return ret;
    }
    *_value = v < 0 ? 0 : (uint32_t)v;
    return EOK;
}

errno_t be_pam_creds_init(struct be_ctx *be, struct be_pam *pam)
{
    errno_t ret;

    SSS_CHECK_ARG(be != NULL && pam != NULL, EINVAL);
    ret = confdb_get_bool(be->cdb, be->section, "cache_credentials", &pam->cache_credentials);
    if (ret == EOK) {
        ret = be_pam_creds_uint(be, "pam", "offline_credentials_expiration",
                                &pam->creds.expiration_days);
    }
    if (ret == EOK) {
        ret = be_pam_creds_uint(be, "pam", "offline_failed_login_attempts",
                                &pam->creds.failed_attempts);
    }
    if (ret == EOK) {
        ret = be_pam_creds_uint(be, "pam", "offline_failed_login_delay",
                                &pam->creds.failed_delay_min);
    }
    if (ret == EOK) {
        ret = be_pam_creds_uint(be, be->section, "cache_credentials_minimal_first_factor_length",
                                &pam->creds.min_len);
    }
    return ret;
}

#define BE_PAM_SAVE_DELAY_USEC 200000
#define BE_PAM_SAVE_MAX 256

/* A hash to store after the answer: copies of the name and password (wiped on free). */
struct be_pam_save {
    struct be_ctx *be;
    struct be_pam *pam;             /* the owner (counts the pending saves) */
    char *user;
    uint8_t *pw;
    size_t len;
    time_t at;                      /* the online authentication's time */
    uint64_t req_id;
};

static int be_pam_save_destructor(struct be_pam_save *save)
{
    if (save->pw != NULL) {
        explicit_bzero(save->pw, save->len);
    }
    save->pam->pending_saves--;
    return 0;
}

static void be_pam_save_now(struct be_pam_save *save)
{
    struct be_pam *pam = save->be->pam;
    errno_t ret;

    ret = sysdb_creds_save(save->be->sysdb, save->user, save->pw, save->len, &pam->creds,
                           save->at);
    if (ret != EOK) {
        DEBUG(SSSDBG_OP_FAILURE, "credentials of [%s] not cached: %s\n", save->user,
              sss_strerror(ret));
    } else {
        /* (A password shorter than the minimal length is not cached, and EOK.) */
        DEBUG(SSSDBG_TRACE_FUNC, "cached credentials of [%s] updated\n", save->user);
    }
    talloc_free(save);
}

static void be_pam_save_timer(struct tevent_context *ev, struct tevent_timer *te,
                              struct timeval now, void *pvt)
{
    struct be_pam_save *save = talloc_get_type_abort(pvt, struct be_pam_save);

    (void)ev;
    (void)te;
    (void)now;
    SSS_REQ_ID_SCOPE(save->req_id);
    be_pam_save_now(save);
}

void be_pam_creds_save(struct be_pam_state *state)
{
    struct be_pam *pam = state->be->pam;
    const struct be_pam_tok *tok = &state->req.authtok;
    struct be_pam_save *save;

    if (!pam->cache_credentials || tok->data == NULL || tok->len == 0) {
        return;
    }
    save = talloc_zero(pam, struct be_pam_save);
    if (save == NULL) {
        DEBUG(SSSDBG_OP_FAILURE, "credentials of [%s] not cached: out of memory\n",
              state->req.user);
        return;
    }
    save->be = state->be;
    save->pam = pam;
    pam->pending_saves++;
    talloc_set_destructor(save, be_pam_save_destructor);
    save->user = talloc_strdup(save, state->req.user);
    save->pw = talloc_memdup(save, tok->data, tok->len);
    save->len = tok->len;
    save->at = time(NULL);
    save->req_id = state->req.req_id;
    if (save->user == NULL || save->pw == NULL) {
        DEBUG(SSSDBG_OP_FAILURE, "credentials of [%s] not cached: out of memory\n",
              state->req.user);
        talloc_free(save);
        return;
    }
    if (pam->pending_saves > BE_PAM_SAVE_MAX
            || tevent_add_timer(state->ev, save,
                                tevent_timeval_current_ofs(0, BE_PAM_SAVE_DELAY_USEC),
                                be_pam_save_timer, save) == NULL) {
        be_pam_save_now(save);
    }
}

uint32_t be_pam_creds_offline(struct be_pam_state *state)
{
    struct be_pam *pam = state->be->pam;
    const struct be_pam_tok *tok = &state->req.authtok;
    time_t expires = 0;
    time_t delayed = 0;
    int64_t when;
    errno_t ret;

    if (!pam->cache_credentials) {
        DEBUG(SSSDBG_TRACE_FUNC, "domain %s offline, cache_credentials off: [%s] cannot be "
              "authenticated\n", state->be->domain, state->req.user);
        return PAM_AUTHINFO_UNAVAIL;
    }
    if (tok->type != SSS_AUTHTOK_TYPE_PASSWORD || tok->data == NULL || tok->len == 0) {
        return PAM_AUTH_ERR;
    }
    ret = sysdb_creds_check(state->be->sysdb, state->req.user, tok->data, tok->len,
                            &pam->creds, time(NULL), &expires, &delayed);
    switch (ret) {
    case EOK:
        DEBUG(SSSDBG_TRACE_FUNC, "[%s] authenticated offline with cached credentials\n",
              state->req.user);
        when = (int64_t)expires;
        be_pam_add_user_info(state, SSS_PAM_USER_INFO_OFFLINE_AUTH, &when, sizeof(when));
        return PAM_SUCCESS;
    case ERR_AUTH_FAILED:
        DEBUG(SSSDBG_TRACE_FUNC, "[%s]: wrong password (offline)\n", state->req.user);
        return PAM_AUTH_ERR;
    case ERR_AUTH_DELAYED:
        DEBUG(SSSDBG_TRACE_FUNC, "[%s]: too many failed offline logins, delayed until %lld\n",
              state->req.user, (long long)delayed);
        when = (int64_t)delayed;
        be_pam_add_user_info(state, SSS_PAM_USER_INFO_OFFLINE_AUTH_DELAYED, &when,
                             sizeof(when));
        return PAM_PERM_DENIED;
    case ERR_NO_CACHED_CREDS:
    case ERR_CACHED_CREDS_EXPIRED:
    case ENOENT:
        DEBUG(SSSDBG_TRACE_FUNC, "[%s]: %s: cannot be authenticated offline\n",
              state->req.user, ret == ENOENT ? "not cached" : sss_strerror(ret));
        return PAM_AUTHINFO_UNAVAIL;
    default:
        DEBUG(SSSDBG_OP_FAILURE, "offline authentication of [%s] failed: %s\n",
              state->req.user, sss_strerror(ret));
        return PAM_SYSTEM_ERR;
    }
}
