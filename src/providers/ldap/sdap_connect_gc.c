/*
 * The global catalog of an AD domain (ad_enable_gc): a second id context over the same
 * options, whose failover walks the GC servers: each ldap_uri server on the GC's port
 * (3268; 3269 for ldaps), and each DNS discovery entry ldap://_srv_.NAME asking for
 * _gc._tcp.NAME instead of _ldap._tcp.NAME (site first, as for the DCs). SSSD's AD
 * provider asks the forest's _gc._tcp records; in the one-domain forests we serve the
 * forest is the domain, and NAME is what the domain's discovery asks (other domains of a
 * forest, which only the GC would serve, are not looked up yet).
 * Its own connection and bad marks: a dead GC never makes the domain offline; the
 * back-end falls back to the domain's LDAP (be_id_ldap.c).
 */
#include "util/util.h"
#include "providers/ldap/sdap_private.h"

#define GC_PORT "3268"
#define GC_TLS_PORT "3269"

/* scheme://host[:port][/rest] -> scheme://host:GCPORT; NULL on ENOMEM. */
static char *sdap_gc_uri(TALLOC_CTX *mem_ctx, const char *uri)
{
    bool tls = strncasecmp(uri, "ldaps://", 8) == 0;
    const char *host = strstr(uri, "://");
    size_t len;

    if (host == NULL) {
        return talloc_strdup(mem_ctx, uri);     /* refused later, as the domain's is */
    }
    host += 3;
    if (host[0] == '[') {
        len = strcspn(host, "]");
        len += host[len] == ']' ? 1 : 0;
    } else {
        len = strcspn(host, ":/");
    }
    return talloc_asprintf(mem_ctx, "%.*s%.*s:%s", (int)(host - uri), uri, (int)len, host,
                           tls ? GC_TLS_PORT : GC_PORT);
}

errno_t sdap_id_ctx_create_gc(struct confdb *cdb, const char *domain,
                              struct sdap_id_ctx *dom)
{
    struct sdap_id_ctx *gc = NULL;
    struct sdap_options *opts;
    char **uris;
    size_t i;
    errno_t ret;

    SSS_CHECK_ARG(cdb != NULL && domain != NULL && dom != NULL && dom->gc == NULL, EINVAL);
    ret = sdap_id_ctx_create(dom, dom->ev, cdb, domain, &gc);
    if (ret != EOK) {
        return ret;
    }
    opts = gc->opts;
    uris = talloc_zero_array(opts, char *, opts->num_uris + 1);
    if (uris == NULL) {
        ret = ENOMEM;
        goto done;
    }
    for (i = 0; i < opts->num_uris; i++) {
        uris[i] = strncasecmp(opts->uris[i], "ldap://_srv_", 12) == 0
                  ? talloc_strdup(uris, opts->uris[i]) : sdap_gc_uri(uris, opts->uris[i]);
        if (uris[i] == NULL) {
            ret = ENOMEM;
            goto done;
        }
        DEBUG(SSSDBG_CONF_SETTINGS, "domain %s: global catalog server %s\n", domain,
              uris[i]);
    }
    opts->uris = uris;
    talloc_free(gc->fo);
    gc->fo = sdap_fo_create(gc, opts);
    if (gc->fo == NULL) {
        ret = ENOMEM;
        goto done;
    }
    sdap_fo_set_service(gc->fo, "_gc._tcp");
    /* One machine TGT and ccache for both: two would race on the same ccache file. */
    talloc_free(opts->sasl);
    opts->sasl = dom->opts->sasl;
    dom->gc = gc;
    gc = NULL;
    ret = EOK;
done:
    talloc_free(gc);
    return ret;
}

struct sdap_id_ctx *sdap_id_ctx_gc(struct sdap_id_ctx *dom)
{
    return dom != NULL ? dom->gc : NULL;
}

static void sdap_gc_probe_done(struct tevent_req *subreq)
{
    struct sdap_id_ctx *gc = tevent_req_callback_data(subreq, struct sdap_id_ctx);
    struct sdap_conn *conn = NULL;
    errno_t ret;

    ret = sdap_get_conn_recv(subreq, &conn);
    talloc_free(subreq);
    gc->gc_probe = NULL;
    if (ret != EOK) {
        /* The failover marked the servers; lookups keep the domain's LDAP. */
        DEBUG(SSSDBG_OP_FAILURE, "domain %s: no global catalog server reachable: %s\n",
              gc->opts->domain, sss_strerror(ret));
        return;
    }
    DEBUG(SSSDBG_TRACE_FUNC, "domain %s: global catalog connected (%s)\n", gc->opts->domain,
          sdap_id_ctx_server(gc));
}

void sdap_gc_probe(struct sdap_id_ctx *gc)
{
    if (gc == NULL || gc->gc_probe != NULL || sdap_conn_usable(gc->conn)) {
        return;
    }
    gc->gc_probe = sdap_get_conn_send(gc, gc->ev, gc);
    if (gc->gc_probe == NULL) {
        DEBUG(SSSDBG_CRIT_FAILURE, "domain %s: cannot try the global catalog: out of "
              "memory\n", gc->opts->domain);
        return;
    }
    tevent_req_set_callback(gc->gc_probe, sdap_gc_probe_done, gc);
}
