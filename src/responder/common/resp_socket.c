/*
 * The responders' client socket server (see resp_socket.h): listening socket, per-client
 * state machine (read a request, dispatch, write the reply), idle timeout, client limit.
 *
 * A client is in one of three states: reading (fd readable, idle timer armed), busy (a
 * request dispatched, neither readable nor timed: a slow lookup is not idleness), writing
 * (fd writable and the idle timer armed again until the reply is out, then back to
 * reading). Anything that ends a client from inside a handler's call
 * stack is deferred to an immediate event, so a handler never sees its memory vanish.
 */
#include <assert.h>
#include <fcntl.h>
#include <inttypes.h>
#include <libgen.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "responder/common/resp_socket.h"
#include "responder/common/resp_busy_poll.h"
#include "responder/common/resp_check.h"
#include "util/sss_list.h"

struct resp_server {
    struct tevent_context *ev;
    struct resp_server_conf conf;
    char *path;
    uint32_t *versions;
    int fd;
    dev_t dev;
    ino_t ino;
    struct tevent_fd *fde;
    struct sss_list clients;        /* struct resp_client.link */
    size_t num_clients;
};

/* The first read of a request takes up to this much: header and body of nearly every
 * request in one recv. A client that writes its next request before the answer (allowed,
 * though no known client does) leaves those bytes in the stash for after the reply. */
#define RESP_STASH_SIZE 512

struct resp_client {
    struct sss_list link;           /* in srv->clients */
    struct resp_server *srv;
    int fd;
    struct ucred creds;
    uint32_t version;
    struct tevent_fd *fde;
    struct tevent_timer *idle;
    struct tevent_immediate *closer;
    struct tevent_immediate *finisher;  /* ends a request whose reply went out at once */
    struct tevent_immediate *resumer;   /* serves stashed bytes after a reply */
    struct resp_frame *frame;
    uint8_t stash[RESP_STASH_SIZE]; /* read past the end of a request: the next one's */
    size_t stash_off;
    size_t stash_len;
    struct resp_request *req;       /* the one in flight, or NULL */
    void *data;                     /* resp_client_set_data(); a talloc child */
};

struct resp_request {
    struct resp_client *cli;
    uint64_t id;
    uint32_t cmd;
    struct resp_reply *reply;       /* once answered */
    size_t written;
};

static void resp_client_close_later(struct resp_client *cli, const char *why);
static void resp_client_read_mode(struct resp_client *cli);

/* ---- clients ---- */

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
    DEBUG(SSSDBG_TRACE_FUNC, "Client fd %d (pid %d) idle for %u s, closing it\n", cli->fd,
          (int)cli->creds.pid, cli->srv->conf.idle_timeout);
    talloc_free(cli);
}

