/*
 * Bus round-trip benchmark: the echo service and the callers, in plain blocking libdbus, the
 * same code whatever carries the messages (our master bus, dbus-daemon, dbus-broker, or no
 * bus at all). bench_bus.sh starts the bus and runs these.
 *
 * Usage:
 *   bench_bus serve ADDRESS          join the bus at ADDRESS (Hello), own org.sssd.Bench and
 *                                    answer Echo calls on one connection, until the bus goes
 *   bench_bus listen ADDRESS         point to point: listen on ADDRESS and answer Echo calls
 *                                    on every accepted connection, one thread each
 *   bench_bus relay PATH TARGET      a bus that parses nothing: listen on the unix socket PATH
 *                                    and copy bytes both ways between each accepted
 *                                    connection and a new connection to TARGET (a "listen"
 *                                    socket); the floor of any extra hop on this machine
 *   bench_bus call ADDRESS MODE CALLERS SECONDS [WARMUP [PAYLOAD]]
 *                                    MODE "bus" or "p2p"; CALLERS processes, each with its own
 *                                    connection, do call -> wait reply -> next for SECONDS
 *                                    (after WARMUP seconds not counted, default 0.5) with a
 *                                    PAYLOAD-byte string (default 32); prints one JSON line
 * "serve", "listen" and "relay" print "ready" on stdout once they take connections.
 */
#include <dbus/dbus.h>
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define BENCH_NAME "org.sssd.Bench"
#define BENCH_PATH "/org/sssd/Bench"
#define BENCH_IFACE "org.sssd.Bench"
#define BENCH_MEMBER "Echo"
#define CALL_TIMEOUT_MS 10000
#define MAX_CALLERS 256
#define MAX_WATCHES 16

static uint64_t now_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void die(const char *what, DBusError *error)
{
    fprintf(stderr, "bench_bus: %s%s%s\n", what, error != NULL ? ": " : "",
            error != NULL && error->message != NULL ? error->message : "");
    exit(1);
}

/* -------- the echo service -------- */

/* Answers Echo with its own argument; everything else is left to libdbus. */
static DBusHandlerResult echo_filter(DBusConnection *conn, DBusMessage *msg, void *data)
{
    DBusMessage *reply;
    const char *text = NULL;

    if (!dbus_message_is_method_call(msg, BENCH_IFACE, BENCH_MEMBER)) {
        return DBUS_HANDLER_RESULT_NOT_YET_HANDLED;
    }
    if (!dbus_message_get_args(msg, NULL, DBUS_TYPE_STRING, &text, DBUS_TYPE_INVALID)) {
        reply = dbus_message_new_error(msg, DBUS_ERROR_INVALID_ARGS, "Echo takes a string");
    } else {
        reply = dbus_message_new_method_return(msg);
        if (reply != NULL
            && !dbus_message_append_args(reply, DBUS_TYPE_STRING, &text, DBUS_TYPE_INVALID)) {
            dbus_message_unref(reply);
            reply = NULL;
        }
    }
    if (reply == NULL) {
        return DBUS_HANDLER_RESULT_NEED_MEMORY;
    }
    dbus_connection_send(conn, reply, NULL);
    dbus_message_unref(reply);
    return DBUS_HANDLER_RESULT_HANDLED;
}

/* Blocks answering calls until the connection closes. */
static void echo_loop(DBusConnection *conn)
{
    if (!dbus_connection_add_filter(conn, echo_filter, NULL, NULL)) {
        die("out of memory", NULL);
    }
    while (dbus_connection_read_write_dispatch(conn, -1)) {
        /* one message each turn */
    }
}

static int cmd_serve(const char *address)
{
    DBusConnection *conn;
    DBusError error;
    int ret;

    dbus_error_init(&error);
    conn = dbus_connection_open_private(address, &error);
    if (conn == NULL || !dbus_bus_register(conn, &error)) {
        die("cannot join the bus", &error);
    }
    dbus_connection_set_exit_on_disconnect(conn, FALSE);
    ret = dbus_bus_request_name(conn, BENCH_NAME, DBUS_NAME_FLAG_DO_NOT_QUEUE, &error);
    if (ret != DBUS_REQUEST_NAME_REPLY_PRIMARY_OWNER) {
        die("cannot own " BENCH_NAME, &error);
    }
    printf("ready\n");
    fflush(stdout);
    echo_loop(conn);
    dbus_connection_close(conn);
    dbus_connection_unref(conn);
    return 0;
}

/* -------- point to point: a DBusServer driven by poll() -------- */

struct listen_ctx {
    DBusWatch *watches[MAX_WATCHES];
    int num_watches;
};

