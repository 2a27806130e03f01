/*
 * The master bus server: listening on the unix socket, accepting connections, checking each
 * peer's uid (EXTERNAL authentication only; uid 0 and the allowed uid get in), running
 * every connection on the tevent loop, and the lifetime of peers and of the server. Every
 * message a peer sends passes through sbus_server_filter(), which registers the peer (by
 * Hello, or implicitly), stamps the sender, and hands the message to the bus interface
 * (sbus_server_bus.c) or to routing (sbus_server_route.c).
 */
#include <sys/stat.h>
#include <unistd.h>

#include "sbus/sbus_server_private.h"

static DBusHandlerResult sbus_server_filter(DBusConnection *conn, DBusMessage *msg,
                                            void *data);

/* -------- peers -------- */

static dbus_bool_t sbus_server_allow_uid(DBusConnection *conn, unsigned long uid, void *data)
{
    struct sbus_peer *peer = data;

    if (uid == 0 || uid == (unsigned long)peer->server->allowed_uid) {
        DEBUG(SSSDBG_TRACE_FUNC, "Bus peer of uid %lu authenticated\n", uid);
        return TRUE;
    }
    DEBUG(SSSDBG_OP_FAILURE, "Refusing a bus peer of uid %lu\n", uid);
    return FALSE;
}

static int sbus_peer_destructor(struct sbus_peer *peer)
{
    struct sbus_server *server = peer->server;

    /* The glue first, so closing below calls back into nothing. */
    talloc_zfree(peer->loop);
    if (peer->filter_added) {
        dbus_connection_remove_filter(peer->conn, sbus_server_filter, peer);
    }
    dbus_connection_set_unix_user_function(peer->conn, NULL, NULL, NULL);
    dbus_connection_close(peer->conn);
    dbus_connection_unref(peer->conn);

    sss_list_unlink(&peer->link);
    if (!peer->disconnected) {
        assert(server->peer_count > 0);
        server->peer_count--;
    }
    /* Names and match entries (children) take themselves out of the tables next. */
    return 0;
}

static void sbus_server_peer_free(struct tevent_context *ev, struct tevent_immediate *im,
                                  void *pvt)
{
    struct sbus_peer *peer = pvt;

    talloc_free(peer);
}

/* The connection is gone: announce and forget its names now, free it once libdbus has
 * finished dispatching (from an immediate). */
static void sbus_server_peer_gone(struct sbus_peer *peer)
{
    struct sbus_server *server = peer->server;

    if (peer->disconnected) {
        return;
    }
    peer->disconnected = true;
    assert(server->peer_count > 0);
    server->peer_count--;
    DEBUG(SSSDBG_TRACE_FUNC, "Bus peer %s disconnected\n",
          peer->unique != NULL ? peer->unique->name : "(unregistered)");

    sbus_server_forget_peer(peer);
    tevent_schedule_immediate(peer->free_im, server->ev, sbus_server_peer_free, peer);
}

/* Copies a header name (validated by libdbus: at most DBUS_MAXIMUM_NAME_LENGTH bytes). */
static void sbus_server_hdr_copy(char *buf, const char *name)
{
    size_t len = strlen(name);

    assert(len <= DBUS_MAXIMUM_NAME_LENGTH);
    memcpy(buf, name, len + 1);
}

/* Everything routing reads of the header, before the stamp makes libdbus forget it. */
static void sbus_server_hdr_read(DBusMessage *msg, struct sbus_server_hdr *hdr)
{
    const char *name;

    hdr->type = dbus_message_get_type(msg);
    hdr->no_reply = dbus_message_get_no_reply(msg);
    hdr->serial = dbus_message_get_serial(msg);
    hdr->reply_serial = dbus_message_get_reply_serial(msg);
    hdr->destination = NULL;
    name = dbus_message_get_destination(msg);
    if (name != NULL) {
        sbus_server_hdr_copy(hdr->dest_buf, name);
        hdr->destination = hdr->dest_buf;
    }
    hdr->interface[0] = '\0';
    if (hdr->type == DBUS_MESSAGE_TYPE_METHOD_CALL) {
        name = dbus_message_get_interface(msg);
        if (name != NULL) {
            sbus_server_hdr_copy(hdr->interface, name);
        }
    }
}

/* Registration, sender stamp, then the bus itself or routing. */
static void sbus_server_handle(struct sbus_peer *peer, DBusMessage *msg)
{
    struct sbus_server_hdr hdr;

    if (peer->unique == NULL && sbus_server_bus_unregistered(peer, msg)) {
        return;
    }
    assert(peer->unique != NULL);   /* registered by Hello or implicitly just now */

    sbus_server_hdr_read(msg, &hdr);
    if (!dbus_message_set_sender(msg, peer->unique->name)) {
        DEBUG(SSSDBG_CRIT_FAILURE, "Out of memory stamping the sender; message dropped\n");
        return;
    }

    if (hdr.destination != NULL && strcmp(hdr.destination, DBUS_SERVICE_DBUS) == 0) {
        sbus_server_bus_message(peer, msg);
    } else {
        sbus_server_route(peer, msg, &hdr);
    }
}

