/*
 * SASL binds of the LDAP provider (sdap_sasl.h).
 *
 * GSSAPI: with ldap_krb5_init_creds (the default) the back-end's principal
 * (ldap_sasl_authid, default host/<hostname>, in ldap_sasl_realm, default krb5_realm) gets
 * a TGT from ldap_krb5_keytab in krb5_child (never in this process: the AS-REQ blocks), of
 * ldap_krb5_ticket_lifetime seconds, together with the service ticket ldap/<server host>
 * of the server the connection goes to; both go to a private ccache,
 * <db path>/ccache_<domain> (root's, 0600), which KRB5CCNAME points at. A new TGT is asked
 * for when a connection is made past half the old one's life, or to another server, and
 * by a timer at half its life while the back-end runs (sdap_sasl_renew_*): the ccache
 * never holds only an expired ticket, however long a connection lives. The
 * bind is ldap_sasl_interactive_bind, one step per server answer from the event loop; the
 * GSSAPI mechanism finds both tickets in the ccache and asks no KDC. Host names are not
 * canonicalized (LDAP_OPT_X_SASL_NOCANON: no reverse DNS lookup blocks the loop).
 */
#include <assert.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include <ldap.h>

#include "providers/ldap/sdap_private.h"
#include "providers/ldap/sdap_sasl.h"
#include "providers/krb5/krb5_child_client.h"
#include "confdb/confdb.h"

/* Cyrus SASL's interaction record and callback ids (sasl/sasl.h, a stable ABI). */
struct sdap_sasl_interact {
    unsigned long id;
    const char *challenge;
    const char *prompt;
    const char *defresult;
    const void *result;
    unsigned len;
};
#define SDAP_SASL_CB_LIST_END 0
#define SDAP_SASL_CB_USER 0x4001
#define SDAP_SASL_CB_AUTHNAME 0x4002
#define SDAP_SASL_CB_GETREALM 0x4008

struct sdap_sasl {
    char *mech;
    char *authid;               /* the keytab principal (GSSAPI), with its realm */
    char *realm;
    char *keytab;               /* "" : the default keytab */
    bool init_creds;
    int lifetime;
    int maxssf;                 /* -1: libldap's default */
    char *ccname;
    char *name;                 /* for the logs */
    struct krb5_child_cfg *child;
    time_t tgt_start;           /* of the tickets in ccname; 0: none yet */
    time_t tgt_end;
    char *svc_host;             /* the server the service ticket is for */
    struct tevent_context *ev;  /* of the first bind: the renewal timer runs there */
    struct tevent_timer *renew_te;
    struct tevent_req *renew_req;   /* a renewal child running */
};

/* Retry of a failed renewal (KDC unreachable): this soon, while the ticket lives. */
#define SDAP_SASL_RENEW_RETRY 10

static errno_t sdap_sasl_read_gssapi(struct sdap_sasl *sasl, struct confdb *cdb,
                                     const char *domain, const char *section)
{
    char host[256];
    char *s = NULL;
    errno_t ret;

    ret = confdb_get_string(cdb, sasl, section, "ldap_sasl_realm", &sasl->realm);
    if (ret == EOK && sasl->realm == NULL) {
        ret = confdb_get_string(cdb, sasl, section, "krb5_realm", &sasl->realm);
    }
    if (ret == EOK) {
        ret = confdb_get_string(cdb, sasl, section, "ldap_sasl_authid", &sasl->authid);
    }
    if (ret == EOK) {
        ret = confdb_get_string(cdb, sasl, section, "ldap_krb5_keytab", &sasl->keytab);
    }
    if (ret == EOK && !confdb_is_set(cdb, section, "ldap_krb5_keytab")) {
        talloc_zfree(sasl->keytab);
        if (confdb_is_set(cdb, section, "krb5_keytab")) {
            ret = confdb_get_string(cdb, sasl, section, "krb5_keytab", &sasl->keytab);
        }
    }
    if (ret == EOK) {
        ret = confdb_get_bool(cdb, section, "ldap_krb5_init_creds", &sasl->init_creds);
    }
    if (ret == EOK) {
        ret = confdb_get_int(cdb, section, "ldap_krb5_ticket_lifetime", &sasl->lifetime);
    }
    if (ret != EOK) {
        return ret;
    }
    if (sasl->realm == NULL || sasl->realm[0] == '\0') {
        DEBUG(SSSDBG_CRIT_FAILURE, "[%s] ldap_sasl_mech = GSSAPI needs ldap_sasl_realm or "
              "krb5_realm\n", section);
        return ERR_INVALID_CONFIG;
    }
    if (sasl->authid == NULL) {
        if (gethostname(host, sizeof(host)) != 0) {
            return errno;
        }
        host[sizeof(host) - 1] = '\0';
        sasl->authid = talloc_asprintf(sasl, "host/%s", host);
    }
    if (sasl->authid != NULL && strchr(sasl->authid, '@') == NULL) {
        s = talloc_asprintf(sasl, "%s@%s", sasl->authid, sasl->realm);
        talloc_free(sasl->authid);
        sasl->authid = s;
    }
    if (sasl->keytab == NULL) {
        sasl->keytab = talloc_strdup(sasl, "");
    }
    sasl->ccname = talloc_asprintf(sasl, "FILE:%s/ccache_%s", SSSD_DB_PATH, domain);
    if (sasl->authid == NULL || sasl->keytab == NULL || sasl->ccname == NULL) {
        return ENOMEM;
    }
    if (sasl->init_creds) {
        /* This process's GSSAPI reads the tickets the child writes there. */
        if (setenv("KRB5CCNAME", sasl->ccname, 1) != 0) {
            return errno;
        }
        ret = krb5_child_cfg_create(sasl, cdb, domain, section, sasl->realm, SSSD_STATE_DIR,
                                    6, &sasl->child);
    }
    return ret;
}

