/*
 * A master bus peer's socket. Reading: authentication first (sbus_server_auth.c), then
 * messages framed from a per-peer buffer and handed, still in that buffer, to
 * sbus_server_message(); one read takes as much as the buffer holds, so a burst of
 * messages costs one wake-up and one read. Writing: a message goes out with one sendmsg()
 * of its pieces (the stamped header parts and the body where it lies) while nothing is
 * queued; what the socket does not take is copied into the peer's queue, drained when the
 * socket is writable again. Any failure marks the peer closed; it is forgotten and freed
 * from an immediate, never while a message is being handled.
 */
#include <sys/socket.h>
#include <unistd.h>

#include "sbus/sbus_server_private.h"

/* A read asks for at least this much room; the buffer starts at it. */
#define SBUS_PEER_READ_MIN 4096
/* A buffer grown for one large message is given back once it is empty again. */
#define SBUS_PEER_KEEP_MAX (64 * 1024)
/* Reads per wake-up before other peers get their turn. */
#define SBUS_PEER_READS_PER_TURN 4
/* Queued pieces written by one sendmsg(). */
#define SBUS_PEER_WRITE_IOV 64

static void sbus_peer_handler(struct tevent_context *ev, struct tevent_fd *fde,
                              uint16_t flags, void *pvt);

static void sbus_peer_gone(struct tevent_context *ev, struct tevent_immediate *im,
                           void *pvt)
{
    struct sbus_peer *peer = pvt;

    sbus_server_forget_peer(peer);
    talloc_free(peer);
}

void sbus_peer_close(struct sbus_peer *peer, const char *why)
{
    struct sbus_server *server = peer->server;

    if (peer->disconnected) {
        return;
    }
    peer->disconnected = true;
    assert(server->peer_count > 0);
    server->peer_count--;
    DEBUG(why != NULL ? SSSDBG_OP_FAILURE : SSSDBG_TRACE_FUNC, "Bus peer %s %s\n",
          peer->unique != NULL ? peer->unique->name : "(unregistered)",
          why != NULL ? why : "disconnected");
    talloc_zfree(peer->fde);
    talloc_zfree(peer->auth_timer);
    tevent_schedule_immediate(peer->gone_im, server->ev, sbus_peer_gone, peer);
}

/* -------- writing -------- */

static ssize_t sbus_peer_sendv(struct sbus_peer *peer, struct iovec *iov, int iovcnt)
{
    struct msghdr mh = { .msg_iov = iov, .msg_iovlen = (size_t)iovcnt };
    ssize_t n;

    do {
        n = sendmsg(peer->fd, &mh, MSG_NOSIGNAL | MSG_DONTWAIT);
    } while (n < 0 && errno == EINTR);
    if (n < 0) {
        if (errno == EAGAIN || errno == EWOULDBLOCK) {
            return 0;
        }
        /* the peer closed its end (reset, broken pipe) is a plain disconnection */
        sbus_peer_close(peer, errno == EPIPE || errno == ECONNRESET
                              ? NULL : "could not be written to");
        return -1;
    }
    return n;
}

static void sbus_peer_want_write(struct sbus_peer *peer, bool want)
{
    if (peer->fde != NULL) {
        tevent_fd_set_flags(peer->fde, TEVENT_FD_READ | (want ? TEVENT_FD_WRITE : 0));
    }
}

