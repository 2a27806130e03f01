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

/* "ldap://a, ldap://b" (with_scheme) or "a, b" from a list of hosts; NULL on ENOMEM. */
static char *join_hosts(TALLOC_CTX *mem_ctx, char **hosts, bool with_scheme)
{
    char *out = talloc_strdup(mem_ctx, "");
    size_t i;

    for (i = 0; out != NULL && hosts[i] != NULL; i++) {
        out = talloc_asprintf_append(out, "%s%s%s", i > 0 ? ", " : "",
                                     with_scheme ? "ldap://" : "", hosts[i]);
    }
    return out;
}

/* Checks a server list: host names only, no DNS discovery yet. */
static errno_t check_hosts(const char *section, const char *option, char **hosts)
{
    size_t i;

    for (i = 0; hosts[i] != NULL; i++) {
        if (strcmp(hosts[i], "_srv_") == 0) {
            DEBUG(SSSDBG_FATAL_FAILURE, "[%s] %s: _srv_ (DNS SRV discovery of the domain "
                  "controllers) is not supported by this build yet: name the DCs\n", section,
                  option);
            return ERR_INVALID_CONFIG;
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

static errno_t apply_servers(TALLOC_CTX *tmp_ctx, struct confdb *cdb, const char *section,
                             const char *ad_opt, const char *uri_opt, const char *kdc_opt)
{
    char **hosts = NULL;
    errno_t ret;

    ret = confdb_get_list(cdb, tmp_ctx, section, ad_opt, &hosts);
    if (ret != EOK || hosts[0] == NULL) {
        return ret;
    }
    ret = check_hosts(section, ad_opt, hosts);
    if (ret == EOK) {
        ret = set_default(cdb, section, uri_opt, join_hosts(tmp_ctx, hosts, true));
    }
    if (ret == EOK) {
        ret = set_default(cdb, section, kdc_opt, join_hosts(tmp_ctx, hosts, false));
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

    if (!confdb_is_set(cdb, section, "ldap_uri") && !confdb_is_set(cdb, section, "ad_server")) {
        DEBUG(SSSDBG_FATAL_FAILURE, "[%s] id_provider = ad needs ad_server (DNS SRV discovery "
              "of the domain controllers is not supported by this build yet)\n", section);
        ret = ERR_INVALID_CONFIG;
        goto done;
    }
    ret = apply_servers(tmp_ctx, cdb, section, "ad_server", "ldap_uri", "krb5_server");
    if (ret == EOK) {
        ret = apply_servers(tmp_ctx, cdb, section, "ad_backup_server", "ldap_backup_uri",
                            "krb5_backup_server");
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
