/*
 * Many groups by gid at once, with their members: one search
 * (&(objectClass=<group oc>)(|(<gid attr>=a)(<gid attr>=b)...)<group filter>) under the group
 * search base, then the members of each entry exactly as sdap_get_group does it: rfc2307
 * the memberUid values; the DN schemas flattened through nesting, loops cut, the member
 * DNs of all the groups read together (sdap_member_lists.c: each DN once for the batch),
 * then sdap_resolve_members, a few groups at a time on the shared connection, for those
 * left without members there (a big group, the budget of DNs passed, a failed read).
 * Resolving each group on its own read a DN shared by the batch once per group: a user
 * in 5,000 groups cost 5,000 searches for its own DN (ldap_use_tokengroups = false).
 * For the back-end's member prefetch; a caller needing one exact answer (duplicates
 * refused, ENOENT) still uses sdap_get_group.
 */
#include <assert.h>
#include <stdio.h>
#include <stdlib.h>

#include "util/util.h"
#include "providers/ldap/sdap_private.h"
#include "providers/ldap/sdap_member_lists.h"

/* rfc2307bis groups whose member DNs are resolved at the same time. */
#define SDAP_BATCH_RESOLVE_WINDOW 8
/* rfc2307 member values turned into lists per loop turn: a batch of big groups (100 of
 * 5,000 members took 140 ms at once) never holds the loop for long. */
#define SDAP_BATCH_MEMBERS_PER_TURN 20000

struct sdap_groups_batch_state {
    struct tevent_context *ev;
    struct sdap_id_ctx *id_ctx;
    struct sdap_search_args args;
    uint32_t *gids;                     /* requested, sorted */
    size_t num_gids;
    struct sdap_entry **entries;
    struct sdap_group **groups;         /* kept groups, directory order */
    const struct sdap_entry **group_entries; /* their entries */
    size_t num_groups;
    size_t next_resolve;
    size_t next_members;                /* rfc2307: groups whose lists are built */
    size_t resolving;
    bool failed;
    struct sdap_mlists *ml;             /* the DN schemas: the batch's member lists */
};

struct sdap_batch_resolve {
    struct tevent_req *req;
    size_t idx;
};

struct sdap_gid_idx {
    uint32_t gid;
    size_t idx;
};

static int cmp_gid_idx(const void *a, const void *b)
{
    const struct sdap_gid_idx *x = a;
    const struct sdap_gid_idx *y = b;

    return x->gid < y->gid ? -1 : x->gid > y->gid;
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a;
    uint32_t y = *(const uint32_t *)b;

    return x < y ? -1 : x > y;
}

static void sdap_groups_batch_found(struct tevent_req *subreq);
static void sdap_groups_batch_members(struct tevent_req *req);
static errno_t sdap_groups_batch_lists(struct tevent_req *req);
static void sdap_groups_batch_listed(struct tevent_req *subreq);
static errno_t sdap_groups_batch_resolve_more(struct tevent_req *req);
static void sdap_groups_batch_resolved(struct tevent_req *subreq);

