/*
 * Unit tests of the master bus server (src/sbus/sbus_server*.c). Each test starts a server
 * on a socket in a fresh temporary directory (tc_tmpdir), driven by this process's tevent
 * loop, and exercises it with forked children that use plain blocking libdbus, the way stock D-Bus
 * clients would. A child's exit code says whether its checks held; the parent runs the
 * loop until every child has exited (bounded by a deadline; children also arm alarm()).
 * Teardown frees the server and checks that the socket is gone and nothing leaked.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <fcntl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <limits.h>
#include <unistd.h>

#include "sbus/sbus_server_private.h"
#include "tests/unit/common/tc_common.h"
#include "tests/unit/common/tc_bus.h"

#define TEST_DEADLINE_SEC 60
#define CHILD_ALARM_SEC 50
#define MAX_CHILDREN 4

struct test_ctx {
    struct tc_bus_fixture bus;      /* the server, its loop and directory */
    size_t server_blocks;           /* talloc blocks of an idle server */
    pid_t children[MAX_CHILDREN];
    int num_children;
    DBusMessage *reply;             /* of an in-process call */
};

/* -------- parent side -------- */

static errno_t test_server_start(struct test_ctx *t, uid_t allowed_uid)
{
    errno_t ret;

    ret = tc_bus_fixture_restart(&t->bus, allowed_uid);
    if (ret == EOK) {
        t->server_blocks = talloc_total_blocks(t->bus.server);
    }
    return ret;
}

static int setup(void **state)
{
    struct test_ctx *t;

    t = talloc_zero(NULL, struct test_ctx);
    assert_non_null(t);
    tc_bus_fixture_start(t, &t->bus, "test_sbus_server", getuid());
    t->server_blocks = talloc_total_blocks(t->bus.server);
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

static void test_wakeup(struct tevent_context *ev, struct tevent_timer *te,
                        struct timeval now, void *pvt)
{
    *(bool *)pvt = true;
}

/* Runs the loop until cond(t) holds; kills the children and fails the test after
 * TEST_DEADLINE_SEC. A short timer makes sure the loop wakes up to poll. */
static void loop_until(struct test_ctx *t, bool (*cond)(struct test_ctx *))
{
    struct timeval deadline = tevent_timeval_current_ofs(TEST_DEADLINE_SEC, 0);
    struct timeval now;
    struct tevent_timer *te;
    bool fired;
    int i;

    while (!cond(t)) {
        now = tevent_timeval_current();
        if (tevent_timeval_compare(&now, &deadline) > 0) {
            for (i = 0; i < t->num_children; i++) {
                if (t->children[i] > 0) {
                    kill(t->children[i], SIGKILL);
                    waitpid(t->children[i], NULL, 0);
                }
            }
            fail_msg("timed out waiting for the test to finish");
        }
        fired = false;
        te = tevent_add_timer(t->bus.ev, t, tevent_timeval_current_ofs(0, 5000),
                              test_wakeup, &fired);
        assert_non_null(te);
        assert_int_equal(tevent_loop_once(t->bus.ev), 0);
        if (!fired) {
            talloc_free(te);
        }
    }
}

/* The test binary itself: children are this program run with "--child NAME ADDRESS ARG",
 * so each starts clean (and runs natively even when the parent runs under valgrind). */
static char self_path[PATH_MAX];

static void start_child(struct test_ctx *t, const char *name, const char *arg)
{
    const char *address = sbus_server_get_address(t->bus.server);
    pid_t pid;

    assert_true(t->num_children < MAX_CHILDREN);
    fflush(stdout);
    fflush(stderr);
    pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        execl(self_path, self_path, "--child", name, address, arg != NULL ? arg : "",
              (char *)NULL);
        fprintf(stderr, "cannot run %s: %s\n", self_path, strerror(errno));
        _exit(127);
    }
    t->children[t->num_children++] = pid;
}

static bool children_done(struct test_ctx *t)
{
    int status;
    int i;
    pid_t pid;

    for (i = 0; i < t->num_children; i++) {
        if (t->children[i] <= 0) {
            continue;
        }
        pid = waitpid(t->children[i], &status, WNOHANG);
        if (pid == 0) {
            return false;
        }
        assert_int_equal(pid, t->children[i]);
        t->children[i] = 0;
        if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
            fail_msg("child %d failed (status 0x%x)", (int)pid, status);
        }
    }
    return true;
}

static bool server_idle(struct test_ctx *t)
{
    return sss_list_is_empty(&t->bus.server->peers);
}

/* Waits for every child, then for the server to forget every peer, and checks that it
 * is back to the size it had before any peer came. */
static void run_children(struct test_ctx *t)
{
    loop_until(t, children_done);
    t->num_children = 0;
    loop_until(t, server_idle);
    assert_int_equal(sbus_server_connection_count(t->bus.server), 0);
    assert_int_equal(sss_hash_table_count(t->bus.server->names), 0);
    assert_int_equal(sss_hash_table_count(t->bus.server->match_index), 0);
    assert_int_equal(talloc_total_blocks(t->bus.server), t->server_blocks);
}

/* -------- child side (blocking libdbus) -------- */

#define CHECK(cond) do { \
    if (!(cond)) { \
        fprintf(stderr, "child %d: %s:%d: check failed: %s\n", (int)getpid(), \
                __FILE__, __LINE__, #cond); \
        return 1; \
    } \
} while (0)

static DBusConnection *child_connect(const char *address, bool hello)
{
    DBusConnection *conn;
    DBusError error;

    dbus_error_init(&error);
    conn = dbus_connection_open_private(address, &error);
    if (conn == NULL) {
        fprintf(stderr, "child %d: cannot connect: %s\n", (int)getpid(), error.message);
        dbus_error_free(&error);
        return NULL;
    }
    if (hello && !dbus_bus_register(conn, &error)) {
        fprintf(stderr, "child %d: Hello failed: %s\n", (int)getpid(), error.message);
        dbus_error_free(&error);
        dbus_connection_close(conn);
        dbus_connection_unref(conn);
        return NULL;
    }
    return conn;
}

static void child_close(DBusConnection *conn)
{
    dbus_connection_flush(conn);
    dbus_connection_close(conn);
    dbus_connection_unref(conn);
}

/* Calls destination's iface.member with the arguments given; returns the reply, or NULL
 * with error set. */
static DBusMessage *child_call(DBusConnection *conn, DBusError *error,
                               const char *destination, const char *iface,
                               const char *member, int first_type, ...)
{
    DBusMessage *msg;
    DBusMessage *reply;
    va_list ap;

    msg = dbus_message_new_method_call(destination,
                                       strcmp(destination, DBUS_SERVICE_DBUS) == 0
                                           ? DBUS_PATH_DBUS : "/test",
                                       iface, member);
    if (msg == NULL) {
        return NULL;
    }
    va_start(ap, first_type);
    dbus_message_append_args_valist(msg, first_type, ap);
    va_end(ap);
    reply = dbus_connection_send_with_reply_and_block(conn, msg, 10000, error);
    dbus_message_unref(msg);
    return reply;
}

