/*
 * rfc2307bis initgroups for `id` (sdap_initgroups_primary_send): the groups come back
 * with the member lists their own lookups would give, so `id`'s getgrgid of each group
 * costs the directory nothing.
 *
 * The upward walk reads each group's member DNs (it searched the groups anyway). The DNs
 * among them that are not already known (the user, the groups found) are resolved by
 * their RDN value, as sdap_member_dns.c does, but riding along in the walk's next search:
 * (|<the walk's hop filter><(&(objectClass=*)(|(uid=a)(uid=b)))><(...(cn=g)...)>), when
 * the user and group search bases are the same and no group search filter is set (the
 * walk's own entries are then told apart by their member values). What is left after the
 * walk (the last hop's new members, the nested groups below, DNs of another shape) is
 * resolved level by level with sdap_member_dns_send. A group met on the way down is
 * expanded while its distance from the nearest walk group is within the nesting level.
 *
 * Then each walk group's own lookup (sdap_groups.c) is replayed on the graph with the
 * member-graph walker (sdap_member_walk.c): a DN taken once by its shortest path, users
 * flattened, direct member groups listed, groups expanded within ldap_group_nesting_level.
 * A group whose replay needs members the graph did not read is left without a member list
 * (its own lookup runs later): one of more than SSS_BIG_GROUP member values is never
 * expanded, and all of them are left so when the graph grows past SDAP_IG_GRAPH_MAX
 * member values in all.
 */

#include "util/util.h"
#include "providers/big_group.h"
#include "providers/ldap/sdap_initgroups_graph.h"
#include "providers/ldap/sdap_member_dns.h"
#include "providers/ldap/sdap_member_walk.h"

/* Member values (summed over the groups expanded) up to which the graph is kept. */
#define SDAP_IG_GRAPH_MAX 200000
/* A group with more member values than SSS_BIG_GROUP is not expanded: the back-end stores
 * a group that big without its members anyway (BE_BIG_GROUP), so resolving them would be
 * wasted; its own lookup (and that of a group holding it) reads them. */
/* Member values the replays look at in all (each walks its group's graph within the
 * nesting level, so groups sharing big subgroups cost roots x subgroup): past it, the
 * groups not replayed yet are left to their own lookups. 5,000 flat groups cost 30,000. */
#define SDAP_IG_REPLAY_MAX 2000000

struct ig_node {
    struct sdap_mw_node mw;         /* first: the walker's view; expanded: its member DNs
                                     * were read (every group's are); mw.members is linked
                                     * before the replays */
    struct sdap_group *group;
    const char **canons;            /* canonical member DNs, when expanded (g->memo's) */
    const char **raw;               /* the same as the entry gave them */
    size_t num_canons;
    size_t dist;                    /* from the nearest walk group (ig_reach), or SIZE_MAX */
};

struct sdap_ig_graph {
    const struct sdap_options *opts;
    struct sdap_strset *nodes;      /* canonical DN -> struct ig_node */
    struct sdap_strset *asked;      /* canonical DNs known or queued: never queued again */
    const char **pend_dn;           /* queued: the DN as given, canonical */
    const char **pend_canon;
    size_t num_pend;
    struct sdap_strset *flight;     /* canonical DNs asked by a fold */
    struct ig_node **all;           /* every group node */
    size_t num_all;
    struct ig_node **roots;         /* the walk's groups */
    size_t num_roots;
    struct ig_node **work;          /* groups whose members ig_collect (re)scans */
    size_t num_work;
    struct sdap_strset *want;       /* canonical DN not resolved -> its shortest distance */
    struct sdap_strset *memo;       /* DN as the server gave it -> canonical DN */
    size_t values;
    bool off;                       /* too big (or odd): no member lists at all */
};

