/*
 * The responders' client socket server (see resp_socket.h): the listening socket (its path
 * prepared, bound with the configured mode, removed when the server goes), accepting
 * clients up to the limit (shedding for newcomers when full, resp_shed.c), running out of
 * descriptors without spinning (a reserve descriptor, then a short pause), and the server's
 * life cycle. Each client's state machine is resp_client.c; what handlers call is
 * resp_request.c.
 */
#include <fcntl.h>
#include <libgen.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "responder/common/resp_socket_private.h"
#include "responder/common/resp_busy_poll.h"

/* A new client when the table is full: room is made by shedding the idle connections of
 * the uid holding the most; when nothing can be shed the newcomer is closed. */
static void resp_server_admit(struct resp_server *srv, int fd)
{
    if (srv->num_clients >= srv->conf.max_clients && resp_shed_idle(srv, 1) == 0) {
        srv->stats.refused++;
        RESP_RL_DEBUG(&srv->rl, SSSDBG_OP_FAILURE, "%zu clients already connected to %s "
                      "and none can be shed (root's, or busy): refusing one more\n",
                      srv->num_clients, srv->path);
        close(fd);
        return;
    }
    srv->stats.accepted++;
    resp_client_accept(srv, fd);
}

static void resp_server_resume(struct tevent_context *ev, struct tevent_timer *te,
                               struct timeval tv, void *pvt)
{
    struct resp_server *srv = talloc_get_type(pvt, struct resp_server);

    srv->resume = NULL;
    TEVENT_FD_READABLE(srv->fde);
}

/* Stops accepting for RESP_ACCEPT_PAUSE_MS: the listening socket stays readable while
 * clients wait in its backlog, and an accept that keeps failing would spin. */
static void resp_server_pause(struct resp_server *srv)
{
    if (srv->resume != NULL) {
        return;
    }
    srv->resume = tevent_add_timer(srv->ev, srv,
                                   tevent_timeval_current_ofs(0, RESP_ACCEPT_PAUSE_MS * 1000),
                                   resp_server_resume, srv);
    if (srv->resume == NULL) {
        /* Without the timer, stopping would be for ever: better spin than go deaf. */
        return;
    }
    srv->stats.pauses++;
    TEVENT_FD_NOT_READABLE(srv->fde);
}

static void resp_server_take_reserve(struct resp_server *srv)
{
    if (srv->reserve_fd == -1) {
        srv->reserve_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
    }
}

/*
 * accept4() said EMFILE or ENFILE. The reserve descriptor is given up to take the next
 * client out of the backlog; it stays when an idle connection of the uid holding the most
 * can be shed for it, else it is closed at once (its connect() fails fast instead of
 * waiting in a backlog that never drains). false: stop accepting for now.
 */
static bool resp_server_out_of_fds(struct resp_server *srv, errno_t err)
{
    int fd;

    srv->stats.out_of_fds++;
    RESP_RL_DEBUG(&srv->rl, SSSDBG_OP_FAILURE, "accept on %s failed: %s (%zu clients); "
                  "making room\n", srv->path, strerror(err), srv->num_clients);
    if (srv->reserve_fd == -1) {
        resp_server_pause(srv);
        return false;
    }
    close(srv->reserve_fd);
    srv->reserve_fd = -1;
    srv->stats.accept_calls++;
    fd = accept4(srv->fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd != -1) {
        if (resp_shed_idle(srv, 1) > 0) {
            srv->stats.accepted++;
            resp_client_accept(srv, fd);
        } else {
            srv->stats.refused++;
            close(fd);
        }
    }
    resp_server_take_reserve(srv);
    if (fd == -1 || srv->reserve_fd == -1) {
        resp_server_pause(srv);
        return false;
    }
    return true;
}

