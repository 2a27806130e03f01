/*
 * One getAccountInfo request, independent of the bus (the unit tests call it directly):
 *   1. parse entry_type and filter ("name=<name>", "idnumber=<id>", "*"); malformed ->
 *      SSS_DP_ERR_FATAL / EINVAL with a message;
 *   2. unsupported id_provider -> SSS_DP_ERR_FATAL / ENOTSUP (an LDAP configuration sdap
 *      refused: ERR_INVALID_CONFIG); offline -> SSS_DP_ERR_OFFLINE /
 *      ENETUNREACH at once, without waiting on LDAP;
 *   3. a group request for a group the member prefetch has queued or in flight waits for
 *      its batch (be_prefetch.c), and takes the steps below only if the batch did not
 *      store it;
 *      join an identical operation in flight (key: entry type + filter), or start one:
 *      be_id_ldap_send, or be_enum_send for "*"; an operation that fails because the
 *      connection broke under it (EIO, ENOTCONN) is restarted, at most BE_OP_RESTARTS
 *      times (a lossy link may reset the new connection too);
 *   4. when it ends, map its result: EOK -> OK; ENETUNREACH -> go offline, OFFLINE;
 *      ETIMEDOUT -> TIMEOUT; anything else -> FATAL with the errno and a message; and answer
 *      every request that joined it, each with its own log line (type, filter, result,
 *      duration) under its own request id.
 * The operation lives on the be_ctx, not on any caller, so a caller going away never
 * cancels a cache write another caller waits for.
 */
#include <assert.h>
#include <stdio.h>
#include <stdlib.h>

#include "providers/backend/be_ctx.h"
#include "providers/backend/be_netgr.h"
#include "sss_iface/sss_dp.h"
#include "lib/idmap/idmap.h"

struct be_account_info_state;

/* Restarts of an operation whose connection broke under it. */
#define BE_OP_RESTARTS 2

struct be_op {
    struct sss_list link;                   /* in be->ops while it runs */
    struct be_ctx *be;
    char *key;
    uint64_t req_id;                        /* of the request that started it */
    uint32_t type;
    struct be_filter filter;
    bool is_enum;                           /* be_enum_send, else be_id_ldap_send */
    unsigned int restarts;                  /* after a broken connection */
    struct sss_list waiters;                /* requests to answer (their link) */
};

struct be_account_info_state {
    struct sss_list link;       /* in op->waiters while attached */
    struct tevent_req *req;
    struct be_ctx *be;
    struct be_op *op;           /* the operation it waits for; NULL when none */
    uint32_t type;
    char *filter;
    uint64_t req_id;
    uint64_t start_usec;
    bool coalesced;
    bool on_prefetch;           /* waiting for a member prefetch batch */
    bool reply_first;           /* be_account_info_reply_first() */
    uint16_t dp_error;
    uint32_t error;
    const char *message;
};

static const char *be_type_name(uint32_t type)
{
    switch (type) {
    case SSS_DP_USER: return "user";
    case SSS_DP_GROUP: return "group";
    case SSS_DP_INITGROUPS: return "initgroups";
    case SSS_DP_NETGROUP: return "netgroup";
    default: return "unknown";
    }
}

/* The entry argument of the be_request probes: the type, "enum_users" / "enum_groups" for
 * "*". */
static const char *be_entry_name(uint32_t type, const char *filter)
{
    if (filter != NULL && strcmp(filter, SSS_DP_FILTER_ENUM) == 0) {
        if (type == SSS_DP_USER) {
            return "enum_users";
        }
        if (type == SSS_DP_GROUP) {
            return "enum_groups";
        }
    }
    return be_type_name(type);
}

static void be_account_probe_done(struct be_account_info_state *state, uint16_t dp_error,
                                   int result)
{
    PROBE(BE_REQUEST_DONE, state->req_id, state->be->domain,
          be_entry_name(state->type, state->filter), state->filter, (int)dp_error, result);
}

/* A SID string the directory could hold: "S-1-..." that converts to its binary form. */
static bool be_sid_valid(const char *sid)
{
    uint8_t *bin = NULL;
    size_t len = 0;
    bool ok;

    ok = idmap_str_sid_to_bin(NULL, sid, &bin, &len) == EOK;
    talloc_free(bin);
    return ok;
}

