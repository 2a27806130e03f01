/*
 * The member lists of enumerated groups of the DN-member schemas (rfc2307bis, ...), made
 * the same as a lookup of each group by name gives them (sdap_groups.c): users flattened
 * through nested groups down to ldap_group_nesting_level, loops cut, direct member groups
 * listed. Enumeration has every group of the search already, so instead of resolving each
 * group on its own (searches per group and level) it builds one graph for all of them:
 *
 *   1. every enumerated group is a node, known by its canonical DN, with its member DNs;
 *   2. the member DNs no node holds are read in rounds (sdap_member_dns: OR-filter batches,
 *      base lookups for the rest); a DN read as a user (the user object class, a usable
 *      entry) is a user node, as a group a group node, anything else nothing. A group node
 *      first met at round r lies r + 1 hops from the nearest enumerated group; its own
 *      members are read at the next round only when that is within the nesting level (no
 *      group of the enumeration needs them otherwise);
 *   3. each enumerated group walks the graph with the walker every member list comes
 *      from (sdap_member_walk.c), so its lists are those of a lookup by name.
 *
 * The CPU work (canonical forms of every member DN, the walks) is done in slices of about
 * 10 ms (SDAP_ENUM_WORK_PER_TURN) with a loop turn in between, so a directory of big groups
 * never holds the back-end's loop for long.
 */
#include <assert.h>

#include "util/util.h"
#include "providers/ldap/sdap_member_dns.h"
#include "providers/ldap/sdap_member_walk.h"

/* Work per loop turn: a member visited by a walk costs 1, a member DN put in canonical
 * form (ldap_str2dn and back) SDAP_ENUM_CANON_COST: about 10 ms per turn. */
#define SDAP_ENUM_WORK_PER_TURN 20000
#define SDAP_ENUM_CANON_COST 10
/* The loop turn between slices: a timer this far ahead lets tevent poll first. */
#define SDAP_ENUM_YIELD_USEC 100

struct enum_node {
    struct sdap_mw_node mw;             /* first: the walker's view. Groups whose members
                                         * were read are expanded, members aligned with
                                         * their member values */
    const struct sdap_entry *entry;     /* groups: where the member DNs come from */
};

enum enum_phase { PH_CANON, PH_CLASSIFY, PH_WALK };

struct sdap_enum_members_state {
    struct tevent_context *ev;
    struct sdap_id_ctx *id_ctx;
    const struct sdap_options *opts;
    struct sdap_group **groups;
    size_t num_groups;
    struct enum_node **tops;            /* the node of each group (NULL: DN unusable) */
    struct sdap_strset *nodes;          /* canonical DN -> struct enum_node */
    struct enum_node **expand;          /* groups whose members this round reads */
    size_t num_expand;
    int round;
    enum enum_phase phase;
    size_t pos;                         /* resume point of the phase under way */
    size_t pos2;
    const char **dns;                   /* being read */
    const char **canons;
    struct enum_node **pending;         /* their nodes, kind known once read */
    struct sdap_entry **read;           /* what the round read, aligned with dns */
    struct enum_node **next;            /* groups met this round, expanded next round */
    size_t num_next;
    size_t num_dns;
    const char **attrs;
    struct sdap_mw *walker;
};

static void sdap_enum_members_work(struct tevent_req *req);
static void sdap_enum_members_read(struct tevent_req *subreq);
static errno_t round_start(struct sdap_enum_members_state *state);

static struct enum_node *node_new(struct sdap_enum_members_state *state, const char *canon,
                                  enum sdap_mw_kind kind)
{
    struct enum_node *node = talloc_zero(state->nodes, struct enum_node);

    if (node == NULL || !sdap_strmap_add(state->nodes, canon, node)) {
        talloc_free(node);
        return NULL;
    }
    node->mw.kind = kind;
    return node;
}

