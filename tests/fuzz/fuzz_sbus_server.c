/*
 * libFuzzer harness for the master bus (src/sbus/sbus_server*.c): a real server on a socket
 * in a private directory, one real sbus peer owning "sssd.nss" behind it, and, per input, a
 * fresh raw libdbus client that sends whatever the input describes, as a hostile or broken
 * local peer could: raw marshalled messages, calls of the org.freedesktop.DBus methods with
 * arbitrary arguments, calls and signals to any name, replies and errors to any serial.
 * Everything runs on one tevent loop. After each input the client disconnects and the server
 * must be back to the peers it had (else abort: a peer leaked).
 *
 * Input: a sequence of records, each [kind byte][fields]; a string field is [len byte][bytes].
 */
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/util.h"
#include "sbus/sbus.h"
#include "sbus/sbus_server.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
size_t __sanitizer_get_current_allocated_bytes(void);

struct fuzz_input {
    const uint8_t *p;
    size_t left;
};

static struct tevent_context *ev;
static struct sbus_server *server;
static unsigned int baseline;

static void timer_fired(struct tevent_context *e, struct tevent_timer *t, struct timeval tv,
                        void *p)
{
    (void)e; (void)t; (void)tv;
    *(bool *)p = true;
}

/* tevent's epoll descriptor: readable when one of the loop's descriptors is. */
static int loop_fd = -1;

/* The newest epoll descriptor of the process, right after tevent_context_init: the loop's
 * (nothing else here uses epoll). -1 when none is found: turn() then waits as it can. */
static int find_loop_fd(void)
{
    char link[64];
    char target[64];
    ssize_t n;
    int found = -1;
    int fd;

    for (fd = 0; fd < 1024; fd++) {
        snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
        n = readlink(link, target, sizeof(target) - 1);
        if (n > 0) {
            target[n] = '\0';
            if (strcmp(target, "anon_inode:[eventpoll]") == 0) {
                found = fd;
            }
        }
    }
    return found;
}

/* One turn of the loop; true when nothing happened in it. Every actor (client, server,
 * peer) lives in this thread on local sockets, so "nothing to do" is known without waiting:
 * when no descriptor is ready, a timer due now lets tevent run a pending immediate or
 * timer first (then the turn did something) or fire it (idle). Waiting 1 ms instead, as
 * this harness first did, left it asleep most of the time: about 0.1-0.2 CPU-seconds a
 * second, too little for make fuzz-long's CPU budget. */
static bool turn(void)
{
    struct pollfd pfd = { .fd = loop_fd, .events = POLLIN };
    struct tevent_timer *t;
    struct timeval when;
    bool idle = false;

    if (loop_fd >= 0 && poll(&pfd, 1, 0) == 0) {
        when = tevent_timeval_current();
    } else {
        /* Something is ready (epoll_wait returns at once), or the loop's fd is unknown. */
        when = tevent_timeval_current_ofs(0, 1000);
    }
    t = tevent_add_timer(ev, ev, when, timer_fired, &idle);
    tevent_loop_once(ev);
    if (!idle) {
        talloc_free(t);
    }
    return idle;
}

static void setup(void)
{
    char tmpl[] = "/tmp/fuzz_sbus_server.XXXXXX";
    struct sbus_connection *peer = NULL;
    struct tevent_req *req;
    char *dir;
    char *path;
    int i;

    debug_level = getenv("FUZZ_DEBUG") != NULL ? 0xfff0 : 0;
    ev = tevent_context_init(NULL);
    loop_fd = find_loop_fd();
    dir = mkdtemp(tmpl);
    path = talloc_asprintf(ev, "%s/bus", dir != NULL ? dir : "/nonexistent");
    if (ev == NULL || dir == NULL || path == NULL
            || sbus_server_create(ev, ev, path, geteuid(), &server) != EOK) {
        abort();
    }
    req = sbus_connect_send(ev, ev, sbus_server_get_address(server), "sssd.nss");
    for (i = 0; req != NULL && tevent_req_is_in_progress(req) && i < 10000; i++) {
        turn();
    }
    if (req == NULL || (i = sbus_connect_recv(ev, req, &peer)) != EOK) {
        fprintf(stderr, "cannot connect a peer to the bus: %d\n", req == NULL ? ENOMEM : i);
        abort();
    }
    talloc_free(req);
    baseline = sbus_server_connection_count(server);
}

