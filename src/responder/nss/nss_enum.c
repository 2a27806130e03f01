/*
 * Enumeration snapshots (nss_private.h): the users (or groups) cached in every domain with
 * enumerate = true, in domain order, filtered, as one list that clients walk with cursors.
 *
 * Bounded (issue 11, item 7):
 * - One snapshot serves every client: a SET*ENT shares the newest one while the caches it
 *   was read from have not changed (their generations), or while it is younger than
 *   NSS_ENUM_MIN_REBUILD_S, so however many clients enumerate, a full read happens at most
 *   that often per map. (SSSD keeps one for enum_cache_timeout, 120 s, whatever changes:
 *   this is fresher, and as bounded.) Clients that ask while one is being built wait for it.
 * - Built in steps from the event loop: one domain's cache scan per step (one ldb search:
 *   sysdb has no paged enumeration), then its entries filtered NSS_ENUM_CHUNK at a time, so
 *   the loop serves other clients between steps.
 * - At most NSS_ENUM_MAX_SNAPS snapshots of a map live at once: making another one retires
 *   the oldest (its memory goes; a client still walking it sees the end of the list).
 *   Records are formatted only as GET*ENT replies are built.
 *
 * Ownership: snapshots are talloc roots with a reference count (the newest also counted by
 * the map), so a cursor on a client outliving the responder's context never dangles;
 * cursors are talloc objects of their holders.
 */
#include <assert.h>
#include <time.h>

#include "responder/nss/nss_private.h"
#include "responder/common/resp_names.h"
#include "db/sysdb_rcache.h"
#include "util/sss_list.h"

struct nss_enum_snap {
    struct nss_enum_ctx *ectx;      /* NULL once the responder's context is gone */
    bool pw;
    TALLOC_CTX *data;               /* the items and the cache entries they point to */
    struct nss_enum_item *items;
    size_t count;
    uint64_t *gens;                 /* per rctx domain, read before its scan; 0: unknown */
    time_t built;
    unsigned int refs;              /* cursors, waiting requests, and the map while newest */
    bool ready;
    bool retired;
    struct sss_list link;           /* ectx->snaps[pw], oldest first */
    struct sss_list waiters;        /* struct nss_enum_cursor_state.link */
    /* the build */
    struct tevent_context *ev;
    struct tevent_immediate *step;
    size_t next_dom;
    struct resp_domain *dom;
    void **raw;                     /* the current domain's entries, raw_pos of raw_count done */
    size_t raw_count;
    size_t raw_pos;
};

struct nss_enum_ctx {
    struct nss_ctx *nctx;
    struct sss_list snaps[2];       /* [pw] */
    size_t nsnaps[2];
};

/* ---- snapshots ---- */

static void nss_enum_snap_unref(struct nss_enum_snap *snap)
{
    assert(snap->refs > 0);
    if (--snap->refs > 0) {
        return;
    }
    if (snap->ectx != NULL) {
        sss_list_unlink(&snap->link);
        snap->ectx->nsnaps[snap->pw]--;
    }
    talloc_free(snap);
}

/* Frees what a snapshot holds; clients still walking it see the end. */
static void nss_enum_snap_retire(struct nss_enum_snap *snap)
{
    DEBUG(SSSDBG_TRACE_FUNC, "Retiring an enumeration snapshot of %zu %s\n", snap->count,
          snap->pw ? "users" : "groups");
    snap->retired = true;
    talloc_zfree(snap->data);
    snap->items = NULL;
    snap->count = 0;
    snap->raw = NULL;
    talloc_zfree(snap->step);
}

static struct nss_enum_snap *nss_enum_newest(struct nss_enum_ctx *ectx, bool pw)
{
    struct sss_list *last = sss_list_last(&ectx->snaps[pw]);

    return last != NULL ? sss_list_entry(last, struct nss_enum_snap, link) : NULL;
}

