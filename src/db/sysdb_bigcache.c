/*
 * sysdb big-group cache (see sysdb_bigcache.h). Each slot owns one parsed group (and the
 * ldb message it points into). A hit copies the small struct sysdb_group and takes a talloc
 * reference on the kept one; replacing a slot unlinks it, so a result still in use keeps
 * the data alive until it is freed.
 */
#include "config.h"

#include "db/sysdb_bigcache.h"

struct sysdb_bigcache_slot {
    struct sysdb_group *grp;        /* NULL: empty */
    enum sysdb_rc_kind kind;
    uint32_t id;
    char *name;                     /* key form, or NULL for a lookup by id */
    uint64_t gen;
    uint64_t used;                  /* LRU clock */
};

struct sysdb_bigcache {
    struct sysdb_bigcache_slot slots[SYSDB_BIGCACHE_SLOTS];
    uint64_t clock;
};

struct sysdb_bigcache *sysdb_bigcache_new(TALLOC_CTX *mem_ctx)
{
    return talloc_zero(mem_ctx, struct sysdb_bigcache);
}

static bool sysdb_bigcache_same_key(const struct sysdb_bigcache_slot *s,
                                    const struct sysdb_rc_key *key)
{
    if (s->grp == NULL || s->kind != key->kind) {
        return false;
    }
    if (key->name == NULL) {
        return s->name == NULL && s->id == key->id;
    }
    return s->name != NULL && strlen(s->name) == key->len
           && memcmp(s->name, key->name, key->len) == 0;
}

static void sysdb_bigcache_drop(struct sysdb_bigcache *bc, struct sysdb_bigcache_slot *s)
{
    if (s->grp != NULL) {
        /* Results handed out hold references: the data lives on with them. */
        talloc_unlink(bc, s->grp);
    }
    talloc_free(s->name);
    memset(s, 0, sizeof(*s));
}

struct sysdb_group *sysdb_bigcache_get(struct sysdb_bigcache *bc, TALLOC_CTX *mem_ctx,
                                       const struct sysdb_rc_key *key, uint64_t gen)
{
    struct sysdb_bigcache_slot *s;
    struct sysdb_group *view;
    size_t i;

    if (bc == NULL || gen == 0) {
        return NULL;
    }
    for (i = 0; i < SYSDB_BIGCACHE_SLOTS; i++) {
        s = &bc->slots[i];
        if (!sysdb_bigcache_same_key(s, key)) {
            continue;
        }
        if (s->gen != gen) {
            sysdb_bigcache_drop(bc, s);     /* stale for good: the generation only grows */
            return NULL;
        }
        view = talloc_zero(mem_ctx, struct sysdb_group);
        if (view == NULL) {
            return NULL;
        }
        *view = *s->grp;
        if (talloc_reference(view, s->grp) == NULL) {
            talloc_free(view);
            return NULL;
        }
        s->used = ++bc->clock;
        return view;
    }
    return NULL;
}

bool sysdb_bigcache_put(struct sysdb_bigcache *bc, const struct sysdb_rc_key *key,
                        uint64_t gen, struct sysdb_group *grp, size_t bytes)
{
    struct sysdb_bigcache_slot *victim = NULL;
    struct sysdb_bigcache_slot *s;
    char *name = NULL;
    size_t i;

    if (bc == NULL || gen == 0 || grp == NULL || bytes > SYSDB_BIGCACHE_MAX_BYTES) {
        return false;
    }
    if (key->name != NULL) {
        name = talloc_strndup(bc, key->name, key->len);
        if (name == NULL) {
            return false;
        }
    }
    for (i = 0; i < SYSDB_BIGCACHE_SLOTS; i++) {
        s = &bc->slots[i];
        if (sysdb_bigcache_same_key(s, key)) {
            victim = s;
            break;
        }
        if (victim == NULL || s->grp == NULL || (victim->grp != NULL && s->used < victim->used)) {
            victim = s;
        }
    }
    sysdb_bigcache_drop(bc, victim);
    victim->grp = talloc_steal(bc, grp);
    victim->kind = key->kind;
    victim->id = key->id;
    victim->name = name;
    victim->gen = gen;
    victim->used = ++bc->clock;
    return true;
}
