/*
 * The by-SID commands of libsss_nss_idmap (nss_sid.h), as SSSD 2.8's nss responder
 * answers them:
 *   GETSIDBYNAME      a user of that name, else a group: its SID (type UID, or BOTH in a
 *                     domain with auto_private_groups = true; GID for a group);
 *   GETSIDBYUSERNAME, GETSIDBYGROUPNAME    the same, users or groups only;
 *   GETSIDBYID        a user with that uid, else a group with that gid; GETSIDBYUID,
 *                     GETSIDBYGID: users or groups only;
 *   GETNAMEBYSID, GETIDBYSID   the object a SID names: its output name, or its id;
 *   GETORIGBYGROUPNAME         a group's objectSIDString and originalDN (key, value pairs);
 *   GETORIGBYNAME     a user's original data (nss_orig_answer), else a group's, as SSSD
 *                     looks up an object by name.
 * Names and ids go through cache_req, as getpwnam does: the cache, else the back-end,
 * whose answer is cached (and a miss kept in the negative cache). A SID is turned into
 * the domain and id the domain's ID map gives it (nss_sid_map.c), then looked up by id:
 * a SID of a known domain that no object has is a by-id miss, asked once and then
 * answered from the negative cache. A SID no map holds but a directory of ours may
 * (ldap_id_mapping = false, a map still empty, a RID in a secondary slice) is looked up as
 * itself: the cache entry holding that objectSIDString, else the back-end ("secid=<SID>",
 * users then groups, every domain; misses negatively cached). A SID of a domain no map
 * holds, where every domain maps ids, is not found at once. As SSSD, no domain is asked
 * about a SID that is not a domain SID (S-1-5-21-...): a well-known one (S-1-1-0
 * Everyone, BUILTIN, NT AUTHORITY: lib/idmap/idmap_wellknown.h) is answered by name from
 * SSSD's table, and by id, as any other, with EINVAL; GETSIDBYNAME and GETORIGBYNAME of
 * such a name ("Everyone@WORLD AUTHORITY") give its SID. The SID of an object is the one its
 * cache entry holds (the directory's objectSid), else the one computed from its id through
 * the map; with neither, not found.
 * A malformed SID string is answered with status EINVAL; a body no client sends closes
 * the connection (EBADMSG), as for the other commands.
 */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "responder/nss/nss_sid.h"
#include "responder/common/resp_names.h"
#include "confdb/confdb.h"
#include "lib/idmap/idmap_wellknown.h"
#include "sss_client/sss_cli.h"

#define NSS_SID_MAX_STEPS 2

struct nss_sid_state {
    struct resp_request *rreq;
    struct nss_ctx *nctx;
    uint32_t cmd;
    const char *name;                   /* by name */
    const char *sid;                    /* by SID */
    struct resp_domain *sid_dom;        /* by SID: the domain whose map holds it */
    uint32_t id;                        /* by id, or the id the SID maps to */
    enum cache_req_type steps[NSS_SID_MAX_STEPS];
    size_t num_steps;
    size_t step;
    uint64_t start_usec;
};

static const char *nss_sid_cmd_name(uint32_t cmd)
{
    switch (cmd) {
    case SSS_NSS_GETSIDBYNAME: return "GETSIDBYNAME";
    case SSS_NSS_GETNAMEBYSID: return "GETNAMEBYSID";
    case SSS_NSS_GETIDBYSID: return "GETIDBYSID";
    case SSS_NSS_GETSIDBYID: return "GETSIDBYID";
    case SSS_NSS_GETSIDBYUID: return "GETSIDBYUID";
    case SSS_NSS_GETSIDBYGID: return "GETSIDBYGID";
    case SSS_NSS_GETORIGBYGROUPNAME: return "GETORIGBYGROUPNAME";
    case SSS_NSS_GETORIGBYNAME: return "GETORIGBYNAME";
    case SSS_NSS_GETSIDBYUSERNAME: return "GETSIDBYUSERNAME";
    case SSS_NSS_GETSIDBYGROUPNAME: return "GETSIDBYGROUPNAME";
    }
    return "?";
}

static bool nss_sid_is_user_step(enum cache_req_type t)
{
    return t == CACHE_REQ_USER_BY_NAME || t == CACHE_REQ_USER_BY_ID
           || t == CACHE_REQ_USER_BY_SID;
}

