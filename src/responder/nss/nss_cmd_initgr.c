/*
 * initgroups answers: the gids of the groups the user is a member of (deduplicated by
 * cache_req; the primary gid only when the provider listed it: glibc adds it itself), in
 * the reply and in the memory cache, keyed by the name as asked and by the fully qualified
 * name "user@domain". Groups that filter_groups ([nss] or the domain's) names are left out,
 * as SSSD does ("Group [x] filtered out! Skipping"): the names are turned into gids through
 * the domain's cache, once per cache generation, since the answer carries gids only; a
 * group in the user's list is always in the cache, so none escapes.
 * The groups' own records go to the memory cache too, after the reply (nss_initgr_mc.c).
 */
#include <assert.h>
#include <strings.h>

#include "responder/nss/nss_private.h"
#include "db/sysdb_rcache.h"

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
        /* Before the reply: one small record, and a client that reads the reply finds
         * the record of that very answer (a later initgroups is a memory-cache hit even
         * if sssd_nss is stopped right after the reply: test_nss_initgr_mc.sh). */
        ret = nss_mc_store_initgr_ttl(nctx->mc[NSS_MC_INITGROUPS], asked, unique, res->gids,
                                      res->num_gids, ttl);
        if (ret != EOK) {
            DEBUG(SSSDBG_MINOR_FAILURE, "Memory cache: cannot store the groups of %s: %s\n",
                  asked, sss_strerror(ret));
            ret = EOK;
        }
        /* The groups' records cost a cache read each: after the reply. */
        nss_initgr_mc_defer(nctx, res);
    }
done:
    talloc_free(tmp_ctx);
    return ret;
}
