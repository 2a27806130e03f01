/*
 * access_provider for the back-end's ACCT_MGMT (be_pam_private.h):
 *   permit   everyone;
 *   deny     no one (PAM_PERM_DENIED);
 *   simple   be_access_simple's rules on the user's name and its groups: the primary group
 *            and the cached initgroups list (sssd_pam refreshed it for this login, per
 *            pam_id_timeout);
 *   ldap     ldap_access_order through sdap_auth_policy (the user's entry read from the
 *            server); ad is the same path with SSSD's AD rules (sdap_auth_access.c). Every verdict reached online is remembered per user, in memory and
 *            on the user's cache entry (sysdb_creds_set_access); while the domain is
 *            offline that last verdict decides, also after a restart, and a user never
 *            checked online is denied (SSSD keeps the filter's last result in the cache
 *            the same way).
 * Any other provider is not built here: denied, with a log line at start-up.
 */
#include <security/pam_appl.h>

#include "providers/backend/be_pam_private.h"
#include "confdb/confdb.h"
#include "db/sysdb.h"
#include "sss_client/sss_cli.h"
#include "util/sss_hash.h"

struct be_pam_last {
    char *user;
    uint32_t status;
};

static bool be_pam_last_equal(const void *item, const void *key, void *ctx)
{
    (void)ctx;
    return strcmp(((const struct be_pam_last *)item)->user, key) == 0;
}

errno_t be_pam_access_init(struct be_ctx *be, struct be_pam *pam)
{
    TALLOC_CTX *tmp_ctx;
    char *lists[4] = { NULL, NULL, NULL, NULL };
    static const char *const opts[4] = {
        "simple_allow_users", "simple_deny_users", "simple_allow_groups", "simple_deny_groups"
    };
    errno_t ret = EOK;

    SSS_CHECK_ARG(be != NULL && pam != NULL, EINVAL);
    tmp_ctx = talloc_new(NULL);
    if (tmp_ctx == NULL) {
        return ENOMEM;
    }
    if (pam->access == BE_PAM_PROV_SIMPLE) {
        for (size_t i = 0; i < 4 && ret == EOK; i++) {
            ret = confdb_get_string(be->cdb, tmp_ctx, be->section, opts[i], &lists[i]);
        }
        if (ret == EOK) {
            ret = be_access_simple_parse(pam, be->sysdb, lists[0], lists[1], lists[2],
                                         lists[3], &pam->simple);
        }
    }
    if (ret == EOK && pam->access == BE_PAM_PROV_LDAP) {
        pam->last_access = sss_hash_table_new(pam, 0, be_pam_last_equal, NULL);
        if (pam->last_access == NULL) {
            ret = ENOMEM;
        }
    }
    talloc_free(tmp_ctx);
    return ret;
}

/* ---- simple ------------------------------------------------------------------------ */

/* The user's group names: the primary group, then the cached initgroups list. */
static errno_t be_pam_user_groups(TALLOC_CTX *mem_ctx, struct be_pam_state *state,
                                  const char ***_groups)
{
    struct sysdb_ctx *sysdb = state->be->sysdb;
    struct sysdb_user *user = NULL;
    struct sysdb_group *primary = NULL;
    const char **names = NULL;
    const char **groups;
    size_t count = 0;
    size_t n = 0;
    errno_t ret;

    ret = sysdb_get_user_by_name(mem_ctx, sysdb, state->req.user, &user);
    if (ret != EOK) {
        return ret;
    }
    ret = sysdb_get_initgroups_names(mem_ctx, sysdb, state->req.user, &names, &count, NULL);
    if (ret == ENOENT) {
        count = 0;
    } else if (ret != EOK) {
        return ret;
    }
    groups = talloc_zero_array(mem_ctx, const char *, count + 2);
    if (groups == NULL) {
        return ENOMEM;
    }
    ret = sysdb_get_group_by_gid(mem_ctx, sysdb, user->gid, &primary);
    if (ret == EOK) {
        groups[n++] = primary->name;
    } else if (ret != ENOENT) {
        return ret;
    }
    for (size_t i = 0; i < count; i++) {
        groups[n++] = names[i];
    }
    *_groups = groups;
    return EOK;
}

