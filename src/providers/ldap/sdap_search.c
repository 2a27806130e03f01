/*
 * Searches on a shared connection. sdap_search_send() sends one ldap_search_ext(),
 * collects the entries as plain talloc structs (values longer than SDAP_MAX_VALUE_LEN or
 * holding NUL bytes are dropped with a log line), and with a page size it adds the
 * RFC 2696 paged results control and follows the server's cookie page after page, each
 * page with its own timeout.
 *
 * A partial answer is an error (EOVERFLOW), never a short success: the server stopped at a
 * size or administrative limit, answered with a referral (referrals are not followed), or a
 * paged search lost its paging control after the first page. What is missing from such an
 * answer says nothing about the directory, so callers that remove what the directory no
 * longer holds (enumeration) or replace lists (initgroups) must not see it as complete. A
 * time limit is ETIMEDOUT, as before. Search continuation references (parts of the tree held
 * elsewhere) are skipped with a log line, as SSSD does with referrals off, unless the caller
 * needs the whole subtree (args.refs_partial): then they make the answer partial too.
 *
 * sdap_lookup_dns_send() reads many entries by DN with base-scope searches, keeping at most
 * SDAP_DN_LOOKUP_WINDOW of them in flight on the connection at once. (Member DNs are read
 * with far fewer searches by sdap_member_dns.c, on top of these.)
 */
#include <assert.h>

#include "util/util.h"
#include "util/sss_metrics.h"
#include "providers/ldap/sdap_private.h"

struct sdap_search_state {
    struct tevent_context *ev;
    struct sdap_conn *conn;
    struct sdap_search_args args;
    struct sdap_id_stats *stats;
    struct sdap_op *op;
    struct berval *cookie;
    struct sdap_entry **entries;
    size_t num;
    size_t cap;
    size_t dropped;
    size_t refs;                /* search continuation references skipped */
    size_t pages_done;
    /* probes: the operation on the wire (one per page) */
    uint64_t req_id;
    int msgid;                  /* -1: none pending a done probe */
    size_t page_start;          /* state->num when it was sent */
};

static errno_t sdap_search_next(struct tevent_req *req);
static void sdap_search_msg(void *pvt, LDAPMessage *msg, errno_t error);

/* sssd:ldap_search_done for the operation on the wire, and its count by server and result
 * class (sssctl stats); result is its LDAP result code, or -1 when none came (timeout,
 * connection lost, local failure, given up). */
static void sdap_search_probe_done(struct sdap_search_state *state, int result)
{
    if (state->msgid == -1) {
        return;
    }
    sss_metric_ldap_op(sdap_conn_uri(state->conn), "search", result);
    PROBE(LDAP_SEARCH_DONE, state->req_id, state->msgid, state->args.base, state->args.filter,
          (unsigned int)(state->num - state->page_start), result);
    state->msgid = -1;
}

static int sdap_search_state_destructor(struct sdap_search_state *state)
{
    sdap_search_probe_done(state, -1);
    talloc_zfree(state->op);
    if (state->cookie != NULL) {
        ber_bvfree(state->cookie);
        state->cookie = NULL;
    }
    if (state->conn != NULL) {
        sdap_conn_unref(state->conn);
        state->conn = NULL;
    }
    return 0;
}

struct tevent_req *sdap_search_send(TALLOC_CTX *mem_ctx, struct tevent_context *ev,
                                    struct sdap_conn *conn,
                                    const struct sdap_search_args *args,
                                    struct sdap_id_stats *stats)
{
    struct sdap_search_state *state;
    struct tevent_req *req;
    errno_t ret;

