/*
 * Internals of src/sbus: the argument checks every public entry point uses, and the client
 * half's connection, shared by sbus_connection.c, sbus_dispatch.c, sbus_call.c and
 * sbus_signal.c. Nothing outside src/sbus includes this.
 */
#ifndef SBUS_PRIVATE_H
#define SBUS_PRIVATE_H

#include <assert.h>

#include "util/util.h"
#include "util/sss_list.h"
#include "sbus/sbus.h"
#include "sbus/sbus_call_out.h"

/* One interface served at one object path. */
struct sbus_iface_entry {
    struct sss_list link;       /* in conn->ifaces */
    const char *path;
    const struct sbus_interface *iface;
};

/* One signal listener. */
struct sbus_listener_entry {
    struct sss_list link;       /* in conn->listeners */
    const struct sbus_listener *listener;
};

struct sbus_pending;

struct sbus_connection {
    struct tevent_context *ev;
    DBusConnection *dbus;
    char *address;
    char *unique_name;          /* from Hello */
    char *name;                 /* well-known name, or NULL */

    struct sss_list ifaces;     /* struct sbus_iface_entry, in registration order */
    struct sss_list listeners;  /* struct sbus_listener_entry, in registration order */
    struct sss_list pending;    /* struct sbus_pending: calls on the wire, newest first */
    unsigned int in_flight;     /* how many entries pending has */

    sbus_disconnect_fn disconnect_fn;
    void *disconnect_data;
    struct tevent_immediate *disconnect_im;
    bool disconnected;
    bool *freed;                /* set while delivering a signal, to notice our own end */
    uint64_t direct_replies;    /* replies written by sbus_reply_direct() */
    uint64_t direct_calls;      /* calls written by sbus_call_direct() */
    uint64_t direct_rests;      /* of those, written in part and finished blocking */
};

/* Filter installed on every connection: routes incoming calls and signals. */
DBusHandlerResult sbus_dispatch_filter(DBusConnection *dbus, DBusMessage *msg, void *data);

/* Called by the dispatcher when libdbus reports the connection closed. */
void sbus_connection_mark_disconnected(struct sbus_connection *conn);

/* Fails every call still waiting on conn with error (used on teardown). */
void sbus_call_fail_all(struct sbus_connection *conn, errno_t error);
/* Answers the call msg (a method return or error) replies to; false when no call of conn's
 * waits for it. */
bool sbus_call_reply(struct sbus_connection *conn, DBusMessage *msg);

/* Writes a method return composed in wire form (sbus_wire_compose) to conn's socket
 * when libdbus has nothing queued on it (sbus_reply_direct.c): true when it is out (or the
 * connection was ended over it); false when nothing was written: send it through
 * libdbus. */
bool sbus_reply_direct(struct sbus_connection *conn, const uint8_t *data, size_t len);

/* The same for a method call composed in wire form (its serial in its bytes). */
bool sbus_call_direct(struct sbus_connection *conn, const uint8_t *data, size_t len);

/* Around a generated method's write_out (sbus_gen_invoke.c): its sbus_gen_new_reply() may
 * write the reply to conn directly (sbus_reply_direct), leaving *_reply NULL; _end says
 * whether it did. */
void sbus_gen_direct_begin(struct sbus_connection *conn);
bool sbus_gen_direct_end(void);

/* The reply of sbus_req went out already (sbus_reply_direct): what sbus_request_reply()
 * does after sending, done. */
void sbus_request_replied(struct sbus_request *sbus_req);

#endif /* SBUS_PRIVATE_H */
