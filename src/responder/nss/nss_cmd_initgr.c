/*
 * initgroups answers: the gids of the groups the user is a member of (deduplicated by
 * cache_req; the primary gid only when the provider listed it: glibc adds it itself), in
 * the reply and in the memory cache, keyed by the name as asked and by the fully qualified
 * name "user@domain". Groups that filter_groups ([nss] or the domain's) names are left out,
 * as SSSD does ("Group [x] filtered out! Skipping"): the names are turned into gids through
 * the domain's cache, once per cache generation, since the answer carries gids only; a
 * group in the user's list is always in the cache, so none escapes.
 * The groups' own records go to the memory cache too, those a getgrgid would answer from
 * the cache right now: `id` asks getgrgid of every gid next, and each is then a
 * memory-cache hit instead of a round trip to sssd_nss (a user in 5,000 groups: 5,000
 * requests).
 */
#include <assert.h>
#include <strings.h>

#include "responder/nss/nss_private.h"
#include "db/sysdb_rcache.h"
#include "util/sss_hash.h"
#include "responder/common/negcache.h"
#include "responder/common/resp_local.h"
#include "responder/common/resp_names.h"

/* Adds the gid of each group of list that applies to dom ("name" or "name@dom"). */
static errno_t nss_filtered_add(TALLOC_CTX *mem_ctx, struct sysdb_ctx *sysdb,
                                struct resp_domain *dom, char *const *list,
                                struct nss_filtered_gids *f)
{
    struct sysdb_group *group;
    const char *at;
    char *name;
    size_t i;
    errno_t ret;

    for (i = 0; list != NULL && list[i] != NULL; i++) {
        at = strrchr(list[i], '@');
        if (at != NULL && strcasecmp(at + 1, dom->name) != 0) {
            continue;
        }
        name = at != NULL ? talloc_strndup(mem_ctx, list[i], (size_t)(at - list[i]))
                          : talloc_strdup(mem_ctx, list[i]);
        if (name == NULL) {
            return ENOMEM;
        }
        ret = sysdb_get_group_by_name(mem_ctx, sysdb, name, &group);
        if (ret == ENOENT) {
            continue;       /* not cached: in nobody's cached group list either */
        }
        if (ret != EOK) {
            return ret;
        }
        f->gids = talloc_realloc(mem_ctx, f->gids, uint32_t, f->num + 1);
        if (f->gids == NULL) {
            return ENOMEM;
        }
        f->gids[f->num++] = group->gid;
    }
    return EOK;
}

/* The filtered gids of dom, computed again when its cache changed. */
static errno_t nss_filtered_gids(struct nss_ctx *nctx, struct resp_domain *dom,
                                 const struct nss_filtered_gids **_f)
{
    struct resp_ctx *rctx = nctx->rctx;
    struct nss_filtered_gids fresh = { 0 };
    struct nss_filtered_gids *f;
    struct sysdb_ctx *sysdb;
    TALLOC_CTX *tmp_ctx;
    size_t i = (size_t)(dom - rctx->domains);
    errno_t ret;

    assert(i < rctx->num_domains);
    if (nctx->filtered_gids == NULL) {
        nctx->filtered_gids = talloc_zero_array(nctx, struct nss_filtered_gids,
                                                rctx->num_domains);
        if (nctx->filtered_gids == NULL) {
            return ENOMEM;
        }
    }
    f = &nctx->filtered_gids[i];
    ret = resp_domain_sysdb(rctx, dom, &sysdb);
    if (ret != EOK) {
        return ret;
    }
    /* Read before the lookups: a commit after it changes it (0: cannot tell, so always). */
    fresh.gen = sysdb_rcache_gen(sysdb);
    if (f->gen != 0 && f->gen == fresh.gen) {
        *_f = f;
        return EOK;
    }
    tmp_ctx = talloc_new(NULL);
    if (tmp_ctx == NULL) {
        return ENOMEM;
    }
    ret = nss_filtered_add(tmp_ctx, sysdb, dom, rctx->filter_groups, &fresh);
    if (ret == EOK) {
        ret = nss_filtered_add(tmp_ctx, sysdb, dom, dom->filter_groups, &fresh);
    }
    if (ret == EOK) {
        talloc_free(f->gids);
        f->gids = talloc_steal(nctx->filtered_gids, fresh.gids);
        f->num = fresh.num;
        f->gen = fresh.gen;
        *_f = f;
    }
    talloc_free(tmp_ctx);
    return ret;
}

/* Leaves the filtered groups out of res's gids. */
static errno_t nss_initgr_filter(struct nss_ctx *nctx, struct cache_req_result *res)
{
    const struct nss_filtered_gids *f;
    size_t out = 0;
    size_t i, j;
    errno_t ret;

    ret = nss_filtered_gids(nctx, res->domain, &f);
    if (ret != EOK || f->num == 0) {
        return ret;
    }
    for (i = 0; i < res->num_gids; i++) {
        for (j = 0; j < f->num && f->gids[j] != res->gids[i]; j++) {
            /* a filter names a few groups */
        }
        if (j < f->num) {
            DEBUG(SSSDBG_TRACE_FUNC, "Group %u of %s is filtered out\n", res->gids[i],
                  res->short_name);
            continue;
        }
        res->gids[out++] = res->gids[i];
    }
    res->num_gids = out;
    return EOK;
}