/* Adds node to the groups whose members are read at this round. */
static errno_t expand_add(struct sdap_enum_members_state *state, struct enum_node *node)
{
    struct enum_node **e;

    e = talloc_realloc(state, state->expand, struct enum_node *, state->num_expand + 1);
    if (e == NULL) {
        return ENOMEM;
    }
    state->expand = e;
    state->expand[state->num_expand++] = node;
    return EOK;
}

struct tevent_req *sdap_enum_members_send(TALLOC_CTX *mem_ctx, struct tevent_context *ev,
                                          struct sdap_id_ctx *id_ctx,
                                          struct sdap_group **groups,
                                          struct sdap_entry **entries, size_t n)
{
    struct sdap_enum_members_state *state;
    struct tevent_req *req;
    char *canon;
    size_t i;
    errno_t ret;

    req = tevent_req_create(mem_ctx, &state, struct sdap_enum_members_state);
    if (!SDAP_OP_VALID(req, ev, id_ctx)) {
        return req;     /* NULL, or failing with EINVAL */
    }
    tevent_req_defer_callback(req, ev);
    state->ev = ev;
    state->id_ctx = id_ctx;
    state->opts = id_ctx->opts;
    state->groups = groups;
    state->num_groups = n;
    state->nodes = sdap_strset_new(state);
    state->tops = talloc_zero_array(state, struct enum_node *, n + 1);
    state->attrs = sdap_any_attrs(state, id_ctx->opts);
    if (state->nodes == NULL || state->tops == NULL || state->attrs == NULL) {
        ret = ENOMEM;
        goto done;
    }
    for (i = 0; i < n; i++) {
        canon = sdap_dn_canon(state, groups[i]->orig_dn);
        if (canon == NULL) {
            continue;       /* cannot be a member of anything; keeps its own members */
        }
        state->tops[i] = node_new(state, canon, SDAP_MW_GROUP);
        talloc_free(canon);
        if (state->tops[i] == NULL) {
            ret = ENOMEM;
            goto done;
        }
        state->tops[i]->mw.name = groups[i]->name;
        state->tops[i]->entry = entries[i];
        ret = expand_add(state, state->tops[i]);
        if (ret != EOK) {
            goto done;
        }
    }
    state->phase = PH_CANON;
    ret = round_start(state);
    if (ret != EOK) {
        goto done;
    }
    sdap_enum_members_work(req);
    return req;
done:
    return sss_req_post(req, ev, ret);
}

static void sdap_enum_members_turn(struct tevent_context *ev, struct tevent_timer *te,
                                   struct timeval now, void *pvt)
{
    sdap_enum_members_work(talloc_get_type_abort(pvt, struct tevent_req));
}

/* Room for this round's unknown DNs (at most every member value of its groups). */
static errno_t round_start(struct sdap_enum_members_state *state)
{
    size_t total = 0;
    size_t i;

    for (i = 0; i < state->num_expand; i++) {
        const struct sdap_attr *attr =
            sdap_entry_attr(state->expand[i]->entry, state->opts->group_map[SDAP_GA_MEMBER]);
        total += attr != NULL ? attr->num_values : 0;
    }
    talloc_free(state->dns);
    talloc_free(state->pending);
    state->num_dns = 0;
    state->dns = talloc_array(state, const char *, total + 1);
    state->canons = talloc_array(state->dns, const char *, total + 1);
    state->pending = talloc_array(state, struct enum_node *, total + 1);
    if (state->dns == NULL || state->canons == NULL || state->pending == NULL) {
        return ENOMEM;
    }
    state->dns[0] = NULL;
    state->canons[0] = NULL;
    return EOK;
}

/* Links the member values of this round's groups to nodes, by canonical DN: a DN no node
 * holds yet gets one, read this round (state->dns). *budget counts down; EAGAIN: out of
 * budget. */
