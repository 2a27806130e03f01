/*
 * Signals: emitting them, and listening. A listener registers its handler locally and asks
 * the master bus, with AddMatch, to deliver that signal; the AddMatch needs no answer, and the
 * bus handles messages of one connection in order, so anything sent after it is covered.
 */
#include "sbus/sbus_private.h"

errno_t sbus_emit_signal(struct sbus_connection *conn, DBusMessage *msg)
{
    errno_t ret = EOK;

    if (conn == NULL || msg == NULL || dbus_message_get_type(msg) != DBUS_MESSAGE_TYPE_SIGNAL) {
        DEBUG(SSSDBG_CRIT_FAILURE, "Invalid argument: %s\n",
              conn == NULL ? "no connection" : "not a signal");
        ret = EINVAL;
        goto done;      /* msg is consumed whatever happens */
    }
    if (conn->disconnected) {
        ret = ERR_SBUS_DISCONNECTED;
        goto done;
    }
    if (PROBE_ENABLED(SBUS_SIGNAL_EMIT)) {
        char member[SBUS_MEMBER_TEXT_MAX];

        PROBE(SBUS_SIGNAL_EMIT, sss_probe_req_id(),
              sbus_message_member_text(msg, member, sizeof(member)));
    }
    DEBUG(SSSDBG_TRACE_FUNC, "Emitting %s.%s\n", dbus_message_get_interface(msg),
          dbus_message_get_member(msg));
    if (!dbus_connection_send(conn->dbus, msg, NULL)) {
        ret = ENOMEM;
    }

done:
    if (msg != NULL) {
        dbus_message_unref(msg);
    }
    return ret;
}

static char *sbus_listener_rule(TALLOC_CTX *mem_ctx, const struct sbus_listener *l)
{
    return talloc_asprintf(mem_ctx, "type='signal',interface='%s',member='%s'%s%s%s",
                           l->interface, l->member,
                           l->path ? ",path='" : "", l->path ? l->path : "",
                           l->path ? "'" : "");
}

static errno_t sbus_send_add_match(struct sbus_connection *conn, const char *rule)
{
    DBusMessage *msg;
    dbus_bool_t ok;

    msg = dbus_message_new_method_call(SBUS_DBUS_NAME, SBUS_DBUS_PATH, SBUS_DBUS_IFACE,
                                       "AddMatch");
    if (msg == NULL) {
        return ENOMEM;
    }
    dbus_message_set_no_reply(msg, TRUE);
    ok = dbus_message_append_args(msg, DBUS_TYPE_STRING, &rule, DBUS_TYPE_INVALID)
         && dbus_connection_send(conn->dbus, msg, NULL);
    dbus_message_unref(msg);
    return ok ? EOK : ENOMEM;
}

errno_t sbus_connection_add_listeners(struct sbus_connection *conn,
                                      const struct sbus_listener *listeners)
{
    const struct sbus_listener *l;
    struct sbus_listener_entry *e;
    TALLOC_CTX *tmp_ctx;
    char *rule;
    errno_t ret;

    SSS_CHECK_ARG(conn != NULL, EINVAL);
    SSS_CHECK_ARG(listeners != NULL, EINVAL);

    tmp_ctx = talloc_new(NULL);
    if (tmp_ctx == NULL) {
        return ENOMEM;
    }
    for (l = listeners; l->interface != NULL; l++) {
        if (l->member == NULL || l->invoker == NULL || l->handler == NULL) {
            DEBUG(SSSDBG_CRIT_FAILURE, "Invalid argument: a listener of %s lacks its member, "
                  "invoker or handler\n", l->interface);
            ret = EINVAL;
            goto done;
        }
        rule = sbus_listener_rule(tmp_ctx, l);
        if (rule == NULL) {
            ret = ENOMEM;
            goto done;
        }
        ret = sbus_send_add_match(conn, rule);
        if (ret != EOK) {
            goto done;
        }
        e = talloc_zero(conn, struct sbus_listener_entry);
        if (e == NULL) {
            ret = ENOMEM;
            goto done;
        }
        e->listener = l;
        /* Handlers run in registration order. */
        sss_list_link_tail(&conn->listeners, &e->link);
        DEBUG(SSSDBG_TRACE_FUNC, "Listening for %s.%s\n", l->interface, l->member);
    }
    ret = EOK;

done:
    talloc_free(tmp_ctx);
    return ret;
}
