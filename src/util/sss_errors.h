/*
 * Error codes. Functions return errno_t: EOK (0), a positive errno value, or one of the
 * project's own codes below, which live in a range far above any errno so the two never
 * collide. sss_strerror() names both kinds.
 */
#ifndef SSS_ERRORS_H
#define SSS_ERRORS_H

#include <errno.h>

#ifndef HAVE_ERRNO_T
#define HAVE_ERRNO_T
typedef int errno_t;
#endif

#ifndef EOK
#define EOK 0
#endif

#define ERR_BASE 0x555D0000
#define ERR_MASK 0x0000FFFF

enum sss_errors {
    ERR_INTERNAL = ERR_BASE,     /* internal invariant broken */
    ERR_INVALID_CONFIG,          /* configuration refused */
    ERR_MISSING_CONF,            /* configuration file missing */
    ERR_CONFIG_PERMS,            /* configuration file ownership or mode refused */
    ERR_SBUS_UNKNOWN_SERVICE,    /* no connection owns the destination name */
    ERR_SBUS_NO_REPLY,           /* the peer did not answer in time */
    ERR_SBUS_ACCESS_DENIED,      /* the bus refused the peer */
    ERR_SBUS_INVALID_ARGS,       /* the message's arguments do not match its signature */
    ERR_SBUS_UNKNOWN_METHOD,     /* no handler for interface.member at that path */
    ERR_SBUS_REMOTE_ERROR,       /* the peer answered with an error we do not map */
    ERR_SBUS_DISCONNECTED,       /* the connection is closed */
    ERR_SBUS_NAME_TAKEN,         /* another connection owns the requested name */
    ERR_ALREADY_RUNNING,         /* another instance holds the pid file */
    ERR_SERVICE_FAILED,          /* a service died too often to restart */
    ERR_TERMINATED,              /* the request was cancelled by shutdown */
    ERR_AUTH_FAILED,             /* wrong credentials */
    ERR_NO_CACHED_CREDS,         /* no cached password hash for the user */
    ERR_CACHED_CREDS_EXPIRED,    /* the cached password hash is too old to be accepted */
    ERR_AUTH_DELAYED,            /* too many failed offline attempts: the user must wait */
    ERR_LAST                     /* keep last */
};

#define IS_SSSD_ERROR(err) (((err) & ~ERR_MASK) == ERR_BASE)

/* Human-readable text for an errno_t; never NULL. */
const char *sss_strerror(errno_t error);

#endif /* SSS_ERRORS_H */
