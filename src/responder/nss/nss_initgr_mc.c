/*
 * The memory-cache records of the groups of an initgroups answer: `id` asks getgrgid of
 * every gid next, and each is then a memory-cache hit instead of a round trip to sssd_nss
 * (a user in 5,000 groups: 5,000 requests). Only those a getgrgid would answer from the
 * cache right now are written.
 * After the reply: each record costs a cache read (~70,000 instructions for a group the
 * back-end just wrote), about 90% of sssd_nss's work for a cold initgroups, and the client
 * waits for none of it. The answers wait in a short queue, written
 *   - once the next lookup is sent to the back-end (nss_cmd.c): a login's next request
 *     waits on it meanwhile, so the two overlap; one answered from the cache is answered
 *     first;
 *   - before a group lookup is served (nss_cmd.c): `id`'s first getgrgid, a miss when it
 *     comes before the records, finds all of them written when its answer comes back, and
 *     the rest are memory-cache hits; its answer is read from the cache either way;
 *   - after NSS_INITGR_DEFER_MS when nothing comes;
 *   - at once when the queue is full.
 * The initgroups record itself is written before the reply (nss_cmd_initgr.c).
 */
#include <strings.h>

#include "responder/nss/nss_private.h"
#include "db/sysdb_rcache.h"
#include "util/sss_hash.h"
#include "responder/common/negcache.h"
#include "responder/common/resp_local.h"
#include "responder/common/resp_names.h"

/* Long enough for a client's next request to be read and sent to the back-end first. */
#define NSS_INITGR_DEFER_MS 2
/* Answers waiting at most: beyond, the oldest are written at once. */
#define NSS_INITGR_DEFER_MAX 32

/* One answer's groups, copied out of the lookup's result (freed with the request). */
struct nss_initgr_pending {
    struct nss_initgr_pending *next;
    struct resp_domain *dom;        /* rctx->domains is fixed for the process's life */
    char *short_name;
    uint32_t *gids;
    size_t num_gids;
};

struct nss_initgr_queue {
    struct nss_initgr_pending *head;
    struct nss_initgr_pending **tail;
    size_t num;
    struct tevent_timer *timer;
};

/* The record getgrgid(gid) would answer from dom, in gr, with its lifetime;
 * ENOENT when that lookup would not come from this domain's valid cache entry (another
 * domain first, negative cache, local group, expired, filtered) and so is left to it. */
static errno_t nss_initgr_group(TALLOC_CTX *mem_ctx, struct nss_ctx *nctx,
                                struct sysdb_ctx *sysdb, struct resp_domain *dom,
                                uint64_t gen, uint32_t gid, struct nss_gr_entry *gr,
                                uint32_t *_ttl, unsigned int *_keys)
{
    struct resp_ctx *rctx = nctx->rctx;
    const struct nss_gr_entry *kept;
    struct cache_req_result gres = { 0 };
    struct sysdb_group *group;
    char *short_name;
    errno_t ret;

    /* The checks of cache_req's walk for a group by id, in its order. */
    if (gid < dom->min_id || (dom->max_id != 0 && gid > dom->max_id)
            || nss_earlier_domain_takes_id(rctx, dom, gid)
            || resp_ncache_check_id(rctx->ncache, RESP_NCACHE_GROUP, dom->name, gid)
            || (rctx->local != NULL && rctx->local_neg_timeout != 0
                && resp_local_has_gid(rctx->local, gid))) {
        return ENOENT;
    }
    ret = sysdb_get_group_by_gid(mem_ctx, sysdb, gid, &group);
    if (ret != EOK) {
        return ret;
    }
    if (group->expire <= time(NULL)) {
        return ENOENT;      /* stored without its members, or old: a lookup refreshes it */
    }
    ret = resp_short_name(mem_ctx, rctx, dom, group->name, &short_name);
    if (ret != EOK) {
        return ret;
    }
    if (strcmp(short_name, "root") == 0
            || (dom->case_mode != SYSDB_CASE_SENSITIVE && strcasecmp(short_name, "root") == 0)
            || resp_group_is_filtered(rctx, dom, short_name)) {
        return ENOENT;
    }
    gres.domain = dom;
    gres.source = CACHE_REQ_SRC_CACHE;
    gres.short_name = short_name;
    gres.group = group;
    gres.expire = group->expire;
    gres.gen = gen;
    kept = nss_grcache_get(nctx->grcache, dom, group, gen);
    if (kept != NULL) {
        *gr = *kept;
    } else {
        ret = nss_format_gr(mem_ctx, nctx->fmt, rctx, dom, group, gr);
        if (ret != EOK) {
            return ret;
        }
        nss_grcache_put(nctx->grcache, dom, group, gen, gr);
    }
    *_ttl = nss_mc_record_ttl(nctx, &gres);
    *_keys = nss_mc_record_keys(nctx, &gres, NULL, gr->name, gr->gid, false);
    return *_ttl > 0 ? EOK : ENOENT;
}

