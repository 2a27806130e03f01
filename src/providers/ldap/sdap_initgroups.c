/*
 * initgroups: a user and every group it belongs to.
 *
 * rfc2307: one (paged) search (&(objectClass=<group oc>)(memberUid=<name>)<filter>), which
 * also reads memberUid: a group's members are those values and nothing else, so each group
 * comes back complete (members_complete) and the back-end stores it as a group lookup
 * would; `id`'s getgrgid of each group then costs the directory nothing. A group with
 * more than SSS_BIG_GROUP values, which the back-end would store without members
 * anyway, has them only counted (sdap_entry_count.c) and comes back without members.
 * AD's membership searches return their groups without member lists (the member
 * prefetch reads them); rfc2307bis's come complete (the graph, below).
 * rfc2307bis: the groups whose member holds the user's DN, then, hop by hop up to
 * ldap_group_nesting_level, the groups whose member holds one of the DNs found at the
 * previous hop, SDAP_FILTER_BATCH DNs OR-ed per search. Each group is taken once (by its
 * canonical DN), which also ends membership loops. Unusable group entries are skipped and
 * not followed.
 * AD: the nested hops follow the groups' memberOf (the backlink AD maintains for member)
 * instead: the parents of the groups found are named in their memberOf values, so a hop
 * reads only the parents not taken yet, by DN, SDAP_FILTER_BATCH per search (not paged:
 * bounded). Searching (member=<group DN>) for every group found cost ceil(N / 50)
 * searches at each hop whatever the nesting, each an OR of 50 terms that Samba evaluates
 * scanning the directory (about a second apiece here): a user in 5,000 flat groups waited
 * minutes, and `id` gave up after 30 s with no group at all.
 * AD with ldap_use_tokengroups: the user's tokenGroups instead (sdap_tokengroups.c), with
 * the searches above only when the server sends none.
 * The user is searched first, unless the caller gives it (sdap_initgroups_user_send: the
 * back-end's fresh cache entry, read seconds earlier by the getpwnam that precedes almost
 * every initgroups), which saves the directory that search.
 * sdap_initgroups_primary_send (rfc2307): the one search is
 * (&(objectClass=<group oc>)(|(memberUid=<name>)(gidNumber=<the user's gid>))<filter>), so
 * the primary group comes complete with the memberships; it counts as a membership only
 * when its memberUid values hold the user (exactly: RFC 2307's memberUid matches
 * caseExactIA5Match), as the plain search would have found it.
 * sdap_initgroups_primary_send, rfc2307bis (not AD): hop 0 is
 * (&(objectClass=<group oc>)(|(member=<user DN>)(gidNumber=<gid>))<filter>); the primary
 * group found by gid alone is not_member and not followed, unless a later hop finds it
 * holding one of the user's groups.
 * rfc2307bis (not AD), every entry point: the hops read the member values, and a graph
 * (sdap_initgroups_graph.c) resolves the member DNs, riding along in the next hop's search
 * where it can, so that the groups come back complete. A login's initgroups used it only
 * since w14: its groups went to the member prefetch instead (a user in 600 groups: the
 * login's 15 operations, then 26 for the prefetch; with the graph the same 15, none after).
 */
#include <inttypes.h>

#include "util/util.h"
#include "providers/big_group.h"
#include "providers/ldap/sdap_private.h"
#include "providers/ldap/sdap_initgroups_graph.h"

struct sdap_initgroups_state {
    struct tevent_context *ev;
    struct sdap_id_ctx *id_ctx;
    struct sdap_user *user;
    struct sdap_search_args args;
    struct sdap_strset *seen;       /* canonical DNs of the groups taken */
    struct sdap_group **groups;
    size_t num_groups;
    const char **frontier;          /* DNs whose parents are searched next */
    size_t num_frontier;
    size_t pos;                     /* next frontier DN to put in a filter */
    const char **next;              /* DNs found at this hop */
    size_t num_next;
    int hop;
    bool with_primary;              /* hop 0 also matches the user's gid */
    bool by_memberof;               /* AD: hops follow memberOf, searched by DN */
    struct sdap_strset *queued;     /* canonical DNs already put in next (by_memberof) */
    /* rfc2307bis with_primary: the groups' members, resolved on the way */
    struct sdap_ig_graph *graph;
    struct sdap_strset *fcanon;     /* canonical DNs of the frontier searched */
    bool folded;                    /* the search in flight also resolves member DNs */
    struct sdap_group *primary;     /* hop 0's group found by gid alone (not_member) */
    const char *primary_canon;
    struct sdap_count_spec big;     /* rfc2307: memberUid lists only counted past it */
};

