/*
 * The runtime of the generated bus code, requests (sbus_gen.h): the one tevent request
 * every generated caller returns, the emitter's last step, and the invoker that runs every
 * generated method: it reads the inputs, picks the synchronous or asynchronous handler,
 * and replies. What differs per member (the argument types, the handler types) stays in
 * generated code, as the typed calls of its struct sbus_gen_method.
 */
#include "sbus/sbus_private.h"
#include "sbus/sbus_gen.h"

/* -------- callers -------- */

struct sbus_gen_call_state {
    DBusMessage *reply;
};

static void sbus_gen_call_done(struct tevent_req *subreq);

struct tevent_req *sbus_gen_call_send(TALLOC_CTX *mem_ctx, struct sbus_connection *conn,
                                      errno_t build_error, DBusMessage *msg, char *key)
{
    struct sbus_gen_call_state *state;
    struct tevent_req *req = NULL;
    struct tevent_req *subreq;
    errno_t ret = build_error;

    if (conn == NULL) {
        DEBUG(SSSDBG_CRIT_FAILURE, "Invalid argument: no connection\n");
        goto done;
    }
    req = tevent_req_create(mem_ctx, &state, struct sbus_gen_call_state);
    if (req == NULL) {
        goto done;
    }
    if (ret != EOK) {
        goto done;
    }
    subreq = sbus_call_send(state, conn, msg, key, 0);
    msg = NULL;     /* consumed */
    if (subreq == NULL) {
        ret = ENOMEM;
        goto done;
    }
    tevent_req_set_callback(subreq, sbus_gen_call_done, req);

done:
    if (msg != NULL) {
        dbus_message_unref(msg);
    }
    talloc_free(key);
    if (req != NULL && ret != EOK) {
        return sss_req_post(req, sbus_connection_get_ev(conn), ret);
    }
    return req;
}

static void sbus_gen_call_done(struct tevent_req *subreq)
{
    struct tevent_req *req = tevent_req_callback_data(subreq, struct tevent_req);
    struct sbus_gen_call_state *state = tevent_req_data(req, struct sbus_gen_call_state);
    errno_t ret;

    ret = sbus_call_recv(state, subreq, &state->reply);
    talloc_free(subreq);
    if (ret != EOK) {
        tevent_req_error(req, ret);
        return;
    }
    tevent_req_done(req);
}

errno_t sbus_gen_call_recv(TALLOC_CTX *mem_ctx, struct tevent_req *req,
                           const char *out_signature, ...)
{
    struct sbus_gen_call_state *state;
    va_list ap;
    errno_t ret;

    SSS_CHECK_ARG(req != NULL, EINVAL);
    state = tevent_req_data(req, struct sbus_gen_call_state);
    TEVENT_REQ_RETURN_ON_ERROR(req);

    va_start(ap, out_signature);
    ret = sbus_gen_read_copy_va(mem_ctx, state->reply, out_signature, ap);
    va_end(ap);
    return ret;
}

/* -------- emitters -------- */

errno_t sbus_gen_emit(struct sbus_connection *conn, errno_t build_error, DBusMessage *msg)
{
    if (conn == NULL || build_error != EOK) {
        if (conn == NULL) {
            DEBUG(SSSDBG_CRIT_FAILURE, "Invalid argument: no connection\n");
        }
        if (msg != NULL) {
            dbus_message_unref(msg);
        }
        return conn == NULL ? EINVAL : build_error;
    }
    return sbus_emit_signal(conn, msg);
}

/* -------- the method invoker -------- */

/* What an asynchronous handler's callback needs; allocated on the request. */
struct sbus_gen_invoke_state {
    struct sbus_request *sbus_req;
    const struct sbus_method *method;
    void *args;
};

