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

#endif /* SBUS_PRIVATE_H */