struct sdap_ig_graph *sdap_ig_graph_new(TALLOC_CTX *mem_ctx, const struct sdap_options *opts,
                                        const char *user_dn, const char *user_name)
{
    struct sdap_ig_graph *g = talloc_zero(mem_ctx, struct sdap_ig_graph);
    struct ig_node *user;
    char *canon;

    if (g == NULL) {
        return NULL;
    }
    g->opts = opts;
    g->nodes = sdap_strset_new(g);
    g->asked = sdap_strset_new(g);
    g->flight = sdap_strset_new(g);
    g->want = sdap_strset_new(g);
    g->memo = sdap_strset_new(g);
    user = talloc_zero(g, struct ig_node);
    if (g->nodes == NULL || g->asked == NULL || g->flight == NULL || g->want == NULL
            || g->memo == NULL || user == NULL) {
        talloc_free(g);
        return NULL;
    }
    user->mw.kind = SDAP_MW_USER;
    user->dist = SIZE_MAX;
    user->mw.name = talloc_strdup(user, user_name);
    canon = sdap_dn_canon(g, user_dn);
    if (user->mw.name == NULL || canon == NULL) {
        /* A DN that does not parse cannot be matched: no member lists. */
        g->off = true;
        return g;
    }
    sdap_strset_add(g->asked, canon);
    if (!sdap_strmap_add(g->nodes, canon, user)) {
        g->off = true;
    }
    talloc_free(canon);
    return g;
}

const char *sdap_ig_graph_canon(struct sdap_ig_graph *g, const char *dn)
{
    char *canon;

    canon = sdap_strmap_get(g->memo, dn);
    if (canon != NULL || dn == NULL) {
        return canon;
    }
    canon = sdap_dn_canon(g->memo, dn);
    if (canon != NULL && !sdap_strmap_add(g->memo, dn, canon)) {
        talloc_free(canon);
        return NULL;        /* ENOMEM: taken as not a DN */
    }
    return canon;
}

static errno_t ig_queue(struct sdap_ig_graph *g, const char *dn, const char *canon)
{
    const char *key;

    if (sdap_strset_has(g->asked, canon)) {
        return EOK;
    }
    key = sdap_strset_intern(g->asked, canon);
    g->pend_dn = talloc_realloc(g, g->pend_dn, const char *, g->num_pend + 1);
    g->pend_canon = talloc_realloc(g, g->pend_canon, const char *, g->num_pend + 1);
    if (key == NULL || g->pend_dn == NULL || g->pend_canon == NULL) {
        return ENOMEM;
    }
    g->pend_dn[g->num_pend] = talloc_strdup(g->pend_dn, dn);
    if (g->pend_dn[g->num_pend] == NULL) {
        return ENOMEM;
    }
    g->pend_canon[g->num_pend++] = key;
    return EOK;
}

/* Records a group node's member DNs from e (ig_collect decides which to resolve). */
static errno_t ig_expand(struct sdap_ig_graph *g, struct ig_node *node,
                         const struct sdap_entry *e)
{
    const struct sdap_attr *attr = sdap_entry_attr(e, g->opts->group_map[SDAP_GA_MEMBER]);
    size_t n = attr != NULL ? attr->num_values : 0;
    struct ig_node **all;
    const char *canon;
    size_t k;

    if (n > SSS_BIG_GROUP) {
        return EOK;
    }
    g->values += n;
    if (g->values > SDAP_IG_GRAPH_MAX) {
        g->off = true;
        return EOK;
    }
    all = talloc_realloc(g, g->all, struct ig_node *, g->num_all + 1);
    node->canons = talloc_zero_array(node, const char *, n + 1);
    node->raw = talloc_zero_array(node, const char *, n + 1);
    if (all == NULL || node->canons == NULL || node->raw == NULL) {
        return ENOMEM;
    }
    g->all = all;
    g->all[g->num_all++] = node;
    node->mw.expanded = true;
    for (k = 0; k < n; k++) {
        /* A DN is named by many groups (the user by all of its): parsed once. */
        canon = sdap_ig_graph_canon(g, attr->values[k]);
        if (canon == NULL) {
            continue;       /* not a DN: a lookup skips it too */
        }
        node->raw[node->num_canons] = talloc_strdup(node->raw, attr->values[k]);
        if (node->raw[node->num_canons] == NULL) {
            return ENOMEM;
        }
        node->canons[node->num_canons++] = canon;
    }
    return EOK;
}

/* Sets a node's distance from the nearest walk group to dist when that is shorter; a group
 * whose members now matter (within the nesting level) is (re)scanned by ig_collect. */
