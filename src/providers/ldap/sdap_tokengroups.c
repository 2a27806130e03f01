/*
 * initgroups of an AD user from tokenGroups (ldap_use_tokengroups, the AD provider's
 * default): AD computes, on a base search of the user's entry, the SIDs of every group
 * the user is in, nested memberships included whatever their depth, and the primary
 * group. One base search gives them; the group entries then come by SID,
 * SDAP_FILTER_BATCH SIDs OR-ed per search, TG_WINDOW searches in flight on the shared
 * connection. BUILTIN SIDs (S-1-5-32-*) are not groups of ours and are left out, as SSSD
 * does. With ldap_id_mapping = false, groups without a gidNumber are skipped by the parser.
 */
#include "util/util.h"
#include "providers/ldap/sdap_private.h"

#define TG_ATTR "tokenGroups"
/* Group searches by SID kept in flight at once. */
#define TG_WINDOW 8

struct sdap_tokengroups_state {
    struct tevent_context *ev;
    struct sdap_id_ctx *id_ctx;
    const char *user_name;
    struct sdap_search_args base_args;
    const char *base_attrs[2];
    const char **sids;
    size_t num_sids;
    size_t pos;                     /* next SID to put in a filter */
    size_t in_flight;
    struct sdap_strset *seen;       /* canonical DNs of the groups taken */
    struct sdap_group **groups;
    size_t num_groups;
};

static void sdap_tokengroups_base_done(struct tevent_req *subreq);
static errno_t sdap_tokengroups_next(struct tevent_req *req);
static void sdap_tokengroups_groups_done(struct tevent_req *subreq);

struct tevent_req *sdap_tokengroups_send(TALLOC_CTX *mem_ctx, struct tevent_context *ev,
                                         struct sdap_id_ctx *id_ctx,
                                         const struct sdap_user *user)
{
    struct sdap_tokengroups_state *state;
    struct tevent_req *req;
    struct tevent_req *subreq;
    errno_t ret;

    req = tevent_req_create(mem_ctx, &state, struct sdap_tokengroups_state);
    if (!SDAP_OP_VALID(req, ev, id_ctx)) {
        return req;     /* NULL, or failing with EINVAL */
    }
    if (!SSS_ARG_VALID(user != NULL && user->orig_dn != NULL)) {
        return sdap_req_invalid(req, ev);
    }
    state->ev = ev;
    state->id_ctx = id_ctx;
    state->user_name = talloc_strdup(state, user->name);
    state->seen = sdap_strset_new(state);
    state->base_args.base = talloc_strdup(state, user->orig_dn);
    if (state->user_name == NULL || state->seen == NULL || state->base_args.base == NULL) {
        ret = ENOMEM;
        goto done;
    }
    state->base_attrs[0] = TG_ATTR;
    state->base_attrs[1] = NULL;
    state->base_args.scope = LDAP_SCOPE_BASE;
    state->base_args.filter = "(objectClass=*)";
    state->base_args.attrs = state->base_attrs;
    state->base_args.timeout = id_ctx->opts->search_timeout;
    subreq = sdap_id_search_send(state, ev, id_ctx, &state->base_args);
    if (subreq == NULL) {
        ret = ENOMEM;
        goto done;
    }
    tevent_req_set_callback(subreq, sdap_tokengroups_base_done, req);
    return req;
done:
    return sss_req_post(req, ev, ret);
}

static void sdap_tokengroups_base_done(struct tevent_req *subreq)
{
    struct tevent_req *req = tevent_req_callback_data(subreq, struct tevent_req);
    struct sdap_tokengroups_state *state = tevent_req_data(req,
                                                           struct sdap_tokengroups_state);
    const struct sdap_attr *attr = NULL;
    struct sdap_entry **entries = NULL;
    size_t num = 0;
    size_t i;
    errno_t ret;

    ret = sdap_id_search_recv(state, subreq, &entries, &num);
    talloc_free(subreq);
    if (ret != EOK) {
        goto done;
    }
    if (num == 1) {
        attr = sdap_entry_attr(entries[0], TG_ATTR);
    }
    if (attr == NULL) {
        DEBUG(SSSDBG_MINOR_FAILURE, "'%s': no %s from the server: memberships are searched "
              "instead\n", state->base_args.base, TG_ATTR);
        ret = ENODATA;
        goto done;
    }
    state->sids = talloc_zero_array(state, const char *, attr->num_values + 1);
    if (state->sids == NULL) {
        ret = ENOMEM;
        goto done;
    }
    for (i = 0; i < attr->num_values; i++) {
        if (strncmp(attr->values[i], "S-1-5-32-", 9) == 0) {
            continue;
        }
        state->sids[state->num_sids] = talloc_steal(state->sids, attr->values[i]);
        state->num_sids++;
    }
    DEBUG(SSSDBG_TRACE_FUNC, "user '%s': %zu group SID(s) in %s\n", state->user_name,
          state->num_sids, TG_ATTR);
    ret = sdap_tokengroups_next(req);
done:
    talloc_free(entries);
    sdap_req_step(req, ret);
}

