/*
 * GPO-based access control in sssd_be (ad_gpo_access.h), as SSSD's ad_gpo.c does it:
 *   1. the PAM service maps to a logon right (ad_gpo_map_*); permit and deny need nothing
 *      more;
 *   2. the user's SIDs: objectSid and tokenGroups of its entry (nested groups included),
 *      Authenticated Users always;
 *   3. unless the GPO list is younger than ad_gpo_cache_timeout: the computer object
 *      (sAMAccountName SHORTHOST$, from ad_hostname or the host name) and its objectSid,
 *      the gPLink and gPOptions of each OU above it and of the domain, the GPOs in
 *      precedence order (ad_gpo.h), each GPO's container (gPCFunctionalityVersion 2,
 *      machine part enabled, the Security CSE named) with its DACL (nTSecurityDescriptor
 *      under the SD flags control, ad_gpo_sd.h); the list is kept in memory;
 *   4. security filtering, per logon: a GPO applies when its DACL grants Apply Group
 *      Policy to the user, its groups or the host (ad_gpo_sd_applies);
 *   5. each applying GPO's GptTmpl.inf, from memory, else the cache when it holds the
 *      directory's versionNumber, else from SYSVOL through gpo_child (ad_gpo_fetch.c);
 *   6. the decision (ad_gpo_check): enforcing denies, permissive logs what would have been
 *      denied (user, service, right, the GPOs that set the lists) and allows.
 * The site is the last SOM (SSSD's order): ad_site, else the client site the DC names in
 * its answer to an LDAP ping (CLDAP), under the configurationNamingContext of the rootDSE.
 */
#include <ctype.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "util/util.h"
#include "providers/ad/ad_gpo_access.h"
#include "providers/ad/ad_gpo_fetch.h"
#include "providers/ad/ad_gpo_sd.h"

#define GPO_CHILD_TIMEOUT 30

/* An entry's first value of name, or def. */
static const char *value_or(const struct sdap_entry *e, const char *name, const char *def)
{
    const char *v = sdap_entry_value(e, name);

    return v != NULL ? v : def;
}

struct ad_gpo_ctx {
    char *domain;
    enum ad_gpo_mode mode;
    struct ad_gpo_map *map;
    bool implicit_deny;
    bool ignore_unreadable;
    int cache_timeout;
    char *account;                  /* SHORTHOST$ */
    char *dns_domain;               /* ad_domain, else the domain's name */
    char *site;                     /* ad_site; NULL: asked from the DC */
    /* The last GPO list (struct ad_gpo_gpo, with the files read so far), the host's SID,
     * and when the list was read. */
    struct ad_gpo_gpo *gpos;
    size_t num_gpos;
    char *host_sid;
    time_t gpos_time;
};

enum ad_gpo_mode ad_gpo_ctx_mode(const struct ad_gpo_ctx *ctx)
{
    return ctx != NULL ? ctx->mode : AD_GPO_MODE_DISABLED;
}