static int nss_enum_ctx_destructor(struct nss_enum_ctx *ectx)
{
    struct nss_enum_snap *newest;
    struct nss_enum_snap *snap;
    struct sss_list *l;
    int pw;

    /* Snapshots still held by cursors outlive the context: they forget it, and the newest
     * loses the map's reference. */
    for (pw = 0; pw < 2; pw++) {
        newest = nss_enum_newest(ectx, pw);
        while ((l = sss_list_first(&ectx->snaps[pw])) != NULL) {
            snap = sss_list_entry(l, struct nss_enum_snap, link);
            sss_list_unlink(&snap->link);
            snap->ectx = NULL;
            talloc_zfree(snap->step);
            if (snap == newest && --snap->refs == 0) {
                talloc_free(snap);
            }
        }
        ectx->nsnaps[pw] = 0;
    }
    return 0;
}

static struct nss_enum_ctx *nss_enum_ctx_get(struct nss_ctx *nctx)
{
    struct nss_enum_ctx *ectx = nctx->enum_ctx;

    if (ectx == NULL) {
        ectx = talloc_zero(nctx, struct nss_enum_ctx);
        if (ectx == NULL) {
            return NULL;
        }
        ectx->nctx = nctx;
        sss_list_init(&ectx->snaps[0]);
        sss_list_init(&ectx->snaps[1]);
        talloc_set_destructor(ectx, nss_enum_ctx_destructor);
        nctx->enum_ctx = ectx;
    }
    return ectx;
}

/* Whether every enumerating domain's cache is at the generation the snapshot read. */
static bool nss_enum_snap_unchanged(struct nss_enum_snap *snap)
{
    struct resp_ctx *rctx = snap->ectx->nctx->rctx;
    struct sysdb_ctx *sysdb;
    uint64_t gen;
    size_t i;

    for (i = 0; i < rctx->num_domains; i++) {
        if (!rctx->domains[i].enumerate) {
            continue;
        }
        if (resp_domain_sysdb(rctx, &rctx->domains[i], &sysdb) != EOK) {
            return false;
        }
        gen = sysdb_rcache_gen(sysdb);
        if (gen == 0 || gen != snap->gens[i]) {
            return false;
        }
    }
    return true;
}

static bool nss_enum_snap_usable(struct nss_enum_snap *snap)
{
    if (snap->retired) {
        return false;
    }
    if (!snap->ready) {
        return true;        /* being built: wait for it */
    }
    return time(NULL) - snap->built < (time_t)snap->ectx->nctx->enum_min_rebuild_s
           || nss_enum_snap_unchanged(snap);
}

static void nss_enum_finish(struct nss_enum_snap *snap);

/* The next enumerating domain's entries, in one scan. false: no domain left. */
static bool nss_enum_scan_next(struct nss_enum_snap *snap)
{
    struct resp_ctx *rctx = snap->ectx->nctx->rctx;
    struct sysdb_user **users = NULL;
    struct sysdb_group **groups = NULL;
    struct sysdb_ctx *sysdb;
    size_t count = 0;
    size_t i;
    errno_t ret;

    while (snap->next_dom < rctx->num_domains) {
        i = snap->next_dom++;
        if (!rctx->domains[i].enumerate) {
            continue;
        }
        snap->dom = &rctx->domains[i];
        ret = resp_domain_sysdb(rctx, snap->dom, &sysdb);
        if (ret == EOK) {
            uint64_t t0 = sss_monotonic_usec();

            snap->gens[i] = sysdb_rcache_gen(sysdb);
            ret = snap->pw ? sysdb_enumerate_users(snap->data, sysdb, &users, &count)
                           : sysdb_enumerate_groups(snap->data, sysdb, &groups, &count);
            DEBUG(SSSDBG_TRACE_FUNC, "Enumeration scan of domain %s: %zu %s in %llu us\n",
                  snap->dom->name, count, snap->pw ? "users" : "groups",
                  (unsigned long long)(sss_monotonic_usec() - t0));
        }
        if (ret != EOK) {
            DEBUG(SSSDBG_OP_FAILURE, "Cannot enumerate domain %s: %s\n", snap->dom->name,
                  sss_strerror(ret));
            snap->gens[i] = 0;
            continue;
        }
        snap->items = talloc_realloc(snap->data, snap->items, struct nss_enum_item,
                                     snap->count + count + 1);
        if (snap->items == NULL) {
            DEBUG(SSSDBG_CRIT_FAILURE, "Out of memory enumerating domain %s\n",
                  snap->dom->name);
            snap->count = 0;
            return false;
        }
        snap->raw = snap->pw ? (void **)users : (void **)groups;
        snap->raw_count = count;
        snap->raw_pos = 0;
        return true;
    }
    return false;
}

