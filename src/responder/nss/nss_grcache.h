/*
 * The formatted records of the last few big groups. A warm lookup of a group of 50,000
 * members would otherwise format 50,000 names again for every request (glibc's `id` asks
 * for a user's primary group twice). A kept record is used only for the same group read
 * at the same database generation (cache_req_result.gen: any commit by any process
 * changes it), so it is exactly what formatting that read would give; the format options
 * do not change while the responder runs.
 *
 * Bounded: NSS_GRCACHE_SLOTS records, least recently used replaced, groups below
 * NSS_GRCACHE_MIN_MEMBERS or above NSS_GRCACHE_MAX_BYTES never kept.
 */
#ifndef NSS_GRCACHE_H
#define NSS_GRCACHE_H

#include "responder/common/responder_domains.h"
#include "responder/nss/nss_protocol.h"

#define NSS_GRCACHE_SLOTS 4
#define NSS_GRCACHE_MIN_MEMBERS 1000
#define NSS_GRCACHE_MAX_BYTES (8 * 1024 * 1024)

struct nss_grcache;

/* An empty cache on mem_ctx; NULL on ENOMEM (callers then format every time). */
struct nss_grcache *nss_grcache_new(TALLOC_CTX *mem_ctx);

/* The record kept for group of dom read at gen, or NULL. Valid until the next put. */
const struct nss_gr_entry *nss_grcache_get(struct nss_grcache *c, struct resp_domain *dom,
                                           const struct sysdb_group *group, uint64_t gen);

/* Keeps a copy of gr, the record of group of dom read at gen, when it is big enough to be
 * worth it (gen 0, a NULL cache or no memory: nothing kept). */
void nss_grcache_put(struct nss_grcache *c, struct resp_domain *dom,
                     const struct sysdb_group *group, uint64_t gen,
                     const struct nss_gr_entry *gr);

#endif /* NSS_GRCACHE_H */
