/*
 * The client state machine of the responders' socket server (resp_socket_private.h).
 *
 * A client is in one of three states: reading (fd readable), busy (a request dispatched,
 * neither readable nor timed: a slow lookup is not idleness), writing (fd writable until the
 * reply is out, then back to reading). One timer bounds each state, and no byte moves it
 * except as said here, so a trickle cannot hold a connection:
 *   - reading, nothing of the next request yet: idle_timeout from the end of the last
 *     request (or from the connection);
 *   - reading, part of a request in: request_timeout from its first byte;
 *   - writing: idle_timeout from when the reply started to wait for the socket.
 * Anything that ends a client from inside a handler's call stack is deferred to an
 * immediate event, so a handler never sees its memory vanish.
 */
#include <assert.h>
#include <inttypes.h>
#include <unistd.h>

#include "responder/common/resp_socket_private.h"
#include "responder/common/resp_busy_poll.h"
#include "responder/common/resp_metrics.h"

static void resp_client_read_mode(struct resp_client *cli);

static int resp_client_destructor(struct resp_client *cli)
{
    struct resp_server *srv = cli->srv;

    talloc_zfree(cli->fde);
    if (cli->fd != -1) {
        resp_busy_poll_unwatch(cli->fd);
        close(cli->fd);
        cli->fd = -1;
    }
    sss_list_unlink(&cli->link);
    resp_shed_untrack(cli);
    assert(srv->num_clients > 0);
    srv->num_clients--;
    return 0;
}

static int resp_request_destructor(struct resp_request *req)
{
    resp_busy_poll_request_done();
    /* A client has one request at a time, and it is the request's talloc parent. */
    assert(req->cli->req == req);
    req->cli->req = NULL;
    /* Not a save/restore: the request ends here, usually in an immediate event that runs
     * under its id (the finisher); what follows in that loop turn (reading the client's
     * next request) is no longer this request's work. */
    if (sss_debug_req_id == req->id) {
        sss_debug_req_id = 0;
    }
    return 0;
}

static void resp_client_idle(struct tevent_context *ev, struct tevent_timer *te,
                             struct timeval now, void *pvt)
{
    struct resp_client *cli = talloc_get_type(pvt, struct resp_client);

    cli->idle = NULL;
    if (cli->req != NULL && cli->req->reply == NULL) {
        /* Busy: a slow lookup is not idleness; the timer is armed again with the reply. */
        return;
    }
    if (cli->req == NULL && resp_frame_received(cli->frame) > 0) {
        cli->srv->stats.deadlines++;
        RESP_RL_DEBUG(&cli->srv->rl, SSSDBG_OP_FAILURE, "Client fd %d (pid %d uid %d) did "
                      "not finish its request within %u s, closing it\n", cli->fd,
                      (int)cli->creds.pid, (int)cli->creds.uid,
                      cli->srv->conf.request_timeout);
    } else {
        DEBUG(SSSDBG_TRACE_FUNC, "Client fd %d (pid %d) idle for %u s, closing it\n",
              cli->fd, (int)cli->creds.pid, cli->srv->conf.idle_timeout);
    }
    talloc_free(cli);
}

/* The client's one timer, secs from now (0: none). */
static void resp_client_arm(struct resp_client *cli, unsigned int secs)
{
    struct timeval when;

    if (secs == 0) {
        talloc_zfree(cli->idle);
        return;
    }
    when = tevent_timeval_current_ofs(secs, 0);
    if (cli->idle != NULL) {
        /* Moves the armed timer: no allocation per packet. */
        tevent_update_timer(cli->idle, when);
        return;
    }
    cli->idle = tevent_add_timer(cli->srv->ev, cli, when, resp_client_idle, cli);
    if (cli->idle == NULL) {
        /* Not fatal: the client just will not be timed out. */
        DEBUG(SSSDBG_CRIT_FAILURE, "Out of memory arming the idle timer of fd %d\n", cli->fd);
    }
}

static void resp_client_arm_idle(struct resp_client *cli)
{
    resp_client_arm(cli, cli->srv->conf.idle_timeout);
}

static void resp_client_closer(struct tevent_context *ev, struct tevent_immediate *im,
                               void *pvt)
{
    talloc_free(talloc_get_type(pvt, struct resp_client));
}

void resp_client_close_later(struct resp_client *cli, const char *why)
{
    DEBUG(SSSDBG_TRACE_FUNC, "Closing client fd %d (pid %d): %s\n", cli->fd,
          (int)cli->creds.pid, why);
    TEVENT_FD_NOT_READABLE(cli->fde);
    TEVENT_FD_NOT_WRITEABLE(cli->fde);
    talloc_zfree(cli->idle);
    tevent_schedule_immediate(cli->closer, cli->srv->ev, resp_client_closer, cli);
}

