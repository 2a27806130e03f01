/*
 * Netgroup snapshots of sssd_nss (nss_private.h): what a client is sent for one netgroup,
 * built once from the cache entry, and the responder's memory of the recent ones so that
 * a netgroup asked again (innetgr() in a loop, a nested netgroup every member refers to)
 * is answered without a cache read. SSSD 2.8 keeps the same memory ("netgrent" table).
 *
 * A record is a triple split with SSSD's rules (sysdb_netgr_split_triple(): malformed ones
 * are left out, with a log line) or the name of a member netgroup, which the client hands
 * to glibc to expand (glibc stops loops). Triples come first, then members, each in cache
 * order, as in SSSD.
 *
 * A remembered snapshot answers while the cache entry it was built from is valid and the
 * domain's cache is at the same generation (sysdb_rcache_gen(): any write, sss_cache -n/-N
 * included, moves it); otherwise it is dropped. At most NSS_NETGR_MEM_MAX are kept, the
 * least recently used going first.
 */
#include <assert.h>
#include <time.h>

#include "responder/nss/nss_private.h"
#include "db/sysdb_rcache.h"
#include "sss_client/sss_cli.h"

struct nss_netgr_mem {
    struct sss_hash_table *table;   /* key: the name as asked */
    struct sss_list lru;            /* most recently used first */
    size_t count;
};

static bool nss_netgr_snap_equal(const void *item, const void *key, void *ctx)
{
    const struct nss_netgr_snap *snap = item;

    (void)ctx;
    return strcmp(snap->key, key) == 0;
}

errno_t nss_netgr_snap_build(TALLOC_CTX *mem_ctx, const char *key,
                             struct cache_req_result *res, struct nss_netgr_snap **_snap)
{
    const struct sysdb_netgroup *ng;
    struct nss_netgr_snap *snap;
    struct nss_netgr_rec *rec;
    size_t nt = 0;
    size_t nm = 0;
    size_t i;
    errno_t ret;

    SSS_CHECK_ARG(key != NULL && res != NULL && res->netgroup != NULL && _snap != NULL,
                  EINVAL);
    ng = res->netgroup;
    while (ng->triples != NULL && ng->triples[nt] != NULL) {
        nt++;
    }
    while (ng->members != NULL && ng->members[nm] != NULL) {
        nm++;
    }
    if (nt + nm > UINT32_MAX) {
        return E2BIG;
    }
    snap = talloc_zero(mem_ctx, struct nss_netgr_snap);
    if (snap == NULL) {
        return ENOMEM;
    }
    sss_list_init(&snap->link);
    snap->key = talloc_strdup(snap, key);
    snap->recs = talloc_zero_array(snap, struct nss_netgr_rec, nt + nm + 1);
    if (snap->key == NULL || snap->recs == NULL) {
        ret = ENOMEM;
        goto done;
    }
    snap->hash = sss_hash_str(key);
    snap->dom = res->domain;
    snap->gen = res->gen;
    /* An answer from an expired entry (offline) is never remembered. */
    snap->expire = res->source == CACHE_REQ_SRC_STALE ? 0 : res->expire;
    for (i = 0; i < nt; i++) {
        rec = &snap->recs[snap->num];
        ret = sysdb_netgr_split_triple(snap->recs, ng->triples[i], &rec->host, &rec->user,
                                       &rec->domain);
        if (ret == EINVAL) {
            DEBUG(SSSDBG_MINOR_FAILURE, "Netgroup %s: malformed triple [%s] skipped\n",
                  key, ng->triples[i]);
            continue;
        }
        if (ret != EOK) {
            goto done;
        }
        snap->num++;
    }
    for (i = 0; i < nm; i++) {
        snap->recs[snap->num].member = talloc_strdup(snap->recs, ng->members[i]);
        if (snap->recs[snap->num].member == NULL) {
            ret = ENOMEM;
            goto done;
        }
        snap->num++;
    }
    *_snap = snap;
    snap = NULL;
    ret = EOK;
done:
    talloc_free(snap);
    return ret;
}

errno_t nss_netgr_fill(const struct nss_netgr_snap *snap, uint32_t *pos, uint32_t count,
                       struct nss_reply *reply)
{
    const struct nss_netgr_rec *rec;
    uint32_t n;
    errno_t ret;

