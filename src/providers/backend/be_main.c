/*
 * sssd_be --domain NAME: the back-end of one domain. This file starts the process: it joins
 * the bus as sssd.domain_<escaped name>, follows the online/offline signals, and once
 * registered announces its domain to the responders with sssd.Responder.Domain.SetActive.
 */
#include "service/sss_service.h"
#include "sss_iface/sss_iface.h"

struct be_ctx {
    const char *domain;
    bool offline;
};

static void be_go_offline(struct sbus_request *sbus_req, void *data)
{
    struct be_ctx *be = talloc_get_type(data, struct be_ctx);

    be->offline = true;
    DEBUG(SSSDBG_TRACE_FUNC, "Domain %s marked offline (asked by %s)\n", be->domain,
          sbus_req->sender);
}

static void be_reset_offline(struct sbus_request *sbus_req, void *data)
{
    struct be_ctx *be = talloc_get_type(data, struct be_ctx);

    be->offline = false;
    DEBUG(SSSDBG_TRACE_FUNC, "Domain %s: offline state reset (asked by %s)\n", be->domain,
          sbus_req->sender);
}

static errno_t be_init(struct sss_service *svc, void *data)
{
    struct be_ctx *be = talloc_get_type(data, struct be_ctx);
    struct sbus_listener *l;

    l = talloc_zero_array(be, struct sbus_listener, 3);
    if (l == NULL) {
        return ENOMEM;
    }
    l[0] = (struct sbus_listener)SBUS_LISTENER_sssd_service_GoOffline(be_go_offline, be);
    l[1] = (struct sbus_listener)SBUS_LISTENER_sssd_service_ResetOffline(be_reset_offline, be);
    l[2] = (struct sbus_listener)SBUS_LISTENERS_END;
    return sbus_connection_add_listeners(sss_service_conn(svc), l);
}

static void be_registered(struct sss_service *svc, void *data)
{
    struct be_ctx *be = talloc_get_type(data, struct be_ctx);
    errno_t ret;

    ret = sbus_emit_sssd_Responder_Domain_SetActive(sss_service_conn(svc), SSS_BUS_PATH,
                                                    be->domain);
    if (ret != EOK) {
        DEBUG(SSSDBG_OP_FAILURE, "Cannot announce domain %s: %s\n", be->domain,
              sss_strerror(ret));
    }
}

int main(int argc, const char *argv[])
{
    struct sss_service_opts opts;
    struct sss_service_def def = {
        .type = SSS_SERVICE_TYPE_DATA_PROVIDER,
        .init = be_init,
        .registered = be_registered,
    };
    struct be_ctx *be;
    char *section;
    int ret;

    if (sss_service_parse_args(argc, argv, true, &opts) != EOK) {
        return 1;
    }
    be = talloc_zero(NULL, struct be_ctx);
    section = confdb_domain_section(be, opts.domain);
    if (be == NULL || section == NULL) {
        return 1;
    }
    be->domain = opts.domain;
    def.process = talloc_asprintf(be, "sssd_be_%s", opts.domain);
    def.section = section;
    def.register_name = opts.domain;
    def.data = be;
    if (def.process == NULL) {
        return 1;
    }
    ret = sss_service_main(&opts, &def);
    talloc_free(be);
    return ret;
}