static dbus_bool_t listen_add_watch(DBusWatch *watch, void *data)
{
    struct listen_ctx *ctx = data;

    if (ctx->num_watches == MAX_WATCHES) {
        return FALSE;
    }
    ctx->watches[ctx->num_watches++] = watch;
    return TRUE;
}

static void listen_remove_watch(DBusWatch *watch, void *data)
{
    struct listen_ctx *ctx = data;
    int i;

    for (i = 0; i < ctx->num_watches; i++) {
        if (ctx->watches[i] == watch) {
            ctx->watches[i] = ctx->watches[--ctx->num_watches];
            return;
        }
    }
}

static void *echo_thread(void *data)
{
    DBusConnection *conn = data;

    echo_loop(conn);
    dbus_connection_close(conn);
    dbus_connection_unref(conn);
    return NULL;
}

static void listen_new_connection(DBusServer *server, DBusConnection *conn, void *data)
{
    pthread_t thread;

    dbus_connection_ref(conn);
    dbus_connection_set_exit_on_disconnect(conn, FALSE);
    if (pthread_create(&thread, NULL, echo_thread, conn) != 0) {
        dbus_connection_close(conn);
        dbus_connection_unref(conn);
        return;
    }
    pthread_detach(thread);
}

static int cmd_listen(const char *address)
{
    const char *mechanisms[] = { "EXTERNAL", NULL };
    struct listen_ctx ctx = { .num_watches = 0 };
    struct pollfd fds[MAX_WATCHES];
    DBusServer *server;
    DBusError error;
    int i, n;

    dbus_error_init(&error);
    server = dbus_server_listen(address, &error);
    if (server == NULL) {
        die("cannot listen", &error);
    }
    if (!dbus_server_set_auth_mechanisms(server, mechanisms)
        || !dbus_server_set_watch_functions(server, listen_add_watch, listen_remove_watch,
                                            NULL, &ctx, NULL)) {
        die("out of memory", NULL);
    }
    dbus_server_set_new_connection_function(server, listen_new_connection, NULL, NULL);
    printf("ready\n");
    fflush(stdout);

    for (;;) {
        n = 0;
        for (i = 0; i < ctx.num_watches; i++) {
            fds[n].fd = dbus_watch_get_unix_fd(ctx.watches[i]);
            fds[n].events = dbus_watch_get_enabled(ctx.watches[i]) ? POLLIN : 0;
            fds[n].revents = 0;
            n++;
        }
        if (poll(fds, n, -1) < 0) {
            if (errno == EINTR) {
                continue;
            }
            die("poll failed", NULL);
        }
        /* Handling may change the watch list: only handle watches still at their index. */
        for (i = 0; i < n && i < ctx.num_watches; i++) {
            if (fds[i].revents != 0 && fds[i].fd == dbus_watch_get_unix_fd(ctx.watches[i])) {
                dbus_watch_handle(ctx.watches[i], DBUS_WATCH_READABLE);
            }
        }
    }
    return 0;
}

/* -------- the relay: two extra socket hops, no D-Bus work -------- */

static int unix_socket(const char *path, int do_listen)
{
    struct sockaddr_un sa = { .sun_family = AF_UNIX };
    int fd;

    if (strlen(path) >= sizeof(sa.sun_path)) {
        die("socket path too long", NULL);
    }
    strcpy(sa.sun_path, path);
    fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) {
        return -1;
    }
    if (do_listen) {
        unlink(path);
        if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) != 0 || listen(fd, 256) != 0) {
            close(fd);
            return -1;
        }
    } else if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) != 0) {
        close(fd);
        return -1;
    }
    return fd;
}

static int write_all(int fd, const char *buf, size_t len)
{
    ssize_t w;

    while (len > 0) {
        w = write(fd, buf, len);
        if (w <= 0) {
            return -1;
        }
        buf += w;
        len -= (size_t)w;
    }
    return 0;
}

/* Copies bytes both ways until either side closes. */
static void *relay_thread(void *data)
{
    int *pair = data;
    struct pollfd fds[2] = { { pair[0], POLLIN, 0 }, { pair[1], POLLIN, 0 } };
    char buf[65536];
    ssize_t r;
    int i;

    for (;;) {
        if (poll(fds, 2, -1) < 0) {
            if (errno == EINTR) {
                continue;
            }
            break;
        }
        for (i = 0; i < 2; i++) {
            if (fds[i].revents == 0) {
                continue;
            }
            r = read(fds[i].fd, buf, sizeof(buf));
            if (r <= 0 || write_all(fds[1 - i].fd, buf, (size_t)r) != 0) {
                goto done;
            }
        }
    }
done:
    close(pair[0]);
    close(pair[1]);
    free(pair);
    return NULL;
}