    req = tevent_req_create(mem_ctx, &state, struct sdap_search_state);
    if (req == NULL) {
        return NULL;
    }
    tevent_req_defer_callback(req, ev);
    state->ev = ev;
    state->stats = stats;
    state->req_id = sss_debug_req_id;
    state->msgid = -1;
    if (!SSS_ARG_VALID(args != NULL) || !SSS_ARG_VALID(args->base != NULL)
            || !SSS_ARG_VALID(args->filter != NULL)) {
        return sdap_req_invalid(req, ev);
    }
    state->args = *args;
    if (!sdap_conn_usable(conn)) {
        ret = ENOTCONN;
        goto done;
    }
    state->conn = conn;
    sdap_conn_ref(conn);
    talloc_set_destructor(state, sdap_search_state_destructor);
    ret = sdap_search_next(req);
    if (ret != EOK) {
        goto done;
    }
    return req;
done:
    return sss_req_post(req, ev, ret);
}

/* Sends the search (or its next page). */
static errno_t sdap_search_next(struct tevent_req *req)
{
    struct sdap_search_state *state = tevent_req_data(req, struct sdap_search_state);
    LDAPControl *page_ctrl = NULL;
    LDAPControl *ctrls[2] = { NULL, NULL };
    int msgid = -1;
    int lrc;
    errno_t ret;

    if (!sdap_conn_usable(state->conn)) {
        return ENOTCONN;
    }
    if (state->args.page_size > 0) {
        lrc = ldap_create_page_control(sdap_conn_ld(state->conn),
                                       (ber_int_t)state->args.page_size, state->cookie, 0,
                                       &page_ctrl);
        if (lrc != LDAP_SUCCESS) {
            DEBUG(SSSDBG_CRIT_FAILURE, "cannot create the paging control: %s\n",
                  ldap_err2string(lrc));
            return ENOMEM;
        }
        ctrls[0] = page_ctrl;
    }
    lrc = ldap_search_ext(sdap_conn_ld(state->conn), state->args.base, state->args.scope,
                          state->args.filter, discard_const_p(char *, state->args.attrs),
                          0, page_ctrl != NULL ? ctrls : NULL, NULL, NULL, 0, &msgid);
    if (page_ctrl != NULL) {
        ldap_control_free(page_ctrl);
    }
    if (lrc != LDAP_SUCCESS) {
        DEBUG(SSSDBG_OP_FAILURE, "search '%s' under '%s' not sent: %s\n", state->args.filter,
              state->args.base, ldap_err2string(lrc));
        sss_metric_ldap_op(sdap_conn_uri(state->conn), "search", lrc);
        ret = sdap_ldap_err(lrc);
        if (ret == ENOTCONN || lrc == LDAP_SERVER_DOWN) {
            sdap_conn_fail(state->conn, EIO);
            return EIO;
        }
        return ret;
    }
    if (state->stats != NULL) {
        state->stats->searches++;
    }
    DEBUG(SSSDBG_TRACE_FUNC, "search %d: '%s' under '%s' scope %d\n", msgid,
          state->args.filter, state->args.base, state->args.scope);
    ret = sdap_op_add(state, state->conn, msgid, state->args.timeout, sdap_search_msg, req,
                      &state->op);
    if (ret != EOK) {
        return ret;
    }
    state->msgid = msgid;
    state->page_start = state->num;
    PROBE(LDAP_SEARCH_SEND, state->req_id, msgid, state->args.base, state->args.scope,
          state->args.filter);
    return EOK;
}

/* Copies one entry out of libldap's message (sdap_entry_from_msg) into the result. */
static errno_t parse_entry(struct sdap_search_state *state, LDAPMessage *msg)
{
    struct sdap_entry *entry;
    errno_t ret;

    ret = sdap_entry_from_msg(state, sdap_conn_ld(state->conn), msg, &entry, &state->dropped);
    if (ret == ENOENT) {
        return EOK;     /* no DN: skipped, logged */
    }
    if (ret != EOK) {
        return ret;
    }
    if (state->num == state->cap) {
        size_t ncap = state->cap == 0 ? 16 : state->cap * 2;
        struct sdap_entry **n = talloc_realloc(state, state->entries, struct sdap_entry *,
                                               ncap);
        if (n == NULL) {
            talloc_free(entry);
            return ENOMEM;
        }
        state->entries = n;
        state->cap = ncap;
    }
    state->entries[state->num++] = entry;
    return EOK;
}