static uint8_t take_byte(struct fuzz_input *in)
{
    uint8_t b = 0;

    if (in->left > 0) {
        b = *in->p++;
        in->left--;
    }
    return b;
}

/* A NUL-terminated copy of the next string field, on mem_ctx. */
static char *take_string(TALLOC_CTX *mem_ctx, struct fuzz_input *in)
{
    size_t len = take_byte(in);

    len = len < in->left ? len : in->left;
    in->p += len;
    in->left -= len;
    return talloc_strndup(mem_ctx, (const char *)in->p - len, len);
}

/* Names libdbus would refuse to put in a message (it aborts on them) become fixed ones. */
static const char *valid_or(const char *s, dbus_bool_t (*check)(const char *, DBusError *),
                            const char *fallback)
{
    return s != NULL && check(s, NULL) ? s : fallback;
}

static const char *const dbus_methods[] = {
    "Hello", "RequestName", "ReleaseName", "NameHasOwner", "ListNames",
    "ListActivatableNames", "GetNameOwner", "GetConnectionUnixUser",
    "GetConnectionUnixProcessID", "AddMatch", "RemoveMatch", "GetId", "Introspect", "Ping",
};

static const char *const known_names[] = {
    "sssd.nss", "sssd.monitor", "org.freedesktop.DBus", ":1.1", ":1.2", ":1.0",
};

/* Appends arguments described by the input: a count, then typed values. */
static void append_args(TALLOC_CTX *tmp, DBusMessage *msg, struct fuzz_input *in)
{
    uint8_t n = take_byte(in) % 4;
    uint8_t i;

    for (i = 0; i < n; i++) {
        uint8_t type = take_byte(in) % 3;
        const char *s;
        dbus_uint32_t u;

        if (type == 0) {
            s = take_string(tmp, in);
            if (s != NULL && dbus_validate_utf8(s, NULL)) {
                dbus_message_append_args(msg, DBUS_TYPE_STRING, &s, DBUS_TYPE_INVALID);
            }
        } else if (type == 1) {
            u = take_byte(in) | (uint32_t)take_byte(in) << 8;
            dbus_message_append_args(msg, DBUS_TYPE_UINT32, &u, DBUS_TYPE_INVALID);
        } else {
            s = valid_or(take_string(tmp, in), dbus_validate_bus_name, "sssd.nss");
            dbus_message_append_args(msg, DBUS_TYPE_STRING, &s, DBUS_TYPE_INVALID);
        }
    }
}

