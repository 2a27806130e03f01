/*
 * Logging. Levels are SSSD's bit mask (debug_level 0-9 is translated to a mask; larger values
 * are taken as a mask). Each line carries the time, the process name and pid, the request id
 * of the request being served (0 outside requests) and the function.
 * Output goes to stderr or to one file per process under the log directory.
 */
#ifndef SSS_DEBUG_H
#define SSS_DEBUG_H

#include <stdbool.h>
#include <stdint.h>
#include "util/sss_errors.h"

#define SSSDBG_FATAL_FAILURE  0x0010
#define SSSDBG_CRIT_FAILURE   0x0020
#define SSSDBG_OP_FAILURE     0x0040
#define SSSDBG_MINOR_FAILURE  0x0080
#define SSSDBG_CONF_SETTINGS  0x0100
#define SSSDBG_FUNC_DATA      0x0200
#define SSSDBG_TRACE_FUNC     0x0400
#define SSSDBG_TRACE_LIBS     0x1000
#define SSSDBG_TRACE_INTERNAL 0x2000
#define SSSDBG_TRACE_ALL      0x4000
#define SSSDBG_BE_FO          0x8000
#define SSSDBG_PERF_STAT      0x20000
#define SSSDBG_IMPORTANT_INFO SSSDBG_OP_FAILURE
#define SSSDBG_DEFAULT        (SSSDBG_FATAL_FAILURE | SSSDBG_CRIT_FAILURE | SSSDBG_OP_FAILURE)
#define SSSDBG_UNRESOLVED     -1

enum sss_logger {
    SSS_LOGGER_STDERR,
    SSS_LOGGER_FILES,
};

extern int debug_level;
/* Request id of the request this process is serving now; 0 outside any request. */
extern uint64_t sss_debug_req_id;

/*
 * A new request id, unique across the whole star: the pid of this process in the high 32
 * bits, a per-process counter (never 0) in the low 32. Every place that starts a request
 * (a client request in a responder, an internal request of a back-end) takes one here;
 * a request started on behalf of another one (a back-end serving a responder's call)
 * adopts the caller's id instead.
 */
uint64_t sss_new_req_id(void);

/*
 * SSS_REQ_ID_SCOPE(id): from here to the end of the enclosing block, this process serves
 * request id; on every way out of the block (return, goto out of it, end of scope) the id
 * that was current before comes back. Replaces a saved copy restored by hand at each exit.
 */
static inline uint64_t sss_req_id_enter(uint64_t id)
{
    uint64_t saved = sss_debug_req_id;

    sss_debug_req_id = id;
    return saved;
}

static inline void sss_req_id_leave(const uint64_t *saved)
{
    sss_debug_req_id = *saved;
}

#define SSS_REQ_ID_CONCAT_(a, b) a##b
#define SSS_REQ_ID_CONCAT(a, b) SSS_REQ_ID_CONCAT_(a, b)
#define SSS_REQ_ID_SCOPE(id) \
    const uint64_t SSS_REQ_ID_CONCAT(sss_req_id_saved_, __LINE__) \
        __attribute__((cleanup(sss_req_id_leave), unused)) = sss_req_id_enter(id)

/*
 * Makes sss_debug_req_id follow the event loop of ev: a timer or immediate event runs
 * under the id that was current when it was scheduled (so a deferred tevent callback
 * resumes the request that scheduled it), fd and signal handlers start under 0 (they serve
 * whoever sent the data: the code reading it sets the id of what it read).
 */
struct tevent_context;
void sss_req_id_track(struct tevent_context *ev);

/* Turns a configured debug_level (0-9 or a bit mask) into a mask. */
int debug_convert_level(int level);

/* Parses "stderr" or "files"; EINVAL for anything else. */
errno_t debug_parse_logger(const char *str, enum sss_logger *_logger);

/* Sets the process name and sink. With SSS_LOGGER_FILES the file is
 * <log dir>/<name>.log; log_dir NULL means the built-in log directory. */
errno_t debug_init(const char *process_name, int level, enum sss_logger logger,
                   const char *log_dir);

/* Reopens the log file (log rotation on SIGHUP). No-op for stderr. */
errno_t debug_reopen(void);

void debug_close(void);

bool debug_enabled(int level);

void sss_debug_fn(const char *function, int level, const char *format, ...)
    __attribute__((format(printf, 3, 4)));

#define DEBUG(level, format, ...) do { \
    if (debug_enabled(level)) { \
        sss_debug_fn(__func__, level, format, ##__VA_ARGS__); \
    } \
} while (0)

/*
 * Argument checks at public entry points, in the spirit of sd-bus's assert_return: what a
 * caller can get wrong is checked and logged (the line names the function and the check);
 * internal invariants are assert()ed instead.
 *   SSS_CHECK_ARG(cond, ret)   returns ret (nothing, in a void function) when cond is false
 *   SSS_ARG_VALID(cond)        an expression: true, or false after logging, for checks that
 *                              must end a request rather than return
 */
#define SSS_CHECK_ARG(cond, ...) do { \
    if (__builtin_expect(!(cond), 0)) { \
        sss_arg_invalid(__func__, #cond); \
        return __VA_ARGS__; \
    } \
} while (0)

#define SSS_ARG_VALID(cond) \
    (__builtin_expect(!!(cond), 1) ? true : sss_arg_invalid(__func__, #cond))

/* Logs a failed argument check of func; returns false. */
bool sss_arg_invalid(const char *func, const char *cond);

#endif /* SSS_DEBUG_H */