/* The record getgrgid(gid) would answer from res's domain, in gr, with its lifetime;
 * ENOENT when that lookup would not come from this domain's valid cache entry (another
 * domain first, negative cache, local group, expired, filtered) and so is left to it. */
static errno_t nss_initgr_group(TALLOC_CTX *mem_ctx, struct nss_ctx *nctx,
                                struct sysdb_ctx *sysdb, struct cache_req_result *res,
                                uint64_t gen, uint32_t gid, struct nss_gr_entry *gr,
                                uint32_t *_ttl, unsigned int *_keys)
{
    struct resp_ctx *rctx = nctx->rctx;
    struct resp_domain *dom = res->domain;
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

/* The memory-cache records of the groups of res that are not there yet. Only an
 * accelerator: failures are logged and the client's getgrgid asks sssd_nss as before. */
static void nss_initgr_mc_groups(struct nss_ctx *nctx, struct cache_req_result *res)
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
    if (mc == NULL || res->num_gids == 0) {
        return;
    }
    ret = resp_domain_sysdb(nctx->rctx, res->domain, &sysdb);
    if (ret != EOK) {
        return;
    }
    gen = sysdb_rcache_gen(sysdb);
    key = sss_hash_add_str(sss_hash_add_str(SSS_HASH_INIT, res->domain->name),
                           res->short_name) | 1;
    done = &nctx->initgr_done[key % NSS_INITGR_DONE_SLOTS];
    now = time(NULL);
    if (gen != 0 && done->key == key && done->gen == gen && now < done->until) {
        return;     /* written at this generation, and their lifetime is not half over */
    }
    if (skip->dom != res->domain || skip->gen != gen || gen == 0) {
        skip->dom = res->domain;
        skip->gen = gen;
        skip->num = 0;
    }
    for (i = 0; i < res->num_gids; i++) {
        if (nss_initgr_skipped(skip, res->gids[i])) {
            continue;
        }
        if (nss_mc_has_id(mc, res->gids[i])) {
            live++;     /* the warm case: no allocation */
            continue;
        }
        tmp_ctx = talloc_new(NULL);
        if (tmp_ctx == NULL) {
            return;
        }
        ret = nss_initgr_group(tmp_ctx, nctx, sysdb, res, gen, res->gids[i], &gr, &ttl, &keys);
        if (ret == EOK) {
            ret = nss_mc_store_group_keys(mc, &gr, ttl, keys);
            stored += ret == EOK ? 1 : 0;
        }
        talloc_free(tmp_ctx);
        if (ret == ENOENT && skip->num < NSS_INITGR_SKIP_MAX) {
            skip->gids[skip->num++] = res->gids[i];     /* the same until the cache changes */
        }
        if (ret != EOK && ret != ENOENT) {
            DEBUG(SSSDBG_MINOR_FAILURE, "Memory cache: group %u of %s not stored: %s\n",
                  res->gids[i], res->short_name, sss_strerror(ret));
        }
    }
    DEBUG(SSSDBG_TRACE_FUNC, "Memory cache: %zu of the %zu groups of %s stored, %zu there "
          "already\n", stored, res->num_gids, res->short_name, live);
    /* The records live memcache_timeout at most (less for entries expiring sooner: those
     * are checked again after half of it). A record evicted meanwhile only sends that
     * getgrgid to sssd_nss, as before. */
    done->key = key;
    done->gen = gen;
    done->until = now + nctx->memcache_timeout / 2;
}

errno_t nss_initgr_answer(struct nss_ctx *nctx, struct nss_reply *reply,
                          struct cache_req_result *res, const char *asked)
{
    TALLOC_CTX *tmp_ctx = talloc_new(NULL);
    char *unique;
    uint32_t ttl;
    errno_t ret;

    if (tmp_ctx == NULL) {
        return ENOMEM;
    }
    ret = nss_initgr_filter(nctx, res);
    if (ret != EOK) {
        goto done;
    }
    ret = nss_reply_initgr_add(reply, res->gids, res->num_gids);
    if (ret != EOK) {
        goto done;
    }
    ttl = nss_mc_record_ttl(nctx, res);
    if (ttl > 0 && asked != NULL) {
        unique = talloc_asprintf(tmp_ctx, "%s@%s", res->short_name, res->domain->name);
        if (unique == NULL) {
            ret = ENOMEM;
            goto done;
        }
        ret = nss_mc_store_initgr_ttl(nctx->mc[NSS_MC_INITGROUPS], asked, unique, res->gids,
                                      res->num_gids, ttl);
        if (ret != EOK) {
            DEBUG(SSSDBG_MINOR_FAILURE, "Memory cache: cannot store the groups of %s: %s\n",
                  asked, sss_strerror(ret));
            ret = EOK;
        }
        nss_initgr_mc_groups(nctx, res);
    }
done:
    talloc_free(tmp_ctx);
    return ret;
}
