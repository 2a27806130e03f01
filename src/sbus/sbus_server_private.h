/*
 * Internals of the master bus (sbus_server.h), shared by its files:
 *   sbus_server.c        listening, accepting, peer and server lifetime, and the entry
 *                        point of every message a peer sends (sbus_server_message())
 *   sbus_server_io.c     a peer's socket: authentication, reading and framing, the
 *                        output queue and vectored writes
 *   sbus_server_auth.c   EXTERNAL authentication (sbus_server_auth.h)
 *   sbus_server_msg.c    a message in flight: forwarding with the sender stamped, the
 *                        bus's own messages, libdbus's view of a message when needed
 *   sbus_server_bus.c    the org.freedesktop.DBus methods the server answers itself
 *   sbus_server_route.c  bus names, match rules, routing and the server's own signals
 *   sbus_server_pending.c  calls a peer still owes an answer to
 *   sbus_wire*.c         reading the wire format (sbus_wire.h)
 * Messages from peers are never turned into libdbus objects on the way through: the
 * header is read in place, the bytes go out as they came with the SENDER field spliced in.
 * Only what the bus must understand (calls to org.freedesktop.DBus, signals matched against
 * rules, traced messages) is demarshalled, and the bus's own messages are built with libdbus.
 * Tables are sss_hash_table (util/sss_hash.h), lists sss_list (util/sss_list.h).
 *
 * Ownership: the server owns its peers; a peer owns its names, match entries, pending
 * entries and queued output, whose destructors take them out of the server's tables, so
 * freeing a peer forgets it entirely. A peer is never freed while one of its messages is
 * being handled: a failing peer is only marked, and freed from an immediate.
 */
#ifndef SBUS_SERVER_PRIVATE_H
#define SBUS_SERVER_PRIVATE_H

#include <sys/types.h>
#include <sys/uio.h>
#include <dbus/dbus.h>

#include "util/util.h"
#include "util/sss_hash.h"
#include "util/sss_list.h"
#include "sbus/sbus.h"
#include "sbus/sbus_private.h"
#include "sbus/sbus_server.h"
#include "sbus/sbus_server_auth.h"
#include "sbus/sbus_match.h"
#include "sbus/sbus_wire.h"

/* Most rules one peer may hold (dbus-daemon's system bus uses a limit of this order). */
#define SBUS_SERVER_MAX_MATCHES_PER_PEER 1024
/* Most bytes waiting to be written to one peer: past it, calls to that peer are refused
 * with LimitsExceeded and other messages for it are dropped. */
#define SBUS_SERVER_MAX_QUEUED (64u * 1024u * 1024u)
/* A peer must have authenticated within this time. */
#define SBUS_SERVER_AUTH_TIMEOUT_SEC 30

/* Interfaces of a peer whose call counters it keeps at hand (a service has a few). */
#define SBUS_SERVER_CALL_COUNTERS 8

struct sss_metric;

/* sssd_bus_calls_total{destination,interface} of one interface of a callee. */
struct sbus_server_call_counter {
    char *interface;                /* NULL: slot free */
    struct sss_metric *metric;
};

struct sbus_peer;
struct sbus_server_name;
struct sbus_server_match;
struct sbus_server_slot;
struct sbus_server_pending;

/* -------- a message in flight (sbus_server_msg.c) -------- */

struct sbus_server_msg {
    const uint8_t *data;            /* the whole message as it was sent */
    size_t size;
    struct sbus_wire_header h;
    struct sbus_peer *sender;       /* NULL: the bus's own (data is then marshalled) */
    bool stamped;                   /* stamp is ready */
    struct sbus_wire_stamp stamp;   /* data with the sender's unique name as SENDER */
    DBusMessage *dbus;              /* libdbus's view, made on demand */
    char *marshalled;               /* the bus's own: data, from dbus_message_marshal() */
};

/* Starts m on the bytes a registered or unregistered peer sent (parsed into h). */
void sbus_server_msg_init(struct sbus_server_msg *m, struct sbus_peer *sender,
                          const uint8_t *data, size_t size);

/* Makes m the bus's own message msg (a reference is taken): gives it the bus's next serial
 * and marshals it. Errors: ENOMEM, EINVAL (libdbus built something we cannot read). */
errno_t sbus_server_msg_from_dbus(struct sbus_server *server, DBusMessage *msg,
                                  struct sbus_server_msg *m);

/* Releases what m holds. */
void sbus_server_msg_done(struct sbus_server_msg *m);

/* libdbus's view of m, the sender stamped; NULL when out of memory. Owned by m. */
DBusMessage *sbus_server_msg_dbus(struct sbus_server_msg *m);

