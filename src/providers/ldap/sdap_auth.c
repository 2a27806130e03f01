/*
 * LDAP authentication and password change (sdap_auth.h). One request:
 *
 *   1. refuse at once what must never reach a server: no TLS configured (unless the
 *      administrator said ldap_auth_disable_tls_never_use_in_production), an empty
 *      password, a password holding a NUL;
 *   2. a connection: an idle one a previous request left (a bind resets a connection's
 *      identity, so reusing it saves a TCP and TLS handshake per login), else a new
 *      anonymous one through the failover list, with the domain's TLS settings;
 *   3. the simple bind as the user's DN with the password policy request control (the
 *      ppolicy overlay answers with expiry warnings, grace logins, "must change"); a
 *      reused connection that turns out to be dead is dropped and the bind is retried
 *      once on a new one;
 *   4. for a password change, the password-modify extended operation (RFC 3062) with the
 *      user's DN, the old and the new password, as that user;
 *   5. the connection is kept idle if still usable, at most SDAP_AUTH_IDLE_MAX of them:
 *      parallel logins each take one, so a single idle slot would have every login but
 *      one of a burst pay a new TCP and TLS handshake (on both sides).
 * The ppolicy response is turned into a PAM verdict by sdap_ppolicy.c; the caller decides
 * what it means for its command (a password change only needs the bind to succeed).
 */
#include <netinet/in.h>
#include <security/pam_appl.h>
#include <netinet/tcp.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

#include "util/util.h"
#include "confdb/confdb.h"
#include "providers/ldap/sdap_private.h"
#include "providers/ldap/sdap_auth.h"
#include "util/sss_metrics.h"

struct sdap_auth_ctx {
    struct sdap_id_ctx *id_ctx;
    struct sdap_options *conn_opts;     /* id_ctx's, without the lookup bind DN */
    bool tls;                           /* the password travels encrypted */
    bool tls_disabled_ok;               /* ldap_auth_disable_tls_never_use_in_production */
    struct sdap_auth_idle {
        struct sdap_conn *conn;
        int server;
    } idle[SDAP_AUTH_IDLE_MAX];         /* connections to reuse, the newest last */
    size_t n_idle;
    int64_t pwd_warning;                /* seconds (pwd_expiration_warning); <= 0: any */
    uint64_t connects;
    uint64_t binds;
};

static int sdap_auth_ctx_destructor(struct sdap_auth_ctx *actx)
{
    while (actx->n_idle > 0) {
        actx->n_idle--;
        sdap_conn_unref(actx->idle[actx->n_idle].conn);
        actx->idle[actx->n_idle].conn = NULL;
    }
    return 0;
}

/* Takes the newest usable idle connection (our reference), dropping dead ones on the way;
 * false when there is none. */
static bool sdap_auth_take_idle(struct sdap_auth_ctx *actx, struct sdap_conn **_conn,
                                int *_server)
{
    struct sdap_auth_idle *last;

    while (actx->n_idle > 0) {
        last = &actx->idle[--actx->n_idle];
        if (sdap_conn_usable(last->conn)) {
            *_conn = last->conn;
            *_server = last->server;
            last->conn = NULL;
            return true;
        }
        sdap_conn_unref(last->conn);
        last->conn = NULL;
    }
    return false;
}

errno_t sdap_auth_ctx_create(TALLOC_CTX *mem_ctx, struct confdb *cdb, const char *domain,
                             struct sdap_id_ctx *id_ctx, int64_t pwd_warning,
                             struct sdap_auth_ctx **_actx)
{
    struct sdap_auth_ctx *actx;
    char *section = NULL;
    size_t i;
    errno_t ret;