/* Result codes saying the server sent only part of what matched. */
static bool sdap_result_partial(int result)
{
    switch (result) {
    case LDAP_SIZELIMIT_EXCEEDED:
    case LDAP_ADMINLIMIT_EXCEEDED:
    case LDAP_REFERRAL:
    case LDAP_PARTIAL_RESULTS:      /* LDAPv2 servers' referral */
        return true;
    default:
        return false;
    }
}

/* The final message of one request: result code, and for paged searches the cookie.
 * EAGAIN: another page was requested. */
static errno_t parse_done(struct tevent_req *req, LDAPMessage *msg)
{
    struct sdap_search_state *state = tevent_req_data(req, struct sdap_search_state);
    LDAP *ld = sdap_conn_ld(state->conn);
    LDAPControl **ctrls = NULL;
    char *errmsg = NULL;
    struct berval cookie = { 0, NULL };
    int result = LDAP_OTHER;
    int lrc;
    errno_t ret;

    lrc = ldap_parse_result(ld, msg, &result, NULL, &errmsg, NULL, &ctrls, 0);
    if (lrc != LDAP_SUCCESS) {
        result = lrc;
    }
    /* This page's operation is over; the next page (if any) is a new one. */
    sdap_search_probe_done(state, result);
    if (result == LDAP_NO_SUCH_OBJECT && state->args.missing_base_ok) {
        ret = EOK;
        goto done;
    }
    if (sdap_result_partial(result)) {
        DEBUG(SSSDBG_OP_FAILURE, "search '%s' under '%s': the server returned part of the "
              "answer only (%s%s%s) after %zu entries: the search fails, nothing is concluded "
              "from what is missing\n", state->args.filter, state->args.base,
              ldap_err2string(result), errmsg != NULL && *errmsg != '\0' ? ": " : "",
              errmsg != NULL ? errmsg : "", state->num);
        ret = EOVERFLOW;
        goto done;
    }
    if (result != LDAP_SUCCESS) {
        DEBUG(SSSDBG_OP_FAILURE, "search '%s' under '%s' failed: %s (%s)\n",
              state->args.filter, state->args.base, ldap_err2string(result),
              errmsg != NULL ? errmsg : "");
        ret = sdap_ldap_err(result);
        goto done;
    }
    if (state->refs > 0 && state->args.refs_partial) {
        DEBUG(SSSDBG_OP_FAILURE, "search '%s' under '%s': the server refers %zu part(s) of "
              "the tree to other servers (referrals are not followed): the answer is "
              "incomplete, the search fails\n", state->args.filter, state->args.base,
              state->refs);
        ret = EOVERFLOW;
        goto done;
    }
    ret = EOK;
    if (state->args.page_size <= 0) {
        goto done;
    }
    if (state->stats != NULL) {
        state->stats->pages++;
    }
    state->pages_done++;
    ret = sdap_page_cookie(ld, ctrls, &cookie);
    if (ret == ENOENT) {
        ret = EOK;
        if (state->pages_done > 1) {
            /* It paged, then stopped saying where it is: the rest may be missing. */
            DEBUG(SSSDBG_OP_FAILURE, "search '%s' under '%s': page %zu came without the "
                  "paged results control: the answer may be cut short, the search fails\n",
                  state->args.filter, state->args.base, state->pages_done);
            ret = EOVERFLOW;
        }
        goto done;      /* the server does not page: everything came at once */
    }
    if (ret != EOK) {
        goto done;
    }
    if (cookie.bv_len == 0) {
        ber_memfree(cookie.bv_val);
        goto done;
    }
    if (state->cookie != NULL) {
        ber_bvfree(state->cookie);
    }
    state->cookie = ber_bvdup(&cookie);
    ber_memfree(cookie.bv_val);
    if (state->cookie == NULL) {
        ret = ENOMEM;
        goto done;
    }
    ret = sdap_search_next(req);
    if (ret == EOK) {
        ret = EAGAIN;
    }
done:
    ldap_memfree(errmsg);
    ldap_controls_free(ctrls);
    return ret;
}

