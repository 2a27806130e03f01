/*
 * The member lists of many groups computed together (see sdap_member_lists.h). Every DN
 * met is a node, keyed by its canonical form: the groups added (read already), then the
 * member DNs read level by level. Level 0 expands the groups asked for (their member
 * values become canonical DNs); the DNs not met before are read at once (sdap_member_dns.c,
 * each DN once for all groups); the groups first met at a level are expanded at the next,
 * down to ldap_group_nesting_level. Each group's lists then come from a walk of the nodes
 * within the nesting level, as sdap_resolve_members gives them: users by name at any
 * depth, groups by name at depth 0, a DN that does not exist or is neither a user nor a
 * group skipped.
 */
#include <assert.h>
#include <strings.h>

#include "util/util.h"
#include "providers/big_group.h"
#include "providers/ldap/sdap_member_dns.h"
#include "providers/ldap/sdap_member_lists.h"

enum ml_kind { ML_NONE, ML_USER, ML_GROUP };

/* One DN met: a group added, or a member of one (read from the directory). */
struct ml_node {
    const char *canon;          /* the map's key */
    const struct sdap_entry *entry; /* NULL: not a DN the directory holds */
    enum ml_kind kind;
    const char *name;           /* user or group name; NULL when the entry is unusable */
    const char **members;       /* canonical member DNs, once expanded */
    const char **member_dns;    /* the same, as the entry spells them */
    size_t num_members;
    bool queued;                /* put in a frontier (expanded there) */
    bool expanded;
    bool big;                   /* too many member values: never expanded */
    size_t mark;                /* last root (index + 1) whose walk met this node */
};

struct sdap_mlists {
    struct sdap_id_ctx *id_ctx;
    const char *who;
    struct sdap_strset *nodes;      /* canonical DN -> struct ml_node */
};

struct sdap_mlists_state {
    struct tevent_context *ev;
    struct sdap_mlists *ml;
    struct sdap_group **groups;
    struct ml_node **roots;         /* aligned with groups */
    size_t num_groups;
    struct ml_node **frontier;
    size_t num_frontier;
    int depth;
    const char **dns;               /* being read, with their canonical forms */
    const char **canons;
    struct ml_node **looked;
    size_t num_dns;
    size_t budget_used;
    const char **any_attrs;
};

static errno_t sdap_mlists_step(struct tevent_req *req);
static void sdap_mlists_read(struct tevent_req *subreq);
static errno_t sdap_mlists_next(struct tevent_req *req);

struct sdap_mlists *sdap_mlists_new(TALLOC_CTX *mem_ctx, struct sdap_id_ctx *id_ctx,
                                    const char *who)
{
    struct sdap_mlists *ml;

    SSS_CHECK_ARG(id_ctx != NULL && who != NULL, NULL);
    ml = talloc_zero(mem_ctx, struct sdap_mlists);
    if (ml == NULL) {
        return NULL;
    }
    ml->id_ctx = id_ctx;
    ml->who = talloc_strdup(ml, who);
    ml->nodes = sdap_strset_new(ml);
    if (ml->who == NULL || ml->nodes == NULL) {
        talloc_free(ml);
        return NULL;
    }
    return ml;
}

/* The node of canon, created (not yet read: entry NULL) when new; *_new tells which. */
static struct ml_node *node_get(struct sdap_mlists *ml, const char *canon, bool *_new)
{
    struct ml_node *node = sdap_strmap_get(ml->nodes, canon);

    *_new = false;
    if (node != NULL) {
        return node;
    }
    node = talloc_zero(ml->nodes, struct ml_node);
    if (node == NULL) {
        return NULL;
    }
    node->canon = talloc_strdup(node, canon);
    if (node->canon == NULL || !sdap_strmap_add(ml->nodes, node->canon, node)) {
        talloc_free(node);
        return NULL;
    }
    *_new = true;
    return node;
}

errno_t sdap_mlists_add(struct sdap_mlists *ml, struct sdap_entry *e,
                        struct sdap_group *group)
{
    struct ml_node *node;
    char *canon;
    bool is_new;

    SSS_CHECK_ARG(ml != NULL && e != NULL, EINVAL);
    canon = sdap_dn_canon(ml, e->dn);
    if (canon == NULL) {
        return EINVAL;
    }
    node = node_get(ml, canon, &is_new);
    talloc_free(canon);
    if (node == NULL) {
        return ENOMEM;
    }
    if (!is_new) {
        return EEXIST;
    }
    node->entry = talloc_steal(node, e);
    if (group != NULL) {
        node->kind = ML_GROUP;
        node->name = group->name;
    }
    return EOK;
}

