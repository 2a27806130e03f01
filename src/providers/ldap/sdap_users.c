/*
 * Looking up one user, by name or by uid, under ldap_user_search_base:
 * (&(objectClass=<user oc>)(<name attr>=<escaped name>)<ldap_user_search_filter>) or the
 * same with the uid number. The request is sdap_id_lookup_one's own, and its entry is
 * parsed when the result is read: no entry gives ENOENT; several entries give EINVAL
 * (logged as a duplicate: the directory is inconsistent and guessing could hand out the
 * wrong identity); one unusable entry (see sdap_schema.c) gives ENOENT.
 *
 * Looking up users by e-mail address (SSSD's fallback for a name that is no user's name):
 * the same search with (<ldap_user_email>=<escaped address>). Several users may share an
 * address: every usable one is returned, and the cache decides (sysdb_get_users_by_email).
 */
#include "util/util.h"
#include "providers/ldap/sdap_private.h"

errno_t sdap_user_extra(TALLOC_CTX *mem_ctx, const struct sdap_options *opts,
                        const struct sdap_entry *entry, const char ***_pairs)
{
    const struct sdap_attr *attr;
    const char **pairs;
    size_t total = 0;
    size_t n = 0;
    size_t i, j;

    for (i = 0; i < opts->num_extra; i++) {
        attr = sdap_entry_attr(entry, opts->extra_ldap[i]);
        total += attr != NULL ? attr->num_values : 0;
    }
    pairs = talloc_zero_array(mem_ctx, const char *, 2 * total + 1);
    if (pairs == NULL) {
        return ENOMEM;
    }
    for (i = 0; i < opts->num_extra; i++) {
        attr = sdap_entry_attr(entry, opts->extra_ldap[i]);
        for (j = 0; attr != NULL && j < attr->num_values; j++) {
            if (attr->values[j][0] == '\0'
                    || !sdap_utf8_valid(attr->values[j], strlen(attr->values[j]))) {
                DEBUG(SSSDBG_MINOR_FAILURE, "'%s': a value of %s is empty or not UTF-8: "
                      "skipped\n", entry->dn, attr->name);
                continue;
            }
            pairs[n++] = opts->extra_names[i];
            pairs[n] = talloc_strdup(pairs, attr->values[j]);
            if (pairs[n++] == NULL) {
                talloc_free(pairs);
                return ENOMEM;
            }
        }
    }
    *_pairs = pairs;
    return EOK;
}

struct tevent_req *sdap_get_user_send(TALLOC_CTX *mem_ctx, struct tevent_context *ev,
                                      struct sdap_id_ctx *id_ctx, enum sdap_by by,
                                      const char *name, uint32_t id)
{
    return sdap_id_lookup_one_send(mem_ctx, ev, id_ctx, SDAP_KIND_USERS, by, name, id);
}

errno_t sdap_get_user_recv(TALLOC_CTX *mem_ctx, struct tevent_req *req,
                           struct sdap_user **_user)
{
    TALLOC_CTX *tmp_ctx;
    const struct sdap_options *opts = NULL;
    struct sdap_entry *entry = NULL;
    errno_t ret;

    if (!SSS_ARG_VALID(_user != NULL)) {
        return EINVAL;
    }
    tmp_ctx = talloc_new(NULL);
    if (tmp_ctx == NULL) {
        return ENOMEM;
    }
    ret = sdap_id_lookup_one_recv(tmp_ctx, req, &opts, &entry);
    if (ret != EOK) {
        goto done;
    }
    ret = sdap_parse_user(mem_ctx, opts, entry, _user);
    if (ret == EINVAL) {
        ret = ENOENT;   /* unusable entry, logged */
    }
done:
    talloc_free(tmp_ctx);
    return ret;
}

struct sdap_get_users_by_email_state {
    const struct sdap_options *opts;
    struct sdap_search_args args;
    struct sdap_user **users;
    size_t num_users;
};

static void sdap_get_users_by_email_done(struct tevent_req *subreq);

struct tevent_req *sdap_get_users_by_email_send(TALLOC_CTX *mem_ctx,
                                                struct tevent_context *ev,
                                                struct sdap_id_ctx *id_ctx,
                                                const char *email)
{
    struct sdap_get_users_by_email_state *state;
    const struct sdap_kind *users;
    struct tevent_req *req;
    struct tevent_req *subreq;
    char *filter;

    req = tevent_req_create(mem_ctx, &state, struct sdap_get_users_by_email_state);
    if (!SDAP_OP_VALID(req, ev, id_ctx)) {
        return req;     /* NULL, or failing with EINVAL */
    }
    state->opts = id_ctx->opts;
    users = &state->opts->users;
    if (state->opts->user_map[SDAP_UA_EMAIL] == NULL || !sdap_valid_name(email)) {
        /* No attribute to search (ldap_user_email unset), or nothing a user could hold. */
        return sss_req_post(req, ev, ENOENT);
    }
    filter = sdap_filter_eq(state, users->oc, state->opts->user_map[SDAP_UA_EMAIL], email,
                            users->filter);
    if (filter == NULL) {
        return sss_req_post(req, ev, ENOMEM);
    }
    state->args = sdap_kind_search(users, filter, state->opts->search_timeout, 0);
    subreq = sdap_id_search_send(state, ev, id_ctx, &state->args);
    if (subreq == NULL) {
        return sss_req_post(req, ev, ENOMEM);
    }
    tevent_req_set_callback(subreq, sdap_get_users_by_email_done, req);
    return req;
}

static void sdap_get_users_by_email_done(struct tevent_req *subreq)
{
    struct tevent_req *req = tevent_req_callback_data(subreq, struct tevent_req);
    struct sdap_get_users_by_email_state *state =
        tevent_req_data(req, struct sdap_get_users_by_email_state);
    struct sdap_entry **entries = NULL;
    struct sdap_user *user;
    size_t num = 0;
    size_t i;
    errno_t ret;

    ret = sdap_id_search_recv(state, subreq, &entries, &num);
    talloc_free(subreq);
    if (ret != EOK) {
        goto done;
    }
    state->users = talloc_zero_array(state, struct sdap_user *, num + 1);
    if (state->users == NULL) {
        ret = ENOMEM;
        goto done;
    }
    for (i = 0; i < num; i++) {
        ret = sdap_parse_user(state->users, state->opts, entries[i], &user);
        if (ret == EINVAL) {
            continue;       /* unusable: logged */
        }
        if (ret != EOK) {
            goto done;
        }
        state->users[state->num_users++] = user;
    }
    ret = EOK;
done:
    talloc_free(entries);
    sdap_req_step(req, ret);
}

errno_t sdap_get_users_by_email_recv(TALLOC_CTX *mem_ctx, struct tevent_req *req,
                                     struct sdap_user ***_users, size_t *_num_users)
{
    struct sdap_get_users_by_email_state *state =
        tevent_req_data(req, struct sdap_get_users_by_email_state);

    TEVENT_REQ_RETURN_ON_ERROR(req);
    if (!SSS_ARG_VALID(_users != NULL && _num_users != NULL)) {
        return EINVAL;
    }
    *_users = talloc_steal(mem_ctx, state->users);
    *_num_users = state->num_users;
    return EOK;
}
