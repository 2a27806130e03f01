/*
 * Opening one ready LDAP connection to one URI without stalling the event loop:
 *
 *   1. the host is resolved (getaddrinfo: numeric addresses and /etc/hosts names resolve
 *      at once; a slow DNS server would block here, see the design notes), a
 *      non-blocking socket connects, and the loop waits for it to become writable for at
 *      most ldap_network_timeout;
 *   2. libldap takes the socket over with ldap_init_fd(); it stays non-blocking for good
 *      (a server that answers one byte a second costs one short read per byte on the loop,
 *      never a blocked read), with sdap_io.c's write queue pushed under libldap's layers so
 *      that a write the kernel cannot take at once waits there instead of in the loop;
 *      options: LDAPv3, referrals off, LDAP_OPT_TIMEOUT, and the per-connection TLS options
 *      (ldap_tls_cacert, ldap_tls_cacertdir, ldap_tls_reqcert, then LDAP_OPT_X_TLS_NEWCTX,
 *      so that nothing is shared with other domains or taken from libldap's global
 *      defaults);
 *   3. ldap_id_use_start_tls: the StartTLS request is sent and its answer awaited on the
 *      loop (at most ldap_network_timeout), before the handle is wrapped in a sdap_conn;
 *   4. TLS (ldaps:// at once, or after StartTLS): libldap has no asynchronous handshake
 *      (ldap_install_tls() blocks until the handshake ends, and with
 *      LDAP_OPT_NETWORK_TIMEOUT set it even busy-loops on a non-blocking socket, without
 *      any bound, against a server that never answers). So the handshake runs as an
 *      offloop job (a worker thread) that owns the LDAP handle meanwhile; for the
 *      thread alone the socket is blocking (SO_RCVTIMEO/SO_SNDTIMEO at
 *      ldap_network_timeout, the write queue off); the loop keeps running and a timer gives
 *      up after ldap_network_timeout: the socket is shut down, which ends the thread's
 *      blocked read or write at once, and the thread frees the handle. Nothing else touches
 *      the handle during the handshake (it is not wrapped in a sdap_conn yet); the thread
 *      does not log and touches no talloc memory. Afterwards the socket is non-blocking
 *      again;
 *   5. LDAP_OPT_NETWORK_TIMEOUT is set (for completeness; we connect ourselves), the
 *      handle is wrapped in a sdap_conn, and a simple bind with ldap_default_bind_dn /
 *      ldap_default_authtok is done when a bind DN is set, asynchronously with the
 *      ldap_opt_timeout; otherwise the connection stays anonymous.
 */
#include <assert.h>
#include <fcntl.h>
#include <netdb.h>
#include <openldap.h>
#include <sys/socket.h>
#include <unistd.h>

#include "util/util.h"
#include "util/sss_offloop.h"
#include "providers/ldap/sdap_private.h"
#include "providers/ldap/sdap_sasl.h"
#include "util/sss_metrics.h"

/* One TLS handshake, an offloop job (sss_offloop.h): the worker thread owns ld while it
 * runs; the loop reads the results when the subrequest is done; freeing the subrequest
 * drops the job (and the handle, if the loop did not take it back). */
struct tls_job {
    LDAP *ld;                   /* owned by the job */
    int sock;
    int lrc;                    /* ldap_install_tls() result */
    char *diag;                 /* LDAP_OPT_DIAGNOSTIC_MESSAGE after a failure */
    uint64_t usec;              /* how long the handshake took */
};

