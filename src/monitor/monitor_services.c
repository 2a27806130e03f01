/*
 * The services the monitor runs: one sssd_be per domain and one process per responder in
 * `services`. Started together, watched with SIGCHLD and pings, restarted with back-off when
 * they die or hang, given up on after `reconnection_retries` quick failures, and stopped in
 * order (responders, then back-ends) on shutdown.
 */
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "db/sysdb.h"
#include "monitor/monitor.h"
#include "sss_iface/sss_iface.h"
#include "util/sss_metrics.h"

static void monitor_service_spawn(struct mt_svc *svc);
static void monitor_service_arm_ping(struct mt_svc *svc);
static void monitor_service_died(struct mt_svc *svc, int status);

/* Signals a service's process; never pid 0 or -1, which would hit our own group or all. */
static void monitor_service_signal(struct mt_svc *svc, int sig)
{
    if (svc->pid > 0) {
        kill(svc->pid, sig);
    }
}

struct mt_svc *monitor_service_by_name(struct mt_ctx *mt, const char *name)
{
    struct mt_svc *svc;

    for (svc = mt->services; svc != NULL; svc = svc->next) {
        if (strcmp(svc->name, name) == 0) {
            return svc;
        }
    }
    return NULL;
}

static struct mt_svc *monitor_service_by_pid(struct mt_ctx *mt, pid_t pid)
{
    struct mt_svc *svc;

    for (svc = mt->services; svc != NULL; svc = svc->next) {
        if (svc->pid == pid) {
            return svc;
        }
    }
    return NULL;
}

static errno_t monitor_service_add(struct mt_ctx *mt, struct mt_svc ***tail, const char *name,
                                   bool is_backend)
{
    struct mt_svc *svc;
    int interval = 10;
    errno_t ret;

    svc = talloc_zero(mt, struct mt_svc);
    if (svc == NULL) {
        return ENOMEM;
    }
    svc->mt = mt;
    svc->is_backend = is_backend;
    svc->name = talloc_strdup(svc, name);
    if (is_backend) {
        svc->bus_name = sss_domain_bus_name(svc, name);
        svc->section = confdb_domain_section(svc, name);
        svc->binary = talloc_asprintf(svc, "%s/sssd_be", SSSD_LIBEXEC_PATH);
    } else {
        svc->bus_name = talloc_asprintf(svc, "sssd.%s", name);
        svc->section = talloc_strdup(svc, name);
        svc->binary = talloc_asprintf(svc, "%s/sssd_%s", SSSD_LIBEXEC_PATH, name);
    }
    if (svc->name == NULL || svc->bus_name == NULL || svc->section == NULL
        || svc->binary == NULL) {
        talloc_free(svc);
        return ENOMEM;
    }
    /* The heartbeat period is the section's "timeout" option, as in SSSD. */
    ret = confdb_get_int(mt->cdb, svc->section, "timeout", &interval);
    if (ret != EOK || interval < 1) {
        interval = 10;
    }
    svc->ping_interval = interval;
    **tail = svc;
    *tail = &svc->next;
    return EOK;
}

errno_t monitor_services_setup(struct mt_ctx *mt)
{
    TALLOC_CTX *tmp_ctx = talloc_new(NULL);
    struct mt_svc **tail = &mt->services;
    char **domains = NULL;
    char **services = NULL;
    errno_t ret;
    size_t i;

    if (tmp_ctx == NULL) {
        return ENOMEM;
    }
    ret = confdb_get_domains(mt->cdb, tmp_ctx, &domains);
    if (ret == EOK) {
        ret = confdb_get_services(mt->cdb, tmp_ctx, &services);
    }
    if (ret != EOK) {
        goto done;
    }
    /* Back-ends first: they are what the responders will ask. */
    for (i = 0; domains[i] != NULL && ret == EOK; i++) {
        ret = monitor_service_add(mt, &tail, domains[i], true);
    }
    for (i = 0; services[i] != NULL && ret == EOK; i++) {
        ret = monitor_service_add(mt, &tail, services[i], false);
    }

done:
    talloc_free(tmp_ctx);
    return ret;
}

