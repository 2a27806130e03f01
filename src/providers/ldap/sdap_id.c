/*
 * struct sdap_id_ctx: one per domain, the entry point the back-end holds. It owns the
 * options, the failover state and the shared connection. The helpers at the end,
 * sdap_id_search and sdap_id_lookup_dns, are what every operation builds on: "get the
 * shared connection (connecting or failing over when needed), then search on it"; and
 * sdap_id_lookup_one, the lookup of one user or one group by name or id.
 */
#include "util/util.h"
#include "confdb/confdb.h"
#include "providers/ldap/sdap_private.h"

static int sdap_id_ctx_destructor(struct sdap_id_ctx *id_ctx)
{
    /* Waiters belong to their requests; detach them so none touches the freed list. */
    sdap_get_conn_detach(id_ctx);
    return 0;
}

errno_t sdap_id_ctx_create(TALLOC_CTX *mem_ctx, struct tevent_context *ev,
                           struct confdb *cdb, const char *domain,
                           struct sdap_id_ctx **_id_ctx)
{
    TALLOC_CTX *tmp_ctx;
    struct sdap_id_ctx *id_ctx;
    errno_t ret;

    if (!SSS_ARG_VALID(ev != NULL) || !SSS_ARG_VALID(cdb != NULL)
            || !SSS_ARG_VALID(domain != NULL) || !SSS_ARG_VALID(_id_ctx != NULL)) {
        return EINVAL;
    }
    tmp_ctx = talloc_new(NULL);
    if (tmp_ctx == NULL) {
        return ENOMEM;
    }
    id_ctx = talloc_zero(tmp_ctx, struct sdap_id_ctx);
    if (id_ctx == NULL) {
        ret = ENOMEM;
        goto done;
    }
    sss_list_init(&id_ctx->waiters);
    id_ctx->ev = ev;
    id_ctx->conn_server = -1;
    ret = sdap_options_read(id_ctx, cdb, domain, &id_ctx->opts);
    if (ret != EOK) {
        goto done;
    }
    id_ctx->fo = sdap_fo_create(id_ctx, id_ctx->opts);
    if (id_ctx->fo == NULL) {
        ret = ENOMEM;
        goto done;
    }
    talloc_set_destructor(id_ctx, sdap_id_ctx_destructor);
    *_id_ctx = talloc_steal(mem_ctx, id_ctx);
    ret = EOK;
done:
    talloc_free(tmp_ctx);
    return ret;
}

const char *sdap_id_ctx_server(struct sdap_id_ctx *id_ctx)
{
    return id_ctx != NULL ? id_ctx->last_uri : NULL;
}

bool sdap_id_ctx_offline(struct sdap_id_ctx *id_ctx)
{
    return id_ctx != NULL && id_ctx->offline;
}

void sdap_id_ctx_get_stats(struct sdap_id_ctx *id_ctx, struct sdap_id_stats *_stats)
{
    if (id_ctx != NULL && _stats != NULL) {
        *_stats = id_ctx->stats;
    }
}

void sdap_id_ctx_disconnect(struct sdap_id_ctx *id_ctx)
{
    struct sdap_conn *conn;

    if (id_ctx == NULL || id_ctx->conn == NULL) {
        return;
    }
    conn = id_ctx->conn;
    id_ctx->conn = NULL;
    sdap_conn_fail(conn, ENOTCONN);
    sdap_conn_unref(conn);
}

void sdap_id_ctx_reset_servers(struct sdap_id_ctx *id_ctx)
{
    if (id_ctx != NULL) {
        sdap_fo_reset(id_ctx->fo);
        id_ctx->offline = false;
    }
}

/* ---- search on the shared connection ------------------------------------------------ */

struct sdap_id_search_state {
    struct tevent_context *ev;
    struct sdap_id_ctx *id_ctx;
    struct sdap_search_args args;
    /* set for DN lookups */
    const char *const *dns;
    size_t n;
    struct sdap_entry **entries;
    size_t num;
};

static void sdap_id_search_conn_done(struct tevent_req *subreq);
static void sdap_id_search_done(struct tevent_req *subreq);

