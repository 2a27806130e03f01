/*
 * sysdb big-group cache: the parsed results of the last few lookups of groups too big for
 * the read cache (sysdb_rcache.h keeps flat copies of at most SYSDB_RCACHE_MAX_ENTRY
 * bytes). A warm lookup of a group of 50,000 members otherwise reads its 700 KB record out
 * of ldb and splits the member list again, every time: about half of the responder's work
 * for such a group. A hit instead hands out a small struct whose strings and arrays are
 * the kept ones, kept alive by a talloc reference: no copy at all.
 *
 * Validity is the read cache's: an entry is tagged with the database generation read
 * before the read that made it (sysdb_rcache_gen), and a hit needs that generation to be
 * still current, so a hit is exactly what the read would give. Results are shared: their
 * member arrays and strings must not be modified (no caller does).
 *
 * Bounded: SYSDB_BIGCACHE_SLOTS entries, least recently used replaced; a group is kept only
 * when its record has at most SYSDB_BIGCACHE_MAX_BYTES. Not thread-safe, like sysdb.
 */
#ifndef SSS_SYSDB_BIGCACHE_H
#define SSS_SYSDB_BIGCACHE_H

#include "db/sysdb_private.h"
#include "db/sysdb_rcache.h"

#define SYSDB_BIGCACHE_SLOTS 4
#define SYSDB_BIGCACHE_MAX_BYTES (16 * 1024 * 1024)

struct sysdb_bigcache;

/* An empty cache on mem_ctx; NULL on ENOMEM (lookups then read every time). */
struct sysdb_bigcache *sysdb_bigcache_new(TALLOC_CTX *mem_ctx);

/* The group kept for key at gen, as a new struct on mem_ctx sharing the kept data, or
 * NULL (not kept, gen 0, or no memory). */
struct sysdb_group *sysdb_bigcache_get(struct sysdb_bigcache *bc, TALLOC_CTX *mem_ctx,
                                       const struct sysdb_rc_key *key, uint64_t gen);

/* Keeps grp (stolen: the cache owns it from now on, the caller must get a shared struct
 * back with sysdb_bigcache_get) for key, read at gen from a record of bytes bytes.
 * false when it was not kept (gen 0, too big, no memory): grp is then left to the caller. */
bool sysdb_bigcache_put(struct sysdb_bigcache *bc, const struct sysdb_rc_key *key,
                        uint64_t gen, struct sysdb_group *grp, size_t bytes);

#endif /* SSS_SYSDB_BIGCACHE_H */
