/*
 * The AD provider's KDCs from DNS discovery (ad_options.h). In AD the DCs are the KDCs:
 * SSSD's AD provider hands libkrb5 the DCs its failover resolved (the kdcinfo file its
 * locator plugin reads), not a separate _kerberos._tcp lookup. We do the same with the
 * KDC list file krb5_child_cfg.c already writes for krb5_server: krb5_server = _srv_ (the
 * default when ad_server is _srv_ or unset) stands for the DCs the LDAP failover
 * discovered, and each time discovery installs an answer the file is rewritten with them,
 * in failover order (the site's DCs, then the domain's). libkrb5 fails over between them
 * itself. Readers: krb5_child (KRB5_CONFIG=file:system, krb5_child_pool.c) and this
 * process, whose GSSAPI bind asks the KDC for the LDAP service ticket: KRB5_CONFIG is set
 * here the same way. A file in KRB5_CONFIG rather than SSSD's locator plugin: the plugin
 * must be installed into libkrb5's own plugin directory, outside our prefix, and would
 * change the KDCs of every program on the host; a profile file is read by libkrb5 as it
 * is, needs nothing installed and reaches only our processes.
 *
 * The global catalog (ad_enable_gc, default true): a second id context over the GC
 * servers (sdap_connect_gc.c: the DCs on port 3268, or DNS's _gc._tcp records, the
 * site's first), connected once the domain's own connection is up (never before: they
 * share one machine TGT, which the domain's connection gets), and again after each new
 * domain connection when it has none. sssctl domain-status shows its servers. Groups and
 * initgroups are asked there first (be_id_gc.c), users on the domain's LDAP; with
 * ad_enable_gc = false no connection to the GC is ever opened.
 */
#include <stdlib.h>

#include "util/util.h"
#include "confdb/confdb.h"
#include "providers/ad/ad_options.h"
#include "providers/ldap/sdap.h"
#include "providers/krb5/krb5_child_client.h"

struct ad_kdc_ctx {
    struct confdb *cdb;
    char *domain;
    char *section;
};

static void ad_gc_connect(void *pvt)
{
    sdap_gc_probe(talloc_get_type_abort(pvt, struct sdap_id_ctx));
}

static errno_t ad_gc_init(struct confdb *cdb, const char *domain, const char *section,
                          struct sdap_id_ctx *id_ctx)
{
    bool enabled = true;
    errno_t ret;

    ret = confdb_get_bool(cdb, section, "ad_enable_gc", &enabled);
    if (ret != EOK || !enabled) {
        return ret;
    }
    ret = sdap_id_ctx_create_gc(cdb, domain, id_ctx);
    if (ret != EOK) {
        return ret;
    }
    sdap_id_ctx_on_connect(id_ctx, ad_gc_connect, sdap_id_ctx_gc(id_ctx));
    return EOK;
}

static void ad_kdc_found(void *pvt, char **hosts)
{
    struct ad_kdc_ctx *ctx = talloc_get_type_abort(pvt, struct ad_kdc_ctx);
    errno_t ret;

    ret = krb5_kdc_list_write(ctx->cdb, ctx->domain, ctx->section, SSSD_STATE_DIR, hosts);
    if (ret != EOK) {
        /* The previous list stays: logins keep the KDCs known before. */
        DEBUG(SSSDBG_CRIT_FAILURE, "domain %s: cannot write the KDCs DNS found: %s\n",
              ctx->domain, sss_strerror(ret));
    }
}

/* KRB5_CONFIG = path:<what it was, or /etc/krb5.conf>, unless path is there already. */
static errno_t ad_kdc_env(TALLOC_CTX *mem_ctx, const char *path)
{
    const char *old = getenv("KRB5_CONFIG");
    char *value;

    if (old != NULL && strstr(old, path) != NULL) {
        return EOK;
    }
    value = talloc_asprintf(mem_ctx, "%s:%s", path,
                            old != NULL && old[0] != '\0' ? old : "/etc/krb5.conf");
    if (value == NULL) {
        return ENOMEM;
    }
    return setenv("KRB5_CONFIG", value, 1) == 0 ? EOK : errno;
}

errno_t ad_servers_init(struct confdb *cdb, const char *domain, struct sdap_id_ctx *id_ctx)
{
    TALLOC_CTX *tmp_ctx;
    struct ad_kdc_ctx *ctx;
    char **kdcs = NULL;
    char *path;
    bool srv = false;
    size_t i;
    errno_t ret;

    SSS_CHECK_ARG(cdb != NULL && domain != NULL, EINVAL);
    tmp_ctx = talloc_new(NULL);
    if (tmp_ctx == NULL) {
        return ENOMEM;
    }
    ctx = talloc_zero(tmp_ctx, struct ad_kdc_ctx);
    if (ctx == NULL) {
        ret = ENOMEM;
        goto done;
    }
    ctx->cdb = cdb;
    ctx->domain = talloc_strdup(ctx, domain);
    ctx->section = confdb_domain_section(ctx, domain);
    if (ctx->domain == NULL || ctx->section == NULL) {
        ret = ENOMEM;
        goto done;
    }
    if (id_ctx != NULL) {
        ret = ad_gc_init(cdb, domain, ctx->section, id_ctx);
        if (ret != EOK) {
            goto done;
        }
    }
    ret = confdb_get_list(cdb, tmp_ctx, ctx->section, "krb5_server", &kdcs);
    if (ret != EOK) {
        goto done;
    }
    for (i = 0; kdcs != NULL && kdcs[i] != NULL; i++) {
        srv = srv || strncmp(kdcs[i], "_srv_", 5) == 0;
    }
    if (!srv || id_ctx == NULL) {
        ret = EOK;      /* the KDCs are named (or no LDAP failover to follow) */
        goto done;
    }
    /* The file krb5_child_cfg.c writes (krb5_child_client.h). */
    path = talloc_asprintf(tmp_ctx, "%s/krb5_kdc_%s.conf", SSSD_STATE_DIR, domain);
    if (path == NULL) {
        ret = ENOMEM;
        goto done;
    }
    ret = ad_kdc_env(tmp_ctx, path);
    if (ret != EOK) {
        goto done;
    }
    sdap_id_ctx_on_discovery(id_ctx, ad_kdc_found, talloc_steal(id_ctx, ctx));
    DEBUG(SSSDBG_CONF_SETTINGS, "domain %s: the KDCs are the DCs DNS discovery finds (%s)\n",
          domain, path);
done:
    talloc_free(tmp_ctx);
    return ret;
}