errno_t sdap_sasl_read(TALLOC_CTX *mem_ctx, struct confdb *cdb, const char *domain,
                       const char *section, struct sdap_sasl **_sasl)
{
    struct sdap_sasl *sasl;
    errno_t ret;

    SSS_CHECK_ARG(cdb != NULL && domain != NULL && section != NULL && _sasl != NULL, EINVAL);
    *_sasl = NULL;
    sasl = talloc_zero(mem_ctx, struct sdap_sasl);
    if (sasl == NULL) {
        return ENOMEM;
    }
    ret = confdb_get_string(cdb, sasl, section, "ldap_sasl_mech", &sasl->mech);
    if (ret != EOK || sasl->mech == NULL || sasl->mech[0] == '\0') {
        talloc_free(sasl);
        return ret;
    }
    ret = confdb_get_int(cdb, section, "ldap_sasl_maxssf", &sasl->maxssf);
    if (ret != EOK) {
        goto done;
    }
    if (strcasecmp(sasl->mech, "GSSAPI") == 0 || strcasecmp(sasl->mech, "GSS-SPNEGO") == 0) {
        ret = sdap_sasl_read_gssapi(sasl, cdb, domain, section);
    } else if (strcasecmp(sasl->mech, "EXTERNAL") == 0) {
        ret = confdb_get_string(cdb, sasl, section, "ldap_sasl_authid", &sasl->authid);
    } else {
        DEBUG(SSSDBG_CRIT_FAILURE, "[%s] ldap_sasl_mech = %s: only GSSAPI, GSS-SPNEGO and "
              "EXTERNAL are supported\n", section, sasl->mech);
        ret = ERR_INVALID_CONFIG;
    }
    if (ret != EOK) {
        goto done;
    }
    sasl->name = talloc_asprintf(sasl, "%s as %s", sasl->mech,
                                 sasl->authid != NULL ? sasl->authid : "(the certificate)");
    if (sasl->name == NULL) {
        ret = ENOMEM;
        goto done;
    }
    DEBUG(SSSDBG_CONF_SETTINGS, "[%s] SASL bind: %s, ccache %s, keytab %s\n", section,
          sasl->name, sasl->ccname != NULL ? sasl->ccname : "-",
          sasl->keytab != NULL && sasl->keytab[0] != '\0' ? sasl->keytab : "(default)");
    *_sasl = sasl;
    sasl = NULL;
done:
    talloc_free(sasl);
    return ret;
}

const char *sdap_sasl_name(const struct sdap_sasl *sasl)
{
    return sasl != NULL && sasl->name != NULL ? sasl->name : "";
}

/* ---- the bind ----------------------------------------------------------------------- */