static int cmd_relay(const char *path, const char *target)
{
    pthread_t thread;
    int lfd, *pair;

    lfd = unix_socket(path, 1);
    if (lfd < 0) {
        die("cannot listen", NULL);
    }
    printf("ready\n");
    fflush(stdout);
    for (;;) {
        pair = malloc(2 * sizeof(*pair));
        if (pair == NULL) {
            die("out of memory", NULL);
        }
        pair[0] = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
        if (pair[0] < 0) {
            free(pair);
            if (errno == EINTR || errno == ECONNABORTED) {
                continue;
            }
            die("accept failed", NULL);
        }
        pair[1] = unix_socket(target, 0);
        if (pair[1] < 0 || pthread_create(&thread, NULL, relay_thread, pair) != 0) {
            close(pair[0]);
            if (pair[1] >= 0) {
                close(pair[1]);
            }
            free(pair);
            continue;
        }
        pthread_detach(thread);
    }
    return 0;
}

/* -------- the callers -------- */

struct caller_result {
    uint64_t calls;         /* round trips completed inside the measured window */
    uint64_t all_calls;     /* round trips made, warm-up included */
    uint64_t errors;
};

/* One caller: connects, warms up until start, measures until end, then writes its result
 * and every latency (ns, uint64_t) to fd. */
static int caller_run(const char *address, int p2p, uint64_t start, uint64_t end,
                      const char *payload, int fd)
{
    struct caller_result res = { 0, 0, 0 };
    uint64_t *lat = NULL;
    size_t cap = 0;
    DBusConnection *conn;
    DBusMessage *msg, *reply;
    DBusError error;
    uint64_t t0, t1;
    size_t off, len;
    ssize_t w;

    dbus_error_init(&error);
    conn = dbus_connection_open_private(address, &error);
    if (conn == NULL || (!p2p && !dbus_bus_register(conn, &error))) {
        die("caller cannot connect", &error);
    }
    dbus_connection_set_exit_on_disconnect(conn, FALSE);

    for (;;) {
        msg = dbus_message_new_method_call(p2p ? NULL : BENCH_NAME, BENCH_PATH, BENCH_IFACE,
                                           BENCH_MEMBER);
        if (msg == NULL
            || !dbus_message_append_args(msg, DBUS_TYPE_STRING, &payload, DBUS_TYPE_INVALID)) {
            die("out of memory", NULL);
        }
        t0 = now_ns();
        if (t0 >= end) {
            dbus_message_unref(msg);
            break;
        }
        reply = dbus_connection_send_with_reply_and_block(conn, msg, CALL_TIMEOUT_MS, &error);
        t1 = now_ns();
        dbus_message_unref(msg);
        if (reply == NULL) {
            fprintf(stderr, "bench_bus: call failed: %s\n", error.message);
            dbus_error_free(&error);
            res.errors++;
            continue;
        }
        dbus_message_unref(reply);
        res.all_calls++;
        /* Drop whatever else arrived (NameAcquired and the like). */
        while (dbus_connection_dispatch(conn) == DBUS_DISPATCH_DATA_REMAINS) {
        }
        if (t0 < start || t1 > end) {
            continue;       /* warm-up, or ends past the window */
        }
        if (res.calls == cap) {
            cap = cap == 0 ? 65536 : cap * 2;
            lat = realloc(lat, cap * sizeof(*lat));
            if (lat == NULL) {
                die("out of memory", NULL);
            }
        }
        lat[res.calls++] = t1 - t0;
    }
    dbus_connection_close(conn);
    dbus_connection_unref(conn);

    /* The parent reads the header, then exactly calls latencies. */
    for (off = 0, len = sizeof(res); off < len; off += (size_t)w) {
        w = write(fd, (char *)&res + off, len - off);
        if (w <= 0) {
            return 1;
        }
    }
    for (off = 0, len = res.calls * sizeof(*lat); off < len; off += (size_t)w) {
        w = write(fd, (char *)lat + off, len - off);
        if (w <= 0) {
            return 1;
        }
    }
    free(lat);
    return res.errors == 0 ? 0 : 1;
}

static int read_all(int fd, void *buf, size_t len)
{
    size_t off;
    ssize_t r;

    for (off = 0; off < len; off += (size_t)r) {
        r = read(fd, (char *)buf + off, len - off);
        if (r <= 0) {
            return -1;
        }
    }
    return 0;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

    return x < y ? -1 : x > y;
}

/* Nearest-rank percentile of sorted v. */
static double pct_us(const uint64_t *v, uint64_t n, double p)
{
    uint64_t rank = (uint64_t)(p / 100.0 * (double)n + 0.999999);

    if (n == 0) {
        return 0.0;
    }
    if (rank < 1) {
        rank = 1;
    }
    return (double)v[(rank > n ? n : rank) - 1] / 1000.0;
}