struct tevent_req *sdap_get_groups_by_gid_send(TALLOC_CTX *mem_ctx, struct tevent_context *ev,
                                               struct sdap_id_ctx *id_ctx,
                                               const uint32_t *gids, size_t n)
{
    struct sdap_groups_batch_state *state;
    const struct sdap_options *opts;
    struct tevent_req *req;
    struct tevent_req *subreq;
    const char **values;
    char *filter;
    size_t i;
    errno_t ret;

    req = tevent_req_create(mem_ctx, &state, struct sdap_groups_batch_state);
    if (!SDAP_OP_VALID(req, ev, id_ctx)) {
        return req;     /* NULL, or failing with EINVAL */
    }
    if (!SSS_ARG_VALID(gids != NULL) || !SSS_ARG_VALID(n > 0)) {
        return sdap_req_invalid(req, ev);
    }
    state->ev = ev;
    state->id_ctx = id_ctx;
    opts = id_ctx->opts;
    state->gids = talloc_memdup(state, gids, n * sizeof(uint32_t));
    values = talloc_array(state, const char *, n + 1);
    if (state->gids == NULL || values == NULL) {
        ret = ENOMEM;
        goto done;
    }
    qsort(state->gids, n, sizeof(uint32_t), cmp_u32);
    state->num_gids = n;
    for (i = 0; i < n; i++) {
        values[i] = talloc_asprintf(values, "%u", gids[i]);
        if (values[i] == NULL) {
            ret = ENOMEM;
            goto done;
        }
    }
    values[n] = NULL;
    if (opts->idmap != NULL) {
        filter = NULL;
        ret = sdap_idmap_filter(state, opts, &opts->groups, state->gids, n, &filter);
        if (ret != EOK) {
            goto done;
        }
    } else {
        filter = sdap_filter_or(state, opts->groups.oc, opts->groups.id_attr, values, n,
                                opts->groups.filter);
    }
    talloc_free(values);
    if (filter == NULL) {
        ret = ENOMEM;
        goto done;
    }
    /* n gids name about n entries: below the page size the paged results control only
     * costs the server (Samba: ~4.6 ms of CPU per subtree search). A directory holding
     * one gid many times may pass its size limit: the batch fails (partial result) and
     * its groups are looked up one by one, as they would be without the prefetch. */
    state->args = sdap_kind_search(&opts->groups, filter, opts->search_timeout,
                                   n < (size_t)opts->page_size ? 0 : opts->page_size);
    subreq = sdap_id_search_send(state, ev, id_ctx, &state->args);
    if (subreq == NULL) {
        ret = ENOMEM;
        goto done;
    }
    tevent_req_set_callback(subreq, sdap_groups_batch_found, req);
    return req;
done:
    return sss_req_post(req, ev, ret);
}

/* Parses the entries; keeps those with a requested gid that no other entry holds. */
static errno_t sdap_groups_batch_parse(struct sdap_groups_batch_state *state, size_t num)
{
    const struct sdap_options *opts = state->id_ctx->opts;
    struct sdap_gid_idx *order;
    struct sdap_group *group;
    size_t i;
    size_t k;
    errno_t ret;

    state->groups = talloc_zero_array(state, struct sdap_group *, num + 1);
    state->group_entries = talloc_zero_array(state, const struct sdap_entry *, num + 1);
    if (state->groups == NULL || state->group_entries == NULL) {
        return ENOMEM;
    }
    for (i = 0; i < num; i++) {
        ret = sdap_parse_group(state->groups, opts, state->entries[i], &group);
        if (ret == EINVAL) {
            continue;       /* unusable, logged */
        }
        if (ret != EOK) {
            return ret;
        }
        if (bsearch(&group->gid, state->gids, state->num_gids, sizeof(uint32_t),
                    cmp_u32) == NULL) {
            talloc_free(group);
            continue;
        }
        state->group_entries[state->num_groups] = state->entries[i];
        state->groups[state->num_groups++] = group;
    }
    /* A gid held by several entries: none is taken (a lookup by gid refuses them too).
     * Sorted by gid, so a hostile directory with many duplicates costs n log n. */
    order = talloc_array(state, struct sdap_gid_idx, state->num_groups + 1);
    if (order == NULL) {
        return ENOMEM;
    }
    for (i = 0; i < state->num_groups; i++) {
        order[i].gid = state->groups[i]->gid;
        order[i].idx = i;
    }
    qsort(order, state->num_groups, sizeof(*order), cmp_gid_idx);
    for (i = 0; i < state->num_groups; i = k) {
        for (k = i + 1; k < state->num_groups && order[k].gid == order[i].gid; k++) {
            /* the run of entries holding this gid */
        }
        if (k - i == 1) {
            continue;
        }
        DEBUG(SSSDBG_OP_FAILURE, "gid %u: %zu entries ('%s', ...), none taken\n",
              order[i].gid, k - i, state->group_entries[order[i].idx]->dn);
        for (size_t d = i; d < k; d++) {
            state->group_entries[order[d].idx] = NULL;  /* removed below */
        }
    }
    talloc_free(order);
    for (i = 0, k = 0; i < state->num_groups; i++) {
        if (state->group_entries[i] == NULL) {
            talloc_free(state->groups[i]);
            continue;
        }
        state->groups[k] = state->groups[i];
        state->group_entries[k++] = state->group_entries[i];
    }
    state->num_groups = k;
    state->groups[k] = NULL;
    return EOK;
}