struct sdap_sasl_bind_state {
    struct tevent_context *ev;
    struct sdap_conn *conn;
    struct sdap_sasl *sasl;
    int timeout;
    char *host;
    struct sdap_op *op;
    const char *rmech;          /* libldap's: the mechanism chosen, kept between steps */
};

static int sdap_sasl_interact(LDAP *ld, unsigned flags, void *defaults, void *in)
{
    struct sdap_sasl_interact *it;

    (void)ld;
    (void)flags;
    (void)defaults;
    /* GSSAPI asks at most for an authorization id: none (the principal's own). */
    for (it = in; it->id != SDAP_SASL_CB_LIST_END; it++) {
        it->result = it->defresult != NULL ? it->defresult : "";
        it->len = (unsigned)strlen(it->result);
    }
    return LDAP_SUCCESS;
}

static void sdap_sasl_tgt_done(struct tevent_req *subreq);
static struct tevent_req *sdap_sasl_tgt_send(TALLOC_CTX *mem_ctx, struct tevent_context *ev,
                                             struct sdap_sasl *sasl, const char *host);
static errno_t sdap_sasl_step(struct tevent_req *req, LDAPMessage *msg);
static void sdap_sasl_msg(void *pvt, LDAPMessage *msg, errno_t error);

static bool sdap_sasl_need_tgt(struct sdap_sasl *sasl, const char *host)
{
    time_t now = time(NULL);

    if (!sasl->init_creds || sasl->child == NULL) {
        return false;
    }
    return sasl->tgt_end == 0 || now >= sasl->tgt_start + (sasl->tgt_end - sasl->tgt_start) / 2
           || sasl->svc_host == NULL || strcmp(sasl->svc_host, host) != 0;
}

struct tevent_req *sdap_sasl_bind_send(TALLOC_CTX *mem_ctx, struct tevent_context *ev,
                                       struct sdap_conn *conn, struct sdap_sasl *sasl,
                                       int timeout)
{
    struct sdap_sasl_bind_state *state;
    struct tevent_req *subreq;
    struct tevent_req *req;
    LDAPURLDesc *lud = NULL;
    errno_t ret;

    req = tevent_req_create(mem_ctx, &state, struct sdap_sasl_bind_state);
    if (req == NULL) {
        return NULL;
    }
    if (ev == NULL || conn == NULL || sasl == NULL) {
        (void)sss_arg_invalid(__func__, "ev, conn, sasl");
        return ev != NULL ? sss_req_post(req, ev, EINVAL) : (talloc_free(req), NULL);
    }
    state->ev = ev;
    state->conn = conn;
    state->sasl = sasl;
    state->timeout = timeout;
    if (ldap_url_parse(sdap_conn_uri(conn), &lud) != LDAP_SUCCESS || lud->lud_host == NULL) {
        ldap_free_urldesc(lud);
        return sss_req_post(req, ev, EINVAL);
    }
    state->host = talloc_strdup(state, lud->lud_host);
    ldap_free_urldesc(lud);
    if (state->host == NULL) {
        return sss_req_post(req, ev, ENOMEM);
    }
    if (!sdap_sasl_need_tgt(sasl, state->host)) {
        ret = sdap_sasl_step(req, NULL);
        return ret == EOK ? req : sss_req_post(req, ev, ret);
    }
    if (sasl->ev == NULL) {
        sasl->ev = ev;
    }
    subreq = sdap_sasl_tgt_send(state, ev, sasl, state->host);
    if (subreq == NULL) {
        return sss_req_post(req, ev, ENOMEM);
    }
    tevent_req_set_callback(subreq, sdap_sasl_tgt_done, req);
    return req;
}

static void sdap_sasl_renew_timer(struct tevent_context *ev, struct tevent_timer *te,
                                  struct timeval tv, void *pvt);
static void sdap_sasl_renew_done(struct tevent_req *subreq);

/* The request for a TGT and the ldap/ ticket of host, into the ccache. */
static struct tevent_req *sdap_sasl_tgt_send(TALLOC_CTX *mem_ctx, struct tevent_context *ev,
                                             struct sdap_sasl *sasl, const char *host)
{
    struct krb5_child_req creq;
    struct tevent_req *subreq;
    char *service;