/* Starts group searches up to the window. EAGAIN: some in flight; EOK: all answered. */
static errno_t sdap_tokengroups_next(struct tevent_req *req)
{
    struct sdap_tokengroups_state *state = tevent_req_data(req,
                                                           struct sdap_tokengroups_state);
    const struct sdap_options *opts = state->id_ctx->opts;
    struct sdap_search_args *args;
    struct tevent_req *subreq;
    char *filter = NULL;
    size_t batch;
    errno_t ret;

    while (state->in_flight < TG_WINDOW && state->pos < state->num_sids) {
        batch = state->num_sids - state->pos;
        if (batch > SDAP_FILTER_BATCH) {
            batch = SDAP_FILTER_BATCH;
        }
        ret = sdap_sid_filter(state, opts, &opts->groups, &state->sids[state->pos], batch,
                              &filter);
        state->pos += batch;
        if (ret == ENOENT) {
            continue;
        }
        if (ret != EOK) {
            return ret;
        }
        /* Groups without their member lists; the args live with the search. */
        args = talloc(state, struct sdap_search_args);
        if (args == NULL) {
            return ENOMEM;
        }
        *args = sdap_kind_search(&opts->groups, filter, opts->search_timeout,
                                 opts->page_size);
        args->attrs = sdap_group_attrs(args, opts, false);
        if (args->attrs == NULL) {
            return ENOMEM;
        }
        subreq = sdap_id_search_send(args, state->ev, state->id_ctx, args);
        if (subreq == NULL) {
            return ENOMEM;
        }
        talloc_steal(args, filter);
        tevent_req_set_callback(subreq, sdap_tokengroups_groups_done, req);
        state->in_flight++;
    }
    return state->in_flight > 0 ? EAGAIN : EOK;
}

static errno_t add_group(struct sdap_tokengroups_state *state, const struct sdap_entry *e)
{
    struct sdap_group *group = NULL;
    struct sdap_group **groups;
    char *canon;
    errno_t ret;

    canon = sdap_dn_canon(state, e->dn);
    if (canon == NULL) {
        return EOK;
    }
    if (!sdap_strset_add(state->seen, canon)) {
        talloc_free(canon);
        return EOK;
    }
    talloc_free(canon);
    ret = sdap_parse_group(state, state->id_ctx->opts, e, &group);
    if (ret == EINVAL) {
        return EOK;     /* unusable, logged */
    }
    if (ret != EOK) {
        return ret;
    }
    groups = talloc_realloc(state, state->groups, struct sdap_group *, state->num_groups + 2);
    if (groups == NULL) {
        return ENOMEM;
    }
    state->groups = groups;
    state->groups[state->num_groups++] = group;
    state->groups[state->num_groups] = NULL;
    return EOK;
}

static void sdap_tokengroups_groups_done(struct tevent_req *subreq)
{
    struct tevent_req *req = tevent_req_callback_data(subreq, struct tevent_req);
    struct sdap_tokengroups_state *state = tevent_req_data(req,
                                                           struct sdap_tokengroups_state);
    struct sdap_search_args *args = talloc_parent(subreq);
    struct sdap_entry **entries = NULL;
    size_t num = 0;
    size_t i;
    errno_t ret;

    ret = sdap_id_search_recv(state, subreq, &entries, &num);
    talloc_free(args);      /* and subreq with it */
    state->in_flight--;
    for (i = 0; ret == EOK && i < num; i++) {
        ret = add_group(state, entries[i]);
    }
    talloc_free(entries);
    if (ret == EOK) {
        ret = sdap_tokengroups_next(req);
    }
    if (ret == EOK) {
        DEBUG(SSSDBG_TRACE_FUNC, "user '%s' is in %zu group(s) (%s)\n", state->user_name,
              state->num_groups, TG_ATTR);
    }
    /* On an error the searches still in flight belong to state: freed with req. */
    sdap_req_step(req, ret);
}

errno_t sdap_tokengroups_recv(TALLOC_CTX *mem_ctx, struct tevent_req *req,
                              struct sdap_group ***_groups, size_t *_num_groups)
{
    struct sdap_tokengroups_state *state = tevent_req_data(req,
                                                           struct sdap_tokengroups_state);
    struct sdap_group **groups;

    if (!SSS_ARG_VALID(_groups != NULL) || !SSS_ARG_VALID(_num_groups != NULL)) {
        return EINVAL;
    }
    TEVENT_REQ_RETURN_ON_ERROR(req);
    groups = sdap_groups_move(mem_ctx, state->groups, state->num_groups);
    if (groups == NULL) {
        return ENOMEM;
    }
    *_groups = groups;
    *_num_groups = state->num_groups;
    return EOK;
}