static const char *monitor_logger_arg(enum sss_logger logger)
{
    return logger == SSS_LOGGER_FILES ? "--logger=files" : "--logger=stderr";
}

/* Reads the cache of every domain (only that of svc when it is a back-end) before a service
 * opens it: a damaged file is set aside and the domain starts empty (sysdb_check.c). */
static void monitor_check_caches(struct mt_ctx *mt, struct mt_svc *only)
{
    struct mt_svc *svc;
    bool set_aside;
    errno_t ret;

    for (svc = mt->services; svc != NULL; svc = svc->next) {
        if (!svc->is_backend || (only != NULL && only->is_backend && svc != only)) {
            continue;
        }
        ret = sysdb_check_cache(SSSD_DB_PATH, svc->name, MONITOR_CACHE_CHECK_MS, &set_aside);
        if (ret != EOK) {
            DEBUG(SSSDBG_OP_FAILURE, "cannot check the cache of %s: %s\n", svc->name,
                  sss_strerror(ret));
        }
    }
}

static void monitor_count_restart(struct mt_svc *svc)
{
    char labels[300];

    snprintf(labels, sizeof(labels), "service=\"%s\"", svc->name);
    sss_metric_inc(sss_metric_get("sssd_service_restarts_total", "Services restarted by the "
                                  "monitor after they died or hung", SSS_METRIC_COUNTER,
                                  labels));
}

static void monitor_service_restart_handler(struct tevent_context *ev, struct tevent_timer *te,
                                            struct timeval now, void *pvt)
{
    struct mt_svc *svc = talloc_get_type(pvt, struct mt_svc);

    svc->restart_timer = NULL;
    if (!svc->mt->shutting_down) {
        if (svc->crashed) {
            /* It may have died reading a damaged cache: do not let it read it again. */
            monitor_check_caches(svc->mt, svc);
        }
        monitor_count_restart(svc);
        monitor_service_spawn(svc);
    }
}

/* A service that has not registered within three heartbeat periods of its start is stuck:
 * kill it, and SIGCHLD takes it through the restart logic. */
static void monitor_register_timeout(struct tevent_context *ev, struct tevent_timer *te,
                                     struct timeval now, void *pvt)
{
    struct mt_svc *svc = talloc_get_type(pvt, struct mt_svc);

    svc->register_timer = NULL;
    if (svc->state == MT_SVC_STARTING) {
        DEBUG(SSSDBG_FATAL_FAILURE, "%s (pid %d) did not register within %d s; killing it\n",
              svc->name, (int)svc->pid, 3 * svc->ping_interval);
        monitor_service_signal(svc, SIGKILL);
    }
}

static void monitor_service_spawn(struct mt_svc *svc)
{
    struct mt_ctx *mt = svc->mt;
    char level[32];
    const char *argv[10];
    int argc = 0;
    pid_t pid;

    argv[argc++] = svc->binary;
    argv[argc++] = monitor_logger_arg(mt->logger);
    if (mt->cmdline_debug_level != SSSDBG_UNRESOLVED) {
        snprintf(level, sizeof(level), "%#x", debug_convert_level(mt->cmdline_debug_level));
        argv[argc++] = "-d";
        argv[argc++] = level;
    }
    argv[argc++] = "-c";
    argv[argc++] = mt->config_file;
    if (svc->is_backend) {
        argv[argc++] = "--domain";
        argv[argc++] = svc->name;
    }
    argv[argc] = NULL;

    pid = fork();
    if (pid < 0) {
        DEBUG(SSSDBG_CRIT_FAILURE, "Cannot fork for %s: %s\n", svc->name, strerror(errno));
        /* A death like any other, so the back-off and give-up logic applies. */
        svc->started_usec = sss_monotonic_usec();
        svc->state = MT_SVC_STARTING;
        monitor_service_died(svc, 127 << 8);
        return;
    }
    if (pid == 0) {
        static const int sigs[] = { SIGTERM, SIGINT, SIGHUP, SIGCHLD, SIGPIPE };
        sigset_t none;
        size_t i;

        /* The loop's handlers are ours, not the service's: a SIGTERM arriving before exec
         * must still end the child. */
        for (i = 0; i < SSS_ARRAY_SIZE(sigs); i++) {
            signal(sigs[i], SIG_DFL);
        }
        sigemptyset(&none);
        sigprocmask(SIG_SETMASK, &none, NULL);
        /* Logging to files, a service needs no stderr; holding the one we were started with
         * would keep whoever started `sssd -D` waiting on that pipe. */
        if (mt->logger == SSS_LOGGER_FILES) {
            int devnull = open("/dev/null", O_WRONLY | O_CLOEXEC);
            if (devnull >= 0) {
                dup2(devnull, STDERR_FILENO);
            }
        }
        execv(argv[0], discard_const_p(char *const, argv));
        fprintf(stderr, "sssd: cannot run %s: %s\n", argv[0], strerror(errno));
        _exit(127);
    }
    svc->pid = pid;
    svc->state = MT_SVC_STARTING;
    svc->missed_pings = 0;
    svc->started_usec = sss_monotonic_usec();
    talloc_zfree(svc->register_timer);
    svc->register_timer = tevent_add_timer(mt->ev, svc,
                                           tevent_timeval_current_ofs(3 * svc->ping_interval, 0),
                                           monitor_register_timeout, svc);
    PROBE(MONITOR_SERVICE_STARTED, 0, svc->name, (int)pid);
    DEBUG(SSSDBG_TRACE_FUNC, "Started %s (pid %d)\n", svc->name, (int)pid);
}