static struct tevent_req *sdap_id_op_send(TALLOC_CTX *mem_ctx, struct tevent_context *ev,
                                          struct sdap_id_ctx *id_ctx,
                                          const struct sdap_search_args *args,
                                          const char *const *dns, size_t n)
{
    struct sdap_id_search_state *state;
    struct tevent_req *req;
    struct tevent_req *subreq;

    req = tevent_req_create(mem_ctx, &state, struct sdap_id_search_state);
    if (req == NULL) {
        return NULL;
    }
    state->ev = ev;
    state->id_ctx = id_ctx;
    state->args = *args;
    state->dns = dns;
    state->n = n;
    subreq = sdap_get_conn_send(state, ev, id_ctx);
    if (subreq == NULL) {
        return sss_req_post(req, ev, ENOMEM);
    }
    tevent_req_set_callback(subreq, sdap_id_search_conn_done, req);
    return req;
}

static void sdap_id_search_conn_done(struct tevent_req *subreq)
{
    struct tevent_req *req = tevent_req_callback_data(subreq, struct tevent_req);
    struct sdap_id_search_state *state = tevent_req_data(req, struct sdap_id_search_state);
    struct sdap_conn *conn = NULL;
    errno_t ret;

    ret = sdap_get_conn_recv(subreq, &conn);
    talloc_free(subreq);
    if (ret != EOK) {
        tevent_req_error(req, ret);
        return;
    }
    if (state->args.base_ref != NULL) {
        state->args.base = *state->args.base_ref;
    }
    if (state->dns == NULL && state->args.base == NULL) {
        tevent_req_error(req, ERR_INVALID_CONFIG);   /* no base configured or discovered */
        return;
    }
    if (state->dns != NULL) {
        subreq = sdap_lookup_dns_send(state, state->ev, conn, state->dns, state->n,
                                      state->args.attrs, state->args.timeout,
                                      &state->id_ctx->stats);
    } else {
        subreq = sdap_search_send(state, state->ev, conn, &state->args,
                                  &state->id_ctx->stats);
    }
    if (subreq == NULL) {
        tevent_req_error(req, ENOMEM);
        return;
    }
    tevent_req_set_callback(subreq, sdap_id_search_done, req);
}

static void sdap_id_search_done(struct tevent_req *subreq)
{
    struct tevent_req *req = tevent_req_callback_data(subreq, struct tevent_req);
    struct sdap_id_search_state *state = tevent_req_data(req, struct sdap_id_search_state);
    errno_t ret;

    if (state->dns != NULL) {
        ret = sdap_lookup_dns_recv(state, subreq, &state->entries);
        state->num = state->n;
    } else {
        ret = sdap_search_recv(state, subreq, &state->entries, &state->num);
    }
    talloc_free(subreq);
    if (ret != EOK) {
        tevent_req_error(req, ret);
        return;
    }
    tevent_req_done(req);
}

struct tevent_req *sdap_id_search_send(TALLOC_CTX *mem_ctx, struct tevent_context *ev,
                                       struct sdap_id_ctx *id_ctx,
                                       const struct sdap_search_args *args)
{
    return sdap_id_op_send(mem_ctx, ev, id_ctx, args, NULL, 0);
}

errno_t sdap_id_search_step(struct tevent_req *req, struct tevent_context *ev,
                            struct sdap_id_ctx *id_ctx, struct sdap_search_args *args,
                            const char *base, int scope, const char *filter,
                            const char *const *attrs, int sd_flags, tevent_req_fn fn)
{
    struct tevent_req *subreq;

    assert(req != NULL && id_ctx != NULL && args != NULL && fn != NULL);
    *args = (struct sdap_search_args){
        .base = base,
        .base_ref = base == NULL ? &id_ctx->opts->search_base : NULL,
        .scope = scope,
        .filter = filter,
        .attrs = attrs,
        .timeout = id_ctx->opts->search_timeout,
        .missing_base_ok = true,
        .sd_flags = sd_flags,
    };
    subreq = sdap_id_search_send(req, ev, id_ctx, args);
    if (subreq == NULL) {
        return ENOMEM;
    }
    tevent_req_set_callback(subreq, fn, req);
    return EOK;
}

