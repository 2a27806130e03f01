/*
 * The LDAP side of one account request: ask sdap, then make the cache say what the
 * directory said.
 *   user        found: store it; ENOENT: remove the cached user of that name, uid or SID.
 *               By e-mail address: store every user the directory says holds it, and
 *               remove the cached users holding it that the directory did not return (so
 *               the cache's answer, one user, several or none, is the directory's).
 *   group       by gid, when it is the gid of the user a getpwnam stored less than
 *               BE_RECENT_USER_S ago (`id`: getpwnam, getgrgid(primary gid), initgroups):
 *               that user's initgroups, whose (first) search also matches the gid
 *               (sdap_initgroups_primary_send), stored as an initgroups is; the group is
 *               then what that search found (stored), or nothing (removed). `id`'s
 *               initgroups right after finds a fresh list and costs the directory nothing.
 *               Otherwise:
 *               found (by name, gid or SID): store it with its members (sliced when huge),
 *               and the nested groups sdap read completely on the way (rfc2307bis: the
 *               member lists their own lookup would store now, so `id`'s getgrgid of
 *               them needs no search);
 *               ENOENT: remove it.
 *   initgroups  the user is taken from the cache when its entry is fresh (the getpwnam
 *               before it stored it seconds ago; see be_id_ldap_cached_user), and is then
 *               not stored again (its expiry stays what the directory's answer gave);
 *               found: one transaction storing the user, each group (complete, members
 *               and expiry, when sdap read its whole membership and it is not big;
 *               otherwise without touching its member list), and the user's group list (for more than BE_INITGR_SLICE
 *               groups, the groups go first in slices of that many, one transaction and
 *               loop turn each); ENOENT: remove the user. The groups the cache did not
 *               hold (stored expired, members unknown) are then queued, in the order of
 *               the reply, for the member prefetch (be_prefetch.c), which starts only
 *               after this request answered.
 * "Not found" is a success (EOK): the cache now answers "no such object". Every other sdap
 * error is returned as is; the caller maps it to a dp_error. Enumeration ("*") is be_enum.c.
 * be_id_ldap_conn_send runs the same on another id context (the global catalog's,
 * be_id_gc.c), where "not found" removes nothing and is returned as ENOENT: the domain's
 * LDAP, asked next, decides.
 */
#include "providers/backend/be_ctx.h"
#include "providers/backend/be_initgr_notify.h"
#include "providers/ldap/sdap.h"
#include "sss_iface/sss_dp.h"
#include "db/sysdb.h"

struct be_id_ldap_state {
    struct tevent_context *ev;
    struct be_ctx *be;
    struct sdap_id_ctx *id_ctx;     /* be->id_ctx, or its global catalog's */
    bool keep_missing;              /* not found: ENOENT, the cache untouched */
    uint32_t type;
    struct be_filter filter;
    /* initgroups with auto_private_groups = true, while be_mpg_primary runs */
    struct sdap_user *user;
    struct sdap_group **groups;
    size_t num_groups;
    bool user_cached;       /* initgroups started from the fresh cache entry */
    bool gid_found;         /* group by gid through the recent user's initgroups: found */
    bool gid_complete;      /* and stored complete */
};

/* How long after a getpwnam a getgrgid of that user's gid is taken for `id`'s. */
#define BE_RECENT_USER_S 5

static void be_id_ldap_user_done(struct tevent_req *subreq);
static void be_id_ldap_mail_done(struct tevent_req *subreq);
static void be_id_ldap_group_done(struct tevent_req *subreq);
static void be_id_ldap_mpg_done(struct tevent_req *subreq);
static void be_id_ldap_initgr_done(struct tevent_req *subreq);
static void be_id_ldap_stored(struct tevent_req *subreq);
static void be_id_ldap_primary_done(struct tevent_req *subreq);
static void be_id_ldap_gid_initgr_done(struct tevent_req *subreq);

/*
 * The user an initgroups may start from instead of searching it again: its cache entry,
 * when it is within its cache timeout (as fresh as the entry getpwnam answers from), has
 * its DN, and holds the name as the directory spells it (not in a case-insensitive
 * domain, whose cache folds names: rfc2307 matches memberUid exactly; unless the groups
 * are found by DN, sdap_initgroups_by_dn: AD). Not with
 * auto_private_groups = true, whose cached gid is the uid, not the gidNumber be_mpg.c
 * needs. ENOENT: search the user.
 */
