/*
 * The memory-cache writer (see nss_memcache.h): file life cycle, slot allocation, hash
 * chains and the barrier protocol. Readers copy a record and accept it only when b1 is a
 * valid barrier equal to b2, so every change of a record goes: b2 = next barrier, full
 * barrier, write, full barrier, b1 = b2. Chains are changed one aligned uint32 at a time
 * (atomic for a reader), and a record is linked only once it is complete and unlinked
 * before it is wiped.
 */
#include <fcntl.h>
#include <stddef.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "responder/nss/nss_memcache.h"
#include "sss_client/murmurhash3.h"

#define NSS_MC_FILE_MODE 0664

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
    uint32_t evict_next;        /* ring cursor for eviction */
};

static const char *const nss_mc_names[] = {
    [NSS_MC_PASSWD] = "passwd",
    [NSS_MC_GROUP] = "group",
    [NSS_MC_INITGROUPS] = "initgroups",
};

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

static uint32_t nss_mc_bucket(struct nss_mc *mc, const char *key)
{
    return murmurhash3(key, strlen(key) + 1, mc->seed) % mc->buckets;
}

errno_t nss_mc_slots_for_mb(uint32_t size_mb, uint32_t *_slots)
{
    uint64_t slots;
    uint64_t total;

    if (_slots == NULL) {
        return EINVAL;
    }
    slots = MC_ALIGN64((uint64_t)size_mb * (1048576 / MC_SLOT_SIZE));
    total = MC_HEADER_SIZE + MC_ALIGN64(slots * MC_SLOT_SIZE) + MC_ALIGN64(slots / 8)
            + MC_ALIGN64(slots * sizeof(uint32_t));
    if (total > UINT32_MAX) {
        return ERANGE;
    }
    *_slots = (uint32_t)slots;
    return EOK;
}

/* ---- the header ---- */

static void nss_mc_header_update(struct nss_mc *mc, uint32_t status)
{
    struct sss_mc_header *h = (struct sss_mc_header *)mc->base;

    h->b2 = MC_NEXT_BARRIER(h->b1);
    __sync_synchronize();
    if (status == SSS_MC_HEADER_ALIVE) {
        h->major_vno = SSS_MC_MAJOR_VNO;
        h->minor_vno = SSS_MC_MINOR_VNO;
        h->seed = mc->seed;
        h->dt_size = mc->slots * MC_SLOT_SIZE;
        h->ft_size = mc->slots / 8;
        h->ht_size = mc->buckets * sizeof(uint32_t);
        h->data_table = (uint32_t)(mc->dt - mc->base);
        h->free_table = (uint32_t)(mc->ft - mc->base);
        h->hash_table = (uint32_t)((uint8_t *)mc->ht - mc->base);
        h->reserved = 0;
    }
    h->status = status;
    __sync_synchronize();
    h->b1 = h->b2;
}

/* Tells clients of an existing file to drop it (status RECYCLED under the header barriers,
 * through write() so no mapping is needed), then removes it. */
static void nss_mc_destroy_file(const char *path)
{
    uint32_t b1 = 0;
    uint32_t b2;
    uint32_t status = SSS_MC_HEADER_RECYCLED;
    int fd;

    fd = open(path, O_RDWR | O_CLOEXEC | O_NOFOLLOW);
    if (fd != -1) {
        if (pread(fd, &b1, sizeof(b1), offsetof(struct sss_mc_header, b1)) != sizeof(b1)) {
            b1 = 0;
        }
        b2 = MC_NEXT_BARRIER(b1);
        if (pwrite(fd, &b2, sizeof(b2), offsetof(struct sss_mc_header, b2)) != sizeof(b2)
                || pwrite(fd, &status, sizeof(status),
                          offsetof(struct sss_mc_header, status)) != sizeof(status)
                || pwrite(fd, &b2, sizeof(b2), offsetof(struct sss_mc_header, b1))
                   != sizeof(b2)) {
            DEBUG(SSSDBG_OP_FAILURE, "Cannot mark %s recycled: %s\n", path, strerror(errno));
        }
        close(fd);
    } else if (errno != ENOENT) {
        DEBUG(SSSDBG_OP_FAILURE, "Cannot open old memory cache %s: %s\n", path,
              strerror(errno));
    }
    if (unlink(path) != 0 && errno != ENOENT) {
        DEBUG(SSSDBG_OP_FAILURE, "Cannot remove old memory cache %s: %s\n", path,
              strerror(errno));
    }
}

