/* Log line formatting and the stderr / per-process file sinks. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>
#include <tevent.h>

#include "util/debug.h"

int debug_level = SSSDBG_DEFAULT;
uint64_t sss_debug_req_id;

static const char *debug_prg_name = "sssd";
static uint32_t req_id_pid;         /* cached: services are exec'd, never forked copies */
static uint32_t req_id_counter;
static enum sss_logger debug_logger = SSS_LOGGER_STDERR;
static FILE *debug_file;
static char debug_file_path[PATH_MAX];

uint64_t sss_new_req_id(void)
{
    if (req_id_pid == 0) {
        req_id_pid = (uint32_t)getpid();
    }
    if (++req_id_counter == 0) {
        req_id_counter = 1;
    }
    return ((uint64_t)req_id_pid << 32) | req_id_counter;
}

static void req_id_timer_trace(struct tevent_timer *te, enum tevent_event_trace_point point,
                               void *pvt)
{
    if (point == TEVENT_EVENT_TRACE_ATTACH) {
        tevent_timer_set_tag(te, sss_debug_req_id);
    } else if (point == TEVENT_EVENT_TRACE_BEFORE_HANDLER) {
        sss_debug_req_id = tevent_timer_get_tag(te);
    }
}

static void req_id_immediate_trace(struct tevent_immediate *im,
                                   enum tevent_event_trace_point point, void *pvt)
{
    if (point == TEVENT_EVENT_TRACE_ATTACH) {
        tevent_immediate_set_tag(im, sss_debug_req_id);
    } else if (point == TEVENT_EVENT_TRACE_BEFORE_HANDLER) {
        sss_debug_req_id = tevent_immediate_get_tag(im);
    }
}

static void req_id_fd_trace(struct tevent_fd *fde, enum tevent_event_trace_point point,
                            void *pvt)
{
    if (point == TEVENT_EVENT_TRACE_BEFORE_HANDLER) {
        sss_debug_req_id = 0;
    }
}

static void req_id_signal_trace(struct tevent_signal *se,
                                enum tevent_event_trace_point point, void *pvt)
{
    if (point == TEVENT_EVENT_TRACE_BEFORE_HANDLER) {
        sss_debug_req_id = 0;
    }
}

void sss_req_id_track(struct tevent_context *ev)
{
    tevent_set_trace_timer_callback(ev, req_id_timer_trace, NULL);
    tevent_set_trace_immediate_callback(ev, req_id_immediate_trace, NULL);
    tevent_set_trace_fd_callback(ev, req_id_fd_trace, NULL);
    tevent_set_trace_signal_callback(ev, req_id_signal_trace, NULL);
}

int debug_convert_level(int level)
{
    static const int levels[] = {
        0x0010, 0x0030, 0x0070, 0x00F0, 0x01F0, 0x03F0, 0x07F0, 0x27F0, 0x37F0, 0x17FF0,
    };

    if (level < 0) {
        return SSSDBG_DEFAULT;
    }
    if (level < (int)(sizeof(levels) / sizeof(levels[0]))) {
        return levels[level];
    }
    /* Masks always include the failure bits: without them nothing useful is logged. */
    return level | SSSDBG_FATAL_FAILURE;
}

errno_t debug_parse_logger(const char *str, enum sss_logger *_logger)
{
    if (str == NULL) {
        return EINVAL;
    }
    if (strcmp(str, "stderr") == 0) {
        *_logger = SSS_LOGGER_STDERR;
        return EOK;
    }
    if (strcmp(str, "files") == 0) {
        *_logger = SSS_LOGGER_FILES;
        return EOK;
    }
    return EINVAL;
}

static errno_t debug_open_file(void)
{
    int fd;
    FILE *f;

    fd = open(debug_file_path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
    if (fd < 0) {
        return errno;
    }
    f = fdopen(fd, "a");
    if (f == NULL) {
        int ret = errno;
        close(fd);
        return ret;
    }
    setvbuf(f, NULL, _IOLBF, 0);
    if (debug_file != NULL) {
        fclose(debug_file);
    }
    debug_file = f;
    return EOK;
}

errno_t debug_init(const char *process_name, int level, enum sss_logger logger,
                   const char *log_dir)
{
    int n;

    if (process_name != NULL) {
        debug_prg_name = process_name;
    }
    debug_level = debug_convert_level(level);
    debug_logger = logger;

    if (logger != SSS_LOGGER_FILES) {
        return EOK;
    }
    n = snprintf(debug_file_path, sizeof(debug_file_path), "%s/%s.log",
                 log_dir ? log_dir : SSSD_LOG_PATH, debug_prg_name);
    if (n < 0 || (size_t)n >= sizeof(debug_file_path)) {
        return ENAMETOOLONG;
    }
    return debug_open_file();
}

errno_t debug_reopen(void)
{
    if (debug_logger != SSS_LOGGER_FILES) {
        return EOK;
    }
    return debug_open_file();
}

void debug_close(void)
{
    if (debug_file != NULL) {
        fclose(debug_file);
        debug_file = NULL;
    }
}

bool debug_enabled(int level)
{
    return (debug_level & level) != 0;
}

void sss_debug_fn(const char *function, int level, const char *format, ...)
{
    char line[4096];
    char stamp[32];
    struct timeval tv;
    struct tm tm;
    size_t len;
    int n;
    va_list ap;
    FILE *out = debug_logger == SSS_LOGGER_FILES && debug_file ? debug_file : stderr;

    gettimeofday(&tv, NULL);
    localtime_r(&tv.tv_sec, &tm);
    strftime(stamp, sizeof(stamp), "%Y-%m-%d %H:%M:%S", &tm);

    n = snprintf(line, sizeof(line), "(%s.%06ld): [%s] [%d] [RID#%llu] [%s] (%#.4x): ",
                 stamp, (long)tv.tv_usec, debug_prg_name, (int)getpid(),
                 (unsigned long long)sss_debug_req_id, function, level);
    if (n < 0) {
        return;
    }
    len = (size_t)n < sizeof(line) ? (size_t)n : sizeof(line) - 1;

    va_start(ap, format);
    n = vsnprintf(line + len, sizeof(line) - len, format, ap);
    va_end(ap);
    if (n > 0) {
        len += (size_t)n < sizeof(line) - len ? (size_t)n : sizeof(line) - len - 1;
    }
    /* One write per line, newline-terminated, so concurrent processes do not interleave. */
    if (len > 0 && line[len - 1] != '\n') {
        if (len < sizeof(line) - 1) {
            line[len++] = '\n';
        } else {
            line[len - 1] = '\n';
        }
    }
    fwrite(line, 1, len, out);
    fflush(out);
}

bool sss_arg_invalid(const char *func, const char *cond)
{
    if (debug_enabled(SSSDBG_CRIT_FAILURE)) {
        sss_debug_fn(func, SSSDBG_CRIT_FAILURE, "invalid argument: %s does not hold\n", cond);
    }
    return false;
}
