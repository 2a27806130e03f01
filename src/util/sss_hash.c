/*
 * The general-purpose hash table of sss_hash.h: open addressing, linear probing, load kept
 * under 1/2, backward-shift deletion. Each slot keeps the key's folded 32-bit hash (never 0:
 * 0 marks an empty slot), so a probe compares hashes before it calls the equality callback
 * and growing needs no callback at all.
 */
#include <assert.h>
#include <string.h>

#include "util/sss_hash.h"

#define SSS_HASH_MIN_SIZE 16

struct sss_hash_table {
    uint32_t *hashes;           /* folded hash per slot, 0 = empty */
    void **items;
    size_t size;                /* a power of two */
    size_t count;
    sss_hash_equal_fn equal;
    void *ctx;
};

static uint32_t slot_hash(uint64_t hash)
{
    uint32_t h = sss_hash_fold32(hash);

    return h != 0 ? h : 1;
}

static size_t size_for(size_t items)
{
    size_t size = SSS_HASH_MIN_SIZE;

    while (size < items * 2 + 1 && size < ((size_t)1 << (sizeof(size_t) * 8 - 2))) {
        size *= 2;
    }
    return size;
}

static errno_t table_alloc(struct sss_hash_table *table, size_t size)
{
    uint32_t *hashes;
    void **items;

    hashes = talloc_zero_array(table, uint32_t, size);
    items = talloc_array(table, void *, size);
    if (hashes == NULL || items == NULL) {
        talloc_free(hashes);
        talloc_free(items);
        return ENOMEM;
    }
    table->hashes = hashes;
    table->items = items;
    table->size = size;
    return EOK;
}

struct sss_hash_table *sss_hash_table_new(TALLOC_CTX *mem_ctx, size_t hint,
                                          sss_hash_equal_fn equal, void *ctx)
{
    struct sss_hash_table *table;

    if (equal == NULL) {
        return NULL;
    }
    table = talloc_zero(mem_ctx, struct sss_hash_table);
    if (table == NULL) {
        return NULL;
    }
    table->equal = equal;
    table->ctx = ctx;
    if (table_alloc(table, size_for(hint)) != EOK) {
        talloc_free(table);
        return NULL;
    }
    return table;
}

/* The slot holding key, or the empty slot that ends its probe sequence. */
static size_t find_slot(const struct sss_hash_table *table, uint32_t h, const void *key,
                        bool *_found)
{
    size_t mask = table->size - 1;
    size_t i = h & mask;

    while (table->hashes[i] != 0) {
        if (table->hashes[i] == h && table->equal(table->items[i], key, table->ctx)) {
            *_found = true;
            return i;
        }
        i = (i + 1) & mask;
    }
    *_found = false;
    return i;
}

void *sss_hash_table_get(const struct sss_hash_table *table, uint64_t hash, const void *key)
{
    bool found;
    size_t i;

    if (table == NULL) {
        return NULL;
    }
    i = find_slot(table, slot_hash(hash), key, &found);
    return found ? table->items[i] : NULL;
}

/* Doubles the arrays and puts every item back by its stored hash. */
static errno_t table_grow(struct sss_hash_table *table)
{
    uint32_t *old_hashes = table->hashes;
    void **old_items = table->items;
    size_t old_size = table->size;
    size_t mask;
    size_t i;
    size_t j;
    errno_t ret;

    ret = table_alloc(table, old_size * 2);
    if (ret != EOK) {
        return ret;
    }
    mask = table->size - 1;
    for (i = 0; i < old_size; i++) {
        if (old_hashes[i] == 0) {
            continue;
        }
        for (j = old_hashes[i] & mask; table->hashes[j] != 0; j = (j + 1) & mask) {
        }
        table->hashes[j] = old_hashes[i];
        table->items[j] = old_items[i];
    }
    talloc_free(old_hashes);
    talloc_free(old_items);
    return EOK;
}

