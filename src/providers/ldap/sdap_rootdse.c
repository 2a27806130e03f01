/*
 * The search base read from the server when none is configured, as SSSD documents for
 * ldap_search_base: the rootDSE's defaultNamingContext, else its namingContexts when the
 * server holds exactly one. Several naming contexts and no default is ambiguous: the
 * connection fails with a message asking for ldap_search_base.
 * Also the rootDSE's schemaNamingContext: where the forest's schema lives (the global
 * catalog's partial attribute set is read there, sdap_connect_gc.c). It is under the
 * forest root's naming context, not under the domain's search base: SSSD reads it from
 * the rootDSE too.
 */
#include "util/util.h"
#include "providers/ldap/sdap_private.h"

bool sdap_base_needed(const struct sdap_options *opts)
{
    return opts->user_base == NULL || opts->group_base == NULL;
}

errno_t sdap_rootdse_pick_base(const struct sdap_entry *rootdse, const char **_base)
{
    const struct sdap_attr *nc;
    const char *def;

    if (rootdse == NULL) {
        return ENOENT;
    }
    def = sdap_entry_value(rootdse, "defaultNamingContext");
    if (def != NULL && def[0] != '\0') {
        *_base = def;
        return EOK;
    }
    nc = sdap_entry_attr(rootdse, "namingContexts");
    if (nc == NULL || nc->num_values == 0 || nc->values[0][0] == '\0') {
        return ENOENT;
    }
    if (nc->num_values > 1) {
        return E2BIG;
    }
    *_base = nc->values[0];
    return EOK;
}

errno_t sdap_options_set_base(struct sdap_options *opts, const char *base)
{
    char *copy;

    copy = talloc_strdup(opts, base);
    if (copy == NULL) {
        return ENOMEM;
    }
    opts->search_base = copy;
    if (opts->user_base == NULL) {
        opts->user_base = copy;
    }
    if (opts->group_base == NULL) {
        opts->group_base = copy;
    }
    return EOK;
}

struct sdap_rootdse_state {
    struct sdap_options *opts;
    const char *uri;
};

static void sdap_rootdse_done(struct tevent_req *subreq);

struct tevent_req *sdap_rootdse_base_send(TALLOC_CTX *mem_ctx, struct tevent_context *ev,
                                          struct sdap_conn *conn, struct sdap_options *opts,
                                          const char *uri)
{
    static const char *const attrs[] = { "defaultNamingContext", "namingContexts", NULL };
    struct sdap_search_args args = {
        .base = "",
        .scope = LDAP_SCOPE_BASE,
        .filter = "(objectClass=*)",
        .attrs = attrs,
        .timeout = opts->search_timeout,
    };
    struct sdap_rootdse_state *state;
    struct tevent_req *req;
    struct tevent_req *subreq;

    req = tevent_req_create(mem_ctx, &state, struct sdap_rootdse_state);
    if (req == NULL) {
        return NULL;
    }
    state->opts = opts;
    state->uri = uri;
    subreq = sdap_search_send(state, ev, conn, &args, NULL);
    if (subreq == NULL) {
        return sss_req_post(req, ev, ENOMEM);
    }
    tevent_req_set_callback(subreq, sdap_rootdse_done, req);
    return req;
}

