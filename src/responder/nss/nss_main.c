/*
 * sssd_nss: the NSS responder. This file starts the process: it joins the bus as sssd.nss,
 * reads the domains and output options, creates the memory-cache files, listens for
 * clients on pipes/nss, and maps the memory-cache signals onto the cache writer.
 * The lookups themselves are nss_cmd*.c (nss_private.h).
 */
#include "responder/nss/nss_private.h"
#include "responder/nss/nss_sid.h"
#include "sss_iface/sss_iface.h"

/* SSSD raises a smaller client_idle_timeout to this. */
#define NSS_MIN_CLIENT_IDLE_TIMEOUT 10

static const uint32_t nss_versions[] = { SSS_NSS_PROTOCOL_VERSION, 0 };

static const struct resp_cmd nss_cmds[] = {
    { SSS_GET_VERSION, nss_cmd_get_version },
    { SSS_NSS_GETPWNAM, nss_cmd_lookup },
    { SSS_NSS_GETPWUID, nss_cmd_lookup },
    { SSS_NSS_GETPWNAM_EX, nss_cmd_lookup },
    { SSS_NSS_GETPWUID_EX, nss_cmd_lookup },
    { SSS_NSS_SETPWENT, nss_cmd_setent },
    { SSS_NSS_GETPWENT, nss_cmd_getent },
    { SSS_NSS_ENDPWENT, nss_cmd_endent },
    { SSS_NSS_GETGRNAM, nss_cmd_lookup },
    { SSS_NSS_GETGRGID, nss_cmd_lookup },
    { SSS_NSS_GETGRNAM_EX, nss_cmd_lookup },
    { SSS_NSS_GETGRGID_EX, nss_cmd_lookup },
    { SSS_NSS_SETGRENT, nss_cmd_setent },
    { SSS_NSS_GETGRENT, nss_cmd_getent },
    { SSS_NSS_ENDGRENT, nss_cmd_endent },
    { SSS_NSS_INITGR, nss_cmd_lookup },
    { SSS_NSS_INITGR_EX, nss_cmd_lookup },
    { SSS_NSS_SETNETGRENT, nss_cmd_setnetgrent },
    { SSS_NSS_GETNETGRENT, nss_cmd_getnetgrent },
    { SSS_NSS_ENDNETGRENT, nss_cmd_endnetgrent },
    { SSS_NSS_GETORIGBYNAME, nss_cmd_sid },
    { SSS_NSS_GETORIGBYUSERNAME, nss_cmd_lookup },
    { SSS_NSS_GETSIDBYNAME, nss_cmd_sid },
    { SSS_NSS_GETNAMEBYSID, nss_cmd_sid },
    { SSS_NSS_GETIDBYSID, nss_cmd_sid },
    { SSS_NSS_GETSIDBYID, nss_cmd_sid },
    { SSS_NSS_GETSIDBYUID, nss_cmd_sid },
    { SSS_NSS_GETSIDBYGID, nss_cmd_sid },
    { SSS_NSS_GETORIGBYGROUPNAME, nss_cmd_sid },
    { SSS_NSS_GETSIDBYUSERNAME, nss_cmd_sid },
    { SSS_NSS_GETSIDBYGROUPNAME, nss_cmd_sid },
    RESP_CMD_END
};

errno_t nss_cmd_get_version(struct resp_request *rreq)
{
    errno_t ret;

    nss_probe_start(rreq, NULL);
    ret = resp_cmd_get_version(rreq);
    nss_probe_done(rreq, NULL, ret, 0, NULL);
    return ret;
}

/* ---- memory-cache signals ---- */

static void nss_mc_log(errno_t ret, const char *what)
{
    if (ret != EOK) {
        DEBUG(SSSDBG_OP_FAILURE, "Memory cache: %s failed [%d]: %s\n", what, ret,
              sss_strerror(ret));
    }
}

static void nss_invalidate_users(struct sbus_request *sbus_req, void *data)
{
    struct nss_ctx *nctx = talloc_get_type(data, struct nss_ctx);

    DEBUG(SSSDBG_TRACE_FUNC, "Memory cache: %s from %s\n", sbus_req->member, sbus_req->sender);
    nss_mc_log(nss_mc_invalidate_all(nctx->mc[NSS_MC_PASSWD]), sbus_req->member);
}

