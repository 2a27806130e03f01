/*
 * The socket of an LDAP connection stays non-blocking on the event loop; this layer, in
 * libldap's socket stack right above the TCP layer (below TLS and SASL), buffers its reads
 * and makes its writes safe.
 *
 * Reads: libldap reads each message in two small reads (its header, then exactly the rest),
 * and asks poll(0) before each message whether the socket has more, so a search answered
 * by an entry and a result cost seven syscalls after the loop's wake-up. Here one read takes
 * whatever the kernel holds (up to SDAP_IO_READ_CHUNK) and serves libldap's small reads
 * from memory; the layer answers LBER_SB_OPT_DATA_READY while it holds bytes, so libldap
 * skips its poll, and the dispatcher (sdap_conn.c) fills the buffer once per wake-up and
 * stops calling ldap_result() when no layer holds a byte. When libldap asks for a chunk or
 * more beyond what the buffer holds (a message body over 16 KiB), the rest is read from
 * the socket straight into its memory: big answers are not copied twice, nor cut into
 * buffer-sized wake-ups. An incomplete message costs nothing special: libldap keeps what it
 * has, its next read finds the buffer empty, the socket says EAGAIN, and ldap_result() says
 * "nothing yet"; a server that answers one byte a second costs one short read per byte,
 * never a blocked loop.
 *
 * Writes: libldap's own answer to EAGAIN on a write leaves the request half sent and refuses
 * the next one with LDAP_BUSY until someone calls ldap_result() while the socket is
 * writable. This layer takes every byte handed to it: what the kernel does not accept at
 * once is queued here, the owner is told (sdap_io_set_notify) so that it watches the socket
 * for writability, and sdap_io_flush() sends the rest from the loop. libldap always sees
 * its writes complete. The queue is bounded (SDAP_IO_MAX_QUEUED): a server that stops
 * reading while we keep writing makes the write fail, and the connection breaks.
 *
 * While queueing is off (the TLS handshake, which runs in a helper thread on a blocking
 * socket) the layer passes writes through unchanged; reads are buffered all along (the
 * helper thread is then the only one to touch the handle).
 *
 * The layer's state is plain malloc memory owned by libldap's socket buffer: it is freed
 * when the LDAP handle is (ldap_unbind_ext), so its owner must drop its pointer first.
 */
#include <assert.h>
#include <errno.h>
#include <lber.h>
#include <stdlib.h>
#include <string.h>

#include "util/util.h"
#include "providers/ldap/sdap_private.h"

/* Bytes queued at most before writes fail: far more than the requests of any workload
 * (a search is a few hundred bytes), far less than the memory a stuck peer may pin. */
#define SDAP_IO_MAX_QUEUED (4 * 1024 * 1024)

/* Bytes one read asks the kernel for: a search's entries and result usually arrive in one
 * go; the rest of a bigger message is read past the buffer (io_read). */
#define SDAP_IO_READ_CHUNK (16 * 1024)

struct sdap_io {
    Sockbuf_IO_Desc *sbiod;
    bool queueing;
    char *buf;
    size_t start;               /* first unsent byte */
    size_t len;                 /* bytes after start */
    size_t cap;
    sdap_io_notify_fn notify;
    void *notify_pvt;
    char *rbuf;                 /* SDAP_IO_READ_CHUNK bytes, allocated at the first read */
    size_t rstart;              /* first byte libldap has not taken */
    size_t rlen;                /* bytes after rstart */
    bool rfull;                 /* the last read filled all the room it had */
    bool rend;                  /* sdap_io_fill met the end or an error: libldap's next... */
    int rerr;                   /* ...read after the buffered bytes returns it (0: EOF) */
};

static errno_t io_queue(struct sdap_io *io, const char *data, size_t n)
{
    size_t need;
    char *nbuf;

    if (io->len + n > SDAP_IO_MAX_QUEUED) {
        return ENOBUFS;
    }
    if (io->start > 0 && io->start + io->len + n > io->cap) {
        memmove(io->buf, io->buf + io->start, io->len);
        io->start = 0;
    }
    need = io->start + io->len + n;
    if (need > io->cap) {
        size_t ncap = io->cap == 0 ? 4096 : io->cap;

        while (ncap < need) {
            ncap *= 2;
        }
        nbuf = realloc(io->buf, ncap);
        if (nbuf == NULL) {
            return ENOMEM;
        }
        io->buf = nbuf;
        io->cap = ncap;
    }
    memcpy(io->buf + io->start + io->len, data, n);
    io->len += n;
    return EOK;
}