/* The request id of a message passing through: a call carries it, an answer gets the one
 * recorded for the call it answers. */
static uint64_t sbus_server_msg_req_id(struct sbus_peer *peer, DBusMessage *msg)
{
    const char *destination;
    struct sbus_peer *caller;

    switch (dbus_message_get_type(msg)) {
    case DBUS_MESSAGE_TYPE_METHOD_CALL:
        return sbus_message_req_id(msg);
    case DBUS_MESSAGE_TYPE_METHOD_RETURN:
    case DBUS_MESSAGE_TYPE_ERROR:
        destination = dbus_message_get_destination(msg);
        caller = destination != NULL ? sbus_server_name_owner(peer->server, destination)
                                     : NULL;
        if (peer->unique == NULL || caller == NULL) {
            return 0;
        }
        return sbus_server_pending_req_id(peer, caller->unique_id,
                                          dbus_message_get_reply_serial(msg));
    default:
        return 0;
    }
}

/* What a log line calls a peer: its oldest well-known name (sssd.nss, sssd.domain_X),
 * else its unique name. */
static const char *sbus_server_peer_label(struct sbus_peer *peer)
{
    const char *label;

    assert(peer != NULL);
    label = sbus_server_peer_wellknown(peer);
    if (label == NULL) {
        label = peer->unique != NULL ? peer->unique->name : "(unregistered)";
    }
    return label;
}

/* The master's line for a message of a request (sssctl analyze's "sssd" stage), logged
 * under the request id so that the analyzer puts it between the caller's and the callee's
 * lines. */
static void sbus_server_log_route(struct sbus_peer *peer, DBusMessage *msg,
                                  const char *destination, const char *member)
{
    struct sbus_peer *target = NULL;
    const char *to = destination != NULL ? destination : "(broadcast)";

    if (destination != NULL) {
        target = sbus_server_name_owner(peer->server, destination);
        if (target != NULL) {
            to = sbus_server_peer_label(target);
        }
    }
    switch (dbus_message_get_type(msg)) {
    case DBUS_MESSAGE_TYPE_METHOD_CALL:
        DEBUG(SSSDBG_TRACE_FUNC, "Bus call %s from %s to %s, serial %u\n", member,
              sbus_server_peer_label(peer), to, dbus_message_get_serial(msg));
        break;
    case DBUS_MESSAGE_TYPE_METHOD_RETURN:
    case DBUS_MESSAGE_TYPE_ERROR:
        DEBUG(SSSDBG_TRACE_FUNC, "Bus %s from %s to %s, reply serial %u\n",
              dbus_message_get_type(msg) == DBUS_MESSAGE_TYPE_ERROR ? "error" : "reply",
              sbus_server_peer_label(peer), to, dbus_message_get_reply_serial(msg));
        break;
    default:
        DEBUG(SSSDBG_TRACE_FUNC, "Bus signal %s from %s to %s\n", member,
              sbus_server_peer_label(peer), to);
        break;
    }
}

/* sbus_server_handle() with the sbus_route_recv / sbus_route_sent probes around it: every
 * message read gets one route_recv, and one route_sent per peer it was handed to, or one
 * with destination "" when the server answered or dropped it. Also taken while
 * SSSDBG_TRACE_FUNC is on: the message's request id is then current while it is routed
 * and a message of a request gets a line of its own. */
static void sbus_server_handle_traced(struct sbus_peer *peer, DBusMessage *msg)
{
    struct sbus_server *server = peer->server;
    struct sbus_server_trace trace = { .msg = msg };
    const char *destination = dbus_message_get_destination(msg);

    trace.req_id = sbus_server_msg_req_id(peer, msg);
    trace.sender = peer->unique != NULL ? peer->unique->name : "";
    sbus_message_member_text(msg, trace.member, sizeof(trace.member));
    PROBE(SBUS_ROUTE_RECV, trace.req_id, trace.sender, destination != NULL ? destination : "",
          trace.member, dbus_message_get_type(msg), sbus_message_trace_serial(msg));
    SSS_REQ_ID_SCOPE(trace.req_id);
    if (trace.req_id != 0 && debug_enabled(SSSDBG_TRACE_FUNC)) {
        sbus_server_log_route(peer, msg, destination, trace.member);
    }

    server->trace = &trace;
    sbus_server_handle(peer, msg);
    server->trace = NULL;
    if (trace.sent == 0) {
        /* The sender may have been named by Hello meanwhile: keep what route_recv said. */
        PROBE(SBUS_ROUTE_SENT, trace.req_id, trace.sender, "", trace.member,
              dbus_message_get_type(msg), sbus_message_trace_serial(msg));
    }
}

