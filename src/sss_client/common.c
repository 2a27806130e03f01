/*
 * The client libraries' socket client: connect to a responder socket under the compiled-in
 * pipes directory, say SSS_GET_VERSION once per connection, then send requests and read
 * replies framed per PROTOCOL.md "Client packet". Sockets are non-blocking and close-on-exec;
 * every wait is a poll bounded by SSS_CLI_SOCKET_TIMEOUT_MS; writes use MSG_NOSIGNAL so a dead
 * server never raises SIGPIPE in the caller. Each thread has its own connection (a small
 * per-thread list, freed by a pthread key destructor at thread exit); the enumeration
 * connection is one per process under a mutex. A child after fork opens its own connection.
 * A connection the server dropped (idle timeout, restart) is reopened once. Cancellation is
 * disabled during a round trip, so a cancelled thread never leaves a stream half-read.
 */
#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "sss_client/sss_cli.h"
#include "sss_client/sss_cli_client.h"

#ifndef SSSD_PIPE_PATH
#error "SSSD_PIPE_PATH must come from the build (configure's prefix)"
#endif

#ifdef SSS_CLIENT_TEST
static char test_socket_dir[sizeof(((struct sockaddr_un *)0)->sun_path)];
static int test_timeout_ms = -1;

void sss_cli_set_socket_dir(const char *dir)
{
    if (dir == NULL) {
        test_socket_dir[0] = '\0';
        return;
    }
    strncpy(test_socket_dir, dir, sizeof(test_socket_dir) - 1);
    test_socket_dir[sizeof(test_socket_dir) - 1] = '\0';
}

void sss_cli_set_timeout_ms(int ms)
{
    test_timeout_ms = ms;
}

static const char *socket_dir(void)
{
    return test_socket_dir[0] != '\0' ? test_socket_dir : SSSD_PIPE_PATH;
}

static int timeout_ms(void)
{
    return test_timeout_ms >= 0 ? test_timeout_ms : SSS_CLI_SOCKET_TIMEOUT_MS;
}
#else
static const char *socket_dir(void)
{
    return SSSD_PIPE_PATH;
}

static int timeout_ms(void)
{
    return SSS_CLI_SOCKET_TIMEOUT_MS;
}
#endif

static int64_t now_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int remaining_ms(int64_t deadline)
{
    int64_t left = deadline - now_ms();

    if (left < 0) {
        return 0;
    }
    return left > INT_MAX ? INT_MAX : (int)left;
}

/* Waits until fd is ready for `events` or the deadline passes. Returns 0 or an errno. */
static int wait_fd(int fd, short events, int64_t deadline)
{
    for (;;) {
        struct pollfd pfd = { .fd = fd, .events = events, .revents = 0 };
        int n = poll(&pfd, 1, remaining_ms(deadline));

        if (n < 0) {
            if (errno == EINTR) {
                continue;
            }
            return errno;
        }
        if (n == 0) {
            return ETIMEDOUT;
        }
        if (pfd.revents & POLLNVAL) {
            return EBADF;
        }
        if (pfd.revents & events) {
            return 0;   /* with POLLHUP too: the read or write reports what happened */
        }
        if (pfd.revents & (POLLERR | POLLHUP)) {
            return EPIPE;
        }
    }
}

/* After a send() or recv() that failed: 0 when it is worth trying again (interrupted, or
 * the socket became ready before the deadline), else the error to give up with. */
static int io_retry(int fd, short events, int64_t deadline)
{
    if (errno == EINTR) {
        return 0;
    }
    if (errno != EAGAIN && errno != EWOULDBLOCK) {
        return errno;
    }
    return wait_fd(fd, events, deadline);
}

static int send_all(int fd, const uint8_t *buf, size_t len, int64_t deadline)
{
    while (len > 0) {
        ssize_t n = send(fd, buf, len, MSG_NOSIGNAL);

        if (n < 0) {
            int ret = io_retry(fd, POLLOUT, deadline);

            if (ret != 0) {
                return ret;
            }
            continue;
        }
        buf += n;
        len -= (size_t)n;
    }
    return 0;
}