static errno_t be_id_ldap_cached_user(TALLOC_CTX *mem_ctx, struct be_ctx *be,
                                      const char *name, struct sdap_user **_user)
{
    TALLOC_CTX *tmp_ctx = talloc_new(NULL);
    struct sysdb_user *su = NULL;
    struct sdap_user *user;
    char *short_name = NULL;
    errno_t ret;

    if (tmp_ctx == NULL) {
        return ENOMEM;
    }
    if (be->mpg == BE_MPG_TRUE) {
        ret = ENOENT;
        goto done;
    }
    ret = sysdb_get_user_by_name(tmp_ctx, be->sysdb, name, &su);
    if (ret != EOK) {
        /* Not cached, or a name the cache refuses: sdap decides on the search. */
        ret = ret == ENOMEM ? ENOMEM : ENOENT;
        goto done;
    }
    if (su->expire <= time(NULL) || su->orig_dn == NULL || *su->orig_dn == '\0') {
        ret = ENOENT;
        goto done;
    }
    /* A case-insensitive cache stores names lowercased, not as the directory spells them. */
    if (sysdb_case_mode(be->sysdb) == SYSDB_CASE_INSENSITIVE
            && !sdap_initgroups_by_dn(be->id_ctx)) {
        ret = ENOENT;
        goto done;
    }
    ret = sysdb_short_name(tmp_ctx, be->sysdb, su->name, &short_name);
    if (ret != EOK) {
        goto done;
    }
    user = talloc_zero(mem_ctx, struct sdap_user);
    if (user == NULL) {
        ret = ENOMEM;
        goto done;
    }
    user->name = talloc_steal(user, short_name);
    user->orig_dn = talloc_strdup(user, su->orig_dn);
    if (user->orig_dn == NULL) {
        talloc_free(user);
        ret = ENOMEM;
        goto done;
    }
    user->uid = su->uid;
    user->gid = su->gid;
    DEBUG(SSSDBG_TRACE_FUNC, "initgroups of %s starts from its fresh cache entry\n",
          user->name);
    *_user = user;
done:
    talloc_free(tmp_ctx);
    return ret;
}

/* Whether gid is the primary gid of the user the last getpwnam stored, less than
 * BE_RECENT_USER_S ago, and that user's fresh cache entry can start its initgroups
 * (be_id_ldap_cached_user); then *_user is that entry. Only where the initgroups can bring
 * both (not AD). */
static bool be_id_ldap_recent_user(TALLOC_CTX *mem_ctx, struct be_ctx *be,
                                   struct sdap_id_ctx *id_ctx, uint32_t gid,
                                   struct sdap_user **_user)
{
    struct sdap_user *user = NULL;

    if (be->recent_user == NULL || be->recent_gid != gid
            || time(NULL) - be->recent_at > BE_RECENT_USER_S
            || !sdap_initgroups_brings_primary(id_ctx)) {
        return false;
    }
    if (be_id_ldap_cached_user(mem_ctx, be, be->recent_user, &user) != EOK) {
        return false;
    }
    if (user->gid != gid) {
        talloc_free(user);
        return false;
    }
    /* Once: a second getgrgid of that gid is an ordinary group lookup. */
    TALLOC_FREE(be->recent_user);
    *_user = user;
    return true;
}

struct tevent_req *be_id_ldap_send(TALLOC_CTX *mem_ctx, struct tevent_context *ev,
                                   struct be_ctx *be, uint32_t type,
                                   const struct be_filter *filter)
{
    return be_id_ldap_conn_send(mem_ctx, ev, be, be != NULL ? be->id_ctx : NULL, false, type,
                                filter);
}

