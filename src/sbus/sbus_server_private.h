/*
 * Internals of the master bus (sbus_server.h), shared by its files:
 *   sbus_server.c        listening, accepting, authentication, peer and server lifetime,
 *                        the per-peer filter every incoming message passes through
 *   sbus_server_bus.c    the org.freedesktop.DBus methods the server answers itself
 *   sbus_server_route.c  bus names, match rules, routing and the server's own signals
 *   sbus_server_pending.c  calls a peer still owes an answer to
 * Tables are sss_hash_table (util/sss_hash.h), lists sss_list (util/sss_list.h).
 *
 * Ownership: the server owns its peers; a peer owns its names and match entries, whose
 * destructors take them out of the server's tables, so freeing a peer forgets it entirely.
 */
#ifndef SBUS_SERVER_PRIVATE_H
#define SBUS_SERVER_PRIVATE_H

#include <sys/types.h>
#include <dbus/dbus.h>

#include "util/util.h"
#include "util/sss_hash.h"
#include "util/sss_list.h"
#include "sbus/sbus.h"
#include "sbus/sbus_private.h"
#include "sbus/sbus_server.h"
#include "sbus/sbus_match.h"

/* Most rules one peer may hold (dbus-daemon's system bus uses a limit of this order). */
#define SBUS_SERVER_MAX_MATCHES_PER_PEER 1024

/* -------- server state -------- */

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

/* What routing needs of a message's header, read once before the sender is stamped:
 * libdbus forgets its parsed header fields on every change, and reading one afterwards
 * rescans the whole header (a routed call's interface, read after the stamp, cost about
 * a tenth of the master's instructions). Names are copied: the stamp may move them. */
struct sbus_server_hdr {
    int type;                       /* DBUS_MESSAGE_TYPE_* */
    bool no_reply;
    dbus_uint32_t serial;
    dbus_uint32_t reply_serial;     /* 0: none */
    const char *destination;        /* NULL or dest_buf */
    char dest_buf[DBUS_MAXIMUM_NAME_LENGTH + 1];
    char interface[DBUS_MAXIMUM_NAME_LENGTH + 1];   /* of a method call; "" when none */
};

/* The message the server is routing, while a tracer is attached (sbus_route_* probes). */
struct sbus_server_trace {
    DBusMessage *msg;
    uint64_t req_id;
    const char *sender;
    char member[SBUS_MEMBER_TEXT_MAX];
    unsigned int sent;              /* route_sent fired for msg so far */
};

struct sbus_server {
    struct tevent_context *ev;
    DBusServer *dbus_server;
    TALLOC_CTX *loop;               /* owns the tevent glue of dbus_server */
    char *socket_path;
    char *address;
    char *id;                       /* GetId: 32 hex digits, fixed for the server's life */
    uid_t allowed_uid;

    struct sss_list peers;          /* struct sbus_peer: every accepted connection not yet
                                     * freed, oldest first */
    unsigned int peer_count;        /* of those, the ones still connected */
    uint64_t next_unique;           /* N of the next ":1.N" */
    uint64_t delivery;              /* stamp of the broadcast in progress */
    struct sbus_server_trace *trace;    /* routing in progress while traced, else NULL */

    struct sss_hash_table *names;       /* bus name -> struct sbus_server_name */
    struct sss_hash_table *match_index; /* "interface.member" -> struct sbus_server_slot */
    struct sbus_server_slot *match_any; /* rules lacking interface or member */
};

struct sbus_peer {
    struct sbus_server *server;
    struct sss_list link;           /* in server->peers */
    DBusConnection *conn;
    TALLOC_CTX *loop;               /* owns the tevent glue of conn */
    struct tevent_immediate *free_im;

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

    bool filter_added;
    bool disconnected;
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

/* Routes a message from a registered peer whose destination is not the bus itself; hdr
 * is its header as read before the sender was stamped. */
void sbus_server_route(struct sbus_peer *sender, DBusMessage *msg,
                       const struct sbus_server_hdr *hdr);

/* Sends msg to peer's connection; false when libdbus is out of memory. */
bool sbus_server_send(struct sbus_peer *peer, DBusMessage *msg);

/* Emits a signal of org.freedesktop.DBus from the bus: to peer only when destination is
 * not NULL (peer must then be its owner), else to every peer whose rules accept it.
 * first and second are string arguments; second and third may be NULL. */
void sbus_server_emit(struct sbus_server *server, struct sbus_peer *destination,
                      const char *member, const char *first, const char *second,
                      const char *third);

/* -------- the bus's own interface (sbus_server_bus.c) -------- */

/* Handles a message addressed to org.freedesktop.DBus from a registered peer. */
void sbus_server_bus_message(struct sbus_peer *peer, DBusMessage *msg);

/* A message from a peer without a unique name: Hello registers it (true: consumed); any
 * other message registers it implicitly and must then be handled as usual (false). */
bool sbus_server_bus_unregistered(struct sbus_peer *peer, DBusMessage *msg);

/* Sends an error reply for msg from the bus itself, unless no reply is wanted. */
void sbus_server_reply_error(struct sbus_peer *peer, DBusMessage *msg,
                             const char *name, const char *text);

#endif /* SBUS_SERVER_PRIVATE_H */
