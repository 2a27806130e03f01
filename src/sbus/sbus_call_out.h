/*
 * A method call handed to sbus_call.c while it is being made (sbus_call_send_out): what
 * sbus_call_send() does with a built message, for a call whose message is made only when
 * it goes on the wire (generated callers, sbus_gen.c). Own header so that the test double
 * of the transport (tests/unit/sss_iface/sbus_reply_capture.c) can stand in for it.
 */
#ifndef SBUS_CALL_OUT_H
#define SBUS_CALL_OUT_H

#include <stdbool.h>
#include <dbus/dbus.h>
#include <talloc.h>
#include <tevent.h>

#include "util/sss_errors.h"

struct sbus_connection;

/*
 * A method call for sbus_call_send_out(), put on the wire only when it is not chained onto
 * one in flight: written as composed by direct (NULL, or false: nothing written), else
 * made by build (a reference, or NULL with *_error set) and sent through libdbus.
 * error != EOK: the request fails with it, nothing sent. The names are for logs and probes.
 */
struct sbus_call_out {
    errno_t error;
    const char *destination;
    const char *interface;
    const char *member;
    bool (*direct)(struct sbus_connection *conn, void *pvt, dbus_uint32_t *_serial);
    DBusMessage *(*build)(void *pvt, errno_t *_error);
    void *pvt;
};

/* sbus_call_send() of a call described by out (used while the call is made, not kept):
 * the same request, chaining, timeout, probes and errors. */
struct tevent_req *sbus_call_send_out(TALLOC_CTX *mem_ctx, struct sbus_connection *conn,
                                      const struct sbus_call_out *out, const char *key,
                                      int timeout_ms);

#endif /* SBUS_CALL_OUT_H */
