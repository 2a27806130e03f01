/*
 * The monitor, `sssd`: owns the master bus, starts and watches every service, relays
 * SIGHUP, and stops everything in order on SIGTERM.
 */
#ifndef MONITOR_H
#define MONITOR_H

#include <sys/types.h>
#include "util/util.h"
#include "sbus/sbus.h"
#include "sbus/sbus_server.h"
#include "confdb/confdb.h"

/* A service that lived less than this long before dying counts as a quick failure. */
#define MONITOR_QUICK_FAILURE_SEC 30
/* How long the read-through of one domain's cache before start may take (sysdb_check.c):
 * about 50 ms for 10,000 users, so only a slow disk reaches it. */
#define MONITOR_CACHE_CHECK_MS 30000
/* Consecutive missed pings before a service is considered hung and killed. */
#define MONITOR_MAX_MISSED_PINGS 3
/* How long a service gets to exit after SIGTERM before SIGKILL. */
#define MONITOR_STOP_GRACE_MS 2000

enum mt_svc_state {
    MT_SVC_STOPPED,         /* not running, maybe waiting to be restarted */
    MT_SVC_STARTING,        /* forked, not registered yet */
    MT_SVC_RUNNING,         /* registered with the monitor */
    MT_SVC_STOPPING,        /* sent SIGTERM on shutdown */
};

struct mt_ctx;

struct mt_svc {
    struct mt_svc *next;
    struct mt_ctx *mt;
    char *name;             /* "nss", "pam", "sudo" or the domain name */
    char *bus_name;         /* "sssd.nss", "sssd.domain_<escaped>" */
    char *section;          /* config section of its options */
    bool is_backend;
    char *binary;           /* absolute path of the executable */

    enum mt_svc_state state;
    pid_t pid;
    uint64_t started_usec;
    unsigned int quick_failures;
    bool crashed;           /* its last death was SIGBUS, SIGSEGV or SIGABRT */
    unsigned int missed_pings;
    int ping_interval;      /* seconds: the section's "timeout" option */
    struct tevent_timer *ping_timer;
    struct tevent_timer *restart_timer;
    struct tevent_timer *register_timer;
    struct tevent_req *ping_req;
};

struct mt_ctx {
    struct tevent_context *ev;
    struct confdb *cdb;
    const char *config_file;
    struct sbus_server *server;
    struct sbus_connection *conn;   /* the monitor's own connection, as sssd.monitor */
    struct mt_svc *services;        /* back-ends first, then responders */
    int reconnection_retries;
    int cmdline_debug_level;        /* SSSDBG_UNRESOLVED when not given */
    enum sss_logger logger;
    bool daemon;                    /* started with -D */
    bool shutting_down;
    int exit_status;
    uint64_t start_usec;
    bool all_registered;
    /* Told once when every service has registered (or with a failure): the daemonizing
     * parent waits on it. */
    void (*ready_fn)(struct mt_ctx *mt, errno_t result);
};

/* monitor_services.c */
errno_t monitor_services_setup(struct mt_ctx *mt);
/* Reaps children (SIGCHLD) and hands each death to the restart logic. */
errno_t monitor_services_setup_signals(struct mt_ctx *mt);
errno_t monitor_services_start(struct mt_ctx *mt);
struct mt_svc *monitor_service_by_name(struct mt_ctx *mt, const char *name);
void monitor_service_registered(struct mt_svc *svc);
/* Stops every service (responders first), then calls done(mt). */
void monitor_services_stop(struct mt_ctx *mt, void (*done)(struct mt_ctx *mt));

/* monitor_bus.c */
errno_t monitor_bus_setup(struct mt_ctx *mt, void (*connected)(struct mt_ctx *mt, errno_t ret));
/* SIGHUP: reopen our log, tell the services to rotate theirs and reset the memory cache. */
void monitor_bus_relay_sighup(struct mt_ctx *mt);

/* monitor_pidfile.c */
/* Creates, locks and writes the pid file; ERR_ALREADY_RUNNING (with *_other set) if another
 * instance holds it. The lock lasts until the process exits. */
errno_t monitor_pidfile_acquire(const char *path, pid_t *_other);
void monitor_pidfile_remove(void);

/* Ends the monitor: stops services, frees the bus, removes the pid file, exits status. */
void monitor_quit(struct mt_ctx *mt, int status);

#endif /* MONITOR_H */
