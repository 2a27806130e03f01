/*
 * The memory-cache reader's machinery: mapping a cache file read-only, validating its header
 * and geometry, noticing a recycled file (status RECYCLED, or unlinked: st_nlink == 0) and
 * moving to the new one, copying records under the barrier protocol, and walking hash
 * chains with every slot number and length bounds-checked. Readers hold a reference on the
 * mapping while they copy, so a recycled mapping is unmapped by its last reader, never under
 * another thread's feet.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "sss_client/murmurhash3.h"
#include "sss_client/nss/nss_mc.h"

#ifndef SSSD_MC_PATH
#error "SSSD_MC_PATH must come from the build (configure's prefix)"
#endif

/* Tries of a barrier-protected copy before giving up (a writer is busy: a miss). */
#define MC_COPY_TRIES 5

struct nss_mc_map {
    /* References, atomic: one held by the file while this is its current mapping, one per
     * reader inside. Only ever raised under the file's lock while the file's own reference
     * is held (so never from 0); whoever drops the last one frees the mapping. */
    unsigned int refs;
    uint64_t next_stat_ms;      /* when the fstat() checks are next due (under the lock) */
    int fd;
    const uint8_t *base;
    size_t size;
    dev_t dev;
    ino_t ino;
    uint32_t seed;
    const uint8_t *dt;          /* data table */
    uint32_t dt_size;
    uint32_t nslots;
    const uint8_t *ht;          /* hash table */
    uint32_t nbuckets;
};

struct nss_mc_file nss_mc_passwd_file = NSS_MC_FILE_INITIALIZER("passwd");
struct nss_mc_file nss_mc_group_file = NSS_MC_FILE_INITIALIZER("group");
struct nss_mc_file nss_mc_initgr_file = NSS_MC_FILE_INITIALIZER("initgroups");

#ifdef SSS_CLIENT_TEST
static char test_mc_dir[PATH_MAX];

void nss_mc_set_dir(const char *dir)
{
    snprintf(test_mc_dir, sizeof(test_mc_dir), "%s", dir != NULL ? dir : "");
}

static const char *mc_dir(void)
{
    return test_mc_dir[0] != '\0' ? test_mc_dir : SSSD_MC_PATH;
}

void nss_mc_close_all(void)
{
    nss_mc_close_file(&nss_mc_passwd_file);
    nss_mc_close_file(&nss_mc_group_file);
    nss_mc_close_file(&nss_mc_initgr_file);
}
#else
static const char *mc_dir(void)
{
    return SSSD_MC_PATH;
}
#endif

static uint32_t load32(const uint8_t *p)
{
    return __atomic_load_n((const uint32_t *)(const void *)p, __ATOMIC_RELAXED);
}

static void full_barrier(void)
{
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
}

static bool memcache_disabled(void)
{
    const char *v = getenv("SSS_NSS_USE_MEMCACHE");

    return v != NULL && strcasecmp(v, "NO") == 0;
}

/* Copies the file header under its barriers. 0 or EAGAIN (a writer kept it busy). */
static int read_header(const uint8_t *base, struct sss_mc_header *h)
{
    int i;

    for (i = 0; i < MC_COPY_TRIES; i++) {
        uint32_t b1 = load32(base + offsetof(struct sss_mc_header, b1));

        if (!MC_VALID_BARRIER(b1)) {
            continue;
        }
        full_barrier();
        memcpy(h, base, sizeof(*h));
        full_barrier();
        if (h->b2 == b1 && h->b1 == b1) {
            return 0;
        }
    }
    return EAGAIN;
}