/* Calls the bus; true when it answered with the error named. */
static bool child_bus_error(DBusConnection *conn, const char *error_name,
                            const char *member, int first_type, ...)
{
    DBusMessage *msg;
    DBusMessage *reply;
    DBusError error;
    va_list ap;
    bool result;

    dbus_error_init(&error);
    msg = dbus_message_new_method_call(DBUS_SERVICE_DBUS, DBUS_PATH_DBUS, DBUS_INTERFACE_DBUS,
                                       member);
    if (msg == NULL) {
        return false;
    }
    va_start(ap, first_type);
    dbus_message_append_args_valist(msg, first_type, ap);
    va_end(ap);
    reply = dbus_connection_send_with_reply_and_block(conn, msg, 10000, &error);
    dbus_message_unref(msg);
    if (reply != NULL) {
        dbus_message_unref(reply);
        return false;
    }
    result = dbus_error_has_name(&error, error_name);
    if (!result) {
        fprintf(stderr, "child %d: %s gave %s, expected %s\n", (int)getpid(), member,
                error.name, error_name);
    }
    dbus_error_free(&error);
    return result;
}

/* Polls until name has an owner (bounded). */
static bool child_wait_name(DBusConnection *conn, const char *name)
{
    int i;

    for (i = 0; i < 2000; i++) {
        if (dbus_bus_name_has_owner(conn, name, NULL)) {
            return true;
        }
        usleep(10000);
    }
    return false;
}

/* The next signal received (any other message is skipped), or NULL after 20 s or on
 * disconnection. */
static DBusMessage *child_next_signal(DBusConnection *conn)
{
    DBusMessage *msg;
    int i;

    for (i = 0; i < 200; i++) {
        while ((msg = dbus_connection_pop_message(conn)) != NULL) {
            if (dbus_message_get_type(msg) == DBUS_MESSAGE_TYPE_SIGNAL
                    && !dbus_message_is_signal(msg, DBUS_INTERFACE_LOCAL, "Disconnected")) {
                return msg;
            }
            dbus_message_unref(msg);
        }
        if (!dbus_connection_read_write(conn, 100)) {
            return NULL;
        }
    }
    return NULL;
}

static const char *msg_string_arg(DBusMessage *msg, int n)
{
    DBusMessageIter iter;
    const char *value = NULL;

    if (!dbus_message_iter_init(msg, &iter)) {
        return NULL;
    }
    while (n-- > 0) {
        if (!dbus_message_iter_next(&iter)) {
            return NULL;
        }
    }
    if (dbus_message_iter_get_arg_type(&iter) != DBUS_TYPE_STRING) {
        return NULL;
    }
    dbus_message_iter_get_basic(&iter, &value);
    return value;
}

static bool streq(const char *a, const char *b)
{
    return a != NULL && b != NULL && strcmp(a, b) == 0;
}

/* A signal from the bus itself (NameAcquired and the like). */
static bool from_bus(DBusMessage *msg)
{
    return streq(dbus_message_get_sender(msg), DBUS_SERVICE_DBUS);
}

/* The owner of name, copied into buf. */
static bool child_owner(DBusConnection *conn, const char *name, char *buf, size_t size)
{
    DBusMessage *reply;
    DBusError error;
    const char *owner;

    dbus_error_init(&error);
    reply = child_call(conn, &error, DBUS_SERVICE_DBUS, DBUS_INTERFACE_DBUS, "GetNameOwner",
                       DBUS_TYPE_STRING, &name, DBUS_TYPE_INVALID);
    if (reply == NULL) {
        dbus_error_free(&error);
        return false;
    }
    owner = msg_string_arg(reply, 0);
    snprintf(buf, size, "%s", owner != NULL ? owner : "");
    dbus_message_unref(reply);
    return owner != NULL;
}

/* -------- children -------- */

static int child_hello(const char *address, const char *arg)
{
    DBusConnection *a;
    DBusConnection *b;
    DBusMessage *sig;

    a = child_connect(address, true);
    CHECK(a != NULL);
    CHECK(streq(dbus_bus_get_unique_name(a), ":1.1"));
    b = child_connect(address, true);
    CHECK(b != NULL);
    CHECK(streq(dbus_bus_get_unique_name(b), ":1.2"));

    /* NameAcquired for the unique name, addressed to that connection, from the bus. */
    sig = child_next_signal(a);
    CHECK(sig != NULL);
    CHECK(dbus_message_is_signal(sig, DBUS_INTERFACE_DBUS, "NameAcquired"));
    CHECK(streq(msg_string_arg(sig, 0), ":1.1"));
    CHECK(streq(dbus_message_get_destination(sig), ":1.1"));
    CHECK(from_bus(sig));
    CHECK(dbus_message_has_path(sig, DBUS_PATH_DBUS));
    dbus_message_unref(sig);

    CHECK(child_bus_error(a, DBUS_ERROR_FAILED, "Hello", DBUS_TYPE_INVALID));
    child_close(a);
    child_close(b);
    return 0;
}

static bool list_has(char **names, int n, const char *name)
{
    int i;

    for (i = 0; i < n; i++) {
        if (streq(names[i], name)) {
            return true;
        }
    }
    return false;
}