    SSS_CHECK_ARG(cdb != NULL && domain != NULL && id_ctx != NULL && _actx != NULL, EINVAL);
    actx = talloc_zero(mem_ctx, struct sdap_auth_ctx);
    if (actx == NULL) {
        return ENOMEM;
    }
    actx->id_ctx = id_ctx;
    actx->pwd_warning = pwd_warning;
    talloc_set_destructor(actx, sdap_auth_ctx_destructor);
    actx->conn_opts = talloc_memdup(actx, id_ctx->opts, sizeof(*id_ctx->opts));
    section = talloc_asprintf(actx, "domain/%s", domain);
    if (actx->conn_opts == NULL || section == NULL) {
        ret = ENOMEM;
        goto done;
    }
    /* Anonymous until the user's own bind: never the lookup identity. */
    actx->conn_opts->bind_dn = NULL;
    actx->conn_opts->authtok = NULL;
    ret = confdb_get_bool(cdb, section, "ldap_auth_disable_tls_never_use_in_production",
                          &actx->tls_disabled_ok);
    if (ret != EOK) {
        goto done;
    }
    actx->tls = id_ctx->opts->start_tls;
    if (!actx->tls && id_ctx->opts->num_uris > 0) {
        actx->tls = true;
        for (i = 0; i < id_ctx->opts->num_uris; i++) {
            if (strncasecmp(id_ctx->opts->uris[i], "ldaps://", 8) != 0) {
                actx->tls = false;
            }
        }
    }
    if (!actx->tls) {
        DEBUG(actx->tls_disabled_ok ? SSSDBG_IMPORTANT_INFO : SSSDBG_CRIT_FAILURE,
              "Domain %s: LDAP authentication without TLS (no ldaps:// and no "
              "ldap_id_use_start_tls) %s\n", domain, actx->tls_disabled_ok
              ? "ALLOWED by ldap_auth_disable_tls_never_use_in_production: passwords "
                "cross the network in clear text"
              : "is refused: every authentication will fail");
    }
    ret = EOK;
done:
    talloc_free(section);
    if (ret != EOK) {
        talloc_free(actx);
        return ret;
    }
    *_actx = actx;
    return EOK;
}

struct sdap_id_ctx *sdap_auth_id_ctx(struct sdap_auth_ctx *actx)
{
    return actx->id_ctx;
}

void sdap_auth_get_counts(struct sdap_auth_ctx *actx, uint64_t *_connects, uint64_t *_binds)
{
    *_connects = actx != NULL ? actx->connects : 0;
    *_binds = actx != NULL ? actx->binds : 0;
}

/* ---- the request -------------------------------------------------------------------- */

struct sdap_auth_state {
    struct tevent_context *ev;
    struct sdap_auth_ctx *actx;
    char *dn;
    char *pw;                   /* NUL-terminated copies, wiped on free */
    char *new_pw;
    struct sdap_conn *conn;     /* referenced while we hold it */
    int server;
    bool reused;
    struct sdap_op *op;
    char *msg;                  /* the server's diagnostic text */
    struct sdap_ppolicy_verdict pp; /* of the bind */
};

static int sdap_auth_wipe(char *s)
{
    explicit_bzero(s, talloc_get_size(s));
    return 0;
}

static int sdap_auth_state_destructor(struct sdap_auth_state *state)
{
    if (state->conn != NULL) {
        sdap_conn_unref(state->conn);
        state->conn = NULL;
    }
    return 0;
}

/* A NUL-terminated, wiped-on-free copy; EACCES for an empty password or one with a NUL. */
static errno_t sdap_auth_pw_copy(TALLOC_CTX *mem_ctx, const uint8_t *pw, size_t len,
                                 char **_copy)
{
    char *copy;

    if (pw == NULL || len == 0 || memchr(pw, '\0', len) != NULL) {
        return EACCES;
    }
    copy = talloc_size(mem_ctx, len + 1);
    if (copy == NULL) {
        return ENOMEM;
    }
    talloc_set_destructor(copy, sdap_auth_wipe);
    memcpy(copy, pw, len);
    copy[len] = '\0';
    *_copy = copy;
    return EOK;
}