/* Up to NSS_ENUM_CHUNK entries of the current domain into the items (filtered ones out). */
static errno_t nss_enum_filter_chunk(struct nss_enum_snap *snap)
{
    struct resp_ctx *rctx = snap->ectx->nctx->rctx;
    struct sysdb_ctx *sysdb;
    struct nss_enum_item *it;
    TALLOC_CTX *tmp_ctx;
    const char *name;
    char *short_name;
    size_t end = snap->raw_pos + NSS_ENUM_CHUNK;
    bool filtered;
    errno_t ret;

    ret = resp_domain_sysdb(rctx, snap->dom, &sysdb);
    if (ret != EOK) {
        return ret;
    }
    tmp_ctx = talloc_new(NULL);
    if (tmp_ctx == NULL) {
        return ENOMEM;
    }
    for (; snap->raw_pos < snap->raw_count && snap->raw_pos < end; snap->raw_pos++) {
        name = snap->pw ? ((struct sysdb_user *)snap->raw[snap->raw_pos])->name
                        : ((struct sysdb_group *)snap->raw[snap->raw_pos])->name;
        ret = sysdb_short_name(tmp_ctx, sysdb, name, &short_name);
        if (ret != EOK) {
            goto done;
        }
        filtered = snap->pw ? resp_user_is_filtered(rctx, snap->dom, short_name)
                            : resp_group_is_filtered(rctx, snap->dom, short_name);
        talloc_free(short_name);
        if (filtered) {
            continue;
        }
        it = &snap->items[snap->count++];
        it->dom = snap->dom;
        it->user = snap->pw ? snap->raw[snap->raw_pos] : NULL;
        it->group = snap->pw ? NULL : snap->raw[snap->raw_pos];
    }
    if (snap->raw_pos == snap->raw_count) {
        snap->raw = NULL;       /* the array stays in data: the items point to its entries */
    }
    ret = EOK;
done:
    talloc_free(tmp_ctx);
    return ret;
}

static void nss_enum_step(struct tevent_context *ev, struct tevent_immediate *im, void *pvt)
{
    struct nss_enum_snap *snap = talloc_get_type(pvt, struct nss_enum_snap);
    errno_t ret;

    if (snap->raw == NULL && !nss_enum_scan_next(snap)) {
        nss_enum_finish(snap);
        return;
    }
    ret = nss_enum_filter_chunk(snap);
    if (ret != EOK) {
        DEBUG(SSSDBG_OP_FAILURE, "Enumeration of domain %s stopped: %s\n", snap->dom->name,
              sss_strerror(ret));
        snap->raw = NULL;
    }
    tevent_schedule_immediate(snap->step, snap->ev, nss_enum_step, snap);
}

/* ---- cursors ---- */

struct nss_enum_cursor_state {
    struct sss_list link;           /* in snap->waiters while the build runs */
    struct tevent_req *req;
    struct nss_enum_cursor *cur;
};

static int nss_enum_cursor_destructor(struct nss_enum_cursor *cur)
{
    if (cur->snap != NULL) {
        nss_enum_snap_unref(cur->snap);
        cur->snap = NULL;
    }
    return 0;
}

