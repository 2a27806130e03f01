/*
 * What every service process (sssd_be, sssd_nss, sssd_pam, sssd_sudo) shares: command line,
 * logging and config set-up, the connection to the master bus under its well-known name,
 * the sssd.service interface the monitor pings, and registration with the monitor.
 * Each service's main() fills a struct sss_service_def and calls sss_service_main().
 */
#ifndef SSS_SERVICE_H
#define SSS_SERVICE_H

#include "util/util.h"
#include "sbus/sbus.h"
#include "confdb/confdb.h"
#include "sss_iface/sss_iface.h"

struct sss_service;

struct sss_service_def {
    const char *process;            /* "sssd_nss", ... (log file name) */
    const char *section;            /* config section: "nss", "domain/ldap.test" */
    const char *register_name;      /* name given to RegisterService: "nss", "ldap.test" */
    uint16_t type;                  /* SSS_SERVICE_TYPE_* (sss_iface.h) */
    /* Called once connected and before registering: add interfaces and listeners here. */
    errno_t (*init)(struct sss_service *svc, void *data);
    /* Called once the monitor acknowledged the registration (may be NULL). */
    void (*registered)(struct sss_service *svc, void *data);
    void *data;
};

/* Options every service accepts: -d LEVEL, --logger=stderr|files, -c FILE, and for
 * back-ends --domain NAME (returned in *_domain when asked for). */
struct sss_service_opts {
    int debug_level;                /* SSSDBG_UNRESOLVED: from the config */
    enum sss_logger logger;
    const char *config_file;
    const char *domain;
};

/* Parses argv; prints usage and returns EINVAL on bad arguments. */
errno_t sss_service_parse_args(int argc, const char *argv[], bool want_domain,
                               struct sss_service_opts *opts);

/* Loads the config, sets up logging, connects and registers, runs the loop.
 * Returns the process exit status. */
int sss_service_main(const struct sss_service_opts *opts, struct sss_service_def *def);

struct tevent_context *sss_service_ev(struct sss_service *svc);
struct sbus_connection *sss_service_conn(struct sss_service *svc);
struct confdb *sss_service_confdb(struct sss_service *svc);
const struct sss_service_def *sss_service_def(struct sss_service *svc);

/* The master bus address: "unix:path=<pipes>/private/sbus-master". */
const char *sss_master_bus_address(void);

#endif /* SSS_SERVICE_H */
