/*
 * A client connection to the master bus: open the socket, say Hello, take the well-known
 * name, and tear down cleanly. All of it runs on the tevent loop, never blocking, because the
 * monitor connects to the server it runs itself in the same loop.
 */
#include "sbus/sbus_private.h"

static int sbus_connection_destructor(struct sbus_connection *conn)
{
    /* Callers waiting for answers on conn hear ERR_SBUS_DISCONNECTED (from the loop, as
     * their requests outlive conn); the owner freeing conn needs no disconnect callback. */
    sbus_call_fail_all(conn, ERR_SBUS_DISCONNECTED);
    if (conn->freed != NULL) {
        *conn->freed = true;
    }
    conn->disconnect_fn = NULL;
    conn->disconnected = true;
    dbus_connection_remove_filter(conn->dbus, sbus_dispatch_filter, conn);
    dbus_connection_close(conn->dbus);
    dbus_connection_unref(conn->dbus);
    return 0;
}

static void sbus_disconnect_notify(struct tevent_context *ev, struct tevent_immediate *im,
                                   void *pvt)
{
    struct sbus_connection *conn = talloc_get_type(pvt, struct sbus_connection);
    sbus_disconnect_fn fn = conn->disconnect_fn;

    conn->disconnect_fn = NULL;
    if (fn != NULL) {
        fn(conn, conn->disconnect_data);
    }
}

void sbus_connection_mark_disconnected(struct sbus_connection *conn)
{
    if (conn->disconnected) {
        return;
    }
    conn->disconnected = true;
    DEBUG(SSSDBG_OP_FAILURE, "Connection to the bus %s closed\n", conn->address);
    /* Whoever waits for an answer gets an error now rather than at their timeout. */
    sbus_call_fail_all(conn, ERR_SBUS_DISCONNECTED);
    /* Tell the owner from the loop, not from inside libdbus's dispatch: it may free conn. */
    tevent_schedule_immediate(conn->disconnect_im, conn->ev, sbus_disconnect_notify, conn);
}

void sbus_connection_set_disconnect_cb(struct sbus_connection *conn,
                                       sbus_disconnect_fn fn, void *data)
{
    SSS_CHECK_ARG(conn != NULL);

    conn->disconnect_fn = fn;
    conn->disconnect_data = data;
    if (conn->disconnected && fn != NULL) {
        tevent_schedule_immediate(conn->disconnect_im, conn->ev, sbus_disconnect_notify, conn);
    }
}

struct tevent_context *sbus_connection_get_ev(struct sbus_connection *conn)
{
    SSS_CHECK_ARG(conn != NULL, NULL);
    return conn->ev;
}

const char *sbus_connection_get_unique_name(struct sbus_connection *conn)
{
    SSS_CHECK_ARG(conn != NULL, NULL);
    return conn->unique_name;
}

const char *sbus_connection_get_name(struct sbus_connection *conn)
{
    SSS_CHECK_ARG(conn != NULL, NULL);
    return conn->name;
}

DBusConnection *sbus_connection_get_dbus(struct sbus_connection *conn)
{
    SSS_CHECK_ARG(conn != NULL, NULL);
    return conn->dbus;
}

