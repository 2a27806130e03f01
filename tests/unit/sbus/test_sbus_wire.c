/*
 * Unit tests of the master bus's own wire handling (src/sbus/sbus_wire*.c,
 * sbus_server_auth.c, sbus_server_io.c), at the byte level where a libdbus client cannot go:
 * a real server on a socket in a fresh temporary directory, driven by this process's tevent
 * loop, and raw clients on plain sockets that write exactly the bytes a test wants (the
 * authentication lines, big-endian messages built by hand, garbage, half messages) and read
 * what the server answers between turns of the loop. Also the parser on its own: framing
 * limits and the sender stamp of a big-endian message.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <dbus/dbus.h>

#include "util/util.h"
#include "sbus/sbus_server.h"
#include "sbus/sbus_server_auth.h"
#include "sbus/sbus_wire.h"
#include "tests/unit/common/tc_common.h"
#include "tests/unit/common/tc_bus.h"

#define TEST_DEADLINE_SEC 30

struct test_ctx {
    struct tc_bus_fixture bus;      /* the server, its loop and directory */
};

static int setup(void **state)
{
    struct test_ctx *t;

    t = talloc_zero(NULL, struct test_ctx);
    assert_non_null(t);
    tc_bus_fixture_start(t, &t->bus, "test_sbus_wire", getuid());
    *state = t;
    return 0;
}

static int teardown(void **state)
{
    struct test_ctx *t = *state;

    tc_bus_fixture_stop(&t->bus);
    talloc_free(t);
    return 0;
}

/* -------- a raw client -------- */

struct raw {
    int fd;
    uint8_t in[65536];
    size_t in_len;
    bool eof;
};

static void wakeup(struct tevent_context *ev, struct tevent_timer *te, struct timeval now,
                   void *pvt)
{
    *(bool *)pvt = true;
}

/* One turn of the server's loop (woken by a short timer at the latest), then whatever the
 * server sent the client meanwhile. */
static void turn(struct test_ctx *t, struct raw *c)
{
    struct tevent_timer *te;
    bool fired = false;
    ssize_t n;

    te = tevent_add_timer(t->bus.ev, t, tevent_timeval_current_ofs(0, 2000), wakeup, &fired);
    assert_non_null(te);
    assert_int_equal(tevent_loop_once(t->bus.ev), 0);
    if (!fired) {
        talloc_free(te);
    }
    while (c != NULL && !c->eof && c->in_len < sizeof(c->in)) {
        n = recv(c->fd, c->in + c->in_len, sizeof(c->in) - c->in_len, MSG_DONTWAIT);
        if (n == 0 || (n < 0 && errno == ECONNRESET)) {
            c->eof = true;
        } else if (n < 0) {
            assert_true(errno == EAGAIN || errno == EWOULDBLOCK);
            break;
        } else {
            c->in_len += (size_t)n;
        }
    }
}

/* Turns the loop until cond holds; fails the test after TEST_DEADLINE_SEC. */
static void turn_until(struct test_ctx *t, struct raw *c, bool (*cond)(struct raw *))
{
    struct timeval deadline = tevent_timeval_current_ofs(TEST_DEADLINE_SEC, 0);
    struct timeval now;

    while (!cond(c)) {
        now = tevent_timeval_current();
        if (tevent_timeval_compare(&now, &deadline) > 0) {
            fail_msg("timed out waiting for the server");
        }
        turn(t, c);
    }
}

static bool has_line(struct raw *c)
{
    return c->eof || memmem(c->in, c->in_len, "\r\n", 2) != NULL;
}

static bool has_eof(struct raw *c)
{
    return c->eof;
}

static bool has_message(struct raw *c)
{
    size_t size;

    return c->eof || (sbus_wire_message_size(c->in, c->in_len, &size) == EOK
                      && size <= c->in_len);
}

static void raw_send(struct raw *c, const void *data, size_t len)
{
    assert_int_equal(send(c->fd, data, len, MSG_NOSIGNAL), (ssize_t)len);
}