static int nss_enum_cursor_state_destructor(struct nss_enum_cursor_state *state)
{
    sss_list_unlink(&state->link);
    return 0;
}

static void nss_enum_finish(struct nss_enum_snap *snap)
{
    struct nss_enum_cursor_state *state;
    struct sss_list *l;

    snap->ready = true;
    snap->built = time(NULL);
    talloc_zfree(snap->step);
    DEBUG(SSSDBG_TRACE_FUNC, "Enumeration of %s: %zu entries\n",
          snap->pw ? "users" : "groups", snap->count);
    /* Each waiter's callback may free other waiters (a client going away): take them one
     * by one off the list. */
    while ((l = sss_list_first(&snap->waiters)) != NULL) {
        state = sss_list_entry(l, struct nss_enum_cursor_state, link);
        sss_list_unlink(&state->link);
        tevent_req_done(state->req);
    }
}

/* A new snapshot of the map, its build started; NULL on ENOMEM. Retires the oldest ones
 * beyond NSS_ENUM_MAX_SNAPS. */
static struct nss_enum_snap *nss_enum_snap_new(struct nss_enum_ctx *ectx,
                                               struct tevent_context *ev, bool pw)
{
    struct nss_enum_snap *snap;
    struct nss_enum_snap *old;
    struct sss_list *l;

    snap = talloc_zero(NULL, struct nss_enum_snap);
    if (snap == NULL) {
        return NULL;
    }
    snap->ectx = ectx;
    snap->pw = pw;
    snap->ev = ev;
    sss_list_init(&snap->waiters);
    snap->data = talloc_new(snap);
    snap->gens = talloc_zero_array(snap, uint64_t, ectx->nctx->rctx->num_domains + 1);
    snap->step = tevent_create_immediate(snap);
    if (snap->data == NULL || snap->gens == NULL || snap->step == NULL) {
        talloc_free(snap);
        return NULL;
    }
    /* The map's reference moves from the old newest to this one. */
    old = nss_enum_newest(ectx, pw);
    sss_list_link_tail(&ectx->snaps[pw], &snap->link);
    ectx->nsnaps[pw]++;
    snap->refs = 1;
    if (old != NULL) {
        nss_enum_snap_unref(old);
    }
    while (ectx->nsnaps[pw] > NSS_ENUM_MAX_SNAPS
               && (l = sss_list_first(&ectx->snaps[pw])) != NULL) {
        old = sss_list_entry(l, struct nss_enum_snap, link);
        assert(old != snap);
        sss_list_unlink(&old->link);
        ectx->nsnaps[pw]--;
        old->ectx = NULL;
        nss_enum_snap_retire(old);
    }
    tevent_schedule_immediate(snap->step, ev, nss_enum_step, snap);
    return snap;
}

struct tevent_req *nss_enum_cursor_send(TALLOC_CTX *mem_ctx, struct tevent_context *ev,
                                        struct nss_ctx *nctx, bool pw)
{
    struct nss_enum_cursor_state *state;
    struct nss_enum_ctx *ectx;
    struct nss_enum_snap *snap;
    struct tevent_req *req;

    req = tevent_req_create(mem_ctx, &state, struct nss_enum_cursor_state);
    if (req == NULL) {
        return NULL;
    }
    state->req = req;
    talloc_set_destructor(state, nss_enum_cursor_state_destructor);
    if (ev == NULL || nctx == NULL) {
        DEBUG(SSSDBG_CRIT_FAILURE, "invalid argument: %s is NULL\n",
              ev == NULL ? "ev" : "nctx");
        return sss_req_post(req, ev, EINVAL);
    }
    ectx = nss_enum_ctx_get(nctx);
    if (ectx == NULL) {
        return sss_req_post(req, ev, ENOMEM);
    }
    snap = nss_enum_newest(ectx, pw);
    if (snap == NULL || !nss_enum_snap_usable(snap)) {
        snap = nss_enum_snap_new(ectx, ev, pw);
        if (snap == NULL) {
            return sss_req_post(req, ev, ENOMEM);
        }
    }
    state->cur = talloc_zero(state, struct nss_enum_cursor);
    if (state->cur == NULL) {
        return sss_req_post(req, ev, ENOMEM);
    }
    state->cur->snap = snap;
    snap->refs++;
    talloc_set_destructor(state->cur, nss_enum_cursor_destructor);
    if (snap->ready) {
        tevent_req_done(req);
        return tevent_req_post(req, ev);
    }
    sss_list_link_tail(&snap->waiters, &state->link);
    return req;
}