static int child_names(const char *address, const char *arg)
{
    const char *name = "test.name";
    const char *missing = "test.missing";
    const char *xml;
    DBusConnection *a;
    DBusConnection *b;
    DBusMessage *reply;
    DBusMessage *sig;
    DBusError error;
    char **names = NULL;
    char owner[256];
    char unique_a[64];
    char *id;
    char *id2;
    int n = 0;
    int i;

    dbus_error_init(&error);
    a = child_connect(address, true);
    b = child_connect(address, true);
    CHECK(a != NULL && b != NULL);
    snprintf(unique_a, sizeof(unique_a), "%s", dbus_bus_get_unique_name(a));

    /* RequestName: primary owner, already owner, exists; reserved and invalid names. */
    CHECK(dbus_bus_request_name(a, name, 0, NULL) == DBUS_REQUEST_NAME_REPLY_PRIMARY_OWNER);
    CHECK(dbus_bus_request_name(a, name, 0, NULL) == DBUS_REQUEST_NAME_REPLY_ALREADY_OWNER);
    CHECK(dbus_bus_request_name(b, name, DBUS_NAME_FLAG_REPLACE_EXISTING, NULL)
          == DBUS_REQUEST_NAME_REPLY_EXISTS);
    CHECK(dbus_bus_request_name(a, "test.second", 0, NULL)
          == DBUS_REQUEST_NAME_REPLY_PRIMARY_OWNER);
    CHECK(dbus_bus_request_name(a, DBUS_SERVICE_DBUS, 0, &error) == -1);
    CHECK(dbus_error_has_name(&error, DBUS_ERROR_INVALID_ARGS));
    dbus_error_free(&error);
    CHECK(dbus_bus_request_name(a, ":1.99", 0, &error) == -1);
    CHECK(dbus_error_has_name(&error, DBUS_ERROR_INVALID_ARGS));
    dbus_error_free(&error);
    {
        /* libdbus refuses to send an invalid name itself: build the call by hand. */
        const char *nodots = "nodots";
        dbus_uint32_t flags = 0;

        CHECK(child_bus_error(a, DBUS_ERROR_INVALID_ARGS, "RequestName",
                              DBUS_TYPE_STRING, &nodots, DBUS_TYPE_UINT32, &flags,
                              DBUS_TYPE_INVALID));
        CHECK(child_bus_error(a, DBUS_ERROR_INVALID_ARGS, "NameHasOwner",
                              DBUS_TYPE_STRING, &nodots, DBUS_TYPE_INVALID));
        CHECK(child_bus_error(a, DBUS_ERROR_INVALID_ARGS, "RequestName",
                              DBUS_TYPE_UINT32, &flags, DBUS_TYPE_STRING, &nodots,
                              DBUS_TYPE_INVALID));
    }
    /* Wrong argument types. */
    CHECK(child_bus_error(a, DBUS_ERROR_INVALID_ARGS, "RequestName",
                          DBUS_TYPE_STRING, &name, DBUS_TYPE_INVALID));

    /* NameAcquired for test.name reached a, after the one for its unique name. */
    sig = child_next_signal(a);
    CHECK(sig != NULL && dbus_message_is_signal(sig, DBUS_INTERFACE_DBUS, "NameAcquired"));
    CHECK(streq(msg_string_arg(sig, 0), unique_a));
    dbus_message_unref(sig);
    sig = child_next_signal(a);
    CHECK(sig != NULL && dbus_message_is_signal(sig, DBUS_INTERFACE_DBUS, "NameAcquired"));
    CHECK(streq(msg_string_arg(sig, 0), name));
    CHECK(streq(dbus_message_get_destination(sig), unique_a));
    dbus_message_unref(sig);

    /* NameHasOwner, GetNameOwner. */
    CHECK(dbus_bus_name_has_owner(b, name, NULL));
    CHECK(dbus_bus_name_has_owner(b, DBUS_SERVICE_DBUS, NULL));
    CHECK(dbus_bus_name_has_owner(b, unique_a, NULL));
    CHECK(!dbus_bus_name_has_owner(b, missing, NULL));
    CHECK(child_owner(b, name, owner, sizeof(owner)));
    CHECK(streq(owner, unique_a));
    CHECK(child_owner(b, DBUS_SERVICE_DBUS, owner, sizeof(owner)));
    CHECK(streq(owner, DBUS_SERVICE_DBUS));
    CHECK(child_bus_error(b, DBUS_ERROR_NAME_HAS_NO_OWNER, "GetNameOwner",
                          DBUS_TYPE_STRING, &missing, DBUS_TYPE_INVALID));

    /* ListNames: the bus first, then every name. */
    reply = child_call(b, &error, DBUS_SERVICE_DBUS, DBUS_INTERFACE_DBUS, "ListNames",
                       DBUS_TYPE_INVALID);
    CHECK(reply != NULL);
    CHECK(dbus_message_get_args(reply, NULL, DBUS_TYPE_ARRAY, DBUS_TYPE_STRING, &names, &n,
                                DBUS_TYPE_INVALID));
    dbus_message_unref(reply);
    CHECK(n == 5);
    CHECK(streq(names[0], DBUS_SERVICE_DBUS));
    CHECK(list_has(names, n, unique_a));
    CHECK(list_has(names, n, dbus_bus_get_unique_name(b)));
    CHECK(list_has(names, n, name));
    CHECK(list_has(names, n, "test.second"));
    dbus_free_string_array(names);

    /* Credentials of the owner of a name. */
    CHECK(dbus_bus_get_unix_user(b, name, NULL) == getuid());
    CHECK(dbus_bus_get_unix_user(b, dbus_bus_get_unique_name(b), NULL) == getuid());
    CHECK(child_bus_error(b, DBUS_ERROR_NAME_HAS_NO_OWNER, "GetConnectionUnixUser",
                          DBUS_TYPE_STRING, &missing, DBUS_TYPE_INVALID));
    reply = child_call(b, &error, DBUS_SERVICE_DBUS, DBUS_INTERFACE_DBUS,
                       "GetConnectionUnixProcessID", DBUS_TYPE_STRING, &name,
                       DBUS_TYPE_INVALID);
    CHECK(reply != NULL);
    {
        dbus_uint32_t pid = 0;
        CHECK(dbus_message_get_args(reply, NULL, DBUS_TYPE_UINT32, &pid, DBUS_TYPE_INVALID));
        CHECK(pid == (dbus_uint32_t)getpid());
    }
    dbus_message_unref(reply);
    CHECK(child_bus_error(b, DBUS_ERROR_NAME_HAS_NO_OWNER, "GetConnectionUnixProcessID",
                          DBUS_TYPE_STRING, &missing, DBUS_TYPE_INVALID));

    /* ReleaseName: not owner, released, non-existent; NameLost to the owner. */
    CHECK(dbus_bus_release_name(b, name, NULL) == DBUS_RELEASE_NAME_REPLY_NOT_OWNER);
    CHECK(dbus_bus_release_name(a, name, NULL) == DBUS_RELEASE_NAME_REPLY_RELEASED);
    CHECK(dbus_bus_release_name(a, name, NULL) == DBUS_RELEASE_NAME_REPLY_NON_EXISTENT);
    CHECK(!dbus_bus_name_has_owner(b, name, NULL));
    {
        const char *reserved = unique_a;
        CHECK(child_bus_error(a, DBUS_ERROR_INVALID_ARGS, "ReleaseName",
                              DBUS_TYPE_STRING, &reserved, DBUS_TYPE_INVALID));
    }
    for (i = 0; i < 3; i++) {   /* NameAcquired(test.second), then NameLost(test.name) */
        sig = child_next_signal(a);
        CHECK(sig != NULL);
        if (dbus_message_is_signal(sig, DBUS_INTERFACE_DBUS, "NameLost")) {
            CHECK(streq(msg_string_arg(sig, 0), name));
            dbus_message_unref(sig);
            break;
        }
        dbus_message_unref(sig);
    }
    CHECK(i < 3);
    /* The name is free again for b. */
    CHECK(dbus_bus_request_name(b, name, 0, NULL) == DBUS_REQUEST_NAME_REPLY_PRIMARY_OWNER);

    /* GetId: 32 hex digits, stable. */
    id = dbus_bus_get_id(a, NULL);
    id2 = dbus_bus_get_id(b, NULL);
    CHECK(id != NULL && id2 != NULL);
    CHECK(strlen(id) == 32 && strspn(id, "0123456789abcdef") == 32);
    CHECK(streq(id, id2));
    dbus_free(id);
    dbus_free(id2);

    /* Match rules. */
    dbus_bus_add_match(a, "type='signal',bogus='x'", &error);
    CHECK(dbus_error_has_name(&error, DBUS_ERROR_MATCH_RULE_INVALID));
    dbus_error_free(&error);
    dbus_bus_remove_match(a, "type='signal',member='Nope'", &error);
    CHECK(dbus_error_has_name(&error, DBUS_ERROR_MATCH_RULE_NOT_FOUND));
    dbus_error_free(&error);
    dbus_bus_add_match(a, "type='signal',interface='a.b',member='M'", &error);
    CHECK(!dbus_error_is_set(&error));
    dbus_bus_remove_match(a, "member=M,interface=a.b,type=signal", &error);
    CHECK(!dbus_error_is_set(&error));
    dbus_bus_remove_match(a, "type='signal',interface='a.b',member='M'", &error);
    CHECK(dbus_error_has_name(&error, DBUS_ERROR_MATCH_RULE_NOT_FOUND));
    dbus_error_free(&error);
    /* Left in place: the server must drop it with the peer. */
    dbus_bus_add_match(a, "type='signal',interface='a.b',member='Left'", &error);
    CHECK(!dbus_error_is_set(&error));
    dbus_bus_add_match(a, "type='signal'", &error);
    CHECK(!dbus_error_is_set(&error));

    /* Unknown methods and interfaces, Introspect, Ping. */
    CHECK(child_bus_error(a, DBUS_ERROR_UNKNOWN_METHOD, "StartServiceByName",
                          DBUS_TYPE_INVALID));
    reply = child_call(a, &error, DBUS_SERVICE_DBUS, "org.example.Nope", "Foo",
                       DBUS_TYPE_INVALID);
    CHECK(reply == NULL && dbus_error_has_name(&error, DBUS_ERROR_UNKNOWN_INTERFACE));
    dbus_error_free(&error);
    reply = child_call(a, &error, DBUS_SERVICE_DBUS, DBUS_INTERFACE_INTROSPECTABLE,
                       "Introspect", DBUS_TYPE_INVALID);
    CHECK(reply != NULL);
    xml = msg_string_arg(reply, 0);
    CHECK(xml != NULL && strstr(xml, "<interface name=\"org.freedesktop.DBus\">") != NULL);
    CHECK(from_bus(reply));
    dbus_message_unref(reply);
    reply = child_call(a, &error, DBUS_SERVICE_DBUS, DBUS_INTERFACE_PEER, "Ping",
                       DBUS_TYPE_INVALID);
    CHECK(reply != NULL);
    dbus_message_unref(reply);

    child_close(a);
    child_close(b);
    return 0;
}