static errno_t canon_step(struct sdap_enum_members_state *state, size_t *budget)
{
    const char *member_attr = state->opts->group_map[SDAP_GA_MEMBER];

    for (; state->pos < state->num_expand; state->pos++, state->pos2 = 0) {
        struct enum_node *g = state->expand[state->pos];
        const struct sdap_attr *attr = sdap_entry_attr(g->entry, member_attr);
        size_t nv = attr != NULL ? attr->num_values : 0;

        if (state->pos2 == 0) {
            g->mw.members = talloc_zero_array(g, struct sdap_mw_node *, nv + 1);
            if (g->mw.members == NULL) {
                return ENOMEM;
            }
            g->mw.num_members = nv;
            g->mw.expanded = true;
        }
        for (; state->pos2 < nv; state->pos2++) {
            struct enum_node *m;
            char *canon;

            if (*budget < SDAP_ENUM_CANON_COST) {
                return EAGAIN;
            }
            *budget -= SDAP_ENUM_CANON_COST;
            canon = sdap_dn_canon(state->canons, attr->values[state->pos2]);
            if (canon == NULL) {
                continue;       /* not a DN: skipped, as by name */
            }
            m = sdap_strmap_get(state->nodes, canon);
            if (m == NULL) {
                m = node_new(state, canon, SDAP_MW_NONE);
                if (m == NULL) {
                    return ENOMEM;
                }
                state->dns[state->num_dns] = attr->values[state->pos2];
                state->canons[state->num_dns] = canon;
                state->pending[state->num_dns++] = m;
                state->dns[state->num_dns] = NULL;
                state->canons[state->num_dns] = NULL;
            } else {
                talloc_free(canon);
            }
            g->mw.members[state->pos2] = &m->mw;
        }
    }
    return EOK;
}

/* The walk from tops[i]: its member lists, as sdap_resolve_members gives them. Every
 * group within the nesting level of a top was expanded (classify_step), so no ENOENT. */
static errno_t walk_one(struct sdap_enum_members_state *state, size_t i, size_t *budget)
{
    if (state->tops[i] == NULL) {
        return EOK;
    }
    return sdap_mw_group_members(state->walker, &state->tops[i]->mw, state->groups[i],
                                 budget);
}

/* What each DN read this round is (as sdap_resolve_members: a user entry, else a group
 * entry, else nothing); *budget counts down, EAGAIN: out of budget. Groups within the
 * nesting level go to state->next. */
static errno_t classify_step(struct sdap_enum_members_state *state, size_t *budget)
{
    const struct sdap_options *opts = state->opts;

    for (; state->pos < state->num_dns; state->pos++) {
        struct sdap_entry *e = state->read[state->pos];
        struct enum_node *node = state->pending[state->pos];
        struct sdap_user *user = NULL;
        struct sdap_group *group = NULL;

        if (*budget < SDAP_ENUM_CANON_COST) {
            return EAGAIN;
        }
        *budget -= SDAP_ENUM_CANON_COST;
        if (e == NULL) {
            continue;                   /* no such entry */
        }
        state->read[state->pos] = NULL;
        if (sdap_entry_has_oc(e, opts->user_map[SDAP_UA_OC])) {
            if (sdap_parse_user(NULL, opts, e, &user) == EOK) {
                node->mw.kind = SDAP_MW_USER;
                node->mw.name = talloc_steal(node, user->name);
                talloc_free(user);
            }
        } else if (sdap_entry_has_oc(e, opts->group_map[SDAP_GA_OC])) {
            if (sdap_parse_group(node, opts, e, &group) == EOK) {
                node->mw.kind = SDAP_MW_GROUP;
                node->mw.name = group->name;
                node->entry = talloc_steal(node, e);
                e = NULL;
                if (state->round + 1 <= opts->nesting_level) {
                    state->next[state->num_next++] = node;
                }
            }
        }
        talloc_free(e);
    }
    return EOK;
}

