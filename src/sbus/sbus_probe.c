/*
 * What the sbus probes say about a message, computed only while a tracer is attached: the
 * request id a method call carries, and its "interface.member".
 */
#include <stdio.h>

#include "sbus/sbus_private.h"

uint64_t sbus_message_req_id(DBusMessage *msg)
{
    DBusMessageIter iter;
    dbus_uint64_t value = 0;
    int type;

    if (msg == NULL || dbus_message_get_type(msg) != DBUS_MESSAGE_TYPE_METHOD_CALL
            || !dbus_message_iter_init(msg, &iter)) {
        return 0;
    }
    /* Only the last top-level argument counts (a trailing "at" is an array, not an id). */
    while (dbus_message_iter_has_next(&iter)) {
        dbus_message_iter_next(&iter);
    }
    type = dbus_message_iter_get_arg_type(&iter);
    if (type != DBUS_TYPE_UINT64) {
        return 0;
    }
    dbus_message_iter_get_basic(&iter, &value);
    return value;
}

const char *sbus_message_member_text(DBusMessage *msg, char *buf, size_t size)
{
    const char *interface = msg != NULL ? dbus_message_get_interface(msg) : NULL;
    const char *member = msg != NULL ? dbus_message_get_member(msg) : NULL;

    if (size == 0) {
        return "";
    }
    snprintf(buf, size, "%s%s%s", interface != NULL ? interface : "",
             interface != NULL && member != NULL ? "." : "", member != NULL ? member : "");
    return buf;
}

unsigned int sbus_message_trace_serial(DBusMessage *msg)
{
    switch (dbus_message_get_type(msg)) {
    case DBUS_MESSAGE_TYPE_METHOD_RETURN:
    case DBUS_MESSAGE_TYPE_ERROR:
        return dbus_message_get_reply_serial(msg);
    default:
        return dbus_message_get_serial(msg);
    }
}