errno_t monitor_services_start(struct mt_ctx *mt)
{
    struct mt_svc *svc;

    monitor_check_caches(mt, NULL);
    for (svc = mt->services; svc != NULL; svc = svc->next) {
        monitor_service_spawn(svc);
    }
    return EOK;
}

void monitor_service_registered(struct mt_svc *svc)
{
    struct mt_ctx *mt = svc->mt;
    struct mt_svc *s;
    unsigned int n = 0;

    svc->state = MT_SVC_RUNNING;
    svc->missed_pings = 0;
    talloc_zfree(svc->register_timer);
    DEBUG(SSSDBG_TRACE_FUNC, "%s registered %.1f ms after its start\n", svc->name,
          (double)(sss_monotonic_usec() - svc->started_usec) / 1000.0);
    monitor_service_arm_ping(svc);

    if (mt->all_registered) {
        return;
    }
    for (s = mt->services; s != NULL; s = s->next) {
        if (s->state != MT_SVC_RUNNING) {
            return;
        }
        n++;
    }
    mt->all_registered = true;
    DEBUG(SSSDBG_IMPORTANT_INFO, "All %u services registered %.1f ms after start-up\n", n,
          (double)(sss_monotonic_usec() - mt->start_usec) / 1000.0);
    if (mt->ready_fn != NULL) {
        mt->ready_fn(mt, EOK);
        mt->ready_fn = NULL;
    }
}

/* ---- heartbeat ---- */

static void monitor_ping_done(struct tevent_req *req);

static void monitor_ping_handler(struct tevent_context *ev, struct tevent_timer *te,
                                 struct timeval now, void *pvt)
{
    struct mt_svc *svc = talloc_get_type(pvt, struct mt_svc);

    svc->ping_timer = NULL;
    if (svc->state != MT_SVC_RUNNING || svc->mt->conn == NULL) {
        return;
    }
    /* A reply slower than the heartbeat period counts as a miss. */
    svc->ping_req = sbus_call_sssd_service_Ping_raw_send(svc, svc->mt->conn,
                                                         svc->ping_interval * 1000,
                                                         svc->bus_name, SSS_BUS_PATH);
    if (svc->ping_req == NULL) {
        monitor_service_arm_ping(svc);
        return;
    }
    tevent_req_set_callback(svc->ping_req, monitor_ping_done, svc);
}