/* Unmaps and closes the current file (it stays on disk). */
static void nss_mc_unmap(struct nss_mc *mc)
{
    if (mc->base != NULL) {
        munmap(mc->base, mc->size);
        mc->base = NULL;
    }
    if (mc->fd != -1) {
        close(mc->fd);      /* also drops the fcntl lock */
        mc->fd = -1;
    }
    talloc_zfree(mc->heads);
}

static int nss_mc_destructor(struct nss_mc *mc)
{
    nss_mc_unmap(mc);
    return 0;
}

/* Creates, locks, sizes, maps and initialises a new file at mc->path. */
static errno_t nss_mc_create_file(struct nss_mc *mc)
{
    struct flock lock;
    size_t dt_size = (size_t)mc->slots * MC_SLOT_SIZE;
    size_t ft_size = mc->slots / 8;
    size_t ht_size = (size_t)mc->buckets * sizeof(uint32_t);
    const char *step;
    void *base;
    errno_t ret;
    int i;

    nss_mc_destroy_file(mc->path);

    mc->size = MC_HEADER_SIZE + MC_ALIGN64(dt_size) + MC_ALIGN64(ft_size)
               + MC_ALIGN64(ht_size);
    step = "open";
    mc->fd = open(mc->path, O_CREAT | O_EXCL | O_RDWR | O_CLOEXEC | O_NOFOLLOW,
                  NSS_MC_FILE_MODE);
    if (mc->fd == -1) {
        ret = errno;
        goto done;
    }
    step = "fchmod";
    if (fchmod(mc->fd, NSS_MC_FILE_MODE) != 0) {
        ret = errno;
        goto done;
    }
    step = "lock";
    memset(&lock, 0, sizeof(lock));
    lock.l_type = F_WRLCK;
    lock.l_whence = SEEK_SET;
    lock.l_start = 0;
    lock.l_len = 1;
    if (fcntl(mc->fd, F_SETLK, &lock) != 0) {
        ret = errno;
        goto done;
    }
    step = "posix_fallocate";
    for (i = 0; i < 3; i++) {
        ret = posix_fallocate(mc->fd, 0, (off_t)mc->size);
        if (ret != EINTR) {
            break;
        }
    }
    if (ret != 0) {
        goto done;
    }
    step = "mmap";
    base = mmap(NULL, mc->size, PROT_READ | PROT_WRITE, MAP_SHARED, mc->fd, 0);
    if (base == MAP_FAILED) {
        ret = errno;
        goto done;
    }
    mc->base = base;
    step = "getrandom";
    if (getrandom(&mc->seed, sizeof(mc->seed), 0) != sizeof(mc->seed)) {
        ret = errno != 0 ? errno : EIO;
        goto done;
    }
    step = "allocate";
    mc->heads = talloc_zero_size(mc, ft_size);
    if (mc->heads == NULL) {
        ret = ENOMEM;
        goto done;
    }
    mc->dt = mc->base + MC_HEADER_SIZE;
    mc->ft = mc->dt + MC_ALIGN64(dt_size);
    mc->ht = (uint32_t *)(mc->ft + MC_ALIGN64(ft_size));
    mc->evict_next = 0;

    /* Tables first, header last: until then b1 is 0, which no reader accepts. The data
     * table is left as posix_fallocate made it (zeros, no pages in memory): readers only
     * reach a slot through the hash table, and a slot is written whole before it is linked.
     * Filling it with 0xff, as SSSD does, put all 24 MB of the default files into sssd_nss's
     * resident memory at start-up. */
    memset(mc->ft, 0x00, ft_size);
    memset(mc->ht, 0xff, ht_size);
    nss_mc_header_update(mc, SSS_MC_HEADER_ALIVE);
    ret = EOK;
done:
    if (ret != EOK) {
        DEBUG(SSSDBG_CRIT_FAILURE, "Memory cache %s: %s failed [%d]: %s\n", mc->path, step,
              ret, sss_strerror(ret));
        if (mc->fd != -1) {
            unlink(mc->path);
        }
        nss_mc_unmap(mc);
    }
    return ret;
}