static errno_t ig_reach(struct sdap_ig_graph *g, struct ig_node *node, size_t dist)
{
    struct ig_node **work;

    if (dist >= node->dist) {
        return EOK;
    }
    node->dist = dist;
    if (!node->mw.expanded || dist > (size_t)g->opts->nesting_level) {
        return EOK;
    }
    work = talloc_realloc(g, g->work, struct ig_node *, g->num_work + 1);
    if (work == NULL) {
        return ENOMEM;
    }
    g->work = work;
    g->work[g->num_work++] = node;
    return EOK;
}

/* The shortest distance at which a DN not resolved yet was named (SIZE_MAX: never). */
static size_t ig_want_dist(struct sdap_ig_graph *g, const char *canon)
{
    size_t *dist = sdap_strmap_get(g->want, canon);

    return dist != NULL ? *dist : SIZE_MAX;
}

/* A DN not resolved yet, named at distance dist: queued, its distance kept for ig_take. */
static errno_t ig_want(struct sdap_ig_graph *g, const char *dn, const char *canon,
                       size_t dist)
{
    size_t *old = sdap_strmap_get(g->want, canon);

    if (old == NULL) {
        old = talloc(g->want, size_t);
        if (old == NULL || !sdap_strmap_add(g->want, canon, old)) {
            return ENOMEM;
        }
        *old = dist;
    } else if (dist < *old) {
        *old = dist;
    }
    return ig_queue(g, dn, canon);
}

/* Queues the member DNs a replay may need and nobody asked for yet: those of every group
 * within the nesting level of a walk group. Incremental: only the groups whose distance
 * got shorter since the last call are scanned (the walk adds groups and resolves DNs
 * between calls; a full breadth-first pass each time cost O(hops x graph)). */
static errno_t ig_collect(struct sdap_ig_graph *g)
{
    struct ig_node *n;
    struct ig_node *m;
    size_t k;
    errno_t ret;

    while (!g->off && g->num_work > 0) {
        n = g->work[--g->num_work];
        for (k = 0; k < n->num_canons; k++) {
            m = sdap_strmap_get(g->nodes, n->canons[k]);
            ret = m == NULL ? ig_want(g, n->raw[k], n->canons[k], n->dist + 1)
                            : ig_reach(g, m, n->dist + 1);
            if (ret != EOK) {
                return ret;
            }
        }
    }
    return EOK;
}

errno_t sdap_ig_graph_add_group(struct sdap_ig_graph *g, const struct sdap_entry *e,
                                struct sdap_group *group)
{
    struct ig_node **roots;
    struct ig_node *node;
    const char *canon;
    errno_t ret = EOK;

    SSS_CHECK_ARG(g != NULL && e != NULL && group != NULL, EINVAL);
    if (g->off) {
        return EOK;
    }
    if (sdap_entry_has_oc(e, g->opts->user_map[SDAP_UA_OC])) {
        g->off = true;      /* a lookup would take it as a user: not replayed here */
        return EOK;
    }
    canon = sdap_ig_graph_canon(g, e->dn);
    if (canon == NULL) {
        return EOK;
    }
    node = sdap_strmap_get(g->nodes, canon);
    if (node == NULL) {
        node = talloc_zero(g->nodes, struct ig_node);
        if (node == NULL || !sdap_strmap_add(g->nodes, canon, node)) {
            return ENOMEM;
        }
        node->dist = SIZE_MAX;
        sdap_strset_add(g->asked, canon);
    }
    node->mw.kind = SDAP_MW_GROUP;
    node->group = group;
    node->mw.name = group->name;
    roots = talloc_realloc(g, g->roots, struct ig_node *, g->num_roots + 1);
    if (roots == NULL) {
        return ENOMEM;
    }
    g->roots = roots;
    g->roots[g->num_roots++] = node;
    if (!node->mw.expanded) {
        ret = ig_expand(g, node, e);
        if (ret != EOK) {
            return ret;
        }
    }
    return ig_reach(g, node, 0);
}

bool sdap_ig_graph_member_of(struct sdap_ig_graph *g, const struct sdap_entry *e,
                             struct sdap_strset *canons)
{
    const struct sdap_attr *attr = sdap_entry_attr(e, g->opts->group_map[SDAP_GA_MEMBER]);
    const char *canon;
    size_t k;

    for (k = 0; attr != NULL && k < attr->num_values; k++) {
        canon = sdap_ig_graph_canon(g, attr->values[k]);
        if (canon != NULL && sdap_strset_has(canons, canon)) {
            return true;
        }
    }
    return false;
}

