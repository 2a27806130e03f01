/*
 * cache_req: the lookup engine every responder shares. One request looks up a user or a
 * group by name or id, or a user's groups (initgroups), over the domains in [sssd] domains
 * order, and answers from the cache, asking the domain's back-end when the cache cannot:
 *
 *   for each domain that applies (the one named by a fully qualified name or
 *   default_domain_suffix, else every domain that accepts short names; by id: only domains
 *   whose [min_id, max_id] holds the id; not filtered; not inconsistent; not in the
 *   negative cache; not a local account, see below):
 *     cached and valid            -> answer (past entry_cache_nowait_percentage of its
 *                                    lifetime: also refresh it in the background)
 *     cached, domain offline      -> answer the expired entry at once, no back-end call
 *     otherwise                   -> getAccountInfo, then read the cache again (the
 *                                    reply's carried entry, when it is still current,
 *                                    is put in the read cache first: the read finds it
 *                                    there instead of in ldb, sysdb_reply.h):
 *         OK and found            -> answer
 *         OK and missing          -> negative cache, next domain
 *         offline, back-end gone, no reply, other failure
 *                                 -> the expired entry if there is one, else next domain
 *   no domain answered            -> ENOENT
 * Root (name "root", uid 0, gid 0) is never looked up; where a domain's names are
 * case-insensitive, neither is any spelling of "root". CACHE_REQ_BYPASS_CACHE asks the
 * back-end even for a valid entry (the _EX flags).
 * Local accounts (local_negative_timeout, [nss], default 14400 s; 0 turns it off): a short
 * name in /etc/passwd (users, initgroups) or /etc/group (groups), or an id there, is looked
 * up in no domain: the request ends not found before any cache read or back-end call, for
 * as long as the files have it (checked live, resp_local.h). SSSD 2.8 puts a local name in
 * the negative cache for local_negative_timeout only after a back-end said it does not
 * exist (one directory search per name and timeout, and a name gone from the files stays
 * negative that long); here no search is made for a name or id the files have, and the
 * option's value only says on or off. A name written "name@domain" asks that domain.
 *
 * Concurrency: requests are independent tevent requests; identical back-end calls in flight
 * are one call on the bus (sbus chaining). Nothing global is touched except
 * sss_debug_req_id, set to the request's id whenever the request resumes.
 *
 * Ownership: the request is a child of mem_ctx (free it to cancel); the result is stolen
 * onto the caller's mem_ctx by cache_req_recv().
 */
#ifndef CACHE_REQ_H
#define CACHE_REQ_H

#include "responder/common/responder_domains.h"
#include "db/sysdb_netgroups.h"

enum cache_req_type {
    CACHE_REQ_USER_BY_NAME,
    CACHE_REQ_USER_BY_ID,
    CACHE_REQ_GROUP_BY_NAME,
    CACHE_REQ_GROUP_BY_ID,
    CACHE_REQ_INITGROUPS,       /* by name */
    CACHE_REQ_NETGROUP,         /* by name: a NIS netgroup (no filters, no local files) */
    CACHE_REQ_USER_BY_SID,      /* name: a SID string "S-1-..." (objectSIDString); every */
    CACHE_REQ_GROUP_BY_SID,     /* active domain, back-end filter "secid=<SID>" */
};

/* Flags */
#define CACHE_REQ_BYPASS_CACHE  0x0001  /* ask the back-end even for a valid entry */

enum cache_req_source {
    CACHE_REQ_SRC_CACHE,        /* a valid cache entry */
    CACHE_REQ_SRC_DP,           /* the cache right after the back-end refreshed it */
    CACHE_REQ_SRC_STALE,        /* an expired entry: the back-end could not refresh it */
};

struct cache_req_result {
    struct resp_domain *domain;
    enum cache_req_source source;
    char *short_name;           /* of the user or group */
    struct sysdb_user *user;    /* USER_*, INITGROUPS */
    struct sysdb_group *group;  /* GROUP_* */
    struct sysdb_netgroup *netgroup;    /* NETGROUP */
    uint32_t *gids;             /* INITGROUPS: deduplicated, in cache order */
    size_t num_gids;
    time_t expire;              /* when the answer's cache data expires */
    uint64_t gen;               /* database generation it was read at (sysdb_rcache_gen();
                                 * 0: unknown): same gen, same data */
};

struct tevent_req *cache_req_send(TALLOC_CTX *mem_ctx, struct tevent_context *ev,
                                  struct resp_ctx *rctx, enum cache_req_type type,
                                  const char *name, uint32_t id, uint32_t flags,
                                  uint64_t req_id);

/* EOK with *_res, ENOENT (not found anywhere, or filtered), EINVAL, ENOMEM. */
errno_t cache_req_recv(TALLOC_CTX *mem_ctx, struct tevent_req *req,
                       struct cache_req_result **_res);

const char *cache_req_source_str(enum cache_req_source source);

#endif /* CACHE_REQ_H */
