/*
 * Outgoing method calls as tevent requests. A call with a key joins an identical call that
 * is already on the wire instead of sending its own; when the reply comes, every waiter gets
 * it. The pending call belongs to the connection, not to the first caller, so one caller
 * giving up does not cancel the answer the others wait for.
 *
 * Replies are matched here, by reply serial, when the dispatch filter hands them over
 * (sbus_call_reply()), and each call has its own tevent timer, rather than through libdbus's
 * DBusPendingCall: that one builds, for every call sent, the NoReply error it would deliver
 * at the timeout (dbus_message_new_error(), ~3% of sssd_nss's CPU on a cold lookup) and
 * arms a libdbus timeout besides.
 *
 * A generated call (sbus_call_send_out) is described, not built: its message is made only
 * when it goes on the wire, and a small one is written to the socket as composed
 * (sbus_call_direct), skipping libdbus's validation of what we just wrote.
 */
#include "sbus/sbus_private.h"

struct sbus_pending {
    struct sss_list link;           /* in conn->pending */
    struct sbus_connection *conn;
    char *key;                      /* NULL: not chained */
    struct tevent_timer *timer;     /* the reply timeout; NULL once answered */
    char *destination;              /* for logs and probes */
    char *member;                   /* "interface.member" */
    uint64_t req_id;                /* of the caller that put it on the wire */
    dbus_uint32_t serial;           /* libdbus gave the call */
    struct sss_list waiters;        /* struct sbus_call_state, newest first */
};

struct sbus_call_state {
    struct sss_list link;           /* in pending->waiters */
    struct tevent_req *req;
    uint64_t req_id;                /* the caller's: its callback resumes under it */
    struct sbus_pending *pending;   /* NULL once answered */
    DBusMessage *reply;
};

static void sbus_waiter_add(struct sbus_pending *p, struct sbus_call_state *state)
{
    assert(state->pending == NULL);
    state->pending = p;
    sss_list_link_front(&p->waiters, &state->link);
}

static void sbus_waiter_remove(struct sbus_call_state *state)
{
    sss_list_unlink(&state->link);
    state->pending = NULL;
}

static int sbus_pending_destructor(struct sbus_pending *p)
{
    struct sbus_call_state *state;
    struct sbus_call_state *tmp;

    /* Normally p has no waiters left here (the connection fails them before it goes);
     * never leave one pointing at freed memory. */
    sss_list_for_each_entry_safe(state, tmp, &p->waiters, link) {
        sbus_waiter_remove(state);
    }
    assert(sss_list_is_linked(&p->link));
    assert(p->conn->in_flight > 0);
    sss_list_unlink(&p->link);
    p->conn->in_flight--;
    return 0;
}

static int sbus_call_state_destructor(struct sbus_call_state *state)
{
    struct sbus_pending *p = state->pending;

    sbus_waiter_remove(state);
    /* The last waiter gone: nobody wants the answer any more. */
    if (p != NULL && sss_list_is_empty(&p->waiters)) {
        talloc_free(p);
    }
    return 0;
}

static errno_t sbus_reply_error(DBusMessage *reply)
{
    const char *text = NULL;

    if (dbus_message_get_type(reply) != DBUS_MESSAGE_TYPE_ERROR) {
        return EOK;
    }
    if (!dbus_message_get_args(reply, NULL, DBUS_TYPE_STRING, &text, DBUS_TYPE_INVALID)) {
        text = NULL;
    }
    return sbus_error_to_errno(dbus_message_get_error_name(reply), text);
}

/* Answers every waiter of p with reply (or error when reply is NULL), then frees p.
 * Callbacks are deferred to the loop, so no waiter's callback runs (and frees anything)
 * while we walk the list. */
static void sbus_pending_finish(struct sbus_pending *p, DBusMessage *reply, errno_t error)
{
    struct tevent_context *ev = p->conn->ev;
    struct sbus_call_state *state;
    struct tevent_req *req;

    if (reply != NULL) {
        error = sbus_reply_error(reply);
    }
    PROBE(SBUS_CALL_DONE, p->req_id, p->destination, p->member, p->serial, error);
    if (error != EOK) {
        DEBUG(SSSDBG_TRACE_FUNC, "Call %s to %s failed: %s\n", p->member, p->destination,
              sss_strerror(error));
    }

    while ((state = sss_list_first_entry(&p->waiters, struct sbus_call_state, link)) != NULL) {
        /* The deferred callback is scheduled (and so resumes) under its caller's id. */
        SSS_REQ_ID_SCOPE(state->req_id);

        req = state->req;
        sbus_waiter_remove(state);
        tevent_req_defer_callback(req, ev);
        if (error != EOK) {
            tevent_req_error(req, error);
            continue;
        }
        state->reply = sbus_message_bind(state, dbus_message_ref(reply));
        if (state->reply == NULL) {
            tevent_req_error(req, ENOMEM);
        } else {
            tevent_req_done(req);
        }
    }
    talloc_free(p);
}

