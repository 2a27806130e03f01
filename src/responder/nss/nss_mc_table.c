/*
 * Records in the memory cache's tables (nss_mc_private.h): each record sits in the hash
 * chains of both its keys (murmurhash3 with the file's seed, as SSSD's clients compute it),
 * takes a run of slots found first fit in the free table, or evicted at a ring cursor when
 * none is free, and is stored, renewed or dropped by key.
 *
 * Readers walk the chains without locks: chains are changed one aligned uint32 at a time
 * (atomic for a reader), a record is linked only once it is complete and unlinked before
 * it is wiped, and every change of a record is framed by its barriers (b2 first, b1 last).
 *
 * The file is shared memory that something else may scribble over (a disk error, a stray
 * root process): the writer never follows a slot number or a length read from it without
 * checking it against its private tables (record heads, used slots). A bad one marks the
 * file damaged, the operation stops, and the public entry points recreate the file.
 */
#include <assert.h>
#include <time.h>

#include "responder/nss/nss_mc_private.h"
#include "sss_client/murmurhash3.h"

static uint32_t nss_mc_bucket(struct nss_mc *mc, const char *key)
{
    return murmurhash3(key, strlen(key) + 1, mc->seed) % mc->buckets;
}

/* ---- hash chains ---- */

/* The next slot in the chain of bucket: a record sits in the chains of both its hashes. */
static inline uint32_t rec_next(struct sss_mc_rec *rec, uint32_t bucket)
{
    if (rec->hash1 == bucket) {
        return rec->next1;
    }
    if (rec->hash2 == bucket) {
        return rec->next2;
    }
    return MC_INVALID_VAL32;
}

static inline void rec_set_next(struct sss_mc_rec *rec, uint32_t bucket, uint32_t slot)
{
    if (rec->hash1 == bucket) {
        rec->next1 = slot;
    } else if (rec->hash2 == bucket) {
        rec->next2 = slot;
    }
}

/* The record starting at slot, checked against the writer's own tables: a slot number in
 * range that starts a record whose length stays inside the data table. NULL (and the file
 * marked damaged) otherwise. */
static struct sss_mc_rec *rec_valid(struct nss_mc *mc, uint32_t slot)
{
    struct sss_mc_rec *rec;

    if (slot >= mc->slots || !bit_get(mc->heads, slot)) {
        mc->damaged = true;
        return NULL;
    }
    rec = rec_at(mc, slot);
    if (rec->len < sizeof(*rec) || SLOTS_OF(rec->len) > mc->slots - slot) {
        mc->damaged = true;
        return NULL;
    }
    return rec;
}

/* Appends slot at the end of bucket's chain (once, even when both hashes are equal). */
static void nss_mc_chain_add(struct nss_mc *mc, uint32_t slot, uint32_t bucket)
{
    uint32_t cur = mc->ht[bucket];
    uint32_t next;
    uint32_t guard;

    if (cur == MC_INVALID_VAL32) {
        mc->ht[bucket] = slot;
        return;
    }
    for (guard = 0; guard < mc->slots; guard++) {
        struct sss_mc_rec *rec;

        if (cur == slot) {
            return;
        }
        rec = rec_valid(mc, cur);
        if (rec == NULL) {
            return;
        }
        next = rec_next(rec, bucket);
        if (next == MC_INVALID_VAL32) {
            rec_set_next(rec, bucket, slot);
            return;
        }
        cur = next;
    }
    DEBUG(SSSDBG_CRIT_FAILURE, "Memory cache %s: chain of bucket %u loops\n", mc->path,
          bucket);
}

static void nss_mc_chain_remove(struct nss_mc *mc, uint32_t slot, uint32_t bucket)
{
    uint32_t prev = mc->ht[bucket];
    uint32_t next;
    uint32_t guard;

    if (prev == MC_INVALID_VAL32) {
        return;
    }
    if (prev == slot) {
        mc->ht[bucket] = rec_next(rec_at(mc, slot), bucket);
        return;
    }
    for (guard = 0; guard < mc->slots; guard++) {
        struct sss_mc_rec *rec = rec_valid(mc, prev);

        if (rec == NULL) {
            return;
        }
        next = rec_next(rec, bucket);
        if (next == MC_INVALID_VAL32) {
            return;
        }
        if (next == slot) {
            rec_set_next(rec, bucket, rec_next(rec_at(mc, slot), bucket));
            return;
        }
        prev = next;
    }
}

/* ---- records ---- */