/* True when entry holds more member values than are resolved here. (AD's ranged
 * "member;range=0-1499" is completed by sdap_search.c before it gets here; an attribute
 * of the member type with another option is not taken as the whole list either.) */
static bool entry_is_big(const struct sdap_entry *e, const char *member_attr,
                         size_t num_values)
{
    size_t len = strlen(member_attr);
    size_t i;

    if (num_values > SSS_BIG_GROUP) {
        return true;
    }
    for (i = 0; i < e->num_attrs; i++) {
        if (strncasecmp(e->attrs[i].name, member_attr, len) == 0
                && e->attrs[i].name[len] == ';') {
            return true;
        }
    }
    return false;
}

/* Fills node->members from its entry's member values (DNs in the entry's memory). */
static errno_t node_expand(struct sdap_mlists *ml, struct ml_node *node)
{
    const char *member_attr = ml->id_ctx->opts->group_map[SDAP_GA_MEMBER];
    const struct sdap_attr *attr;
    char *canon;
    size_t n;
    size_t i;

    assert(node->entry != NULL && node->kind == ML_GROUP && !node->expanded);
    attr = sdap_entry_attr(node->entry, member_attr);
    n = attr != NULL ? attr->num_values : 0;
    node->expanded = true;
    if (entry_is_big(node->entry, member_attr, n)) {
        node->big = true;
        return EOK;
    }
    node->members = talloc_array(node, const char *, n + 1);
    node->member_dns = talloc_array(node, const char *, n + 1);
    if (node->members == NULL || node->member_dns == NULL) {
        return ENOMEM;
    }
    for (i = 0; i < n; i++) {
        canon = sdap_dn_canon(node->members, attr->values[i]);
        if (canon == NULL) {
            DEBUG(SSSDBG_MINOR_FAILURE, "group '%s': member '%.64s' is not a DN: skipped\n",
                  node->name, attr->values[i]);
            continue;
        }
        node->member_dns[node->num_members] = attr->values[i];
        node->members[node->num_members++] = canon;
    }
    node->members[node->num_members] = NULL;
    node->member_dns[node->num_members] = NULL;
    return EOK;
}

/* Depth 0: every group asked for is expanded. */
struct tevent_req *sdap_mlists_send(TALLOC_CTX *mem_ctx, struct tevent_context *ev,
                                    struct sdap_mlists *ml, struct sdap_group **groups,
                                    size_t n)
{
    struct sdap_mlists_state *state;
    struct tevent_req *req;
    struct ml_node *node;
    char *canon;
    size_t i;
    errno_t ret;

    req = tevent_req_create(mem_ctx, &state, struct sdap_mlists_state);
    if (req == NULL) {
        return NULL;
    }
    if (!SSS_ARG_VALID(ev != NULL && ml != NULL && (groups != NULL || n == 0))) {
        return sss_req_post(req, ev, EINVAL);
    }
    state->ev = ev;
    state->ml = ml;
    state->groups = groups;
    state->num_groups = n;
    state->any_attrs = sdap_any_attrs(state, ml->id_ctx->opts);
    state->roots = talloc_array(state, struct ml_node *, n + 1);
    state->frontier = talloc_array(state, struct ml_node *, n + 1);
    if (state->any_attrs == NULL || state->roots == NULL || state->frontier == NULL) {
        return sss_req_post(req, ev, ENOMEM);
    }
    for (i = 0; i < n; i++) {
        canon = sdap_dn_canon(state, groups[i]->orig_dn);
        node = canon != NULL ? sdap_strmap_get(ml->nodes, canon) : NULL;
        talloc_free(canon);
        if (node == NULL || node->kind != ML_GROUP) {
            return sss_req_post(req, ev, EINVAL);   /* not added: the caller's bug */
        }
        state->roots[i] = node;
        if (!node->queued) {
            node->queued = true;
            state->frontier[state->num_frontier++] = node;
        }
    }
    ret = sdap_mlists_step(req);
    if (ret != EAGAIN) {
        return sss_req_post(req, ev, ret);
    }
    return req;
}

/* Expands the frontier and reads the member DNs not met before. EAGAIN: a read is under
 * way; EOK: done (the member lists are set, or the groups are left without). */
