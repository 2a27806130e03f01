/*
 * One LDAP connection on the tevent loop, carrying many operations at once.
 *
 * Operations are sent with libldap's asynchronous calls (ldap_search_ext, ldap_sasl_bind,
 * ...), which return a message id; the caller registers that id here (sdap_op_add) with a
 * callback and a timeout. One tevent fd watches the socket, which is non-blocking: when it
 * is readable the dispatcher reads once what the kernel holds into sdap_io.c's buffer,
 * loops over ldap_result(LDAP_RES_ANY, LDAP_MSG_ONE, zero timeout) while a layer of the
 * socket stack holds unparsed bytes, and hands each message to the operation waiting for
 * its id; a message still arriving (a slow server) waits for the next readable event,
 * never in a read. While the write queue (sdap_io.c) holds bytes the fd also watches for
 * writes and sends them. An operation that outlives its timeout is abandoned
 * (ldap_abandon_ext) and fails with ETIMEDOUT, unless the server has not sent a byte since
 * the operation was sent: then it is hung (stopped, or a dead link), and the connection
 * breaks. When the connection breaks every pending operation fails with EIO and the owner
 * is told (lost_fn) so it can fail over. Callbacks run inside the dispatcher, so requests
 * finished there defer their own callbacks (tevent_req_defer_callback) and nothing frees
 * the connection synchronously: the connection is reference counted and freed from a
 * tevent immediate.
 *
 * Also here: simple bind, the single-answer operation of connection set-up. (StartTLS and
 * the TLS handshake happen in sdap_connect.c, before the handle becomes a sdap_conn, so
 * that the handshake can run off the loop.)
 */
#include <assert.h>
#include <sys/socket.h>
#include <unistd.h>

#include "util/util.h"
#include "util/sss_metrics.h"
#include "providers/ldap/sdap_private.h"

struct sdap_op {
    struct sss_list link;       /* in conn->ops while registered */
    struct sdap_conn *conn;     /* NULL once unregistered */
    int msgid;
    uint64_t req_id;            /* of the request that sent it: its answer resumes under it */
    uint64_t sent_usec;         /* when it was registered */
    sdap_op_fn fn;
    void *pvt;
    struct tevent_timer *timer;
};

struct sdap_conn {
    struct tevent_context *ev;
    LDAP *ld;
    int fd;
    char *uri;
    struct tevent_fd *fde;
    struct sdap_io *io;         /* the handle's read buffer and write queue, or NULL */
    Sockbuf *sb;                /* the handle's socket stack, with io */
    struct tevent_immediate *im;
    struct sss_list ops;        /* pending operations, the newest first */
    size_t num_ops;
    unsigned int refs;
    bool broken;
    bool hung;                  /* broken because the server fell silent */
    uint64_t last_rx_usec;      /* when the socket was last readable (the server spoke) */
    sdap_conn_lost_fn lost_fn;
    void *lost_pvt;
};

static void op_unlink(struct sdap_op *op)
{
    struct sdap_conn *conn = op->conn;

    if (conn == NULL) {
        return;
    }
    assert(conn->num_ops > 0 && sss_list_is_linked(&op->link));
    sss_list_unlink(&op->link);
    op->conn = NULL;
    conn->num_ops--;
    talloc_zfree(op->timer);
}

/* Hands a message (or, msg NULL, an error) to op's owner under the owner's request id:
 * the answer resumes the request that sent the operation. */
static void op_deliver(struct sdap_op *op, LDAPMessage *msg, errno_t error)
{
    SSS_REQ_ID_SCOPE(op->req_id);

    op->fn(op->pvt, msg, error);
}

/* Unregisters op and reports error to its owner. */
static void op_fail(struct sdap_op *op, errno_t error)
{
    op_unlink(op);
    op_deliver(op, NULL, error);
}

/* conn is broken already, so no callback can register a new operation meanwhile. */
static void conn_fail_all(struct sdap_conn *conn, errno_t error)
{
    struct sdap_op *op;

    assert(conn->broken);
    while ((op = sss_list_first_entry(&conn->ops, struct sdap_op, link)) != NULL) {
        op_fail(op, error);
    }
    assert(conn->num_ops == 0);
}