struct sdap_connect_state {
    struct tevent_context *ev;
    const struct sdap_options *opts;
    char *uri;
    bool ldaps;
    int fd;                     /* ours until libldap owns it, then -1 */
    int sock;                   /* the socket (libldap's since ldap_init_fd) */
    LDAP *ld;                   /* between ldap_init_fd and sdap_conn_create */
    struct sdap_io *io;         /* ld's write queue: lives and dies with ld */
    int starttls_msgid;
    struct tevent_req *tls;     /* handshake under way (its job: the results) */
    struct tls_job *job;
    struct tevent_fd *fde;
    struct tevent_timer *timer;
    struct sdap_conn *conn;
    uint64_t req_id;            /* the request that made us connect (probes) */
    int bind_result;            /* LDAP code of the bind; -1: none */
    bool probed_done;           /* ldap_connect_done fired */
};

static void sdap_connect_writable(struct tevent_context *ev, struct tevent_fd *fde,
                                  uint16_t flags, void *pvt);
static void sdap_connect_timeout(struct tevent_context *ev, struct tevent_timer *te,
                                 struct timeval now, void *pvt);
static errno_t sdap_connect_ldap(struct tevent_req *req);
static errno_t sdap_connect_starttls(struct tevent_req *req);
static errno_t sdap_connect_tls(struct tevent_req *req);
static errno_t sdap_connect_wrap(struct tevent_req *req);
static errno_t sdap_connect_bind(struct tevent_req *req);
static void sdap_connect_bind_done(struct tevent_req *subreq);
static void sdap_connect_sasl_done(struct tevent_req *subreq);
static int sdap_connect_state_destructor(struct sdap_connect_state *state)
{
    talloc_zfree(state->fde);
    talloc_zfree(state->timer);
    /* A handshake under way: the worker thread frees the handle when it ends. */
    talloc_zfree(state->tls);
    state->job = NULL;
    if (state->ld != NULL) {
        /* Closes the socket too: it belongs to the LDAP handle since ldap_init_fd(). */
        ldap_unbind_ext(state->ld, NULL, NULL);
        state->ld = NULL;
    }
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

/* sssd:ldap_connect_done, once, when the request ends (or is given up while under way).
 * result: 0, the bind's LDAP code when the server refused it, else -1 (socket, TLS,
 * timeout or local failure, or given up). */
static void sdap_connect_cleanup(struct tevent_req *req, enum tevent_req_state req_state)
{
    struct sdap_connect_state *state = tevent_req_data(req, struct sdap_connect_state);
    int result;

    if (state->probed_done) {
        return;
    }
    state->probed_done = true;
    if (req_state == TEVENT_REQ_DONE) {
        result = LDAP_SUCCESS;
    } else if (state->bind_result > 0) {
        result = state->bind_result;
    } else {
        result = -1;
    }
    PROBE(LDAP_CONNECT_DONE, state->req_id, state->uri != NULL ? state->uri : "", result);
}

/* The step under way waits for fd (flags) with handler, and for ldap_network_timeout at
 * most. */
static errno_t sdap_connect_wait(struct tevent_req *req, int fd, uint16_t flags,
                                 tevent_fd_handler_t handler)
{
    struct sdap_connect_state *state = tevent_req_data(req, struct sdap_connect_state);

    assert(state->fde == NULL && state->timer == NULL);
    state->fde = tevent_add_fd(state->ev, state, fd, flags, handler, req);
    state->timer = tevent_add_timer(state->ev, state,
                                    tevent_timeval_current_ofs(state->opts->network_timeout,
                                                               0),
                                    sdap_connect_timeout, req);
    if (state->fde == NULL || state->timer == NULL) {
        talloc_zfree(state->fde);
        talloc_zfree(state->timer);
        return ENOMEM;
    }
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
    state->req_id = sss_debug_req_id;
    state->bind_result = -1;
    talloc_set_destructor(state, sdap_connect_state_destructor);
    state->uri = talloc_strdup(state, uri);
    if (state->uri == NULL) {
        ret = ENOMEM;
        goto done;
    }
    PROBE(LDAP_CONNECT_START, state->req_id, state->uri);
    tevent_req_set_cleanup_fn(req, sdap_connect_cleanup);
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
    ret = sdap_connect_wait(req, state->fd, TEVENT_FD_READ | TEVENT_FD_WRITE,
                            sdap_connect_writable);
    if (ret != EOK) {
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
    const char *what;

    state->timer = NULL;
    if (state->job != NULL) {
        what = "TLS handshake";
    } else if (state->ld != NULL) {
        what = "StartTLS";
    } else {
        what = "connect";
    }
    DEBUG(SSSDBG_OP_FAILURE, "%s with %s: no answer within ldap_network_timeout (%d s)%s\n",
          what, state->uri, state->opts->network_timeout,
          state->job != NULL ? "; does the server speak TLS on this port?" : "");
    talloc_zfree(state->fde);
    /* The socket is shut down: the thread ends at once and frees the handle. */
    talloc_zfree(state->tls);
    state->job = NULL;
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

    /* fd handlers start under no request: this socket is the connecting request's. */
    SSS_REQ_ID_SCOPE(state->req_id);

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
        goto done;
    }
    if (state->ldaps) {
        ret = sdap_connect_tls(req);
    } else if (state->opts->start_tls) {
        ret = sdap_connect_starttls(req);
    } else {
        ret = sdap_connect_wrap(req);
    }
done:
    if (ret != EOK) {
        tevent_req_error(req, ret);
    }
}

/* Blocking with read and write timeouts (for the handshake thread), or non-blocking. */
static errno_t set_sock_blocking(int fd, bool blocking, int seconds)
{
    struct timeval tv = { .tv_sec = blocking ? seconds : 0, .tv_usec = 0 };
    int flags;

    flags = fcntl(fd, F_GETFL);
    if (flags < 0) {
        return errno;
    }
    flags = blocking ? flags & ~O_NONBLOCK : flags | O_NONBLOCK;
    if (fcntl(fd, F_SETFL, flags) != 0
            || setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) != 0
            || setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv)) != 0) {
        return errno;
    }
    return EOK;
}

