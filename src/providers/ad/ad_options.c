/*
 * The AD provider's computed defaults (ad_options.h): from ad_domain, ad_server,
 * ad_backup_server and ad_hostname to the LDAP and Kerberos options the LDAP id provider
 * and krb5_child read.
 */
#include <ctype.h>
#include <unistd.h>

#include "util/util.h"
#include "confdb/confdb.h"
#include "providers/ad/ad_options.h"

/* "ldap://a, ldap://b" (with_scheme) or "a, b" from a list of hosts; NULL on ENOMEM.
 * _srv_ becomes the failover's discovery entry ldap://_srv_.NAME (sdap_failover.c), NAME
 * being srv_name; among the KDCs (!with_scheme) it stays _srv_: the DCs the failover
 * discovers, written to the KDC list as they are found (ad_servers.c). */
static char *join_hosts(TALLOC_CTX *mem_ctx, char **hosts, bool with_scheme,
                        const char *srv_name)
{
    char *out = talloc_strdup(mem_ctx, "");
    bool srv;
    size_t i;

    for (i = 0; out != NULL && hosts[i] != NULL; i++) {
        srv = strcmp(hosts[i], "_srv_") == 0;
        if (srv && with_scheme) {
            out = talloc_asprintf_append(out, "%sldap://_srv_.%s", out[0] ? ", " : "",
                                         srv_name);
            continue;
        }
        if (srv) {
            out = talloc_asprintf_append(out, "%s_srv_", out[0] ? ", " : "");
            continue;
        }
        out = talloc_asprintf_append(out, "%s%s%s", out[0] ? ", " : "",
                                     with_scheme ? "ldap://" : "", hosts[i]);
    }
    return out;
}

/* Checks a server list: host names, and _srv_ among the primary servers only (SSSD
 * ignores it in ad_backup_server, with an error in its log: so do we). */
static errno_t check_hosts(const char *section, const char *option, char **hosts,
                           bool backup)
{
    size_t i, j;

    for (i = 0; hosts[i] != NULL; i++) {
        if (strcmp(hosts[i], "_srv_") == 0) {
            if (!backup) {
                continue;
            }
            DEBUG(SSSDBG_CRIT_FAILURE, "[%s] %s: _srv_ (DNS discovery) is allowed for "
                  "the primary servers only (ad_server): ignored\n", section, option);
            for (j = i; hosts[j] != NULL; j++) {
                hosts[j] = hosts[j + 1];
            }
            i--;
            continue;
        }
        if (strpbrk(hosts[i], "/ \t") != NULL) {
            DEBUG(SSSDBG_FATAL_FAILURE, "[%s] %s: '%s' is not a host name\n", section, option,
                  hosts[i]);
            return ERR_INVALID_CONFIG;
        }
    }
    return EOK;
}

/* Sets option to value unless sssd.conf does, and says so at the config level. */
static errno_t set_default(struct confdb *cdb, const char *section, const char *option,
                           const char *value)
{
    if (value == NULL) {
        return ENOMEM;
    }
    if (confdb_is_set(cdb, section, option)) {
        return EOK;
    }
    DEBUG(SSSDBG_CONF_SETTINGS, "[%s] AD default: %s = %s\n", section, option, value);
    return confdb_set_default(cdb, section, option, value);
}

/* The name the failover's SRV lookups start from: dns_discovery_domain or ad_domain, with
 * ad_site in front (SITE._sites.DOMAIN) when set; NULL on ENOMEM. */
static char *srv_name(TALLOC_CTX *mem_ctx, struct confdb *cdb, const char *section,
                      const char *ad_domain)
{
    char *domain = NULL;
    char *site = NULL;

    if (confdb_get_string(cdb, mem_ctx, section, "dns_discovery_domain", &domain) != EOK
            || confdb_get_string(cdb, mem_ctx, section, "ad_site", &site) != EOK) {
        return NULL;
    }
    if (domain == NULL || domain[0] == '\0') {
        domain = talloc_strdup(mem_ctx, ad_domain);
    }
    if (site != NULL && site[0] != '\0' && domain != NULL) {
        return talloc_asprintf(mem_ctx, "%s._sites.%s", site, domain);
    }
    return domain;
}