/* m's string header field, or NULL. */
#define SBUS_MSG_FIELD(m, field) sbus_wire_get((m)->data, (m)->h.field)

/* Sends m to peer: stamped as coming from its sender, or as built for the bus's own.
 * False when it was dropped (peer gone, over its queue limit, out of memory). */
bool sbus_server_forward(struct sbus_peer *peer, struct sbus_server_msg *m);

/* Sends the bus's own message msg (not consumed) to peer. */
bool sbus_server_send_dbus(struct sbus_peer *peer, DBusMessage *msg);

/* Answers m (a call from peer) with the error name/text from the bus, unless m wants no
 * reply. */
void sbus_server_reply_error_msg(struct sbus_peer *peer, struct sbus_server_msg *m,
                                 const char *name, const char *text);

/* -------- a peer's socket (sbus_server_io.c) -------- */

/* Starts reading (authentication first) and writing on peer->fd. Errors: ENOMEM. */
errno_t sbus_peer_io_start(struct sbus_peer *peer);

/* Writes iov (size bytes in all) to peer, queueing what the socket does not take now.
 * False when dropped: peer closing, over SBUS_SERVER_MAX_QUEUED, or out of memory. */
bool sbus_peer_write(struct sbus_peer *peer, const struct iovec *iov, int iovcnt,
                     size_t size);

/* The peer misbehaved or its connection failed: stop its I/O now; it is forgotten and
 * freed from an immediate (never while one of its messages is being handled). */
void sbus_peer_close(struct sbus_peer *peer, const char *why);

/* Called by the reader for each complete message peer sent (sbus_server.c). */
void sbus_server_message(struct sbus_peer *peer, const uint8_t *data, size_t size);

/* -------- calls awaiting an answer (sbus_server_pending.c) -------- */

/* Entries are keyed by integers: the caller's unique name number (N of ":1.N", never
 * reused) and the call's serial; no text is built, copied or hashed per call. */

/* callee was sent a method call from the caller numbered caller_id that expects a reply;
 * req_id is the request id it carries (0 when untraced). */
void sbus_server_pending_add(struct sbus_peer *callee, uint64_t caller_id,
                             dbus_uint32_t serial, uint64_t req_id);
/* The req_id recorded for caller_id's call reply_serial that callee owes; 0 when unknown. */
uint64_t sbus_server_pending_req_id(struct sbus_peer *callee, uint64_t caller_id,
                                    dbus_uint32_t reply_serial);
/* callee answered caller_id's call reply_serial. */
void sbus_server_pending_answered(struct sbus_peer *callee, uint64_t caller_id,
                                  dbus_uint32_t reply_serial);
/* callee is going away: answer every call it still owes with NoReply. */
void sbus_server_pending_fail_all(struct sbus_peer *callee);

/* The message the server is routing, while a tracer is attached (sbus_route_* probes). */
struct sbus_server_trace {
    struct sbus_server_msg *msg;
    uint64_t req_id;
    const char *sender;
    char member[SBUS_MEMBER_TEXT_MAX];
    unsigned int sent;              /* route_sent fired for msg so far */
};

struct sbus_server {
    struct tevent_context *ev;
    int listen_fd;
    struct tevent_fd *listen_fde;
    char *socket_path;
    char *address;
    char id[SBUS_AUTH_GUID_LEN + 1];    /* GUID in OK and GetId: fixed for the server's life */
    uid_t allowed_uid;

    struct sss_list peers;          /* struct sbus_peer: every accepted connection not yet
                                     * freed, oldest first */
    unsigned int peer_count;        /* of those, the ones still connected */
    uint64_t next_unique;           /* N of the next ":1.N" */
    uint64_t delivery;              /* stamp of the broadcast in progress */
    dbus_uint32_t serial;           /* of the bus's last own message */
    struct sbus_server_trace *trace;    /* routing in progress while traced, else NULL */

    struct sss_hash_table *names;       /* bus name -> struct sbus_server_name */
    struct sss_hash_table *match_index; /* "interface.member" -> struct sbus_server_slot */
    struct sbus_server_slot *match_any; /* rules lacking interface or member */
};

/* Output not yet taken by the socket. */
struct sbus_peer_chunk {
    struct sss_list link;           /* in peer->out */
    size_t len;
    size_t off;                     /* bytes of data already written */
    uint8_t data[];
};

struct sbus_peer {
    struct sbus_server *server;
    struct sss_list link;           /* in server->peers */
    int fd;
    struct tevent_fd *fde;
    uid_t uid;                      /* from the socket (SO_PEERCRED) */
    pid_t pid;
    struct sbus_auth *auth;         /* until BEGIN, then NULL */
    struct tevent_timer *auth_timer;
    struct tevent_immediate *gone_im;