static resp_cmd_fn resp_find_cmd(const struct resp_cmd *cmds, uint32_t cmd)
{
    size_t i;

    for (i = 0; cmds[i].fn != NULL; i++) {
        if (cmds[i].cmd == cmd) {
            return cmds[i].fn;
        }
    }
    return NULL;
}

/* A whole request is in the frame: hand it to its handler (cli may be freed on return). */
static void resp_client_dispatch(struct resp_client *cli)
{
    struct resp_request *req;
    resp_cmd_fn fn;
    errno_t ret;

    /* Reading stops while a request is in flight (resp_client_fd_handler()). */
    assert(cli->req == NULL);
    req = talloc_zero(cli, struct resp_request);
    if (req == NULL) {
        DEBUG(SSSDBG_CRIT_FAILURE, "Out of memory for a request of fd %d\n", cli->fd);
        talloc_free(cli);
        return;
    }
    req->cli = cli;
    req->id = sss_new_req_id();
    req->cmd = resp_frame_cmd(cli->frame);
    req->start_usec = resp_metrics_request(req->cmd);
    talloc_set_destructor(req, resp_request_destructor);
    cli->req = req;
    resp_busy_poll_request(cli->fd);

    /* Busy: nothing more is read and the idle clock stops until the reply is out. The fd
     * is left readable until it actually reports something while busy (then reading is
     * switched off, see resp_client_fd_handler()): a request answered before the loop
     * polls again costs no epoll_ctl(). The idle timer is likewise left in place and
     * ignores a busy client when it fires. */

    SSS_REQ_ID_SCOPE(req->id);
    DEBUG(SSSDBG_TRACE_FUNC, "Request %" PRIu64 ": command 0x%04x from pid %d uid %d "
          "(%zu bytes)\n", req->id, req->cmd, (int)cli->creds.pid, (int)cli->creds.uid,
          resp_frame_received(cli->frame));

    fn = resp_find_cmd(cli->srv->conf.cmds, req->cmd);
    if (fn == NULL) {
        RESP_RL_DEBUG(&cli->srv->rl, SSSDBG_OP_FAILURE, "Request %" PRIu64 ": unknown "
                      "command 0x%04x from pid %d uid %d, closing the connection\n",
                      req->id, req->cmd, (int)cli->creds.pid, (int)cli->creds.uid);
        talloc_free(cli);
        return;
    }
    ret = fn(req);
    if (ret != EOK) {
        /* EBADMSG: the handler found the body malformed (it said why at trace level). */
        RESP_RL_DEBUG(&cli->srv->rl, SSSDBG_OP_FAILURE, "Request %" PRIu64 ": command 0x%04x "
                      "from pid %d uid %d %s [%d]: %s; closing the connection\n", req->id,
                      req->cmd, (int)cli->creds.pid, (int)cli->creds.uid,
                      ret == EBADMSG ? "is malformed" : "failed", ret, sss_strerror(ret));
        talloc_free(cli);
    }
}

/* One non-blocking recv into buf. 0: nothing to read now, or cli is gone (a failed read
 * or the client hung up: cli was freed); otherwise the bytes read. */
static size_t resp_client_read(struct resp_client *cli, uint8_t *buf, size_t len)
{
    ssize_t n;
    errno_t ret;

    n = recv(cli->fd, buf, len, MSG_DONTWAIT);
    if (n > 0) {
        return (size_t)n;
    }
    if (n == -1) {
        ret = errno;
        if (ret == EAGAIN || ret == EWOULDBLOCK || ret == EINTR) {
            return 0;
        }
        DEBUG(SSSDBG_TRACE_FUNC, "recv from fd %d failed [%d]: %s; closing it\n", cli->fd,
              ret, strerror(ret));
    } else {
        DEBUG(SSSDBG_TRACE_INTERNAL, "Client fd %d (pid %d) disconnected\n", cli->fd,
              (int)cli->creds.pid);
    }
    talloc_free(cli);
    return 0;
}

/* Reads a request's first bytes into the stash. false: nothing more to do now (no data
 * yet, or cli was freed). */
static bool resp_client_fill_stash(struct resp_client *cli)
{
    size_t n = resp_client_read(cli, cli->stash, sizeof(cli->stash));

    if (n == 0) {
        return false;
    }
    cli->stash_off = 0;
    cli->stash_len = n;
    return true;
}

/* What the frame says after new bytes: dispatch a whole request, wait for more (EAGAIN),
 * or drop a client that broke the framing. fresh: these were the request's first bytes,
 * which start its deadline (later bytes do not move it). */
