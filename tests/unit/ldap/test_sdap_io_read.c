/*
 * The read buffer of sdap_io.c under liblber's message reader (ber_get_next), on one end
 * of a socketpair; the test writes LDAP-shaped BER messages on the other end. Below the
 * layer sits the test's own TCP layer, which counts the read() calls the kernel sees:
 *   - many messages that arrived together cost one read, plus the one that says EAGAIN;
 *   - a message trickling in byte by byte is "not yet" until its last byte, then whole;
 *   - a 2 MiB message (straight to the caller's memory) and a small one after it; a
 *     60 kB one already in the socket comes out of one call, in two reads;
 *   - a peer closing mid-message (a small one, and a big one read past the buffer), and
 *     one closing after a whole message read by sdap_io_fill, end as liblber's
 *     "connection closed", never as "not yet";
 *   - the layer says "data ready" exactly while it holds bytes or an unreported end.
 * No LDAP server: the bytes are built here with ber_printf.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include <cmocka.h>

#include "util/util.h"
#include "providers/ldap/sdap_private.h"

struct rig {
    int fds[2];                 /* [0]: ours, non-blocking, under the layers; [1]: peer */
    Sockbuf *sb;
    struct sdap_io *io;
    unsigned int reads;         /* read() calls on fds[0] */
};

/* ---- the counting TCP layer ----------------------------------------------------------- */

static int cnt_setup(Sockbuf_IO_Desc *sbiod, void *arg)
{
    sbiod->sbiod_pvt = arg;
    return 0;
}

static int cnt_remove(Sockbuf_IO_Desc *sbiod)
{
    return 0;
}

static int cnt_ctrl(Sockbuf_IO_Desc *sbiod, int opt, void *arg)
{
    return 0;
}

static ber_slen_t cnt_read(Sockbuf_IO_Desc *sbiod, void *buf, ber_len_t len)
{
    struct rig *r = sbiod->sbiod_pvt;

    r->reads++;
    return read(r->fds[0], buf, len);
}

static ber_slen_t cnt_write(Sockbuf_IO_Desc *sbiod, void *buf, ber_len_t len)
{
    struct rig *r = sbiod->sbiod_pvt;

    return write(r->fds[0], buf, len);
}

static int cnt_close(Sockbuf_IO_Desc *sbiod)
{
    return 0;
}

static Sockbuf_IO cnt_io = {
    .sbi_setup = cnt_setup,
    .sbi_remove = cnt_remove,
    .sbi_ctrl = cnt_ctrl,
    .sbi_read = cnt_read,
    .sbi_write = cnt_write,
    .sbi_close = cnt_close,
};

static int setup(void **state)
{
    struct rig *r = calloc(1, sizeof(*r));

    assert_non_null(r);
    assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, r->fds), 0);
    assert_int_equal(fcntl(r->fds[0], F_SETFL, O_NONBLOCK), 0);
    r->sb = ber_sockbuf_alloc();
    assert_non_null(r->sb);
    assert_int_equal(ber_sockbuf_add_io(r->sb, &cnt_io, LBER_SBIOD_LEVEL_PROVIDER, r), 0);
    assert_int_equal(sdap_io_push(r->sb, &r->io), EOK);
    *state = r;
    return 0;
}

static int teardown(void **state)
{
    struct rig *r = *state;

    ber_sockbuf_free(r->sb);        /* frees the layer too */
    close(r->fds[0]);
    if (r->fds[1] >= 0) {
        close(r->fds[1]);
    }
    free(r);
    return 0;
}

/* ---- messages --------------------------------------------------------------------------- */

/* SEQUENCE { INTEGER id, OCTET STRING of n bytes 'a'+id%26 }: malloc'ed, length in _len. */
static char *make_msg(int id, size_t n, size_t *_len)
{
    BerElement *ber = ber_alloc_t(LBER_USE_DER);
    struct berval *bv = NULL;
    char *val = malloc(n + 1);
    char *out;

    assert_non_null(ber);
    assert_non_null(val);
    memset(val, 'a' + id % 26, n);
    assert_true(ber_printf(ber, "{io}", (ber_int_t)id, val, (ber_len_t)n) >= 0);
    assert_int_equal(ber_flatten(ber, &bv), 0);
    out = malloc(bv->bv_len);
    assert_non_null(out);
    memcpy(out, bv->bv_val, bv->bv_len);
    *_len = bv->bv_len;
    ber_bvfree(bv);
    ber_free(ber, 1);
    free(val);
    return out;
}

static void put(int fd, const char *buf, size_t len)
{
    while (len > 0) {
        ssize_t n = write(fd, buf, len);

        assert_true(n > 0);
        buf += n;
        len -= (size_t)n;
    }
}

