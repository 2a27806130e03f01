/*
 * initgroups of an AD user from tokenGroups (ldap_use_tokengroups, the AD provider's
 * default): AD computes, on a base search of the user's entry, the SIDs of every group
 * the user is in, nested memberships included whatever their depth, and the primary
 * group. One base search gives them; the group entries then come by SID,
 * SDAP_FILTER_BATCH SIDs OR-ed per search (not paged: see tg_search_start), TG_WINDOW
 * searches in flight on the shared connection. BUILTIN SIDs (S-1-5-32-*) are not groups
 * of ours and are left out, as SSSD does. With ldap_id_mapping = false, groups without a
 * gidNumber are skipped by the parser.
 *
 * tokenGroups costs the DC a quarter second for a user in 5,000 groups, one process's
 * time during which the other connection (below) would idle: it reads the user's memberOf
 * meanwhile, with AD's extended DN control so that each value names its group's SID, and
 * searches those SIDs (the direct groups) until tokenGroups comes; then only tokenGroups'
 * SIDs not searched yet are. tokenGroups alone defines the set: a group found from
 * memberOf that it does not name (a distribution group) is left out. When memberOf comes
 * after tokenGroups, fails, or holds no SIDs (a server without the control), tokenGroups'
 * SIDs are simply all searched.
 *
 * When the other connection of the domain is up (the domain's LDAP when this runs on the
 * global catalog, the GC when it runs on the domain's LDAP and may serve), it takes SID
 * searches too, each going to the connection with fewer in flight (the one the DC serves
 * faster gets more; they alternate while both keep up): Samba serves each connection in
 * one process, so one connection uses one core of the DC, and the DC's work for the group
 * entries (most of a cold `id` of a user in thousands of groups) is split over two. Both
 * read the same directory (the one-domain forest of sdap_connect_gc.c, same options and
 * search bases). A search that fails there is sent again on this request's own
 * connection, which alone then serves the rest: the other connection never fails the
 * request.
 *
 * The group searches also read `member`, and the member lists of all the groups are then
 * computed together (sdap_member_lists.c: the member DNs read level by level, each once
 * for all groups, down to ldap_group_nesting_level), exactly as a group lookup
 * (sdap_resolve_members) computes them, so the groups come back complete
 * (members_complete) and the back-end stores them as a group lookup would: `id`'s
 * getgrgid of each of them is answered from the cache instead of costing a group search
 * and its member resolution each. A big group (SSS_BIG_GROUP; a ranged `member` is read
 * whole by the search first), or one that needs such a group expanded, stays without
 * members (the group lookup's work); so do all when the member DNs to read pass
 * SDAP_MLISTS_BUDGET or their resolution fails (logged): the initgroups answer itself is
 * unaffected. The groups tokenGroups leaves out (below) stay known there, as members.
 */
#include <assert.h>

#include "util/util.h"
#include "providers/ldap/sdap_member_lists.h"

#define TG_ATTR "tokenGroups"
#define TG_MEMBEROF "memberOf"
/* Group searches by SID kept in flight at once on each connection: deep enough that the
 * DC's process has the next one queued when the back-end is slow to send it (a loaded
 * host). */
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
    struct sdap_id_ctx *peer;       /* the other connection's, sharing the SID searches */
    size_t own_flight;              /* SID searches in flight on id_ctx, on peer */
    size_t peer_flight;
    size_t sent;                    /* SID searches started */
    size_t peer_done;               /* SID searches the peer answered */
    /* The direct groups, searched on the peer while tokenGroups is computed: the SIDs of
     * the user's memberOf (extended DNs), until tokenGroups comes. */
    struct sdap_search_args memberof_args;
    const char *memberof_attrs[2];
    const char **direct;            /* the SIDs of memberOf's groups */
    size_t num_direct;
    size_t dpos;                    /* next of them to put in a filter */
    size_t direct_sent;             /* searches of them started */
    size_t direct_flight;           /* ... in flight */
    struct sdap_strset *sent_sids;  /* SIDs searched already (NULL: none) */
    struct sdap_strset *got_sids;   /* SIDs of the entries those searches brought */
    bool misses_queued;             /* tokenGroups' SIDs they missed are in sids */
    struct sdap_strset *tg_sids;    /* tokenGroups' SIDs: the groups; NULL until known */
    struct sdap_mlists *ml;         /* every group entry found, for the member lists */
    struct sdap_group **groups;
    bool *from_memberof;            /* aligned with groups: found by a SID of memberOf
                                     * (kept if tokenGroups has it) */
    size_t num_groups;
};

