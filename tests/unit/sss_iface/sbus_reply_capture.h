/*
 * A test double of the sbus transport for unit tests of generated code: the functions of
 * src/sbus/sbus.h that generated code calls to reply, call and emit, recording what they are
 * given instead of talking to a bus. The real transport is tested end to end elsewhere.
 */
#ifndef SBUS_REPLY_CAPTURE_H
#define SBUS_REPLY_CAPTURE_H

#include <dbus/dbus.h>
#include <talloc.h>
#include <tevent.h>

#include "util/util.h"
#include "sbus/sbus.h"

/* Makes the reply of a captured sbus_call_send(): a method return, an error message, or NULL
 * with *_error set. */
typedef DBusMessage *(*sbus_capture_answer_fn)(DBusMessage *call, errno_t *_error, void *data);

struct sbus_capture {
    /* Server side: sbus_request_reply() and sbus_request_reply_error(). */
    unsigned int replies;       /* how many times either was called */
    DBusMessage *reply;         /* last reply; for an error, the error message sbus would send */
    errno_t reply_error;        /* last error given to sbus_request_reply_error, EOK after a reply */

    /* Client side: sbus_call_send() and sbus_emit_signal(). */
    unsigned int calls;
    unsigned int signals;
    DBusMessage *sent;          /* last message given to either */
    char *key;                  /* key of the last call (NULL for none) */
    sbus_capture_answer_fn answer;  /* NULL: every call fails with ERR_SBUS_NO_REPLY */
    void *answer_data;
    errno_t emit_error;         /* what sbus_emit_signal() returns */
};

extern struct sbus_capture sbus_capture;

/* A connection whose sbus_connection_get_ev() is ev. */
struct sbus_connection *sbus_capture_connection(TALLOC_CTX *mem_ctx, struct tevent_context *ev);

/* Drops what was captured (messages are unreferenced) and clears the settings. */
void sbus_capture_reset(void);

/* Takes the last reply out of the capture (the caller owns the reference). */
DBusMessage *sbus_capture_take_reply(void);

/* An incoming request for msg (referenced) from sender, allocated on mem_ctx, as the real
 * dispatcher would hand it to an invoker. msg gets a serial if it has none. */
struct sbus_request *sbus_capture_request(TALLOC_CTX *mem_ctx, struct sbus_connection *conn,
                                          DBusMessage *msg, const char *sender);

/* sbus_private.h's, stood in for here (that header defines the real connection). */
bool sbus_reply_direct(struct sbus_connection *conn, const uint8_t *data, size_t len);
void sbus_request_replied(struct sbus_request *sbus_req);

#endif /* SBUS_REPLY_CAPTURE_H */