/* Reads exactly len bytes; *got counts what arrived. End of stream is EPIPE. */
static int recv_some(int fd, uint8_t *buf, size_t len, size_t min, int64_t deadline,
                     size_t *got);
static int recv_all(int fd, uint8_t *buf, size_t len, int64_t deadline, size_t *got)
{
    return recv_some(fd, buf, len, len, deadline, got);
}

/* Reads at least min and at most len bytes; *got counts what arrived. End of stream is
 * EPIPE. */
static int recv_some(int fd, uint8_t *buf, size_t len, size_t min, int64_t deadline,
                     size_t *got)
{
    *got = 0;
    while (*got < min) {
        ssize_t n = recv(fd, buf + *got, len - *got, 0);

        if (n == 0) {
            return EPIPE;
        }
        if (n < 0) {
            int ret = io_retry(fd, POLLIN, deadline);

            if (ret != 0) {
                return ret;
            }
            continue;
        }
        *got += (size_t)n;
    }
    return 0;
}

/*
 * One request and its reply on an open socket. *in_sync tells whether the stream can carry
 * the next request (only after a complete reply); *retryable whether the server had gone
 * away before it saw the request (a fresh connection may succeed).
 */
static int exchange(int fd, uint32_t cmd, const void *body, size_t body_len, int64_t deadline,
                    uint8_t **reply, size_t *reply_len, bool *in_sync, bool *retryable)
{
    uint8_t first[SSS_CLI_FIRST_READ];
    uint32_t hdr[4];
    uint8_t *msg;
    uint8_t *buf = NULL;
    size_t total;
    size_t got;
    size_t blen;
    int ret;

    *in_sync = false;
    *retryable = false;

    if (body_len > SSS_CLI_MAX_REPLY_SIZE - SSS_NSS_HEADER_SIZE) {
        return EMSGSIZE;
    }
    total = SSS_NSS_HEADER_SIZE + body_len;
    msg = malloc(total);
    if (msg == NULL) {
        return ENOMEM;
    }
    hdr[SSS_HDR_LEN] = (uint32_t)total;
    hdr[SSS_HDR_CMD] = cmd;
    hdr[SSS_HDR_STATUS] = 0;
    hdr[SSS_HDR_RESERVED] = 0;
    memcpy(msg, hdr, sizeof(hdr));
    if (body_len > 0) {
        memcpy(msg + SSS_NSS_HEADER_SIZE, body, body_len);
    }
    ret = send_all(fd, msg, total, deadline);
    /* PAM requests carry passwords: no copy outlives the send. */
    explicit_bzero(msg, total);
    free(msg);
    if (ret != 0) {
        *retryable = (ret == EPIPE || ret == ECONNRESET);
        return ret;
    }

    /* The reply cannot be there yet: wait first instead of a recv that says EAGAIN. Then
     * one recv takes the header and, for most replies, the whole body with it (the server
     * sends nothing else on this connection until the next request). */
    ret = wait_fd(fd, POLLIN, deadline);
    got = 0;
    if (ret == 0) {
        ret = recv_some(fd, first, sizeof(first), SSS_NSS_HEADER_SIZE, deadline, &got);
    }
    if (ret != 0) {
        *retryable = (got == 0 && (ret == EPIPE || ret == ECONNRESET));
        return ret;
    }
    memcpy(hdr, first, sizeof(hdr));
    if (hdr[SSS_HDR_LEN] < SSS_NSS_HEADER_SIZE || hdr[SSS_HDR_LEN] > SSS_CLI_MAX_REPLY_SIZE
            || hdr[SSS_HDR_CMD] != cmd || got > hdr[SSS_HDR_LEN]) {
        return EBADMSG;
    }
    blen = hdr[SSS_HDR_LEN] - SSS_NSS_HEADER_SIZE;
    if (blen > 0) {
        size_t have = got - SSS_NSS_HEADER_SIZE;

        buf = malloc(blen);
        if (buf == NULL) {
            return ENOMEM;
        }
        memcpy(buf, first + SSS_NSS_HEADER_SIZE, have);
        ret = recv_all(fd, buf + have, blen - have, deadline, &got);
        if (ret != 0) {
            free(buf);
            return ret == EPIPE ? EBADMSG : ret;
        }
    }
    *in_sync = true;

    if (hdr[SSS_HDR_STATUS] != 0) {
        free(buf);
        return hdr[SSS_HDR_STATUS] > INT_MAX ? EBADMSG : (int)hdr[SSS_HDR_STATUS];
    }
    *reply = buf;
    *reply_len = blen;
    return 0;
}