/* Per-connection TLS context: the options on this handle first, then a new context built
 * from them (is_server = 0), which only this handle uses; nothing is set on libldap's
 * global defaults, so domains never see each other's settings. Options left unset keep
 * libldap's defaults (ldap.conf, LDAPTLS_*), as SSSD documents. */
static errno_t set_tls_options(struct sdap_connect_state *state, LDAP *ld)
{
    const struct sdap_options *opts = state->opts;
    int reqcert = opts->tls_reqcert;
    int newctx = 0;
    char *diag = NULL;
    int lrc;

    lrc = ldap_set_option(ld, LDAP_OPT_X_TLS_REQUIRE_CERT, &reqcert);
    if (lrc != LDAP_OPT_SUCCESS) {
        goto done;
    }
    if (opts->tls_cacert != NULL) {
        lrc = ldap_set_option(ld, LDAP_OPT_X_TLS_CACERTFILE, opts->tls_cacert);
        if (lrc != LDAP_OPT_SUCCESS) {
            goto done;
        }
    }
    if (opts->tls_cacertdir != NULL) {
        lrc = ldap_set_option(ld, LDAP_OPT_X_TLS_CACERTDIR, opts->tls_cacertdir);
        if (lrc != LDAP_OPT_SUCCESS) {
            goto done;
        }
    }
    /* A client certificate (SASL EXTERNAL, or servers that ask for one). */
    if (opts->tls_cert != NULL) {
        lrc = ldap_set_option(ld, LDAP_OPT_X_TLS_CERTFILE, opts->tls_cert);
        if (lrc != LDAP_OPT_SUCCESS) {
            goto done;
        }
    }
    if (opts->tls_key != NULL) {
        lrc = ldap_set_option(ld, LDAP_OPT_X_TLS_KEYFILE, opts->tls_key);
        if (lrc != LDAP_OPT_SUCCESS) {
            goto done;
        }
    }
    lrc = ldap_set_option(ld, LDAP_OPT_X_TLS_NEWCTX, &newctx);
done:
    if (lrc != LDAP_OPT_SUCCESS) {
        ldap_get_option(ld, LDAP_OPT_DIAGNOSTIC_MESSAGE, &diag);
        DEBUG(SSSDBG_CRIT_FAILURE, "cannot set up TLS for %s (ldap_tls_cacert '%s', "
              "ldap_tls_cacertdir '%s'): %s%s%s\n", state->uri,
              opts->tls_cacert != NULL ? opts->tls_cacert : "",
              opts->tls_cacertdir != NULL ? opts->tls_cacertdir : "", ldap_err2string(lrc),
              diag != NULL ? ": " : "", diag != NULL ? diag : "");
        ldap_memfree(diag);
        return EIO;
    }
    return EOK;
}

