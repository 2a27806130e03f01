/*
 * The monitor's side of the bus: it creates the master server, joins it itself as
 * sssd.monitor, takes registrations, follows who comes and goes (NameOwnerChanged), and
 * turns SIGHUP into signals for the services.
 */
#include <sys/stat.h>
#include <unistd.h>

#include "monitor/monitor.h"
#include "sss_iface/sss_iface.h"
#include "util/sss_metrics.h"

struct monitor_bus_state {
    struct mt_ctx *mt;
    void (*connected)(struct mt_ctx *mt, errno_t ret);
};

static errno_t monitor_register_service(TALLOC_CTX *mem_ctx, struct sbus_request *sbus_req,
                                        void *data, const char *name, uint16_t version,
                                        uint16_t type, uint16_t *_monitor_version)
{
    struct mt_ctx *mt = talloc_get_type(data, struct mt_ctx);
    struct mt_svc *svc;
    pid_t pid = 0;
    errno_t ret;

    svc = monitor_service_by_name(mt, name);
    if (svc == NULL) {
        DEBUG(SSSDBG_OP_FAILURE, "%s tried to register as unknown service %s\n",
              sbus_req->sender, name);
        return ENOENT;
    }
    /* Only the process we started and wait for may register: a registration that arrives
     * after its sender died (SIGCHLD is handled first) must not revive a dead service. */
    ret = sbus_server_name_pid(mt->server, sbus_req->sender, &pid);
    if (svc->state != MT_SVC_STARTING || svc->pid <= 0 || ret != EOK || pid != svc->pid) {
        DEBUG(SSSDBG_OP_FAILURE, "Registration of %s from %s (pid %d) refused: we wait for "
              "pid %d to register\n", name, sbus_req->sender, (int)pid, (int)svc->pid);
        return EPERM;
    }
    if (version != SSS_SERVICE_VERSION) {
        DEBUG(SSSDBG_OP_FAILURE, "%s registered with version %u, we speak %u\n", name,
              version, SSS_SERVICE_VERSION);
        return EINVAL;
    }
    if ((type == SSS_SERVICE_TYPE_DATA_PROVIDER) != svc->is_backend) {
        DEBUG(SSSDBG_OP_FAILURE, "%s registered with the wrong type %u\n", name, type);
        return EINVAL;
    }
    PROBE(MONITOR_SERVICE_REGISTERED, 0, name, version);
    monitor_service_registered(svc);
    *_monitor_version = SSS_MONITOR_VERSION;
    return EOK;
}

static void monitor_name_owner_changed(struct sbus_request *sbus_req, void *data,
                                       const char *name, const char *old_owner,
                                       const char *new_owner)
{
    if (name[0] == ':') {
        return;
    }
    if (new_owner[0] == '\0') {
        DEBUG(SSSDBG_TRACE_FUNC, "%s (%s) left the bus\n", name, old_owner);
    } else {
        DEBUG(SSSDBG_TRACE_FUNC, "%s joined the bus as %s\n", name, new_owner);
    }
}

/* sssd.service on the monitor too, so sssctl debug-level reaches every process. */
static errno_t monitor_ping(TALLOC_CTX *mem_ctx, struct sbus_request *sbus_req, void *data)
{
    return EOK;
}

static errno_t monitor_set_debug_level(TALLOC_CTX *mem_ctx, struct sbus_request *sbus_req,
                                       void *data, uint32_t level)
{
    debug_level = debug_convert_level((int)level);
    DEBUG(SSSDBG_IMPORTANT_INFO, "Debug level set to %#x by %s\n", debug_level,
          sbus_req->sender);
    return EOK;
}

static errno_t monitor_get_debug_level(TALLOC_CTX *mem_ctx, struct sbus_request *sbus_req,
                                       void *data, uint32_t *_level)
{
    *_level = (uint32_t)debug_level;
    return EOK;
}

static errno_t monitor_get_metrics(TALLOC_CTX *mem_ctx, struct sbus_request *sbus_req,
                                   void *data, const char **_text)
{
    *_text = sss_metrics_render(mem_ctx, "sssd");
    return *_text != NULL ? EOK : ENOMEM;
}

static const struct sbus_method monitor_service_methods[] = {
    SBUS_METHOD_SYNC_sssd_service_Ping(monitor_ping, NULL),
    SBUS_METHOD_SYNC_sssd_service_SetDebugLevel(monitor_set_debug_level, NULL),
    SBUS_METHOD_SYNC_sssd_service_GetDebugLevel(monitor_get_debug_level, NULL),
    SBUS_METHOD_SYNC_sssd_service_GetMetrics(monitor_get_metrics, NULL),
    SBUS_METHODS_END
};

static const struct sbus_interface monitor_service_iface = {
    .name = SBUS_IFACE_sssd_service,
    .methods = monitor_service_methods,
};

