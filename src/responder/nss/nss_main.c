/*
 * sssd_nss: the NSS responder. This file starts the process; it joins the bus as sssd.nss
 * and listens for the memory-cache and responder signals.
 */
#include "responder/common/responder_domains.h"
#include "sss_iface/sss_iface.h"

static void nss_invalidate(struct sbus_request *sbus_req, void *data)
{
    DEBUG(SSSDBG_TRACE_FUNC, "Memory cache: %s from %s\n", sbus_req->member, sbus_req->sender);
}

static void nss_invalidate_gid(struct sbus_request *sbus_req, void *data, uint32_t gid)
{
    DEBUG(SSSDBG_TRACE_FUNC, "Memory cache: %s(%u) from %s\n", sbus_req->member, gid,
          sbus_req->sender);
}

static errno_t nss_init(struct sss_service *svc, void *data)
{
    struct resp_ctx *rctx;
    struct sbus_listener *l;
    errno_t ret;

    ret = resp_domains_init(svc, svc, &rctx);
    if (ret != EOK) {
        return ret;
    }
    ret = resp_listen_common(rctx);
    if (ret != EOK) {
        return ret;
    }
    l = talloc_zero_array(rctx, struct sbus_listener, 6);
    if (l == NULL) {
        return ENOMEM;
    }
    l[0] = (struct sbus_listener)SBUS_LISTENER_sssd_nss_MemoryCache_InvalidateAllUsers(
               nss_invalidate, rctx);
    l[1] = (struct sbus_listener)SBUS_LISTENER_sssd_nss_MemoryCache_InvalidateAllGroups(
               nss_invalidate, rctx);
    l[2] = (struct sbus_listener)SBUS_LISTENER_sssd_nss_MemoryCache_InvalidateAllInitgroups(
               nss_invalidate, rctx);
    l[3] = (struct sbus_listener)SBUS_LISTENER_sssd_nss_MemoryCache_InvalidateGroupById(
               nss_invalidate_gid, rctx);
    l[4] = (struct sbus_listener)SBUS_LISTENER_sssd_service_ClearMemcache(nss_invalidate, rctx);
    l[5] = (struct sbus_listener)SBUS_LISTENERS_END;
    return sbus_connection_add_listeners(sss_service_conn(svc), l);
}

int main(int argc, const char *argv[])
{
    struct sss_service_opts opts;
    struct sss_service_def def = {
        .process = "sssd_nss",
        .section = "nss",
        .register_name = "nss",
        .type = SSS_SERVICE_TYPE_RESPONDER,
        .init = nss_init,
    };

    if (sss_service_parse_args(argc, argv, false, &opts) != EOK) {
        return 1;
    }
    return sss_service_main(&opts, &def);
}