static uint32_t be_pam_access_simple(struct be_pam_state *state)
{
    TALLOC_CTX *tmp_ctx = talloc_new(NULL);
    const char **groups = NULL;
    bool allowed = false;
    errno_t ret;

    if (tmp_ctx == NULL) {
        return PAM_SYSTEM_ERR;
    }
    if (be_access_simple_is_empty(state->be->pam->simple)) {
        allowed = true;
        ret = EOK;
        goto done;
    }
    ret = be_pam_user_groups(tmp_ctx, state, &groups);
    if (ret == EOK) {
        ret = be_access_simple_check(state->be->pam->simple, state->req.user, groups,
                                     &allowed);
    }
done:
    talloc_free(tmp_ctx);
    if (ret != EOK) {
        DEBUG(SSSDBG_OP_FAILURE, "simple access check of [%s] failed: %s: denied\n",
              state->req.user, sss_strerror(ret));
        return ret == ENOENT ? PAM_USER_UNKNOWN : PAM_PERM_DENIED;
    }
    DEBUG(SSSDBG_TRACE_FUNC, "access_provider = simple: [%s] %s\n", state->req.user,
          allowed ? "allowed" : "denied");
    return allowed ? PAM_SUCCESS : PAM_PERM_DENIED;
}

/* ---- ldap -------------------------------------------------------------------------- */

/* Remembers an online verdict: in the cache (so that a restart while offline still has
 * it), written only when it differs from what this process last stored, and in memory. */
static void be_pam_last_set(struct be_ctx *be, const char *user, uint32_t status)
{
    struct be_pam *pam = be->pam;
    uint64_t hash = sss_hash_str(user);
    struct be_pam_last *last = sss_hash_table_get(pam->last_access, hash, user);
    errno_t ret;

    if (last != NULL && last->status == status) {
        return;
    }
    ret = sysdb_creds_set_access(be->sysdb, user, status);
    if (ret != EOK) {
        DEBUG(SSSDBG_OP_FAILURE, "the access verdict of [%s] is not cached: %s\n", user,
              sss_strerror(ret));
    }
    if (last == NULL) {
        last = talloc_zero(pam->last_access, struct be_pam_last);
        if (last == NULL) {
            return;
        }
        last->user = talloc_strdup(last, user);
        if (last->user == NULL
                || sss_hash_table_insert(pam->last_access, hash, last->user, last, NULL)
                   != EOK) {
            talloc_free(last);
            return;
        }
    }
    last->status = status;
}

static uint32_t be_pam_access_ldap_offline(struct be_pam_state *state)
{
    struct be_pam_last *last;
    bool known = false;
    uint32_t status = PAM_PERM_DENIED;
    errno_t ret;

    last = sss_hash_table_get(state->be->pam->last_access, sss_hash_str(state->req.user),
                              state->req.user);
    if (last != NULL) {
        known = true;
        status = last->status;
    } else {
        /* Not seen by this process: the verdict an earlier one cached, if any. */
        ret = sysdb_creds_get_access(state->be->sysdb, state->req.user, &known, &status);
        if (ret != EOK) {
            DEBUG(SSSDBG_OP_FAILURE, "the cached access verdict of [%s] is not readable: "
                  "%s\n", state->req.user, sss_strerror(ret));
            known = false;
        }
        if (!known) {
            status = PAM_PERM_DENIED;
        }
    }
    DEBUG(SSSDBG_TRACE_FUNC, "domain %s offline: [%s] %s\n", state->be->domain,
          state->req.user, !known ? "never checked online: denied"
          : status == PAM_SUCCESS ? "allowed by the last online check"
          : "denied by the last online check");
    return status;
}