/* Everything but LDAP_OPT_NETWORK_TIMEOUT, which must not be set before the handshake:
 * with it, ldap_install_tls() makes the socket non-blocking and spins on it. */
static errno_t set_ldap_options(struct sdap_connect_state *state, LDAP *ld)
{
    struct timeval opt_tv = { .tv_sec = state->opts->opt_timeout };
    int version = LDAP_VERSION3;
    int lrc;

    lrc = ldap_set_option(ld, LDAP_OPT_PROTOCOL_VERSION, &version);
    if (lrc != LDAP_OPT_SUCCESS) {
        goto done;
    }
    lrc = ldap_set_option(ld, LDAP_OPT_REFERRALS, LDAP_OPT_OFF);
    if (lrc != LDAP_OPT_SUCCESS) {
        goto done;
    }
    lrc = ldap_set_option(ld, LDAP_OPT_TIMEOUT, &opt_tv);
    if (lrc == LDAP_OPT_SUCCESS && sdap_limit_incoming(ld) != EOK) {
        return EIO;
    }
done:
    if (lrc != LDAP_OPT_SUCCESS) {
        DEBUG(SSSDBG_CRIT_FAILURE, "cannot set LDAP options: %s\n", ldap_err2string(lrc));
        return EIO;
    }
    if (!state->ldaps && !state->opts->start_tls) {
        return EOK;
    }
    return set_tls_options(state, ld);
}

/* The socket is connected: hand it to libldap (state->ld). */
static errno_t sdap_connect_ldap(struct tevent_req *req)
{
    struct sdap_connect_state *state = tevent_req_data(req, struct sdap_connect_state);
    int lrc;
    errno_t ret;

    state->sock = state->fd;
    lrc = ldap_init_fd(state->fd, LDAP_PROTO_TCP, state->uri, &state->ld);
    if (lrc != LDAP_SUCCESS) {
        DEBUG(SSSDBG_CRIT_FAILURE, "ldap_init_fd failed: %s\n", ldap_err2string(lrc));
        return EIO;
    }
    state->fd = -1;     /* ldap_unbind_ext closes it from now on */
    ret = sdap_io_install(state->ld, &state->io);
    if (ret != EOK) {
        DEBUG(SSSDBG_CRIT_FAILURE, "cannot set up the write queue of %s: %s\n", state->uri,
              sss_strerror(ret));
        return ret;
    }
    return set_ldap_options(state, state->ld);
}

/* ---- StartTLS: one extended operation, answered on the loop ---------------------------- */

static void sdap_connect_starttls_readable(struct tevent_context *ev, struct tevent_fd *fde,
                                           uint16_t flags, void *pvt);

static errno_t sdap_connect_starttls(struct tevent_req *req)
{
    struct sdap_connect_state *state = tevent_req_data(req, struct sdap_connect_state);
    int lrc;

    lrc = ldap_start_tls(state->ld, NULL, NULL, &state->starttls_msgid);
    if (lrc != LDAP_SUCCESS) {
        DEBUG(SSSDBG_OP_FAILURE, "StartTLS to %s not sent: %s\n", state->uri,
              ldap_err2string(lrc));
        return EIO;
    }
    /* Writable too while the request still waits in the queue. */
    return sdap_connect_wait(req, state->sock,
                             TEVENT_FD_READ
                             | (sdap_io_pending(state->io) > 0 ? TEVENT_FD_WRITE : 0),
                             sdap_connect_starttls_readable);
}

