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
 * The hash is made off the loop, by a worker thread (be_pam_hasher.c), and stored on the
 * loop when it is ready: its few milliseconds of libcrypt work delay neither this login nor
 * any other request. Logins of one user are coalesced (one hash per user every 5 s, the
 * last password wins; see "refreshing" below). A save that never runs (the process killed)
 * only means the previous hash stays.
 * The policy options live in [pam] (offline_credentials_expiration,
 * offline_failed_login_attempts, offline_failed_login_delay) and in the domain
 * (cache_credentials_minimal_first_factor_length), as in SSSD.
 */
#include <security/pam_appl.h>

#include "providers/backend/be_pam_private.h"
#include "confdb/confdb.h"
#include "db/sysdb.h"
#include "sss_client/sss_cli.h"
#include "util/sss_hash.h"

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

static errno_t be_pam_saves_create(struct be_ctx *be, struct be_pam *pam);

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
    if (ret == EOK && pam->cache_credentials) {
        ret = be_pam_saves_create(be, pam);
    }
    return ret;
}

/* ---- refreshing the hash after an online login -------------------------------------
 * One entry per user whose hash is being refreshed or was within the last
 * BE_PAM_SAVE_WINDOW_SEC. A login hands its password to the hasher thread at once when
 * the user has no entry; during the window (and while a hash of the user is being made)
 * later logins only replace the password waiting in the entry, which is handed over when
 * the window ends: a user logging in 100 times a second costs one hash in 5 seconds, and
 * the last password always ends up stored, in order (the hasher keeps submission order).
 * The window bounds how long the cache may lag behind a password changed elsewhere (the
 * old one still opening an offline login): 5 s, against 2 ms of CPU per hash, which made
 * up most of the back-end's CPU under 8 parallel logins of 64 users with a 1 s window.
 * At most BE_PAM_SAVE_MAX users have entries; beyond, the hash is made on the loop (there
 * is no job of that user in flight, so the order still holds). */
#define BE_PAM_SAVE_WINDOW_SEC 5
#define BE_PAM_SAVE_MAX 1024

struct be_pam_saves {
    struct be_ctx *be;
    struct be_pam_hasher *hasher;
    struct sss_hash_table *users;   /* user name -> struct be_pam_save */
};

struct be_pam_save {
    struct be_pam_saves *saves;
    char *user;
    uint64_t key;                   /* sss_hash_str(user) */
    bool in_table;
    uint8_t *pw;                    /* the password waiting (NULL: none), wiped on free */
    size_t len;
    time_t at;                      /* its online authentication's time */
    uint64_t req_id;
    bool hashing;                   /* a job of this user is in the hasher */
    time_t job_at;
    uint64_t job_req_id;
    struct tevent_timer *window;    /* the end of the window, or NULL */
};

static bool be_pam_save_equal(const void *item, const void *key, void *ctx)
{
    (void)ctx;
    return strcmp(((const struct be_pam_save *)item)->user, (const char *)key) == 0;
}

static void be_pam_save_drop_pw(struct be_pam_save *save)
{
    if (save->pw != NULL) {
        explicit_bzero(save->pw, save->len);
        talloc_free(save->pw);
        save->pw = NULL;
        save->len = 0;
    }
}

static int be_pam_save_destructor(struct be_pam_save *save)
{
    be_pam_save_drop_pw(save);
    if (save->in_table) {
        sss_hash_table_remove_item(save->saves->users, save->key, save);
    }
    return 0;
}

static bool be_pam_saves_reject(void *item, void *ctx)
{
    struct be_pam_save *save = item;

    (void)ctx;
    save->in_table = false;
    talloc_free(save);
    return false;
}

static int be_pam_saves_destructor(struct be_pam_saves *saves)
{
    /* The thread first (joined, its jobs dropped), then the entries the jobs pointed to. */
    talloc_free(saves->hasher);
    saves->hasher = NULL;
    sss_hash_table_filter(saves->users, be_pam_saves_reject, NULL);
    return 0;
}

/* Logs the outcome of storing one hash (hash "" = not cacheable: an older one removed). */
static void be_pam_save_log(const char *user, errno_t ret)
{
    if (ret != EOK) {
        DEBUG(SSSDBG_OP_FAILURE, "credentials of [%s] not cached: %s\n", user,
              sss_strerror(ret));
    } else {
        /* (A password shorter than the minimal length is not cached, and EOK.) */
        DEBUG(SSSDBG_TRACE_FUNC, "cached credentials of [%s] updated\n", user);
    }
}

static void be_pam_save_kick(struct be_pam_save *save);

