/*
 * sysdb read cache (see sysdb_rcache.h): LMDB meta page watch and the slot table.
 *
 * LMDB on-disk format (data version 1, stable since LMDB 0.9): pages 0 and 1 are meta
 * pages; after the 16-byte page header each holds MDB_meta { uint32 magic 0xBEEFC0DE,
 * uint32 version, void *address, size_t mapsize, MDB_db dbs[2] (48 bytes each, the page size
 * in dbs[0].md_pad), pgno_t last_pg, txnid_t txnid }. A commit writes the meta page of its
 * parity (data pages first), so the larger of the two txnids is the last committed
 * transaction. We only read: a torn or odd value merely makes a lookup miss.
 */
#include "config.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include "db/sysdb_private.h"
#include "db/sysdb_rcache.h"
#include "db/sysdb_mdb_walk.h"
#include "util/sss_hash.h"

#define MDB_META_OFS 16          /* page header */
#define MDB_MAGIC_OFS (MDB_META_OFS + 0)
#define MDB_VERSION_OFS (MDB_META_OFS + 4)
#define MDB_MAPSIZE_OFS (MDB_META_OFS + 8)
#define MDB_PSIZE_OFS (MDB_META_OFS + 24)
#define MDB_MAIN_FLAGS_OFS (MDB_META_OFS + 76)  /* dbs[1] (the main database): md_flags */
#define MDB_MAIN_DEPTH_OFS (MDB_META_OFS + 78)  /* md_depth */
#define MDB_MAIN_ROOT_OFS (MDB_META_OFS + 112)  /* md_root */
#define MDB_LAST_PG_OFS (MDB_META_OFS + 120)
#define MDB_TXNID_OFS (MDB_META_OFS + 128)
#define MDB_MAX_DEPTH 32
#define MDB_MAGIC 0xBEEFC0DEU
#define MDB_DATA_VERSION 1U

struct sysdb_rc_slot {
    uint64_t gen;          /* 0: empty */
    enum sysdb_rc_kind kind;
    uint32_t id;
    char *name;            /* talloc'd key (name kinds), NUL-terminated */
    void *blob;            /* talloc'd entry, NULL: cached "not found" */
    size_t len;
};

struct sysdb_rcache {
    const uint8_t *map;    /* the two meta pages, read-only, shared */
    size_t map_len;
    size_t psize;
    int fd;                /* the file, read-only, for the whole-file map; -1: none */
    const uint8_t *file;   /* the file's pages as far as file_len, for sysdb_rcache_probe */
    size_t file_len;
    int8_t dn_index;       /* ldb's DN index key form checked: 1 as assumed, -1 not, 0 not yet */
    size_t bytes;          /* held by slots */
    uint64_t hits;
    uint64_t misses;
    uint8_t victim[SYSDB_RCACHE_SLOTS / SYSDB_RCACHE_WAYS]; /* next way to evict, per set */
    struct sysdb_rc_slot slots[SYSDB_RCACHE_SLOTS];         /* sets of SYSDB_RCACHE_WAYS */
};

static uint32_t rc_u32(const uint8_t *p)
{
    uint32_t v;

    memcpy(&v, p, sizeof(v));
    return v;
}

static bool rc_meta_ok(const uint8_t *page)
{
    return rc_u32(page + MDB_MAGIC_OFS) == MDB_MAGIC
           && rc_u32(page + MDB_VERSION_OFS) == MDB_DATA_VERSION;
}

static int sysdb_rcache_destructor(struct sysdb_rcache *rc)
{
    if (rc->map != NULL) {
        munmap(discard_const(rc->map), rc->map_len);
    }
    if (rc->file != NULL) {
        munmap(discard_const(rc->file), rc->file_len);
    }
    if (rc->fd >= 0) {
        close(rc->fd);
    }
    return 0;
}