/* One SID search in flight: its arguments live with it. */
struct tg_search {
    struct sdap_search_args args;
    char *filter;
    struct sdap_id_ctx *ctx;        /* where it was sent */
    bool direct;                    /* of SIDs from memberOf (else from tokenGroups) */
};

static void sdap_tokengroups_base_done(struct tevent_req *subreq);
static void sdap_tokengroups_memberof_done(struct tevent_req *subreq);
static errno_t sdap_tokengroups_next(struct tevent_req *req);
static errno_t sdap_tokengroups_continue(struct tevent_req *req);
static void sdap_tokengroups_groups_done(struct tevent_req *subreq);
static void sdap_tokengroups_members_done(struct tevent_req *subreq);

/* The domain's other connection when it is up and may serve group lookups, or NULL. */
static struct sdap_id_ctx *tg_peer(struct sdap_id_ctx *id_ctx)
{
    struct sdap_id_ctx *dom = id_ctx->dom;

    if (dom != NULL) {      /* id_ctx is the GC */
        return !dom->offline && sdap_conn_usable(dom->conn) ? dom : NULL;
    }
    return sdap_gc_usable(id_ctx);
}

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
    state->peer = tg_peer(id_ctx);
    state->user_name = talloc_strdup(state, user->name);
    state->base_args.base = talloc_strdup(state, user->orig_dn);
    if (state->user_name == NULL || state->base_args.base == NULL) {
        ret = ENOMEM;
        goto done;
    }
    state->ml = sdap_mlists_new(state, id_ctx, talloc_asprintf(state, "user '%s'",
                                                                 user->name));
    if (state->ml == NULL) {
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
    if (state->peer == NULL) {
        return req;
    }
    /* The peer is idle while the DC computes tokenGroups (a quarter second for 5,000
     * groups): it searches the direct groups meanwhile. */
    state->sent_sids = sdap_strset_new(state);
    state->got_sids = sdap_strset_new(state);
    if (state->sent_sids == NULL || state->got_sids == NULL) {
        ret = ENOMEM;
        goto done;
    }
    state->memberof_attrs[0] = TG_MEMBEROF;
    state->memberof_attrs[1] = NULL;
    state->memberof_args = state->base_args;
    state->memberof_args.attrs = state->memberof_attrs;
    state->memberof_args.extended_dn = true;    /* each value with its group's SID */
    subreq = sdap_id_search_send(state, ev, state->peer, &state->memberof_args);
    if (subreq == NULL) {
        ret = ENOMEM;
        goto done;
    }
    tevent_req_set_callback(subreq, sdap_tokengroups_memberof_done, req);
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
    state->tg_sids = sdap_strset_new(state);
    if (state->sids == NULL || state->tg_sids == NULL) {
        ret = ENOMEM;
        goto done;
    }
    for (i = 0; i < attr->num_values; i++) {
        if (strncmp(attr->values[i], "S-1-5-32-", 9) == 0) {
            continue;
        }
        sdap_strset_add(state->tg_sids, attr->values[i]);
        if (state->sent_sids != NULL && sdap_strset_has(state->sent_sids, attr->values[i])) {
            continue;   /* searched already, from memberOf */
        }
        state->sids[state->num_sids] = talloc_steal(state->sids, attr->values[i]);
        state->num_sids++;
    }
    DEBUG(SSSDBG_TRACE_FUNC, "user '%s': %zu group SID(s) in %s, %zu of them left to "
          "search\n", state->user_name, sdap_strset_count(state->tg_sids), TG_ATTR,
          state->num_sids);
    ret = sdap_tokengroups_continue(req);
done:
    talloc_free(entries);
    sdap_req_step(req, ret);
}

/* The user's memberOf, read on the peer: the SIDs of its direct groups, searched until
 * tokenGroups comes. */
