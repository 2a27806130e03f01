/*
 * Failover across the domain's servers: ldap_uri in order, then ldap_backup_uri. A server
 * that fails (connect refused or timed out, TLS failure, connection lost) is marked bad
 * for offline_timeout seconds and skipped meanwhile. When every server is bad or fails,
 * the attempt ends with ENETUNREACH: the domain is offline.
 *
 * sdap_get_conn_send() hands out the one shared connection. Requests that arrive while a
 * connection is being set up wait for that same attempt, so a burst of lookups at start-up
 * opens one connection, not one each.
 *
 * Failing back, as SSSD does: a connection older than ldap_connection_expire_timeout is
 * not handed out any more (the operations under way finish on it) and the next operation
 * walks the list from its start again; and while the domain is served by a server of
 * ldap_backup_uri, a primary is tried every failover_primary_timeout seconds (SSSD's
 * option, default 31) in the background: once it answers, new operations go to it. The
 * probe tries the first primary not marked bad, or the first primary when all are: it
 * costs lookups nothing, so a primary that came back is found within that period rather
 * than when its bad mark (offline_timeout) runs out.
 *
 * DNS discovery: an entry ldap://_srv_.NAME (ad_server = _srv_, see ad_options.h) is a
 * placeholder for the servers that the SRV records _ldap._tcp.NAME name. When the walk
 * reaches it and its records are unknown or past their TTL, it looks them up (sss_srv.h:
 * a helper thread, the loop keeps running) and puts them, in RFC 2782 order, right after
 * the placeholder, in place of the previous answer (bad marks of servers still named are
 * kept); then it goes on with them. NAME = SITE._sites.DOMAIN (ad_site): that site's
 * records first, then those of DOMAIN not already there, as SSSD does (site's DCs
 * preferred, the domain's as fallback); no record for the site: the domain's. With the AD
 * schema and no site in NAME, the first DC DNS names is asked for the client's site (the
 * LDAP ping over CLDAP, once per placeholder) and, when it names one, the placeholder asks
 * for SITE._sites.NAME at once, as SSSD finds its site before it picks a DC. When every
 * server failed, the placeholders' records are forgotten, so the next walk asks DNS
 * again. A lookup that fails leaves the previous answer in place and the placeholder
 * marked bad for offline_timeout. With a site, the site's servers are primary and the
 * domain's others backup (SSSD's primary and backup SRV domains): the walk reaches the
 * backups only when every site DC failed, and fails back to the site as from
 * ldap_backup_uri. Each answer installed is told to the discovery listener (the AD
 * provider's KDC list); each new connection to the connection listener (the AD
 * provider connects its global catalog then). The SRV service is _ldap._tcp, or _gc._tcp
 * for a global catalog's failover (sdap_connect_gc.c).
 */
#include <assert.h>
#include <time.h>

#include "util/util.h"
#include "providers/ldap/sdap_private.h"

#define SRV_PREFIX "ldap://_srv_"

struct sdap_server {
    const char *uri;
    bool backup;
    time_t bad_until;           /* 0: good */
    const char *srv_name;       /* a placeholder: the DNS name after _ldap._tcp.; else NULL */
    time_t srv_expires;         /* a placeholder's records: valid until; 0: unknown */
    bool discovered;            /* named by the placeholder before it */
    bool site_asked;            /* a placeholder: the LDAP ping was sent for its site */
    /* For diagnostics only (sdap_id_ctx_servers): failover decisions never read them. */
    errno_t last_error;
    time_t last_contact;
    time_t last_failure;
    uint64_t connects;
    uint64_t failures;
};

struct sdap_fo {
    struct sdap_server *servers;    /* placeholders' records: children of this array */
    size_t num;
    int bad_timeout;
    char *gone_uri;                 /* the last server DNS stopped naming while in use */
    sdap_discovery_fn found_fn;     /* told each answer installed; NULL: nobody */
    void *found_pvt;
    sdap_connected_fn conn_fn;      /* told each connection installed; NULL: nobody */
    void *conn_pvt;
    const char *service;            /* the SRV service: "_ldap._tcp", or "_gc._tcp" */
};

struct sdap_fo *sdap_fo_create(TALLOC_CTX *mem_ctx, const struct sdap_options *opts)
{
    struct sdap_fo *fo = talloc_zero(mem_ctx, struct sdap_fo);
    size_t i;