static void sdap_connect_starttls_readable(struct tevent_context *ev, struct tevent_fd *fde,
                                           uint16_t flags, void *pvt)
{
    struct tevent_req *req = talloc_get_type_abort(pvt, struct tevent_req);
    struct sdap_connect_state *state = tevent_req_data(req, struct sdap_connect_state);
    struct timeval zero = { 0, 0 };
    LDAPMessage *msg = NULL;
    char *errmsg = NULL;
    int result = LDAP_OTHER;
    int lrc;
    int rc;
    errno_t ret;

    /* fd handlers start under no request: this socket is the connecting request's. */
    SSS_REQ_ID_SCOPE(state->req_id);

    if (flags & TEVENT_FD_WRITE) {
        ret = sdap_io_flush(state->io);
        if (ret != EOK) {
            DEBUG(SSSDBG_OP_FAILURE, "StartTLS to %s not sent: %s\n", state->uri,
                  strerror(ret));
            talloc_zfree(state->fde);
            talloc_zfree(state->timer);
            tevent_req_error(req, EIO);
            return;
        }
        if (sdap_io_pending(state->io) == 0) {
            TEVENT_FD_NOT_WRITEABLE(fde);
        }
        if (!(flags & TEVENT_FD_READ)) {
            return;
        }
    }
    rc = ldap_result(state->ld, state->starttls_msgid, LDAP_MSG_ALL, &zero, &msg);
    if (rc == 0) {
        return;     /* not the whole answer yet */
    }
    talloc_zfree(state->fde);
    talloc_zfree(state->timer);
    if (rc < 0) {
        lrc = LDAP_SERVER_DOWN;
        ldap_get_option(state->ld, LDAP_OPT_RESULT_CODE, &lrc);
        DEBUG(SSSDBG_OP_FAILURE, "StartTLS to %s: connection lost: %s\n", state->uri,
              ldap_err2string(lrc));
        tevent_req_error(req, EIO);
        return;
    }
    lrc = ldap_parse_result(state->ld, msg, &result, NULL, &errmsg, NULL, NULL, 1);
    if (lrc != LDAP_SUCCESS) {
        result = lrc;
    }
    sss_metric_ldap_op(state->uri, "starttls", result);
    if (result != LDAP_SUCCESS) {
        DEBUG(SSSDBG_OP_FAILURE, "StartTLS refused by %s: %s (%s); does the server have TLS "
              "configured?\n", state->uri, ldap_err2string(result),
              errmsg != NULL ? errmsg : "");
        ldap_memfree(errmsg);
        tevent_req_error(req, EIO);
        return;
    }
    ldap_memfree(errmsg);
    DEBUG(SSSDBG_TRACE_FUNC, "StartTLS accepted by %s\n", state->uri);
    ret = sdap_connect_tls(req);
    if (ret != EOK) {
        tevent_req_error(req, ret);
    }
}

/* ---- the TLS handshake, on a worker thread ----------------------------------------------- */

static void tls_job_drop(void *pvt)
{
    struct tls_job *job = pvt;

    if (job->ld != NULL) {
        ldap_unbind_ext(job->ld, NULL, NULL);
    }
    ldap_memfree(job->diag);
    free(job);
}

/* On an offloop worker thread: the handle is the job's meanwhile. */
static void tls_job_run(void *pvt)
{
    struct tls_job *job = pvt;
    uint64_t start = sss_monotonic_usec();

    job->lrc = ldap_install_tls(job->ld);
    if (job->lrc != LDAP_SUCCESS) {
        ldap_get_option(job->ld, LDAP_OPT_DIAGNOSTIC_MESSAGE, &job->diag);
    }
    job->usec = sss_monotonic_usec() - start;
}