static void monitor_ping_done(struct tevent_req *req)
{
    struct mt_svc *svc = tevent_req_callback_data(req, struct mt_svc);
    errno_t ret;

    ret = sbus_call_recv(NULL, req, NULL);
    talloc_free(req);
    svc->ping_req = NULL;
    if (svc->state != MT_SVC_RUNNING) {
        return;
    }
    if (ret == EOK) {
        svc->missed_pings = 0;
    } else {
        svc->missed_pings++;
        DEBUG(SSSDBG_OP_FAILURE, "%s missed heartbeat %u of %u: %s\n", svc->name,
              svc->missed_pings, MONITOR_MAX_MISSED_PINGS, sss_strerror(ret));
        if (svc->missed_pings >= MONITOR_MAX_MISSED_PINGS) {
            DEBUG(SSSDBG_FATAL_FAILURE, "%s (pid %d) stopped answering; killing it\n",
                  svc->name, (int)svc->pid);
            /* SIGCHLD brings it back through the normal restart path. */
            monitor_service_signal(svc, SIGKILL);
            return;
        }
    }
    monitor_service_arm_ping(svc);
}

static void monitor_service_arm_ping(struct mt_svc *svc)
{
    talloc_zfree(svc->ping_timer);
    svc->ping_timer = tevent_add_timer(svc->mt->ev, svc,
                                       tevent_timeval_current_ofs(svc->ping_interval, 0),
                                       monitor_ping_handler, svc);
    if (svc->ping_timer == NULL) {
        DEBUG(SSSDBG_CRIT_FAILURE, "Out of memory arming the heartbeat of %s\n", svc->name);
    }
}

/* ---- deaths and restarts ---- */

static void monitor_stop_check(struct mt_ctx *mt);

static void monitor_service_died(struct mt_svc *svc, int status)
{
    struct mt_ctx *mt = svc->mt;
    uint64_t lived_usec = sss_monotonic_usec() - svc->started_usec;
    unsigned int delay;

    PROBE(MONITOR_SERVICE_EXITED, 0, svc->name, (int)svc->pid, status);
    svc->pid = 0;
    talloc_zfree(svc->ping_timer);
    talloc_zfree(svc->ping_req);
    talloc_zfree(svc->register_timer);

    if (mt->shutting_down || svc->state == MT_SVC_STOPPING) {
        svc->state = MT_SVC_STOPPED;
        monitor_stop_check(mt);
        return;
    }
    svc->state = MT_SVC_STOPPED;
    svc->crashed = WIFSIGNALED(status) && (WTERMSIG(status) == SIGBUS
                                           || WTERMSIG(status) == SIGSEGV
                                           || WTERMSIG(status) == SIGABRT);
    if (WIFSIGNALED(status)) {
        DEBUG(SSSDBG_FATAL_FAILURE, "%s was killed by signal %d\n", svc->name,
              WTERMSIG(status));
    } else {
        DEBUG(SSSDBG_FATAL_FAILURE, "%s exited with status %d\n", svc->name,
              WEXITSTATUS(status));
    }

    if (lived_usec < (uint64_t)MONITOR_QUICK_FAILURE_SEC * 1000000ULL) {
        svc->quick_failures++;
    } else {
        svc->quick_failures = 1;
    }
    if (svc->quick_failures > (unsigned int)mt->reconnection_retries) {
        DEBUG(SSSDBG_FATAL_FAILURE,
              "%s failed %u times within %d s of starting; giving up (reconnection_retries "
              "= %d). Shutting down.\n", svc->name, svc->quick_failures,
              MONITOR_QUICK_FAILURE_SEC, mt->reconnection_retries);
        fprintf(stderr, "sssd: service %s failed %u times in a row; giving up\n", svc->name,
                svc->quick_failures);
        if (mt->ready_fn != NULL) {
            mt->ready_fn(mt, ERR_SERVICE_FAILED);
            mt->ready_fn = NULL;
        }
        monitor_quit(mt, 1);
        return;
    }
    /* Back-off: at once the first time, then 1, 2, 4 ... s, never more than 30 s. */
    if (svc->quick_failures <= 1) {
        delay = 0;
    } else if (svc->quick_failures - 2 >= 5) {
        delay = 30000;      /* 2^5 s would pass the cap anyway; no shift past 32 bits */
    } else {
        delay = 1000u << (svc->quick_failures - 2);
    }
    DEBUG(SSSDBG_IMPORTANT_INFO, "Restarting %s in %u ms (quick failure %u of %d allowed)\n",
          svc->name, delay, svc->quick_failures, mt->reconnection_retries);
    svc->restart_timer = tevent_add_timer(mt->ev, svc,
                                          tevent_timeval_current_ofs(delay / 1000,
                                                                     (delay % 1000) * 1000),
                                          monitor_service_restart_handler, svc);
    if (svc->restart_timer == NULL) {
        monitor_quit(mt, 1);
    }
}

