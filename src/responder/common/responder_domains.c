/* Domain state of a responder and the signals every responder listens for. */
#include "responder/common/responder_domains.h"
#include "sss_iface/sss_iface.h"

errno_t resp_domains_init(TALLOC_CTX *mem_ctx, struct sss_service *svc,
                          struct resp_ctx **_rctx)
{
    struct resp_ctx *rctx;
    char **names = NULL;
    size_t i, n;
    errno_t ret;

    rctx = talloc_zero(mem_ctx, struct resp_ctx);
    if (rctx == NULL) {
        return ENOMEM;
    }
    rctx->svc = svc;
    ret = confdb_get_domains(sss_service_confdb(svc), rctx, &names);
    if (ret != EOK) {
        talloc_free(rctx);
        return ret;
    }
    for (n = 0; names[n] != NULL; n++) {
        /* count */
    }
    rctx->domains = talloc_zero_array(rctx, struct resp_domain, n ? n : 1);
    if (rctx->domains == NULL) {
        talloc_free(rctx);
        return ENOMEM;
    }
    for (i = 0; i < n; i++) {
        rctx->domains[i].name = talloc_steal(rctx->domains, names[i]);
        rctx->domains[i].active = true;
    }
    rctx->num_domains = n;
    *_rctx = rctx;
    return EOK;
}

struct resp_domain *resp_domain_find(struct resp_ctx *rctx, const char *name)
{
    size_t i;

    for (i = 0; i < rctx->num_domains; i++) {
        if (strcmp(rctx->domains[i].name, name) == 0) {
            return &rctx->domains[i];
        }
    }
    return NULL;
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

static void resp_set_active(struct sbus_request *sbus_req, void *data, const char *name)
{
    resp_domain_set(talloc_get_type(data, struct resp_ctx), sbus_req->sender, name, true);
}

static void resp_set_inconsistent(struct sbus_request *sbus_req, void *data, const char *name)
{
    resp_domain_set(talloc_get_type(data, struct resp_ctx), sbus_req->sender, name, false);
}

static void resp_reset_negcache(struct sbus_request *sbus_req, void *data)
{
    struct resp_ctx *rctx = talloc_get_type(data, struct resp_ctx);

    rctx->negcache_resets++;
    DEBUG(SSSDBG_TRACE_FUNC, "Negative cache reset (%s.%s from %s)\n", sbus_req->interface,
          sbus_req->member, sbus_req->sender);
}

errno_t resp_listen_common(struct resp_ctx *rctx)
{
    struct sbus_listener *listeners;

    listeners = talloc_zero_array(rctx, struct sbus_listener, 5);
    if (listeners == NULL) {
        return ENOMEM;
    }
    listeners[0] = (struct sbus_listener)SBUS_LISTENER_sssd_Responder_Domain_SetActive(
                       resp_set_active, rctx);
    listeners[1] = (struct sbus_listener)SBUS_LISTENER_sssd_Responder_Domain_SetInconsistent(
                       resp_set_inconsistent, rctx);
    listeners[2] = (struct sbus_listener)SBUS_LISTENER_sssd_Responder_NegativeCache_ResetUsers(
                       resp_reset_negcache, rctx);
    listeners[3] = (struct sbus_listener)SBUS_LISTENER_sssd_Responder_NegativeCache_ResetGroups(
                       resp_reset_negcache, rctx);
    listeners[4] = (struct sbus_listener)SBUS_LISTENERS_END;
    return sbus_connection_add_listeners(sss_service_conn(rctx->svc), listeners);
}
