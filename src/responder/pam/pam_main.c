/*
 * sssd_pam: the PAM responder. This file starts the process: it joins the bus as sssd.pam,
 * reads the [pam] options, and listens for pam_sss on two sockets: pipes/pam (0666, any
 * user) and pipes/private/pam (0600, root only; SO_PEERCRED says uid 0 before a request
 * counts as privileged). Both are root:root, the process runs as root. The requests
 * themselves are pam_cmd.c.
 */
#include <pwd.h>
#include <strings.h>

#include "responder/pam/pam_private.h"
#include "util/sss_hash.h"

static const uint32_t pam_versions[] = { SSS_PAM_PROTOCOL_VERSION, 2, 0 };

static const struct resp_cmd pam_cmds[] = {
    { SSS_GET_VERSION, resp_cmd_get_version },
    { SSS_PAM_AUTHENTICATE, pam_cmd_forward },
    { SSS_PAM_SETCRED, pam_cmd_forward },
    { SSS_PAM_ACCT_MGMT, pam_cmd_forward },
    { SSS_PAM_OPEN_SESSION, pam_cmd_forward },
    { SSS_PAM_CLOSE_SESSION, pam_cmd_forward },
    { SSS_PAM_CHAUTHTOK, pam_cmd_forward },
    { SSS_PAM_CHAUTHTOK_PRELIM, pam_cmd_forward },
    { SSS_PAM_PREAUTH, pam_cmd_forward },
    RESP_CMD_END
};

/* pam_trusted_users: uids, or names resolved now (SSSD resolves them at start-up too).
 * An unknown name is logged and skipped. Unset: NULL, everybody is trusted. */
static errno_t pam_read_trusted(struct pam_ctx *pctx, struct confdb *cdb)
{
    char **list = NULL;
    struct passwd *pw;
    char *end;
    unsigned long v;
    size_t n;
    size_t i;
    errno_t ret;

    if (!confdb_is_set(cdb, "pam", "pam_trusted_users")) {
        return EOK;
    }
    ret = confdb_get_list(cdb, pctx, "pam", "pam_trusted_users", &list);
    if (ret != EOK) {
        return ret;
    }
    for (n = 0; list[n] != NULL; n++) {
    }
    pctx->trusted_uids = talloc_zero_array(pctx, uint32_t, n + 1);
    if (pctx->trusted_uids == NULL) {
        return ENOMEM;
    }
    for (i = 0; list[i] != NULL; i++) {
        errno = 0;
        v = strtoul(list[i], &end, 10);
        if (list[i][0] != '\0' && *end == '\0' && errno == 0 && v <= UINT32_MAX) {
            pctx->trusted_uids[pctx->num_trusted++] = (uint32_t)v;
            continue;
        }
        pw = getpwnam(list[i]);
        if (pw == NULL) {
            DEBUG(SSSDBG_CONF_SETTINGS, "pam_trusted_users: unknown user [%s] skipped\n",
                  list[i]);
            continue;
        }
        pctx->trusted_uids[pctx->num_trusted++] = pw->pw_uid;
    }
    talloc_free(list);
    return EOK;
}

static errno_t pam_read_public(struct pam_ctx *pctx, struct confdb *cdb)
{
    errno_t ret;

    pctx->public_domains = NULL;
    if (confdb_is_set(cdb, "pam", "pam_public_domains")) {
        ret = confdb_get_list(cdb, pctx, "pam", "pam_public_domains", &pctx->public_domains);
        if (ret != EOK) {
            return ret;
        }
    }
    if (pctx->public_domains == NULL) {
        pctx->public_domains = talloc_zero_array(pctx, char *, 1);
        if (pctx->public_domains == NULL) {
            return ENOMEM;
        }
    }
    /* "all" and "none" are SSSD's special values. */
    if (pctx->public_domains[0] != NULL
            && strcasecmp(pctx->public_domains[0], "all") == 0) {
        pctx->public_all = true;
    } else if (pctx->public_domains[0] != NULL
            && strcasecmp(pctx->public_domains[0], "none") == 0) {
        pctx->public_domains[0] = NULL;
    }
    return EOK;
}