static void monitor_bus_connected(struct tevent_req *req)
{
    struct monitor_bus_state *state = tevent_req_callback_data(req, struct monitor_bus_state);
    struct mt_ctx *mt = state->mt;
    static struct sbus_method methods[2];
    static struct sbus_interface iface;
    static struct sbus_listener listeners[2];
    errno_t ret;

    ret = sbus_connect_recv(mt, req, &mt->conn);
    talloc_free(req);
    if (ret != EOK) {
        DEBUG(SSSDBG_FATAL_FAILURE, "The monitor cannot join its own bus: %s\n",
              sss_strerror(ret));
        goto done;
    }

    /* The handler data is mt, known only now: fill the tables once. */
    methods[0] = (struct sbus_method)SBUS_METHOD_SYNC_sssd_monitor_RegisterService(
                     monitor_register_service, mt);
    methods[1] = (struct sbus_method)SBUS_METHODS_END;
    iface = (struct sbus_interface){ .name = SBUS_IFACE_sssd_monitor, .methods = methods };
    listeners[0] = (struct sbus_listener)SBUS_LISTENER_org_freedesktop_DBus_NameOwnerChanged(
                       monitor_name_owner_changed, mt);
    listeners[1] = (struct sbus_listener)SBUS_LISTENERS_END;

    ret = sbus_connection_add_interface(mt->conn, SSS_BUS_PATH, &iface);
    if (ret == EOK) {
        ret = sbus_connection_add_interface(mt->conn, SSS_BUS_PATH, &monitor_service_iface);
    }
    if (ret == EOK) {
        ret = sbus_connection_add_listeners(mt->conn, listeners);
    }

done:
    state->connected(mt, ret);
    talloc_free(state);
}

static errno_t monitor_make_pipes_dir(void)
{
    const char *dirs[] = { SSSD_STATE_DIR, SSSD_PIPE_PATH, SSSD_PIPE_PATH "/private" };
    const mode_t modes[] = { 0755, 0755, 0700 };
    struct stat st;
    size_t i;

    for (i = 0; i < SSS_ARRAY_SIZE(dirs); i++) {
        if (mkdir(dirs[i], modes[i]) != 0 && errno != EEXIST) {
            return errno;
        }
        if (stat(dirs[i], &st) != 0) {
            return errno;
        }
        if (!S_ISDIR(st.st_mode)) {
            return ENOTDIR;
        }
        /* The monitor runs with umask 077, which mkdir applied: set the modes clients need
         * (pipes must be reachable by everyone; private/ by nobody else). */
        if ((st.st_mode & 07777) != modes[i] && chmod(dirs[i], modes[i]) != 0) {
            return errno;
        }
    }
    return EOK;
}

errno_t monitor_bus_setup(struct mt_ctx *mt, void (*connected)(struct mt_ctx *mt, errno_t ret))
{
    struct monitor_bus_state *state;
    struct tevent_req *req;
    errno_t ret;

    ret = monitor_make_pipes_dir();
    if (ret != EOK) {
        DEBUG(SSSDBG_FATAL_FAILURE, "Cannot create %s/private: %s\n", SSSD_PIPE_PATH,
              sss_strerror(ret));
        return ret;
    }
    ret = sbus_server_create(mt, mt->ev, SSSD_PIPE_PATH "/private/sbus-master", geteuid(),
                             &mt->server);
    if (ret != EOK) {
        DEBUG(SSSDBG_FATAL_FAILURE, "Cannot create the master bus: %s\n", sss_strerror(ret));
        return ret;
    }
    state = talloc_zero(mt, struct monitor_bus_state);
    if (state == NULL) {
        return ENOMEM;
    }
    state->mt = mt;
    state->connected = connected;
    req = sbus_connect_send(state, mt->ev, sbus_server_get_address(mt->server),
                            SSS_BUS_MONITOR);
    if (req == NULL) {
        talloc_free(state);
        return ENOMEM;
    }
    tevent_req_set_callback(req, monitor_bus_connected, state);
    return EOK;
}

void monitor_bus_relay_sighup(struct mt_ctx *mt)
{
    errno_t ret;

    ret = debug_reopen();
    if (ret != EOK) {
        DEBUG(SSSDBG_CRIT_FAILURE, "Cannot reopen the log file: %s\n", sss_strerror(ret));
    }
    if (mt->conn == NULL) {
        return;
    }
    DEBUG(SSSDBG_TRACE_FUNC, "SIGHUP: telling services to rotate logs and reset caches\n");
    ret = sbus_emit_sssd_service_RotateLogs(mt->conn, SSS_BUS_PATH);
    if (ret == EOK) {
        ret = sbus_emit_sssd_service_ClearMemcache(mt->conn, SSS_BUS_PATH);
    }
    if (ret != EOK) {
        DEBUG(SSSDBG_CRIT_FAILURE, "Cannot relay SIGHUP: %s\n", sss_strerror(ret));
    }
}
