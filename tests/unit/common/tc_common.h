/*
 * Helpers every unit test shares: the talloc leak baseline, a temporary directory removed
 * with everything in it, and running a tevent loop until a flag is set or a request is done
 * (bounded, so a test that would hang fails instead). Tests include this after cmocka.h.
 */
#ifndef TC_COMMON_H
#define TC_COMMON_H

#include <stdbool.h>
#include <stddef.h>
#include <talloc.h>
#include <tevent.h>

/* Loop turns tc_wait_flag()/tc_wait_req() allow before they fail the test. */
#define TC_WAIT_MAX_TURNS 20000

/*
 * Leak baseline: tc_leak_start() counts the blocks hanging off the NULL context (it turns on
 * talloc's null tracking once); tc_leak_check() fails the test, printing the talloc report,
 * when the count differs. Libraries that hang their own one-time state on the NULL context
 * (tevent's backend list at the first event context, ldb's modules) must have done so before
 * the first baseline: create and free one such context in the group setup. tc_leak_end(),
 * once at the end of main(), frees the tracking context itself, which LeakSanitizer would
 * otherwise report.
 */
struct tc_leaks {
    size_t blocks;
};
void tc_leak_start(struct tc_leaks *leaks);
void tc_leak_check(const struct tc_leaks *leaks);
void tc_leak_end(void);

/*
 * A fresh directory /tmp/<prefix>.XXXXXX (prefix: the test's name), as a string on mem_ctx;
 * tc_tmpdir_remove() deletes it and everything under it. Both fail the test on error.
 */
char *tc_tmpdir(TALLOC_CTX *mem_ctx, const char *prefix);
void tc_tmpdir_remove(const char *dir);

/* Runs the loop until *flag is true; fails the test after TC_WAIT_MAX_TURNS turns. */
void tc_wait_flag(struct tevent_context *ev, bool *flag);

/* Sets req's callback and runs the loop until req is done (req is not freed; read it with
 * its _recv). Fails the test when req is NULL or never finishes. */
void tc_wait_req(struct tevent_context *ev, struct tevent_req *req);

/* A tevent callback that sets the bool its private data points to. */
void tc_flag_done(struct tevent_req *req);

#endif /* TC_COMMON_H */