static int conn_destructor(struct sdap_conn *conn)
{
    conn->broken = true;
    conn_fail_all(conn, ENOTCONN);
    talloc_zfree(conn->fde);
    if (conn->io != NULL) {
        /* The queue goes with the handle. */
        sdap_io_set_notify(conn->io, NULL, NULL);
        conn->io = NULL;
        conn->sb = NULL;
    }
    if (conn->ld != NULL) {
        /* Closes the socket too: it belongs to the LDAP handle since ldap_init_fd(). */
        ldap_unbind_ext(conn->ld, NULL, NULL);
        conn->ld = NULL;
    }
    return 0;
}

static void conn_break(struct sdap_conn *conn, errno_t error, bool notify)
{
    if (conn->broken) {
        return;
    }
    conn->broken = true;
    talloc_zfree(conn->fde);
    conn_fail_all(conn, error);
    if (notify && conn->lost_fn != NULL) {
        conn->lost_fn(conn, conn->lost_pvt, conn->hung ? ETIMEDOUT : error);
    }
}

static struct sdap_op *conn_find(struct sdap_conn *conn, int msgid)
{
    struct sdap_op *op;

    sss_list_for_each_entry(op, &conn->ops, link) {
        if (op->msgid == msgid) {
            return op;
        }
    }
    return NULL;
}

/* Whether to call ldap_result() again. Without the read buffer: always (it polls the
 * socket itself). With it: while some layer (ours, TLS, SASL) holds unparsed bytes; the
 * socket was read once for this wake-up, and a poll(0) per message would only say what the
 * layers know. */
static bool conn_more(struct sdap_conn *conn)
{
    return conn->sb == NULL || ber_sockbuf_ctrl(conn->sb, LBER_SB_OPT_DATA_READY, NULL) > 0;
}

/* Hands out every whole message the socket stack holds. False when the connection broke
 * (the server went away or said it would). */
static bool conn_parse(struct sdap_conn *conn)
{
    struct timeval zero = { 0, 0 };
    LDAPMessage *msg;
    struct sdap_op *op;
    size_t before;
    int lerr;
    int rc;

    while (conn_more(conn)) {
        msg = NULL;
        before = sdap_io_buffered(conn->io);
        rc = ldap_result(conn->ld, LDAP_RES_ANY, LDAP_MSG_ONE, &zero, &msg);
        if (rc == 0) {
            /* Nothing whole yet; but if libldap took bytes (a message it dropped, for an
             * abandoned id) without parsing the rest, no readable event would bring it
             * back to them. */
            if (conn->sb != NULL && sdap_io_buffered(conn->io) < before) {
                continue;
            }
            return true;
        }
        if (rc < 0) {
            lerr = LDAP_SERVER_DOWN;
            ldap_get_option(conn->ld, LDAP_OPT_RESULT_CODE, &lerr);
            DEBUG(SSSDBG_OP_FAILURE, "connection to %s lost: %s; %zu operation(s) fail\n",
                  conn->uri, ldap_err2string(lerr), conn->num_ops);
            conn_break(conn, EIO, true);
            return false;
        }
        if (ldap_msgid(msg) == 0 && rc == LDAP_RES_EXTENDED) {
            /* Unsolicited notification: the server is closing the connection. */
            DEBUG(SSSDBG_OP_FAILURE, "server %s sent a notice of disconnection\n",
                  conn->uri);
            ldap_msgfree(msg);
            conn_break(conn, EIO, true);
            return false;
        }
        op = conn_find(conn, ldap_msgid(msg));
        if (op == NULL) {
            DEBUG(SSSDBG_TRACE_ALL, "message for unknown id %d dropped\n", ldap_msgid(msg));
            ldap_msgfree(msg);
            continue;
        }
        op_deliver(op, msg, EOK);
    }
    return !conn->broken;
}

/* Reads per readable event at most: a big answer arriving faster than it is parsed does
 * not hold the loop for more than this many buffers (16 KiB each). */
#define SDAP_CONN_FILLS_PER_WAKE 8