struct tevent_req *be_id_ldap_conn_send(TALLOC_CTX *mem_ctx, struct tevent_context *ev,
                                        struct be_ctx *be, struct sdap_id_ctx *id_ctx,
                                        bool keep_missing, uint32_t type,
                                        const struct be_filter *filter)
{
    struct be_id_ldap_state *state;
    struct tevent_req *req;
    struct tevent_req *subreq;
    tevent_req_fn found;
    enum sdap_by by;
    errno_t ret;

    req = tevent_req_create(mem_ctx, &state, struct be_id_ldap_state);
    if (req == NULL) {
        return NULL;
    }
    SSS_CHECK_ARG(be != NULL && id_ctx != NULL, sss_req_post(req, ev, EINVAL));
    SSS_CHECK_ARG(filter != NULL && filter->kind != BE_FILTER_ENUM,
                 sss_req_post(req, ev, EINVAL));
    SSS_CHECK_ARG(type == SSS_DP_USER || type == SSS_DP_GROUP
                 || (type == SSS_DP_INITGROUPS && filter->kind == BE_FILTER_NAME),
                 sss_req_post(req, ev, EINVAL));
    SSS_CHECK_ARG(filter->kind != BE_FILTER_MAIL || type == SSS_DP_USER,
                 sss_req_post(req, ev, EINVAL));
    SSS_CHECK_ARG(filter->kind != BE_FILTER_SID || type != SSS_DP_INITGROUPS,
                 sss_req_post(req, ev, EINVAL));
    state->ev = ev;
    state->be = be;
    state->id_ctx = id_ctx;
    state->keep_missing = keep_missing;
    state->type = type;
    state->filter = *filter;
    if (filter->kind == BE_FILTER_NAME || filter->kind == BE_FILTER_MAIL
            || filter->kind == BE_FILTER_SID) {
        state->filter.name = talloc_strdup(state, filter->name);
        if (state->filter.name == NULL) {
            ret = ENOMEM;
            goto done;
        }
    }
    by = filter->kind == BE_FILTER_NAME ? SDAP_BY_NAME
         : filter->kind == BE_FILTER_SID ? SDAP_BY_SID : SDAP_BY_ID;

    switch (type) {
    case SSS_DP_USER:
        if (filter->kind == BE_FILTER_MAIL) {
            subreq = sdap_get_users_by_email_send(state, ev, id_ctx, state->filter.name);
            found = be_id_ldap_mail_done;
            break;
        }
        subreq = sdap_get_user_send(state, ev, id_ctx, by, state->filter.name,
                                    state->filter.id);
        found = be_id_ldap_user_done;
        break;
    case SSS_DP_GROUP:
        if (be->mpg != BE_MPG_FALSE && by != SDAP_BY_SID) {
            /* auto_private_groups: a group may be a user's private group (be_mpg.c). */
            subreq = be_mpg_group_send(state, ev, be, &state->filter);
            found = be_id_ldap_mpg_done;
            break;
        }
        if (by == SDAP_BY_ID && be_id_ldap_recent_user(state, be, id_ctx, state->filter.id,
                                                       &state->user)) {
            state->user_cached = true;
            subreq = sdap_initgroups_primary_send(state, ev, id_ctx, state->user);
            found = be_id_ldap_gid_initgr_done;
            break;
        }
        subreq = sdap_get_group_send(state, ev, id_ctx, by, state->filter.name,
                                     state->filter.id);
        found = be_id_ldap_group_done;
        break;
    default:        /* SSS_DP_INITGROUPS by name, checked above */
        found = be_id_ldap_initgr_done;
        ret = be_id_ldap_cached_user(state, be, state->filter.name, &state->user);
        if (ret == EOK) {
            state->user_cached = true;
            subreq = sdap_initgroups_user_send(state, ev, id_ctx, state->user);
            break;
        }
        if (ret != ENOENT || keep_missing) {
            /* The GC starts from the cached user only: one read there would be stored
             * without the attributes the GC does not hold. */
            goto done;
        }
        subreq = sdap_initgroups_send(state, ev, id_ctx, state->filter.name);
        break;
    }
    if (subreq == NULL) {
        ret = ENOMEM;
        goto done;
    }
    tevent_req_set_callback(subreq, found, req);
    return req;
done:
    return sss_req_post(req, ev, ret);
}

static void be_id_ldap_user_done(struct tevent_req *subreq)
{
    struct tevent_req *req = tevent_req_callback_data(subreq, struct tevent_req);
    struct be_id_ldap_state *state = tevent_req_data(req, struct be_id_ldap_state);
    TALLOC_CTX *tmp_ctx = talloc_new(state);
    struct sdap_user *user = NULL;
    errno_t ret;

    if (tmp_ctx == NULL) {
        talloc_free(subreq);
        be_req_finish(req, ENOMEM);
        return;
    }
    ret = sdap_get_user_recv(tmp_ctx, subreq, &user);
    talloc_free(subreq);
    if (ret == ENOENT && !state->keep_missing) {
        ret = be_delete_user(state->be, &state->filter);
        goto done;
    }
    if (ret != EOK) {
        goto done;
    }
    /* Stored at the end of the operation, after its answers when they can carry it
     * (be_reply_first.c), else now. */
    if (state->keep_missing
            || !be_user_later_set(state->be, state->type, &state->filter, user, time(NULL))) {
        ret = be_store_user(state->be, user, time(NULL));
    }
    if (ret == EOK && state->filter.kind == BE_FILTER_NAME) {
        talloc_free(state->be->recent_user);
        state->be->recent_user = talloc_strdup(state->be, state->filter.name);
        state->be->recent_gid = user->gid;
        state->be->recent_at = time(NULL);
    }
done:
    talloc_free(tmp_ctx);
    be_req_finish(req, ret);
}

