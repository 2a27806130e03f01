/*
 * sssd_be --domain NAME: the back-end of one domain. This file starts the process: it joins
 * the bus as sssd.domain_<escaped name>; before registering it opens the domain's cache
 * under SSSD_DB_PATH, sets up the id provider and the PAM providers (be_pam.c) and serves
 * sssd.dataprovider (be_dp.c); once
 * registered it announces its domain to the responders with sssd.Responder.Domain.SetActive
 * and starts the enumeration task when enumerate = true, and the sudo refreshes when sudo
 * is a service and the domain's sudo provider is ldap (be_sudo.h), and with id_provider = ad
 * the refreshes of the trusted domains (ad_subdomains.h). The domain starts online.
 */
#include <signal.h>

#include "service/sss_service.h"
#include "sss_iface/sss_iface.h"
#include "providers/backend/be_ctx.h"
#include "providers/backend/be_pam.h"
#include "providers/backend/be_sudo.h"
#include "providers/ad/ad_subdomains.h"

struct be_main {
    const char *domain;
    struct be_ctx *be;
};

static errno_t be_init(struct sss_service *svc, void *data)
{
    struct be_main *m = talloc_get_type(data, struct be_main);
    struct tevent_context *ev = sss_service_ev(svc);
    errno_t ret;

    /* On the event context: freed with it, timers and all. */
    ret = be_ctx_create(ev, ev, sss_service_confdb(svc), m->domain, SSSD_DB_PATH, &m->be);
    if (ret != EOK) {
        return ret;
    }
    ret = be_pam_init(m->be);
    if (ret != EOK) {
        return ret;
    }
    ret = be_sudo_init(m->be);
    if (ret != EOK) {
        return ret;
    }
    return be_dp_register(m->be, sss_service_conn(svc));
}

static void be_registered(struct sss_service *svc, void *data)
{
    struct be_main *m = talloc_get_type(data, struct be_main);
    errno_t ret;

    be_announce_active(m->be);
    ret = be_enum_task_start(m->be);
    if (ret != EOK) {
        DEBUG(SSSDBG_CRIT_FAILURE, "Cannot start the enumeration of %s: %s\n", m->domain,
              sss_strerror(ret));
    }
    ret = be_sudo_start(m->be);
    if (ret != EOK) {
        DEBUG(SSSDBG_CRIT_FAILURE, "Cannot start the sudo refreshes of %s: %s\n", m->domain,
              sss_strerror(ret));
    }
    ret = ad_subdom_start(m->be);
    if (ret != EOK) {
        DEBUG(SSSDBG_CRIT_FAILURE, "Cannot start the trusted domain refreshes of %s: %s\n",
              m->domain, sss_strerror(ret));
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
    struct be_main *m;
    char *section;
    int ret;

    if (sss_service_parse_args(argc, argv, true, &opts) != EOK) {
        return 1;
    }
    /* libldap writes to the server socket with plain write(): a server that went away
     * between two requests must give EPIPE (the connection is dropped and the domain
     * may go offline), not kill the process. */
    signal(SIGPIPE, SIG_IGN);
    m = talloc_zero(NULL, struct be_main);
    section = confdb_domain_section(m, opts.domain);
    if (m == NULL || section == NULL) {
        return 1;
    }
    m->domain = opts.domain;
    def.process = talloc_asprintf(m, "sssd_be_%s", opts.domain);
    def.section = section;
    def.register_name = opts.domain;
    def.data = m;
    if (def.process == NULL) {
        return 1;
    }
    ret = sss_service_main(&opts, &def);
    talloc_free(m);
    return ret;
}