    if (fo == NULL) {
        return NULL;
    }
    fo->servers = talloc_zero_array(fo, struct sdap_server, opts->num_uris);
    if (fo->servers == NULL) {
        talloc_free(fo);
        return NULL;
    }
    for (i = 0; i < opts->num_uris; i++) {
        fo->servers[i].uri = opts->uris[i];
        fo->servers[i].backup = i >= opts->num_primary;
        if (strncasecmp(opts->uris[i], SRV_PREFIX, strlen(SRV_PREFIX)) == 0) {
            const char *name = opts->uris[i] + strlen(SRV_PREFIX);
            /* ldap://_srv_ alone: the domain's name. */
            fo->servers[i].srv_name = name[0] == '.' ? name + 1 : opts->domain;
        }
    }
    fo->num = opts->num_uris;
    fo->bad_timeout = opts->bad_server_timeout;
    fo->service = "_ldap._tcp";
    return fo;
}

void sdap_fo_set_service(struct sdap_fo *fo, const char *service)
{
    assert(fo != NULL && service != NULL);
    fo->service = service;
}

int sdap_fo_next(struct sdap_fo *fo, size_t start, time_t now)
{
    size_t i;

    for (i = start; i < fo->num; i++) {
        if (fo->servers[i].srv_name != NULL && fo->servers[i].srv_expires > now) {
            continue;   /* its records are known: they follow it */
        }
        if (fo->servers[i].bad_until == 0 || fo->servers[i].bad_until <= now) {
            fo->servers[i].bad_until = 0;
            return (int)i;
        }
    }
    return -1;
}

/* Like sdap_fo_next, for a server to connect to: placeholders are skipped. */
static int sdap_fo_next_server(struct sdap_fo *fo, size_t start, time_t now)
{
    int idx = sdap_fo_next(fo, start, now);

    while (idx >= 0 && fo->servers[idx].srv_name != NULL) {
        idx = sdap_fo_next(fo, (size_t)idx + 1, now);
    }
    return idx;
}

static bool sdap_fo_is_srv(struct sdap_fo *fo, size_t idx)
{
    return idx < fo->num && fo->servers[idx].srv_name != NULL;
}

/* Every server failed: the next walk asks DNS again. */
static void sdap_fo_srv_expire(struct sdap_fo *fo)
{
    size_t i;

    for (i = 0; i < fo->num; i++) {
        fo->servers[i].srv_expires = 0;
    }
}

/* Puts the records (uris, in order) after placeholder idx instead of its previous ones;
 * a server still named keeps its state. ENOMEM leaves fo as it was. */
static errno_t sdap_fo_srv_install(struct sdap_fo *fo, size_t idx, char **uris, size_t n,
                                   size_t n_site, uint32_t ttl, time_t now)
{
    struct sdap_server *list;
    size_t old_n = 0;
    size_t i, j;

    assert(sdap_fo_is_srv(fo, idx));
    while (idx + 1 + old_n < fo->num && fo->servers[idx + 1 + old_n].discovered) {
        old_n++;
    }
    list = talloc_zero_array(fo, struct sdap_server, fo->num - old_n + n);
    if (list == NULL) {
        return ENOMEM;
    }
    memcpy(list, fo->servers, (idx + 1) * sizeof(*list));
    for (i = 0; i < n; i++) {
        struct sdap_server *s = &list[idx + 1 + i];

        s->uri = uris[i];
        s->discovered = true;
        for (j = idx + 1; j < idx + 1 + old_n; j++) {
            if (strcasecmp(fo->servers[j].uri, uris[i]) == 0) {
                *s = fo->servers[j];    /* the same string: the id context may hold it */
                break;
            }
        }
        /* A site's servers primary, the domain's others backup. */
        s->backup = fo->servers[idx].backup || (n_site > 0 && i >= n_site);
        if (s->uri == uris[i]) {
            talloc_steal(list, uris[i]);
        }
    }
    memcpy(&list[idx + 1 + n], &fo->servers[idx + 1 + old_n],
           (fo->num - idx - 1 - old_n) * sizeof(*list));
    /* The strings of servers that are kept live on in the new array. */
    for (i = 0; i < fo->num - old_n + n; i++) {
        if (talloc_parent(list[i].uri) == fo->servers) {
            talloc_steal(list, list[i].uri);
        }
    }
    talloc_free(fo->servers);
    fo->servers = list;
    fo->num = fo->num - old_n + n;
    fo->servers[idx].srv_expires = now + (ttl > 0 ? (time_t)ttl : 1);
    fo->servers[idx].bad_until = 0;
    return EOK;
}