/* AD's backlink of member, maintained by the DC. */
#define AD_MEMBEROF "memberOf"

static void sdap_initgroups_user_done(struct tevent_req *subreq);
static errno_t sdap_initgroups_start(struct tevent_req *req);
static void sdap_initgroups_tg_done(struct tevent_req *subreq);
static errno_t sdap_initgroups_members(struct tevent_req *req);
static errno_t sdap_initgroups_search(struct tevent_req *req);
static void sdap_initgroups_search_done(struct tevent_req *subreq);
static errno_t sdap_initgroups_complete(struct tevent_req *req);
static void sdap_initgroups_completed(struct tevent_req *subreq);

/* The state of both entry points; NULL when req is NULL or already failed. */
static struct sdap_initgroups_state *sdap_initgroups_create(TALLOC_CTX *mem_ctx,
                                                            struct tevent_context *ev,
                                                            struct sdap_id_ctx *id_ctx,
                                                            const char *name,
                                                            struct tevent_req **_req)
{
    struct sdap_initgroups_state *state;
    struct tevent_req *req;

    req = tevent_req_create(mem_ctx, &state, struct sdap_initgroups_state);
    *_req = req;
    if (!SDAP_OP_VALID(req, ev, id_ctx)) {
        *_req = req;    /* NULL, or failing with EINVAL */
        return NULL;
    }
    if (!sdap_valid_name(name)) {
        DEBUG(SSSDBG_OP_FAILURE, "refusing initgroups of an empty or invalid name\n");
        *_req = sss_req_post(req, ev, EINVAL);
        return NULL;
    }
    state->ev = ev;
    state->id_ctx = id_ctx;
    state->seen = sdap_strset_new(state);
    if (state->seen == NULL) {
        *_req = sss_req_post(req, ev, ENOMEM);
        return NULL;
    }
    return state;
}

struct tevent_req *sdap_initgroups_send(TALLOC_CTX *mem_ctx, struct tevent_context *ev,
                                        struct sdap_id_ctx *id_ctx, const char *name)
{
    struct sdap_initgroups_state *state;
    struct tevent_req *req;
    struct tevent_req *subreq;

    state = sdap_initgroups_create(mem_ctx, ev, id_ctx, name, &req);
    if (state == NULL) {
        return req;
    }
    subreq = sdap_get_user_send(state, ev, id_ctx, SDAP_BY_NAME, name, 0);
    if (subreq == NULL) {
        return sss_req_post(req, ev, ENOMEM);
    }
    tevent_req_set_callback(subreq, sdap_initgroups_user_done, req);
    return req;
}

static struct tevent_req *sdap_initgroups_given_send(TALLOC_CTX *mem_ctx,
                                                     struct tevent_context *ev,
                                                     struct sdap_id_ctx *id_ctx,
                                                     const struct sdap_user *user,
                                                     bool with_primary)
{
    struct sdap_initgroups_state *state;
    struct tevent_req *req;
    errno_t ret;

    SSS_CHECK_ARG(user != NULL && user->orig_dn != NULL && *user->orig_dn != '\0', NULL);
    state = sdap_initgroups_create(mem_ctx, ev, id_ctx, user->name, &req);
    if (state == NULL) {
        return req;
    }
    if (with_primary && !sdap_initgroups_brings_primary(id_ctx)) {
        return sss_req_post(req, ev, EINVAL);
    }
    state->with_primary = with_primary;
    state->user = talloc_zero(state, struct sdap_user);
    if (state->user == NULL) {
        return sss_req_post(req, ev, ENOMEM);
    }
    /* What the membership searches use; the caller keeps the rest (it is not stored). */
    state->user->name = talloc_strdup(state->user, user->name);
    state->user->orig_dn = talloc_strdup(state->user, user->orig_dn);
    state->user->uid = user->uid;
    state->user->gid = user->gid;
    state->user->gecos = "";
    state->user->home = "";
    state->user->shell = "";
    state->user->extra = talloc_zero_array(state->user, const char *, 1);
    if (state->user->name == NULL || state->user->orig_dn == NULL
            || state->user->extra == NULL) {
        return sss_req_post(req, ev, ENOMEM);
    }
    ret = sdap_initgroups_start(req);
    if (ret != EAGAIN) {
        /* Every path sends a search first: EOK cannot happen here. */
        return sss_req_post(req, ev, ret == EOK ? EIO : ret);
    }
    return req;
}