static void resp_client_framed(struct resp_client *cli, errno_t ret, bool fresh)
{
    switch (ret) {
    case EAGAIN:
        if (fresh) {
            resp_client_arm(cli, cli->srv->conf.request_timeout);
        }
        return;
    case EOK:
        /* The timer is left as it is: a busy client ignores it, and the reply re-arms it. */
        resp_client_dispatch(cli);
        return;
    case EMSGSIZE:
        RESP_RL_DEBUG(&cli->srv->rl, SSSDBG_OP_FAILURE, "Client fd %d (pid %d uid %d) sent "
                      "a request larger than %zu bytes, closing the connection\n", cli->fd,
                      (int)cli->creds.pid, (int)cli->creds.uid, cli->srv->conf.max_request);
        break;
    case EBADMSG:
        RESP_RL_DEBUG(&cli->srv->rl, SSSDBG_OP_FAILURE, "Client fd %d (pid %d uid %d) sent "
                      "a request shorter than its header, closing the connection\n",
                      cli->fd, (int)cli->creds.pid, (int)cli->creds.uid);
        break;
    default:
        DEBUG(SSSDBG_CRIT_FAILURE, "Framing of fd %d failed [%d]: %s\n", cli->fd, ret,
              sss_strerror(ret));
        break;
    }
    talloc_free(cli);
}

static void resp_client_recv(struct resp_client *cli)
{
    bool fresh = resp_frame_received(cli->frame) == 0;
    uint8_t *dst;
    size_t space;
    size_t used;
    size_t n;
    errno_t ret;

    if (fresh && cli->stash_off == cli->stash_len && !resp_client_fill_stash(cli)) {
        return;
    }
    if (cli->stash_off < cli->stash_len) {
        ret = resp_frame_feed(cli->frame, cli->stash + cli->stash_off,
                              cli->stash_len - cli->stash_off, &used);
        cli->stash_off += used;
        if (ret != EAGAIN) {
            resp_client_framed(cli, ret, fresh);
            return;
        }
        if (fresh) {
            /* The deadline starts with the first bytes, whatever comes next. */
            resp_client_arm(cli, cli->srv->conf.request_timeout);
            fresh = false;
        }
    }

    /* The rest of a request bigger than the stash: straight into the frame, never past
     * its end. */
again:
    dst = resp_frame_space(cli->frame, &space);
    n = resp_client_read(cli, dst, space);
    if (n == 0) {
        return;
    }
    ret = resp_frame_advance(cli->frame, n);
    if (ret == EAGAIN && n == space) {
        /* The header is in: the body usually is too, read it without another trip
         * through the event loop. */
        if (fresh) {
            resp_client_arm(cli, cli->srv->conf.request_timeout);
            fresh = false;
        }
        goto again;
    }
    resp_client_framed(cli, ret, fresh);
}

/* A request whose bytes were read with the previous one: served once that one is done. */
static void resp_client_resume(struct tevent_context *ev, struct tevent_immediate *im,
                               void *pvt)
{
    struct resp_client *cli = talloc_get_type(pvt, struct resp_client);

    if (cli->req == NULL && cli->stash_off < cli->stash_len) {
        resp_client_recv(cli);
    }
}

/* Writes what the socket takes of req's reply. EOK: all of it is out; EAGAIN: the rest
 * waits for the socket; anything else: the connection is broken. Frees nothing. */
static errno_t resp_client_write(struct resp_client *cli, struct resp_request *req)
{
    const uint8_t *pkt;
    size_t len;
    ssize_t n;
    errno_t ret;

    pkt = resp_reply_packet(req->reply, &len);
    n = send(cli->fd, pkt + req->written, len - req->written, MSG_DONTWAIT | MSG_NOSIGNAL);
    if (n == -1) {
        ret = errno;
        if (ret == EAGAIN || ret == EWOULDBLOCK || ret == EINTR) {
            return EAGAIN;
        }
        DEBUG(SSSDBG_TRACE_FUNC, "Request %" PRIu64 ": send failed [%d]: %s; closing the "
              "connection\n", req->id, ret, strerror(ret));
        return ret;
    }
    req->written += (size_t)n;
    if (req->written < len) {
        return EAGAIN;
    }
    DEBUG(SSSDBG_TRACE_FUNC, "Request %" PRIu64 ": answered, %zu bytes\n", req->id, len);
    resp_metrics_answered(req->cmd, req->start_usec);
    return EOK;
}

static void resp_client_send(struct resp_client *cli)
{
    struct resp_request *req = cli->req;
    errno_t ret;

    if (req == NULL || req->reply == NULL) {
        TEVENT_FD_NOT_WRITEABLE(cli->fde);
        return;
    }
    {
        SSS_REQ_ID_SCOPE(req->id);
        ret = resp_client_write(cli, req);
    }
    switch (ret) {
    case EAGAIN:
        /* The reply's deadline started when it began to wait (resp_client_answer()): a
         * client reading it a byte at a time does not move it. */
        return;
    case EOK:
        talloc_free(req);
        resp_client_read_mode(cli);
        return;
    default:
        talloc_free(cli);
        return;
    }
}

