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

/* One state for both enumerations; each uses its part. */
struct sdap_enum_state {
    struct tevent_context *ev;
    struct sdap_id_ctx *id_ctx;
    struct sdap_search_args args;
    size_t num;
    struct sdap_user **users;
    struct sdap_group **groups;
    struct sdap_entry **entries;    /* entries[i] belongs to groups[i] */
};

/* Starts the search of every entry of kind, paged, with the enumeration timeout; fn goes
 * on with its result. */
static struct tevent_req *sdap_enum_send(TALLOC_CTX *mem_ctx, struct tevent_context *ev,
                                         struct sdap_id_ctx *id_ctx,
                                         enum sdap_kind_id kind, tevent_req_fn fn)
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
    tevent_req_set_callback(subreq, fn, req);
    return req;
done:
    return sss_req_post(req, ev, ret);
}

/* ---- users ------------------------------------------------------------------------- */

static void sdap_enumerate_users_done(struct tevent_req *subreq);

struct tevent_req *sdap_enumerate_users_send(TALLOC_CTX *mem_ctx, struct tevent_context *ev,
                                             struct sdap_id_ctx *id_ctx)
{
    return sdap_enum_send(mem_ctx, ev, id_ctx, SDAP_KIND_USERS, sdap_enumerate_users_done);
}

static void sdap_enumerate_users_done(struct tevent_req *subreq)
{
    struct tevent_req *req = tevent_req_callback_data(subreq, struct tevent_req);
    struct sdap_enum_state *state = tevent_req_data(req, struct sdap_enum_state);
    struct sdap_entry **entries = NULL;
    const char **names = NULL;
    size_t num = 0;
    size_t i;
    errno_t ret;

    ret = sdap_id_search_recv(state, subreq, &entries, &num);
    talloc_free(subreq);
    if (ret != EOK) {
        goto done;
    }
    state->users = talloc_array(state, struct sdap_user *, num + 1);
    names = talloc_array(state, const char *, num + 1);
    if (state->users == NULL || names == NULL) {
        ret = ENOMEM;
        goto done;
    }
    for (i = 0; i < num; i++) {
        struct sdap_user *user;

        ret = sdap_parse_user(state->users, state->id_ctx->opts, entries[i], &user);
        if (ret == EINVAL) {
            continue;       /* unusable, logged */
        }
        if (ret != EOK) {
            goto done;
        }
        names[state->num] = user->name;
        state->users[state->num++] = user;
    }
    ret = drop_duplicates((void **)state->users, NULL, names, &state->num, "user");
    if (ret != EOK) {
        goto done;
    }
    DEBUG(SSSDBG_TRACE_FUNC, "%zu user(s) enumerated\n", state->num);
done:
    talloc_free(entries);
    talloc_free(names);
    sdap_req_step(req, ret);
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

static void sdap_enumerate_groups_found(struct tevent_req *subreq);
static void sdap_enumerate_groups_members(struct tevent_req *subreq);

struct tevent_req *sdap_enumerate_groups_send(TALLOC_CTX *mem_ctx, struct tevent_context *ev,
                                              struct sdap_id_ctx *id_ctx)
{
    return sdap_enum_send(mem_ctx, ev, id_ctx, SDAP_KIND_GROUPS, sdap_enumerate_groups_found);
}

static void sdap_enumerate_groups_found(struct tevent_req *subreq)
{
    struct tevent_req *req = tevent_req_callback_data(subreq, struct tevent_req);
    struct sdap_enum_state *state = tevent_req_data(req, struct sdap_enum_state);
    const struct sdap_options *opts = state->id_ctx->opts;
    struct sdap_entry **entries = NULL;
    const char **names = NULL;
    size_t num = 0;
    size_t i;
    errno_t ret;

    ret = sdap_id_search_recv(state, subreq, &entries, &num);
    talloc_free(subreq);
    if (ret != EOK) {
        goto done;
    }
    state->groups = talloc_array(state, struct sdap_group *, num + 1);
    state->entries = talloc_array(state, struct sdap_entry *, num + 1);
    names = talloc_array(state, const char *, num + 1);
    if (state->groups == NULL || state->entries == NULL || names == NULL) {
        ret = ENOMEM;
        goto done;
    }
    for (i = 0; i < num; i++) {
        struct sdap_group *group;

        ret = sdap_parse_group(state->groups, opts, entries[i], &group);
        if (ret == EINVAL) {
            continue;       /* unusable, logged */
        }
        if (ret != EOK) {
            goto done;
        }
        if (!opts->member_is_dn) {
            ret = sdap_group_set_members_rfc2307(group, opts, entries[i]);
            if (ret != EOK) {
                goto done;
            }
        }
        names[state->num] = group->name;
        state->entries[state->num] = talloc_steal(state->entries, entries[i]);
        state->groups[state->num++] = group;
    }
    ret = drop_duplicates((void **)state->groups, (void **)state->entries, names,
                          &state->num, "group");
    if (ret != EOK || !opts->member_is_dn) {
        goto done;
    }
    subreq = sdap_enum_members_send(state, state->ev, state->id_ctx, state->groups,
                                    state->entries, state->num);
    if (subreq == NULL) {
        ret = ENOMEM;
        goto done;
    }
    tevent_req_set_callback(subreq, sdap_enumerate_groups_members, req);
    ret = EAGAIN;
done:
    talloc_free(entries);
    talloc_free(names);
    sdap_req_step(req, ret);
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
