/*
 * Inside the memory-cache writer (nss_memcache.h), shared by its three files:
 * nss_memcache.c (the file: create, map, header, recycle, empty, invalidate),
 * nss_mc_table.c (records in the tables: hash chains, slot allocation, eviction, store and
 * drop by key) and nss_mc_records.c (the passwd, group and initgroups record formats).
 * Nothing outside them includes this.
 */
#ifndef NSS_MC_PRIVATE_H
#define NSS_MC_PRIVATE_H

#include "responder/nss/nss_memcache.h"

struct nss_mc {
    char *dir;
    char *path;
    enum nss_mc_type type;
    uint32_t slots;
    uint32_t ttl;
    char *pwfield;

    int fd;
    uint8_t *base;              /* NULL: disabled (after a failed reset) */
    size_t size;
    uint32_t seed;
    uint8_t *dt;                /* data table */
    uint8_t *ft;                /* free table, bit set = slot used */
    uint32_t *ht;               /* hash table */
    uint32_t buckets;
    uint8_t *heads;             /* private: bit set = a record starts at that slot */
    uint8_t *used;              /* private copy of the free table: the file's may be
                                 * scribbled over, the writer trusts only its own */
    bool damaged;               /* a chain or record of the file points outside the
                                 * records: the file is recreated (nss_mc_repair) */
    uint32_t evict_next;        /* ring cursor for eviction */
    uint32_t barrier;           /* the last barrier value given to a record */
};

/*
 * The barrier value for the next change of a record whose b1 is now old. Values come from
 * one counter per file, in the barrier sequence of PROTOCOL.md, so a slot never gets a value
 * it had within the last 2^24 record writes: a reader that copied a record while it was
 * evicted and another one written into the same slots sees different barriers before and
 * after its copy. (A value derived from the slot alone would restart at the same value for
 * every recycled slot, whose barriers are wiped to 0xffffffff on eviction: such a torn copy
 * was accepted.)
 */
static inline uint32_t nss_mc_rec_barrier(struct nss_mc *mc, uint32_t old)
{
    do {
        mc->barrier = MC_NEXT_BARRIER(mc->barrier);
    } while (mc->barrier == old);
    return mc->barrier;
}

#define SLOTS_OF(len) (((len) + MC_SLOT_SIZE - 1) / MC_SLOT_SIZE)

static inline struct sss_mc_rec *rec_at(struct nss_mc *mc, uint32_t slot)
{
    return (struct sss_mc_rec *)(mc->dt + (size_t)slot * MC_SLOT_SIZE);
}

static inline bool bit_get(const uint8_t *map, uint32_t n)
{
    return (map[n / 8] & (0x80 >> (n % 8))) != 0;
}

static inline void bit_set(uint8_t *map, uint32_t n, bool on)
{
    if (on) {
        map[n / 8] |= (uint8_t)(0x80 >> (n % 8));
    } else {
        map[n / 8] &= (uint8_t)~(0x80 >> (n % 8));
    }
}

/* A record's data is written, and compared, as the concatenation of a few parts, so that
 * a big group's packed member names go to the file without a temporary copy. */
struct nss_mc_part {
    const void *p;
    size_t len;
};

/*
 * Stores a record of the parts under its keys (NSS_MC_KEY_*, at least one), valid for at
 * most max_ttl seconds: key1 the name (initgroups: the name as asked), key2 the second key,
 * of kind key2_kind as nss_mc_drop() counts them (passwd, group: the id in decimal, id the
 * id; initgroups: the unique name). EOK, or E2BIG when the record does not fit the data
 * table.
 */
errno_t nss_mc_put(struct nss_mc *mc, uint32_t max_ttl, unsigned int keys,
                   const char *key1, int key2_kind, const char *key2, uint32_t id,
                   const struct nss_mc_part *parts, size_t nparts);

/* Invalidates every record whose key of kind which is key: 1 the name (initgroups: the
 * name as asked), 2 the id (compared as id) or, for initgroups, the unique name. True when
 * one was. */
bool nss_mc_drop(struct nss_mc *mc, int which, const char *key, uint32_t id);

#endif /* NSS_MC_PRIVATE_H */