void sdap_id_ctx_on_discovery(struct sdap_id_ctx *id_ctx, sdap_discovery_fn fn, void *pvt)
{
    if (id_ctx == NULL) {
        return;
    }
    id_ctx->fo->found_fn = fn;
    id_ctx->fo->found_pvt = pvt;
}

void sdap_id_ctx_on_connect(struct sdap_id_ctx *id_ctx, sdap_connected_fn fn, void *pvt)
{
    if (id_ctx == NULL) {
        return;
    }
    id_ctx->fo->conn_fn = fn;
    id_ctx->fo->conn_pvt = pvt;
}

/* Tells the listener the hosts of every discovered server, in failover order. */
static void sdap_fo_tell_found(struct sdap_fo *fo)
{
    TALLOC_CTX *tmp_ctx;
    const char *uri;
    char **hosts;
    size_t i, j, n = 0;

    if (fo->found_fn == NULL) {
        return;
    }
    tmp_ctx = talloc_new(NULL);
    hosts = talloc_zero_array(tmp_ctx, char *, fo->num + 1);
    for (i = 0; hosts != NULL && i < fo->num; i++) {
        if (!fo->servers[i].discovered) {
            continue;
        }
        uri = fo->servers[i].uri + strlen("ldap://");
        hosts[n] = talloc_strndup(hosts, uri, strcspn(uri, ":/"));
        if (hosts[n] == NULL) {
            hosts = NULL;
            break;
        }
        for (j = 0; j < n && strcasecmp(hosts[j], hosts[n]) != 0; j++) {
        }
        n += j == n ? 1 : 0;
        hosts[n] = NULL;
    }
    if (hosts != NULL) {
        fo->found_fn(fo->found_pvt, hosts);
    }
    talloc_free(tmp_ctx);
}

/* The index of uri after a change of the list, or -1. */
static int sdap_fo_find(struct sdap_fo *fo, const char *uri)
{
    size_t i;

    for (i = 0; uri != NULL && i < fo->num; i++) {
        if (fo->servers[i].srv_name == NULL && strcasecmp(fo->servers[i].uri, uri) == 0) {
            return (int)i;
        }
    }
    return -1;
}

bool sdap_fo_is_backup(struct sdap_fo *fo, size_t idx)
{
    return idx < fo->num && fo->servers[idx].backup;
}

const char *sdap_fo_uri(struct sdap_fo *fo, size_t idx)
{
    return idx < fo->num ? fo->servers[idx].uri : NULL;
}

void sdap_fo_mark_bad(struct sdap_fo *fo, size_t idx, time_t now)
{
    if (idx < fo->num) {
        fo->servers[idx].bad_until = now + (fo->bad_timeout > 0 ? fo->bad_timeout : 1);
        DEBUG(SSSDBG_BE_FO, "%s server %s marked bad for %d s\n",
              fo->servers[idx].backup ? "backup" : "primary", fo->servers[idx].uri,
              fo->bad_timeout);
    }
}

void sdap_fo_mark_good(struct sdap_fo *fo, size_t idx)
{
    if (idx < fo->num) {
        fo->servers[idx].bad_until = 0;
    }
}

bool sdap_fo_has_other(struct sdap_fo *fo, size_t idx, time_t now)
{
    size_t i;

    for (i = 0; i < fo->num; i++) {
        if (i != idx && fo->servers[i].srv_name == NULL
                && (fo->servers[i].bad_until == 0 || fo->servers[i].bad_until <= now)) {
            return true;
        }
    }
    return false;
}

void sdap_fo_note(struct sdap_fo *fo, size_t idx, errno_t error, time_t now)
{
    if (idx >= fo->num) {
        return;
    }
    if (error == EOK) {
        fo->servers[idx].last_contact = now;
        fo->servers[idx].connects++;
    } else {
        fo->servers[idx].last_error = error;
        fo->servers[idx].last_failure = now;
        fo->servers[idx].failures++;
    }
}

errno_t sdap_id_ctx_servers(TALLOC_CTX *mem_ctx, struct sdap_id_ctx *id_ctx,
                            struct sdap_server_info **_servers, size_t *_count)
{
    struct sdap_server_info *list;
    struct sdap_server *srv;
    time_t now = time(NULL);
    size_t num = id_ctx != NULL ? id_ctx->fo->num : 0;
    size_t i;