/* The request's key and lookups. EBADMSG, EINVAL as nss_request_parse() gives them. */
static errno_t nss_sid_setup(struct nss_sid_state *state, const uint8_t *body, size_t len)
{
    struct nss_request nreq;
    bool by_name = false;
    bool by_id = false;
    errno_t ret;

    switch (state->cmd) {
    case SSS_NSS_GETSIDBYNAME:
    case SSS_NSS_GETORIGBYNAME:
        state->steps[state->num_steps++] = CACHE_REQ_USER_BY_NAME;
        state->steps[state->num_steps++] = CACHE_REQ_GROUP_BY_NAME;
        by_name = true;
        break;
    case SSS_NSS_GETSIDBYUSERNAME:
        state->steps[state->num_steps++] = CACHE_REQ_USER_BY_NAME;
        by_name = true;
        break;
    case SSS_NSS_GETSIDBYGROUPNAME:
    case SSS_NSS_GETORIGBYGROUPNAME:
        state->steps[state->num_steps++] = CACHE_REQ_GROUP_BY_NAME;
        by_name = true;
        break;
    case SSS_NSS_GETSIDBYID:
        state->steps[state->num_steps++] = CACHE_REQ_USER_BY_ID;
        state->steps[state->num_steps++] = CACHE_REQ_GROUP_BY_ID;
        by_id = true;
        break;
    case SSS_NSS_GETSIDBYUID:
        state->steps[state->num_steps++] = CACHE_REQ_USER_BY_ID;
        by_id = true;
        break;
    case SSS_NSS_GETSIDBYGID:
        state->steps[state->num_steps++] = CACHE_REQ_GROUP_BY_ID;
        by_id = true;
        break;
    case SSS_NSS_GETNAMEBYSID:
    case SSS_NSS_GETIDBYSID:
        state->steps[state->num_steps++] = CACHE_REQ_USER_BY_ID;
        state->steps[state->num_steps++] = CACHE_REQ_GROUP_BY_ID;
        return nss_sid_request_parse(body, len, &state->sid);
    default:
        return EINVAL;
    }
    /* Names and ids have the bodies of getpwnam and getpwuid. */
    ret = nss_request_parse(by_name ? SSS_NSS_GETPWNAM : SSS_NSS_GETPWUID, body, len, &nreq);
    if (ret != EOK) {
        return ret;
    }
    if (by_name) {
        state->name = nreq.name;
    }
    if (by_id) {
        state->id = nreq.id;
    }
    return EOK;
}

/* The SID spelled as the directory's objectSid reads back (decimal, no leading zeros): the
 * form the cache stores and the ID maps compare, so that "S-1-5-21-1-2-3-01104" finds what
 * "...-1104" finds. EINVAL: the binary form cannot hold it (an authority written in hex):
 * no directory entry has that SID. */
static errno_t nss_sid_canonical(struct nss_sid_state *state)
{
    uint8_t *bin = NULL;
    char *canon = NULL;
    size_t len = 0;
    errno_t ret;

    ret = idmap_str_sid_to_bin(state, state->sid, &bin, &len);
    if (ret == EOK) {
        ret = idmap_bin_sid_to_str(state, bin, len, &canon);
    }
    talloc_free(bin);
    if (ret == EOK) {
        state->sid = canon;
    }
    return ret == ENOMEM ? ENOMEM : (ret == EOK ? EOK : EINVAL);
}

static void nss_sid_log(struct nss_sid_state *state, struct cache_req_result *res,
                        errno_t ret)
{
    uint64_t d = sss_monotonic_usec() - state->start_usec;
    char key[32];

    if (!debug_enabled(SSSDBG_TRACE_FUNC)) {
        return;
    }
    snprintf(key, sizeof(key), "%u", state->id);
    DEBUG(SSSDBG_TRACE_FUNC, "%s %s: %s%s, %llu.%03llu ms\n", nss_sid_cmd_name(state->cmd),
          state->sid != NULL ? state->sid : (state->name != NULL ? state->name : key),
          ret == EOK ? "found in " : (ret == ENOENT ? "not found" : "failed: "),
          ret == EOK ? res->domain->name : (ret == ENOENT ? "" : sss_strerror(ret)),
          (unsigned long long)(d / 1000), (unsigned long long)(d % 1000));
}

static void nss_sid_step_done(struct tevent_req *subreq);

static errno_t nss_sid_step(struct nss_sid_state *state)
{
    struct tevent_req *subreq;
    enum cache_req_type type = state->steps[state->step];
    bool by_name = type == CACHE_REQ_USER_BY_NAME || type == CACHE_REQ_GROUP_BY_NAME;
    bool by_sid = type == CACHE_REQ_USER_BY_SID || type == CACHE_REQ_GROUP_BY_SID;

    subreq = cache_req_send(state, resp_request_ev(state->rreq), state->nctx->rctx, type,
                            by_name ? state->name : (by_sid ? state->sid : NULL), state->id,
                            0, resp_request_id(state->rreq));
    if (subreq == NULL) {
        return ENOMEM;
    }
    tevent_req_set_callback(subreq, nss_sid_step_done, state);
    return EOK;
}