errno_t ad_gpo_ctx_create(TALLOC_CTX *mem_ctx, struct confdb *cdb, const char *section,
                          const char *domain, struct ad_gpo_ctx **_ctx)
{
    static const char *const map_opts[AD_GPO_RIGHT_NUM] = {
        "ad_gpo_map_interactive", "ad_gpo_map_remote_interactive", "ad_gpo_map_network",
        "ad_gpo_map_batch", "ad_gpo_map_service", "ad_gpo_map_permit", "ad_gpo_map_deny"
    };
    TALLOC_CTX *tmp_ctx = talloc_new(NULL);
    struct ad_gpo_ctx *ctx;
    char *opts[AD_GPO_RIGHT_NUM] = { NULL };
    char *value = NULL;
    char host[256];
    size_t len;
    errno_t ret;

    SSS_CHECK_ARG(cdb != NULL && section != NULL && domain != NULL && _ctx != NULL, EINVAL);
    ctx = talloc_zero(mem_ctx, struct ad_gpo_ctx);
    if (tmp_ctx == NULL || ctx == NULL) {
        ret = ENOMEM;
        goto done;
    }
    ctx->domain = talloc_strdup(ctx, domain);
    ret = ctx->domain == NULL ? ENOMEM : EOK;
    if (ret == EOK) {
        ret = confdb_get_string(cdb, tmp_ctx, section, "ad_gpo_access_control", &value);
    }
    if (ret != EOK) {
        goto done;
    }
    ctx->mode = value != NULL && strcasecmp(value, "disabled") == 0 ? AD_GPO_MODE_DISABLED
        : value != NULL && strcasecmp(value, "permissive") == 0 ? AD_GPO_MODE_PERMISSIVE
        : AD_GPO_MODE_ENFORCING;
    for (int r = 0; r < AD_GPO_RIGHT_NUM; r++) {
        ret = confdb_get_string(cdb, tmp_ctx, section, map_opts[r], &opts[r]);
        if (ret != EOK) {
            goto done;
        }
    }
    ret = confdb_get_string(cdb, tmp_ctx, section, "ad_gpo_default_right", &value);
    if (ret == EOK) {
        ret = ad_gpo_map_create(ctx, (const char *const *)opts, value, &ctx->map);
        if (ret == EINVAL) {
            ret = ERR_INVALID_CONFIG;
        }
    }
    if (ret == EOK) {
        ret = confdb_get_bool(cdb, section, "ad_gpo_implicit_deny", &ctx->implicit_deny);
    }
    if (ret == EOK) {
        ret = confdb_get_bool(cdb, section, "ad_gpo_ignore_unreadable",
                              &ctx->ignore_unreadable);
    }
    if (ret == EOK) {
        ret = confdb_get_int(cdb, section, "ad_gpo_cache_timeout", &ctx->cache_timeout);
    }
    if (ret == EOK) {
        ret = confdb_get_string(cdb, ctx, section, "ad_site", &ctx->site);
    }
    if (ret == EOK) {
        ret = confdb_get_string(cdb, ctx, section, "ad_domain", &ctx->dns_domain);
    }
    if (ret == EOK && ctx->dns_domain == NULL) {
        ctx->dns_domain = talloc_strdup(ctx, domain);
        ret = ctx->dns_domain == NULL ? ENOMEM : EOK;
    }
    if (ret == EOK) {
        ret = confdb_get_string(cdb, tmp_ctx, section, "ad_hostname", &value);
    }
    if (ret != EOK) {
        goto done;
    }
    if (value == NULL || value[0] == '\0') {
        if (gethostname(host, sizeof(host) - 1) != 0) {
            ret = errno;
            goto done;
        }
        host[sizeof(host) - 1] = '\0';
        value = host;
    }
    len = strcspn(value, ".");
    ctx->account = talloc_asprintf(ctx, "%.*s$", (int)len, value);
    if (ctx->account == NULL) {
        ret = ENOMEM;
        goto done;
    }
    for (char *c = ctx->account; *c != '\0'; c++) {
        *c = (char)toupper((unsigned char)*c);
        /* It goes into an LDAP filter: a host name's characters only. */
        if (!isalnum((unsigned char)*c) && strchr("-_$", *c) == NULL) {
            DEBUG(SSSDBG_CRIT_FAILURE, "Domain %s: host name '%s' cannot name a computer "
                  "account\n", domain, value);
            ret = ERR_INVALID_CONFIG;
            goto done;
        }
    }
    ret = EOK;
done:
    talloc_free(tmp_ctx);
    if (ret != EOK) {
        talloc_free(ctx);
        return ret;
    }
    *_ctx = ctx;
    return EOK;
}

/* ---- the request ------------------------------------------------------------------- */

struct ad_gpo_gpo {
    char *dn;
    char *guid;
    char *name;
    char *path;                 /* gPCFileSysPath */
    uint32_t version;
    struct ad_gpo_sd *sd;
    bool have_data;             /* data: its GptTmpl.inf, once read */
    uint8_t *data;
    size_t len;
};

struct ad_gpo_access_state {
    struct tevent_context *ev;
    struct ad_gpo_ctx *ctx;
    struct sdap_id_ctx *id_ctx;
    char *user_dn;
    char *service;
    enum ad_gpo_right right;
    struct sdap_search_args args;
    char *user_sid;
    char *host_sid;
    const char **group_sids;
    size_t num_groups;
    char **soms;                        /* OUs, domain, then the site */
    size_t num_soms;
    char *site;
    char *server;                       /* the DC the lookups went to */
    size_t som_idx;
    struct ad_gpo_som *som_links;
    bool enforced_only;
    char **cands;
    size_t num_cands;
    size_t cand_idx;
    struct ad_gpo_gpo *gpos;            /* the context's when from_ctx */
    size_t num_gpos;
    bool from_ctx;
    size_t gpo_idx;
    struct ad_gpo_settings *policy;     /* being built */
    char *sources[AD_GPO_NUM_KEYS];
    bool allowed;
};

static errno_t ad_gpo_search(struct tevent_req *req, const char *base, int scope,
                             const char *filter, const char *const *attrs, int sd_flags,
                             tevent_req_fn fn);
static errno_t ad_gpo_lookup(struct tevent_req *req);
static void ad_gpo_user_done(struct tevent_req *subreq);
static void ad_gpo_computer_done(struct tevent_req *subreq);
static void ad_gpo_site_done(struct tevent_req *subreq);
static errno_t ad_gpo_site_name(struct tevent_req *req, const char *site);
static void ad_gpo_config_nc_done(struct tevent_req *subreq);
static errno_t ad_gpo_next_som(struct tevent_req *req);
static void ad_gpo_som_done(struct tevent_req *subreq);
static errno_t ad_gpo_next_gpo_entry(struct tevent_req *req);
static void ad_gpo_gpo_entry_done(struct tevent_req *subreq);
static errno_t ad_gpo_next_file(struct tevent_req *req);
static void ad_gpo_child_done(struct tevent_req *subreq);
static errno_t ad_gpo_decide(struct tevent_req *req);