errno_t sss_hash_table_insert(struct sss_hash_table *table, uint64_t hash, const void *key,
                              void *item, void **_existing)
{
    uint32_t h = slot_hash(hash);
    bool found;
    size_t i;
    errno_t ret;

    if (table == NULL || item == NULL) {
        return EINVAL;
    }
    i = find_slot(table, h, key, &found);
    if (found) {
        if (_existing != NULL) {
            *_existing = table->items[i];
        }
        return EEXIST;
    }
    if ((table->count + 1) * 2 > table->size) {
        ret = table_grow(table);
        if (ret != EOK) {
            return ret;
        }
        i = find_slot(table, h, key, &found);
        assert(!found);
    }
    table->hashes[i] = h;
    table->items[i] = item;
    table->count++;
    return EOK;
}

/*
 * Empties slot i and closes the gap: each later item of the cluster whose home slot is not
 * cyclically within (i, j] moves back into the hole. Returns true when an item moved into
 * slot i itself (an iteration must look at i again).
 */
static bool remove_at(struct sss_hash_table *table, size_t i)
{
    size_t mask = table->size - 1;
    size_t hole = i;
    size_t j = i;
    size_t home;
    bool refilled = false;

    for (;;) {
        j = (j + 1) & mask;
        if (table->hashes[j] == 0) {
            break;
        }
        home = table->hashes[j] & mask;
        /* Move j into the hole unless its home lies cyclically in (hole, j]. */
        if ((hole <= j) ? (hole < home && home <= j) : (hole < home || home <= j)) {
            continue;
        }
        table->hashes[hole] = table->hashes[j];
        table->items[hole] = table->items[j];
        if (hole == i) {
            refilled = true;
        }
        hole = j;
    }
    table->hashes[hole] = 0;
    table->items[hole] = NULL;
    table->count--;
    return refilled;
}

void *sss_hash_table_remove(struct sss_hash_table *table, uint64_t hash, const void *key)
{
    bool found;
    void *item;
    size_t i;

    if (table == NULL) {
        return NULL;
    }
    i = find_slot(table, slot_hash(hash), key, &found);
    if (!found) {
        return NULL;
    }
    item = table->items[i];
    remove_at(table, i);
    return item;
}

bool sss_hash_table_remove_item(struct sss_hash_table *table, uint64_t hash,
                                const void *item)
{
    uint32_t h = slot_hash(hash);
    size_t mask;
    size_t i;

    if (table == NULL) {
        return false;
    }
    mask = table->size - 1;
    for (i = h & mask; table->hashes[i] != 0; i = (i + 1) & mask) {
        if (table->items[i] == item) {
            remove_at(table, i);
            return true;
        }
    }
    return false;
}

size_t sss_hash_table_filter(struct sss_hash_table *table,
                             bool (*keep)(void *item, void *ctx), void *ctx)
{
    size_t mask;
    size_t start;
    size_t step;
    size_t i;
    size_t removed = 0;
    void *item;

    if (table == NULL || keep == NULL || table->count == 0) {
        return 0;
    }
    mask = table->size - 1;
    /* Start after an empty slot: backward shifts never cross it, so an item only moves
     * from a slot not yet visited into the one being visited. The load is under 1/2, so
     * there is one. */
    for (start = 0; table->hashes[start] != 0; start++) {
    }
    for (step = 1; step <= table->size; step++) {
        i = (start + step) & mask;
        while (table->hashes[i] != 0) {
            item = table->items[i];
            if (keep(item, ctx)) {
                break;
            }
            removed++;
            if (!remove_at(table, i)) {
                break;
            }
        }
    }
    return removed;
}

void sss_hash_table_clear(struct sss_hash_table *table)
{
    if (table == NULL) {
        return;
    }
    memset(table->hashes, 0, table->size * sizeof(table->hashes[0]));
    table->count = 0;
}

size_t sss_hash_table_count(const struct sss_hash_table *table)
{
    return table == NULL ? 0 : table->count;
}

bool sss_hash_table_next(const struct sss_hash_table *table, size_t *pos, void **_item)
{
    size_t i;

    if (table == NULL || pos == NULL) {
        return false;
    }
    for (i = *pos; i < table->size; i++) {
        if (table->hashes[i] != 0) {
            *_item = table->items[i];
            *pos = i + 1;
            return true;
        }
    }
    *pos = table->size;
    return false;
}