errno_t be_parse_filter(uint32_t type, const char *filter, struct be_filter *_f,
                               const char **_why)
{
    const char *arg;
    char *end;
    unsigned long long id;

    memset(_f, 0, sizeof(*_f));
    if (type != SSS_DP_USER && type != SSS_DP_GROUP && type != SSS_DP_INITGROUPS
            && type != SSS_DP_NETGROUP) {
        *_why = "unknown entry type";
        return EINVAL;
    }
    if (filter == NULL) {
        *_why = "no filter";
        return EINVAL;
    }
    if (strcmp(filter, SSS_DP_FILTER_ENUM) == 0) {
        if (type == SSS_DP_INITGROUPS || type == SSS_DP_NETGROUP) {
            *_why = "initgroups and netgroups cannot be enumerated";
            return EINVAL;
        }
        _f->kind = BE_FILTER_ENUM;
        return EOK;
    }
    if (strncmp(filter, SSS_DP_FILTER_NAME, strlen(SSS_DP_FILTER_NAME)) == 0) {
        arg = filter + strlen(SSS_DP_FILTER_NAME);
        if (*arg == '\0') {
            *_why = "empty name";
            return EINVAL;
        }
        _f->kind = BE_FILTER_NAME;
        _f->name = arg;
        return EOK;
    }
    if (strncmp(filter, SSS_DP_FILTER_MAIL, strlen(SSS_DP_FILTER_MAIL)) == 0) {
        arg = filter + strlen(SSS_DP_FILTER_MAIL);
        if (type != SSS_DP_USER) {
            *_why = "only users are looked up by e-mail address";
            return EINVAL;
        }
        if (*arg == '\0') {
            *_why = "empty e-mail address";
            return EINVAL;
        }
        _f->kind = BE_FILTER_MAIL;
        _f->name = arg;
        return EOK;
    }
    if (strncmp(filter, SSS_DP_FILTER_SID, strlen(SSS_DP_FILTER_SID)) == 0) {
        arg = filter + strlen(SSS_DP_FILTER_SID);
        if (type != SSS_DP_USER && type != SSS_DP_GROUP) {
            *_why = "only users and groups are looked up by SID";
            return EINVAL;
        }
        if (!be_sid_valid(arg)) {
            *_why = "not a SID string";
            return EINVAL;
        }
        _f->kind = BE_FILTER_SID;
        _f->name = arg;
        return EOK;
    }
    if (strncmp(filter, SSS_DP_FILTER_ID, strlen(SSS_DP_FILTER_ID)) == 0) {
        arg = filter + strlen(SSS_DP_FILTER_ID);
        if (type == SSS_DP_INITGROUPS || type == SSS_DP_NETGROUP) {
            *_why = "initgroups and netgroups take a name";
            return EINVAL;
        }
        if (*arg < '0' || *arg > '9') {
            *_why = "the id is not a decimal number";
            return EINVAL;
        }
        errno = 0;
        id = strtoull(arg, &end, 10);
        if (errno != 0 || *end != '\0' || id > UINT32_MAX) {
            *_why = "the id is not a decimal number in 0..4294967295";
            return EINVAL;
        }
        _f->kind = BE_FILTER_ID;
        _f->id = (uint32_t)id;
        return EOK;
    }
    *_why = "expected name=<name>, idnumber=<id>, mail=<address> or *";
    return EINVAL;
}

static int be_account_info_state_destructor(struct be_account_info_state *state)
{
    sss_list_unlink(&state->link);
    state->op = NULL;
    return 0;
}

/* The per-request log line, under the request's id. */
static void be_account_info_log(struct be_account_info_state *state)
{
    uint64_t d = sss_monotonic_usec() - state->start_usec;
    SSS_REQ_ID_SCOPE(state->req_id);

    DEBUG(SSSDBG_TRACE_FUNC, "getAccountInfo %s %s: dp_error %u, error %u, %llu.%03llu ms%s: "
          "%s\n", be_type_name(state->type), state->filter, state->dp_error, state->error,
          (unsigned long long)(d / 1000), (unsigned long long)(d % 1000),
          state->coalesced ? " (joined a request in flight)" : "", state->message);
}

static void be_account_info_answer(struct tevent_req *req, uint16_t dp_error, uint32_t error,
                                   const char *message)
{
    struct be_account_info_state *state = tevent_req_data(req, struct be_account_info_state);

    state->dp_error = dp_error;
    state->error = error;
    state->message = talloc_strdup(state, message);
    if (state->message == NULL) {
        tevent_req_error(req, ENOMEM);
        return;
    }
    be_account_info_log(state);
    be_account_probe_done(state, dp_error, (int)error);
    tevent_req_done(req);
}