static bool nss_initgr_skipped(const struct nss_initgr_skip *skip, uint32_t gid)
{
    size_t i;

    for (i = 0; i < skip->num && skip->gids[i] != gid; i++) {
        /* a few gids: the primary group, a group not cached */
    }
    return i < skip->num;
}

/* The memo slot of dom's user short_name, and whether its groups' records were written at
 * generation gen and surely still live (then nothing is to be written). */
static bool nss_initgr_mc_done(struct nss_ctx *nctx, const struct resp_domain *dom,
                               const char *short_name, uint64_t gen, time_t now,
                               struct nss_initgr_done **_done, uint64_t *_key)
{
    uint64_t key = sss_hash_add_str(sss_hash_add_str(SSS_HASH_INIT, dom->name),
                                    short_name) | 1;
    struct nss_initgr_done *done = &nctx->initgr_done[key % NSS_INITGR_DONE_SLOTS];

    *_done = done;
    *_key = key;
    return gen != 0 && done->key == key && done->gen == gen && now < done->until;
}

/* The memory-cache records of the groups of p that are not there yet. Only an
 * accelerator: failures are logged and the client's getgrgid asks sssd_nss as before. */
static void nss_initgr_mc_groups(struct nss_ctx *nctx, const struct nss_initgr_pending *p)
{
    struct nss_mc *mc = nctx->mc[NSS_MC_GROUP];
    struct nss_initgr_skip *skip = &nctx->initgr_skip;
    struct nss_initgr_done *done;
    uint64_t key;
    time_t now;
    struct nss_gr_entry gr;
    struct sysdb_ctx *sysdb;
    TALLOC_CTX *tmp_ctx;
    unsigned int keys;
    uint64_t gen;
    uint32_t ttl;
    size_t stored = 0;
    size_t live = 0;
    size_t i;
    errno_t ret;

    /* From the cache too: the back-end's getpwnam fetched the list ahead of the
     * initgroups. A group whose record is live already costs one hash lookup. */
    if (mc == NULL || p->num_gids == 0) {
        return;
    }
    ret = resp_domain_sysdb(nctx->rctx, p->dom, &sysdb);
    if (ret != EOK) {
        return;
    }
    gen = sysdb_rcache_gen(sysdb);
    now = time(NULL);
    if (nss_initgr_mc_done(nctx, p->dom, p->short_name, gen, now, &done, &key)) {
        return;     /* written at this generation, and their lifetime is not half over */
    }
    if (skip->dom != p->dom || skip->gen != gen || gen == 0) {
        skip->dom = p->dom;
        skip->gen = gen;
        skip->num = 0;
    }
    for (i = 0; i < p->num_gids; i++) {
        if (nss_initgr_skipped(skip, p->gids[i])) {
            continue;
        }
        if (nss_mc_has_id(mc, p->gids[i])) {
            live++;     /* the warm case: no allocation */
            continue;
        }
        tmp_ctx = talloc_new(NULL);
        if (tmp_ctx == NULL) {
            return;
        }
        ret = nss_initgr_group(tmp_ctx, nctx, sysdb, p->dom, gen, p->gids[i], &gr, &ttl,
                               &keys);
        if (ret == EOK) {
            ret = nss_mc_store_group_keys(mc, &gr, ttl, keys);
            stored += ret == EOK ? 1 : 0;
        }
        talloc_free(tmp_ctx);
        if (ret == ENOENT && skip->num < NSS_INITGR_SKIP_MAX) {
            skip->gids[skip->num++] = p->gids[i];     /* the same until the cache changes */
        }
        if (ret != EOK && ret != ENOENT) {
            DEBUG(SSSDBG_MINOR_FAILURE, "Memory cache: group %u of %s not stored: %s\n",
                  p->gids[i], p->short_name, sss_strerror(ret));
        }
    }
    DEBUG(SSSDBG_TRACE_FUNC, "Memory cache: %zu of the %zu groups of %s stored, %zu there "
          "already\n", stored, p->num_gids, p->short_name, live);
    /* The records live memcache_timeout at most (less for entries expiring sooner: those
     * are checked again after half of it). A record evicted meanwhile only sends that
     * getgrgid to sssd_nss, as before. */
    done->key = key;
    done->gen = gen;
    done->until = now + nctx->memcache_timeout / 2;
}