static int io_setup(Sockbuf_IO_Desc *sbiod, void *arg)
{
    struct sdap_io *io = arg;

    io->sbiod = sbiod;
    sbiod->sbiod_pvt = io;
    return 0;
}

static int io_remove(Sockbuf_IO_Desc *sbiod)
{
    struct sdap_io *io = sbiod->sbiod_pvt;

    sbiod->sbiod_pvt = NULL;
    if (io != NULL) {
        free(io->buf);
        free(io->rbuf);
        free(io);
    }
    return 0;
}

static int io_ctrl(Sockbuf_IO_Desc *sbiod, int opt, void *arg)
{
    struct sdap_io *io = sbiod->sbiod_pvt;

    if (opt == LBER_SB_OPT_DATA_READY && io != NULL && (io->rlen > 0 || io->rend)) {
        return 1;
    }
    return LBER_SBIOD_CTRL_NEXT(sbiod, opt, arg);
}

/* One read from the socket into the free end of the read buffer: its result. */
static ber_slen_t io_fill(struct sdap_io *io)
{
    size_t room;
    ber_slen_t n;

    if (io->rbuf == NULL) {
        io->rbuf = malloc(SDAP_IO_READ_CHUNK);
        if (io->rbuf == NULL) {
            errno = ENOMEM;
            return -1;
        }
    }
    if (io->rlen == 0) {
        io->rstart = 0;
    }
    if (io->rstart + io->rlen == SDAP_IO_READ_CHUNK) {
        if (io->rstart == 0) {
            return (ber_slen_t)io->rlen;    /* full: nothing to add before libldap reads */
        }
        memmove(io->rbuf, io->rbuf + io->rstart, io->rlen);
        io->rstart = 0;
    }
    room = SDAP_IO_READ_CHUNK - io->rstart - io->rlen;
    n = LBER_SBIOD_READ_NEXT(io->sbiod, io->rbuf + io->rstart + io->rlen, room);
    io->rfull = n > 0 && (size_t)n == room;
    if (n > 0) {
        io->rlen += (size_t)n;
    }
    return n;
}

/* A read straight into libldap's memory (the rest of a big message): what it brought, with
 * the end or an error kept for the next read when some bytes are already served. */
static ber_slen_t io_read_direct(struct sdap_io *io, char *buf, size_t len, size_t served)
{
    ber_slen_t n;

    n = LBER_SBIOD_READ_NEXT(io->sbiod, buf + served, len - served);
    io->rfull = n > 0 && (size_t)n == len - served;
    if (n > 0) {
        return (ber_slen_t)served + n;
    }
    if (served == 0) {
        return n;
    }
    if (n == 0 || (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)) {
        io->rend = true;
        io->rerr = n == 0 ? 0 : errno;
    }
    return (ber_slen_t)served;
}

static ber_slen_t io_read(Sockbuf_IO_Desc *sbiod, void *buf, ber_len_t len)
{
    struct sdap_io *io = sbiod->sbiod_pvt;
    size_t served;
    ber_slen_t n;

    if (io->rlen == 0 && io->rend) {
        /* libldap learns of the end itself, and drops its connection (no Unbind is written
         * to a dead socket later). */
        io->rend = false;
        if (io->rerr == 0) {
            return 0;
        }
        errno = io->rerr;
        return -1;
    }
    if (io->rlen == 0) {
        if (len >= SDAP_IO_READ_CHUNK) {
            return io_read_direct(io, buf, len, 0);
        }
        n = io_fill(io);
        if (n <= 0) {
            return n;           /* EOF, EAGAIN or a broken connection: libldap decides */
        }
    }
    served = len < io->rlen ? len : io->rlen;
    memcpy(buf, io->rbuf + io->rstart, served);
    io->rstart += served;
    io->rlen -= served;
    /* liblber takes a short read for "nothing more yet": a big message's rest is asked
     * of the socket now, not after another trip through the loop. */
    if (len - served >= SDAP_IO_READ_CHUNK && !io->rend) {
        return io_read_direct(io, buf, len, served);
    }
    return (ber_slen_t)served;
}