static void conn_fd_handler(struct tevent_context *ev, struct tevent_fd *fde,
                            uint16_t flags, void *pvt)
{
    struct sdap_conn *conn = talloc_get_type_abort(pvt, struct sdap_conn);
    errno_t ret;
    int i;

    /* The handler goes with the connection's usability: conn_break() frees it. */
    assert(!conn->broken && conn->ld != NULL);
    if (flags & TEVENT_FD_READ) {
        conn->last_rx_usec = sss_monotonic_usec();
    }
    if (flags & TEVENT_FD_WRITE) {
        ret = sdap_io_flush(conn->io);

        if (ret != EOK) {
            DEBUG(SSSDBG_OP_FAILURE, "connection to %s lost while writing: %s; %zu "
                  "operation(s) fail\n", conn->uri, strerror(ret), conn->num_ops);
            conn_break(conn, EIO, true);
            return;
        }
        if (sdap_io_pending(conn->io) == 0) {
            TEVENT_FD_NOT_WRITEABLE(fde);
        }
        if (!(flags & TEVENT_FD_READ)) {
            return;
        }
    }
    if (conn->sb == NULL) {
        (void)conn_parse(conn);
        return;
    }
    /* A read that filled the buffer may have left more in the socket: read again now
     * rather than after another trip through the loop. */
    for (i = 0; i < SDAP_CONN_FILLS_PER_WAKE; i++) {
        if (sdap_io_fill(conn->io) == EAGAIN || !conn_parse(conn)
                || !sdap_io_filled_up(conn->io)) {
            return;
        }
    }
}

static void conn_free_handler(struct tevent_context *ev, struct tevent_immediate *im,
                              void *pvt)
{
    struct sdap_conn *conn = talloc_get_type_abort(pvt, struct sdap_conn);

    if (conn->refs == 0) {
        talloc_free(conn);
    }
}

errno_t sdap_conn_create(TALLOC_CTX *mem_ctx, struct tevent_context *ev, LDAP *ld,
                         int fd, const char *uri, struct sdap_conn **_conn)
{
    struct sdap_conn *conn;

    if (!SSS_ARG_VALID(ev != NULL) || !SSS_ARG_VALID(ld != NULL)
            || !SSS_ARG_VALID(fd >= 0) || !SSS_ARG_VALID(uri != NULL)
            || !SSS_ARG_VALID(_conn != NULL)) {
        return EINVAL;
    }
    conn = talloc_zero(mem_ctx, struct sdap_conn);
    if (conn == NULL) {
        return ENOMEM;
    }
    sss_list_init(&conn->ops);
    conn->ev = ev;
    conn->fd = fd;
    conn->refs = 1;
    conn->uri = talloc_strdup(conn, uri);
    conn->im = tevent_create_immediate(conn);
    conn->fde = tevent_add_fd(ev, conn, fd, TEVENT_FD_READ, conn_fd_handler, conn);
    if (conn->uri == NULL || conn->im == NULL || conn->fde == NULL) {
        talloc_free(conn);
        return ENOMEM;
    }
    /* From here on the LDAP handle (and the socket) belong to conn. */
    conn->ld = ld;
    talloc_set_destructor(conn, conn_destructor);
    *_conn = conn;
    return EOK;
}

void sdap_conn_set_lost_fn(struct sdap_conn *conn, sdap_conn_lost_fn fn, void *pvt)
{
    conn->lost_fn = fn;
    conn->lost_pvt = pvt;
}

/* Bytes wait in the write queue (called from inside libldap's write). */
static void conn_want_write(void *pvt)
{
    struct sdap_conn *conn = pvt;

    if (!conn->broken && conn->fde != NULL) {
        TEVENT_FD_WRITEABLE(conn->fde);
    }
}

void sdap_conn_set_io(struct sdap_conn *conn, struct sdap_io *io)
{
    conn->io = io;
    conn->sb = NULL;
    if (io == NULL) {
        return;
    }
    if (ldap_get_option(conn->ld, LDAP_OPT_SOCKBUF, &conn->sb) != LDAP_OPT_SUCCESS) {
        conn->sb = NULL;    /* then libldap polls and reads as it would without the buffer */
    }
    sdap_io_set_notify(io, conn_want_write, conn);
    if (sdap_io_pending(io) > 0) {
        conn_want_write(conn);
    }
}

