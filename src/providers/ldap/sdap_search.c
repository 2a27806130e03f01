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
 * Ranged attributes (MS-ADTS 3.1.1.3.1.3.3: an AD DC sends at most 1,500 values of a
 * multi-valued attribute, as "member;range=0-1499") are completed here, after the last
 * page, with base-scope follow-ups for "member;range=1500-*" and on, entry by entry, until
 * a range ends in "*" (sdap_entry_range.c checks each answer continues the range). The
 * caller sees plain "member" with every value, or an error (EPROTO): never part of them.
 * Parsing marks the entries holding a range (entry->ranged): a search without one makes
 * no pass over its entries for ranges (13 ms per 110,000 entries of 9 attributes).
 *
 * sdap_lookup_dns_send() reads many entries by DN with base-scope searches, keeping at most
 * SDAP_DN_LOOKUP_WINDOW of them in flight on the connection at once. (Member DNs are read
 * with far fewer searches by sdap_member_dns.c, on top of these.)
 */
#include <assert.h>

#include "util/util.h"
#include "util/sss_metrics.h"
#include "providers/ldap/sdap_private.h"
#include "providers/ldap/sdap_entry_range.h"

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
    size_t num_ranged;          /* entries with a ranged attribute (entry->ranged) */
    size_t dropped;
    size_t refs;                /* search continuation references skipped */
    size_t pages_done;
    /* probes: the operation on the wire (one per page) */
    uint64_t req_id;
    int msgid;                  /* -1: none pending a done probe */
    size_t page_start;          /* state->num when it was sent */
    /* ranged attributes: completed after the last page, unless this is a follow-up */
    bool follow_ranges;
    const char **hook_attrs;    /* the attributes asked, under the test window hook */
    size_t range_entry;         /* the entry and attribute being completed */
    size_t range_attr;
    uint32_t range_next_lo;     /* the first value not read yet */
    size_t range_rounds;        /* follow-ups for that attribute */
};

/* One follow-up request for the rest of a ranged attribute; parent of its subrequest. */
struct sdap_range_fetch {
    struct sdap_search_args args;
    const char *attrs[2];
};

static errno_t sdap_search_next(struct tevent_req *req);
static void sdap_search_msg(void *pvt, LDAPMessage *msg, errno_t error);
static errno_t sdap_search_ranges(struct tevent_req *req);
static struct tevent_req *sdap_search_send_int(TALLOC_CTX *mem_ctx, struct tevent_context *ev,
                                               struct sdap_conn *conn,
                                               const struct sdap_search_args *args,
                                               struct sdap_id_stats *stats,
                                               bool follow_ranges);

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
    return sdap_search_send_int(mem_ctx, ev, conn, args, stats, true);
}

/* The test window hook (sdap_range_test_window): "member" and "memberOf" asked as
 * "...;range=0-(N-1)", so that Samba ranges them. */
static errno_t sdap_search_hook_attrs(struct sdap_search_state *state)
{
    uint32_t window = sdap_range_test_window();
    size_t n = 0;
    size_t i;

    if (window == 0 || state->args.attrs == NULL) {
        return EOK;
    }
    while (state->args.attrs[n] != NULL) {
        n++;
    }
    state->hook_attrs = talloc_array(state, const char *, n + 1);
    if (state->hook_attrs == NULL) {
        return ENOMEM;
    }
    for (i = 0; i < n; i++) {
        const char *a = state->args.attrs[i];

        state->hook_attrs[i] = a;
        if (strcasecmp(a, "member") == 0 || strcasecmp(a, "memberOf") == 0) {
            state->hook_attrs[i] = sdap_range_request(state->hook_attrs, a, strlen(a), 0,
                                                      window);
            if (state->hook_attrs[i] == NULL) {
                return ENOMEM;
            }
        }
    }
    state->hook_attrs[n] = NULL;
    state->args.attrs = state->hook_attrs;
    return EOK;
}

static struct tevent_req *sdap_search_send_int(TALLOC_CTX *mem_ctx, struct tevent_context *ev,
                                               struct sdap_conn *conn,
                                               const struct sdap_search_args *args,
                                               struct sdap_id_stats *stats,
                                               bool follow_ranges)
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
    state->follow_ranges = follow_ranges;
    if (follow_ranges) {
        ret = sdap_search_hook_attrs(state);
        if (ret != EOK) {
            goto done;
        }
    }
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