errno_t sdap_id_search_recv(TALLOC_CTX *mem_ctx, struct tevent_req *req,
                            struct sdap_entry ***_entries, size_t *_num)
{
    struct sdap_id_search_state *state = tevent_req_data(req, struct sdap_id_search_state);

    TEVENT_REQ_RETURN_ON_ERROR(req);
    *_entries = talloc_steal(mem_ctx, state->entries);
    *_num = state->num;
    return EOK;
}

struct tevent_req *sdap_id_lookup_dns_send(TALLOC_CTX *mem_ctx, struct tevent_context *ev,
                                           struct sdap_id_ctx *id_ctx,
                                           const char *const *dns, size_t n,
                                           const char *const *attrs)
{
    struct sdap_search_args args = {
        .attrs = attrs,
        .timeout = id_ctx->opts->search_timeout,
    };
    static const char *const none[] = { NULL };

    return sdap_id_op_send(mem_ctx, ev, id_ctx, &args, dns != NULL ? dns : none, n);
}

errno_t sdap_id_lookup_dns_recv(TALLOC_CTX *mem_ctx, struct tevent_req *req,
                                struct sdap_entry ***_entries)
{
    struct sdap_id_search_state *state = tevent_req_data(req, struct sdap_id_search_state);

    TEVENT_REQ_RETURN_ON_ERROR(req);
    *_entries = talloc_steal(mem_ctx, state->entries);
    return EOK;
}

struct sdap_search_args sdap_kind_search(const struct sdap_kind *kind, const char *filter,
                                         int timeout, int page_size)
{
    return (struct sdap_search_args) {
        .base_ref = kind->base,
        .scope = LDAP_SCOPE_SUBTREE,
        .filter = filter,
        .attrs = kind->attrs,
        .timeout = timeout,
        .page_size = page_size,
    };
}

/* ---- one entry of a kind, by name or id ------------------------------------------------ */

struct sdap_id_lookup_one_state {
    struct tevent_context *ev;
    struct sdap_id_ctx *id_ctx;
    struct sdap_options *opts;
    enum sdap_kind_id kind;
    enum sdap_by by;
    const char *name;
    uint32_t id;
    struct sdap_search_args args;
    const char *sid_attrs[2];
    char *what;                 /* "user 'x'", "gid 5": for logs */
    struct sdap_entry *entry;
};

static errno_t sdap_id_lookup_one_start(struct tevent_req *req);
static void sdap_id_lookup_one_dom_done(struct tevent_req *subreq);
static void sdap_id_lookup_one_done(struct tevent_req *subreq);

struct tevent_req *sdap_id_lookup_one_send(TALLOC_CTX *mem_ctx, struct tevent_context *ev,
                                           struct sdap_id_ctx *id_ctx,
                                           enum sdap_kind_id kind, enum sdap_by by,
                                           const char *name, uint32_t id)
{
    struct sdap_id_lookup_one_state *state;
    struct tevent_req *req;
    struct tevent_req *subreq;
    errno_t ret;

    req = tevent_req_create(mem_ctx, &state, struct sdap_id_lookup_one_state);
    if (!SDAP_OP_VALID(req, ev, id_ctx)) {
        return req;     /* NULL, or failing with EINVAL */
    }
    state->ev = ev;
    state->id_ctx = id_ctx;
    state->opts = id_ctx->opts;
    state->kind = kind;
    state->by = by;
    state->name = name;
    state->id = id;
    if (by == SDAP_BY_ID && sdap_idmap_needs_domain(state->opts)) {
        /* ldap_id_mapping before any SID was seen: an id maps back to no SID yet. The
         * domain's SID is that of the search base (the domain's head object). */
        state->sid_attrs[0] = state->opts->user_map[SDAP_UA_OBJSID];
        state->args = (struct sdap_search_args) {
            .base_ref = sdap_kind(state->opts, kind)->base,
            .scope = LDAP_SCOPE_BASE,
            .filter = "(objectClass=*)",
            .attrs = state->sid_attrs,
            .timeout = state->opts->search_timeout,
        };
        subreq = sdap_id_search_send(state, ev, id_ctx, &state->args);
        if (subreq == NULL) {
            ret = ENOMEM;
            goto done;
        }
        tevent_req_set_callback(subreq, sdap_id_lookup_one_dom_done, req);
        return req;
    }
    ret = sdap_id_lookup_one_start(req);
    if (ret == EAGAIN) {
        return req;
    }
done:
    return sss_req_post(req, ev, ret);
}

