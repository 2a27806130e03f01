/*
 * Domain state of a responder and the signals every responder listens for
 * (responder_domains.h): reads each domain's lookup options once at start, opens each
 * domain's cache lazily, and applies the back-ends' announcements. Also the main() every
 * responder shares.
 */
#include <inttypes.h>
#include <stdio.h>
#include <strings.h>
#include <sys/resource.h>

#include "responder/common/responder_domains.h"
#include "sss_iface/sss_iface.h"

static errno_t resp_case_mode(struct confdb *cdb, const char *section,
                              enum sysdb_case *_mode)
{
    char *value = NULL;
    errno_t ret;

    ret = confdb_get_string(cdb, NULL, section, "case_sensitive", &value);
    if (ret != EOK) {
        return ret;
    }
    if (value == NULL || strcasecmp(value, "true") == 0) {
        *_mode = SYSDB_CASE_SENSITIVE;
    } else if (strcasecmp(value, "false") == 0) {
        *_mode = SYSDB_CASE_INSENSITIVE;
    } else if (strcasecmp(value, "preserving") == 0) {
        *_mode = SYSDB_CASE_PRESERVING;
    } else {
        DEBUG(SSSDBG_CRIT_FAILURE, "[%s] case_sensitive = %s is not understood\n", section,
              value);
        ret = EINVAL;
    }
    talloc_free(value);
    return ret;
}

static errno_t resp_domain_read(struct resp_ctx *rctx, struct resp_domain *dom,
                                const char *global_format)
{
    TALLOC_CTX *tmp_ctx = talloc_new(NULL);
    char *section;
    errno_t ret;

    if (tmp_ctx == NULL) {
        return ENOMEM;
    }
    section = confdb_domain_section(tmp_ctx, dom->name);
    if (section == NULL) {
        ret = ENOMEM;
        goto done;
    }
    dom->active = true;
    dom->online = true;
    dom->bus_name = sss_domain_bus_name(rctx->domains, dom->name);
    if (dom->bus_name == NULL) {
        ret = ENOMEM;
        goto done;
    }
    ret = confdb_get_bool(rctx->cdb, section, "use_fully_qualified_names", &dom->fqnames);
    if (ret != EOK) {
        goto done;
    }
    ret = confdb_get_bool(rctx->cdb, section, "enumerate", &dom->enumerate);
    if (ret != EOK) {
        goto done;
    }
    ret = resp_case_mode(rctx->cdb, section, &dom->case_mode);
    if (ret != EOK) {
        goto done;
    }
    ret = confdb_get_uint32(rctx->cdb, section, "min_id", &dom->min_id);
    if (ret != EOK) {
        goto done;
    }
    ret = confdb_get_uint32(rctx->cdb, section, "max_id", &dom->max_id);
    if (ret != EOK) {
        goto done;
    }
    ret = confdb_get_string(rctx->cdb, rctx->domains, section, "full_name_format",
                            &dom->name_format);
    if (ret != EOK) {
        goto done;
    }
    if (dom->name_format == NULL) {
        dom->name_format = talloc_strdup(rctx->domains,
                                         global_format != NULL ? global_format : "%1$s@%2$s");
        if (dom->name_format == NULL) {
            ret = ENOMEM;
            goto done;
        }
    }
    ret = confdb_get_list(rctx->cdb, rctx->domains, section, "filter_users",
                          &dom->filter_users);
    if (ret != EOK) {
        goto done;
    }
    ret = confdb_get_list(rctx->cdb, rctx->domains, section, "filter_groups",
                          &dom->filter_groups);
done:
    if (ret != EOK) {
        DEBUG(SSSDBG_CRIT_FAILURE, "Cannot read the options of domain %s: %s\n", dom->name,
              sss_strerror(ret));
    }
    talloc_free(tmp_ctx);
    return ret;
}

