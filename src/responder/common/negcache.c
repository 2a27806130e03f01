/*
 * The negative cache (negcache.h) on the project's hash table (util/sss_hash.h). An entry
 * is keyed by (type, domain, name) or (type, domain, id); the key is hashed field by field,
 * never printed into a string, so a check (made by every lookup, for every domain it tries)
 * allocates nothing and reads the clock only when it finds an entry.
 *
 * Expiry: an expired entry found by a check or an add is dropped (or renewed) there and
 * then. Entries nobody asks about again are swept: each add that finds the table at its
 * sweep threshold drops every expired entry, and the next threshold is twice what is left
 * (at least NCACHE_SWEEP_MIN). So the table holds at most about twice the entries added
 * within one timeout, and sweeping costs amortised O(1) per add.
 */
#include <assert.h>

#include "responder/common/negcache.h"
#include "util/sss_hash.h"
#include "responder/common/resp_metrics.h"

/* Below this many entries nothing is swept: a handful of dead entries costs nothing. */
#define NCACHE_SWEEP_MIN 64

struct ncache_key {
    enum resp_ncache_type type;
    const char *domain;
    const char *name;           /* NULL: keyed by id */
    uint32_t id;
};

/* One allocation: the strings of the key follow the struct. */
struct ncache_entry {
    uint64_t hash;
    time_t expire;
    struct ncache_key key;
};

struct resp_ncache {
    uint32_t timeout;
    time_t (*clock)(void);
    struct sss_hash_table *table;
    size_t sweep_at;            /* the table's count that triggers the next sweep */
};

static time_t ncache_time(void)
{
    return time(NULL);
}

static bool ncache_equal(const void *item, const void *key, void *ctx)
{
    const struct ncache_entry *e = item;
    const struct ncache_key *k = key;

    if (e->key.type != k->type || (e->key.name == NULL) != (k->name == NULL)) {
        return false;
    }
    if (k->name != NULL ? strcmp(e->key.name, k->name) != 0 : e->key.id != k->id) {
        return false;
    }
    return strcmp(e->key.domain, k->domain) == 0;
}

/* The domain's NUL is hashed too, so ("ab", "c") and ("a", "bc") differ before the
 * equality check; so is a tag telling names from ids. */
static uint64_t ncache_hash(const struct ncache_key *k)
{
    uint64_t h = sss_hash_add_u32(SSS_HASH_INIT, (uint32_t)k->type);

    h = sss_hash_add(h, k->domain, strlen(k->domain) + 1);
    if (k->name != NULL) {
        return sss_hash_add_str(sss_hash_add(h, "n", 1), k->name);
    }
    return sss_hash_add_u32(sss_hash_add(h, "i", 1), k->id);
}

errno_t resp_ncache_create(TALLOC_CTX *mem_ctx, uint32_t timeout, struct resp_ncache **_nc)
{
    struct resp_ncache *nc;

    if (_nc == NULL) {
        DEBUG(SSSDBG_CRIT_FAILURE, "Invalid argument: _nc is NULL\n");
        return EINVAL;
    }
    nc = talloc_zero(mem_ctx, struct resp_ncache);
    if (nc == NULL) {
        return ENOMEM;
    }
    nc->timeout = timeout;
    nc->clock = ncache_time;
    nc->sweep_at = NCACHE_SWEEP_MIN;
    nc->table = sss_hash_table_new(nc, 0, ncache_equal, NULL);
    if (nc->table == NULL) {
        talloc_free(nc);
        return ENOMEM;
    }
    *_nc = nc;
    return EOK;
}

void resp_ncache_set_clock(struct resp_ncache *nc, time_t (*clock)(void))
{
    if (nc == NULL) {
        return;
    }
    nc->clock = clock != NULL ? clock : ncache_time;
}

/* The live entry under k, or NULL; an expired one met here is dropped. */
static struct ncache_entry *ncache_find(struct resp_ncache *nc, const struct ncache_key *k,
                                        uint64_t hash)
{
    struct ncache_entry *e;

    e = sss_hash_table_get(nc->table, hash, k);
    if (e == NULL) {
        return NULL;
    }
    if (e->expire > nc->clock()) {
        return e;
    }
    sss_hash_table_remove_item(nc->table, hash, e);
    talloc_free(e);
    return NULL;
}

static bool ncache_check(struct resp_ncache *nc, const struct ncache_key *k)
{
    if (nc == NULL || nc->timeout == 0 || k->domain == NULL) {
        return false;
    }
    if (ncache_find(nc, k, ncache_hash(k)) == NULL) {
        return false;
    }
    resp_metrics_negcache_hit();
    return true;
}

static bool ncache_keep_live(void *item, void *pvt)
{
    struct ncache_entry *e = item;
    const time_t *now = pvt;

    if (e->expire > *now) {
        return true;
    }
    talloc_free(e);
    return false;
}