static void be_pam_save_hashed(void *pvt, errno_t ret, const char *hash)
{
    struct be_pam_save *save = talloc_get_type_abort(pvt, struct be_pam_save);
    struct be_ctx *be = save->saves->be;

    SSS_REQ_ID_SCOPE(save->job_req_id);
    save->hashing = false;
    if (ret == EOK) {
        ret = sysdb_creds_store(be->sysdb, save->user, hash, save->job_at);
    }
    be_pam_save_log(save->user, ret);
    if (save->window == NULL) {
        if (save->pw != NULL) {
            be_pam_save_kick(save);
        } else {
            talloc_free(save);
        }
    }
}

static void be_pam_save_window_end(struct tevent_context *ev, struct tevent_timer *te,
                                   struct timeval now, void *pvt)
{
    struct be_pam_save *save = talloc_get_type_abort(pvt, struct be_pam_save);

    (void)ev;
    (void)te;
    (void)now;
    save->window = NULL;
    if (save->hashing) {
        return;     /* be_pam_save_hashed goes on */
    }
    if (save->pw != NULL) {
        be_pam_save_kick(save);
    } else {
        talloc_free(save);
    }
}

/* Hands the waiting password to the hasher, unless a job or the window is running. */
static void be_pam_save_kick(struct be_pam_save *save)
{
    struct be_ctx *be = save->saves->be;
    errno_t ret;

    if (save->hashing || save->window != NULL || save->pw == NULL) {
        return;
    }
    ret = be_pam_hasher_submit(save->saves->hasher, save->pw, save->len,
                               be->pam->creds.min_len, be_pam_save_hashed, save);
    if (ret != EOK) {
        /* No thread or no memory: made here, so the password is not lost. */
        SSS_REQ_ID_SCOPE(save->req_id);
        ret = sysdb_creds_save(be->sysdb, save->user, save->pw, save->len, &be->pam->creds,
                               save->at);
        be_pam_save_log(save->user, ret);
        talloc_free(save);
        return;
    }
    save->hashing = true;
    save->job_at = save->at;
    save->job_req_id = save->req_id;
    be_pam_save_drop_pw(save);
    save->window = tevent_add_timer(be->ev, save,
                                    tevent_timeval_current_ofs(BE_PAM_SAVE_WINDOW_SEC, 0),
                                    be_pam_save_window_end, save);
    /* Without a timer there is no window: the entry goes when the job is done. */
}

static errno_t be_pam_saves_create(struct be_ctx *be, struct be_pam *pam)
{
    struct be_pam_saves *saves;
    errno_t ret;

    saves = talloc_zero(pam, struct be_pam_saves);
    if (saves == NULL) {
        return ENOMEM;
    }
    saves->be = be;
    saves->users = sss_hash_table_new(saves, 0, be_pam_save_equal, NULL);
    if (saves->users == NULL) {
        talloc_free(saves);
        return ENOMEM;
    }
    ret = be_pam_hasher_create(saves, be->ev, &saves->hasher);
    if (ret != EOK) {
        talloc_free(saves);
        return ret;
    }
    talloc_set_destructor(saves, be_pam_saves_destructor);
    pam->saves = saves;
    return EOK;
}

void be_pam_creds_save(struct be_pam_state *state)
{
    struct be_pam *pam = state->be->pam;
    struct be_pam_saves *saves = pam->saves;
    const struct be_pam_tok *tok = &state->req.authtok;
    const char *user = state->req.user;
    uint64_t key = sss_hash_str(user);
    struct be_pam_save *save;
    errno_t ret;

    if (!pam->cache_credentials || saves == NULL || tok->data == NULL || tok->len == 0) {
        return;
    }
    save = sss_hash_table_get(saves->users, key, user);
    if (save == NULL && sss_hash_table_count(saves->users) >= BE_PAM_SAVE_MAX) {
        ret = sysdb_creds_save(state->be->sysdb, user, tok->data, tok->len, &pam->creds,
                               time(NULL));
        be_pam_save_log(user, ret);
        return;
    }
    if (save == NULL) {
        save = talloc_zero(saves, struct be_pam_save);
        if (save == NULL) {
            goto oom;
        }
        save->saves = saves;
        save->key = key;
        talloc_set_destructor(save, be_pam_save_destructor);
        save->user = talloc_strdup(save, user);
        if (save->user == NULL
                || sss_hash_table_insert(saves->users, key, save->user, save, NULL) != EOK) {
            talloc_free(save);
            goto oom;
        }
        save->in_table = true;
    }
    /* The newest password replaces one still waiting. */
    be_pam_save_drop_pw(save);
    save->pw = talloc_memdup(save, tok->data, tok->len);
    if (save->pw == NULL) {
        if (!save->hashing && save->window == NULL) {
            talloc_free(save);
        }
        goto oom;
    }
    save->len = tok->len;
    save->at = time(NULL);
    save->req_id = state->req.req_id;
    be_pam_save_kick(save);
    return;

oom:
    DEBUG(SSSDBG_OP_FAILURE, "credentials of [%s] not cached: out of memory\n", user);
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