    service = talloc_asprintf(mem_ctx, "ldap/%s", host);
    if (service == NULL) {
        return NULL;
    }
    creq = (struct krb5_child_req) {
        .cmd = KRB5_CHILD_KEYTAB_TGT, .uid = 0, .gid = 0, .lifetime = sasl->lifetime,
        .principal = sasl->authid, .ccname = sasl->ccname, .keytab = sasl->keytab,
        .password = "", .new_password = "", .realm = sasl->realm, .service = service,
    };
    subreq = krb5_child_send(mem_ctx, ev, sasl->child, &creq);
    talloc_free(service);   /* encoded by then */
    return subreq;
}

/* The renewal timer at half the ticket's life (at least 1 s ahead), or after a failure
 * SDAP_SASL_RENEW_RETRY s (never past the ticket's end: the next connect asks then). */
static void sdap_sasl_renew_schedule(struct sdap_sasl *sasl, bool failed)
{
    time_t now = time(NULL);
    time_t at;

    talloc_zfree(sasl->renew_te);
    if (sasl->ev == NULL || sasl->tgt_end <= now) {
        return;
    }
    at = failed ? now + SDAP_SASL_RENEW_RETRY
                : sasl->tgt_start + (sasl->tgt_end - sasl->tgt_start) / 2;
    if (at >= sasl->tgt_end) {
        return;
    }
    if (at <= now) {
        at = now + 1;
    }
    sasl->renew_te = tevent_add_timer(sasl->ev, sasl, tevent_timeval_set(at, 0),
                                      sdap_sasl_renew_timer, sasl);
    if (sasl->renew_te == NULL) {
        DEBUG(SSSDBG_CRIT_FAILURE, "no renewal timer for %s: a new TGT at the next connect\n",
              sasl->authid);
    }
}

/* A TGT obtained (by a bind or the timer): the times, the server, the next renewal. */
static void sdap_sasl_tgt_got(struct sdap_sasl *sasl, const char *host, time_t endtime)
{
    char *h;

    sasl->tgt_start = time(NULL);
    sasl->tgt_end = endtime;
    if (host != sasl->svc_host) {
        h = talloc_strdup(sasl, host);
        if (h != NULL) {
            talloc_free(sasl->svc_host);
            sasl->svc_host = h;
        }
    }
    DEBUG(SSSDBG_TRACE_FUNC, "TGT for %s obtained, valid until %lld\n", sasl->authid,
          (long long)endtime);
    sdap_sasl_renew_schedule(sasl, false);
}

static void sdap_sasl_renew_timer(struct tevent_context *ev, struct tevent_timer *te,
                                  struct timeval tv, void *pvt)
{
    struct sdap_sasl *sasl = talloc_get_type_abort(pvt, struct sdap_sasl);

    (void)te;
    (void)tv;
    sasl->renew_te = NULL;
    if (sasl->renew_req != NULL || sasl->svc_host == NULL) {
        return;     /* a child is at it already; it reschedules */
    }
    DEBUG(SSSDBG_TRACE_FUNC, "renewing the TGT of %s (valid until %lld)\n", sasl->authid,
          (long long)sasl->tgt_end);
    sasl->renew_req = sdap_sasl_tgt_send(sasl, ev, sasl, sasl->svc_host);
    if (sasl->renew_req == NULL) {
        sdap_sasl_renew_schedule(sasl, true);
        return;
    }
    tevent_req_set_callback(sasl->renew_req, sdap_sasl_renew_done, sasl);
}

static void sdap_sasl_renew_done(struct tevent_req *subreq)
{
    struct sdap_sasl *sasl = tevent_req_callback_data(subreq, struct sdap_sasl);
    struct krb5_child_rsp *rsp = NULL;
    errno_t ret;

    assert(subreq == sasl->renew_req);
    sasl->renew_req = NULL;
    ret = krb5_child_recv(subreq, subreq, &rsp);
    if (ret == EOK && rsp->status != KRB5_CHILD_OK) {
        ret = rsp->status == KRB5_CHILD_KDC_UNREACHABLE ? ETIMEDOUT : EACCES;
    }
    if (ret == EOK) {
        sdap_sasl_tgt_got(sasl, sasl->svc_host, (time_t)rsp->endtime);
    } else {
        DEBUG(SSSDBG_OP_FAILURE, "renewing the TGT of %s failed: %s; again in %d s\n",
              sasl->authid, sss_strerror(ret), SDAP_SASL_RENEW_RETRY);
        sdap_sasl_renew_schedule(sasl, true);
    }
    talloc_free(subreq);
}