static void close_fd(struct sss_cli_state *st)
{
    if (st->fd != -1) {
        close(st->fd);
    }
    st->fd = -1;
}

/* The server must run as root:root (test builds also accept the caller's own uid and gid,
 * for a responder thread of an unprivileged test). EPERM tells it from a bad socket file. */
static int check_peer_root(int fd)
{
    struct ucred cred;
    socklen_t len = sizeof(cred);

    if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0) {
        return errno;
    }
    if (len != sizeof(cred)) {
        return EPERM;
    }
#ifdef SSS_CLIENT_TEST
    if ((cred.uid != 0 && cred.uid != geteuid()) || (cred.gid != 0 && cred.gid != getegid())) {
        return EPERM;
    }
#else
    if (cred.uid != 0 || cred.gid != 0) {
        return EPERM;
    }
#endif
    return 0;
}

/* The socket file must be what sssd made it: a socket owned by root:root with the mode its
 * responder gives it (test builds also accept the caller's own uid and gid). */
static int check_socket_file(const struct sss_cli_conn *conn, const char *path)
{
    struct stat st;

    if (stat(path, &st) != 0) {
        return errno == ENOENT ? ENOENT : EACCES;
    }
    if (!S_ISSOCK(st.st_mode)) {
        return EACCES;
    }
#ifdef SSS_CLIENT_TEST
    if ((st.st_uid != 0 && st.st_uid != geteuid()) || (st.st_gid != 0 && st.st_gid != getegid())) {
        return EACCES;
    }
#else
    if (st.st_uid != 0 || st.st_gid != 0) {
        return EACCES;
    }
#endif
    if (conn->socket_mode != 0 && (st.st_mode & 07777) != conn->socket_mode) {
        return EACCES;
    }
    return 0;
}

/* Connects a new socket to the responder, or returns an errno (ENOENT: no socket file,
 * ECONNREFUSED: nobody listening on it). */
static int connect_socket(const struct sss_cli_conn *conn, int64_t deadline, int *_fd)
{
    struct sockaddr_un addr;
    const char *dir = socket_dir();
    size_t dlen = strlen(dir);
    size_t nlen = strlen(conn->socket_name);
    int fd = -1;
    int ret;

    memset(&addr, 0, sizeof(addr));
    addr.sun_family = AF_UNIX;
    if (dlen + 1 + nlen + 1 > sizeof(addr.sun_path)) {
        return ENAMETOOLONG;
    }
    memcpy(addr.sun_path, dir, dlen);
    addr.sun_path[dlen] = '/';
    memcpy(addr.sun_path + dlen + 1, conn->socket_name, nlen + 1);
    ret = check_socket_file(conn, addr.sun_path);
    if (ret != 0) {
        return ret;
    }

    fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd == -1) {
        return errno;
    }

    for (;;) {
        if (connect(fd, (struct sockaddr *)&addr, sizeof(addr)) == 0) {
            break;
        }
        ret = errno;
        if (ret == EINPROGRESS || ret == EINTR) {
            int soerr = 0;
            socklen_t slen = sizeof(soerr);

            ret = wait_fd(fd, POLLOUT, deadline);
            if (ret == 0 && getsockopt(fd, SOL_SOCKET, SO_ERROR, &soerr, &slen) != 0) {
                ret = errno;
            } else if (ret == 0) {
                ret = soerr;
            }
            if (ret == 0) {
                break;
            }
        } else if (ret == EAGAIN) {
            /* The listen backlog is full: the responder is busy, try again shortly. */
            int left = remaining_ms(deadline);

            if (left == 0) {
                ret = ETIMEDOUT;
            } else {
                poll(NULL, 0, left < 10 ? left : 10);
                continue;
            }
        }
        close(fd);
        return ret;
    }

    *_fd = fd;
    return 0;
}

/* The deadline of one step (connect, handshake, exchange): the socket timeout from now,
 * or the caller's overall limit when that comes first (0: none). */