static void resp_client_arm_idle(struct resp_client *cli)
{
    struct timeval when;

    if (cli->srv->conf.idle_timeout == 0) {
        talloc_zfree(cli->idle);
        return;
    }
    when = tevent_timeval_current_ofs(cli->srv->conf.idle_timeout, 0);
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

static void resp_client_closer(struct tevent_context *ev, struct tevent_immediate *im,
                               void *pvt)
{
    talloc_free(talloc_get_type(pvt, struct resp_client));
}

static void resp_client_close_later(struct resp_client *cli, const char *why)
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
        DEBUG(SSSDBG_OP_FAILURE, "Request %" PRIu64 ": unknown command 0x%04x from pid %d, "
              "closing the connection\n", req->id, req->cmd, (int)cli->creds.pid);
        talloc_free(cli);
        return;
    }
    ret = fn(req);
    if (ret != EOK) {
        DEBUG(SSSDBG_OP_FAILURE, "Request %" PRIu64 ": command 0x%04x failed [%d]: %s; "
              "closing the connection\n", req->id, req->cmd, ret, sss_strerror(ret));
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
 * or drop a client that broke the framing. */
static void resp_client_framed(struct resp_client *cli, errno_t ret)
{
    switch (ret) {
    case EAGAIN:
        resp_client_arm_idle(cli);
        return;
    case EOK:
        resp_client_arm_idle(cli);
        resp_client_dispatch(cli);
        return;
    case EMSGSIZE:
        DEBUG(SSSDBG_OP_FAILURE, "Client fd %d (pid %d) sent a request larger than %zu "
              "bytes, closing the connection\n", cli->fd, (int)cli->creds.pid,
              cli->srv->conf.max_request);
        break;
    case EBADMSG:
        DEBUG(SSSDBG_OP_FAILURE, "Client fd %d (pid %d) sent a request shorter than its "
              "header, closing the connection\n", cli->fd, (int)cli->creds.pid);
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
    uint8_t *dst;
    size_t space;
    size_t used;
    size_t n;
    errno_t ret;

    if (resp_frame_received(cli->frame) == 0 && cli->stash_off == cli->stash_len
            && !resp_client_fill_stash(cli)) {
        return;
    }
    if (cli->stash_off < cli->stash_len) {
        ret = resp_frame_feed(cli->frame, cli->stash + cli->stash_off,
                              cli->stash_len - cli->stash_off, &used);
        cli->stash_off += used;
        if (ret != EAGAIN) {
            resp_client_framed(cli, ret);
            return;
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
        goto again;
    }
    resp_client_framed(cli, ret);
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
        /* A client that stops reading its reply is idle too. */
        resp_client_arm_idle(cli);
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

/* ---- accepting ---- */

static void resp_server_accept_one(struct resp_server *srv, int fd)
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

static void resp_server_accept(struct tevent_context *ev, struct tevent_fd *fde,
                               uint16_t flags, void *pvt)
{
    struct resp_server *srv = talloc_get_type(pvt, struct resp_server);
    int i;
    int fd;

    /* A few per wake-up, so a burst of connections does not starve the clients. */
    for (i = 0; i < 16; i++) {
        fd = accept4(srv->fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (fd == -1) {
            if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
                DEBUG(SSSDBG_OP_FAILURE, "accept on %s failed: %s\n", srv->path,
                      strerror(errno));
            }
            return;
        }
        if (srv->num_clients >= srv->conf.max_clients) {
            DEBUG(SSSDBG_OP_FAILURE, "%zu clients already connected to %s, refusing one "
                  "more\n", srv->num_clients, srv->path);
            close(fd);
            continue;
        }
        resp_server_accept_one(srv, fd);
    }
}

static int resp_server_destructor(struct resp_server *srv)
{
    struct resp_client *cli;
    struct stat st;

    while ((cli = sss_list_first_entry(&srv->clients, struct resp_client, link)) != NULL) {
        talloc_free(cli);
    }
    talloc_zfree(srv->fde);
    if (srv->fd != -1) {
        resp_busy_poll_unwatch(srv->fd);
        close(srv->fd);
        /* Remove the socket file only while it is still ours. */
        if (lstat(srv->path, &st) == 0 && st.st_dev == srv->dev && st.st_ino == srv->ino) {
            unlink(srv->path);
        }
    }
    return 0;
}

static errno_t resp_server_prepare_path(const char *path)
{
    TALLOC_CTX *tmp_ctx;
    struct stat st;
    char *dir;
    errno_t ret;

    tmp_ctx = talloc_new(NULL);
    dir = talloc_strdup(tmp_ctx, path);
    if (dir == NULL) {
        ret = ENOMEM;
        goto done;
    }
    dir = dirname(dir);
    if (mkdir(dir, 0755) != 0 && errno != EEXIST) {
        ret = errno;
        DEBUG(SSSDBG_CRIT_FAILURE, "Cannot create %s: %s\n", dir, strerror(ret));
        goto done;
    }
    if (lstat(path, &st) == 0) {
        if (!S_ISSOCK(st.st_mode)) {
            DEBUG(SSSDBG_CRIT_FAILURE, "%s exists and is not a socket; not removing it\n",
                  path);
            ret = EEXIST;
            goto done;
        }
        if (unlink(path) != 0) {
            ret = errno;
            DEBUG(SSSDBG_CRIT_FAILURE, "Cannot remove stale socket %s: %s\n", path,
                  strerror(ret));
            goto done;
        }
        DEBUG(SSSDBG_TRACE_FUNC, "Removed stale socket %s\n", path);
    }
    ret = EOK;
done:
    talloc_free(tmp_ctx);
    return ret;
}

static errno_t resp_server_listen(struct resp_server *srv)
{
    struct sockaddr_un addr;
    struct stat st;
    mode_t old_umask;
    int rc;

    memset(&addr, 0, sizeof(addr));
    addr.sun_family = AF_UNIX;
    if (strlen(srv->path) >= sizeof(addr.sun_path)) {
        return ENAMETOOLONG;
    }
    strcpy(addr.sun_path, srv->path);

    srv->fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (srv->fd == -1) {
        return errno;
    }
    /* The socket is born with the final mode's restrictions, then gets exactly mode. */
    old_umask = umask(~srv->conf.mode & 0777);
    rc = bind(srv->fd, (struct sockaddr *)&addr, sizeof(addr));
    umask(old_umask);
    if (rc != 0) {
        return errno;
    }
    if (chmod(srv->path, srv->conf.mode) != 0 || lstat(srv->path, &st) != 0) {
        return errno;
    }
    srv->dev = st.st_dev;
    srv->ino = st.st_ino;
    if (listen(srv->fd, 128) != 0) {
        return errno;
    }
    return EOK;
}

errno_t resp_server_start(TALLOC_CTX *mem_ctx, struct tevent_context *ev,
                          const struct resp_server_conf *conf,
                          struct resp_server **_srv)
{
    struct resp_server *srv;
    size_t n;
    errno_t ret;

    RESP_CHECK_ARG(ev != NULL, EINVAL);
    RESP_CHECK_ARG(_srv != NULL, EINVAL);
    RESP_CHECK_ARG(conf != NULL && conf->path != NULL && conf->cmds != NULL, EINVAL);
    RESP_CHECK_ARG(conf->versions != NULL && conf->versions[0] != 0, EINVAL);
    RESP_CHECK_ARG(conf->max_request == 0 || conf->max_request >= SSS_NSS_HEADER_SIZE, EINVAL);
    srv = talloc_zero(mem_ctx, struct resp_server);
    if (srv == NULL) {
        return ENOMEM;
    }
    sss_list_init(&srv->clients);
    srv->fd = -1;
    srv->ev = ev;
    srv->conf = *conf;
    if (srv->conf.max_clients == 0) {
        srv->conf.max_clients = RESP_DEFAULT_MAX_CLIENTS;
    }
    if (srv->conf.max_request == 0) {
        srv->conf.max_request = SSS_CLI_MAX_REQUEST_SIZE;
    }
    for (n = 0; conf->versions[n] != 0; n++) {
        /* count */
    }
    srv->versions = talloc_memdup(srv, conf->versions, (n + 1) * sizeof(uint32_t));
    srv->path = talloc_strdup(srv, conf->path);
    if (srv->versions == NULL || srv->path == NULL) {
        ret = ENOMEM;
        goto done;
    }
    srv->conf.versions = srv->versions;
    srv->conf.path = srv->path;
    talloc_set_destructor(srv, resp_server_destructor);

    ret = resp_server_prepare_path(srv->path);
    if (ret != EOK) {
        goto done;
    }
    ret = resp_server_listen(srv);
    if (ret != EOK) {
        DEBUG(SSSDBG_CRIT_FAILURE, "Cannot listen on %s [%d]: %s\n", srv->path, ret,
              sss_strerror(ret));
        goto done;
    }
    srv->fde = tevent_add_fd(ev, srv, srv->fd, TEVENT_FD_READ, resp_server_accept, srv);
    if (srv->fde == NULL) {
        ret = ENOMEM;
        goto done;
    }
    resp_busy_poll_watch(ev, srv->fd);
    DEBUG(SSSDBG_TRACE_FUNC, "Listening for clients on %s (mode %04o, idle timeout %u s, "
          "at most %zu clients)\n", srv->path, (unsigned int)srv->conf.mode,
          srv->conf.idle_timeout, srv->conf.max_clients);
    *_srv = srv;
    ret = EOK;
done:
    if (ret != EOK) {
        talloc_free(srv);
    }
    return ret;
}

size_t resp_server_num_clients(struct resp_server *srv)
{
    RESP_CHECK_ARG(srv != NULL, 0);
    return srv->num_clients;
}

/* ---- requests ---- */

uint32_t resp_request_cmd(struct resp_request *req)
{
    RESP_CHECK_ARG(req != NULL, 0);
    return req->cmd;
}

const uint8_t *resp_request_body(struct resp_request *req, size_t *_len)
{
    RESP_CHECK_ARG(req != NULL && _len != NULL, NULL);
    return resp_frame_body(req->cli->frame, _len);
}

uint64_t resp_request_id(struct resp_request *req)
{
    RESP_CHECK_ARG(req != NULL, 0);
    return req->id;
}

void *resp_request_pvt(struct resp_request *req)
{
    RESP_CHECK_ARG(req != NULL, NULL);
    return req->cli->srv->conf.pvt;
}

struct tevent_context *resp_request_ev(struct resp_request *req)
{
    RESP_CHECK_ARG(req != NULL, NULL);
    return req->cli->srv->ev;
}

struct resp_client *resp_request_client(struct resp_request *req)
{
    RESP_CHECK_ARG(req != NULL, NULL);
    return req->cli;
}

const struct ucred *resp_client_creds(struct resp_client *cli)
{
    RESP_CHECK_ARG(cli != NULL, NULL);
    return &cli->creds;
}

void resp_client_set_data(struct resp_client *cli, void *data)
{
    RESP_CHECK_ARG(cli != NULL);
    if (cli->data != data) {
        talloc_free(cli->data);
    }
    cli->data = talloc_steal(cli, data);
}

void *resp_client_get_data(struct resp_client *cli)
{
    RESP_CHECK_ARG(cli != NULL, NULL);
    return cli->data;
}

uint32_t resp_client_version(struct resp_client *cli)
{
    RESP_CHECK_ARG(cli != NULL, 0);
    return cli->version;
}

errno_t resp_request_done(struct resp_request *req, struct resp_reply *reply)
{
    uint32_t hdr_cmd;
    const uint8_t *pkt;
    size_t len;
    errno_t ret;

    RESP_CHECK_ARG(req != NULL && reply != NULL, EINVAL);
    RESP_CHECK_ARG(req->reply == NULL, EINVAL);     /* answered twice */
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
    /* Write at once: the socket almost always takes the whole reply, which saves a poll
     * for writability. The request is still freed later, from the event loop. */
    if (req->cli->fde != NULL && tevent_fd_get_flags(req->cli->fde) != 0) {
        ret = resp_client_write(req->cli, req);
    } else {
        ret = EAGAIN;
    }
    switch (ret) {
    case EOK:
        tevent_schedule_immediate(req->cli->finisher, req->cli->srv->ev,
                                  resp_client_finisher, req->cli);
        return EOK;
    case EAGAIN:
        TEVENT_FD_WRITEABLE(req->cli->fde);
        resp_client_arm_idle(req->cli);
        return EOK;
    default:
        resp_client_close_later(req->cli, "send failed");
        return EOK;
    }
}

errno_t resp_request_done_status(struct resp_request *req, uint32_t status)
{
    struct resp_reply *reply;
    errno_t ret;

    RESP_CHECK_ARG(req != NULL, EINVAL);
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

void resp_request_abort(struct resp_request *req)
{
    RESP_CHECK_ARG(req != NULL);
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

    RESP_CHECK_ARG(req != NULL, EINVAL);
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