static errno_t sdap_auth_connect(struct tevent_req *req, size_t start);
static void sdap_auth_connect_done(struct tevent_req *subreq);
static errno_t sdap_auth_bind(struct tevent_req *req);
static void sdap_auth_bind_msg(void *pvt, LDAPMessage *msg, errno_t error);
static void sdap_auth_bind_done(struct tevent_req *req, errno_t ret);
static errno_t sdap_auth_passwd(struct tevent_req *req);
static void sdap_auth_passwd_msg(void *pvt, LDAPMessage *msg, errno_t error);
static void sdap_auth_keep(struct sdap_auth_state *state);

struct tevent_req *sdap_auth_send(TALLOC_CTX *mem_ctx, struct tevent_context *ev,
                                  struct sdap_auth_ctx *actx, const char *dn,
                                  const uint8_t *pw, size_t len,
                                  const uint8_t *new_pw, size_t new_len)
{
    struct sdap_auth_state *state;
    struct tevent_req *req;
    errno_t ret;

    req = tevent_req_create(mem_ctx, &state, struct sdap_auth_state);
    if (req == NULL) {
        return NULL;
    }
    if (ev == NULL || actx == NULL || dn == NULL || dn[0] == '\0') {
        (void)sss_arg_invalid(__func__, "ev, actx, dn");
        return sdap_req_invalid(req, ev);
    }
    state->ev = ev;
    state->actx = actx;
    state->server = -1;
    state->pp.pam_status = PAM_AUTH_ERR;     /* until a bind says otherwise */
    talloc_set_destructor(state, sdap_auth_state_destructor);
    if (!actx->tls && !actx->tls_disabled_ok) {
        DEBUG(SSSDBG_OP_FAILURE, "authentication of '%s' refused: no TLS to the server (set "
              "ldap_id_use_start_tls or use ldaps://)\n", dn);
        ret = ERR_INVALID_CONFIG;
        goto done;
    }
    state->dn = talloc_strdup(state, dn);
    if (state->dn == NULL) {
        ret = ENOMEM;
        goto done;
    }
    ret = sdap_auth_pw_copy(state, pw, len, &state->pw);
    if (ret == EACCES) {
        DEBUG(SSSDBG_TRACE_FUNC, "authentication of '%s' refused: empty password or one "
              "holding a NUL\n", dn);
    }
    if (ret == EOK && new_pw != NULL) {
        ret = sdap_auth_pw_copy(state, new_pw, new_len, &state->new_pw);
        if (ret == EACCES) {
            DEBUG(SSSDBG_OP_FAILURE, "password change of '%s' refused: the new password "
                  "is empty or holds a NUL\n", dn);
            ret = EPERM;
        }
    }
    if (ret != EOK) {
        goto done;
    }
    if (sdap_auth_take_idle(actx, &state->conn, &state->server)) {
        state->reused = true;
        ret = sdap_auth_bind(req);
    } else {
        ret = sdap_auth_connect(req, 0);
    }
    if (ret != EOK) {
        goto done;
    }
    return req;
done:
    return sss_req_post(req, ev, ret);
}

/* The next server at or after start that is not marked bad. */
static errno_t sdap_auth_connect(struct tevent_req *req, size_t start)
{
    struct sdap_auth_state *state = tevent_req_data(req, struct sdap_auth_state);
    struct sdap_id_ctx *id_ctx = state->actx->id_ctx;
    struct tevent_req *subreq;
    int idx;

    idx = sdap_fo_next(id_ctx->fo, start, time(NULL));
    if (idx < 0) {
        DEBUG(SSSDBG_OP_FAILURE, "no LDAP server reachable for authentication\n");
        return ENETUNREACH;
    }
    state->server = idx;
    subreq = sdap_connect_send(state, state->ev, state->actx->conn_opts,
                               sdap_fo_uri(id_ctx->fo, idx));
    if (subreq == NULL) {
        return ENOMEM;
    }
    tevent_req_set_callback(subreq, sdap_auth_connect_done, req);
    return EOK;
}

