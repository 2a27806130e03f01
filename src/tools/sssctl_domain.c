/*
 * sssctl domain-list and domain-status. The configured domains come from sssd.conf; their
 * state from each back-end's sssd.backend.Status.GetStatus over the master bus (SSSD asks
 * InfoPipe on the system bus instead, which a plain install does not have). The domains an
 * AD domain trusts (its "subdomains") come from that domain's cache, where its back-end
 * records them (sysdb_subdomains.h), each listed after its domain as SSSD lists them.
 */
#include <getopt.h>
#include <time.h>

#include "tools/sssctl.h"
#include "sss_iface/sss_iface.h"
#include "db/sysdb_subdomains.h"

/* One back-end's answer to GetStatus. */
struct sssctl_dom_status {
    bool online;
    uint64_t since;
    const char *reason;
    const char *active;
    int32_t next_retry;
    const char **servers;
    const char **states;
    const char **errors;
    const uint32_t *contact;
    const uint32_t *failure;
    const uint32_t *backup;
    uint32_t count;
    /* GetDiscovery: DNS discovery entries (ad_server = _srv_) and what they found. */
    const char **dns_names;
    const char **sites;
    const uint32_t *expires;
    uint32_t n_dns;
    const char **discovered;
};

/* True when DNS named uri. */
static bool sssctl_discovered(const struct sssctl_dom_status *st, const char *uri)
{
    size_t i;

    for (i = 0; st->discovered != NULL && st->discovered[i] != NULL; i++) {
        if (strcmp(st->discovered[i], uri) == 0) {
            return true;
        }
    }
    return false;
}

static errno_t sssctl_get_status(TALLOC_CTX *mem_ctx, struct sssctl_bus *bus,
                                 const char *domain, struct sssctl_dom_status *st)
{
    struct tevent_req *req;
    uint32_t n_failure = 0, n_backup = 0;
    char *dest;
    errno_t ret;

    dest = sss_domain_bus_name(mem_ctx, domain);
    if (dest == NULL) {
        return ENOMEM;
    }
    req = sbus_call_sssd_backend_Status_GetStatus_send(mem_ctx, bus->conn, dest,
                                                       SSS_BUS_PATH);
    ret = sssctl_bus_wait(bus, req);
    if (ret == EOK) {
        ret = sbus_call_sssd_backend_Status_GetStatus_recv(
            mem_ctx, req, &st->online, &st->since, &st->reason, &st->active, &st->next_retry,
            &st->servers, &st->states, &st->errors, &st->contact, &st->count, &st->failure,
            &n_failure, &st->backup, &n_backup);
    }
    talloc_free(req);
    if (ret == EOK && (n_failure != st->count || n_backup != st->count)) {
        ret = ERR_SBUS_INVALID_ARGS;
    }
    if (ret != EOK) {
        return ret;
    }
    req = sbus_call_sssd_backend_Status_GetDiscovery_send(mem_ctx, bus->conn, dest,
                                                          SSS_BUS_PATH);
    ret = sssctl_bus_wait(bus, req);
    if (ret == EOK) {
        ret = sbus_call_sssd_backend_Status_GetDiscovery_recv(
            mem_ctx, req, &st->dns_names, &st->sites, &st->expires, &st->n_dns,
            &st->discovered);
    }
    talloc_free(req);
    return ret;
}

/* The domains domain trusts, from its cache: rows of t after the domain's, or a
 * "trusted_domains" member of the domain's JSON object. Returns how many. A cache that
 * cannot be read lists none (user-show says why). */
