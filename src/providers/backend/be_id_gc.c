/*
 * Which directory an account request asks: the global catalog (ad_enable_gc, the AD
 * provider; sdap_connect_gc.c) or the domain's LDAP, as SSSD 2.8's AD provider decides
 * (ad_id.c get_conn_list):
 *   user         the domain's LDAP only: SSSD sends users of the joined domain there,
 *                since the GC does not hold their POSIX attributes (unixHomeDirectory,
 *                loginShell, ... are not in the partial attribute set); the GC serves
 *                users of other domains of the forest, which we do not look up.
 *   group        the GC first, then the domain's LDAP;
 *   initgroups   the GC first (the user's tokenGroups and the groups they name), then the
 *                domain's LDAP; started from the user's fresh cache entry only (`id`'s
 *                getpwnam stored it seconds ago): a user read from the GC would lose the
 *                attributes the GC lacks when stored, so without one the request goes to
 *                the domain's LDAP whole.
 * Lookups by SID ("secid=", SSSD's BE_REQ_BY_SECID, which SSSD sends to the GC first):
 * groups as above, the GC first; users the domain's LDAP only, for the reason above.
 * With ldap_id_mapping = true sssd_nss maps a SID of a domain it knows to its id
 * (nss_sid_map.c) and asks by id. SIDs of other domains of the forest are found only when
 * the GC holds them: the entry is then stored in this domain's cache (no subdomains).
 * The GC is asked only while it is connected and may serve (sdap_gc_usable: with
 * ldap_id_mapping = false only when uidNumber and gidNumber are replicated to it). Whatever the GC answers other than
 * "found and stored" -- not found, an error, a connection that broke -- the request runs
 * again on the domain's LDAP, which alone may remove a cache entry and whose errors
 * alone reach the caller: a dead GC never fails a lookup nor makes the domain offline.
 */
#include "providers/backend/be_ctx.h"
#include "providers/ad/ad_subdomains.h"
#include "providers/ldap/sdap.h"
#include "sss_iface/sss_dp.h"
#include "db/sysdb.h"

struct be_id_state {
    struct tevent_context *ev;
    struct be_ctx *be;
    uint32_t type;
    struct be_filter filter;
    struct be_filter sub_filter;    /* the request on a trusted domain's DC */
};

static void be_id_gc_done(struct tevent_req *subreq);
static void be_id_sub_done(struct tevent_req *subreq);
static void be_id_ldap_done(struct tevent_req *subreq);

/* Whether the initgroups of name can start from a fresh cache entry (see be_id_ldap.c's
 * be_id_ldap_cached_user, which the request itself runs again). */
static bool be_id_user_fresh(struct be_ctx *be, const char *name)
{
    TALLOC_CTX *tmp_ctx = talloc_new(NULL);
    struct sysdb_user *su = NULL;
    bool fresh;

    fresh = tmp_ctx != NULL && be->mpg != BE_MPG_TRUE
            && (sysdb_case_mode(be->sysdb) != SYSDB_CASE_INSENSITIVE
                || sdap_initgroups_by_dn(be->id_ctx))
            && sysdb_get_user_by_name(tmp_ctx, be->sysdb, name, &su) == EOK
            && su->orig_dn != NULL && *su->orig_dn != '\0' && su->expire > time(NULL);
    talloc_free(tmp_ctx);
    return fresh;
}

/* The GC to ask first for this request, or NULL. */
static struct sdap_id_ctx *be_id_gc_for(struct be_ctx *be, uint32_t type,
                                        const struct be_filter *filter)
{
    if (sdap_id_ctx_gc(be->id_ctx) == NULL) {
        return NULL;        /* not AD, or ad_enable_gc = false: no probe either */
    }
    switch (type) {
    case SSS_DP_GROUP:
        if (be->mpg != BE_MPG_FALSE || filter->kind == BE_FILTER_ENUM) {
            return NULL;    /* private groups (be_mpg.c) and enumeration: the domain's */
        }
        break;
    case SSS_DP_INITGROUPS:
        if (filter->kind != BE_FILTER_NAME || !be_id_user_fresh(be, filter->name)) {
            return NULL;
        }
        break;
    default:
        return NULL;
    }
    return sdap_gc_usable(be->id_ctx);
}