static void sdap_auth_connect_done(struct tevent_req *subreq)
{
    struct tevent_req *req = tevent_req_callback_data(subreq, struct tevent_req);
    struct sdap_auth_state *state = tevent_req_data(req, struct sdap_auth_state);
    struct sdap_fo *fo = state->actx->id_ctx->fo;
    errno_t ret;

    ret = sdap_connect_recv(state, subreq, &state->conn);
    talloc_free(subreq);
    if (ret == ENOMEM) {
        tevent_req_error(req, ret);
        return;
    }
    if (ret != EOK) {
        DEBUG(SSSDBG_OP_FAILURE, "authentication connection to %s failed: %s\n",
              sdap_fo_uri(fo, state->server), sss_strerror(ret));
        sdap_fo_mark_bad(fo, state->server, time(NULL));
        sdap_req_step(req, sdap_auth_connect(req, state->server + 1));
        return;
    }
    /* The bind follows the TLS handshake's last flight at once: with Nagle on, it waits
     * for that flight's ACK, which the server delays (40 ms here). Measured: the first
     * login's bind went from 42 ms to under 1 ms. */
    {
        int fd = -1;
        int one = 1;

        if (ldap_get_option(sdap_conn_ld(state->conn), LDAP_OPT_DESC, &fd) == LDAP_OPT_SUCCESS
                && fd >= 0) {
            (void)setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
        }
    }
    /* Its lifetime follows its references, not this request: it may become the idle one. */
    talloc_steal(state->actx, state->conn);
    sdap_fo_mark_good(fo, state->server);
    state->actx->connects++;
    ret = sdap_auth_bind(req);
    if (ret != EOK) {
        tevent_req_error(req, ret);
    }
}

/* The user's simple bind, with the password policy request control. */
static errno_t sdap_auth_bind(struct tevent_req *req)
{
    struct sdap_auth_state *state = tevent_req_data(req, struct sdap_auth_state);
    LDAPControl *ctrl = NULL;
    LDAPControl *ctrls[2] = { NULL, NULL };
    struct berval cred;
    int msgid = -1;
    int lrc;
    errno_t ret;

    state->actx->binds++;
    DEBUG(SSSDBG_TRACE_FUNC, "binding as '%s' on %s (%s connection)\n", state->dn,
          sdap_conn_uri(state->conn), state->reused ? "reused" : "new");
    if (!sdap_conn_usable(state->conn)) {
        sdap_auth_bind_done(req, ENOTCONN);
        return EOK;
    }
    ret = sdap_ppolicy_request_control(&ctrl);
    if (ret != EOK) {
        return ret;
    }
    ctrls[0] = ctrl;
    cred.bv_val = state->pw;
    cred.bv_len = strlen(state->pw);
    lrc = ldap_sasl_bind(sdap_conn_ld(state->conn), state->dn, LDAP_SASL_SIMPLE, &cred, ctrls,
                         NULL, &msgid);
    ldap_control_free(ctrl);
    if (lrc != LDAP_SUCCESS) {
        DEBUG(SSSDBG_OP_FAILURE, "bind as '%s' not sent: %s\n", state->dn,
              ldap_err2string(lrc));
        sdap_auth_bind_done(req, sdap_ldap_err(lrc) == ENOTCONN ? ENOTCONN : EIO);
        return EOK;
    }
    return sdap_op_add(state, state->conn, msgid, state->actx->conn_opts->opt_timeout,
                       sdap_auth_bind_msg, req, &state->op);
}