/* A resolved DN into the graph. */
static errno_t ig_take(struct sdap_ig_graph *g, const struct sdap_entry *e, const char *canon)
{
    const struct sdap_options *opts = g->opts;
    struct sdap_user *user = NULL;
    struct ig_node *node;
    errno_t ret;

    if (g->off || sdap_strmap_get(g->nodes, canon) != NULL) {
        return EOK;
    }
    node = talloc_zero(g->nodes, struct ig_node);
    if (node == NULL) {
        return ENOMEM;
    }
    node->dist = SIZE_MAX;
    if (sdap_entry_has_oc(e, opts->user_map[SDAP_UA_OC])) {
        if (sdap_parse_user(node, opts, e, &user) != EOK) {
            goto skip;      /* unusable: not a member (logged) */
        }
        node->mw.kind = SDAP_MW_USER;
        node->mw.name = user->name;
    } else if (sdap_entry_has_oc(e, opts->group_map[SDAP_GA_OC])) {
        if (sdap_parse_group(node, opts, e, &node->group) != EOK) {
            goto skip;
        }
        node->mw.kind = SDAP_MW_GROUP;
        node->mw.name = node->group->name;
    } else {
        goto skip;
    }
    if (!sdap_strmap_add(g->nodes, canon, node)) {
        talloc_free(node);
        return ENOMEM;
    }
    if (node->mw.kind == SDAP_MW_GROUP) {
        ret = ig_expand(g, node, e);
        if (ret != EOK) {
            return ret;
        }
    }
    /* Where it was named: its members matter when that is within the nesting level. */
    return ig_reach(g, node, ig_want_dist(g, canon));
skip:
    talloc_free(node);
    return EOK;
}

errno_t sdap_ig_graph_take(struct sdap_ig_graph *g, const struct sdap_entry *e)
{
    const char *canon;

    SSS_CHECK_ARG(g != NULL && e != NULL, EINVAL);
    canon = sdap_ig_graph_canon(g, e->dn);
    if (canon == NULL || !sdap_strset_has(g->flight, canon)) {
        return EOK;
    }
    return ig_take(g, e, canon);
}

void sdap_ig_graph_fold_done(struct sdap_ig_graph *g)
{
    talloc_free(g->flight);
    g->flight = sdap_strset_new(g);
    if (g->flight == NULL) {
        g->off = true;
    }
}

/* ",<canonical base>" when users and groups are searched under one base and no group
 * filter hides groups the RDN terms would bring; NULL otherwise. */
static char *ig_fold_suffix(TALLOC_CTX *mem_ctx, const struct sdap_options *opts)
{
    char *ucanon;
    char *gcanon;
    char *out = NULL;

    if (opts->groups.filter != NULL || opts->user_base == NULL || opts->group_base == NULL) {
        return NULL;
    }
    ucanon = sdap_dn_canon(mem_ctx, opts->user_base);
    gcanon = sdap_dn_canon(mem_ctx, opts->group_base);
    if (ucanon != NULL && gcanon != NULL && *ucanon != '\0' && strcmp(ucanon, gcanon) == 0) {
        out = talloc_asprintf(mem_ctx, ",%s", ucanon);
    }
    talloc_free(ucanon);
    talloc_free(gcanon);
    return out;
}

static bool ends_with(const char *str, const char *suffix)
{
    size_t ls = strlen(str);
    size_t lx = strlen(suffix);

    return lx < ls && strcmp(str + ls - lx, suffix) == 0;
}

