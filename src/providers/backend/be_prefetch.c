/*
 * Member prefetch. An initgroups stores the user's groups without member lists, and a group
 * that was not cached is stored expired (sysdb_store_group_ext), so getgrgid does not answer
 * an empty list. `id` then asks getgrgid for every group of the user, in the order of the
 * initgroups reply: one back-end lookup per group, 5,000 for a user in 5,000 groups. Here
 * those groups are queued in that order and fetched BE_PF_BATCH per LDAP search
 * (sdap_get_groups_by_gid: members exactly as a group lookup gives them), each batch stored
 * in one transaction with a fresh expiry, BE_PF_WINDOW batches in flight.
 *
 * When batches run: in the background, one at a time and only once the back-end had no
 * operation for BE_PF_QUIET_USEC (the initgroups reply and the next cold lookups come
 * first). While somebody waits for a prefetched group, sooner: a group request for a queued
 * or in-flight group joins it (no LDAP search of its own), a queued one moves to the front,
 * in a batch of BE_PF_URGENT_BATCH, and for BE_PF_HOT_USEC after that the rest of that
 * initgroups' list runs BE_PF_WINDOW batches back to back (`id` walks the list in the queue's
 * order); other lists stay in the background. Stores run one batch at a time, a batch somebody waits for
 * first, BE_PF_STORE_SLICE groups per transaction with a loop turn between, and a group is
 * answered as soon as its slice is committed.
 *
 * Failures: the batch's waiters are sent on their own lookup (the normal path, with its
 * retry and offline handling), and the queue is dropped (no retry storm against a failing
 * server). ENETUNREACH takes the domain offline exactly as a lookup does. Offline: the queue
 * is dropped at the next scheduling point.
 */
#include <assert.h>
#include <stdio.h>
#include <string.h>

#include "providers/backend/be_ctx.h"
#include "providers/ldap/sdap.h"
#include "db/sysdb.h"

/* Background batches wait for this much quiet after the last operation, and keep one
 * batch in flight. */
#define BE_PF_QUIET_USEC 20000
#define BE_PF_BG_WINDOW 1
/* After a request waited for a prefetched group, batches run back to back (BE_PF_WINDOW in
 * flight) without waiting for quiet, for this long. */
#define BE_PF_HOT_USEC 2000000
/* Size of a batch started for a group somebody waits for. */
#define BE_PF_URGENT_BATCH 20
/* Groups stored per transaction (and loop turn): a step stays at a few ms. */
#define BE_PF_STORE_SLICE 50
/* Extra batches allowed over the window for a group somebody waits for. */
#define BE_PF_URGENT 2
/* Initial size of the indexes (they grow with the queue). */
#define BE_PF_INDEX_HINT 1024
/* Cache reads (already fresh?) per batch start: a queue that a lookup or an enumeration
 * made fresh meanwhile is skipped a slice per loop turn, not all at once. */
#define BE_PF_MAX_CHECKS (2 * BE_PF_BATCH)
/* Groups stored by the prefetch remembered this long: a request the responder sent while
 * the batch was being stored (it saw the group expired) is answered from the cache instead
 * of searching again. Kept short: a later request may be a refresh that must search. */
#define BE_PF_RECENT 512
#define BE_PF_RECENT_USEC 1000000

struct be_pf_batch;

struct be_pf_waiter {
    struct sss_list link;           /* in item->waiters while it waits */
    struct be_pf_item *item;        /* NULL once told (or detached) */
    be_prefetch_fn fn;
    void *pvt;
};

struct be_pf_item {
    struct sss_list link;           /* in pf->queue while queued */
    uint32_t gid;
    uint64_t list;                  /* which initgroups queued it */
    char *key;                      /* sysdb_name_key form of the name */
    uint64_t key_hash;              /* sss_hash_str(key) */
    struct be_pf_batch *batch;      /* NULL while queued */
    bool stored;                    /* the batch stored it */
    struct sss_list waiters;        /* struct be_pf_waiter */
};

