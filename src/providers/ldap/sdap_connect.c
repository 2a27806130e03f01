/*
 * Opening one ready LDAP connection to one URI without stalling the event loop:
 *
 *   1. the host is resolved (getaddrinfo: numeric addresses and /etc/hosts names resolve
 *      at once; a slow DNS server would block here, see the design notes), a
 *      non-blocking socket connects, and the loop waits for it to become writable for at
 *      most ldap_network_timeout;
 *   2. the socket goes back to blocking mode with SO_RCVTIMEO/SO_SNDTIMEO set to
 *      ldap_network_timeout (libldap's reads only happen when the dispatcher saw the socket
 *      readable; the timeouts bound the rare partial message and the TLS handshake), and
 *      libldap takes it over with ldap_init_fd(); options: LDAPv3, referrals off,
 *      LDAP_OPT_NETWORK_TIMEOUT and LDAP_OPT_TIMEOUT, and the per-connection TLS options
 *      (ldap_tls_cacert, ldap_tls_cacertdir, ldap_tls_reqcert, then LDAP_OPT_X_TLS_NEWCTX);
 *   3. ldaps:// does its TLS handshake now, ldap_id_use_start_tls sends StartTLS
 *      asynchronously and then does the handshake; both handshakes are synchronous inside
 *      libldap and bounded by the socket timeouts above;
 *   4. a simple bind with ldap_default_bind_dn / ldap_default_authtok when a bind DN is
 *      set, asynchronously with the ldap_opt_timeout; otherwise the connection stays
 *      anonymous.
 */
#include <fcntl.h>
#include <netdb.h>
#include <openldap.h>
#include <sys/socket.h>
#include <unistd.h>

#include "util/util.h"
#include "providers/ldap/sdap_private.h"

struct sdap_connect_state {
    struct tevent_context *ev;
    const struct sdap_options *opts;
    char *uri;
    bool ldaps;
    int fd;                     /* ours until libldap owns it, then -1 */
    int sock;                   /* the socket, for setting its timeouts */
    struct tevent_fd *fde;
    struct tevent_timer *timer;
    struct sdap_conn *conn;
};

static void sdap_connect_writable(struct tevent_context *ev, struct tevent_fd *fde,
                                  uint16_t flags, void *pvt);
static void sdap_connect_timeout(struct tevent_context *ev, struct tevent_timer *te,
                                 struct timeval now, void *pvt);
static errno_t sdap_connect_ldap(struct tevent_req *req);
static void sdap_connect_starttls_done(struct tevent_req *subreq);
static errno_t sdap_connect_bind(struct tevent_req *req);
static void sdap_connect_bind_done(struct tevent_req *subreq);

static int sdap_connect_state_destructor(struct sdap_connect_state *state)
{
    talloc_zfree(state->fde);
    if (state->fd >= 0) {
        close(state->fd);
        state->fd = -1;
    }
    return 0;
}