struct tevent_req *ad_gpo_access_send(TALLOC_CTX *mem_ctx, struct tevent_context *ev,
                                      struct ad_gpo_ctx *ctx, struct sdap_id_ctx *id_ctx,
                                      const char *user_dn, const char *service)
{
    static const char *const attrs[] = { "objectSid", "tokenGroups", NULL };
    struct ad_gpo_access_state *state;
    struct tevent_req *req;
    errno_t ret;

    req = tevent_req_create(mem_ctx, &state, struct ad_gpo_access_state);
    if (req == NULL) {
        return NULL;
    }
    if (ev == NULL || ctx == NULL || id_ctx == NULL || user_dn == NULL) {
        (void)sss_arg_invalid(__func__, "ev, ctx, id_ctx, user_dn");
        return sdap_req_invalid(req, ev);
    }
    tevent_req_defer_callback(req, ev);
    state->ev = ev;
    state->ctx = ctx;
    state->id_ctx = id_ctx;
    state->user_dn = talloc_strdup(state, user_dn);
    state->service = talloc_strdup(state, service != NULL ? service : "");
    if (state->user_dn == NULL || state->service == NULL) {
        ret = ENOMEM;
        goto done;
    }
    state->right = ad_gpo_map_service(ctx->map, state->service);
    if (state->right == AD_GPO_RIGHT_PERMIT || state->right == AD_GPO_RIGHT_DENY) {
        state->policy = talloc_zero(state, struct ad_gpo_settings);
        ret = state->policy == NULL ? ENOMEM : ad_gpo_decide(req);
        goto done;
    }
    ret = ad_gpo_search(req, state->user_dn, LDAP_SCOPE_BASE, "(objectClass=*)", attrs, 0,
                        ad_gpo_user_done);
    if (ret != EOK) {
        goto done;
    }
    return req;
done:
    if (ret == EOK) {
        return tevent_req_post(req, ev);
    }
    return sss_req_post(req, ev, ret);
}

static errno_t ad_gpo_search(struct tevent_req *req, const char *base, int scope,
                             const char *filter, const char *const *attrs, int sd_flags,
                             tevent_req_fn fn)
{
    struct ad_gpo_access_state *state = tevent_req_data(req, struct ad_gpo_access_state);

    return sdap_id_search_step(req, state->ev, state->id_ctx, &state->args, base, scope,
                               filter, attrs, sd_flags, fn);
}

/* The host of the DC the lookup connection talks to: it answers the LDAP ping and serves
 * SYSVOL. */
static errno_t ad_gpo_server(struct ad_gpo_access_state *state)
{
    const char *uri = state->id_ctx->last_uri;

    if (uri != NULL && strncasecmp(uri, "ldap://", 7) == 0) {
        uri += 7;
    } else if (uri != NULL && strncasecmp(uri, "ldaps://", 8) == 0) {
        uri += 8;
    }
    if (uri == NULL || uri[0] == '\0') {
        return EIO;
    }
    state->server = talloc_strndup(state, uri, strcspn(uri, ":/"));
    return state->server == NULL ? ENOMEM : EOK;
}

/* Ends the request with ret (EOK: already done). */
static void ad_gpo_step_end(struct tevent_req *req, errno_t ret)
{
    if (ret != EOK) {
        tevent_req_error(req, ret);
    }
}

static void ad_gpo_user_done(struct tevent_req *subreq)
{
    struct tevent_req *req = tevent_req_callback_data(subreq, struct tevent_req);
    struct ad_gpo_access_state *state = tevent_req_data(req, struct ad_gpo_access_state);
    const struct sdap_attr *tg;
    struct sdap_entry **entries = NULL;
    const char *sid;
    size_t num = 0;
    errno_t ret;

    ret = sdap_id_search_recv(state, subreq, &entries, &num);
    talloc_free(subreq);
    if (ret != EOK) {
        goto done;
    }
    sid = num == 1 ? sdap_entry_value(entries[0], "objectSid") : NULL;
    if (sid == NULL) {
        DEBUG(SSSDBG_OP_FAILURE, "GPO: no objectSid for '%s'\n", state->user_dn);
        ret = ENOENT;
        goto done;
    }
    state->user_sid = talloc_strdup(state, sid);
    tg = sdap_entry_attr(entries[0], "tokenGroups");
    state->num_groups = tg != NULL ? tg->num_values : 0;
    state->group_sids = talloc_zero_array(state, const char *, state->num_groups + 1);
    if (state->user_sid == NULL || state->group_sids == NULL) {
        ret = ENOMEM;
        goto done;
    }
    for (size_t i = 0; i < state->num_groups; i++) {
        state->group_sids[i] = talloc_steal(state->group_sids, tg->values[i]);
    }
    if (state->ctx->gpos != NULL
            && time(NULL) - state->ctx->gpos_time < state->ctx->cache_timeout) {
        /* The list in memory; ad_gpo_next_file turns to ad_gpo_lookup when a file this
         * logon needs was not read yet. */
        state->from_ctx = true;
        state->gpos = state->ctx->gpos;
        state->num_gpos = state->ctx->num_gpos;
        state->host_sid = state->ctx->host_sid;
        state->policy = talloc_zero(state, struct ad_gpo_settings);
        ret = state->policy == NULL ? ENOMEM : ad_gpo_next_file(req);
        goto done;
    }
    ret = ad_gpo_lookup(req);
done:
    talloc_free(entries);
    ad_gpo_step_end(req, ret);
}

