/*
 * The project's one hash function and one general-purpose hash table.
 *
 * Hash: 64-bit FNV-1a, fed in pieces (sss_hash_add*) so a composite key (type, domain,
 * name) is hashed without first being printed into a string. Short keys, good spread, no
 * set-up. It is not keyed: tables that hold what a client chose keep their load factor
 * bounded and their lookups short regardless (the table grows; nothing is quadratic).
 *
 * Table: open addressing with linear probing over two parallel arrays (a 32-bit folded hash
 * per slot, 0 meaning empty, and the item pointer), grown to keep the load under 1/2, with
 * deletion by backward shift (no tombstones). The table stores opaque item pointers and
 * never owns them; what an item is (a struct, an index cast to a pointer) and how a key is
 * compared to it is the caller's business, through one equality callback given at creation.
 * Every operation takes the key's 64-bit hash, computed by the caller with the functions
 * below; the table remembers it, so growing never calls back.
 *
 * Specialised tables with their own layout (the read cache, the memory cache) stay apart.
 */
#ifndef SSS_HASH_H
#define SSS_HASH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <talloc.h>

#include "util/sss_errors.h"

/* ---- the hash function ------------------------------------------------------------- */

#define SSS_HASH_INIT 14695981039346656037ULL
#define SSS_HASH_PRIME 1099511628211ULL

static inline uint64_t sss_hash_add(uint64_t h, const void *data, size_t len)
{
    const unsigned char *p = data;
    size_t i;

    for (i = 0; i < len; i++) {
        h ^= p[i];
        h *= SSS_HASH_PRIME;
    }
    return h;
}

/* Adds a NUL-terminated string (without its NUL). */
static inline uint64_t sss_hash_add_str(uint64_t h, const char *s)
{
    for (; *s != '\0'; s++) {
        h ^= (unsigned char)*s;
        h *= SSS_HASH_PRIME;
    }
    return h;
}

/* Adds an integer as its 4 bytes, most significant first, so the byte that varies among
 * consecutive ids (a directory's uids) gets the last multiply. Spelled out: the loop of
 * sss_hash_add() over a stack copy is not unrolled at -O2 and costs more than the hash. */
static inline uint64_t sss_hash_add_u32(uint64_t h, uint32_t v)
{
    h = (h ^ (v >> 24)) * SSS_HASH_PRIME;
    h = (h ^ ((v >> 16) & 0xff)) * SSS_HASH_PRIME;
    h = (h ^ ((v >> 8) & 0xff)) * SSS_HASH_PRIME;
    return (h ^ (v & 0xff)) * SSS_HASH_PRIME;
}

static inline uint64_t sss_hash_bytes(const void *data, size_t len)
{
    return sss_hash_add(SSS_HASH_INIT, data, len);
}

static inline uint64_t sss_hash_str(const char *s)
{
    return sss_hash_add_str(SSS_HASH_INIT, s);
}

static inline uint64_t sss_hash_u32(uint32_t v)
{
    return sss_hash_add_u32(SSS_HASH_INIT, v);
}

/* Folds a 64-bit hash to 32 bits with the high half mixed into the low bits (FNV's low bits
 * alone depend only on the keys' low bits): for tables indexed by `hash & (size - 1)`. */
static inline uint32_t sss_hash_fold32(uint64_t h)
{
    return (uint32_t)(h ^ (h >> 32) ^ (h >> 47));
}

/* ---- the table ----------------------------------------------------------------------- */

struct sss_hash_table;

/* True when item has the key the lookup asked for. ctx is the table's context pointer. */
typedef bool (*sss_hash_equal_fn)(const void *item, const void *key, void *ctx);

/*
 * A table sized for about `hint` items (0: a small default), allocated on mem_ctx. equal
 * compares a stored item with a lookup key; ctx is passed to it (may be NULL). NULL when
 * out of memory or equal is NULL.
 */
struct sss_hash_table *sss_hash_table_new(TALLOC_CTX *mem_ctx, size_t hint,
                                          sss_hash_equal_fn equal, void *ctx);

/* The item stored under key, or NULL. */
void *sss_hash_table_get(const struct sss_hash_table *table, uint64_t hash, const void *key);

/*
 * Stores item under key, with one probe. EOK: stored. EEXIST: an item with that key is
 * there already; nothing changed; *_existing (when not NULL) is set to it. ENOMEM: the
 * table could not grow; nothing changed. EINVAL: table or item NULL.
 */
errno_t sss_hash_table_insert(struct sss_hash_table *table, uint64_t hash, const void *key,
                              void *item, void **_existing);

/* Takes the item stored under key out of the table; returns it, or NULL when absent. */
void *sss_hash_table_remove(struct sss_hash_table *table, uint64_t hash, const void *key);

/* Takes this very item (compared by pointer, no callback) out; false when it was absent.
 * hash must be the one it was inserted with. */
bool sss_hash_table_remove_item(struct sss_hash_table *table, uint64_t hash,
                                const void *item);

/*
 * Keeps only the items for which keep() is true; keep() may free an item it rejects (the
 * table does not look at it again). One pass, no allocation; keep() must not touch the
 * table.
 * Returns the number removed.
 */
size_t sss_hash_table_filter(struct sss_hash_table *table,
                             bool (*keep)(void *item, void *ctx), void *ctx);

/* Forgets every item (does not free them); keeps the table's size. */
void sss_hash_table_clear(struct sss_hash_table *table);

size_t sss_hash_table_count(const struct sss_hash_table *table);

/*
 * Iteration in slot order (not insertion order): start with *pos = 0; each true return
 * gives the next item. The table must not change during the walk (use filter to remove).
 */
bool sss_hash_table_next(const struct sss_hash_table *table, size_t *pos, void **_item);

#endif /* SSS_HASH_H */