/* Checks the header against the mapping: version, ALIVE, and tables inside the file. */
static bool header_usable(const struct sss_mc_header *h, size_t size)
{
    if (h->major_vno != SSS_MC_MAJOR_VNO || h->minor_vno != SSS_MC_MINOR_VNO
            || h->status != SSS_MC_HEADER_ALIVE) {
        return false;
    }
    if (h->ht_size < sizeof(uint32_t) || h->ht_size % sizeof(uint32_t) != 0
            || h->hash_table % sizeof(uint32_t) != 0 || h->hash_table < MC_HEADER_SIZE
            || (uint64_t)h->hash_table + h->ht_size > size) {
        return false;
    }
    if (h->dt_size < MC_SLOT_SIZE || h->data_table % 8 != 0 || h->data_table < MC_HEADER_SIZE
            || (uint64_t)h->data_table + h->dt_size > size) {
        return false;
    }
    return true;
}

static void map_free(struct nss_mc_map *m)
{
    struct stat st;
    int old_cancel;

    /* close() is a cancellation point: finish the clean-up whatever happens */
    pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &old_cancel);
    if (m->base != NULL) {
        munmap((void *)m->base, m->size);
    }
    /* The application may have closed our descriptor and reused its number: close it only
     * while it still is the file we opened. */
    if (m->fd != -1 && fstat(m->fd, &st) == 0 && st.st_dev == m->dev && st.st_ino == m->ino) {
        close(m->fd);
    }
    free(m);
    pthread_setcancelstate(old_cancel, NULL);
}

/* A cheap clock (no syscall: the vDSO's coarse clock, a tick's resolution), in ms. */
static uint64_t coarse_ms(void)
{
    struct timespec ts;

    if (clock_gettime(CLOCK_MONOTONIC_COARSE, &ts) != 0) {
        return UINT64_MAX;      /* no clock: every check is due */
    }
    return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static struct nss_mc_map *map_open(const char *name)
{
    char path[PATH_MAX];
    struct sss_mc_header h;
    struct nss_mc_map *m;
    struct stat st;
    void *base;
    int n;

    n = snprintf(path, sizeof(path), "%s/%s", mc_dir(), name);
    if (n < 0 || (size_t)n >= sizeof(path)) {
        return NULL;
    }
    m = calloc(1, sizeof(*m));
    if (m == NULL) {
        return NULL;
    }
    m->fd = open(path, O_RDONLY | O_CLOEXEC);
    if (m->fd == -1) {
        goto fail;
    }
    if (fstat(m->fd, &st) != 0 || !S_ISREG(st.st_mode)
            || st.st_size < (off_t)MC_HEADER_SIZE || (uint64_t)st.st_size > UINT32_MAX) {
        goto fail;
    }
    base = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_SHARED, m->fd, 0);
    if (base == MAP_FAILED) {
        goto fail;
    }
    m->base = base;
    m->size = (size_t)st.st_size;
    m->dev = st.st_dev;
    m->ino = st.st_ino;

    if (read_header(m->base, &h) != 0 || !header_usable(&h, m->size)) {
        goto fail;
    }
    m->refs = 1;                /* the file's */
    m->next_stat_ms = coarse_ms() + NSS_MC_STAT_INTERVAL_MS;
    m->seed = h.seed;
    m->dt = m->base + h.data_table;
    m->dt_size = h.dt_size;
    m->nslots = h.dt_size / MC_SLOT_SIZE;
    m->ht = m->base + h.hash_table;
    m->nbuckets = h.ht_size / sizeof(uint32_t);
    return m;

fail:
    map_free(m);
    return NULL;
}

/*
 * Whether the current mapping still shows the live file with the geometry we checked.
 * The header (a memory read) is checked on every lookup: sssd_nss marks a file RECYCLED
 * before it unlinks it, also a crashed writer's old file when it starts again. The fstat()
 * checks (unlinked without that mark, descriptor closed by the application, size changed)
 * cost a syscall, about half of a hit: they run when stat_due, at most every
 * NSS_MC_STAT_INTERVAL_MS (see nss_mc.h). Called under the file's lock.
 */
