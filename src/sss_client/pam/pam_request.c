/*
 * pam_sss's link to sssd_pam: the two sockets (the private one for callers whose uid and
 * gid are 0, the public one for everyone else; both must be root:root with SSSD's modes and
 * served by root), one request and its reply per operation, the reply acted upon only once
 * it has been checked as a whole, and SSSD 2.8's log lines about the result. Connections
 * are per thread (common.c); pam_end() closes them, and a caller that is no longer root
 * never reuses one to the private socket.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <unistd.h>

#include <security/pam_appl.h>
#include <security/pam_ext.h>
#include <security/pam_modules.h>
#include <security/pam_modutil.h>

#include "sss_client/sss_cli.h"
#include "sss_client/sss_cli_client.h"
#include "sss_client/pam/pam_sss_private.h"

/* pam_set_data name (SSSD's) of the clean-up that closes the connections at pam_end. */
#define CONN_CLEANUP        "pam_sss:fd_destructor"

/* The responder's sockets (PROTOCOL.md "Paths"): root:root with exactly these modes, and
 * the server itself must be root:root. */
static struct sss_cli_conn pam_pub_conn =
    SSS_CLI_CONN_PER_THREAD(SSS_PAM_SOCKET_NAME, SSS_PAM_PROTOCOL_VERSION, true, 0666);
static struct sss_cli_conn pam_priv_conn =
    SSS_CLI_CONN_PER_THREAD(SSS_PAM_PRIV_SOCKET_NAME, SSS_PAM_PROTOCOL_VERSION, true, 0600);

/* pam_end(): this thread's connections go (SSSD closes its socket there too). */
static void close_conns(pam_handle_t *pamh, void *data, int error_status)
{
    if (error_status & PAM_DATA_REPLACE) {
        return;
    }
    sss_cli_close(&pam_pub_conn);
    sss_cli_close(&pam_priv_conn);
}

static void log_request_error(struct pam_sss_call *c, int err, bool priv)
{
    switch (err) {
    case ENOENT:
        /* No sssd: SSSD's client says nothing either. */
        break;
    case EACCES:
        pam_sss_log(c->pamh, LOG_ERR, "Request to sssd failed. %s", priv
                    ? "Privileged socket has wrong ownership or permissions."
                    : "Public socket has wrong ownership or permissions.");
        break;
    case EPERM:
        pam_sss_log(c->pamh, LOG_ERR, "Request to sssd failed. SSSD is not run by root.");
        break;
    default:
        errno = err;
        pam_sss_log(c->pamh, LOG_ERR, "Request to sssd failed. %m");
        break;
    }
}

/* Acts on a checked reply, item by item, in the order the server sent them. */
static void eval_reply(struct pam_sss_call *c, const struct pam_sss_reply *reply)
{
    struct pam_sss_item it;
    size_t cursor = 0;
    char *text;
    char *env;

    while (pam_sss_reply_next(reply, &cursor, &it)) {
        const char *s = (const char *)it.data;

        switch (it.type) {
        case SSS_PAM_SYSTEM_INFO:
            pam_sss_log(c->pamh, LOG_INFO, "system info: [%s]", s);
            break;
        case SSS_PAM_DOMAIN_NAME:
            free(c->domain);
            c->domain = strdup(s);
            break;
        case SSS_PAM_ENV_ITEM:
        case SSS_ENV_ITEM:
        case SSS_ALL_ENV_ITEM:
            if (it.type != SSS_ENV_ITEM && pam_putenv(c->pamh, s) != PAM_SUCCESS) {
                break;
            }
            if (it.type != SSS_PAM_ENV_ITEM) {
                /* putenv() keeps the string: it is the application's from now on. */
                env = strdup(s);
                if (env != NULL && putenv(env) != 0) {
                    free(env);
                }
            }
            break;
        case SSS_PAM_USER_INFO:
            if (pam_sss_user_info_text(it.data, it.len, &text) == 0) {
                pam_sss_show(c->pamh, PAM_TEXT_INFO, text);
                free(text);
            }
            break;
        case SSS_PAM_TEXT_MSG:
            pam_sss_show(c->pamh, PAM_TEXT_INFO, s);
            break;
        case SSS_OTP:
            /* A one-time password must not be handed to the next module. */
            pam_sss_token_drop(&c->authtok);
            pam_set_item(c->pamh, PAM_AUTHTOK, NULL);
            break;
        default:
            break;
        }
    }
}