static DBusHandlerResult sbus_server_filter(DBusConnection *conn, DBusMessage *msg,
                                            void *data)
{
    struct sbus_peer *peer = data;

    if (dbus_message_is_signal(msg, DBUS_INTERFACE_LOCAL, "Disconnected")
            && dbus_message_has_path(msg, DBUS_PATH_LOCAL)) {
        sbus_server_peer_gone(peer);
        return DBUS_HANDLER_RESULT_HANDLED;
    }
    if (peer->disconnected) {
        return DBUS_HANDLER_RESULT_HANDLED;
    }
    /* Both tests are a load and a compare: nothing is formatted unless one is on. */
    if (PROBE_ENABLED(SBUS_ROUTE_RECV) || PROBE_ENABLED(SBUS_ROUTE_SENT)
            || debug_enabled(SSSDBG_TRACE_FUNC)) {
        sbus_server_handle_traced(peer, msg);
    } else {
        sbus_server_handle(peer, msg);
    }
    return DBUS_HANDLER_RESULT_HANDLED;
}

static errno_t sbus_server_peer_setup(struct sbus_peer *peer)
{
    DBusConnection *conn = peer->conn;

    peer->free_im = tevent_create_immediate(peer);
    peer->loop = talloc_new(peer);
    if (peer->free_im == NULL || peer->loop == NULL) {
        return ENOMEM;
    }

    dbus_connection_set_allow_anonymous(conn, FALSE);
    dbus_connection_set_unix_user_function(conn, sbus_server_allow_uid, peer, NULL);
    /* libdbus would otherwise answer org.freedesktop.DBus.Peer itself even for messages
     * addressed to another peer; this way it only answers those without a destination. */
    dbus_connection_set_route_peer_messages(conn, TRUE);

    if (!dbus_connection_add_filter(conn, sbus_server_filter, peer, NULL)) {
        return ENOMEM;
    }
    peer->filter_added = true;

    return sbus_tevent_connection_setup(peer->loop, peer->server->ev, conn);
}

static void sbus_server_new_connection(DBusServer *dbus_server, DBusConnection *conn,
                                       void *data)
{
    struct sbus_server *server = data;
    struct sbus_peer *peer;
    errno_t ret;

    peer = talloc_zero(server, struct sbus_peer);
    if (peer == NULL) {
        /* Not referencing conn makes libdbus drop it. */
        DEBUG(SSSDBG_CRIT_FAILURE, "Out of memory accepting a bus peer\n");
        return;
    }
    peer->server = server;
    peer->conn = dbus_connection_ref(conn);
    sss_list_init(&peer->names);
    sss_list_init(&peer->matches);
    sss_list_init(&peer->pending);
    sss_list_init(&peer->pending_free);
    sss_list_link_tail(&server->peers, &peer->link);
    server->peer_count++;
    talloc_set_destructor(peer, sbus_peer_destructor);

    ret = sbus_server_peer_setup(peer);
    if (ret != EOK) {
        DEBUG(SSSDBG_CRIT_FAILURE, "Cannot set up a bus peer: %s\n", sss_strerror(ret));
        talloc_free(peer);
        return;
    }
    DEBUG(SSSDBG_TRACE_FUNC, "Accepted a bus peer\n");
}

/* -------- the server -------- */

static int sbus_server_destructor(struct sbus_server *server)
{
    struct sbus_peer *peer;

    /* Newest first, the reverse of their arrival. */
    while ((peer = sss_list_last_entry(&server->peers, struct sbus_peer, link)) != NULL) {
        talloc_free(peer);
    }
    assert(server->peer_count == 0);
    talloc_zfree(server->loop);
    if (server->dbus_server != NULL) {
        dbus_server_set_new_connection_function(server->dbus_server, NULL, NULL, NULL);
        dbus_server_disconnect(server->dbus_server);
        dbus_server_unref(server->dbus_server);
        server->dbus_server = NULL;
        /* libdbus removes the socket itself; make sure, whatever its version does. */
        if (unlink(server->socket_path) != 0 && errno != ENOENT) {
            DEBUG(SSSDBG_MINOR_FAILURE, "Cannot remove %s: %s\n", server->socket_path,
                  strerror(errno));
        }
    }
    return 0;
}