errno_t nss_mc_open(TALLOC_CTX *mem_ctx, const struct nss_mc_conf *conf,
                    struct nss_mc **_mc)
{
    TALLOC_CTX *tmp_ctx;
    struct nss_mc *mc;
    uint64_t total;
    errno_t ret;

    if (conf == NULL || conf->dir == NULL || _mc == NULL || conf->type > NSS_MC_INITGROUPS
            || conf->slots % 8 != 0) {
        return EINVAL;
    }
    total = MC_HEADER_SIZE + (uint64_t)conf->slots * (MC_SLOT_SIZE + sizeof(uint32_t))
            + conf->slots / 8;
    if (total > UINT32_MAX) {
        return EINVAL;
    }
    tmp_ctx = talloc_new(NULL);
    if (tmp_ctx == NULL) {
        return ENOMEM;
    }
    mc = talloc_zero(tmp_ctx, struct nss_mc);
    if (mc == NULL) {
        ret = ENOMEM;
        goto done;
    }
    mc->fd = -1;
    talloc_set_destructor(mc, nss_mc_destructor);
    mc->type = conf->type;
    mc->slots = conf->slots;
    mc->buckets = conf->slots;
    mc->ttl = conf->ttl;
    mc->dir = talloc_strdup(mc, conf->dir);
    mc->path = talloc_asprintf(mc, "%s/%s", conf->dir, nss_mc_names[conf->type]);
    mc->pwfield = talloc_strdup(mc, conf->pwfield != NULL ? conf->pwfield : "*");
    if (mc->dir == NULL || mc->path == NULL || mc->pwfield == NULL) {
        ret = ENOMEM;
        goto done;
    }
    if (conf->slots == 0 || conf->ttl == 0) {
        nss_mc_destroy_file(mc->path);
        DEBUG(SSSDBG_CONF_SETTINGS, "Memory cache %s is disabled\n", mc->path);
        *_mc = NULL;
        ret = EOK;
        goto done;
    }
    ret = nss_mc_create_file(mc);
    if (ret != EOK) {
        goto done;
    }
    DEBUG(SSSDBG_CONF_SETTINGS, "Memory cache %s: %u slots, %zu bytes, ttl %u s\n",
          mc->path, mc->slots, mc->size, mc->ttl);
    *_mc = talloc_steal(mem_ctx, mc);
    ret = EOK;
done:
    talloc_free(tmp_ctx);
    return ret;
}

errno_t nss_mc_reset(struct nss_mc *mc)
{
    errno_t ret;

    if (mc == NULL) {
        return EOK;
    }
    nss_mc_unmap(mc);
    ret = nss_mc_create_file(mc);
    if (ret == EOK) {
        DEBUG(SSSDBG_TRACE_FUNC, "Memory cache %s recycled\n", mc->path);
    }
    return ret;
}

const char *nss_mc_path(struct nss_mc *mc)
{
    return mc != NULL ? mc->path : NULL;
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
        if (cur == slot) {
            return;
        }
        next = rec_next(rec_at(mc, cur), bucket);
        if (next == MC_INVALID_VAL32) {
            rec_set_next(rec_at(mc, cur), bucket, slot);
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
        next = rec_next(rec_at(mc, prev), bucket);
        if (next == MC_INVALID_VAL32) {
            return;
        }
        if (next == slot) {
            rec_set_next(rec_at(mc, prev), bucket, rec_next(rec_at(mc, slot), bucket));
            return;
        }
        prev = next;
    }
}

/* ---- records ---- */

