/*
 * The failover list of the LDAP provider (sdap_fo_private.h): ldap_uri in order, then
 * ldap_backup_uri, each server with its state: marked bad for offline_timeout seconds
 * after a failure and skipped meanwhile, and counters for diagnostics (sssctl). An entry
 * ldap://_srv_.NAME is a DNS placeholder: the servers its SRV records name are put after
 * it, in RFC 2782 order, in place of the previous answer (bad marks of servers still named
 * are kept); with a site, the site's servers are primary and the domain's others backup.
 * The walk over this list is in sdap_fo_walk.c, the shared connection in sdap_failover.c.
 */
#include <assert.h>
#include <time.h>

#include "util/util.h"
#include "providers/ldap/sdap_fo_private.h"

#define SRV_PREFIX "ldap://_srv_"

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
int sdap_fo_next_server(struct sdap_fo *fo, size_t start, time_t now)
{
    int idx = sdap_fo_next(fo, start, now);

    while (idx >= 0 && fo->servers[idx].srv_name != NULL) {
        idx = sdap_fo_next(fo, (size_t)idx + 1, now);
    }
    return idx;
}

bool sdap_fo_is_srv(struct sdap_fo *fo, size_t idx)
{
    return idx < fo->num && fo->servers[idx].srv_name != NULL;
}

/* Every server failed: the next walk asks DNS again. */
void sdap_fo_srv_expire(struct sdap_fo *fo)
{
    size_t i;

    for (i = 0; i < fo->num; i++) {
        fo->servers[i].srv_expires = 0;
    }
}

/* Puts the records (uris, in order) after placeholder idx instead of its previous ones;
 * a server still named keeps its state. ENOMEM leaves fo as it was. */
errno_t sdap_fo_srv_install(struct sdap_fo *fo, size_t idx, char **uris, size_t n,
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
void sdap_fo_tell_found(struct sdap_fo *fo)
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
int sdap_fo_find(struct sdap_fo *fo, const char *uri)
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