/* An AD control whose value is SEQUENCE { INTEGER value }: the SD flags control (which
 * parts of nTSecurityDescriptor to return), the extended DN control (its format). */
static errno_t sdap_int_control(const char *oid, int value, bool critical,
                                LDAPControl **_ctrl)
{
    BerElement *ber = ber_alloc_t(LBER_USE_DER);
    struct berval *bv = NULL;
    int lrc;

    if (ber == NULL) {
        return ENOMEM;
    }
    if (ber_printf(ber, "{i}", (ber_int_t)value) == -1 || ber_flatten(ber, &bv) == -1) {
        ber_free(ber, 1);
        return ENOMEM;
    }
    ber_free(ber, 1);
    lrc = ldap_control_create(oid, critical ? 1 : 0, bv, 1, _ctrl);
    ber_bvfree(bv);
    return lrc == LDAP_SUCCESS ? EOK : ENOMEM;
}

/* Sends the search (or its next page). */
static errno_t sdap_search_next(struct tevent_req *req)
{
    struct sdap_search_state *state = tevent_req_data(req, struct sdap_search_state);
    LDAPControl *page_ctrl = NULL;
    LDAPControl *sd_ctrl = NULL;
    LDAPControl *xdn_ctrl = NULL;
    LDAPControl *ctrls[4] = { NULL, NULL, NULL, NULL };
    size_t nctrls = 0;
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
        ctrls[nctrls++] = page_ctrl;
    }
    if (state->args.sd_flags > 0) {
        ret = sdap_int_control(SDAP_SD_FLAGS_OID, state->args.sd_flags, true, &sd_ctrl);
        if (ret != EOK) {
            if (page_ctrl != NULL) {
                ldap_control_free(page_ctrl);
            }
            return ret;
        }
        ctrls[nctrls++] = sd_ctrl;
    }
    if (state->args.extended_dn) {
        ret = sdap_int_control(SDAP_EXTENDED_DN_OID, 1, false, &xdn_ctrl);
        if (ret != EOK) {
            while (nctrls > 0) {
                ldap_control_free(ctrls[--nctrls]);     /* the ones made above */
            }
            return ret;
        }
        ctrls[nctrls++] = xdn_ctrl;
    }
    lrc = ldap_search_ext(sdap_conn_ld(state->conn), state->args.base, state->args.scope,
                          state->args.filter, discard_const_p(char *, state->args.attrs),
                          0, nctrls > 0 ? ctrls : NULL, NULL, NULL, 0, &msgid);
    if (page_ctrl != NULL) {
        ldap_control_free(page_ctrl);
    }
    if (sd_ctrl != NULL) {
        ldap_control_free(sd_ctrl);
    }
    if (xdn_ctrl != NULL) {
        ldap_control_free(xdn_ctrl);
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

    ret = sdap_entry_from_msg_counted(state, sdap_conn_ld(state->conn), msg,
                                      state->args.count_only, &entry, &state->dropped);
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
    state->num_ranged += entry->ranged ? 1 : 0;
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
        /* Only when parsing met a range: no extra pass over every search's entries. */
        if (ret == EOK && state->follow_ranges && state->num_ranged > 0) {
            ret = sdap_search_ranges(req);
        }
        sdap_req_step(req, ret);
        return;
    default:
        DEBUG(SSSDBG_OP_FAILURE, "unexpected message type 0x%x in a search\n",
              ldap_msgtype(msg));
        ldap_msgfree(msg);
        return;
    }
}

/* ---- ranged attributes: the follow-ups ---------------------------------------------- */

static void sdap_search_range_done(struct tevent_req *subreq);

