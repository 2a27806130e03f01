/*
 * `sssd`: the monitor's command line and life cycle. -i stays in the foreground; -D
 * detaches, and the starting process returns only once every service has registered (or
 * with the reason it could not), so `sssd -D && getent ...` is safe. --genconf checks the
 * configuration and exits, as SSSD's unit files expect.
 */
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "monitor/monitor.h"

struct monitor_opts {
    bool interactive;
    bool daemon;
    const char *config_file;
    int debug_level;
    bool logger_set;
    enum sss_logger logger;
    bool genconf;               /* --genconf / --genconf-section: check the config, exit */
    const char *genconf_section;
};

static int ready_fd = -1;   /* write end of the pipe the detaching parent waits on */

static void monitor_usage(FILE *out)
{
    fprintf(out,
            "Usage: sssd [-i | -D] [-c FILE] [-d LEVEL] [--logger=stderr|files]\n"
            "  -i, --interactive      run in the foreground\n"
            "  -D, --daemon           detach; return once every service is up\n"
            "  -c, --config FILE      configuration file (default %s)\n"
            "  -d, --debug-level N    debug level 0-9 or a bit mask, for every process\n"
            "      --logger=TARGET    stderr or files (default: stderr with -i, else files)\n"
            "      --genconf          read and check the configuration, then exit\n"
            "      --genconf-section=SECTION\n"
            "                         the same (for a unit file refreshing one section)\n",
            SSSD_CONF_FILE);
}

static int monitor_parse_args(int argc, char *argv[], struct monitor_opts *opts)
{
    static const struct option longopts[] = {
        { "interactive", no_argument,       NULL, 'i' },
        { "daemon",      no_argument,       NULL, 'D' },
        { "config",      required_argument, NULL, 'c' },
        { "debug-level", required_argument, NULL, 'd' },
        { "logger",      required_argument, NULL, 'l' },
        { "help",        no_argument,       NULL, 'h' },
        { "genconf",     no_argument,       NULL, 'g' },
        { "genconf-section", required_argument, NULL, 'G' },
        { NULL, 0, NULL, 0 },
    };
    char *end;
    int c;

    opts->config_file = SSSD_CONF_FILE;
    opts->debug_level = SSSDBG_UNRESOLVED;
    while ((c = getopt_long(argc, argv, "iDc:d:h", longopts, NULL)) != -1) {
        switch (c) {
        case 'i':
            opts->interactive = true;
            break;
        case 'D':
            opts->daemon = true;
            break;
        case 'c':
            opts->config_file = optarg;
            break;
        case 'd':
            opts->debug_level = (int)strtol(optarg, &end, 0);
            if (*optarg == '\0' || *end != '\0' || opts->debug_level < 0) {
                fprintf(stderr, "sssd: invalid debug level '%s'\n", optarg);
                return 1;
            }
            break;
        case 'l':
            if (debug_parse_logger(optarg, &opts->logger) != EOK) {
                fprintf(stderr, "sssd: invalid logger '%s' (stderr or files)\n", optarg);
                return 1;
            }
            opts->logger_set = true;
            break;
        case 'g':
            opts->genconf = true;
            break;
        case 'G':
            opts->genconf = true;
            opts->genconf_section = optarg;
            break;
        case 'h':
            monitor_usage(stdout);
            exit(0);
        default:
            monitor_usage(stderr);
            return 1;
        }
    }
    if (optind != argc) {
        monitor_usage(stderr);
        return 1;
    }
    if (opts->interactive && opts->daemon) {
        fprintf(stderr, "sssd: -i and -D exclude each other\n");
        return 1;
    }
    if (opts->genconf && (opts->interactive || opts->daemon)) {
        fprintf(stderr, "sssd: --genconf runs nothing: it excludes -i and -D\n");
        return 1;
    }
    if (!opts->logger_set) {
        opts->logger = opts->interactive ? SSS_LOGGER_STDERR : SSS_LOGGER_FILES;
    }
    return 0;
}

/* Tells the waiting parent (with -D) how start-up went: one byte, 0 for success. */
static void monitor_report_ready(int status)
{
    unsigned char b = (unsigned char)status;

    if (ready_fd < 0) {
        return;
    }
    if (write(ready_fd, &b, 1) != 1) {
        /* The parent is gone; nothing to tell. */
    }
    close(ready_fd);
    ready_fd = -1;
}