/* From the computer object on: the GPO list as the directory has it now. */
static errno_t ad_gpo_lookup(struct tevent_req *req)
{
    struct ad_gpo_access_state *state = tevent_req_data(req, struct ad_gpo_access_state);
    static const char *const attrs[] = { "distinguishedName", "objectSid", NULL };
    char *filter;

    state->from_ctx = false;
    state->gpos = NULL;
    state->num_gpos = 0;
    state->gpo_idx = 0;
    state->host_sid = NULL;
    talloc_free(state->policy);
    state->policy = NULL;
    for (int k = 0; k < AD_GPO_NUM_KEYS; k++) {
        talloc_free(state->sources[k]);
        state->sources[k] = NULL;
    }
    filter = talloc_asprintf(state, "(&(objectClass=computer)(sAMAccountName=%s))",
                             state->ctx->account);
    if (filter == NULL) {
        return ENOMEM;
    }
    return ad_gpo_search(req, NULL, LDAP_SCOPE_SUBTREE, filter, attrs, 0,
                         ad_gpo_computer_done);
}

static void ad_gpo_computer_done(struct tevent_req *subreq)
{
    struct tevent_req *req = tevent_req_callback_data(subreq, struct tevent_req);
    struct ad_gpo_access_state *state = tevent_req_data(req, struct ad_gpo_access_state);
    struct sdap_entry **entries = NULL;
    size_t num = 0;
    errno_t ret;

    ret = sdap_id_search_recv(state, subreq, &entries, &num);
    talloc_free(subreq);
    if (ret != EOK) {
        goto done;
    }
    ret = ad_gpo_server(state);
    if (ret != EOK) {
        goto done;
    }
    if (num != 1) {
        DEBUG(SSSDBG_OP_FAILURE, "GPO: the computer account %s %s in the directory\n",
              state->ctx->account, num == 0 ? "is not" : "is not unique");
        ret = ENOENT;
        goto done;
    }
    DEBUG(SSSDBG_TRACE_FUNC, "GPO: computer object %s\n", entries[0]->dn);
    /* Security filtering counts the host's SID (SSSD does). */
    if (sdap_entry_value(entries[0], "objectSid") == NULL) {
        DEBUG(SSSDBG_OP_FAILURE, "GPO: no objectSid for %s\n", entries[0]->dn);
        ret = ENOENT;
        goto done;
    }
    state->host_sid = talloc_strdup(state, sdap_entry_value(entries[0], "objectSid"));
    if (state->host_sid == NULL) {
        ret = ENOMEM;
        goto done;
    }
    ret = ad_gpo_som_dns(state, entries[0]->dn, &state->soms, &state->num_soms);
    if (ret != EOK) {
        goto done;
    }
    if (state->ctx->site != NULL) {
        ret = ad_gpo_site_name(req, state->ctx->site);
        goto done;
    }
    subreq = sdap_cldap_ping_send(state, state->ev, state->server, state->ctx->dns_domain,
                                  state->id_ctx->opts->network_timeout);
    if (subreq == NULL) {
        ret = ENOMEM;
        goto done;
    }
    tevent_req_set_callback(subreq, ad_gpo_site_done, req);
done:
    talloc_free(entries);
    ad_gpo_step_end(req, ret);
}

/* The client's site as the DC sees it (SSSD asks the same way). */
static void ad_gpo_site_done(struct tevent_req *subreq)
{
    struct tevent_req *req = tevent_req_callback_data(subreq, struct tevent_req);
    struct ad_gpo_access_state *state = tevent_req_data(req, struct ad_gpo_access_state);
    char *site = NULL;
    char *forest = NULL;
    errno_t ret;

    ret = sdap_cldap_ping_recv(state, subreq, &site, &forest);
    talloc_free(subreq);
    if (ret == EOK && (site == NULL || site[0] == '\0')) {
        ret = ENOENT;
    }
    if (ret != EOK) {
        DEBUG(SSSDBG_OP_FAILURE, "GPO: the client's site could not be read from %s: %s\n",
              state->server, sss_strerror(ret));
        tevent_req_error(req, ret);
        return;
    }
    ret = ad_gpo_site_name(req, site);
    ad_gpo_step_end(req, ret);
}

