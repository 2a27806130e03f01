/*
 * Inside the client socket server (resp_socket.h), shared by its three files:
 * resp_socket.c (the listening socket: start, accept, stop), resp_client.c (each client's
 * state machine: read a request, dispatch it, write the reply, idle timeout) and
 * resp_request.c (what handlers call). Nothing outside them includes this.
 *
 * Ownership: clients are talloc children of the server and linked in its list; a client's
 * request (at most one) is its child.
 */
#ifndef RESP_SOCKET_PRIVATE_H
#define RESP_SOCKET_PRIVATE_H

#include "responder/common/resp_socket.h"
#include "util/sss_list.h"

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
};

/* The first read of a request takes up to this much: header and body of nearly every
 * request in one recv. A client that writes its next request before the answer (allowed,
 * though no known client does) leaves those bytes in the stash for after the reply. */
#define RESP_STASH_SIZE 512

struct resp_client {
    struct sss_list link;           /* in srv->clients */
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
};

/* Sets up a client for the accepted fd (closes fd when that fails). */
void resp_client_accept(struct resp_server *srv, int fd);

/* The client's request has its reply (resp_request_done()): writes it now when the socket
 * takes it, else when the socket is writable. */
void resp_client_answer(struct resp_client *cli);

/* Closes the client from the event loop (never under a handler's feet). */
void resp_client_close_later(struct resp_client *cli, const char *why);

#endif /* RESP_SOCKET_PRIVATE_H */
