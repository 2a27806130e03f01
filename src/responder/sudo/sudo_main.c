/*
 * sssd_sudo: the SUDO responder. This file starts the process; it joins the bus as
 * sssd.sudo and follows the domain and negative-cache signals every responder listens for.
 */
#include "responder/common/responder_domains.h"

static errno_t sudo_init(struct sss_service *svc, void *data)
{
    struct resp_ctx *rctx;
    errno_t ret;

    ret = resp_domains_init(svc, svc, &rctx);
    if (ret != EOK) {
        return ret;
    }
    return resp_listen_common(rctx);
}

int main(int argc, const char *argv[])
{
    struct sss_service_opts opts;
    struct sss_service_def def = {
        .process = "sssd_sudo",
        .section = "sudo",
        .register_name = "sudo",
        .type = SSS_SERVICE_TYPE_RESPONDER,
        .init = sudo_init,
    };

    if (sss_service_parse_args(argc, argv, false, &opts) != EOK) {
        return 1;
    }
    return sss_service_main(&opts, &def);
}
