/*
 * Where krb5_child is and which KDCs it asks (krb5_child_client.h). libkrb5 does the
 * failover between KDCs itself, in the order of its realm's kdc entries: krb5_server, then
 * krb5_backup_server, are written as such entries (krb5_kpasswd as kpasswd_server, else
 * the KDCs' hosts on kpasswd's port, as SSSD does) to a snippet under the state
 * directory, which krb5_child reads before the system's krb5.conf. Written with a
 * temporary file and a rename, so a child never reads half of it. A _srv_ entry stands
 * for the KDCs the domain's DNS discovery found (id_provider = ad: the DCs the LDAP
 * failover discovered, which are the KDCs, as in SSSD): krb5_kdc_list_write rewrites the
 * snippet with them in its place each time discovery answers.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "providers/krb5/krb5_child_client.h"
#include "confdb/confdb.h"

static errno_t krb5_append_kdcs(char **text, const char *key, char **list, char **found);

/* The hosts discovery found, in _srv_'s place; none yet: nothing (libkrb5's own ways). */
static errno_t krb5_append_found(char **text, const char *key, char **found)
{
    if (found == NULL || found[0] == NULL) {
        DEBUG(SSSDBG_CONF_SETTINGS, "%s: _srv_ (DNS discovery) has found nothing yet\n", key);
        return EOK;
    }
    return krb5_append_kdcs(text, key, found, NULL);
}

static errno_t krb5_append_kdcs(char **text, const char *key, char **list, char **found)
{
    errno_t ret;
    size_t i;

    for (i = 0; list != NULL && list[i] != NULL; i++) {
        if (strncmp(list[i], "_srv_", 5) == 0) {
            ret = krb5_append_found(text, key, found);
            if (ret != EOK) {
                return ret;
            }
            continue;
        }
        if (strpbrk(list[i], "{}\n\r\t ") != NULL) {
            DEBUG(SSSDBG_CRIT_FAILURE, "%s: [%s] is not a host[:port]\n", key, list[i]);
            return ERR_INVALID_CONFIG;
        }
        *text = talloc_asprintf_append(*text, "        %s = %s\n", key, list[i]);
        if (*text == NULL) {
            return ENOMEM;
        }
    }
    return EOK;
}

/* host[:port] -> host (an IPv6 [addr]:port -> [addr]). */
static errno_t krb5_default_kpasswd(char **text, char **servers, char **found)
{
    char *host;
    char *colon;
    errno_t ret;
    size_t i;

    for (i = 0; servers != NULL && servers[i] != NULL; i++) {
        if (strncmp(servers[i], "_srv_", 5) == 0) {
            ret = found != NULL ? krb5_default_kpasswd(text, found, NULL) : EOK;
            if (ret != EOK) {
                return ret;
            }
            continue;
        }
        host = talloc_strdup(*text, servers[i]);
        if (host == NULL) {
            return ENOMEM;
        }
        colon = host[0] == '[' ? strstr(host, "]:") : strrchr(host, ':');
        if (colon != NULL && host[0] == '[') {
            colon[1] = '\0';
        } else if (colon != NULL && strchr(host, ':') == colon) {
            *colon = '\0';
        }
        *text = talloc_asprintf_append(*text, "        kpasswd_server = %s\n", host);
        talloc_free(host);
        if (*text == NULL) {
            return ENOMEM;
        }
    }
    return EOK;
}

static bool krb5_has_srv(char **list)
{
    size_t i;

    for (i = 0; list != NULL && list[i] != NULL; i++) {
        if (strncmp(list[i], "_srv_", 5) == 0) {
            return true;
        }
    }
    return false;
}

