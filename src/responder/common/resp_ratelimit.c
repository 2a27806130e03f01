/*
 * Rate-limited logging of client-caused lines (resp_ratelimit.h): a fixed window of
 * RESP_RATELIMIT_WINDOW_MS with RESP_RATELIMIT_BURST lines, the rest counted and reported
 * in one line when the window ends.
 */
#include <inttypes.h>

#include "util/util.h"
#include "responder/common/resp_ratelimit.h"

static uint64_t rl_now_ms(void)
{
    return sss_monotonic_usec() / 1000;
}

static void rl_report(struct resp_ratelimit *rl)
{
    if (rl->suppressed == 0) {
        return;
    }
    DEBUG(SSSDBG_OP_FAILURE, "%" PRIu64 " more lines about %s suppressed in the last %d ms "
          "(at most %d a window)\n", rl->suppressed, rl->what, RESP_RATELIMIT_WINDOW_MS,
          RESP_RATELIMIT_BURST);
    rl->suppressed = 0;
}

static void rl_flush(struct tevent_context *ev, struct tevent_timer *te, struct timeval tv,
                     void *pvt)
{
    struct resp_ratelimit *rl = pvt;

    rl->flush = NULL;
    rl_report(rl);
}

void resp_ratelimit_init(struct resp_ratelimit *rl, struct tevent_context *ev,
                         TALLOC_CTX *owner, const char *what)
{
    SSS_CHECK_ARG(rl != NULL);
    memset(rl, 0, sizeof(*rl));
    rl->ev = ev;
    rl->owner = owner;
    rl->what = what != NULL ? what : "clients";
    rl->window_start_ms = rl_now_ms();
}

bool resp_ratelimit_pass(struct resp_ratelimit *rl)
{
    uint64_t now;

    SSS_CHECK_ARG(rl != NULL, true);
    now = rl_now_ms();
    if (now - rl->window_start_ms >= RESP_RATELIMIT_WINDOW_MS) {
        /* A new window: what the last one held back is reported first (normally the
         * timer did it already). */
        talloc_zfree(rl->flush);
        rl_report(rl);
        rl->window_start_ms = now;
        rl->lines = 0;
    }
    if (rl->lines < RESP_RATELIMIT_BURST) {
        rl->lines++;
        rl->passed_total++;
        return true;
    }
    rl->suppressed++;
    rl->suppressed_total++;
    if (rl->flush == NULL && rl->ev != NULL) {
        uint64_t left = rl->window_start_ms + RESP_RATELIMIT_WINDOW_MS - now;

        /* Not fatal when it cannot be armed: the next window's first line reports. */
        rl->flush = tevent_add_timer(rl->ev, rl->owner,
                                     tevent_timeval_current_ofs(left / 1000,
                                                                (left % 1000) * 1000),
                                     rl_flush, rl);
    }
    return false;
}
