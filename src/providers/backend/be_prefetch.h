/*
 * The member prefetch's insides, shared by its three files (the interface the rest of the
 * back-end uses is in be_ctx.h):
 *   be_prefetch.c        the queue and its indexes, items ending, when batches run
 *   be_prefetch_wait.c   group requests waiting for a queued or in-flight group
 *   be_prefetch_batch.c  a batch: its search, its sliced store, its end
 * Everything hangs off struct be_prefetch (be->prefetch): items, batches, the timer.
 */
#ifndef SSS_BE_PREFETCH_H
#define SSS_BE_PREFETCH_H

#include "providers/backend/be_ctx.h"

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

/* The first queued item; NULL when the queue is empty. */
static inline struct be_pf_item *be_pf_head(struct be_prefetch *pf)
{
    return sss_list_first_entry(&pf->queue, struct be_pf_item, link);
}

/* True when a request waits for the item. */
static inline bool be_pf_waited(const struct be_pf_item *item)
{
    return !sss_list_is_empty(&item->waiters);
}

/* be_prefetch.c */
struct be_pf_item *be_pf_find_gid(struct be_prefetch *pf, uint32_t gid);
struct be_pf_item *be_pf_find_key(struct be_prefetch *pf, const char *key);
/* Out of the queue / back at its front (num_queued follows). */
void be_pf_unlink(struct be_prefetch *pf, struct be_pf_item *item);
void be_pf_push_front(struct be_prefetch *pf, struct be_pf_item *item);
/* The item is over (it must be out of the queue): out of the indexes, remembered when
 * stored (ret EOK), each waiter told ret, freed. */
void be_pf_finish(struct be_prefetch *pf, struct be_pf_item *item, errno_t ret);
/* Every queued item finished with ENETUNREACH (waiters sent on their own lookup). */
void be_pf_drop_queue(struct be_prefetch *pf, const char *why);
/* Starts what may start now (batches, or a timer to look again later). */
void be_pf_run(struct be_prefetch *pf);
/* be_pf_run from the loop, after usec. */
void be_pf_arm(struct be_prefetch *pf, uint64_t usec);

/* be_prefetch_wait.c */
void be_pf_remember(struct be_prefetch *pf, struct be_pf_item *item);

/* be_prefetch_batch.c */
/* Takes a batch from the head of the queue and sends its search. EOK: sent, or nothing was
 * left; EAGAIN: only groups already fresh were met so far (the rest on a later loop turn);
 * ENOMEM: the groups it took are back at the front of the queue. */
errno_t be_pf_batch_start(struct be_prefetch *pf);

#endif /* SSS_BE_PREFETCH_H */