static errno_t ad_gpo_site_name(struct tevent_req *req, const char *site)
{
    struct ad_gpo_access_state *state = tevent_req_data(req, struct ad_gpo_access_state);
    static const char *const attrs[] = { "configurationNamingContext", NULL };

    /* A name that would change the DN's structure is not a site's. */
    if (site[0] == '\0' || strpbrk(site, ",=+<>#;\\\"") != NULL) {
        DEBUG(SSSDBG_OP_FAILURE, "GPO: unusable site name '%s'\n", site);
        return EINVAL;
    }
    state->site = talloc_strdup(state, site);
    if (state->site == NULL) {
        return ENOMEM;
    }
    return ad_gpo_search(req, "", LDAP_SCOPE_BASE, "(objectClass=*)", attrs, 0,
                         ad_gpo_config_nc_done);
}

static void ad_gpo_config_nc_done(struct tevent_req *subreq)
{
    struct tevent_req *req = tevent_req_callback_data(subreq, struct tevent_req);
    struct ad_gpo_access_state *state = tevent_req_data(req, struct ad_gpo_access_state);
    struct sdap_entry **entries = NULL;
    const char *nc;
    char **soms;
    size_t num = 0;
    errno_t ret;

    ret = sdap_id_search_recv(state, subreq, &entries, &num);
    talloc_free(subreq);
    if (ret != EOK) {
        goto done;
    }
    nc = num == 1 ? sdap_entry_value(entries[0], "configurationNamingContext") : NULL;
    if (nc == NULL) {
        DEBUG(SSSDBG_OP_FAILURE, "GPO: the rootDSE names no configurationNamingContext\n");
        ret = ENOENT;
        goto done;
    }
    soms = talloc_realloc(state, state->soms, char *, state->num_soms + 2);
    if (soms == NULL) {
        ret = ENOMEM;
        goto done;
    }
    state->soms = soms;
    soms[state->num_soms] = talloc_asprintf(soms, "CN=%s,CN=Sites,%s", state->site, nc);
    soms[state->num_soms + 1] = NULL;
    if (soms[state->num_soms] == NULL) {
        ret = ENOMEM;
        goto done;
    }
    DEBUG(SSSDBG_TRACE_FUNC, "GPO: site %s\n", soms[state->num_soms]);
    state->num_soms++;
    state->som_links = talloc_zero_array(state, struct ad_gpo_som, state->num_soms);
    if (state->som_links == NULL) {
        ret = ENOMEM;
        goto done;
    }
    ret = ad_gpo_next_som(req);
done:
    talloc_free(entries);
    ad_gpo_step_end(req, ret);
}

/* gPLink and gPOptions of each SOM, nearest first. */
static errno_t ad_gpo_next_som(struct tevent_req *req)
{
    struct ad_gpo_access_state *state = tevent_req_data(req, struct ad_gpo_access_state);
    static const char *const attrs[] = { "gPLink", "gPOptions", NULL };

    if (state->som_idx < state->num_soms) {
        return ad_gpo_search(req, state->soms[state->som_idx], LDAP_SCOPE_BASE,
                             "(objectClass=*)", attrs, 0, ad_gpo_som_done);
    }
    assert(state->som_idx == state->num_soms);
    return ad_gpo_candidates(state, state->som_links, state->num_soms, &state->cands,
                             &state->num_cands) != EOK ? ENOMEM : ad_gpo_next_gpo_entry(req);
}

static void ad_gpo_som_done(struct tevent_req *subreq)
{
    struct tevent_req *req = tevent_req_callback_data(subreq, struct tevent_req);
    struct ad_gpo_access_state *state = tevent_req_data(req, struct ad_gpo_access_state);
    struct ad_gpo_som *som = &state->som_links[state->som_idx];
    struct sdap_entry **entries = NULL;
    const char *gplink;
    const char *options;
    size_t num = 0;
    errno_t ret;

    ret = sdap_id_search_recv(state, subreq, &entries, &num);
    talloc_free(subreq);
    if (ret != EOK) {
        goto done;
    }
    som->dn = state->soms[state->som_idx];
    gplink = num == 1 ? sdap_entry_value(entries[0], "gPLink") : NULL;
    options = num == 1 ? sdap_entry_value(entries[0], "gPOptions") : NULL;
    if (gplink != NULL) {
        ret = ad_gpo_gplink_parse(state, gplink, state->enforced_only, &som->links,
                                  &som->num_links);
        if (ret != EOK) {
            DEBUG(SSSDBG_OP_FAILURE, "GPO: malformed gPLink on %s\n", som->dn);
            goto done;
        }
    }
    /* Blocking inheritance here keeps only enforced links of the SOMs above. */
    if (options != NULL && strtoul(options, NULL, 10) & 1) {
        state->enforced_only = true;
    }
    state->som_idx++;
    ret = ad_gpo_next_som(req);
done:
    talloc_free(entries);
    ad_gpo_step_end(req, ret);
}

