/*
 * What the handlers of the responders' socket server call (resp_socket.h): the request's
 * command, body, id and context, per-client data, and the answer, which hands the reply to
 * the client's state machine (resp_client.c). Also the GET_VERSION handler every command
 * table lists.
 */
#include <inttypes.h>

#include "responder/common/resp_socket_private.h"

uint32_t resp_request_cmd(struct resp_request *req)
{
    SSS_CHECK_ARG(req != NULL, 0);
    return req->cmd;
}

const uint8_t *resp_request_body(struct resp_request *req, size_t *_len)
{
    SSS_CHECK_ARG(req != NULL && _len != NULL, NULL);
    return resp_frame_body(req->cli->frame, _len);
}

uint64_t resp_request_id(struct resp_request *req)
{
    SSS_CHECK_ARG(req != NULL, 0);
    return req->id;
}

void *resp_request_pvt(struct resp_request *req)
{
    SSS_CHECK_ARG(req != NULL, NULL);
    return req->cli->srv->conf.pvt;
}

struct tevent_context *resp_request_ev(struct resp_request *req)
{
    SSS_CHECK_ARG(req != NULL, NULL);
    return req->cli->srv->ev;
}

struct resp_client *resp_request_client(struct resp_request *req)
{
    SSS_CHECK_ARG(req != NULL, NULL);
    return req->cli;
}

const struct ucred *resp_client_creds(struct resp_client *cli)
{
    SSS_CHECK_ARG(cli != NULL, NULL);
    return &cli->creds;
}

void resp_client_set_data(struct resp_client *cli, void *data)
{
    SSS_CHECK_ARG(cli != NULL);
    if (cli->data != data) {
        talloc_free(cli->data);
    }
    cli->data = talloc_steal(cli, data);
}

void *resp_client_get_data(struct resp_client *cli)
{
    SSS_CHECK_ARG(cli != NULL, NULL);
    return cli->data;
}

uint32_t resp_client_version(struct resp_client *cli)
{
    SSS_CHECK_ARG(cli != NULL, 0);
    return cli->version;
}

errno_t resp_request_done(struct resp_request *req, struct resp_reply *reply)
{
    uint32_t hdr_cmd;
    const uint8_t *pkt;
    size_t len;

    SSS_CHECK_ARG(req != NULL && reply != NULL, EINVAL);
    SSS_CHECK_ARG(req->reply == NULL, EINVAL);     /* answered twice */
    /* The reply carries the request's command, whatever it was built with. */
    pkt = resp_reply_packet(reply, &len);
    memcpy(&hdr_cmd, pkt + SSS_HDR_CMD * sizeof(uint32_t), sizeof(hdr_cmd));
    if (hdr_cmd != req->cmd) {
        DEBUG(SSSDBG_MINOR_FAILURE, "Request %" PRIu64 ": reply built for command 0x%04x, "
              "sending it as 0x%04x\n", req->id, hdr_cmd, req->cmd);
        return EINVAL;
    }
    req->reply = talloc_steal(req, reply);
    req->written = 0;
    resp_client_answer(req->cli);
    return EOK;
}

errno_t resp_request_done_status(struct resp_request *req, uint32_t status)
{
    struct resp_reply *reply;
    errno_t ret;

    SSS_CHECK_ARG(req != NULL, EINVAL);
    reply = resp_reply_new(req, req->cmd);
    if (reply == NULL) {
        return ENOMEM;
    }
    resp_reply_set_status(reply, status);
    ret = resp_request_done(req, reply);
    if (ret != EOK) {
        talloc_free(reply);
    }
    return ret;
}

bool resp_request_log_allowed(struct resp_request *req)
{
    SSS_CHECK_ARG(req != NULL, true);
    return resp_ratelimit_pass(&req->cli->srv->rl);
}

void resp_request_abort(struct resp_request *req)
{
    SSS_CHECK_ARG(req != NULL);
    resp_client_close_later(req->cli, "request aborted");
}

errno_t resp_cmd_get_version(struct resp_request *req)
{
    struct resp_client *cli;
    const uint32_t *versions;
    struct resp_reply *reply;
    const uint8_t *body;
    uint32_t asked = 0;
    uint32_t answer;
    size_t len;
    size_t i;
    errno_t ret;

    SSS_CHECK_ARG(req != NULL, EINVAL);
    cli = req->cli;
    versions = cli->srv->versions;
    answer = versions[0];
    body = resp_request_body(req, &len);
    if (len == sizeof(uint32_t)) {
        memcpy(&asked, body, sizeof(asked));
        for (i = 0; versions[i] != 0; i++) {
            if (versions[i] == asked) {
                answer = asked;
                break;
            }
        }
    }
    cli->version = answer;
    DEBUG(SSSDBG_TRACE_FUNC, "Client asked for protocol version %u, offering %u\n",
          asked, answer);

    reply = resp_reply_new(req, req->cmd);
    if (reply == NULL) {
        return ENOMEM;
    }
    ret = resp_reply_put_u32(reply, answer);
    if (ret != EOK) {
        return ret;
    }
    return resp_request_done(req, reply);
}