struct be_prefetch {
    struct be_ctx *be;
    struct sss_list queue;          /* struct be_pf_item, in fetch order */
    size_t num_queued;              /* length of queue */
    size_t in_flight;               /* batches */
    /* Every item queued or in flight, by gid; and by name key (the first item queued under
     * a name: a name lookup joins that one). */
    struct sss_hash_table *by_gid;
    struct sss_hash_table *by_key;
    struct tevent_timer *timer;
    uint64_t next_list;
    uint64_t hot_list;              /* the list somebody walks (hot until hot_until) */
    uint64_t hot_until;
    struct be_pf_recent {           /* ring of the last groups stored */
        uint32_t gid;
        char *key;
        uint64_t at;
    } recent[BE_PF_RECENT];
    size_t recent_next;
    struct sss_list batches;        /* struct be_pf_batch in flight, oldest first */
    struct be_pf_batch *storing;    /* the batch whose store is running */
    struct tevent_req *store_turn;  /* the loop turn before the next store */
};

struct be_pf_batch {
    struct sss_list link;           /* in pf->batches */
    struct be_prefetch *pf;
    uint64_t req_id;                /* a background request of its own (probes, log) */
    bool ready;                     /* found, waiting for its store turn */
    struct be_pf_item **items;
    size_t n;
    struct sdap_group **groups;     /* the result, while the big ones are stored */
    size_t num_groups;
    size_t next_small;              /* the sliced store's position */
    size_t next_big;
};

static void be_pf_run(struct be_prefetch *pf);

/* ---- index ---------------------------------------------------------------------------- */

static bool be_pf_gid_equal(const void *item, const void *key, void *ctx)
{
    return ((const struct be_pf_item *)item)->gid == *(const uint32_t *)key;
}

static bool be_pf_key_equal(const void *item, const void *key, void *ctx)
{
    return strcmp(((const struct be_pf_item *)item)->key, key) == 0;
}

static struct be_pf_item *be_pf_find_gid(struct be_prefetch *pf, uint32_t gid)
{
    return sss_hash_table_get(pf->by_gid, sss_hash_u32(gid), &gid);
}

static struct be_pf_item *be_pf_find_key(struct be_prefetch *pf, const char *key)
{
    return sss_hash_table_get(pf->by_key, sss_hash_str(key), key);
}

/* EEXIST: an item with that gid is indexed already. */
static errno_t be_pf_index(struct be_prefetch *pf, struct be_pf_item *item)
{
    errno_t ret;

    ret = sss_hash_table_insert(pf->by_gid, sss_hash_u32(item->gid), &item->gid, item, NULL);
    if (ret != EOK) {
        return ret;
    }
    item->key_hash = sss_hash_str(item->key);
    ret = sss_hash_table_insert(pf->by_key, item->key_hash, item->key, item, NULL);
    if (ret != EOK && ret != EEXIST) {
        sss_hash_table_remove_item(pf->by_gid, sss_hash_u32(item->gid), item);
        return ret;
    }
    return EOK;
}

static void be_pf_unindex(struct be_prefetch *pf, struct be_pf_item *item)
{
    bool found;

    found = sss_hash_table_remove_item(pf->by_gid, sss_hash_u32(item->gid), item);
    assert(found);
    (void)found;
    /* Absent when another item held the name already. */
    sss_hash_table_remove_item(pf->by_key, item->key_hash, item);
}

/* ---- queue ---------------------------------------------------------------------------- */

static struct be_pf_item *be_pf_head(struct be_prefetch *pf)
{
    return sss_list_first_entry(&pf->queue, struct be_pf_item, link);
}

static bool be_pf_waited(const struct be_pf_item *item)
{
    return !sss_list_is_empty(&item->waiters);
}

static void be_pf_unlink(struct be_prefetch *pf, struct be_pf_item *item)
{
    assert(sss_list_is_linked(&item->link) && pf->num_queued > 0);
    sss_list_unlink(&item->link);
    pf->num_queued--;
}

static void be_pf_push_front(struct be_prefetch *pf, struct be_pf_item *item)
{
    sss_list_link_front(&pf->queue, &item->link);
    pf->num_queued++;
}

static void be_pf_push_back(struct be_prefetch *pf, struct be_pf_item *item)
{
    sss_list_link_tail(&pf->queue, &item->link);
    pf->num_queued++;
}

/* The item is over (it must be out of the queue): out of the index, waiters told, freed.
 * A waiter's callback may start other work, but never finds this item again. */