static void sdap_search_msg(void *pvt, LDAPMessage *msg, errno_t error)
{
    struct tevent_req *req = talloc_get_type_abort(pvt, struct tevent_req);
    struct sdap_search_state *state = tevent_req_data(req, struct sdap_search_state);
    errno_t ret;

    if (msg == NULL) {
        state->op = NULL;   /* unregistered already; freed with the state */
        sdap_search_probe_done(state, -1);
        tevent_req_error(req, error);
        return;
    }
    /* Messages come for the registered operation of the page under way only. */
    assert(state->op != NULL);
    switch (ldap_msgtype(msg)) {
    case LDAP_RES_SEARCH_ENTRY:
        ret = parse_entry(state, msg);
        ldap_msgfree(msg);
        if (ret != EOK) {
            sdap_search_probe_done(state, -1);
            talloc_zfree(state->op);
            tevent_req_error(req, ret);
        }
        return;
    case LDAP_RES_SEARCH_REFERENCE:
        if (state->refs++ == 0) {
            DEBUG(state->args.refs_partial ? SSSDBG_OP_FAILURE : SSSDBG_TRACE_FUNC,
                  "search '%s' under '%s': a continuation reference (part of the tree on "
                  "another server) is not followed\n", state->args.filter, state->args.base);
        }
        ldap_msgfree(msg);
        return;
    case LDAP_RES_SEARCH_RESULT:
        sdap_op_done(state->op);        /* finished: nothing to abandon */
        talloc_zfree(state->op);
        ret = parse_done(req, msg);
        ldap_msgfree(msg);
        sdap_req_step(req, ret);
        return;
    default:
        DEBUG(SSSDBG_OP_FAILURE, "unexpected message type 0x%x in a search\n",
              ldap_msgtype(msg));
        ldap_msgfree(msg);
        return;
    }
}

errno_t sdap_search_recv(TALLOC_CTX *mem_ctx, struct tevent_req *req,
                         struct sdap_entry ***_entries, size_t *_num)
{
    struct sdap_search_state *state = tevent_req_data(req, struct sdap_search_state);
    size_t i;

    TEVENT_REQ_RETURN_ON_ERROR(req);
    if (_entries != NULL) {
        struct sdap_entry **out = talloc_array(mem_ctx, struct sdap_entry *, state->num + 1);
        if (out == NULL) {
            return ENOMEM;
        }
        for (i = 0; i < state->num; i++) {
            out[i] = talloc_steal(out, state->entries[i]);
        }
        out[state->num] = NULL;
        *_entries = out;
    }
    if (_num != NULL) {
        *_num = state->num;
    }
    return EOK;
}

/* ---- many DNs, base scope, bounded window ---------------------------------------------- */

struct sdap_lookup_dns_state {
    struct tevent_context *ev;
    struct sdap_conn *conn;
    const char *const *dns;
    size_t n;
    const char *const *attrs;
    int timeout;
    struct sdap_id_stats *stats;
    size_t next;
    size_t in_flight;
    struct sdap_entry **entries;
};

struct sdap_lookup_one {
    struct tevent_req *req;
    size_t idx;
};

static errno_t sdap_lookup_dns_fill(struct tevent_req *req);
static void sdap_lookup_dns_done(struct tevent_req *subreq);

struct tevent_req *sdap_lookup_dns_send(TALLOC_CTX *mem_ctx, struct tevent_context *ev,
                                        struct sdap_conn *conn,
                                        const char *const *dns, size_t n,
                                        const char *const *attrs, int timeout,
                                        struct sdap_id_stats *stats)
{
    struct sdap_lookup_dns_state *state;
    struct tevent_req *req;
    errno_t ret;

