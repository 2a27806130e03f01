/*
 * The master bus server: listening on the unix socket, accepting connections with the
 * peer's credentials (SO_PEERCRED; sbus_server_io.c authenticates them: EXTERNAL only,
 * uid 0 and the allowed uid get in), the lifetime of peers and of the server, and the entry
 * point of every message a peer sends, sbus_server_message(): it validates the message in
 * place (sbus_wire.h; an invalid one costs the peer its connection, as libdbus would),
 * registers the peer (by Hello, or implicitly), and hands the message to the bus interface
 * (sbus_server_bus.c) or to routing (sbus_server_route.c).
 */
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "util/sss_hex.h"
#include "sbus/sbus_server_private.h"

/* -------- peers -------- */

static int sbus_peer_destructor(struct sbus_peer *peer)
{
    struct sbus_server *server = peer->server;

    talloc_zfree(peer->fde);
    if (peer->fd >= 0) {
        close(peer->fd);
        peer->fd = -1;
    }
    sss_list_unlink(&peer->link);
    if (!peer->disconnected) {
        assert(server->peer_count > 0);
        server->peer_count--;
    }
    /* Names, match and pending entries (children) take themselves out of the tables. */
    return 0;
}

/* The request id of a message passing through: a call carries it, an answer gets the one
 * recorded for the call it answers. */
static uint64_t sbus_server_msg_req_id(struct sbus_peer *peer, struct sbus_server_msg *m)
{
    const char *destination = SBUS_MSG_FIELD(m, destination);
    struct sbus_peer *caller;

    switch (m->h.type) {
    case DBUS_MESSAGE_TYPE_METHOD_CALL:
        return sbus_message_req_id(sbus_server_msg_dbus(m));
    case DBUS_MESSAGE_TYPE_METHOD_RETURN:
    case DBUS_MESSAGE_TYPE_ERROR:
        if (peer->unique == NULL || destination == NULL) {
            return 0;
        }
        caller = sbus_server_name_owner(peer->server, destination);
        return caller != NULL ? sbus_server_pending_req_id(peer, caller->unique_id,
                                                            m->h.reply_serial)
                              : 0;
    default:
        return 0;
    }
}

/* What a log line calls a peer: its oldest well-known name (sssd.nss, sssd.domain_X),
 * else its unique name. */
static const char *sbus_server_peer_label(struct sbus_peer *peer)
{
    const char *label;

    assert(peer != NULL);
    label = sbus_server_peer_wellknown(peer);
    if (label == NULL) {
        label = peer->unique != NULL ? peer->unique->name : "(unregistered)";
    }
    return label;
}

/* The master's line for a message of a request (sssctl analyze's "sssd" stage), logged
 * under the request id so that the analyzer puts it between the caller's and the callee's
 * lines. */
static void sbus_server_log_route(struct sbus_peer *peer, struct sbus_server_msg *m,
                                  const char *destination, const char *member)
{
    struct sbus_peer *target = NULL;
    const char *to = destination != NULL ? destination : "(broadcast)";

    if (destination != NULL) {
        target = sbus_server_name_owner(peer->server, destination);
        if (target != NULL) {
            to = sbus_server_peer_label(target);
        }
    }
    switch (m->h.type) {
    case DBUS_MESSAGE_TYPE_METHOD_CALL:
        DEBUG(SSSDBG_TRACE_FUNC, "Bus call %s from %s to %s, serial %u\n", member,
              sbus_server_peer_label(peer), to, m->h.serial);
        break;
    case DBUS_MESSAGE_TYPE_METHOD_RETURN:
    case DBUS_MESSAGE_TYPE_ERROR:
        DEBUG(SSSDBG_TRACE_FUNC, "Bus %s from %s to %s, reply serial %u\n",
              m->h.type == DBUS_MESSAGE_TYPE_ERROR ? "error" : "reply",
              sbus_server_peer_label(peer), to, m->h.reply_serial);
        break;
    default:
        DEBUG(SSSDBG_TRACE_FUNC, "Bus signal %s from %s to %s\n", member,
              sbus_server_peer_label(peer), to);
        break;
    }
}

