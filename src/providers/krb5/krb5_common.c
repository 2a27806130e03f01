/*
 * The Kerberos provider's options (krb5_common.h) and the KDC-offline state; the KDC list
 * and the child's location are krb5_child_cfg.c's.
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
    errno_t ret;

    SSS_CHECK_ARG(ev != NULL && cdb != NULL && domain != NULL && section != NULL
                  && state_dir != NULL && _ctx != NULL, EINVAL);
    kctx = talloc_zero(mem_ctx, struct krb5_ctx);
    if (kctx == NULL) {
        return ENOMEM;
    }
    kctx->ev = ev;
    kctx->domain = talloc_strdup(kctx, domain);
    if (kctx->domain == NULL) {
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
    if (ret != EOK) {
        goto done;
    }
    if (kctx->auth_timeout <= 0) {
        kctx->auth_timeout = KRB5_DEFAULT_AUTH_TIMEOUT;
    }
    ret = krb5_child_cfg_create(kctx, cdb, domain, section, kctx->realm, state_dir,
                                kctx->auth_timeout, &kctx->child);
    if (ret != EOK) {
        goto done;
    }
    /* One login in flight at a time finds a child ready (exec'd, libkrb5 set up): it does
     * not pay the start, ~3 ms. More at once would mostly cost idle processes. */
    kctx->child->spares = 1;
    ret = krb5_child_pool_prestart(kctx->child, ev);
    if (ret != EOK) {
        goto done;
    }
    ret = krb5_renew_init(kctx);
    if (ret != EOK) {
        goto done;
    }
    DEBUG(SSSDBG_CONF_SETTINGS, "krb5 for %s: realm %s, ccache %s (%s), validate %d\n", domain,
          kctx->realm, kctx->ccname_tmpl, kctx->ccachedir, kctx->validate);
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
