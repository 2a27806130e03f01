/*
 * What the id provider found, written to the cache: sdap structs become sysdb entries with
 * the domain's expiry (entry_cache_user_timeout / entry_cache_group_timeout). Entries sysdb
 * refuses (id 0, which sdap already filters, or anything else sysdb calls EINVAL) are
 * counted in be_stats.refused_entries and logged; callers go on with the rest.
 *
 * Groups with more than BE_BIG_GROUP member names are stored by be_store_group_send: the
 * member lists are built with sysdb_name_list_add, BE_NAME_SLICE names per loop turn, and
 * written by one sysdb_store_group_lists at the end, so no single step holds the loop for
 * long (be_stats.max_step_usec records the longest one).
 */
#include "providers/backend/be_ctx.h"
#include "providers/ldap/sdap.h"
#include "db/sysdb.h"

/* sdap gives "" for an absent attribute; sysdb wants NULL (ldb refuses empty values). */
static const char *be_opt_str(const char *str)
{
    return str != NULL && *str != '\0' ? str : NULL;
}

static errno_t be_refused(struct be_ctx *be, const char *kind, const char *name, uint32_t id,
                          errno_t ret)
{
    if (ret == EINVAL) {
        be->stats.refused_entries++;
        DEBUG(SSSDBG_OP_FAILURE, "%s '%s' (id %u) refused by the cache, skipped\n", kind,
              name != NULL ? name : "(null)", id);
    } else if (ret != EOK) {
        DEBUG(SSSDBG_OP_FAILURE, "Cannot store %s '%s': %s\n", kind,
              name != NULL ? name : "(null)", sss_strerror(ret));
    }
    return ret;
}

void be_user_to_sysdb(struct be_ctx *be, const struct sdap_user *user,
                      struct sysdb_user *su)
{
    memset(su, 0, sizeof(*su));
    su->name = user->name;
    su->uid = user->uid;
    /* auto_private_groups = true: the gidNumber is ignored (be_mpg.c adds it to the
     * user's groups) and the private group is stored with the user. */
    su->gid = be->mpg == BE_MPG_TRUE ? user->uid : user->gid;
    su->gecos = be_opt_str(user->gecos);
    su->home = be_opt_str(user->home);
    su->shell = be_opt_str(user->shell);
    su->orig_dn = be_opt_str(user->orig_dn);
    su->upn = user->upn;
    su->email = be_opt_str(user->email);
    su->sid = be_opt_str(user->sid);
    su->extra = user->extra;
}

errno_t be_store_user(struct be_ctx *be, const struct sdap_user *user, time_t now)
{
    struct sysdb_user su;
    errno_t ret;

    SSS_CHECK_ARG(be != NULL, EINVAL);
    SSS_CHECK_ARG(user != NULL, EINVAL);
    if (user->uid == 0 || user->gid == 0) {
        return be_refused(be, "user", user->name, user->uid, EINVAL);
    }
    be_user_to_sysdb(be, user, &su);
    ret = sysdb_store_user(be->sysdb, &su, now, be->user_timeout);
    if (ret == EOK && be->mpg == BE_MPG_TRUE) {
        ret = be_store_private_group(be, user, now);
    }
    return be_refused(be, "user", user->name, user->uid, ret);
}

errno_t be_store_user_prepared(struct be_ctx *be, const struct sdap_user *user,
                               struct sysdb_user_write *w, time_t now)
{
    errno_t ret;

    SSS_CHECK_ARG(be != NULL && user != NULL && w != NULL, EINVAL);
    ret = sysdb_user_write_store(be->sysdb, w);
    if (ret == EOK && be->mpg == BE_MPG_TRUE) {
        ret = be_store_private_group(be, user, now);
    }
    return be_refused(be, "user", user->name, user->uid, ret);
}

errno_t be_store_private_group(struct be_ctx *be, const struct sdap_user *user, time_t now)
{
    struct sysdb_group sg = { 0 };

    SSS_CHECK_ARG(be != NULL && user != NULL, EINVAL);
    sg.name = user->name;
    sg.gid = user->uid;
    /* As the user entry: it lives as long as the user's data. */
    return sysdb_store_group(be->sysdb, &sg, true, now, be->user_timeout);
}

static void be_group_to_sysdb(const struct sdap_group *group, struct sysdb_group *sg)
{
    memset(sg, 0, sizeof(*sg));
    sg->name = group->name;
    sg->gid = group->gid;
    sg->members = group->member_users;
    sg->member_groups = group->member_groups;
    sg->orig_dn = be_opt_str(group->orig_dn);
    sg->sid = be_opt_str(group->sid);
}