/* found: the hosts DNS discovery found, for the _srv_ entries (NULL: none yet). */
static errno_t krb5_write_snippet(struct krb5_child_cfg *cfg, struct confdb *cdb,
                                  const char *domain, const char *section,
                                  const char *realm, const char *state_dir, char **found)
{
    TALLOC_CTX *tmp_ctx = talloc_new(NULL);
    char **servers = NULL;
    char **backup = NULL;
    char **kpasswd = NULL;
    char *text;
    char *tmp;
    size_t len;
    int fd = -1;
    errno_t ret;

    if (tmp_ctx == NULL) {
        return ENOMEM;
    }
    ret = confdb_get_list(cdb, tmp_ctx, section, "krb5_server", &servers);
    if (ret == EOK) {
        ret = confdb_get_list(cdb, tmp_ctx, section, "krb5_backup_server", &backup);
    }
    if (ret == EOK) {
        ret = confdb_get_list(cdb, tmp_ctx, section, "krb5_kpasswd", &kpasswd);
    }
    if (ret != EOK) {
        goto done;
    }
    if ((servers == NULL || servers[0] == NULL) && (backup == NULL || backup[0] == NULL)) {
        ret = EOK;      /* the system's krb5.conf (or DNS) knows the realm */
        goto done;
    }
    if (found != NULL && !krb5_has_srv(servers)) {
        ret = EOK;      /* the KDCs are named: discovery does not change them */
        goto done;
    }
    text = talloc_asprintf(tmp_ctx, "# written by sssd_be for domain %s\n[realms]\n    %s = {\n",
                           domain, realm);
    if (text == NULL) {
        ret = ENOMEM;
        goto done;
    }
    ret = krb5_append_kdcs(&text, "kdc", servers, found);
    if (ret == EOK) {
        ret = krb5_append_kdcs(&text, "kdc", backup, NULL);
    }
    if (ret == EOK && kpasswd != NULL && kpasswd[0] != NULL) {
        ret = krb5_append_kdcs(&text, "kpasswd_server", kpasswd, found);
    } else if (ret == EOK) {
        /* SSSD: without krb5_kpasswd the KDCs' hosts are asked, on kpasswd's port. */
        ret = krb5_default_kpasswd(&text, servers, found);
    }
    if (ret != EOK) {
        goto done;
    }
    text = talloc_strdup_append(text, "    }\n");
    cfg->conf_path = talloc_asprintf(cfg, "%s/krb5_kdc_%s.conf", state_dir, domain);
    tmp = talloc_asprintf(tmp_ctx, "%s.XXXXXX", cfg->conf_path ? cfg->conf_path : "");
    if (text == NULL || cfg->conf_path == NULL || tmp == NULL) {
        ret = ENOMEM;
        goto done;
    }
    fd = mkostemp(tmp, O_CLOEXEC);
    if (fd < 0) {
        ret = errno;
        DEBUG(SSSDBG_CRIT_FAILURE, "cannot write the KDC list under %s: %s\n", state_dir,
              strerror(ret));
        goto done;
    }
    len = strlen(text);
    /* A rewrite from discovery runs on the loop: no fsync, the file is remade at start. */
    if (fchmod(fd, 0644) != 0 || write(fd, text, len) != (ssize_t)len
            || (found == NULL && fsync(fd) != 0) || rename(tmp, cfg->conf_path) != 0) {
        ret = errno != 0 ? errno : EIO;
        unlink(tmp);
        goto done;
    }
    ret = EOK;
done:
    if (fd >= 0) {
        close(fd);
    }
    if (ret != EOK && cfg->conf_path != NULL) {
        talloc_zfree(cfg->conf_path);
    }
    talloc_free(tmp_ctx);
    return ret;
}


errno_t krb5_child_cfg_create(TALLOC_CTX *mem_ctx, struct confdb *cdb, const char *domain,
                              const char *section, const char *realm, const char *state_dir,
                              int timeout, struct krb5_child_cfg **_cfg)
{
    struct krb5_child_cfg *cfg;
    const char *child;
    errno_t ret;

    SSS_CHECK_ARG(cdb != NULL && domain != NULL && section != NULL && realm != NULL
                  && state_dir != NULL && _cfg != NULL, EINVAL);
    cfg = talloc_zero(mem_ctx, struct krb5_child_cfg);
    if (cfg == NULL) {
        return ENOMEM;
    }
    /* Tests run an uninstalled child; never honoured when it could be an attacker's. */
    child = getuid() == geteuid() ? getenv("SSS_KRB5_CHILD") : NULL;
    cfg->child_path = child != NULL ? talloc_strdup(cfg, child)
                                    : talloc_asprintf(cfg, "%s/krb5_child", SSSD_LIBEXEC_PATH);
    cfg->timeout = timeout > 0 ? timeout : 6;
    if (cfg->child_path == NULL) {
        talloc_free(cfg);
        return ENOMEM;
    }
    ret = krb5_write_snippet(cfg, cdb, domain, section, realm, state_dir, NULL);
    if (ret != EOK) {
        talloc_free(cfg);
        return ret;
    }
    DEBUG(SSSDBG_CONF_SETTINGS, "krb5_child for %s: %s, KDC list %s, timeout %d s\n", domain,
          cfg->child_path, cfg->conf_path != NULL ? cfg->conf_path : "(system)", cfg->timeout);
    *_cfg = cfg;
    return EOK;
}

errno_t krb5_kdc_list_write(struct confdb *cdb, const char *domain, const char *section,
                            const char *state_dir, char **found)
{
    struct krb5_child_cfg *cfg;
    char *realm = NULL;
    errno_t ret;

    SSS_CHECK_ARG(cdb != NULL && domain != NULL && section != NULL && state_dir != NULL
                  && found != NULL, EINVAL);
    cfg = talloc_zero(NULL, struct krb5_child_cfg);
    if (cfg == NULL) {
        return ENOMEM;
    }
    ret = confdb_get_string(cdb, cfg, section, "krb5_realm", &realm);
    if (ret == EOK && (realm == NULL || realm[0] == '\0')) {
        ret = EOK;      /* no realm: no Kerberos in this domain */
        goto done;
    }
    if (ret == EOK) {
        ret = krb5_write_snippet(cfg, cdb, domain, section, realm, state_dir, found);
    }
    if (ret == EOK && cfg->conf_path != NULL) {
        DEBUG(SSSDBG_BE_FO, "domain %s: KDC list %s: %s%s from DNS discovery\n", domain,
              cfg->conf_path, found[0] != NULL ? found[0] : "(none)",
              found[0] != NULL && found[1] != NULL ? " and more" : "");
    }
done:
    talloc_free(cfg);
    return ret;
}
