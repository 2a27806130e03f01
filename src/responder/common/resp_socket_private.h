/*
 * Inside the client socket server (resp_socket.h), shared by its files:
 * resp_socket.c (the listening socket: start, accept, running out of descriptors, stop),
 * resp_client.c (each client's state machine: read a request, dispatch it, write the reply,
 * deadlines), resp_shed.c (connections counted per uid, shedding when full) and
 * resp_request.c (what handlers call). Nothing outside them includes this.
 *
 * Ownership: clients are talloc children of the server and linked in its list and in their
 * uid's list; a client's request (at most one) is its child; a struct resp_uid lives while
 * its uid has connections.
 */
#ifndef RESP_SOCKET_PRIVATE_H
#define RESP_SOCKET_PRIVATE_H

#include "responder/common/resp_socket.h"
#include "responder/common/resp_ratelimit.h"
#include "util/sss_list.h"
#include "util/sss_hash.h"

/* The connections of one uid, least recently active first. */
struct resp_uid {
    uid_t uid;
    size_t count;
    struct sss_list clients;        /* struct resp_client.uid_link */
};

struct resp_server {
    struct tevent_context *ev;
    struct resp_server_conf conf;
    char *path;
    uint32_t *versions;
    int fd;
    dev_t dev;
    ino_t ino;
    struct tevent_fd *fde;
    struct sss_list clients;        /* struct resp_client.link */
    size_t num_clients;
    struct sss_hash_table *uids;    /* uid -> struct resp_uid */
    int reserve_fd;                 /* given up to accept one client when out of fds */
    struct tevent_timer *resume;    /* accepting is paused until it fires */
    struct resp_ratelimit rl;       /* lines about what clients cause */
    char *rl_what;
    struct resp_server_stats stats;
};

/* The first read of a request takes up to this much: header and body of nearly every
 * request in one recv. A client that writes its next request before the answer (allowed,
 * though no known client does) leaves those bytes in the stash for after the reply. */
#define RESP_STASH_SIZE 512

struct resp_client {
    struct sss_list link;           /* in srv->clients */
    struct sss_list uid_link;       /* in owner->clients */
    struct resp_uid *owner;         /* NULL until its credentials are known */
    struct resp_server *srv;
    int fd;
    struct ucred creds;
    uint32_t version;
    struct tevent_fd *fde;
    struct tevent_timer *idle;
    struct tevent_immediate *closer;
    struct tevent_immediate *finisher;  /* ends a request whose reply went out at once */
    struct tevent_immediate *resumer;   /* serves stashed bytes after a reply */
    struct resp_frame *frame;
    uint8_t stash[RESP_STASH_SIZE]; /* read past the end of a request: the next one's */
    size_t stash_off;
    size_t stash_len;
    struct resp_request *req;       /* the one in flight, or NULL */
    void *data;                     /* resp_client_set_data(); a talloc child */
};

struct resp_request {
    struct resp_client *cli;
    uint64_t id;
    uint32_t cmd;
    struct resp_reply *reply;       /* once answered */
    size_t written;
    uint64_t start_usec;            /* for the latency metric */
};

/* Sets up a client for the accepted fd (closes fd when that fails). */
void resp_client_accept(struct resp_server *srv, int fd);

/* The client's request has its reply (resp_request_done()): writes it now when the socket
 * takes it, else when the socket is writable. */
void resp_client_answer(struct resp_client *cli);

/* Closes the client from the event loop (never under a handler's feet). */
void resp_client_close_later(struct resp_client *cli, const char *why);

/* ---- resp_shed.c ---- */

/* Counts cli under its uid (creds known). ENOMEM. */
errno_t resp_shed_track(struct resp_client *cli);

/* Forgets cli (its destructor); frees the uid's entry with its last connection. */
void resp_shed_untrack(struct resp_client *cli);

/* cli just finished a request: it becomes its uid's most recently active connection. */
void resp_shed_touch(struct resp_client *cli);

/* Closes up to RESP_SHED_BATCH (at least want, when there are that many) least recently
 * active idle connections of the non-root uid holding the most connections. Only clients
 * without a request in flight are closed, and never from inside their own handlers.
 * Returns how many were closed (0: nothing could be shed). */
size_t resp_shed_idle(struct resp_server *srv, size_t want);

#endif /* RESP_SOCKET_PRIVATE_H */
