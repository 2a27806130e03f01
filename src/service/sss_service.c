/*
 * The common life of a service process: arguments, config, logging, bus connection under the
 * service's well-known name, the sssd.service interface, registration with the monitor, and
 * the exits (SIGTERM: clean; lost bus: the monitor is gone, so are we).
 */
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "service/sss_service.h"
#include "sss_iface/sss_iface.h"
#include "util/sss_metrics.h"

struct sss_service {
    struct tevent_context *ev;
    struct confdb *cdb;
    struct sbus_connection *conn;
    struct sss_service_def *def;
    char *bus_name;
    int exit_status;
};

const char *sss_master_bus_address(void)
{
    return "unix:path=" SSSD_PIPE_PATH "/private/sbus-master";
}

struct tevent_context *sss_service_ev(struct sss_service *svc) { return svc->ev; }
struct sbus_connection *sss_service_conn(struct sss_service *svc) { return svc->conn; }
struct confdb *sss_service_confdb(struct sss_service *svc) { return svc->cdb; }
const struct sss_service_def *sss_service_def(struct sss_service *svc) { return svc->def; }

static void sss_service_usage(const char *prog, bool want_domain)
{
    fprintf(stderr, "Usage: %s [-d LEVEL] [--logger=stderr|files] [-c FILE]%s\n", prog,
            want_domain ? " --domain NAME" : "");
}

errno_t sss_service_parse_args(int argc, const char *argv[], bool want_domain,
                               struct sss_service_opts *opts)
{
    static const struct option longopts[] = {
        { "debug-level", required_argument, NULL, 'd' },
        { "logger",      required_argument, NULL, 'l' },
        { "config",      required_argument, NULL, 'c' },
        { "domain",      required_argument, NULL, 'D' },
        { NULL, 0, NULL, 0 },
    };
    char *end;
    int c;

    opts->debug_level = SSSDBG_UNRESOLVED;
    opts->logger = SSS_LOGGER_STDERR;
    opts->config_file = SSSD_CONF_FILE;
    opts->domain = NULL;

    optind = 1;
    while ((c = getopt_long(argc, discard_const_p(char *const, argv), "d:c:", longopts,
                            NULL)) != -1) {
        switch (c) {
        case 'd':
            opts->debug_level = (int)strtol(optarg, &end, 0);
            if (*optarg == '\0' || *end != '\0' || opts->debug_level < 0) {
                fprintf(stderr, "%s: invalid debug level '%s'\n", argv[0], optarg);
                return EINVAL;
            }
            break;
        case 'l':
            if (debug_parse_logger(optarg, &opts->logger) != EOK) {
                fprintf(stderr, "%s: invalid logger '%s' (stderr or files)\n", argv[0], optarg);
                return EINVAL;
            }
            break;
        case 'c':
            opts->config_file = optarg;
            break;
        case 'D':
            if (!want_domain) {
                sss_service_usage(argv[0], want_domain);
                return EINVAL;
            }
            opts->domain = optarg;
            break;
        default:
            sss_service_usage(argv[0], want_domain);
            return EINVAL;
        }
    }
    if (optind != argc || (want_domain && (opts->domain == NULL || *opts->domain == '\0'))) {
        sss_service_usage(argv[0], want_domain);
        return EINVAL;
    }
    return EOK;
}

static errno_t sss_service_ping(TALLOC_CTX *mem_ctx, struct sbus_request *sbus_req, void *data)
{
    return EOK;
}

static errno_t sss_service_set_debug_level(TALLOC_CTX *mem_ctx, struct sbus_request *sbus_req,
                                           void *data, uint32_t level)
{
    debug_level = debug_convert_level((int)level);
    DEBUG(SSSDBG_IMPORTANT_INFO, "Debug level set to %#x\n", debug_level);
    return EOK;
}

static errno_t sss_service_get_debug_level(TALLOC_CTX *mem_ctx, struct sbus_request *sbus_req,
                                           void *data, uint32_t *_level)
{
    *_level = (uint32_t)debug_level;
    return EOK;
}

static errno_t sss_service_get_metrics(TALLOC_CTX *mem_ctx, struct sbus_request *sbus_req,
                                       void *data, const char **_text)
{
    struct sss_service *svc = talloc_get_type(data, struct sss_service);

    *_text = sss_metrics_render(mem_ctx, svc->def->process);
    return *_text != NULL ? EOK : ENOMEM;
}

