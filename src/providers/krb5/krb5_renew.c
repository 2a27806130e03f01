/*
 * Background work on users' tickets (krb5_common.h):
 *  - krb5_renew_interval: every interval, each logged-in user's TGT past half its
 *    lifetime (and still renewable) is renewed by krb5_child in the user's own ccache;
 *    tickets past renew_till are forgotten.
 *  - krb5_store_password_if_offline: after an offline login the password is kept in a
 *    kernel key of sssd_be (krb5_pwkey.c; in wiped memory only when the kernel refuses a
 *    key, never in a file) and, once the KDC is no longer taken as offline, a TGT is
 *    obtained with it into the ccache the login would have written; then the key goes.
 * One table entry per user (the latest login wins); at most one child per entry at a time.
 */
#include <stdio.h>
#include <time.h>

#include "providers/krb5/krb5_common.h"

#define KRB5_RENEW_OFFLINE_INTERVAL 10
/* The kernel destroys a kept password after this long (SSSD keeps it until the KDC
 * answers; a day bounds how long an unused password lives). */
#define KRB5_RENEW_PWKEY_TIMEOUT (24 * 3600)

struct krb5_renew {
    struct krb5_ctx *kctx;
    struct sss_hash_table *table;   /* user -> struct krb5_renew_entry */
    int interval;
};

struct krb5_renew_entry {
    struct krb5_renew *renew;
    struct krb5_renew_item item;    /* strings on the entry */
    int32_t pw_key;                 /* store_password_if_offline: the kernel key ... */
    uint8_t *pw;                    /* ... or, when refused, the bytes (wiped on free) */
    struct tevent_req *busy;        /* the child running for this entry */
};

static bool krb5_renew_has_pw(const struct krb5_renew_entry *e)
{
    return e->pw_key > 0 || e->pw != NULL;
}

static void krb5_renew_drop_pw(struct krb5_renew_entry *e)
{
    krb5_pwkey_drop(e->pw_key);
    e->pw_key = 0;
    talloc_zfree(e->pw);
}

static int krb5_renew_entry_free(struct krb5_renew_entry *e)
{
    krb5_renew_drop_pw(e);
    return 0;
}

static bool krb5_renew_equal(const void *item, const void *key, void *ctx)
{
    const struct krb5_renew_entry *e = item;

    (void)ctx;
    return strcmp(e->item.user, (const char *)key) == 0;
}

static int krb5_renew_pw_wipe(uint8_t *p)
{
    explicit_bzero(p, talloc_get_size(p));
    return 0;
}

static void krb5_renew_tick(struct tevent_context *ev, struct tevent_timer *te,
                            struct timeval now, void *pvt);

static errno_t krb5_renew_schedule(struct krb5_renew *renew)
{
    struct tevent_timer *te;

    te = tevent_add_timer(renew->kctx->ev, renew,
                          tevent_timeval_current_ofs(renew->interval, 0), krb5_renew_tick,
                          renew);
    return te == NULL ? ENOMEM : EOK;
}

errno_t krb5_renew_init(struct krb5_ctx *kctx)
{
    struct krb5_renew *renew;

    SSS_CHECK_ARG(kctx != NULL, EINVAL);
    renew = talloc_zero(kctx, struct krb5_renew);
    if (renew == NULL) {
        return ENOMEM;
    }
    renew->kctx = kctx;
    renew->interval = kctx->renew_interval > 0 ? kctx->renew_interval
                      : kctx->store_pw_if_offline ? KRB5_RENEW_OFFLINE_INTERVAL : 0;
    renew->table = sss_hash_table_new(renew, 0, krb5_renew_equal, NULL);
    if (renew->table == NULL) {
        talloc_free(renew);
        return ENOMEM;
    }
    kctx->renew = renew;
    if (renew->interval == 0) {
        return EOK;
    }
    return krb5_renew_schedule(renew);
}