static errno_t resp_ctx_read_options(struct resp_ctx *rctx)
{
    TALLOC_CTX *tmp_ctx = talloc_new(NULL);
    char *suffix = NULL;
    char *format = NULL;
    char **names = NULL;
    int neg_timeout;
    int local_timeout;
    int nowait;
    size_t i, n;
    errno_t ret;

    if (tmp_ctx == NULL) {
        return ENOMEM;
    }
    ret = confdb_get_domains(rctx->cdb, tmp_ctx, &names);
    if (ret != EOK) {
        goto done;
    }
    ret = confdb_get_string(rctx->cdb, tmp_ctx, "sssd", "full_name_format", &format);
    if (ret != EOK) {
        goto done;
    }
    ret = confdb_get_string(rctx->cdb, tmp_ctx, "sssd", "default_domain_suffix", &suffix);
    if (ret != EOK) {
        goto done;
    }
    ret = confdb_get_int(rctx->cdb, "nss", "entry_negative_timeout", &neg_timeout);
    if (ret != EOK) {
        goto done;
    }
    ret = confdb_get_int(rctx->cdb, "nss", "local_negative_timeout", &local_timeout);
    if (ret != EOK) {
        goto done;
    }
    ret = confdb_get_int(rctx->cdb, "nss", "entry_cache_nowait_percentage", &nowait);
    if (ret != EOK) {
        goto done;
    }
    ret = confdb_get_list(rctx->cdb, rctx, "nss", "filter_users", &rctx->filter_users);
    if (ret != EOK) {
        goto done;
    }
    ret = confdb_get_list(rctx->cdb, rctx, "nss", "filter_groups", &rctx->filter_groups);
    if (ret != EOK) {
        goto done;
    }

    for (n = 0; names[n] != NULL; n++) {
        /* count */
    }
    rctx->domains = talloc_zero_array(rctx, struct resp_domain, n ? n : 1);
    if (rctx->domains == NULL) {
        ret = ENOMEM;
        goto done;
    }
    rctx->num_domains = n;
    for (i = 0; i < n; i++) {
        rctx->domains[i].name = talloc_steal(rctx->domains, names[i]);
        ret = resp_domain_read(rctx, &rctx->domains[i], format);
        if (ret != EOK) {
            goto done;
        }
    }
    if (suffix != NULL && suffix[0] != '\0') {
        rctx->default_domain = resp_domain_find(rctx, suffix);
        if (rctx->default_domain == NULL) {
            DEBUG(SSSDBG_CONF_SETTINGS, "default_domain_suffix %s is not a configured domain, "
                  "ignored\n", suffix);
        } else {
            rctx->output_fqnames = true;
        }
    }
    rctx->nowait_percentage = nowait > 0 ? (uint32_t)nowait : 0;
    rctx->local_neg_timeout = local_timeout > 0 ? (uint32_t)local_timeout : 0;
    if (rctx->local_neg_timeout > 0) {
        rctx->local = resp_local_new(rctx, NULL, NULL);
        if (rctx->local == NULL) {
            ret = ENOMEM;
            goto done;
        }
    }
    ret = resp_ncache_create(rctx, neg_timeout > 0 ? (uint32_t)neg_timeout : 0,
                             &rctx->ncache);
done:
    if (ret != EOK) {
        DEBUG(SSSDBG_CRIT_FAILURE, "Cannot read the responder options: %s\n",
              sss_strerror(ret));
    }
    talloc_free(tmp_ctx);
    return ret;
}

errno_t resp_ctx_create(TALLOC_CTX *mem_ctx, struct tevent_context *ev, struct confdb *cdb,
                        struct sbus_connection *conn, const char *db_dir,
                        struct resp_ctx **_rctx)
{
    struct resp_ctx *rctx;
    errno_t ret;

