/*
 * A test double of the sbus transport (see sbus_reply_capture.h). It stands in for
 * sbus_dispatch.c, sbus_call.c, sbus_signal.c and sbus_connection.c; sbus_errors.c and
 * sbus_key.c are the real ones.
 */
#include "tests/unit/sss_iface/sbus_reply_capture.h"

struct sbus_connection {
    struct tevent_context *ev;
};

struct sbus_capture sbus_capture;

static int sbus_capture_request_destructor(struct sbus_request *sbus_req)
{
    dbus_message_unref(sbus_req->message);
    return 0;
}

struct sbus_connection *sbus_capture_connection(TALLOC_CTX *mem_ctx, struct tevent_context *ev)
{
    struct sbus_connection *conn;

    conn = talloc_zero(mem_ctx, struct sbus_connection);
    if (conn != NULL) {
        conn->ev = ev;
    }
    return conn;
}

static void sbus_capture_set(DBusMessage **slot, DBusMessage *msg)
{
    if (*slot != NULL) {
        dbus_message_unref(*slot);
    }
    *slot = msg;
}

void sbus_capture_reset(void)
{
    sbus_capture_set(&sbus_capture.reply, NULL);
    sbus_capture_set(&sbus_capture.sent, NULL);
    talloc_free(sbus_capture.key);
    memset(&sbus_capture, 0, sizeof(sbus_capture));
}

DBusMessage *sbus_capture_take_reply(void)
{
    DBusMessage *reply = sbus_capture.reply;

    sbus_capture.reply = NULL;
    return reply;
}

struct sbus_request *sbus_capture_request(TALLOC_CTX *mem_ctx, struct sbus_connection *conn,
                                          DBusMessage *msg, const char *sender)
{
    static dbus_uint32_t serial = 1;
    struct sbus_request *sbus_req;

    sbus_req = talloc_zero(mem_ctx, struct sbus_request);
    if (sbus_req == NULL) {
        return NULL;
    }
    if (dbus_message_get_serial(msg) == 0) {
        dbus_message_set_serial(msg, serial++);
    }
    if (sender != NULL) {
        dbus_message_set_sender(msg, sender);
    }
    sbus_req->conn = conn;
    sbus_req->message = dbus_message_ref(msg);
    sbus_req->sender = dbus_message_get_sender(msg);
    sbus_req->destination = dbus_message_get_destination(msg);
    sbus_req->path = dbus_message_get_path(msg);
    sbus_req->interface = dbus_message_get_interface(msg);
    sbus_req->member = dbus_message_get_member(msg);
    talloc_set_destructor(sbus_req, sbus_capture_request_destructor);
    return sbus_req;
}

/* -------- the replacements of the real functions -------- */

struct tevent_context *sbus_connection_get_ev(struct sbus_connection *conn)
{
    return conn->ev;
}

void sbus_request_reply(struct sbus_request *sbus_req, DBusMessage *reply)
{
    sbus_capture.replies++;
    sbus_capture.reply_error = EOK;
    sbus_capture_set(&sbus_capture.reply, reply);
    talloc_free(sbus_req);
}

/* No socket here: every reply is built as a message and captured. */
bool sbus_reply_direct(struct sbus_connection *conn, const uint8_t *data, size_t len)
{
    (void)conn;
    (void)data;
    (void)len;
    return false;
}

void sbus_request_replied(struct sbus_request *sbus_req)
{
    talloc_free(sbus_req);
}

void sbus_request_reply_error(struct sbus_request *sbus_req, errno_t error)
{
    sbus_capture.replies++;
    sbus_capture.reply_error = error;
    sbus_capture_set(&sbus_capture.reply, sbus_error_reply(sbus_req->message, error));
    talloc_free(sbus_req);
}

struct sbus_capture_call_state {
    DBusMessage *reply;
};

struct tevent_req *sbus_call_send(TALLOC_CTX *mem_ctx, struct sbus_connection *conn,
                                  DBusMessage *msg, const char *key, int timeout_ms)
{
    struct sbus_capture_call_state *state;
    struct tevent_req *req;
    DBusMessage *reply = NULL;
    errno_t ret = ERR_SBUS_NO_REPLY;

    req = tevent_req_create(mem_ctx, &state, struct sbus_capture_call_state);
    if (req == NULL) {
        dbus_message_unref(msg);
        return NULL;
    }

    sbus_capture.calls++;
    sbus_capture_set(&sbus_capture.sent, msg);      /* the message is consumed: keep it */
    talloc_free(sbus_capture.key);
    sbus_capture.key = key != NULL ? talloc_strdup(NULL, key) : NULL;

    if (sbus_capture.answer != NULL) {
        ret = EOK;
        reply = sbus_capture.answer(msg, &ret, sbus_capture.answer_data);
    }
    if (reply != NULL && dbus_message_get_type(reply) == DBUS_MESSAGE_TYPE_ERROR) {
        const char *text = NULL;

        dbus_message_get_args(reply, NULL, DBUS_TYPE_STRING, &text, DBUS_TYPE_INVALID);
        ret = sbus_error_to_errno(dbus_message_get_error_name(reply), text);
        dbus_message_unref(reply);
        reply = NULL;
    }
    if (reply == NULL) {
        return sss_req_post(req, conn->ev, ret != EOK ? ret : ERR_SBUS_NO_REPLY);
    }
    state->reply = sbus_message_bind(state, reply);
    if (state->reply == NULL) {
        return sss_req_post(req, conn->ev, ENOMEM);
    }
    return sss_req_post(req, conn->ev, EOK);
}

errno_t sbus_call_recv(TALLOC_CTX *mem_ctx, struct tevent_req *req, DBusMessage **_reply)
{
    struct sbus_capture_call_state *state = tevent_req_data(req, struct sbus_capture_call_state);

    TEVENT_REQ_RETURN_ON_ERROR(req);

    dbus_message_ref(state->reply);
    if (sbus_message_bind(mem_ctx, state->reply) == NULL) {
        return ENOMEM;
    }
    *_reply = state->reply;
    return EOK;
}

errno_t sbus_emit_signal(struct sbus_connection *conn, DBusMessage *msg)
{
    sbus_capture.signals++;
    sbus_capture_set(&sbus_capture.sent, msg);
    return sbus_capture.emit_error;
}