static int cmd_call(const char *address, const char *mode, int callers, double seconds,
                    double warmup, size_t payload_len)
{
    int fds[MAX_CALLERS];
    pid_t pids[MAX_CALLERS];
    struct caller_result res;
    uint64_t *all = NULL;
    uint64_t total = 0, all_calls = 0, errors = 0, start, end, i;
    double sum = 0.0;
    char *payload;
    int p2p = strcmp(mode, "p2p") == 0;
    int c, pfd[2], status, failed = 0;

    if (callers < 1 || callers > MAX_CALLERS || seconds <= 0 || warmup < 0
        || (!p2p && strcmp(mode, "bus") != 0)) {
        fprintf(stderr, "bench_bus: bad arguments\n");
        return 2;
    }
    payload = malloc(payload_len + 1);
    if (payload == NULL) {
        die("out of memory", NULL);
    }
    memset(payload, 'x', payload_len);
    payload[payload_len] = '\0';

    /* Every caller connects first; the window is the same for all of them. A caller still
     * connecting after the warm-up only loses samples, never shifts the window. */
    start = now_ns() + (uint64_t)(warmup * 1e9) + 200000000u;
    end = start + (uint64_t)(seconds * 1e9);
    for (c = 0; c < callers; c++) {
        if (pipe(pfd) != 0) {
            die("pipe failed", NULL);
        }
        pids[c] = fork();
        if (pids[c] < 0) {
            die("fork failed", NULL);
        }
        if (pids[c] == 0) {
            close(pfd[0]);
            _exit(caller_run(address, p2p, start, end, payload, pfd[1]));
        }
        close(pfd[1]);
        fds[c] = pfd[0];
    }

    for (c = 0; c < callers; c++) {
        if (read_all(fds[c], &res, sizeof(res)) != 0) {
            failed++;
            close(fds[c]);
            continue;
        }
        all = realloc(all, (total + res.calls + 1) * sizeof(*all));
        if (all == NULL || read_all(fds[c], all + total, res.calls * sizeof(*all)) != 0) {
            die("cannot read a caller's result", NULL);
        }
        total += res.calls;
        errors += res.errors;
        all_calls += res.all_calls;
        close(fds[c]);
    }
    for (c = 0; c < callers; c++) {
        if (waitpid(pids[c], &status, 0) != pids[c] || !WIFEXITED(status)
            || WEXITSTATUS(status) != 0) {
            failed++;
        }
    }

    qsort(all, total, sizeof(*all), cmp_u64);
    for (i = 0; i < total; i++) {
        sum += (double)all[i];
    }
    printf("{\"callers\": %d, \"seconds\": %.3f, \"payload\": %zu, \"calls\": %llu, "
           "\"all_calls\": %llu, \"errors\": %llu, \"failed_callers\": %d, "
           "\"calls_per_s\": %.1f, "
           "\"msgs_per_s\": %.1f, \"p50_us\": %.2f, \"p99_us\": %.2f, \"mean_us\": %.2f, "
           "\"max_us\": %.2f}\n",
           callers, seconds, payload_len, (unsigned long long)total,
           (unsigned long long)all_calls, (unsigned long long)errors, failed,
           (double)total / seconds,
           2.0 * (double)total / seconds, pct_us(all, total, 50), pct_us(all, total, 99),
           total > 0 ? sum / (double)total / 1000.0 : 0.0,
           total > 0 ? (double)all[total - 1] / 1000.0 : 0.0);
    free(all);
    free(payload);
    return failed == 0 && errors == 0 && total > 0 ? 0 : 1;
}

int main(int argc, char **argv)
{
    signal(SIGPIPE, SIG_IGN);
    if (argc == 3 && strcmp(argv[1], "serve") == 0) {
        return cmd_serve(argv[2]);
    }
    if (argc == 3 && strcmp(argv[1], "listen") == 0) {
        return cmd_listen(argv[2]);
    }
    if (argc == 4 && strcmp(argv[1], "relay") == 0) {
        return cmd_relay(argv[2], argv[3]);
    }
    if (argc >= 6 && argc <= 8 && strcmp(argv[1], "call") == 0) {
        return cmd_call(argv[2], argv[3], atoi(argv[4]), atof(argv[5]),
                        argc > 6 ? atof(argv[6]) : 0.5,
                        argc > 7 ? (size_t)strtoul(argv[7], NULL, 10) : 32);
    }
    fprintf(stderr, "usage: bench_bus serve ADDRESS | listen ADDRESS | relay PATH TARGET |\n"
                    "       call ADDRESS bus|p2p CALLERS SECONDS [WARMUP [PAYLOAD]]\n");
    return 2;
}
