/* Text for the project's own error codes; plain errno values go to strerror(). */
#include <string.h>
#include "util/sss_errors.h"

static const char *const error_texts[] = {
    [ERR_INTERNAL - ERR_BASE]             = "Internal error",
    [ERR_INVALID_CONFIG - ERR_BASE]       = "Invalid configuration",
    [ERR_MISSING_CONF - ERR_BASE]         = "Configuration file is missing",
    [ERR_CONFIG_PERMS - ERR_BASE]         = "Configuration file has unsafe ownership or mode",
    [ERR_SBUS_UNKNOWN_SERVICE - ERR_BASE] = "No such service on the bus",
    [ERR_SBUS_NO_REPLY - ERR_BASE]        = "No reply from the bus peer",
    [ERR_SBUS_ACCESS_DENIED - ERR_BASE]   = "Access to the bus denied",
    [ERR_SBUS_INVALID_ARGS - ERR_BASE]    = "Invalid arguments in bus message",
    [ERR_SBUS_UNKNOWN_METHOD - ERR_BASE]  = "Unknown bus method",
    [ERR_SBUS_REMOTE_ERROR - ERR_BASE]    = "Bus peer returned an error",
    [ERR_SBUS_DISCONNECTED - ERR_BASE]    = "Bus connection closed",
    [ERR_SBUS_NAME_TAKEN - ERR_BASE]      = "Bus name already owned",
    [ERR_ALREADY_RUNNING - ERR_BASE]      = "Another instance is already running",
    [ERR_SERVICE_FAILED - ERR_BASE]       = "Service failed too many times",
    [ERR_TERMINATED - ERR_BASE]           = "Terminated",
    [ERR_AUTH_FAILED - ERR_BASE]          = "Authentication failed",
    [ERR_NO_CACHED_CREDS - ERR_BASE]      = "No cached credentials",
    [ERR_CACHED_CREDS_EXPIRED - ERR_BASE] = "Cached credentials expired",
    [ERR_AUTH_DELAYED - ERR_BASE]         = "Authentication delayed after failed attempts",
    [ERR_LAST - ERR_BASE]                 = "Unknown project error",
};

const char *sss_strerror(errno_t error)
{
    if (IS_SSSD_ERROR(error)) {
        unsigned idx = (unsigned)(error - ERR_BASE);
        if (idx > ERR_LAST - ERR_BASE || error_texts[idx] == NULL) {
            idx = ERR_LAST - ERR_BASE;
        }
        return error_texts[idx];
    }
    return strerror(error);
}