static errno_t be_store_group_int(struct be_ctx *be, const struct sdap_group *group,
                                  bool with_members, time_t now, bool *_expired)
{
    struct sysdb_group sg;
    errno_t ret;

    SSS_CHECK_ARG(be != NULL, EINVAL);
    SSS_CHECK_ARG(group != NULL, EINVAL);
    if (group->gid == 0) {
        return be_refused(be, "group", group->name, group->gid, EINVAL);
    }
    be_group_to_sysdb(group, &sg);
    ret = sysdb_store_group_ext(be->sysdb, &sg, with_members, now, be->group_timeout,
                                _expired);
    return be_refused(be, "group", group->name, group->gid, ret);
}

errno_t be_store_group(struct be_ctx *be, const struct sdap_group *group, bool with_members,
                       time_t now)
{
    return be_store_group_int(be, group, with_members, now, NULL);
}

errno_t be_store_group_seen(struct be_ctx *be, const struct sdap_group *group, time_t now,
                            bool *_expired)
{
    *_expired = false;
    return be_store_group_int(be, group, false, now, _expired);
}

/* ---- a group with a huge member list, in slices ------------------------------------- */

void be_store_seen_groups_prefetch(struct be_ctx *be, struct sdap_group *const *groups,
                                   size_t n)
{
    uint32_t *gids;
    size_t k = 0;
    size_t i;
    errno_t ret;

    gids = talloc_array(NULL, uint32_t, n);
    if (gids == NULL) {
        return;
    }
    /* As be_id_ldap_store_groups picks them: a complete small group is stored with its
     * members, and that store needs no holders (sysdb_write_unique). */
    for (i = 0; i < n; i++) {
        if (!groups[i]->members_complete || be_group_is_big(groups[i])) {
            gids[k++] = groups[i]->gid;
        }
    }
    if (k >= 2) {       /* one store searches as cheaply as a batch of one */
        ret = sysdb_groups_prefetch(be->sysdb, gids, k);
        if (ret != EOK) {
            DEBUG(SSSDBG_MINOR_FAILURE, "Reading the holders of %zu gids at once failed (%s): "
                  "each store searches its own\n", k, sss_strerror(ret));
        }
    }
    talloc_free(gids);
}

bool be_group_is_big(const struct sdap_group *group)
{
    return group->num_member_users + group->num_member_groups > BE_BIG_GROUP;
}

struct be_store_group_state {
    struct tevent_context *ev;
    struct be_ctx *be;
    const struct sdap_group *group;
    struct sysdb_name_list *users;
    struct sysdb_name_list *groups;
    size_t next_user;
    size_t next_group;
};

static void be_store_group_step(struct tevent_req *subreq);
static errno_t be_store_group_slice(struct be_store_group_state *state, bool *_finished);

struct tevent_req *be_store_group_send(TALLOC_CTX *mem_ctx, struct tevent_context *ev,
                                       struct be_ctx *be, const struct sdap_group *group)
{
    struct be_store_group_state *state;
    struct tevent_req *req;
    struct tevent_req *subreq;
    errno_t ret;

    req = tevent_req_create(mem_ctx, &state, struct be_store_group_state);
    if (req == NULL) {
        return NULL;
    }
    SSS_CHECK_ARG(be != NULL, sss_req_post(req, ev, EINVAL));
    SSS_CHECK_ARG(group != NULL, sss_req_post(req, ev, EINVAL));
    state->ev = ev;
    state->be = be;
    state->group = group;
    if (!be_group_is_big(group)) {
        ret = be_store_group(be, group, true, time(NULL));
        goto done;
    }
    if (group->gid == 0) {
        ret = be_refused(be, "group", group->name, group->gid, EINVAL);
        goto done;
    }
    ret = sysdb_name_list_new(state, be->sysdb, &state->users);
    if (ret != EOK) {
        goto done;
    }
    ret = sysdb_name_list_new(state, be->sysdb, &state->groups);
    if (ret != EOK) {
        goto done;
    }
    subreq = be_yield_send(state, ev);
    if (subreq == NULL) {
        ret = ENOMEM;
        goto done;
    }
    tevent_req_set_callback(subreq, be_store_group_step, req);
    return req;
done:
    return sss_req_post(req, ev, ret);
}

/* Adds names[*next..num) to list, at most *budget of them; both advance. */
static errno_t be_name_list_slice(struct sysdb_name_list *list, const char *const *names,
                                  size_t num, size_t *next, size_t *budget)
{
    size_t n = num - *next < *budget ? num - *next : *budget;
    errno_t ret;

    if (n == 0) {
        return EOK;
    }
    ret = sysdb_name_list_add(list, names + *next, n);
    if (ret != EOK) {
        return ret;
    }
    *next += n;
    *budget -= n;
    return EOK;
}