static void nss_invalidate_groups(struct sbus_request *sbus_req, void *data)
{
    struct nss_ctx *nctx = talloc_get_type(data, struct nss_ctx);

    DEBUG(SSSDBG_TRACE_FUNC, "Memory cache: %s from %s\n", sbus_req->member, sbus_req->sender);
    nss_mc_log(nss_mc_invalidate_all(nctx->mc[NSS_MC_GROUP]), sbus_req->member);
}

static void nss_invalidate_initgroups(struct sbus_request *sbus_req, void *data)
{
    struct nss_ctx *nctx = talloc_get_type(data, struct nss_ctx);

    DEBUG(SSSDBG_TRACE_FUNC, "Memory cache: %s from %s\n", sbus_req->member, sbus_req->sender);
    nss_mc_log(nss_mc_invalidate_all(nctx->mc[NSS_MC_INITGROUPS]), sbus_req->member);
}

static void nss_invalidate_gid(struct sbus_request *sbus_req, void *data, uint32_t gid)
{
    struct nss_ctx *nctx = talloc_get_type(data, struct nss_ctx);
    errno_t ret;

    DEBUG(SSSDBG_TRACE_FUNC, "Memory cache: %s(%u) from %s\n", sbus_req->member, gid,
          sbus_req->sender);
    ret = nss_mc_invalidate_id(nctx->mc[NSS_MC_GROUP], gid);
    nss_mc_log(ret == ENOENT ? EOK : ret, sbus_req->member);
}

/* A back-end found that a user's groups changed: the user's initgroups records and the
 * records of the groups joined or left go; the rest of the cache stays. */
static void nss_update_initgroups(struct sbus_request *sbus_req, void *data, const char *name,
                                  const char *domain, const uint32_t *gids, uint32_t n_gids)
{
    struct nss_ctx *nctx = talloc_get_type(data, struct nss_ctx);
    char *unique;
    uint32_t i;
    errno_t ret;

    DEBUG(SSSDBG_TRACE_FUNC, "Memory cache: %s(%s@%s, %u groups) from %s\n", sbus_req->member,
          name, domain, n_gids, sbus_req->sender);
    unique = talloc_asprintf(NULL, "%s@%s", name, domain);
    if (unique == NULL) {
        nss_mc_log(ENOMEM, sbus_req->member);
        return;
    }
    ret = nss_mc_invalidate_initgr_unique(nctx->mc[NSS_MC_INITGROUPS], unique);
    talloc_free(unique);
    nss_mc_log(ret == ENOENT ? EOK : ret, sbus_req->member);
    for (i = 0; i < n_gids; i++) {
        ret = nss_mc_invalidate_id(nctx->mc[NSS_MC_GROUP], gids[i]);
        nss_mc_log(ret == ENOENT ? EOK : ret, sbus_req->member);
    }
}

static void nss_clear_memcache(struct sbus_request *sbus_req, void *data)
{
    struct nss_ctx *nctx = talloc_get_type(data, struct nss_ctx);
    size_t i;

    DEBUG(SSSDBG_TRACE_FUNC, "Memory cache: %s from %s\n", sbus_req->member, sbus_req->sender);
    for (i = 0; i < SSS_ARRAY_SIZE(nctx->mc); i++) {
        nss_mc_log(nss_mc_reset(nctx->mc[i]), sbus_req->member);
    }
}

/* ---- set-up ---- */

static errno_t nss_get_nonneg(struct confdb *cdb, const char *option, uint32_t *_value)
{
    int v;
    errno_t ret;

    ret = confdb_get_int(cdb, "nss", option, &v);
    if (ret != EOK) {
        DEBUG(SSSDBG_CRIT_FAILURE, "Cannot read [nss] %s: %s\n", option, sss_strerror(ret));
        return ret;
    }
    if (v < 0) {
        DEBUG(SSSDBG_CONF_SETTINGS, "[nss] %s = %d is negative, using 0\n", option, v);
        v = 0;
    }
    *_value = (uint32_t)v;
    return EOK;
}