char *sdap_ig_graph_fold(TALLOC_CTX *mem_ctx, struct sdap_ig_graph *g, errno_t *_ret)
{
    const struct sdap_options *opts = g->opts;
    TALLOC_CTX *tmp_ctx;
    const char **uvals;
    const char **gvals;
    size_t nu = 0;
    size_t ng = 0;
    size_t kept = 0;
    const char *fu;
    const char *fg;
    char *suffix;
    char *val;
    char *out = NULL;
    size_t i;

    *_ret = ig_collect(g);
    if (*_ret != EOK || g->off || g->num_pend == 0) {
        return NULL;
    }
    tmp_ctx = talloc_new(NULL);
    uvals = talloc_array(tmp_ctx, const char *, g->num_pend);
    gvals = talloc_array(tmp_ctx, const char *, g->num_pend);
    if (tmp_ctx == NULL || uvals == NULL || gvals == NULL) {
        *_ret = ENOMEM;
        goto done;
    }
    suffix = ig_fold_suffix(tmp_ctx, opts);
    if (suffix == NULL) {
        goto done;
    }
    for (i = 0; i < g->num_pend; i++) {
        bool user = true;

        val = NULL;
        if (nu + ng < SDAP_DN_BATCH && ends_with(g->pend_canon[i], suffix)
                && sdap_strmap_get(g->nodes, g->pend_canon[i]) == NULL) {
            val = sdap_dn_rdn_value(tmp_ctx, g->pend_dn[i], opts->users.name_attr);
            if (val == NULL) {
                user = false;
                val = sdap_dn_rdn_value(tmp_ctx, g->pend_dn[i], opts->groups.name_attr);
            }
        }
        if (val == NULL) {
            /* Stays queued, for the completion. */
            g->pend_dn[kept] = g->pend_dn[i];
            g->pend_canon[kept++] = g->pend_canon[i];
            continue;
        }
        if (!sdap_strset_add(g->flight, g->pend_canon[i])) {
            *_ret = ENOMEM;
            goto done;
        }
        if (user) {
            uvals[nu++] = val;
        } else {
            gvals[ng++] = val;
        }
    }
    g->num_pend = kept;
    if (nu + ng == 0) {
        goto done;
    }
    fu = nu > 0 ? sdap_filter_or(tmp_ctx, "*", opts->users.name_attr, uvals, nu, NULL) : "";
    fg = ng > 0 ? sdap_filter_or(tmp_ctx, "*", opts->groups.name_attr, gvals, ng, NULL) : "";
    out = fu == NULL || fg == NULL ? NULL : talloc_asprintf(mem_ctx, "%s%s", fu, fg);
    if (out == NULL) {
        *_ret = ENOMEM;
    }
done:
    talloc_free(tmp_ctx);
    return out;
}

/* ---- the completion: what is still queued, level by level --------------------------- */

struct sdap_ig_complete_state {
    struct tevent_context *ev;
    struct sdap_id_ctx *id_ctx;
    struct sdap_ig_graph *g;
    const char **attrs;
    const char **dns;               /* this level's, aligned */
    const char **canons;
    size_t n;
};

static errno_t sdap_ig_complete_step(struct tevent_req *req);
static void sdap_ig_complete_done(struct tevent_req *subreq);

struct tevent_req *sdap_ig_graph_complete_send(TALLOC_CTX *mem_ctx, struct tevent_context *ev,
                                               struct sdap_id_ctx *id_ctx,
                                               struct sdap_ig_graph *g)
{
    struct sdap_ig_complete_state *state;
    struct tevent_req *req;
    errno_t ret;

    req = tevent_req_create(mem_ctx, &state, struct sdap_ig_complete_state);
    if (req == NULL) {
        return NULL;
    }
    SSS_CHECK_ARG(ev != NULL && id_ctx != NULL && g != NULL, sss_req_post(req, ev, EINVAL));
    state->ev = ev;
    state->id_ctx = id_ctx;
    state->g = g;
    state->attrs = sdap_any_attrs(state, id_ctx->opts);
    if (state->attrs == NULL) {
        return sss_req_post(req, ev, ENOMEM);
    }
    ret = sdap_ig_complete_step(req);
    if (ret != EAGAIN) {
        return sss_req_post(req, ev, ret);
    }
    return req;
}