static void sbus_pending_timeout(struct tevent_context *ev, struct tevent_timer *timer,
                                 struct timeval now, void *data)
{
    struct sbus_pending *p = talloc_get_type(data, struct sbus_pending);

    assert(p != NULL && p->timer == timer);
    p->timer = NULL;        /* tevent frees a timer that fired */
    sbus_pending_finish(p, NULL, ERR_SBUS_NO_REPLY);
}

bool sbus_call_reply(struct sbus_connection *conn, DBusMessage *msg)
{
    dbus_uint32_t serial = dbus_message_get_reply_serial(msg);
    struct sbus_pending *p;

    if (serial == 0) {
        return false;
    }
    sss_list_for_each_entry(p, &conn->pending, link) {
        if (p->serial == serial) {
            sbus_pending_finish(p, msg, EOK);
            return true;
        }
    }
    return false;   /* a reply nobody waits for any more (its caller gave up) */
}

static struct sbus_pending *sbus_pending_find(struct sbus_connection *conn, const char *key)
{
    struct sbus_pending *p;

    sss_list_for_each_entry(p, &conn->pending, link) {
        if (p->key != NULL && strcmp(p->key, key) == 0) {
            return p;
        }
    }
    return NULL;
}

/* "interface.member" (or member alone), for logs and probes: put together by hand, as
 * talloc_asprintf() costs a tenth of a call's bookkeeping here. */
static char *sbus_pending_member(TALLOC_CTX *mem_ctx, const char *iface, const char *member)
{
    size_t ilen = iface != NULL ? strlen(iface) : 0;
    size_t mlen = member != NULL ? strlen(member) : 0;
    size_t dot = iface != NULL ? 1 : 0;
    char *out;

    out = talloc_size(mem_ctx, ilen + dot + mlen + 1);
    if (out == NULL) {
        return NULL;
    }
    memcpy(out, iface != NULL ? iface : "", ilen);
    memcpy(out + ilen, ".", dot);
    memcpy(out + ilen + dot, member != NULL ? member : "", mlen);
    out[ilen + dot + mlen] = '\0';
    return out;
}

static errno_t sbus_pending_start(struct sbus_connection *conn,
                                  const struct sbus_call_out *out, const char *key,
                                  int timeout_ms, struct sbus_pending **_p)
{
    struct sbus_pending *p;
    const char *dest = out->destination;
    const char *iface = out->interface;
    const char *member = out->member;
    DBusMessage *msg;
    errno_t ret;

    if (conn->disconnected) {
        return ERR_SBUS_DISCONNECTED;
    }
    p = talloc_zero(conn, struct sbus_pending);
    if (p == NULL) {
        return ENOMEM;
    }
    p->conn = conn;
    sss_list_init(&p->waiters);
    p->req_id = sss_debug_req_id;
    p->destination = talloc_strdup(p, dest ? dest : "");
    p->member = sbus_pending_member(p, iface, member);
    p->key = key ? talloc_strdup(p, key) : NULL;
    if (p->destination == NULL || p->member == NULL || (key != NULL && p->key == NULL)) {
        ret = ENOMEM;
        goto done;
    }
    if (!dbus_connection_get_is_connected(conn->dbus)) {
        ret = ERR_SBUS_DISCONNECTED;
        goto done;
    }
    p->timer = tevent_add_timer(conn->ev, p,
                                tevent_timeval_current_ofs(timeout_ms / 1000,
                                                           (timeout_ms % 1000) * 1000),
                                sbus_pending_timeout, p);
    if (p->timer == NULL) {
        ret = ENOMEM;
        goto done;
    }
    /* Written as composed when it can be (the serial is in its bytes); else built now,
     * and sending gives it its serial (or keeps the one it was built with). */
    if (out->direct == NULL || !out->direct(conn, out->pvt, &p->serial)) {
        msg = out->build(out->pvt, &ret);
        if (msg == NULL) {
            goto done;
        }
        ret = dbus_connection_send(conn->dbus, msg, &p->serial) ? EOK : ENOMEM;
        dbus_message_unref(msg);
        if (ret != EOK) {
            goto done;
        }
    }

    /* Link only now, so the destructor's bookkeeping matches. */
    sss_list_link_front(&conn->pending, &p->link);
    conn->in_flight++;
    talloc_set_destructor(p, sbus_pending_destructor);
    PROBE(SBUS_CALL_SEND, p->req_id, conn->unique_name != NULL ? conn->unique_name : "",
          p->destination, p->member, p->serial);
    *_p = p;
    ret = EOK;

done:
    if (ret != EOK) {
        talloc_free(p);
    }
    return ret;
}

