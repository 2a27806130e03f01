/*
 * auto_private_groups (sssd.conf(5), SSSD 2.8) on the back-end side: the cache is made to
 * hold each user's private group as a group entry {user name, gid = uid, no members}, so
 * the responders answer getgrnam/getgrgid/initgroups from it like from any group.
 *   true    every user's gid is its uid and its private group exists (be_store_user stores
 *           both); a group asked by name or gid is first the private group of the user of
 *           that name or uid, else the directory's group. The user's gidNumber is kept as
 *           one of its groups (be_mpg_primary: looked up when initgroups did not list it).
 *   hybrid  the user's gid is its gidNumber; a user whose uid equals its gid and for whose
 *           gid the directory has no group gets a private group. A group asked by gid or
 *           name is the directory's group first, else such a user's private group.
 * Private groups have the user's lifetime (entry_cache_user_timeout). As in SSSD, several
 * entries sharing a uid or gid are not supported in these modes.
 */
#include "providers/backend/be_ctx.h"
#include "providers/ldap/sdap.h"
#include "db/sysdb.h"

/* ---- a group request ---- */

enum be_mpg_step {
    BE_MPG_STEP_USER,           /* the user of that name or uid */
    BE_MPG_STEP_GROUP,          /* the directory's group of that name or gid */
    BE_MPG_STEP_GID_FREE,       /* hybrid, by name: no real group holds the user's gid */
};

struct be_mpg_group_state {
    struct tevent_context *ev;
    struct be_ctx *be;
    struct be_filter filter;
    enum be_mpg_step step;
    bool user_tried;
    bool group_tried;
    struct sdap_user *user;     /* hybrid: the candidate, until its gid is known free */
};

static errno_t be_mpg_next(struct tevent_req *req);
static void be_mpg_user_done(struct tevent_req *subreq);
static void be_mpg_group_done(struct tevent_req *subreq);

struct tevent_req *be_mpg_group_send(TALLOC_CTX *mem_ctx, struct tevent_context *ev,
                                     struct be_ctx *be, const struct be_filter *filter)
{
    struct be_mpg_group_state *state;
    struct tevent_req *req;
    errno_t ret;

    req = tevent_req_create(mem_ctx, &state, struct be_mpg_group_state);
    if (req == NULL) {
        return NULL;
    }
    SSS_CHECK_ARG(be != NULL && be->id_ctx != NULL && be->mpg != BE_MPG_FALSE,
                  sss_req_post(req, ev, EINVAL));
    SSS_CHECK_ARG(filter != NULL && (filter->kind == BE_FILTER_NAME
                                     || filter->kind == BE_FILTER_ID),
                  sss_req_post(req, ev, EINVAL));
    state->ev = ev;
    state->be = be;
    state->filter = *filter;
    if (filter->kind == BE_FILTER_NAME) {
        state->filter.name = talloc_strdup(state, filter->name);
        if (state->filter.name == NULL) {
            return sss_req_post(req, ev, ENOMEM);
        }
    }
    /* true: the user's private group wins; hybrid: the directory's group does. */
    state->step = be->mpg == BE_MPG_TRUE ? BE_MPG_STEP_USER : BE_MPG_STEP_GROUP;
    ret = be_mpg_next(req);
    if (ret != EOK) {
        return sss_req_post(req, ev, ret);
    }
    return req;
}

static enum sdap_by be_mpg_by(struct be_mpg_group_state *state)
{
    return state->filter.kind == BE_FILTER_NAME ? SDAP_BY_NAME : SDAP_BY_ID;
}

/* Starts the search of the current step. */
static errno_t be_mpg_next(struct tevent_req *req)
{
    struct be_mpg_group_state *state = tevent_req_data(req, struct be_mpg_group_state);
    struct tevent_req *subreq;
    tevent_req_fn done;

    switch (state->step) {
    case BE_MPG_STEP_USER:
        state->user_tried = true;
        subreq = sdap_get_user_send(state, state->ev, state->be->id_ctx, be_mpg_by(state),
                                    state->filter.name, state->filter.id);
        done = be_mpg_user_done;
        break;
    case BE_MPG_STEP_GROUP:
        state->group_tried = true;
        subreq = sdap_get_group_send(state, state->ev, state->be->id_ctx, be_mpg_by(state),
                                     state->filter.name, state->filter.id);
        done = be_mpg_group_done;
        break;
    case BE_MPG_STEP_GID_FREE:
        subreq = sdap_get_group_send(state, state->ev, state->be->id_ctx, SDAP_BY_ID, NULL,
                                     state->user->gid);
        done = be_mpg_group_done;
        break;
    default:
        return EINVAL;
    }
    if (subreq == NULL) {
        return ENOMEM;
    }
    tevent_req_set_callback(subreq, done, req);
    return EOK;
}