void sysdb_rcache_init(struct sysdb_ctx *sysdb)
{
    struct sysdb_rcache *rc;
    uint8_t head[64];
    void *map;
    size_t psize;
    int fd;

    if (sysdb->backend != SYSDB_BACKEND_MDB || getenv("SSS_SYSDB_NO_RCACHE") != NULL) {
        return;
    }
    fd = open(sysdb->path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0) {
        DEBUG(SSSDBG_MINOR_FAILURE, "Read cache off: cannot open %s\n", sysdb->path);
        return;
    }
    if (pread(fd, head, sizeof(head), 0) != (ssize_t)sizeof(head) || !rc_meta_ok(head)) {
        DEBUG(SSSDBG_MINOR_FAILURE, "Read cache off: %s has no LMDB meta page\n", sysdb->path);
        close(fd);
        return;
    }
    psize = rc_u32(head + MDB_PSIZE_OFS);
    if (psize < 512 || psize > 65536 || (psize & (psize - 1)) != 0) {
        DEBUG(SSSDBG_MINOR_FAILURE, "Read cache off: odd LMDB page size %zu\n", psize);
        close(fd);
        return;
    }
    map = mmap(NULL, 2 * psize, PROT_READ, MAP_SHARED, fd, 0);
    if (map == MAP_FAILED) {
        DEBUG(SSSDBG_MINOR_FAILURE, "Read cache off: cannot map %s\n", sysdb->path);
        close(fd);
        return;
    }
    rc = talloc_zero(sysdb, struct sysdb_rcache);
    if (rc == NULL) {
        munmap(map, 2 * psize);
        close(fd);
        return;
    }
    rc->fd = fd;
    rc->map = map;
    rc->map_len = 2 * psize;
    rc->psize = psize;
    talloc_set_destructor(rc, sysdb_rcache_destructor);
    if (!rc_meta_ok(rc->map + psize)) {
        DEBUG(SSSDBG_MINOR_FAILURE, "Read cache off: %s has no second meta page\n",
              sysdb->path);
        talloc_free(rc);
        return;
    }
    sysdb->rcache = rc;
}

/* The generation as the meta pages give it now; 0 when the cache is off. Inline in
 * both callers: sysdb_rcache_gen() is on every warm lookup. */
static inline uint64_t rc_gen_now(struct sysdb_ctx *sysdb)
{
    struct sysdb_rcache *rc = sysdb->rcache;
    uint64_t a;
    uint64_t b;

    if (rc == NULL) {
        return 0;
    }
    /* The compiler must load the values now, not reuse an earlier read. */
    a = __atomic_load_n((const uint64_t *)(rc->map + MDB_TXNID_OFS), __ATOMIC_ACQUIRE);
    b = __atomic_load_n((const uint64_t *)(rc->map + rc->psize + MDB_TXNID_OFS),
                        __ATOMIC_ACQUIRE);
    a = a > b ? a : b;
    /* 0 is "no caching"; +1 keeps a fresh file's txnid 0 usable. */
    return a + 1;
}

uint64_t sysdb_rcache_gen(struct sysdb_ctx *sysdb)
{
    if (sysdb->tx_depth > 0) {
        return 0;
    }
    return rc_gen_now(sysdb);
}

uint64_t sysdb_rcache_gen_committed(struct sysdb_ctx *sysdb)
{
    return rc_gen_now(sysdb);
}

/*
 * The first slot of the key's set. The kind goes into the seed (no extra round); an id is
 * hashed most significant byte first (sss_hash_add_u32), so consecutive ids spread evenly
 * over the sets. The fold to a set is this table's own: with sss_hash_fold32() the warm
 * benchmark's users and group lists shared sets more (9 keys over a full set instead of 3;
 * two-call initgroups 0.28 -> 0.37 us).
 */
static inline size_t rc_set_index(const struct sysdb_rc_key *key)
{
    uint64_t h = SSS_HASH_INIT ^ (uint64_t)key->kind;

    if (key->name != NULL) {
        h = sss_hash_add(h, key->name, key->len);
    } else {
        h = sss_hash_add_u32(h, key->id);
    }
    return ((size_t)(h ^ (h >> 29)) & (SYSDB_RCACHE_SLOTS / SYSDB_RCACHE_WAYS - 1))
           * SYSDB_RCACHE_WAYS;
}