static void resp_server_accept(struct tevent_context *ev, struct tevent_fd *fde,
                               uint16_t flags, void *pvt)
{
    struct resp_server *srv = talloc_get_type(pvt, struct resp_server);
    errno_t err;
    int i;
    int fd;

    /* A few per wake-up, so a burst of connections does not starve the clients. */
    for (i = 0; i < 16; i++) {
        srv->stats.accept_calls++;
        fd = accept4(srv->fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (fd != -1) {
            resp_server_admit(srv, fd);
            continue;
        }
        err = errno;
        switch (err) {
        case EAGAIN:
#if EWOULDBLOCK != EAGAIN
        case EWOULDBLOCK:
#endif
        case EINTR:
        case ECONNABORTED:
            return;
        case EMFILE:
        case ENFILE:
            if (!resp_server_out_of_fds(srv, err)) {
                return;
            }
            continue;
        default:
            /* ENOBUFS, ENOMEM...: the next try would fail the same way at once. */
            RESP_RL_DEBUG(&srv->rl, SSSDBG_OP_FAILURE, "accept on %s failed: %s; pausing\n",
                          srv->path, strerror(err));
            resp_server_pause(srv);
            return;
        }
    }
}

size_t resp_max_clients_for_fds(size_t fd_limit)
{
    size_t n;

    if (fd_limit > 4 * RESP_FD_RESERVE) {
        n = fd_limit - RESP_FD_RESERVE;
    } else {
        n = fd_limit * 3 / 4;
    }
    return n > 0 ? n : 1;
}

void resp_server_get_stats(struct resp_server *srv, struct resp_server_stats *stats)
{
    SSS_CHECK_ARG(srv != NULL && stats != NULL);
    *stats = srv->stats;
    stats->log_suppressed = srv->rl.suppressed_total;
    stats->log_passed = srv->rl.passed_total;
}

static int resp_server_destructor(struct resp_server *srv)
{
    struct resp_client *cli;
    struct stat st;

    while ((cli = sss_list_first_entry(&srv->clients, struct resp_client, link)) != NULL) {
        talloc_free(cli);
    }
    talloc_zfree(srv->fde);
    if (srv->reserve_fd != -1) {
        close(srv->reserve_fd);
        srv->reserve_fd = -1;
    }
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

    SSS_CHECK_ARG(ev != NULL, EINVAL);
    SSS_CHECK_ARG(_srv != NULL, EINVAL);
    SSS_CHECK_ARG(conf != NULL && conf->path != NULL && conf->cmds != NULL, EINVAL);
    SSS_CHECK_ARG(conf->versions != NULL && conf->versions[0] != 0, EINVAL);
    SSS_CHECK_ARG(conf->max_request == 0 || conf->max_request >= SSS_NSS_HEADER_SIZE, EINVAL);
    srv = talloc_zero(mem_ctx, struct resp_server);
    if (srv == NULL) {
        return ENOMEM;
    }
    sss_list_init(&srv->clients);
    srv->fd = -1;
    srv->reserve_fd = -1;
    srv->ev = ev;
    srv->conf = *conf;
    if (srv->conf.max_clients == 0) {
        srv->conf.max_clients = RESP_DEFAULT_MAX_CLIENTS;
    }
    if (srv->conf.max_request == 0) {
        srv->conf.max_request = SSS_CLI_MAX_REQUEST_SIZE;
    }
    if (srv->conf.request_timeout == 0) {
        srv->conf.request_timeout = RESP_DEFAULT_REQUEST_TIMEOUT;
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
    srv->rl_what = talloc_asprintf(srv, "clients of %s", srv->path);
    if (srv->rl_what == NULL) {
        ret = ENOMEM;
        goto done;
    }
    resp_ratelimit_init(&srv->rl, ev, srv, srv->rl_what);
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
    resp_server_take_reserve(srv);
    if (srv->reserve_fd == -1) {
        DEBUG(SSSDBG_MINOR_FAILURE, "No reserve descriptor for %s: %s\n", srv->path,
              strerror(errno));
    }
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
    SSS_CHECK_ARG(srv != NULL, 0);
    return srv->num_clients;
}
