/*
 * Incoming messages on a client connection: method calls go to the interface table served
 * at their object path, signals to every listener that matches, and the local Disconnected
 * signal ends the connection. Replies to our own calls never get here: libdbus hands them
 * to the pending calls of sbus_call.c first.
 */
#include "sbus/sbus_private.h"

static int sbus_request_destructor(struct sbus_request *sbus_req)
{
    dbus_message_unref(sbus_req->message);
    return 0;
}

static struct sbus_request *sbus_request_new(struct sbus_connection *conn, DBusMessage *msg)
{
    struct sbus_request *sbus_req;

    sbus_req = talloc_zero(conn, struct sbus_request);
    if (sbus_req == NULL) {
        return NULL;
    }
    sbus_req->conn = conn;
    sbus_req->message = dbus_message_ref(msg);
    sbus_req->sender = dbus_message_get_sender(msg);
    sbus_req->destination = dbus_message_get_destination(msg);
    sbus_req->path = dbus_message_get_path(msg);
    sbus_req->interface = dbus_message_get_interface(msg);
    sbus_req->member = dbus_message_get_member(msg);
    talloc_set_destructor(sbus_req, sbus_request_destructor);
    return sbus_req;
}

/* sssd:sbus_method_reply for call, answered with error (0: a method return). */
static void sbus_probe_reply(DBusMessage *call, uint64_t req_id, errno_t error)
{
    if (PROBE_ENABLED(SBUS_METHOD_REPLY)) {
        const char *sender = dbus_message_get_sender(call);
        char member[SBUS_MEMBER_TEXT_MAX];

        PROBE(SBUS_METHOD_REPLY, req_id, sender != NULL ? sender : "",
              sbus_message_member_text(call, member, sizeof(member)),
              dbus_message_get_serial(call), error);
    }
}

static void sbus_reply_now(struct sbus_connection *conn, DBusMessage *call, DBusMessage *reply)
{
    if (reply == NULL) {
        DEBUG(SSSDBG_CRIT_FAILURE, "Out of memory building a reply\n");
        return;
    }
    if (!dbus_message_get_no_reply(call) && !conn->disconnected) {
        if (!dbus_connection_send(conn->dbus, reply, NULL)) {
            DEBUG(SSSDBG_CRIT_FAILURE, "Out of memory sending a reply\n");
        }
    }
    dbus_message_unref(reply);
}

void sbus_request_reply(struct sbus_request *sbus_req, DBusMessage *reply)
{
    if (sbus_req == NULL) {
        DEBUG(SSSDBG_CRIT_FAILURE, "Invalid argument: sbus_req != NULL\n");
        if (reply != NULL) {
            dbus_message_unref(reply);  /* consumed whatever happens */
        }
        return;
    }
    if (reply == NULL) {
        reply = dbus_message_new_method_return(sbus_req->message);
    }
    sbus_probe_reply(sbus_req->message, sbus_req->req_id, EOK);
    sbus_reply_now(sbus_req->conn, sbus_req->message, reply);
    talloc_free(sbus_req);
}

void sbus_request_replied(struct sbus_request *sbus_req)
{
    sbus_probe_reply(sbus_req->message, sbus_req->req_id, EOK);
    talloc_free(sbus_req);
}

void sbus_request_reply_error(struct sbus_request *sbus_req, errno_t error)
{
    SSS_CHECK_ARG(sbus_req != NULL);

    DEBUG(SSSDBG_TRACE_FUNC, "%s.%s from %s failed: %s\n",
          sbus_req->interface ? sbus_req->interface : "?",
          sbus_req->member ? sbus_req->member : "?",
          sbus_req->sender ? sbus_req->sender : "?", sss_strerror(error));
    sbus_probe_reply(sbus_req->message, sbus_req->req_id, error);
    sbus_reply_now(sbus_req->conn, sbus_req->message,
                   sbus_error_reply(sbus_req->message, error));
    talloc_free(sbus_req);
}

errno_t sbus_connection_add_interface(struct sbus_connection *conn, const char *path,
                                      const struct sbus_interface *iface)
{
    struct sbus_iface_entry *e;

    SSS_CHECK_ARG(conn != NULL, EINVAL);
    SSS_CHECK_ARG(path != NULL && dbus_validate_path(path, NULL), EINVAL);
    SSS_CHECK_ARG(iface != NULL && iface->name != NULL, EINVAL);

    sss_list_for_each_entry(e, &conn->ifaces, link) {
        if (strcmp(e->path, path) == 0 && strcmp(e->iface->name, iface->name) == 0) {
            return EEXIST;
        }
    }
    e = talloc_zero(conn, struct sbus_iface_entry);
    if (e == NULL) {
        return ENOMEM;
    }
    e->path = talloc_strdup(e, path);
    if (e->path == NULL) {
        talloc_free(e);
        return ENOMEM;
    }
    e->iface = iface;
    sss_list_link_tail(&conn->ifaces, &e->link);
    return EOK;
}

static const struct sbus_method *sbus_find_method(struct sbus_connection *conn,
                                                  DBusMessage *msg, errno_t *_error)
{
    const char *path = dbus_message_get_path(msg);
    const char *iface = dbus_message_get_interface(msg);
    const char *member = dbus_message_get_member(msg);
    const struct sbus_method *m;
    struct sbus_iface_entry *e;

    sss_list_for_each_entry(e, &conn->ifaces, link) {
        if (path == NULL || strcmp(e->path, path) != 0) {
            continue;
        }
        /* A call without an interface may name any interface's member. */
        if (iface != NULL && strcmp(e->iface->name, iface) != 0) {
            continue;
        }
        for (m = e->iface->methods; m != NULL && m->member != NULL; m++) {
            if (member != NULL && strcmp(m->member, member) == 0) {
                return m;
            }
        }
    }
    *_error = ERR_SBUS_UNKNOWN_METHOD;
    return NULL;
}