static bool rc_slot_matches(const struct sysdb_rc_slot *slot, const struct sysdb_rc_key *key)
{
    if (slot->kind != key->kind) {
        return false;
    }
    if (key->name == NULL) {
        return slot->name == NULL && slot->id == key->id;
    }
    return slot->name != NULL && strncmp(slot->name, key->name, key->len) == 0
           && slot->name[key->len] == '\0';
}

static void rc_slot_clear(struct sysdb_rcache *rc, struct sysdb_rc_slot *slot)
{
    rc->bytes -= slot->len + (slot->name != NULL ? strlen(slot->name) : 0);
    TALLOC_FREE(slot->name);
    TALLOC_FREE(slot->blob);
    slot->len = 0;
    slot->gen = 0;
}

bool sysdb_rcache_get(struct sysdb_ctx *sysdb, const struct sysdb_rc_key *key, uint64_t gen,
                      const void **_blob, size_t *_len)
{
    struct sysdb_rcache *rc = sysdb->rcache;
    struct sysdb_rc_slot *set;
    size_t w;

    if (rc == NULL || gen == 0) {
        return false;
    }
    set = &rc->slots[rc_set_index(key)];
    for (w = 0; w < SYSDB_RCACHE_WAYS; w++) {
        if (set[w].gen == gen && rc_slot_matches(&set[w], key)) {
            rc->hits++;
            *_blob = set[w].blob;
            *_len = set[w].len;
            return true;
        }
    }
    rc->misses++;
    return false;
}

void sysdb_rcache_put(struct sysdb_ctx *sysdb, const struct sysdb_rc_key *key, uint64_t gen,
                      const void *blob, size_t len)
{
    struct sysdb_rcache *rc = sysdb->rcache;
    struct sysdb_rc_slot *set;
    struct sysdb_rc_slot *slot = NULL;
    size_t first;
    size_t w;
    size_t i;

    if (rc == NULL || gen == 0 || len > SYSDB_RCACHE_MAX_ENTRY) {
        return;
    }
    /* The key's own slot, else an empty or outdated one, else the set's next victim. */
    first = rc_set_index(key);
    set = &rc->slots[first];
    for (w = 0; w < SYSDB_RCACHE_WAYS && slot == NULL; w++) {
        if (set[w].gen != 0 && rc_slot_matches(&set[w], key)) {
            slot = &set[w];
        }
    }
    for (w = 0; w < SYSDB_RCACHE_WAYS && slot == NULL; w++) {
        if (set[w].gen != gen) {
            slot = &set[w];
        }
    }
    if (slot == NULL) {
        w = rc->victim[first / SYSDB_RCACHE_WAYS]++ % SYSDB_RCACHE_WAYS;
        slot = &set[w];
    }
    rc_slot_clear(rc, slot);
    if (rc->bytes + len + key->len > SYSDB_RCACHE_MAX_BYTES) {
        for (i = 0; i < SYSDB_RCACHE_SLOTS; i++) {
            rc_slot_clear(rc, &rc->slots[i]);
        }
    }
    if (key->name != NULL) {
        slot->name = talloc_strndup(rc, key->name, key->len);
        if (slot->name == NULL) {
            return;
        }
    }
    if (blob != NULL) {
        slot->blob = talloc_memdup(rc, blob, len);
        if (slot->blob == NULL) {
            TALLOC_FREE(slot->name);
            return;
        }
        slot->len = len;
    }
    slot->kind = key->kind;
    slot->id = key->id;
    slot->gen = gen;
    rc->bytes += slot->len + key->len;
}

void sysdb_rcache_stats(struct sysdb_ctx *sysdb, struct sysdb_rcache_stats *_stats)
{
    struct sysdb_rcache *rc = sysdb->rcache;

    _stats->enabled = rc != NULL;
    _stats->hits = rc != NULL ? rc->hits : 0;
    _stats->misses = rc != NULL ? rc->misses : 0;
}

/* The file mapped at least up to page last_pg: once for the environment's map size (the
 * file never grows past it), so that a growing file is not mapped again at every commit;
 * only the pages up to last_pg are ever read (a snapshot's pages are written before its
 * meta page names them, and LMDB never shrinks the file). */