bool sbus_peer_write(struct sbus_peer *peer, const struct iovec *iov, int iovcnt,
                     size_t size)
{
    struct sbus_peer_chunk *chunk;
    size_t skip = 0, n, off;
    ssize_t written;
    int i;

    if (peer->disconnected) {
        return false;
    }
    if (sss_list_is_empty(&peer->out)) {
        written = sbus_peer_sendv(peer, (struct iovec *)iov, iovcnt);
        if (written < 0) {
            return false;
        }
        if ((size_t)written == size) {
            return true;
        }
        skip = (size_t)written;
    }
    if (peer->out_bytes + (size - skip) > SBUS_SERVER_MAX_QUEUED) {
        if (!peer->queue_full_logged) {
            DEBUG(SSSDBG_OP_FAILURE, "Bus peer %s reads nothing: messages for it dropped\n",
                  peer->unique != NULL ? peer->unique->name : "(unregistered)");
            peer->queue_full_logged = true;
        }
        if (skip == 0) {
            return false;
        }
        /* part of it went out: the rest must follow, or the stream is broken */
    }
    chunk = talloc_size(peer, sizeof(*chunk) + (size - skip));
    if (chunk == NULL) {
        if (skip != 0) {
            sbus_peer_close(peer, "lost a message half written (out of memory)");
        }
        return false;
    }
    talloc_set_name_const(chunk, "struct sbus_peer_chunk");
    memset(&chunk->link, 0, sizeof(chunk->link));
    chunk->len = size - skip;
    chunk->off = 0;
    for (i = 0, off = 0; i < iovcnt; i++) {
        n = iov[i].iov_len;
        if (skip >= n) {
            skip -= n;
            continue;
        }
        memcpy(chunk->data + off, (const uint8_t *)iov[i].iov_base + skip, n - skip);
        off += n - skip;
        skip = 0;
    }
    assert(off == chunk->len);
    if (sss_list_is_empty(&peer->out)) {
        sbus_peer_want_write(peer, true);
    }
    sss_list_link_tail(&peer->out, &chunk->link);
    peer->out_bytes += chunk->len;
    return true;
}

/* The socket takes more: write what is queued, oldest first. */
static void sbus_peer_flush(struct sbus_peer *peer)
{
    struct iovec iov[SBUS_PEER_WRITE_IOV];
    struct sbus_peer_chunk *chunk, *next;
    ssize_t written;
    size_t left;
    int n = 0;

    sss_list_for_each_entry(chunk, &peer->out, link) {
        if (n == SBUS_PEER_WRITE_IOV) {
            break;
        }
        iov[n].iov_base = chunk->data + chunk->off;
        iov[n].iov_len = chunk->len - chunk->off;
        n++;
    }
    written = sbus_peer_sendv(peer, iov, n);
    if (written <= 0) {
        return;
    }
    left = (size_t)written;
    peer->out_bytes -= left;
    sss_list_for_each_entry_safe(chunk, next, &peer->out, link) {
        if (left < chunk->len - chunk->off) {
            chunk->off += left;
            break;
        }
        left -= chunk->len - chunk->off;
        sss_list_unlink(&chunk->link);
        talloc_free(chunk);
    }
    if (sss_list_is_empty(&peer->out)) {
        peer->queue_full_logged = false;
        sbus_peer_want_write(peer, false);
    }
}

/* -------- reading -------- */

/* Makes room for at least want more bytes after in_len. */
static bool sbus_peer_room(struct sbus_peer *peer, size_t want)
{
    size_t cap = peer->in_cap;
    uint8_t *in;

    if (cap - peer->in_len >= want) {
        return true;
    }
    while (cap - peer->in_len < want) {
        cap = cap < SBUS_PEER_READ_MIN ? SBUS_PEER_READ_MIN : cap * 2;
    }
    in = talloc_realloc(peer, peer->in, uint8_t, cap);
    if (in == NULL) {
        sbus_peer_close(peer, "sent a message too large for the memory left");
        return false;
    }
    peer->in = in;
    peer->in_cap = cap;
    return true;
}

/* Authentication: consumes its lines from the buffer; *_pos is where messages begin. */
static void sbus_peer_authenticate(struct sbus_peer *peer, size_t *_pos)
{
    struct sbus_auth *a = peer->auth;
    struct iovec iov;
    size_t used;

    do {
        used = sbus_auth_input(a, (const char *)peer->in + *_pos, peer->in_len - *_pos);
        *_pos += used;
        if (a->out_len > 0) {
            iov.iov_base = a->out;
            iov.iov_len = a->out_len;
            if (!sbus_peer_write(peer, &iov, 1, a->out_len)) {
                return;
            }
            a->out_len = 0;
        }
    } while (used > 0 && a->state != SBUS_AUTH_DONE && a->state != SBUS_AUTH_FAILED);

    if (a->state == SBUS_AUTH_FAILED) {
        sbus_peer_close(peer, peer->auth->uid_allowed ? "failed to authenticate"
                                                      : "is of a uid not allowed");
        return;
    }
    if (a->state == SBUS_AUTH_DONE) {
        DEBUG(SSSDBG_TRACE_FUNC, "Bus peer of uid %lu authenticated\n",
              (unsigned long)peer->uid);
        talloc_zfree(peer->auth);
        talloc_zfree(peer->auth_timer);
    }
}

