/*
 * The socket half shared by the client libraries (libnss_sss, later pam_sss and libsss_sudo):
 * one connection per responder socket, kept open between requests, guarded by a mutex, and
 * reopened after fork. Framing per PROTOCOL.md "Client packet". Plain libc and pthreads; no
 * talloc, no global state beyond the connection objects the caller declares.
 *
 * Owner: the client libraries. Nothing here is exported from a library (version scripts
 * hide it).
 */
#ifndef SSS_CLI_CLIENT_H
#define SSS_CLI_CLIENT_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* Largest reply accepted (header included): large groups are large, but not this large. */
#define SSS_CLI_MAX_REPLY_SIZE  (64u * 1024u * 1024u)
/* The first read of a reply: its header and, for most lookups, the whole body. */
#define SSS_CLI_FIRST_READ      4096

/* One connection to one responder socket. Declare it static with the initializer below;
 * every field after `lock` is private to common.c. */
struct sss_cli_conn {
    pthread_mutex_t lock;
    const char *socket_name;    /* relative to the pipes directory, e.g. "nss" */
    uint32_t version;           /* sent with SSS_GET_VERSION, must come back */
    bool require_root_peer;     /* refuse a server whose SO_PEERCRED is not uid 0 gid 0 */
    int fd;                     /* -1 when closed */
    pid_t pid;                  /* process that opened fd */
    dev_t dev;                  /* identity of fd, to tell it from a reused number */
    ino_t ino;
};

#define SSS_CLI_CONN_INITIALIZER(name, ver, root) \
    { PTHREAD_MUTEX_INITIALIZER, (name), (ver), (root), -1, 0, 0, 0 }

/*
 * Sends one request (cmd + body) and reads its reply. The connection is opened (with the
 * version handshake) when needed; a connection the server dropped is reopened once.
 * On success returns 0 and sets *reply to a malloc'ed copy of the reply body (NULL when the
 * body is empty; free() it) and *reply_len to its length.
 * Errors (positive errno values):
 *   ENOENT      no responder (socket missing or refusing connections)
 *   ETIMEDOUT   connect, write or read did not finish in time
 *   EBADMSG     malformed reply (length, command)
 *   EPROTO      the version handshake failed
 *   EACCES      require_root_peer and the server is not root
 *   ENOMEM      out of memory
 *   other       the reply's non-zero status (EAGAIN: try again), or a socket error
 */
int sss_cli_request(struct sss_cli_conn *conn, uint32_t cmd,
                    const void *body, size_t body_len,
                    uint8_t **reply, size_t *reply_len);

/* Closes the connection (next request reopens it). */
void sss_cli_close(struct sss_cli_conn *conn);

#ifdef SSS_CLIENT_TEST
/* Test builds only: the pipes directory and the timeout become settable. */
void sss_cli_set_socket_dir(const char *dir);
void sss_cli_set_timeout_ms(int ms);
#endif

#endif /* SSS_CLI_CLIENT_H */