static errno_t pam_read_options(struct pam_ctx *pctx, struct confdb *cdb)
{
    int v;
    errno_t ret;

    ret = confdb_get_int(cdb, "pam", "pam_id_timeout", &v);
    if (ret != EOK) {
        return ret;
    }
    pctx->id_timeout = v < 0 ? 0 : (uint32_t)v;
    ret = confdb_get_int(cdb, "pam", "pam_verbosity", &pctx->verbosity);
    if (ret != EOK) {
        return ret;
    }
    ret = confdb_get_string(cdb, pctx, "pam", "pam_account_expired_message",
                            &pctx->expired_message);
    if (ret == EOK) {
        ret = confdb_get_string(cdb, pctx, "pam", "pam_account_locked_message",
                                &pctx->locked_message);
    }
    if (ret == EOK && pctx->expired_message == NULL) {
        pctx->expired_message = talloc_strdup(pctx, "");
    }
    if (ret == EOK && pctx->locked_message == NULL) {
        pctx->locked_message = talloc_strdup(pctx, "");
    }
    if (ret == EOK && (pctx->expired_message == NULL || pctx->locked_message == NULL)) {
        ret = ENOMEM;
    }
    if (ret != EOK) {
        return ret;
    }
    ret = pam_read_trusted(pctx, cdb);
    if (ret != EOK) {
        return ret;
    }
    return pam_read_public(pctx, cdb);
}

static bool pam_recent_equal(const void *item, const void *key, void *ctx)
{
    return strcmp(*(char *const *)item, key) == 0;
}

static errno_t pam_listen(struct pam_ctx *pctx, struct tevent_context *ev, bool priv)
{
    struct resp_server_conf sconf;
    struct pam_sock *sock;

    sock = talloc_zero(pctx, struct pam_sock);
    if (sock == NULL) {
        return ENOMEM;
    }
    sock->pctx = pctx;
    sock->priv = priv;
    memset(&sconf, 0, sizeof(sconf));
    sconf.path = priv ? SSSD_PIPE_PATH "/" SSS_PAM_PRIV_SOCKET_NAME
                      : SSSD_PIPE_PATH "/" SSS_PAM_SOCKET_NAME;
    sconf.mode = priv ? 0600 : 0666;
    sconf.cmds = pam_cmds;
    sconf.versions = pam_versions;
    sconf.idle_timeout = RESP_DEFAULT_IDLE_TIMEOUT;
    sconf.max_clients = pctx->rctx->fd_limit != 0
                        ? resp_max_clients_for_fds(pctx->rctx->fd_limit) : 0;
    sconf.pvt = sock;
    return resp_server_start(pctx, ev, &sconf, priv ? &pctx->priv_srv : &pctx->pub_srv);
}

static errno_t pam_init(struct sss_service *svc, struct resp_ctx *rctx)
{
    struct confdb *cdb = sss_service_confdb(svc);
    struct pam_ctx *pctx;
    errno_t ret;

    pctx = talloc_zero(rctx, struct pam_ctx);
    if (pctx == NULL) {
        return ENOMEM;
    }
    pctx->rctx = rctx;
    ret = pam_read_options(pctx, cdb);
    if (ret != EOK) {
        DEBUG(SSSDBG_FATAL_FAILURE, "Cannot read the [pam] options: %s\n", sss_strerror(ret));
        return ret;
    }
    /* The table's items start with their name (struct pam_recent in pam_cmd.c). */
    pctx->recent = sss_hash_table_new(pctx, 64, pam_recent_equal, NULL);
    if (pctx->recent == NULL) {
        return ENOMEM;
    }
    ret = pam_listen(pctx, sss_service_ev(svc), true);
    if (ret == EOK) {
        ret = pam_listen(pctx, sss_service_ev(svc), false);
    }
    if (ret != EOK) {
        DEBUG(SSSDBG_FATAL_FAILURE, "Cannot listen on the PAM sockets: %s\n",
              sss_strerror(ret));
    }
    return ret;
}

int main(int argc, const char *argv[])
{
    return resp_main(argc, argv, "pam", pam_init);
}