/* Hands every complete message in the buffer over, keeps the rest at its start. */
static void sbus_peer_consume(struct sbus_peer *peer)
{
    size_t pos = 0, size = 0;
    errno_t ret;

    if (peer->auth != NULL) {
        sbus_peer_authenticate(peer, &pos);
    }
    while (!peer->disconnected && peer->auth == NULL) {
        ret = sbus_wire_message_size(peer->in + pos, peer->in_len - pos, &size);
        if (ret == EAGAIN) {
            size = SBUS_WIRE_FIXED_SIZE;
            break;
        }
        if (ret != EOK) {
            sbus_peer_close(peer, "sent bytes that are not a D-Bus message");
            return;
        }
        if (size > peer->in_len - pos) {
            break;
        }
        sbus_server_message(peer, peer->in + pos, size);
        pos += size;
    }
    if (peer->disconnected) {
        return;
    }
    peer->in_len -= pos;
    if (peer->in_len > 0 && pos > 0) {
        memmove(peer->in, peer->in + pos, peer->in_len);
    }
    if (peer->in_len == 0 && peer->in_cap > SBUS_PEER_KEEP_MAX) {
        talloc_zfree(peer->in);
        peer->in_cap = 0;
    }
    if (size > peer->in_len) {
        /* the message under way is larger than what the buffer holds: make it fit */
        sbus_peer_room(peer, size - peer->in_len);
    }
}

static void sbus_peer_read(struct sbus_peer *peer)
{
    ssize_t n;
    size_t room;
    int turn;

    for (turn = 0; turn < SBUS_PEER_READS_PER_TURN && !peer->disconnected; turn++) {
        if (!sbus_peer_room(peer, SBUS_PEER_READ_MIN / 2)) {
            return;
        }
        room = peer->in_cap - peer->in_len;
        n = read(peer->fd, peer->in + peer->in_len, room);
        if (n == 0) {
            sbus_peer_close(peer, NULL);
            return;
        }
        if (n < 0) {
            if (errno == EINTR) {
                continue;
            }
            if (errno != EAGAIN && errno != EWOULDBLOCK) {
                sbus_peer_close(peer, errno == ECONNRESET ? NULL : "could not be read from");
            }
            return;
        }
        peer->in_len += (size_t)n;
        sbus_peer_consume(peer);
        if ((size_t)n < room) {
            return;     /* the socket is drained */
        }
    }
}

static void sbus_peer_handler(struct tevent_context *ev, struct tevent_fd *fde,
                              uint16_t flags, void *pvt)
{
    struct sbus_peer *peer = talloc_get_type(pvt, struct sbus_peer);

    if (flags & TEVENT_FD_WRITE) {
        sbus_peer_flush(peer);
    }
    if ((flags & TEVENT_FD_READ) && !peer->disconnected) {
        sbus_peer_read(peer);
    }
}

static void sbus_peer_auth_timeout(struct tevent_context *ev, struct tevent_timer *te,
                                   struct timeval now, void *pvt)
{
    struct sbus_peer *peer = talloc_get_type(pvt, struct sbus_peer);

    peer->auth_timer = NULL;    /* tevent frees a fired timer */
    sbus_peer_close(peer, "did not authenticate in time");
}

errno_t sbus_peer_io_start(struct sbus_peer *peer)
{
    struct sbus_server *server = peer->server;

    peer->gone_im = tevent_create_immediate(peer);
    peer->auth = talloc_zero(peer, struct sbus_auth);
    if (peer->gone_im == NULL || peer->auth == NULL) {
        return ENOMEM;
    }
    peer->auth->uid = peer->uid;
    peer->auth->uid_allowed = peer->uid == 0 || peer->uid == server->allowed_uid;
    peer->auth->guid = server->id;

    peer->auth_timer = tevent_add_timer(server->ev, peer,
                                        tevent_timeval_current_ofs(SBUS_SERVER_AUTH_TIMEOUT_SEC,
                                                                   0),
                                        sbus_peer_auth_timeout, peer);
    peer->fde = tevent_add_fd(server->ev, peer, peer->fd, TEVENT_FD_READ, sbus_peer_handler,
                              peer);
    if (peer->auth_timer == NULL || peer->fde == NULL) {
        return ENOMEM;
    }
    return EOK;
}