/* Starts the non-blocking connect; EINPROGRESS is success here. */
static errno_t start_socket(struct sdap_connect_state *state, const char *host, int port)
{
    struct addrinfo hints = { .ai_socktype = SOCK_STREAM, .ai_flags = AI_ADDRCONFIG };
    struct addrinfo *ai = NULL;
    char portstr[16];
    int gai;
    errno_t ret;

    snprintf(portstr, sizeof(portstr), "%d", port);
    gai = getaddrinfo(host, portstr, &hints, &ai);
    if (gai != 0 || ai == NULL) {
        DEBUG(SSSDBG_OP_FAILURE, "cannot resolve '%s': %s\n", host, gai_strerror(gai));
        return EHOSTUNREACH;
    }
    state->fd = socket(ai->ai_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (state->fd < 0) {
        ret = errno;
        freeaddrinfo(ai);
        return ret;
    }
    if (connect(state->fd, ai->ai_addr, ai->ai_addrlen) != 0 && errno != EINPROGRESS) {
        ret = errno;
        DEBUG(SSSDBG_OP_FAILURE, "connect to %s failed: %s\n", state->uri, strerror(ret));
        freeaddrinfo(ai);
        return ret;
    }
    freeaddrinfo(ai);
    return EOK;
}

struct tevent_req *sdap_connect_send(TALLOC_CTX *mem_ctx, struct tevent_context *ev,
                                     const struct sdap_options *opts, const char *uri)
{
    struct sdap_connect_state *state;
    struct tevent_req *req;
    LDAPURLDesc *lud = NULL;
    int port;
    errno_t ret;

    req = tevent_req_create(mem_ctx, &state, struct sdap_connect_state);
    if (req == NULL) {
        return NULL;
    }
    state->ev = ev;
    state->opts = opts;
    state->fd = -1;
    talloc_set_destructor(state, sdap_connect_state_destructor);
    state->uri = talloc_strdup(state, uri);
    if (state->uri == NULL) {
        ret = ENOMEM;
        goto done;
    }
    if (ldap_url_parse(uri, &lud) != LDAP_URL_SUCCESS || lud->lud_host == NULL) {
        DEBUG(SSSDBG_CRIT_FAILURE, "unusable URI '%s'\n", uri);
        ret = EINVAL;
        goto done;
    }
    state->ldaps = strcasecmp(lud->lud_scheme, "ldaps") == 0;
    port = lud->lud_port != 0 ? lud->lud_port : (state->ldaps ? 636 : 389);
    DEBUG(SSSDBG_TRACE_FUNC, "connecting to %s\n", uri);

    ret = start_socket(state, lud->lud_host, port);
    if (ret != EOK) {
        goto done;
    }
    /* READ too: tevent's epoll backend reports a refused connect (EPOLLERR/HUP) only to
     * handlers that asked for READ. */
    state->fde = tevent_add_fd(ev, state, state->fd, TEVENT_FD_READ | TEVENT_FD_WRITE,
                               sdap_connect_writable, req);
    state->timer = tevent_add_timer(ev, state,
                                    tevent_timeval_current_ofs(opts->network_timeout, 0),
                                    sdap_connect_timeout, req);
    if (state->fde == NULL || state->timer == NULL) {
        ret = ENOMEM;
        goto done;
    }
    ldap_free_urldesc(lud);
    return req;
done:
    if (lud != NULL) {
        ldap_free_urldesc(lud);
    }
    return sss_req_post(req, ev, ret);
}

static void sdap_connect_timeout(struct tevent_context *ev, struct tevent_timer *te,
                                 struct timeval now, void *pvt)
{
    struct tevent_req *req = talloc_get_type_abort(pvt, struct tevent_req);
    struct sdap_connect_state *state = tevent_req_data(req, struct sdap_connect_state);

    state->timer = NULL;
    DEBUG(SSSDBG_OP_FAILURE, "connect to %s: no answer within %d s\n", state->uri,
          state->opts->network_timeout);
    talloc_zfree(state->fde);
    tevent_req_error(req, ETIMEDOUT);
}

static void sdap_connect_writable(struct tevent_context *ev, struct tevent_fd *fde,
                                  uint16_t flags, void *pvt)
{
    struct tevent_req *req = talloc_get_type_abort(pvt, struct tevent_req);
    struct sdap_connect_state *state = tevent_req_data(req, struct sdap_connect_state);
    socklen_t len = sizeof(int);
    int soerr = 0;
    errno_t ret;

    talloc_zfree(state->fde);
    talloc_zfree(state->timer);
    if (getsockopt(state->fd, SOL_SOCKET, SO_ERROR, &soerr, &len) != 0) {
        soerr = errno;
    }
    if (soerr != 0) {
        DEBUG(SSSDBG_OP_FAILURE, "connect to %s failed: %s\n", state->uri, strerror(soerr));
        tevent_req_error(req, soerr);
        return;
    }
    ret = sdap_connect_ldap(req);
    if (ret != EOK) {
        tevent_req_error(req, ret);
        return;
    }
    if (state->opts->start_tls && !state->ldaps) {
        struct tevent_req *subreq;

        subreq = sdap_starttls_send(state, state->ev, state->conn,
                                    state->opts->network_timeout);
        if (subreq == NULL) {
            tevent_req_error(req, ENOMEM);
            return;
        }
        tevent_req_set_callback(subreq, sdap_connect_starttls_done, req);
        return;
    }
    ret = sdap_connect_bind(req);
    if (ret != EOK) {
        tevent_req_error(req, ret);
    }
}

static errno_t set_sock_timeouts(int fd, int seconds)
{
    struct timeval tv = { .tv_sec = seconds, .tv_usec = 0 };

    if (setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) != 0
            || setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv)) != 0) {
        return errno;
    }
    return EOK;
}

static errno_t set_ldap_options(struct sdap_connect_state *state, LDAP *ld)
{
    const struct sdap_options *opts = state->opts;
    struct timeval net_tv = { .tv_sec = opts->network_timeout };
    struct timeval opt_tv = { .tv_sec = opts->opt_timeout };
    int version = LDAP_VERSION3;
    int reqcert = opts->tls_reqcert;
    int newctx = 0;
    int lrc;

    if ((lrc = ldap_set_option(ld, LDAP_OPT_PROTOCOL_VERSION, &version)) != LDAP_OPT_SUCCESS
        || (lrc = ldap_set_option(ld, LDAP_OPT_REFERRALS, LDAP_OPT_OFF)) != LDAP_OPT_SUCCESS
        || (lrc = ldap_set_option(ld, LDAP_OPT_NETWORK_TIMEOUT, &net_tv)) != LDAP_OPT_SUCCESS
        || (lrc = ldap_set_option(ld, LDAP_OPT_TIMEOUT, &opt_tv)) != LDAP_OPT_SUCCESS) {
        DEBUG(SSSDBG_CRIT_FAILURE, "cannot set LDAP options: %s\n", ldap_err2string(lrc));
        return EIO;
    }
    if (!state->ldaps && !opts->start_tls) {
        return EOK;
    }
    /* Per-connection TLS context: the options first, then a new context built from them. */
    if ((lrc = ldap_set_option(ld, LDAP_OPT_X_TLS_REQUIRE_CERT, &reqcert))
            != LDAP_OPT_SUCCESS
        || (opts->tls_cacert != NULL
            && (lrc = ldap_set_option(ld, LDAP_OPT_X_TLS_CACERTFILE, opts->tls_cacert))
                != LDAP_OPT_SUCCESS)
        || (opts->tls_cacertdir != NULL
            && (lrc = ldap_set_option(ld, LDAP_OPT_X_TLS_CACERTDIR, opts->tls_cacertdir))
                != LDAP_OPT_SUCCESS)
        || (lrc = ldap_set_option(ld, LDAP_OPT_X_TLS_NEWCTX, &newctx)) != LDAP_OPT_SUCCESS) {
        DEBUG(SSSDBG_CRIT_FAILURE, "cannot set up TLS for %s: %s\n", state->uri,
              ldap_err2string(lrc));
        return EIO;
    }
    return EOK;
}