size_t sdap_conn_pending(struct sdap_conn *conn)
{
    return conn != NULL ? sdap_io_pending(conn->io) : 0;
}

void sdap_conn_ref(struct sdap_conn *conn)
{
    conn->refs++;
}

void sdap_conn_unref(struct sdap_conn *conn)
{
    assert(conn->refs > 0);
    if (--conn->refs == 0) {
        tevent_schedule_immediate(conn->im, conn->ev, conn_free_handler, conn);
    }
}

LDAP *sdap_conn_ld(struct sdap_conn *conn)
{
    return conn->ld;
}

const char *sdap_conn_uri(struct sdap_conn *conn)
{
    return conn->uri;
}

bool sdap_conn_usable(struct sdap_conn *conn)
{
    return conn != NULL && !conn->broken && conn->ld != NULL;
}

size_t sdap_conn_num_ops(struct sdap_conn *conn)
{
    return conn->num_ops;
}

void sdap_conn_fail(struct sdap_conn *conn, errno_t error)
{
    conn_break(conn, error, false);
}

/* ---- operations ------------------------------------------------------------------- */

static void op_timeout(struct tevent_context *ev, struct tevent_timer *te,
                       struct timeval now, void *pvt)
{
    struct sdap_op *op = talloc_get_type_abort(pvt, struct sdap_op);
    struct sdap_conn *conn = op->conn;

    op->timer = NULL;   /* freed by tevent after this handler */
    if (conn != NULL && sdap_conn_usable(conn) && conn->last_rx_usec < op->sent_usec) {
        /* Not a byte from the server since the operation was sent: it is hung (stopped,
         * or a dead link that still holds the socket), not slow. Drop the connection so
         * that the server is marked bad and this and every pending operation move on
         * (EIO: the back-end retries on the next server), as SSSD does. */
        DEBUG(SSSDBG_OP_FAILURE, "operation %d on %s: no answer and not a byte from the "
              "server for %.1f s: the connection is dropped\n", op->msgid, conn->uri,
              (sss_monotonic_usec() - op->sent_usec) / 1e6);
        conn->hung = true;
        conn_break(conn, EIO, true);
        return;
    }
    DEBUG(SSSDBG_OP_FAILURE, "operation %d on %s timed out: abandoned\n", op->msgid,
          conn != NULL ? conn->uri : "(none)");
    if (conn != NULL && sdap_conn_usable(conn)) {
        ldap_abandon_ext(conn->ld, op->msgid, NULL, NULL);
    }
    op_fail(op, ETIMEDOUT);
}

static int op_destructor(struct sdap_op *op)
{
    if (op->conn != NULL) {
        /* The owner gave up on a pending operation: tell the server. */
        if (sdap_conn_usable(op->conn)) {
            ldap_abandon_ext(op->conn->ld, op->msgid, NULL, NULL);
        }
        op_unlink(op);
    }
    return 0;
}

errno_t sdap_op_add(TALLOC_CTX *mem_ctx, struct sdap_conn *conn, int msgid, int timeout,
                    sdap_op_fn fn, void *pvt, struct sdap_op **_op)
{
    struct sdap_op *op;

    if (!SSS_ARG_VALID(conn != NULL) || !SSS_ARG_VALID(fn != NULL)
            || !SSS_ARG_VALID(_op != NULL)) {
        return EINVAL;
    }
    if (!sdap_conn_usable(conn)) {
        return ENOTCONN;
    }
    op = talloc_zero(mem_ctx, struct sdap_op);
    if (op == NULL) {
        return ENOMEM;
    }
    op->msgid = msgid;
    op->req_id = sss_debug_req_id;
    op->sent_usec = sss_monotonic_usec();
    op->fn = fn;
    op->pvt = pvt;
    if (timeout > 0) {
        op->timer = tevent_add_timer(conn->ev, op,
                                     tevent_timeval_current_ofs(timeout, 0), op_timeout, op);
        if (op->timer == NULL) {
            talloc_free(op);
            return ENOMEM;
        }
    }
    op->conn = conn;
    sss_list_link_front(&conn->ops, &op->link);
    conn->num_ops++;
    talloc_set_destructor(op, op_destructor);
    *_op = op;
    return EOK;
}