static size_t sssctl_list_trusted(struct sssctl_ctx *ctx, struct confdb *cdb,
                                  const char *domain, struct sssctl_table *t)
{
    struct sysdb_subdom *subs = NULL;
    struct sysdb_ctx *sysdb = NULL;
    size_t n = 0;
    size_t i;

    if (sssctl_open_cache(ctx, cdb, domain, &sysdb) != EOK || sysdb == NULL
            || sysdb_subdom_list(ctx->mem, sysdb, &subs, &n) != EOK) {
        n = 0;
    }
    if (ctx->json) {
        sssctl_json_arr_start(ctx->js, "trusted_domains");
    }
    for (i = 0; i < n; i++) {
        const char *row[3];

        row[0] = subs[i].name;
        row[1] = talloc_asprintf(ctx->mem, "via %s", domain);
        row[2] = talloc_asprintf(ctx->mem, "trusted (%s)", subs[i].flat);
        if (ctx->json) {
            sssctl_json_obj_start(ctx->js, NULL);
            sssctl_json_str(ctx->js, "name", subs[i].name);
            sssctl_json_str(ctx->js, "flat_name", subs[i].flat);
            sssctl_json_str(ctx->js, "sid", subs[i].sid);
            sssctl_json_int(ctx->js, "trust_direction", (int64_t)subs[i].direction);
            sssctl_json_obj_end(ctx->js);
        } else if (row[1] == NULL || row[2] == NULL || sssctl_table_add(t, row) != EOK) {
            break;
        }
    }
    if (ctx->json) {
        sssctl_json_arr_end(ctx->js);
    }
    talloc_free(subs);
    talloc_free(sysdb);
    return i;
}

int sssctl_domain_list(struct sssctl_ctx *ctx, int argc, char **argv)
{
    static const char *const headers[] = { "DOMAIN", "BACK-END", "STATE" };
    struct sssctl_dom_status st;
    struct sssctl_table *t;
    struct sssctl_bus *bus = NULL;
    const char **names = NULL;
    struct confdb *cdb;
    char **domains;
    size_t i, online = 0, n_trusted = 0;
    errno_t ret;

    if (argc != 1) {
        return sssctl_error("domain-list takes no arguments");
    }
    if (sssctl_load_conf(ctx, &cdb) != EOK) {
        return SSSCTL_EXIT_FAILURE;
    }
    ret = confdb_get_domains(cdb, ctx->mem, &domains);
    if (ret != EOK) {
        return sssctl_error("cannot read the domains: %s", sss_strerror(ret));
    }
    /* The list is the configuration's; a suite that is down only makes states unknown. */
    if (sssctl_bus_open(ctx->mem, ctx->paths.bus_address, &bus) != EOK
            || sssctl_bus_names(ctx->mem, bus, &names) != EOK) {
        names = NULL;
    }
    t = sssctl_table_new(ctx->mem, 3, headers);
    if (t == NULL) {
        return sssctl_error("out of memory");
    }
    if (ctx->json) {
        sssctl_json_obj_start(ctx->js, NULL);
        sssctl_json_bool(ctx->js, "sssd_running", names != NULL);
        sssctl_json_arr_start(ctx->js, "domains");
    }
    for (i = 0; domains[i] != NULL; i++) {
        char *dest = sss_domain_bus_name(ctx->mem, domains[i]);
        bool running = dest != NULL && sssctl_names_has(names, dest);
        bool known = running && sssctl_get_status(ctx->mem, bus, domains[i], &st) == EOK;
        const char *row[3];

        online += known && st.online ? 1 : 0;
        row[0] = domains[i];
        row[1] = running ? "running" : "not running";
        row[2] = known ? (st.online ? "online" : "offline") : "unknown";
        if (ctx->json) {
            sssctl_json_obj_start(ctx->js, NULL);
            sssctl_json_str(ctx->js, "name", domains[i]);
            sssctl_json_bool(ctx->js, "running", running);
            if (known) {
                sssctl_json_bool(ctx->js, "online", st.online);
            } else {
                sssctl_json_str(ctx->js, "online", NULL);
            }
        } else if (sssctl_table_add(t, row) != EOK) {
            return sssctl_error("out of memory");
        }
        n_trusted += sssctl_list_trusted(ctx, cdb, domains[i], t);
        if (ctx->json) {
            sssctl_json_obj_end(ctx->js);
        }
    }
    if (ctx->json) {
        sssctl_json_arr_end(ctx->js);
        sssctl_json_obj_end(ctx->js);
        return SSSCTL_EXIT_OK;
    }
    sssctl_table_print(t, stdout, "");
    printf("%zu domain%s, %zu online%s", i, i == 1 ? "" : "s", online,
           names == NULL ? " (sssd is not running)" : "");
    if (n_trusted > 0) {
        printf(", %zu trusted domain%s", n_trusted, n_trusted == 1 ? "" : "s");
    }
    printf("\n");
    return SSSCTL_EXIT_OK;
}

/* What domain-status prints: everything, or the parts its options name. */
#define SSSCTL_SHOW_ONLINE  0x1
#define SSSCTL_SHOW_ACTIVE  0x2
#define SSSCTL_SHOW_SERVERS 0x4

