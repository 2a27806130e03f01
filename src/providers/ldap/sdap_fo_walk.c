/*
 * The failover walk of the LDAP provider (sdap_fo_private.h): the servers of the list
 * (sdap_fo_servers.c) are tried in order until one gives a ready connection; a server
 * that fails (connect refused or timed out, TLS failure, no search base) is marked bad and
 * the next tried; when every server is bad or fails, the walk ends with ENETUNREACH (the
 * domain is offline) and the placeholders' records are forgotten, so the next walk asks
 * DNS again. A placeholder whose records are unknown or past their TTL looks them up on
 * the way (sss_srv.h: a helper thread, the loop keeps running); a lookup that fails leaves
 * the previous answer and the placeholder marked bad. With the AD schema and no site in
 * the placeholder's name, the first DC DNS names is asked for the client's site (the LDAP
 * ping over CLDAP, once per placeholder) and, when it names one, the placeholder asks for
 * SITE._sites.NAME at once, as SSSD finds its site before it picks a DC.
 */
#include <assert.h>
#include <time.h>

#include "util/util.h"
#include "providers/ldap/sdap_fo_private.h"

struct sdap_fo_walk_state {
    struct tevent_context *ev;
    struct sdap_id_ctx *id_ctx;
    int idx;
    struct sdap_conn *conn;
};

static errno_t sdap_fo_walk_step(struct tevent_req *req, size_t start);
static void sdap_fo_walk_done(struct tevent_req *subreq);
static void sdap_fo_walk_srv_done(struct tevent_req *subreq);
static void sdap_fo_walk_site_done(struct tevent_req *subreq);
static void sdap_fo_walk_base_done(struct tevent_req *subreq);

struct tevent_req *sdap_fo_walk_send(TALLOC_CTX *mem_ctx, struct tevent_context *ev,
                                     struct sdap_id_ctx *id_ctx)
{
    struct sdap_fo_walk_state *state;
    struct tevent_req *req;
    errno_t ret;

    req = tevent_req_create(mem_ctx, &state, struct sdap_fo_walk_state);
    if (req == NULL) {
        return NULL;
    }
    state->ev = ev;
    state->id_ctx = id_ctx;
    ret = sdap_fo_walk_step(req, 0);
    if (ret != EOK) {
        return sss_req_post(req, ev, ret);
    }
    return req;
}

static errno_t sdap_fo_walk_step(struct tevent_req *req, size_t start)
{
    struct sdap_fo_walk_state *state = tevent_req_data(req, struct sdap_fo_walk_state);
    struct tevent_req *subreq;

    state->idx = sdap_fo_next(state->id_ctx->fo, start, time(NULL));
    if (state->idx < 0) {
        DEBUG(SSSDBG_OP_FAILURE, "domain %s: no LDAP server reachable, offline\n",
              state->id_ctx->opts->domain);
        sdap_fo_srv_expire(state->id_ctx->fo);
        return ENETUNREACH;
    }
    if (sdap_fo_is_srv(state->id_ctx->fo, (size_t)state->idx)) {
        subreq = sdap_srv_send(state, state->ev, state->id_ctx->fo->service,
                               state->id_ctx->fo->servers[state->idx].srv_name,
                               state->id_ctx->opts->network_timeout);
        if (subreq == NULL) {
            return ENOMEM;
        }
        tevent_req_set_callback(subreq, sdap_fo_walk_srv_done, req);
        return EOK;
    }
    subreq = sdap_connect_send(state, state->ev, state->id_ctx->opts,
                               sdap_fo_uri(state->id_ctx->fo, (size_t)state->idx));
    if (subreq == NULL) {
        return ENOMEM;
    }
    tevent_req_set_callback(subreq, sdap_fo_walk_done, req);
    return EOK;
}

/* The attempt on the current server ended with ret: the walk is done on EOK; otherwise
 * the server is marked bad and the next one tried, unless failing over would not help. */
static void sdap_fo_walk_next(struct tevent_req *req, errno_t ret, bool fatal)
{
    struct sdap_fo_walk_state *state = tevent_req_data(req, struct sdap_fo_walk_state);

    assert(state->idx >= 0);
    sdap_fo_note(state->id_ctx->fo, (size_t)state->idx, ret, time(NULL));
    if (ret == EOK) {
        sdap_fo_mark_good(state->id_ctx->fo, (size_t)state->idx);
        tevent_req_done(req);
        return;
    }
    state->id_ctx->stats.connect_failures++;
    if (fatal) {
        tevent_req_error(req, ret);
        return;
    }
    sdap_fo_mark_bad(state->id_ctx->fo, (size_t)state->idx, time(NULL));
    ret = sdap_fo_walk_step(req, (size_t)state->idx + 1);
    if (ret != EOK) {
        tevent_req_error(req, ret);
    }
}

