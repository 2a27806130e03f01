/*
 * The responders' client socket server: listens on a unix socket, accepts clients without
 * blocking, reads one whole request at a time per client (resp_packet.h does the framing),
 * dispatches it through a { command, handler } table, writes the reply without blocking,
 * and closes clients that stay idle. SSSD's observable behaviour is kept: a request whose
 * declared length is out of bounds, or whose command is not in the table, closes the
 * connection without a reply (SSSD's client then reports "unavailable").
 *
 * Handlers: a handler gets a struct resp_request and answers it now or later (a lookup is
 * a tevent request) with resp_request_done() or resp_request_done_status(). Returning an
 * error from the handler instead closes the connection. Only one request per client is in
 * flight: the server reads nothing more from that client until the reply is written.
 * Each request gets an id unique across the star (sss_new_req_id()); the server serves
 * it under that id (SSS_REQ_ID_SCOPE) while it dispatches and writes, and asynchronous code
 * takes it again from resp_request_id() when it resumes (so every log line of a request
 * carries it).
 *
 * Hostile clients (issue 11): a request must arrive whole within request_timeout seconds of
 * its first byte, and a reply be read within idle_timeout of its start, so a trickle of bytes
 * never holds a connection (idle_timeout counts from the last complete request). When the
 * table of max_clients is full, or the process is out of descriptors, the least recently
 * active idle connections of the uid holding the most (SO_PEERCRED) are shed so the newcomer
 * gets in; root's connections and connections with a request in flight are never shed.
 * Out of descriptors, a reserve descriptor is given up to accept (and shed for, or refuse)
 * the next client, and accepting pauses briefly when even that fails: never a busy loop.
 * Lines about what clients cause go through one rate limiter per server
 * (resp_ratelimit.h).
 *
 * Ownership: the server is a talloc object on the caller's mem_ctx; freeing it closes every
 * client and the listening socket and removes the socket file. Clients and requests belong
 * to the server; a handler may hang its state on the request, which is freed once its reply
 * is written or its client goes away (so state hung there is cancelled with the client).
 */
#ifndef RESP_SOCKET_H
#define RESP_SOCKET_H

#include <sys/types.h>
#include <sys/socket.h>

#include "util/util.h"
#include "responder/common/resp_packet.h"

#define RESP_DEFAULT_MAX_CLIENTS    1024
#define RESP_DEFAULT_IDLE_TIMEOUT   60
/* A request is a few hundred bytes written at once: a client that has not finished one
 * this long after its first byte is not a client. */
#define RESP_DEFAULT_REQUEST_TIMEOUT 10
/* Descriptors kept for everything but clients (caches, bus, logs, memory cache, children)
 * when the client table is sized from the process's descriptor limit. */
#define RESP_FD_RESERVE             128
/* At most this many connections are shed at once (more are shed the next time). */
#define RESP_SHED_BATCH             32
/* Accepting pauses this long when not even the reserve descriptor can be had. */
#define RESP_ACCEPT_PAUSE_MS        100

struct resp_server;
struct resp_client;
struct resp_request;

typedef errno_t (*resp_cmd_fn)(struct resp_request *req);

struct resp_cmd {
    uint32_t cmd;
    resp_cmd_fn fn;
};
#define RESP_CMD_END { 0, NULL }

struct resp_server_conf {
    const char *path;               /* socket path; its directory is made 0755 if missing */
    mode_t mode;                    /* of the socket, e.g. 0666 */
    const struct resp_cmd *cmds;    /* ends with RESP_CMD_END; stays valid */
    const uint32_t *versions;       /* for GET_VERSION; 0-terminated, [0] is the default */
    unsigned int idle_timeout;      /* seconds without traffic before a client is closed;
                                     * 0 means never */
    unsigned int request_timeout;   /* seconds from a request's first byte to its last;
                                     * 0: RESP_DEFAULT_REQUEST_TIMEOUT */
    size_t max_clients;             /* 0: RESP_DEFAULT_MAX_CLIENTS */
    size_t max_request;             /* 0: SSS_CLI_MAX_REQUEST_SIZE, header included */
    void *pvt;                      /* handed to handlers by resp_request_pvt() */
};

/*
 * Creates the socket (removing a stale socket at path first; any other kind of file there
 * is refused with EEXIST) and starts accepting. Returns EOK, EINVAL (bad conf),
 * ENAMETOOLONG, EEXIST, ENOMEM or the errno of socket(), bind(), listen(), mkdir().
 */
errno_t resp_server_start(TALLOC_CTX *mem_ctx, struct tevent_context *ev,
                          const struct resp_server_conf *conf,
                          struct resp_server **_srv);

size_t resp_server_num_clients(struct resp_server *srv);

/* The client table for a process whose descriptor limit is fd_limit: what is left after
 * RESP_FD_RESERVE (at least a quarter of the limit, at least 1). */
size_t resp_max_clients_for_fds(size_t fd_limit);

/* What the server did about hostile clients, since it started. */
struct resp_server_stats {
    uint64_t accepted;
    uint64_t shed;                  /* idle connections closed to make room */
    uint64_t refused;               /* newcomers closed: nothing could be shed */
    uint64_t accept_calls;          /* accept4() calls, failed ones included */
    uint64_t out_of_fds;            /* accept4() failing with EMFILE or ENFILE */
    uint64_t pauses;                /* times accepting was paused */
    uint64_t deadlines;             /* connections closed for an unfinished request */
    uint64_t log_suppressed;        /* client-caused log lines held back */
    uint64_t log_passed;            /* client-caused log lines written */
};
void resp_server_get_stats(struct resp_server *srv, struct resp_server_stats *stats);

/* ---- inside a handler ---- */

uint32_t resp_request_cmd(struct resp_request *req);
const uint8_t *resp_request_body(struct resp_request *req, size_t *_len);
uint64_t resp_request_id(struct resp_request *req);
void *resp_request_pvt(struct resp_request *req);
struct tevent_context *resp_request_ev(struct resp_request *req);
struct resp_client *resp_request_client(struct resp_request *req);

/* SO_PEERCRED of the client, taken when it connected. */
const struct ucred *resp_client_creds(struct resp_client *cli);
/* The version agreed by GET_VERSION; 0 before the client asked. */
uint32_t resp_client_version(struct resp_client *cli);

/* Per-client state kept across requests (an enumeration cursor): data (a talloc object or
 * NULL) is stolen onto the client and freed with it; setting another value frees the old
 * one. */
void resp_client_set_data(struct resp_client *cli, void *data);
void *resp_client_get_data(struct resp_client *cli);

/* Answers with reply (stolen; its command is the request's). EINVAL when req already has
 * an answer or reply is NULL. Never frees anything the caller still holds: the request is
 * freed later, from the event loop, once the reply is written. */
errno_t resp_request_done(struct resp_request *req, struct resp_reply *reply);

/* Answers with an empty body and this status (0 or an errno). */
errno_t resp_request_done_status(struct resp_request *req, uint32_t status);

/* Gives up on the request and closes the client's connection (from the event loop). */
void resp_request_abort(struct resp_request *req);

/* Whether a line about this request's client misbehaving may be logged now (the server's
 * rate limit, resp_ratelimit.h); false: it is counted instead. */
bool resp_request_log_allowed(struct resp_request *req);

/* The GET_VERSION handler every table lists: answers the client's version when the server
 * speaks it, else versions[0]. */
errno_t resp_cmd_get_version(struct resp_request *req);

#endif /* RESP_SOCKET_H */
