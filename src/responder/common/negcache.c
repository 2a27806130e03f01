/*
 * The negative cache (negcache.h): a chained hash table of keys "<type>:<domain>:<n|i>:<key>"
 * with an expiry time each. A fixed number of buckets keeps it simple; the table only ever
 * holds entries younger than entry_negative_timeout, which bounds its size by the lookup
 * rate of missing entries.
 */
#include <stdio.h>

#include "responder/common/negcache.h"

#define NCACHE_BUCKETS 1024

struct ncache_entry {
    struct ncache_entry *next;
    enum resp_ncache_type type;
    time_t expire;
    char *key;
};

struct resp_ncache {
    uint32_t timeout;
    time_t (*clock)(void);
    struct ncache_entry *buckets[NCACHE_BUCKETS];
};

static time_t ncache_time(void)
{
    return time(NULL);
}

errno_t resp_ncache_create(TALLOC_CTX *mem_ctx, uint32_t timeout, struct resp_ncache **_nc)
{
    struct resp_ncache *nc;

    nc = talloc_zero(mem_ctx, struct resp_ncache);
    if (nc == NULL) {
        return ENOMEM;
    }
    nc->timeout = timeout;
    nc->clock = ncache_time;
    *_nc = nc;
    return EOK;
}

void resp_ncache_set_clock(struct resp_ncache *nc, time_t (*clock)(void))
{
    nc->clock = clock != NULL ? clock : ncache_time;
}

/* FNV-1a over the key. */
static size_t ncache_bucket(const char *key)
{
    uint32_t h = 2166136261u;

    for (; *key != '\0'; key++) {
        h ^= (uint8_t)*key;
        h *= 16777619u;
    }
    return h % NCACHE_BUCKETS;
}

static char *ncache_key(TALLOC_CTX *mem_ctx, enum resp_ncache_type type, const char *domain,
                        const char *name, uint32_t id)
{
    if (domain == NULL) {
        return NULL;
    }
    if (name != NULL) {
        return talloc_asprintf(mem_ctx, "%d:%s:n:%s", (int)type, domain, name);
    }
    return talloc_asprintf(mem_ctx, "%d:%s:i:%u", (int)type, domain, id);
}

/* Finds key, dropping the expired entries of its bucket on the way. */
static struct ncache_entry *ncache_lookup(struct resp_ncache *nc, const char *key)
{
    struct ncache_entry **pp = &nc->buckets[ncache_bucket(key)];
    struct ncache_entry *e;
    time_t now = nc->clock();

    while ((e = *pp) != NULL) {
        if (e->expire <= now) {
            *pp = e->next;
            talloc_free(e);
            continue;
        }
        if (strcmp(e->key, key) == 0) {
            return e;
        }
        pp = &e->next;
    }
    return NULL;
}

static bool ncache_check(struct resp_ncache *nc, enum resp_ncache_type type,
                         const char *domain, const char *name, uint32_t id)
{
    char buf[256];
    char *key;
    bool found;
    int n;

    if (nc == NULL || nc->timeout == 0) {
        return false;
    }
    if (domain == NULL) {
        return false;
    }
    /* Every lookup checks here: the key of ncache_key() built on the stack when it fits. */
    if (name != NULL) {
        n = snprintf(buf, sizeof(buf), "%d:%s:n:%s", (int)type, domain, name);
    } else {
        n = snprintf(buf, sizeof(buf), "%d:%s:i:%u", (int)type, domain, id);
    }
    if (n >= 0 && (size_t)n < sizeof(buf)) {
        return ncache_lookup(nc, buf) != NULL;
    }
    key = ncache_key(nc, type, domain, name, id);
    if (key == NULL) {
        return false;
    }
    found = ncache_lookup(nc, key) != NULL;
    talloc_free(key);
    return found;
}

static errno_t ncache_add(struct resp_ncache *nc, enum resp_ncache_type type,
                          const char *domain, const char *name, uint32_t id)
{
    struct ncache_entry *e;
    char *key;
    size_t b;

    if (nc == NULL || domain == NULL) {
        return EINVAL;
    }
    if (nc->timeout == 0) {
        return EOK;
    }
    key = ncache_key(nc, type, domain, name, id);
    if (key == NULL) {
        return ENOMEM;
    }
    e = ncache_lookup(nc, key);
    if (e != NULL) {
        talloc_free(key);
        e->expire = nc->clock() + nc->timeout;
        return EOK;
    }
    e = talloc_zero(nc, struct ncache_entry);
    if (e == NULL) {
        talloc_free(key);
        return ENOMEM;
    }
    e->key = talloc_steal(e, key);
    e->type = type;
    e->expire = nc->clock() + nc->timeout;
    b = ncache_bucket(key);
    e->next = nc->buckets[b];
    nc->buckets[b] = e;
    return EOK;
}

bool resp_ncache_check_name(struct resp_ncache *nc, enum resp_ncache_type type,
                            const char *domain, const char *name)
{
    return name != NULL && ncache_check(nc, type, domain, name, 0);
}

bool resp_ncache_check_id(struct resp_ncache *nc, enum resp_ncache_type type,
                          const char *domain, uint32_t id)
{
    return ncache_check(nc, type, domain, NULL, id);
}

errno_t resp_ncache_add_name(struct resp_ncache *nc, enum resp_ncache_type type,
                             const char *domain, const char *name)
{
    if (name == NULL) {
        return EINVAL;
    }
    return ncache_add(nc, type, domain, name, 0);
}

errno_t resp_ncache_add_id(struct resp_ncache *nc, enum resp_ncache_type type,
                           const char *domain, uint32_t id)
{
    return ncache_add(nc, type, domain, NULL, id);
}

void resp_ncache_reset(struct resp_ncache *nc, enum resp_ncache_type type)
{
    struct ncache_entry **pp;
    struct ncache_entry *e;
    size_t b;

    if (nc == NULL) {
        return;
    }
    for (b = 0; b < NCACHE_BUCKETS; b++) {
        pp = &nc->buckets[b];
        while ((e = *pp) != NULL) {
            if (e->type == type) {
                *pp = e->next;
                talloc_free(e);
            } else {
                pp = &e->next;
            }
        }
    }
}

size_t resp_ncache_count(struct resp_ncache *nc, enum resp_ncache_type type)
{
    struct ncache_entry *e;
    time_t now;
    size_t n = 0;
    size_t b;

    if (nc == NULL) {
        return 0;
    }
    now = nc->clock();
    for (b = 0; b < NCACHE_BUCKETS; b++) {
        for (e = nc->buckets[b]; e != NULL; e = e->next) {
            if (e->type == type && e->expire > now) {
                n++;
            }
        }
    }
    return n;
}
