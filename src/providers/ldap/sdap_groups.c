/*
 * Looking up one group, by name or gid, with its members.
 *
 * rfc2307: the members are the memberUid values (names), taken as they are (invalid names
 * dropped, duplicates removed).
 *
 * rfc2307bis (and the other DN-member schemas): the member values are DNs. They are
 * resolved level by level (breadth first): all member DNs of the groups of one level that
 * were not seen before are read at once (sdap_member_dns.c): those named by their RDN
 * under the user or group search base with OR filters on that name, hundreds per search,
 * checked against the requested DNs; the others with base-scope lookups, many in flight
 * at once on the shared connection. A DN whose entry has the user object class gives a
 * user name; one with the group object class is a nested group: listed in member_groups
 * when it is a direct member, and expanded in turn while its depth is within
 * ldap_group_nesting_level (the looked-up group is its own depth 0). Every DN is looked up
 * at most once and every group expanded at most once, so membership loops (A in B in A)
 * end. Unusable entries (sdap_schema.c) are skipped as members.
 *
 * The nested groups such a walk reads are often looked up next (`id` asks for each group
 * of the user): a walk of a modest size (SDAP_NESTED_TRACK_MAX member values) keeps the
 * graph it read, and afterwards replays each nested group's own walk on it with the
 * member-graph walker (sdap_member_walk.c: a DN taken once, by its shortest path from
 * that group; groups expanded within the nesting level counted from that group). A
 * nested group whose replay needs the members of a group the walk did not expand is left
 * out; the others come back with the member lists their own lookup would give,
 * members_complete, for the back-end to store.
 */
#include <assert.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "util/util.h"
#include "util/sss_hash.h"
#include "providers/ldap/sdap_member_dns.h"
#include "providers/ldap/sdap_member_walk.h"

/* Member values (summed over the groups expanded) up to which a walk keeps its graph. */
#define SDAP_NESTED_TRACK_MAX 2000

/* A DN a walk resolved, or the looked-up group itself. */
struct rm_node {
    struct sdap_mw_node mw;         /* first: the walker's view; expanded: its member DNs
                                     * were read (mw.members is linked before the replays) */
    struct sdap_group *group;       /* groups: parsed from the entry */
    const char **canons;            /* expanded groups: the canonical member DNs */
    size_t num_canons;
};

errno_t sdap_group_set_members(struct sdap_group *group, struct sdap_strset *users,
                               struct sdap_strset *groups)
{
    const char **u = NULL;
    const char **g = NULL;

    if (users != NULL) {
        u = sdap_strset_array(group, users);
        if (u == NULL) {
            return ENOMEM;
        }
    }
    if (groups != NULL) {
        g = sdap_strset_array(group, groups);
        if (g == NULL) {
            talloc_free(u);
            return ENOMEM;
        }
    }
    if (u != NULL) {
        talloc_free(group->member_users);
        group->member_users = u;
        group->num_member_users = sdap_strset_count(users);
    }
    if (g != NULL) {
        talloc_free(group->member_groups);
        group->member_groups = g;
        group->num_member_groups = sdap_strset_count(groups);
    }
    return EOK;
}

/* The duplicate check of sdap_group_set_members_rfc2307: the kept value is its own key. */
static bool rfc2307_name_equal(const void *item, const void *key, void *ctx)
{
    return strcmp(item, key) == 0;
}

