/*
 * Member prefetch, one batch: up to BE_PF_BATCH queued groups (fewer when somebody waits)
 * searched by gid in one LDAP search, then stored one batch at a time after a loop turn:
 * the small groups BE_PF_STORE_SLICE per transaction, each big one through the sliced
 * be_store_group_send. Each group is answered as soon as it is stored; when the batch ends
 * the groups it did not store are answered with the reason (their waiters look them up on
 * their own).
 */
#include <assert.h>
#include <string.h>

#include "providers/backend/be_prefetch.h"
#include "providers/ldap/sdap.h"
#include "db/sysdb.h"

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

errno_t be_pf_batch_start(struct be_prefetch *pf)
{
    struct be_ctx *be = pf->be;
    struct be_pf_batch *batch;
    struct be_pf_item *item;
    struct tevent_req *subreq;
    uint32_t *gids;
    time_t now = time(NULL);
    size_t checks = 0;
    size_t max;

    assert(!sss_list_is_empty(&pf->queue));
    /* Somebody waits for the head: a small batch, answered sooner. */
    max = be_pf_waited(be_pf_head(pf)) ? BE_PF_URGENT_BATCH : BE_PF_BATCH;
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
        if (be_group_is_big(batch->groups[i])) {
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
        if (be_group_is_big(batch->groups[batch->next_big])) {
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

    assert(pf->store_turn == subreq);
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
