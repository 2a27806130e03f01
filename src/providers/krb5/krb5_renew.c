/*
 * Background work on users' tickets (krb5_common.h):
 *  - krb5_renew_interval: every interval, each logged-in user's TGT past half its
 *    lifetime (and still renewable) is renewed by krb5_child in the user's own ccache;
 *    tickets past renew_till are forgotten.
 *  - krb5_store_password_if_offline: after an offline login the password is kept (in
 *    memory, wiped when dropped) and, once the KDC is no longer taken as offline, a TGT is
 *    obtained with it into the ccache the login would have written; then the password goes.
 * One table entry per user (the latest login wins); at most one child per entry at a time.
 */
#include <time.h>

#include "providers/krb5/krb5_common.h"

#define KRB5_RENEW_OFFLINE_INTERVAL 10

struct krb5_renew {
    struct krb5_ctx *kctx;
    struct sss_hash_table *table;   /* user -> struct krb5_renew_entry */
    int interval;
};

struct krb5_renew_entry {
    struct krb5_renew *renew;
    struct krb5_renew_item item;    /* strings on the entry */
    uint8_t *pw;                    /* store_password_if_offline; wiped on free */
    struct tevent_req *busy;        /* the child running for this entry */
};

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

    e = krb5_renew_put(kctx, item);
    if (e == NULL) {
        return;
    }
    e->pw = talloc_size(e, len + 1);
    if (e->pw == NULL) {
        sss_hash_table_remove_item(kctx->renew->table, sss_hash_str(e->item.user), e);
        talloc_free(e);
        return;
    }
    talloc_set_destructor(e->pw, krb5_renew_pw_wipe);
    memcpy(e->pw, pw, len);
    e->pw[len] = '\0';
    e->item.endtime = 0;
    DEBUG(SSSDBG_TRACE_FUNC, "[%s]: password kept to get a TGT once the KDC answers\n",
          item->user);
}

static void krb5_renew_done(struct tevent_req *subreq);

static void krb5_renew_start(struct krb5_renew_entry *e, bool with_pw)
{
    struct krb5_ctx *kctx = e->renew->kctx;
    struct krb5_child_req creq = {
        .cmd = with_pw ? KRB5_CHILD_AUTH : KRB5_CHILD_RENEW,
        .flags = with_pw ? ((kctx->validate ? KRB5_CHILD_F_VALIDATE : 0)
                            | (kctx->canonicalize ? KRB5_CHILD_F_CANONICALIZE : 0)
                            | (kctx->enterprise ? KRB5_CHILD_F_ENTERPRISE : 0)) : 0,
        .uid = e->item.uid, .gid = e->item.gid,
        .lifetime = kctx->lifetime, .renewable_lifetime = kctx->renewable_lifetime,
        .principal = e->item.principal, .ccname = e->item.ccname,
        .keytab = kctx->keytab,
        .password = with_pw ? (const char *)e->pw : "",
        .new_password = "", .realm = kctx->realm, .service = "",
    };

    e->busy = krb5_child_send(e, kctx->ev, kctx->child, &creq);
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
              e->item.user, e->pw != NULL ? "getting" : "renewal",
              sss_strerror(ret), ret == EOK ? rsp->status : 0);
        sss_hash_table_remove_item(e->renew->table, sss_hash_str(e->item.user), e);
        talloc_free(e);
        return;
    }
    DEBUG(SSSDBG_TRACE_FUNC, "[%s]: TGT %s in %s, valid until %lld\n", e->item.user,
          e->pw != NULL ? "obtained" : "renewed", rsp->ccname, (long long)rsp->endtime);
    talloc_zfree(e->pw);
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

    if (e->busy != NULL || e->pw != NULL) {
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
        if (e->pw != NULL) {
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