static void sdap_tokengroups_memberof_done(struct tevent_req *subreq)
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
    if (state->tg_sids != NULL) {
        /* tokenGroups came first: its SIDs are being searched already. */
        talloc_free(entries);
        return;
    }
    if (ret == ENOMEM) {
        goto done;
    }
    if (ret != EOK) {
        /* Only a head start lost: tokenGroups' SIDs are all searched here. */
        DEBUG(SSSDBG_OP_FAILURE, "user '%s': %s on the other connection failed [%d]: %s: "
              "its groups are searched here\n", state->user_name, TG_MEMBEROF, ret,
              sss_strerror(ret));
        state->peer = NULL;
        ret = sdap_tokengroups_continue(req);
        goto done;
    }
    if (num == 1) {
        attr = sdap_entry_attr(entries[0], TG_MEMBEROF);
    }
    if (attr != NULL) {
        state->direct = talloc_array(state, const char *, attr->num_values + 1);
        if (state->direct == NULL) {
            ret = ENOMEM;
            goto done;
        }
        for (i = 0; i < attr->num_values; i++) {
            state->direct[state->num_direct] = sdap_xdn_sid(state->direct, attr->values[i]);
            if (state->direct[state->num_direct] != NULL) {
                state->num_direct++;
            }
        }
        state->direct[state->num_direct] = NULL;
    }
    ret = sdap_tokengroups_continue(req);
done:
    talloc_free(entries);
    sdap_req_step(req, ret);
}

/* Sends the search of filter (taken over) on ctx: groups by SID (from memberOf when
 * direct, else from tokenGroups). */
static errno_t tg_search_start(struct tevent_req *req, struct sdap_id_ctx *ctx, char *filter,
                               bool direct)
{
    struct sdap_tokengroups_state *state = tevent_req_data(req,
                                                           struct sdap_tokengroups_state);
    const struct sdap_options *opts = ctx->opts;
    struct tevent_req *subreq;
    struct tg_search *search;

    search = talloc_zero(state, struct tg_search);
    if (search == NULL) {
        talloc_free(filter);
        return ENOMEM;
    }
    search->filter = talloc_steal(search, filter);
    search->ctx = ctx;
    search->direct = direct;
    state->direct_flight += direct;
    /* Groups with their member values; without the paged results control: a search
     * names SDAP_FILTER_BATCH SIDs, so it never returns more entries than that (far below
     * AD's MaxPageSize), and the control costs Samba about 4.7 ms of CPU per search
     * whatever its size (5,000 groups, 101 searches: the DC's CPU 840-890 ms paged,
     * 370-390 unpaged, of which tokenGroups is 270). */
    search->args = sdap_kind_search(&opts->groups, search->filter, opts->search_timeout, 0);
    search->args.attrs = sdap_group_attrs(search, opts, true);
    if (search->args.attrs == NULL) {
        talloc_free(search);
        return ENOMEM;
    }
    subreq = sdap_id_search_send(search, state->ev, ctx, &search->args);
    if (subreq == NULL) {
        talloc_free(search);
        return ENOMEM;
    }
    tevent_req_set_callback(subreq, sdap_tokengroups_groups_done, req);
    state->in_flight++;
    if (ctx == state->id_ctx) {
        state->own_flight++;
    } else {
        state->peer_flight++;
    }
    return EOK;
}

/* The connection for the next search: the one with fewer in flight, with room in its
 * window; the request's own only when own_ok. NULL: wait for an answer. */
static struct sdap_id_ctx *tg_pick(struct sdap_tokengroups_state *state, bool own_ok)
{
    bool own = own_ok && state->own_flight < TG_WINDOW;
    bool peer = state->peer != NULL && state->peer_flight < TG_WINDOW;

    if (own && peer) {
        return state->peer_flight < state->own_flight ? state->peer : state->id_ctx;
    }
    return own ? state->id_ctx : peer ? state->peer : NULL;
}

/* SIDs in both memberOf and tokenGroups that the searches from memberOf did not bring
 * (the other connection holds another part of the forest, or the search failed there):
 * searched again with the rest, on both connections. */