static void be_pf_finish(struct be_prefetch *pf, struct be_pf_item *item, errno_t ret)
{
    struct be_pf_waiter *w;

    assert(!sss_list_is_linked(&item->link));
    be_pf_unindex(pf, item);
    if (ret == EOK) {
        struct be_pf_recent *r = &pf->recent[pf->recent_next];

        pf->recent_next = (pf->recent_next + 1) % BE_PF_RECENT;
        talloc_free(r->key);
        r->gid = item->gid;
        r->key = talloc_steal(pf, item->key);
        r->at = sss_monotonic_usec();
    }
    while ((w = sss_list_first_entry(&item->waiters, struct be_pf_waiter, link)) != NULL) {
        sss_list_unlink(&w->link);
        w->item = NULL;
        if (ret != EOK) {
            pf->be->stats.pf_fallbacks++;
        }
        w->fn(w->pvt, ret);
    }
    talloc_free(item);
}

/* Every queued item dropped (waiters sent on their own lookup). */
static void be_pf_drop_queue(struct be_prefetch *pf, const char *why)
{
    struct be_pf_item *item;
    size_t n = pf->num_queued;

    if (n == 0) {
        return;
    }
    DEBUG(SSSDBG_TRACE_FUNC, "member prefetch: %zu queued group(s) dropped: %s\n", n, why);
    pf->be->stats.pf_dropped += n;
    while ((item = be_pf_head(pf)) != NULL) {
        be_pf_unlink(pf, item);
        be_pf_finish(pf, item, ENETUNREACH);
    }
}

static int be_prefetch_destructor(struct be_prefetch *pf)
{
    struct be_pf_waiter *w;
    struct be_pf_waiter *tmp;
    void *item;
    size_t pos = 0;

    /* The back-end goes away: detach waiters, answer nobody (as be_op_destructor). */
    while (sss_hash_table_next(pf->by_gid, &pos, &item)) {
        sss_list_for_each_entry_safe(w, tmp, &((struct be_pf_item *)item)->waiters, link) {
            sss_list_unlink(&w->link);
            w->item = NULL;
        }
    }
    return 0;
}

static struct be_prefetch *be_pf_get(struct be_ctx *be)
{
    struct be_prefetch *pf;

    if (be->prefetch != NULL) {
        return be->prefetch;
    }
    pf = talloc_zero(be, struct be_prefetch);
    if (pf == NULL) {
        return NULL;
    }
    pf->be = be;
    sss_list_init(&pf->queue);
    sss_list_init(&pf->batches);
    pf->by_gid = sss_hash_table_new(pf, BE_PF_INDEX_HINT, be_pf_gid_equal, NULL);
    pf->by_key = sss_hash_table_new(pf, BE_PF_INDEX_HINT, be_pf_key_equal, NULL);
    if (pf->by_gid == NULL || pf->by_key == NULL) {
        talloc_free(pf);
        return NULL;
    }
    talloc_set_destructor(pf, be_prefetch_destructor);
    be->prefetch = pf;
    return pf;
}

void be_prefetch_queue(struct be_ctx *be, struct sdap_group *const *groups, size_t n)
{
    struct be_prefetch *pf;
    struct be_pf_item *item;
    size_t added = 0;
    size_t dropped = 0;
    size_t i;

    if (n == 0 || be->id_ctx == NULL || be_is_offline(be)) {
        return;
    }
    pf = be_pf_get(be);
    if (pf == NULL) {
        return;
    }
    pf->next_list++;
    for (i = 0; i < n; i++) {
        if (be_pf_find_gid(pf, groups[i]->gid) != NULL) {
            continue;
        }
        if (sss_hash_table_count(pf->by_gid) >= BE_PF_MAX_QUEUED) {
            dropped = n - i;
            break;
        }
        item = talloc_zero(pf, struct be_pf_item);
        if (item == NULL
                || sysdb_name_key(item, be->sysdb, groups[i]->name, &item->key) != EOK) {
            talloc_free(item);
            continue;
        }
        item->gid = groups[i]->gid;
        item->list = pf->next_list;
        sss_list_init(&item->waiters);
        if (be_pf_index(pf, item) != EOK) {
            talloc_free(item);
            continue;
        }
        be_pf_push_back(pf, item);
        added++;
    }
    be->stats.pf_queued += added;
    if (dropped > 0) {
        be->stats.pf_dropped += dropped;
        DEBUG(SSSDBG_MINOR_FAILURE, "member prefetch: queue full (%d groups), %zu group(s) "
              "not queued: their members are fetched when asked for\n", BE_PF_MAX_QUEUED,
              dropped);
    }
    DEBUG(SSSDBG_TRACE_INTERNAL, "member prefetch: %zu group(s) queued, %zu waiting\n", added,
          pf->num_queued);
    be_pf_run(pf);
}