/* sdap / sysdb result -> (dp_error, error, message); goes offline on ENETUNREACH. */
static uint16_t be_map_result(TALLOC_CTX *mem_ctx, struct be_ctx *be, errno_t ret,
                              char **_message)
{
    switch (ret) {
    case EOK:
        *_message = talloc_strdup(mem_ctx, "Success");
        break;
    case ENETUNREACH:
        be_go_offline(be, "no LDAP server reachable");
        *_message = talloc_asprintf(mem_ctx, "no server of domain %s is reachable: offline",
                                    be->domain);
        break;
    case ETIMEDOUT:
        *_message = talloc_strdup(mem_ctx, "the directory did not answer in time");
        break;
    case EOVERFLOW:
        *_message = talloc_strdup(mem_ctx, "the directory returned a partial answer (a size "
                                  "or administrative limit, or a referral): the cache is "
                                  "kept as it was (see the log)");
        break;
    case EINVAL:
        *_message = talloc_strdup(mem_ctx, "the directory holds several entries for this "
                                  "name or id, or the request is invalid (see the log)");
        break;
    default:
        *_message = talloc_asprintf(mem_ctx, "lookup failed: %s", sss_strerror(ret));
        break;
    }
    return be_dp_error_of(ret);
}

static void be_op_done(struct tevent_req *subreq);

static struct be_op *be_op_find(struct be_ctx *be, const char *key)
{
    struct be_op *op;

    sss_list_for_each_entry(op, &be->ops, link) {
        if (strcmp(op->key, key) == 0) {
            return op;
        }
    }
    return NULL;
}

/* An operation freed with waiters still attached (the be_ctx going away): detach them. */
static int be_op_destructor(struct be_op *op)
{
    struct be_account_info_state *w;
    struct be_account_info_state *tmp;

    sss_list_for_each_entry_safe(w, tmp, &op->waiters, link) {
        sss_list_unlink(&w->link);
        w->op = NULL;
    }
    sss_list_unlink(&op->link);
    return 0;
}

/* Starts (or restarts) the provider operation behind op. */
static errno_t be_op_run(struct be_op *op)
{
    struct tevent_req *subreq;

    if (op->is_enum) {
        subreq = be_enum_send(op, op->be->ev, op->be,
                              op->type == SSS_DP_USER ? BE_ENUM_USERS : BE_ENUM_GROUPS);
    } else if (op->type == SSS_DP_NETGROUP) {
        subreq = be_netgr_send(op, op->be->ev, op->be, op->filter.name);
    } else {
        subreq = be_id_send(op, op->be->ev, op->be, op->type, &op->filter);
    }
    if (subreq == NULL) {
        return ENOMEM;
    }
    tevent_req_set_callback(subreq, be_op_done, op);
    op->be->stats.operations++;
    op->be->last_op_usec = sss_monotonic_usec();
    return EOK;
}

static errno_t be_op_start(struct be_ctx *be, const char *key, uint32_t type,
                           const struct be_filter *f, uint64_t req_id, struct be_op **_op)
{
    struct be_op *op;
    errno_t ret;

    op = talloc_zero(be, struct be_op);
    if (op == NULL) {
        return ENOMEM;
    }
    sss_list_init(&op->waiters);
    talloc_set_destructor(op, be_op_destructor);
    op->be = be;
    op->req_id = req_id;
    op->type = type;
    op->filter = *f;
    op->is_enum = f->kind == BE_FILTER_ENUM;
    op->key = talloc_strdup(op, key);
    if (op->key == NULL || (f->name != NULL
                            && (op->filter.name = talloc_strdup(op, f->name)) == NULL)) {
        talloc_free(op);
        return ENOMEM;
    }
    ret = be_op_run(op);
    if (ret != EOK) {
        talloc_free(op);
        return ret;
    }
    sss_list_link_front(&be->ops, &op->link);
    *_op = op;
    return EOK;
}

static void be_account_attach(struct be_account_info_state *state, struct be_op *op)
{
    assert(state->op == NULL && sss_list_is_linked(&op->link));
    state->op = op;
    sss_list_link_front(&op->waiters, &state->link);
}

/* The prefetch batch a group request waited for is over (called from the loop). EOK: the
 * group is stored, answer. Otherwise the request takes the normal path now: offline
 * answer, or an operation of its own (or one in flight for the same filter). */