/* On the loop, the job given up while it runs: its blocked read or write ends now rather
 * than at SO_RCVTIMEO. */
static void tls_job_hurry(void *pvt)
{
    struct tls_job *job = pvt;

    shutdown(job->sock, SHUT_RDWR);
}

static const struct sss_offloop_ops tls_job_ops = {
    .run = tls_job_run,
    .drop = tls_job_drop,
    .hurry = tls_job_hurry,
};

static void sdap_connect_tls_done(struct tevent_req *subreq);

/* Hands state->ld to a worker thread for ldap_install_tls(). */
static errno_t sdap_connect_tls(struct tevent_req *req)
{
    struct sdap_connect_state *state = tevent_req_data(req, struct sdap_connect_state);
    struct tls_job *job;
    errno_t ret;

    /* The StartTLS answer came, so its request left the queue: nothing waits there. */
    if (sdap_io_pending(state->io) > 0) {
        DEBUG(SSSDBG_CRIT_FAILURE, "TLS with %s: %zu bytes still unsent before the "
              "handshake\n", state->uri, sdap_io_pending(state->io));
        return EIO;
    }
    ret = set_sock_blocking(state->sock, true, state->opts->network_timeout);
    if (ret != EOK) {
        return ret;
    }
    sdap_io_set_queueing(state->io, false);
    job = calloc(1, sizeof(*job));
    if (job == NULL) {
        return ENOMEM;
    }
    job->sock = state->sock;
    assert(state->fde == NULL && state->timer == NULL);
    state->timer = tevent_add_timer(state->ev, state,
                                    tevent_timeval_current_ofs(state->opts->network_timeout,
                                                               0),
                                    sdap_connect_timeout, req);
    if (state->timer == NULL) {
        free(job);
        return ENOMEM;
    }
    DEBUG(SSSDBG_TRACE_FUNC, "TLS handshake with %s (ldap_tls_reqcert = %s)\n", state->uri,
          sdap_tls_reqcert_name(state->opts->tls_reqcert));
    job->ld = state->ld;
    state->tls = sss_offloop_send(state, state->ev, NULL, &tls_job_ops, job);
    if (state->tls == NULL) {
        talloc_zfree(state->timer);
        free(job);              /* state->ld is still state's */
        return ENOMEM;
    }
    tevent_req_set_callback(state->tls, sdap_connect_tls_done, req);
    state->ld = NULL;           /* the job's until it is done */
    state->job = job;
    return EOK;
}

static void sdap_connect_tls_done(struct tevent_req *subreq)
{
    struct tevent_req *req = tevent_req_callback_data(subreq, struct tevent_req);
    struct sdap_connect_state *state = tevent_req_data(req, struct sdap_connect_state);
    const struct sdap_options *opts = state->opts;
    struct tls_job *job = state->job;
    errno_t ret;

    SSS_REQ_ID_SCOPE(state->req_id);

    talloc_zfree(state->timer);
    ret = sss_offloop_recv(subreq);
    state->tls = NULL;
    state->job = NULL;
    if (ret != EOK) {
        DEBUG(SSSDBG_CRIT_FAILURE, "cannot run the TLS handshake: %s\n", strerror(ret));
        talloc_free(subreq);    /* drops the job and the handle with it */
        tevent_req_error(req, ret);
        return;
    }
    state->ld = job->ld;
    job->ld = NULL;
    if (job->lrc != LDAP_SUCCESS) {
        DEBUG(SSSDBG_OP_FAILURE, "TLS handshake with %s failed after %.3f s: %s (%s); "
              "ldap_tls_reqcert = %s, ldap_tls_cacert = '%s'%s\n", state->uri,
              job->usec / 1e6, ldap_err2string(job->lrc),
              job->diag != NULL && strcmp(job->diag, "(unknown error code)") != 0
                  ? job->diag : "libldap gives no details",
              sdap_tls_reqcert_name(opts->tls_reqcert),
              opts->tls_cacert != NULL ? opts->tls_cacert : "(libldap default)",
              opts->tls_reqcert == LDAP_OPT_X_TLS_DEMAND
                  || opts->tls_reqcert == LDAP_OPT_X_TLS_HARD
              ? ": is the server certificate signed by that CA, and does its name match "
                "the host of the URI?" : "");
        talloc_free(subreq);
        tevent_req_error(req, EIO);
        return;
    }
    DEBUG(SSSDBG_TRACE_FUNC, "TLS with %s established in %.3f s\n", state->uri,
          job->usec / 1e6);
    talloc_free(subreq);
    /* Back on the loop: non-blocking, writes queued. */
    ret = set_sock_blocking(state->sock, false, 0);
    if (ret != EOK) {
        tevent_req_error(req, ret);
        return;
    }
    sdap_io_set_queueing(state->io, true);
    ret = sdap_connect_wrap(req);
    if (ret != EOK) {
        tevent_req_error(req, ret);
    }
}

