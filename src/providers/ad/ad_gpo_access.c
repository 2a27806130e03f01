/*
 * GPO-based access control in sssd_be (ad_gpo_access.h), as SSSD's ad_gpo.c does it: the
 * options, and the request that decides one PAM account check:
 *   1. the PAM service maps to a logon right (ad_gpo_map_*); permit and deny need nothing
 *      more;
 *   2. the user's SIDs: objectSid and tokenGroups of its entry (nested groups included),
 *      Authenticated Users always;
 *   3. the GPO list (ad_gpo_list.c) from memory when younger than ad_gpo_cache_timeout,
 *      else from the directory; the list is kept in memory;
 *   4. security filtering, per logon: a GPO applies when its DACL grants Apply Group
 *      Policy to the user, its groups or the host (ad_gpo_sd_applies);
 *   5. each applying GPO's GptTmpl.inf, from memory, else the cache when it holds the
 *      directory's versionNumber, else from SYSVOL through gpo_child (ad_gpo_fetch.c);
 *   6. the decision (ad_gpo_check): enforcing denies, permissive logs what would have been
 *      denied (user, service, right, the GPOs that set the lists) and allows.
 */
#include <ctype.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "util/util.h"
#include "providers/ad/ad_gpo_access.h"
#include "providers/ad/ad_gpo_fetch.h"
#include "providers/ad/ad_gpo_list.h"
#include "providers/ad/ad_gpo_sd.h"

#define GPO_CHILD_TIMEOUT 30

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
    char *server;                       /* the DC the list was read from */
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
static void ad_gpo_list_done(struct tevent_req *subreq);
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
    struct tevent_req *subreq;

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
    subreq = ad_gpo_list_send(state, state->ev, state->id_ctx, state->ctx->account,
                              state->ctx->dns_domain, state->ctx->site,
                              state->ctx->ignore_unreadable);
    if (subreq == NULL) {
        return ENOMEM;
    }
    tevent_req_set_callback(subreq, ad_gpo_list_done, req);
    return EOK;
}

static void ad_gpo_list_done(struct tevent_req *subreq)
{
    struct tevent_req *req = tevent_req_callback_data(subreq, struct tevent_req);
    struct ad_gpo_access_state *state = tevent_req_data(req, struct ad_gpo_access_state);
    errno_t ret;

    ret = ad_gpo_list_recv(state, subreq, &state->gpos, &state->num_gpos,
                           &state->host_sid, &state->server);
    talloc_free(subreq);
    if (ret != EOK) {
        goto done;
    }
    state->policy = talloc_zero(state, struct ad_gpo_settings);
    ret = state->policy == NULL ? ENOMEM : ad_gpo_next_file(req);
done:
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