static void be_pam_access_ldap_done(struct tevent_req *subreq);

static errno_t be_pam_access_ldap(struct tevent_req *req)
{
    struct be_pam_state *state = tevent_req_data(req, struct be_pam_state);
    struct be_pam *pam = state->be->pam;
    const char *dn = NULL;
    struct tevent_req *subreq;
    errno_t ret;

    if (pam->sdap == NULL || pam->policy == NULL) {
        be_pam_finish(req, PAM_PERM_DENIED);
        return EOK;
    }
    if (be_is_offline(state->be)) {
        be_offline_request_seen(state->be);
        be_pam_finish(req, be_pam_access_ldap_offline(state));
        return EOK;
    }
    ret = be_pam_user_dn(state, &dn);
    if (ret == ENOENT || ret == ENODATA) {
        DEBUG(SSSDBG_OP_FAILURE, "[%s]: no cached DN: denied\n", state->req.user);
        be_pam_finish(req, ret == ENOENT ? PAM_USER_UNKNOWN : PAM_PERM_DENIED);
        return EOK;
    }
    if (ret != EOK) {
        return ret;
    }
    subreq = sdap_auth_policy_send(state, state->ev, pam->sdap, pam->policy, dn,
                                   state->req.service, false);
    if (subreq == NULL) {
        return ENOMEM;
    }
    tevent_req_set_callback(subreq, be_pam_access_ldap_done, req);
    return EOK;
}

static void be_pam_access_ldap_done(struct tevent_req *subreq)
{
    struct tevent_req *req = tevent_req_callback_data(subreq, struct tevent_req);
    struct be_pam_state *state = tevent_req_data(req, struct be_pam_state);
    struct sdap_access_verdict v;
    errno_t ret;

    SSS_REQ_ID_SCOPE(state->req.req_id);
    ret = sdap_auth_policy_recv(subreq, &v);
    talloc_free(subreq);
    if (ret == ENOMEM) {
        tevent_req_error(req, ret);
        return;
    }
    if (ret != EOK) {
        /* No server could say: the last online verdict, as offline. */
        DEBUG(SSSDBG_OP_FAILURE, "access check of [%s] did not complete: %s\n",
              state->req.user, sss_strerror(ret));
        if (ret == ENETUNREACH) {
            be_go_offline(state->be, "no LDAP server reachable for an access check");
        }
        be_pam_finish(req, be_pam_access_ldap_offline(state));
        return;
    }
    be_pam_add_verdict_items(state, &v);
    be_pam_last_set(state->be, state->req.user, (uint32_t)v.pam_status);
    be_pam_finish(req, (uint32_t)v.pam_status);
}

/* ---- the dispatch ------------------------------------------------------------------ */

errno_t be_pam_access(struct tevent_req *req)
{
    struct be_pam_state *state = tevent_req_data(req, struct be_pam_state);
    struct be_pam *pam = state->be->pam;

    switch (pam->access) {
    case BE_PAM_PROV_PERMIT:
        be_pam_finish(req, PAM_SUCCESS);
        return EOK;
    case BE_PAM_PROV_DENY:
        DEBUG(SSSDBG_TRACE_FUNC, "access_provider = deny: [%s] refused\n", state->req.user);
        be_pam_finish(req, PAM_PERM_DENIED);
        return EOK;
    case BE_PAM_PROV_SIMPLE:
        be_pam_finish(req, be_pam_access_simple(state));
        return EOK;
    case BE_PAM_PROV_LDAP:
        return be_pam_access_ldap(req);
    default:
        DEBUG(SSSDBG_OP_FAILURE, "access_provider = %s is not available in this build: "
              "[%s] refused\n", pam->access_name, state->req.user);
        be_pam_finish(req, PAM_PERM_DENIED);
        return EOK;
    }
}