/* Answers with the outputs in args, or an error when they cannot be sent. */
static void sbus_gen_reply(struct sbus_request *sbus_req, const struct sbus_gen_method *gen,
                           void *args)
{
    DBusMessage *reply = NULL;
    errno_t ret;

    if (gen->write_out == NULL) {
        reply = dbus_message_new_method_return(sbus_req->message);
        if (reply == NULL) {
            sbus_request_reply_error(sbus_req, ENOMEM);
            return;
        }
        sbus_request_reply(sbus_req, reply);
        return;
    }
    sbus_gen_direct_begin(sbus_req->conn);
    ret = gen->write_out(sbus_req->message, &reply, args);
    if (sbus_gen_direct_end() && ret == EOK) {
        sbus_request_replied(sbus_req);
        return;
    }
    if (ret != EOK) {
        DEBUG(SSSDBG_CRIT_FAILURE, "Cannot send the outputs of %s.%s: %s\n",
              gen->interface, gen->member, sss_strerror(ret));
        sbus_request_reply_error(sbus_req, ret == ENOMEM ? ENOMEM : ERR_INTERNAL);
        return;
    }
    sbus_request_reply(sbus_req, reply);
}

static void sbus_gen_invoke_done(struct tevent_req *subreq)
{
    struct sbus_gen_invoke_state *state;
    struct sbus_request *sbus_req;
    errno_t ret;

    state = tevent_req_callback_data(subreq, struct sbus_gen_invoke_state);
    sbus_req = state->sbus_req;

    /* subreq hangs off sbus_req and goes with it when the reply is sent. */
    ret = state->method->gen->recv(sbus_req, state->method, subreq, state->args);
    if (ret != EOK) {
        sbus_request_reply_error(sbus_req, ret);
        return;
    }
    sbus_gen_reply(sbus_req, state->method->gen, state->args);
}

/* Starts the asynchronous handler, whose callback replies; when it cannot start, replies
 * ENOMEM now. */
static void sbus_gen_invoke_async(struct sbus_request *sbus_req,
                                  const struct sbus_method *method, void *args)
{
    struct sbus_gen_invoke_state *state;
    struct tevent_req *subreq;

    state = talloc_zero(sbus_req, struct sbus_gen_invoke_state);
    if (state == NULL) {
        sbus_request_reply_error(sbus_req, ENOMEM);
        return;
    }
    state->sbus_req = sbus_req;
    state->method = method;
    state->args = args;

    subreq = method->gen->send(sbus_req, method, args);
    if (subreq == NULL) {
        sbus_request_reply_error(sbus_req, ENOMEM);
        return;
    }
    tevent_req_set_callback(subreq, sbus_gen_invoke_done, state);
}

void sbus_gen_invoke(struct sbus_request *sbus_req, const struct sbus_method *method)
{
    const struct sbus_gen_method *gen;
    void *args = NULL;
    errno_t ret;

    SSS_CHECK_ARG(sbus_req != NULL);
    if (method == NULL || method->gen == NULL) {
        DEBUG(SSSDBG_CRIT_FAILURE, "Invalid argument: a method without its generated part\n");
        sbus_request_reply_error(sbus_req, ERR_INTERNAL);
        return;
    }
    gen = method->gen;

    if (gen->args_size > 0) {
        args = talloc_zero_size(sbus_req, gen->args_size);
        if (args == NULL) {
            sbus_request_reply_error(sbus_req, ENOMEM);
            return;
        }
    }
    if (gen->read_in != NULL) {
        ret = gen->read_in(sbus_req, args);
    } else {
        ret = sbus_gen_read_request(sbus_req, "");
    }
    if (ret != EOK) {
        sbus_request_reply_error(sbus_req, ret);
        return;
    }

    switch (method->type) {
    case SBUS_HANDLER_SYNC:
        if (method->sync == NULL) {
            break;
        }
        ret = gen->sync(sbus_req, method, args);
        if (ret != EOK) {
            sbus_request_reply_error(sbus_req, ret);
            return;
        }
        sbus_gen_reply(sbus_req, gen, args);
        return;
    case SBUS_HANDLER_ASYNC:
        if (method->send == NULL || method->recv == NULL) {
            break;
        }
        sbus_gen_invoke_async(sbus_req, method, args);
        return;
    }

    DEBUG(SSSDBG_CRIT_FAILURE, "Bad table entry for %s.%s\n", gen->interface, gen->member);
    sbus_request_reply_error(sbus_req, ERR_INTERNAL);
}
