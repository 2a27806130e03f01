/*
 * A small string-keyed hash table for the master bus: bus names -> owners and
 * "interface.member" -> match rule slots. Chained buckets, doubled when the table gets
 * twice as many entries as buckets. Keys are borrowed from the stored objects, which remove
 * themselves before they go away.
 */
#include "sbus/sbus_server_private.h"

#define SBUS_HASH_INITIAL_SIZE 64

struct sbus_hash_entry {
    struct sbus_hash_entry *next;
    const char *key;
    void *value;
};

struct sbus_hash {
    struct sbus_hash_entry **buckets;
    size_t size;                    /* a power of two */
    size_t count;
};

/* FNV-1a: short keys, good spread, no setup. */
static size_t sbus_hash_fn(const char *key)
{
    uint64_t h = 14695981039346656037ULL;

    for (; *key != '\0'; key++) {
        h ^= (unsigned char)*key;
        h *= 1099511628211ULL;
    }
    return (size_t)h;
}

struct sbus_hash *sbus_hash_create(TALLOC_CTX *mem_ctx)
{
    struct sbus_hash *hash;

    hash = talloc_zero(mem_ctx, struct sbus_hash);
    if (hash == NULL) {
        return NULL;
    }
    hash->size = SBUS_HASH_INITIAL_SIZE;
    hash->buckets = talloc_zero_array(hash, struct sbus_hash_entry *, hash->size);
    if (hash->buckets == NULL) {
        talloc_free(hash);
        return NULL;
    }
    return hash;
}

static struct sbus_hash_entry **sbus_hash_find(struct sbus_hash *hash, const char *key)
{
    struct sbus_hash_entry **link = &hash->buckets[sbus_hash_fn(key) & (hash->size - 1)];

    while (*link != NULL && strcmp((*link)->key, key) != 0) {
        link = &(*link)->next;
    }
    return link;
}

void *sbus_hash_lookup(struct sbus_hash *hash, const char *key)
{
    struct sbus_hash_entry *entry;

    if (hash == NULL || key == NULL) {
        return NULL;
    }
    entry = *sbus_hash_find(hash, key);
    return entry == NULL ? NULL : entry->value;
}

/* Doubles the bucket array; on failure the table simply stays denser. */
static void sbus_hash_grow(struct sbus_hash *hash)
{
    struct sbus_hash_entry **buckets;
    struct sbus_hash_entry *entry;
    struct sbus_hash_entry *next;
    size_t size = hash->size * 2;
    size_t i;
    size_t b;

    buckets = talloc_zero_array(hash, struct sbus_hash_entry *, size);
    if (buckets == NULL) {
        return;
    }
    for (i = 0; i < hash->size; i++) {
        for (entry = hash->buckets[i]; entry != NULL; entry = next) {
            next = entry->next;
            b = sbus_hash_fn(entry->key) & (size - 1);
            entry->next = buckets[b];
            buckets[b] = entry;
        }
    }
    talloc_free(hash->buckets);
    hash->buckets = buckets;
    hash->size = size;
}

errno_t sbus_hash_insert(struct sbus_hash *hash, const char *key, void *value)
{
    struct sbus_hash_entry **link;
    struct sbus_hash_entry *entry;

    if (hash == NULL || key == NULL) {
        return EINVAL;
    }
    link = sbus_hash_find(hash, key);
    if (*link != NULL) {
        return EEXIST;
    }
    entry = talloc(hash, struct sbus_hash_entry);
    if (entry == NULL) {
        return ENOMEM;
    }
    entry->next = NULL;
    entry->key = key;
    entry->value = value;
    *link = entry;
    hash->count++;

    if (hash->count > hash->size * 2) {
        sbus_hash_grow(hash);
    }
    return EOK;
}

void *sbus_hash_remove(struct sbus_hash *hash, const char *key)
{
    struct sbus_hash_entry **link;
    struct sbus_hash_entry *entry;
    void *value;

    if (hash == NULL || key == NULL) {
        return NULL;
    }
    link = sbus_hash_find(hash, key);
    entry = *link;
    if (entry == NULL) {
        return NULL;
    }
    *link = entry->next;
    value = entry->value;
    talloc_free(entry);
    hash->count--;
    return value;
}

size_t sbus_hash_count(struct sbus_hash *hash)
{
    return hash == NULL ? 0 : hash->count;
}
