/*
 * The argument check of the responders' public entry points, in the spirit of sd-bus's
 * assert_return: when cond is false the caller broke the function's contract; the check
 * that failed is logged (the log line names the function) and the function returns what
 * follows cond (nothing, in a void function). Only for what a caller can get wrong; the
 * responders' own invariants are assert()ed, and what comes from clients or the cache is
 * validated as data, never with this.
 */
#ifndef RESP_CHECK_H
#define RESP_CHECK_H

#include "util/util.h"

#define RESP_CHECK_ARG(cond, ...) do { \
    if (__builtin_expect(!(cond), 0)) { \
        DEBUG(SSSDBG_CRIT_FAILURE, "invalid argument: %s\n", #cond); \
        return __VA_ARGS__; \
    } \
} while (0)

#endif /* RESP_CHECK_H */