struct tevent_req *sbus_call_send_out(TALLOC_CTX *mem_ctx, struct sbus_connection *conn,
                                      const struct sbus_call_out *out, const char *key,
                                      int timeout_ms)
{
    struct sbus_call_state *state;
    struct sbus_pending *p;
    struct tevent_req *req;
    errno_t ret;

    if (conn == NULL) {
        DEBUG(SSSDBG_CRIT_FAILURE, "Invalid argument: no connection\n");
        return NULL;
    }
    req = tevent_req_create(mem_ctx, &state, struct sbus_call_state);
    if (req == NULL) {
        return NULL;
    }
    state->req = req;
    state->req_id = sss_debug_req_id;
    talloc_set_destructor(state, sbus_call_state_destructor);
    ret = out->error;
    if (ret != EOK) {
        goto done;
    }

    p = key != NULL ? sbus_pending_find(conn, key) : NULL;
    if (p != NULL) {
        /* Nothing is built or sent: the answer to the one in flight is ours too. */
        DEBUG(SSSDBG_TRACE_ALL, "Chaining call to %s onto the one in flight [%s]\n",
              p->destination, key);
        sbus_waiter_add(p, state);
        goto done;
    }

    ret = sbus_pending_start(conn, out, key,
                             timeout_ms > 0 ? timeout_ms : SBUS_CALL_TIMEOUT_MS, &p);
    if (ret != EOK) {
        goto done;
    }
    sbus_waiter_add(p, state);

done:
    if (ret != EOK) {
        tevent_req_error(req, ret);
        return tevent_req_post(req, conn->ev);
    }
    return req;
}

/* sbus_call_send()'s message, already built: a reference for sbus_pending_start(). */
static DBusMessage *sbus_call_built(void *pvt, errno_t *_error)
{
    *_error = EOK;
    return dbus_message_ref(pvt);
}

struct tevent_req *sbus_call_send(TALLOC_CTX *mem_ctx, struct sbus_connection *conn,
                                  DBusMessage *msg, const char *key, int timeout_ms)
{
    struct sbus_call_out out = { .build = sbus_call_built, .pvt = msg };
    struct tevent_req *req;

    if (msg == NULL || dbus_message_get_type(msg) != DBUS_MESSAGE_TYPE_METHOD_CALL) {
        if (conn != NULL) {
            DEBUG(SSSDBG_CRIT_FAILURE, "Invalid argument: not a method call\n");
        }
        out.error = EINVAL;
    } else {
        out.destination = dbus_message_get_destination(msg);
        out.interface = dbus_message_get_interface(msg);
        out.member = dbus_message_get_member(msg);
    }
    req = sbus_call_send_out(mem_ctx, conn, &out, key, timeout_ms);
    if (msg != NULL) {
        dbus_message_unref(msg);    /* consumed whatever happens */
    }
    return req;
}

errno_t sbus_call_recv(TALLOC_CTX *mem_ctx, struct tevent_req *req, DBusMessage **_reply)
{
    struct sbus_call_state *state;

    SSS_CHECK_ARG(req != NULL, EINVAL);
    state = tevent_req_data(req, struct sbus_call_state);
    TEVENT_REQ_RETURN_ON_ERROR(req);
    if (_reply != NULL) {
        /* Move the binding, so the reply lives as long as the caller wants. */
        *_reply = sbus_message_bind(mem_ctx, dbus_message_ref(state->reply));
        if (*_reply == NULL) {
            return ENOMEM;
        }
    }
    return EOK;
}

unsigned int sbus_call_in_flight(struct sbus_connection *conn)
{
    SSS_CHECK_ARG(conn != NULL, 0);
    return conn->in_flight;
}

void sbus_call_fail_all(struct sbus_connection *conn, errno_t error)
{
    struct sbus_pending *p;

    while ((p = sss_list_first_entry(&conn->pending, struct sbus_pending, link)) != NULL) {
        sbus_pending_finish(p, NULL, error);
    }
    assert(conn->in_flight == 0);
}