    SSS_CHECK_ARG(ev != NULL && cdb != NULL, EINVAL);
    SSS_CHECK_ARG(db_dir != NULL && _rctx != NULL, EINVAL);
    rctx = talloc_zero(mem_ctx, struct resp_ctx);
    if (rctx == NULL) {
        return ENOMEM;
    }
    rctx->ev = ev;
    rctx->cdb = cdb;
    rctx->conn = conn;
    rctx->db_dir = talloc_strdup(rctx, db_dir);
    if (rctx->db_dir == NULL) {
        talloc_free(rctx);
        return ENOMEM;
    }
    ret = resp_ctx_read_options(rctx);
    if (ret != EOK) {
        talloc_free(rctx);
        return ret;
    }
    *_rctx = rctx;
    return EOK;
}

errno_t resp_ctx_set_local_files(struct resp_ctx *rctx, const char *passwd_path,
                                 const char *group_path)
{
    struct resp_local *l;

    SSS_CHECK_ARG(rctx != NULL, EINVAL);
    l = resp_local_new(rctx, passwd_path, group_path);
    if (l == NULL) {
        return ENOMEM;
    }
    talloc_free(rctx->local);
    rctx->local = l;
    return EOK;
}

errno_t resp_domains_init(TALLOC_CTX *mem_ctx, struct sss_service *svc,
                          struct resp_ctx **_rctx)
{
    struct resp_ctx *rctx;
    errno_t ret;

    SSS_CHECK_ARG(svc != NULL && _rctx != NULL, EINVAL);
    ret = resp_ctx_create(mem_ctx, sss_service_ev(svc), sss_service_confdb(svc),
                          sss_service_conn(svc), SSSD_DB_PATH, &rctx);
    if (ret != EOK) {
        return ret;
    }
    rctx->svc = svc;
    *_rctx = rctx;
    return EOK;
}

struct resp_domain *resp_domain_find(struct resp_ctx *rctx, const char *name)
{
    size_t i;

    SSS_CHECK_ARG(rctx != NULL, NULL);
    if (name == NULL) {
        return NULL;
    }
    for (i = 0; i < rctx->num_domains; i++) {
        if (strcasecmp(rctx->domains[i].name, name) == 0) {
            return &rctx->domains[i];
        }
    }
    return NULL;
}

errno_t resp_domain_sysdb(struct resp_ctx *rctx, struct resp_domain *dom,
                          struct sysdb_ctx **_sysdb)
{
    errno_t ret;

    SSS_CHECK_ARG(rctx != NULL && dom != NULL && _sysdb != NULL, EINVAL);
    if (dom->sysdb == NULL) {
        ret = sysdb_open(rctx, rctx->db_dir, dom->name, dom->case_mode, &dom->sysdb);
        if (ret != EOK) {
            DEBUG(SSSDBG_OP_FAILURE, "Cannot open the cache of domain %s in %s: %s\n",
                  dom->name, rctx->db_dir, sss_strerror(ret));
            return ret;
        }
    }
    *_sysdb = dom->sysdb;
    return EOK;
}

static void resp_domain_set(struct resp_ctx *rctx, const char *sender, const char *name,
                            bool active)
{
    struct resp_domain *dom = resp_domain_find(rctx, name);

    if (dom == NULL) {
        DEBUG(SSSDBG_MINOR_FAILURE, "%s announced unknown domain %s\n", sender, name);
        return;
    }
    dom->active = active;
    DEBUG(SSSDBG_TRACE_FUNC, "Domain %s is now %s (announced by %s)\n", name,
          active ? "active" : "inconsistent", sender);
}

void resp_domain_set_online(struct resp_ctx *rctx, const char *name, bool online)
{
    struct resp_domain *dom = resp_domain_find(rctx, name);

    if (dom == NULL) {
        DEBUG(SSSDBG_MINOR_FAILURE, "State announced for unknown domain %s\n", name);
        return;
    }
    if (dom->online != online) {
        DEBUG(SSSDBG_TRACE_FUNC, "Domain %s is now %s\n", name, online ? "online" : "offline");
    }
    dom->online = online;
}

void resp_reset_negative_cache(struct resp_ctx *rctx, enum resp_ncache_type type)
{
    SSS_CHECK_ARG(rctx != NULL);
    resp_ncache_reset(rctx->ncache, type);
    rctx->negcache_resets++;
}