/* Registration, then the bus itself or routing. */
static void sbus_server_handle(struct sbus_peer *peer, struct sbus_server_msg *m)
{
    if (m->h.type == DBUS_MESSAGE_TYPE_METHOD_CALL && m->h.destination.off == 0
            && sbus_wire_equal(m->data, m->h.interface, DBUS_INTERFACE_PEER)) {
        sbus_server_bus_peer_call(peer, m);
        return;
    }
    if (peer->unique == NULL && sbus_server_bus_unregistered(peer, m)) {
        return;
    }
    assert(peer->unique != NULL);   /* registered by Hello or implicitly just now */

    if (sbus_wire_equal(m->data, m->h.destination, DBUS_SERVICE_DBUS)) {
        sbus_server_bus_message(peer, m);
    } else {
        sbus_server_route(peer, m);
    }
}

static unsigned int sbus_server_msg_trace_serial(const struct sbus_server_msg *m)
{
    return m->h.type == DBUS_MESSAGE_TYPE_METHOD_RETURN
           || m->h.type == DBUS_MESSAGE_TYPE_ERROR ? m->h.reply_serial : m->h.serial;
}

/* sbus_server_handle() with the sbus_route_recv / sbus_route_sent probes around it: every
 * message read gets one route_recv, and one route_sent per peer it was handed to, or one
 * with destination "" when the server answered or dropped it. Also taken while
 * SSSDBG_TRACE_FUNC is on: the message's request id is then current while it is routed
 * and a message of a request gets a line of its own. */
static void sbus_server_handle_traced(struct sbus_peer *peer, struct sbus_server_msg *m)
{
    struct sbus_server *server = peer->server;
    struct sbus_server_trace trace = { .msg = m };
    const char *destination = SBUS_MSG_FIELD(m, destination);
    const char *interface = SBUS_MSG_FIELD(m, interface);
    const char *member = SBUS_MSG_FIELD(m, member);

    trace.req_id = sbus_server_msg_req_id(peer, m);
    trace.sender = peer->unique != NULL ? peer->unique->name : "";
    snprintf(trace.member, sizeof(trace.member), "%s%s%s", interface != NULL ? interface : "",
             interface != NULL && member != NULL ? "." : "", member != NULL ? member : "");
    PROBE(SBUS_ROUTE_RECV, trace.req_id, trace.sender, destination != NULL ? destination : "",
          trace.member, m->h.type, sbus_server_msg_trace_serial(m));
    SSS_REQ_ID_SCOPE(trace.req_id);
    if (trace.req_id != 0 && debug_enabled(SSSDBG_TRACE_FUNC)) {
        sbus_server_log_route(peer, m, destination, trace.member);
    }

    server->trace = &trace;
    sbus_server_handle(peer, m);
    server->trace = NULL;
    if (trace.sent == 0) {
        /* The sender may have been named by Hello meanwhile: keep what route_recv said. */
        PROBE(SBUS_ROUTE_SENT, trace.req_id, trace.sender, "", trace.member, m->h.type,
              sbus_server_msg_trace_serial(m));
    }
}

void sbus_server_message(struct sbus_peer *peer, const uint8_t *data, size_t size)
{
    struct sbus_server_msg m;

    if (sbus_wire_parse(data, size, &m.h) != EOK) {
        sbus_peer_close(peer, "sent an invalid message");
        return;
    }
    if (m.h.type > DBUS_MESSAGE_TYPE_SIGNAL) {
        DEBUG(SSSDBG_TRACE_ALL, "Message of unknown type %u ignored\n", m.h.type);
        return;
    }
    sbus_server_msg_init(&m, peer, data, size);
    /* Both tests are a load and a compare: nothing is formatted unless one is on. */
    if (PROBE_ENABLED(SBUS_ROUTE_RECV) || PROBE_ENABLED(SBUS_ROUTE_SENT)
            || debug_enabled(SSSDBG_TRACE_FUNC)) {
        sbus_server_handle_traced(peer, &m);
    } else {
        sbus_server_handle(peer, &m);
    }
    sbus_server_msg_done(&m);
}