static errno_t walk_setup(struct sdap_enum_members_state *state)
{
    state->walker = sdap_mw_new(state, state->opts->nesting_level);
    if (state->walker == NULL) {
        return ENOMEM;
    }
    state->pos = 0;
    state->phase = PH_WALK;
    return EOK;
}

static void sdap_enum_members_work(struct tevent_req *req)
{
    struct sdap_enum_members_state *state =
        tevent_req_data(req, struct sdap_enum_members_state);
    size_t budget = SDAP_ENUM_WORK_PER_TURN;
    struct tevent_req *subreq;
    errno_t ret = EOK;

    if (state->phase == PH_CANON) {
        ret = canon_step(state, &budget);
        if (ret != EOK) {
            goto done;
        }
        if (state->num_dns > 0) {
            DEBUG(SSSDBG_TRACE_FUNC, "enumeration round %d: reading %zu member DN(s) of "
                  "%zu group(s)\n", state->round, state->num_dns, state->num_expand);
            subreq = sdap_member_dns_send(state, state->ev, state->id_ctx, state->dns,
                                          state->canons, state->num_dns, state->attrs);
            if (subreq == NULL) {
                ret = ENOMEM;
                goto done;
            }
            tevent_req_set_callback(subreq, sdap_enum_members_read, req);
            return;
        }
        /* Every member of this round is known already: the graph is complete. */
        ret = walk_setup(state);
        if (ret != EOK) {
            goto done;
        }
    }
    if (state->phase == PH_CLASSIFY) {
        ret = classify_step(state, &budget);
        if (ret != EOK) {
            goto done;
        }
        talloc_zfree(state->read);
        talloc_free(state->expand);
        state->expand = state->next;
        state->num_expand = state->num_next;
        state->next = NULL;
        state->num_next = 0;
        state->round++;
        state->pos = 0;
        state->pos2 = 0;
        if (state->num_expand > 0) {
            ret = round_start(state);
            if (ret == EOK) {
                state->phase = PH_CANON;
                ret = EAGAIN;       /* the next round starts at the next turn */
            }
        } else {
            ret = walk_setup(state);
        }
        if (ret != EOK) {
            goto done;
        }
    }
    assert(state->phase == PH_WALK);
    for (; state->pos < state->num_groups; state->pos++) {
        if (budget == 0) {
            ret = EAGAIN;
            goto done;
        }
        ret = walk_one(state, state->pos, &budget);
        if (ret != EOK) {
            goto done;
        }
    }
    tevent_req_done(req);
    return;
done:
    if (ret == EAGAIN) {
        if (tevent_add_timer(state->ev, state,
                             tevent_timeval_current_ofs(0, SDAP_ENUM_YIELD_USEC),
                             sdap_enum_members_turn, req) != NULL) {
            return;
        }
        ret = ENOMEM;
    }
    tevent_req_error(req, ret);
}

/* This round's DNs were read: what they are is settled slice by slice (PH_CLASSIFY). */
static void sdap_enum_members_read(struct tevent_req *subreq)
{
    struct tevent_req *req = tevent_req_callback_data(subreq, struct tevent_req);
    struct sdap_enum_members_state *state =
        tevent_req_data(req, struct sdap_enum_members_state);
    errno_t ret;

    ret = sdap_member_dns_recv(state, subreq, &state->read);
    talloc_free(subreq);
    if (ret != EOK) {
        tevent_req_error(req, ret);
        return;
    }
    state->next = talloc_array(state, struct enum_node *, state->num_dns + 1);
    if (state->next == NULL) {
        tevent_req_error(req, ENOMEM);
        return;
    }
    state->num_next = 0;
    state->pos = 0;
    state->phase = PH_CLASSIFY;
    sdap_enum_members_work(req);
}

errno_t sdap_enum_members_recv(struct tevent_req *req)
{
    TEVENT_REQ_RETURN_ON_ERROR(req);
    return EOK;
}