static void nss_mc_invalidate_slot(struct nss_mc *mc, uint32_t slot)
{
    struct sss_mc_rec *rec;
    uint32_t n;
    uint32_t i;

    if (slot >= mc->slots || !bit_get(mc->heads, slot)) {
        return;
    }
    rec = rec_valid(mc, slot);
    if (rec == NULL) {
        return;
    }
    /* The length must cover slots of this record only: wiping past it would cut others. */
    n = SLOTS_OF(rec->len);
    for (i = 0; i < n; i++) {
        if (!bit_get(mc->used, slot + i) || (i > 0 && bit_get(mc->heads, slot + i))) {
            mc->damaged = true;
            return;
        }
    }
    /* A key the record is not linked under has no bucket (MC_INVALID_VAL32). */
    if (rec->hash1 < mc->buckets) {
        nss_mc_chain_remove(mc, slot, rec->hash1);
    }
    if (rec->hash2 != rec->hash1 && rec->hash2 < mc->buckets) {
        nss_mc_chain_remove(mc, slot, rec->hash2);
    }
    rec->b2 = MC_INVALID_VAL32;
    __sync_synchronize();
    memset((uint8_t *)rec + sizeof(uint32_t), 0xff,
           (size_t)n * MC_SLOT_SIZE - sizeof(uint32_t));
    __sync_synchronize();
    rec->b1 = MC_INVALID_VAL32;
    for (i = 0; i < n; i++) {
        bit_set(mc->ft, slot + i, false);
        bit_set(mc->used, slot + i, false);
    }
    bit_set(mc->heads, slot, false);
}

/* Does the record at slot have key as the key of kind which (1 or 2)? */
static bool nss_mc_rec_matches(struct nss_mc *mc, uint32_t slot, int which,
                               const char *key, uint32_t id)
{
    struct sss_mc_rec *rec = rec_valid(mc, slot);
    const uint32_t *fields;
    size_t data_len;
    uint32_t off;

    if (rec == NULL || rec->len < sizeof(*rec) + 6 * sizeof(uint32_t)) {
        return false;
    }
    fields = (const uint32_t *)rec->data;
    data_len = rec->len - sizeof(*rec);
    if (mc->type != NSS_MC_INITGROUPS && which == 2) {
        return fields[1] == id;         /* uid or gid */
    }
    if (mc->type == NSS_MC_INITGROUPS) {
        off = (which == 1) ? fields[1] : fields[0];   /* name as asked : unique name */
    } else {
        off = fields[0];
    }
    if (off >= data_len) {
        return false;
    }
    return strncmp(rec->data + off, key, data_len - off) == 0;
}

/* Invalidates every record linked under key as its key of kind which (a record only in
 * that chain through its other key, hashed to the same bucket, stays). */
static bool mc_drop(struct nss_mc *mc, int which, const char *key, uint32_t id)
{
    uint32_t bucket = nss_mc_bucket(mc, key);
    uint32_t slot = mc->ht[bucket];
    struct sss_mc_rec *rec;
    uint32_t next;
    uint32_t guard;
    bool found = false;

    for (guard = 0; slot != MC_INVALID_VAL32 && guard < mc->slots; guard++) {
        rec = rec_valid(mc, slot);
        if (rec == NULL) {
            break;
        }
        next = rec_next(rec, bucket);
        if ((which == 1 ? rec->hash1 : rec->hash2) == bucket
                && nss_mc_rec_matches(mc, slot, which, key, id)) {
            nss_mc_invalidate_slot(mc, slot);
            found = true;
        }
        slot = next;
    }
    return found;
}

/* First run of n free slots, or MC_INVALID_VAL32. */
static uint32_t nss_mc_first_fit(struct nss_mc *mc, uint32_t n)
{
    uint32_t s = 0;
    uint32_t run = 0;

    while (s < mc->slots) {
        if ((s % 8) == 0 && mc->used[s / 8] == 0xff) {
            run = 0;
            s += 8;
            continue;
        }
        if (bit_get(mc->used, s)) {
            run = 0;
        } else if (++run == n) {
            return s + 1 - n;
        }
        s++;
    }
    return MC_INVALID_VAL32;
}

