/*
 * Enumeration: every user, every group under the search bases, with paged results
 * (ldap_page_size per page, ldap_enumeration_search_timeout per page). Unusable entries are
 * skipped (sdap_schema.c); a name served by several entries is dropped altogether, as a
 * lookup of that name would refuse it.
 *
 * Groups of the DN-member schemas get their direct members: member DNs that are
 * enumerated groups map to member_groups without any further search; the other member
 * DNs are read once each with base-scope lookups (sdap_lookup_dns) and the users among
 * them give member_users. Nested groups are not flattened here: the caller has every
 * group and its member_groups.
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
    struct sdap_strset *group_dns;  /* canonical DN -> struct sdap_group */
    struct sdap_strset *user_dns;   /* canonical DN -> index into dns + 1 */
    const char **dns;
    size_t num_dns;
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

/* Member DNs of every group: groups known from the enumeration, the rest to look up. */
static errno_t collect_member_dns(struct sdap_enum_state *state)
{
    const char *member_attr = state->id_ctx->opts->group_map[SDAP_GA_MEMBER];
    size_t i;
    size_t k;

    state->group_dns = sdap_strset_new(state);
    state->user_dns = sdap_strset_new(state);
    if (state->group_dns == NULL || state->user_dns == NULL) {
        return ENOMEM;
    }
    for (i = 0; i < state->num; i++) {
        char *canon = sdap_dn_canon(state, state->groups[i]->orig_dn);
        if (canon != NULL) {
            sdap_strmap_add(state->group_dns, canon, state->groups[i]);
            talloc_free(canon);
        }
    }
    for (i = 0; i < state->num; i++) {
        const struct sdap_attr *attr = sdap_entry_attr(state->entries[i], member_attr);

        for (k = 0; attr != NULL && k < attr->num_values; k++) {
            char *canon = sdap_dn_canon(state, attr->values[k]);
            const char **dns;

            if (canon == NULL || sdap_strset_has(state->group_dns, canon)
                    || sdap_strset_has(state->user_dns, canon)) {
                talloc_free(canon);
                continue;
            }
            dns = talloc_realloc(state, state->dns, const char *, state->num_dns + 2);
            if (dns == NULL) {
                return ENOMEM;
            }
            state->dns = dns;
            state->dns[state->num_dns++] = attr->values[k];
            state->dns[state->num_dns] = NULL;
            sdap_strmap_add(state->user_dns, canon, (void *)(uintptr_t)state->num_dns);
            talloc_free(canon);
        }
    }
    return EOK;
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
    ret = collect_member_dns(state);
    if (ret != EOK) {
        goto done;
    }
    subreq = sdap_id_lookup_dns_send(state, state->ev, state->id_ctx, state->dns,
                                     state->num_dns, opts->users.attrs);
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

/* The names of the users among the looked-up member DNs, aligned with them (NULL: not a
 * usable user), on mem_ctx. */
static const char **member_user_names(TALLOC_CTX *mem_ctx, const struct sdap_options *opts,
                                      struct sdap_entry **found, size_t n)
{
    const char **names = talloc_zero_array(mem_ctx, const char *, n + 1);
    struct sdap_user *user;
    size_t i;

    for (i = 0; names != NULL && i < n; i++) {
        if (found[i] != NULL && sdap_entry_has_oc(found[i], opts->users.oc)
                && sdap_parse_user(names, opts, found[i], &user) == EOK) {
            names[i] = user->name;
        }
    }
    return names;
}

/* The direct members of group g (its entry: e): enumerated groups by their canonical DN,
 * users by the names looked up for the other DNs. */
static errno_t set_direct_members(struct sdap_enum_state *state, struct sdap_group *g,
                                  const struct sdap_entry *e, const char **user_names)
{
    const char *member_attr = state->id_ctx->opts->group_map[SDAP_GA_MEMBER];
    const struct sdap_attr *attr = sdap_entry_attr(e, member_attr);
    struct sdap_strset *users = sdap_strset_new(NULL);
    struct sdap_strset *groups = sdap_strset_new(users);
    struct sdap_group *sub;
    uintptr_t idx;
    char *canon;
    size_t k;
    errno_t ret;

    if (users == NULL || groups == NULL) {
        ret = ENOMEM;
        goto done;
    }
    for (k = 0; attr != NULL && k < attr->num_values; k++) {
        canon = sdap_dn_canon(users, attr->values[k]);
        if (canon == NULL) {
            continue;
        }
        sub = sdap_strmap_get(state->group_dns, canon);
        idx = (uintptr_t)sdap_strmap_get(state->user_dns, canon);
        if (sub != NULL && sub != g) {
            sdap_strset_add(groups, sub->name);
        } else if (sub == NULL && idx > 0 && user_names[idx - 1] != NULL) {
            sdap_strset_add(users, user_names[idx - 1]);
        }
    }
    ret = sdap_group_set_members(g, users, groups);
done:
    talloc_free(users);
    return ret;
}

static void sdap_enumerate_groups_members(struct tevent_req *subreq)
{
    struct tevent_req *req = tevent_req_callback_data(subreq, struct tevent_req);
    struct sdap_enum_state *state = tevent_req_data(req, struct sdap_enum_state);
    struct sdap_entry **found = NULL;
    const char **user_names = NULL;
    size_t i;
    errno_t ret;

    ret = sdap_id_lookup_dns_recv(state, subreq, &found);
    talloc_free(subreq);
    if (ret != EOK) {
        goto done;
    }
    user_names = member_user_names(state, state->id_ctx->opts, found, state->num_dns);
    if (user_names == NULL) {
        ret = ENOMEM;
        goto done;
    }
    for (i = 0; i < state->num; i++) {
        ret = set_direct_members(state, state->groups[i], state->entries[i], user_names);
        if (ret != EOK) {
            goto done;
        }
    }
done:
    talloc_free(found);
    talloc_free(user_names);
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