static void sss_service_rotate_logs(struct sbus_request *sbus_req, void *data)
{
    errno_t ret = debug_reopen();

    if (ret != EOK) {
        DEBUG(SSSDBG_CRIT_FAILURE, "Cannot reopen the log file: %s\n", sss_strerror(ret));
    }
}

static const struct sbus_listener sss_service_listeners[] = {
    SBUS_LISTENER_sssd_service_RotateLogs(sss_service_rotate_logs, NULL),
    SBUS_LISTENERS_END
};

/* sssd.service; the table is built per service because GetMetrics needs svc (its process
 * name) as data. */
static errno_t sss_service_add_iface(struct sss_service *svc)
{
    struct sbus_method *methods = talloc_zero_array(svc, struct sbus_method, 5);
    struct sbus_interface *iface = talloc_zero(svc, struct sbus_interface);

    if (methods == NULL || iface == NULL) {
        return ENOMEM;
    }
    methods[0] = (struct sbus_method)SBUS_METHOD_SYNC_sssd_service_Ping(sss_service_ping, svc);
    methods[1] = (struct sbus_method)SBUS_METHOD_SYNC_sssd_service_SetDebugLevel(
        sss_service_set_debug_level, svc);
    methods[2] = (struct sbus_method)SBUS_METHOD_SYNC_sssd_service_GetDebugLevel(
        sss_service_get_debug_level, svc);
    methods[3] = (struct sbus_method)SBUS_METHOD_SYNC_sssd_service_GetMetrics(
        sss_service_get_metrics, svc);
    methods[4] = (struct sbus_method)SBUS_METHODS_END;
    iface->name = SBUS_IFACE_sssd_service;
    iface->methods = methods;
    return sbus_connection_add_interface(svc->conn, SSS_BUS_PATH, iface);
}

static void sss_service_quit(struct sss_service *svc, int status)
{
    svc->exit_status = status;
    talloc_zfree(svc->conn);
    /* Leaving the loop: nothing else may run after the decision to quit. */
    exit(status);
}

static void sss_service_lost_bus(struct sbus_connection *conn, void *data)
{
    struct sss_service *svc = talloc_get_type(data, struct sss_service);

    DEBUG(SSSDBG_FATAL_FAILURE, "Lost the connection to the master bus; exiting\n");
    sss_service_quit(svc, 1);
}

static void sss_service_sigterm(struct tevent_context *ev, struct tevent_signal *se,
                                int signum, int count, void *siginfo, void *pvt)
{
    struct sss_service *svc = talloc_get_type(pvt, struct sss_service);

    DEBUG(SSSDBG_TRACE_FUNC, "Signal %d received, shutting down\n", signum);
    sss_service_quit(svc, 0);
}

static void sss_service_sighup(struct tevent_context *ev, struct tevent_signal *se,
                               int signum, int count, void *siginfo, void *pvt)
{
    sss_service_rotate_logs(NULL, NULL);
}

static void sss_service_connected(struct tevent_req *req);
static void sss_service_registered(struct tevent_req *req);

static errno_t sss_service_start(struct sss_service *svc)
{
    struct tevent_req *req;

    if (tevent_add_signal(svc->ev, svc, SIGTERM, 0, sss_service_sigterm, svc) == NULL
        || tevent_add_signal(svc->ev, svc, SIGINT, 0, sss_service_sigterm, svc) == NULL
        || tevent_add_signal(svc->ev, svc, SIGHUP, 0, sss_service_sighup, svc) == NULL) {
        return ENOMEM;
    }
    req = sbus_connect_send(svc, svc->ev, sss_master_bus_address(), svc->bus_name);
    if (req == NULL) {
        return ENOMEM;
    }
    tevent_req_set_callback(req, sss_service_connected, svc);
    return EOK;
}