/* ---- waiting ---------------------------------------------------------------------------- */

static int be_pf_waiter_destructor(struct be_pf_waiter *w)
{
    sss_list_unlink(&w->link);
    w->item = NULL;
    return 0;
}

static void be_pf_timer_fire(struct tevent_context *ev, struct tevent_timer *te,
                             struct timeval tv, void *pvt)
{
    struct be_prefetch *pf = talloc_get_type(pvt, struct be_prefetch);

    pf->timer = NULL;
    be_pf_run(pf);
}

/* be_pf_run from the loop, after usec. */
static void be_pf_arm(struct be_prefetch *pf, uint64_t usec)
{
    talloc_free(pf->timer);
    pf->timer = tevent_add_timer(pf->be->ev, pf,
                                 tevent_timeval_current_ofs(usec / 1000000, usec % 1000000),
                                 be_pf_timer_fire, pf);
    if (pf->timer == NULL) {
        DEBUG(SSSDBG_CRIT_FAILURE, "member prefetch: out of memory for a timer\n");
    }
}

/* Somebody waits for a queued item: its whole list (the rest of that user's groups, which
 * `id` asks for next) goes to the front in its order, the item itself first. */
static void be_pf_promote(struct be_prefetch *pf, struct be_pf_item *item)
{
    struct sss_list front = SSS_LIST_INIT(front);
    struct be_pf_item *it;
    struct be_pf_item *tmp;

    /* The item, then the rest of its list in queue order, then everything else (the
     * count of queued items does not change). */
    sss_list_unlink(&item->link);
    sss_list_link_tail(&front, &item->link);
    sss_list_for_each_entry_safe(it, tmp, &pf->queue, link) {
        if (it->list == item->list) {
            sss_list_unlink(&it->link);
            sss_list_link_tail(&front, &it->link);
        }
    }
    sss_list_splice_tail(&front, &pf->queue);
    sss_list_splice_tail(&pf->queue, &front);
}

struct be_pf_just_stored {
    be_prefetch_fn fn;
    void *pvt;
};

static void be_pf_just_stored_fire(struct tevent_context *ev, struct tevent_timer *te,
                                   struct timeval tv, void *ptr)
{
    struct be_pf_just_stored *js = talloc_get_type_abort(ptr, struct be_pf_just_stored);

    js->fn(js->pvt, EOK);
}

/* The group (gid, or key when not NULL) was stored by a batch within BE_PF_RECENT_USEC. */
static bool be_pf_recently_stored(struct be_prefetch *pf, const struct be_filter *filter,
                                  const char *key)
{
    uint64_t now = sss_monotonic_usec();
    size_t i;

    for (i = 0; i < BE_PF_RECENT; i++) {
        const struct be_pf_recent *r = &pf->recent[i];

        if (r->key == NULL || now - r->at > BE_PF_RECENT_USEC) {
            continue;
        }
        if (key != NULL ? strcmp(r->key, key) == 0
                        : (filter->kind == BE_FILTER_ID && r->gid == filter->id)) {
            return true;
        }
    }
    return false;
}