static errno_t sdap_mlists_step(struct tevent_req *req)
{
    struct sdap_mlists_state *state = tevent_req_data(req, struct sdap_mlists_state);
    struct sdap_mlists *ml = state->ml;
    struct tevent_req *subreq;
    struct ml_node *node;
    struct ml_node *m;
    size_t total = 0;
    size_t i;
    size_t k;
    bool is_new;
    errno_t ret;

    for (i = 0; i < state->num_frontier; i++) {
        node = state->frontier[i];
        if (!node->expanded) {
            ret = node_expand(ml, node);
            if (ret != EOK) {
                return ret;
            }
        }
        total += node->num_members;
    }
    talloc_free(state->dns);
    talloc_free(state->canons);
    talloc_free(state->looked);
    state->dns = talloc_array(state, const char *, total + 1);
    state->canons = talloc_array(state, const char *, total + 1);
    state->looked = talloc_array(state, struct ml_node *, total + 1);
    state->num_dns = 0;
    if (state->dns == NULL || state->canons == NULL || state->looked == NULL) {
        return ENOMEM;
    }
    for (i = 0; i < state->num_frontier; i++) {
        node = state->frontier[i];
        for (k = 0; k < node->num_members; k++) {
            m = node_get(ml, node->members[k], &is_new);
            if (m == NULL) {
                return ENOMEM;
            }
            if (!is_new) {
                continue;       /* read already, or one of the groups added */
            }
            state->looked[state->num_dns] = m;
            state->canons[state->num_dns] = m->canon;
            state->dns[state->num_dns++] = node->member_dns[k];
        }
    }
    state->dns[state->num_dns] = NULL;
    state->canons[state->num_dns] = NULL;
    state->budget_used += state->num_dns;
    if (state->budget_used > SDAP_MLISTS_BUDGET) {
        DEBUG(SSSDBG_MINOR_FAILURE, "%s: more than %d member DNs in its groups: the groups "
              "are left without members\n", ml->who, SDAP_MLISTS_BUDGET);
        return EOK;
    }
    if (state->num_dns == 0) {
        return sdap_mlists_next(req);
    }
    DEBUG(SSSDBG_TRACE_FUNC, "%s: depth %d: reading %zu member DN(s)\n", ml->who,
          state->depth, state->num_dns);
    subreq = sdap_member_dns_send(state, state->ev, ml->id_ctx, state->dns, state->canons,
                                  state->num_dns, state->any_attrs);
    if (subreq == NULL) {
        return ENOMEM;
    }
    tevent_req_set_callback(subreq, sdap_mlists_read, req);
    return EAGAIN;
}

static void sdap_mlists_read(struct tevent_req *subreq)
{
    struct tevent_req *req = tevent_req_callback_data(subreq, struct tevent_req);
    struct sdap_mlists_state *state = tevent_req_data(req, struct sdap_mlists_state);
    const struct sdap_options *opts = state->ml->id_ctx->opts;
    struct sdap_entry **entries = NULL;
    struct sdap_user *user;
    struct sdap_group *group;
    struct ml_node *node;
    size_t i;
    errno_t ret;

    ret = sdap_member_dns_recv(state, subreq, &entries);
    talloc_free(subreq);
    if (ret == ENOMEM) {
        goto done;
    }
    if (ret != EOK) {
        /* The groups themselves are known: they go without members. */
        DEBUG(SSSDBG_OP_FAILURE, "%s: the members of its groups could not be read [%d]: "
              "%s: the groups are left without members\n", state->ml->who, ret,
              sss_strerror(ret));
        ret = EOK;
        goto done;
    }
    for (i = 0; i < state->num_dns; i++) {
        node = state->looked[i];
        if (entries[i] == NULL) {
            continue;   /* absent: skipped as a member, like a group lookup does */
        }
        node->entry = talloc_steal(node, entries[i]);
        /* The kinds and names a group lookup gives its members (sdap_groups.c). */
        if (sdap_entry_has_oc(node->entry, opts->user_map[SDAP_UA_OC])) {
            node->kind = ML_USER;
            user = NULL;
            ret = sdap_parse_user(node, opts, node->entry, &user);
            if (ret == ENOMEM) {
                goto done;
            }
            node->name = ret == EOK ? user->name : NULL;
        } else if (sdap_entry_has_oc(node->entry, opts->group_map[SDAP_GA_OC])) {
            group = NULL;
            ret = sdap_parse_group(node, opts, node->entry, &group);
            if (ret == ENOMEM) {
                goto done;
            }
            if (ret == EOK) {
                node->kind = ML_GROUP;
                node->name = group->name;
            }
        }
    }
    ret = sdap_mlists_next(req);
done:
    talloc_free(entries);
    sdap_req_step(req, ret);
}

/* The member lists of root ri, as sdap_resolve_members gives them, from the nodes read.
 * ENOENT: a group it needs expanded was not (big): root stays without members. */