/* Whether name is one of users[0..n). */
static bool be_id_ldap_among(struct be_ctx *be, const char *name, struct sdap_user **users,
                             size_t n)
{
    char *key = NULL;
    char *other = NULL;
    bool found = false;
    size_t i;

    if (sysdb_name_key(NULL, be->sysdb, name, &key) != EOK) {
        return false;
    }
    for (i = 0; i < n && !found; i++) {
        if (sysdb_name_key(NULL, be->sysdb, users[i]->name, &other) == EOK) {
            found = strcmp(key, other) == 0;
            talloc_free(other);
        }
    }
    talloc_free(key);
    return found;
}

static void be_id_ldap_mail_done(struct tevent_req *subreq)
{
    struct tevent_req *req = tevent_req_callback_data(subreq, struct tevent_req);
    struct be_id_ldap_state *state = tevent_req_data(req, struct be_id_ldap_state);
    TALLOC_CTX *tmp_ctx = talloc_new(state);
    struct sdap_user **users = NULL;
    struct sysdb_user **cached = NULL;
    size_t num = 0;
    size_t num_cached = 0;
    time_t now = time(NULL);
    size_t i;
    errno_t ret;

    if (tmp_ctx == NULL) {
        talloc_free(subreq);
        be_req_finish(req, ENOMEM);
        return;
    }
    ret = sdap_get_users_by_email_recv(tmp_ctx, subreq, &users, &num);
    talloc_free(subreq);
    if (ret == ENOENT) {
        num = 0;        /* nobody can hold it: the cache must not say otherwise */
    } else if (ret != EOK) {
        goto done;
    }
    /* Stores one by one (not one transaction): a store the cache refuses cancels its own
     * transaction, which would doom an enclosing one. */
    ret = EOK;
    for (i = 0; i < num && ret == EOK; i++) {
        ret = be_store_user(state->be, users[i], now);
        if (ret == EINVAL) {
            ret = EOK;      /* refused by the cache: logged, skipped */
        }
    }
    if (ret == EOK) {
        ret = sysdb_get_users_by_email(tmp_ctx, state->be->sysdb, state->filter.name,
                                       &cached, &num_cached);
        if (ret == ENOENT || ret == EINVAL) {
            ret = EOK;
            num_cached = 0;
        }
    }
    for (i = 0; i < num_cached && ret == EOK; i++) {
        if (!be_id_ldap_among(state->be, cached[i]->name, users, num)) {
            DEBUG(SSSDBG_TRACE_FUNC, "%s no longer holds that e-mail address: removed from "
                  "the cache\n", cached[i]->name);
            ret = sysdb_delete_user(state->be->sysdb, cached[i]->name);
        }
    }
done:
    talloc_free(tmp_ctx);
    be_req_finish(req, ret);
}

/* The complete nested groups of a group lookup, as their own lookups would store them
 * (big ones are left to their own lookup's sliced store). One transaction; a failure only
 * costs those groups their own lookup later. */
static void be_id_ldap_store_nested(struct be_ctx *be, struct sdap_group **nested,
                                    size_t num_nested)
{
    time_t now = time(NULL);
    size_t i;
    errno_t ret;

    if (num_nested == 0) {
        return;
    }
    ret = sysdb_transaction_start(be->sysdb);
    if (ret != EOK) {
        goto done;
    }
    for (i = 0; i < num_nested; i++) {
        if (!nested[i]->members_complete || be_group_is_big(nested[i])) {
            continue;
        }
        ret = be_store_group(be, nested[i], true, now);
        if (ret == EINVAL) {
            ret = EOK;      /* refused, logged */
        }
        if (ret != EOK) {
            break;
        }
    }
    ret = sysdb_transaction_end(be->sysdb, ret);
done:
    if (ret != EOK) {
        DEBUG(SSSDBG_MINOR_FAILURE, "nested groups not stored: %s\n", sss_strerror(ret));
    }
}

