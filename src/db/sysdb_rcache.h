/*
 * sysdb read cache: the results of recent lookups, kept in the process that reads, so that a
 * warm lookup skips ldb (its request, module chain, read transaction, DN index and unpack).
 *
 * Validity: every slot is tagged with the LMDB transaction id the database had when the slot
 * was filled, and a hit requires that id to be still current. LMDB writes that id into one of
 * the two meta pages at the start of the file at every commit, whichever process commits, so
 * reading it from a shared read-only mapping sees the back-end's commits at once, at the cost
 * of two memory loads. Any doubt (not mdb, an unexpected meta page, inside a transaction of
 * ours, whose writes are not committed) means no caching: lookups go to ldb as before.
 *
 * Bounded: a fixed table of 4-way associative slots, entries larger than SYSDB_RCACHE_MAX_ENTRY
 * are never kept, and the bytes held are capped (the table is emptied beyond).
 * Not thread-safe, like the rest of sysdb.
 */
#ifndef SSS_SYSDB_RCACHE_H
#define SSS_SYSDB_RCACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <talloc.h>

#include "util/sss_errors.h"
#include "db/sysdb_mdb_walk.h"

struct sysdb_ctx;

#define SYSDB_RCACHE_SLOTS 8192                 /* power of two */
#define SYSDB_RCACHE_WAYS 4                     /* slots per set (power of two) */
#define SYSDB_RCACHE_MAX_ENTRY (16 * 1024)
#define SYSDB_RCACHE_MAX_BYTES (4 * 1024 * 1024)

enum sysdb_rc_kind {
    SYSDB_RC_USER_NAME = 1,
    SYSDB_RC_USER_UID,
    SYSDB_RC_GROUP_NAME,
    SYSDB_RC_GROUP_GID,
    SYSDB_RC_INITGR,      /* user + group list, by user name */
};

/* What a lookup asks: a kind and either a key-form name (len bytes) or an id. */
struct sysdb_rc_key {
    enum sysdb_rc_kind kind;
    uint32_t id;
    const char *name;
    size_t len;
};

/* Maps the meta pages when the cache is mdb; on any failure the cache stays off (logged). */
void sysdb_rcache_init(struct sysdb_ctx *sysdb);

/*
 * The current database generation to tag a lookup with, or 0 when the cache cannot be used
 * now (off, or a transaction of ours is open). Read it before the ldb read it tags.
 */
uint64_t sysdb_rcache_gen(struct sysdb_ctx *sysdb);

/* The generation of the last commit, also inside a transaction of ours (0: cache off).
 * Read while our write transaction holds the lock, our commit will make it exactly +1. */
uint64_t sysdb_rcache_gen_committed(struct sysdb_ctx *sysdb);

/*
 * A slot for key filled at generation gen. true: hit, *_blob and *_len give the stored entry
 * (NULL/0: "not cached" was stored), valid until the next sysdb call.
 */
bool sysdb_rcache_get(struct sysdb_ctx *sysdb, const struct sysdb_rc_key *key, uint64_t gen,
                      const void **_blob, size_t *_len);

/* Stores a copy of blob (NULL: a miss) for key, tagged gen. Silently skipped when gen is 0,
 * the entry is too big, or memory is short: the cache is only an accelerator. */
void sysdb_rcache_put(struct sysdb_ctx *sysdb, const struct sysdb_rc_key *key, uint64_t gen,
                      const void *blob, size_t len);

/*
 * Whether the database holds key (a record key of ldb's, NUL included), read from the
 * last committed snapshot's pages without ldb. UNKNOWN (ask ldb) when the cache is off, a
 * transaction of ours is open, or the snapshot could not be read whole; else *_gen is the
 * generation the answer is true at.
 */
enum sysdb_mdb_found sysdb_rcache_probe(struct sysdb_ctx *sysdb, const void *key, size_t klen,
                                        uint64_t *_gen);

/*
 * Whether an entry of that DN is there, by sysdb_rcache_probe() of ldb's record keys for
 * it: absent when neither its DN index record (DN=@INDEX:@IDXDN:<casefolded DN>) nor a
 * record keyed by the DN itself (a cache without GUID keys) is there. UNKNOWN also while
 * that key form is not confirmed on the cache's own version entry.
 */
struct ldb_dn;
enum sysdb_mdb_found sysdb_rcache_probe_dn(struct sysdb_ctx *sysdb, struct ldb_dn *dn,
                                           uint64_t *_gen);

/* Counters for tests and benchmarks. */
struct sysdb_rcache_stats {
    bool enabled;
    uint64_t hits;
    uint64_t misses;
};
void sysdb_rcache_stats(struct sysdb_ctx *sysdb, struct sysdb_rcache_stats *_stats);

#endif /* SSS_SYSDB_RCACHE_H */