    list = talloc_zero_array(mem_ctx, struct sdap_server_info, num > 0 ? num : 1);
    if (list == NULL) {
        return ENOMEM;
    }
    for (i = 0; i < num; i++) {
        srv = &id_ctx->fo->servers[i];
        list[i].uri = srv->uri;
        list[i].backup = srv->backup;
        list[i].active = sdap_conn_usable(id_ctx->conn) && id_ctx->conn_server == (int)i;
        list[i].bad = srv->bad_until != 0 && srv->bad_until > now;
        list[i].tried = srv->last_contact != 0 || srv->last_failure != 0;
        list[i].last_error = srv->last_failure != 0 ? srv->last_error : EOK;
        list[i].last_contact = srv->last_contact;
        list[i].last_failure = srv->last_failure;
        list[i].connects = srv->connects;
        list[i].failures = srv->failures;
        list[i].discovered = srv->discovered;
        if (srv->srv_name != NULL) {
            const char *sites = strstr(srv->srv_name, "._sites.");

            list[i].dns_name = talloc_asprintf(list, "%s.%s", id_ctx->fo->service,
                                               srv->srv_name);
            list[i].site = sites != NULL
                ? talloc_strndup(list, srv->srv_name, (size_t)(sites - srv->srv_name))
                : "";
            list[i].dns_expires = srv->srv_expires;
            if (list[i].dns_name == NULL || list[i].site == NULL) {
                talloc_free(list);
                return ENOMEM;
            }
        }
    }
    *_servers = list;
    *_count = num;
    return EOK;
}

void sdap_fo_reset(struct sdap_fo *fo)
{
    size_t i;

    for (i = 0; i < fo->num; i++) {
        fo->servers[i].bad_until = 0;
    }
}

/* ---- the failover walk: try servers in order until one gives a ready connection ---- */

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

