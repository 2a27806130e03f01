/*
 * A generated method return written to the bus socket by us, not by libdbus (issue 18).
 * The reply is composed in wire form anyway (sbus_wire_build.c); handing those bytes to
 * libdbus costs a dbus_message_demarshal() (libdbus validating, field by field, what we
 * just wrote from checked values) and a queue, only for libdbus to write the same bytes:
 * 22k instructions of the back-end's getAccountInfo reply, a tenth of its work before the
 * answer.
 *
 * Order: only when libdbus has nothing queued on the connection (a message it wrote in
 * part stays queued until it is out whole), so nothing is overtaken. A socket that does
 * not take a single byte (full) leaves the reply to libdbus, which waits for room; one
 * that takes a part gets the rest blocking, briefly, since a partial message would
 * corrupt the stream for whatever libdbus writes next; should even that fail, the
 * connection is shut down and ends as a lost one does.
 * Tracing: the sbus_method_reply probe of a reply written here fires once its bytes are
 * out (sbus_request_replied), that of a libdbus one just before it is queued.
 *
 * Generated method calls go the same way (sbus_call_direct, from sbus_call.c): their
 * serial is in the composed bytes, and replies are matched by serial in sbus_call.c, not
 * by libdbus, so libdbus need not have seen the call. A call whose rest could not be
 * written ends with its connection, as every call in flight on it does.
 */
#include <errno.h>
#include <poll.h>
#include <sys/socket.h>
#include <time.h>

#include "sbus/sbus_private.h"

/* How long, in all, the rest of a partly written reply may wait for room (ms). */
#define SBUS_REPLY_DIRECT_REST_MS 5000

/* Milliseconds left until deadline (CLOCK_MONOTONIC), 0 once it has passed. */
static int sbus_reply_direct_ms_left(const struct timespec *deadline)
{
    struct timespec now;
    int64_t ms;

    if (clock_gettime(CLOCK_MONOTONIC, &now) != 0) {
        return 0;
    }
    ms = (int64_t)(deadline->tv_sec - now.tv_sec) * 1000
         + (deadline->tv_nsec - now.tv_nsec) / 1000000;
    return ms > 0 ? (int)ms : 0;
}

/* One deadline for the whole rest, not a timeout per poll(): a peer that takes a few
 * bytes every few seconds must not hold the process without limit. */
static bool sbus_reply_direct_rest(int fd, const uint8_t *data, size_t len)
{
    struct pollfd pfd = { .fd = fd, .events = POLLOUT };
    struct timespec deadline;
    ssize_t n;
    int ready;
    int left;

    if (clock_gettime(CLOCK_MONOTONIC, &deadline) != 0) {
        return false;
    }
    deadline.tv_sec += SBUS_REPLY_DIRECT_REST_MS / 1000;
    deadline.tv_nsec += (long)(SBUS_REPLY_DIRECT_REST_MS % 1000) * 1000000L;
    if (deadline.tv_nsec >= 1000000000L) {
        deadline.tv_sec++;
        deadline.tv_nsec -= 1000000000L;
    }

    while (len > 0) {
        left = sbus_reply_direct_ms_left(&deadline);
        if (left == 0) {
            return false;
        }
        ready = poll(&pfd, 1, left);
        if (ready < 0 && errno == EINTR) {
            continue;
        }
        if (ready <= 0) {
            return false;
        }
        n = send(fd, data, len, MSG_DONTWAIT | MSG_NOSIGNAL);
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) {
            continue;
        }
        if (n <= 0) {
            return false;
        }
        data += n;
        len -= (size_t)n;
    }
    return true;
}

uint64_t sbus_connection_direct_replies(struct sbus_connection *conn)
{
    return conn != NULL ? conn->direct_replies : 0;
}

uint64_t sbus_connection_direct_calls(struct sbus_connection *conn)
{
    return conn != NULL ? conn->direct_calls : 0;
}

uint64_t sbus_connection_direct_rests(struct sbus_connection *conn)
{
    return conn != NULL ? conn->direct_rests : 0;
}

/* The composed message written to conn's socket: true when it is out (or the connection
 * was ended over it); false when nothing was written. */
static bool sbus_write_direct(struct sbus_connection *conn, const uint8_t *data, size_t len)
{
    ssize_t n;
    int fd;

    if (conn == NULL || conn->disconnected || conn->dbus == NULL || len == 0
            || !dbus_connection_get_is_connected(conn->dbus)
            || dbus_connection_has_messages_to_send(conn->dbus)
            || !dbus_connection_get_socket(conn->dbus, &fd)) {
        return false;
    }
    do {
        n = send(fd, data, len, MSG_DONTWAIT | MSG_NOSIGNAL);
    } while (n < 0 && errno == EINTR);
    if (n < 0) {
        /* Full, or broken: libdbus queues it, or notices the end. */
        return false;
    }
    if ((size_t)n < len) {
        conn->direct_rests++;
        if (!sbus_reply_direct_rest(fd, data + n, len - (size_t)n)) {
            DEBUG(SSSDBG_CRIT_FAILURE,
                  "A message went out in part only: closing the connection\n");
            shutdown(fd, SHUT_RDWR);
        }
    }
    return true;
}

bool sbus_reply_direct(struct sbus_connection *conn, const uint8_t *data, size_t len)
{
    if (!sbus_write_direct(conn, data, len)) {
        return false;
    }
    conn->direct_replies++;
    return true;
}

bool sbus_call_direct(struct sbus_connection *conn, const uint8_t *data, size_t len)
{
    if (!sbus_write_direct(conn, data, len)) {
        return false;
    }
    conn->direct_calls++;
    return true;
}
