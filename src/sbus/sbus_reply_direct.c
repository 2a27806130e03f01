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
 */
#include <errno.h>
#include <poll.h>
#include <sys/socket.h>

#include "sbus/sbus_private.h"

/* How long the rest of a partly written reply may wait for room (ms). */
#define SBUS_REPLY_DIRECT_REST_MS 5000

static bool sbus_reply_direct_rest(int fd, const uint8_t *data, size_t len)
{
    struct pollfd pfd = { .fd = fd, .events = POLLOUT };
    ssize_t n;

    int ready;

    while (len > 0) {
        ready = poll(&pfd, 1, SBUS_REPLY_DIRECT_REST_MS);
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

bool sbus_reply_direct(struct sbus_connection *conn, const uint8_t *data, size_t len)
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
    if ((size_t)n < len && !sbus_reply_direct_rest(fd, data + n, len - (size_t)n)) {
        DEBUG(SSSDBG_CRIT_FAILURE, "A reply went out in part only: closing the connection\n");
        shutdown(fd, SHUT_RDWR);
    }
    conn->direct_replies++;
    return true;
}