static void sss_service_connected(struct tevent_req *req)
{
    struct sss_service *svc = tevent_req_callback_data(req, struct sss_service);
    const struct sss_service_def *def = svc->def;
    errno_t ret;

    ret = sbus_connect_recv(svc, req, &svc->conn);
    talloc_free(req);
    if (ret != EOK) {
        DEBUG(SSSDBG_FATAL_FAILURE, "Cannot join the master bus as %s: %s\n", svc->bus_name,
              sss_strerror(ret));
        sss_service_quit(svc, 1);
        return;
    }
    sbus_connection_set_disconnect_cb(svc->conn, sss_service_lost_bus, svc);

    ret = sss_service_add_iface(svc);
    if (ret == EOK) {
        ret = sbus_connection_add_listeners(svc->conn, sss_service_listeners);
    }
    if (ret == EOK && def->init != NULL) {
        ret = def->init(svc, def->data);
    }
    if (ret != EOK) {
        DEBUG(SSSDBG_FATAL_FAILURE, "Cannot set up %s: %s\n", def->process, sss_strerror(ret));
        sss_service_quit(svc, 1);
        return;
    }

    req = sbus_call_sssd_monitor_RegisterService_send(svc, svc->conn, SSS_BUS_MONITOR,
                                                      SSS_BUS_PATH, def->register_name,
                                                      SSS_SERVICE_VERSION, def->type);
    if (req == NULL) {
        sss_service_quit(svc, 1);
        return;
    }
    tevent_req_set_callback(req, sss_service_registered, svc);
}

static void sss_service_registered(struct tevent_req *req)
{
    struct sss_service *svc = tevent_req_callback_data(req, struct sss_service);
    uint16_t monitor_version = 0;
    errno_t ret;

    ret = sbus_call_sssd_monitor_RegisterService_recv(svc, req, &monitor_version);
    talloc_free(req);
    if (ret != EOK) {
        DEBUG(SSSDBG_FATAL_FAILURE, "The monitor refused our registration: %s\n",
              sss_strerror(ret));
        sss_service_quit(svc, 1);
        return;
    }
    DEBUG(SSSDBG_TRACE_FUNC, "Registered with the monitor (version %u) as %s\n",
          monitor_version, svc->bus_name);
    if (svc->def->registered != NULL) {
        svc->def->registered(svc, svc->def->data);
    }
}

int sss_service_main(const struct sss_service_opts *opts, struct sss_service_def *def)
{
    struct sss_service *svc;
    char *error = NULL;
    int level = opts->debug_level;
    errno_t ret;

    /* Our own lookups must never recurse into ourselves through nss_sss. */
    setenv("_SSS_LOOPS", "NO", 1);

    svc = talloc_zero(NULL, struct sss_service);
    if (svc == NULL) {
        return 1;
    }
    svc->def = def;

    ret = debug_init(def->process, level, opts->logger, NULL);
    if (ret != EOK) {
        fprintf(stderr, "%s: cannot open the log file: %s\n", def->process, sss_strerror(ret));
        return 1;
    }
    ret = confdb_load(svc, opts->config_file, &svc->cdb, &error);
    if (ret != EOK) {
        fprintf(stderr, "%s: %s\n", def->process, error ? error : sss_strerror(ret));
        DEBUG(SSSDBG_FATAL_FAILURE, "%s\n", error ? error : sss_strerror(ret));
        talloc_free(svc);
        return 1;
    }
    if (level == SSSDBG_UNRESOLVED) {
        if (confdb_get_int(svc->cdb, def->section, "debug_level", &level) == EOK) {
            debug_level = debug_convert_level(level);
        }
    }

    svc->bus_name = def->type == SSS_SERVICE_TYPE_DATA_PROVIDER
                    ? sss_domain_bus_name(svc, def->register_name)
                    : talloc_asprintf(svc, "sssd.%s", def->register_name);
    svc->ev = tevent_context_init(svc);
    if (svc->bus_name == NULL || svc->ev == NULL) {
        talloc_free(svc);
        return 1;
    }
    /* Deferred callbacks resume under the request id that scheduled them. */
    sss_req_id_track(svc->ev);
    ret = sss_service_start(svc);
    if (ret != EOK) {
        DEBUG(SSSDBG_FATAL_FAILURE, "Cannot start: %s\n", sss_strerror(ret));
        talloc_free(svc);
        return 1;
    }
    DEBUG(SSSDBG_TRACE_FUNC, "Starting %s\n", def->process);
    tevent_loop_wait(svc->ev);
    ret = svc->exit_status;
    talloc_free(svc);
    return ret;
}