/* The socket is connected: hand it to libldap and wrap it in a sdap_conn. */
static errno_t sdap_connect_ldap(struct tevent_req *req)
{
    struct sdap_connect_state *state = tevent_req_data(req, struct sdap_connect_state);
    LDAP *ld = NULL;
    int flags;
    int lrc;
    errno_t ret;

    flags = fcntl(state->fd, F_GETFL);
    if (flags < 0 || fcntl(state->fd, F_SETFL, flags & ~O_NONBLOCK) != 0) {
        return errno;
    }
    ret = set_sock_timeouts(state->fd, state->opts->network_timeout);
    if (ret != EOK) {
        return ret;
    }
    state->sock = state->fd;
    lrc = ldap_init_fd(state->fd, LDAP_PROTO_TCP, state->uri, &ld);
    if (lrc != LDAP_SUCCESS) {
        DEBUG(SSSDBG_CRIT_FAILURE, "ldap_init_fd failed: %s\n", ldap_err2string(lrc));
        return EIO;
    }
    ret = set_ldap_options(state, ld);
    if (ret == EOK && state->ldaps) {
        lrc = ldap_install_tls(ld);
        if (lrc != LDAP_SUCCESS) {
            DEBUG(SSSDBG_OP_FAILURE, "TLS handshake with %s failed: %s\n", state->uri,
                  ldap_err2string(lrc));
            ret = EIO;
        }
    }
    if (ret == EOK) {
        ret = sdap_conn_create(state, state->ev, ld, state->fd, state->uri, &state->conn);
    }
    if (ret != EOK) {
        /* ldap_unbind_ext closes the socket: it belongs to ld now. */
        ldap_unbind_ext(ld, NULL, NULL);
        state->fd = -1;
        return ret;
    }
    state->fd = -1;
    return EOK;
}

static void sdap_connect_starttls_done(struct tevent_req *subreq)
{
    struct tevent_req *req = tevent_req_callback_data(subreq, struct tevent_req);
    errno_t ret;

    ret = sdap_starttls_recv(subreq);
    talloc_free(subreq);
    if (ret == EOK) {
        ret = sdap_connect_bind(req);
    }
    if (ret != EOK) {
        tevent_req_error(req, ret == EACCES ? EIO : ret);
    }
}

static errno_t sdap_connect_bind(struct tevent_req *req)
{
    struct sdap_connect_state *state = tevent_req_data(req, struct sdap_connect_state);
    struct tevent_req *subreq;

    if (state->opts->bind_dn == NULL) {
        DEBUG(SSSDBG_TRACE_FUNC, "connected to %s (anonymous)\n", state->uri);
        tevent_req_done(req);
        return EOK;
    }
    subreq = sdap_bind_send(state, state->ev, state->conn, state->opts->bind_dn,
                            state->opts->authtok, state->opts->opt_timeout);
    if (subreq == NULL) {
        return ENOMEM;
    }
    tevent_req_set_callback(subreq, sdap_connect_bind_done, req);
    return EOK;
}

static void sdap_connect_bind_done(struct tevent_req *subreq)
{
    struct tevent_req *req = tevent_req_callback_data(subreq, struct tevent_req);
    struct sdap_connect_state *state = tevent_req_data(req, struct sdap_connect_state);
    errno_t ret;

    ret = sdap_bind_recv(subreq);
    talloc_free(subreq);
    if (ret != EOK) {
        DEBUG(SSSDBG_OP_FAILURE, "bind as '%s' to %s failed: %s\n", state->opts->bind_dn,
              state->uri, sss_strerror(ret));
        tevent_req_error(req, ret);
        return;
    }
    DEBUG(SSSDBG_TRACE_FUNC, "connected to %s as '%s'\n", state->uri, state->opts->bind_dn);
    tevent_req_done(req);
}

errno_t sdap_connect_recv(TALLOC_CTX *mem_ctx, struct tevent_req *req,
                          struct sdap_conn **_conn)
{
    struct sdap_connect_state *state = tevent_req_data(req, struct sdap_connect_state);

    TEVENT_REQ_RETURN_ON_ERROR(req);
    /* Everyday operations: the ldap_opt_timeout bounds a stuck read or write. */
    set_sock_timeouts(state->sock, state->opts->opt_timeout);
    *_conn = talloc_steal(mem_ctx, state->conn);
    state->conn = NULL;
    return EOK;
}