static void be_id_ldap_group_done(struct tevent_req *subreq)
{
    struct tevent_req *req = tevent_req_callback_data(subreq, struct tevent_req);
    struct be_id_ldap_state *state = tevent_req_data(req, struct be_id_ldap_state);
    struct sdap_group *group = NULL;
    struct sdap_group **nested = NULL;
    size_t num_nested = 0;
    errno_t ret;

    ret = sdap_get_group_nested_recv(state, subreq, &group, &nested, &num_nested);
    talloc_free(subreq);
    if (ret == EOK) {
        be_id_ldap_store_nested(state->be, nested, num_nested);
        talloc_free(nested);
    }
    if (ret == ENOENT && !state->keep_missing) {
        ret = be_delete_group(state->be, &state->filter);
    } else if (ret == EOK) {
        ret = be_group_store_finish(req, state, state->ev, state->be, group);
    }
    if (ret != EAGAIN) {
        be_req_finish(req, ret);
    }
}

static void be_group_stored(struct tevent_req *subreq)
{
    struct tevent_req *req = tevent_req_callback_data(subreq, struct tevent_req);
    errno_t ret;

    ret = be_store_group_recv(subreq);
    talloc_free(subreq);
    be_req_finish(req, ret);
}

errno_t be_group_store_finish(struct tevent_req *req, TALLOC_CTX *mem_ctx,
                              struct tevent_context *ev, struct be_ctx *be,
                              struct sdap_group *group)
{
    struct tevent_req *subreq;

    SSS_CHECK_ARG(req != NULL && mem_ctx != NULL && be != NULL && group != NULL, EINVAL);
    talloc_steal(mem_ctx, group);
    subreq = be_store_group_send(mem_ctx, ev, be, group);
    if (subreq == NULL) {
        return ENOMEM;
    }
    tevent_req_set_callback(subreq, be_group_stored, req);
    return EAGAIN;
}

static void be_id_ldap_mpg_done(struct tevent_req *subreq)
{
    struct tevent_req *req = tevent_req_callback_data(subreq, struct tevent_req);
    errno_t ret;

    ret = be_mpg_group_recv(subreq);
    talloc_free(subreq);
    be_req_finish(req, ret);
}

/* Groups stored per transaction (and per loop turn) by a big initgroups; the figure keeps one
 * step to a few ms (a group store costs ~30 us). */
#define BE_INITGR_SLICE 200

/* What an initgroups store has written so far. */
struct be_initgr_out {
    const char **names;             /* accepted groups, for the user's group list */
    uint32_t *gids;                 /* and their gids */
    size_t n;
    struct sdap_group **fresh_less; /* stored expired (new): for the member prefetch */
    size_t num_fresh_less;
    uint32_t *changed;              /* gids joined or left since the cached list */
    size_t num_changed;
};

/* Inside the store's transaction, before the new list replaces it: which groups differ
 * from the cached list. No cached list: nothing the memory cache can hold is stale. */
static errno_t be_initgr_changes(struct be_ctx *be, const char *user,
                                 struct be_initgr_out *out)
{
    uint32_t *old = NULL;
    size_t num_old = 0;
    time_t expire;
    errno_t ret;

    ret = sysdb_get_initgroups(out->names, be->sysdb, user, &old, &num_old, &expire);
    if (ret == ENOENT) {
        return EOK;
    }
    if (ret != EOK) {
        return ret;
    }
    ret = be_initgr_diff(out->names, old, num_old, out->gids, out->n, &out->changed,
                         &out->num_changed);
    talloc_free(old);
    if (ret != EOK) {
        return ret;
    }
    return be_initgr_expire_groups(be, out->changed, out->num_changed);
}

/* Stores groups[*pos..] (member lists kept unless the group is complete), at most max of them, in one transaction; the
 * names of those the cache accepted go to out->names. Refused ones (EINVAL: counted, logged)
 * are left out of the list. */
static errno_t be_id_ldap_store_groups(struct be_ctx *be, struct sdap_group **groups,
                                       size_t num_groups, size_t *pos, size_t max,
                                       struct be_initgr_out *out, time_t now)
{
    size_t end = *pos + max < num_groups ? *pos + max : num_groups;
    bool expired;
    errno_t ret;