static void sssctl_status_json(struct sssctl_ctx *ctx, const char *domain,
                               const struct sssctl_dom_status *st, unsigned show)
{
    uint32_t i;

    sssctl_json_obj_start(ctx->js, NULL);
    sssctl_json_str(ctx->js, "domain", domain);
    if (show & SSSCTL_SHOW_ONLINE) {
        sssctl_json_bool(ctx->js, "online", st->online);
        sssctl_json_time(ctx->js, "since", (time_t)st->since);
        sssctl_json_str(ctx->js, "reason", st->reason);
        if (st->next_retry >= 0) {
            sssctl_json_int(ctx->js, "next_retry_seconds", st->next_retry);
        } else {
            sssctl_json_str(ctx->js, "next_retry_seconds", NULL);
        }
    }
    if (show & SSSCTL_SHOW_ACTIVE) {
        sssctl_json_str(ctx->js, "active_server", st->active[0] != '\0' ? st->active : NULL);
    }
    if (show & SSSCTL_SHOW_SERVERS) {
        sssctl_json_arr_start(ctx->js, "servers");
        for (i = 0; i < st->count; i++) {
            sssctl_json_obj_start(ctx->js, NULL);
            sssctl_json_str(ctx->js, "uri", st->servers[i]);
            /* backup: 1 a backup server, 2 the global catalog's (be_status.c). */
            sssctl_json_bool(ctx->js, "backup", st->backup[i] == 1);
            sssctl_json_bool(ctx->js, "global_catalog", st->backup[i] == 2);
            sssctl_json_bool(ctx->js, "discovered", sssctl_discovered(st, st->servers[i]));
            sssctl_json_str(ctx->js, "state", st->states[i]);
            sssctl_json_time(ctx->js, "last_contact", (time_t)st->contact[i]);
            sssctl_json_time(ctx->js, "last_failure", (time_t)st->failure[i]);
            sssctl_json_str(ctx->js, "last_error",
                            st->errors[i][0] != '\0' ? st->errors[i] : NULL);
            sssctl_json_obj_end(ctx->js);
        }
        sssctl_json_arr_end(ctx->js);
        sssctl_json_arr_start(ctx->js, "dns_discovery");
        for (i = 0; i < st->n_dns; i++) {
            sssctl_json_obj_start(ctx->js, NULL);
            sssctl_json_str(ctx->js, "name", st->dns_names[i]);
            sssctl_json_str(ctx->js, "site", st->sites[i][0] != '\0' ? st->sites[i] : NULL);
            sssctl_json_time(ctx->js, "expires", (time_t)st->expires[i]);
            sssctl_json_obj_end(ctx->js);
        }
        sssctl_json_arr_end(ctx->js);
    }
    sssctl_json_obj_end(ctx->js);
}