static bool rc_file_covers(struct sysdb_rcache *rc, uint64_t last_pg, uint64_t mapsize)
{
    size_t need;
    void *file;

    if (last_pg >= SIZE_MAX / rc->psize - 1) {
        return false;
    }
    need = (last_pg + 1) * rc->psize;
    if (need <= rc->file_len) {
        return true;
    }
    if (mapsize < need || mapsize > SIZE_MAX / 2) {    /* odd: the pages needed only */
        mapsize = need;
    }
    file = mmap(NULL, mapsize, PROT_READ, MAP_SHARED, rc->fd, 0);
    if (file == MAP_FAILED && mapsize > need) {
        mapsize = need;
        file = mmap(NULL, mapsize, PROT_READ, MAP_SHARED, rc->fd, 0);
    }
    if (file == MAP_FAILED) {
        return false;
    }
    if (rc->file != NULL) {
        munmap(discard_const(rc->file), rc->file_len);
    }
    rc->file = file;
    rc->file_len = mapsize;
    return true;
}

/*
 * Sound without a reader slot because of LMDB's page reuse rule: a write transaction W
 * reuses only pages freed by transactions up to W - 2 (with no reader, its oldest is
 * W - 1), and the pages of snapshot G are freed by G + 1 at the earliest, so the writer of
 * G + 1 leaves them as they are. A walk of G during which no commit happened read G's
 * pages only. No commit also means G's meta page was not being rewritten (by G + 2, after
 * G + 1's commit) while its root was read. The other meta page, being written by G + 1,
 * is picked only once its txnid, the last field written in ascending order, is whole: a
 * half-written one (new low bytes over old high ones) is either whole or below G.
 */
enum sysdb_mdb_found sysdb_rcache_probe(struct sysdb_ctx *sysdb, const void *key, size_t klen,
                                        uint64_t *_gen)
{
    struct sysdb_rcache *rc = sysdb->rcache;
    const uint8_t *meta;
    enum sysdb_mdb_found found;
    uint64_t g1, g2, b;
    uint64_t root, last_pg, mapsize;
    uint16_t depth;

    if (rc == NULL || rc->fd < 0 || sysdb->tx_depth > 0) {
        return SYSDB_MDB_UNKNOWN;
    }
    g1 = __atomic_load_n((const uint64_t *)(rc->map + MDB_TXNID_OFS), __ATOMIC_ACQUIRE);
    b = __atomic_load_n((const uint64_t *)(rc->map + rc->psize + MDB_TXNID_OFS),
                        __ATOMIC_ACQUIRE);
    meta = rc->map;
    if (b > g1) {
        g1 = b;
        meta = rc->map + rc->psize;
    }
    if (rc_u32(meta + MDB_MAGIC_OFS) != MDB_MAGIC
            || *(const uint16_t *)(meta + MDB_MAIN_FLAGS_OFS) != 0) {
        return SYSDB_MDB_UNKNOWN;    /* keys not compared as plain bytes */
    }
    root = *(const volatile uint64_t *)(meta + MDB_MAIN_ROOT_OFS);
    last_pg = *(const volatile uint64_t *)(meta + MDB_LAST_PG_OFS);
    depth = *(const volatile uint16_t *)(meta + MDB_MAIN_DEPTH_OFS);
    mapsize = *(const volatile uint64_t *)(meta + MDB_MAPSIZE_OFS);
    __atomic_thread_fence(__ATOMIC_ACQUIRE);
    /* The meta page was not rewritten (by G + 2) while we read it. */
    if (__atomic_load_n((const uint64_t *)(meta + MDB_TXNID_OFS), __ATOMIC_ACQUIRE) != g1
            || depth == 0 || depth > MDB_MAX_DEPTH || root > last_pg
            || !rc_file_covers(rc, last_pg, mapsize)) {
        return SYSDB_MDB_UNKNOWN;
    }
    found = sysdb_mdb_walk(rc->file, (last_pg + 1) * rc->psize, rc->psize, root, depth,
                           key, klen);
    __atomic_thread_fence(__ATOMIC_ACQUIRE);
    g2 = __atomic_load_n((const uint64_t *)(rc->map + MDB_TXNID_OFS), __ATOMIC_ACQUIRE);
    b = __atomic_load_n((const uint64_t *)(rc->map + rc->psize + MDB_TXNID_OFS),
                        __ATOMIC_ACQUIRE);
    if ((b > g2 ? b : g2) != g1) {
        return SYSDB_MDB_UNKNOWN;    /* a commit during the walk: ask ldb */
    }
    *_gen = g1 + 1;     /* the generation as rc_gen_now() numbers it */
    return found;
}