static void monitor_sigchld(struct tevent_context *ev, struct tevent_signal *se, int signum,
                            int count, void *siginfo, void *pvt)
{
    struct mt_ctx *mt = talloc_get_type(pvt, struct mt_ctx);
    struct mt_svc *svc;
    int status;
    pid_t pid;

    while ((pid = waitpid(-1, &status, WNOHANG)) > 0) {
        svc = monitor_service_by_pid(mt, pid);
        if (svc != NULL) {
            monitor_service_died(svc, status);
        }
    }
}

/* ---- orderly stop ---- */

static void (*monitor_stop_done)(struct mt_ctx *mt);
static struct tevent_timer *monitor_stop_timer;

static bool monitor_stop_phase(struct mt_ctx *mt, bool backends, int sig)
{
    struct mt_svc *svc;
    bool any = false;

    for (svc = mt->services; svc != NULL; svc = svc->next) {
        if (svc->is_backend != backends || svc->pid == 0) {
            continue;
        }
        svc->state = MT_SVC_STOPPING;
        monitor_service_signal(svc, sig);
        any = true;
    }
    return any;
}

static void monitor_stop_timeout(struct tevent_context *ev, struct tevent_timer *te,
                                 struct timeval now, void *pvt)
{
    struct mt_ctx *mt = talloc_get_type(pvt, struct mt_ctx);
    struct mt_svc *svc;

    monitor_stop_timer = NULL;
    for (svc = mt->services; svc != NULL; svc = svc->next) {
        if (svc->pid != 0) {
            DEBUG(SSSDBG_OP_FAILURE, "%s did not stop in time; killing it\n", svc->name);
            monitor_service_signal(svc, SIGKILL);
        }
    }
}

static void monitor_stop_check(struct mt_ctx *mt)
{
    struct mt_svc *svc;
    bool responders_left = false;
    bool backends_left = false;
    void (*done)(struct mt_ctx *mt);

    for (svc = mt->services; svc != NULL; svc = svc->next) {
        if (svc->pid != 0) {
            if (svc->is_backend) {
                backends_left = true;
            } else {
                responders_left = true;
            }
        }
    }
    if (responders_left) {
        return;
    }
    if (backends_left) {
        /* Responders are gone: now the back-ends, unless they were told already. */
        for (svc = mt->services; svc != NULL; svc = svc->next) {
            if (svc->is_backend && svc->pid != 0 && svc->state != MT_SVC_STOPPING) {
                monitor_stop_phase(mt, true, SIGTERM);
                break;
            }
        }
        return;
    }
    talloc_zfree(monitor_stop_timer);
    done = monitor_stop_done;
    monitor_stop_done = NULL;
    if (done != NULL) {
        done(mt);
    }
}

void monitor_services_stop(struct mt_ctx *mt, void (*done)(struct mt_ctx *mt))
{
    struct mt_svc *svc;

    mt->shutting_down = true;
    monitor_stop_done = done;
    for (svc = mt->services; svc != NULL; svc = svc->next) {
        talloc_zfree(svc->restart_timer);
        talloc_zfree(svc->ping_timer);
        talloc_zfree(svc->ping_req);
        talloc_zfree(svc->register_timer);
    }
    monitor_stop_phase(mt, false, SIGTERM);
    monitor_stop_timer = tevent_add_timer(mt->ev, mt,
                                          tevent_timeval_current_ofs(
                                              MONITOR_STOP_GRACE_MS / 1000,
                                              (MONITOR_STOP_GRACE_MS % 1000) * 1000),
                                          monitor_stop_timeout, mt);
    monitor_stop_check(mt);
}

errno_t monitor_services_setup_signals(struct mt_ctx *mt)
{
    if (tevent_add_signal(mt->ev, mt, SIGCHLD, SA_NOCLDSTOP, monitor_sigchld, mt) == NULL) {
        return ENOMEM;
    }
    return EOK;
}