/* GETORIGBYGROUPNAME: the group's SID and DN, as SSSD's key names. */
static struct resp_reply *nss_sid_orig_group(struct nss_sid_state *state,
                                             struct cache_req_result *res, const char *sid)
{
    const char *pairs[5] = { NULL };
    struct nss_reply *reply;
    size_t n = 0;

    if (sid != NULL) {
        pairs[n++] = "objectSIDString";
        pairs[n++] = sid;
    }
    if (res->group->orig_dn != NULL) {
        pairs[n++] = "originalDN";
        pairs[n++] = res->group->orig_dn;
    }
    reply = nss_reply_new(state, state->cmd, state->nctx->pwfield);
    if (reply == NULL
            || nss_reply_orig_add(reply, nss_sid_type_of(state->nctx, res->domain,
                                                         res->group), pairs) != EOK) {
        talloc_free(reply);
        return NULL;
    }
    return nss_reply_finish(state->rreq, reply);
}

/* GETORIGBYNAME of a user: what GETORIGBYUSERNAME sends. */
static struct resp_reply *nss_sid_orig_user(struct nss_sid_state *state,
                                            struct cache_req_result *res)
{
    struct nss_reply *reply;

    reply = nss_reply_new(state, state->cmd, state->nctx->pwfield);
    if (reply == NULL || nss_orig_answer(state->nctx, reply, res) != EOK) {
        talloc_free(reply);
        return NULL;
    }
    return nss_reply_finish(state->rreq, reply);
}

/* The reply for res; ENOENT when it has nothing to say about it (no SID). */
static errno_t nss_sid_answer(struct nss_sid_state *state, struct cache_req_result *res,
                              bool user, struct resp_reply **_reply)
{
    struct resp_ctx *rctx = state->nctx->rctx;
    uint32_t id = user ? res->user->uid : res->group->gid;
    uint32_t type = nss_sid_type_of(state->nctx, res->domain, user ? NULL : res->group);
    struct resp_reply *reply = NULL;
    char *sid = NULL;
    char *name;
    errno_t ret;

    switch (state->cmd) {
    case SSS_NSS_GETORIGBYNAME:
        if (user) {
            reply = nss_sid_orig_user(state, res);
            break;
        }
        /* A group: as GETORIGBYGROUPNAME. */
        ret = nss_sid_of_entry(state, state->nctx, res->domain, res->group->sid, id, &sid);
        if (ret == ENOMEM) {
            return ENOMEM;
        }
        reply = nss_sid_orig_group(state, res, ret == EOK ? sid : NULL);
        break;
    case SSS_NSS_GETNAMEBYSID:
        name = resp_output_name(state, rctx, res->domain, res->short_name);
        reply = name != NULL ? nss_sid_reply_str(state->rreq, state->cmd, type, name) : NULL;
        break;
    case SSS_NSS_GETIDBYSID:
        reply = nss_sid_reply_id(state->rreq, state->cmd, type, id);
        break;
    default:
        ret = nss_sid_of_entry(state, state->nctx, res->domain,
                               user ? res->user->sid : res->group->sid, id, &sid);
        if (ret == ENOMEM) {
            return ENOMEM;
        }
        if (state->cmd == SSS_NSS_GETORIGBYGROUPNAME) {
            reply = nss_sid_orig_group(state, res, ret == EOK ? sid : NULL);
            break;
        }
        if (ret != EOK) {
            DEBUG(SSSDBG_TRACE_FUNC, "%s: %s of %s has no SID here (%s)\n",
                  nss_sid_cmd_name(state->cmd), user ? "user" : "group", res->domain->name,
                  ret == ENOTSUP ? "ldap_id_mapping = false" : "id not mapped");
            return ENOENT;
        }
        reply = nss_sid_reply_str(state->rreq, state->cmd, type, sid);
        break;
    }
    if (reply == NULL) {
        return ENOMEM;
    }
    *_reply = reply;
    return EOK;
}