/* What ber_get_next says: 1 a whole message (checked to be id with n bytes; ber_get_next
 * leaves ber inside the outer SEQUENCE), 0 "not yet", -1 the connection ended. */
static int get(struct rig *r, int id, size_t n)
{
    BerElement *ber = ber_alloc_t(0);
    ber_len_t len = 0;
    ber_tag_t tag;
    ber_int_t got_id = -1;
    struct berval val = { 0 };
    int ret;

    assert_non_null(ber);
    errno = 0;
    tag = ber_get_next(r->sb, &len, ber);
    if (tag != LBER_DEFAULT) {
        assert_int_equal(tag, LBER_SEQUENCE);
        assert_true(ber_scanf(ber, "im", &got_id, &val) != LBER_ERROR);
        assert_int_equal(got_id, id);
        assert_int_equal(val.bv_len, n);
        for (size_t i = 0; i < n; i++) {
            if (val.bv_val[i] != 'a' + id % 26) {
                fail_msg("byte %zu of message %d is wrong", i, id);
            }
        }
        ret = 1;
    } else {
        ret = (errno == EAGAIN || errno == EWOULDBLOCK) ? 0 : -1;
    }
    ber_free(ber, 1);
    return ret;
}

/* The same for a message that may arrive over several calls: liblber keeps the part read
 * so far in ber, which the caller passes again until the message is whole. */
static int get_partial(struct rig *r, BerElement *ber)
{
    ber_len_t len = 0;

    errno = 0;
    if (ber_get_next(r->sb, &len, ber) != LBER_DEFAULT) {
        return 1;
    }
    return (errno == EAGAIN || errno == EWOULDBLOCK) ? 0 : -1;
}

static bool data_ready(struct rig *r)
{
    return ber_sockbuf_ctrl(r->sb, LBER_SB_OPT_DATA_READY, NULL) > 0;
}

/* ---- tests ------------------------------------------------------------------------------ */

#define BURST 50

static void test_burst_one_read(void **state)
{
    struct rig *r = *state;
    char *all = NULL;
    size_t total = 0;

    for (int i = 0; i < BURST; i++) {
        size_t len;
        char *m = make_msg(i, 40 + (size_t)i, &len);

        all = realloc(all, total + len);
        assert_non_null(all);
        memcpy(all + total, m, len);
        total += len;
        free(m);
    }
    assert_true(total < 16 * 1024);
    put(r->fds[1], all, total);
    free(all);

    assert_false(data_ready(r));
    for (int i = 0; i < BURST; i++) {
        assert_int_equal(get(r, i, 40 + (size_t)i), 1);
        /* libldap asks this before each message instead of polling the socket. */
        assert_true(data_ready(r) == (i < BURST - 1));
    }
    /* One read took the burst (without the buffer: a header and a body read each). */
    assert_int_equal(r->reads, 1);
    assert_int_equal(get(r, BURST, 0), 0);
    assert_int_equal(r->reads, 2);
    assert_int_equal(sdap_io_buffered(r->io), 0);
}

static void test_trickle(void **state)
{
    struct rig *r = *state;
    BerElement *ber = ber_alloc_t(0);
    ber_int_t id = -1;
    struct berval val = { 0 };
    size_t len;
    char *m = make_msg(7, 300, &len);

    assert_non_null(ber);
    for (size_t i = 0; i < len; i++) {
        put(r->fds[1], m + i, 1);
        if (i + 1 < len) {
            assert_int_equal(get_partial(r, ber), 0);
        } else {
            assert_int_equal(get_partial(r, ber), 1);
        }
    }
    assert_true(ber_scanf(ber, "im", &id, &val) != LBER_ERROR);
    assert_int_equal(id, 7);
    assert_int_equal(val.bv_len, 300);
    assert_false(data_ready(r));
    ber_free(ber, 1);
    free(m);
}

struct writer {
    int fd;
    char *buf;
    size_t len;
};

static void *writer_main(void *pvt)
{
    struct writer *w = pvt;
    size_t off = 0;

    while (off < w->len) {
        /* Uneven slices: the reader sees every kind of split. */
        size_t n = w->len - off < 7777 ? w->len - off : 7777;
        ssize_t k = write(w->fd, w->buf + off, n);

        if (k <= 0) {
            break;
        }
        off += (size_t)k;
    }
    return NULL;
}

#define HUGE_LEN (2 * 1024 * 1024)