/* Removes a socket left by an earlier run; anything else at that path is an error. */
static errno_t sbus_server_remove_stale(const char *socket_path)
{
    struct stat st;
    errno_t ret;

    if (lstat(socket_path, &st) != 0) {
        ret = errno;
        if (ret == ENOENT) {
            return EOK;
        }
        DEBUG(SSSDBG_CRIT_FAILURE, "Cannot stat %s: %s\n", socket_path, strerror(ret));
        return ret;
    }
    if (!S_ISSOCK(st.st_mode)) {
        DEBUG(SSSDBG_CRIT_FAILURE, "%s exists and is not a socket\n", socket_path);
        return EEXIST;
    }
    if (unlink(socket_path) != 0) {
        ret = errno;
        DEBUG(SSSDBG_CRIT_FAILURE, "Cannot remove stale %s: %s\n", socket_path,
              strerror(ret));
        return ret;
    }
    DEBUG(SSSDBG_TRACE_FUNC, "Removed stale socket %s\n", socket_path);
    return EOK;
}

static errno_t sbus_server_listen(struct sbus_server *server)
{
    const char *mechanisms[] = { "EXTERNAL", NULL };
    DBusError error;
    mode_t old_umask;
    char *escaped;
    char *id;
    errno_t ret;

    escaped = dbus_address_escape_value(server->socket_path);
    if (escaped == NULL) {
        return ENOMEM;
    }
    server->address = talloc_asprintf(server, "unix:path=%s", escaped);
    dbus_free(escaped);
    if (server->address == NULL) {
        return ENOMEM;
    }

    /* The socket never exists with a wider mode than 0600, not even briefly. */
    dbus_error_init(&error);
    old_umask = umask(0177);
    server->dbus_server = dbus_server_listen(server->address, &error);
    umask(old_umask);
    if (server->dbus_server == NULL) {
        DEBUG(SSSDBG_CRIT_FAILURE, "Cannot listen on %s: %s: %s\n", server->address,
              error.name, error.message);
        dbus_error_free(&error);
        return EIO;
    }

    if (!dbus_server_set_auth_mechanisms(server->dbus_server, mechanisms)) {
        return ENOMEM;
    }
    id = dbus_server_get_id(server->dbus_server);
    if (id == NULL) {
        return ENOMEM;
    }
    server->id = talloc_strdup(server, id);
    dbus_free(id);
    if (server->id == NULL) {
        return ENOMEM;
    }
    if (chmod(server->socket_path, 0600) != 0) {
        ret = errno;
        DEBUG(SSSDBG_CRIT_FAILURE, "Cannot chmod %s: %s\n", server->socket_path,
              strerror(ret));
        return ret;
    }
    dbus_server_set_new_connection_function(server->dbus_server, sbus_server_new_connection,
                                            server, NULL);
    return EOK;
}

errno_t sbus_server_create(TALLOC_CTX *mem_ctx, struct tevent_context *ev,
                           const char *socket_path, uid_t allowed_uid,
                           struct sbus_server **_server)
{
    struct sbus_server *server;
    errno_t ret;

    SSS_CHECK_ARG(ev != NULL, EINVAL);
    SSS_CHECK_ARG(socket_path != NULL && socket_path[0] != '\0', EINVAL);
    SSS_CHECK_ARG(_server != NULL, EINVAL);

    server = talloc_zero(mem_ctx, struct sbus_server);
    if (server == NULL) {
        return ENOMEM;
    }
    sss_list_init(&server->peers);
    talloc_set_destructor(server, sbus_server_destructor);
    server->ev = ev;
    server->allowed_uid = allowed_uid;
    server->next_unique = 1;
    server->socket_path = talloc_strdup(server, socket_path);
    server->loop = talloc_new(server);
    if (server->socket_path == NULL || server->loop == NULL) {
        ret = ENOMEM;
        goto done;
    }
    ret = sbus_server_tables_init(server);
    if (ret != EOK) {
        goto done;
    }

    ret = sbus_server_remove_stale(socket_path);
    if (ret != EOK) {
        goto done;
    }
    ret = sbus_server_listen(server);
    if (ret != EOK) {
        goto done;
    }
    ret = sbus_tevent_server_setup(server->loop, ev, server->dbus_server);
    if (ret != EOK) {
        goto done;
    }

    DEBUG(SSSDBG_TRACE_FUNC, "Master bus listening on %s\n", server->address);
    *_server = server;
    ret = EOK;

done:
    if (ret != EOK) {
        talloc_free(server);
    }
    return ret;
}

const char *sbus_server_get_address(struct sbus_server *server)
{
    SSS_CHECK_ARG(server != NULL, NULL);
    return server->address;
}

unsigned int sbus_server_connection_count(struct sbus_server *server)
{
    SSS_CHECK_ARG(server != NULL, 0);
    return server->peer_count;
}