bool be_prefetch_join(struct be_ctx *be, const struct be_filter *filter, TALLOC_CTX *mem_ctx,
                      be_prefetch_fn fn, void *pvt)
{
    struct be_prefetch *pf = be->prefetch;
    struct be_pf_item *item = NULL;
    struct be_pf_just_stored *js;
    struct be_pf_waiter *w;
    char *key = NULL;
    bool recent;

    if (pf == NULL || filter == NULL
            || (filter->kind != BE_FILTER_ID && filter->kind != BE_FILTER_NAME)) {
        return false;
    }
    if (filter->kind == BE_FILTER_NAME
            && sysdb_name_key(NULL, be->sysdb, filter->name, &key) != EOK) {
        return false;
    }
    if (sss_hash_table_count(pf->by_gid) > 0) {
        item = key != NULL ? be_pf_find_key(pf, key) : be_pf_find_gid(pf, filter->id);
    }
    if (item == NULL) {
        /* Stored by a batch while this request was on its way: the cache has it. */
        recent = be_pf_recently_stored(pf, filter, key);
        talloc_free(key);
        if (!recent) {
            return false;
        }
        js = talloc_zero(mem_ctx, struct be_pf_just_stored);
        if (js == NULL) {
            return false;
        }
        js->fn = fn;
        js->pvt = pvt;
        if (tevent_add_timer(be->ev, js, tevent_timeval_zero(), be_pf_just_stored_fire,
                             js) == NULL) {
            talloc_free(js);
            return false;
        }
        be->stats.pf_joined++;
        return true;
    }
    talloc_free(key);
    w = talloc_zero(mem_ctx, struct be_pf_waiter);
    if (w == NULL) {
        return false;
    }
    w->item = item;
    w->fn = fn;
    w->pvt = pvt;
    sss_list_link_front(&item->waiters, &w->link);
    talloc_set_destructor(w, be_pf_waiter_destructor);
    be->stats.pf_joined++;
    if (item->batch == NULL) {
        be_pf_promote(pf, item);
    }
    pf->hot_list = item->list;
    pf->hot_until = sss_monotonic_usec() + BE_PF_HOT_USEC;
    be_pf_arm(pf, 0);
    return true;
}

size_t be_prefetch_pending(struct be_ctx *be)
{
    return be->prefetch != NULL ? sss_hash_table_count(be->prefetch->by_gid) : 0;
}

/* ---- batches ---------------------------------------------------------------------------- */

static void be_pf_batch_found(struct tevent_req *subreq);
static void be_pf_batch_big_stored(struct tevent_req *subreq);

/* A group already fresh in the cache (stored by a lookup since it was queued): the same
 * name with that gid. Another name holding the gid now (renumbered) is not this group. */
static bool be_pf_fresh(struct be_ctx *be, const struct be_pf_item *item, time_t now)
{
    struct sysdb_group *grp = NULL;
    char *key = NULL;
    bool fresh;

    if (sysdb_get_group_by_gid(NULL, be->sysdb, item->gid, &grp) != EOK) {
        return false;
    }
    fresh = grp->expire > now
            && sysdb_name_key(grp, be->sysdb, grp->name, &key) == EOK
            && strcmp(key, item->key) == 0;
    talloc_free(grp);
    return fresh;
}

static int be_pf_batch_destructor(struct be_pf_batch *batch)
{
    sss_list_unlink(&batch->link);
    return 0;
}

static errno_t be_pf_batch_start(struct be_prefetch *pf)
{
    struct be_ctx *be = pf->be;
    struct be_pf_batch *batch;
    struct be_pf_item *item;
    struct tevent_req *subreq;
    uint32_t *gids;
    time_t now = time(NULL);
    size_t checks = 0;
    /* Somebody waits for the head: a small batch, answered sooner. */
    size_t max = be_pf_waited(be_pf_head(pf)) ? BE_PF_URGENT_BATCH : BE_PF_BATCH;

    batch = talloc_zero(pf, struct be_pf_batch);
    if (batch == NULL) {
        return ENOMEM;
    }
    batch->pf = pf;
    batch->req_id = sss_new_req_id();
    batch->items = talloc_array(batch, struct be_pf_item *, BE_PF_BATCH);
    gids = talloc_array(batch, uint32_t, BE_PF_BATCH);
    if (batch->items == NULL || gids == NULL) {
        talloc_free(batch);
        return ENOMEM;
    }
    while (batch->n < max && checks < BE_PF_MAX_CHECKS && (item = be_pf_head(pf)) != NULL) {
        be_pf_unlink(pf, item);
        checks++;
        if (be_pf_fresh(be, item, now)) {
            be_pf_finish(pf, item, EOK);
            continue;
        }
        item->batch = batch;
        batch->items[batch->n] = item;
        gids[batch->n++] = item->gid;
    }
    if (batch->n == 0) {
        talloc_free(batch);
        /* Only fresh ones so far: the rest of the queue on a later loop turn. */
        return sss_list_is_empty(&pf->queue) ? EOK : EAGAIN;
    }
    {
        /* The batch's LDAP operations and their callbacks carry its own request id. */
        SSS_REQ_ID_SCOPE(batch->req_id);

        subreq = sdap_get_groups_by_gid_send(batch, be->ev, be->id_ctx, gids, batch->n);
    }
    if (subreq == NULL) {
        /* Items go back to the front, in order, for a later try. */
        while (batch->n > 0) {
            item = batch->items[--batch->n];
            item->batch = NULL;
            be_pf_push_front(pf, item);
        }
        talloc_free(batch);
        return ENOMEM;
    }
    tevent_req_set_callback(subreq, be_pf_batch_found, batch);
    sss_list_link_tail(&pf->batches, &batch->link);
    talloc_set_destructor(batch, be_pf_batch_destructor);
    pf->in_flight++;
    DEBUG(SSSDBG_TRACE_INTERNAL, "member prefetch: batch of %zu group(s) sent, %zu queued\n",
          batch->n, pf->num_queued);
    return EOK;
}