/* The reply went out from resp_request_done(): the request ends here, out of the
 * handler's call stack. */
static void resp_client_finisher(struct tevent_context *ev, struct tevent_immediate *im,
                                 void *pvt)
{
    struct resp_client *cli = talloc_get_type(pvt, struct resp_client);

    /* Scheduled once the whole reply was written; freeing the client cancels it. */
    assert(cli->req != NULL && cli->req->reply != NULL);
    talloc_free(cli->req);
    resp_client_read_mode(cli);
}

static void resp_client_read_mode(struct resp_client *cli)
{
    resp_frame_reset(cli->frame);
    TEVENT_FD_NOT_WRITEABLE(cli->fde);
    TEVENT_FD_READABLE(cli->fde);
    resp_client_arm_idle(cli);
    resp_shed_touch(cli);
    if (cli->stash_off < cli->stash_len) {
        /* The socket may have nothing more to say: the next request is already here. */
        tevent_schedule_immediate(cli->resumer, cli->srv->ev, resp_client_resume, cli);
    }
}

static void resp_client_fd_handler(struct tevent_context *ev, struct tevent_fd *fde,
                                   uint16_t flags, void *pvt)
{
    struct resp_client *cli = talloc_get_type(pvt, struct resp_client);

    if (flags & TEVENT_FD_WRITE) {
        resp_client_send(cli);
        return;
    }
    if (flags & TEVENT_FD_READ) {
        if (cli->req != NULL) {
            /* Busy (or its reply being written): read nothing more until it is done. */
            TEVENT_FD_NOT_READABLE(cli->fde);
            return;
        }
        resp_client_recv(cli);
    }
}

/* The request's reply was just set (resp_request_done()). */
void resp_client_answer(struct resp_client *cli)
{
    errno_t ret;

    assert(cli->req != NULL && cli->req->reply != NULL && cli->req->written == 0);
    /* Write at once: the socket almost always takes the whole reply, which saves a poll
     * for writability. The request is still freed later, from the event loop. */
    if (cli->fde != NULL && tevent_fd_get_flags(cli->fde) != 0) {
        ret = resp_client_write(cli, cli->req);
    } else {
        ret = EAGAIN;
    }
    switch (ret) {
    case EOK:
        tevent_schedule_immediate(cli->finisher, cli->srv->ev,
                                  resp_client_finisher, cli);
        return;
    case EAGAIN:
        /* A client that does not read its reply is idle too, from now on. */
        TEVENT_FD_WRITEABLE(cli->fde);
        resp_client_arm_idle(cli);
        return;
    default:
        resp_client_close_later(cli, "send failed");
        return;
    }
}

void resp_client_accept(struct resp_server *srv, int fd)
{
    struct resp_client *cli;
    socklen_t len;

    cli = talloc_zero(srv, struct resp_client);
    if (cli == NULL) {
        DEBUG(SSSDBG_CRIT_FAILURE, "Out of memory accepting a client\n");
        close(fd);
        return;
    }
    cli->srv = srv;
    cli->fd = fd;
    sss_list_link_tail(&srv->clients, &cli->link);
    srv->num_clients++;
    talloc_set_destructor(cli, resp_client_destructor);

    len = sizeof(cli->creds);
    if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cli->creds, &len) != 0
            || len != sizeof(cli->creds)) {
        DEBUG(SSSDBG_CRIT_FAILURE, "SO_PEERCRED failed on a new client: %s\n",
              strerror(errno));
        talloc_free(cli);
        return;
    }
    if (resp_shed_track(cli) != EOK) {
        DEBUG(SSSDBG_CRIT_FAILURE, "Out of memory accepting a client\n");
        talloc_free(cli);
        return;
    }
    cli->frame = resp_frame_new(cli, srv->conf.max_request);
    cli->closer = tevent_create_immediate(cli);
    cli->finisher = tevent_create_immediate(cli);
    cli->resumer = tevent_create_immediate(cli);
    cli->fde = tevent_add_fd(srv->ev, cli, fd, TEVENT_FD_READ, resp_client_fd_handler, cli);
    if (cli->frame == NULL || cli->closer == NULL || cli->finisher == NULL
            || cli->resumer == NULL || cli->fde == NULL) {
        DEBUG(SSSDBG_CRIT_FAILURE, "Out of memory setting up a client\n");
        talloc_free(cli);
        return;
    }
    resp_client_arm_idle(cli);
    resp_busy_poll_watch(srv->ev, fd);
    DEBUG(SSSDBG_TRACE_INTERNAL, "Client fd %d connected: pid %d uid %d gid %d (%zu "
          "clients)\n", fd, (int)cli->creds.pid, (int)cli->creds.uid, (int)cli->creds.gid,
          srv->num_clients);
}