errno_t sdap_group_set_members_rfc2307(struct sdap_group *group,
                                       const struct sdap_options *opts,
                                       const struct sdap_entry *entry)
{
    const struct sdap_attr *attr = sdap_entry_attr(entry, opts->group_map[SDAP_GA_MEMBER]);
    size_t n = attr != NULL ? attr->num_values : 0;
    TALLOC_CTX *tmp_ctx;
    struct sss_hash_table *seen;
    const char **keep;
    const char **out;
    size_t num = 0;
    size_t total = 0;
    size_t len;
    size_t i;
    char *buf;
    errno_t ret;

    tmp_ctx = talloc_new(NULL);
    if (tmp_ctx == NULL) {
        return ENOMEM;
    }
    keep = talloc_array(tmp_ctx, const char *, n + 1);
    seen = sss_hash_table_new(tmp_ctx, n, rfc2307_name_equal, NULL);
    if (keep == NULL || seen == NULL) {
        ret = ENOMEM;
        goto done;
    }
    for (i = 0; i < n; i++) {
        const char *v = attr->values[i];

        if (!sdap_valid_name(v)) {
            DEBUG(SSSDBG_MINOR_FAILURE, "group '%s': invalid member name skipped\n",
                  group->name);
            continue;
        }
        ret = sss_hash_table_insert(seen, sss_hash_str(v), v, (void *)(uintptr_t)v, NULL);
        if (ret == EEXIST) {
            continue;
        }
        if (ret != EOK) {
            goto done;
        }
        keep[num++] = v;
        total += strlen(v) + 1;
    }
    /* Every name in one block owned by the array: a talloc chunk per name (500,000 of
     * them for a user in 5,000 groups of 100) cost more than the names. */
    out = talloc_array(group, const char *, num + 1);
    buf = out != NULL ? talloc_size(out, total > 0 ? total : 1) : NULL;
    if (buf == NULL) {
        talloc_free(out);
        ret = ENOMEM;
        goto done;
    }
    for (i = 0; i < num; i++) {
        len = strlen(keep[i]) + 1;
        memcpy(buf, keep[i], len);
        out[i] = buf;
        buf += len;
    }
    out[num] = NULL;
    talloc_free(group->member_users);
    group->member_users = out;
    group->num_member_users = num;
    ret = EOK;
done:
    talloc_free(tmp_ctx);
    return ret;
}

/* ---- rfc2307bis member resolution --------------------------------------------------- */

struct sdap_resolve_members_state {
    struct tevent_context *ev;
    struct sdap_id_ctx *id_ctx;
    int nesting_level;
    int depth;                      /* depth of the groups in frontier */
    struct sdap_strset *seen;       /* canonical DNs looked up (or being the top group) */
    struct sdap_strset *users;
    struct sdap_strset *groups;     /* direct member groups */
    const struct sdap_entry **frontier;
    size_t num_frontier;
    struct sdap_entry **level;      /* the entries read last: the frontier's groups */
    const char **dns;               /* being looked up */
    const char **canons;            /* their canonical forms */
    size_t num_dns;
    const char **attrs;
    /* The graph, while tracked (NULL: not, or no longer: too big) */
    struct sdap_strset *nodes;      /* canonical DN -> struct rm_node */
    struct rm_node *top;
    struct rm_node **fnodes;        /* aligned with frontier */
    struct rm_node **nested;        /* group nodes met, in order */
    size_t num_nested;
    size_t tracked_values;
};

static void rm_untrack(struct sdap_resolve_members_state *state)
{
    TALLOC_FREE(state->nodes);
}

static errno_t sdap_resolve_members_step(struct tevent_req *req);
static void sdap_resolve_members_done(struct tevent_req *subreq);

/* A resolved DN into the graph (nothing when not tracked). A group is moved onto its node
 * (or freed when not tracked). */
static errno_t rm_track(struct sdap_resolve_members_state *state, const char *canon,
                        bool is_group, const char *user_name, struct sdap_group *group)
{
    struct rm_node **nested;
    struct rm_node *node;

    if (state->nodes == NULL) {
        talloc_free(group);
        return EOK;
    }
    node = talloc_zero(state->nodes, struct rm_node);
    if (node == NULL) {
        talloc_free(group);
        return ENOMEM;
    }
    node->mw.kind = is_group ? SDAP_MW_GROUP : SDAP_MW_USER;
    if (is_group) {
        node->group = talloc_steal(node, group);
        node->mw.name = group->name;
        nested = talloc_realloc(state, state->nested, struct rm_node *,
                                state->num_nested + 1);
        if (nested == NULL) {
            return ENOMEM;
        }
        state->nested = nested;
        state->nested[state->num_nested++] = node;
    } else {
        node->mw.name = talloc_strdup(node, user_name);
        if (node->mw.name == NULL) {
            return ENOMEM;
        }
    }
    if (!sdap_strmap_add(state->nodes, canon, node)) {
        return ENOMEM;
    }
    return EOK;
}

