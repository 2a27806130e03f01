/*
 * One NIS netgroup by name (sdap_netgroups.h): a subtree search of
 * (&(objectClass=<ldap_netgroup_object_class>)(<ldap_netgroup_name>=<name>)) under the
 * netgroup base, read as struct sdap_netgroup. Values are taken as the directory holds
 * them; empty values and invalid UTF-8 are dropped with a log line (the cache refuses
 * them), repeats are dropped.
 */
#include "util/util.h"
#include "providers/ldap/sdap_private.h"
#include "providers/ldap/sdap_netgroups.h"

struct sdap_get_netgroup_state {
    const struct sdap_options *opts;
    const char *name;
    const char *attrs[5];
    struct sdap_search_args args;
    struct sdap_netgroup *ng;
};

static void sdap_get_netgroup_done(struct tevent_req *subreq);

struct tevent_req *sdap_get_netgroup_send(TALLOC_CTX *mem_ctx, struct tevent_context *ev,
                                          struct sdap_id_ctx *id_ctx, const char *name)
{
    struct sdap_get_netgroup_state *state;
    struct tevent_req *req;
    struct tevent_req *subreq;
    const struct sdap_options *opts;
    char *filter;
    errno_t ret;

    req = tevent_req_create(mem_ctx, &state, struct sdap_get_netgroup_state);
    if (!SDAP_OP_VALID(req, ev, id_ctx)) {
        return req;
    }
    opts = id_ctx->opts;
    state->opts = opts;
    if (name == NULL || name[0] == '\0' || !sdap_utf8_valid(name, strlen(name))) {
        DEBUG(SSSDBG_OP_FAILURE, "Invalid netgroup name\n");
        ret = EINVAL;
        goto done;
    }
    state->name = talloc_strdup(state, name);
    if (state->name == NULL) {
        ret = ENOMEM;
        goto done;
    }
    filter = sdap_filter_eq(state, opts->netgroup_map[SDAP_NA_OC],
                            opts->netgroup_map[SDAP_NA_NAME], name, NULL);
    if (filter == NULL) {
        ret = ENOMEM;
        goto done;
    }
    state->attrs[0] = "objectClass";
    state->attrs[1] = opts->netgroup_map[SDAP_NA_NAME];
    state->attrs[2] = opts->netgroup_map[SDAP_NA_TRIPLE];
    state->attrs[3] = opts->netgroup_map[SDAP_NA_MEMBER];
    state->attrs[4] = NULL;
    state->args = (struct sdap_search_args) {
        /* The search base may only be known once connected (rootDSE). */
        .base_ref = opts->netgroup_base != NULL ? &opts->netgroup_base : &opts->search_base,
        .scope = LDAP_SCOPE_SUBTREE,
        .filter = filter,
        .attrs = state->attrs,
        .timeout = opts->search_timeout,
        .page_size = 0,
        .missing_base_ok = true,
    };
    subreq = sdap_id_search_send(state, ev, id_ctx, &state->args);
    if (subreq == NULL) {
        ret = ENOMEM;
        goto done;
    }
    tevent_req_set_callback(subreq, sdap_get_netgroup_done, req);
    return req;
done:
    return sss_req_post(req, ev, ret);
}

/* The usable values of attr, deduplicated; member DNs reduced to their RDN value. */
static errno_t sdap_netgroup_values(struct sdap_netgroup *ng, const struct sdap_options *opts,
                                    const struct sdap_entry *entry, const char *attr_name,
                                    bool members, const char ***_list, size_t *_num)
{
    const struct sdap_attr *attr = sdap_entry_attr(entry, attr_name);
    struct sdap_strset *set;
    const char *value;
    char *rdn;
    size_t i;

    set = sdap_strset_new(NULL);
    if (set == NULL) {
        return ENOMEM;
    }
    for (i = 0; attr != NULL && i < attr->num_values; i++) {
        value = attr->values[i];
        rdn = NULL;
        if (members && strchr(value, '=') != NULL) {
            rdn = sdap_dn_rdn_value(set, value, opts->netgroup_map[SDAP_NA_NAME]);
            if (rdn != NULL) {
                value = rdn;
            }
        }
        if (value[0] == '\0' || !sdap_utf8_valid(value, strlen(value))) {
            DEBUG(SSSDBG_MINOR_FAILURE, "netgroup '%s': unusable %s value skipped\n",
                  ng->name, attr_name);
            continue;
        }
        sdap_strset_add(set, value);
    }
    *_list = sdap_strset_array(ng, set);
    *_num = sdap_strset_count(set);
    talloc_free(set);
    return *_list != NULL ? EOK : ENOMEM;
}

static void sdap_get_netgroup_done(struct tevent_req *subreq)
{
    struct tevent_req *req = tevent_req_callback_data(subreq, struct tevent_req);
    struct sdap_get_netgroup_state *state =
        tevent_req_data(req, struct sdap_get_netgroup_state);
    const struct sdap_options *opts = state->opts;
    struct sdap_entry **entries = NULL;
    struct sdap_netgroup *ng;
    size_t num = 0;
    errno_t ret;

    ret = sdap_id_search_recv(state, subreq, &entries, &num);
    talloc_free(subreq);
    if (ret != EOK) {
        goto done;
    }
    if (num == 0) {
        ret = ENOENT;
        goto done;
    }
    if (num > 1) {
        DEBUG(SSSDBG_OP_FAILURE, "duplicate: %zu netgroups named '%s'\n", num, state->name);
        ret = EINVAL;
        goto done;
    }
    ng = talloc_zero(state, struct sdap_netgroup);
    if (ng == NULL) {
        ret = ENOMEM;
        goto done;
    }
    /* The name as asked: the filter matched it (equality rules of the directory). */
    ng->name = state->name;
    ng->orig_dn = talloc_strdup(ng, entries[0]->dn);
    if (ng->orig_dn == NULL) {
        ret = ENOMEM;
        goto done;
    }
    ret = sdap_netgroup_values(ng, opts, entries[0], opts->netgroup_map[SDAP_NA_TRIPLE], false,
                               &ng->triples, &ng->num_triples);
    if (ret != EOK) {
        goto done;
    }
    ret = sdap_netgroup_values(ng, opts, entries[0], opts->netgroup_map[SDAP_NA_MEMBER], true,
                               &ng->members, &ng->num_members);
    if (ret != EOK) {
        goto done;
    }
    state->ng = ng;
done:
    talloc_free(entries);
    sdap_req_step(req, ret);
}

errno_t sdap_get_netgroup_recv(TALLOC_CTX *mem_ctx, struct tevent_req *req,
                               struct sdap_netgroup **_ng)
{
    struct sdap_get_netgroup_state *state;

    SSS_CHECK_ARG(req != NULL && _ng != NULL, EINVAL);
    state = tevent_req_data(req, struct sdap_get_netgroup_state);
    TEVENT_REQ_RETURN_ON_ERROR(req);
    talloc_steal(state->ng, state->name);
    *_ng = talloc_steal(mem_ctx, state->ng);
    return EOK;
}