/* Each candidate GPO's container, in precedence order. */
static errno_t ad_gpo_next_gpo_entry(struct tevent_req *req)
{
    struct ad_gpo_access_state *state = tevent_req_data(req, struct ad_gpo_access_state);
    static const char *const attrs[] = {
        "cn", "displayName", "flags", "gPCFileSysPath", "gPCMachineExtensionNames",
        "gPCFunctionalityVersion", "versionNumber", SDAP_AD_SD, NULL
    };

    /* The DACL only: what the machine account may read (SSSD asks the same). */
    if (state->cand_idx < state->num_cands) {
        return ad_gpo_search(req, state->cands[state->cand_idx], LDAP_SCOPE_BASE,
                             "(objectClass=groupPolicyContainer)", attrs, 4,
                             ad_gpo_gpo_entry_done);
    }
    state->policy = talloc_zero(state, struct ad_gpo_settings);
    if (state->policy == NULL) {
        return ENOMEM;
    }
    return ad_gpo_next_file(req);
}

static void ad_gpo_gpo_entry_done(struct tevent_req *subreq)
{
    struct tevent_req *req = tevent_req_callback_data(subreq, struct tevent_req);
    struct ad_gpo_access_state *state = tevent_req_data(req, struct ad_gpo_access_state);
    const char *dn = state->cands[state->cand_idx];
    struct sdap_entry **entries = NULL;
    struct ad_gpo_sd *sd = NULL;
    struct ad_gpo_gpo *g;
    const char *v;
    char *bin = NULL;
    size_t num = 0;
    size_t len = 0;
    errno_t ret;

    ret = sdap_id_search_recv(state, subreq, &entries, &num);
    talloc_free(subreq);
    if (ret != EOK) {
        goto done;
    }
    state->cand_idx++;
    /* Its DACL: kept as hex by the entry parser, parsed as untrusted bytes. */
    v = num == 1 ? sdap_entry_value(entries[0], SDAP_AD_SD) : NULL;
    if (v != NULL) {
        bin = talloc_size(state, strlen(v) / 2 + 1);
        len = bin != NULL ? sdap_hex_decode(v, bin) : 0;
        if (bin == NULL) {
            ret = ENOMEM;
            goto done;
        }
        if (len == 0 || ad_gpo_sd_parse(state, (uint8_t *)bin, len, &sd) != EOK) {
            DEBUG(SSSDBG_OP_FAILURE, "GPO %s: malformed nTSecurityDescriptor (%zu "
                  "bytes)\n", dn, len);
            sd = NULL;
        }
    }
    if (num != 1 || sd == NULL) {
        /* SSSD: an unreadable linked GPO fails the check, unless ignored. */
        if (!state->ctx->ignore_unreadable) {
            DEBUG(SSSDBG_OP_FAILURE, "GPO: linked %s cannot be read%s (set "
                  "ad_gpo_ignore_unreadable = True to skip it)\n", dn,
                  num == 1 ? " (no usable nTSecurityDescriptor)" : "");
            ret = EACCES;
            goto done;
        }
        DEBUG(SSSDBG_MINOR_FAILURE, "GPO: linked %s cannot be read: skipped\n", dn);
        ret = ad_gpo_next_gpo_entry(req);
        goto done;
    }
    v = sdap_entry_value(entries[0], "gPCFunctionalityVersion");
    if (v == NULL || strcmp(v, "2") != 0
            || (strtoul(value_or(entries[0], "flags", "0"), NULL, 10) & 2)
            || !ad_gpo_has_security_cse(sdap_entry_value(entries[0],
                                                         "gPCMachineExtensionNames"))
            || sdap_entry_value(entries[0], "gPCFileSysPath") == NULL
            || sdap_entry_value(entries[0], "cn") == NULL) {
        DEBUG(SSSDBG_TRACE_FUNC, "GPO %s: no computer security settings: skipped\n", dn);
        ret = ad_gpo_next_gpo_entry(req);
        goto done;
    }
    g = talloc_realloc(state, state->gpos, struct ad_gpo_gpo, state->num_gpos + 1);
    if (g == NULL) {
        ret = ENOMEM;
        goto done;
    }
    state->gpos = g;
    g = &g[state->num_gpos++];
    *g = (struct ad_gpo_gpo){ 0 };
    g->dn = talloc_strdup(state->gpos, dn);
    g->guid = talloc_strdup(state->gpos, sdap_entry_value(entries[0], "cn"));
    v = sdap_entry_value(entries[0], "displayName");
    g->name = talloc_strdup(state->gpos, v != NULL ? v : g->guid);
    g->path = talloc_strdup(state->gpos, sdap_entry_value(entries[0], "gPCFileSysPath"));
    g->version = (uint32_t)strtoul(value_or(entries[0], "versionNumber", "0"), NULL, 10);
    g->sd = talloc_steal(state->gpos, sd);
    sd = NULL;
    if (g->dn == NULL || g->guid == NULL || g->name == NULL || g->path == NULL) {
        ret = ENOMEM;
        goto done;
    }
    /* A GUID names the cache directory: nothing but a {GUID} is taken. */
    if (g->guid[0] != '{' || strspn(g->guid + 1, "0123456789abcdefABCDEF-") + 2
            != strlen(g->guid) || g->guid[strlen(g->guid) - 1] != '}') {
        DEBUG(SSSDBG_OP_FAILURE, "GPO %s: malformed cn '%s'\n", dn, g->guid);
        ret = EINVAL;
        goto done;
    }
    ret = ad_gpo_next_gpo_entry(req);
done:
    talloc_free(sd);
    talloc_free(bin);
    talloc_free(entries);
    ad_gpo_step_end(req, ret);
}