/* Forks; the parent waits for the child's start-up verdict and exits with it. */
static void monitor_daemonize(void)
{
    int fds[2];
    unsigned char b = 1;
    pid_t pid;
    int devnull;

    if (pipe2(fds, O_CLOEXEC) != 0) {
        fprintf(stderr, "sssd: pipe: %s\n", strerror(errno));
        exit(1);
    }
    pid = fork();
    if (pid < 0) {
        fprintf(stderr, "sssd: fork: %s\n", strerror(errno));
        exit(1);
    }
    if (pid > 0) {
        close(fds[1]);
        if (read(fds[0], &b, 1) != 1) {
            fprintf(stderr, "sssd: the daemon exited during start-up (see its logs in %s)\n",
                    SSSD_LOG_PATH);
            exit(1);
        }
        exit(b);
    }
    close(fds[0]);
    ready_fd = fds[1];
    setsid();
    if (chdir("/") != 0) {
        /* Not fatal: we only hold absolute paths. */
    }
    devnull = open("/dev/null", O_RDWR);
    if (devnull >= 0) {
        dup2(devnull, STDIN_FILENO);
        dup2(devnull, STDOUT_FILENO);
        /* stderr stays until start-up is over, so errors still reach whoever started us. */
        if (devnull > STDERR_FILENO) {
            close(devnull);
        }
    }
}

static void monitor_ready(struct mt_ctx *mt, errno_t result)
{
    int devnull;

    monitor_report_ready(result == EOK ? 0 : 1);
    /* Detached and logging to files: start-up errors had their chance on stderr; now let go
     * of it, so the terminal or pipe we were started from is free. */
    if (result == EOK && mt->daemon && mt->logger == SSS_LOGGER_FILES) {
        devnull = open("/dev/null", O_WRONLY);
        if (devnull >= 0) {
            dup2(devnull, STDERR_FILENO);
            close(devnull);
        }
    }
}

static void monitor_exit_now(struct mt_ctx *mt)
{
    int status = mt->exit_status;

    DEBUG(SSSDBG_IMPORTANT_INFO, "Monitor stopped\n");
    talloc_zfree(mt->conn);
    talloc_zfree(mt->server);   /* removes the socket */
    monitor_pidfile_remove();
    monitor_report_ready(status ? status : 1);
    debug_close();
    exit(status);
}

void monitor_quit(struct mt_ctx *mt, int status)
{
    if (mt->shutting_down) {
        return;
    }
    mt->exit_status = status;
    monitor_services_stop(mt, monitor_exit_now);
}

static void monitor_sigterm(struct tevent_context *ev, struct tevent_signal *se, int signum,
                            int count, void *siginfo, void *pvt)
{
    struct mt_ctx *mt = talloc_get_type(pvt, struct mt_ctx);

    DEBUG(SSSDBG_IMPORTANT_INFO, "Signal %d received: stopping every service\n", signum);
    monitor_quit(mt, 0);
}

static void monitor_sighup(struct tevent_context *ev, struct tevent_signal *se, int signum,
                           int count, void *siginfo, void *pvt)
{
    monitor_bus_relay_sighup(talloc_get_type(pvt, struct mt_ctx));
}

static void monitor_bus_ready(struct mt_ctx *mt, errno_t ret)
{
    if (ret != EOK) {
        monitor_quit(mt, 1);
        return;
    }
    ret = monitor_services_start(mt);
    if (ret != EOK) {
        monitor_quit(mt, 1);
    }
}

static errno_t monitor_setup(struct mt_ctx *mt)
{
    errno_t ret;

    ret = monitor_services_setup(mt);
    if (ret != EOK) {
        return ret;
    }
    if (tevent_add_signal(mt->ev, mt, SIGTERM, 0, monitor_sigterm, mt) == NULL
        || tevent_add_signal(mt->ev, mt, SIGINT, 0, monitor_sigterm, mt) == NULL
        || tevent_add_signal(mt->ev, mt, SIGHUP, 0, monitor_sighup, mt) == NULL) {
        return ENOMEM;
    }
    ret = monitor_services_setup_signals(mt);
    if (ret != EOK) {
        return ret;
    }
    return monitor_bus_setup(mt, monitor_bus_ready);
}