static void be_account_prefetch_done(void *pvt, errno_t result)
{
    struct be_account_info_state *state = talloc_get_type(pvt, struct be_account_info_state);
    struct be_ctx *be = state->be;
    const char *why = NULL;
    struct be_filter f;
    struct be_op *op;
    char *key;
    char *msg;
    errno_t ret;
    SSS_REQ_ID_SCOPE(state->req_id);

    state->on_prefetch = false;
    tevent_req_defer_callback(state->req, be->ev);
    if (result == EOK) {
        be_account_info_answer(state->req, SSS_DP_ERR_OK, EOK, "Success");
        return;
    }
    DEBUG(SSSDBG_TRACE_FUNC, "group %s: the prefetch did not store it (%s), own lookup\n",
          state->filter, sss_strerror(result));
    state->coalesced = false;
    ret = be_parse_filter(state->type, state->filter, &f, &why);
    if (ret != EOK) {
        tevent_req_error(state->req, ret);
        return;
    }
    if (be_is_offline(be)) {
        be_offline_request_seen(be);
        msg = talloc_asprintf(state, "domain %s is offline", be->domain);
        be_account_info_answer(state->req, SSS_DP_ERR_OFFLINE, ENETUNREACH,
                               msg ? msg : "offline");
        return;
    }
    key = talloc_asprintf(state, "%u:%s", state->type, state->filter);
    if (key == NULL) {
        tevent_req_error(state->req, ENOMEM);
        return;
    }
    op = be_op_find(be, key);
    if (op == NULL) {
        ret = be_op_start(be, key, state->type, &f, state->req_id, &op);
        if (ret != EOK) {
            talloc_free(key);
            be_account_probe_done(state, SSS_DP_ERR_FATAL, ret);
            tevent_req_error(state->req, ret);
            return;
        }
    }
    talloc_free(key);
    be_account_attach(state, op);
}

struct tevent_req *be_account_info_send(TALLOC_CTX *mem_ctx, struct tevent_context *ev,
                                        struct be_ctx *be, uint32_t entry_type,
                                        const char *filter, uint64_t req_id)
{
    struct be_account_info_state *state;
    struct tevent_req *req;
    struct be_filter f;
    struct be_op *op = NULL;
    const char *why = NULL;
    char *key = NULL;
    char *msg;
    errno_t parsed;
    errno_t ret;

    req = tevent_req_create(mem_ctx, &state, struct be_account_info_state);
    if (req == NULL) {
        return NULL;
    }
    /* Everything this request does from here, to its post, runs under its id. */
    SSS_REQ_ID_SCOPE(req_id);
    /* A missing or malformed filter is not bad use: it is answered as malformed. */
    SSS_CHECK_ARG(be != NULL, sss_req_post(req, ev, EINVAL));
    state->req = req;
    state->be = be;
    state->type = entry_type & SSS_DP_TYPE_MASK;
    state->req_id = req_id;
    state->start_usec = sss_monotonic_usec();
    state->filter = talloc_strdup(state, filter != NULL ? filter : "(null)");
    if (state->filter == NULL) {
        ret = ENOMEM;
        goto fail;
    }
    be->stats.requests++;
    talloc_set_destructor(state, be_account_info_state_destructor);

    parsed = be_parse_filter(state->type, filter, &f, &why);
    if (parsed == EOK && be->id_supported && !be_is_offline(be) && state->type == SSS_DP_GROUP
            && f.kind != BE_FILTER_ENUM
            && be_prefetch_join(be, &f, state, be_account_prefetch_done, state)) {
        state->on_prefetch = true;
        state->coalesced = true;
    } else if (parsed == EOK && be->id_supported && !be_is_offline(be)) {
        key = talloc_asprintf(state, "%u:%s", state->type, filter);
        if (key == NULL) {
            ret = ENOMEM;
            goto fail;
        }
        op = be_op_find(be, key);
        state->coalesced = op != NULL;
    }
    PROBE(BE_REQUEST_START, req_id, be->domain, be_entry_name(state->type, state->filter),
          state->filter, state->coalesced ? 1 : 0);

    if (parsed != EOK) {
        msg = talloc_asprintf(state, "malformed request (entry type %#x, filter '%s'): %s",
                              entry_type, state->filter, why);
        be_account_info_answer(req, SSS_DP_ERR_FATAL, EINVAL, msg ? msg : "malformed request");
        goto post;
    }
    if (!be->id_supported) {
        be_account_info_answer(req, SSS_DP_ERR_FATAL, (uint32_t)be->id_error,
                               be->id_error_msg);
        goto post;
    }
    if (be_is_offline(be)) {
        be_offline_request_seen(be);
        msg = talloc_asprintf(state, "domain %s is offline", be->domain);
        be_account_info_answer(req, SSS_DP_ERR_OFFLINE, ENETUNREACH, msg ? msg : "offline");
        goto post;
    }

    if (state->on_prefetch) {
        be->stats.coalesced++;
        DEBUG(SSSDBG_TRACE_INTERNAL, "group %s waits for its member prefetch batch\n",
              filter);
        return req;
    }
    if (op != NULL) {
        be->stats.coalesced++;
        DEBUG(SSSDBG_TRACE_INTERNAL, "%s %s joins the request in flight (req_id %llu)\n",
              be_type_name(state->type), filter, (unsigned long long)op->req_id);
    } else {
        ret = be_op_start(be, key, state->type, &f, req_id, &op);
        if (ret != EOK) {
            goto fail;
        }
    }
    talloc_free(key);
    be_account_attach(state, op);
    return req;

fail:
    be_account_probe_done(state, SSS_DP_ERR_FATAL, ret);
    tevent_req_error(req, ret);
post:
    return tevent_req_post(req, ev);
}

