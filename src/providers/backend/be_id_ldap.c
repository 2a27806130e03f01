/*
 * The LDAP side of one account request: ask sdap, then make the cache say what the
 * directory said.
 *   user        found: store it; ENOENT: remove the cached user of that name or uid.
 *   group       found: store it with its members (sliced when huge); ENOENT: remove it.
 *   initgroups  found: one transaction storing the user, each group without touching its
 *               member list, and the user's group list; ENOENT: remove the user.
 * "Not found" is a success (EOK): the cache now answers "no such object". Every other sdap
 * error is returned as is; the caller maps it to a dp_error. Enumeration ("*") is be_enum.c.
 */
#include "providers/backend/be_ctx.h"
#include "providers/ldap/sdap.h"
#include "sss_iface/sss_dp.h"
#include "db/sysdb.h"

struct be_id_ldap_state {
    struct tevent_context *ev;
    struct be_ctx *be;
    uint32_t type;
    struct be_filter filter;
};

static void be_id_ldap_user_done(struct tevent_req *subreq);
static void be_id_ldap_group_done(struct tevent_req *subreq);
static void be_id_ldap_group_stored(struct tevent_req *subreq);
static void be_id_ldap_initgr_done(struct tevent_req *subreq);

struct tevent_req *be_id_ldap_send(TALLOC_CTX *mem_ctx, struct tevent_context *ev,
                                   struct be_ctx *be, uint32_t type,
                                   const struct be_filter *filter)
{
    struct be_id_ldap_state *state;
    struct tevent_req *req;
    struct tevent_req *subreq = NULL;
    enum sdap_by by;
    errno_t ret;

    req = tevent_req_create(mem_ctx, &state, struct be_id_ldap_state);
    if (req == NULL) {
        return NULL;
    }
    if (be == NULL || be->id_ctx == NULL || filter == NULL
        || filter->kind == BE_FILTER_ENUM) {
        ret = EINVAL;
        goto done;
    }
    state->ev = ev;
    state->be = be;
    state->type = type;
    state->filter = *filter;
    if (filter->kind == BE_FILTER_NAME) {
        state->filter.name = talloc_strdup(state, filter->name);
        if (state->filter.name == NULL) {
            ret = ENOMEM;
            goto done;
        }
    }
    by = filter->kind == BE_FILTER_NAME ? SDAP_BY_NAME : SDAP_BY_ID;

    switch (type) {
    case SSS_DP_USER:
        subreq = sdap_get_user_send(state, ev, be->id_ctx, by, state->filter.name,
                                    state->filter.id);
        if (subreq != NULL) {
            tevent_req_set_callback(subreq, be_id_ldap_user_done, req);
        }
        break;
    case SSS_DP_GROUP:
        subreq = sdap_get_group_send(state, ev, be->id_ctx, by, state->filter.name,
                                     state->filter.id);
        if (subreq != NULL) {
            tevent_req_set_callback(subreq, be_id_ldap_group_done, req);
        }
        break;
    case SSS_DP_INITGROUPS:
        if (by != SDAP_BY_NAME) {
            ret = EINVAL;
            goto done;
        }
        subreq = sdap_initgroups_send(state, ev, be->id_ctx, state->filter.name);
        if (subreq != NULL) {
            tevent_req_set_callback(subreq, be_id_ldap_initgr_done, req);
        }
        break;
    default:
        ret = EINVAL;
        goto done;
    }
    if (subreq == NULL) {
        ret = ENOMEM;
        goto done;
    }
    return req;
done:
    return sss_req_post(req, ev, ret);
}

static void be_id_ldap_finish(struct tevent_req *req, errno_t ret)
{
    if (ret != EOK) {
        tevent_req_error(req, ret);
        return;
    }
    tevent_req_done(req);
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
        be_id_ldap_finish(req, ENOMEM);
        return;
    }
    ret = sdap_get_user_recv(tmp_ctx, subreq, &user);
    talloc_free(subreq);
    if (ret == ENOENT) {
        ret = be_delete_user(state->be, &state->filter);
        goto done;
    }
    if (ret != EOK) {
        goto done;
    }
    ret = be_store_user(state->be, user, time(NULL));
done:
    talloc_free(tmp_ctx);
    be_id_ldap_finish(req, ret);
}