static void nss_sid_step_done(struct tevent_req *subreq)
{
    struct nss_sid_state *state = tevent_req_callback_data(subreq, struct nss_sid_state);
    struct resp_request *rreq = state->rreq;
    struct cache_req_result *res = NULL;
    struct resp_reply *reply = NULL;
    bool user = nss_sid_is_user_step(state->steps[state->step]);
    errno_t ret;

    SSS_REQ_ID_SCOPE(resp_request_id(rreq));
    ret = cache_req_recv(state, subreq, &res);
    talloc_free(subreq);
    if (ret == EOK && state->sid_dom != NULL && res->domain != state->sid_dom) {
        /* Another domain's object with the same id: not the one the SID names. */
        ret = ENOENT;
    }
    if (ret == EOK) {
        ret = nss_sid_answer(state, res, user, &reply);
    }
    if (ret == ENOENT && ++state->step < state->num_steps) {
        ret = nss_sid_step(state);
        if (ret == EOK) {
            return;
        }
    }
    nss_sid_log(state, res, ret);
    if (ret == ENOENT) {
        reply = nss_sid_reply_none(rreq, state->cmd);
        ret = reply != NULL ? EOK : ENOMEM;
    }
    if (ret == EOK) {
        ret = resp_request_done(rreq, reply);
    }
    if (ret != EOK) {
        DEBUG(SSSDBG_OP_FAILURE, "Cannot answer %s: %s\n", nss_sid_cmd_name(state->cmd),
              sss_strerror(ret));
        resp_request_done_status(rreq, ret == ENOMEM ? ENOMEM : EIO);
    }
    talloc_free(state);
}

/* [sssd] full_name_format, SSSD's default when unset; NULL on ENOMEM. */
static char *nss_sid_global_format(TALLOC_CTX *mem_ctx, struct resp_ctx *rctx)
{
    char *format = NULL;

    if (confdb_get_string(rctx->cdb, mem_ctx, "sssd", "full_name_format", &format) != EOK
            || format == NULL) {
        format = talloc_strdup(mem_ctx, "%1$s@%2$s");
    }
    return format;
}

/* A SID that is not a domain SID, answered here as SSSD answers it, no domain asked: a
 * well-known one (idmap_wellknown.h) by name is a group named "name@domain" through
 * [sssd] full_name_format (*_reply); by id, or any other such SID: EINVAL, the error
 * status SSSD sends (no id, nothing to look up), which libsss_nss_idmap reports as ENOENT.
 * ENOENT: a domain SID. ENOMEM. */
static errno_t nss_sid_wellknown(struct nss_sid_state *state, struct resp_reply **_reply)
{
    struct resp_ctx *rctx = state->nctx->rctx;
    const char *dom = NULL;
    const char *name = NULL;
    char *format;
    char *fq;
    errno_t ret;

    ret = idmap_wellknown_sid(state->sid, &dom, &name);
    if (ret == ENOENT) {
        return ENOENT;
    }
    if (ret != EOK || state->cmd != SSS_NSS_GETNAMEBYSID) {
        DEBUG(SSSDBG_TRACE_FUNC, "%s %s: %s: no domain asked\n", nss_sid_cmd_name(state->cmd),
              state->sid, ret == EOK ? "a well-known SID has no id"
                                     : "neither a domain SID nor a well-known one");
        return EINVAL;
    }
    format = nss_sid_global_format(state, rctx);
    fq = format != NULL ? resp_format_fqname(state, format, name, dom) : NULL;
    *_reply = fq != NULL ? nss_sid_reply_str(state->rreq, state->cmd, NSS_SID_TYPE_GID, fq)
                         : NULL;
    if (*_reply == NULL) {
        return ENOMEM;
    }
    DEBUG(SSSDBG_TRACE_FUNC, "%s %s: well-known: %s\n", nss_sid_cmd_name(state->cmd),
          state->sid, fq);
    return EOK;
}

/* GETSIDBYNAME, GETORIGBYNAME of "name@domain" naming a well-known SID (SSSD's default
 * re_expression: one '@', the domain after it): that SID (GETORIGBYNAME: as its one
 * objectSIDString pair), a group, no domain asked, as SSSD answers it. ENOENT: not a
 * well-known name, looked up as any other. ENOMEM. */