struct tevent_req *sdap_resolve_members_send(TALLOC_CTX *mem_ctx, struct tevent_context *ev,
                                             struct sdap_id_ctx *id_ctx,
                                             const struct sdap_entry *group_entry,
                                             int nesting_level)
{
    struct sdap_resolve_members_state *state;
    struct tevent_req *req;
    char *canon;
    errno_t ret;

    req = tevent_req_create(mem_ctx, &state, struct sdap_resolve_members_state);
    if (req == NULL) {
        return NULL;
    }
    state->ev = ev;
    state->id_ctx = id_ctx;
    state->nesting_level = nesting_level;
    state->seen = sdap_strset_new(state);
    state->users = sdap_strset_new(state);
    state->groups = sdap_strset_new(state);
    state->frontier = talloc_array(state, const struct sdap_entry *, 1);
    state->attrs = sdap_any_attrs(state, id_ctx->opts);
    if (state->seen == NULL || state->users == NULL || state->groups == NULL
            || state->frontier == NULL || state->attrs == NULL) {
        ret = ENOMEM;
        goto done;
    }
    canon = sdap_dn_canon(state, group_entry->dn);
    if (canon != NULL) {
        sdap_strset_add(state->seen, canon);
    }
    state->frontier[0] = group_entry;
    state->num_frontier = 1;
    state->nodes = sdap_strset_new(state);
    state->fnodes = talloc_zero_array(state, struct rm_node *, 1);
    if (state->nodes == NULL || state->fnodes == NULL) {
        ret = ENOMEM;
        goto done;
    }
    if (canon == NULL) {
        rm_untrack(state);
    } else {
        struct rm_node *top = talloc_zero(state->nodes, struct rm_node);

        if (top == NULL || sdap_parse_group(top, id_ctx->opts, group_entry,
                                            &top->group) != EOK) {
            rm_untrack(state);
        } else {
            top->mw.kind = SDAP_MW_GROUP;
            top->mw.name = top->group->name;
            sdap_strmap_add(state->nodes, canon, top);
            state->fnodes[0] = top;
            state->top = top;
        }
    }
    ret = sdap_resolve_members_step(req);
    if (ret == EAGAIN) {
        return req;
    }
done:
    return sss_req_post(req, ev, ret);
}

/* Looks up the new member DNs of the frontier. EAGAIN: lookups sent; EOK: nothing left. */
static errno_t sdap_resolve_members_step(struct tevent_req *req)
{
    struct sdap_resolve_members_state *state =
        tevent_req_data(req, struct sdap_resolve_members_state);
    const char *member_attr = state->id_ctx->opts->group_map[SDAP_GA_MEMBER];
    struct tevent_req *subreq;
    size_t total = 0;
    size_t i;
    size_t k;

    for (i = 0; i < state->num_frontier; i++) {
        const struct sdap_attr *attr = sdap_entry_attr(state->frontier[i], member_attr);
        total += attr != NULL ? attr->num_values : 0;
    }
    state->tracked_values += total;
    if (state->tracked_values > SDAP_NESTED_TRACK_MAX) {
        rm_untrack(state);
    }
    talloc_free(state->dns);
    talloc_free(state->canons);
    state->dns = talloc_array(state, const char *, total + 1);
    state->canons = talloc_array(state, const char *, total + 1);
    state->num_dns = 0;
    if (state->dns == NULL || state->canons == NULL) {
        return ENOMEM;
    }
    for (i = 0; i < state->num_frontier; i++) {
        const struct sdap_attr *attr = sdap_entry_attr(state->frontier[i], member_attr);
        struct rm_node *node = state->nodes != NULL ? state->fnodes[i] : NULL;

        if (node != NULL) {
            node->mw.expanded = true;
            node->canons = talloc_zero_array(node, const char *,
                                             attr != NULL ? attr->num_values + 1 : 1);
            if (node->canons == NULL) {
                return ENOMEM;
            }
        }
        for (k = 0; attr != NULL && k < attr->num_values; k++) {
            char *canon = sdap_dn_canon(state->canons, attr->values[k]);
            const char *key;

            if (canon == NULL) {
                DEBUG(SSSDBG_MINOR_FAILURE, "group '%s': member '%.64s' is not a DN: "
                      "skipped\n", state->frontier[i]->dn, attr->values[k]);
                continue;
            }
            if (node != NULL) {
                node->canons[node->num_canons] = talloc_strdup(node->canons, canon);
                if (node->canons[node->num_canons++] == NULL) {
                    talloc_free(canon);
                    return ENOMEM;
                }
            }
            /* The set's copy serves as the canonical form from here on: one copy per
             * member, not two. */
            key = sdap_strset_intern(state->seen, canon);
            talloc_free(canon);
            if (key == NULL) {
                continue;       /* seen at this or an earlier level */
            }
            state->canons[state->num_dns] = key;
            state->dns[state->num_dns++] = attr->values[k];
        }
    }
    state->dns[state->num_dns] = NULL;
    state->canons[state->num_dns] = NULL;
    if (state->num_dns == 0) {
        return EOK;
    }
    DEBUG(SSSDBG_TRACE_FUNC, "depth %d: looking up %zu member DN(s)\n", state->depth,
          state->num_dns);
    subreq = sdap_member_dns_send(state, state->ev, state->id_ctx, state->dns,
                                  state->canons, state->num_dns, state->attrs);
    if (subreq == NULL) {
        return ENOMEM;
    }
    tevent_req_set_callback(subreq, sdap_resolve_members_done, req);
    return EAGAIN;
}

