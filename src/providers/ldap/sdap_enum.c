/*
 * Enumeration: every user, every group under the search bases, with paged results
 * (ldap_page_size per page, ldap_enumeration_search_timeout per page). Unusable entries are
 * skipped (sdap_schema.c); a name served by several entries is dropped altogether, as a
 * lookup of that name would refuse it.
 *
 * Groups of the DN-member schemas get the member lists a lookup by name gives
 * (sdap_enum_members.c): users flattened through nested groups down to
 * ldap_group_nesting_level, and the direct member groups.
 */
#include "util/util.h"
#include "providers/ldap/sdap_private.h"

/* Drops the objects whose name occurs more than once, freeing them: objs[0..*_n) and
 * names (names[i] is objs[i]'s name), and aligned when not NULL, are compacted and *_n set
 * to how many are kept. Errors: ENOMEM (nothing changed). */
static errno_t drop_duplicates(void **objs, void **aligned, const char **names, size_t *_n,
                               const char *what)
{
    TALLOC_CTX *tmp_ctx = talloc_new(NULL);
    struct sdap_strset *seen = sdap_strset_new(tmp_ctx);
    struct sdap_strset *dup = sdap_strset_new(tmp_ctx);
    size_t n = *_n;
    size_t out = 0;
    size_t i;

    if (tmp_ctx == NULL || seen == NULL || dup == NULL) {
        talloc_free(tmp_ctx);
        return ENOMEM;
    }
    for (i = 0; i < n; i++) {
        if (!sdap_strset_add(seen, names[i])) {
            sdap_strset_add(dup, names[i]);
        }
    }
    for (i = 0; i < n; i++) {
        if (sdap_strset_has(dup, names[i])) {
            DEBUG(SSSDBG_OP_FAILURE, "%s '%s' is served by several entries: skipped\n", what,
                  names[i]);
            talloc_free(objs[i]);
            continue;
        }
        objs[out] = objs[i];
        if (aligned != NULL) {
            aligned[out] = aligned[i];
        }
        names[out] = names[i];
        out++;
    }
    objs[out] = NULL;
    talloc_free(tmp_ctx);
    *_n = out;
    return EOK;
}

/* Entries parsed per loop turn (a member value of an rfc2307 group counts as one): the
 * answer of a big directory is turned into users and groups without holding the loop. */
#define SDAP_ENUM_PARSE_PER_TURN 5000
/* The loop turn between slices: a timer this far ahead lets tevent poll first. */
#define SDAP_ENUM_YIELD_USEC 100

/* One state for both enumerations; each uses its part. */
struct sdap_enum_state {
    struct tevent_context *ev;
    struct sdap_id_ctx *id_ctx;
    enum sdap_kind_id kind;
    struct sdap_search_args args;
    struct sdap_entry **found;      /* the search's answer, parsed slice by slice */
    size_t num_found;
    size_t next;
    const char **names;             /* names[i] is the name of users[i] / groups[i] */
    size_t num;
    struct sdap_user **users;
    struct sdap_group **groups;
    struct sdap_entry **entries;    /* entries[i] belongs to groups[i] */
};

static void sdap_enum_found(struct tevent_req *subreq);
static void sdap_enum_parse(struct tevent_req *req);
static void sdap_enumerate_groups_members(struct tevent_req *subreq);

/* Starts the search of every entry of kind, paged, with the enumeration timeout. */
static struct tevent_req *sdap_enum_send(TALLOC_CTX *mem_ctx, struct tevent_context *ev,
                                         struct sdap_id_ctx *id_ctx,
                                         enum sdap_kind_id kind)
{
    struct sdap_enum_state *state;
    const struct sdap_kind *desc;
    struct tevent_req *req;
    struct tevent_req *subreq;
    char *filter;
    errno_t ret;

