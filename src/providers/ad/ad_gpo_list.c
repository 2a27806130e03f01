/*
 * The GPO list of GPO-based access control in sssd_be (ad_gpo_list.h), read from the
 * directory as SSSD's ad_gpo.c reads it: the computer object (sAMAccountName SHORTHOST$)
 * and its objectSid; the site (ad_site, else the client site the DC names in its answer
 * to an LDAP ping, under the rootDSE's configurationNamingContext), the last SOM in
 * SSSD's order; the gPLink and gPOptions of each OU above the computer, of the domain and
 * of the site; the candidate GPOs in precedence order (ad_gpo.h); then each candidate's
 * container, kept when it holds computer security settings (gPCFunctionalityVersion 2,
 * machine part enabled, the Security CSE named), with its DACL (nTSecurityDescriptor
 * under the SD flags control, ad_gpo_sd.h).
 */
#include <strings.h>

#include "util/util.h"
#include "util/sss_hex.h"
#include "providers/ad/ad_gpo_list.h"

struct ad_gpo_list_state {
    struct tevent_context *ev;
    struct sdap_id_ctx *id_ctx;
    const char *account;
    const char *dns_domain;
    const char *site_opt;               /* ad_site; NULL: asked from the DC */
    bool ignore_unreadable;
    struct sdap_search_args args;
    char *host_sid;
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
    struct ad_gpo_gpo *gpos;
    size_t num_gpos;
};

static errno_t ad_gpo_search(struct tevent_req *req, const char *base, int scope,
                             const char *filter, const char *const *attrs, int sd_flags,
                             tevent_req_fn fn);
static void ad_gpo_computer_done(struct tevent_req *subreq);
static void ad_gpo_site_done(struct tevent_req *subreq);
static errno_t ad_gpo_site_name(struct tevent_req *req, const char *site);
static void ad_gpo_config_nc_done(struct tevent_req *subreq);
static errno_t ad_gpo_next_som(struct tevent_req *req);
static void ad_gpo_som_done(struct tevent_req *subreq);
static errno_t ad_gpo_next_gpo_entry(struct tevent_req *req);
static void ad_gpo_gpo_entry_done(struct tevent_req *subreq);

/* An entry's first value of name, or def. */
static const char *value_or(const struct sdap_entry *e, const char *name, const char *def)
{
    const char *v = sdap_entry_value(e, name);

    return v != NULL ? v : def;
}

struct tevent_req *ad_gpo_list_send(TALLOC_CTX *mem_ctx, struct tevent_context *ev,
                                    struct sdap_id_ctx *id_ctx, const char *account,
                                    const char *dns_domain, const char *site,
                                    bool ignore_unreadable)
{
    static const char *const attrs[] = { "distinguishedName", "objectSid", NULL };
    struct ad_gpo_list_state *state;
    struct tevent_req *req;
    char *filter;
    errno_t ret;

    req = tevent_req_create(mem_ctx, &state, struct ad_gpo_list_state);
    if (req == NULL) {
        return NULL;
    }
    if (ev == NULL || id_ctx == NULL || account == NULL || dns_domain == NULL) {
        (void)sss_arg_invalid(__func__, "ev, id_ctx, account, dns_domain");
        return sdap_req_invalid(req, ev);
    }
    /* The steps end it from inside their callbacks, which still use their state. */
    tevent_req_defer_callback(req, ev);
    state->ev = ev;
    state->id_ctx = id_ctx;
    /* The context's strings: it outlives its requests. */
    state->account = account;
    state->dns_domain = dns_domain;
    state->site_opt = site;
    state->ignore_unreadable = ignore_unreadable;
    filter = talloc_asprintf(state, "(&(objectClass=computer)(sAMAccountName=%s))",
                             account);
    ret = filter == NULL ? ENOMEM
        : ad_gpo_search(req, NULL, LDAP_SCOPE_SUBTREE, filter, attrs, 0,
                        ad_gpo_computer_done);
    if (ret != EOK) {
        return sss_req_post(req, ev, ret);
    }
    return req;
}

static errno_t ad_gpo_search(struct tevent_req *req, const char *base, int scope,
                             const char *filter, const char *const *attrs, int sd_flags,
                             tevent_req_fn fn)
{
    struct ad_gpo_list_state *state = tevent_req_data(req, struct ad_gpo_list_state);

    return sdap_id_search_step(req, state->ev, state->id_ctx, &state->args, base, scope,
                               filter, attrs, sd_flags, fn);
}

/* The host of the DC the lookup connection talks to: it answers the LDAP ping and serves
 * SYSVOL. */
static errno_t ad_gpo_server(struct ad_gpo_list_state *state)
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

/* Ends the request with ret (EOK: already done or going on). */
static void ad_gpo_step_end(struct tevent_req *req, errno_t ret)
{
    if (ret != EOK) {
        tevent_req_error(req, ret);
    }
}

static void ad_gpo_computer_done(struct tevent_req *subreq)
{
    struct tevent_req *req = tevent_req_callback_data(subreq, struct tevent_req);
    struct ad_gpo_list_state *state = tevent_req_data(req, struct ad_gpo_list_state);
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
              state->account, num == 0 ? "is not" : "is not unique");
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
    if (state->site_opt != NULL) {
        ret = ad_gpo_site_name(req, state->site_opt);
        goto done;
    }
    subreq = sdap_cldap_ping_send(state, state->ev, state->server, state->dns_domain,
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
    struct ad_gpo_list_state *state = tevent_req_data(req, struct ad_gpo_list_state);
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
    struct ad_gpo_list_state *state = tevent_req_data(req, struct ad_gpo_list_state);
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
    struct ad_gpo_list_state *state = tevent_req_data(req, struct ad_gpo_list_state);
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
    struct ad_gpo_list_state *state = tevent_req_data(req, struct ad_gpo_list_state);
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
    struct ad_gpo_list_state *state = tevent_req_data(req, struct ad_gpo_list_state);
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
    struct ad_gpo_list_state *state = tevent_req_data(req, struct ad_gpo_list_state);
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
    tevent_req_done(req);
    return EOK;
}

static void ad_gpo_gpo_entry_done(struct tevent_req *subreq)
{
    struct tevent_req *req = tevent_req_callback_data(subreq, struct tevent_req);
    struct ad_gpo_list_state *state = tevent_req_data(req, struct ad_gpo_list_state);
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
        len = bin != NULL ? sss_hex_decode(v, bin) : 0;
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
        if (!state->ignore_unreadable) {
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

errno_t ad_gpo_list_recv(TALLOC_CTX *mem_ctx, struct tevent_req *req,
                         struct ad_gpo_gpo **_gpos, size_t *_num_gpos, char **_host_sid,
                         char **_server)
{
    struct ad_gpo_list_state *state = tevent_req_data(req, struct ad_gpo_list_state);

    TEVENT_REQ_RETURN_ON_ERROR(req);
    *_gpos = talloc_steal(mem_ctx, state->gpos);
    *_num_gpos = state->num_gpos;
    *_host_sid = talloc_steal(mem_ctx, state->host_sid);
    *_server = talloc_steal(mem_ctx, state->server);
    return EOK;
}