static bool map_current(struct nss_mc_map *m, bool stat_due)
{
    struct sss_mc_header h;
    struct stat st;

    if (read_header(m->base, &h) != 0 || !header_usable(&h, m->size)) {
        return false;
    }
    if (h.seed != m->seed || m->base + h.data_table != m->dt || h.dt_size != m->dt_size
            || m->base + h.hash_table != m->ht || h.ht_size / sizeof(uint32_t) != m->nbuckets) {
        return false;
    }
    if (!stat_due) {
        return true;
    }
    if (fstat(m->fd, &st) != 0 || st.st_dev != m->dev || st.st_ino != m->ino) {
        m->fd = -1;     /* the application closed our descriptor: not ours to close */
        return false;
    }
    return st.st_nlink != 0 && (uint64_t)st.st_size == m->size;
}

static void unref(struct nss_mc_map *m)
{
    if (__atomic_sub_fetch(&m->refs, 1, __ATOMIC_ACQ_REL) == 0) {
        map_free(m);
    }
}

/* Drops the file's current mapping (the file's reference); its last reader frees it.
 * Called under the lock. */
static void detach_current(struct nss_mc_file *f)
{
    struct nss_mc_map *m = f->cur;

    f->cur = NULL;
    if (m != NULL) {
        unref(m);
    }
}

/*
 * The file's current mapping with a reference for the caller, or NULL. One lock/unlock
 * pair; the fast path makes no syscall and reaches no cancellation point, so cancellation
 * is only disabled around the slow path (open() and close() are cancellation points).
 */
static struct nss_mc_map *acquire(struct nss_mc_file *f)
{
    struct nss_mc_map *m;
    int old_cancel;

    pthread_mutex_lock(&f->lock);
    m = f->cur;
    if (m != NULL) {
        uint64_t now = coarse_ms();
        bool due = now >= m->next_stat_ms;

        if (map_current(m, due)) {
            if (due) {
                m->next_stat_ms = now + NSS_MC_STAT_INTERVAL_MS;
            }
            __atomic_add_fetch(&m->refs, 1, __ATOMIC_RELAXED);
            pthread_mutex_unlock(&f->lock);
            return m;
        }
    }
    pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &old_cancel);
    detach_current(f);
    f->cur = map_open(f->name);
    m = f->cur;
    if (m != NULL) {
        __atomic_add_fetch(&m->refs, 1, __ATOMIC_RELAXED);
    }
    pthread_setcancelstate(old_cancel, NULL);
    pthread_mutex_unlock(&f->lock);
    return m;
}

/* Lock-free: the reference is all that keeps the mapping, and the last one frees it. */
static void release(struct nss_mc_map *m)
{
    unref(m);
}

void nss_mc_close_file(struct nss_mc_file *f)
{
    int old_cancel;

    pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &old_cancel);
    pthread_mutex_lock(&f->lock);
    detach_current(f);
    pthread_mutex_unlock(&f->lock);
    pthread_setcancelstate(old_cancel, NULL);
}

/* Copies the record at slot. 0 and a malloc'ed copy; EINVAL corrupt; EAGAIN busy; ENOMEM. */
static int copy_record(const struct nss_mc_map *m, uint32_t slot, struct sss_mc_rec **_rec)
{
    const uint8_t *src;
    size_t room;
    int i;

    if (slot >= m->nslots) {
        return EINVAL;
    }
    src = m->dt + (size_t)slot * MC_SLOT_SIZE;
    room = m->dt_size - (size_t)slot * MC_SLOT_SIZE;

    for (i = 0; i < MC_COPY_TRIES; i++) {
        struct sss_mc_rec *rec;
        uint32_t b1, b2, len;

        b1 = load32(src + offsetof(struct sss_mc_rec, b1));
        full_barrier();
        len = load32(src + offsetof(struct sss_mc_rec, len));
        full_barrier();
        b2 = load32(src + offsetof(struct sss_mc_rec, b2));
        if (!MC_VALID_BARRIER(b1) || b1 != b2) {
            continue;       /* being written */
        }
        if (len < sizeof(struct sss_mc_rec) || len > room) {
            return EINVAL;
        }
        rec = malloc(len);
        if (rec == NULL) {
            return ENOMEM;
        }
        full_barrier();
        memcpy(rec, src, len);
        full_barrier();
        /* Both barriers sit in the record's first slot, copied before the data: the copy's
         * own barriers cannot show a write that began during the copy. The writer changes
         * the shared b2 first and b1 last, and never gives a slot a barrier value it had
         * before, so the copy is whole only if the shared barriers, read again now, are
         * still the ones seen before it. */
        if (load32(src + offsetof(struct sss_mc_rec, b1)) == b1
                && load32(src + offsetof(struct sss_mc_rec, b2)) == b1
                && rec->b1 == b1 && rec->b2 == b1 && rec->len == len) {
            *_rec = rec;
            return 0;
        }
        free(rec);
    }
    return EAGAIN;
}