static errno_t sbus_connection_open(TALLOC_CTX *mem_ctx, struct tevent_context *ev,
                                    const char *address, struct sbus_connection **_conn)
{
    struct sbus_connection *conn;
    DBusConnection *dbus;
    DBusError error;
    errno_t ret;

    dbus_error_init(&error);
    dbus_connection_set_change_sigpipe(FALSE);
    dbus = dbus_connection_open_private(address, &error);
    if (dbus == NULL) {
        DEBUG(SSSDBG_CRIT_FAILURE, "Cannot connect to %s: %s\n", address, error.message);
        ret = dbus_error_has_name(&error, DBUS_ERROR_NO_MEMORY) ? ENOMEM : EIO;
        dbus_error_free(&error);
        return ret;
    }
    dbus_connection_set_exit_on_disconnect(dbus, FALSE);

    conn = talloc_zero(mem_ctx, struct sbus_connection);
    if (conn == NULL) {
        dbus_connection_close(dbus);
        dbus_connection_unref(dbus);
        return ENOMEM;
    }
    /* From here on the destructor closes dbus. */
    conn->ev = ev;
    conn->dbus = dbus;
    sss_list_init(&conn->ifaces);
    sss_list_init(&conn->listeners);
    sss_list_init(&conn->pending);
    talloc_set_destructor(conn, sbus_connection_destructor);

    conn->address = talloc_strdup(conn, address);
    conn->disconnect_im = tevent_create_immediate(conn);
    if (conn->address == NULL || conn->disconnect_im == NULL
        || !dbus_connection_add_filter(dbus, sbus_dispatch_filter, conn, NULL)) {
        ret = ENOMEM;
        goto done;
    }
    ret = sbus_tevent_connection_setup(conn, ev, dbus);
    if (ret != EOK) {
        goto done;
    }
    *_conn = conn;
    ret = EOK;

done:
    if (ret != EOK) {
        talloc_free(conn);
    }
    return ret;
}

struct sbus_connect_state {
    struct tevent_context *ev;
    struct sbus_connection *conn;
    const char *name;
};

static void sbus_connect_hello_done(struct tevent_req *subreq);
static void sbus_connect_name_done(struct tevent_req *subreq);

struct tevent_req *sbus_connect_send(TALLOC_CTX *mem_ctx, struct tevent_context *ev,
                                     const char *address, const char *well_known_name)
{
    struct sbus_connect_state *state;
    struct tevent_req *req, *subreq;
    DBusMessage *msg;
    errno_t ret;

    SSS_CHECK_ARG(ev != NULL, NULL);

    req = tevent_req_create(mem_ctx, &state, struct sbus_connect_state);
    if (req == NULL) {
        return NULL;
    }
    state->ev = ev;
    if (address == NULL) {
        DEBUG(SSSDBG_CRIT_FAILURE, "Invalid argument: no bus address\n");
        return sss_req_post(req, ev, EINVAL);
    }
    if (well_known_name != NULL) {
        if (!dbus_validate_bus_name(well_known_name, NULL) || well_known_name[0] == ':') {
            DEBUG(SSSDBG_CRIT_FAILURE, "Invalid argument: '%s' is no well-known bus name\n",
                  well_known_name);
            return sss_req_post(req, ev, EINVAL);
        }
        state->name = talloc_strdup(state, well_known_name);
        if (state->name == NULL) {
            return sss_req_post(req, ev, ENOMEM);
        }
    }

    ret = sbus_connection_open(state, ev, address, &state->conn);
    if (ret != EOK) {
        return sss_req_post(req, ev, ret);
    }

    msg = dbus_message_new_method_call(SBUS_DBUS_NAME, SBUS_DBUS_PATH, SBUS_DBUS_IFACE,
                                       "Hello");
    if (msg == NULL) {
        return sss_req_post(req, ev, ENOMEM);
    }
    subreq = sbus_call_send(state, state->conn, msg, NULL, 0);
    if (subreq == NULL) {
        return sss_req_post(req, ev, ENOMEM);
    }
    tevent_req_set_callback(subreq, sbus_connect_hello_done, req);
    return req;
}

