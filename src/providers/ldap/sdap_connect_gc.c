/*
 * The global catalog of an AD domain (ad_enable_gc): a second id context over the same
 * options, whose failover walks the GC servers: each ldap_uri server on the GC's port
 * (3268; 3269 for ldaps), and each DNS discovery entry ldap://_srv_.NAME asking for
 * _gc._tcp.NAME instead of _ldap._tcp.NAME (site first, as for the DCs). SSSD's AD
 * provider asks the forest's _gc._tcp records; in the one-domain forests we serve the
 * forest is the domain, and NAME is what the domain's discovery asks (other domains of a
 * forest, which only the GC would serve, are not looked up yet).
 * Its own connection and bad marks: a dead GC never makes the domain offline; the
 * back-end falls back to the domain's LDAP (be_id_gc.c).
 * Lookups use it only while it is connected (sdap_gc_usable): a GC that is down is tried
 * again in the background, never while a lookup waits. With ldap_id_mapping = false it
 * serves only when the schema says uidNumber and gidNumber are in the partial attribute
 * set the GC holds (isMemberOfPartialAttributeSet), as SSSD checks once connected;
 * otherwise every lookup stays on the domain's LDAP.
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
    /* One ID map: a SID must map to the same id whichever connection read it. */
    if (dom->opts->idmap != NULL) {
        talloc_free(opts->idmap);
        opts->idmap = dom->opts->idmap;
    }
    gc->dom = dom;
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

static void sdap_gc_schema_done(struct tevent_req *subreq);
static void sdap_gc_posix_done(struct tevent_req *subreq);

/* ldap_id_mapping = false: whether the GC holds uidNumber and gidNumber. The schema
 * partition is the forest's, named by the rootDSE's schemaNamingContext (as SSSD reads
 * it): not under the domain's search base, which may be a subtree of the domain or the
 * naming context of a child domain of the forest. */
static errno_t sdap_gc_posix_check(struct sdap_id_ctx *gc, struct sdap_conn *conn)
{
    struct tevent_req *subreq;

    subreq = sdap_rootdse_schema_send(gc, gc->ev, conn, gc->opts->search_timeout,
                                      &gc->stats);
    if (subreq == NULL) {
        return ENOMEM;
    }
    gc->gc_probe = subreq;
    tevent_req_set_callback(subreq, sdap_gc_schema_done, gc);
    return EOK;
}

static void sdap_gc_schema_done(struct tevent_req *subreq)
{
    static const char *const attrs[] = { "lDAPDisplayName", "isMemberOfPartialAttributeSet",
                                         NULL };
    struct sdap_id_ctx *gc = tevent_req_callback_data(subreq, struct sdap_id_ctx);
    struct sdap_search_args args = {
        .scope = LDAP_SCOPE_SUBTREE,
        .attrs = attrs,
        .timeout = gc->opts->search_timeout,
        .missing_base_ok = true,
    };
    TALLOC_CTX *tmp_ctx = NULL;
    char *schema_dn = NULL;
    errno_t ret;

    tmp_ctx = talloc_new(NULL);
    ret = tmp_ctx != NULL ? sdap_rootdse_schema_recv(tmp_ctx, subreq, &schema_dn) : ENOMEM;
    talloc_free(subreq);
    gc->gc_probe = NULL;
    if (ret != EOK) {
        /* Not known: lookups stay on the domain's LDAP; the next connection asks again. */
        DEBUG(SSSDBG_OP_FAILURE, "domain %s: cannot read the schema's naming context from "
              "the global catalog's rootDSE: %s\n", gc->opts->domain,
              ret == ENOENT ? "it names none" : sss_strerror(ret));
        goto done;
    }
    if (!sdap_conn_usable(gc->conn)) {
        ret = ENOTCONN;         /* the connection went away meanwhile: asked next time */
        goto done;
    }
    DEBUG(SSSDBG_TRACE_FUNC, "domain %s: reading the global catalog's partial attribute "
          "set from the schema at %s\n", gc->opts->domain, schema_dn);
    args.base = schema_dn;
    args.filter = talloc_asprintf(tmp_ctx, "(&(objectClass=attributeSchema)(|(lDAPDisplayName"
                                  "=%s)(lDAPDisplayName=%s)))",
                                  gc->opts->user_map[SDAP_UA_UID],
                                  gc->opts->group_map[SDAP_GA_GID]);
    if (args.filter == NULL) {
        ret = ENOMEM;
        goto done;
    }
    subreq = sdap_search_send(gc, gc->ev, gc->conn, &args, &gc->stats);
    if (subreq == NULL) {
        ret = ENOMEM;
        goto done;
    }
    gc->gc_probe = subreq;
    tevent_req_set_callback(subreq, sdap_gc_posix_done, gc);
    ret = EOK;
done:
    if (ret == ENOMEM) {
        DEBUG(SSSDBG_CRIT_FAILURE, "domain %s: cannot ask the schema about the global "
              "catalog: out of memory\n", gc->opts->domain);
    }
    talloc_free(tmp_ctx);
}

