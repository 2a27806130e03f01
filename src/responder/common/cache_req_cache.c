/*
 * cache_req's cache side: reads what one domain's cache holds for a request (by name, by
 * id, a user's group list) into a struct cache_req_entry. Expired entries are returned;
 * the engine decides what they are worth.
 */
#include <stdlib.h>

#include "responder/common/cache_req_private.h"
#include "responder/common/resp_names.h"
#include "db/sysdb_rcache.h"
#include "responder/common/resp_metrics.h"

/* Up to this many gids the pairwise comparison is the cheaper one (and allocates nothing):
 * the usual user is in a handful of groups. */
#define CACHE_REQ_DEDUPE_SMALL 32

static size_t cache_req_dedupe_small(uint32_t *gids, size_t count)
{
    size_t out = 0;
    size_t i, j;

    for (i = 0; i < count; i++) {
        for (j = 0; j < out; j++) {
            if (gids[j] == gids[i]) {
                break;
            }
        }
        if (j == out) {
            gids[out++] = gids[i];
        }
    }
    return out;
}

struct cache_req_gid_pos {
    uint32_t gid;
    uint32_t pos;
};

static int cache_req_gid_pos_cmp(const void *a, const void *b)
{
    const struct cache_req_gid_pos *x = a;
    const struct cache_req_gid_pos *y = b;

    if (x->gid != y->gid) {
        return x->gid < y->gid ? -1 : 1;
    }
    return x->pos < y->pos ? -1 : (x->pos > y->pos);
}

size_t cache_req_dedupe_gids(uint32_t *gids, size_t count)
{
    struct cache_req_gid_pos *sorted;
    bool *dup;
    size_t out = 0;
    size_t i;

    if (count <= CACHE_REQ_DEDUPE_SMALL || count > UINT32_MAX) {
        return cache_req_dedupe_small(gids, count);
    }
    /* O(n log n): sorted by (gid, position), every entry after the first of its gid is a
     * repeat; the list is then compacted in its own order. */
    sorted = talloc_array(NULL, struct cache_req_gid_pos, count);
    dup = talloc_zero_array(sorted, bool, count);
    if (sorted == NULL || dup == NULL) {
        talloc_free(sorted);
        return cache_req_dedupe_small(gids, count);     /* slow, never wrong */
    }
    for (i = 0; i < count; i++) {
        sorted[i].gid = gids[i];
        sorted[i].pos = (uint32_t)i;
    }
    qsort(sorted, count, sizeof(*sorted), cache_req_gid_pos_cmp);
    for (i = 1; i < count; i++) {
        if (sorted[i].gid == sorted[i - 1].gid) {
            dup[sorted[i].pos] = true;
        }
    }
    for (i = 0; i < count; i++) {
        if (!dup[i]) {
            gids[out++] = gids[i];
        }
    }
    talloc_free(sorted);
    return out;
}

static errno_t cache_req_read_initgr(TALLOC_CTX *mem_ctx, struct sysdb_ctx *sysdb,
                                     const char *name, struct cache_req_entry *entry)
{
    errno_t ret;

    /* One read for the user and its group list. */
    ret = sysdb_get_user_initgroups(entry, sysdb, name, &entry->user, &entry->have_gids,
                                    &entry->gids, &entry->num_gids, &entry->expire);
    if (ret != EOK) {
        return ret;
    }
    if (entry->have_gids) {
        entry->num_gids = cache_req_dedupe_gids(entry->gids, entry->num_gids);
        /* The group list has no lastUpdate of its own: no background refresh for it. */
        entry->last_update = 0;
    }
    return EOK;
}

/* The domain's cache and an empty entry tagged with its generation, taken before the
 * read: a commit after this point changes it, so equal generations of two reads mean the
 * same data. */
static errno_t cache_req_entry_new(TALLOC_CTX *mem_ctx, struct resp_ctx *rctx,
                                   struct resp_domain *dom, struct sysdb_ctx **_sysdb,
                                   struct cache_req_entry **_entry)
{
    struct cache_req_entry *entry;
    errno_t ret;

    ret = resp_domain_sysdb(rctx, dom, _sysdb);
    if (ret != EOK) {
        return ret;
    }
    entry = talloc_zero(mem_ctx, struct cache_req_entry);
    if (entry == NULL) {
        return ENOMEM;
    }
    entry->gen = sysdb_rcache_gen(*_sysdb);
    *_entry = entry;
    return EOK;
}