    ret = sysdb_transaction_start(be->sysdb);
    if (ret != EOK) {
        return ret;
    }
    be_store_seen_groups_prefetch(be, groups + *pos, end - *pos);
    for (; *pos < end; (*pos)++) {
        if (groups[*pos]->members_complete && !be_group_is_big(groups[*pos])) {
            /* As a group lookup stores it: members and a fresh expiry. */
            expired = false;
            ret = be_store_group(be, groups[*pos], true, now);
        } else {
            ret = be_store_group_seen(be, groups[*pos], now, &expired);
        }
        if (ret == EINVAL) {
            ret = EOK;
            continue;
        }
        if (ret != EOK) {
            goto done;
        }
        if (groups[*pos]->not_member) {
            continue;       /* the user's primary group, stored; not in its list */
        }
        out->gids[out->n] = groups[*pos]->gid;
        out->names[out->n++] = groups[*pos]->name;
        if (expired) {
            out->fresh_less[out->num_fresh_less++] = groups[*pos];
        }
    }
done:
    return sysdb_transaction_end(be->sysdb, ret);
}

/* One transaction: the user (unless it came from the cache), the groups from *pos on
 * (member lists kept), the user's group list (out already holds the groups stored by
 * earlier slices). */
static errno_t be_id_ldap_store_initgr(struct be_ctx *be, struct sdap_user *user,
                                       bool store_user, struct sdap_group **groups,
                                       size_t num_groups, size_t *pos,
                                       struct be_initgr_out *out, time_t now)
{
    errno_t ret;

    ret = sysdb_transaction_start(be->sysdb);
    if (ret != EOK) {
        return ret;
    }
    if (store_user) {
        ret = be_store_user(be, user, now);
        if (ret != EOK) {
            goto done;
        }
    }
    ret = be_id_ldap_store_groups(be, groups, num_groups, pos, num_groups - *pos, out, now);
    if (ret != EOK) {
        goto done;
    }
    out->names[out->n] = NULL;
    ret = be_initgr_changes(be, user->name, out);
    if (ret != EOK) {
        goto done;
    }
    /* The groups were just stored with these gids: the list need not read them back. */
    ret = sysdb_store_initgroups_gids(be->sysdb, user->name, out->names, out->gids, now,
                                      be->user_timeout);
    if (ret != EOK) {
        DEBUG(SSSDBG_OP_FAILURE, "Cannot store the groups of %s: %s\n", user->name,
              sss_strerror(ret));
        goto done;
    }
done:
    ret = sysdb_transaction_end(be->sysdb, ret);
    if (ret == EOK) {
        DEBUG(SSSDBG_TRACE_INTERNAL, "%s: %zu groups stored, %zu of them new\n", user->name,
              out->n, out->num_fresh_less);
        if (out->num_changed > 0) {
            be_initgr_notify(be, user->name, out->changed, out->num_changed);
        }
    }
    return ret;
}

/*
 * A user in many groups: the groups are stored BE_INITGR_SLICE per transaction and loop
 * turn, then the user and its group list in a last transaction, so a user in 5,000 groups
 * never holds the loop for the whole save. Each slice is atomic; the group list, the only
 * thing a reader combines, is written at once at the end (until then the old list, if any,
 * stays in force). The groups written by earlier slices are complete entries on their own.
 */
struct be_initgr_store_state {
    struct tevent_context *ev;
    struct be_ctx *be;
    struct sdap_user *user;
    bool store_user;
    struct sdap_group **groups;
    size_t num_groups;
    size_t pos;
    struct be_initgr_out out;
    time_t now;
};

static void be_initgr_store_step(struct tevent_req *subreq);