    req = tevent_req_create(mem_ctx, &state, struct sdap_enum_state);
    if (!SDAP_OP_VALID(req, ev, id_ctx)) {
        return req;     /* NULL, or failing with EINVAL */
    }
    state->ev = ev;
    state->id_ctx = id_ctx;
    state->kind = kind;
    desc = sdap_kind(id_ctx->opts, kind);
    filter = sdap_filter_present(state, desc->oc, desc->name_attr, desc->filter);
    if (filter == NULL) {
        ret = ENOMEM;
        goto done;
    }
    state->args = sdap_kind_search(desc, filter, id_ctx->opts->enum_search_timeout,
                                   id_ctx->opts->page_size);
    /* What enumeration does not see is removed from the cache: it needs the whole tree. */
    state->args.refs_partial = true;
    subreq = sdap_id_search_send(state, ev, id_ctx, &state->args);
    if (subreq == NULL) {
        ret = ENOMEM;
        goto done;
    }
    tevent_req_set_callback(subreq, sdap_enum_found, req);
    return req;
done:
    return sss_req_post(req, ev, ret);
}

static void sdap_enum_found(struct tevent_req *subreq)
{
    struct tevent_req *req = tevent_req_callback_data(subreq, struct tevent_req);
    struct sdap_enum_state *state = tevent_req_data(req, struct sdap_enum_state);
    size_t n;
    errno_t ret;

    ret = sdap_id_search_recv(state, subreq, &state->found, &state->num_found);
    talloc_free(subreq);
    if (ret != EOK) {
        tevent_req_error(req, ret);
        return;
    }
    n = state->num_found + 1;
    state->names = talloc_array(state, const char *, n);
    if (state->kind == SDAP_KIND_USERS) {
        state->users = talloc_array(state, struct sdap_user *, n);
    } else {
        state->groups = talloc_array(state, struct sdap_group *, n);
        state->entries = talloc_array(state, struct sdap_entry *, n);
    }
    if (state->names == NULL
            || (state->kind == SDAP_KIND_USERS ? state->users == NULL
                : state->groups == NULL || state->entries == NULL)) {
        tevent_req_error(req, ENOMEM);
        return;
    }
    sdap_enum_parse(req);
}

static void sdap_enum_parse_turn(struct tevent_context *ev, struct tevent_timer *te,
                                 struct timeval now, void *pvt)
{
    sdap_enum_parse(talloc_get_type_abort(pvt, struct tevent_req));
}

/* One found entry into users[] or groups[] (unusable ones are skipped); *_cost: the work
 * it took, in entries or member values. */
static errno_t sdap_enum_parse_one(struct sdap_enum_state *state, struct sdap_entry *e,
                                   size_t *_cost)
{
    const struct sdap_options *opts = state->id_ctx->opts;
    const struct sdap_attr *members;
    struct sdap_user *user;
    struct sdap_group *group;
    errno_t ret;

    *_cost = 1;
    if (state->kind == SDAP_KIND_USERS) {
        ret = sdap_parse_user(state->users, opts, e, &user);
        if (ret != EOK) {
            return ret == EINVAL ? EOK : ret;     /* unusable: logged */
        }
        state->names[state->num] = user->name;
        state->users[state->num++] = user;
        return EOK;
    }
    ret = sdap_parse_group(state->groups, opts, e, &group);
    if (ret != EOK) {
        return ret == EINVAL ? EOK : ret;
    }
    if (!opts->member_is_dn) {
        members = sdap_entry_attr(e, opts->group_map[SDAP_GA_MEMBER]);
        *_cost += members != NULL ? members->num_values : 0;
        ret = sdap_group_set_members_rfc2307(group, opts, e);
        if (ret != EOK) {
            return ret;
        }
    }
    state->names[state->num] = group->name;
    state->entries[state->num] = talloc_steal(state->entries, e);
    state->groups[state->num++] = group;
    return EOK;
}

/* Parses the found entries SDAP_ENUM_PARSE_PER_TURN at a time, then drops duplicate names;
 * groups of the DN schemas go on to their members. */