/* Applies one GPO's file to the policy being built. */
static errno_t ad_gpo_apply(struct ad_gpo_access_state *state, const struct ad_gpo_gpo *g,
                            const uint8_t *data, size_t len)
{
    struct ad_gpo_settings *s;
    errno_t ret;

    ret = ad_gpo_inf_parse(state, data, len, &s);
    if (ret != EOK) {
        DEBUG(SSSDBG_OP_FAILURE, "GPO '%s' %s: GptTmpl.inf unreadable: %s\n", g->name,
              g->guid, sss_strerror(ret));
        return ret;
    }
    ret = ad_gpo_settings_apply(state->policy, s);
    for (int k = 0; ret == EOK && k < AD_GPO_NUM_KEYS; k++) {
        if (s->present[k]) {
            state->sources[k] = talloc_strdup(state, g->name);
            ret = state->sources[k] == NULL ? ENOMEM : EOK;
        }
    }
    talloc_free(s);
    return ret;
}

/* Each applicable GPO's GptTmpl.inf, from the cache or SYSVOL, in precedence order. */
static errno_t ad_gpo_next_file(struct tevent_req *req)
{
    struct ad_gpo_access_state *state = tevent_req_data(req, struct ad_gpo_access_state);
    struct ad_gpo_gpo *g;
    struct tevent_req *subreq;
    uint8_t *data;
    size_t len;
    char *uri;
    errno_t ret;

    for (; state->gpo_idx < state->num_gpos; state->gpo_idx++) {
        g = &state->gpos[state->gpo_idx];
        if (!ad_gpo_sd_applies(g->sd, state->user_sid, state->host_sid,
                               state->group_sids, state->num_groups)) {
            DEBUG(SSSDBG_TRACE_FUNC, "GPO '%s' %s does not apply to '%s' (security "
                  "filtering: no Apply Group Policy right for the user, its groups or the "
                  "host)\n", g->name, g->guid, state->user_dn);
            continue;
        }
        if (!g->have_data) {
            ret = ad_gpo_cache_get(state->gpos, AD_GPO_CACHE_DIR, state->ctx->domain,
                                   g->guid, g->version, &data, &len);
            if (ret == ENOENT) {
                break;      /* to fetch */
            }
            if (ret != EOK) {
                return ret;
            }
            DEBUG(SSSDBG_TRACE_FUNC, "GPO '%s' %s version %u: from the cache\n", g->name,
                  g->guid, g->version);
            g->data = data;
            g->len = len;
            g->have_data = true;
        }
        ret = ad_gpo_apply(state, g, g->data, g->len);
        if (ret != EOK) {
            return ret;
        }
    }
    if (state->gpo_idx == state->num_gpos) {
        if (!state->from_ctx) {
            talloc_free(state->ctx->gpos);
            state->ctx->gpos = talloc_steal(state->ctx, state->gpos);
            state->ctx->num_gpos = state->num_gpos;
            talloc_free(state->ctx->host_sid);
            state->ctx->host_sid = talloc_steal(state->ctx, state->host_sid);
            state->ctx->gpos_time = time(NULL);
        }
        return ad_gpo_decide(req);
    }
    if (state->from_ctx) {
        /* Shared with other requests: no child runs on it; read the list anew. */
        return ad_gpo_lookup(req);
    }
    g = &state->gpos[state->gpo_idx];
    ret = ad_gpo_smb_uri(state, state->server, g->path, &uri);
    if (ret != EOK) {
        DEBUG(SSSDBG_OP_FAILURE, "GPO %s: malformed gPCFileSysPath '%s'\n", g->guid, g->path);
        return ret;
    }
    DEBUG(SSSDBG_TRACE_FUNC, "GPO '%s' %s version %u: reading %s\n", g->name, g->guid,
          g->version, uri);
    subreq = ad_gpo_child_send(state, state->ev, AD_GPO_CHILD_PATH, uri,
                               GPO_CHILD_TIMEOUT);
    if (subreq == NULL) {
        return ENOMEM;
    }
    tevent_req_set_callback(subreq, ad_gpo_child_done, req);
    return EOK;
}