/* Goes on with step: EAGAIN while its search runs, else the error that stopped it. */
static errno_t be_mpg_go(struct tevent_req *req, enum be_mpg_step step)
{
    struct be_mpg_group_state *state = tevent_req_data(req, struct be_mpg_group_state);
    errno_t ret;

    state->step = step;
    ret = be_mpg_next(req);
    return ret == EOK ? EAGAIN : ret;
}

/* Nothing answers: a cached group of that name or gid goes (a private one included). */
static errno_t be_mpg_none(struct be_mpg_group_state *state)
{
    return be_delete_group(state->be, &state->filter);
}

/* The search of this step found nothing: the other one, when it was not made yet
 * (EAGAIN while it runs), else nothing answers. */
static errno_t be_mpg_other(struct tevent_req *req, bool other_tried,
                            enum be_mpg_step other)
{
    struct be_mpg_group_state *state = tevent_req_data(req, struct be_mpg_group_state);

    return other_tried ? be_mpg_none(state) : be_mpg_go(req, other);
}

/* The user and its private group, in one transaction. */
static errno_t be_mpg_store_private(struct be_ctx *be, struct sdap_user *user)
{
    time_t now = time(NULL);
    errno_t ret;

    ret = sysdb_transaction_start(be->sysdb);
    if (ret != EOK) {
        return ret;
    }
    ret = be_store_user(be, user, now);
    if (ret == EOK && be->mpg == BE_MPG_HYBRID) {
        ret = be_store_private_group(be, user, now);   /* (true: stored with the user) */
    }
    return sysdb_transaction_end(be->sysdb, ret);
}

static void be_mpg_user_done(struct tevent_req *subreq)
{
    struct tevent_req *req = tevent_req_callback_data(subreq, struct tevent_req);
    struct be_mpg_group_state *state = tevent_req_data(req, struct be_mpg_group_state);
    struct sdap_user *user = NULL;
    errno_t ret;

    ret = sdap_get_user_recv(state, subreq, &user);
    talloc_free(subreq);
    if (ret == ENOENT || (ret == EOK && state->be->mpg == BE_MPG_HYBRID
                          && user->uid != user->gid)) {
        /* No user, or (hybrid) one without a private group. */
        ret = be_mpg_other(req, state->group_tried, BE_MPG_STEP_GROUP);
    } else if (ret == EOK && state->be->mpg == BE_MPG_HYBRID
               && state->filter.kind == BE_FILTER_NAME) {
        /* By gid the group search already found none; by name, look now. */
        state->user = user;
        ret = be_mpg_go(req, BE_MPG_STEP_GID_FREE);
    } else if (ret == EOK) {
        ret = be_mpg_store_private(state->be, user);
    }
    if (ret != EAGAIN) {
        be_req_finish(req, ret);
    }
}

/* A group search is over: the directory's group of that name or gid (BE_MPG_STEP_GROUP),
 * or whether a real group holds the hybrid candidate's gid (BE_MPG_STEP_GID_FREE). */
static void be_mpg_group_done(struct tevent_req *subreq)
{
    struct tevent_req *req = tevent_req_callback_data(subreq, struct tevent_req);
    struct be_mpg_group_state *state = tevent_req_data(req, struct be_mpg_group_state);
    struct sdap_group *group = NULL;
    errno_t ret;

    ret = sdap_get_group_recv(state, subreq, &group);
    talloc_free(subreq);
    if (state->step == BE_MPG_STEP_GID_FREE) {
        /* Free: the user's private group; a real group's: no private group of that name. */
        if (ret == ENOENT) {
            ret = be_mpg_store_private(state->be, state->user);
        } else if (ret == EOK) {
            ret = be_mpg_none(state);
        }
    } else if (ret == ENOENT) {
        ret = be_mpg_other(req, state->user_tried, BE_MPG_STEP_USER);
    } else if (ret == EOK) {
        ret = be_group_store_finish(req, state, state->ev, state->be, group);
    }
    if (ret != EAGAIN) {
        be_req_finish(req, ret);
    }
}