errno_t nss_enum_cursor_recv(TALLOC_CTX *mem_ctx, struct tevent_req *req,
                             struct nss_enum_cursor **_cur)
{
    struct nss_enum_cursor_state *state = tevent_req_data(req, struct nss_enum_cursor_state);

    TEVENT_REQ_RETURN_ON_ERROR(req);
    *_cur = talloc_steal(mem_ctx, state->cur);
    state->cur = NULL;
    return EOK;
}

size_t nss_enum_cursor_left(struct nss_enum_cursor *cur)
{
    SSS_CHECK_ARG(cur != NULL, 0);
    if (cur->snap == NULL || cur->pos >= cur->snap->count) {
        return 0;
    }
    return cur->snap->count - cur->pos;
}

bool nss_enum_cursor_same(struct nss_enum_cursor *a, struct nss_enum_cursor *b)
{
    return a != NULL && b != NULL && a->snap != NULL && a->snap == b->snap;
}

/* ---- replies ---- */

/* Adds the record of one snapshot item to reply. */
static errno_t nss_enum_add_item(struct nss_ctx *nctx, struct nss_enum_item *it, bool pw,
                                 struct nss_reply *reply)
{
    TALLOC_CTX *tmp_ctx;
    struct nss_pw_entry pwe;
    struct nss_gr_entry gre;
    errno_t ret;

    tmp_ctx = talloc_new(NULL);
    if (tmp_ctx == NULL) {
        return ENOMEM;
    }
    if (pw) {
        ret = nss_format_pw(tmp_ctx, nctx->fmt, nctx->rctx, it->dom, it->user, &pwe);
        if (ret != EOK) {
            goto done;
        }
        ret = nss_reply_passwd_add(reply, &pwe);
    } else {
        ret = nss_format_gr(tmp_ctx, nctx->fmt, nctx->rctx, it->dom, it->group, &gre);
        if (ret != EOK) {
            goto done;
        }
        ret = nss_reply_group_add(reply, &gre);
    }
done:
    talloc_free(tmp_ctx);
    return ret;
}

errno_t nss_enum_fill(struct nss_ctx *nctx, struct nss_enum_cursor *cur, uint32_t count,
                      struct nss_reply *reply)
{
    struct nss_enum_snap *snap;
    size_t start;
    uint32_t n;
    errno_t ret;

    SSS_CHECK_ARG(nctx != NULL && cur != NULL && reply != NULL, EINVAL);
    snap = cur->snap;
    if (snap == NULL) {
        return EOK;
    }
    if (count > NSS_ENUM_MAX_PER_REPLY) {
        count = NSS_ENUM_MAX_PER_REPLY;
    }
    start = nss_reply_body_len(reply);
    for (n = 0; n < count && cur->pos < snap->count; n++) {
        /* A reply holds at least one record, and stops growing past the byte bound. */
        if (n > 0 && nss_reply_body_len(reply) - start >= NSS_ENUM_MAX_REPLY_BYTES) {
            break;
        }
        ret = nss_enum_add_item(nctx, &snap->items[cur->pos], snap->pw, reply);
        if (ret != EOK) {
            return ret;
        }
        cur->pos++;
    }
    return EOK;
}