/* Answers test.Iface.Echo(s) with (s, sender seen) and Fail with an error until Quit. */
static int child_echo_server(const char *address, const char *arg)
{
    DBusConnection *conn;
    DBusMessage *msg;
    DBusMessage *reply;
    const char *text;
    const char *sender;
    bool quit = false;
    int i;

    conn = child_connect(address, true);
    CHECK(conn != NULL);
    CHECK(dbus_bus_request_name(conn, "test.echo", 0, NULL)
          == DBUS_REQUEST_NAME_REPLY_PRIMARY_OWNER);

    for (i = 0; i < 400 && !quit; i++) {
        while (!quit && (msg = dbus_connection_pop_message(conn)) != NULL) {
            reply = NULL;
            if (dbus_message_is_method_call(msg, "test.Iface", "Echo")) {
                text = msg_string_arg(msg, 0);
                sender = dbus_message_get_sender(msg);
                CHECK(text != NULL && sender != NULL);
                reply = dbus_message_new_method_return(msg);
                CHECK(reply != NULL);
                CHECK(dbus_message_append_args(reply, DBUS_TYPE_STRING, &text,
                                               DBUS_TYPE_STRING, &sender, DBUS_TYPE_INVALID));
            } else if (dbus_message_is_method_call(msg, "test.Iface", "Fail")) {
                reply = dbus_message_new_error(msg, "test.Error.Failed", "as asked");
            } else if (dbus_message_is_method_call(msg, "test.Iface", "Quit")) {
                reply = dbus_message_new_method_return(msg);
                quit = true;
            }
            if (reply != NULL) {
                CHECK(dbus_connection_send(conn, reply, NULL));
                dbus_message_unref(reply);
            }
            dbus_message_unref(msg);
        }
        if (!quit) {
            CHECK(dbus_connection_read_write(conn, 100));
        }
    }
    CHECK(quit);
    child_close(conn);
    return 0;
}

static int child_echo_client(const char *address, const char *arg)
{
    const char *hello = "hello";
    DBusConnection *conn;
    DBusMessage *msg;
    DBusMessage *reply;
    DBusError error;
    char owner[256];
    struct timeval t0;
    struct timeval t1;

    dbus_error_init(&error);
    conn = child_connect(address, true);
    CHECK(conn != NULL);
    CHECK(child_wait_name(conn, "test.echo"));
    CHECK(child_owner(conn, "test.echo", owner, sizeof(owner)));

    /* By well-known name; the callee sees our unique name, we see the callee's. */
    reply = child_call(conn, &error, "test.echo", "test.Iface", "Echo",
                       DBUS_TYPE_STRING, &hello, DBUS_TYPE_INVALID);
    CHECK(reply != NULL);
    CHECK(streq(msg_string_arg(reply, 0), hello));
    CHECK(streq(msg_string_arg(reply, 1), dbus_bus_get_unique_name(conn)));
    CHECK(streq(dbus_message_get_sender(reply), owner));
    CHECK(streq(dbus_message_get_destination(reply), dbus_bus_get_unique_name(conn)));
    dbus_message_unref(reply);

    /* By unique name, with a forged sender that the bus overwrites. */
    msg = dbus_message_new_method_call(owner, "/test", "test.Iface", "Echo");
    CHECK(msg != NULL);
    CHECK(dbus_message_set_sender(msg, "forged.name"));
    CHECK(dbus_message_append_args(msg, DBUS_TYPE_STRING, &hello, DBUS_TYPE_INVALID));
    reply = dbus_connection_send_with_reply_and_block(conn, msg, 10000, &error);
    dbus_message_unref(msg);
    CHECK(reply != NULL);
    CHECK(streq(msg_string_arg(reply, 1), dbus_bus_get_unique_name(conn)));
    dbus_message_unref(reply);

    /* Errors are routed back like replies. */
    reply = child_call(conn, &error, "test.echo", "test.Iface", "Fail", DBUS_TYPE_INVALID);
    CHECK(reply == NULL && dbus_error_has_name(&error, "test.Error.Failed"));
    dbus_error_free(&error);

    /* Nobody owns the name: ServiceUnknown at once, not a timeout. */
    gettimeofday(&t0, NULL);
    reply = child_call(conn, &error, "test.missing", "test.Iface", "Echo",
                       DBUS_TYPE_STRING, &hello, DBUS_TYPE_INVALID);
    gettimeofday(&t1, NULL);
    CHECK(reply == NULL && dbus_error_has_name(&error, DBUS_ERROR_SERVICE_UNKNOWN));
    CHECK(t1.tv_sec - t0.tv_sec < 5);
    dbus_error_free(&error);
    reply = child_call(conn, &error, ":1.999", "test.Iface", "Echo",
                       DBUS_TYPE_STRING, &hello, DBUS_TYPE_INVALID);
    CHECK(reply == NULL && dbus_error_has_name(&error, DBUS_ERROR_SERVICE_UNKNOWN));
    dbus_error_free(&error);

    reply = child_call(conn, &error, "test.echo", "test.Iface", "Quit", DBUS_TYPE_INVALID);
    CHECK(reply != NULL);
    dbus_message_unref(reply);
    child_close(conn);
    return 0;
}

