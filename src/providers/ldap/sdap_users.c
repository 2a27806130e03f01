/*
 * Looking up one user, by name or by uid, under ldap_user_search_base:
 * (&(objectClass=<user oc>)(<name attr>=<escaped name>)<ldap_user_search_filter>) or the
 * same with the uid number (sdap_id_lookup_one). No entry gives ENOENT; several entries
 * give EINVAL (logged as a duplicate: the directory is inconsistent and guessing could
 * hand out the wrong identity); one unusable entry (see sdap_schema.c) gives ENOENT.
 */
#include "util/util.h"
#include "providers/ldap/sdap_private.h"

struct sdap_get_user_state {
    struct sdap_id_ctx *id_ctx;
    struct sdap_user *user;
};

static void sdap_get_user_done(struct tevent_req *subreq);

struct tevent_req *sdap_get_user_send(TALLOC_CTX *mem_ctx, struct tevent_context *ev,
                                      struct sdap_id_ctx *id_ctx, enum sdap_by by,
                                      const char *name, uint32_t id)
{
    struct sdap_get_user_state *state;
    struct tevent_req *req;
    struct tevent_req *subreq;
    errno_t ret;

    req = tevent_req_create(mem_ctx, &state, struct sdap_get_user_state);
    if (req == NULL) {
        return NULL;
    }
    if (!SDAP_ARG_VALID(ev != NULL) || !SDAP_ARG_VALID(id_ctx != NULL)) {
        return sdap_req_invalid(req, ev);
    }
    state->id_ctx = id_ctx;
    subreq = sdap_id_lookup_one_send(state, ev, id_ctx, &id_ctx->opts->users, by, name, id);
    if (subreq == NULL) {
        ret = ENOMEM;
        goto done;
    }
    tevent_req_set_callback(subreq, sdap_get_user_done, req);
    return req;
done:
    return sss_req_post(req, ev, ret);
}

static void sdap_get_user_done(struct tevent_req *subreq)
{
    struct tevent_req *req = tevent_req_callback_data(subreq, struct tevent_req);
    struct sdap_get_user_state *state = tevent_req_data(req, struct sdap_get_user_state);
    struct sdap_entry *entry = NULL;
    errno_t ret;

    ret = sdap_id_lookup_one_recv(state, subreq, &entry);
    talloc_free(subreq);
    if (ret != EOK) {
        goto done;
    }
    ret = sdap_parse_user(state, state->id_ctx->opts, entry, &state->user);
    if (ret == EINVAL) {
        ret = ENOENT;   /* unusable entry, logged */
    }
done:
    talloc_free(entry);
    if (ret != EOK) {
        tevent_req_error(req, ret);
        return;
    }
    tevent_req_done(req);
}

errno_t sdap_get_user_recv(TALLOC_CTX *mem_ctx, struct tevent_req *req,
                           struct sdap_user **_user)
{
    struct sdap_get_user_state *state = tevent_req_data(req, struct sdap_get_user_state);

    if (!SDAP_ARG_VALID(_user != NULL)) {
        return EINVAL;
    }
    TEVENT_REQ_RETURN_ON_ERROR(req);
    *_user = talloc_steal(mem_ctx, state->user);
    return EOK;
}