/* EAGAIN: a level is being resolved; EOK: nothing left. */
static errno_t sdap_ig_complete_step(struct tevent_req *req)
{
    struct sdap_ig_complete_state *state = tevent_req_data(req,
                                                           struct sdap_ig_complete_state);
    struct sdap_ig_graph *g = state->g;
    struct tevent_req *subreq;
    size_t i;
    errno_t ret;

    talloc_zfree(state->dns);
    state->n = 0;
    ret = ig_collect(g);
    if (ret != EOK) {
        return ret;
    }
    if (g->off || g->num_pend == 0) {
        return EOK;
    }
    /* The queue moves to this level (its strings stay with the graph). */
    state->dns = talloc_array(state, const char *, g->num_pend + 1);
    state->canons = talloc_array(state->dns, const char *, g->num_pend + 1);
    if (state->dns == NULL || state->canons == NULL) {
        return ENOMEM;
    }
    for (i = 0; i < g->num_pend; i++) {
        if (sdap_strmap_get(g->nodes, g->pend_canon[i]) != NULL) {
            continue;       /* found by the walk meanwhile */
        }
        state->dns[state->n] = talloc_steal(state->dns, g->pend_dn[i]);
        state->canons[state->n++] = g->pend_canon[i];
    }
    g->num_pend = 0;
    if (state->n == 0) {
        return EOK;
    }
    state->dns[state->n] = NULL;
    state->canons[state->n] = NULL;
    DEBUG(SSSDBG_TRACE_FUNC, "initgroups: resolving %zu member DN(s) of the groups found\n",
          state->n);
    subreq = sdap_member_dns_send(state, state->ev, state->id_ctx, state->dns, state->canons,
                                  state->n, state->attrs);
    if (subreq == NULL) {
        return ENOMEM;
    }
    tevent_req_set_callback(subreq, sdap_ig_complete_done, req);
    return EAGAIN;
}

static void sdap_ig_complete_done(struct tevent_req *subreq)
{
    struct tevent_req *req = tevent_req_callback_data(subreq, struct tevent_req);
    struct sdap_ig_complete_state *state = tevent_req_data(req,
                                                           struct sdap_ig_complete_state);
    struct sdap_entry **entries = NULL;
    size_t i;
    errno_t ret;

    ret = sdap_member_dns_recv(state, subreq, &entries);
    talloc_free(subreq);
    for (i = 0; ret == EOK && i < state->n; i++) {
        if (entries[i] != NULL) {
            ret = ig_take(state->g, entries[i], state->canons[i]);
        }
    }
    talloc_free(entries);
    if (ret == EOK) {
        ret = sdap_ig_complete_step(req);
    }
    sdap_req_step(req, ret);
}

errno_t sdap_ig_graph_complete_recv(struct tevent_req *req)
{
    TEVENT_REQ_RETURN_ON_ERROR(req);
    return EOK;
}

/* ---- the replay ----------------------------------------------------------------------- */

/* Points an expanded node's members at their nodes (NULL: not read, or unusable). */
static errno_t ig_link(struct sdap_ig_graph *g, struct ig_node *node)
{
    struct ig_node *m;
    size_t k;

    node->mw.members = talloc_zero_array(node, struct sdap_mw_node *, node->num_canons + 1);
    if (node->mw.members == NULL) {
        return ENOMEM;
    }
    for (k = 0; k < node->num_canons; k++) {
        m = sdap_strmap_get(g->nodes, node->canons[k]);
        node->mw.members[k] = m != NULL ? &m->mw : NULL;
    }
    node->mw.num_members = node->num_canons;
    return EOK;
}

errno_t sdap_ig_graph_finish(struct sdap_ig_graph *g)
{
    struct sdap_mw *walker;
    size_t budget = SDAP_IG_REPLAY_MAX;
    size_t num_done = 0;
    size_t i;
    errno_t ret;

    SSS_CHECK_ARG(g != NULL, EINVAL);
    if (g->off) {
        DEBUG(SSSDBG_TRACE_FUNC, "initgroups: groups stored without members (graph too "
              "big)\n");
        return EOK;
    }
    /* The graph is final: member DNs become pointers once, not a lookup per replay. */
    for (i = 0; i < g->num_all; i++) {
        ret = ig_link(g, g->all[i]);
        if (ret != EOK) {
            return ret;
        }
    }
    walker = sdap_mw_new(NULL, g->opts->nesting_level);
    if (walker == NULL) {
        return ENOMEM;
    }
    for (i = 0; i < g->num_roots && budget > 0; i++) {
        ret = sdap_mw_group_members(walker, &g->roots[i]->mw, g->roots[i]->group, &budget);
        if (ret == ENOENT) {
            continue;       /* needs members the graph did not read */
        }
        if (ret != EOK) {
            goto done;
        }
        g->roots[i]->group->members_complete = true;
        num_done++;
    }
    DEBUG(SSSDBG_TRACE_FUNC, "initgroups: %zu of %zu group(s) complete\n", num_done,
          g->num_roots);
    ret = EOK;
done:
    talloc_free(walker);
    return ret;
}
