/*
 * The responders' client socket server (see resp_socket.h): the listening socket (its path
 * prepared, bound with the configured mode, removed when the server goes), accepting
 * clients up to the limit, and the server's life cycle. Each client's state machine is
 * resp_client.c; what handlers call is resp_request.c.
 */
#include <fcntl.h>
#include <libgen.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "responder/common/resp_socket_private.h"
#include "responder/common/resp_busy_poll.h"

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
        resp_client_accept(srv, fd);
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
    SSS_CHECK_ARG(srv != NULL, 0);
    return srv->num_clients;
}