/* LMDB's key size limit (mdb_env_get_maxkeysize() with the default build). */
#define MDB_KEY_MAX 511
#define DN_INDEX_PREFIX "DN=@INDEX:@IDXDN:"

/* The key of ldb's DN index record for a casefolded DN (prefix + DN + NUL) or, dn_index
 * false, of the record keyed by the DN itself (a cache without GUID keys); 0 when the key
 * would be over LMDB's limit (ldb shortens such index keys its own way). */
static size_t rc_dn_key(char *buf, const char *folded, bool dn_index)
{
    const char *prefix = dn_index ? DN_INDEX_PREFIX : "DN=";
    size_t plen = strlen(prefix);
    size_t len = strlen(folded) + 1;

    if (plen + len > MDB_KEY_MAX) {
        return 0;
    }
    memcpy(buf, prefix, plen);
    memcpy(buf + plen, folded, len);
    return plen + len;
}

static enum sysdb_mdb_found rc_probe_folded(struct sysdb_ctx *sysdb, const char *folded,
                                            uint64_t *_gen)
{
    char buf[MDB_KEY_MAX];
    enum sysdb_mdb_found found;
    size_t klen;

    klen = rc_dn_key(buf, folded, true);
    if (klen == 0) {
        return SYSDB_MDB_UNKNOWN;
    }
    found = sysdb_rcache_probe(sysdb, buf, klen, _gen);
    if (found != SYSDB_MDB_ABSENT) {
        return found;
    }
    klen = rc_dn_key(buf, folded, false);
    return klen != 0 ? sysdb_rcache_probe(sysdb, buf, klen, _gen) : SYSDB_MDB_UNKNOWN;
}

/* Once per process: the version entry, which every opened cache has, must be found by
 * its DN index key; else ldb's key form is not the one assumed here and the probe stays
 * off (a missing entry would be answered "not there"). */
static bool rc_dn_index_checked(struct sysdb_ctx *sysdb)
{
    struct sysdb_rcache *rc = sysdb->rcache;
    struct ldb_dn *dn;
    const char *folded;
    enum sysdb_mdb_found found = SYSDB_MDB_UNKNOWN;
    uint64_t gen;

    if (rc->dn_index != 0) {
        return rc->dn_index > 0;
    }
    dn = ldb_dn_new(NULL, sysdb->ldb, SYSDB_BASE_DN);
    folded = dn != NULL ? ldb_dn_get_casefold(dn) : NULL;
    if (folded != NULL) {
        found = rc_probe_folded(sysdb, folded, &gen);
    }
    talloc_free(dn);
    if (found == SYSDB_MDB_PRESENT) {
        rc->dn_index = 1;
    } else if (found == SYSDB_MDB_ABSENT) {
        DEBUG(SSSDBG_MINOR_FAILURE, "Cache %s: no DN index record for %s, lookups of "
              "missing entries go to ldb\n", sysdb->path, SYSDB_BASE_DN);
        rc->dn_index = -1;
    }
    return rc->dn_index > 0;
}

enum sysdb_mdb_found sysdb_rcache_probe_dn(struct sysdb_ctx *sysdb, struct ldb_dn *dn,
                                           uint64_t *_gen)
{
    const char *folded;

    if (sysdb->rcache == NULL || sysdb->rcache->fd < 0 || !rc_dn_index_checked(sysdb)) {
        return SYSDB_MDB_UNKNOWN;
    }
    folded = ldb_dn_get_casefold(dn);
    if (folded == NULL) {
        return SYSDB_MDB_UNKNOWN;
    }
    return rc_probe_folded(sysdb, folded, _gen);
}