static ber_slen_t io_write(Sockbuf_IO_Desc *sbiod, void *buf, ber_len_t len)
{
    struct sdap_io *io = sbiod->sbiod_pvt;
    bool was_empty = io->len == 0;
    ber_slen_t n = 0;
    errno_t ret;

    if (!io->queueing) {
        return LBER_SBIOD_WRITE_NEXT(sbiod, buf, len);
    }
    /* Bytes go out in order: nothing new is written while older bytes wait. */
    if (was_empty) {
        n = LBER_SBIOD_WRITE_NEXT(sbiod, buf, len);
        if (n < 0) {
            if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
                return n;       /* the connection is broken: libldap says so */
            }
            n = 0;
        }
        if ((ber_len_t)n == len) {
            return n;
        }
    }
    ret = io_queue(io, (const char *)buf + n, len - n);
    if (ret != EOK) {
        errno = ret == ENOBUFS ? EIO : ret;
        return -1;
    }
    if (was_empty && io->notify != NULL) {
        io->notify(io->notify_pvt);
    }
    return (ber_slen_t)len;
}

static int io_close(Sockbuf_IO_Desc *sbiod)
{
    struct sdap_io *io = sbiod->sbiod_pvt;

    if (io != NULL) {
        io->start = 0;
        io->len = 0;        /* unsent bytes die with the socket */
        io->rstart = 0;
        io->rlen = 0;       /* so do unread ones */
        io->rend = false;
    }
    return 0;
}

static Sockbuf_IO sdap_io_ops = {
    .sbi_setup = io_setup,
    .sbi_remove = io_remove,
    .sbi_ctrl = io_ctrl,
    .sbi_read = io_read,
    .sbi_write = io_write,
    .sbi_close = io_close,
};

errno_t sdap_io_install(LDAP *ld, struct sdap_io **_io)
{
    Sockbuf *sb = NULL;
    int lrc;

    if (!SSS_ARG_VALID(ld != NULL) || !SSS_ARG_VALID(_io != NULL)) {
        return EINVAL;
    }
    lrc = ldap_get_option(ld, LDAP_OPT_SOCKBUF, &sb);
    if (lrc != LDAP_OPT_SUCCESS || sb == NULL) {
        return EIO;
    }
    return sdap_io_push(sb, _io);
}

errno_t sdap_io_push(Sockbuf *sb, struct sdap_io **_io)
{
    struct sdap_io *io;

    if (!SSS_ARG_VALID(sb != NULL) || !SSS_ARG_VALID(_io != NULL)) {
        return EINVAL;
    }
    io = calloc(1, sizeof(*io));
    if (io == NULL) {
        return ENOMEM;
    }
    io->queueing = true;
    /* Right above the TCP layer (LBER_SBIOD_LEVEL_PROVIDER), below TLS (TRANSPORT). */
    if (ber_sockbuf_add_io(sb, &sdap_io_ops, LBER_SBIOD_LEVEL_PROVIDER + 1, io) != 0) {
        free(io);
        return EIO;
    }
    *_io = io;
    return EOK;
}

void sdap_io_set_queueing(struct sdap_io *io, bool on)
{
    assert(io != NULL && (on || io->len == 0));
    io->queueing = on;
}

void sdap_io_set_notify(struct sdap_io *io, sdap_io_notify_fn fn, void *pvt)
{
    io->notify = fn;
    io->notify_pvt = pvt;
}

size_t sdap_io_pending(struct sdap_io *io)
{
    return io != NULL ? io->len : 0;
}

errno_t sdap_io_flush(struct sdap_io *io)
{
    ber_slen_t n;

    while (io->len > 0) {
        n = LBER_SBIOD_WRITE_NEXT(io->sbiod, io->buf + io->start, io->len);
        if (n < 0) {
            if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) {
                return EOK;
            }
            return errno != 0 ? errno : EIO;
        }
        io->start += (size_t)n;
        io->len -= (size_t)n;
    }
    io->start = 0;
    return EOK;
}

errno_t sdap_io_fill(struct sdap_io *io)
{
    ber_slen_t n;

    if (io->rend) {
        return EOK;
    }
    n = io_fill(io);
    if (n > 0) {
        return EOK;
    }
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) {
        return EAGAIN;
    }
    io->rend = true;
    io->rerr = n == 0 ? 0 : (errno != 0 ? errno : EIO);
    return EOK;
}

bool sdap_io_filled_up(struct sdap_io *io)
{
    return io != NULL && io->rfull && !io->rend;
}

size_t sdap_io_buffered(struct sdap_io *io)
{
    return io != NULL ? io->rlen : 0;
}