    req = tevent_req_create(mem_ctx, &state, struct sdap_lookup_dns_state);
    if (req == NULL) {
        return NULL;
    }
    state->ev = ev;
    state->conn = conn;
    state->dns = dns;
    state->n = n;
    state->attrs = attrs;
    state->timeout = timeout;
    state->stats = stats;
    state->entries = talloc_zero_array(state, struct sdap_entry *, n + 1);
    if (state->entries == NULL) {
        ret = ENOMEM;
        goto done;
    }
    if (n == 0) {
        ret = EOK;
        goto done;
    }
    ret = sdap_lookup_dns_fill(req);
    if (ret != EOK) {
        goto done;
    }
    return req;
done:
    return sss_req_post(req, ev, ret);
}

static errno_t sdap_lookup_dns_fill(struct tevent_req *req)
{
    struct sdap_lookup_dns_state *state = tevent_req_data(req, struct sdap_lookup_dns_state);
    struct sdap_search_args args = {
        .scope = LDAP_SCOPE_BASE,
        .filter = "(objectClass=*)",
        .attrs = state->attrs,
        .timeout = state->timeout,
        .missing_base_ok = true,
    };
    struct tevent_req *subreq;
    struct sdap_lookup_one *one;

    while (state->in_flight < SDAP_DN_LOOKUP_WINDOW && state->next < state->n) {
        args.base = state->dns[state->next];
        one = talloc(state, struct sdap_lookup_one);
        if (one == NULL) {
            return ENOMEM;
        }
        one->req = req;
        one->idx = state->next;
        subreq = sdap_search_send(one, state->ev, state->conn, &args, state->stats);
        if (subreq == NULL) {
            return ENOMEM;
        }
        tevent_req_set_callback(subreq, sdap_lookup_dns_done, one);
        state->next++;
        state->in_flight++;
    }
    return EOK;
}

static void sdap_lookup_dns_done(struct tevent_req *subreq)
{
    struct sdap_lookup_one *one = tevent_req_callback_data(subreq, struct sdap_lookup_one);
    struct tevent_req *req = one->req;
    struct sdap_lookup_dns_state *state = tevent_req_data(req, struct sdap_lookup_dns_state);
    struct sdap_entry **entries = NULL;
    size_t num = 0;
    errno_t ret;

    ret = sdap_search_recv(state->entries, subreq, &entries, &num);
    talloc_free(subreq);
    if (!tevent_req_is_in_progress(req)) {
        talloc_free(entries);
        return;     /* an earlier lookup failed the whole request */
    }
    assert(state->in_flight > 0);
    state->in_flight--;
    if (ret == EINVAL) {
        /* A member value that is not a DN: skip it, as a missing entry. */
        DEBUG(SSSDBG_MINOR_FAILURE, "'%s' is not a valid DN: skipped\n",
              state->dns[one->idx]);
        ret = EOK;
    }
    if (ret != EOK) {
        tevent_req_error(req, ret);     /* frees the other lookups with the state */
        return;
    }
    if (num > 0) {
        state->entries[one->idx] = talloc_steal(state->entries, entries[0]);
    }
    talloc_free(entries);
    talloc_free(one);
    ret = sdap_lookup_dns_fill(req);
    if (ret != EOK) {
        tevent_req_error(req, ret);
        return;
    }
    if (state->in_flight == 0 && state->next == state->n) {
        tevent_req_done(req);
    }
}

errno_t sdap_lookup_dns_recv(TALLOC_CTX *mem_ctx, struct tevent_req *req,
                             struct sdap_entry ***_entries)
{
    struct sdap_lookup_dns_state *state = tevent_req_data(req, struct sdap_lookup_dns_state);

    TEVENT_REQ_RETURN_ON_ERROR(req);
    *_entries = talloc_steal(mem_ctx, state->entries);
    return EOK;
}
