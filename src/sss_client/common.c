/*
 * The client libraries' socket client: connect to a responder socket under the compiled-in
 * pipes directory, say SSS_GET_VERSION once per connection, then send requests and read
 * replies framed per PROTOCOL.md "Client packet". Sockets are non-blocking and close-on-exec;
 * every wait is a poll bounded by SSS_CLI_SOCKET_TIMEOUT_MS; writes use MSG_NOSIGNAL so a dead
 * server never raises SIGPIPE in the caller. One connection object serves all threads of a
 * process under its mutex (cancellation disabled while held); a child after fork opens its
 * own connection. A connection the server dropped (idle timeout, restart) is reopened once.
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

static int send_all(int fd, const uint8_t *buf, size_t len, int64_t deadline)
{
    while (len > 0) {
        ssize_t n = send(fd, buf, len, MSG_NOSIGNAL);

        if (n < 0) {
            int ret;

            if (errno == EINTR) {
                continue;
            }
            if (errno != EAGAIN && errno != EWOULDBLOCK) {
                return errno;
            }
            ret = wait_fd(fd, POLLOUT, deadline);
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
            int ret;

            if (errno == EINTR) {
                continue;
            }
            if (errno != EAGAIN && errno != EWOULDBLOCK) {
                return errno;
            }
            ret = wait_fd(fd, POLLIN, deadline);
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

static void close_fd(struct sss_cli_conn *conn)
{
    if (conn->fd != -1) {
        close(conn->fd);
    }
    conn->fd = -1;
}

static int check_peer_root(int fd)
{
    struct ucred cred;
    socklen_t len = sizeof(cred);

    if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0) {
        return errno;
    }
    if (len != sizeof(cred) || cred.uid != 0 || cred.gid != 0) {
        return EACCES;
    }
    return 0;
}

/* Connects a new socket to the responder, or returns an errno (ENOENT: nobody there). */
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
        if (ret == ECONNREFUSED) {
            ret = ENOENT;
        }
        close(fd);
        return ret;
    }

    *_fd = fd;
    return 0;
}

/* Opens the connection and performs the version handshake. */
static int open_conn(struct sss_cli_conn *conn)
{
    int64_t deadline = now_ms() + timeout_ms();
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

    deadline = now_ms() + timeout_ms();
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

    conn->fd = fd;
    conn->pid = getpid();
    conn->dev = st.st_dev;
    conn->ino = st.st_ino;
    return 0;
}

/* Drops a connection that is not ours any more (inherited over fork, or its number reused
 * by the application) or that the server closed while it was idle. */
static void check_conn(struct sss_cli_conn *conn)
{
    struct pollfd pfd;
    struct stat st;

    if (conn->fd == -1) {
        return;
    }
    if (fstat(conn->fd, &st) != 0 || !S_ISSOCK(st.st_mode)
            || st.st_dev != conn->dev || st.st_ino != conn->ino) {
        conn->fd = -1;          /* not our socket any more: leave it alone */
        return;
    }
    if (conn->pid != getpid()) {
        close_fd(conn);         /* the parent's: the child opens its own */
        return;
    }
    pfd.fd = conn->fd;
    pfd.events = POLLIN;
    pfd.revents = 0;
    if (poll(&pfd, 1, 0) != 0) {
        /* Data or end of stream on an idle connection, or an error: start afresh. */
        close_fd(conn);
    }
}

static void conn_lock(struct sss_cli_conn *conn, int *old_cancel)
{
    pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, old_cancel);
    pthread_mutex_lock(&conn->lock);
}

static void conn_unlock(struct sss_cli_conn *conn, int old_cancel)
{
    pthread_mutex_unlock(&conn->lock);
    pthread_setcancelstate(old_cancel, NULL);
}

int sss_cli_request(struct sss_cli_conn *conn, uint32_t cmd,
                    const void *body, size_t body_len,
                    uint8_t **reply, size_t *reply_len)
{
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

    conn_lock(conn, &old_cancel);
    check_conn(conn);
    if (conn->fd == -1) {
        ret = open_conn(conn);
        if (ret != 0) {
            goto done;
        }
        fresh = true;
    }

    ret = exchange(conn->fd, cmd, body, body_len, now_ms() + timeout_ms(),
                   reply, reply_len, &in_sync, &retryable);
    if (ret != 0 && retryable && !fresh) {
        /* The server went away between requests: one more try on a new connection. */
        close_fd(conn);
        ret = open_conn(conn);
        if (ret != 0) {
            goto done;
        }
        ret = exchange(conn->fd, cmd, body, body_len, now_ms() + timeout_ms(),
                       reply, reply_len, &in_sync, &retryable);
    }
    if (ret != 0 && !in_sync) {
        close_fd(conn);
    }

done:
    conn_unlock(conn, old_cancel);
    return ret;
}

void sss_cli_close(struct sss_cli_conn *conn)
{
    int old_cancel;

    if (conn == NULL) {
        return;
    }
    conn_lock(conn, &old_cancel);
    if (conn->fd != -1 && conn->pid == getpid()) {
        close_fd(conn);
    }
    conn->fd = -1;
    conn_unlock(conn, old_cancel);
}
