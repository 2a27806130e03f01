/* Mapping between errno_t values and D-Bus error names, both directions. */
#include <stdio.h>
#include <stdlib.h>

#include "sbus/sbus_private.h"

#define SBUS_ERROR_ERRNO "sssd.Error.Errno"

static const struct {
    errno_t error;
    const char *name;
} sbus_error_map[] = {
    { ERR_SBUS_UNKNOWN_SERVICE, DBUS_ERROR_SERVICE_UNKNOWN },
    { ERR_SBUS_UNKNOWN_SERVICE, DBUS_ERROR_NAME_HAS_NO_OWNER },
    { ERR_SBUS_NO_REPLY,        DBUS_ERROR_NO_REPLY },
    { ERR_SBUS_NO_REPLY,        DBUS_ERROR_TIMEOUT },
    { ERR_SBUS_ACCESS_DENIED,   DBUS_ERROR_ACCESS_DENIED },
    { ERR_SBUS_INVALID_ARGS,    DBUS_ERROR_INVALID_ARGS },
    { ERR_SBUS_UNKNOWN_METHOD,  DBUS_ERROR_UNKNOWN_METHOD },
    { ERR_SBUS_UNKNOWN_METHOD,  DBUS_ERROR_UNKNOWN_INTERFACE },
    { ERR_SBUS_UNKNOWN_METHOD,  DBUS_ERROR_UNKNOWN_OBJECT },
    { ERR_SBUS_DISCONNECTED,    DBUS_ERROR_DISCONNECTED },
    { ENOMEM,                   DBUS_ERROR_NO_MEMORY },
};

errno_t sbus_error_to_errno(const char *name, const char *message)
{
    size_t i;

    if (name == NULL) {
        return ERR_INTERNAL;
    }
    if (strcmp(name, SBUS_ERROR_ERRNO) == 0 && message != NULL) {
        char *end;
        long val = strtol(message, &end, 10);
        if (end != message && val > 0 && val <= INT32_MAX) {
            return (errno_t)val;
        }
        return ERR_SBUS_REMOTE_ERROR;
    }
    for (i = 0; i < SSS_ARRAY_SIZE(sbus_error_map); i++) {
        if (strcmp(name, sbus_error_map[i].name) == 0) {
            return sbus_error_map[i].error;
        }
    }
    return ERR_SBUS_REMOTE_ERROR;
}

const char *sbus_errno_to_error_name(errno_t error)
{
    size_t i;

    for (i = 0; i < SSS_ARRAY_SIZE(sbus_error_map); i++) {
        if (sbus_error_map[i].error == error) {
            return sbus_error_map[i].name;
        }
    }
    return SBUS_ERROR_ERRNO;
}

DBusMessage *sbus_error_reply(DBusMessage *call, errno_t error)
{
    const char *name = sbus_errno_to_error_name(error);
    char text[256];

    SSS_CHECK_ARG(call != NULL, NULL);
    if (strcmp(name, SBUS_ERROR_ERRNO) == 0) {
        /* The code first, so the other side can map it back; the text after it is for people. */
        snprintf(text, sizeof(text), "%d: %s", error, sss_strerror(error));
    } else {
        snprintf(text, sizeof(text), "%s", sss_strerror(error));
    }
    return dbus_message_new_error(call, name, text);
}

static int sbus_bound_message_destructor(DBusMessage **holder)
{
    dbus_message_unref(*holder);
    return 0;
}

DBusMessage *sbus_message_bind(TALLOC_CTX *mem_ctx, DBusMessage *msg)
{
    DBusMessage **holder;

    if (msg == NULL) {
        return NULL;
    }
    holder = talloc(mem_ctx, DBusMessage *);
    if (holder == NULL) {
        dbus_message_unref(msg);
        return NULL;
    }
    *holder = msg;
    talloc_set_destructor(holder, sbus_bound_message_destructor);
    return msg;
}
