/*
 * Member DNs to entries, on the id context's shared connection, in far fewer searches than
 * one base lookup per DN (a group of 5,000 members is read in about 40 searches): an
 * id-level algorithm over the searches of sdap_search.c and sdap_id.c.
 *
 * A member DN "<name attr>=<value>,<...>" under the user (group) search base is looked up
 * with the others of its kind in OR filters on the name attribute,
 * (&(objectClass=*)(|(<name attr>=v1)(<name attr>=v2)...)) under that base (subtree), at
 * most SDAP_DN_BATCH values per search and SDAP_DN_BATCH_WINDOW searches in flight (users
 * and groups together in one search when they fit in one and the bases are the same). A
 * returned entry is taken only when its canonical DN is one of the requested DNs (the same
 * name elsewhere in the tree is not the member). The filter names no object class, and an
 * entry always holds the value of its RDN, so a batch that succeeded and did not return a
 * DN proves that no entry has it: such a DN is absent without a base lookup (a group
 * declaring 500,000 members of which 100,000 exist cost 400,000 base searches before).
 * DNs of any other shape, and those of batches the server refused, are read one by one
 * with base-scope lookups (sdap_id_lookup_dns), so the result is the same as with base
 * lookups only.
 */
#include <assert.h>

#include "util/util.h"
#include "providers/ldap/sdap_member_dns.h"

enum dn_kind { DN_KIND_OTHER, DN_KIND_USER, DN_KIND_GROUP };

/* What a batch search's callback needs: which batch it was. */
struct member_batch {
    struct tevent_req *req;
    size_t start;                       /* its DNs: bidx[start .. start + count) */
    size_t count;
};

struct sdap_member_dns_state {
    struct tevent_context *ev;
    struct sdap_id_ctx *id_ctx;
    const char *const *dns;
    size_t n;
    const char *const *attrs;
    struct sdap_entry **entries;        /* aligned with dns */
    struct sdap_strset *wanted;         /* canonical DN -> index + 1 */
    struct sdap_strset *wanted_raw;     /* the DN as given -> index + 1 (fast path) */
    struct sdap_search_args *batches;
    struct member_batch *batch_info;    /* aligned with batches */
    size_t *bidx;                       /* DN indices, in batch order */
    size_t num_bidx;
    bool *searched;                     /* per DN: a batch that succeeded looked for it */
    size_t num_batches;
    size_t next_batch;
    size_t in_flight;
    const char **rest;                  /* looked up by base */
    size_t *rest_idx;
    size_t num_rest;
};

static errno_t sdap_member_dns_fill(struct tevent_req *req);
static void sdap_member_dns_batch_done(struct tevent_req *subreq);
static errno_t sdap_member_dns_rest(struct tevent_req *req);
static void sdap_member_dns_rest_done(struct tevent_req *subreq);

/* The canonical DN of base with a leading ',' (what a DN below it ends with), or NULL. */
static char *base_suffix(TALLOC_CTX *mem_ctx, const char *base)
{
    char *canon = sdap_dn_canon(mem_ctx, base);
    char *out;

    if (canon == NULL || canon[0] == '\0') {
        talloc_free(canon);
        return NULL;
    }
    out = talloc_asprintf(mem_ctx, ",%s", canon);
    talloc_free(canon);
    return out;
}

static bool ends_with(const char *str, const char *suffix)
{
    size_t ls = strlen(str);
    size_t lx = strlen(suffix);

    return lx < ls && strcmp(str + ls - lx, suffix) == 0;
}

/* Appends the batch searches of kind over the name values vals[0..nv) of the DNs
 * idx[0..nv). */
static errno_t add_batches(struct sdap_member_dns_state *state, const struct sdap_kind *kind,
                           const char **vals, const size_t *idx, size_t nv)
{
    struct sdap_search_args *b;
    struct member_batch *info;
    char *filter;
    size_t pos;
    size_t k;

    for (pos = 0; pos < nv; pos += k) {
        k = nv - pos;
        if (k > SDAP_DN_BATCH) {
            k = SDAP_DN_BATCH;
        }
        b = talloc_realloc(state, state->batches, struct sdap_search_args,
                           state->num_batches + 1);
        if (b == NULL) {
            return ENOMEM;
        }
        state->batches = b;
        info = talloc_realloc(state, state->batch_info, struct member_batch,
                              state->num_batches + 1);
        if (info == NULL) {
            return ENOMEM;
        }
        state->batch_info = info;
        /* Any object class and without the kind's search filter: a member is taken by its
         * DN alone, as a base lookup would, and a miss proves absence. */
        filter = sdap_filter_or(state->batches, "*", kind->name_attr, &vals[pos], k, NULL);
        if (filter == NULL) {
            return ENOMEM;
        }
        info[state->num_batches] = (struct member_batch) {
            .req = NULL, .start = state->num_bidx, .count = k,
        };
        memcpy(&state->bidx[state->num_bidx], &idx[pos], k * sizeof(size_t));
        state->num_bidx += k;
        b = &state->batches[state->num_batches++];
        *b = sdap_kind_search(kind, filter, state->id_ctx->opts->search_timeout, 0);
        b->attrs = state->attrs;
        b->missing_base_ok = true;
    }
    return EOK;
}