/* The bind's answer: its code, and the ppolicy response control when the server sent one. */
static void sdap_auth_bind_msg(void *pvt, LDAPMessage *msg, errno_t error)
{
    struct tevent_req *req = talloc_get_type_abort(pvt, struct tevent_req);
    struct sdap_auth_state *state = tevent_req_data(req, struct sdap_auth_state);
    LDAP *ld = sdap_conn_ld(state->conn);
    LDAPControl **ctrls = NULL;
    struct sdap_ppolicy pp;
    char *errmsg = NULL;
    int result = LDAP_OTHER;
    int lrc;
    errno_t ret;

    tevent_req_defer_callback(req, state->ev);
    if (msg == NULL) {
        sdap_auth_bind_done(req, error);
        return;
    }
    sdap_op_done(state->op);
    state->op = NULL;
    lrc = ldap_parse_result(ld, msg, &result, NULL, &errmsg, NULL, &ctrls, 1);
    if (lrc != LDAP_SUCCESS) {
        result = lrc;
    }
    sss_metric_ldap_op(sdap_conn_uri(state->conn), "user_bind", result);
    if (result != LDAP_SUCCESS) {
        DEBUG(SSSDBG_TRACE_FUNC, "bind as '%s' refused: %s (%s)\n", state->dn,
              ldap_err2string(result), errmsg != NULL ? errmsg : "");
    }
    /* Active Directory refuses a locked account's bind as invalid credentials with "data
     * 775," in the diagnostic text (its ERROR_ACCOUNT_LOCKED_OUT); SSSD reports it as a
     * locked account. */
    if (result == LDAP_INVALID_CREDENTIALS && errmsg != NULL
            && strstr(errmsg, "data 775,") != NULL) {
        ldap_memfree(errmsg);
        ldap_controls_free(ctrls);
        sdap_auth_bind_done(req, EKEYREVOKED);
        return;
    }
    ldap_memfree(errmsg);
    if (result != LDAP_SUCCESS && result != LDAP_INVALID_CREDENTIALS) {
        ldap_controls_free(ctrls);
        sdap_auth_bind_done(req, sdap_ldap_err(result));
        return;
    }
    /* A malformed control is not trusted: the bind's own code decides, without extras. */
    ret = sdap_ppolicy_parse(ld, ctrls, &pp);
    ldap_controls_free(ctrls);
    if (ret != EOK) {
        pp = (struct sdap_ppolicy){ .present = false, .expire = -1, .grace = -1 };
    }
    ret = sdap_ppolicy_bind_verdict(result, &pp, state->actx->pwd_warning, &state->pp);
    if (ret != EOK) {
        sdap_auth_bind_done(req, ret);
        return;
    }
    sdap_auth_bind_done(req, result == LDAP_SUCCESS ? EOK : EACCES);
}

static void sdap_auth_bind_done(struct tevent_req *req, errno_t ret)
{
    struct sdap_auth_state *state = tevent_req_data(req, struct sdap_auth_state);

    if ((ret == EIO || ret == ENOTCONN || ret == ETIMEDOUT) && state->reused) {
        /* The kept connection died while idle (server restart, idle timeout). */
        DEBUG(SSSDBG_TRACE_FUNC, "the kept connection is gone (%s): a new one\n",
              sss_strerror(ret));
        sdap_conn_unref(state->conn);
        state->conn = NULL;
        state->reused = false;
        sdap_req_step(req, sdap_auth_connect(req, 0));
        return;
    }
    if (ret != EOK) {
        DEBUG(SSSDBG_TRACE_FUNC, "bind as '%s' failed: %s\n", state->dn, sss_strerror(ret));
        if (ret == EACCES || ret == EKEYREVOKED) {
            sdap_auth_keep(state);      /* a refused bind leaves it anonymous and usable */
        }
        tevent_req_error(req, ret);
        return;
    }
    if (state->new_pw == NULL) {
        sdap_auth_keep(state);
        tevent_req_done(req);
        return;
    }
    ret = sdap_auth_passwd(req);
    if (ret != EOK) {
        tevent_req_error(req, ret);
    }
}

