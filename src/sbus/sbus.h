/*
 * sbus: the generic bus layer over libdbus, driven by a tevent loop. It knows nothing about
 * identities. One process holds one struct sbus_connection to the master bus; the monitor also
 * holds the struct sbus_server (sbus_server.h) that plays the bus daemon.
 *
 * Typed code (callers, emitters, handler tables, listeners, keys) is generated from
 * the XML files in src/sss_iface by src/sbus/codegen/sbus_codegen.py on top of the functions below.
 */
#ifndef SBUS_H
#define SBUS_H

#include <stdbool.h>
#include <stdint.h>
#include <dbus/dbus.h>
#include <talloc.h>
#include <tevent.h>

#include "util/sss_errors.h"

#define SBUS_DBUS_NAME  "org.freedesktop.DBus"
#define SBUS_DBUS_PATH  "/org/freedesktop/DBus"
#define SBUS_DBUS_IFACE "org.freedesktop.DBus"

/* Default time a method call may wait for its reply. */
#define SBUS_CALL_TIMEOUT_MS 30000

struct sbus_connection;

/* -------- libdbus on tevent (sbus_tevent.c) -------- */

/* Runs conn's watches, timeouts and dispatching on ev until owner is freed. */
errno_t sbus_tevent_connection_setup(TALLOC_CTX *owner, struct tevent_context *ev,
                                     DBusConnection *conn);
/* Runs server's listening watches on ev until owner is freed. */
errno_t sbus_tevent_server_setup(TALLOC_CTX *owner, struct tevent_context *ev,
                                 DBusServer *server);

/* -------- errors (sbus_errors.c) -------- */

/* Maps a D-Bus error name (and its message, for sssd.Error.Errno) to an errno_t. */
errno_t sbus_error_to_errno(const char *name, const char *message);
/* Error name for an errno_t: standard org.freedesktop.DBus.Error.* where one fits,
 * else "sssd.Error.Errno" whose message is the decimal code. */
const char *sbus_errno_to_error_name(errno_t error);
/* An error reply to call for error; NULL on out of memory. */
DBusMessage *sbus_error_reply(DBusMessage *call, errno_t error);

/* Frees msg (dbus_message_unref) when mem_ctx is freed; returns msg. Takes over the caller's
 * reference in every case: on failure (NULL) msg has been released already. */
DBusMessage *sbus_message_bind(TALLOC_CTX *mem_ctx, DBusMessage *msg);

/* -------- connection (sbus_connection.c) -------- */

/*
 * Connects to the bus at address (e.g. "unix:path=/var/lib/sss/pipes/private/sbus-master"),
 * says Hello and, if well_known_name is not NULL, requests that name (failing with
 * ERR_SBUS_NAME_TAKEN when another connection owns it). Everything is asynchronous, so a
 * process may connect to a server it runs itself on the same loop.
 */
struct tevent_req *sbus_connect_send(TALLOC_CTX *mem_ctx, struct tevent_context *ev,
                                     const char *address, const char *well_known_name);
errno_t sbus_connect_recv(TALLOC_CTX *mem_ctx, struct tevent_req *req,
                          struct sbus_connection **_conn);

typedef void (*sbus_disconnect_fn)(struct sbus_connection *conn, void *data);
/* Called once when the peer closes the connection. */
void sbus_connection_set_disconnect_cb(struct sbus_connection *conn,
                                       sbus_disconnect_fn fn, void *data);

struct tevent_context *sbus_connection_get_ev(struct sbus_connection *conn);
const char *sbus_connection_get_unique_name(struct sbus_connection *conn);
const char *sbus_connection_get_name(struct sbus_connection *conn);
DBusConnection *sbus_connection_get_dbus(struct sbus_connection *conn);

/* How many generated replies conn wrote to its socket itself instead of through libdbus
 * (sbus_reply_direct.c). */
uint64_t sbus_connection_direct_replies(struct sbus_connection *conn);
/* The same for generated method calls. */
uint64_t sbus_connection_direct_calls(struct sbus_connection *conn);
/* Of those replies and calls, how many the socket took in part, the rest then written
 * blocking (or the connection shut down when even that failed). */
uint64_t sbus_connection_direct_rests(struct sbus_connection *conn);

/* -------- incoming method calls and signals (sbus_dispatch.c) -------- */

/* One incoming message while it is being handled. Owned by the invoker that receives it. */
struct sbus_request {
    struct sbus_connection *conn;
    DBusMessage *message;       /* referenced until the request is freed */
    const char *sender;         /* unique name the master bus stamped */
    const char *destination;
    const char *path;
    const char *interface;
    const char *member;
    uint64_t req_id;            /* the id the call carries (set while traced), else 0 */
};

/* A pointer to a typed handler; generated code casts it back. */
typedef void (*sbus_fn)(void);

enum sbus_handler_type {
    SBUS_HANDLER_SYNC,
    SBUS_HANDLER_ASYNC,
};