static int64_t step_deadline(int64_t limit)
{
    int64_t d = now_ms() + timeout_ms();

    return limit > 0 && limit < d ? limit : d;
}

/* Opens the connection and performs the version handshake, by limit (0: none). */
static int open_conn(const struct sss_cli_conn *conn, struct sss_cli_state *state,
                     int64_t limit)
{
    int64_t deadline = step_deadline(limit);
    uint8_t *reply = NULL;
    size_t reply_len = 0;
    uint32_t version;
    struct stat st;
    bool in_sync;
    bool retryable;
    int fd = -1;
    int ret;

    ret = connect_socket(conn, deadline, &fd);
    if (ret != 0) {
        return ret;
    }
    if (conn->require_root_peer) {
        ret = check_peer_root(fd);
        if (ret != 0) {
            close(fd);
            return ret;
        }
    }
    if (fstat(fd, &st) != 0) {
        ret = errno;
        close(fd);
        return ret;
    }

    deadline = step_deadline(limit);
    ret = exchange(fd, SSS_GET_VERSION, &conn->version, sizeof(conn->version), deadline,
                   &reply, &reply_len, &in_sync, &retryable);
    if (ret == 0) {
        if (reply_len < sizeof(version)) {
            ret = EPROTO;
        } else {
            memcpy(&version, reply, sizeof(version));
            ret = version == conn->version ? 0 : EPROTO;
        }
        free(reply);
    } else if (in_sync || retryable) {
        /* The server answered with an error, or hung up on the handshake. */
        ret = ret == ENOMEM ? ENOMEM : EPROTO;
    }
    if (ret != 0) {
        close(fd);
        return ret;
    }

    state->fd = fd;
    state->pid = getpid();
    state->dev = st.st_dev;
    state->ino = st.st_ino;
    return 0;
}

/* Drops a connection that is not ours any more (inherited over fork, or its number reused
 * by the application) or that the server closed while it was idle. */
static void check_conn(struct sss_cli_state *state)
{
    struct pollfd pfd;
    struct stat st;

    if (state->fd == -1) {
        return;
    }
    if (fstat(state->fd, &st) != 0 || !S_ISSOCK(st.st_mode)
            || st.st_dev != state->dev || st.st_ino != state->ino) {
        state->fd = -1;         /* not our socket any more: leave it alone */
        return;
    }
    if (state->pid != getpid()) {
        close_fd(state);        /* the parent's: the child opens its own */
        return;
    }
    pfd.fd = state->fd;
    pfd.events = POLLIN;
    pfd.revents = 0;
    if (poll(&pfd, 1, 0) != 0) {
        /* Data or end of stream on an idle connection, or an error: start afresh. */
        close_fd(state);
    }
}

/* ---- per-thread connections ---------------------------------------------------------- */

/* A thread's connections, one node per sss_cli_conn it used (a library has one or two). */
struct thread_conn {
    struct thread_conn *next;
    const struct sss_cli_conn *conn;
    struct sss_cli_state state;
};

static pthread_key_t thread_key;
static pthread_once_t thread_key_once = PTHREAD_ONCE_INIT;
static bool thread_key_ok;

/* Thread exit: close the thread's connections (only those this process opened). */
static void thread_conns_free(void *value)
{
    struct thread_conn *tc = value;
    struct thread_conn *next;

    for (; tc != NULL; tc = next) {
        next = tc->next;
        check_conn(&tc->state);
        close_fd(&tc->state);
        free(tc);
    }
}

static void thread_key_init(void)
{
    thread_key_ok = pthread_key_create(&thread_key, thread_conns_free) == 0;
}

/* This thread's state for conn, created on first use; NULL when out of memory. */
static struct sss_cli_state *thread_state(const struct sss_cli_conn *conn, bool create)
{
    struct thread_conn *head;
    struct thread_conn *tc;