/* A few users and groups under one base (user and group search bases the same): one search
 * (|<users' filter><groups' filter>) instead of one per kind; a miss still proves absence,
 * since each entry holds its RDN value. */
static errno_t add_combined_batch(struct sdap_member_dns_state *state,
                                  const char **uvals, const size_t *uidx, size_t nu,
                                  const char **gvals, const size_t *gidx, size_t ng)
{
    const struct sdap_options *opts = state->id_ctx->opts;
    struct sdap_search_args *b;
    struct member_batch *info;
    char *fu;
    char *fg;
    char *filter;

    assert(state->num_batches == 0 && nu + ng <= SDAP_DN_BATCH);
    b = talloc_zero(state, struct sdap_search_args);
    info = talloc_zero(state, struct member_batch);
    fu = sdap_filter_or(b, "*", opts->users.name_attr, uvals, nu, NULL);
    fg = sdap_filter_or(b, "*", opts->groups.name_attr, gvals, ng, NULL);
    if (b == NULL || info == NULL || fu == NULL || fg == NULL) {
        return ENOMEM;
    }
    filter = talloc_asprintf(b, "(|%s%s)", fu, fg);
    if (filter == NULL) {
        return ENOMEM;
    }
    state->batches = b;
    state->batch_info = info;
    *info = (struct member_batch) { .req = NULL, .start = 0, .count = nu + ng };
    memcpy(&state->bidx[0], uidx, nu * sizeof(size_t));
    memcpy(&state->bidx[nu], gidx, ng * sizeof(size_t));
    state->num_bidx = nu + ng;
    *b = sdap_kind_search(&opts->users, filter, opts->search_timeout, 0);
    b->attrs = state->attrs;
    b->missing_base_ok = true;
    state->num_batches = 1;
    return EOK;
}