static errno_t tg_queue_misses(struct sdap_tokengroups_state *state)
{
    const char **sids;
    size_t n = 0;
    size_t i;

    for (i = 0; i < state->dpos; i++) {
        n += sdap_strset_has(state->tg_sids, state->direct[i])
             && !sdap_strset_has(state->got_sids, state->direct[i]);
    }
    if (n == 0) {
        return EOK;
    }
    DEBUG(SSSDBG_MINOR_FAILURE, "user '%s': %zu group(s) named by %s and %s not found by "
          "the searches from %s: searched again\n", state->user_name, n, TG_MEMBEROF,
          TG_ATTR, TG_MEMBEROF);
    sids = talloc_realloc(state, state->sids, const char *, state->num_sids + n + 1);
    if (sids == NULL) {
        return ENOMEM;
    }
    state->sids = sids;
    for (i = 0; i < state->dpos; i++) {
        if (sdap_strset_has(state->tg_sids, state->direct[i])
                && !sdap_strset_has(state->got_sids, state->direct[i])) {
            sids[state->num_sids++] = state->direct[i];
        }
    }
    sids[state->num_sids] = NULL;
    return EOK;
}

/* Searches SIDs up to the window of each connection, on the one with fewer in flight:
 * memberOf's on the peer until tokenGroups is known, then tokenGroups' not searched yet
 * on both. EAGAIN: some in flight, or tokenGroups; EOK: all answered. */
static errno_t sdap_tokengroups_next(struct tevent_req *req)
{
    struct sdap_tokengroups_state *state = tevent_req_data(req,
                                                           struct sdap_tokengroups_state);
    const struct sdap_options *opts = state->id_ctx->opts;
    const bool tg_known = state->tg_sids != NULL;
    const char **sids = tg_known ? state->sids : state->direct;
    size_t num = tg_known ? state->num_sids : state->num_direct;
    size_t *pos = tg_known ? &state->pos : &state->dpos;
    struct sdap_id_ctx *ctx;
    char *filter = NULL;
    size_t batch;
    size_t i;
    errno_t ret;

    while (*pos < num && (ctx = tg_pick(state, tg_known)) != NULL) {
        batch = num - *pos;
        if (batch > SDAP_FILTER_BATCH) {
            batch = SDAP_FILTER_BATCH;
        }
        ret = sdap_sid_filter(state, opts, &opts->groups, &sids[*pos], batch, &filter);
        for (i = 0; !tg_known && i < batch; i++) {
            sdap_strset_add(state->sent_sids, sids[*pos + i]);
        }
        *pos += batch;
        if (ret == ENOENT) {
            continue;
        }
        if (ret != EOK) {
            return ret;
        }
        if (tg_known) {
            state->sent++;
        } else {
            state->direct_sent++;
        }
        ret = tg_search_start(req, ctx, filter, !tg_known);
        if (ret != EOK) {
            return ret;
        }
    }
    if (tg_known && state->direct_flight == 0 && !state->misses_queued) {
        state->misses_queued = true;
        ret = tg_queue_misses(state);
        if (ret != EOK) {
            return ret;
        }
        if (state->pos < state->num_sids) {
            return sdap_tokengroups_next(req);
        }
    }
    return state->in_flight > 0 || !tg_known ? EAGAIN : EOK;
}

static errno_t add_group(struct sdap_tokengroups_state *state, struct sdap_entry *e,
                         bool direct)
{
    struct sdap_group *group = NULL;
    struct sdap_group **groups;
    bool *flags;
    errno_t ret;

    ret = sdap_parse_group(state, state->id_ctx->opts, e, &group);
    if (ret != EOK && ret != EINVAL) {
        return ret;     /* EINVAL: unusable, logged; known as a DN that is no member */
    }
    ret = sdap_mlists_add(state->ml, e, group);
    if (ret == EEXIST || ret == EINVAL) {
        talloc_free(group);     /* found already, or not a DN */
        return EOK;
    }
    if (ret != EOK || group == NULL) {
        return ret;
    }
    groups = talloc_realloc(state, state->groups, struct sdap_group *, state->num_groups + 2);
    if (groups == NULL) {
        return ENOMEM;
    }
    state->groups = groups;
    flags = talloc_realloc(state, state->from_memberof, bool, state->num_groups + 1);
    if (flags == NULL) {
        return ENOMEM;
    }
    state->from_memberof = flags;
    state->from_memberof[state->num_groups] = direct;
    state->groups[state->num_groups++] = group;
    state->groups[state->num_groups] = NULL;
    return EOK;
}