/* AD, no site configured, not asked yet: the first DC DNS named is asked for the client's
 * site (the LDAP ping, as SSSD does before it picks a DC); true when the walk waits for it. */
static bool sdap_fo_site_ask(struct tevent_req *req)
{
    struct sdap_fo_walk_state *state = tevent_req_data(req, struct sdap_fo_walk_state);
    struct sdap_fo *fo = state->id_ctx->fo;
    struct sdap_server *ph = &fo->servers[state->idx];
    struct tevent_req *subreq;
    const char *uri;
    char *host;

    if (state->id_ctx->opts->schema != SDAP_SCHEMA_AD || ph->site_asked
            || strstr(ph->srv_name, "._sites.") != NULL || (size_t)state->idx + 1 >= fo->num
            || !fo->servers[state->idx + 1].discovered) {
        return false;
    }
    ph->site_asked = true;
    uri = fo->servers[state->idx + 1].uri + strlen("ldap://");
    host = talloc_strndup(state, uri, strcspn(uri, ":/"));
    if (host == NULL) {
        return false;
    }
    subreq = sdap_cldap_ping_send(state, state->ev, host, ph->srv_name,
                                  state->id_ctx->opts->network_timeout);
    if (subreq == NULL) {
        return false;
    }
    DEBUG(SSSDBG_TRACE_FUNC, "domain %s: LDAP ping (CLDAP) of %s for the client's site\n",
          state->id_ctx->opts->domain, host);
    tevent_req_set_callback(subreq, sdap_fo_walk_site_done, req);
    return true;
}

/* With the site known, the placeholder asks for SITE._sites.DOMAIN first, at once. */
static void sdap_fo_walk_site_done(struct tevent_req *subreq)
{
    struct tevent_req *req = tevent_req_callback_data(subreq, struct tevent_req);
    struct sdap_fo_walk_state *state = tevent_req_data(req, struct sdap_fo_walk_state);
    struct sdap_server *ph = &state->id_ctx->fo->servers[state->idx];
    char *site = NULL;
    char *forest = NULL;
    char *name;
    errno_t ret;

    ret = sdap_cldap_ping_recv(state, subreq, &site, &forest);
    talloc_free(subreq);
    if (ret == EOK && site[0] != '\0') {
        name = talloc_asprintf(state->id_ctx->fo, "%s._sites.%s", site, ph->srv_name);
        if (name != NULL) {
            DEBUG(SSSDBG_BE_FO, "domain %s: site %s (from the DC's LDAP ping; forest %s)\n",
                  state->id_ctx->opts->domain, site, forest);
            ph->srv_name = name;
            ph->srv_expires = 0;
            ret = sdap_fo_walk_step(req, (size_t)state->idx);
            if (ret != EOK) {
                tevent_req_error(req, ret);
            }
            return;
        }
    }
    DEBUG(SSSDBG_OP_FAILURE, "domain %s: no site from the LDAP ping: %s; the domain's DCs "
          "are used\n", state->id_ctx->opts->domain,
          ret != EOK ? sss_strerror(ret) : "the DC names none");
    ret = sdap_fo_walk_step(req, (size_t)state->idx + 1);
    if (ret != EOK) {
        tevent_req_error(req, ret);
    }
}

