/*
 * The bottom layer every module includes: error codes, logging, probes and the small helpers
 * that talloc/tevent code keeps needing.
 */
#ifndef SSS_UTIL_H
#define SSS_UTIL_H

#include "config.h"

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <talloc.h>
#include <tevent.h>

#include "util/sss_errors.h"
#include "util/debug.h"
#include "util/probes.h"
#include "util/sss_list.h"
#include "util/sss_hash.h"

#ifndef discard_const
#define discard_const(ptr) ((void *)((uintptr_t)(ptr)))
#endif

#ifndef discard_const_p
#define discard_const_p(type, ptr) ((type *)discard_const(ptr))
#endif

/* Frees and clears a talloc pointer, so a later free or test of it is harmless. */
#ifndef talloc_zfree
#define talloc_zfree(ptr) do { talloc_free(discard_const(ptr)); ptr = NULL; } while (0)
#endif

#define SSS_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* Fails the tevent request with ret, or marks it done when ret is EOK. */
#define TEVENT_REQ_RETURN_ON_ERROR(req) do { \
    enum tevent_req_state TRROEstate; \
    uint64_t TRROEuint64; \
    errno_t TRROEerr; \
    if (tevent_req_is_error(req, &TRROEstate, &TRROEuint64)) { \
        TRROEerr = (errno_t)TRROEuint64; \
        if (TRROEstate == TEVENT_REQ_USER_ERROR) { \
            if (TRROEerr == 0) { \
                return ERR_INTERNAL; \
            } \
            return TRROEerr; \
        } \
        if (TRROEstate == TEVENT_REQ_TIMED_OUT) { \
            return ETIMEDOUT; \
        } \
        return ERR_INTERNAL; \
    } \
} while (0)

/* Ends a request started in a _send function: error or done, then posted on ev. */
static inline struct tevent_req *sss_req_post(struct tevent_req *req,
                                              struct tevent_context *ev, errno_t ret)
{
    if (ret == EOK) {
        tevent_req_done(req);
    } else {
        tevent_req_error(req, ret);
    }
    return tevent_req_post(req, ev);
}

/* Escapes a name for use in a bus name: keeps [A-Za-z0-9], writes any other byte as _%02x. */
char *sss_bus_name_escape(TALLOC_CTX *mem_ctx, const char *name);

/* "sssd.domain_<escaped>" for a domain name. */
char *sss_domain_bus_name(TALLOC_CTX *mem_ctx, const char *domain);

/* Monotonic time in microseconds. */
uint64_t sss_monotonic_usec(void);

#endif /* SSS_UTIL_H */