/* The first line the server sent, consumed; "" when the connection closed first. */
static void raw_line(struct test_ctx *t, struct raw *c, char *buf, size_t size)
{
    uint8_t *eol;
    size_t len;

    turn_until(t, c, has_line);
    eol = memmem(c->in, c->in_len, "\r\n", 2);
    if (eol == NULL) {
        buf[0] = '\0';
        return;
    }
    len = (size_t)(eol - c->in);
    assert_true(len < size);
    memcpy(buf, c->in, len);
    buf[len] = '\0';
    c->in_len -= len + 2;
    memmove(c->in, eol + 2, c->in_len);
}

static void raw_connect(struct test_ctx *t, struct raw *c)
{
    struct sockaddr_un sa = { .sun_family = AF_UNIX };

    memset(c, 0, sizeof(*c));
    strcpy(sa.sun_path, t->bus.socket_path);
    c->fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    assert_true(c->fd >= 0);
    assert_int_equal(connect(c->fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
}

/* The credentials byte and AUTH EXTERNAL naming our uid, up to OK. */
static void raw_auth(struct test_ctx *t, struct raw *c, bool begin)
{
    char uid[32], line[128], hex[64];
    size_t i;

    snprintf(uid, sizeof(uid), "%lu", (unsigned long)getuid());
    for (i = 0; uid[i] != '\0'; i++) {
        snprintf(hex + 2 * i, 3, "%02x", (unsigned char)uid[i]);
    }
    raw_send(c, "", 1);
    snprintf(line, sizeof(line), "AUTH EXTERNAL %s\r\n", hex);
    raw_send(c, line, strlen(line));
    raw_line(t, c, line, sizeof(line));
    assert_true(strncmp(line, "OK ", 3) == 0);
    assert_int_equal(strlen(line), 3 + SBUS_AUTH_GUID_LEN);
    if (begin) {
        raw_send(c, "BEGIN\r\n", 7);
    }
}

static void raw_close(struct raw *c)
{
    close(c->fd);
    c->fd = -1;
}

/* -------- hand-built messages, in either byte order -------- */

struct builder {
    uint8_t buf[1024];
    size_t len;
    bool big_endian;
};

static void put32(uint8_t *p, uint32_t v, bool big_endian)
{
    int i;

    for (i = 0; i < 4; i++) {
        p[big_endian ? i : 3 - i] = (uint8_t)(v >> (24 - 8 * i));
    }
}

static uint32_t get32(const uint8_t *p, bool big_endian)
{
    uint32_t v = 0;
    int i;

    for (i = 0; i < 4; i++) {
        v |= (uint32_t)p[big_endian ? i : 3 - i] << (24 - 8 * i);
    }
    return v;
}

static void b_pad(struct builder *b, size_t align)
{
    while (b->len % align != 0) {
        b->buf[b->len++] = 0;
    }
}

/* A string-like header field (type 's' or 'o'). */
static void b_field(struct builder *b, uint8_t code, char type, const char *value)
{
    size_t len = strlen(value);

    b_pad(b, 8);
    b->buf[b->len++] = code;
    b->buf[b->len++] = 1;
    b->buf[b->len++] = (uint8_t)type;
    b->buf[b->len++] = 0;
    put32(b->buf + b->len, (uint32_t)len, b->big_endian);
    b->len += 4;
    memcpy(b->buf + b->len, value, len + 1);
    b->len += len + 1;
}

static void b_field_u(struct builder *b, uint8_t code, uint32_t value)
{
    b_pad(b, 8);
    b->buf[b->len++] = code;
    b->buf[b->len++] = 1;
    b->buf[b->len++] = 'u';
    b->buf[b->len++] = 0;
    put32(b->buf + b->len, value, b->big_endian);
    b->len += 4;
}

/* A method call without a body; unix_fds > 0 adds a UNIX_FDS field. */
static size_t b_call(struct builder *b, bool big_endian, uint32_t serial,
                     const char *destination, const char *path, const char *interface,
                     const char *member, uint32_t unix_fds)
{
    b->big_endian = big_endian;
    b->buf[0] = big_endian ? 'B' : 'l';
    b->buf[1] = DBUS_MESSAGE_TYPE_METHOD_CALL;
    b->buf[2] = 0;
    b->buf[3] = 1;
    put32(b->buf + 4, 0, big_endian);
    put32(b->buf + 8, serial, big_endian);
    b->len = 16;
    b_field(b, DBUS_HEADER_FIELD_PATH, 'o', path);
    b_field(b, DBUS_HEADER_FIELD_DESTINATION, 's', destination);
    if (interface != NULL) {
        b_field(b, DBUS_HEADER_FIELD_INTERFACE, 's', interface);
    }
    b_field(b, DBUS_HEADER_FIELD_MEMBER, 's', member);
    if (unix_fds > 0) {
        b_field_u(b, DBUS_HEADER_FIELD_UNIX_FDS, unix_fds);
    }
    put32(b->buf + 12, (uint32_t)(b->len - 16), big_endian);
    b_pad(b, 8);
    return b->len;
}

/* The next message the server sent, whatever it is, consumed and parsed into h. */
static size_t raw_any_message(struct test_ctx *t, struct raw *c, uint8_t *buf, size_t size,
                              struct sbus_wire_header *h)
{
    size_t len = 0;

    turn_until(t, c, has_message);
    assert_false(c->eof);
    assert_int_equal(sbus_wire_message_size(c->in, c->in_len, &len), EOK);
    assert_true(len <= size);
    memcpy(buf, c->in, len);
    c->in_len -= len;
    memmove(c->in, c->in + len, c->in_len);
    assert_int_equal(sbus_wire_parse(buf, len, h), EOK);
    return len;
}

/* The next message the server sent, consumed and parsed into h (its bytes into buf);
 * signals of the bus itself (NameAcquired after Hello) are skipped. */
static size_t raw_message(struct test_ctx *t, struct raw *c, uint8_t *buf, size_t size,
                          struct sbus_wire_header *h)
{
    size_t len;

    do {
        len = raw_any_message(t, c, buf, size, h);
    } while (h->type == DBUS_MESSAGE_TYPE_SIGNAL
             && sbus_wire_equal(buf, h->sender, DBUS_SERVICE_DBUS));
    return len;
}

/* Sends a call to ourselves and checks that it comes back stamped with our name. */
static void raw_poke_self(struct test_ctx *t, struct raw *c, bool big_endian,
                          const char *name, uint32_t serial)
{
    struct sbus_wire_header h;
    struct builder b;
    uint8_t msg[1024];
    DBusMessage *dmsg;

    raw_send(c, b.buf, b_call(&b, big_endian, serial, name, "/x", "org.test.Iface", "Poke",
                              0));
    raw_message(t, c, msg, sizeof(msg), &h);
    assert_true(h.big_endian == big_endian);
    assert_int_equal(msg[0], big_endian ? 'B' : 'l');
    assert_int_equal(h.type, DBUS_MESSAGE_TYPE_METHOD_CALL);
    assert_int_equal(h.serial, serial);
    assert_true(sbus_wire_equal(msg, h.sender, name));
    assert_true(sbus_wire_equal(msg, h.member, "Poke"));
    assert_true(sbus_wire_equal(msg, h.interface, "org.test.Iface"));
    /* and libdbus reads what we forwarded */
    dmsg = dbus_message_demarshal((const char *)msg, (int)(h.header_len + h.body_len), NULL);
    assert_non_null(dmsg);
    assert_string_equal(dbus_message_get_sender(dmsg), name);
    dbus_message_unref(dmsg);
}

/* Hello in the given byte order; the unique name the bus gave, from its reply. */
static void raw_hello(struct test_ctx *t, struct raw *c, bool big_endian, char *name,
                      size_t size)
{
    struct builder b;
    struct sbus_wire_header h;
    uint8_t reply[1024];
    uint32_t len;

    raw_send(c, b.buf, b_call(&b, big_endian, 1, DBUS_SERVICE_DBUS, DBUS_PATH_DBUS,
                              DBUS_INTERFACE_DBUS, "Hello", 0));
    raw_message(t, c, reply, sizeof(reply), &h);
    assert_int_equal(h.type, DBUS_MESSAGE_TYPE_METHOD_RETURN);
    assert_int_equal(h.reply_serial, 1);
    assert_true(sbus_wire_equal(reply, h.signature, "s"));
    len = get32(reply + h.header_len, h.big_endian);
    assert_true(len < size && h.header_len + 4 + len < h.header_len + h.body_len);
    memcpy(name, reply + h.header_len + 4, len);
    name[len] = '\0';
    assert_true(strncmp(name, ":1.", 3) == 0);
}

/* -------- tests -------- */

/* A big-endian peer is served in its byte order: its Hello is answered, and a call it
 * sends (to itself) comes back as it sent it, big-endian, stamped with its name. */
static void test_big_endian(void **state)
{
    struct test_ctx *t = *state;
    char name[64];
    struct raw c;

    raw_connect(t, &c);
    raw_auth(t, &c, true);
    raw_hello(t, &c, true, name, sizeof(name));
    raw_poke_self(t, &c, true, name, 2);
    raw_poke_self(t, &c, false, name, 3);
    raw_close(&c);
}

/* Unix fds: the bus passes none. Asking for them gets ERROR (the client carries on
 * without), a message announcing some costs the connection. */
static void test_unix_fds_refused(void **state)
{
    struct test_ctx *t = *state;
    struct builder b;
    char line[128];
    char name[64];
    struct raw c;

    raw_connect(t, &c);
    raw_auth(t, &c, false);
    raw_send(&c, "NEGOTIATE_UNIX_FD\r\n", 19);
    raw_line(t, &c, line, sizeof(line));
    assert_true(strncmp(line, "ERROR", 5) == 0);
    raw_send(&c, "BEGIN\r\n", 7);
    raw_hello(t, &c, false, name, sizeof(name));
    assert_int_equal(sbus_server_connection_count(t->bus.server), 1);

    raw_send(&c, b.buf, b_call(&b, false, 2, name, "/x", NULL, "Poke", 1));
    turn_until(t, &c, has_eof);
    raw_close(&c);
    turn(t, NULL);
    assert_int_equal(sbus_server_connection_count(t->bus.server), 0);
}

/* Bytes that are not a D-Bus message, or a message larger than the specification allows,
 * cost the connection at once (nothing is buffered for them); other peers carry on. */
static void test_garbage_and_oversize(void **state)
{
    struct test_ctx *t = *state;
    uint8_t big[16] = { 'l', DBUS_MESSAGE_TYPE_METHOD_CALL, 0, 1 };
    struct raw c, ok;
    char name[64];

    raw_connect(t, &ok);
    raw_auth(t, &ok, true);
    raw_hello(t, &ok, false, name, sizeof(name));

    raw_connect(t, &c);
    raw_auth(t, &c, true);
    raw_send(&c, "GET / HTTP/1.0\r\n\r\n", 18);
    turn_until(t, &c, has_eof);
    raw_close(&c);

    /* body length 200 MiB, header fields 16 bytes: past the 128 MiB limit */
    put32(big + 4, 200u * 1024 * 1024, false);
    put32(big + 8, 1, false);
    put32(big + 12, 16, false);
    raw_connect(t, &c);
    raw_auth(t, &c, true);
    raw_send(&c, big, sizeof(big));
    turn_until(t, &c, has_eof);
    raw_close(&c);

    turn(t, NULL);
    assert_int_equal(sbus_server_connection_count(t->bus.server), 1);
    /* the first peer is still served */
    raw_poke_self(t, &ok, false, name, 2);
    raw_close(&ok);
}

/* A peer that stops in the middle of a message holds up nobody: another peer is served
 * meanwhile, and the message is handled once its last byte arrives. */
static void test_stalled_peer(void **state)
{
    struct test_ctx *t = *state;
    struct sbus_wire_header h;
    struct builder b;
    uint8_t msg[1024];
    char name[64], other[64];
    struct raw slow, fast;
    size_t len;
    int i;

    raw_connect(t, &slow);
    raw_auth(t, &slow, true);
    raw_hello(t, &slow, false, name, sizeof(name));
    len = b_call(&b, false, 2, name, "/x", NULL, "Poke", 0);
    raw_send(&slow, b.buf, len / 2);

    raw_connect(t, &fast);
    raw_auth(t, &fast, true);
    raw_hello(t, &fast, false, other, sizeof(other));
    raw_poke_self(t, &fast, false, other, 2);
    for (i = 0; i < 10; i++) {
        turn(t, &slow);
    }
    assert_false(slow.eof);

    raw_send(&slow, b.buf + len / 2, len - len / 2);
    raw_message(t, &slow, msg, sizeof(msg), &h);
    assert_true(sbus_wire_equal(msg, h.member, "Poke"));
    assert_true(sbus_wire_equal(msg, h.sender, name));
    raw_close(&slow);
    raw_close(&fast);
}

/* EXTERNAL naming another uid is rejected; BEGIN before OK ends the connection. */
static void test_auth_refusals(void **state)
{
    struct test_ctx *t = *state;
    char line[128];
    struct raw c;

    raw_connect(t, &c);
    raw_send(&c, "", 1);
    /* "4242" */
    raw_send(&c, "AUTH EXTERNAL 34323432\r\n", 24);
    raw_line(t, &c, line, sizeof(line));
    if (getuid() != 4242) {
        assert_string_equal(line, "REJECTED EXTERNAL");
    }
    raw_send(&c, "AUTH ANONYMOUS\r\n", 16);
    raw_line(t, &c, line, sizeof(line));
    assert_string_equal(line, "REJECTED EXTERNAL");
    raw_send(&c, "BEGIN\r\n", 7);
    turn_until(t, &c, has_eof);
    raw_close(&c);
    turn(t, NULL);
    assert_int_equal(sbus_server_connection_count(t->bus.server), 0);
}

/* The parser alone: framing refuses what no buffer should be grown for. */
static void test_framing_limits(void **state)
{
    uint8_t hdr[16] = { 'l', DBUS_MESSAGE_TYPE_METHOD_CALL, 0, 1 };
    size_t size;

    (void)state;
    assert_int_equal(sbus_wire_message_size(hdr, 15, &size), EAGAIN);
    put32(hdr + 4, 8, false);
    put32(hdr + 12, 10, false);
    assert_int_equal(sbus_wire_message_size(hdr, 16, &size), EOK);
    assert_int_equal(size, 16 + 16 + 8);
    put32(hdr + 4, SBUS_WIRE_MAX_MESSAGE, false);
    assert_int_equal(sbus_wire_message_size(hdr, 16, &size), EBADMSG);
    put32(hdr + 4, 8, false);
    hdr[0] = 'x';
    assert_int_equal(sbus_wire_message_size(hdr, 16, &size), EBADMSG);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_framing_limits),
        cmocka_unit_test_setup_teardown(test_big_endian, setup, teardown),
        cmocka_unit_test_setup_teardown(test_unix_fds_refused, setup, teardown),
        cmocka_unit_test_setup_teardown(test_garbage_and_oversize, setup, teardown),
        cmocka_unit_test_setup_teardown(test_stalled_peer, setup, teardown),
        cmocka_unit_test_setup_teardown(test_auth_refusals, setup, teardown),
    };
    const char *level = getenv("TEST_DEBUG_LEVEL");
    int failed;

    debug_level = level != NULL ? debug_convert_level((int)strtol(level, NULL, 0))
                                : SSSDBG_DEFAULT;
    failed = cmocka_run_group_tests(tests, NULL, NULL);
    dbus_shutdown();
    return failed;
}