/* Items of the batch that were stored are answered at once (their waiters need not wait
 * for the big groups of the same batch); they leave the batch's list. */
static void be_pf_batch_answer_stored(struct be_pf_batch *batch)
{
    size_t i;

    for (i = 0; i < batch->n; i++) {
        if (batch->items[i] != NULL && batch->items[i]->stored) {
            batch->pf->be->stats.pf_stored++;
            be_pf_finish(batch->pf, batch->items[i], EOK);
            batch->items[i] = NULL;
        }
    }
}

static void be_pf_store_next(struct be_prefetch *pf);

/* The batch is over: the items not stored are told so, the next store and batches start. */
static void be_pf_batch_end(struct be_pf_batch *batch, errno_t ret)
{
    struct be_prefetch *pf = batch->pf;
    size_t left = 0;
    size_t i;

    if (pf->storing == batch) {
        pf->storing = NULL;
    }
    assert(pf->in_flight > 0 && sss_list_is_linked(&batch->link));
    pf->in_flight--;
    pf->be->stats.pf_batches++;
    if (ret == EOK) {
        be_pf_batch_answer_stored(batch);
    }
    for (i = 0; i < batch->n; i++) {
        left += batch->items[i] != NULL ? 1 : 0;
    }
    DEBUG(SSSDBG_TRACE_FUNC, "member prefetch: batch of %zu: %zu not stored%s%s\n", batch->n,
          left, ret != EOK ? ", failed: " : "", ret != EOK ? sss_strerror(ret) : "");
    PROBE(BE_PREFETCH_BATCH, batch->req_id, pf->be->domain, (unsigned int)batch->n,
          (unsigned int)(batch->n - left), ret);
    if (ret == ENETUNREACH) {
        be_go_offline(pf->be, "no LDAP server reachable");
    }
    if (ret != EOK) {
        be_pf_drop_queue(pf, "a prefetch batch failed");
    }
    for (i = 0; i < batch->n; i++) {
        /* Not stored: not returned (gone, duplicate, unusable) or refused; the waiters'
         * own lookup tells which. */
        if (batch->items[i] != NULL) {
            be_pf_finish(pf, batch->items[i], ret != EOK ? ret : ENOENT);
        }
    }
    talloc_free(batch);
    be_pf_store_next(pf);
    be_pf_run(pf);
}

static struct be_pf_item *be_pf_batch_item(struct be_pf_batch *batch,
                                           const struct sdap_group *g)
{
    struct be_pf_item *item = be_pf_find_gid(batch->pf, g->gid);
    char *key = NULL;
    bool same;

    if (item == NULL || item->batch != batch) {
        return NULL;
    }
    /* Renamed since the initgroups: let the waiters' own lookup sort it out. */
    if (sysdb_name_key(NULL, batch->pf->be->sysdb, g->name, &key) != EOK) {
        return NULL;
    }
    same = strcmp(key, item->key) == 0;
    talloc_free(key);
    return same ? item : NULL;
}

