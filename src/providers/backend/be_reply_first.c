/*
 * Reply first (issue 18): a user lookup (by name or uid) that the directory answered is
 * answered on the bus before the user is written to the cache. The answer carries the
 * entry (sysdb_reply.h), so the responder needs no cache read; the store then runs at
 * once, in the same loop callback, so this back-end sees no other request before it
 * committed.
 *
 *   be_id_ldap.c  hands the found user over (be_user_later_set) instead of storing it;
 *   be_account.c  when the operation ends and every waiter takes its entry from the
 *                 reply (be_dp.c): be_reply_first_begin opens the write transaction,
 *                 whose lock keeps every other writer from committing until we do, and
 *                 builds the carried entry (from the user: the cache's own entry is only
 *                 built by the store) tagged with the last commit's generation; the
 *                 waiters are answered; be_reply_first_end flushes the replies to the bus
 *                 socket, stores the user in that transaction and commits.
 *                 Otherwise (a waiter that reads the cache itself, be_pam.c; no read
 *                 cache; an entry the responder would not take) be_user_later_store
 *                 writes it first and the answers follow, as before.
 * A responder still at the tagged generation answers from the carried entry; one that
 * sees our commit reads the entry from ldb. Nothing else can commit in between (the
 * lock), so no read can find the database past the tag but without the entry.
 * A store failing after the answer is logged: the answer was the directory's; the cache
 * only lacks the entry. A crash between answer and commit loses only that cache entry.
 */
#include <dbus/dbus.h>

#include "providers/backend/be_ctx.h"
#include "providers/ldap/sdap.h"
#include "sbus/sbus.h"
#include "sss_iface/sss_dp.h"
#include "db/sysdb.h"
#include "db/sysdb_reply.h"

struct be_user_later {
    uint32_t type;
    struct be_filter filter;        /* name copied */
    struct sdap_user *user;
    time_t now;                     /* of the answer: the entry's last update and expiry */
    struct sysdb_user_write *w;     /* the entry, built once for the answer and the store */
};

bool be_user_later_set(struct be_ctx *be, uint32_t type, const struct be_filter *filter,
                       struct sdap_user *user, time_t now)
{
    struct be_user_later *later;

    if (be->conn == NULL || type != SSS_DP_USER
            || (filter->kind != BE_FILTER_NAME && filter->kind != BE_FILTER_ID)) {
        return false;
    }
    if (be->user_later != NULL) {
        /* Not taken by its operation's end (cannot happen: the chain is synchronous);
         * never lose a store. */
        (void)be_user_later_store(be, be->user_later);
        TALLOC_FREE(be->user_later);
    }
    later = talloc_zero(be, struct be_user_later);
    if (later == NULL) {
        return false;
    }
    later->type = type;
    later->filter = *filter;
    if (filter->name != NULL) {
        later->filter.name = talloc_strdup(later, filter->name);
        if (later->filter.name == NULL) {
            talloc_free(later);
            return false;
        }
    }
    later->user = talloc_steal(later, user);
    later->now = now;
    be->user_later = later;
    return true;
}

struct be_user_later *be_user_later_take(struct be_ctx *be)
{
    struct be_user_later *later = be->user_later;

    be->user_later = NULL;
    return later;
}

errno_t be_user_later_store(struct be_ctx *be, struct be_user_later *later)
{
    if (later->w != NULL) {
        return be_store_user_prepared(be, later->user, later->w, later->now);
    }
    return be_store_user(be, later->user, later->now);
}

static bool be_reply_first_key(const struct be_user_later *later,
                               struct sysdb_reply_key *_key)
{
    _key->name = later->filter.name;
    _key->id = later->filter.id;
    _key->kind = later->filter.kind == BE_FILTER_NAME ? SYSDB_RC_USER_NAME
                                                      : SYSDB_RC_USER_UID;
    return later->filter.kind != BE_FILTER_NAME || later->filter.name != NULL;
}

errno_t be_reply_first_begin(struct be_ctx *be, struct be_user_later *later)
{
    struct sysdb_reply_key key;
    struct sysdb_user su;
    struct be_carried *carried;
    errno_t ret;

    if (be->conn == NULL || be->sysdb == NULL || be->carrying != NULL
            || later->user->uid == 0 || later->user->gid == 0
            || !be_reply_first_key(later, &key)) {
        return ENOTSUP;
    }
    carried = talloc_zero(be, struct be_carried);
    if (carried == NULL) {
        return ENOMEM;
    }
    carried->type = later->type;
    carried->filter = later->filter;
    /* Built before the lock: a user the cache refuses is then stored (refused) first. */
    be_user_to_sysdb(be, later->user, &su);
    ret = sysdb_user_write_new(later, be->sysdb, &su, later->now, be->user_timeout,
                               &later->w);
    if (ret != EOK) {
        talloc_free(carried);
        return ret;
    }
    ret = sysdb_transaction_start(be->sysdb);
    if (ret != EOK) {
        talloc_free(carried);
        return ret;
    }
    ret = sysdb_reply_user_first(be->sysdb, &key, later->w, &carried->gen, &carried->blob,
                                 &carried->len);
    if (ret != EOK) {
        DEBUG(SSSDBG_TRACE_INTERNAL, "%s: stored before the answer (%s)\n",
              later->user->name, sss_strerror(ret));
        /* Nothing written yet: the cancel only lets the lock go. */
        (void)sysdb_transaction_end(be->sysdb, ENOTSUP);
        talloc_free(carried);
        return ret;
    }
    be->carrying = carried;
    return EOK;
}

void be_reply_first_end(struct be_ctx *be, struct be_user_later *later)
{
    DBusConnection *dbus;
    errno_t ret;

    /* The entry still belongs to the cache: the answers must not wait for it. */
    TALLOC_FREE(be->carrying);
    dbus = sbus_connection_get_dbus(be->conn);
    if (dbus != NULL) {
        dbus_connection_flush(dbus);
    }
    be->stats.replied_first++;
    ret = be_user_later_store(be, later);
    ret = sysdb_transaction_end(be->sysdb, ret);
    if (ret != EOK) {
        DEBUG(SSSDBG_OP_FAILURE, "%s was answered but not cached: %s\n", later->user->name,
              sss_strerror(ret));
        return;
    }
    DEBUG(SSSDBG_TRACE_INTERNAL, "%s answered before its store, then stored\n",
          later->user->name);
}