static errno_t nss_memcache_init(struct nss_ctx *nctx, struct confdb *cdb)
{
    static const char *const size_opts[] = {
        [NSS_MC_PASSWD] = "memcache_size_passwd",
        [NSS_MC_GROUP] = "memcache_size_group",
        [NSS_MC_INITGROUPS] = "memcache_size_initgroups",
    };
    struct nss_mc_conf conf;
    uint32_t ttl;
    uint32_t mb;
    size_t i;
    errno_t ret;

    ret = nss_get_nonneg(cdb, "memcache_timeout", &ttl);
    if (ret != EOK) {
        return ret;
    }
    nctx->memcache_timeout = ttl;
    for (i = 0; i < SSS_ARRAY_SIZE(size_opts); i++) {
        memset(&conf, 0, sizeof(conf));
        conf.dir = SSSD_MC_PATH;
        conf.type = (enum nss_mc_type)i;
        conf.ttl = ttl;
        conf.pwfield = nctx->pwfield;
        ret = nss_get_nonneg(cdb, size_opts[i], &mb);
        if (ret != EOK) {
            return ret;
        }
        ret = nss_mc_slots_for_mb(mb, &conf.slots);
        if (ret != EOK) {
            DEBUG(SSSDBG_CRIT_FAILURE, "[nss] %s = %u is too large\n", size_opts[i], mb);
            return ret;
        }
        ret = nss_mc_open(nctx, &conf, &nctx->mc[i]);
        if (ret != EOK) {
            return ret;
        }
    }
    return EOK;
}

static errno_t nss_listen_signals(struct nss_ctx *nctx)
{
    const struct sbus_listener listeners[] = {
        SBUS_LISTENER_sssd_nss_MemoryCache_InvalidateAllUsers(nss_invalidate_users, nctx),
        SBUS_LISTENER_sssd_nss_MemoryCache_InvalidateAllGroups(nss_invalidate_groups, nctx),
        SBUS_LISTENER_sssd_nss_MemoryCache_InvalidateAllInitgroups(nss_invalidate_initgroups,
                                                                   nctx),
        SBUS_LISTENER_sssd_nss_MemoryCache_InvalidateGroupById(nss_invalidate_gid, nctx),
        SBUS_LISTENER_sssd_nss_MemoryCache_UpdateInitgroups(nss_update_initgroups, nctx),
        SBUS_LISTENER_sssd_service_ClearMemcache(nss_clear_memcache, nctx),
        SBUS_LISTENERS_END
    };

    return resp_add_listeners(nctx, nctx->rctx->conn, listeners, SSS_ARRAY_SIZE(listeners));
}

static errno_t nss_init(struct sss_service *svc, struct resp_ctx *rctx)
{
    struct confdb *cdb = sss_service_confdb(svc);
    struct resp_server_conf sconf;
    struct nss_ctx *nctx;
    uint32_t idle;
    errno_t ret;

    nctx = talloc_zero(rctx, struct nss_ctx);
    if (nctx == NULL) {
        return ENOMEM;
    }
    nctx->rctx = rctx;
    nctx->enum_min_rebuild_s = NSS_ENUM_MIN_REBUILD_S;
    ret = confdb_get_string(cdb, nctx, "nss", "pwfield", &nctx->pwfield);
    if (ret != EOK) {
        return ret;
    }
    ret = confdb_get_list(cdb, nctx, "nss", "user_attributes", &nctx->user_attributes);
    if (ret != EOK) {
        return ret;
    }
    ret = nss_format_load(nctx, cdb, rctx, "/etc/shells", &nctx->fmt);
    if (ret != EOK) {
        return ret;
    }
    nctx->grcache = nss_grcache_new(nctx);   /* an accelerator: none is no error */
    ret = nss_memcache_init(nctx, cdb);
    if (ret != EOK) {
        return ret;
    }
    ret = nss_listen_signals(nctx);
    if (ret != EOK) {
        return ret;
    }

    ret = nss_get_nonneg(cdb, "client_idle_timeout", &idle);
    if (ret != EOK) {
        return ret;
    }
    if (idle < NSS_MIN_CLIENT_IDLE_TIMEOUT) {
        DEBUG(SSSDBG_CONF_SETTINGS, "client_idle_timeout %u is below %d, using %d\n", idle,
              NSS_MIN_CLIENT_IDLE_TIMEOUT, NSS_MIN_CLIENT_IDLE_TIMEOUT);
        idle = NSS_MIN_CLIENT_IDLE_TIMEOUT;
    }
    memset(&sconf, 0, sizeof(sconf));
    sconf.path = SSSD_PIPE_PATH "/" SSS_NSS_SOCKET_NAME;
    sconf.mode = 0666;
    sconf.cmds = nss_cmds;
    sconf.versions = nss_versions;
    sconf.idle_timeout = idle;
    sconf.max_clients = rctx->fd_limit != 0 ? resp_max_clients_for_fds(rctx->fd_limit) : 0;
    sconf.pvt = nctx;
    return resp_server_start(nctx, sss_service_ev(svc), &sconf, &nctx->srv);
}

int main(int argc, const char *argv[])
{
    return resp_main(argc, argv, "nss", nss_init);
}