struct tevent_req *sdap_initgroups_user_send(TALLOC_CTX *mem_ctx, struct tevent_context *ev,
                                             struct sdap_id_ctx *id_ctx,
                                             const struct sdap_user *user)
{
    return sdap_initgroups_given_send(mem_ctx, ev, id_ctx, user, false);
}

struct tevent_req *sdap_initgroups_primary_send(TALLOC_CTX *mem_ctx, struct tevent_context *ev,
                                                struct sdap_id_ctx *id_ctx,
                                                const struct sdap_user *user)
{
    return sdap_initgroups_given_send(mem_ctx, ev, id_ctx, user, true);
}

bool sdap_initgroups_brings_primary(const struct sdap_id_ctx *id_ctx)
{
    return id_ctx != NULL && id_ctx->opts->schema != SDAP_SCHEMA_AD;
}

bool sdap_initgroups_by_dn(const struct sdap_id_ctx *id_ctx)
{
    return id_ctx != NULL && id_ctx->opts->schema == SDAP_SCHEMA_AD;
}

static void sdap_initgroups_user_done(struct tevent_req *subreq)
{
    struct tevent_req *req = tevent_req_callback_data(subreq, struct tevent_req);
    struct sdap_initgroups_state *state = tevent_req_data(req, struct sdap_initgroups_state);
    errno_t ret;

    ret = sdap_get_user_recv(state, subreq, &state->user);
    talloc_free(subreq);
    if (ret != EOK) {
        tevent_req_error(req, ret);
        return;
    }
    sdap_req_step(req, sdap_initgroups_start(req));
}

/* The user is known: its groups. EAGAIN: a search is in flight. */
static errno_t sdap_initgroups_start(struct tevent_req *req)
{
    struct sdap_initgroups_state *state = tevent_req_data(req, struct sdap_initgroups_state);
    const struct sdap_options *opts = state->id_ctx->opts;
    struct tevent_req *subreq;

    if (opts->schema == SDAP_SCHEMA_AD && opts->use_tokengroups) {
        subreq = sdap_tokengroups_send(state, state->ev, state->id_ctx, state->user);
        if (subreq == NULL) {
            return ENOMEM;
        }
        tevent_req_set_callback(subreq, sdap_initgroups_tg_done, req);
        return EAGAIN;
    }
    return sdap_initgroups_members(req);
}

static void sdap_initgroups_tg_done(struct tevent_req *subreq)
{
    struct tevent_req *req = tevent_req_callback_data(subreq, struct tevent_req);
    struct sdap_initgroups_state *state = tevent_req_data(req, struct sdap_initgroups_state);
    errno_t ret;

    ret = sdap_tokengroups_recv(state, subreq, &state->groups, &state->num_groups);
    talloc_free(subreq);
    if (ret == ENODATA) {
        ret = sdap_initgroups_members(req);
    }
    sdap_req_step(req, ret);
}