/* Asks for the next values of the attribute being completed. EAGAIN: sent. */
static errno_t sdap_search_range_send(struct tevent_req *req)
{
    struct sdap_search_state *state = tevent_req_data(req, struct sdap_search_state);
    struct sdap_entry *e = state->entries[state->range_entry];
    const char *desc = e->attrs[state->range_attr].name;
    struct sdap_range_fetch *fetch;
    struct tevent_req *subreq;
    char *want;

    if (++state->range_rounds > SDAP_RANGE_MAX_ROUNDS) {
        DEBUG(SSSDBG_OP_FAILURE, "'%s': the values of '%s' still do not end after %d "
              "follow-up requests: the search fails\n", e->dn, desc, SDAP_RANGE_MAX_ROUNDS);
        return EPROTO;
    }
    fetch = talloc_zero(state, struct sdap_range_fetch);
    if (fetch == NULL) {
        return ENOMEM;
    }
    want = sdap_range_request(fetch, desc, strcspn(desc, ";"), state->range_next_lo,
                              sdap_range_test_window());
    if (want == NULL) {
        talloc_free(fetch);
        return ENOMEM;
    }
    fetch->attrs[0] = want;
    fetch->attrs[1] = NULL;
    fetch->args.base = e->dn;
    fetch->args.scope = LDAP_SCOPE_BASE;
    fetch->args.filter = "(objectClass=*)";
    fetch->args.attrs = fetch->attrs;
    fetch->args.timeout = state->args.timeout;
    DEBUG(SSSDBG_TRACE_FUNC, "'%s': reading '%s'\n", e->dn, want);
    subreq = sdap_search_send_int(fetch, state->ev, state->conn, &fetch->args, state->stats,
                                  false);
    if (subreq == NULL) {
        talloc_free(fetch);
        return ENOMEM;
    }
    tevent_req_set_callback(subreq, sdap_search_range_done, req);
    return EAGAIN;
}

/* Completes the ranged attributes of the entries from (range_entry, range_attr) on: a
 * range that is the last is only renamed; another starts follow-ups (EAGAIN). EOK: all
 * entries are complete. */
static errno_t sdap_search_ranges(struct tevent_req *req)
{
    struct sdap_search_state *state = tevent_req_data(req, struct sdap_search_state);
    struct sdap_range r;
    struct sdap_entry *e;
    size_t type_len;
    size_t idx;
    errno_t ret;

    while (state->range_entry < state->num) {
        e = state->entries[state->range_entry];
        idx = e->ranged ? sdap_range_find(e, state->range_attr) : e->num_attrs;
        if (idx == e->num_attrs) {
            state->range_entry++;
            state->range_attr = 0;
            continue;
        }
        ret = sdap_range_parse(e->attrs[idx].name, &type_len, &r);
        assert(ret == EOK && r.ranged);     /* sdap_range_find checked it */
        state->range_attr = idx;
        if (r.last) {
            ret = sdap_range_finish(e, idx);
            if (ret != EOK) {
                return ret;
            }
            continue;
        }
        state->range_next_lo = r.hi + 1;
        state->range_rounds = 0;
        return sdap_search_range_send(req);
    }
    return EOK;
}

static void sdap_search_range_done(struct tevent_req *subreq)
{
    struct tevent_req *req = tevent_req_callback_data(subreq, struct tevent_req);
    struct sdap_search_state *state = tevent_req_data(req, struct sdap_search_state);
    struct sdap_range_fetch *fetch = talloc_parent(subreq);
    struct sdap_entry *e = state->entries[state->range_entry];
    struct sdap_entry **found = NULL;
    struct sdap_range r;
    size_t num = 0;
    errno_t ret;

    ret = sdap_search_recv(fetch, subreq, &found, &num);
    if (ret == EOK && num != 1) {
        DEBUG(SSSDBG_OP_FAILURE, "'%s': the follow-up for the rest of '%s' found %zu "
              "entries: the value list would be incomplete, the search fails\n", e->dn,
              e->attrs[state->range_attr].name, num);
        ret = EPROTO;
    }
    if (ret == EOK) {
        ret = sdap_range_merge(e, state->range_attr, state->range_next_lo, found[0], &r);
    }
    talloc_free(fetch);     /* and subreq, and what the follow-up found */
    if (ret == EOK && r.last) {
        ret = sdap_search_ranges(req);
    } else if (ret == EOK) {
        state->range_next_lo = r.hi + 1;
        ret = sdap_search_range_send(req);
    }
    sdap_req_step(req, ret);
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