    uint8_t *in;                    /* bytes read, not yet handled */
    size_t in_len;
    size_t in_cap;
    struct sss_list out;            /* struct sbus_peer_chunk, oldest first */
    size_t out_bytes;               /* in out, not yet written */

    struct sbus_server_name *unique;    /* NULL until Hello */
    uint64_t unique_id;                 /* N of unique ":1.N"; 0 until Hello */
    struct sss_list names;              /* struct sbus_server_name: well-known names owned,
                                         * newest first */
    struct sss_list matches;            /* struct sbus_server_match, newest first */
    unsigned int num_matches;           /* how many entries matches has */

    struct sss_list pending;            /* struct sbus_server_pending: calls this peer has
                                         * not answered yet, newest first */
    struct sss_hash_table *pending_index;   /* (caller_id, serial) -> entry; NULL until used */
    unsigned int num_pending;           /* how many entries pending has */
    struct sss_list pending_free;       /* answered entries kept for reuse (a few) */
    unsigned int num_pending_free;

    struct sbus_server_call_counter calls[SBUS_SERVER_CALL_COUNTERS];   /* this peer's */

    bool disconnected;              /* closed: forgotten and freed from gone_im */
    bool queue_full_logged;
    uint64_t delivered;             /* last broadcast stamp this peer was sent */
};

struct sbus_server_name {
    char *name;
    uint64_t hash;                          /* of name, in server->names */
    struct sbus_peer *owner;
    struct sss_list link;                   /* in owner->names (well-known only) */
};

/* -------- names and routing (sbus_server_route.c) -------- */

/* Creates the name and match tables. Errors: ENOMEM. */
errno_t sbus_server_tables_init(struct sbus_server *server);

/* The oldest well-known name peer owns (sssd.nss, sssd.domain_X), or NULL. */
const char *sbus_server_peer_wellknown(struct sbus_peer *peer);

/* The connected, registered peer owning name (unique or well-known), or NULL. */
struct sbus_peer *sbus_server_name_owner(struct sbus_server *server, const char *name);

/* Gives peer its unique name ":1.N". Errors: EEXIST (already has one), ENOMEM. */
errno_t sbus_server_assign_unique(struct sbus_peer *peer);

/* Makes peer the owner of the well-known name (validated by the caller).
 * Errors: EEXIST (owned by another peer), EALREADY (owned by peer), ENOMEM. */
errno_t sbus_server_acquire_name(struct sbus_peer *peer, const char *name);

/* Errors: ENOENT (nobody owns it), EPERM (another peer owns it). */
errno_t sbus_server_release_name(struct sbus_peer *peer, const char *name);

/* Drops every name peer owns, announcing each with NameOwnerChanged, and its rules. */
void sbus_server_forget_peer(struct sbus_peer *peer);

/* Adds rule (stolen) to peer's rules. Errors: ENOMEM, E2BIG (too many rules). */
errno_t sbus_server_add_match(struct sbus_peer *peer, struct sbus_match_rule *rule);

/* Removes one of peer's rules equal to rule. Errors: ENOENT. */
errno_t sbus_server_remove_match(struct sbus_peer *peer, const struct sbus_match_rule *rule);

/* Routes a message from a registered peer whose destination is not the bus itself. */
void sbus_server_route(struct sbus_peer *sender, struct sbus_server_msg *m);

/* Emits a signal of org.freedesktop.DBus from the bus: to peer only when destination is
 * not NULL (peer must then be its owner), else to every peer whose rules accept it.
 * first and second are string arguments; second and third may be NULL. */
void sbus_server_emit(struct sbus_server *server, struct sbus_peer *destination,
                      const char *member, const char *first, const char *second,
                      const char *third);

/* -------- the bus's own interface (sbus_server_bus.c) -------- */

/* Handles a message addressed to org.freedesktop.DBus from a registered peer. */
void sbus_server_bus_message(struct sbus_peer *peer, struct sbus_server_msg *m);

/* A call of org.freedesktop.DBus.Peer without destination: the bus answers it, as
 * libdbus does for a connection's own peer. */
void sbus_server_bus_peer_call(struct sbus_peer *peer, struct sbus_server_msg *m);

/* A message from a peer without a unique name: Hello registers it (true: consumed); any
 * other message registers it implicitly and must then be handled as usual (false). */
bool sbus_server_bus_unregistered(struct sbus_peer *peer, struct sbus_server_msg *m);

/* Sends an error reply for msg from the bus itself, unless no reply is wanted. */
void sbus_server_reply_error(struct sbus_peer *peer, DBusMessage *msg,
                             const char *name, const char *text);

#endif /* SBUS_SERVER_PRIVATE_H */