/* Frees n slots at the ring cursor by evicting whatever records are there. */
static uint32_t nss_mc_evict(struct nss_mc *mc, uint32_t n)
{
    uint32_t start = mc->evict_next;
    uint32_t s;
    uint32_t head;

    if (start > mc->slots - n) {
        start = 0;
    }
    if (start == 0) {
        DEBUG(SSSDBG_OP_FAILURE, "Memory cache %s is full, recycling its oldest records; "
              "consider a larger memcache_size\n", mc->path);
    }
    for (s = start; s < start + n; s++) {
        if (!bit_get(mc->used, s)) {
            continue;
        }
        /* A used slot belongs to the nearest record head at or before it. */
        for (head = s; !bit_get(mc->heads, head) && head > 0; head--) {
            /* search */
        }
        nss_mc_invalidate_slot(mc, head);
    }
    mc->evict_next = start + n;
    return start;
}

static size_t parts_len(const struct nss_mc_part *parts, size_t n)
{
    size_t len = 0;
    size_t i;

    for (i = 0; i < n; i++) {
        len += parts[i].len;
    }
    return len;
}

/* The record linked under exactly the buckets h1 and h2 (MC_INVALID_VAL32: not linked)
 * whose key of kind which is key and whose data is exactly the parts, or MC_INVALID_VAL32.
 * The search walks the chain of the key of kind which. */
static uint32_t nss_mc_find_same(struct nss_mc *mc, uint32_t h1, uint32_t h2, int which,
                                 const char *key, uint32_t id,
                                 const struct nss_mc_part *parts, size_t n, size_t data_len)
{
    uint32_t bucket = which == 1 ? h1 : h2;
    uint32_t slot = mc->ht[bucket];
    struct sss_mc_rec *rec;
    uint32_t guard;
    size_t pos;
    size_t i;

    for (guard = 0; slot != MC_INVALID_VAL32 && guard < mc->slots; guard++) {
        rec = rec_valid(mc, slot);
        if (rec == NULL) {
            return MC_INVALID_VAL32;
        }
        if (rec->len == sizeof(*rec) + data_len && rec->hash1 == h1 && rec->hash2 == h2
                && nss_mc_rec_matches(mc, slot, which, key, id)) {
            for (i = 0, pos = 0; i < n; pos += parts[i].len, i++) {
                if (parts[i].len != 0 && memcmp(rec->data + pos, parts[i].p, parts[i].len) != 0) {
                    break;
                }
            }
            return i == n ? slot : MC_INVALID_VAL32;
        }
        slot = rec_next(rec, bucket);
    }
    return MC_INVALID_VAL32;
}

static uint64_t nss_mc_expiry(struct nss_mc *mc, uint32_t max_ttl)
{
    return (uint64_t)time(NULL) + (max_ttl < mc->ttl ? max_ttl : mc->ttl);
}

/*
 * Stores a record of the parts under its keys. The keys are derived from the data, and
 * every store drops the other records holding a key it links, so a record linked under the
 * same keys with the same bytes is the only one for them: then only its expiry moves (a
 * warm lookup of a group of 50,000 members would otherwise wipe and rewrite 500 KB).
 * Otherwise the records of the linked keys are dropped and a new one is written and linked.
 * A key not linked drops nothing: the record stored under it stays for its own lookups.
 */