static void sdap_enum_parse(struct tevent_req *req)
{
    struct sdap_enum_state *state = tevent_req_data(req, struct sdap_enum_state);
    size_t budget = SDAP_ENUM_PARSE_PER_TURN;
    struct tevent_req *subreq;
    size_t cost;
    errno_t ret = EOK;

    while (state->next < state->num_found) {
        if (budget == 0) {
            if (tevent_add_timer(state->ev, state,
                                 tevent_timeval_current_ofs(0, SDAP_ENUM_YIELD_USEC),
                                 sdap_enum_parse_turn, req) == NULL) {
                ret = ENOMEM;
                goto done;
            }
            return;
        }
        ret = sdap_enum_parse_one(state, state->found[state->next++], &cost);
        if (ret != EOK) {
            goto done;
        }
        budget = cost < budget ? budget - cost : 0;
    }
    talloc_zfree(state->found);
    if (state->kind == SDAP_KIND_USERS) {
        ret = drop_duplicates((void **)state->users, NULL, state->names, &state->num,
                              "user");
        DEBUG(SSSDBG_TRACE_FUNC, "%zu user(s) enumerated\n", state->num);
        goto done;
    }
    ret = drop_duplicates((void **)state->groups, (void **)state->entries, state->names,
                          &state->num, "group");
    if (ret != EOK || !state->id_ctx->opts->member_is_dn) {
        goto done;
    }
    subreq = sdap_enum_members_send(state, state->ev, state->id_ctx, state->groups,
                                    state->entries, state->num);
    if (subreq == NULL) {
        ret = ENOMEM;
        goto done;
    }
    tevent_req_set_callback(subreq, sdap_enumerate_groups_members, req);
    return;
done:
    talloc_zfree(state->names);
    sdap_req_step(req, ret);
}

/* ---- users ------------------------------------------------------------------------- */

struct tevent_req *sdap_enumerate_users_send(TALLOC_CTX *mem_ctx, struct tevent_context *ev,
                                             struct sdap_id_ctx *id_ctx)
{
    return sdap_enum_send(mem_ctx, ev, id_ctx, SDAP_KIND_USERS);
}

/* The state of a finished enumeration, for its _recv; out is the caller's array pointer. */
static errno_t sdap_enum_result(struct tevent_req *req, const void *out, size_t *_num,
                                struct sdap_enum_state **_state)
{
    if (!SSS_ARG_VALID(out != NULL) || !SSS_ARG_VALID(_num != NULL)) {
        return EINVAL;
    }
    TEVENT_REQ_RETURN_ON_ERROR(req);
    *_state = tevent_req_data(req, struct sdap_enum_state);
    *_num = (*_state)->num;
    return EOK;
}

errno_t sdap_enumerate_users_recv(TALLOC_CTX *mem_ctx, struct tevent_req *req,
                                  struct sdap_user ***_users, size_t *_num_users)
{
    struct sdap_enum_state *state;
    errno_t ret;

    ret = sdap_enum_result(req, _users, _num_users, &state);
    if (ret != EOK) {
        return ret;
    }
    *_users = talloc_steal(mem_ctx, state->users);
    return EOK;
}

/* ---- groups ------------------------------------------------------------------------ */

struct tevent_req *sdap_enumerate_groups_send(TALLOC_CTX *mem_ctx, struct tevent_context *ev,
                                              struct sdap_id_ctx *id_ctx)
{
    return sdap_enum_send(mem_ctx, ev, id_ctx, SDAP_KIND_GROUPS);
}

static void sdap_enumerate_groups_members(struct tevent_req *subreq)
{
    struct tevent_req *req = tevent_req_callback_data(subreq, struct tevent_req);
    errno_t ret;

    ret = sdap_enum_members_recv(subreq);
    talloc_free(subreq);
    sdap_req_step(req, ret);
}

errno_t sdap_enumerate_groups_recv(TALLOC_CTX *mem_ctx, struct tevent_req *req,
                                   struct sdap_group ***_groups, size_t *_num_groups)
{
    struct sdap_enum_state *state;
    errno_t ret;

    ret = sdap_enum_result(req, _groups, _num_groups, &state);
    if (ret != EOK) {
        return ret;
    }
    *_groups = talloc_steal(mem_ctx, state->groups);
    return EOK;
}
