/*
 * Runs dbus-broker privately, without systemd, for bench_bus.sh. dbus-broker-launch cannot
 * be used here: it opens the journal socket (/run/systemd/journal/socket) at start and exits
 * without it. dbus-broker itself needs only a controller: a peer-to-peer D-Bus connection on
 * the fd given by --controller, over which the controller hands it a listening socket and a
 * policy (org.bus1.DBus.Broker.AddListener). This program is that controller: it spawns
 * dbus-broker through libdbus's unixexec transport (the broker's stdin/stdout are our
 * socketpair, hence --controller 0), binds SOCKET_PATH, adds it with an allow-everything
 * policy, prints "ready", and stays connected; when it goes, the broker exits.
 *
 * Usage: bench_bus_broker SOCKET_PATH [DBUS_BROKER_BINARY]
 */
#include <dbus/dbus.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

/* The policy type of dbus-broker 33 (Debian 12): per-uid batches, per-gid/uid-range batches,
 * SELinux labels, AppArmor switch and bus type. A batch: connect verdict and priority, own
 * rules (verdict, priority, prefix, name), send and receive rules (verdict, priority, name,
 * path, interface, member, message type, broadcast, min fds, max fds). */
#define BATCH_T "bta(btbs)a(btssssuutt)a(btssssuutt)"
#define POLICY_T "(a(u(" BATCH_T "))a(buu(" BATCH_T "))a(ss)bs)"

static void die(const char *what, DBusError *error)
{
    fprintf(stderr, "bench_bus_broker: %s%s%s\n", what, error != NULL ? ": " : "",
            error != NULL && error->message != NULL ? error->message : "");
    exit(1);
}

static void append(DBusMessageIter *it, int type, const void *value)
{
    if (!dbus_message_iter_append_basic(it, type, value)) {
        die("out of memory", NULL);
    }
}

static void open_c(DBusMessageIter *it, int type, const char *sig, DBusMessageIter *sub)
{
    if (!dbus_message_iter_open_container(it, type, sig, sub)) {
        die("out of memory", NULL);
    }
}

static void close_c(DBusMessageIter *it, DBusMessageIter *sub)
{
    if (!dbus_message_iter_close_container(it, sub)) {
        die("out of memory", NULL);
    }
}

/* One send or receive rule allowing every message. */
static void append_xmit_allow(DBusMessageIter *batch)
{
    DBusMessageIter arr, rec;
    const dbus_bool_t allow = TRUE;
    const dbus_uint64_t prio = 1, min_fds = 0, max_fds = UINT64_MAX;
    const dbus_uint32_t zero = 0;
    const char *any = "";
    int i;

    open_c(batch, DBUS_TYPE_ARRAY, "(btssssuutt)", &arr);
    open_c(&arr, DBUS_TYPE_STRUCT, NULL, &rec);
    append(&rec, DBUS_TYPE_BOOLEAN, &allow);
    append(&rec, DBUS_TYPE_UINT64, &prio);
    for (i = 0; i < 4; i++) {
        append(&rec, DBUS_TYPE_STRING, &any);   /* name, path, interface, member */
    }
    append(&rec, DBUS_TYPE_UINT32, &zero);      /* any message type */
    append(&rec, DBUS_TYPE_UINT32, &zero);      /* broadcast or not */
    append(&rec, DBUS_TYPE_UINT64, &min_fds);
    append(&rec, DBUS_TYPE_UINT64, &max_fds);
    close_c(&arr, &rec);
    close_c(batch, &arr);
}

