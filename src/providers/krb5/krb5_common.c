/*
 * The Kerberos provider's options (krb5_common.h) and its KDC list. libkrb5 does the
 * failover between KDCs itself, in the order of its realm's kdc entries: krb5_server, then
 * krb5_backup_server, are written as such entries (and krb5_kpasswd as kpasswd_server) to
 * a snippet under the state directory, which krb5_child reads before the system's
 * krb5.conf (KRB5_CONFIG=snippet:system). Written with a temporary file and a rename, so
 * a child never reads half of it.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "providers/krb5/krb5_common.h"
#include "confdb/confdb.h"

static errno_t krb5_opt_lifetime(struct confdb *cdb, const char *section, const char *option,
                                 int *_secs)
{
    char *str = NULL;
    errno_t ret;

    *_secs = 0;
    ret = confdb_get_string(cdb, NULL, section, option, &str);
    if (ret != EOK || str == NULL) {
        return ret;
    }
    ret = krb5_parse_lifetime(str, _secs);
    if (ret != EOK) {
        DEBUG(SSSDBG_CRIT_FAILURE, "[%s] %s = %s: not a lifetime (e.g. 3600, 10h, 1d2h)\n",
              section, option, str);
        ret = ERR_INVALID_CONFIG;
    }
    talloc_free(str);
    return ret;
}

static errno_t krb5_append_kdcs(char **text, const char *key, char **list)
{
    size_t i;

    for (i = 0; list != NULL && list[i] != NULL; i++) {
        if (strncmp(list[i], "_srv_", 5) == 0) {
            DEBUG(SSSDBG_CONF_SETTINGS, "%s: _srv_ (DNS discovery) is left to libkrb5\n", key);
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
static errno_t krb5_default_kpasswd(char **text, char **servers)
{
    char *host;
    char *colon;
    size_t i;

    for (i = 0; servers != NULL && servers[i] != NULL; i++) {
        if (strncmp(servers[i], "_srv_", 5) == 0) {
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

static errno_t krb5_write_snippet(struct krb5_ctx *kctx, struct confdb *cdb,
                                  const char *section, const char *state_dir)
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
    text = talloc_asprintf(tmp_ctx, "# written by sssd_be for domain %s\n[realms]\n    %s = {\n",
                           kctx->domain, kctx->realm);
    if (text == NULL) {
        ret = ENOMEM;
        goto done;
    }
    ret = krb5_append_kdcs(&text, "kdc", servers);
    if (ret == EOK) {
        ret = krb5_append_kdcs(&text, "kdc", backup);
    }
    if (ret == EOK && kpasswd != NULL && kpasswd[0] != NULL) {
        ret = krb5_append_kdcs(&text, "kpasswd_server", kpasswd);
    } else if (ret == EOK) {
        /* SSSD: without krb5_kpasswd the KDCs' hosts are asked, on kpasswd's port. */
        ret = krb5_default_kpasswd(&text, servers);
    }
    if (ret != EOK) {
        goto done;
    }
    text = talloc_strdup_append(text, "    }\n");
    kctx->conf_path = talloc_asprintf(kctx, "%s/krb5_kdc_%s.conf", state_dir, kctx->domain);
    tmp = talloc_asprintf(tmp_ctx, "%s.XXXXXX", kctx->conf_path ? kctx->conf_path : "");
    if (text == NULL || kctx->conf_path == NULL || tmp == NULL) {
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
    if (fchmod(fd, 0644) != 0 || write(fd, text, len) != (ssize_t)len || fsync(fd) != 0
            || rename(tmp, kctx->conf_path) != 0) {
        ret = errno != 0 ? errno : EIO;
        unlink(tmp);
        goto done;
    }
    ret = EOK;
done:
    if (fd >= 0) {
        close(fd);
    }
    if (ret != EOK && kctx->conf_path != NULL) {
        talloc_zfree(kctx->conf_path);
    }
    talloc_free(tmp_ctx);
    return ret;
}

static errno_t krb5_read_strings(struct krb5_ctx *kctx, struct confdb *cdb,
                                 const char *section)
{
    errno_t ret;

    ret = confdb_get_string(cdb, kctx, section, "krb5_realm", &kctx->realm);
    if (ret == EOK) {
        ret = confdb_get_string(cdb, kctx, section, "krb5_ccname_template", &kctx->ccname_tmpl);
    }
    if (ret == EOK) {
        ret = confdb_get_string(cdb, kctx, section, "krb5_ccachedir", &kctx->ccachedir);
    }
    if (ret == EOK) {
        ret = confdb_get_string(cdb, kctx, section, "krb5_keytab", &kctx->keytab);
    }
    if (ret != EOK) {
        return ret;
    }
    if (kctx->realm == NULL || kctx->realm[0] == '\0') {
        DEBUG(SSSDBG_CRIT_FAILURE, "[%s]: the krb5 provider needs krb5_realm\n", section);
        return ERR_INVALID_CONFIG;
    }
    if (kctx->ccname_tmpl == NULL) {
        kctx->ccname_tmpl = talloc_strdup(kctx, KRB5_DEFAULT_CCNAME_TMPL);
    }
    if (kctx->ccachedir == NULL) {
        kctx->ccachedir = talloc_strdup(kctx, KRB5_DEFAULT_CCACHEDIR);
    }
    if (kctx->keytab == NULL) {
        kctx->keytab = talloc_strdup(kctx, "");
    }
    if (kctx->ccname_tmpl == NULL || kctx->ccachedir == NULL || kctx->keytab == NULL) {
        return ENOMEM;
    }
    return EOK;
}