static errno_t sdap_auth_passwd(struct tevent_req *req)
{
    struct sdap_auth_state *state = tevent_req_data(req, struct sdap_auth_state);
    struct berval user = { .bv_val = state->dn, .bv_len = strlen(state->dn) };
    struct berval oldpw = { .bv_val = state->pw, .bv_len = strlen(state->pw) };
    struct berval newpw = { .bv_val = state->new_pw, .bv_len = strlen(state->new_pw) };
    int msgid = -1;
    int lrc;

    lrc = ldap_passwd(sdap_conn_ld(state->conn), &user, &oldpw, &newpw, NULL, NULL, &msgid);
    if (lrc != LDAP_SUCCESS) {
        DEBUG(SSSDBG_OP_FAILURE, "password modify for '%s' not sent: %s\n", state->dn,
              ldap_err2string(lrc));
        return sdap_ldap_err(lrc) == ENOTCONN ? ENOTCONN : EIO;
    }
    return sdap_op_add(state, state->conn, msgid, state->actx->conn_opts->opt_timeout,
                       sdap_auth_passwd_msg, req, &state->op);
}

static void sdap_auth_passwd_msg(void *pvt, LDAPMessage *msg, errno_t error)
{
    struct tevent_req *req = talloc_get_type_abort(pvt, struct tevent_req);
    struct sdap_auth_state *state = tevent_req_data(req, struct sdap_auth_state);
    char *errmsg = NULL;
    int result = LDAP_OTHER;
    int lrc;

    tevent_req_defer_callback(req, state->ev);
    if (msg == NULL) {
        tevent_req_error(req, error);
        return;
    }
    sdap_op_done(state->op);
    lrc = ldap_parse_result(sdap_conn_ld(state->conn), msg, &result, NULL, &errmsg, NULL,
                            NULL, 1);
    if (lrc != LDAP_SUCCESS) {
        result = lrc;
    }
    sss_metric_ldap_op(sdap_conn_uri(state->conn), "passwd_modify", result);
    if (result != LDAP_SUCCESS) {
        DEBUG(SSSDBG_OP_FAILURE, "password change of '%s' refused: %s (%s)\n", state->dn,
              ldap_err2string(result), errmsg != NULL ? errmsg : "");
        if (errmsg != NULL && errmsg[0] != '\0') {
            state->msg = talloc_strdup(state, errmsg);
        }
        ldap_memfree(errmsg);
        sdap_auth_keep(state);
        tevent_req_error(req, EPERM);
        return;
    }
    ldap_memfree(errmsg);
    DEBUG(SSSDBG_TRACE_FUNC, "password of '%s' changed\n", state->dn);
    sdap_auth_keep(state);
    tevent_req_done(req);
}

/* Hands our connection back to the idle ones when it is still good and there is room. */
static void sdap_auth_keep(struct sdap_auth_state *state)
{
    struct sdap_auth_ctx *actx = state->actx;

    if (state->conn == NULL || !sdap_conn_usable(state->conn)
            || actx->n_idle >= SDAP_AUTH_IDLE_MAX) {
        return;     /* the destructor drops our reference */
    }
    actx->idle[actx->n_idle].conn = state->conn;
    actx->idle[actx->n_idle].server = state->server;
    actx->n_idle++;
    state->conn = NULL;
}

errno_t sdap_auth_recv(TALLOC_CTX *mem_ctx, struct tevent_req *req, char **_msg,
                       struct sdap_ppolicy_verdict *_pp)
{
    struct sdap_auth_state *state = tevent_req_data(req, struct sdap_auth_state);
    enum tevent_req_state tstate;
    uint64_t err;

    if (_pp != NULL) {
        *_pp = state->pp;
    }
    if (_msg != NULL) {
        *_msg = state->msg != NULL ? talloc_steal(mem_ctx, state->msg) : NULL;
        state->msg = NULL;
    }
    if (tevent_req_is_error(req, &tstate, &err)) {
        return tstate == TEVENT_REQ_USER_ERROR ? (errno_t)err : EIO;
    }
    return EOK;
}