void sdap_op_done(struct sdap_op *op)
{
    if (op != NULL) {
        op_unlink(op);
    }
}

/* ---- simple bind: one request, one result -------------------------------------------- */

struct sdap_bind_state {
    struct sdap_conn *conn;
    struct sdap_op *op;
    int result;                 /* LDAP result code; -1 when no answer came */
};

static void sdap_bind_msg(void *pvt, LDAPMessage *msg, errno_t error);

struct tevent_req *sdap_bind_send(TALLOC_CTX *mem_ctx, struct tevent_context *ev,
                                  struct sdap_conn *conn, const char *dn,
                                  const char *password, int timeout)
{
    struct sdap_bind_state *state;
    struct tevent_req *req;
    struct berval cred;
    int msgid = -1;
    int lrc;
    errno_t ret;

    req = tevent_req_create(mem_ctx, &state, struct sdap_bind_state);
    if (req == NULL) {
        return NULL;
    }
    tevent_req_defer_callback(req, ev);
    state->conn = conn;
    state->result = -1;
    if (!sdap_conn_usable(conn)) {
        ret = ENOTCONN;
        goto done;
    }
    cred.bv_val = discard_const_p(char, password != NULL ? password : "");
    cred.bv_len = strlen(cred.bv_val);
    lrc = ldap_sasl_bind(conn->ld, dn != NULL ? dn : "", LDAP_SASL_SIMPLE, &cred, NULL, NULL,
                         &msgid);
    if (lrc != LDAP_SUCCESS) {
        DEBUG(SSSDBG_OP_FAILURE, "bind to %s not sent: %s\n", conn->uri, ldap_err2string(lrc));
        sss_metric_ldap_op(conn->uri, "bind", lrc);
        ret = sdap_ldap_err(lrc) == ENOTCONN ? ENOTCONN : EIO;
        goto done;
    }
    ret = sdap_op_add(state, conn, msgid, timeout, sdap_bind_msg, req, &state->op);
    if (ret != EOK) {
        goto done;
    }
    return req;
done:
    return sss_req_post(req, ev, ret);
}

static void sdap_bind_msg(void *pvt, LDAPMessage *msg, errno_t error)
{
    struct tevent_req *req = talloc_get_type_abort(pvt, struct tevent_req);
    struct sdap_bind_state *state = tevent_req_data(req, struct sdap_bind_state);
    char *errmsg = NULL;
    int result = LDAP_OTHER;
    int lrc;

    if (msg == NULL) {
        sss_metric_ldap_op(state->conn->uri, "bind", -1);
        tevent_req_error(req, error);
        return;
    }
    sdap_op_done(state->op);
    lrc = ldap_parse_result(state->conn->ld, msg, &result, NULL, &errmsg, NULL, NULL, 1);
    if (lrc != LDAP_SUCCESS) {
        result = lrc;
    }
    sss_metric_ldap_op(state->conn->uri, "bind", result);
    state->result = result;
    if (result != LDAP_SUCCESS) {
        DEBUG(SSSDBG_OP_FAILURE, "bind to %s refused: %s (%s)\n", state->conn->uri,
              ldap_err2string(result), errmsg != NULL ? errmsg : "");
        ldap_memfree(errmsg);
        tevent_req_error(req, result == LDAP_INVALID_CREDENTIALS ? EACCES
                                                                  : sdap_ldap_err(result));
        return;
    }
    ldap_memfree(errmsg);
    DEBUG(SSSDBG_TRACE_FUNC, "bind to %s done\n", state->conn->uri);
    tevent_req_done(req);
}

int sdap_bind_result(struct tevent_req *req)
{
    struct sdap_bind_state *state = tevent_req_data(req, struct sdap_bind_state);

    return state->result;
}

errno_t sdap_bind_recv(struct tevent_req *req)
{
    TEVENT_REQ_RETURN_ON_ERROR(req);
    return EOK;
}