enum signal_role { ROLE_LISTENER, ROLE_DEAF, ROLE_SENDER };

static bool child_add_match(DBusConnection *conn, const char *rule)
{
    DBusError error;
    bool ok;

    dbus_error_init(&error);
    dbus_bus_add_match(conn, rule, &error);
    ok = !dbus_error_is_set(&error);
    if (!ok) {
        fprintf(stderr, "child %d: AddMatch(%s): %s\n", (int)getpid(), rule, error.message);
    }
    dbus_error_free(&error);
    return ok;
}

static bool child_emit(DBusConnection *conn, const char *member, const char *destination)
{
    DBusMessage *msg;
    bool ok;

    msg = dbus_message_new_signal("/test", "test.Iface", member);
    if (msg == NULL) {
        return false;
    }
    ok = (destination == NULL || dbus_message_set_destination(msg, destination))
         && dbus_connection_send(conn, msg, NULL);
    dbus_message_unref(msg);
    return ok;
}

/* Listener: two rules match Ping (delivered once), one Done. Deaf: a rule for Done only,
 * but gets Direct addressed to it. Sender: matches its own signals, must not get them. */
static int child_signals(const char *address, const char *arg)
{
    enum signal_role role = strcmp(arg, "sender") == 0 ? ROLE_SENDER
                            : strcmp(arg, "listener") == 0 ? ROLE_LISTENER : ROLE_DEAF;
    DBusConnection *conn;
    DBusMessage *msg;
    DBusError error;
    char sender[256] = "";
    int pings = 0;
    int directs = 0;

    dbus_error_init(&error);
    conn = child_connect(address, true);
    CHECK(conn != NULL);

    if (role == ROLE_SENDER) {
        CHECK(dbus_bus_request_name(conn, "test.sender", 0, NULL) == 1);
        CHECK(child_add_match(conn, "type='signal',interface='test.Iface'"));
        CHECK(child_wait_name(conn, "test.listener"));
        CHECK(child_wait_name(conn, "test.deaf"));
        CHECK(child_emit(conn, "Ping", NULL));
        CHECK(child_emit(conn, "Direct", "test.deaf"));
        CHECK(child_emit(conn, "Done", NULL));
        /* A round trip: anything the bus sent us before it is queued now. */
        msg = child_call(conn, &error, DBUS_SERVICE_DBUS, DBUS_INTERFACE_DBUS, "GetId",
                         DBUS_TYPE_INVALID);
        CHECK(msg != NULL);
        dbus_message_unref(msg);
        while ((msg = dbus_connection_pop_message(conn)) != NULL) {
            CHECK(!streq(dbus_message_get_interface(msg), "test.Iface"));
            dbus_message_unref(msg);
        }
        child_close(conn);
        return 0;
    }

    /* The sender names itself first and waits for our names, so it is there now. */
    CHECK(child_wait_name(conn, "test.sender"));
    CHECK(child_owner(conn, "test.sender", sender, sizeof(sender)));
    if (role == ROLE_LISTENER) {
        CHECK(child_add_match(conn, "type='signal',interface='test.Iface',member='Ping'"));
        CHECK(child_add_match(conn, "sender='test.sender',member='Ping'"));
        CHECK(child_add_match(conn, "type='signal',interface='test.Iface',member='Done'"));
        CHECK(dbus_bus_request_name(conn, "test.listener", 0, NULL) == 1);
    } else {
        CHECK(child_add_match(conn, "type='signal',member='Done'"));
        CHECK(dbus_bus_request_name(conn, "test.deaf", 0, NULL) == 1);
    }

    for (;;) {
        msg = child_next_signal(conn);
        CHECK(msg != NULL);
        if (from_bus(msg)) {
            dbus_message_unref(msg);
            continue;
        }
        CHECK(streq(dbus_message_get_interface(msg), "test.Iface"));
        /* The bus stamped the sender's unique name. */
        CHECK(streq(dbus_message_get_sender(msg), sender));
        if (dbus_message_is_signal(msg, "test.Iface", "Ping")) {
            pings++;
        } else if (dbus_message_is_signal(msg, "test.Iface", "Direct")) {
            directs++;
        } else if (dbus_message_is_signal(msg, "test.Iface", "Done")) {
            dbus_message_unref(msg);
            break;
        }
        dbus_message_unref(msg);
    }
    if (role == ROLE_LISTENER) {
        CHECK(pings == 1 && directs == 0);
    } else {
        CHECK(pings == 0 && directs == 1);
    }
    child_close(conn);
    return 0;
}

/* Watches test.gone appear and disappear with its owner. */
static int child_watcher(const char *address, const char *arg)
{
    DBusConnection *conn;
    DBusMessage *msg;
    DBusError error;
    char gone[64];

    dbus_error_init(&error);
    conn = child_connect(address, true);
    CHECK(conn != NULL);
    CHECK(child_add_match(conn, "type='signal',sender='org.freedesktop.DBus',"
                          "interface='org.freedesktop.DBus',member='NameOwnerChanged',"
                          "arg0='test.gone'"));
    CHECK(child_add_match(conn, "type='signal',member='NameOwnerChanged',arg2=''"));
    CHECK(dbus_bus_request_name(conn, "test.watcher", 0, NULL) == 1);

    do {
        msg = child_next_signal(conn);
        CHECK(msg != NULL);
        if (dbus_message_is_signal(msg, DBUS_INTERFACE_DBUS, "NameAcquired")) {
            dbus_message_unref(msg);
            msg = NULL;
        }
    } while (msg == NULL);
    CHECK(dbus_message_is_signal(msg, DBUS_INTERFACE_DBUS, "NameOwnerChanged"));
    CHECK(from_bus(msg) && dbus_message_get_destination(msg) == NULL);
    CHECK(streq(msg_string_arg(msg, 0), "test.gone"));
    CHECK(streq(msg_string_arg(msg, 1), ""));
    snprintf(gone, sizeof(gone), "%s", msg_string_arg(msg, 2));
    CHECK(gone[0] == ':');
    dbus_message_unref(msg);

    /* Both rules match this one: it comes once. */
    msg = child_next_signal(conn);
    CHECK(msg != NULL && dbus_message_is_signal(msg, DBUS_INTERFACE_DBUS, "NameOwnerChanged"));
    CHECK(streq(msg_string_arg(msg, 0), "test.gone"));
    CHECK(streq(msg_string_arg(msg, 1), gone));
    CHECK(streq(msg_string_arg(msg, 2), ""));
    dbus_message_unref(msg);

    msg = child_next_signal(conn);
    CHECK(msg != NULL && dbus_message_is_signal(msg, DBUS_INTERFACE_DBUS, "NameOwnerChanged"));
    CHECK(streq(msg_string_arg(msg, 0), gone));
    CHECK(streq(msg_string_arg(msg, 1), gone));
    CHECK(streq(msg_string_arg(msg, 2), ""));
    dbus_message_unref(msg);

    CHECK(!dbus_bus_name_has_owner(conn, "test.gone", NULL));
    CHECK(!dbus_bus_name_has_owner(conn, gone, NULL));
    while ((msg = dbus_connection_pop_message(conn)) != NULL) {
        CHECK(!dbus_message_is_signal(msg, DBUS_INTERFACE_DBUS, "NameOwnerChanged"));
        dbus_message_unref(msg);
    }
    child_close(conn);
    return 0;
}