static void sbus_server_accept_one(struct sbus_server *server, int fd)
{
    struct sbus_peer *peer;
    struct ucred cred;
    socklen_t len = sizeof(cred);
    errno_t ret;

    if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0) {
        DEBUG(SSSDBG_OP_FAILURE, "Cannot read a bus peer's credentials: %s\n",
              strerror(errno));
        close(fd);
        return;
    }
    peer = talloc_zero(server, struct sbus_peer);
    if (peer == NULL) {
        DEBUG(SSSDBG_CRIT_FAILURE, "Out of memory accepting a bus peer\n");
        close(fd);
        return;
    }
    peer->server = server;
    peer->fd = fd;
    peer->uid = cred.uid;
    peer->pid = cred.pid;
    sss_list_init(&peer->out);
    sss_list_init(&peer->names);
    sss_list_init(&peer->matches);
    sss_list_init(&peer->pending);
    sss_list_init(&peer->pending_free);
    sss_list_link_tail(&server->peers, &peer->link);
    server->peer_count++;
    talloc_set_destructor(peer, sbus_peer_destructor);

    ret = sbus_peer_io_start(peer);
    if (ret != EOK) {
        DEBUG(SSSDBG_CRIT_FAILURE, "Cannot set up a bus peer: %s\n", sss_strerror(ret));
        talloc_free(peer);
        return;
    }
    DEBUG(SSSDBG_TRACE_FUNC, "Accepted a bus peer of uid %lu, pid %lu\n",
          (unsigned long)cred.uid, (unsigned long)cred.pid);
}