static void resp_set_active(struct sbus_request *sbus_req, void *data, const char *name)
{
    resp_domain_set(talloc_get_type(data, struct resp_ctx), sbus_req->sender, name, true);
}

static void resp_set_inconsistent(struct sbus_request *sbus_req, void *data, const char *name)
{
    resp_domain_set(talloc_get_type(data, struct resp_ctx), sbus_req->sender, name, false);
}

static void resp_set_online(struct sbus_request *sbus_req, void *data, const char *name)
{
    resp_domain_set_online(talloc_get_type(data, struct resp_ctx), name, true);
}

static void resp_set_offline(struct sbus_request *sbus_req, void *data, const char *name)
{
    resp_domain_set_online(talloc_get_type(data, struct resp_ctx), name, false);
}

static void resp_reset_users(struct sbus_request *sbus_req, void *data)
{
    DEBUG(SSSDBG_TRACE_FUNC, "Negative cache of users reset by %s\n", sbus_req->sender);
    resp_reset_negative_cache(talloc_get_type(data, struct resp_ctx), RESP_NCACHE_USER);
}

static void resp_reset_groups(struct sbus_request *sbus_req, void *data)
{
    struct resp_ctx *rctx = talloc_get_type(data, struct resp_ctx);

    DEBUG(SSSDBG_TRACE_FUNC, "Negative cache of groups reset by %s\n", sbus_req->sender);
    resp_reset_negative_cache(rctx, RESP_NCACHE_GROUP);
    /* sss_cache sends it for -n/-N too: netgroups have no signal of their own. */
    resp_ncache_reset(rctx->ncache, RESP_NCACHE_NETGROUP);
}

errno_t resp_add_listeners(TALLOC_CTX *owner, struct sbus_connection *conn,
                           const struct sbus_listener *listeners, size_t n)
{
    struct sbus_listener *copy;

    SSS_CHECK_ARG(conn != NULL && listeners != NULL && n > 0, EINVAL);
    copy = talloc_memdup(owner, listeners, n * sizeof(*listeners));
    if (copy == NULL) {
        return ENOMEM;
    }
    return sbus_connection_add_listeners(conn, copy);
}

errno_t resp_listen_common(struct resp_ctx *rctx)
{
    const struct sbus_listener listeners[] = {
        SBUS_LISTENER_sssd_Responder_Domain_SetActive(resp_set_active, rctx),
        SBUS_LISTENER_sssd_Responder_Domain_SetInconsistent(resp_set_inconsistent, rctx),
        SBUS_LISTENER_sssd_Responder_Domain_SetOnline(resp_set_online, rctx),
        SBUS_LISTENER_sssd_Responder_Domain_SetOffline(resp_set_offline, rctx),
        SBUS_LISTENER_sssd_Responder_NegativeCache_ResetUsers(resp_reset_users, rctx),
        SBUS_LISTENER_sssd_Responder_NegativeCache_ResetGroups(resp_reset_groups, rctx),
        SBUS_LISTENERS_END
    };

    SSS_CHECK_ARG(rctx != NULL && rctx->conn != NULL, EINVAL);
    return resp_add_listeners(rctx, rctx->conn, listeners, SSS_ARRAY_SIZE(listeners));
}

/* ---- main ---- */

/* Below this a responder cannot even open its caches and bus. */
#define RESP_MIN_FD_LIMIT 64