static errno_t apply_servers(TALLOC_CTX *tmp_ctx, struct confdb *cdb, const char *section,
                             const char *ad_opt, const char *uri_opt, const char *kdc_opt,
                             const char *srv)
{
    bool backup = strcmp(ad_opt, "ad_backup_server") == 0;
    char **hosts = NULL;
    char *kdcs;
    errno_t ret;

    ret = confdb_get_list(cdb, tmp_ctx, section, ad_opt, &hosts);
    if (ret == EOK && !backup && hosts[0] == NULL) {
        /* No ad_server: DNS discovery, as SSSD does. */
        hosts = talloc_zero_array(tmp_ctx, char *, 2);
        if (hosts == NULL) {
            return ENOMEM;
        }
        hosts[0] = talloc_strdup(hosts, "_srv_");
        if (hosts[0] == NULL) {
            return ENOMEM;
        }
    }
    if (ret == EOK) {
        ret = check_hosts(section, ad_opt, hosts, backup);
    }
    if (ret != EOK || hosts[0] == NULL) {
        return ret;
    }
    ret = set_default(cdb, section, uri_opt, join_hosts(tmp_ctx, hosts, true, srv));
    kdcs = join_hosts(tmp_ctx, hosts, false, srv);
    if (ret == EOK && (kdcs == NULL || kdcs[0] != '\0')) {
        ret = set_default(cdb, section, kdc_opt, kdcs);
    }
    return ret;
}

errno_t ad_options_apply(struct confdb *cdb, const char *domain)
{
    TALLOC_CTX *tmp_ctx;
    char *section;
    char *ad_domain = NULL;
    char *realm = NULL;
    char *hostname = NULL;
    char *srv;
    char host[256];
    char *dot;
    size_t i;
    errno_t ret;

    SSS_CHECK_ARG(cdb != NULL && domain != NULL, EINVAL);
    tmp_ctx = talloc_new(NULL);
    if (tmp_ctx == NULL) {
        return ENOMEM;
    }
    section = confdb_domain_section(tmp_ctx, domain);
    if (section == NULL) {
        ret = ENOMEM;
        goto done;
    }
    ret = set_default(cdb, section, "ad_domain", domain);
    if (ret == EOK) {
        ret = confdb_get_string(cdb, tmp_ctx, section, "ad_domain", &ad_domain);
    }
    if (ret != EOK) {
        goto done;
    }
    realm = talloc_strdup(tmp_ctx, ad_domain);
    for (i = 0; realm != NULL && realm[i] != '\0'; i++) {
        realm[i] = (char)toupper((unsigned char)realm[i]);
    }
    ret = set_default(cdb, section, "krb5_realm", realm);
    if (ret == EOK) {
        ret = confdb_get_string(cdb, tmp_ctx, section, "krb5_realm", &realm);
    }
    if (ret != EOK) {
        goto done;
    }

    srv = srv_name(tmp_ctx, cdb, section, ad_domain);
    if (srv == NULL) {
        ret = ENOMEM;
        goto done;
    }
    ret = apply_servers(tmp_ctx, cdb, section, "ad_server", "ldap_uri", "krb5_server", srv);
    if (ret == EOK) {
        ret = apply_servers(tmp_ctx, cdb, section, "ad_backup_server", "ldap_backup_uri",
                            "krb5_backup_server", srv);
    }
    if (ret != EOK) {
        goto done;
    }

    if (gethostname(host, sizeof(host)) != 0) {
        ret = errno;
        goto done;
    }
    host[sizeof(host) - 1] = '\0';
    ret = set_default(cdb, section, "ad_hostname", host);
    if (ret == EOK) {
        ret = confdb_get_string(cdb, tmp_ctx, section, "ad_hostname", &hostname);
    }
    if (ret != EOK) {
        goto done;
    }
    /* The machine account's name: the short host name in upper case, then '$'. */
    dot = strchr(hostname, '.');
    if (dot != NULL) {
        *dot = '\0';
    }
    for (i = 0; hostname[i] != '\0'; i++) {
        hostname[i] = (char)toupper((unsigned char)hostname[i]);
    }
    ret = set_default(cdb, section, "ldap_sasl_authid",
                      talloc_asprintf(tmp_ctx, "%s$@%s", hostname, realm));
done:
    talloc_free(tmp_ctx);
    return ret;
}