static bool ncache_keep_other_type(void *item, void *pvt)
{
    struct ncache_entry *e = item;
    const enum resp_ncache_type *type = pvt;

    if (e->key.type != *type) {
        return true;
    }
    talloc_free(e);
    return false;
}

/* Drops every expired entry once the table reached its threshold (see the top). */
static void ncache_sweep(struct resp_ncache *nc)
{
    time_t now;
    size_t left;

    if (sss_hash_table_count(nc->table) < nc->sweep_at) {
        return;
    }
    now = nc->clock();
    sss_hash_table_filter(nc->table, ncache_keep_live, &now);
    left = sss_hash_table_count(nc->table);
    nc->sweep_at = left * 2 > NCACHE_SWEEP_MIN ? left * 2 : NCACHE_SWEEP_MIN;
}

static struct ncache_entry *ncache_entry_new(struct resp_ncache *nc,
                                             const struct ncache_key *k, uint64_t hash)
{
    size_t dom_len = strlen(k->domain) + 1;
    size_t name_len = k->name != NULL ? strlen(k->name) + 1 : 0;
    struct ncache_entry *e;
    char *p;

    e = talloc_size(nc, sizeof(*e) + dom_len + name_len);
    if (e == NULL) {
        return NULL;
    }
    talloc_set_name_const(e, "struct ncache_entry");
    p = (char *)(e + 1);
    memcpy(p, k->domain, dom_len);
    e->key = *k;
    e->key.domain = p;
    if (k->name != NULL) {
        memcpy(p + dom_len, k->name, name_len);
        e->key.name = p + dom_len;
    }
    e->hash = hash;
    return e;
}

static errno_t ncache_add(struct resp_ncache *nc, const struct ncache_key *k)
{
    struct ncache_entry *e;
    uint64_t hash;
    errno_t ret;

    if (nc == NULL || k->domain == NULL) {
        DEBUG(SSSDBG_CRIT_FAILURE, "Invalid argument: %s is NULL\n",
              nc == NULL ? "nc" : "domain");
        return EINVAL;
    }
    if (nc->timeout == 0) {
        return EOK;
    }
    hash = ncache_hash(k);
    e = ncache_find(nc, k, hash);
    if (e != NULL) {
        e->expire = nc->clock() + nc->timeout;
        return EOK;
    }
    ncache_sweep(nc);
    e = ncache_entry_new(nc, k, hash);
    if (e == NULL) {
        return ENOMEM;
    }
    e->expire = nc->clock() + nc->timeout;
    ret = sss_hash_table_insert(nc->table, hash, &e->key, e, NULL);
    if (ret != EOK) {
        /* EEXIST cannot happen: ncache_find() just looked. */
        assert(ret != EEXIST);
        talloc_free(e);
        return ret;
    }
    return EOK;
}

bool resp_ncache_check_name(struct resp_ncache *nc, enum resp_ncache_type type,
                            const char *domain, const char *name)
{
    struct ncache_key k = { .type = type, .domain = domain, .name = name };

    return name != NULL && ncache_check(nc, &k);
}

bool resp_ncache_check_id(struct resp_ncache *nc, enum resp_ncache_type type,
                          const char *domain, uint32_t id)
{
    struct ncache_key k = { .type = type, .domain = domain, .id = id };

    return ncache_check(nc, &k);
}

errno_t resp_ncache_add_name(struct resp_ncache *nc, enum resp_ncache_type type,
                             const char *domain, const char *name)
{
    struct ncache_key k = { .type = type, .domain = domain, .name = name };

    if (name == NULL) {
        DEBUG(SSSDBG_CRIT_FAILURE, "Invalid argument: name is NULL\n");
        return EINVAL;
    }
    return ncache_add(nc, &k);
}

errno_t resp_ncache_add_id(struct resp_ncache *nc, enum resp_ncache_type type,
                           const char *domain, uint32_t id)
{
    struct ncache_key k = { .type = type, .domain = domain, .id = id };

    return ncache_add(nc, &k);
}

void resp_ncache_reset(struct resp_ncache *nc, enum resp_ncache_type type)
{
    if (nc == NULL) {
        return;
    }
    sss_hash_table_filter(nc->table, ncache_keep_other_type, &type);
}

size_t resp_ncache_count(struct resp_ncache *nc, enum resp_ncache_type type)
{
    struct ncache_entry *e;
    void *item;
    time_t now;
    size_t pos = 0;
    size_t n = 0;

    if (nc == NULL) {
        return 0;
    }
    now = nc->clock();
    while (sss_hash_table_next(nc->table, &pos, &item)) {
        e = item;
        if (e->key.type == type && e->expire > now) {
            n++;
        }
    }
    return n;
}