static struct krb5_renew_entry *krb5_renew_put(struct krb5_ctx *kctx,
                                               const struct krb5_renew_item *item)
{
    struct krb5_renew *renew = kctx->renew;
    struct krb5_renew_entry *e;
    struct krb5_renew_entry *old;
    uint64_t h;

    if (renew == NULL || renew->interval == 0 || item->ccname == NULL) {
        return NULL;
    }
    h = sss_hash_str(item->user);
    old = sss_hash_table_remove(renew->table, h, item->user);
    talloc_free(old);       /* a child still running for it is killed with it */
    e = talloc_zero(renew, struct krb5_renew_entry);
    if (e == NULL) {
        return NULL;
    }
    talloc_set_destructor(e, krb5_renew_entry_free);
    e->renew = renew;
    e->item = *item;
    e->item.user = talloc_strdup(e, item->user);
    e->item.principal = talloc_strdup(e, item->principal);
    e->item.ccname = talloc_strdup(e, item->ccname);
    if (e->item.user == NULL || e->item.principal == NULL || e->item.ccname == NULL
            || sss_hash_table_insert(renew->table, h, e->item.user, e, NULL) != EOK) {
        talloc_free(e);
        return NULL;
    }
    return e;
}

void krb5_renew_add(struct krb5_ctx *kctx, const struct krb5_renew_item *item)
{
    if (kctx->renew_interval <= 0 || item->renew_till <= item->endtime) {
        /* Not renewable, or renewal off: still drop a stored offline password. */
        talloc_free(sss_hash_table_remove(kctx->renew->table, sss_hash_str(item->user),
                                          item->user));
        return;
    }
    if (krb5_renew_put(kctx, item) != NULL) {
        DEBUG(SSSDBG_TRACE_FUNC, "TGT of [%s] in %s renewed from time to time until %lld\n",
              item->user, item->ccname, (long long)item->renew_till);
    }
}

void krb5_renew_add_offline(struct krb5_ctx *kctx, const struct krb5_renew_item *item,
                            const uint8_t *pw, size_t len)
{
    struct krb5_renew_entry *e;
    char desc[128];
    errno_t ret;

    e = krb5_renew_put(kctx, item);
    if (e == NULL) {
        return;
    }
    e->item.endtime = 0;
    (void)snprintf(desc, sizeof(desc), "sssd:%s:%s", kctx->domain, item->user);
    ret = krb5_pwkey_store(desc, pw, len, KRB5_RENEW_PWKEY_TIMEOUT, &e->pw_key);
    if (ret == EOK) {
        DEBUG(SSSDBG_TRACE_FUNC, "[%s]: password kept in key %d of sssd_be's keyring to "
              "get a TGT once the KDC answers\n", item->user, (int)e->pw_key);
        return;
    }
    DEBUG(SSSDBG_MINOR_FAILURE, "[%s]: the kernel refused a key for the password (%s): "
          "kept in wiped memory instead\n", item->user, sss_strerror(ret));
    e->pw = talloc_size(e, len + 1);
    if (e->pw == NULL) {
        sss_hash_table_remove_item(kctx->renew->table, sss_hash_str(e->item.user), e);
        talloc_free(e);
        return;
    }
    talloc_set_destructor(e->pw, krb5_renew_pw_wipe);
    memcpy(e->pw, pw, len);
    e->pw[len] = '\0';
    DEBUG(SSSDBG_TRACE_FUNC, "[%s]: password kept to get a TGT once the KDC answers\n",
          item->user);
}

static void krb5_renew_done(struct tevent_req *subreq);

static void krb5_renew_start(struct krb5_renew_entry *e, bool with_pw)
{
    struct krb5_ctx *kctx = e->renew->kctx;
    uint8_t *pw = NULL;
    errno_t ret;

    if (with_pw && e->pw_key > 0) {
        /* Out of the kernel only while the child's request is encoded. */
        ret = krb5_pwkey_read(e, e->pw_key, &pw);
        if (ret != EOK) {
            DEBUG(SSSDBG_OP_FAILURE, "[%s]: the kept password is gone (%s): no TGT\n",
                  e->item.user, sss_strerror(ret));
            sss_hash_table_remove_item(e->renew->table, sss_hash_str(e->item.user), e);
            talloc_free(e);
            return;
        }
    }
    struct krb5_child_req creq = {
        .cmd = with_pw ? KRB5_CHILD_AUTH : KRB5_CHILD_RENEW,
        .flags = with_pw ? ((kctx->validate ? KRB5_CHILD_F_VALIDATE : 0)
                            | (kctx->canonicalize ? KRB5_CHILD_F_CANONICALIZE : 0)
                            | (kctx->enterprise ? KRB5_CHILD_F_ENTERPRISE : 0)) : 0,
        .uid = e->item.uid, .gid = e->item.gid,
        .lifetime = kctx->lifetime, .renewable_lifetime = kctx->renewable_lifetime,
        .principal = e->item.principal, .ccname = e->item.ccname,
        .keytab = kctx->keytab,
        .password = !with_pw ? "" : pw != NULL ? (const char *)pw : (const char *)e->pw,
        .new_password = "", .realm = kctx->realm, .service = "",
    };

    e->busy = krb5_child_send(e, kctx->ev, kctx->child, &creq);
    talloc_free(pw);    /* wiped */
    if (e->busy != NULL) {
        tevent_req_set_callback(e->busy, krb5_renew_done, e);
    }
}

