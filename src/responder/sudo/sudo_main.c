/*
 * sssd_sudo: the sudo responder. This file starts the process: it joins the bus as
 * sssd.sudo, reads [sudo], listens for sudo's requests on pipes/sudo and answers
 * GET_SUDORULES and GET_DEFAULTS (sudo_cmd.c picks the rules, sudo_rules.c formats them).
 * As in SSSD, only root may ask (sudo is setuid root): another client's request closes
 * its connection, logged.
 */
#include "responder/sudo/sudo_private.h"
#include "sss_client/sss_cli.h"

static const uint32_t sudo_versions[] = { SSS_SUDO_PROTOCOL_VERSION, 0 };

static void sudo_cmd_done(struct tevent_req *subreq);

/* A reply holding only an error code (what SSSD sends for every failure). */
static errno_t sudo_reply_error(struct resp_request *rreq, uint32_t error)
{
    struct resp_reply *reply;
    errno_t ret;

    reply = resp_reply_new(rreq, resp_request_cmd(rreq));
    if (reply == NULL) {
        return ENOMEM;
    }
    ret = resp_reply_put_u32(reply, error);
    if (ret == EOK) {
        ret = resp_request_done(rreq, reply);
    }
    return ret;
}

static errno_t sudo_cmd(struct resp_request *rreq, enum sudo_req_type type)
{
    struct sudo_ctx *sctx = resp_request_pvt(rreq);
    const struct ucred *cr = resp_client_creds(resp_request_client(rreq));
    struct tevent_req *subreq;
    const uint8_t *body;
    const char *name;
    uint32_t uid;
    size_t len;
    errno_t ret;

    if (cr == NULL || cr->uid != 0) {
        if (resp_request_log_allowed(rreq)) {
            DEBUG(SSSDBG_IMPORTANT_INFO, "Refusing to serve sudo rules to unprivileged "
                  "client (uid %d)\n", cr != NULL ? (int)cr->uid : -1);
        }
        return EPERM;   /* closes the connection, as SSSD does */
    }
    body = resp_request_body(rreq, &len);
    ret = sudo_parse_query(body, len, &uid, &name);
    if (ret != EOK) {
        if (resp_request_log_allowed(rreq)) {
            DEBUG(SSSDBG_OP_FAILURE, "Malformed sudo request (%zu bytes): answering "
                  "EINVAL\n", len);
        }
        return sudo_reply_error(rreq, EINVAL);
    }
    subreq = sudo_get_rules_send(rreq, resp_request_ev(rreq), sctx, type, uid, name,
                                 resp_request_id(rreq));
    if (subreq == NULL) {
        return ENOMEM;
    }
    tevent_req_set_callback(subreq, sudo_cmd_done, rreq);
    return EOK;
}

static void sudo_cmd_done(struct tevent_req *subreq)
{
    struct resp_request *rreq = tevent_req_callback_data(subreq, struct resp_request);
    struct resp_reply *reply;
    uint8_t *body = NULL;
    size_t len = 0;
    errno_t ret;
    SSS_REQ_ID_SCOPE(resp_request_id(rreq));

    ret = sudo_get_rules_recv(rreq, subreq, &body, &len, NULL);
    talloc_free(subreq);
    if (ret != EOK) {
        /* Only the error code: sudo reports it (ENOENT: the user is unknown). */
        ret = sudo_reply_error(rreq, ret == ENOENT ? ENOENT : EIO);
    } else {
        reply = resp_reply_new(rreq, resp_request_cmd(rreq));
        ret = reply == NULL ? ENOMEM : resp_reply_put(reply, body, len);
        if (ret == EOK) {
            ret = resp_request_done(rreq, reply);
        }
    }
    talloc_free(body);
    if (ret != EOK) {
        resp_request_abort(rreq);
    }
}

static errno_t sudo_cmd_get_sudorules(struct resp_request *rreq)
{
    return sudo_cmd(rreq, SUDO_REQ_RULES);
}

static errno_t sudo_cmd_get_defaults(struct resp_request *rreq)
{
    return sudo_cmd(rreq, SUDO_REQ_DEFAULTS);
}

static const struct resp_cmd sudo_cmds[] = {
    { SSS_GET_VERSION, resp_cmd_get_version },
    { SSS_SUDO_GET_SUDORULES, sudo_cmd_get_sudorules },
    { SSS_SUDO_GET_DEFAULTS, sudo_cmd_get_defaults },
    RESP_CMD_END
};

static errno_t sudo_init(struct sss_service *svc, struct resp_ctx *rctx)
{
    struct resp_server_conf sconf;
    struct sudo_ctx *sctx;
    int idle;
    errno_t ret;

    ret = sudo_ctx_create(rctx, rctx, &sctx);
    if (ret != EOK) {
        return ret;
    }
    ret = confdb_get_int(rctx->cdb, "sudo", "client_idle_timeout", &idle);
    if (ret != EOK) {
        return ret;
    }
    memset(&sconf, 0, sizeof(sconf));
    sconf.path = SSSD_PIPE_PATH "/" SSS_SUDO_SOCKET_NAME;
    sconf.mode = 0666;
    sconf.cmds = sudo_cmds;
    sconf.versions = sudo_versions;
    sconf.idle_timeout = idle > 10 ? (unsigned int)idle : 10;
    sconf.max_clients = rctx->fd_limit != 0 ? resp_max_clients_for_fds(rctx->fd_limit) : 0;
    sconf.pvt = sctx;
    return resp_server_start(sctx, sss_service_ev(svc), &sconf, &sctx->srv);
}

int main(int argc, const char *argv[])
{
    return resp_main(argc, argv, "sudo", sudo_init);
}
