/*
 * A message passing through the master bus. A peer's message stays the bytes it sent: it
 * is forwarded with the sender's unique name spliced in as its SENDER field (the iovec of
 * sbus_wire_stamp_sender(), built once however many peers get it), and turned into a
 * libdbus message only when the bus must look inside (its own methods, match rules, the
 * request id of a traced call). The bus's own messages are built with libdbus, given the
 * bus's serial and marshalled once. Both go out through sbus_peer_write().
 */
#include "sbus/sbus_server_private.h"

void sbus_server_msg_init(struct sbus_server_msg *m, struct sbus_peer *sender,
                          const uint8_t *data, size_t size)
{
    m->data = data;
    m->size = size;
    m->sender = sender;
    m->stamped = false;
    m->dbus = NULL;
    m->marshalled = NULL;
}

errno_t sbus_server_msg_from_dbus(struct sbus_server *server, DBusMessage *msg,
                                  struct sbus_server_msg *m)
{
    int len = 0;

    sbus_server_msg_init(m, NULL, NULL, 0);
    if (++server->serial == 0) {
        server->serial = 1;
    }
    dbus_message_set_serial(msg, server->serial);
    if (!dbus_message_marshal(msg, &m->marshalled, &len)) {
        return ENOMEM;
    }
    m->data = (const uint8_t *)m->marshalled;
    m->size = (size_t)len;
    if (sbus_wire_parse(m->data, m->size, &m->h) != EOK) {
        /* libdbus builds what its loader accepts; this is a bug of ours */
        DEBUG(SSSDBG_CRIT_FAILURE, "The bus built a message it cannot read\n");
        sbus_server_msg_done(m);
        return EINVAL;
    }
    m->dbus = dbus_message_ref(msg);
    return EOK;
}

void sbus_server_msg_done(struct sbus_server_msg *m)
{
    if (m->dbus != NULL) {
        dbus_message_unref(m->dbus);
        m->dbus = NULL;
    }
    if (m->marshalled != NULL) {
        dbus_free(m->marshalled);
        m->marshalled = NULL;
    }
}

DBusMessage *sbus_server_msg_dbus(struct sbus_server_msg *m)
{
    DBusError error;

    if (m->dbus == NULL) {
        dbus_error_init(&error);
        m->dbus = dbus_message_demarshal((const char *)m->data, (int)m->size, &error);
        if (m->dbus == NULL) {
            /* validated already: only memory can be missing */
            DEBUG(SSSDBG_CRIT_FAILURE, "Cannot read a bus message: %s\n", error.message);
            dbus_error_free(&error);
            return NULL;
        }
    }
    /* A peer registered by this very message (Hello, or implicitly) has a name now. */
    if (m->sender != NULL && m->sender->unique != NULL
            && dbus_message_get_sender(m->dbus) == NULL
            && !dbus_message_set_sender(m->dbus, m->sender->unique->name)) {
        return NULL;
    }
    return m->dbus;
}

bool sbus_server_forward(struct sbus_peer *peer, struct sbus_server_msg *m)
{
    struct sbus_server_trace *trace = peer->server->trace;
    const char *destination;
    struct iovec iov;
    bool ok;

    if (m->sender == NULL) {
        iov.iov_base = (void *)m->data;
        iov.iov_len = m->size;
        ok = sbus_peer_write(peer, &iov, 1, m->size);
    } else {
        assert(m->sender->unique != NULL);
        if (!m->stamped) {
            if (sbus_wire_stamp_sender(m->data, &m->h, m->sender->unique->name,
                                       &m->stamp) != EOK) {
                DEBUG(SSSDBG_OP_FAILURE, "A message from %s is too large to forward\n",
                      m->sender->unique->name);
                return false;
            }
            m->stamped = true;
        }
        ok = sbus_peer_write(peer, m->stamp.iov, m->stamp.iovcnt, m->stamp.size);
    }
    /* The routed message itself went out (not an answer of the server's own). */
    if (ok && trace != NULL && trace->msg == m) {
        trace->sent++;
        destination = SBUS_MSG_FIELD(m, destination);
        if (destination == NULL) {
            /* a broadcast: name the peer it was handed to */
            destination = peer->unique != NULL ? peer->unique->name : "";
        }
        PROBE(SBUS_ROUTE_SENT, trace->req_id, trace->sender, destination, trace->member,
              m->h.type, m->h.type == DBUS_MESSAGE_TYPE_METHOD_RETURN
                         || m->h.type == DBUS_MESSAGE_TYPE_ERROR ? m->h.reply_serial
                                                                 : m->h.serial);
    }
    return ok;
}

bool sbus_server_send_dbus(struct sbus_peer *peer, DBusMessage *msg)
{
    struct sbus_server_msg m;
    bool ok;

    if (sbus_server_msg_from_dbus(peer->server, msg, &m) != EOK) {
        DEBUG(SSSDBG_CRIT_FAILURE, "Out of memory sending to %s\n",
              peer->unique != NULL ? peer->unique->name : "(unregistered)");
        return false;
    }
    ok = sbus_server_forward(peer, &m);
    sbus_server_msg_done(&m);
    return ok;
}

void sbus_server_reply_error_msg(struct sbus_peer *peer, struct sbus_server_msg *m,
                                 const char *name, const char *text)
{
    DBusMessage *err;

    DEBUG(SSSDBG_TRACE_ALL, "Bus error reply %s: %s\n", name, text);
    if (m->h.flags & DBUS_HEADER_FLAG_NO_REPLY_EXPECTED) {
        return;
    }
    err = dbus_message_new(DBUS_MESSAGE_TYPE_ERROR);
    if (err == NULL
            || !dbus_message_set_error_name(err, name)
            || !dbus_message_set_reply_serial(err, m->h.serial)
            || (peer->unique != NULL
                && !dbus_message_set_destination(err, peer->unique->name))
            || !dbus_message_set_sender(err, DBUS_SERVICE_DBUS)
            || !dbus_message_append_args(err, DBUS_TYPE_STRING, &text, DBUS_TYPE_INVALID)) {
        DEBUG(SSSDBG_CRIT_FAILURE, "Out of memory building a bus error\n");
    } else {
        dbus_message_set_no_reply(err, TRUE);
        sbus_server_send_dbus(peer, err);
    }
    if (err != NULL) {
        dbus_message_unref(err);
    }
}