struct sbus_method;
/*
 * Runs one incoming call: reads the arguments of sbus_req->message (bad ones: reply
 * ERR_SBUS_INVALID_ARGS), runs the handler and finishes with sbus_request_reply() or
 * sbus_request_reply_error(), which also free sbus_req. For an async handler the invoker
 * calls method->send(sbus_req, ...) with sbus_req as memory context, then method->recv.
 * Generated tables use sbus_gen_invoke (sbus_gen.h) for every method.
 */
typedef void (*sbus_method_invoker)(struct sbus_request *sbus_req,
                                    const struct sbus_method *method);

struct sbus_gen_method;

struct sbus_method {
    const char *member;             /* NULL ends a table */
    sbus_method_invoker invoker;
    const struct sbus_gen_method *gen;  /* generated methods: what sbus_gen_invoke needs */
    enum sbus_handler_type type;
    sbus_fn sync;                   /* SBUS_HANDLER_SYNC */
    sbus_fn send;                   /* SBUS_HANDLER_ASYNC */
    sbus_fn recv;                   /* SBUS_HANDLER_ASYNC */
    void *data;
};

struct sbus_interface {
    const char *name;
    const struct sbus_method *methods;  /* ends with member == NULL */
};

struct sbus_listener;
/* Generated per signal. Reads the arguments (bad ones: logged and dropped), calls the
 * handler, frees sbus_req. */
typedef void (*sbus_signal_invoker)(struct sbus_request *sbus_req,
                                    const struct sbus_listener *listener);

struct sbus_listener {
    const char *interface;          /* NULL ends a table */
    const char *member;
    const char *path;               /* NULL: any path */
    sbus_signal_invoker invoker;
    sbus_fn handler;
    void *data;
};

/* Serves iface at path. The tables must outlive conn (they are not copied), and the same
 * path may carry several interfaces. */
errno_t sbus_connection_add_interface(struct sbus_connection *conn, const char *path,
                                      const struct sbus_interface *iface);

/* Calls the listeners' handlers for matching signals and sends the bus one AddMatch
 * ("type='signal',interface='I',member='M'[,path='P']") per listener, without waiting. */
errno_t sbus_connection_add_listeners(struct sbus_connection *conn,
                                      const struct sbus_listener *listeners);

/* Sends reply (consumed; may be NULL for "empty reply") unless the caller asked for none,
 * then frees sbus_req. */
void sbus_request_reply(struct sbus_request *sbus_req, DBusMessage *reply);
/* Sends an error reply for error (see sbus_errno_to_error_name), then frees sbus_req. */
void sbus_request_reply_error(struct sbus_request *sbus_req, errno_t error);

/* -------- outgoing calls and signals (sbus_call.c, sbus_signal.c) -------- */

/*
 * Sends msg (a method call; consumed) and waits for its reply for at most timeout_ms
 * (0 = SBUS_CALL_TIMEOUT_MS). With a key, a call made while an identical one (same key) is
 * in flight is not sent again: it waits for that one's reply. Keys come from sbus_key_create.
 * Errors: ERR_SBUS_UNKNOWN_SERVICE, ERR_SBUS_NO_REPLY, ERR_SBUS_DISCONNECTED, ERR_SBUS_*,
 * or the errno the remote handler failed with.
 */
struct tevent_req *sbus_call_send(TALLOC_CTX *mem_ctx, struct sbus_connection *conn,
                                  DBusMessage *msg, const char *key, int timeout_ms);
/* The reply, referenced and released when mem_ctx is freed. */
errno_t sbus_call_recv(TALLOC_CTX *mem_ctx, struct tevent_req *req, DBusMessage **_reply);

/* How many distinct calls are on the wire now (chained waiters are not counted). */
unsigned int sbus_call_in_flight(struct sbus_connection *conn);

/* Sends a signal (consumed). */
errno_t sbus_emit_signal(struct sbus_connection *conn, DBusMessage *msg);

/* -------- tracing (sbus_probe.c) -------- */

/*
 * The request id a method call carries, for the probes: by convention (sssd's req_id) the
 * value of its last argument when that argument is a uint64; 0 for any other message.
 * Walks the arguments: call it only while a tracer is attached.
 */
uint64_t sbus_message_req_id(DBusMessage *msg);

/* "interface.member" of msg written into buf (truncated to size); returns buf. */
const char *sbus_message_member_text(DBusMessage *msg, char *buf, size_t size);
/* The serial the route probes report: a call's or signal's own, the answered call's for a
 * return or an error (so a call and its answer share it). */
unsigned int sbus_message_trace_serial(DBusMessage *msg);

/* Room for any "interface.member". */
#define SBUS_MEMBER_TEXT_MAX (2 * DBUS_MAXIMUM_NAME_LENGTH + 2)

/* -------- request keys (sbus_key.c) -------- */

/*
 * "<uid>:method:<destination>:<interface>.<member>:<path>[:<args>]" where uid is the
 * caller's effective uid and args (already joined with ':') may be NULL. Identical calls
 * to two destinations get two keys, so they are never chained together.
 */
char *sbus_key_create(TALLOC_CTX *mem_ctx, const char *destination, const char *interface,
                      const char *member, const char *path, const char *args);

#endif /* SBUS_H */