static int child_goner(const char *address, const char *arg)
{
    DBusConnection *conn;

    conn = child_connect(address, true);
    CHECK(conn != NULL);
    CHECK(child_wait_name(conn, "test.watcher"));
    CHECK(dbus_bus_request_name(conn, "test.gone", 0, NULL) == 1);
    /* Exit without releasing anything. */
    child_close(conn);
    return 0;
}

/* Peer mode (dbus-send --address=): no Hello, yet the bus answers and names the peer. */
static int child_no_hello(const char *address, const char *arg)
{
    DBusConnection *conn;
    DBusMessage *reply;
    DBusError error;
    char **names = NULL;
    int n = 0, i;
    bool has_bus = false, has_unique = false;

    dbus_error_init(&error);
    conn = child_connect(address, false);
    CHECK(conn != NULL);
    reply = child_call(conn, &error, DBUS_SERVICE_DBUS, DBUS_INTERFACE_DBUS, "ListNames",
                       DBUS_TYPE_INVALID);
    CHECK(reply != NULL);
    CHECK(dbus_message_get_args(reply, NULL, DBUS_TYPE_ARRAY, DBUS_TYPE_STRING, &names, &n,
                                DBUS_TYPE_INVALID));
    for (i = 0; i < n; i++) {
        has_bus |= strcmp(names[i], DBUS_SERVICE_DBUS) == 0;
        has_unique |= names[i][0] == ':';
    }
    dbus_free_string_array(names);
    dbus_message_unref(reply);
    CHECK(has_bus && has_unique);
    /* Having been registered implicitly, a late Hello is refused like a second one. */
    CHECK(child_bus_error(conn, DBUS_ERROR_FAILED, "Hello", DBUS_TYPE_INVALID));
    CHECK(dbus_connection_get_is_connected(conn));
    child_close(conn);
    return 0;
}

/* Stays connected (owning test.stay) until the bus goes away. */
static int child_stay(const char *address, const char *arg)
{
    DBusConnection *conn;
    DBusMessage *msg;
    int i;

    conn = child_connect(address, true);
    CHECK(conn != NULL);
    CHECK(dbus_bus_request_name(conn, "test.stay", 0, NULL) == 1);
    for (i = 0; i < 400 && dbus_connection_read_write(conn, 100); i++) {
        while ((msg = dbus_connection_pop_message(conn)) != NULL) {
            dbus_message_unref(msg);
        }
    }
    CHECK(!dbus_connection_get_is_connected(conn));
    dbus_connection_close(conn);
    dbus_connection_unref(conn);
    return 0;
}

/* Becomes nobody and connects; arg ("accept" or "refuse") says whether the bus must let it in. */
static int child_nobody(const char *address, const char *arg)
{
    bool expect_ok = strcmp(arg, "accept") == 0;
    DBusConnection *conn;

    CHECK(setgid(65534) == 0 && setuid(65534) == 0);
    conn = child_connect(address, true);
    if (!expect_ok) {
        CHECK(conn == NULL);
        return 0;
    }
    CHECK(conn != NULL);
    CHECK(dbus_bus_get_unix_user(conn, dbus_bus_get_unique_name(conn), NULL) == 65534);
    child_close(conn);
    return 0;
}

/* The next message on conn for which want() holds (others are dropped), or NULL after
 * 20 s or on disconnection. */
static DBusMessage *child_next_msg(DBusConnection *conn, bool (*want)(DBusMessage *, void *),
                                   void *pvt)
{
    DBusMessage *msg;
    int i;

    for (i = 0; i < 200; i++) {
        while ((msg = dbus_connection_pop_message(conn)) != NULL) {
            if (want(msg, pvt)) {
                return msg;
            }
            dbus_message_unref(msg);
        }
        if (!dbus_connection_read_write(conn, 100)) {
            return NULL;
        }
    }
    return NULL;
}

static bool want_call(DBusMessage *msg, void *pvt)
{
    return dbus_message_is_method_call(msg, "test.Iface", pvt);
}

/* An answer to one of the serials (0: none) in pvt, or the bus's NameOwnerChanged. */
static bool want_answer_or_owner_change(DBusMessage *msg, void *pvt)
{
    dbus_uint32_t *serials = pvt;
    dbus_uint32_t reply_serial = dbus_message_get_reply_serial(msg);

    return (reply_serial != 0 && (reply_serial == serials[0] || reply_serial == serials[1]))
           || (from_bus(msg) && dbus_message_is_signal(msg, DBUS_INTERFACE_DBUS,
                                                       "NameOwnerChanged")
               && streq(msg_string_arg(msg, 0), "test.owed"));
}

/* A sends to test.owed (B, in this process too); B answers the first call addressed to
 * A's well-known name, leaves the second unanswered and disconnects. A must get NoReply
 * for the second call only: a stale NoReply for an answered call is a second answer. */
static int child_owed(const char *address, const char *arg)
{
    const char *rule = "type='signal',sender='org.freedesktop.DBus',"
                       "member='NameOwnerChanged',arg0='test.owed'";
    DBusConnection *a;
    DBusConnection *b;
    DBusMessage *msg;
    DBusMessage *got;
    DBusMessage *reply;
    dbus_uint32_t serials[2] = { 0, 0 };
    bool noreply;

    a = child_connect(address, true);
    b = child_connect(address, true);
    CHECK(a != NULL && b != NULL);
    CHECK(dbus_bus_request_name(a, "test.caller", 0, NULL)
          == DBUS_REQUEST_NAME_REPLY_PRIMARY_OWNER);
    CHECK(dbus_bus_request_name(b, "test.owed", 0, NULL)
          == DBUS_REQUEST_NAME_REPLY_PRIMARY_OWNER);
    CHECK(child_add_match(a, rule));

    msg = dbus_message_new_method_call("test.owed", "/test", "test.Iface", "First");
    CHECK(msg != NULL && dbus_connection_send(a, msg, &serials[0]));
    dbus_message_unref(msg);
    dbus_connection_flush(a);
    got = child_next_msg(b, want_call, "First");
    CHECK(got != NULL);
    reply = dbus_message_new_method_return(got);
    CHECK(reply != NULL && dbus_message_set_destination(reply, "test.caller"));
    CHECK(dbus_connection_send(b, reply, NULL));
    dbus_message_unref(reply);
    dbus_message_unref(got);
    dbus_connection_flush(b);
    got = child_next_msg(a, want_answer_or_owner_change, serials);
    CHECK(got != NULL && dbus_message_get_type(got) == DBUS_MESSAGE_TYPE_METHOD_RETURN);
    dbus_message_unref(got);

    msg = dbus_message_new_method_call("test.owed", "/test", "test.Iface", "Second");
    CHECK(msg != NULL && dbus_connection_send(a, msg, &serials[1]));
    dbus_message_unref(msg);
    dbus_connection_flush(a);
    got = child_next_msg(b, want_call, "Second");
    CHECK(got != NULL);
    dbus_message_unref(got);
    child_close(b);

    /* The bus answers what B owed before it announces B's name gone: NoReply to the
     * second call, and nothing for the first (it was answered), in any order. */
    noreply = false;
    while ((got = child_next_msg(a, want_answer_or_owner_change, serials)) != NULL
           && dbus_message_get_type(got) != DBUS_MESSAGE_TYPE_SIGNAL) {
        if (dbus_message_get_reply_serial(got) == serials[0]) {
            fprintf(stderr, "child %d: a second answer (%s) to an answered call\n",
                    (int)getpid(), dbus_message_get_error_name(got));
            return 1;
        }
        CHECK(dbus_message_is_error(got, DBUS_ERROR_NO_REPLY));
        noreply = true;
        dbus_message_unref(got);
    }
    CHECK(got != NULL);     /* NameOwnerChanged */
    dbus_message_unref(got);
    CHECK(noreply);
    child_close(a);
    return 0;
}