errno_t cache_req_cache_read(TALLOC_CTX *mem_ctx, struct resp_ctx *rctx,
                             struct resp_domain *dom, enum cache_req_type type,
                             const char *name, uint32_t id, struct cache_req_entry **_entry)
{
    struct cache_req_entry *entry;
    struct sysdb_ctx *sysdb;
    errno_t ret;

    ret = cache_req_entry_new(mem_ctx, rctx, dom, &sysdb, &entry);
    if (ret != EOK) {
        return ret;
    }
    switch (type) {
    case CACHE_REQ_USER_BY_NAME:
        ret = sysdb_get_user_by_name(entry, sysdb, name, &entry->user);
        break;
    case CACHE_REQ_USER_BY_ID:
        ret = sysdb_get_user_by_uid(entry, sysdb, id, &entry->user);
        break;
    case CACHE_REQ_GROUP_BY_NAME:
        ret = sysdb_get_group_by_name(entry, sysdb, name, &entry->group);
        break;
    case CACHE_REQ_GROUP_BY_ID:
        ret = sysdb_get_group_by_gid(entry, sysdb, id, &entry->group);
        break;
    case CACHE_REQ_USER_BY_SID:
        ret = sysdb_get_user_by_sid(entry, sysdb, name, &entry->user);
        break;
    case CACHE_REQ_GROUP_BY_SID:
        ret = sysdb_get_group_by_sid(entry, sysdb, name, &entry->group);
        break;
    case CACHE_REQ_INITGROUPS:
        ret = cache_req_read_initgr(entry, sysdb, name, entry);
        break;
    case CACHE_REQ_NETGROUP:
        ret = sysdb_get_netgroup(entry, sysdb, name, &entry->netgroup);
        if (ret == EOK) {
            entry->expire = entry->netgroup->expire;
            entry->last_update = entry->netgroup->last_update;
        }
        break;
    default:
        ret = EINVAL;
        break;
    }
    resp_metrics_cache(ret == EOK);
    if (ret != EOK) {
        talloc_free(entry);
        return ret;
    }
    if (type != CACHE_REQ_INITGROUPS && type != CACHE_REQ_NETGROUP) {
        entry->expire = entry->user != NULL ? entry->user->expire : entry->group->expire;
        entry->last_update = entry->user != NULL ? entry->user->last_update
                                                 : entry->group->last_update;
    }
    *_entry = entry;
    return EOK;
}

errno_t cache_req_cache_read_mail(TALLOC_CTX *mem_ctx, struct resp_ctx *rctx,
                                  struct resp_domain *dom, const char *mail,
                                  struct cache_req_entry **_entry)
{
    struct cache_req_entry *entry;
    struct sysdb_user **users = NULL;
    struct sysdb_ctx *sysdb;
    size_t count = 0;
    errno_t ret;

    ret = cache_req_entry_new(mem_ctx, rctx, dom, &sysdb, &entry);
    if (ret != EOK) {
        return ret;
    }
    ret = sysdb_get_users_by_email(entry, sysdb, mail, &users, &count);
    if (ret == EINVAL) {
        ret = ENOENT;       /* no user can hold it */
    }
    if (ret == EOK && count > 1) {
        /* As SSSD: "several users share the same email address" is no answer. */
        DEBUG(SSSDBG_OP_FAILURE, "%zu users of domain %s hold the e-mail address %s "
              "(%s, %s%s): ambiguous, not found\n", count, dom->name, mail, users[0]->name,
              users[1]->name, count > 2 ? ", ..." : "");
        ret = ENOENT;
    }
    if (ret != EOK) {
        talloc_free(entry);
        return ret;
    }
    entry->user = users[0];
    entry->expire = entry->user->expire;
    entry->last_update = entry->user->last_update;
    *_entry = entry;
    return EOK;
}

errno_t cache_req_entry_short_name(TALLOC_CTX *mem_ctx, struct resp_ctx *rctx,
                                   struct resp_domain *dom, struct cache_req_entry *entry,
                                   char **_short)
{
    const char *name;

    if (entry->netgroup != NULL) {
        name = entry->netgroup->name;
    } else {
        name = entry->user != NULL ? entry->user->name : entry->group->name;
    }
    return resp_short_name(mem_ctx, rctx, dom, name, _short);
}
