/*
 * Netgroup requests of the back-end (be_netgr.h): sdap_get_netgroup, then one sysdb store
 * or delete. The triples and member names are stored as the directory gave them; the
 * responder splits the triples when it answers.
 */
#include "providers/backend/be_netgr.h"
#include "providers/ldap/sdap_netgroups.h"
#include "confdb/confdb.h"
#include "db/sysdb_netgroups.h"

struct be_netgr_state {
    struct be_ctx *be;
    char *name;
};

static void be_netgr_done(struct tevent_req *subreq);

struct tevent_req *be_netgr_send(TALLOC_CTX *mem_ctx, struct tevent_context *ev,
                                 struct be_ctx *be, const char *name)
{
    struct be_netgr_state *state;
    struct tevent_req *req;
    struct tevent_req *subreq;

    req = tevent_req_create(mem_ctx, &state, struct be_netgr_state);
    if (req == NULL) {
        return NULL;
    }
    SSS_CHECK_ARG(be != NULL && be->id_ctx != NULL && name != NULL,
                  sss_req_post(req, ev, EINVAL));
    state->be = be;
    state->name = talloc_strdup(state, name);
    if (state->name == NULL) {
        return sss_req_post(req, ev, ENOMEM);
    }
    subreq = sdap_get_netgroup_send(state, ev, be->id_ctx, state->name);
    if (subreq == NULL) {
        return sss_req_post(req, ev, ENOMEM);
    }
    tevent_req_set_callback(subreq, be_netgr_done, req);
    return req;
}

static void be_netgr_done(struct tevent_req *subreq)
{
    struct tevent_req *req = tevent_req_callback_data(subreq, struct tevent_req);
    struct be_netgr_state *state = tevent_req_data(req, struct be_netgr_state);
    struct sdap_netgroup *ng = NULL;
    struct sysdb_netgroup sng;
    int timeout = 0;
    errno_t ret;

    ret = sdap_get_netgroup_recv(state, subreq, &ng);
    talloc_free(subreq);
    if (ret == ENOENT) {
        ret = sysdb_delete_netgroup(state->be->sysdb, state->name);
        if (ret == ENOENT) {
            ret = EOK;
        }
        goto done;
    }
    if (ret != EOK) {
        goto done;
    }
    /* Read per request: netgroup lookups are rare, and the back-end context stays as it
     * is for the other kinds of entries. */
    ret = confdb_get_int(state->be->cdb, state->be->section, "entry_cache_netgroup_timeout",
                         &timeout);
    if (ret != EOK) {
        goto done;
    }
    memset(&sng, 0, sizeof(sng));
    sng.name = ng->name;
    sng.triples = ng->triples;
    sng.members = ng->members;
    sng.orig_dn = ng->orig_dn;
    ret = sysdb_store_netgroup(state->be->sysdb, &sng, time(NULL),
                               timeout > 0 ? (uint32_t)timeout : 0);
    if (ret == EINVAL) {
        state->be->stats.refused_entries++;
    }
done:
    be_req_finish(req, ret);
}

errno_t be_netgr_recv(struct tevent_req *req)
{
    TEVENT_REQ_RETURN_ON_ERROR(req);
    return EOK;
}