/* Whether every request waiting for op takes the entry from its answer and reads no cache
 * in its callback (be_reply_first.c). */
static bool be_op_replies_first(struct be_op *op)
{
    struct be_account_info_state *w;
    bool any = false;

    sss_list_for_each_entry(w, &op->waiters, link) {
        if (!w->reply_first) {
            return false;
        }
        any = true;
    }
    return any;
}

static void be_op_done(struct tevent_req *subreq)
{
    struct be_op *op = tevent_req_callback_data(subreq, struct be_op);
    struct be_ctx *be = op->be;
    struct be_account_info_state *w;
    struct be_user_later *later;
    bool replied_first = false;
    char *message = NULL;
    uint16_t dp_error;
    errno_t ret;
    SSS_REQ_ID_SCOPE(op->req_id);

    assert(sss_list_is_linked(&op->link));
    ret = op->is_enum ? be_enum_recv(subreq)
                      : (op->type == SSS_DP_NETGROUP ? be_netgr_recv(subreq)
                                                     : be_id_recv(subreq));
    talloc_free(subreq);
    if ((ret == EIO || ret == ENOTCONN) && op->restarts < BE_OP_RESTARTS) {
        /* The connection broke under the operation: again, on a new connection to the
         * same server (a reset) or to the next one (a server marked bad). Bounded: each
         * restart connects anew, and a server that then fails is marked bad. */
        op->restarts++;
        DEBUG(SSSDBG_TRACE_FUNC, "%s: connection lost (%s), restart %u of %d\n", op->key,
              sss_strerror(ret), op->restarts, BE_OP_RESTARTS);
        if (be_op_run(op) == EOK) {
            return;
        }
        /* Cannot even restart (out of memory): the first error is the answer. */
    }
    later = be_user_later_take(be);
    if (later != NULL) {
        talloc_steal(op, later);
        replied_first = ret == EOK && be_op_replies_first(op)
                        && be_reply_first_begin(be, later) == EOK;
        if (ret == EOK && !replied_first) {
            ret = be_user_later_store(be, later);
        }
    }
    dp_error = be_map_result(op, be, ret, &message);
    be->last_op_usec = sss_monotonic_usec();

    /* Out of the list first: a request arriving from here on starts a new operation. */
    sss_list_unlink(&op->link);
    while ((w = sss_list_first_entry(&op->waiters, struct be_account_info_state, link))
           != NULL) {
        /* Callers run from the loop, after this operation is gone, each under its own id. */
        SSS_REQ_ID_SCOPE(w->req_id);

        sss_list_unlink(&w->link);
        w->op = NULL;
        /* Replying first: every answer is sent now, before the store below. */
        if (!replied_first) {
            tevent_req_defer_callback(w->req, be->ev);
        }
        be_account_info_answer(w->req, dp_error, (uint32_t)ret,
                               message != NULL ? message : "out of memory");
    }
    if (replied_first) {
        be_reply_first_end(be, later);
    }
    talloc_free(op);
}

void be_account_info_reply_first(struct tevent_req *req)
{
    struct be_account_info_state *state = tevent_req_data(req, struct be_account_info_state);

    state->reply_first = true;
}

errno_t be_account_info_recv(TALLOC_CTX *mem_ctx, struct tevent_req *req,
                             uint16_t *_dp_error, uint32_t *_error, const char **_message)
{
    struct be_account_info_state *state;

    SSS_CHECK_ARG(req != NULL, EINVAL);
    state = tevent_req_data(req, struct be_account_info_state);
    TEVENT_REQ_RETURN_ON_ERROR(req);
    if (_dp_error != NULL) {
        *_dp_error = state->dp_error;
    }
    if (_error != NULL) {
        *_error = state->error;
    }
    if (_message != NULL) {
        *_message = talloc_steal(mem_ctx, state->message);
    }
    return EOK;
}