static void ad_gpo_child_done(struct tevent_req *subreq)
{
    struct tevent_req *req = tevent_req_callback_data(subreq, struct tevent_req);
    struct ad_gpo_access_state *state = tevent_req_data(req, struct ad_gpo_access_state);
    struct ad_gpo_gpo *g = &state->gpos[state->gpo_idx];
    uint8_t *data = NULL;
    size_t len = 0;
    errno_t ret;

    ret = ad_gpo_child_recv(state, subreq, &data, &len);
    talloc_free(subreq);
    if (ret == ENOENT) {
        /* No security template in SYSVOL: an empty one, cached as such. */
        DEBUG(SSSDBG_TRACE_FUNC, "GPO '%s' %s has no GptTmpl.inf\n", g->name, g->guid);
        len = 0;
        ret = EOK;
    }
    if (ret != EOK) {
        DEBUG(SSSDBG_OP_FAILURE, "GPO '%s' %s: GptTmpl.inf could not be read from SYSVOL: "
              "%s\n", g->name, g->guid, sss_strerror(ret));
        goto done;
    }
    if (ad_gpo_cache_put(AD_GPO_CACHE_DIR, state->ctx->domain, g->guid, g->version, data,
                         len) != EOK) {
        DEBUG(SSSDBG_MINOR_FAILURE, "GPO %s: could not be cached\n", g->guid);
    }
    /* ad_gpo_next_file applies it, from memory. */
    g->data = talloc_steal(state->gpos, data);
    g->len = len;
    g->have_data = true;
    data = NULL;
    ret = ad_gpo_next_file(req);
done:
    talloc_free(data);
    ad_gpo_step_end(req, ret);
}

/* The verdict on the resultant policy. Ends the request. */
static errno_t ad_gpo_decide(struct tevent_req *req)
{
    struct ad_gpo_access_state *state = tevent_req_data(req, struct ad_gpo_access_state);
    enum ad_gpo_verdict v;
    const char *why;
    const char *src;
    int key;

    v = ad_gpo_check(state->policy, state->right, state->ctx->implicit_deny,
                     state->user_sid, state->group_sids, state->num_groups);
    state->allowed = v == AD_GPO_ALLOWED;
    if (!state->allowed) {
        key = state->right < AD_GPO_NUM_LOGON_RIGHTS ? 2 * (int)state->right
                                                       + (v == AD_GPO_DENIED ? 1 : 0) : -1;
        src = key >= 0 && state->sources[key] != NULL ? state->sources[key] : "-";
        why = state->right == AD_GPO_RIGHT_DENY ? "the service maps to the deny right"
            : v == AD_GPO_DENIED ? "in the deny list" : "not in the allow list";
        if (state->ctx->mode == AD_GPO_MODE_PERMISSIVE) {
            DEBUG(SSSDBG_CRIT_FAILURE, "GPO (permissive): '%s' would have been denied "
                  "GPO-based logon access if the ad_gpo_access_control option were set to "
                  "enforcing mode: service '%s', right %s (%s), %s, GPO '%s'; allowed\n",
                  state->user_dn, state->service, ad_gpo_right_name(state->right),
                  key >= 0 ? ad_gpo_right_key(state->right, v == AD_GPO_DENIED) : "-",
                  why, src);
            state->allowed = true;
        } else {
            DEBUG(SSSDBG_OP_FAILURE, "GPO: '%s' denied: service '%s', right %s (%s), %s, "
                  "GPO '%s'\n", state->user_dn, state->service,
                  ad_gpo_right_name(state->right),
                  key >= 0 ? ad_gpo_right_key(state->right, v == AD_GPO_DENIED) : "-",
                  why, src);
        }
    } else {
        DEBUG(SSSDBG_TRACE_FUNC, "GPO: '%s' allowed for service '%s' (%s)\n",
              state->user_dn, state->service, ad_gpo_right_name(state->right));
    }
    tevent_req_done(req);
    return EOK;
}

errno_t ad_gpo_access_recv(struct tevent_req *req, bool *_allowed)
{
    struct ad_gpo_access_state *state = tevent_req_data(req, struct ad_gpo_access_state);

    TEVENT_REQ_RETURN_ON_ERROR(req);
    *_allowed = state->allowed;
    return EOK;
}