    pthread_once(&thread_key_once, thread_key_init);
    if (!thread_key_ok) {
        return NULL;
    }
    head = pthread_getspecific(thread_key);
    for (tc = head; tc != NULL; tc = tc->next) {
        if (tc->conn == conn) {
            return &tc->state;
        }
    }
    if (!create) {
        return NULL;
    }
    tc = calloc(1, sizeof(*tc));
    if (tc == NULL) {
        return NULL;
    }
    tc->conn = conn;
    tc->state.fd = -1;
    tc->next = head;
    if (pthread_setspecific(thread_key, tc) != 0) {
        free(tc);
        return NULL;
    }
    return &tc->state;
}

void sss_cli_unload(void)
{
    /* After dlclose the destructor's code is gone: no thread may run it any more. The
     * connections of other threads stay open until they exit (their descriptors leak). */
    pthread_once(&thread_key_once, thread_key_init);
    if (thread_key_ok) {
        thread_conns_free(pthread_getspecific(thread_key));
        pthread_setspecific(thread_key, NULL);
        pthread_key_delete(thread_key);
        thread_key_ok = false;
    }
}

/* ---- requests -------------------------------------------------------------------------- */

/* The state a request uses, with the shared lock held when the connection is shared.
 * Cancellation stays disabled until release_state(). NULL: out of memory. */
static struct sss_cli_state *acquire_state(struct sss_cli_conn *conn, int *old_cancel)
{
    struct sss_cli_state *state;

    pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, old_cancel);
    if (conn->shared) {
        pthread_mutex_lock(&conn->lock);
        return &conn->state;
    }
    state = thread_state(conn, true);
    if (state == NULL) {
        pthread_setcancelstate(*old_cancel, NULL);
    }
    return state;
}

static void release_state(struct sss_cli_conn *conn, int old_cancel)
{
    if (conn->shared) {
        pthread_mutex_unlock(&conn->lock);
    }
    pthread_setcancelstate(old_cancel, NULL);
}

int sss_cli_request(struct sss_cli_conn *conn, uint32_t cmd,
                    const void *body, size_t body_len,
                    uint8_t **reply, size_t *reply_len)
{
    return sss_cli_request_timeout(conn, cmd, body, body_len, 0, reply, reply_len);
}

int sss_cli_request_timeout(struct sss_cli_conn *conn, uint32_t cmd,
                            const void *body, size_t body_len, unsigned int total_ms,
                            uint8_t **reply, size_t *reply_len)
{
    int64_t limit = total_ms > 0 ? now_ms() + (int64_t)total_ms : 0;
    struct sss_cli_state *state;
    bool in_sync = false;
    bool retryable = false;
    bool fresh = false;
    int old_cancel;
    int ret;

    if (conn == NULL || reply == NULL || reply_len == NULL || (body == NULL && body_len > 0)) {
        return EINVAL;
    }
    *reply = NULL;
    *reply_len = 0;

    state = acquire_state(conn, &old_cancel);
    if (state == NULL) {
        return ENOMEM;
    }
    check_conn(state);
    if (state->fd == -1) {
        ret = open_conn(conn, state, limit);
        if (ret != 0) {
            goto done;
        }
        fresh = true;
    }

    ret = exchange(state->fd, cmd, body, body_len, step_deadline(limit),
                   reply, reply_len, &in_sync, &retryable);
    if (ret != 0 && retryable && !fresh) {
        /* The server went away between requests: one more try on a new connection. */
        close_fd(state);
        ret = open_conn(conn, state, limit);
        if (ret != 0) {
            goto done;
        }
        ret = exchange(state->fd, cmd, body, body_len, step_deadline(limit),
                       reply, reply_len, &in_sync, &retryable);
    }
    if (ret != 0 && !in_sync) {
        close_fd(state);
    }

done:
    release_state(conn, old_cancel);
    return ret;
}

void sss_cli_close(struct sss_cli_conn *conn)
{
    struct sss_cli_state *state;
    int old_cancel;

    if (conn == NULL) {
        return;
    }
    pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &old_cancel);
    if (conn->shared) {
        pthread_mutex_lock(&conn->lock);
        state = &conn->state;
    } else {
        state = thread_state(conn, false);
    }
    if (state != NULL) {
        check_conn(state);
        close_fd(state);
    }
    release_state(conn, old_cancel);
}

void sss_cli_after_fork(struct sss_cli_conn *conn)
{
    if (conn != NULL && conn->shared) {
        pthread_mutex_init(&conn->lock, NULL);
    }
}