errno_t be_mpg_group_recv(struct tevent_req *req)
{
    TEVENT_REQ_RETURN_ON_ERROR(req);
    return EOK;
}

/* ---- true: the user's gidNumber among its groups ---- */

struct be_mpg_primary_state {
    struct sdap_group **groups;
    size_t num_groups;
};

static void be_mpg_primary_done(struct tevent_req *subreq);

struct tevent_req *be_mpg_primary_send(TALLOC_CTX *mem_ctx, struct tevent_context *ev,
                                       struct be_ctx *be, const struct sdap_user *user,
                                       struct sdap_group **groups, size_t num_groups)
{
    struct be_mpg_primary_state *state;
    struct tevent_req *req;
    struct tevent_req *subreq;
    size_t i;

    req = tevent_req_create(mem_ctx, &state, struct be_mpg_primary_state);
    if (req == NULL) {
        return NULL;
    }
    SSS_CHECK_ARG(be != NULL && be->id_ctx != NULL && user != NULL
                  && (groups != NULL || num_groups == 0), sss_req_post(req, ev, EINVAL));
    state->groups = groups;
    state->num_groups = num_groups;
    for (i = 0; i < num_groups; i++) {
        if (groups[i]->gid == user->gid) {
            break;
        }
    }
    if (user->gid == user->uid || user->gid == 0 || i < num_groups) {
        return sss_req_post(req, ev, EOK);      /* nothing to add */
    }
    subreq = sdap_get_group_send(state, ev, be->id_ctx, SDAP_BY_ID, NULL, user->gid);
    if (subreq == NULL) {
        return sss_req_post(req, ev, ENOMEM);
    }
    tevent_req_set_callback(subreq, be_mpg_primary_done, req);
    return req;
}

static void be_mpg_primary_done(struct tevent_req *subreq)
{
    struct tevent_req *req = tevent_req_callback_data(subreq, struct tevent_req);
    struct be_mpg_primary_state *state = tevent_req_data(req, struct be_mpg_primary_state);
    struct sdap_group *group = NULL;
    struct sdap_group **grown;
    errno_t ret;

    ret = sdap_get_group_recv(state, subreq, &group);
    talloc_free(subreq);
    if (ret != EOK) {
        /* No such group, or the search failed: the user's groups as they are. */
        DEBUG(SSSDBG_TRACE_FUNC, "Primary group not added: %s\n", sss_strerror(ret));
        be_req_finish(req, EOK);
        return;
    }
    grown = talloc_array(state, struct sdap_group *, state->num_groups + 1);
    if (grown == NULL) {
        be_req_finish(req, ENOMEM);
        return;
    }
    if (state->num_groups > 0) {
        memcpy(grown, state->groups, state->num_groups * sizeof(*grown));
    }
    /* Initgroups groups carry no member lists. */
    group->num_member_users = 0;
    group->member_users[0] = NULL;
    /* The old array owns its groups: it goes under the new one. */
    talloc_steal(grown, state->groups);
    grown[state->num_groups] = talloc_steal(grown, group);
    state->groups = grown;
    state->num_groups++;
    be_req_finish(req, EOK);
}

errno_t be_mpg_primary_recv(TALLOC_CTX *mem_ctx, struct tevent_req *req,
                            struct sdap_group ***_groups, size_t *_num_groups)
{
    struct be_mpg_primary_state *state = tevent_req_data(req, struct be_mpg_primary_state);

    TEVENT_REQ_RETURN_ON_ERROR(req);
    if (state->groups != NULL && talloc_parent(state->groups) == state) {
        *_groups = talloc_steal(mem_ctx, state->groups);
        *_num_groups = state->num_groups;
    }
    return EOK;
}