static void sdap_resolve_members_done(struct tevent_req *subreq)
{
    struct tevent_req *req = tevent_req_callback_data(subreq, struct tevent_req);
    struct sdap_resolve_members_state *state =
        tevent_req_data(req, struct sdap_resolve_members_state);
    const struct sdap_options *opts = state->id_ctx->opts;
    struct sdap_entry **entries = NULL;
    const struct sdap_entry **next;
    struct rm_node **next_nodes;
    size_t num_next = 0;
    size_t i;
    errno_t ret;

    ret = sdap_member_dns_recv(state, subreq, &entries);
    talloc_free(subreq);
    if (ret != EOK) {
        tevent_req_error(req, ret);
        return;
    }
    next = talloc_array(state, const struct sdap_entry *, state->num_dns + 1);
    next_nodes = talloc_zero_array(state, struct rm_node *, state->num_dns + 1);
    if (next == NULL || next_nodes == NULL) {
        tevent_req_error(req, ENOMEM);
        return;
    }
    for (i = 0; i < state->num_dns; i++) {
        struct sdap_entry *e = entries[i];
        struct sdap_user *user = NULL;
        struct sdap_group *group = NULL;

        if (e == NULL) {
            DEBUG(SSSDBG_TRACE_FUNC, "member '%s' does not exist: skipped\n", state->dns[i]);
            continue;
        }
        if (sdap_entry_has_oc(e, opts->user_map[SDAP_UA_OC])) {
            if (sdap_parse_user(state, opts, e, &user) == EOK) {
                sdap_strset_add(state->users, user->name);
                ret = rm_track(state, state->canons[i], false, user->name, NULL);
                talloc_free(user);
                if (ret != EOK) {
                    tevent_req_error(req, ret);
                    return;
                }
            }
            /* Done with it: freed now, its memory serves the next entries parsed
             * (keeping thousands of them grew the heap, page by page). */
            TALLOC_FREE(entries[i]);
        } else if (sdap_entry_has_oc(e, opts->group_map[SDAP_GA_OC])) {
            if (sdap_parse_group(state, opts, e, &group) != EOK) {
                continue;
            }
            if (state->depth == 0) {
                sdap_strset_add(state->groups, group->name);
            }
            ret = rm_track(state, state->canons[i], true, NULL, group);
            if (ret != EOK) {
                talloc_free(group);
                tevent_req_error(req, ret);
                return;
            }
            if (state->depth + 1 <= state->nesting_level) {
                if (state->nodes != NULL) {
                    next_nodes[num_next] = state->nested[state->num_nested - 1];
                }
                next[num_next++] = e;
            }
        } else {
            DEBUG(SSSDBG_TRACE_FUNC, "member '%s' is neither a user nor a group: skipped\n",
                  e->dn);
            TALLOC_FREE(entries[i]);
        }
    }
    /* The next level's group entries stay alive (entries holds them) until their
     * members are read; the level before, whose member values this step looked up, is
     * done with (state->dns pointed into it: the step frees that array unread). */
    talloc_free(state->level);
    state->level = entries;
    talloc_free(state->frontier);
    talloc_free(state->fnodes);
    state->frontier = next;
    state->fnodes = next_nodes;
    state->num_frontier = num_next;
    state->depth++;
    ret = sdap_resolve_members_step(req);
    sdap_req_step(req, ret);
}