static void be_id_ldap_group_done(struct tevent_req *subreq)
{
    struct tevent_req *req = tevent_req_callback_data(subreq, struct tevent_req);
    struct be_id_ldap_state *state = tevent_req_data(req, struct be_id_ldap_state);
    struct sdap_group *group = NULL;
    errno_t ret;

    ret = sdap_get_group_recv(state, subreq, &group);
    talloc_free(subreq);
    if (ret == ENOENT) {
        ret = be_delete_group(state->be, &state->filter);
        goto done;
    }
    if (ret != EOK) {
        goto done;
    }
    /* The group stays on state until the store is over. */
    subreq = be_store_group_send(state, state->ev, state->be, group);
    if (subreq == NULL) {
        ret = ENOMEM;
        goto done;
    }
    tevent_req_set_callback(subreq, be_id_ldap_group_stored, req);
    return;
done:
    be_id_ldap_finish(req, ret);
}

static void be_id_ldap_group_stored(struct tevent_req *subreq)
{
    struct tevent_req *req = tevent_req_callback_data(subreq, struct tevent_req);
    errno_t ret;

    ret = be_store_group_recv(subreq);
    talloc_free(subreq);
    be_id_ldap_finish(req, ret);
}

/* One transaction: the user, each group (member lists kept), the user's group list. */
static errno_t be_id_ldap_store_initgr(struct be_ctx *be, struct sdap_user *user,
                                       struct sdap_group **groups, size_t num_groups)
{
    TALLOC_CTX *tmp_ctx = talloc_new(NULL);
    const char **names;
    time_t now = time(NULL);
    size_t n = 0;
    size_t i;
    bool in_txn = false;
    errno_t ret;

    if (tmp_ctx == NULL) {
        return ENOMEM;
    }
    names = talloc_zero_array(tmp_ctx, const char *, num_groups + 1);
    if (names == NULL) {
        ret = ENOMEM;
        goto done;
    }
    ret = sysdb_transaction_start(be->sysdb);
    if (ret != EOK) {
        goto done;
    }
    in_txn = true;
    ret = be_store_user(be, user, now);
    if (ret != EOK) {
        goto done;
    }
    for (i = 0; i < num_groups; i++) {
        ret = be_store_group(be, groups[i], false, now);
        if (ret == EINVAL) {
            continue;   /* refused (counted, logged): leave it out of the list */
        }
        if (ret != EOK) {
            goto done;
        }
        names[n++] = groups[i]->name;
    }
    ret = sysdb_store_initgroups(be->sysdb, user->name, names, now, be->user_timeout);
    if (ret != EOK) {
        DEBUG(SSSDBG_OP_FAILURE, "Cannot store the groups of %s: %s\n", user->name,
              sss_strerror(ret));
        goto done;
    }
    ret = sysdb_transaction_commit(be->sysdb);
    in_txn = false;
    if (ret == EOK) {
        DEBUG(SSSDBG_TRACE_INTERNAL, "%s: %zu groups stored\n", user->name, n);
    }
done:
    if (in_txn) {
        sysdb_transaction_cancel(be->sysdb);
    }
    talloc_free(tmp_ctx);
    return ret;
}

static void be_id_ldap_initgr_done(struct tevent_req *subreq)
{
    struct tevent_req *req = tevent_req_callback_data(subreq, struct tevent_req);
    struct be_id_ldap_state *state = tevent_req_data(req, struct be_id_ldap_state);
    TALLOC_CTX *tmp_ctx = talloc_new(state);
    struct sdap_user *user = NULL;
    struct sdap_group **groups = NULL;
    size_t num_groups = 0;
    uint64_t start;
    errno_t ret;

    if (tmp_ctx == NULL) {
        talloc_free(subreq);
        be_id_ldap_finish(req, ENOMEM);
        return;
    }
    ret = sdap_initgroups_recv(tmp_ctx, subreq, &user, &groups, &num_groups);
    talloc_free(subreq);
    if (ret == ENOENT) {
        ret = be_delete_user(state->be, &state->filter);
        goto done;
    }
    if (ret != EOK) {
        goto done;
    }
    start = sss_monotonic_usec();
    ret = be_id_ldap_store_initgr(state->be, user, groups, num_groups);
    be_step_done(state->be, start);
done:
    talloc_free(tmp_ctx);
    be_id_ldap_finish(req, ret);
}

errno_t be_id_ldap_recv(struct tevent_req *req)
{
    TEVENT_REQ_RETURN_ON_ERROR(req);
    return EOK;
}