    SSS_CHECK_ARG(snap != NULL && pos != NULL && reply != NULL, EINVAL);
    for (n = 0; n < count && *pos < snap->num; n++, (*pos)++) {
        rec = &snap->recs[*pos];
        if (rec->member != NULL) {
            ret = nss_reply_netgr_member_add(reply, rec->member);
        } else {
            ret = nss_reply_netgr_triple_add(reply, rec->host, rec->user, rec->domain);
        }
        if (ret != EOK) {
            return ret;
        }
    }
    return EOK;
}

/* ---- the memory ---- */

static int nss_netgr_mem_destructor(struct nss_netgr_mem *mem)
{
    /* The snapshots are children: freed with it; the table is a child too. */
    sss_list_init(&mem->lru);
    return 0;
}

static struct nss_netgr_mem *nss_netgr_mem_get(struct nss_ctx *nctx)
{
    struct nss_netgr_mem *mem = nctx->netgr_mem;

    if (mem != NULL) {
        return mem;
    }
    mem = talloc_zero(nctx, struct nss_netgr_mem);
    if (mem == NULL) {
        return NULL;
    }
    sss_list_init(&mem->lru);
    mem->table = sss_hash_table_new(mem, 0, nss_netgr_snap_equal, NULL);
    if (mem->table == NULL) {
        talloc_free(mem);
        return NULL;
    }
    talloc_set_destructor(mem, nss_netgr_mem_destructor);
    nctx->netgr_mem = mem;
    return mem;
}

static void nss_netgr_mem_drop(struct nss_netgr_mem *mem, struct nss_netgr_snap *snap)
{
    bool removed;

    removed = sss_hash_table_remove_item(mem->table, snap->hash, snap);
    assert(removed);
    (void)removed;
    sss_list_unlink(&snap->link);
    mem->count--;
    talloc_free(snap);
}

/* The domain's generation now; 0 when unknown (nothing remembered then answers). */
static uint64_t nss_netgr_dom_gen(struct nss_ctx *nctx, struct resp_domain *dom)
{
    struct sysdb_ctx *sysdb;

    if (resp_domain_sysdb(nctx->rctx, dom, &sysdb) != EOK) {
        return 0;
    }
    return sysdb_rcache_gen(sysdb);
}

struct nss_netgr_snap *nss_netgr_mem_find(struct nss_ctx *nctx, const char *key, time_t now)
{
    struct nss_netgr_mem *mem = nctx->netgr_mem;
    struct nss_netgr_snap *snap;
    uint64_t gen;

    if (mem == NULL || key == NULL) {
        return NULL;
    }
    snap = sss_hash_table_get(mem->table, sss_hash_str(key), key);
    if (snap == NULL) {
        return NULL;
    }
    gen = nss_netgr_dom_gen(nctx, snap->dom);
    if (snap->expire <= now || !snap->dom->active || gen == 0 || gen != snap->gen) {
        nss_netgr_mem_drop(mem, snap);
        return NULL;
    }
    sss_list_unlink(&snap->link);
    sss_list_link_front(&mem->lru, &snap->link);
    return snap;
}

void nss_netgr_mem_forget(struct nss_ctx *nctx, const char *key)
{
    struct nss_netgr_mem *mem = nctx->netgr_mem;
    struct nss_netgr_snap *snap;

    if (mem == NULL || key == NULL) {
        return;
    }
    snap = sss_hash_table_get(mem->table, sss_hash_str(key), key);
    if (snap != NULL) {
        nss_netgr_mem_drop(mem, snap);
    }
}

struct nss_netgr_snap *nss_netgr_mem_keep(struct nss_ctx *nctx, struct nss_netgr_snap *snap)
{
    struct nss_netgr_mem *mem;
    struct nss_netgr_snap *old;
    errno_t ret;

    SSS_CHECK_ARG(snap != NULL, NULL);
    nss_netgr_mem_forget(nctx, snap->key);
    mem = nss_netgr_mem_get(nctx);
    if (mem == NULL || snap->expire == 0 || snap->gen == 0) {
        return snap;        /* not remembered: the caller keeps it */
    }
    if (mem->count >= NSS_NETGR_MEM_MAX) {
        old = sss_list_last_entry(&mem->lru, struct nss_netgr_snap, link);
        nss_netgr_mem_drop(mem, old);
    }
    ret = sss_hash_table_insert(mem->table, snap->hash, snap->key, snap, NULL);
    if (ret != EOK) {
        return snap;
    }
    talloc_steal(mem, snap);
    sss_list_link_front(&mem->lru, &snap->link);
    mem->count++;
    return snap;
}

size_t nss_netgr_mem_count(struct nss_ctx *nctx)
{
    return nctx->netgr_mem != NULL ? nctx->netgr_mem->count : 0;
}