static void sbus_connect_hello_done(struct tevent_req *subreq)
{
    struct tevent_req *req = tevent_req_callback_data(subreq, struct tevent_req);
    struct sbus_connect_state *state = tevent_req_data(req, struct sbus_connect_state);
    const char *unique = NULL;
    const char *name = state->name;
    dbus_uint32_t flags = DBUS_NAME_FLAG_DO_NOT_QUEUE;
    DBusMessage *reply;
    DBusMessage *msg;
    errno_t ret;

    ret = sbus_call_recv(state, subreq, &reply);
    talloc_zfree(subreq);
    if (ret != EOK) {
        DEBUG(SSSDBG_CRIT_FAILURE, "Hello to the bus failed: %s\n", sss_strerror(ret));
        tevent_req_error(req, ret);
        return;
    }
    if (!dbus_message_get_args(reply, NULL, DBUS_TYPE_STRING, &unique, DBUS_TYPE_INVALID)
        || unique[0] != ':') {
        tevent_req_error(req, ERR_SBUS_INVALID_ARGS);
        return;
    }
    state->conn->unique_name = talloc_strdup(state->conn, unique);
    if (state->conn->unique_name == NULL
        || !dbus_bus_set_unique_name(state->conn->dbus, unique)) {
        tevent_req_error(req, ENOMEM);
        return;
    }
    if (name == NULL) {
        tevent_req_done(req);
        return;
    }

    msg = dbus_message_new_method_call(SBUS_DBUS_NAME, SBUS_DBUS_PATH, SBUS_DBUS_IFACE,
                                       "RequestName");
    if (msg == NULL || !dbus_message_append_args(msg, DBUS_TYPE_STRING, &name,
                                                 DBUS_TYPE_UINT32, &flags, DBUS_TYPE_INVALID)) {
        if (msg != NULL) {
            dbus_message_unref(msg);
        }
        tevent_req_error(req, ENOMEM);
        return;
    }
    subreq = sbus_call_send(state, state->conn, msg, NULL, 0);
    if (tevent_req_nomem(subreq, req)) {
        return;
    }
    tevent_req_set_callback(subreq, sbus_connect_name_done, req);
}

static void sbus_connect_name_done(struct tevent_req *subreq)
{
    struct tevent_req *req = tevent_req_callback_data(subreq, struct tevent_req);
    struct sbus_connect_state *state = tevent_req_data(req, struct sbus_connect_state);
    dbus_uint32_t result = 0;
    DBusMessage *reply;
    errno_t ret;

    ret = sbus_call_recv(state, subreq, &reply);
    talloc_zfree(subreq);
    if (ret != EOK) {
        DEBUG(SSSDBG_CRIT_FAILURE, "RequestName(%s) failed: %s\n", state->name,
              sss_strerror(ret));
        tevent_req_error(req, ret);
        return;
    }
    if (!dbus_message_get_args(reply, NULL, DBUS_TYPE_UINT32, &result, DBUS_TYPE_INVALID)) {
        tevent_req_error(req, ERR_SBUS_INVALID_ARGS);
        return;
    }
    if (result != DBUS_REQUEST_NAME_REPLY_PRIMARY_OWNER
        && result != DBUS_REQUEST_NAME_REPLY_ALREADY_OWNER) {
        DEBUG(SSSDBG_CRIT_FAILURE, "The name %s is owned by another connection\n",
              state->name);
        tevent_req_error(req, ERR_SBUS_NAME_TAKEN);
        return;
    }
    state->conn->name = talloc_strdup(state->conn, state->name);
    if (tevent_req_nomem(state->conn->name, req)) {
        return;
    }
    DEBUG(SSSDBG_TRACE_FUNC, "Connected to the bus as %s (%s)\n", state->name,
          state->conn->unique_name);
    tevent_req_done(req);
}

errno_t sbus_connect_recv(TALLOC_CTX *mem_ctx, struct tevent_req *req,
                          struct sbus_connection **_conn)
{
    struct sbus_connect_state *state;

    SSS_CHECK_ARG(req != NULL, EINVAL);
    SSS_CHECK_ARG(_conn != NULL, EINVAL);
    state = tevent_req_data(req, struct sbus_connect_state);
    TEVENT_REQ_RETURN_ON_ERROR(req);
    *_conn = talloc_steal(mem_ctx, state->conn);
    state->conn = NULL;
    return EOK;
}