static struct tevent_req *be_initgr_store_send(TALLOC_CTX *mem_ctx, struct tevent_context *ev,
                                               struct be_ctx *be, struct sdap_user *user,
                                               bool store_user, struct sdap_group **groups,
                                               size_t num_groups)
{
    struct be_initgr_store_state *state;
    struct tevent_req *req;
    struct tevent_req *subreq;
    uint64_t start;
    errno_t ret;

    req = tevent_req_create(mem_ctx, &state, struct be_initgr_store_state);
    if (req == NULL) {
        return NULL;
    }
    state->ev = ev;
    state->be = be;
    state->user = talloc_steal(state, user);
    state->store_user = store_user;
    state->groups = talloc_steal(state, groups);
    state->num_groups = num_groups;
    state->now = time(NULL);
    state->out.names = talloc_zero_array(state, const char *, num_groups + 1);
    state->out.gids = talloc_zero_array(state, uint32_t, num_groups + 1);
    state->out.fresh_less = talloc_zero_array(state, struct sdap_group *, num_groups + 1);
    if (state->out.names == NULL || state->out.gids == NULL || state->out.fresh_less == NULL) {
        ret = ENOMEM;
        goto done;
    }
    if (num_groups <= BE_INITGR_SLICE) {
        start = sss_monotonic_usec();
        ret = be_id_ldap_store_initgr(be, user, store_user, groups, num_groups, &state->pos,
                                      &state->out, state->now);
        be_step_done(be, start);
        goto done;
    }
    subreq = be_yield_send(state, ev);
    if (subreq == NULL) {
        ret = ENOMEM;
        goto done;
    }
    tevent_req_set_callback(subreq, be_initgr_store_step, req);
    return req;
done:
    return sss_req_post(req, ev, ret);
}

static void be_initgr_store_step(struct tevent_req *subreq)
{
    struct tevent_req *req = tevent_req_callback_data(subreq, struct tevent_req);
    struct be_initgr_store_state *state = tevent_req_data(req, struct be_initgr_store_state);
    uint64_t start;
    errno_t ret;

    ret = be_yield_recv(subreq);
    talloc_free(subreq);
    if (ret != EOK) {
        goto done;
    }
    start = sss_monotonic_usec();
    if (state->num_groups - state->pos > BE_INITGR_SLICE) {
        ret = be_id_ldap_store_groups(state->be, state->groups, state->num_groups,
                                      &state->pos, BE_INITGR_SLICE, &state->out, state->now);
        be_step_done(state->be, start);
        if (ret != EOK) {
            goto done;
        }
        subreq = be_yield_send(state, state->ev);
        if (subreq == NULL) {
            ret = ENOMEM;
            goto done;
        }
        tevent_req_set_callback(subreq, be_initgr_store_step, req);
        return;
    }
    ret = be_id_ldap_store_initgr(state->be, state->user, state->store_user, state->groups,
                                  state->num_groups, &state->pos, &state->out, state->now);
    be_step_done(state->be, start);
done:
    be_req_finish(req, ret);
}

/* On success, the groups stored without members are handed to the prefetch queue (a user
 * in BE_PF_MIN_GROUPS new groups or more). */
static errno_t be_initgr_store_recv(struct tevent_req *req)
{
    struct be_initgr_store_state *state = tevent_req_data(req, struct be_initgr_store_state);

    TEVENT_REQ_RETURN_ON_ERROR(req);
    if (state->out.num_fresh_less >= BE_PF_MIN_GROUPS) {
        be_prefetch_queue(state->be, state->out.fresh_less, state->out.num_fresh_less);
    }
    return EOK;
}

static void be_id_ldap_initgr_done(struct tevent_req *subreq)
{
    struct tevent_req *req = tevent_req_callback_data(subreq, struct tevent_req);
    struct be_id_ldap_state *state = tevent_req_data(req, struct be_id_ldap_state);
    TALLOC_CTX *tmp_ctx = talloc_new(state);
    struct sdap_user *user = NULL;
    struct sdap_group **groups = NULL;
    size_t num_groups = 0;
    errno_t ret;

    if (tmp_ctx == NULL) {
        talloc_free(subreq);
        be_req_finish(req, ENOMEM);
        return;
    }
    ret = sdap_initgroups_recv(tmp_ctx, subreq, &user, &groups, &num_groups);
    talloc_free(subreq);
    if (ret == ENOENT && !state->keep_missing) {
        ret = be_delete_user(state->be, &state->filter);
        goto done;
    }
    if (ret != EOK) {
        goto done;
    }
    if (state->be->mpg == BE_MPG_TRUE) {
        /* The user's gidNumber stays one of its groups (be_mpg.c); then the store. */
        state->user = talloc_steal(state, user);
        subreq = be_mpg_primary_send(state, state->ev, state->be, user, groups, num_groups);
        if (subreq == NULL) {
            ret = ENOMEM;
            goto done;
        }
        state->groups = talloc_steal(state, groups);
        state->num_groups = num_groups;
        tevent_req_set_callback(subreq, be_id_ldap_primary_done, req);
        talloc_free(tmp_ctx);
        return;
    }
    /* user and groups move to the store request */
    subreq = be_initgr_store_send(state, state->ev, state->be, user, !state->user_cached,
                                  groups, num_groups);
    if (subreq == NULL) {
        ret = ENOMEM;
        goto done;
    }
    tevent_req_set_callback(subreq, be_id_ldap_stored, req);
    talloc_free(tmp_ctx);
    return;
done:
    talloc_free(tmp_ctx);
    be_req_finish(req, ret);
}