errno_t sdap_resolve_members_recv(struct tevent_req *req, struct sdap_group *group)
{
    struct sdap_resolve_members_state *state =
        tevent_req_data(req, struct sdap_resolve_members_state);

    TEVENT_REQ_RETURN_ON_ERROR(req);
    return sdap_group_set_members(group, state->users, state->groups);
}

/* Points an expanded node's members at their nodes (NULL: not read, or unusable). */
static errno_t rm_link(struct sdap_resolve_members_state *state, struct rm_node *node)
{
    struct rm_node *m;
    size_t k;

    if (!node->mw.expanded || node->mw.members != NULL) {
        return EOK;
    }
    node->mw.members = talloc_zero_array(node, struct sdap_mw_node *, node->num_canons + 1);
    if (node->mw.members == NULL) {
        return ENOMEM;
    }
    for (k = 0; k < node->num_canons; k++) {
        m = sdap_strmap_get(state->nodes, node->canons[k]);
        node->mw.members[k] = m != NULL ? &m->mw : NULL;
    }
    node->mw.num_members = node->num_canons;
    return EOK;
}

errno_t sdap_resolve_members_nested(TALLOC_CTX *mem_ctx, struct tevent_req *req,
                                    struct sdap_group ***_groups, size_t *_num_groups)
{
    struct sdap_resolve_members_state *state =
        tevent_req_data(req, struct sdap_resolve_members_state);
    struct sdap_group **out;
    struct sdap_mw *walker = NULL;
    size_t n = 0;
    size_t i;
    errno_t ret;

    TEVENT_REQ_RETURN_ON_ERROR(req);
    out = talloc_zero_array(mem_ctx, struct sdap_group *,
                            state->nodes != NULL ? state->num_nested + 1 : 1);
    if (out == NULL) {
        return ENOMEM;
    }
    if (state->nodes != NULL && state->num_nested > 0) {
        assert(state->top != NULL);
        walker = sdap_mw_new(state, state->nesting_level);
        ret = walker != NULL ? rm_link(state, state->top) : ENOMEM;
        for (i = 0; ret == EOK && i < state->num_nested; i++) {
            ret = rm_link(state, state->nested[i]);
        }
        if (ret != EOK) {
            goto done;
        }
    }
    for (i = 0; walker != NULL && i < state->num_nested; i++) {
        ret = sdap_mw_group_members(walker, &state->nested[i]->mw, state->nested[i]->group,
                                    NULL);
        if (ret == ENOENT) {
            continue;       /* needs members the walk did not read */
        }
        if (ret != EOK) {
            goto done;
        }
        state->nested[i]->group->members_complete = true;
        out[n++] = talloc_steal(out, state->nested[i]->group);
    }
    *_groups = out;
    *_num_groups = n;
    ret = EOK;
done:
    talloc_free(walker);
    if (ret != EOK) {
        talloc_free(out);
    }
    return ret;
}

/* ---- get group ---------------------------------------------------------------------- */

struct sdap_get_group_state {
    struct tevent_context *ev;
    struct sdap_id_ctx *id_ctx;
    struct sdap_entry *entry;       /* lives while its members are resolved */
    struct sdap_group *group;
    struct sdap_group **nested;     /* read completely on the way (rfc2307bis) */
    size_t num_nested;
};

static void sdap_get_group_found(struct tevent_req *subreq);
static void sdap_get_group_resolved(struct tevent_req *subreq);