static void sbus_server_accept(struct tevent_context *ev, struct tevent_fd *fde,
                               uint16_t flags, void *pvt)
{
    struct sbus_server *server = talloc_get_type(pvt, struct sbus_server);
    int fd;

    for (;;) {
        fd = accept4(server->listen_fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (fd < 0) {
            if (errno == EINTR || errno == ECONNABORTED) {
                continue;
            }
            if (errno != EAGAIN && errno != EWOULDBLOCK) {
                DEBUG(SSSDBG_OP_FAILURE, "Cannot accept a bus peer: %s\n", strerror(errno));
            }
            return;
        }
        sbus_server_accept_one(server, fd);
    }
}

/* -------- the server -------- */

static int sbus_server_destructor(struct sbus_server *server)
{
    struct sbus_peer *peer;

    /* Newest first, the reverse of their arrival. */
    while ((peer = sss_list_last_entry(&server->peers, struct sbus_peer, link)) != NULL) {
        talloc_free(peer);
    }
    assert(server->peer_count == 0);
    talloc_zfree(server->listen_fde);
    if (server->listen_fd >= 0) {
        close(server->listen_fd);
        server->listen_fd = -1;
        if (unlink(server->socket_path) != 0 && errno != ENOENT) {
            DEBUG(SSSDBG_MINOR_FAILURE, "Cannot remove %s: %s\n", server->socket_path,
                  strerror(errno));
        }
    }
    return 0;
}

/* Removes a socket left by an earlier run; anything else at that path is an error. */
static errno_t sbus_server_remove_stale(const char *socket_path)
{
    struct stat st;
    errno_t ret;

    if (lstat(socket_path, &st) != 0) {
        ret = errno;
        if (ret == ENOENT) {
            return EOK;
        }
        DEBUG(SSSDBG_CRIT_FAILURE, "Cannot stat %s: %s\n", socket_path, strerror(ret));
        return ret;
    }
    if (!S_ISSOCK(st.st_mode)) {
        DEBUG(SSSDBG_CRIT_FAILURE, "%s exists and is not a socket\n", socket_path);
        return EEXIST;
    }
    if (unlink(socket_path) != 0) {
        ret = errno;
        DEBUG(SSSDBG_CRIT_FAILURE, "Cannot remove stale %s: %s\n", socket_path,
              strerror(ret));
        return ret;
    }
    DEBUG(SSSDBG_TRACE_FUNC, "Removed stale socket %s\n", socket_path);
    return EOK;
}

/* The GUID of OK and GetId: 32 random hex digits. */
static errno_t sbus_server_make_id(struct sbus_server *server)
{
    uint8_t bytes[SBUS_AUTH_GUID_LEN / 2];

    if (getrandom(bytes, sizeof(bytes), 0) != (ssize_t)sizeof(bytes)) {
        return errno != 0 ? errno : EIO;
    }
    sss_hex_encode(bytes, sizeof(bytes), server->id);
    return EOK;
}

static errno_t sbus_server_listen(struct sbus_server *server)
{
    struct sockaddr_un sa = { .sun_family = AF_UNIX };
    mode_t old_umask;
    char *escaped;
    errno_t ret;

    if (strlen(server->socket_path) >= sizeof(sa.sun_path)) {
        DEBUG(SSSDBG_CRIT_FAILURE, "Socket path %s is too long\n", server->socket_path);
        return EINVAL;
    }
    strcpy(sa.sun_path, server->socket_path);
    escaped = dbus_address_escape_value(server->socket_path);
    if (escaped == NULL) {
        return ENOMEM;
    }
    server->address = talloc_asprintf(server, "unix:path=%s", escaped);
    dbus_free(escaped);
    if (server->address == NULL) {
        return ENOMEM;
    }

    server->listen_fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (server->listen_fd < 0) {
        ret = errno;
        DEBUG(SSSDBG_CRIT_FAILURE, "Cannot create a socket: %s\n", strerror(ret));
        return ret;
    }
    /* The socket never exists with a wider mode than 0600, not even briefly. */
    old_umask = umask(0177);
    ret = bind(server->listen_fd, (struct sockaddr *)&sa, sizeof(sa)) == 0 ? EOK : errno;
    umask(old_umask);
    if (ret != EOK) {
        DEBUG(SSSDBG_CRIT_FAILURE, "Cannot bind %s: %s\n", server->socket_path,
              strerror(ret));
        close(server->listen_fd);
        server->listen_fd = -1;     /* nothing of ours to unlink */
        return EIO;
    }
    if (listen(server->listen_fd, SOMAXCONN) != 0) {
        DEBUG(SSSDBG_CRIT_FAILURE, "Cannot listen on %s: %s\n", server->socket_path,
              strerror(errno));
        return EIO;
    }
    if (chmod(server->socket_path, 0600) != 0) {
        ret = errno;
        DEBUG(SSSDBG_CRIT_FAILURE, "Cannot chmod %s: %s\n", server->socket_path,
              strerror(ret));
        return ret;
    }
    server->listen_fde = tevent_add_fd(server->ev, server, server->listen_fd,
                                       TEVENT_FD_READ, sbus_server_accept, server);
    return server->listen_fde == NULL ? ENOMEM : EOK;
}

errno_t sbus_server_create(TALLOC_CTX *mem_ctx, struct tevent_context *ev,
                           const char *socket_path, uid_t allowed_uid,
                           struct sbus_server **_server)
{
    struct sbus_server *server;
    errno_t ret;

    SSS_CHECK_ARG(ev != NULL, EINVAL);
    SSS_CHECK_ARG(socket_path != NULL && socket_path[0] != '\0', EINVAL);
    SSS_CHECK_ARG(_server != NULL, EINVAL);

    server = talloc_zero(mem_ctx, struct sbus_server);
    if (server == NULL) {
        return ENOMEM;
    }
    sss_list_init(&server->peers);
    server->listen_fd = -1;
    talloc_set_destructor(server, sbus_server_destructor);
    server->ev = ev;
    server->allowed_uid = allowed_uid;
    server->next_unique = 1;
    server->socket_path = talloc_strdup(server, socket_path);
    if (server->socket_path == NULL) {
        ret = ENOMEM;
        goto done;
    }
    ret = sbus_server_make_id(server);
    if (ret != EOK) {
        goto done;
    }
    ret = sbus_server_tables_init(server);
    if (ret != EOK) {
        goto done;
    }
    ret = sbus_server_remove_stale(socket_path);
    if (ret != EOK) {
        goto done;
    }
    ret = sbus_server_listen(server);
    if (ret != EOK) {
        goto done;
    }

    DEBUG(SSSDBG_TRACE_FUNC, "Master bus listening on %s\n", server->address);
    *_server = server;
    ret = EOK;

done:
    if (ret != EOK) {
        talloc_free(server);
    }
    return ret;
}

const char *sbus_server_get_address(struct sbus_server *server)
{
    SSS_CHECK_ARG(server != NULL, NULL);
    return server->address;
}

unsigned int sbus_server_connection_count(struct sbus_server *server)
{
    SSS_CHECK_ARG(server != NULL, 0);
    return server->peer_count;
}
