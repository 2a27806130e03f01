/*
 * The pieces of cache_req (cache_req.h) that live in their own files: reading one domain's
 * cache (cache_req_cache.c) and calling its back-end (cache_req_dp.c).
 */
#ifndef CACHE_REQ_PRIVATE_H
#define CACHE_REQ_PRIVATE_H

#include "responder/common/cache_req.h"

/* What one domain's cache holds for a request. */
struct cache_req_entry {
    struct sysdb_user *user;
    struct sysdb_group *group;
    struct sysdb_netgroup *netgroup;
    uint32_t *gids;             /* INITGROUPS, deduplicated */
    size_t num_gids;
    bool have_gids;             /* INITGROUPS: a group list is cached */
    time_t expire;              /* of the data that answers (initgroups: the list's) */
    time_t last_update;         /* 0 when unknown (no background refresh then) */
    uint64_t gen;               /* database generation of the read (0: unknown) */
};

/* Reads the entry; ENOENT when the cache has nothing (INITGROUPS: no user), sysdb errors.
 * For INITGROUPS without a cached group list the entry has have_gids false and expire 0. */
errno_t cache_req_cache_read(TALLOC_CTX *mem_ctx, struct resp_ctx *rctx,
                             struct resp_domain *dom, enum cache_req_type type,
                             const char *name, uint32_t id, struct cache_req_entry **_entry);

/* The user whose e-mail address is mail, as cache_req_cache_read() reads a user by name.
 * ENOENT when no user, or several (ambiguous, logged), hold it; sysdb errors. */
errno_t cache_req_cache_read_mail(TALLOC_CTX *mem_ctx, struct resp_ctx *rctx,
                                  struct resp_domain *dom, const char *mail,
                                  struct cache_req_entry **_entry);

/* Drops repeated gids in place, keeping the first occurrence of each in list order;
 * returns the new count. O(n log n) (pairwise below a few dozen). Never fails. */
size_t cache_req_dedupe_gids(uint32_t *gids, size_t count);

/* The name of the user or group an entry holds, without its domain. */
errno_t cache_req_entry_short_name(TALLOC_CTX *mem_ctx, struct resp_ctx *rctx,
                                   struct resp_domain *dom, struct cache_req_entry *entry,
                                   char **_short);

/* SSS_DP_USER / GROUP / INITGROUPS for a request type. */
uint32_t cache_req_dp_type(enum cache_req_type type);

/* "name=<name>" or "idnumber=<id>". NULL on ENOMEM. */
char *cache_req_dp_filter(TALLOC_CTX *mem_ctx, const char *name, uint32_t id);

/* The entry a back-end's OK reply carried (sss_dp.h, sysdb_reply.h): gen 0 when none;
 * len 0 with gen set: "no such entry". */
struct cache_req_dp_entry {
    uint64_t gen;
    uint8_t *blob;
    size_t len;
};

/* One getAccountInfo call to dom's back-end (chained with identical calls in flight).
 * _recv: EOK with the dp_error and error the back-end answered and, when _entry is not
 * NULL, the entry it carried (blob on mem_ctx), or the call's failure
 * (ERR_SBUS_UNKNOWN_SERVICE, ERR_SBUS_NO_REPLY, ERR_SBUS_DISCONNECTED, ...). */
struct tevent_req *cache_req_dp_send(TALLOC_CTX *mem_ctx, struct resp_ctx *rctx,
                                     struct resp_domain *dom, uint32_t dp_type,
                                     const char *filter, uint64_t req_id);
errno_t cache_req_dp_recv(TALLOC_CTX *mem_ctx, struct tevent_req *req, uint16_t *_dp_error,
                          uint32_t *_error, struct cache_req_dp_entry *_entry);

/* Fires a getAccountInfo call nobody waits for (entry_cache_nowait_percentage). */
void cache_req_dp_refresh(struct resp_ctx *rctx, struct resp_domain *dom, uint32_t dp_type,
                          const char *filter, uint64_t req_id);

#endif /* CACHE_REQ_PRIVATE_H */