int main(int argc, char *argv[])
{
    struct monitor_opts opts = { 0 };
    struct mt_ctx *mt;
    char *error = NULL;
    pid_t other = 0;
    int level;
    errno_t ret;

    if (monitor_parse_args(argc, argv, &opts) != 0) {
        return 1;
    }
    setenv("_SSS_LOOPS", "NO", 1);
    signal(SIGPIPE, SIG_IGN);
    umask(0077);

    mt = talloc_zero(NULL, struct mt_ctx);
    if (mt == NULL) {
        return 1;
    }
    mt->start_usec = sss_monotonic_usec();
    mt->config_file = opts.config_file;
    mt->cmdline_debug_level = opts.debug_level;
    mt->logger = opts.logger;
    mt->ready_fn = monitor_ready;
    mt->daemon = opts.daemon;

    /* The config is checked before anything else, so a broken one ends with one clear
     * line on stderr and status 1, whatever the mode. */
    ret = confdb_load(mt, opts.config_file, &mt->cdb, &error);
    if (ret != EOK) {
        fprintf(stderr, "sssd: %s\n", error ? error : sss_strerror(ret));
        return 1;
    }
    if (opts.genconf) {
        /* SSSD rebuilds its config database here; ours is read from the file by every
         * process at start, so what is left is the check: the same as starting, no more.
         * A section named by --genconf-section that the file lacks is not an error (SSSD
         * then has nothing to refresh either). */
        const char *const *w;

        for (w = confdb_warnings(mt->cdb); *w != NULL; w++) {
            fprintf(stderr, "sssd: warning: %s\n", *w);
        }
        talloc_free(mt);
        return 0;
    }
    if (geteuid() != 0) {
        fprintf(stderr, "sssd: must be started as root\n");
        return 1;
    }

    level = opts.debug_level;
    if (level == SSSDBG_UNRESOLVED
        && confdb_get_int(mt->cdb, "sssd", "debug_level", &level) != EOK) {
        level = SSSDBG_UNRESOLVED;
    }
    if (confdb_get_int(mt->cdb, "sssd", "reconnection_retries",
                       &mt->reconnection_retries) != EOK) {
        mt->reconnection_retries = 3;
    }
    if (mt->reconnection_retries < 0) {
        mt->reconnection_retries = 0;
    }

    if (opts.daemon) {
        monitor_daemonize();
    }
    ret = debug_init("sssd", level, opts.logger, NULL);
    if (ret != EOK) {
        fprintf(stderr, "sssd: cannot open the log file in %s: %s\n", SSSD_LOG_PATH,
                sss_strerror(ret));
        monitor_report_ready(1);
        return 1;
    }
    {
        const char *const *w;
        for (w = confdb_warnings(mt->cdb); *w != NULL; w++) {
            DEBUG(SSSDBG_IMPORTANT_INFO, "%s\n", *w);
            if (opts.interactive && !(debug_level & SSSDBG_IMPORTANT_INFO)) {
                fprintf(stderr, "sssd: warning: %s\n", *w);
            }
        }
    }

    ret = monitor_pidfile_acquire(SSSD_PID_FILE, &other);
    if (ret == ERR_ALREADY_RUNNING) {
        fprintf(stderr, "sssd: another instance is running (pid %d holds %s)\n", (int)other,
                SSSD_PID_FILE);
        monitor_report_ready(1);
        return 1;
    } else if (ret != EOK) {
        fprintf(stderr, "sssd: cannot create the pid file %s: %s\n", SSSD_PID_FILE,
                sss_strerror(ret));
        monitor_report_ready(1);
        return 1;
    }

    mt->ev = tevent_context_init(mt);
    if (mt->ev == NULL) {
        monitor_pidfile_remove();
        return 1;
    }
    sss_req_id_track(mt->ev);
    ret = monitor_setup(mt);
    if (ret != EOK) {
        fprintf(stderr, "sssd: cannot start: %s\n", sss_strerror(ret));
        monitor_pidfile_remove();
        monitor_report_ready(1);
        return 1;
    }
    DEBUG(SSSDBG_TRACE_FUNC, "Monitor started\n");
    tevent_loop_wait(mt->ev);
    monitor_exit_now(mt);
    return 0;
}
