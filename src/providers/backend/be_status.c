/*
 * sssd.backend.Status: the domain's state as sssctl domain-status shows it. Online or
 * offline, since when and why (be_offline.c keeps them), the active server, the next online
 * probe, and every configured server with its failover state, last error and the times of
 * its last contact and last failure (sdap_failover.c keeps them). Read-only: asking never
 * changes a state or starts a connection.
 */
#include "providers/backend/be_ctx.h"
#include "providers/ldap/sdap.h"
#include "sss_iface/sss_iface.h"

/* The server's state word (sss_iface_dp.xml lists them). */
static const char *be_status_word(const struct sdap_server_info *srv)
{
    if (srv->active) {
        return "active";
    }
    if (srv->bad) {
        return "not working";
    }
    return srv->tried ? "working" : "not tried";
}

static errno_t be_status_get(TALLOC_CTX *mem_ctx, struct sbus_request *sbus_req, void *data,
                             bool *_online, uint64_t *_since, const char **_reason,
                             const char **_active_server, int32_t *_next_retry,
                             const char ***_servers, const char ***_states,
                             const char ***_errors, const uint32_t **_contact,
                             uint32_t *_n_contact, const uint32_t **_failure,
                             uint32_t *_n_failure, const uint32_t **_backup,
                             uint32_t *_n_backup)
{
    struct be_ctx *be = talloc_get_type(data, struct be_ctx);
    struct sdap_server_info *list = NULL;
    const char **servers, **states, **errors;
    uint32_t *contact, *failure, *backup;
    const char *reason = "";
    const char *active;
    time_t since = 0;
    size_t count = 0;
    size_t i;
    errno_t ret;

    assert(be != NULL);
    ret = sdap_id_ctx_servers(mem_ctx, be->id_ctx, &list, &count);
    if (ret != EOK) {
        return ret;
    }
    servers = talloc_zero_array(mem_ctx, const char *, count + 1);
    states = talloc_zero_array(mem_ctx, const char *, count + 1);
    errors = talloc_zero_array(mem_ctx, const char *, count + 1);
    contact = talloc_zero_array(mem_ctx, uint32_t, count + 1);
    failure = talloc_zero_array(mem_ctx, uint32_t, count + 1);
    backup = talloc_zero_array(mem_ctx, uint32_t, count + 1);
    if (servers == NULL || states == NULL || errors == NULL || contact == NULL
            || failure == NULL || backup == NULL) {
        return ENOMEM;
    }
    active = "";
    for (i = 0; i < count; i++) {
        servers[i] = list[i].uri;
        states[i] = be_status_word(&list[i]);
        errors[i] = list[i].last_error != EOK ? sss_strerror(list[i].last_error) : "";
        /* Unix times fit 32 bits until 2106. */
        contact[i] = (uint32_t)list[i].last_contact;
        failure[i] = (uint32_t)list[i].last_failure;
        backup[i] = list[i].backup ? 1 : 0;
        if (list[i].active) {
            active = list[i].uri;
        }
    }
    be_offline_since(be, &since, &reason);

    *_online = !be_is_offline(be);
    *_since = (uint64_t)since;
    *_reason = reason;
    *_active_server = active;
    *_next_retry = be_is_offline(be) ? be_offline_next_retry(be) : -1;
    *_servers = servers;
    *_states = states;
    *_errors = errors;
    *_contact = contact;
    *_n_contact = (uint32_t)count;
    *_failure = failure;
    *_n_failure = (uint32_t)count;
    *_backup = backup;
    *_n_backup = (uint32_t)count;
    return EOK;
}

errno_t be_status_register(struct be_ctx *be, struct sbus_connection *conn)
{
    struct sbus_method *methods;
    struct sbus_interface *iface;

    SSS_CHECK_ARG(be != NULL, EINVAL);
    SSS_CHECK_ARG(conn != NULL, EINVAL);
    methods = talloc_zero_array(be, struct sbus_method, 2);
    iface = talloc_zero(be, struct sbus_interface);
    if (methods == NULL || iface == NULL) {
        return ENOMEM;
    }
    methods[0] = (struct sbus_method)SBUS_METHOD_SYNC_sssd_backend_Status_GetStatus(
        be_status_get, be);
    methods[1] = (struct sbus_method)SBUS_METHODS_END;
    iface->name = SBUS_IFACE_sssd_backend_Status;
    iface->methods = methods;
    return sbus_connection_add_interface(conn, SSS_BUS_PATH, iface);
}