static bool be_pf_big(const struct sdap_group *g)
{
    return g->num_member_users + g->num_member_groups > BE_BIG_GROUP;
}

/* Stores the next BE_PF_STORE_SLICE small groups of the batch in one transaction.
 * EAGAIN: more are left (for another loop turn); EOK: all small ones are stored. */
static errno_t be_pf_store_small(struct be_pf_batch *batch, time_t now)
{
    struct be_ctx *be = batch->pf->be;
    struct be_pf_item *item;
    size_t from = batch->next_small;
    size_t count = 0;
    bool *ok;
    size_t i;
    errno_t ret;

    ok = talloc_zero_array(batch, bool, batch->num_groups + 1);
    if (ok == NULL) {
        return ENOMEM;
    }
    ret = sysdb_transaction_start(be->sysdb);
    if (ret != EOK) {
        goto done;
    }
    for (i = from; i < batch->num_groups && count < BE_PF_STORE_SLICE; i++) {
        if (be_pf_big(batch->groups[i])) {
            continue;
        }
        count++;
        ret = be_store_group(be, batch->groups[i], true, now);
        if (ret == EINVAL) {
            ret = EOK;      /* refused: counted and logged; its waiters look it up */
            continue;
        }
        if (ret != EOK) {
            break;
        }
        ok[i] = true;
    }
    ret = sysdb_transaction_end(be->sysdb, ret);
    if (ret != EOK) {
        goto done;
    }
    batch->next_small = i;
    for (i = from; i < batch->next_small; i++) {
        if (ok[i] && (item = be_pf_batch_item(batch, batch->groups[i])) != NULL) {
            item->stored = true;
        }
    }
    ret = batch->next_small < batch->num_groups ? EAGAIN : EOK;
done:
    talloc_free(ok);
    return ret;
}

/* Starts the sliced store of the next big group; EOK when none is left. */
static errno_t be_pf_store_next_big(struct be_pf_batch *batch)
{
    struct tevent_req *subreq;

    for (; batch->next_big < batch->num_groups; batch->next_big++) {
        if (be_pf_big(batch->groups[batch->next_big])) {
            subreq = be_store_group_send(batch, batch->pf->be->ev, batch->pf->be,
                                         batch->groups[batch->next_big]);
            if (subreq == NULL) {
                return ENOMEM;
            }
            tevent_req_set_callback(subreq, be_pf_batch_big_stored, batch);
            return EAGAIN;
        }
    }
    return EOK;
}

static void be_pf_batch_found(struct tevent_req *subreq)
{
    struct be_pf_batch *batch = tevent_req_callback_data(subreq, struct be_pf_batch);
    struct be_prefetch *pf = batch->pf;
    errno_t ret;

    ret = sdap_get_groups_by_gid_recv(batch, subreq, &batch->groups, &batch->num_groups);
    talloc_free(subreq);
    if (ret != EOK) {
        be_pf_batch_end(batch, ret);
        return;
    }
    /* Stores run one batch at a time, after a loop turn: a batch a request waits for (or
     * its big group's slices) never queues behind several other batches' stores. */
    batch->ready = true;
    be_pf_store_next(pf);
}

static bool be_pf_batch_waited(const struct be_pf_batch *batch)
{
    size_t i;

    for (i = 0; i < batch->n; i++) {
        if (batch->items[i] != NULL && be_pf_waited(batch->items[i])) {
            return true;
        }
    }
    return false;
}

static void be_pf_store_turn(struct tevent_req *subreq);

/* The next store step after a loop turn. */
static void be_pf_store_arm(struct be_prefetch *pf)
{
    if (pf->store_turn != NULL) {
        return;
    }
    pf->store_turn = be_yield_send(pf, pf->be->ev);
    if (pf->store_turn == NULL) {
        DEBUG(SSSDBG_CRIT_FAILURE, "member prefetch: out of memory for a loop turn\n");
        return;
    }
    tevent_req_set_callback(pf->store_turn, be_pf_store_turn, pf);
}

/* Picks the next batch to store (one somebody waits for first) after a loop turn, unless
 * a store is running. */
static void be_pf_store_next(struct be_prefetch *pf)
{
    if (pf->storing == NULL) {
        be_pf_store_arm(pf);
    }
}

