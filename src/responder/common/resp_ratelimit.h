/*
 * Rate-limited logging of what clients cause: a malformed request, a connection refused or
 * shed, a failed accept. Each of these is worth a line at a level the default includes, but
 * a client can cause them as fast as it can write, and a log that grows by megabytes a
 * second is a denial of service of its own (issue 11). A limiter lets RESP_RATELIMIT_BURST
 * lines through per RESP_RATELIMIT_WINDOW_MS window and counts the rest; the count is
 * logged as one "suppressed" line when the window ends (from a timer, so it is written even
 * if nothing else happens), so nothing is lost silently.
 *
 * Ownership: a struct resp_ratelimit is embedded in its owner (one per socket server, so
 * one per responder); resp_ratelimit_init() ties it to a loop and a talloc parent for its
 * timer; freeing the parent cancels the timer.
 */
#ifndef RESP_RATELIMIT_H
#define RESP_RATELIMIT_H

#include <stdbool.h>
#include <stdint.h>
#include <tevent.h>
#include <talloc.h>

#define RESP_RATELIMIT_BURST 10
#define RESP_RATELIMIT_WINDOW_MS 1000

struct resp_ratelimit {
    struct tevent_context *ev;
    TALLOC_CTX *owner;              /* parent of the summary timer */
    const char *what;               /* "client errors on /var/lib/sss/pipes/nss" */
    uint64_t window_start_ms;
    unsigned int lines;             /* let through in this window */
    uint64_t suppressed;            /* held back in this window */
    uint64_t suppressed_total;      /* since start (tests, statistics) */
    uint64_t passed_total;
    struct tevent_timer *flush;     /* logs the summary at the window's end */
};

/* what is kept by reference (a string that lives as long as owner). */
void resp_ratelimit_init(struct resp_ratelimit *rl, struct tevent_context *ev,
                         TALLOC_CTX *owner, const char *what);

/* true: log the line now; false: it is counted instead. */
bool resp_ratelimit_pass(struct resp_ratelimit *rl);

/* A line at level through rl (a macro so the line keeps its function name). */
#define RESP_RL_DEBUG(rl, level, format, ...) do { \
    if (debug_enabled(level) && resp_ratelimit_pass(rl)) { \
        sss_debug_fn(__func__, level, format, ##__VA_ARGS__); \
    } \
} while (0)

#endif /* RESP_RATELIMIT_H */