static void krb5_renew_done(struct tevent_req *subreq)
{
    struct krb5_renew_entry *e = tevent_req_callback_data(subreq, struct krb5_renew_entry);
    struct krb5_ctx *kctx = e->renew->kctx;
    struct krb5_child_rsp *rsp = NULL;
    errno_t ret;

    ret = krb5_child_recv(e, subreq, &rsp);
    talloc_free(subreq);
    e->busy = NULL;
    if (ret == ETIMEDOUT || (ret == EOK && rsp->status == KRB5_CHILD_KDC_UNREACHABLE)) {
        krb5_kdc_mark_offline(kctx);
        return;         /* tried again next round */
    }
    if (ret != EOK || rsp->status != KRB5_CHILD_OK) {
        DEBUG(SSSDBG_OP_FAILURE, "[%s]: %s of the TGT failed (%s, status %u): given up\n",
              e->item.user, krb5_renew_has_pw(e) ? "getting" : "renewal",
              sss_strerror(ret), ret == EOK ? rsp->status : 0);
        sss_hash_table_remove_item(e->renew->table, sss_hash_str(e->item.user), e);
        talloc_free(e);
        return;
    }
    DEBUG(SSSDBG_TRACE_FUNC, "[%s]: TGT %s in %s, valid until %lld\n", e->item.user,
          krb5_renew_has_pw(e) ? "obtained" : "renewed", rsp->ccname, (long long)rsp->endtime);
    krb5_renew_drop_pw(e);
    e->item.starttime = time(NULL);
    e->item.endtime = (time_t)rsp->endtime;
    e->item.renew_till = (time_t)rsp->renew_till;
    if (rsp->ccname[0] != '\0') {
        char *cc = talloc_strdup(e, rsp->ccname);

        if (cc != NULL) {
            e->item.ccname = cc;
        }
    }
    if (kctx->renew_interval <= 0 || e->item.renew_till <= e->item.endtime) {
        sss_hash_table_remove_item(e->renew->table, sss_hash_str(e->item.user), e);
        talloc_free(e);
    }
}

static bool krb5_renew_keep(void *item, void *ctx)
{
    struct krb5_renew_entry *e = item;
    time_t now = *(time_t *)ctx;

    if (e->busy != NULL || krb5_renew_has_pw(e)) {
        return true;
    }
    if (e->item.renew_till <= now) {
        DEBUG(SSSDBG_TRACE_FUNC, "[%s]: TGT no longer renewable: forgotten\n", e->item.user);
        talloc_free(e);
        return false;
    }
    return true;
}

static void krb5_renew_tick(struct tevent_context *ev, struct tevent_timer *te,
                            struct timeval tv, void *pvt)
{
    struct krb5_renew *renew = talloc_get_type_abort(pvt, struct krb5_renew);
    struct krb5_renew_entry *e;
    time_t now = time(NULL);
    size_t pos = 0;

    (void)sss_hash_table_filter(renew->table, krb5_renew_keep, &now);
    while (sss_hash_table_next(renew->table, &pos, (void **)&e)) {
        if (e->busy != NULL) {
            continue;
        }
        if (krb5_renew_has_pw(e)) {
            if (!krb5_kdc_offline(renew->kctx)) {
                krb5_renew_start(e, true);
            }
            continue;
        }
        if (now >= e->item.starttime + (e->item.endtime - e->item.starttime) / 2) {
            krb5_renew_start(e, false);
        }
    }
    if (krb5_renew_schedule(renew) != EOK) {
        DEBUG(SSSDBG_CRIT_FAILURE, "renewal timer lost (out of memory)\n");
    }
}