struct tevent_req *sdap_member_dns_send(TALLOC_CTX *mem_ctx, struct tevent_context *ev,
                                        struct sdap_id_ctx *id_ctx,
                                        const char *const *dns,
                                        const char *const *canons, size_t n,
                                        const char *const *attrs)
{
    const struct sdap_options *opts = id_ctx->opts;
    struct sdap_member_dns_state *state;
    struct tevent_req *req;
    TALLOC_CTX *tmp_ctx = NULL;
    const char **uvals;
    const char **gvals;
    size_t *uidx;
    size_t *gidx;
    size_t nu = 0;
    size_t ng = 0;
    char *usuffix;
    char *gsuffix;
    size_t i;
    errno_t ret;

    req = tevent_req_create(mem_ctx, &state, struct sdap_member_dns_state);
    if (req == NULL) {
        return NULL;
    }
    state->ev = ev;
    state->id_ctx = id_ctx;
    state->dns = dns;
    state->n = n;
    state->attrs = attrs;
    state->entries = talloc_zero_array(state, struct sdap_entry *, n + 1);
    state->wanted = sdap_strset_new(state);
    state->wanted_raw = sdap_strset_new(state);
    tmp_ctx = talloc_new(state);
    uvals = talloc_array(tmp_ctx, const char *, n + 1);
    gvals = talloc_array(tmp_ctx, const char *, n + 1);
    uidx = talloc_array(tmp_ctx, size_t, n + 1);
    gidx = talloc_array(tmp_ctx, size_t, n + 1);
    state->bidx = talloc_array(state, size_t, n + 1);
    state->searched = talloc_zero_array(state, bool, n + 1);
    if (state->entries == NULL || state->wanted == NULL || state->wanted_raw == NULL
            || tmp_ctx == NULL || uvals == NULL || gvals == NULL || uidx == NULL
            || gidx == NULL || state->bidx == NULL || state->searched == NULL) {
        ret = ENOMEM;
        goto done;
    }
    usuffix = base_suffix(tmp_ctx, opts->user_base);
    gsuffix = base_suffix(tmp_ctx, opts->group_base);
    for (i = 0; i < n; i++) {
        const char *canon = canons != NULL ? canons[i] : NULL;
        enum dn_kind kind = DN_KIND_OTHER;
        char *val = NULL;

        if (canon == NULL) {
            canon = sdap_dn_canon(tmp_ctx, dns[i]);
            if (canon == NULL) {
                continue;       /* not a DN: the base lookup skips it */
            }
        }
        if (usuffix != NULL && ends_with(canon, usuffix)) {
            val = sdap_dn_rdn_value(tmp_ctx, dns[i], opts->users.name_attr);
            kind = val != NULL ? DN_KIND_USER : DN_KIND_OTHER;
        }
        if (kind == DN_KIND_OTHER && gsuffix != NULL && ends_with(canon, gsuffix)) {
            val = sdap_dn_rdn_value(tmp_ctx, dns[i], opts->groups.name_attr);
            kind = val != NULL ? DN_KIND_GROUP : DN_KIND_OTHER;
        }
        if (kind == DN_KIND_OTHER) {
            continue;
        }
        if (sdap_strmap_get(state->wanted, canon) != NULL
                || !sdap_strmap_add(state->wanted, canon, (void *)(uintptr_t)(i + 1))) {
            continue;           /* a duplicate: the base lookup takes it */
        }
        sdap_strmap_add(state->wanted_raw, dns[i], (void *)(uintptr_t)(i + 1));
        if (kind == DN_KIND_USER) {
            uidx[nu] = i;
            uvals[nu++] = val;
        } else {
            gidx[ng] = i;
            gvals[ng++] = val;
        }
    }
    if (nu > 0 && ng > 0 && nu + ng <= SDAP_DN_BATCH && usuffix != NULL
            && gsuffix != NULL && strcmp(usuffix, gsuffix) == 0) {
        ret = add_combined_batch(state, uvals, uidx, nu, gvals, gidx, ng);
        if (ret != EOK) {
            goto done;
        }
    } else {
        ret = add_batches(state, &opts->users, uvals, uidx, nu);
        if (ret != EOK) {
            goto done;
        }
        ret = add_batches(state, &opts->groups, gvals, gidx, ng);
        if (ret != EOK) {
            goto done;
        }
    }
    DEBUG(SSSDBG_TRACE_FUNC, "%zu DN(s): %zu user and %zu group name(s) in %zu batch "
          "search(es)\n", n, nu, ng, state->num_batches);
    talloc_zfree(tmp_ctx);
    if (state->num_batches > 0) {
        ret = sdap_member_dns_fill(req);
    } else {
        ret = sdap_member_dns_rest(req);
    }
    if (ret == EAGAIN) {
        return req;
    }
done:
    talloc_free(tmp_ctx);
    return sss_req_post(req, ev, ret);
}

/* Sends batch searches up to the window. EAGAIN: some are in flight. */
static errno_t sdap_member_dns_fill(struct tevent_req *req)
{
    struct sdap_member_dns_state *state = tevent_req_data(req, struct sdap_member_dns_state);
    struct member_batch *info;
    struct tevent_req *subreq;

    while (state->in_flight < SDAP_DN_BATCH_WINDOW && state->next_batch < state->num_batches) {
        subreq = sdap_id_search_send(state, state->ev, state->id_ctx,
                                     &state->batches[state->next_batch]);
        if (subreq == NULL) {
            return ENOMEM;
        }
        info = &state->batch_info[state->next_batch];
        info->req = req;
        tevent_req_set_callback(subreq, sdap_member_dns_batch_done, info);
        state->next_batch++;
        state->in_flight++;
    }
    return state->in_flight > 0 ? EAGAIN : EOK;
}

