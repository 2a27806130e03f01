/*
 * The socket half shared by the client libraries (libnss_sss, pam_sss, later libsss_sudo):
 * connections to a responder socket, one per thread (or one shared, for enumeration), kept
 * open between requests and reopened after fork. Framing per PROTOCOL.md "Client packet".
 * Plain libc and pthreads; no talloc, no global state beyond the connection objects the
 * caller declares. The copy of a request made for sending is wiped (it may hold a password).
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

/* An open connection: its descriptor and what identifies it. Private to common.c. */
struct sss_cli_state {
    int fd;                     /* -1 when closed */
    pid_t pid;                  /* process that opened fd */
    dev_t dev;                  /* identity of fd, to tell it from a reused number */
    ino_t ino;
};

/*
 * One responder socket. Declare it static with one of the initializers below.
 * - per thread (lookups, PAM, sudo): every thread gets a connection of its own on first use,
 *   closed when the thread exits; no lock is held across a round trip, so one slow lookup
 *   never holds up another thread, and a fork() while another thread is mid-lookup leaves
 *   the child nothing locked (the child drops the connection it inherited and opens its own).
 * - shared (enumeration): one connection for the whole process under `lock`, because the
 *   server keeps the enumeration cursor per connection and setpwent/getpwent may come from
 *   different threads. sss_cli_after_fork() makes the lock usable again in a child.
 * The socket file must be a socket owned by root:root with exactly socket_mode (0 skips the
 * mode), as SSSD's clients require; require_root_peer also checks SO_PEERCRED.
 */
struct sss_cli_conn {
    const char *socket_name;    /* relative to the pipes directory, e.g. "nss" */
    uint32_t version;           /* sent with SSS_GET_VERSION, must come back */
    bool require_root_peer;     /* refuse a server whose SO_PEERCRED is not uid 0 gid 0 */
    mode_t socket_mode;         /* the permission bits the socket file must have */
    bool shared;
    pthread_mutex_t lock;       /* shared only */
    struct sss_cli_state state; /* shared only */
};

#define SSS_CLI_CONN_PER_THREAD(name, ver, root, mode) \
    { (name), (ver), (root), (mode), false, PTHREAD_MUTEX_INITIALIZER, { -1, 0, 0, 0 } }
#define SSS_CLI_CONN_SHARED(name, ver, root, mode) \
    { (name), (ver), (root), (mode), true, PTHREAD_MUTEX_INITIALIZER, { -1, 0, 0, 0 } }

/*
 * Sends one request (cmd + body) and reads its reply. The connection is opened (with the
 * version handshake) when needed; a connection the server dropped is reopened once.
 * On success returns 0 and sets *reply to a malloc'ed copy of the reply body (NULL when the
 * body is empty; free() it) and *reply_len to its length.
 * Errors (positive errno values):
 *   ENOENT      no responder: the socket file is missing
 *   ECONNREFUSED no responder: nobody listens on the socket file
 *   ETIMEDOUT   connect, write or read did not finish in time
 *   EBADMSG     malformed reply (length, command)
 *   EPROTO      the version handshake failed
 *   EACCES      the socket file is not a root-owned socket with the expected mode
 *   EPERM       require_root_peer and the server is not root:root
 *   ENOMEM      out of memory
 *   other       the reply's non-zero status (EAGAIN: try again), or a socket error
 */
int sss_cli_request(struct sss_cli_conn *conn, uint32_t cmd,
                    const void *body, size_t body_len,
                    uint8_t **reply, size_t *reply_len);

/* The same, all of it (connect, handshake, exchange, the one retry) within total_ms
 * milliseconds when total_ms > 0 (ETIMEDOUT past it): libsss_nss_idmap's _timeout calls.
 * A shared connection's lock is not bounded by it. */
int sss_cli_request_timeout(struct sss_cli_conn *conn, uint32_t cmd,
                            const void *body, size_t body_len, unsigned int total_ms,
                            uint8_t **reply, size_t *reply_len);

/* Closes this thread's connection (shared: the process's); the next request reopens it. */
void sss_cli_close(struct sss_cli_conn *conn);

/* In a fork child (pthread_atfork child handler): a shared connection's lock may have been
 * held by a thread the child does not have; make it usable again. */
void sss_cli_after_fork(struct sss_cli_conn *conn);

/* Library unload: stop the per-thread clean-up (its code is about to go away). */
void sss_cli_unload(void);

#ifdef SSS_CLIENT_TEST
/* Test builds only: the pipes directory and the timeout become settable. */
void sss_cli_set_socket_dir(const char *dir);
void sss_cli_set_timeout_ms(int ms);
#endif

#endif /* SSS_CLI_CLIENT_H */