/* The placeholder's servers are known (or not): the walk goes on after it. */
static void sdap_fo_walk_srv_done(struct tevent_req *subreq)
{
    struct tevent_req *req = tevent_req_callback_data(subreq, struct tevent_req);
    struct sdap_fo_walk_state *state = tevent_req_data(req, struct sdap_fo_walk_state);
    struct sdap_id_ctx *id_ctx = state->id_ctx;
    struct sdap_fo *fo = id_ctx->fo;
    const char *name = fo->servers[state->idx].srv_name;
    char **uris = NULL;
    char *in_use = NULL;
    size_t num = 0;
    size_t num_site = 0;
    uint32_t ttl = 0;
    errno_t ret;

    ret = sdap_srv_recv(state, subreq, &uris, &num, &num_site, &ttl);
    talloc_free(subreq);
    if (ret == EOK && id_ctx->last_uri != NULL) {
        in_use = talloc_strdup(state, id_ctx->last_uri);
        ret = in_use == NULL ? ENOMEM : EOK;
    }
    if (ret == EOK) {
        ret = sdap_fo_srv_install(fo, (size_t)state->idx, uris, num, num_site, ttl,
                                  time(NULL));
    }
    if (ret == EOK) {
        DEBUG(SSSDBG_BE_FO, "domain %s: DNS names %zu server(s) for %s (TTL %u s)%s\n",
              id_ctx->opts->domain, num, name, ttl,
              num_site > 0 && num_site < num ? ": the site's primary, the others backup" : "");
        sdap_fo_tell_found(fo);
        /* Indexes after the placeholder moved: the connection's server is found again. */
        id_ctx->conn_server = sdap_fo_find(fo, in_use);
        if (id_ctx->conn_server >= 0) {
            id_ctx->last_uri = sdap_fo_uri(fo, (size_t)id_ctx->conn_server);
        } else if (in_use != NULL) {
            talloc_free(fo->gone_uri);
            fo->gone_uri = talloc_steal(fo, in_use);
            id_ctx->last_uri = fo->gone_uri;
        }
        talloc_zfree(id_ctx->primary_probe);    /* it holds an index */
        talloc_zfree(id_ctx->primary_timer);
        if (sdap_fo_site_ask(req)) {
            return;
        }
    } else if (ret == ENOMEM) {
        tevent_req_error(req, ret);
        return;
    } else {
        DEBUG(SSSDBG_OP_FAILURE, "domain %s: DNS SRV discovery of %s failed: %s\n",
              id_ctx->opts->domain, name, sss_strerror(ret));
        sdap_fo_note(fo, (size_t)state->idx, ret, time(NULL));
        sdap_fo_mark_bad(fo, (size_t)state->idx, time(NULL));
    }
    ret = sdap_fo_walk_step(req, (size_t)state->idx + 1);
    if (ret != EOK) {
        tevent_req_error(req, ret);
    }
}

static void sdap_fo_walk_done(struct tevent_req *subreq)
{
    struct tevent_req *req = tevent_req_callback_data(subreq, struct tevent_req);
    struct sdap_fo_walk_state *state = tevent_req_data(req, struct sdap_fo_walk_state);
    errno_t ret;

    ret = sdap_connect_recv(state, subreq, &state->conn);
    talloc_free(subreq);
    if (ret == EOK && sdap_base_needed(state->id_ctx->opts)) {
        /* No search base configured: the server names it before anything is searched. */
        subreq = sdap_rootdse_base_send(state, state->ev, state->conn, state->id_ctx->opts,
                                        sdap_fo_uri(state->id_ctx->fo, (size_t)state->idx));
        if (subreq == NULL) {
            tevent_req_error(req, ENOMEM);
            return;
        }
        tevent_req_set_callback(subreq, sdap_fo_walk_base_done, req);
        return;
    }
    /* Refused credentials are refused everywhere: failing over would not help. */
    sdap_fo_walk_next(req, ret, ret == EACCES || ret == ENOMEM);
}

static void sdap_fo_walk_base_done(struct tevent_req *subreq)
{
    struct tevent_req *req = tevent_req_callback_data(subreq, struct tevent_req);
    struct sdap_fo_walk_state *state = tevent_req_data(req, struct sdap_fo_walk_state);
    errno_t ret;

    ret = sdap_rootdse_base_recv(subreq);
    talloc_free(subreq);
    if (ret != EOK) {
        /* A server that cannot name the base is not used; the next one may. */
        TALLOC_FREE(state->conn);
    }
    sdap_fo_walk_next(req, ret, ret == ENOMEM);
}

errno_t sdap_fo_walk_recv(TALLOC_CTX *mem_ctx, struct tevent_req *req,
                          struct sdap_conn **_conn, int *_idx)
{
    struct sdap_fo_walk_state *state = tevent_req_data(req, struct sdap_fo_walk_state);

    TEVENT_REQ_RETURN_ON_ERROR(req);
    *_conn = talloc_steal(mem_ctx, state->conn);
    *_idx = state->idx;
    return EOK;
}