/* ---- the ready handle ------------------------------------------------------------------- */

/* state->ld becomes a sdap_conn; then the bind. */
static errno_t sdap_connect_wrap(struct tevent_req *req)
{
    struct sdap_connect_state *state = tevent_req_data(req, struct sdap_connect_state);
    struct timeval net_tv = { .tv_sec = state->opts->network_timeout };
    errno_t ret;

    ldap_set_option(state->ld, LDAP_OPT_NETWORK_TIMEOUT, &net_tv);
    ret = sdap_conn_create(state, state->ev, state->ld, state->sock, state->uri,
                           &state->conn);
    if (ret != EOK) {
        return ret;
    }
    state->ld = NULL;       /* the connection's now */
    sdap_conn_set_io(state->conn, state->io);
    state->io = NULL;
    return sdap_connect_bind(req);
}

static errno_t sdap_connect_bind(struct tevent_req *req)
{
    struct sdap_connect_state *state = tevent_req_data(req, struct sdap_connect_state);
    struct tevent_req *subreq;

    if (state->opts->sasl != NULL) {
        subreq = sdap_sasl_bind_send(state, state->ev, state->conn, state->opts->sasl,
                                     state->opts->opt_timeout);
        if (subreq == NULL) {
            return ENOMEM;
        }
        tevent_req_set_callback(subreq, sdap_connect_sasl_done, req);
        return EOK;
    }
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

    state->bind_result = sdap_bind_result(subreq);
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

static void sdap_connect_sasl_done(struct tevent_req *subreq)
{
    struct tevent_req *req = tevent_req_callback_data(subreq, struct tevent_req);
    struct sdap_connect_state *state = tevent_req_data(req, struct sdap_connect_state);
    errno_t ret;

    ret = sdap_sasl_bind_recv(subreq);
    talloc_free(subreq);
    state->bind_result = ret == EOK ? 0 : ret == EACCES ? LDAP_INVALID_CREDENTIALS : -1;
    if (ret != EOK) {
        tevent_req_error(req, ret);
        return;
    }
    DEBUG(SSSDBG_TRACE_FUNC, "connected to %s (SASL %s)\n", state->uri,
          sdap_sasl_name(state->opts->sasl));
    tevent_req_done(req);
}

errno_t sdap_connect_recv(TALLOC_CTX *mem_ctx, struct tevent_req *req,
                          struct sdap_conn **_conn)
{
    struct sdap_connect_state *state = tevent_req_data(req, struct sdap_connect_state);

    TEVENT_REQ_RETURN_ON_ERROR(req);
    *_conn = talloc_steal(mem_ctx, state->conn);
    state->conn = NULL;
    return EOK;
}