static struct tevent_req *sdap_fo_walk_send(TALLOC_CTX *mem_ctx, struct tevent_context *ev,
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

static errno_t sdap_fo_walk_recv(TALLOC_CTX *mem_ctx, struct tevent_req *req,
                                 struct sdap_conn **_conn, int *_idx)
{
    struct sdap_fo_walk_state *state = tevent_req_data(req, struct sdap_fo_walk_state);

    TEVENT_REQ_RETURN_ON_ERROR(req);
    *_conn = talloc_steal(mem_ctx, state->conn);
    *_idx = state->idx;
    return EOK;
}

/* ---- the shared connection ------------------------------------------------------------ */

struct sdap_conn_waiter {
    struct sss_list link;       /* in id_ctx->waiters until answered, freed or detached */
    struct tevent_req *req;
    uint64_t req_id;            /* the waiter's: its callback resumes under it */
};

struct sdap_get_conn_state {
    struct sdap_id_ctx *id_ctx;
    struct sdap_conn_waiter *waiter;
};

static int waiter_destructor(struct sdap_conn_waiter *w)
{
    sss_list_unlink(&w->link);
    return 0;
}

static void sdap_conn_lost(struct sdap_conn *conn, void *pvt, errno_t error)
{
    struct sdap_id_ctx *id_ctx = talloc_get_type_abort(pvt, struct sdap_id_ctx);

    if (id_ctx->conn != conn) {
        return;
    }
    /* A hung server is bad. A connection lost or reset is not proof that the server is
     * down (a lossy link, a server restart, an idle timeout): the retry of the failed
     * operation may reconnect to it, unless another server is there to go to; a server
     * that then refuses or times out is marked bad by the failover walk. Without this a
     * domain of one server went offline at the first reset connection. */
    sdap_fo_note(id_ctx->fo, (size_t)id_ctx->conn_server, error, time(NULL));
    if (error == ETIMEDOUT
            || sdap_fo_has_other(id_ctx->fo, (size_t)id_ctx->conn_server, time(NULL))) {
        sdap_fo_mark_bad(id_ctx->fo, (size_t)id_ctx->conn_server, time(NULL));
    } else {
        DEBUG(SSSDBG_BE_FO, "domain %s: connection to %s lost; no other server to go to: "
              "the next operation reconnects to it\n", id_ctx->opts->domain,
              sdap_fo_uri(id_ctx->fo, (size_t)id_ctx->conn_server));
    }
    id_ctx->conn = NULL;
    sdap_conn_unref(conn);
}

static void sdap_get_conn_connected(struct tevent_req *subreq);
static void sdap_primary_schedule(struct sdap_id_ctx *id_ctx);

/* conn is the domain's connection from now on (a previous one, still usable, finishes the
 * operations under way and goes when they are done). */
static void sdap_conn_install(struct sdap_id_ctx *id_ctx, struct sdap_conn *conn, int idx)
{
    if (id_ctx->conn != NULL) {
        sdap_conn_unref(id_ctx->conn);
    }
    id_ctx->conn = conn;
    id_ctx->conn_server = idx;
    id_ctx->conn_since = time(NULL);
    id_ctx->last_uri = sdap_fo_uri(id_ctx->fo, (size_t)idx);
    id_ctx->offline = false;
    id_ctx->stats.connects++;
    sdap_conn_set_lost_fn(conn, sdap_conn_lost, id_ctx);
    DEBUG(SSSDBG_BE_FO, "domain %s: served by %s%s\n", id_ctx->opts->domain,
          id_ctx->last_uri, sdap_fo_is_backup(id_ctx->fo, (size_t)idx) ? " (backup)" : "");
    sdap_primary_schedule(id_ctx);
    if (id_ctx->fo->conn_fn != NULL) {
        id_ctx->fo->conn_fn(id_ctx->fo->conn_pvt);
    }
}

/* The connection may take new operations: usable, and not past its expiry. */
static bool sdap_conn_current(struct sdap_id_ctx *id_ctx)
{
    int expire = id_ctx->opts->conn_expire;

    return sdap_conn_usable(id_ctx->conn)
           && (expire <= 0 || time(NULL) - id_ctx->conn_since < expire);
}

/* ---- back to a primary server ---------------------------------------------------------- */

static void sdap_primary_probe_done(struct tevent_req *subreq);

static void sdap_primary_fire(struct tevent_context *ev, struct tevent_timer *te,
                              struct timeval now, void *pvt)
{
    struct sdap_id_ctx *id_ctx = talloc_get_type_abort(pvt, struct sdap_id_ctx);
    int idx;
    SSS_REQ_ID_SCOPE(0);

    id_ctx->primary_timer = NULL;
    if (!sdap_conn_usable(id_ctx->conn) || id_ctx->conn_server < 0
            || !sdap_fo_is_backup(id_ctx->fo, (size_t)id_ctx->conn_server)) {
        return;     /* not on a backup any more */
    }
    if (id_ctx->connecting != NULL) {
        sdap_primary_schedule(id_ctx);     /* a failover walk is under way: it decides */
        return;
    }
    idx = sdap_fo_next_server(id_ctx->fo, 0, time(NULL));
    if (idx < 0 || sdap_fo_is_backup(id_ctx->fo, (size_t)idx)) {
        /* every primary is marked bad: probe the first anyway */
        for (idx = 0; sdap_fo_is_srv(id_ctx->fo, (size_t)idx); idx++) {
        }
        if (sdap_fo_is_backup(id_ctx->fo, (size_t)idx)) {
            sdap_primary_schedule(id_ctx);  /* no primary known yet (DNS) */
            return;
        }
    }
    assert(!sdap_fo_is_backup(id_ctx->fo, (size_t)idx));
    DEBUG(SSSDBG_BE_FO, "domain %s: trying primary server %s again\n", id_ctx->opts->domain,
          sdap_fo_uri(id_ctx->fo, (size_t)idx));
    id_ctx->primary_probe = sdap_connect_send(id_ctx, ev, id_ctx->opts,
                                              sdap_fo_uri(id_ctx->fo, (size_t)idx));
    if (id_ctx->primary_probe == NULL) {
        sdap_primary_schedule(id_ctx);
        return;
    }
    tevent_req_set_callback(id_ctx->primary_probe, sdap_primary_probe_done,
                            (void *)(uintptr_t)idx);
}

static void sdap_primary_probe_done(struct tevent_req *subreq)
{
    int idx = (int)(uintptr_t)tevent_req_callback_data_void(subreq);
    struct sdap_id_ctx *id_ctx = talloc_get_type_abort(talloc_parent(subreq),
                                                       struct sdap_id_ctx);
    struct sdap_conn *conn = NULL;
    errno_t ret;

    ret = sdap_connect_recv(id_ctx, subreq, &conn);
    talloc_free(subreq);
    id_ctx->primary_probe = NULL;
    if (ret != EOK) {
        DEBUG(SSSDBG_BE_FO, "domain %s: primary server %s still fails: %s\n",
              id_ctx->opts->domain, sdap_fo_uri(id_ctx->fo, (size_t)idx), sss_strerror(ret));
        sdap_fo_note(id_ctx->fo, (size_t)idx, ret, time(NULL));
        sdap_fo_mark_bad(id_ctx->fo, (size_t)idx, time(NULL));
        sdap_primary_schedule(id_ctx);
        return;
    }
    sdap_fo_note(id_ctx->fo, (size_t)idx, EOK, time(NULL));
    sdap_fo_mark_good(id_ctx->fo, (size_t)idx);
    sdap_conn_install(id_ctx, conn, idx);
}

/* On a backup: the next try of the primaries; otherwise none. */
static void sdap_primary_schedule(struct sdap_id_ctx *id_ctx)
{
    bool on_backup = id_ctx->opts->num_primary > 0 && id_ctx->conn_server >= 0
                     && sdap_fo_is_backup(id_ctx->fo, (size_t)id_ctx->conn_server);

    if (!on_backup) {
        talloc_zfree(id_ctx->primary_timer);
        talloc_zfree(id_ctx->primary_probe);
        return;
    }
    if (id_ctx->primary_timer != NULL || id_ctx->primary_probe != NULL) {
        return;
    }
    id_ctx->primary_timer = tevent_add_timer(id_ctx->ev, id_ctx,
                                             tevent_timeval_current_ofs(
                                                 id_ctx->opts->primary_timeout, 0),
                                             sdap_primary_fire, id_ctx);
}

struct tevent_req *sdap_get_conn_send(TALLOC_CTX *mem_ctx, struct tevent_context *ev,
                                      struct sdap_id_ctx *id_ctx)
{
    struct sdap_get_conn_state *state;
    struct sdap_conn_waiter *w;
    struct tevent_req *req;
    errno_t ret;

    req = tevent_req_create(mem_ctx, &state, struct sdap_get_conn_state);
    if (req == NULL) {
        return NULL;
    }
    tevent_req_defer_callback(req, ev);
    state->id_ctx = id_ctx;
    if (sdap_conn_current(id_ctx)) {
        ret = EOK;
        goto done;
    }
    w = talloc_zero(state, struct sdap_conn_waiter);
    if (w == NULL) {
        ret = ENOMEM;
        goto done;
    }
    w->req = req;
    w->req_id = sss_debug_req_id;
    sss_list_link_front(&id_ctx->waiters, &w->link);
    talloc_set_destructor(w, waiter_destructor);
    state->waiter = w;

    if (id_ctx->connecting == NULL) {
        id_ctx->connecting = sdap_fo_walk_send(id_ctx, ev, id_ctx);
        if (id_ctx->connecting == NULL) {
            ret = ENOMEM;
            goto done;
        }
        tevent_req_set_callback(id_ctx->connecting, sdap_get_conn_connected, id_ctx);
    }
    return req;
done:
    return sss_req_post(req, ev, ret);
}

/* The failover walk ended: every waiter gets its answer. */
static void sdap_get_conn_connected(struct tevent_req *subreq)
{
    struct sdap_id_ctx *id_ctx = tevent_req_callback_data(subreq, struct sdap_id_ctx);
    struct sdap_conn_waiter *w;
    struct sdap_conn *conn = NULL;
    int idx = -1;
    errno_t ret;

    assert(id_ctx->connecting == subreq);
    ret = sdap_fo_walk_recv(id_ctx, subreq, &conn, &idx);
    talloc_free(subreq);
    id_ctx->connecting = NULL;
    if (ret == EOK) {
        sdap_conn_install(id_ctx, conn, idx);
    } else {
        id_ctx->offline = ret == ENETUNREACH;
    }
    while ((w = sss_list_first_entry(&id_ctx->waiters, struct sdap_conn_waiter, link))
           != NULL) {
        struct tevent_req *req = w->req;
        /* The deferred callback is scheduled (and resumes) under the waiter's id. */
        SSS_REQ_ID_SCOPE(w->req_id);

        sss_list_unlink(&w->link);
        if (ret == EOK) {
            tevent_req_done(req);
        } else {
            tevent_req_error(req, ret);
        }
    }
}

void sdap_get_conn_detach(struct sdap_id_ctx *id_ctx)
{
    while (sss_list_is_linked(&id_ctx->waiters)) {
        sss_list_unlink(id_ctx->waiters.next);
    }
}

errno_t sdap_get_conn_recv(struct tevent_req *req, struct sdap_conn **_conn)
{
    struct sdap_get_conn_state *state = tevent_req_data(req, struct sdap_get_conn_state);

    TEVENT_REQ_RETURN_ON_ERROR(req);
    /* The connection may have broken between the answer and now. */
    if (!sdap_conn_usable(state->id_ctx->conn)) {
        return ENOTCONN;
    }
    *_conn = state->id_ctx->conn;
    return EOK;
}