static void sdap_groups_batch_found(struct tevent_req *subreq)
{
    struct tevent_req *req = tevent_req_callback_data(subreq, struct tevent_req);
    struct sdap_groups_batch_state *state =
        tevent_req_data(req, struct sdap_groups_batch_state);
    const struct sdap_options *opts = state->id_ctx->opts;
    size_t num = 0;
    errno_t ret;

    ret = sdap_id_search_recv(state, subreq, &state->entries, &num);
    talloc_free(subreq);
    if (ret != EOK) {
        goto done;
    }
    ret = sdap_groups_batch_parse(state, num);
    if (ret != EOK) {
        goto done;
    }
    DEBUG(SSSDBG_TRACE_FUNC, "%zu of %zu group(s) found by gid\n", state->num_groups,
          state->num_gids);
    if (!opts->member_is_dn) {
        sdap_groups_batch_members(req);
        return;
    }
    ret = sdap_groups_batch_lists(req);
done:
    sdap_req_step(req, ret);
}

static void sdap_groups_batch_members_turn(struct tevent_context *ev, struct tevent_timer *te,
                                           struct timeval tv, void *pvt)
{
    sdap_groups_batch_members(talloc_get_type_abort(pvt, struct tevent_req));
}

/* rfc2307: the memberUid lists, SDAP_BATCH_MEMBERS_PER_TURN values per loop turn. */
static void sdap_groups_batch_members(struct tevent_req *req)
{
    struct sdap_groups_batch_state *state =
        tevent_req_data(req, struct sdap_groups_batch_state);
    const struct sdap_options *opts = state->id_ctx->opts;
    const struct sdap_attr *attr;
    size_t values = 0;
    size_t i;
    errno_t ret;

    while (state->next_members < state->num_groups && values < SDAP_BATCH_MEMBERS_PER_TURN) {
        i = state->next_members++;
        attr = sdap_entry_attr(state->group_entries[i], opts->group_map[SDAP_GA_MEMBER]);
        values += 1 + (attr != NULL ? attr->num_values : 0);
        ret = sdap_group_set_members_rfc2307(state->groups[i], opts, state->group_entries[i]);
        if (ret != EOK) {
            tevent_req_error(req, ret);
            return;
        }
    }
    if (state->next_members == state->num_groups) {
        tevent_req_done(req);
        return;
    }
    if (tevent_add_timer(state->ev, state, tevent_timeval_zero(),
                         sdap_groups_batch_members_turn, req) == NULL) {
        tevent_req_error(req, ENOMEM);
    }
}

/* The DN schemas: the member lists of all the groups together. EAGAIN: under way. */
static errno_t sdap_groups_batch_lists(struct tevent_req *req)
{
    struct sdap_groups_batch_state *state =
        tevent_req_data(req, struct sdap_groups_batch_state);
    struct sdap_group **listed;
    struct tevent_req *subreq;
    size_t n = 0;
    size_t i;
    errno_t ret;

    state->ml = sdap_mlists_new(state, state->id_ctx, "member prefetch");
    listed = talloc_array(state, struct sdap_group *, state->num_groups + 1);
    if (state->ml == NULL || listed == NULL) {
        return ENOMEM;
    }
    for (i = 0; i < state->num_groups; i++) {
        /* The entry moves onto ml, which lives as long as state. */
        ret = sdap_mlists_add(state->ml, discard_const(state->group_entries[i]),
                              state->groups[i]);
        if (ret == ENOMEM) {
            return ENOMEM;
        }
        if (ret == EOK) {
            listed[n++] = state->groups[i];
        }   /* else: resolved on its own below */
    }
    subreq = sdap_mlists_send(state, state->ev, state->ml, listed, n);
    if (subreq == NULL) {
        return ENOMEM;
    }
    tevent_req_set_callback(subreq, sdap_groups_batch_listed, req);
    return EAGAIN;
}

