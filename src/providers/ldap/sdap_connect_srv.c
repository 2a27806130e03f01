/*
 * The LDAP servers DNS names for a failover placeholder ldap://_srv_.NAME
 * (sdap_failover.c): the targets of the SRV records _ldap._tcp.NAME (_gc._tcp.NAME for
 * the global catalog's failover, sdap_connect_gc.c) as ldap://host:port
 * URIs, in RFC 2782 order (sss_srv.h: the lookups run in a helper thread). NAME =
 * SITE._sites.DOMAIN: the site's records first, then those of _ldap._tcp.DOMAIN not already
 * named, as SSSD orders a site's DCs before the domain's; a site without records gives the
 * domain's. How many come from the site is told too: the failover makes those primary
 * and the domain's others backup, as SSSD does.
 */
#include "util/util.h"
#include "util/sss_srv.h"
#include "providers/ldap/sdap_private.h"

struct sdap_srv_state {
    struct tevent_context *ev;
    const char *service;        /* "_ldap._tcp", "_gc._tcp" */
    const char *domain;         /* the second lookup's name (site given), or NULL */
    int timeout;
    char **uris;                /* ldap://host:port, in order */
    size_t num;
    size_t num_site;            /* the first num_site came from the site's records */
    uint32_t ttl;
};

static void sdap_srv_done(struct tevent_req *subreq);

struct tevent_req *sdap_srv_send(TALLOC_CTX *mem_ctx, struct tevent_context *ev,
                                 const char *service, const char *name, int timeout)
{
    struct sdap_srv_state *state;
    struct tevent_req *req;
    struct tevent_req *subreq;
    const char *sites;
    errno_t ret;

    req = tevent_req_create(mem_ctx, &state, struct sdap_srv_state);
    if (req == NULL) {
        return NULL;
    }
    state->ev = ev;
    state->service = service;
    state->timeout = timeout;
    state->ttl = UINT32_MAX;
    sites = strstr(name, "._sites.");
    if (sites != NULL && sites[strlen("._sites.")] != '\0') {
        state->domain = sites + strlen("._sites.");
    }
    subreq = sss_srv_lookup_send(state, ev, talloc_asprintf(state, "%s.%s", service, name),
                                 timeout);
    if (subreq == NULL) {
        ret = ENOMEM;
        goto done;
    }
    tevent_req_set_callback(subreq, sdap_srv_done, req);
    return req;
done:
    return sss_req_post(req, ev, ret);
}

static void sdap_srv_done(struct tevent_req *subreq)
{
    struct tevent_req *req = tevent_req_callback_data(subreq, struct tevent_req);
    struct sdap_srv_state *state = tevent_req_data(req, struct sdap_srv_state);
    struct sss_srv_rec *recs = NULL;
    size_t num = 0;
    uint32_t ttl = 0;
    size_t i, j;
    char *uri;
    errno_t ret;

    ret = sss_srv_lookup_recv(state, subreq, &recs, &num, &ttl);
    talloc_free(subreq);
    if (ret != EOK && ret != ENOENT) {
        tevent_req_error(req, ret);
        return;
    }
    if (ret == EOK) {
        state->uris = talloc_realloc(state, state->uris, char *, state->num + num);
        if (state->uris == NULL) {
            tevent_req_error(req, ENOMEM);
            return;
        }
        state->ttl = ttl < state->ttl ? ttl : state->ttl;
    }
    for (i = 0; ret == EOK && i < num; i++) {
        uri = talloc_asprintf(state->uris, "ldap://%s:%u", recs[i].host, recs[i].port);
        if (uri == NULL) {
            tevent_req_error(req, ENOMEM);
            return;
        }
        for (j = 0; j < state->num && strcasecmp(state->uris[j], uri) != 0; j++) {
        }
        if (j == state->num) {
            DEBUG(SSSDBG_BE_FO, "DNS names %s (priority %u, weight %u)\n", uri,
                  recs[i].priority, recs[i].weight);
            state->uris[state->num++] = uri;
        }
    }
    talloc_free(recs);
    if (state->domain != NULL) {
        state->num_site = state->num;
        /* The site's servers first; the domain's follow. */
        subreq = sss_srv_lookup_send(state, state->ev,
                                     talloc_asprintf(state, "%s.%s", state->service,
                                                     state->domain),
                                     state->timeout);
        state->domain = NULL;
        if (subreq == NULL) {
            tevent_req_error(req, ENOMEM);
            return;
        }
        tevent_req_set_callback(subreq, sdap_srv_done, req);
        return;
    }
    if (state->num == 0) {
        tevent_req_error(req, ENOENT);
        return;
    }
    tevent_req_done(req);
}

errno_t sdap_srv_recv(TALLOC_CTX *mem_ctx, struct tevent_req *req, char ***_uris,
                      size_t *_num, size_t *_num_site, uint32_t *_ttl)
{
    struct sdap_srv_state *state = tevent_req_data(req, struct sdap_srv_state);

    TEVENT_REQ_RETURN_ON_ERROR(req);
    talloc_steal(mem_ctx, state->uris);
    *_uris = state->uris;
    *_num = state->num;
    *_num_site = state->num_site;
    *_ttl = state->ttl;
    return EOK;
}