static errno_t root_members(struct sdap_mlists_state *state, size_t ri)
{
    const int nesting = state->ml->id_ctx->opts->nesting_level;
    struct ml_node *root = state->roots[ri];
    TALLOC_CTX *tmp_ctx;
    struct sdap_strset *users;
    struct sdap_strset *groups;
    struct ml_node **cur;
    struct ml_node **next;
    struct ml_node **swap;
    struct ml_node *f;
    struct ml_node *m;
    size_t num_cur = 1;
    size_t num_next;
    size_t cap = 1;
    size_t mark = ri + 1;
    size_t i;
    size_t k;
    int depth = 0;
    errno_t ret;

    tmp_ctx = talloc_new(NULL);
    if (tmp_ctx == NULL) {
        return ENOMEM;
    }
    users = sdap_strset_new(tmp_ctx);
    groups = sdap_strset_new(tmp_ctx);
    cur = talloc_array(tmp_ctx, struct ml_node *, 1);
    next = NULL;
    if (users == NULL || groups == NULL || cur == NULL) {
        ret = ENOMEM;
        goto done;
    }
    root->mark = mark;
    cur[0] = root;
    while (num_cur > 0) {
        num_next = 0;
        for (i = 0; i < num_cur; i++) {
            f = cur[i];
            if (!f->expanded || f->big) {
                ret = ENOENT;
                goto done;
            }
            for (k = 0; k < f->num_members; k++) {
                m = sdap_strmap_get(state->ml->nodes, f->members[k]);
                assert(m != NULL);
                if (m->mark == mark) {
                    continue;
                }
                m->mark = mark;
                if (m->kind == ML_USER && m->name != NULL) {
                    sdap_strset_add(users, m->name);
                } else if (m->kind == ML_GROUP) {
                    if (depth == 0) {
                        sdap_strset_add(groups, m->name);
                    }
                    if (depth + 1 > nesting) {
                        continue;
                    }
                    if (num_next == cap || next == NULL) {
                        cap = num_next + f->num_members + 1;
                        next = talloc_realloc(tmp_ctx, next, struct ml_node *, cap);
                        if (next == NULL) {
                            ret = ENOMEM;
                            goto done;
                        }
                    }
                    next[num_next++] = m;
                }
            }
        }
        swap = cur;
        cur = next;
        next = swap;
        cap = talloc_array_length(next);
        num_cur = num_next;
        depth++;
    }
    ret = sdap_group_set_members(state->groups[ri], users, groups);
    if (ret == EOK) {
        state->groups[ri]->members_complete = true;
    }
done:
    talloc_free(tmp_ctx);
    return ret;
}

/* The next level's frontier (the groups first met at this one), or the lists. */
static errno_t sdap_mlists_next(struct tevent_req *req)
{
    struct sdap_mlists_state *state = tevent_req_data(req, struct sdap_mlists_state);
    struct ml_node **next = NULL;
    struct ml_node *node;
    struct ml_node *m;
    size_t num_next = 0;
    size_t complete = 0;
    size_t i;
    size_t k;
    errno_t ret;

    if (state->depth + 1 <= state->ml->id_ctx->opts->nesting_level) {
        next = talloc_array(state, struct ml_node *, state->num_dns + 1);
        if (next == NULL) {
            return ENOMEM;
        }
        for (i = 0; i < state->num_frontier; i++) {
            node = state->frontier[i];
            for (k = 0; k < node->num_members; k++) {
                m = sdap_strmap_get(state->ml->nodes, node->members[k]);
                if (m == NULL || m->kind != ML_GROUP || m->queued) {
                    continue;
                }
                m->queued = true;
                next[num_next++] = m;
            }
        }
    }
    talloc_free(state->frontier);
    state->frontier = next;
    state->num_frontier = num_next;
    state->depth++;
    if (num_next > 0) {
        return sdap_mlists_step(req);
    }
    for (i = 0; i < state->num_groups; i++) {
        ret = root_members(state, i);
        if (ret == ENOENT) {
            continue;
        }
        if (ret != EOK) {
            return ret;
        }
        complete++;
    }
    DEBUG(SSSDBG_TRACE_FUNC, "%s: %zu of %zu group(s) with their members, %zu member DN(s) "
          "read\n", state->ml->who, complete, state->num_groups, state->budget_used);
    return EOK;
}

errno_t sdap_mlists_recv(struct tevent_req *req, size_t *_read)
{
    struct sdap_mlists_state *state = tevent_req_data(req, struct sdap_mlists_state);

    TEVENT_REQ_RETURN_ON_ERROR(req);
    if (_read != NULL) {
        *_read = state->budget_used;
    }
    return EOK;
}