static errno_t nss_sid_wellknown_name(struct nss_sid_state *state, struct resp_reply **_reply)
{
    const char *at = strchr(state->name, '@');
    const char *pairs[3] = { "objectSIDString", NULL, NULL };
    struct nss_reply *orig;
    const char *sid = NULL;
    char *name;

    if (at == NULL || at == state->name || strchr(at + 1, '@') != NULL) {
        return ENOENT;
    }
    name = talloc_strndup(state, state->name, (size_t)(at - state->name));
    if (name == NULL) {
        return ENOMEM;
    }
    if (idmap_wellknown_name(at + 1, name, &sid) != EOK) {
        return ENOENT;
    }
    DEBUG(SSSDBG_TRACE_FUNC, "%s %s: well-known: %s\n", nss_sid_cmd_name(state->cmd),
          state->name, sid);
    if (state->cmd == SSS_NSS_GETORIGBYNAME) {
        pairs[1] = sid;
        orig = nss_reply_new(state, state->cmd, state->nctx->pwfield);
        if (orig == NULL || nss_reply_orig_add(orig, NSS_SID_TYPE_GID, pairs) != EOK) {
            talloc_free(orig);
            return ENOMEM;
        }
        *_reply = nss_reply_finish(state->rreq, orig);
    } else {
        *_reply = nss_sid_reply_str(state->rreq, state->cmd, NSS_SID_TYPE_GID, sid);
    }
    return *_reply != NULL ? EOK : ENOMEM;
}

/* GETNAMEBYSID, GETIDBYSID: what to look up. EAGAIN: the lookups are set (by id when a
 * domain's map holds the SID, else by the SID itself). Else answered at once: EOK with
 * *_reply, EINVAL (the status to answer), ENOMEM. */
static errno_t nss_sid_by_sid_setup(struct nss_sid_state *state, struct resp_reply **_reply)
{
    bool ask = false;
    errno_t ret;

    ret = nss_sid_canonical(state);
    if (ret == EOK) {
        ret = nss_sid_wellknown(state, _reply);
        if (ret != ENOENT) {
            return ret;
        }
        ret = nss_sid_to_id(state->nctx, state->sid, &state->sid_dom, &state->id, &ask);
        if (ret == EOK) {
            return EAGAIN;
        }
        if (ret == ENOENT && ask) {
            /* No map holds it, a directory may: the object whose stored SID it is. */
            state->steps[0] = CACHE_REQ_USER_BY_SID;
            state->steps[1] = CACHE_REQ_GROUP_BY_SID;
            return EAGAIN;
        }
        if (ret == ENOENT) {
            DEBUG(SSSDBG_TRACE_FUNC, "%s %s: of no domain an ID map holds: no domain asked\n",
                  nss_sid_cmd_name(state->cmd), state->sid);
        }
    }
    if (ret != EINVAL && ret != ENOENT) {
        return ret;
    }
    /* Spelled in a way no directory stores (EINVAL), or of a domain no map of ours holds
     * (another forest's, or one the back-end never met): not found, no domain asked. */
    nss_sid_log(state, NULL, ENOENT);
    *_reply = nss_sid_reply_none(state->rreq, state->cmd);
    return *_reply != NULL ? EOK : ENOMEM;
}

errno_t nss_cmd_sid(struct resp_request *rreq)
{
    struct nss_ctx *nctx = talloc_get_type(resp_request_pvt(rreq), struct nss_ctx);
    struct nss_sid_state *state;
    struct resp_reply *reply;
    const uint8_t *body;
    size_t len;
    errno_t ret;

    state = talloc_zero(rreq, struct nss_sid_state);
    if (state == NULL) {
        return ENOMEM;
    }
    state->rreq = rreq;
    state->nctx = nctx;
    state->cmd = resp_request_cmd(rreq);
    state->start_usec = sss_monotonic_usec();
    body = resp_request_body(rreq, &len);
    ret = nss_sid_setup(state, body, len);
    if (ret == EBADMSG) {
        talloc_free(state);
        return EBADMSG;
    }
    if (ret != EOK) {
        DEBUG(SSSDBG_TRACE_FUNC, "%s: refused: %s\n", nss_sid_cmd_name(state->cmd),
              state->cmd == SSS_NSS_GETNAMEBYSID || state->cmd == SSS_NSS_GETIDBYSID
                  ? "not a SID string" : "not a valid name");
        talloc_free(state);
        return resp_request_done_status(rreq, EINVAL);
    }
    reply = NULL;
    ret = EAGAIN;
    if (state->sid != NULL) {
        ret = nss_sid_by_sid_setup(state, &reply);
    } else if (state->cmd == SSS_NSS_GETSIDBYNAME || state->cmd == SSS_NSS_GETORIGBYNAME) {
        ret = nss_sid_wellknown_name(state, &reply);
        ret = ret == ENOENT ? EAGAIN : ret;
    }
    if (ret != EAGAIN) {
        /* state goes first: answering may end rreq, state's parent. */
        talloc_free(state);
        if (ret == EOK) {
            return resp_request_done(rreq, reply);
        }
        return ret == EINVAL ? resp_request_done_status(rreq, EINVAL) : ret;
    }
    ret = nss_sid_step(state);
    if (ret != EOK) {
        talloc_free(state);
    }
    return ret;
}