static errno_t mc_put(struct nss_mc *mc, uint32_t max_ttl, unsigned int keys,
                      const char *key1, int key2_kind, const char *key2, uint32_t id,
                      const struct nss_mc_part *parts, size_t nparts)
{
    uint32_t h1 = (keys & NSS_MC_KEY_NAME) ? nss_mc_bucket(mc, key1) : MC_INVALID_VAL32;
    uint32_t h2 = (keys & NSS_MC_KEY_ID) ? nss_mc_bucket(mc, key2) : MC_INVALID_VAL32;
    struct sss_mc_rec *rec;
    size_t data_len = parts_len(parts, nparts);
    size_t rec_len = sizeof(*rec) + data_len;
    size_t span;
    size_t pos;
    uint32_t n;
    uint32_t slot;
    uint32_t i;

    if (rec_len > (size_t)mc->slots * MC_SLOT_SIZE) {
        DEBUG(SSSDBG_OP_FAILURE, "Memory cache %s: a record of %zu bytes does not fit\n",
              mc->path, rec_len);
        return E2BIG;
    }
    assert(h1 != MC_INVALID_VAL32 || h2 != MC_INVALID_VAL32);
    slot = h1 != MC_INVALID_VAL32
           ? nss_mc_find_same(mc, h1, h2, 1, key1, 0, parts, nparts, data_len)
           : nss_mc_find_same(mc, h1, h2, key2_kind, key2, id, parts, nparts, data_len);
    if (slot != MC_INVALID_VAL32) {
        rec = rec_at(mc, slot);
        rec->b2 = nss_mc_rec_barrier(mc, rec->b1);
        __sync_synchronize();
        rec->expire = nss_mc_expiry(mc, max_ttl);
        __sync_synchronize();
        rec->b1 = rec->b2;
        return EOK;
    }
    if (h1 != MC_INVALID_VAL32) {
        mc_drop(mc, 1, key1, 0);
    }
    if (h2 != MC_INVALID_VAL32) {
        mc_drop(mc, key2_kind, key2, id);
    }
    if (mc->damaged) {
        return EIO;         /* the caller recreates the file */
    }

    n = SLOTS_OF(rec_len);
    slot = nss_mc_first_fit(mc, n);
    if (slot == MC_INVALID_VAL32) {
        slot = nss_mc_evict(mc, n);
    }
    /* rec_len fits the data table (checked above), so both give a run inside it. */
    assert(slot + n <= mc->slots);
    for (i = 0; i < n; i++) {
        bit_set(mc->ft, slot + i, true);
        bit_set(mc->used, slot + i, true);
    }
    bit_set(mc->heads, slot, true);

    rec = rec_at(mc, slot);
    span = (size_t)n * MC_SLOT_SIZE;
    rec->b2 = nss_mc_rec_barrier(mc, rec->b1);
    __sync_synchronize();
    rec->len = (uint32_t)rec_len;
    rec->expire = nss_mc_expiry(mc, max_ttl);
    rec->next1 = MC_INVALID_VAL32;
    rec->next2 = MC_INVALID_VAL32;
    rec->hash1 = h1;
    rec->hash2 = h2;
    rec->padding = MC_INVALID_VAL32;
    for (i = 0, pos = 0; i < nparts; pos += parts[i].len, i++) {
        if (parts[i].len != 0) {
            memcpy(rec->data + pos, parts[i].p, parts[i].len);
        }
    }
    memset(rec->data + data_len, 0xff, span - rec_len);
    __sync_synchronize();
    rec->b1 = rec->b2;

    if (h1 != MC_INVALID_VAL32) {
        nss_mc_chain_add(mc, slot, h1);
    }
    if (h2 != MC_INVALID_VAL32) {
        nss_mc_chain_add(mc, slot, h2);
    }
    return EOK;
}

/* Recreates a file found damaged (the records it held are lost; lookups refill it). */
static void nss_mc_repair(struct nss_mc *mc)
{
    if (!mc->damaged) {
        return;
    }
    DEBUG(SSSDBG_CRIT_FAILURE, "Memory cache %s is damaged (a chain or a record length "
          "points outside the records written): recreating it\n", mc->path);
    mc->damaged = false;
    if (nss_mc_reset(mc) != EOK) {
        DEBUG(SSSDBG_CRIT_FAILURE, "Memory cache %s disabled\n", mc->path);
    }
}

errno_t nss_mc_put(struct nss_mc *mc, uint32_t max_ttl, unsigned int keys,
                   const char *key1, int key2_kind, const char *key2, uint32_t id,
                   const struct nss_mc_part *parts, size_t nparts)
{
    errno_t ret;

    ret = mc_put(mc, max_ttl, keys, key1, key2_kind, key2, id, parts, nparts);
    if (mc->damaged) {
        nss_mc_repair(mc);
        ret = EIO;
    }
    return ret;
}

bool nss_mc_drop(struct nss_mc *mc, int which, const char *key, uint32_t id)
{
    bool found = mc_drop(mc, which, key, id);

    nss_mc_repair(mc);
    return found;
}

bool nss_mc_has_id(struct nss_mc *mc, uint32_t id)
{
    char idkey[16];
    uint32_t bucket;
    uint32_t slot;
    uint32_t guard;
    struct sss_mc_rec *rec;
    uint64_t now = (uint64_t)time(NULL);
    bool found = false;

    if (mc == NULL || mc->base == NULL || mc->type == NSS_MC_INITGROUPS) {
        return false;
    }
    snprintf(idkey, sizeof(idkey), "%ld", (long)id);
    bucket = nss_mc_bucket(mc, idkey);
    slot = mc->ht[bucket];
    for (guard = 0; slot != MC_INVALID_VAL32 && guard < mc->slots; guard++) {
        rec = rec_valid(mc, slot);
        if (rec == NULL) {
            break;
        }
        if (rec->hash2 == bucket && nss_mc_rec_matches(mc, slot, 2, idkey, id)
                && rec->expire > now) {
            found = true;
            break;
        }
        slot = rec_next(rec, bucket);
    }
    nss_mc_repair(mc);
    return found;
}