/* The search itself. EAGAIN: in flight. */
static errno_t sdap_id_lookup_one_start(struct tevent_req *req)
{
    struct sdap_id_lookup_one_state *state =
        tevent_req_data(req, struct sdap_id_lookup_one_state);
    const struct sdap_kind *desc = sdap_kind(state->opts, state->kind);
    struct tevent_req *subreq;
    char *filter = NULL;
    errno_t ret;

    ret = sdap_lookup_filter(state, state->opts, desc, state->by, state->name, state->id,
                             &filter, &state->what);
    if (ret != EOK) {
        return ret;
    }
    state->args = sdap_kind_search(desc, filter, state->opts->search_timeout, 0);
    subreq = sdap_id_search_send(state, state->ev, state->id_ctx, &state->args);
    if (subreq == NULL) {
        return ENOMEM;
    }
    tevent_req_set_callback(subreq, sdap_id_lookup_one_done, req);
    return EAGAIN;
}

static void sdap_id_lookup_one_dom_done(struct tevent_req *subreq)
{
    struct tevent_req *req = tevent_req_callback_data(subreq, struct tevent_req);
    struct sdap_id_lookup_one_state *state =
        tevent_req_data(req, struct sdap_id_lookup_one_state);
    struct sdap_entry **entries = NULL;
    size_t num = 0;
    errno_t ret;

    ret = sdap_id_search_recv(state, subreq, &entries, &num);
    talloc_free(subreq);
    if (ret == EOK) {
        ret = sdap_idmap_add_base_domain(state->opts, num == 1 ? entries[0] : NULL);
    }
    talloc_free(entries);
    if (ret == EOK) {
        ret = sdap_id_lookup_one_start(req);
    }
    sdap_req_step(req, ret);
}

static void sdap_id_lookup_one_done(struct tevent_req *subreq)
{
    struct tevent_req *req = tevent_req_callback_data(subreq, struct tevent_req);
    struct sdap_id_lookup_one_state *state =
        tevent_req_data(req, struct sdap_id_lookup_one_state);
    struct sdap_entry **entries = NULL;
    size_t num = 0;
    errno_t ret;

    ret = sdap_id_search_recv(state, subreq, &entries, &num);
    talloc_free(subreq);
    if (ret != EOK) {
        goto done;
    }
    if (num == 0) {
        DEBUG(SSSDBG_TRACE_FUNC, "%s not found\n", state->what);
        ret = ENOENT;
        goto done;
    }
    if (num > 1) {
        DEBUG(SSSDBG_OP_FAILURE, "%s: %zu entries (duplicate: '%s', '%s'%s), refused\n",
              state->what, num, entries[0]->dn, entries[1]->dn, num > 2 ? ", ..." : "");
        ret = EINVAL;
        goto done;
    }
    state->entry = talloc_steal(state, entries[0]);
done:
    talloc_free(entries);
    sdap_req_step(req, ret);
}

errno_t sdap_id_lookup_one_recv(TALLOC_CTX *mem_ctx, struct tevent_req *req,
                                const struct sdap_options **_opts,
                                struct sdap_entry **_entry)
{
    struct sdap_id_lookup_one_state *state =
        tevent_req_data(req, struct sdap_id_lookup_one_state);

    TEVENT_REQ_RETURN_ON_ERROR(req);
    *_opts = state->opts;
    *_entry = talloc_steal(mem_ctx, state->entry);
    return EOK;
}