static void sdap_sasl_tgt_done(struct tevent_req *subreq)
{
    struct tevent_req *req = tevent_req_callback_data(subreq, struct tevent_req);
    struct sdap_sasl_bind_state *state = tevent_req_data(req, struct sdap_sasl_bind_state);
    struct sdap_sasl *sasl = state->sasl;
    struct krb5_child_rsp *rsp = NULL;
    errno_t ret;

    ret = krb5_child_recv(state, subreq, &rsp);
    talloc_free(subreq);
    if (ret == EOK && rsp->status != KRB5_CHILD_OK) {
        ret = rsp->status == KRB5_CHILD_KDC_UNREACHABLE ? ETIMEDOUT : EACCES;
    }
    if (ret != EOK) {
        /* Old tickets may still be good: the bind decides. */
        DEBUG(SSSDBG_OP_FAILURE, "no TGT for %s from the keytab: %s\n", sasl->authid,
              sss_strerror(ret));
    } else {
        sdap_sasl_tgt_got(sasl, state->host, (time_t)rsp->endtime);
    }
    ret = sdap_sasl_step(req, NULL);
    if (ret != EOK) {
        tevent_req_error(req, ret);
    }
}

/* One step: the first call (msg NULL), then one per server answer. */
static errno_t sdap_sasl_step(struct tevent_req *req, LDAPMessage *msg)
{
    struct sdap_sasl_bind_state *state = tevent_req_data(req, struct sdap_sasl_bind_state);
    LDAP *ld = sdap_conn_ld(state->conn);
    ber_len_t ssf = 0;
    int msgid = -1;
    int lrc;

    if (msg == NULL) {
        (void)ldap_set_option(ld, LDAP_OPT_X_SASL_NOCANON, LDAP_OPT_ON);
        if (state->sasl->maxssf >= 0) {
            ssf = (ber_len_t)state->sasl->maxssf;
            (void)ldap_set_option(ld, LDAP_OPT_X_SASL_SSF_MAX, &ssf);
        }
    }
    lrc = ldap_sasl_interactive_bind(ld, NULL, state->sasl->mech, NULL, NULL, LDAP_SASL_QUIET,
                                     sdap_sasl_interact, NULL, msg, &state->rmech, &msgid);
    ldap_msgfree(msg);
    if (lrc == LDAP_SASL_BIND_IN_PROGRESS) {
        return sdap_op_add(state, state->conn, msgid, state->timeout, sdap_sasl_msg, req,
                           &state->op);
    }
    if (lrc != LDAP_SUCCESS) {
        char *diag = NULL;

        (void)ldap_get_option(ld, LDAP_OPT_DIAGNOSTIC_MESSAGE, &diag);
        DEBUG(SSSDBG_OP_FAILURE, "SASL bind (%s) to %s failed: %s (%s)\n", state->sasl->name,
              sdap_conn_uri(state->conn), ldap_err2string(lrc), diag != NULL ? diag : "");
        ldap_memfree(diag);
        return lrc == LDAP_INVALID_CREDENTIALS || lrc == LDAP_INAPPROPRIATE_AUTH
               || lrc == LDAP_LOCAL_ERROR || lrc == LDAP_AUTH_UNKNOWN ? EACCES : EIO;
    }
    (void)ldap_get_option(ld, LDAP_OPT_X_SASL_SSF, &ssf);
    DEBUG(SSSDBG_TRACE_FUNC, "SASL bind (%s) to %s done, ssf %lu\n", state->sasl->name,
          sdap_conn_uri(state->conn), (unsigned long)ssf);
    tevent_req_done(req);
    return EOK;
}

static void sdap_sasl_msg(void *pvt, LDAPMessage *msg, errno_t error)
{
    struct tevent_req *req = talloc_get_type_abort(pvt, struct tevent_req);
    struct sdap_sasl_bind_state *state = tevent_req_data(req, struct sdap_sasl_bind_state);
    errno_t ret;

    if (msg == NULL) {
        tevent_req_error(req, error);
        return;
    }
    sdap_op_done(state->op);
    state->op = NULL;
    ret = sdap_sasl_step(req, msg);
    if (ret != EOK) {
        tevent_req_error(req, ret);
    }
}

errno_t sdap_sasl_bind_recv(struct tevent_req *req)
{
    TEVENT_REQ_RETURN_ON_ERROR(req);
    return EOK;
}