static void sdap_tokengroups_groups_done(struct tevent_req *subreq)
{
    struct tevent_req *req = tevent_req_callback_data(subreq, struct tevent_req);
    struct sdap_tokengroups_state *state = tevent_req_data(req,
                                                           struct sdap_tokengroups_state);
    struct tg_search *search = talloc_parent(subreq);
    const bool direct = search->direct;
    struct sdap_entry **entries = NULL;
    const char *sid;
    size_t num = 0;
    size_t i;
    errno_t ret;

    ret = sdap_id_search_recv(state, subreq, &entries, &num);
    state->in_flight--;
    state->direct_flight -= direct;
    if (search->ctx == state->id_ctx) {
        state->own_flight--;
    } else {
        state->peer_flight--;
    }
    if (ret != EOK && ret != ENOMEM && search->ctx != state->id_ctx) {
        DEBUG(SSSDBG_OP_FAILURE, "user '%s': a SID search on the other connection failed "
              "[%d]: %s: sent again here, the rest too\n", state->user_name, ret,
              sss_strerror(ret));
        state->peer = NULL;
        ret = tg_search_start(req, state->id_ctx, talloc_steal(state, search->filter),
                              direct);
        talloc_free(search);
        sdap_req_step(req, ret == EOK ? EAGAIN : ret);
        return;
    }
    if (ret == EOK && search->ctx != state->id_ctx) {
        state->peer_done++;
    }
    talloc_free(search);    /* and subreq with it */
    for (i = 0; ret == EOK && i < num; i++) {
        if (direct) {
            sid = sdap_entry_value(entries[i], state->id_ctx->opts->group_map[SDAP_GA_OBJSID]);
            if (sid != NULL) {
                sdap_strset_add(state->got_sids, sid);
            }
        }
        ret = add_group(state, entries[i], direct);
    }
    talloc_free(entries);   /* the entries kept were moved onto state->ml */
    if (ret == EOK) {
        ret = sdap_tokengroups_continue(req);
    }
    /* On an error the searches still in flight belong to state: freed with req. */
    sdap_req_step(req, ret);
}

/* Leaves out the groups memberOf named that tokenGroups does not (distribution groups):
 * the set is tokenGroups'. They stay in state->ml (and parsed groups, freed with state),
 * as members of other groups. */
static void tg_keep_token_groups(struct sdap_tokengroups_state *state)
{
    struct sdap_group *group;
    size_t n = 0;
    size_t i;

    for (i = 0; i < state->num_groups; i++) {
        group = state->groups[i];
        if (state->from_memberof[i]
                && (group->sid == NULL || !sdap_strset_has(state->tg_sids, group->sid))) {
            DEBUG(SSSDBG_TRACE_FUNC, "user '%s': group '%s' is in its %s but not in its "
                  "%s: left out\n", state->user_name, group->name, TG_MEMBEROF, TG_ATTR);
            continue;
        }
        state->from_memberof[n] = state->from_memberof[i];
        state->groups[n++] = group;
    }
    state->num_groups = n;
    if (state->groups != NULL) {
        state->groups[n] = NULL;
    }
}

/* Sends what can be sent; once every group is in, their members. EAGAIN: some search is
 * in flight; EOK: done. */
static errno_t sdap_tokengroups_continue(struct tevent_req *req)
{
    struct sdap_tokengroups_state *state = tevent_req_data(req,
                                                           struct sdap_tokengroups_state);
    struct tevent_req *subreq;
    errno_t ret;

    ret = sdap_tokengroups_next(req);
    if (ret != EOK) {
        return ret;
    }
    tg_keep_token_groups(state);
    DEBUG(SSSDBG_TRACE_FUNC, "user '%s' is in %zu group(s) (%s; %zu SID search(es) from "
          "%s while it was computed, %zu after; %zu answered on the other connection)\n",
          state->user_name, state->num_groups, TG_ATTR, state->direct_sent, TG_MEMBEROF,
          state->sent, state->peer_done);
    subreq = sdap_mlists_send(state, state->ev, state->ml, state->groups, state->num_groups);
    if (subreq == NULL) {
        return ENOMEM;
    }
    tevent_req_set_callback(subreq, sdap_tokengroups_members_done, req);
    return EAGAIN;
}
static void sdap_tokengroups_members_done(struct tevent_req *subreq)
{
    struct tevent_req *req = tevent_req_callback_data(subreq, struct tevent_req);
    errno_t ret;

    ret = sdap_mlists_recv(subreq, NULL);
    talloc_free(subreq);
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
