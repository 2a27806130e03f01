/*
 * Enumeration commands: SETPWENT / SETGRENT give the client a cursor at the start of the
 * current snapshot of the users (groups) of every domain with enumerate = true (nss_enum.c:
 * shared between clients, built in steps, bounded); GETPWENT / GETGRENT(count) return up to
 * count records from the cursor (at most NSS_ENUM_MAX_PER_REPLY, an empty reply at the
 * end); ENDPWENT / ENDGRENT drop the cursor. A GET*ENT without SET*ENT starts one first.
 * No back-end call is made: back-ends of enumerating domains refresh their caches in the
 * background. Domains without enumerate contribute nothing (SSSD's default). Filtered users
 * and groups are left out; nothing here is stored in the memory cache (SSSD does not
 * either). The wait for a snapshot hangs on the client request, so a client that goes
 * away drops it.
 */
#include "responder/nss/nss_private.h"
#include "sss_client/sss_cli.h"

static bool nss_enum_is_pw(uint32_t cmd)
{
    return cmd == SSS_NSS_SETPWENT || cmd == SSS_NSS_GETPWENT || cmd == SSS_NSS_ENDPWENT;
}

struct nss_enum_client *nss_enum_client(struct resp_request *rreq, bool create)
{
    struct resp_client *cli = resp_request_client(rreq);
    struct nss_enum_client *ec = resp_client_get_data(cli);

    if (ec == NULL && create) {
        ec = talloc_zero(NULL, struct nss_enum_client);
        if (ec != NULL) {
            resp_client_set_data(cli, ec);
        }
    }
    return ec;
}

/* GET*ENT's records from the client's cursor (and its probe); an error closes the
 * connection. */
static errno_t nss_getent_reply(struct resp_request *rreq, struct nss_enum_cursor *cur,
                                uint32_t count)
{
    struct nss_ctx *nctx = talloc_get_type(resp_request_pvt(rreq), struct nss_ctx);
    struct nss_reply *reply;
    unsigned int entries = 0;
    errno_t ret;

    reply = nss_reply_new(rreq, resp_request_cmd(rreq), nctx->pwfield);
    if (reply == NULL) {
        ret = ENOMEM;
        goto done;
    }
    ret = nss_enum_fill(nctx, cur, count, reply);
    if (ret != EOK) {
        talloc_free(reply);
        goto done;
    }
    entries = nss_reply_num_results(reply);
    ret = resp_request_done(rreq, nss_reply_finish(rreq, reply));
done:
    nss_probe_done(rreq, NULL, ret, entries, NULL);
    return ret;
}

struct nss_enum_cmd_state {
    struct resp_request *rreq;
    bool pw;
    bool getent;
    uint32_t count;
};

static void nss_enum_cmd_done(struct tevent_req *subreq);

/* Gets the client a new cursor, then answers SET*ENT (status) or GET*ENT (records). */
static errno_t nss_enum_start(struct resp_request *rreq, bool pw, bool getent, uint32_t count)
{
    struct nss_ctx *nctx = talloc_get_type(resp_request_pvt(rreq), struct nss_ctx);
    struct nss_enum_cmd_state *state;
    struct tevent_req *subreq;

    state = talloc_zero(rreq, struct nss_enum_cmd_state);
    if (state == NULL) {
        return ENOMEM;
    }
    state->rreq = rreq;
    state->pw = pw;
    state->getent = getent;
    state->count = count;
    subreq = nss_enum_cursor_send(state, resp_request_ev(rreq), nctx, pw);
    if (subreq == NULL) {
        talloc_free(state);
        return ENOMEM;
    }
    tevent_req_set_callback(subreq, nss_enum_cmd_done, state);
    return EOK;
}

static void nss_enum_cmd_done(struct tevent_req *subreq)
{
    struct nss_enum_cmd_state *state = tevent_req_callback_data(subreq,
                                                                struct nss_enum_cmd_state);
    struct resp_request *rreq = state->rreq;
    struct nss_enum_cursor *cur = NULL;
    struct nss_enum_client *ec;
    errno_t ret;

    SSS_REQ_ID_SCOPE(resp_request_id(rreq));
    ec = nss_enum_client(rreq, true);
    if (ec == NULL) {
        ret = ENOMEM;
        talloc_free(subreq);
        goto done;
    }
    ret = nss_enum_cursor_recv(ec, subreq, &cur);
    talloc_free(subreq);
    if (ret != EOK) {
        goto done;
    }
    talloc_free(ec->cur[state->pw]);
    ec->cur[state->pw] = cur;
    if (state->getent) {
        ret = nss_getent_reply(rreq, cur, state->count);
        goto out;       /* probed there */
    }
    ret = resp_request_done_status(rreq, 0);
done:
    nss_probe_done(rreq, NULL, ret, 0, NULL);
out:
    talloc_free(state);
    if (ret != EOK) {
        DEBUG(SSSDBG_OP_FAILURE, "Enumeration failed: %s\n", sss_strerror(ret));
        resp_request_abort(rreq);
    }
}

errno_t nss_cmd_setent(struct resp_request *rreq)
{
    errno_t ret;

    nss_probe_start(rreq, NULL);
    ret = nss_enum_start(rreq, nss_enum_is_pw(resp_request_cmd(rreq)), false, 0);
    if (ret != EOK) {
        nss_probe_done(rreq, NULL, ret, 0, NULL);
    }
    return ret;
}

errno_t nss_cmd_getent(struct resp_request *rreq)
{
    struct nss_enum_client *ec;
    struct nss_request nreq;
    const uint8_t *body;
    size_t len;
    bool pw;
    errno_t ret;

    nss_probe_start(rreq, NULL);
    body = resp_request_body(rreq, &len);
    ret = nss_request_parse(resp_request_cmd(rreq), body, len, &nreq);
    if (ret != EOK) {
        /* Only a malformed count can fail here: the connection is closed. */
        nss_probe_done(rreq, NULL, EBADMSG, 0, NULL);
        return EBADMSG;
    }
    pw = nss_enum_is_pw(nreq.cmd);
    ec = nss_enum_client(rreq, false);
    if (ec != NULL && ec->cur[pw] != NULL) {
        return nss_getent_reply(rreq, ec->cur[pw], nreq.count);
    }
    ret = nss_enum_start(rreq, pw, true, nreq.count);
    if (ret != EOK) {
        nss_probe_done(rreq, NULL, ret, 0, NULL);
    }
    return ret;
}

errno_t nss_cmd_endent(struct resp_request *rreq)
{
    struct nss_enum_client *ec = nss_enum_client(rreq, false);
    errno_t ret;

    nss_probe_start(rreq, NULL);
    if (ec != NULL) {
        talloc_zfree(ec->cur[nss_enum_is_pw(resp_request_cmd(rreq)) ? 1 : 0]);
    }
    ret = resp_request_done_status(rreq, 0);
    nss_probe_done(rreq, NULL, ret, 0, NULL);
    return ret;
}