static void test_huge_then_small(void **state)
{
    struct rig *r = *state;
    struct writer w = { .fd = r->fds[1] };
    size_t l1, l2;
    char *m1 = make_msg(3, HUGE_LEN, &l1);
    char *m2 = make_msg(4, 10, &l2);
    BerElement *ber = ber_alloc_t(0);
    ber_int_t id = -1;
    struct berval val = { 0 };
    pthread_t th;
    int got;

    assert_non_null(ber);
    w.buf = malloc(l1 + l2);
    assert_non_null(w.buf);
    memcpy(w.buf, m1, l1);
    memcpy(w.buf + l1, m2, l2);
    w.len = l1 + l2;
    assert_int_equal(pthread_create(&th, NULL, writer_main, &w), 0);

    while ((got = get_partial(r, ber)) == 0) {
        struct pollfd p = { .fd = r->fds[0], .events = POLLIN };

        assert_true(poll(&p, 1, 5000) == 1);
    }
    assert_int_equal(got, 1);
    assert_true(ber_scanf(ber, "im", &id, &val) != LBER_ERROR);
    assert_int_equal(id, 3);
    assert_int_equal(val.bv_len, HUGE_LEN);
    assert_memory_equal(val.bv_val, m1 + (l1 - HUGE_LEN), HUGE_LEN);
    ber_free(ber, 1);

    pthread_join(th, NULL);
    assert_int_equal(get(r, 4, 10), 1);
    free(w.buf);
    free(m1);
    free(m2);
}

static void test_close_mid_message(void **state)
{
    struct rig *r = *state;
    BerElement *ber = ber_alloc_t(0);
    size_t len;
    char *m = make_msg(5, 1000, &len);

    assert_non_null(ber);
    put(r->fds[1], m, len / 2);
    assert_int_equal(get_partial(r, ber), 0);
    close(r->fds[1]);
    r->fds[1] = -1;
    assert_int_equal(get_partial(r, ber), -1);
    ber_free(ber, 1);
    free(m);
}

/* A message bigger than the buffer, already whole in the socket, comes out of one call:
 * liblber takes a short read for "not yet", so the buffer alone would cut it in two
 * wake-ups of the loop. Two reads: the buffer's, then the rest straight into liblber's. */
static void test_big_in_one_call(void **state)
{
    struct rig *r = *state;
    size_t len;
    char *m = make_msg(8, 60000, &len);

    put(r->fds[1], m, len);
    assert_int_equal(get(r, 8, 60000), 1);
    assert_int_equal(r->reads, 2);
    free(m);
}

/* The same with a message too big for the buffer: its rest is read straight into liblber's
 * memory, where the end must still come out as the end. */
static void test_close_mid_big_message(void **state)
{
    struct rig *r = *state;
    BerElement *ber = ber_alloc_t(0);
    size_t len;
    char *m = make_msg(6, 100000, &len);
    int got = 0;
    int i;

    assert_non_null(ber);
    put(r->fds[1], m, 40000);
    close(r->fds[1]);
    r->fds[1] = -1;
    for (i = 0; i < 10 && got == 0; i++) {
        got = get_partial(r, ber);
    }
    assert_int_equal(got, -1);
    /* A buffer, then one direct read of the rest, then the end: no read per byte. */
    assert_true(r->reads <= 4);
    ber_free(ber, 1);
    free(m);
}

/* The dispatcher's way: sdap_io_fill once per wake-up, then messages while data ready. */
static void test_fill_then_end(void **state)
{
    struct rig *r = *state;
    size_t len;
    char *m = make_msg(9, 100, &len);

    put(r->fds[1], m, len);
    close(r->fds[1]);
    r->fds[1] = -1;
    assert_int_equal(sdap_io_fill(r->io), EOK);
    assert_int_equal(sdap_io_buffered(r->io), len);
    assert_true(data_ready(r));
    assert_int_equal(get(r, 9, 100), 1);
    assert_false(data_ready(r));
    /* The next wake-up finds the end: ldap_result() must then learn of it from a read,
     * without a poll that would say nothing new. */
    assert_int_equal(sdap_io_fill(r->io), EOK);
    assert_true(data_ready(r));
    assert_int_equal(get(r, 0, 0), -1);
    assert_false(data_ready(r));
    free(m);
}

static void test_fill_nothing(void **state)
{
    struct rig *r = *state;

    assert_int_equal(sdap_io_fill(r->io), EAGAIN);
    assert_false(data_ready(r));
    assert_int_equal(r->reads, 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_burst_one_read, setup, teardown),
        cmocka_unit_test_setup_teardown(test_trickle, setup, teardown),
        cmocka_unit_test_setup_teardown(test_huge_then_small, setup, teardown),
        cmocka_unit_test_setup_teardown(test_close_mid_message, setup, teardown),
        cmocka_unit_test_setup_teardown(test_big_in_one_call, setup, teardown),
        cmocka_unit_test_setup_teardown(test_close_mid_big_message, setup, teardown),
        cmocka_unit_test_setup_teardown(test_fill_then_end, setup, teardown),
        cmocka_unit_test_setup_teardown(test_fill_nothing, setup, teardown),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
