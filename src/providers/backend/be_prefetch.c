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
 * initgroups' list runs BE_PF_WINDOW batches back to back (`id` walks the list in the
 * queue's order); other lists stay in the background. Stores run one batch at a time, a
 * batch somebody waits for first, BE_PF_STORE_SLICE groups per transaction with a loop turn
 * between, and a group is answered as soon as its slice is committed.
 *
 * Failures: the batch's waiters are sent on their own lookup (the normal path, with its
 * retry and offline handling), and the queue is dropped (no retry storm against a failing
 * server). ENETUNREACH takes the domain offline exactly as a lookup does. Offline: the queue
 * is dropped at the next scheduling point.
 */
#include <assert.h>
#include <stdio.h>
#include <string.h>

#include "providers/backend/be_prefetch.h"
#include "providers/ldap/sdap.h"
#include "db/sysdb.h"

/* ---- index ---------------------------------------------------------------------------- */

static bool be_pf_gid_equal(const void *item, const void *key, void *ctx)
{
    return ((const struct be_pf_item *)item)->gid == *(const uint32_t *)key;
}

static bool be_pf_key_equal(const void *item, const void *key, void *ctx)
{
    return strcmp(((const struct be_pf_item *)item)->key, key) == 0;
}

struct be_pf_item *be_pf_find_gid(struct be_prefetch *pf, uint32_t gid)
{
    return sss_hash_table_get(pf->by_gid, sss_hash_u32(gid), &gid);
}

struct be_pf_item *be_pf_find_key(struct be_prefetch *pf, const char *key)
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

void be_pf_unlink(struct be_prefetch *pf, struct be_pf_item *item)
{
    assert(sss_list_is_linked(&item->link) && pf->num_queued > 0);
    sss_list_unlink(&item->link);
    pf->num_queued--;
}

void be_pf_push_front(struct be_prefetch *pf, struct be_pf_item *item)
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
void be_pf_finish(struct be_prefetch *pf, struct be_pf_item *item, errno_t ret)
{
    struct be_pf_waiter *w;

    assert(!sss_list_is_linked(&item->link));
    be_pf_unindex(pf, item);
    if (ret == EOK) {
        be_pf_remember(pf, item);
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
void be_pf_drop_queue(struct be_prefetch *pf, const char *why)
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
    assert(pf->num_queued == 0);
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

    SSS_CHECK_ARG(be != NULL);
    SSS_CHECK_ARG(groups != NULL || n == 0);
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

/* ---- scheduling ------------------------------------------------------------------------- */

void be_pf_run(struct be_prefetch *pf)
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

static void be_pf_timer_fire(struct tevent_context *ev, struct tevent_timer *te,
                             struct timeval tv, void *pvt)
{
    struct be_prefetch *pf = talloc_get_type(pvt, struct be_prefetch);

    pf->timer = NULL;
    be_pf_run(pf);
}

/* be_pf_run from the loop, after usec. */
void be_pf_arm(struct be_prefetch *pf, uint64_t usec)
{
    talloc_free(pf->timer);
    pf->timer = tevent_add_timer(pf->be->ev, pf,
                                 tevent_timeval_current_ofs(usec / 1000000, usec % 1000000),
                                 be_pf_timer_fire, pf);
    if (pf->timer == NULL) {
        DEBUG(SSSDBG_CRIT_FAILURE, "member prefetch: out of memory for a timer\n");
    }
}

size_t be_prefetch_pending(struct be_ctx *be)
{
    SSS_CHECK_ARG(be != NULL, 0);
    return be->prefetch != NULL ? sss_hash_table_count(be->prefetch->by_gid) : 0;
}