/* -------- tests -------- */

static void test_create(void **state)
{
    struct test_ctx *t = *state;
    struct stat st;
    char *expected;

    assert_int_equal(lstat(t->bus.socket_path, &st), 0);
    assert_true(S_ISSOCK(st.st_mode));
    assert_int_equal(st.st_mode & 07777, 0600);
    expected = talloc_asprintf(t, "unix:path=%s", t->bus.socket_path);
    assert_string_equal(sbus_server_get_address(t->bus.server), expected);
    talloc_free(expected);
    assert_int_equal(sbus_server_connection_count(t->bus.server), 0);
    assert_null(sbus_server_get_address(NULL));
    assert_int_equal(sbus_server_connection_count(NULL), 0);
}

static void test_create_errors(void **state)
{
    struct test_ctx *t = *state;
    struct sbus_server *server = NULL;
    struct sockaddr_un sun = { .sun_family = AF_UNIX };
    struct stat st;
    char *path;
    int fd;

    assert_int_equal(sbus_server_create(t->bus.mem, NULL, "/x", 0, &server), EINVAL);
    assert_int_equal(sbus_server_create(t->bus.mem, t->bus.ev, NULL, 0, &server), EINVAL);
    assert_int_equal(sbus_server_create(t->bus.mem, t->bus.ev, "", 0, &server), EINVAL);
    assert_int_equal(sbus_server_create(t->bus.mem, t->bus.ev, "/x", 0, NULL), EINVAL);

    /* A regular file is not replaced. */
    path = talloc_asprintf(t, "%s/file", t->bus.dir);
    fd = open(path, O_CREAT | O_WRONLY, 0600);
    assert_true(fd >= 0);
    close(fd);
    assert_int_equal(sbus_server_create(t->bus.mem, t->bus.ev, path, 0, &server), EEXIST);
    assert_null(server);
    assert_int_equal(unlink(path), 0);
    talloc_free(path);

    /* Nowhere to listen. */
    path = talloc_asprintf(t, "%s/nodir/socket", t->bus.dir);
    assert_int_equal(sbus_server_create(t->bus.mem, t->bus.ev, path, 0, &server), EIO);
    talloc_free(path);

    /* A stale socket is replaced. */
    path = talloc_asprintf(t, "%s/stale", t->bus.dir);
    fd = socket(AF_UNIX, SOCK_STREAM, 0);
    assert_true(fd >= 0);
    snprintf(sun.sun_path, sizeof(sun.sun_path), "%s", path);
    assert_int_equal(bind(fd, (struct sockaddr *)&sun, sizeof(sun)), 0);
    close(fd);
    assert_int_equal(chmod(path, 0666), 0);
    assert_int_equal(sbus_server_create(t->bus.mem, t->bus.ev, path, 0, &server), EOK);
    assert_int_equal(lstat(path, &st), 0);
    assert_int_equal(st.st_mode & 07777, 0600);
    talloc_free(server);
    assert_int_equal(lstat(path, &st), -1);
    talloc_free(path);
}

static void test_hello(void **state)
{
    struct test_ctx *t = *state;

    start_child(t, "hello", NULL);
    run_children(t);
}

static void test_names(void **state)
{
    struct test_ctx *t = *state;

    start_child(t, "names", NULL);
    run_children(t);
}

static void test_routing(void **state)
{
    struct test_ctx *t = *state;

    start_child(t, "echo_server", NULL);
    start_child(t, "echo_client", NULL);
    run_children(t);
}

/* A callee that leaves owes NoReply for unanswered calls only, however an answer named
 * its caller. */
static void test_pending_answered(void **state)
{
    struct test_ctx *t = *state;

    start_child(t, "owed", NULL);
    run_children(t);
}

static void test_signals(void **state)
{
    struct test_ctx *t = *state;

    start_child(t, "signals", "listener");
    start_child(t, "signals", "deaf");
    start_child(t, "signals", "sender");
    run_children(t);
}

static void test_disconnect_signals(void **state)
{
    struct test_ctx *t = *state;

    start_child(t, "watcher", NULL);
    start_child(t, "goner", NULL);
    run_children(t);
}

static void test_no_hello(void **state)
{
    struct test_ctx *t = *state;

    start_child(t, "no_hello", NULL);
    run_children(t);
}

static bool one_peer_named(struct test_ctx *t)
{
    return sbus_server_connection_count(t->bus.server) == 1
           && sbus_server_name_owner(t->bus.server, "test.stay") != NULL;
}

static bool children_reaped(struct test_ctx *t)
{
    return children_done(t);
}

/* Freeing the server with a peer connected closes the peer and removes the socket. */
static void test_free_with_peers(void **state)
{
    struct test_ctx *t = *state;
    struct stat st;

    start_child(t, "stay", NULL);
    loop_until(t, one_peer_named);
    talloc_zfree(t->bus.server);
    assert_int_equal(stat(t->bus.socket_path, &st), -1);
    loop_until(t, children_reaped);
    t->num_children = 0;
}

static void in_process_notify(DBusPendingCall *pending, void *data)
{
    struct test_ctx *t = data;

    t->reply = dbus_pending_call_steal_reply(pending);
}

static bool in_process_replied(struct test_ctx *t)
{
    return t->reply != NULL;
}

/* Sends msg (consumed) on conn, runs the loop until the reply is in and returns it. */
static DBusMessage *in_process_call(struct test_ctx *t, DBusConnection *conn, DBusMessage *msg)
{
    DBusPendingCall *pending = NULL;
    DBusMessage *reply;

    assert_non_null(msg);
    assert_true(dbus_connection_send_with_reply(conn, msg, &pending, 10000));
    assert_non_null(pending);
    dbus_message_unref(msg);
    t->reply = NULL;
    assert_true(dbus_pending_call_set_notify(pending, in_process_notify, t, NULL));
    loop_until(t, in_process_replied);
    dbus_pending_call_unref(pending);
    reply = t->reply;
    t->reply = NULL;
    assert_int_equal(dbus_message_get_type(reply), DBUS_MESSAGE_TYPE_METHOD_RETURN);
    return reply;
}