static void sdap_gc_posix_done(struct tevent_req *subreq)
{
    struct sdap_id_ctx *gc = tevent_req_callback_data(subreq, struct sdap_id_ctx);
    struct sdap_entry **entries = NULL;
    const char *name;
    const char *in_gc;
    size_t num = 0;
    size_t i;
    int found = 0;
    errno_t ret;

    ret = sdap_search_recv(gc, subreq, &entries, &num);
    talloc_free(subreq);
    gc->gc_probe = NULL;
    for (i = 0; ret == EOK && i < num; i++) {
        name = sdap_entry_value(entries[i], "lDAPDisplayName");
        in_gc = sdap_entry_value(entries[i], "isMemberOfPartialAttributeSet");
        if (name == NULL || in_gc == NULL || strcasecmp(in_gc, "TRUE") != 0) {
            continue;
        }
        if (strcasecmp(name, gc->opts->user_map[SDAP_UA_UID]) == 0) {
            found |= 1;
        } else if (strcasecmp(name, gc->opts->group_map[SDAP_GA_GID]) == 0) {
            found |= 2;
        }
    }
    talloc_free(entries);
    if (ret != EOK) {
        /* Not known: lookups stay on the domain's LDAP; the next connection asks again. */
        DEBUG(SSSDBG_OP_FAILURE, "domain %s: cannot read which POSIX attributes the global "
              "catalog holds: %s\n", gc->opts->domain, sss_strerror(ret));
        return;
    }
    gc->gc_posix = found == 3 ? SDAP_GC_USABLE : SDAP_GC_UNUSABLE;
    DEBUG(SSSDBG_CONF_SETTINGS, "domain %s: %s\n", gc->opts->domain, found == 3
          ? "the global catalog holds uidNumber and gidNumber: it serves lookups"
          : "POSIX attributes are not in the global catalog: lookups use the domain's LDAP "
            "only");
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
    if (gc->gc_posix != SDAP_GC_UNKNOWN) {
        return;
    }
    if (gc->opts->id_mapping) {
        gc->gc_posix = SDAP_GC_USABLE;     /* ids come from objectSid, which it holds */
        return;
    }
    ret = sdap_gc_posix_check(gc, conn);
    if (ret != EOK) {
        DEBUG(SSSDBG_OP_FAILURE, "domain %s: cannot ask the schema about the global "
              "catalog: %s\n", gc->opts->domain, sss_strerror(ret));
    }
}

struct sdap_id_ctx *sdap_gc_usable(struct sdap_id_ctx *dom)
{
    struct sdap_id_ctx *gc = sdap_id_ctx_gc(dom);

    if (gc == NULL) {
        return NULL;
    }
    if (!sdap_conn_usable(gc->conn)) {
        sdap_gc_probe(gc);
        return NULL;
    }
    if (gc->gc_posix != SDAP_GC_USABLE) {
        return NULL;
    }
    /* Slices the GC's lookups add to the shared map are kept as the domain's are. */
    gc->opts->idmap_record = dom->opts->idmap_record;
    gc->opts->idmap_record_pvt = dom->opts->idmap_record_pvt;
    return gc;
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