static void log_result(struct pam_sss_call *c, uint32_t cmd, int status)
{
    bool quiet_unknown = c->opts.quiet && status == PAM_USER_UNKNOWN;
    const char *login;

    switch (cmd) {
    case SSS_PAM_AUTHENTICATE:
        login = pam_modutil_getlogin(c->pamh);
        pam_sss_log(c->pamh, status == PAM_SUCCESS ? LOG_INFO : LOG_NOTICE,
                    "authentication %s; logname=%s uid=%lu euid=%lu tty=%s ruser=%s rhost=%s "
                    "user=%s", status == PAM_SUCCESS ? "success" : "failure",
                    login != NULL ? login : "", (unsigned long)getuid(),
                    (unsigned long)geteuid(), c->tty, c->ruser, c->rhost, c->user);
        if (status != PAM_SUCCESS && !quiet_unknown) {
            pam_sss_log(c->pamh, LOG_NOTICE, "received for user %s: %d (%s)", c->user, status,
                        pam_strerror(c->pamh, status));
        }
        break;
    case SSS_PAM_CHAUTHTOK_PRELIM:
        if (status != PAM_SUCCESS && !quiet_unknown) {
            pam_sss_log(c->pamh, LOG_NOTICE, "Authentication failed for user %s: %d (%s)",
                        c->user, status, pam_strerror(c->pamh, status));
        }
        break;
    case SSS_PAM_CHAUTHTOK:
        if (status != PAM_SUCCESS) {
            pam_sss_log(c->pamh, LOG_NOTICE, "Password change failed for user %s: %d (%s)",
                        c->user, status, pam_strerror(c->pamh, status));
        }
        break;
    case SSS_PAM_ACCT_MGMT:
        if (status != PAM_SUCCESS && !quiet_unknown) {
            pam_sss_log(c->pamh, LOG_NOTICE, "Access denied for user %s: %d (%s)",
                        c->user, status, pam_strerror(c->pamh, status));
        }
        break;
    default:
        break;
    }
}

int pam_sss_send(struct pam_sss_call *c, uint32_t cmd)
{
    struct pam_sss_req req = {
        .user = c->user, .service = c->service, .tty = c->tty, .ruser = c->ruser,
        .rhost = c->rhost, .domains = c->opts.domains, .cli_pid = (uint32_t)getpid(),
        .flags = c->opts.flags,
    };
    struct pam_sss_reply reply;
    struct sss_cli_conn *conn;
    uint8_t *body = NULL;
    uint8_t *rep = NULL;
    size_t body_len = 0;
    size_t rep_len = 0;
    const char *loops;
    bool priv;
    int status;
    int ret;

    req.authtok = (struct pam_sss_tok){ c->authtok.type, c->authtok.data, c->authtok.len };
    req.newauthtok = (struct pam_sss_tok){ c->newauthtok.type, c->newauthtok.data,
                                           c->newauthtok.len };
    ret = pam_sss_pack(&req, &body, &body_len);
    if (ret != 0) {
        return ret == ENOMEM ? PAM_BUF_ERR : PAM_SYSTEM_ERR;
    }

    /* sssd's own processes set _SSS_LOOPS=NO so they never call themselves. */
    loops = getenv("_SSS_LOOPS");
    if (loops != NULL && strcmp(loops, "NO") == 0) {
        explicit_bzero(body, body_len);
        free(body);
        return PAM_AUTHINFO_UNAVAIL;
    }

    priv = getuid() == 0 && getgid() == 0;
    if (!priv) {
        sss_cli_close(&pam_priv_conn);
    }
    conn = priv ? &pam_priv_conn : &pam_pub_conn;
    ret = sss_cli_request(conn, cmd, body, body_len, &rep, &rep_len);
    explicit_bzero(body, body_len);
    free(body);
    /* Without it the connection would close at thread exit or the next fork instead. */
    (void)pam_set_data(c->pamh, CONN_CLEANUP, NULL, close_conns);
    if (ret != 0) {
        log_request_error(c, ret, priv);
        return PAM_AUTHINFO_UNAVAIL;
    }

    ret = pam_sss_reply_parse(rep, rep_len, &reply);
    if (ret != 0) {
        pam_sss_log(c->pamh, LOG_ERR, "Request to sssd failed. Malformed reply (%zu bytes).",
                    rep_len);
        free(rep);
        return PAM_SYSTEM_ERR;
    }
    status = reply.status;
    eval_reply(c, &reply);
    free(rep);
    log_result(c, cmd, status);
    return status;
}

/* dlclose (pam_end unloads modules): close this thread's connections and stop the
 * per-thread clean-up whose code is about to go away. */
__attribute__((destructor)) static void pam_sss_fini(void)
{
    sss_cli_close(&pam_pub_conn);
    sss_cli_close(&pam_priv_conn);
    sss_cli_unload();
}