struct tevent_req *be_id_send(TALLOC_CTX *mem_ctx, struct tevent_context *ev,
                              struct be_ctx *be, uint32_t type,
                              const struct be_filter *filter)
{
    struct be_id_state *state;
    struct tevent_req *req;
    struct tevent_req *subreq;
    struct sdap_id_ctx *gc;
    errno_t ret;

    req = tevent_req_create(mem_ctx, &state, struct be_id_state);
    if (req == NULL) {
        return NULL;
    }
    SSS_CHECK_ARG(be != NULL && be->id_ctx != NULL && filter != NULL,
                  sss_req_post(req, ev, EINVAL));
    state->ev = ev;
    state->be = be;
    state->type = type;
    state->filter = *filter;
    if ((filter->kind == BE_FILTER_NAME || filter->kind == BE_FILTER_MAIL
         || filter->kind == BE_FILTER_SID) && filter->name != NULL) {
        state->filter.name = talloc_strdup(state, filter->name);
        if (state->filter.name == NULL) {
            ret = ENOMEM;
            goto done;
        }
    }
    /* A trusted domain's object (ad_subdomains.h): its own DCs only. */
    gc = ad_subdom_route(state, be, type, &state->filter, &state->sub_filter);
    if (gc != NULL) {
        subreq = be_id_ldap_conn_send(state, ev, be, gc, true, type, &state->sub_filter);
        if (subreq == NULL) {
            ret = ENOMEM;
            goto done;
        }
        tevent_req_set_callback(subreq, be_id_sub_done, req);
        return req;
    }
    gc = be_id_gc_for(be, type, filter);
    if (gc != NULL) {
        subreq = be_id_ldap_conn_send(state, ev, be, gc, true, type, &state->filter);
        if (subreq == NULL) {
            ret = ENOMEM;
            goto done;
        }
        tevent_req_set_callback(subreq, be_id_gc_done, req);
        return req;
    }
    subreq = be_id_ldap_send(state, ev, be, type, &state->filter);
    if (subreq == NULL) {
        ret = ENOMEM;
        goto done;
    }
    tevent_req_set_callback(subreq, be_id_ldap_done, req);
    return req;
done:
    return sss_req_post(req, ev, ret);
}

static void be_id_gc_done(struct tevent_req *subreq)
{
    struct tevent_req *req = tevent_req_callback_data(subreq, struct tevent_req);
    struct be_id_state *state = tevent_req_data(req, struct be_id_state);
    errno_t ret;

    ret = be_id_ldap_recv(subreq);
    talloc_free(subreq);
    if (ret == EOK) {
        DEBUG(SSSDBG_TRACE_FUNC, "%s %s: answered by the global catalog\n",
              state->type == SSS_DP_GROUP ? "group" : "initgroups",
              state->filter.kind != BE_FILTER_ID ? state->filter.name : "(by id)");
        tevent_req_done(req);
        return;
    }
    if (ret == ENOMEM) {
        tevent_req_error(req, ret);
        return;
    }
    DEBUG(ret == ENOENT ? SSSDBG_TRACE_FUNC : SSSDBG_MINOR_FAILURE,
          "%s %s: the global catalog %s: asking the domain's LDAP\n",
          state->type == SSS_DP_GROUP ? "group" : "initgroups",
          state->filter.kind != BE_FILTER_ID ? state->filter.name : "(by id)",
          ret == ENOENT ? "does not hold it" : sss_strerror(ret));
    subreq = be_id_ldap_send(state, state->ev, state->be, state->type, &state->filter);
    if (subreq == NULL) {
        tevent_req_error(req, ENOMEM);
        return;
    }
    tevent_req_set_callback(subreq, be_id_ldap_done, req);
}

/* A trusted domain's answer. Not found: its user or group of that (qualified) name leaves
 * the cache, the joined domain's entries untouched; the answer is "no such object". */
static void be_id_sub_done(struct tevent_req *subreq)
{
    struct tevent_req *req = tevent_req_callback_data(subreq, struct tevent_req);
    struct be_id_state *state = tevent_req_data(req, struct be_id_state);
    errno_t ret;

    ret = be_id_ldap_recv(subreq);
    talloc_free(subreq);
    if (ret == ENETUNREACH) {
        /* The trusted domain's DCs, not the joined domain's: that one stays online (the
         * responder serves what the cache holds, as for any failed request). */
        DEBUG(SSSDBG_OP_FAILURE, "%s: no DC of the trusted domain is reachable\n",
              state->filter.kind == BE_FILTER_ID ? "(by id)" : state->filter.name);
        ret = EHOSTUNREACH;
    }
    /* An initgroups starts only from a fresh cached user (ENOENT without): no removal.
     * By uid, gid or SID too: the cached entry holding it leaves (its id is in the trusted
     * domain's slice, its SID under the trusted domain's: never a joined domain's entry). */
    if (ret == ENOENT && state->type != SSS_DP_INITGROUPS
            && (state->filter.kind == BE_FILTER_NAME || state->filter.kind == BE_FILTER_ID
                || state->filter.kind == BE_FILTER_SID)) {
        ret = state->type == SSS_DP_GROUP ? be_delete_group(state->be, &state->filter)
                                          : be_delete_user(state->be, &state->filter);
    }
    if (ret == ENOENT) {
        ret = EOK;
    }
    if (ret != EOK) {
        tevent_req_error(req, ret);
        return;
    }
    tevent_req_done(req);
}

static void be_id_ldap_done(struct tevent_req *subreq)
{
    struct tevent_req *req = tevent_req_callback_data(subreq, struct tevent_req);
    errno_t ret;

    ret = be_id_ldap_recv(subreq);
    talloc_free(subreq);
    if (ret != EOK) {
        tevent_req_error(req, ret);
        return;
    }
    tevent_req_done(req);
}

errno_t be_id_recv(struct tevent_req *req)
{
    TEVENT_REQ_RETURN_ON_ERROR(req);
    return EOK;
}