/* auto_private_groups = true: the user's groups are complete; store them. */
static void be_id_ldap_primary_done(struct tevent_req *subreq)
{
    struct tevent_req *req = tevent_req_callback_data(subreq, struct tevent_req);
    struct be_id_ldap_state *state = tevent_req_data(req, struct be_id_ldap_state);
    errno_t ret;

    ret = be_mpg_primary_recv(state, subreq, &state->groups, &state->num_groups);
    talloc_free(subreq);
    if (ret != EOK) {
        be_req_finish(req, ret);
        return;
    }
    /* user and groups move to the store request */
    subreq = be_initgr_store_send(state, state->ev, state->be, state->user,
                                  !state->user_cached, state->groups, state->num_groups);
    if (subreq == NULL) {
        be_req_finish(req, ENOMEM);
        return;
    }
    tevent_req_set_callback(subreq, be_id_ldap_stored, req);
}

/* The sliced store of an initgroups is over. */
static void be_id_ldap_stored(struct tevent_req *subreq)
{
    struct tevent_req *req = tevent_req_callback_data(subreq, struct tevent_req);
    errno_t ret;

    ret = be_initgr_store_recv(subreq);
    talloc_free(subreq);
    be_req_finish(req, ret);
}

static void be_id_ldap_gid_stored(struct tevent_req *subreq);

/* A group by gid answered by the recent user's initgroups (be_id_ldap_recent_user). The
 * user came from the cache, so ENOENT cannot mean it is gone: every error is returned. */
static void be_id_ldap_gid_initgr_done(struct tevent_req *subreq)
{
    struct tevent_req *req = tevent_req_callback_data(subreq, struct tevent_req);
    struct be_id_ldap_state *state = tevent_req_data(req, struct be_id_ldap_state);
    struct sdap_user *user = NULL;
    size_t i;
    errno_t ret;

    ret = sdap_initgroups_recv(state, subreq, &user, &state->groups, &state->num_groups);
    talloc_free(subreq);
    if (ret != EOK) {
        be_req_finish(req, ret);
        return;
    }
    for (i = 0; i < state->num_groups; i++) {
        if (state->groups[i]->gid == state->filter.id) {
            state->gid_found = true;
            /* Stored as its own lookup would store it, or that lookup must still run. */
            state->gid_complete = state->groups[i]->members_complete
                                  && !be_group_is_big(state->groups[i]);
        }
    }
    /* user and groups move to the store request; the user itself is not stored again */
    subreq = be_initgr_store_send(state, state->ev, state->be, user, false, state->groups,
                                  state->num_groups);
    if (subreq == NULL) {
        be_req_finish(req, ENOMEM);
        return;
    }
    tevent_req_set_callback(subreq, be_id_ldap_gid_stored, req);
}

static void be_id_ldap_gid_stored(struct tevent_req *subreq)
{
    struct tevent_req *req = tevent_req_callback_data(subreq, struct tevent_req);
    struct be_id_ldap_state *state = tevent_req_data(req, struct be_id_ldap_state);
    errno_t ret;

    ret = be_initgr_store_recv(subreq);
    talloc_free(subreq);
    if (ret == EOK && !state->gid_found) {
        /* The search matched every group of that gid: there is none. */
        ret = state->keep_missing ? ENOENT : be_delete_group(state->be, &state->filter);
    } else if (ret == EOK && !state->gid_complete) {
        /* A big group: its own lookup stores it (sliced). */
        subreq = sdap_get_group_send(state, state->ev, state->id_ctx, SDAP_BY_ID, NULL,
                                     state->filter.id);
        if (subreq == NULL) {
            be_req_finish(req, ENOMEM);
            return;
        }
        tevent_req_set_callback(subreq, be_id_ldap_group_done, req);
        return;
    }
    be_req_finish(req, ret);
}

errno_t be_id_ldap_recv(struct tevent_req *req)
{
    TEVENT_REQ_RETURN_ON_ERROR(req);
    return EOK;
}