/* Adds up to BE_NAME_SLICE names, users first; *_finished once both lists are complete. */
static errno_t be_store_group_slice(struct be_store_group_state *state, bool *_finished)
{
    const struct sdap_group *g = state->group;
    size_t budget = BE_NAME_SLICE;
    errno_t ret;

    ret = be_name_list_slice(state->users, g->member_users, g->num_member_users,
                             &state->next_user, &budget);
    if (ret != EOK) {
        return ret;
    }
    ret = be_name_list_slice(state->groups, g->member_groups, g->num_member_groups,
                             &state->next_group, &budget);
    if (ret != EOK) {
        return ret;
    }
    *_finished = state->next_user == g->num_member_users
                 && state->next_group == g->num_member_groups;
    return EOK;
}

static void be_store_group_step(struct tevent_req *subreq)
{
    struct tevent_req *req = tevent_req_callback_data(subreq, struct tevent_req);
    struct be_store_group_state *state = tevent_req_data(req, struct be_store_group_state);
    struct sysdb_group sg;
    uint64_t start;
    bool finished = false;
    errno_t ret;

    ret = be_yield_recv(subreq);
    talloc_free(subreq);
    if (ret != EOK) {
        goto done;
    }
    start = sss_monotonic_usec();
    ret = be_store_group_slice(state, &finished);
    if (ret == EOK && finished) {
        be_group_to_sysdb(state->group, &sg);
        ret = sysdb_store_group_lists(state->be->sysdb, &sg, state->users, state->groups,
                                      time(NULL), state->be->group_timeout);
    }
    be_step_done(state->be, start);
    if (ret != EOK) {
        ret = be_refused(state->be, "group", state->group->name, state->group->gid, ret);
        goto done;
    }
    if (!finished) {
        subreq = be_yield_send(state, state->ev);
        if (subreq == NULL) {
            ret = ENOMEM;
            goto done;
        }
        tevent_req_set_callback(subreq, be_store_group_step, req);
        return;
    }
done:
    be_req_finish(req, ret);
}

errno_t be_store_group_recv(struct tevent_req *req)
{
    TEVENT_REQ_RETURN_ON_ERROR(req);
    return EOK;
}

/* ---- removal ------------------------------------------------------------------------ */

static errno_t be_delete(struct be_ctx *be, bool user, const struct be_filter *filter)
{
    TALLOC_CTX *tmp_ctx;
    struct sysdb_user *su = NULL;
    struct sysdb_group *sg = NULL;
    const char *name = NULL;
    errno_t ret;

    SSS_CHECK_ARG(filter != NULL, EINVAL);
    SSS_CHECK_ARG(filter->kind == BE_FILTER_NAME || filter->kind == BE_FILTER_ID
                  || filter->kind == BE_FILTER_SID, EINVAL);
    tmp_ctx = talloc_new(NULL);
    if (tmp_ctx == NULL) {
        return ENOMEM;
    }
    if (filter->kind == BE_FILTER_NAME) {
        name = filter->name;
    } else if (filter->kind == BE_FILTER_SID) {
        /* The cached entry holding that SID, if any. */
        ret = user ? sysdb_get_user_by_sid(tmp_ctx, be->sysdb, filter->name, &su)
                   : sysdb_get_group_by_sid(tmp_ctx, be->sysdb, filter->name, &sg);
        if (ret == ENOENT || ret == EINVAL) {
            ret = EOK;
            goto done;
        }
        if (ret != EOK) {
            goto done;
        }
        name = user ? su->name : sg->name;
    } else {
        if (filter->id == 0) {
            ret = EOK;      /* never cached */
            goto done;
        }
        ret = user ? sysdb_get_user_by_uid(tmp_ctx, be->sysdb, filter->id, &su)
                   : sysdb_get_group_by_gid(tmp_ctx, be->sysdb, filter->id, &sg);
        if (ret == ENOENT) {
            ret = EOK;
            goto done;
        }
        if (ret != EOK) {
            goto done;
        }
        name = user ? su->name : sg->name;
    }
    ret = user ? sysdb_delete_user(be->sysdb, name) : sysdb_delete_group(be->sysdb, name);
    if (ret == EOK) {
        DEBUG(SSSDBG_TRACE_FUNC, "%s %s is gone from the directory: removed from the cache\n",
              user ? "user" : "group", name);
    } else if (ret == ENOENT) {
        ret = EOK;
    }
done:
    if (ret != EOK) {
        DEBUG(SSSDBG_OP_FAILURE, "Cannot remove a %s from the cache: %s\n",
              user ? "user" : "group", sss_strerror(ret));
    }
    talloc_free(tmp_ctx);
    return ret;
}

errno_t be_delete_user(struct be_ctx *be, const struct be_filter *filter)
{
    return be_delete(be, true, filter);
}

errno_t be_delete_group(struct be_ctx *be, const struct be_filter *filter)
{
    return be_delete(be, false, filter);
}