/* The membership searches. EAGAIN: one in flight; EOK: done. */
static errno_t sdap_initgroups_members(struct tevent_req *req)
{
    struct sdap_initgroups_state *state = tevent_req_data(req, struct sdap_initgroups_state);
    const struct sdap_options *opts = state->id_ctx->opts;

    /* rfc2307bis (not AD), whoever asks (`id`'s getgrgid of the primary gid, a login's
     * initgroups): the groups come complete, so the back-end stores them as their own
     * lookups would and queues none for the member prefetch. */
    if (opts->member_is_dn && sdap_initgroups_brings_primary(state->id_ctx)) {
        state->graph = sdap_ig_graph_new(state, opts, state->user->orig_dn,
                                         state->user->name);
        if (state->graph == NULL) {
            return ENOMEM;
        }
    }
    /* Filters per batch below; rfc2307 groups with their members (memberUid). */
    state->args = sdap_kind_search(&opts->groups, NULL, opts->search_timeout,
                                   opts->page_size);
    /* The graph also takes the users its folded terms bring, and reads the members. */
    state->args.attrs = state->graph != NULL ? sdap_any_attrs(state, opts)
                        : sdap_group_attrs(state, opts, !opts->member_is_dn);
    if (state->args.attrs == NULL) {
        return ENOMEM;
    }
    if (!opts->member_is_dn) {
        state->big.attr = opts->group_map[SDAP_GA_MEMBER];
        /* A group past it is stored without its members (BE_BIG_GROUP): such lists are only
         * counted (sdap_entry_count.c). */
        state->big.limit = SSS_BIG_GROUP;
        state->big.needle = state->user->name;
        state->args.count_only = &state->big;
    }
    state->by_memberof = opts->schema == SDAP_SCHEMA_AD && opts->member_is_dn
                         && opts->nesting_level > 0;
    if (state->by_memberof) {
        const char **attrs = discard_const(state->args.attrs);
        size_t n = 0;

        while (attrs[n] != NULL) {
            n++;
        }
        attrs = talloc_realloc(state, attrs, const char *, n + 2);
        state->queued = sdap_strset_new(state);
        if (attrs == NULL || state->queued == NULL) {
            return ENOMEM;
        }
        attrs[n] = AD_MEMBEROF;
        attrs[n + 1] = NULL;
        state->args.attrs = attrs;
    }
    state->frontier = talloc_array(state, const char *, 2);
    if (state->frontier == NULL) {
        return ENOMEM;
    }
    /* rfc2307 matches the name, the DN schemas the DN; both are one "frontier" value. */
    state->frontier[0] = opts->member_is_dn ? state->user->orig_dn : state->user->name;
    state->frontier[1] = NULL;
    state->num_frontier = 1;
    if (state->graph != NULL) {
        state->fcanon = sdap_strset_new(state);
        if (state->fcanon == NULL) {
            return ENOMEM;
        }
        sdap_strset_add(state->fcanon, sdap_ig_graph_canon(state->graph, state->user->orig_dn));
    }
    return sdap_initgroups_search(req);
}

/* (&(objectClass=oc)(|(memberUid=name)(gidNumber=gid))<filter>); the DN schemas match
 * member with the user's DN. */
static char *sdap_initgroups_primary_filter(struct sdap_initgroups_state *state)
{
    const struct sdap_options *opts = state->id_ctx->opts;
    char *name;
    char *member_or_gid;
    char *filter;

    name = sdap_filter_escape(state, state->frontier[0]);
    if (name == NULL) {
        return NULL;
    }
    member_or_gid = talloc_asprintf(state, "(|(%s=%s)(%s=%" PRIu32 "))",
                                    opts->group_map[SDAP_GA_MEMBER], name,
                                    opts->group_map[SDAP_GA_GID], state->user->gid);
    filter = member_or_gid == NULL ? NULL
             : sdap_filter_and(state, opts->groups.oc, member_or_gid, opts->groups.filter);
    talloc_free(name);
    talloc_free(member_or_gid);
    return filter;
}

/* The canonical DNs of the new frontier: a folded search's own groups name one. */
static errno_t sdap_initgroups_fcanon(struct sdap_initgroups_state *state)
{
    size_t i;

    talloc_free(state->fcanon);
    state->fcanon = sdap_strset_new(state);
    if (state->fcanon == NULL) {
        return ENOMEM;
    }
    for (i = 0; i < state->num_frontier; i++) {
        sdap_strset_add(state->fcanon, sdap_ig_graph_canon(state->graph, state->frontier[i]));
    }
    return EOK;
}