errno_t krb5_ctx_create(TALLOC_CTX *mem_ctx, struct tevent_context *ev, struct confdb *cdb,
                        const char *domain, const char *section, const char *state_dir,
                        struct krb5_ctx **_ctx)
{
    struct krb5_ctx *kctx;
    const char *child;
    errno_t ret;

    SSS_CHECK_ARG(ev != NULL && cdb != NULL && domain != NULL && section != NULL
                  && state_dir != NULL && _ctx != NULL, EINVAL);
    kctx = talloc_zero(mem_ctx, struct krb5_ctx);
    if (kctx == NULL) {
        return ENOMEM;
    }
    kctx->ev = ev;
    kctx->domain = talloc_strdup(kctx, domain);
    /* Tests run an uninstalled child; never honoured when it could be an attacker's. */
    child = getuid() == geteuid() ? getenv("SSS_KRB5_CHILD") : NULL;
    kctx->child_path = child != NULL ? talloc_strdup(kctx, child)
                                     : talloc_asprintf(kctx, "%s/krb5_child", SSSD_LIBEXEC_PATH);
    if (kctx->domain == NULL || kctx->child_path == NULL) {
        ret = ENOMEM;
        goto done;
    }
    ret = krb5_read_strings(kctx, cdb, section);
    if (ret == EOK) {
        ret = confdb_get_bool(cdb, section, "krb5_validate", &kctx->validate);
    }
    if (ret == EOK) {
        ret = confdb_get_bool(cdb, section, "krb5_canonicalize", &kctx->canonicalize);
    }
    if (ret == EOK) {
        ret = confdb_get_bool(cdb, section, "krb5_use_enterprise_principal", &kctx->enterprise);
    }
    if (ret == EOK) {
        ret = confdb_get_bool(cdb, section, "krb5_store_password_if_offline",
                              &kctx->store_pw_if_offline);
    }
    if (ret == EOK) {
        ret = confdb_get_int(cdb, section, "krb5_auth_timeout", &kctx->auth_timeout);
    }
    if (ret == EOK) {
        ret = confdb_get_int(cdb, section, "offline_timeout", &kctx->offline_timeout);
        if (ret == EINVAL || ret == ENOENT) {
            kctx->offline_timeout = 60;
            ret = EOK;
        }
    }
    if (ret == EOK) {
        ret = krb5_opt_lifetime(cdb, section, "krb5_lifetime", &kctx->lifetime);
    }
    if (ret == EOK) {
        ret = krb5_opt_lifetime(cdb, section, "krb5_renewable_lifetime",
                                &kctx->renewable_lifetime);
    }
    if (ret == EOK) {
        ret = krb5_opt_lifetime(cdb, section, "krb5_renew_interval", &kctx->renew_interval);
    }
    if (ret == EOK) {
        ret = krb5_write_snippet(kctx, cdb, section, state_dir);
    }
    if (ret != EOK) {
        goto done;
    }
    if (kctx->auth_timeout <= 0) {
        kctx->auth_timeout = KRB5_DEFAULT_AUTH_TIMEOUT;
    }
    ret = krb5_renew_init(kctx);
    if (ret != EOK) {
        goto done;
    }
    DEBUG(SSSDBG_CONF_SETTINGS, "krb5 for %s: realm %s, ccache %s (%s), validate %d, child %s, "
          "KDC list %s\n", domain, kctx->realm, kctx->ccname_tmpl, kctx->ccachedir,
          kctx->validate, kctx->child_path, kctx->conf_path ? kctx->conf_path : "(system)");
    *_ctx = kctx;
    kctx = NULL;
done:
    talloc_free(kctx);
    return ret;
}

bool krb5_kdc_offline(struct krb5_ctx *kctx)
{
    return kctx->offline_until != 0 && time(NULL) < kctx->offline_until;
}

void krb5_kdc_mark_offline(struct krb5_ctx *kctx)
{
    DEBUG(SSSDBG_OP_FAILURE, "no KDC of %s answered: logins use cached credentials for %d s\n",
          kctx->realm, kctx->offline_timeout);
    kctx->offline_until = time(NULL) + kctx->offline_timeout;
}
