/*
 * Member prefetch, the waiting side: a group request (by name or gid) for a group that is
 * queued or in a batch waits for that batch instead of searching on its own; a queued group
 * moves to the front with the rest of its initgroups' list, which turns hot (batches back to
 * back). A request for a group a batch stored a moment ago (the responder saw it expired
 * while the batch was being stored) is answered from the cache: the last BE_PF_RECENT
 * groups stored are remembered for BE_PF_RECENT_USEC.
 */
#include <string.h>

#include "providers/backend/be_prefetch.h"
#include "db/sysdb.h"

static int be_pf_waiter_destructor(struct be_pf_waiter *w)
{
    sss_list_unlink(&w->link);
    w->item = NULL;
    return 0;
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

/* The item was stored: a request for it arriving soon is answered from the cache. */
void be_pf_remember(struct be_prefetch *pf, struct be_pf_item *item)
{
    struct be_pf_recent *r = &pf->recent[pf->recent_next];

    pf->recent_next = (pf->recent_next + 1) % BE_PF_RECENT;
    talloc_free(r->key);
    r->gid = item->gid;
    r->key = talloc_steal(pf, item->key);
    r->at = sss_monotonic_usec();
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
    struct be_prefetch *pf;
    struct be_pf_item *item = NULL;
    struct be_pf_just_stored *js;
    struct be_pf_waiter *w;
    char *key = NULL;
    bool recent;
    errno_t ret;

    SSS_CHECK_ARG(be != NULL && filter != NULL && fn != NULL, false);
    pf = be->prefetch;
    if (pf == NULL || (filter->kind != BE_FILTER_ID && filter->kind != BE_FILTER_NAME)) {
        return false;
    }
    if (filter->kind == BE_FILTER_NAME) {
        ret = sysdb_name_key(NULL, be->sysdb, filter->name, &key);
        if (ret != EOK) {
            return false;
        }
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