/* A hop's search with the graph: the parents of the batch, OR the member DNs queued so far
 * by their RDN values when they can ride along (sdap_ig_graph_fold). */
static char *sdap_initgroups_fold_filter(struct sdap_initgroups_state *state, size_t batch)
{
    const struct sdap_options *opts = state->id_ctx->opts;
    char *parents;
    char *fold;
    char *filter;
    errno_t ret;

    parents = sdap_filter_or(state, opts->groups.oc, opts->group_map[SDAP_GA_MEMBER],
                             &state->frontier[state->pos], batch, opts->groups.filter);
    if (parents == NULL) {
        return NULL;
    }
    fold = sdap_ig_graph_fold(state, state->graph, &ret);
    if (fold == NULL) {
        if (ret != EOK) {
            talloc_free(parents);
            return NULL;
        }
        return parents;
    }
    state->folded = true;
    filter = talloc_asprintf(state, "(|%s%s)", parents, fold);
    talloc_free(parents);
    talloc_free(fold);
    return filter;
}

/* The walk is over: the graph's remaining member DNs, then the groups' member lists.
 * EAGAIN: under way; EOK: nothing to do. */
static errno_t sdap_initgroups_complete(struct tevent_req *req)
{
    struct sdap_initgroups_state *state = tevent_req_data(req, struct sdap_initgroups_state);
    struct tevent_req *subreq;

    if (state->graph == NULL) {
        return EOK;
    }
    subreq = sdap_ig_graph_complete_send(state, state->ev, state->id_ctx, state->graph);
    if (subreq == NULL) {
        return ENOMEM;
    }
    tevent_req_set_callback(subreq, sdap_initgroups_completed, req);
    return EAGAIN;
}

static void sdap_initgroups_completed(struct tevent_req *subreq)
{
    struct tevent_req *req = tevent_req_callback_data(subreq, struct tevent_req);
    struct sdap_initgroups_state *state = tevent_req_data(req, struct sdap_initgroups_state);
    errno_t ret;

    ret = sdap_ig_graph_complete_recv(subreq);
    talloc_free(subreq);
    if (ret == EOK) {
        ret = sdap_ig_graph_finish(state->graph);
    }
    sdap_req_step(req, ret);
}

/* Searches the parents of the next batch of the frontier, or moves to the next hop.
 * EAGAIN: a search is in flight; EOK: done. */
static errno_t sdap_initgroups_search(struct tevent_req *req)
{
    struct sdap_initgroups_state *state = tevent_req_data(req, struct sdap_initgroups_state);
    const struct sdap_options *opts = state->id_ctx->opts;
    struct tevent_req *subreq;
    size_t batch;

    if (state->pos >= state->num_frontier) {
        /* This hop is complete: go up one more level when the schema nests. */
        if (!opts->member_is_dn || state->num_next == 0
                || state->hop + 1 > opts->nesting_level) {
            return sdap_initgroups_complete(req);
        }
        talloc_free(state->frontier);
        state->frontier = state->next;
        state->num_frontier = state->num_next;
        state->next = NULL;
        state->num_next = 0;
        state->pos = 0;
        state->hop++;
        if (state->graph != NULL) {
            errno_t ret = sdap_initgroups_fcanon(state);

            if (ret != EOK) {
                return ret;
            }
        }
    }
    batch = state->num_frontier - state->pos;
    if (batch > SDAP_FILTER_BATCH) {
        batch = SDAP_FILTER_BATCH;
    }
    talloc_free(discard_const(state->args.filter));
    state->folded = false;
    if (state->with_primary && state->hop == 0) {
        state->args.filter = sdap_initgroups_primary_filter(state);
    } else if (state->graph != NULL) {
        state->args.filter = sdap_initgroups_fold_filter(state, batch);
    } else {
        /* Hop 0 (the user's own groups) is always a member search. */
        state->args.filter = sdap_filter_or(state, opts->groups.oc,
                                            state->by_memberof && state->hop > 0
                                            ? "distinguishedName"
                                            : opts->group_map[SDAP_GA_MEMBER],
                                            &state->frontier[state->pos], batch,
                                            opts->groups.filter);
    }
    if (state->args.filter == NULL) {
        return ENOMEM;
    }
    state->pos += batch;
    /* A memberOf hop names batch DNs, so at most batch entries: below the page size the
     * paged results control only costs the server (Samba: ~4.6 ms of CPU a search).
     * The member searches (hop 0, rfc2307bis's hops) match without bound: paged. */
    state->args.page_size = state->by_memberof && state->hop > 0
                            && batch < (size_t)opts->page_size ? 0 : opts->page_size;
    subreq = sdap_id_search_send(state, state->ev, state->id_ctx, &state->args);
    if (subreq == NULL) {
        return ENOMEM;
    }
    tevent_req_set_callback(subreq, sdap_initgroups_search_done, req);
    return EAGAIN;
}