errno_t resp_apply_fd_limit(struct confdb *cdb, const char *section, size_t *_applied)
{
    struct rlimit cur;
    struct rlimit want;
    int limit;
    errno_t ret;

    SSS_CHECK_ARG(cdb != NULL && section != NULL && _applied != NULL, EINVAL);
    ret = confdb_get_int(cdb, section, "fd_limit", &limit);
    if (ret != EOK) {
        return ret;
    }
    if (limit < RESP_MIN_FD_LIMIT) {
        DEBUG(SSSDBG_CRIT_FAILURE, "[%s] fd_limit = %d is below %d\n", section, limit,
              RESP_MIN_FD_LIMIT);
        return EINVAL;
    }
    if (getrlimit(RLIMIT_NOFILE, &cur) != 0) {
        ret = errno;
        DEBUG(SSSDBG_CRIT_FAILURE, "getrlimit(RLIMIT_NOFILE) failed: %s\n", strerror(ret));
        return ret;
    }
    /* Raising the hard limit needs CAP_SYS_RESOURCE; without it the hard limit caps. */
    want.rlim_cur = (rlim_t)limit;
    want.rlim_max = cur.rlim_max > want.rlim_cur ? cur.rlim_max : want.rlim_cur;
    if (setrlimit(RLIMIT_NOFILE, &want) != 0) {
        want.rlim_cur = cur.rlim_max < (rlim_t)limit ? cur.rlim_max : (rlim_t)limit;
        want.rlim_max = cur.rlim_max;
        if (setrlimit(RLIMIT_NOFILE, &want) != 0) {
            DEBUG(SSSDBG_OP_FAILURE, "Cannot apply fd_limit %d: %s; keeping %llu\n", limit,
                  strerror(errno), (unsigned long long)cur.rlim_cur);
            want = cur;
        }
    }
    if (want.rlim_cur != (rlim_t)limit) {
        DEBUG(SSSDBG_CONF_SETTINGS, "fd_limit %d is above the hard limit: using %llu\n",
              limit, (unsigned long long)want.rlim_cur);
    }
    DEBUG(SSSDBG_TRACE_FUNC, "Descriptor limit %llu (fd_limit %d)\n",
          (unsigned long long)want.rlim_cur, limit);
    *_applied = want.rlim_cur == RLIM_INFINITY ? (size_t)limit : (size_t)want.rlim_cur;
    return EOK;
}

struct resp_main_ctx {
    const char *name;
    resp_init_fn init;
};

static void resp_preload_ldb(struct tevent_context *ev, struct tevent_timer *te,
                             struct timeval now, void *pvt)
{
    uint64_t t0 = sss_monotonic_usec();

    sysdb_preload();
    DEBUG(SSSDBG_TRACE_FUNC, "libldb's modules loaded in %" PRIu64 " us\n",
          sss_monotonic_usec() - t0);
}

static errno_t resp_service_init(struct sss_service *svc, void *data)
{
    struct resp_main_ctx *m = data;
    struct resp_ctx *rctx;
    errno_t ret;

    ret = resp_domains_init(svc, svc, &rctx);
    if (ret != EOK) {
        return ret;
    }
    ret = resp_apply_fd_limit(rctx->cdb, m->name, &rctx->fd_limit);
    if (ret != EOK) {
        return ret;
    }
    ret = resp_listen_common(rctx);
    if (ret != EOK) {
        return ret;
    }
    /* The first turn after start-up loads libldb's modules, not the first client's
     * request (sysdb_preload). */
    if (tevent_add_timer(sss_service_ev(svc), rctx, tevent_timeval_zero(), resp_preload_ldb,
                         NULL) == NULL) {
        return ENOMEM;
    }
    return m->init != NULL ? m->init(svc, rctx) : EOK;
}

int resp_main(int argc, const char *argv[], const char *name, resp_init_fn init)
{
    struct resp_main_ctx m = { .name = name, .init = init };
    struct sss_service_opts opts;
    struct sss_service_def def = {
        .section = name,
        .register_name = name,
        .type = SSS_SERVICE_TYPE_RESPONDER,
        .init = resp_service_init,
        .data = &m,
    };
    char process[64];
    errno_t ret;

    SSS_CHECK_ARG(name != NULL, 1);
    snprintf(process, sizeof(process), "sssd_%s", name);
    def.process = process;
    ret = sss_service_parse_args(argc, argv, false, &opts);
    if (ret != EOK) {
        return 1;
    }
    /* Runs the loop: m, def and process outlive the service. */
    return sss_service_main(&opts, &def);
}
