/*
 * sssd.backend.Status: the domain's state as sssctl domain-status shows it. Online or
 * offline, since when and why (be_offline.c keeps them), the active server, the next online
 * probe, and every configured server with its failover state, last error and the times of
 * its last contact and last failure (sdap_failover.c keeps them); GetDiscovery: the DNS
 * discovery entries (ad_server = _srv_), the site they ask for and the servers DNS named.
 * An AD domain's global catalog servers (sdap_connect_gc.c) follow the domain's in both,
 * with backup = 2 in Status (older readers show them as backups).
 * Read-only: asking never changes a state or starts a connection.
 *
 * It also feeds the back-end's metrics (sss_metrics.h) from the counters the back-end and
 * sdap already keep, when they are read: nothing is added to the request path.
 */
#include "providers/backend/be_ctx.h"
#include "providers/ldap/sdap.h"
#include "sss_iface/sss_iface.h"
#include "util/sss_metrics.h"

/* The domain's servers, then its global catalog's (gc_from: the index of the first). */
static errno_t be_status_servers(TALLOC_CTX *mem_ctx, struct be_ctx *be,
                                 struct sdap_server_info **_list, size_t *_count,
                                 size_t *_gc_from)
{
    struct sdap_server_info *list = NULL;
    struct sdap_server_info *gc = NULL;
    size_t count = 0;
    size_t n_gc = 0;
    errno_t ret;

    ret = sdap_id_ctx_servers(mem_ctx, be->id_ctx, &list, &count);
    if (ret == EOK && sdap_id_ctx_gc(be->id_ctx) != NULL) {
        ret = sdap_id_ctx_servers(mem_ctx, sdap_id_ctx_gc(be->id_ctx), &gc, &n_gc);
    }
    if (ret == EOK && n_gc > 0) {
        list = talloc_realloc(mem_ctx, list, struct sdap_server_info, count + n_gc);
        ret = list == NULL ? ENOMEM : EOK;
    }
    if (ret != EOK) {
        return ret;
    }
    if (n_gc > 0) {
        memcpy(&list[count], gc, n_gc * sizeof(*gc));
    }
    *_list = list;
    *_gc_from = count;
    *_count = count + n_gc;
    return EOK;
}

/* The server's state word (sss_iface_dp.xml lists them). */
static const char *be_status_word(const struct sdap_server_info *srv)
{
    if (srv->active) {
        return "active";
    }
    if (srv->bad) {
        return "not working";
    }
    return srv->tried ? "working" : "not tried";
}

static errno_t be_status_get(TALLOC_CTX *mem_ctx, struct sbus_request *sbus_req, void *data,
                             bool *_online, uint64_t *_since, const char **_reason,
                             const char **_active_server, int32_t *_next_retry,
                             const char ***_servers, const char ***_states,
                             const char ***_errors, const uint32_t **_contact,
                             uint32_t *_n_contact, const uint32_t **_failure,
                             uint32_t *_n_failure, const uint32_t **_backup,
                             uint32_t *_n_backup)
{
    struct be_ctx *be = talloc_get_type(data, struct be_ctx);
    struct sdap_server_info *list = NULL;
    const char **servers, **states, **errors;
    uint32_t *contact, *failure, *backup;
    const char *reason = "";
    const char *active;
    time_t since = 0;
    size_t count = 0;
    size_t gc_from = 0;
    size_t i, n;
    errno_t ret;

    assert(be != NULL);
    ret = be_status_servers(mem_ctx, be, &list, &count, &gc_from);
    if (ret != EOK) {
        return ret;
    }
    servers = talloc_zero_array(mem_ctx, const char *, count + 1);
    states = talloc_zero_array(mem_ctx, const char *, count + 1);
    errors = talloc_zero_array(mem_ctx, const char *, count + 1);
    contact = talloc_zero_array(mem_ctx, uint32_t, count + 1);
    failure = talloc_zero_array(mem_ctx, uint32_t, count + 1);
    backup = talloc_zero_array(mem_ctx, uint32_t, count + 1);
    if (servers == NULL || states == NULL || errors == NULL || contact == NULL
            || failure == NULL || backup == NULL) {
        return ENOMEM;
    }
    active = "";
    for (i = 0, n = 0; i < count; i++) {
        if (list[i].dns_name != NULL) {
            continue;   /* a discovery entry (GetDiscovery), not a server */
        }
        servers[n] = list[i].uri;
        states[n] = be_status_word(&list[i]);
        errors[n] = list[i].last_error != EOK ? sss_strerror(list[i].last_error) : "";
        /* Unix times fit 32 bits until 2106. */
        contact[n] = (uint32_t)list[i].last_contact;
        failure[n] = (uint32_t)list[i].last_failure;
        backup[n] = i >= gc_from ? 2 : list[i].backup ? 1 : 0;
        if (list[i].active && i < gc_from) {
            active = list[i].uri;
        }
        n++;
    }
    count = n;
    be_offline_since(be, &since, &reason);

    *_online = !be_is_offline(be);
    *_since = (uint64_t)since;
    *_reason = reason;
    *_active_server = active;
    *_next_retry = be_is_offline(be) ? be_offline_next_retry(be) : -1;
    *_servers = servers;
    *_states = states;
    *_errors = errors;
    *_contact = contact;
    *_n_contact = (uint32_t)count;
    *_failure = failure;
    *_n_failure = (uint32_t)count;
    *_backup = backup;
    *_n_backup = (uint32_t)count;
    return EOK;
}

