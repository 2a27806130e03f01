/*
 * sssctl on the master bus: the tool asks one question at a time, so it runs a private
 * tevent loop until the answer (or SSSCTL_BUS_TIMEOUT_MS) and then carries on. It connects
 * as a plain client without a well-known name; the bus accepts root only (EXTERNAL).
 */
#include "tools/sssctl.h"
#include "sss_iface/sss_iface.h"

static int sssctl_bus_destructor(struct sssctl_bus *bus)
{
    /* The connection goes before the loop it runs on. */
    talloc_zfree(bus->conn);
    return 0;
}

errno_t sssctl_bus_wait(struct sssctl_bus *bus, struct tevent_req *req)
{
    if (req == NULL) {
        return ENOMEM;
    }
    if (!tevent_req_set_endtime(req, bus->ev,
                                tevent_timeval_current_ofs(SSSCTL_BUS_TIMEOUT_MS / 1000, 0))) {
        return ENOMEM;
    }
    if (!tevent_req_poll(req, bus->ev)) {
        return EIO;
    }
    return EOK;
}

errno_t sssctl_bus_open(TALLOC_CTX *mem_ctx, const char *address, struct sssctl_bus **_bus)
{
    struct sssctl_bus *bus;
    struct tevent_req *req;
    errno_t ret;

    SSS_CHECK_ARG(address != NULL && _bus != NULL, EINVAL);
    bus = talloc_zero(mem_ctx, struct sssctl_bus);
    if (bus == NULL) {
        return ENOMEM;
    }
    bus->ev = tevent_context_init(bus);
    if (bus->ev == NULL) {
        ret = ENOMEM;
        goto done;
    }
    talloc_set_destructor(bus, sssctl_bus_destructor);
    req = sbus_connect_send(bus, bus->ev, address, NULL);
    ret = sssctl_bus_wait(bus, req);
    if (ret == EOK) {
        ret = sbus_connect_recv(bus, req, &bus->conn);
    }
    talloc_free(req);
    if (ret != EOK) {
        fprintf(stderr, "sssctl: cannot reach the master bus at %s (%s): is sssd running?\n",
                address, sss_strerror(ret));
        goto done;
    }
    *_bus = bus;
    return EOK;

done:
    talloc_free(bus);
    return ret;
}

errno_t sssctl_bus_names(TALLOC_CTX *mem_ctx, struct sssctl_bus *bus, const char ***_names)
{
    struct tevent_req *req;
    errno_t ret;

    req = sbus_call_org_freedesktop_DBus_ListNames_send(bus, bus->conn, SBUS_DBUS_NAME,
                                                        SBUS_DBUS_PATH);
    ret = sssctl_bus_wait(bus, req);
    if (ret == EOK) {
        ret = sbus_call_org_freedesktop_DBus_ListNames_recv(mem_ctx, req, _names);
    }
    talloc_free(req);
    return ret;
}

bool sssctl_names_has(const char *const *names, const char *name)
{
    size_t i;

    for (i = 0; names != NULL && names[i] != NULL; i++) {
        if (strcmp(names[i], name) == 0) {
            return true;
        }
    }
    return false;
}