static void nss_mc_invalidate_slot(struct nss_mc *mc, uint32_t slot)
{
    struct sss_mc_rec *rec = rec_at(mc, slot);
    uint32_t n;
    uint32_t i;

    if (!bit_get(mc->heads, slot)) {
        return;
    }
    n = SLOTS_OF(rec->len);
    nss_mc_chain_remove(mc, slot, rec->hash1);
    if (rec->hash2 != rec->hash1) {
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
    }
    bit_set(mc->heads, slot, false);
}

/* Does the record at slot have key as the key of kind which (1 or 2)? */
static bool nss_mc_rec_matches(struct nss_mc *mc, uint32_t slot, int which,
                               const char *key, uint32_t id)
{
    struct sss_mc_rec *rec = rec_at(mc, slot);
    const uint32_t *fields = (const uint32_t *)rec->data;
    size_t data_len;
    uint32_t off;

    if (!bit_get(mc->heads, slot) || rec->len < sizeof(*rec) + 6 * sizeof(uint32_t)) {
        return false;
    }
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

/* Invalidates every record in key's chain whose key of kind which matches. */
static bool nss_mc_drop(struct nss_mc *mc, int which, const char *key, uint32_t id)
{
    uint32_t bucket = nss_mc_bucket(mc, key);
    uint32_t slot = mc->ht[bucket];
    uint32_t next;
    uint32_t guard;
    bool found = false;

    for (guard = 0; slot != MC_INVALID_VAL32 && guard < mc->slots; guard++) {
        next = rec_next(rec_at(mc, slot), bucket);
        if (nss_mc_rec_matches(mc, slot, which, key, id)) {
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
        if ((s % 8) == 0 && mc->ft[s / 8] == 0xff) {
            run = 0;
            s += 8;
            continue;
        }
        if (bit_get(mc->ft, s)) {
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
        if (!bit_get(mc->ft, s)) {
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

/* A record's data is written, and compared, as the concatenation of a few parts, so that
 * a big group's packed member names go to the file without a temporary copy. */
struct nss_mc_part {
    const void *p;
    size_t len;
};

static size_t parts_len(const struct nss_mc_part *parts, size_t n)
{
    size_t len = 0;
    size_t i;

    for (i = 0; i < n; i++) {
        len += parts[i].len;
    }
    return len;
}

/* The record named key1 whose data is exactly the parts, or MC_INVALID_VAL32. */
static uint32_t nss_mc_find_same(struct nss_mc *mc, const char *key1,
                                 const struct nss_mc_part *parts, size_t n, size_t data_len)
{
    uint32_t bucket = nss_mc_bucket(mc, key1);
    uint32_t slot = mc->ht[bucket];
    struct sss_mc_rec *rec;
    uint32_t guard;
    size_t pos;
    size_t i;

    for (guard = 0; slot != MC_INVALID_VAL32 && guard < mc->slots; guard++) {
        rec = rec_at(mc, slot);
        if (rec->len == sizeof(*rec) + data_len && rec->hash1 == bucket
                && nss_mc_rec_matches(mc, slot, 1, key1, 0)) {
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
 * Stores a record of the parts under its two keys. The keys are derived from the data, and
 * every store drops the other records holding either key, so a record with the same name
 * and the same bytes is the only one for both keys: then only its expiry moves (a warm
 * lookup of a group of 50,000 members would otherwise wipe and rewrite 500 KB). Otherwise
 * the records of either key are dropped and a new one is written and linked.
 */
static errno_t nss_mc_put(struct nss_mc *mc, uint32_t max_ttl,
                          const char *key1, int key2_kind, const char *key2, uint32_t id,
                          const struct nss_mc_part *parts, size_t nparts)
{
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
    slot = nss_mc_find_same(mc, key1, parts, nparts, data_len);
    if (slot != MC_INVALID_VAL32) {
        rec = rec_at(mc, slot);
        rec->b2 = MC_NEXT_BARRIER(rec->b1);
        __sync_synchronize();
        rec->expire = nss_mc_expiry(mc, max_ttl);
        __sync_synchronize();
        rec->b1 = rec->b2;
        return EOK;
    }
    nss_mc_drop(mc, 1, key1, 0);
    nss_mc_drop(mc, key2_kind, key2, id);

    n = SLOTS_OF(rec_len);
    slot = nss_mc_first_fit(mc, n);
    if (slot == MC_INVALID_VAL32) {
        slot = nss_mc_evict(mc, n);
    }
    for (i = 0; i < n; i++) {
        bit_set(mc->ft, slot + i, true);
    }
    bit_set(mc->heads, slot, true);

    rec = rec_at(mc, slot);
    span = (size_t)n * MC_SLOT_SIZE;
    rec->b2 = MC_NEXT_BARRIER(rec->b1);
    __sync_synchronize();
    rec->len = (uint32_t)rec_len;
    rec->expire = nss_mc_expiry(mc, max_ttl);
    rec->next1 = MC_INVALID_VAL32;
    rec->next2 = MC_INVALID_VAL32;
    rec->hash1 = nss_mc_bucket(mc, key1);
    rec->hash2 = nss_mc_bucket(mc, key2);
    rec->padding = MC_INVALID_VAL32;
    for (i = 0, pos = 0; i < nparts; pos += parts[i].len, i++) {
        if (parts[i].len != 0) {
            memcpy(rec->data + pos, parts[i].p, parts[i].len);
        }
    }
    memset(rec->data + data_len, 0xff, span - rec_len);
    __sync_synchronize();
    rec->b1 = rec->b2;

    nss_mc_chain_add(mc, slot, rec->hash1);
    nss_mc_chain_add(mc, slot, rec->hash2);
    return EOK;
}

/* Copies n strings (NULL as "") one after the other, each with its NUL. */
static size_t put_strs(uint8_t *dst, const char *const *strs, size_t n)
{
    size_t pos = 0;
    size_t len;
    size_t i;

    for (i = 0; i < n; i++) {
        const char *s = strs[i] != NULL ? strs[i] : "";

        len = strlen(s) + 1;
        if (dst != NULL) {
            memcpy(dst + pos, s, len);
        }
        pos += len;
    }
    return pos;
}

static bool nss_mc_usable(struct nss_mc *mc, enum nss_mc_type type)
{
    return mc->base != NULL && mc->type == type;
}

errno_t nss_mc_store_passwd_ttl(struct nss_mc *mc, const struct nss_pw_entry *pw,
                                uint32_t max_ttl)
{
    TALLOC_CTX *tmp_ctx;
    struct sss_mc_pwd_data *d;
    struct nss_mc_part part;
    const char *strs[5];
    char idkey[16];
    size_t strs_len;
    errno_t ret;

    if (mc == NULL || (mc->base == NULL && mc->type == NSS_MC_PASSWD)) {
        return EOK;
    }
    if (!nss_mc_usable(mc, NSS_MC_PASSWD) || pw == NULL || pw->name == NULL) {
        return EINVAL;
    }
    tmp_ctx = talloc_new(NULL);
    if (tmp_ctx == NULL) {
        return ENOMEM;
    }
    strs[0] = pw->name;
    strs[1] = mc->pwfield;
    strs[2] = pw->gecos;
    strs[3] = pw->dir;
    strs[4] = pw->shell;
    strs_len = put_strs(NULL, strs, 5);
    if (strs_len > UINT32_MAX - sizeof(*d) - sizeof(struct sss_mc_rec)) {
        ret = E2BIG;
        goto done;
    }
    d = talloc_size(tmp_ctx, sizeof(*d) + strs_len);
    if (d == NULL) {
        ret = ENOMEM;
        goto done;
    }
    d->name = offsetof(struct sss_mc_pwd_data, strs);
    d->uid = pw->uid;
    d->gid = pw->gid;
    d->strs_len = (uint32_t)strs_len;
    put_strs((uint8_t *)d->strs, strs, 5);
    snprintf(idkey, sizeof(idkey), "%ld", (long)pw->uid);

    part.p = d;
    part.len = sizeof(*d) + strs_len;
    ret = nss_mc_put(mc, max_ttl, pw->name, 2, idkey, pw->uid, &part, 1);
done:
    talloc_free(tmp_ctx);
    return ret;
}

errno_t nss_mc_store_group_ttl(struct nss_mc *mc, const struct nss_gr_entry *gr,
                               uint32_t max_ttl)
{
    TALLOC_CTX *tmp_ctx;
    struct sss_mc_grp_data *d;
    struct nss_mc_part parts[2];
    const char *strs[2];
    char idkey[16];
    size_t head_len;
    size_t tail_len = 0;
    size_t i;
    errno_t ret;

    if (mc == NULL || (mc->base == NULL && mc->type == NSS_MC_GROUP)) {
        return EOK;
    }
    if (!nss_mc_usable(mc, NSS_MC_GROUP) || gr == NULL || gr->name == NULL
            || gr->num_members > UINT32_MAX
            || (gr->num_members != 0 && gr->members == NULL)) {
        return EINVAL;
    }
    /* The header, name and passwd field are built here; the member names follow them,
     * either as the formatter's packed block (used in place) or copied one by one. */
    strs[0] = gr->name;
    strs[1] = mc->pwfield;
    head_len = put_strs(NULL, strs, 2);
    if (gr->packed != NULL) {
        tail_len = gr->packed_len;
    }
    for (i = 0; gr->packed == NULL && i < gr->num_members; i++) {
        tail_len += strlen(gr->members[i] != NULL ? gr->members[i] : "") + 1;
        if (tail_len > UINT32_MAX - head_len - sizeof(*d) - sizeof(struct sss_mc_rec)) {
            break;
        }
    }
    if (tail_len > UINT32_MAX - head_len - sizeof(*d) - sizeof(struct sss_mc_rec)) {
        return E2BIG;
    }
    tmp_ctx = talloc_new(NULL);
    if (tmp_ctx == NULL) {
        return ENOMEM;
    }
    d = talloc_size(tmp_ctx, sizeof(*d) + head_len + (gr->packed != NULL ? 0 : tail_len));
    if (d == NULL) {
        ret = ENOMEM;
        goto done;
    }
    d->name = offsetof(struct sss_mc_grp_data, strs);
    d->gid = gr->gid;
    d->members = (uint32_t)gr->num_members;
    d->strs_len = (uint32_t)(head_len + tail_len);
    put_strs((uint8_t *)d->strs, strs, 2);
    parts[0].p = d;
    parts[0].len = sizeof(*d) + head_len;
    parts[1].p = gr->packed;
    parts[1].len = gr->packed != NULL ? tail_len : 0;
    if (gr->packed == NULL) {
        put_strs((uint8_t *)d->strs + head_len, gr->members, gr->num_members);
        parts[0].len += tail_len;
    }
    snprintf(idkey, sizeof(idkey), "%ld", (long)gr->gid);
    ret = nss_mc_put(mc, max_ttl, gr->name, 2, idkey, gr->gid, parts, 2);
done:
    talloc_free(tmp_ctx);
    return ret;
}

errno_t nss_mc_store_initgr_ttl(struct nss_mc *mc, const char *name, const char *unique_name,
                                const uint32_t *gids, size_t num_gids, uint32_t max_ttl)
{
    TALLOC_CTX *tmp_ctx;
    struct sss_mc_initgr_data *d;
    struct nss_mc_part part;
    size_t gids_len;
    size_t name_len;
    size_t uniq_len;
    size_t data_len;
    uint8_t *p;
    errno_t ret;

    if (mc == NULL || (mc->base == NULL && mc->type == NSS_MC_INITGROUPS)) {
        return EOK;
    }
    if (!nss_mc_usable(mc, NSS_MC_INITGROUPS) || name == NULL || unique_name == NULL
            || (num_gids != 0 && gids == NULL) || num_gids > UINT32_MAX / sizeof(uint32_t)) {
        return EINVAL;
    }
    gids_len = num_gids * sizeof(uint32_t);
    name_len = strlen(name) + 1;
    uniq_len = strlen(unique_name) + 1;
    if (name_len + uniq_len > UINT32_MAX - gids_len - sizeof(*d)
                                - sizeof(struct sss_mc_rec)) {
        return E2BIG;
    }
    data_len = gids_len + uniq_len + name_len;
    tmp_ctx = talloc_new(NULL);
    if (tmp_ctx == NULL) {
        return ENOMEM;
    }
    d = talloc_size(tmp_ctx, sizeof(*d) + data_len);
    if (d == NULL) {
        ret = ENOMEM;
        goto done;
    }
    /* gids, then the unique name, then the name as asked; offsets from the struct start */
    d->strs = (uint32_t)(offsetof(struct sss_mc_initgr_data, gids) + gids_len);
    d->unique_name = d->strs;
    d->name = (uint32_t)(d->strs + uniq_len);
    d->strs_len = (uint32_t)(uniq_len + name_len);
    d->data_len = (uint32_t)data_len;
    d->num_groups = (uint32_t)num_gids;
    p = (uint8_t *)d->gids;
    if (gids_len != 0) {
        memcpy(p, gids, gids_len);
    }
    memcpy(p + gids_len, unique_name, uniq_len);
    memcpy(p + gids_len + uniq_len, name, name_len);

    part.p = d;
    part.len = sizeof(*d) + data_len;
    ret = nss_mc_put(mc, max_ttl, name, 2, unique_name, 0, &part, 1);
done:
    talloc_free(tmp_ctx);
    return ret;
}

/* ---- invalidation ---- */

errno_t nss_mc_invalidate_name(struct nss_mc *mc, const char *name)
{
    if (mc == NULL || mc->base == NULL) {
        return EOK;
    }
    if (name == NULL) {
        return EINVAL;
    }
    return nss_mc_drop(mc, 1, name, 0) ? EOK : ENOENT;
}

errno_t nss_mc_invalidate_id(struct nss_mc *mc, uint32_t id)
{
    char idkey[16];

    if (mc == NULL || mc->base == NULL) {
        return EOK;
    }
    if (mc->type == NSS_MC_INITGROUPS) {
        return EINVAL;
    }
    snprintf(idkey, sizeof(idkey), "%ld", (long)id);
    return nss_mc_drop(mc, 2, idkey, id) ? EOK : ENOENT;
}

errno_t nss_mc_invalidate_all(struct nss_mc *mc)
{
    uint32_t s;

    if (mc == NULL || mc->base == NULL) {
        return EOK;
    }
    /* Like a fresh file: readers that look now find empty buckets; records are wiped with
     * b1 first, so a copy in flight fails its barrier check. */
    nss_mc_header_update(mc, SSS_MC_HEADER_UNINIT);
    memset(mc->ht, 0xff, (size_t)mc->buckets * sizeof(uint32_t));
    __sync_synchronize();
    /* Only the slots in use (never-used ones stay untouched pages), in address order so
     * each record loses b1 first. */
    for (s = 0; s < mc->slots; s++) {
        if ((s % 8) == 0 && mc->ft[s / 8] == 0) {
            s += 7;
            continue;
        }
        if (bit_get(mc->ft, s)) {
            memset(mc->dt + (size_t)s * MC_SLOT_SIZE, 0xff, MC_SLOT_SIZE);
        }
    }
    memset(mc->ft, 0x00, mc->slots / 8);
    memset(mc->heads, 0x00, mc->slots / 8);
    mc->evict_next = 0;
    nss_mc_header_update(mc, SSS_MC_HEADER_ALIVE);
    DEBUG(SSSDBG_TRACE_FUNC, "Memory cache %s emptied\n", mc->path);
    return EOK;
}

errno_t nss_mc_store_passwd(struct nss_mc *mc, const struct nss_pw_entry *pw)
{
    return nss_mc_store_passwd_ttl(mc, pw, UINT32_MAX);
}

errno_t nss_mc_store_group(struct nss_mc *mc, const struct nss_gr_entry *gr)
{
    return nss_mc_store_group_ttl(mc, gr, UINT32_MAX);
}

errno_t nss_mc_store_initgr(struct nss_mc *mc, const char *name, const char *unique_name,
                            const uint32_t *gids, size_t num_gids)
{
    return nss_mc_store_initgr_ttl(mc, name, unique_name, gids, num_gids, UINT32_MAX);
}