void nss_initgr_mc_flush(struct nss_ctx *nctx)
{
    struct nss_initgr_queue *q = nctx->initgr_queue;
    struct nss_initgr_pending *p;

    if (q == NULL || q->head == NULL) {
        return;
    }
    talloc_zfree(q->timer);
    while ((p = q->head) != NULL) {
        q->head = p->next;
        q->num--;
        nss_initgr_mc_groups(nctx, p);
        talloc_free(p);
    }
    q->tail = &q->head;
}

static void nss_initgr_mc_timer(struct tevent_context *ev, struct tevent_timer *te,
                                struct timeval now, void *pvt)
{
    struct nss_ctx *nctx = talloc_get_type(pvt, struct nss_ctx);

    nctx->initgr_queue->timer = NULL;       /* freed by tevent after this call */
    nss_initgr_mc_flush(nctx);
}

/* Written now instead: out of memory, or no timer. */
static void nss_initgr_mc_now(struct nss_ctx *nctx, struct cache_req_result *res)
{
    struct nss_initgr_pending p = { .dom = res->domain, .short_name = res->short_name,
                                    .gids = res->gids, .num_gids = res->num_gids };

    nss_initgr_mc_flush(nctx);
    nss_initgr_mc_groups(nctx, &p);
}

void nss_initgr_mc_defer(struct nss_ctx *nctx, struct cache_req_result *res)
{
    struct nss_initgr_queue *q = nctx->initgr_queue;
    struct nss_initgr_pending *p;
    struct nss_initgr_done *done;
    struct sysdb_ctx *sysdb;
    uint64_t key;

    if (nctx->mc[NSS_MC_GROUP] == NULL || res->num_gids == 0) {
        return;
    }
    /* The warm case (written already, at this generation): nothing queued. */
    if (resp_domain_sysdb(nctx->rctx, res->domain, &sysdb) == EOK
            && nss_initgr_mc_done(nctx, res->domain, res->short_name,
                                  sysdb_rcache_gen(sysdb), time(NULL), &done, &key)) {
        return;
    }
    if (q == NULL) {
        q = talloc_zero(nctx, struct nss_initgr_queue);
        if (q == NULL) {
            nss_initgr_mc_now(nctx, res);
            return;
        }
        q->tail = &q->head;
        nctx->initgr_queue = q;
    }
    if (q->num >= NSS_INITGR_DEFER_MAX) {
        nss_initgr_mc_flush(nctx);
    }
    p = talloc_zero(q, struct nss_initgr_pending);
    if (p == NULL) {
        nss_initgr_mc_now(nctx, res);
        return;
    }
    p->dom = res->domain;
    p->short_name = talloc_strdup(p, res->short_name);
    p->gids = talloc_memdup(p, res->gids, res->num_gids * sizeof(uint32_t));
    p->num_gids = res->num_gids;
    if (p->short_name == NULL || p->gids == NULL) {
        talloc_free(p);
        nss_initgr_mc_now(nctx, res);
        return;
    }
    if (q->timer == NULL) {
        q->timer = tevent_add_timer(nctx->rctx->ev, q,
                                    tevent_timeval_current_ofs(0,
                                                               NSS_INITGR_DEFER_MS * 1000),
                                    nss_initgr_mc_timer, nctx);
        if (q->timer == NULL) {
            talloc_free(p);
            nss_initgr_mc_now(nctx, res);
            return;
        }
    }
    *q->tail = p;
    q->tail = &p->next;
    q->num++;
}