static int sssctl_status_text(struct sssctl_ctx *ctx, const struct sssctl_dom_status *st,
                              unsigned show)
{
    static const char *const headers[] = {
        "SERVER", "TYPE", "STATE", "LAST CONTACT", "LAST FAILURE", "LAST ERROR"
    };
    struct sssctl_table *t;
    time_t now = time(NULL);
    uint32_t i;

    if (show & SSSCTL_SHOW_ONLINE) {
        printf("Online status: %s\n", st->online ? "Online" : "Offline");
        printf("  since %s (%s): %s\n", sssctl_time_text(ctx->mem, (time_t)st->since),
               sssctl_age_text(ctx->mem, (time_t)st->since, now), st->reason);
        if (!st->online && st->next_retry >= 0) {
            printf("  next online probe in %d s\n", (int)st->next_retry);
        }
    }
    if (show & SSSCTL_SHOW_ACTIVE) {
        printf("Active server: %s\n", st->active[0] != '\0' ? st->active : "none");
    }
    if (show & SSSCTL_SHOW_SERVERS) {
        t = sssctl_table_new(ctx->mem, 6, headers);
        if (t == NULL) {
            return sssctl_error("out of memory");
        }
        for (i = 0; i < st->count; i++) {
            const char *row[6];
            bool dns;

            row[0] = st->servers[i];
            /* DNS discovery: a site's DCs primary, the domain's others backup. */
            dns = sssctl_discovered(st, st->servers[i]);
            row[1] = st->backup[i] == 2 ? (dns ? "global catalog (DNS)" : "global catalog")
                     : st->backup[i] ? (dns ? "backup (DNS)" : "backup")
                     : (dns ? "primary (DNS)" : "primary");
            row[2] = st->states[i];
            row[3] = st->contact[i] != 0 ? sssctl_age_text(ctx->mem, st->contact[i], now)
                                         : "never";
            row[4] = st->failure[i] != 0 ? sssctl_age_text(ctx->mem, st->failure[i], now)
                                         : "never";
            row[5] = st->errors[i][0] != '\0' ? st->errors[i] : "-";
            if (sssctl_table_add(t, row) != EOK) {
                return sssctl_error("out of memory");
            }
        }
        printf("Servers:\n");
        sssctl_table_print(t, stdout, "  ");
        printf("%u server%s configured\n", st->count, st->count == 1 ? "" : "s");
        for (i = 0; i < st->n_dns; i++) {
            printf("DNS discovery: %s%s%s: %s\n", st->dns_names[i],
                   st->sites[i][0] != '\0' ? ", site " : "", st->sites[i],
                   st->expires[i] == 0 ? "not looked up yet"
                   : (time_t)st->expires[i] > now
                   ? talloc_asprintf(ctx->mem, "records valid for %ld s more",
                                     (long)((time_t)st->expires[i] - now))
                   : "records expired (asked again at the next connection)");
        }
    }
    return SSSCTL_EXIT_OK;
}

int sssctl_domain_status(struct sssctl_ctx *ctx, int argc, char **argv)
{
    static const struct option longopts[] = {
        { "online",        no_argument, NULL, 'o' },
        { "active-server", no_argument, NULL, 'a' },
        { "servers",       no_argument, NULL, 'r' },
        { NULL, 0, NULL, 0 },
    };
    struct sssctl_dom_status st = { 0 };
    struct sssctl_bus *bus;
    const char **names;
    struct confdb *cdb;
    char **domains;
    const char *domain;
    unsigned show = 0;
    bool configured = false;
    size_t i;
    char *dest;
    errno_t ret;
    int c;

    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "oar", longopts, NULL)) != -1) {
        switch (c) {
        case 'o': show |= SSSCTL_SHOW_ONLINE; break;
        case 'a': show |= SSSCTL_SHOW_ACTIVE; break;
        case 'r': show |= SSSCTL_SHOW_SERVERS; break;
        default:
            return sssctl_error("domain-status: unknown option '%s'", argv[optind - 1]);
        }
    }
    if (optind + 1 != argc) {
        return sssctl_error("usage: sssctl domain-status DOMAIN "
                            "[--online] [--active-server] [--servers]");
    }
    domain = argv[optind];
    show = show != 0 ? show : SSSCTL_SHOW_ONLINE | SSSCTL_SHOW_ACTIVE | SSSCTL_SHOW_SERVERS;

    if (sssctl_load_conf(ctx, &cdb) != EOK) {
        return SSSCTL_EXIT_FAILURE;
    }
    ret = confdb_get_domains(cdb, ctx->mem, &domains);
    for (i = 0; ret == EOK && domains[i] != NULL; i++) {
        configured = configured || strcmp(domains[i], domain) == 0;
    }
    if (!configured) {
        return sssctl_error("domain '%s' is not configured (sssctl domain-list lists them)",
                            domain);
    }
    if (sssctl_bus_open(ctx->mem, ctx->paths.bus_address, &bus) != EOK) {
        return SSSCTL_EXIT_FAILURE;
    }
    dest = sss_domain_bus_name(ctx->mem, domain);
    ret = dest == NULL ? ENOMEM : sssctl_bus_names(ctx->mem, bus, &names);
    if (ret == EOK && !sssctl_names_has(names, dest)) {
        return sssctl_error("the back-end of domain '%s' is not running", domain);
    }
    if (ret == EOK) {
        ret = sssctl_get_status(ctx->mem, bus, domain, &st);
    }
    if (ret != EOK) {
        return sssctl_error("cannot read the status of domain '%s': %s", domain,
                            sss_strerror(ret));
    }
    if (ctx->json) {
        sssctl_status_json(ctx, domain, &st, show);
        return SSSCTL_EXIT_OK;
    }
    return sssctl_status_text(ctx, &st, show);
}