/* The DNS discovery entries and what DNS named (sss_iface_dp.xml). */
static errno_t be_status_discovery(TALLOC_CTX *mem_ctx, struct sbus_request *sbus_req,
                                   void *data, const char ***_names, const char ***_sites,
                                   const uint32_t **_expires, uint32_t *_n_expires,
                                   const char ***_discovered)
{
    struct be_ctx *be = talloc_get_type(data, struct be_ctx);
    struct sdap_server_info *list = NULL;
    const char **names, **sites, **discovered;
    uint32_t *expires;
    size_t count = 0;
    size_t gc_from = 0;
    size_t i, n = 0, d = 0;
    errno_t ret;

    assert(be != NULL);
    ret = be_status_servers(mem_ctx, be, &list, &count, &gc_from);
    if (ret != EOK) {
        return ret;
    }
    names = talloc_zero_array(mem_ctx, const char *, count + 1);
    sites = talloc_zero_array(mem_ctx, const char *, count + 1);
    expires = talloc_zero_array(mem_ctx, uint32_t, count + 1);
    discovered = talloc_zero_array(mem_ctx, const char *, count + 1);
    if (names == NULL || sites == NULL || expires == NULL || discovered == NULL) {
        return ENOMEM;
    }
    for (i = 0; i < count; i++) {
        if (list[i].dns_name != NULL) {
            names[n] = list[i].dns_name;
            sites[n] = list[i].site;
            expires[n] = (uint32_t)list[i].dns_expires;
            n++;
        } else if (list[i].discovered) {
            discovered[d++] = list[i].uri;
        }
    }
    *_names = names;
    *_sites = sites;
    *_expires = expires;
    *_n_expires = (uint32_t)n;
    *_discovered = discovered;
    return EOK;
}

static void be_status_counter(const char *name, const char *help, const char *labels,
                              uint64_t value)
{
    sss_metric_set(sss_metric_get(name, help, SSS_METRIC_COUNTER, labels), value);
}

/* The collector: be_stats and the per-server counts into metrics. */
static void be_status_collect(void *pvt)
{
    struct be_ctx *be = talloc_get_type(pvt, struct be_ctx);
    struct sdap_id_stats ls = { 0 };
    struct sdap_server_info *list = NULL;
    TALLOC_CTX *tmp_ctx = talloc_new(NULL);
    size_t count = 0, i;
    char *labels;

    be_status_counter("sssd_be_requests_total", "Account requests received by the back-end",
                      "", be->stats.requests);
    be_status_counter("sssd_be_coalesced_total", "Requests joined to an identical one in "
                      "flight", "", be->stats.coalesced);
    be_status_counter("sssd_be_operations_total", "Provider operations started", "",
                      be->stats.operations);
    be_status_counter("sssd_offline_transitions_total", "Changes of the domain's state",
                      "to=\"offline\"", be->stats.went_offline);
    be_status_counter("sssd_offline_transitions_total", "Changes of the domain's state",
                      "to=\"online\"", be->stats.went_online);
    be_status_counter("sssd_online_probes_total", "Online probes sent while offline", "",
                      be->stats.probes);
    sdap_id_ctx_get_stats(be->id_ctx, &ls);
    be_status_counter("sssd_ldap_searches_total", "LDAP search operations sent (each page "
                      "counts)", "", ls.searches);
    if (tmp_ctx == NULL || sdap_id_ctx_servers(tmp_ctx, be->id_ctx, &list, &count) != EOK) {
        count = 0;
    }
    for (i = 0; i < count; i++) {
        if (list[i].dns_name != NULL) {
            continue;   /* a discovery entry: no connections of its own */
        }
        labels = talloc_asprintf(tmp_ctx, "server=\"%s\",result=\"ok\"", list[i].uri);
        be_status_counter("sssd_ldap_connections_total", "LDAP connections by server: "
                          "established (ok) or failed and lost (error)", labels,
                          list[i].connects);
        labels = talloc_asprintf(tmp_ctx, "server=\"%s\",result=\"error\"", list[i].uri);
        be_status_counter("sssd_ldap_connections_total", "LDAP connections by server: "
                          "established (ok) or failed and lost (error)", labels,
                          list[i].failures);
    }
    talloc_free(tmp_ctx);
}

static int be_status_collector_destructor(struct sss_metric_collector **c)
{
    sss_metrics_remove_collector(*c);
    return 0;
}

errno_t be_status_register(struct be_ctx *be, struct sbus_connection *conn)
{
    struct sss_metric_collector **c;
    struct sbus_method *methods;
    struct sbus_interface *iface;

    SSS_CHECK_ARG(be != NULL, EINVAL);
    SSS_CHECK_ARG(conn != NULL, EINVAL);
    methods = talloc_zero_array(be, struct sbus_method, 3);
    iface = talloc_zero(be, struct sbus_interface);
    if (methods == NULL || iface == NULL) {
        return ENOMEM;
    }
    methods[0] = (struct sbus_method)SBUS_METHOD_SYNC_sssd_backend_Status_GetStatus(
        be_status_get, be);
    methods[1] = (struct sbus_method)SBUS_METHOD_SYNC_sssd_backend_Status_GetDiscovery(
        be_status_discovery, be);
    methods[2] = (struct sbus_method)SBUS_METHODS_END;
    iface->name = SBUS_IFACE_sssd_backend_Status;
    iface->methods = methods;
    /* The collector goes with the back-end (a handle freed with it unregisters it). */
    c = talloc(be, struct sss_metric_collector *);
    if (c == NULL) {
        return ENOMEM;
    }
    *c = sss_metrics_add_collector(be_status_collect, be);
    if (*c == NULL) {
        talloc_free(c);
        return ENOMEM;
    }
    talloc_set_destructor(c, be_status_collector_destructor);
    return sbus_connection_add_interface(conn, SSS_BUS_PATH, iface);
}