/* Whether an rfc2307 group's memberUid values hold name (exactly, as the server matched). */
static bool sdap_initgroups_lists(const struct sdap_group *group, const char *name)
{
    size_t i;

    for (i = 0; i < group->num_member_users; i++) {
        if (strcmp(group->member_users[i], name) == 0) {
            return true;
        }
    }
    return false;
}

/* AD: queues the parents e names in memberOf that are neither taken nor queued yet. The
 * DNs are copied on state->next's memory. */
static errno_t queue_parents(struct sdap_initgroups_state *state, const struct sdap_entry *e)
{
    const struct sdap_attr *parents = sdap_entry_attr(e, AD_MEMBEROF);
    const char **next;
    char *canon;
    size_t i;

    for (i = 0; parents != NULL && i < parents->num_values; i++) {
        canon = sdap_dn_canon(state, parents->values[i]);
        if (canon == NULL) {
            continue;   /* not a DN: nothing to follow */
        }
        if (sdap_strset_has(state->seen, canon) || !sdap_strset_add(state->queued, canon)) {
            talloc_free(canon);
            continue;
        }
        talloc_free(canon);
        next = talloc_realloc(state, state->next, const char *, state->num_next + 2);
        if (next == NULL) {
            return ENOMEM;
        }
        state->next = next;
        next[state->num_next] = talloc_strdup(next, parents->values[i]);
        if (next[state->num_next] == NULL) {
            return ENOMEM;
        }
        next[++state->num_next] = NULL;
    }
    return EOK;
}