static void sdap_member_dns_batch_done(struct tevent_req *subreq)
{
    /* An element of batch_info, not a talloc object of its own: no typed access. */
    const struct member_batch *info = tevent_req_callback_data_void(subreq);
    struct tevent_req *req = info->req;
    struct sdap_member_dns_state *state = tevent_req_data(req, struct sdap_member_dns_state);
    struct sdap_entry **entries = NULL;
    size_t num = 0;
    size_t taken = 0;
    size_t i;
    errno_t ret;

    ret = sdap_id_search_recv(state, subreq, &entries, &num);
    talloc_free(subreq);
    assert(state->in_flight > 0);
    state->in_flight--;
    if (ret == ENOMEM || ret == ETIMEDOUT || ret == ENETUNREACH) {
        tevent_req_error(req, ret);
        return;
    }
    if (ret != EOK) {
        /* e.g. a server refusing long filters: these DNs are read one by one instead */
        DEBUG(SSSDBG_MINOR_FAILURE, "batch lookup of member DNs failed (%d, %s): falling "
              "back to base lookups\n", ret, sss_strerror(ret));
        num = 0;
    } else {
        for (i = 0; i < info->count; i++) {
            state->searched[state->bidx[info->start + i]] = true;
        }
    }
    for (i = 0; i < num; i++) {
        /* The same string is the same DN; anything else is compared canonically. */
        uintptr_t idx = (uintptr_t)sdap_strmap_get(state->wanted_raw, entries[i]->dn);

        if (idx == 0) {
            char *canon = sdap_dn_canon(entries, entries[i]->dn);

            idx = canon != NULL ? (uintptr_t)sdap_strmap_get(state->wanted, canon) : 0;
            talloc_free(canon);
        }
        if (idx == 0 || state->entries[idx - 1] != NULL) {
            continue;       /* the same name at another DN: not a requested member */
        }
        state->entries[idx - 1] = talloc_steal(state->entries, entries[i]);
        taken++;
    }
    talloc_free(entries);
    DEBUG(SSSDBG_TRACE_ALL, "batch: %zu of %zu entries taken\n", taken, num);
    ret = sdap_member_dns_fill(req);
    if (ret == EOK) {
        /* No batch left in flight: base lookups for what the batches did not return. */
        ret = sdap_member_dns_rest(req);
    }
    sdap_req_step(req, ret);
}

/* Base lookups of every DN still without an entry. EAGAIN: sent; EOK: none left. */
static errno_t sdap_member_dns_rest(struct tevent_req *req)
{
    struct sdap_member_dns_state *state = tevent_req_data(req, struct sdap_member_dns_state);
    struct tevent_req *subreq;
    size_t i;

    state->rest = talloc_array(state, const char *, state->n + 1);
    state->rest_idx = talloc_array(state, size_t, state->n + 1);
    if (state->rest == NULL || state->rest_idx == NULL) {
        return ENOMEM;
    }
    state->num_rest = 0;
    for (i = 0; i < state->n; i++) {
        /* A DN a successful batch searched for and did not return does not exist. */
        if (state->entries[i] == NULL && !state->searched[i]) {
            state->rest_idx[state->num_rest] = i;
            state->rest[state->num_rest++] = state->dns[i];
        }
    }
    state->rest[state->num_rest] = NULL;
    if (state->num_rest == 0) {
        return EOK;
    }
    DEBUG(SSSDBG_TRACE_FUNC, "%zu member DN(s) left for base lookups\n", state->num_rest);
    subreq = sdap_id_lookup_dns_send(state, state->ev, state->id_ctx, state->rest,
                                     state->num_rest, state->attrs);
    if (subreq == NULL) {
        return ENOMEM;
    }
    tevent_req_set_callback(subreq, sdap_member_dns_rest_done, req);
    return EAGAIN;
}

static void sdap_member_dns_rest_done(struct tevent_req *subreq)
{
    struct tevent_req *req = tevent_req_callback_data(subreq, struct tevent_req);
    struct sdap_member_dns_state *state = tevent_req_data(req, struct sdap_member_dns_state);
    struct sdap_entry **found = NULL;
    size_t i;
    errno_t ret;

    ret = sdap_id_lookup_dns_recv(state, subreq, &found);
    talloc_free(subreq);
    if (ret != EOK) {
        tevent_req_error(req, ret);
        return;
    }
    for (i = 0; i < state->num_rest; i++) {
        if (found[i] != NULL) {
            state->entries[state->rest_idx[i]] = talloc_steal(state->entries, found[i]);
        }
    }
    talloc_free(found);
    tevent_req_done(req);
}

errno_t sdap_member_dns_recv(TALLOC_CTX *mem_ctx, struct tevent_req *req,
                             struct sdap_entry ***_entries)
{
    struct sdap_member_dns_state *state = tevent_req_data(req, struct sdap_member_dns_state);

    TEVENT_REQ_RETURN_ON_ERROR(req);
    *_entries = talloc_steal(mem_ctx, state->entries);
    return EOK;
}