/* Variant of POLICY_T: every uid may connect, own any name, send and receive anything. */
static void append_policy(DBusMessageIter *it)
{
    DBusMessageIter var, pol, uids, uid, batch, owns, own, empty;
    const dbus_uint32_t fallback_uid = UINT32_MAX;
    const dbus_bool_t yes = TRUE, no = FALSE;
    const dbus_uint64_t prio = 1;
    const char *any = "", *bus_type = "session";

    open_c(it, DBUS_TYPE_VARIANT, POLICY_T, &var);
    open_c(&var, DBUS_TYPE_STRUCT, NULL, &pol);

    open_c(&pol, DBUS_TYPE_ARRAY, "(u(" BATCH_T "))", &uids);
    open_c(&uids, DBUS_TYPE_STRUCT, NULL, &uid);
    append(&uid, DBUS_TYPE_UINT32, &fallback_uid);
    open_c(&uid, DBUS_TYPE_STRUCT, NULL, &batch);
    append(&batch, DBUS_TYPE_BOOLEAN, &yes);        /* connect */
    append(&batch, DBUS_TYPE_UINT64, &prio);
    open_c(&batch, DBUS_TYPE_ARRAY, "(btbs)", &owns);
    open_c(&owns, DBUS_TYPE_STRUCT, NULL, &own);
    append(&own, DBUS_TYPE_BOOLEAN, &yes);
    append(&own, DBUS_TYPE_UINT64, &prio);
    append(&own, DBUS_TYPE_BOOLEAN, &yes);          /* "" as a prefix: every name */
    append(&own, DBUS_TYPE_STRING, &any);
    close_c(&owns, &own);
    close_c(&batch, &owns);
    append_xmit_allow(&batch);                      /* send */
    append_xmit_allow(&batch);                      /* receive */
    close_c(&uid, &batch);
    close_c(&uids, &uid);
    close_c(&pol, &uids);

    open_c(&pol, DBUS_TYPE_ARRAY, "(buu(" BATCH_T "))", &empty);
    close_c(&pol, &empty);
    open_c(&pol, DBUS_TYPE_ARRAY, "(ss)", &empty);
    close_c(&pol, &empty);
    append(&pol, DBUS_TYPE_BOOLEAN, &no);           /* no AppArmor */
    append(&pol, DBUS_TYPE_STRING, &bus_type);

    close_c(&var, &pol);
    close_c(it, &var);
}

static int listen_unix(const char *path)
{
    struct sockaddr_un sa = { .sun_family = AF_UNIX };
    int fd;

    if (strlen(path) >= sizeof(sa.sun_path)) {
        die("socket path too long", NULL);
    }
    strcpy(sa.sun_path, path);
    unlink(path);
    fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof(sa)) != 0 || listen(fd, 256) != 0) {
        die("cannot listen on the socket", NULL);
    }
    return fd;
}

int main(int argc, char **argv)
{
    const char *binary = argc > 2 ? argv[2] : "/usr/bin/dbus-broker";
    const char *listener_path = "/org/bus1/DBus/Listener/0";
    DBusConnection *conn;
    DBusMessage *msg, *reply;
    DBusMessageIter it;
    DBusError error;
    char *escaped, *address;
    int fd, tries;

    if (argc < 2 || argc > 3) {
        fprintf(stderr, "usage: bench_bus_broker SOCKET_PATH [DBUS_BROKER_BINARY]\n");
        return 2;
    }
    fd = listen_unix(argv[1]);

    escaped = dbus_address_escape_value(binary);
    if (escaped == NULL || asprintf(&address, "unixexec:path=%s,argv0=dbus-broker,"
                                    "argv1=--controller,argv2=0,argv3=--machine-id,"
                                    "argv4=0123456789abcdef0123456789abcdef", escaped) < 0) {
        die("out of memory", NULL);
    }
    dbus_error_init(&error);
    conn = dbus_connection_open_private(address, &error);
    if (conn == NULL) {
        die("cannot start dbus-broker", &error);
    }
    dbus_connection_set_exit_on_disconnect(conn, FALSE);
    /* Whether fds can pass is settled by authentication, which has not happened yet. */
    for (tries = 0; !dbus_connection_get_is_authenticated(conn); tries++) {
        if (tries == 100 || !dbus_connection_read_write(conn, 100)) {
            die("dbus-broker did not authenticate us", NULL);
        }
    }
    if (!dbus_connection_can_send_type(conn, DBUS_TYPE_UNIX_FD)) {
        die("the controller connection cannot pass file descriptors", NULL);
    }

    msg = dbus_message_new_method_call(NULL, "/org/bus1/DBus/Broker", "org.bus1.DBus.Broker",
                                       "AddListener");
    if (msg == NULL) {
        die("out of memory", NULL);
    }
    dbus_message_iter_init_append(msg, &it);
    append(&it, DBUS_TYPE_OBJECT_PATH, &listener_path);
    append(&it, DBUS_TYPE_UNIX_FD, &fd);
    append_policy(&it);
    reply = dbus_connection_send_with_reply_and_block(conn, msg, 10000, &error);
    dbus_message_unref(msg);
    if (reply == NULL) {
        die("AddListener failed", &error);
    }
    dbus_message_unref(reply);
    close(fd);      /* the broker has its own copy */

    printf("ready unix:path=%s\n", argv[1]);
    fflush(stdout);
    /* Serve the broker until it or we go; it calls nothing on us unless a peer asks it to
     * reload its configuration, which the benchmark never does. */
    while (dbus_connection_read_write_dispatch(conn, -1)) {
    }
    dbus_connection_close(conn);
    dbus_connection_unref(conn);
    unlink(argv[1]);
    return 0;
}