/* sssd:sbus_method_recv; returns the request id the call carries (0 when untraced). */
static uint64_t sbus_probe_method_recv(DBusMessage *msg)
{
    uint64_t req_id = 0;

    if (PROBE_ENABLED(SBUS_METHOD_RECV) || PROBE_ENABLED(SBUS_METHOD_REPLY)) {
        const char *sender = dbus_message_get_sender(msg);
        char member[SBUS_MEMBER_TEXT_MAX];

        req_id = sbus_message_req_id(msg);
        PROBE(SBUS_METHOD_RECV, req_id, sender != NULL ? sender : "",
              sbus_message_member_text(msg, member, sizeof(member)),
              dbus_message_get_serial(msg));
    }
    return req_id;
}

static void sbus_dispatch_method(struct sbus_connection *conn, DBusMessage *msg)
{
    const struct sbus_method *method;
    struct sbus_request *sbus_req;
    errno_t error = EOK;
    uint64_t req_id;

    req_id = sbus_probe_method_recv(msg);
    method = sbus_find_method(conn, msg, &error);
    if (method == NULL) {
        DEBUG(SSSDBG_MINOR_FAILURE, "No handler for %s.%s at %s (from %s)\n",
              dbus_message_get_interface(msg) ? dbus_message_get_interface(msg) : "?",
              dbus_message_get_member(msg), dbus_message_get_path(msg),
              dbus_message_get_sender(msg) ? dbus_message_get_sender(msg) : "?");
        sbus_probe_reply(msg, req_id, error);
        sbus_reply_now(conn, msg, sbus_error_reply(msg, error));
        return;
    }
    sbus_req = sbus_request_new(conn, msg);
    if (sbus_req == NULL) {
        sbus_probe_reply(msg, req_id, ENOMEM);
        sbus_reply_now(conn, msg, sbus_error_reply(msg, ENOMEM));
        return;
    }
    sbus_req->req_id = req_id;
    DEBUG(SSSDBG_TRACE_ALL, "Calling %s.%s for %s\n", sbus_req->interface, sbus_req->member,
          sbus_req->sender ? sbus_req->sender : "?");
    method->invoker(sbus_req, method);
}

static bool sbus_listener_matches(const struct sbus_listener *l, DBusMessage *msg)
{
    const char *iface = dbus_message_get_interface(msg);
    const char *member = dbus_message_get_member(msg);
    const char *path = dbus_message_get_path(msg);

    if (iface == NULL || member == NULL) {
        return false;
    }
    if (strcmp(l->interface, iface) != 0 || strcmp(l->member, member) != 0) {
        return false;
    }
    return l->path == NULL || (path != NULL && strcmp(l->path, path) == 0);
}

static void sbus_dispatch_signal(struct sbus_connection *conn, DBusMessage *msg)
{
    struct sbus_listener_entry *e, *next;
    struct sbus_request *sbus_req;
    bool freed = false;

    if (PROBE_ENABLED(SBUS_SIGNAL_RECV)) {
        const char *sender = dbus_message_get_sender(msg);
        char member[SBUS_MEMBER_TEXT_MAX];

        PROBE(SBUS_SIGNAL_RECV, sss_probe_req_id(), sender != NULL ? sender : "",
              sbus_message_member_text(msg, member, sizeof(member)));
    }
    /* A handler may free conn (and with it every listener entry): notice, and stop. */
    conn->freed = &freed;
    sss_list_for_each_entry_safe(e, next, &conn->listeners, link) {
        if (!sbus_listener_matches(e->listener, msg)) {
            continue;
        }
        sbus_req = sbus_request_new(conn, msg);
        if (sbus_req == NULL) {
            DEBUG(SSSDBG_CRIT_FAILURE, "Out of memory delivering a signal\n");
            break;
        }
        e->listener->invoker(sbus_req, e->listener);
        if (freed) {
            return;
        }
    }
    conn->freed = NULL;
}

DBusHandlerResult sbus_dispatch_filter(DBusConnection *dbus, DBusMessage *msg, void *data)
{
    struct sbus_connection *conn = talloc_get_type(data, struct sbus_connection);

    switch (dbus_message_get_type(msg)) {
    case DBUS_MESSAGE_TYPE_METHOD_CALL:
        sbus_dispatch_method(conn, msg);
        return DBUS_HANDLER_RESULT_HANDLED;
    case DBUS_MESSAGE_TYPE_SIGNAL:
        if (dbus_message_is_signal(msg, DBUS_INTERFACE_LOCAL, "Disconnected")) {
            sbus_connection_mark_disconnected(conn);
            return DBUS_HANDLER_RESULT_HANDLED;
        }
        sbus_dispatch_signal(conn, msg);
        return DBUS_HANDLER_RESULT_HANDLED;
    default:
        if (sbus_call_reply(conn, msg)) {
            return DBUS_HANDLER_RESULT_HANDLED;
        }
        /* Replies that no pending call waits for any more (e.g. a cancelled call). */
        return DBUS_HANDLER_RESULT_NOT_YET_HANDLED;
    }
}