/* The monitor's case: a client on the same tevent loop as the server, all asynchronous. */
static void test_in_process(void **state)
{
    struct test_ctx *t = *state;
    const char *name = "test.self";
    dbus_uint32_t flags = 0;
    dbus_uint32_t value = 0;
    const char *unique = NULL;
    DBusConnection *conn;
    DBusMessage *reply;
    DBusMessage *msg;
    TALLOC_CTX *owner;

    conn = dbus_connection_open_private(sbus_server_get_address(t->bus.server), NULL);
    assert_non_null(conn);
    owner = talloc_new(t);
    assert_int_equal(sbus_tevent_connection_setup(owner, t->bus.ev, conn), EOK);

    reply = in_process_call(t, conn, dbus_message_new_method_call(DBUS_SERVICE_DBUS,
                            DBUS_PATH_DBUS, DBUS_INTERFACE_DBUS, "Hello"));
    assert_true(dbus_message_get_args(reply, NULL, DBUS_TYPE_STRING, &unique,
                                      DBUS_TYPE_INVALID));
    assert_string_equal(unique, ":1.1");
    dbus_message_unref(reply);
    assert_int_equal(sbus_server_connection_count(t->bus.server), 1);

    msg = dbus_message_new_method_call(DBUS_SERVICE_DBUS, DBUS_PATH_DBUS, DBUS_INTERFACE_DBUS,
                                       "RequestName");
    assert_true(dbus_message_append_args(msg, DBUS_TYPE_STRING, &name,
                                         DBUS_TYPE_UINT32, &flags, DBUS_TYPE_INVALID));
    reply = in_process_call(t, conn, msg);
    assert_true(dbus_message_get_args(reply, NULL, DBUS_TYPE_UINT32, &value,
                                      DBUS_TYPE_INVALID));
    assert_int_equal(value, DBUS_REQUEST_NAME_REPLY_PRIMARY_OWNER);
    dbus_message_unref(reply);

    msg = dbus_message_new_method_call(DBUS_SERVICE_DBUS, DBUS_PATH_DBUS, DBUS_INTERFACE_DBUS,
                                       "GetConnectionUnixProcessID");
    assert_true(dbus_message_append_args(msg, DBUS_TYPE_STRING, &name, DBUS_TYPE_INVALID));
    reply = in_process_call(t, conn, msg);
    assert_true(dbus_message_get_args(reply, NULL, DBUS_TYPE_UINT32, &value,
                                      DBUS_TYPE_INVALID));
    assert_int_equal(value, getpid());
    dbus_message_unref(reply);

    talloc_free(owner);
    dbus_connection_close(conn);
    dbus_connection_unref(conn);
    loop_until(t, server_idle);
    assert_int_equal(talloc_total_blocks(t->bus.server), t->server_blocks);
}

/* Only uid 0 and the allowed uid get in (needs root to become another user). */
static void test_uid(void **state)
{
    struct test_ctx *t = *state;

    if (geteuid() != 0) {
        skip();
    }
    /* Let nobody reach the socket at all, so the refusal is the bus's own. */
    assert_int_equal(chmod(t->bus.dir, 0755), 0);

    talloc_zfree(t->bus.server);
    assert_int_equal(test_server_start(t, 12345), EOK);
    assert_int_equal(chmod(t->bus.socket_path, 0666), 0);
    start_child(t, "nobody", "refuse");
    run_children(t);

    talloc_zfree(t->bus.server);
    assert_int_equal(test_server_start(t, 65534), EOK);
    assert_int_equal(chmod(t->bus.socket_path, 0666), 0);
    start_child(t, "nobody", "accept");
    run_children(t);
}

static const struct {
    const char *name;
    int (*fn)(const char *address, const char *arg);
} children[] = {
    { "hello",       child_hello },
    { "names",       child_names },
    { "echo_server", child_echo_server },
    { "echo_client", child_echo_client },
    { "owed",        child_owed },
    { "signals",     child_signals },
    { "watcher",     child_watcher },
    { "goner",       child_goner },
    { "no_hello",    child_no_hello },
    { "stay",        child_stay },
    { "nobody",      child_nobody },
};

/* Frees what is left under the tracked NULL context (tevent's backend list), right
 * before exiting: nothing may use tevent afterwards. */
static void free_tevent_globals(void)
{
    void *probe = talloc_new(NULL);
    void *top = talloc_parent(probe);

    talloc_free(probe);
    if (top != NULL) {
        talloc_free_children(top);
    }
    talloc_disable_null_tracking();
}

static int run_child(const char *name, const char *address, const char *arg)
{
    size_t i;

    alarm(CHILD_ALARM_SEC);
    for (i = 0; i < SSS_ARRAY_SIZE(children); i++) {
        if (strcmp(children[i].name, name) == 0) {
            return children[i].fn(address, arg);
        }
    }
    fprintf(stderr, "no child called %s\n", name);
    return 2;
}

int main(int argc, char *argv[])
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_create, setup, teardown),
        cmocka_unit_test_setup_teardown(test_create_errors, setup, teardown),
        cmocka_unit_test_setup_teardown(test_hello, setup, teardown),
        cmocka_unit_test_setup_teardown(test_names, setup, teardown),
        cmocka_unit_test_setup_teardown(test_routing, setup, teardown),
        cmocka_unit_test_setup_teardown(test_pending_answered, setup, teardown),
        cmocka_unit_test_setup_teardown(test_signals, setup, teardown),
        cmocka_unit_test_setup_teardown(test_disconnect_signals, setup, teardown),
        cmocka_unit_test_setup_teardown(test_no_hello, setup, teardown),
        cmocka_unit_test_setup_teardown(test_free_with_peers, setup, teardown),
        cmocka_unit_test_setup_teardown(test_in_process, setup, teardown),
        cmocka_unit_test_setup_teardown(test_uid, setup, teardown),
    };
    const char *level = getenv("TEST_DEBUG_LEVEL");
    int failed;

    ssize_t len;

    if (argc == 5 && strcmp(argv[1], "--child") == 0) {
        return run_child(argv[2], argv[3], argv[4]);
    }
    if (realpath(argv[0], self_path) == NULL) {
        len = readlink("/proc/self/exe", self_path, sizeof(self_path) - 1);
        if (len <= 0) {
            fprintf(stderr, "cannot find this program: %s\n", strerror(errno));
            return 1;
        }
        self_path[len] = '\0';
    }
    debug_level = level != NULL ? debug_convert_level((int)strtol(level, NULL, 0)) : SSSDBG_DEFAULT;
    /* tevent keeps its backend list in top-level talloc blocks that valgrind reports as
     * possibly lost; tracking the NULL context lets main() free them at the very end. */
    talloc_enable_null_tracking();
    failed = cmocka_run_group_tests(tests, NULL, NULL);
    dbus_shutdown();
    free_tevent_globals();
    return failed;
}