/* The next message the input describes, or NULL (skipped). */
static DBusMessage *next_message(TALLOC_CTX *tmp, struct fuzz_input *in)
{
    uint8_t kind = take_byte(in) % 6;
    DBusMessage *msg = NULL;
    const char *dest;
    const char *path;
    const char *iface;
    const char *member;
    size_t len;

    switch (kind) {
    case 0:     /* raw bytes, as libdbus marshals them */
        len = take_byte(in) | (size_t)take_byte(in) << 8;
        len = len < in->left ? len : in->left;
        msg = dbus_message_demarshal((const char *)in->p, (int)len, NULL);
        in->p += len;
        in->left -= len;
        break;
    case 1:     /* the bus's own interface */
        member = dbus_methods[take_byte(in) % (sizeof(dbus_methods) / sizeof(char *))];
        iface = strcmp(member, "Introspect") == 0 ? "org.freedesktop.DBus.Introspectable"
              : strcmp(member, "Ping") == 0 ? "org.freedesktop.DBus.Peer"
              : "org.freedesktop.DBus";
        msg = dbus_message_new_method_call("org.freedesktop.DBus", "/org/freedesktop/DBus",
                                           iface, member);
        break;
    case 2:     /* a call to a name, known or not */
    case 3:     /* a signal, broadcast or to a name */
        dest = take_byte(in) & 1
             ? known_names[take_byte(in) % (sizeof(known_names) / sizeof(char *))]
             : valid_or(take_string(tmp, in), dbus_validate_bus_name, "sssd.pam");
        path = valid_or(take_string(tmp, in), dbus_validate_path, "/sssd");
        iface = valid_or(take_string(tmp, in), dbus_validate_interface, "sssd.monitor");
        member = valid_or(take_string(tmp, in), dbus_validate_member, "resInit");
        if (kind == 2) {
            msg = dbus_message_new_method_call(dest, path, iface, member);
        } else {
            msg = dbus_message_new_signal(path, iface, member);
            if (msg != NULL && take_byte(in) & 1) {
                dbus_message_set_destination(msg, dest);
            }
        }
        break;
    case 4:     /* a reply to a serial it never received */
    case 5:     /* an error reply */
        msg = dbus_message_new(kind == 4 ? DBUS_MESSAGE_TYPE_METHOD_RETURN
                                         : DBUS_MESSAGE_TYPE_ERROR);
        if (msg != NULL) {
            dbus_message_set_reply_serial(msg, 1 + take_byte(in));
            dbus_message_set_destination(msg, known_names[take_byte(in) % 4]);
            if (kind == 5) {
                dbus_message_set_error_name(msg, "org.freedesktop.DBus.Error.Failed");
            }
        }
        break;
    }
    if (msg != NULL && kind != 0) {
        if (take_byte(in) & 1) {
            dbus_message_set_no_reply(msg, TRUE);
        }
        append_args(tmp, msg, in);
    }
    return msg;
}

/* Runs the loop and the client until the client has nothing left to send and the bus is
 * quiet, within a bound: a server that never answers must not stall the fuzzer. */
static void pump(DBusConnection *client)
{
    DBusMessage *in;
    int i;

    int idle = 0;

    for (i = 0; i < 2000 && idle < 3; i++) {
        dbus_connection_read_write(client, 0);
        while ((in = dbus_connection_pop_message(client)) != NULL) {
            dbus_message_unref(in);
            idle = 0;
        }
        if (turn() && !dbus_connection_has_messages_to_send(client)) {
            idle++;
        } else {
            idle = 0;
        }
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct fuzz_input in = { data, size };
    DBusConnection *client;
    TALLOC_CTX *tmp;
    int count = 0;
    int i;

    if (ev == NULL) {
        setup();
    }
    client = dbus_connection_open_private(sbus_server_get_address(server), NULL);
    if (client == NULL) {
        abort();
    }
    tmp = talloc_new(NULL);
    while (in.left > 0 && count < 64) {
        DBusMessage *msg = next_message(tmp, &in);

        if (msg != NULL) {
            dbus_connection_send(client, msg, NULL);
            dbus_message_unref(msg);
            count++;
        }
    }
    talloc_free(tmp);
    pump(client);
    dbus_connection_close(client);
    dbus_connection_unref(client);
    for (i = 0; i < 5000 && sbus_server_connection_count(server) != baseline; i++) {
        turn();
    }
    if (sbus_server_connection_count(server) != baseline) {
        abort();        /* the server kept a peer that has gone */
    }
    if (getenv("FUZZ_DEBUG") != NULL) {
        fprintf(stderr, "talloc blocks %zu bytes %zu, heap %zu\n", talloc_total_blocks(ev),
                talloc_total_size(ev), __sanitizer_get_current_allocated_bytes());
    }
    return 0;
}