struct tevent_req *sdap_get_group_send(TALLOC_CTX *mem_ctx, struct tevent_context *ev,
                                       struct sdap_id_ctx *id_ctx, enum sdap_by by,
                                       const char *name, uint32_t id)
{
    struct sdap_get_group_state *state;
    struct tevent_req *req;
    struct tevent_req *subreq;
    errno_t ret;

    req = tevent_req_create(mem_ctx, &state, struct sdap_get_group_state);
    if (!SDAP_OP_VALID(req, ev, id_ctx)) {
        return req;     /* NULL, or failing with EINVAL */
    }
    state->ev = ev;
    state->id_ctx = id_ctx;
    subreq = sdap_id_lookup_one_send(state, ev, id_ctx, SDAP_KIND_GROUPS, by, name, id);
    if (subreq == NULL) {
        ret = ENOMEM;
        goto done;
    }
    tevent_req_set_callback(subreq, sdap_get_group_found, req);
    return req;
done:
    return sss_req_post(req, ev, ret);
}

static void sdap_get_group_found(struct tevent_req *subreq)
{
    struct tevent_req *req = tevent_req_callback_data(subreq, struct tevent_req);
    struct sdap_get_group_state *state = tevent_req_data(req, struct sdap_get_group_state);
    const struct sdap_options *opts = NULL;
    errno_t ret;

    ret = sdap_id_lookup_one_recv(state, subreq, &opts, &state->entry);
    talloc_free(subreq);
    if (ret != EOK) {
        goto done;
    }
    ret = sdap_parse_group(state, opts, state->entry, &state->group);
    if (ret == EINVAL) {
        ret = ENOENT;   /* unusable entry, logged */
    }
    if (ret != EOK) {
        goto done;
    }
    if (!opts->member_is_dn) {
        ret = sdap_group_set_members_rfc2307(state->group, opts, state->entry);
        goto done;
    }
    subreq = sdap_resolve_members_send(state, state->ev, state->id_ctx, state->entry,
                                       opts->nesting_level);
    if (subreq == NULL) {
        ret = ENOMEM;
        goto done;
    }
    tevent_req_set_callback(subreq, sdap_get_group_resolved, req);
    return;
done:
    sdap_req_step(req, ret);
}

static void sdap_get_group_resolved(struct tevent_req *subreq)
{
    struct tevent_req *req = tevent_req_callback_data(subreq, struct tevent_req);
    struct sdap_get_group_state *state = tevent_req_data(req, struct sdap_get_group_state);
    errno_t ret;

    ret = sdap_resolve_members_recv(subreq, state->group);
    if (ret == EOK) {
        ret = sdap_resolve_members_nested(state, subreq, &state->nested, &state->num_nested);
    }
    talloc_free(subreq);
    sdap_req_step(req, ret);
}

errno_t sdap_get_group_recv(TALLOC_CTX *mem_ctx, struct tevent_req *req,
                            struct sdap_group **_group)
{
    struct sdap_get_group_state *state = tevent_req_data(req, struct sdap_get_group_state);

    if (!SSS_ARG_VALID(_group != NULL)) {
        return EINVAL;
    }
    TEVENT_REQ_RETURN_ON_ERROR(req);
    *_group = talloc_steal(mem_ctx, state->group);
    return EOK;
}

errno_t sdap_get_group_nested_recv(TALLOC_CTX *mem_ctx, struct tevent_req *req,
                                   struct sdap_group **_group,
                                   struct sdap_group ***_nested, size_t *_num_nested)
{
    struct sdap_get_group_state *state = tevent_req_data(req, struct sdap_get_group_state);
    struct sdap_group **nested;
    errno_t ret;

    if (!SSS_ARG_VALID(_nested != NULL) || !SSS_ARG_VALID(_num_nested != NULL)) {
        return EINVAL;
    }
    TEVENT_REQ_RETURN_ON_ERROR(req);
    nested = sdap_groups_move(mem_ctx, state->nested, state->num_nested);
    if (nested == NULL) {
        return ENOMEM;
    }
    ret = sdap_get_group_recv(mem_ctx, req, _group);
    if (ret != EOK) {
        talloc_free(nested);
        return ret;
    }
    *_nested = nested;
    *_num_nested = state->num_nested;
    return EOK;
}

struct sdap_group **sdap_groups_move(TALLOC_CTX *mem_ctx, struct sdap_group **groups,
                                     size_t n)
{
    struct sdap_group **out = talloc_array(mem_ctx, struct sdap_group *, n + 1);
    size_t i;

    if (out == NULL) {
        return NULL;
    }
    for (i = 0; i < n; i++) {
        out[i] = talloc_steal(out, groups[i]);
    }
    out[n] = NULL;
    return out;
}