static void sdap_groups_batch_listed(struct tevent_req *subreq)
{
    struct tevent_req *req = tevent_req_callback_data(subreq, struct tevent_req);
    struct sdap_groups_batch_state *state =
        tevent_req_data(req, struct sdap_groups_batch_state);
    size_t read = 0;
    size_t left = 0;
    size_t i;
    errno_t ret;

    ret = sdap_mlists_recv(subreq, &read);
    talloc_free(subreq);
    if (ret == EOK) {
        for (i = 0; i < state->num_groups; i++) {
            left += !state->groups[i]->members_complete;
        }
        DEBUG(SSSDBG_TRACE_FUNC, "member prefetch: %zu of %zu group(s) listed together "
              "(%zu member DN(s) read), %zu resolved one by one\n",
              state->num_groups - left, state->num_groups, read, left);
        ret = sdap_groups_batch_resolve_more(req);
    }
    sdap_req_step(req, ret);
}

/* Starts member resolutions up to the window, for the groups sdap_groups_batch_lists left
 * without members. EAGAIN: some are running; EOK: all done. */
static errno_t sdap_groups_batch_resolve_more(struct tevent_req *req)
{
    struct sdap_groups_batch_state *state =
        tevent_req_data(req, struct sdap_groups_batch_state);
    struct sdap_batch_resolve *r;
    struct tevent_req *subreq;

    while (state->resolving < SDAP_BATCH_RESOLVE_WINDOW
           && state->next_resolve < state->num_groups) {
        if (state->groups[state->next_resolve]->members_complete) {
            state->next_resolve++;
            continue;
        }
        r = talloc_zero(state, struct sdap_batch_resolve);
        if (r == NULL) {
            return ENOMEM;
        }
        r->req = req;
        r->idx = state->next_resolve++;
        subreq = sdap_resolve_members_send(r, state->ev, state->id_ctx,
                                           state->group_entries[r->idx],
                                           state->id_ctx->opts->nesting_level);
        if (subreq == NULL) {
            return ENOMEM;
        }
        tevent_req_set_callback(subreq, sdap_groups_batch_resolved, r);
        state->resolving++;
    }
    return state->resolving > 0 ? EAGAIN : EOK;
}

static void sdap_groups_batch_resolved(struct tevent_req *subreq)
{
    struct sdap_batch_resolve *r = tevent_req_callback_data(subreq, struct sdap_batch_resolve);
    struct tevent_req *req = r->req;
    struct sdap_groups_batch_state *state =
        tevent_req_data(req, struct sdap_groups_batch_state);
    errno_t ret;

    ret = sdap_resolve_members_recv(subreq, state->groups[r->idx]);
    talloc_free(subreq);
    talloc_free(r);
    assert(state->resolving > 0);
    state->resolving--;
    if (state->failed) {
        return;
    }
    if (ret == EOK) {
        ret = sdap_groups_batch_resolve_more(req);
    }
    /* On failure the other resolutions go with the request when the caller frees it. */
    state->failed = ret != EOK && ret != EAGAIN;
    sdap_req_step(req, ret);
}

errno_t sdap_get_groups_by_gid_recv(TALLOC_CTX *mem_ctx, struct tevent_req *req,
                                    struct sdap_group ***_groups, size_t *_num_groups)
{
    struct sdap_groups_batch_state *state =
        tevent_req_data(req, struct sdap_groups_batch_state);

    if (!SSS_ARG_VALID(_groups != NULL) || !SSS_ARG_VALID(_num_groups != NULL)) {
        return EINVAL;
    }
    TEVENT_REQ_RETURN_ON_ERROR(req);
    *_groups = talloc_steal(mem_ctx, state->groups);
    *_num_groups = state->num_groups;
    return EOK;
}