static uint32_t next_slot(const struct sss_mc_rec *rec, uint32_t bucket)
{
    if (rec->hash1 == bucket) {
        return rec->next1;
    }
    if (rec->hash2 == bucket) {
        return rec->next2;
    }
    return MC_INVALID_VAL32;    /* not in this chain at all: the chain is broken */
}

int nss_mc_find(struct nss_mc_file *f, const char *key, size_t len, bool by_key2,
                nss_mc_match_fn match, const void *match_key, struct sss_mc_rec **_rec)
{
    struct nss_mc_map *m;
    uint32_t bucket;
    uint32_t slot;
    uint32_t steps;
    int ret = ENOENT;

    if (memcache_disabled()) {
        return ENOENT;
    }
    m = acquire(f);
    if (m == NULL) {
        return ENOENT;
    }

    bucket = murmurhash3(key, len, m->seed) % m->nbuckets;
    slot = load32(m->ht + (size_t)bucket * sizeof(uint32_t));
    /* A chain longer than the number of slots loops: the file is corrupt. */
    for (steps = 0; slot != MC_INVALID_VAL32 && steps < m->nslots; steps++) {
        struct sss_mc_rec *rec = NULL;
        uint32_t rec_hash;
        int r;

        r = copy_record(m, slot, &rec);
        if (r != 0) {
            ret = r == ENOMEM ? ENOMEM : ENOENT;
            break;
        }
        rec_hash = by_key2 ? rec->hash2 : rec->hash1;
        if (rec_hash == bucket) {
            r = match(rec, match_key);
            if (r > 0) {
                if (rec->expire < (uint64_t)time(NULL)) {
                    free(rec);      /* expired: the socket refreshes it */
                    break;
                }
                *_rec = rec;
                ret = 0;
                break;
            }
            if (r < 0) {
                free(rec);
                break;
            }
        }
        slot = next_slot(rec, bucket);
        free(rec);
    }

    release(m);
    return ret;
}

int nss_mc_check_str(const char *base, size_t lo, size_t hi, size_t off)
{
    if (off < lo || off >= hi) {
        return -1;
    }
    return memchr(base + off, '\0', hi - off) != NULL ? 0 : -1;
}

/* In a fork child: a file's lock may have been held by a thread that is gone. Its mapping
 * pointer is always whole (one store); a reference the gone thread held just keeps that
 * mapping alive in the child. */
void nss_mc_after_fork(void)
{
    pthread_mutex_init(&nss_mc_passwd_file.lock, NULL);
    pthread_mutex_init(&nss_mc_group_file.lock, NULL);
    pthread_mutex_init(&nss_mc_initgr_file.lock, NULL);
}

/* Unmap everything when the library is unloaded; mappings still in use stay. */
__attribute__((destructor)) static void nss_mc_fini(void)
{
    nss_mc_close_file(&nss_mc_passwd_file);
    nss_mc_close_file(&nss_mc_group_file);
    nss_mc_close_file(&nss_mc_initgr_file);
}