static errno_t add_group(struct sdap_initgroups_state *state, const struct sdap_entry *e)
{
    const struct sdap_options *opts = state->id_ctx->opts;
    const struct sdap_attr *big;
    struct sdap_group *group = NULL;
    struct sdap_group **groups;
    const char **next;
    char *canon;
    errno_t ret;

    canon = sdap_dn_canon(state, e->dn);
    if (canon == NULL) {
        return EOK;
    }
    if (!sdap_strset_add(state->seen, canon)) {
        if (state->primary != NULL && state->hop > 0
                && strcmp(canon, state->primary_canon) == 0) {
            /* The primary group holds one of the user's groups: a membership after all. */
            talloc_free(canon);
            group = state->primary;
            state->primary = NULL;
            group->not_member = false;
            goto follow;
        }
        talloc_free(canon);
        return EOK;     /* already taken: a second path to it, or a loop */
    }
    ret = sdap_parse_group(state, opts, e, &group);
    if (ret != EOK) {
        talloc_free(canon);
        return ret == EINVAL ? EOK : ret;   /* EINVAL: unusable, logged; not followed */
    }
    if (!opts->member_is_dn && (big = sdap_entry_attr(e, state->big.attr)) != NULL
            && big->num_counted > 0) {
        /* Too many to store: handed on without members, as the back-end would store a
         * group over BE_BIG_GROUP; its own lookup reads them. */
        group->members_complete = false;
        group->not_member = state->with_primary && group->gid == state->user->gid
                            && !big->needle_found;
    } else if (!opts->member_is_dn) {
        ret = sdap_group_set_members_rfc2307(group, opts, e);
        if (ret != EOK) {
            return ret;
        }
        group->members_complete = true;
        group->not_member = state->with_primary && group->gid == state->user->gid
                            && !sdap_initgroups_lists(group, state->user->name);
    } else if (state->graph != NULL) {
        /* Hop 0's frontier is the user: the primary group found by gid alone. */
        group->not_member = state->with_primary && state->hop == 0
                            && group->gid == state->user->gid
                            && !sdap_ig_graph_member_of(state->graph, e, state->fcanon);
        ret = sdap_ig_graph_add_group(state->graph, e, group);
        if (ret != EOK) {
            return ret;
        }
        if (group->not_member) {
            state->primary = group;
            state->primary_canon = talloc_steal(group, canon);
            canon = NULL;
        }
    }
    talloc_free(canon);
    groups = talloc_realloc(state, state->groups, struct sdap_group *,
                            state->num_groups + 2);
    if (groups == NULL) {
        return ENOMEM;
    }
    state->groups = groups;
    state->groups[state->num_groups++] = group;
    state->groups[state->num_groups] = NULL;
    if (state->by_memberof) {
        return queue_parents(state, e);
    }
    if (group->not_member) {
        return EOK;     /* not the user's group: its parents are not either */
    }
follow:
    next = talloc_realloc(state, state->next, const char *, state->num_next + 2);
    if (next == NULL) {
        return ENOMEM;
    }
    state->next = next;
    state->next[state->num_next++] = group->orig_dn;
    state->next[state->num_next] = NULL;
    return EOK;
}

static void sdap_initgroups_search_done(struct tevent_req *subreq)
{
    struct tevent_req *req = tevent_req_callback_data(subreq, struct tevent_req);
    struct sdap_initgroups_state *state = tevent_req_data(req, struct sdap_initgroups_state);
    struct sdap_entry **entries = NULL;
    size_t num = 0;
    size_t i;
    errno_t ret;

    ret = sdap_id_search_recv(state, subreq, &entries, &num);
    talloc_free(subreq);
    if (ret != EOK) {
        goto done;
    }
    for (i = 0; i < num; i++) {
        /* A folded search also brings the member DNs asked: a parent names the frontier. */
        if (!state->folded
                || (sdap_entry_has_oc(entries[i], state->id_ctx->opts->groups.oc)
                    && sdap_ig_graph_member_of(state->graph, entries[i], state->fcanon))) {
            ret = add_group(state, entries[i]);
            if (ret != EOK) {
                goto done;
            }
        }
        if (state->folded) {
            ret = sdap_ig_graph_take(state->graph, entries[i]);
            if (ret != EOK) {
                goto done;
            }
        }
    }
    if (state->folded) {
        sdap_ig_graph_fold_done(state->graph);
    }
    ret = sdap_initgroups_search(req);
    if (ret == EOK) {
        DEBUG(SSSDBG_TRACE_FUNC, "user '%s' is in %zu group(s)\n", state->user->name,
              state->num_groups);
    }
done:
    talloc_free(entries);
    sdap_req_step(req, ret);
}

errno_t sdap_initgroups_recv(TALLOC_CTX *mem_ctx, struct tevent_req *req,
                             struct sdap_user **_user,
                             struct sdap_group ***_groups, size_t *_num_groups)
{
    struct sdap_initgroups_state *state = tevent_req_data(req, struct sdap_initgroups_state);
    struct sdap_group **groups;

    if (!SSS_ARG_VALID(_groups != NULL) || !SSS_ARG_VALID(_num_groups != NULL)) {
        return EINVAL;
    }
    TEVENT_REQ_RETURN_ON_ERROR(req);
    groups = sdap_groups_move(mem_ctx, state->groups, state->num_groups);
    if (groups == NULL) {
        return ENOMEM;
    }
    if (_user != NULL) {
        *_user = talloc_steal(mem_ctx, state->user);
    }
    *_groups = groups;
    *_num_groups = state->num_groups;
    return EOK;
}