static void sdap_rootdse_done(struct tevent_req *subreq)
{
    struct tevent_req *req = tevent_req_callback_data(subreq, struct tevent_req);
    struct sdap_rootdse_state *state = tevent_req_data(req, struct sdap_rootdse_state);
    struct sdap_entry **entries = NULL;
    const char *base = NULL;
    size_t num = 0;
    errno_t ret;

    ret = sdap_search_recv(state, subreq, &entries, &num);
    talloc_free(subreq);
    if (ret != EOK) {
        DEBUG(SSSDBG_OP_FAILURE, "domain %s: reading the rootDSE of %s failed: %s\n",
              state->opts->domain, state->uri, sss_strerror(ret));
        goto done;
    }
    ret = sdap_rootdse_pick_base(num == 1 ? entries[0] : NULL, &base);
    if (ret == E2BIG) {
        DEBUG(SSSDBG_CRIT_FAILURE, "domain %s: %s holds several naming contexts and names "
              "no default one: set ldap_search_base\n", state->opts->domain, state->uri);
        ret = ERR_INVALID_CONFIG;
        goto done;
    }
    if (ret != EOK) {
        DEBUG(SSSDBG_CRIT_FAILURE, "domain %s: the rootDSE of %s names no naming context: "
              "set ldap_search_base\n", state->opts->domain, state->uri);
        ret = ERR_INVALID_CONFIG;
        goto done;
    }
    if (sdap_base_needed(state->opts)) {    /* another connection may have been first */
        ret = sdap_options_set_base(state->opts, base);
        if (ret != EOK) {
            goto done;
        }
    }
    DEBUG(SSSDBG_CONF_SETTINGS, "domain %s: search base %s (from the rootDSE of %s)\n",
          state->opts->domain, base, state->uri);
done:
    talloc_free(entries);
    sdap_req_step(req, ret);
}

errno_t sdap_rootdse_base_recv(struct tevent_req *req)
{
    TEVENT_REQ_RETURN_ON_ERROR(req);
    return EOK;
}

struct sdap_rootdse_schema_state {
    char *dn;
};

static void sdap_rootdse_schema_done(struct tevent_req *subreq);

struct tevent_req *sdap_rootdse_schema_send(TALLOC_CTX *mem_ctx, struct tevent_context *ev,
                                            struct sdap_conn *conn, int timeout,
                                            struct sdap_id_stats *stats)
{
    static const char *const attrs[] = { "schemaNamingContext", NULL };
    struct sdap_search_args args = {
        .base = "",
        .scope = LDAP_SCOPE_BASE,
        .filter = "(objectClass=*)",
        .attrs = attrs,
        .timeout = timeout,
    };
    struct sdap_rootdse_schema_state *state;
    struct tevent_req *req;
    struct tevent_req *subreq;

    req = tevent_req_create(mem_ctx, &state, struct sdap_rootdse_schema_state);
    if (req == NULL) {
        return NULL;
    }
    SSS_CHECK_ARG(conn != NULL, sss_req_post(req, ev, EINVAL));
    subreq = sdap_search_send(state, ev, conn, &args, stats);
    if (subreq == NULL) {
        return sss_req_post(req, ev, ENOMEM);
    }
    tevent_req_set_callback(subreq, sdap_rootdse_schema_done, req);
    return req;
}

static void sdap_rootdse_schema_done(struct tevent_req *subreq)
{
    struct tevent_req *req = tevent_req_callback_data(subreq, struct tevent_req);
    struct sdap_rootdse_schema_state *state = tevent_req_data(req,
                                                    struct sdap_rootdse_schema_state);
    struct sdap_entry **entries = NULL;
    const char *dn;
    size_t num = 0;
    errno_t ret;

    ret = sdap_search_recv(state, subreq, &entries, &num);
    talloc_free(subreq);
    if (ret != EOK) {
        goto done;
    }
    dn = num == 1 ? sdap_entry_value(entries[0], "schemaNamingContext") : NULL;
    if (dn == NULL || dn[0] == '\0') {
        ret = ENOENT;       /* not an AD server (or one hiding its rootDSE) */
        goto done;
    }
    state->dn = talloc_strdup(state, dn);
    ret = state->dn != NULL ? EOK : ENOMEM;
done:
    talloc_free(entries);
    sdap_req_step(req, ret);
}

errno_t sdap_rootdse_schema_recv(TALLOC_CTX *mem_ctx, struct tevent_req *req, char **_dn)
{
    struct sdap_rootdse_schema_state *state = tevent_req_data(req,
                                                    struct sdap_rootdse_schema_state);

    TEVENT_REQ_RETURN_ON_ERROR(req);
    *_dn = talloc_steal(mem_ctx, state->dn);
    return EOK;
}