static void be_pf_store_turn(struct tevent_req *subreq)
{
    struct be_prefetch *pf = tevent_req_callback_data(subreq, struct be_prefetch);
    struct be_pf_batch *oldest = NULL;
    struct be_pf_batch *waited = NULL;
    struct be_pf_batch *batch;
    struct be_pf_batch *b;
    uint64_t start;
    errno_t ret;

    talloc_free(subreq);
    pf->store_turn = NULL;
    batch = pf->storing;
    if (batch == NULL) {
        /* The oldest ready batch somebody waits for, else the oldest ready one. */
        sss_list_for_each_entry(b, &pf->batches, link) {
            if (!b->ready) {
                continue;
            }
            if (oldest == NULL) {
                oldest = b;
            }
            if (be_pf_batch_waited(b)) {
                waited = b;
                break;
            }
        }
        batch = waited != NULL ? waited : oldest;
        if (batch == NULL) {
            return;
        }
        batch->ready = false;
        pf->storing = batch;
    }
    start = sss_monotonic_usec();
    ret = be_pf_store_small(batch, time(NULL));
    be_step_done(pf->be, start);
    if (ret == EOK || ret == EAGAIN) {
        be_pf_batch_answer_stored(batch);
    }
    if (ret == EAGAIN) {
        be_pf_store_arm(pf);
        return;
    }
    if (ret == EOK) {
        ret = be_pf_store_next_big(batch);
        if (ret == EAGAIN) {
            return;
        }
    }
    be_pf_batch_end(batch, ret);
}

static void be_pf_batch_big_stored(struct tevent_req *subreq)
{
    struct be_pf_batch *batch = tevent_req_callback_data(subreq, struct be_pf_batch);
    struct be_pf_item *item;
    errno_t ret;

    ret = be_store_group_recv(subreq);
    talloc_free(subreq);
    if (ret == EOK) {
        item = be_pf_batch_item(batch, batch->groups[batch->next_big]);
        if (item != NULL) {
            item->stored = true;
            be_pf_batch_answer_stored(batch);
        }
    }
    if (ret != EOK && ret != EINVAL) {
        be_pf_batch_end(batch, ret);
        return;
    }
    batch->next_big++;
    ret = be_pf_store_next_big(batch);
    if (ret == EAGAIN) {
        return;
    }
    be_pf_batch_end(batch, ret);
}

/* ---- scheduling ------------------------------------------------------------------------- */

static void be_pf_run(struct be_prefetch *pf)
{
    struct be_ctx *be = pf->be;
    struct be_pf_item *head;
    uint64_t now;
    uint64_t quiet;
    bool busy;
    errno_t ret;

    if (sss_list_is_empty(&pf->queue)) {
        return;
    }
    if (be_is_offline(be)) {
        be_pf_drop_queue(pf, "offline");
        return;
    }
    now = sss_monotonic_usec();
    quiet = now - be->last_op_usec;
    while ((head = be_pf_head(pf)) != NULL) {
        /* Hot: the head belongs to the list somebody is walking right now. */
        bool hot = now < pf->hot_until && head->list == pf->hot_list;
        size_t window = hot ? BE_PF_WINDOW : BE_PF_BG_WINDOW;

        /* A waiter told by the last batch start may have started an operation. */
        busy = !sss_list_is_empty(&be->ops);

        if (pf->in_flight >= window
                && (!be_pf_waited(head) || pf->in_flight >= window + BE_PF_URGENT)) {
            return;     /* a batch ending runs this again */
        }
        if (!hot && !be_pf_waited(head)
                && (busy || quiet < BE_PF_QUIET_USEC)) {
            /* Foreground work in flight or just done: look again later. */
            be_pf_arm(pf, busy || quiet >= BE_PF_QUIET_USEC
                          ? BE_PF_QUIET_USEC : BE_PF_QUIET_USEC - quiet);
            return;
        }
        ret = be_pf_batch_start(pf);
        if (ret == EAGAIN) {
            be_pf_arm(pf, 0);
            return;
        }
        if (ret != EOK) {
            DEBUG(SSSDBG_OP_FAILURE, "member prefetch: cannot start a batch: %s\n",
                  sss_strerror(ret));
            be_pf_arm(pf, BE_PF_QUIET_USEC);
            return;
        }
    }
}
