/*
 * The memory-cache writer (see nss_memcache.h), its file: creating, locking, sizing and
 * mapping it, the header and its barriers, recycling it, emptying it, and invalidation by
 * key. Records are stored by nss_mc_table.c and built by nss_mc_records.c.
 *
 * Readers copy the header (or a record) and accept it only when b1 is a valid barrier
 * equal to b2, so every change goes: b2 = next barrier, full barrier, write, full barrier,
 * b1 = b2.
 */
#include <fcntl.h>
#include <stddef.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "responder/nss/nss_mc_private.h"

/* Read by everybody, written by sssd_nss (root) alone. PROTOCOL.md's table says 0664, SSSD
 * 2.8 makes them 0664 too: root-owned and group-writable would let any member of the group
 * root rewrite what every process trusts for identities (setuid programs included), and no
 * client ever writes them. */
#define NSS_MC_FILE_MODE 0644

static const char *const nss_mc_names[] = {
    [NSS_MC_PASSWD] = "passwd",
    [NSS_MC_GROUP] = "group",
    [NSS_MC_INITGROUPS] = "initgroups",
};

errno_t nss_mc_slots_for_mb(uint32_t size_mb, uint32_t *_slots)
{
    uint64_t slots;
    uint64_t total;

    SSS_CHECK_ARG(_slots != NULL, EINVAL);
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
    talloc_zfree(mc->used);
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
    if (ret != EOK) {
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
    mc->used = talloc_zero_size(mc, ft_size);
    mc->damaged = false;
    if (mc->heads == NULL || mc->used == NULL) {
        ret = ENOMEM;
        goto done;
    }
    mc->dt = mc->base + MC_HEADER_SIZE;
    mc->ft = mc->dt + MC_ALIGN64(dt_size);
    mc->ht = (uint32_t *)(mc->ft + MC_ALIGN64(ft_size));
    mc->evict_next = 0;
    /* Any start will do; a random one makes values differ between files too. */
    mc->barrier = MC_NEXT_BARRIER(mc->seed);

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

    SSS_CHECK_ARG(conf != NULL && conf->dir != NULL && _mc != NULL, EINVAL);
    SSS_CHECK_ARG(conf->type <= NSS_MC_INITGROUPS && conf->slots % 8 == 0, EINVAL);
    total = MC_HEADER_SIZE + (uint64_t)conf->slots * (MC_SLOT_SIZE + sizeof(uint32_t))
            + conf->slots / 8;
    if (total > UINT32_MAX) {
        DEBUG(SSSDBG_CRIT_FAILURE, "%u slots do not fit a memory cache file\n", conf->slots);
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

/* ---- invalidation ---- */

errno_t nss_mc_invalidate_name(struct nss_mc *mc, const char *name)
{
    if (mc == NULL || mc->base == NULL) {
        return EOK;
    }
    SSS_CHECK_ARG(name != NULL, EINVAL);
    return nss_mc_drop(mc, 1, name, 0) ? EOK : ENOENT;
}

errno_t nss_mc_invalidate_initgr_unique(struct nss_mc *mc, const char *unique_name)
{
    if (mc == NULL || mc->base == NULL) {
        return EOK;
    }
    SSS_CHECK_ARG(unique_name != NULL && mc->type == NSS_MC_INITGROUPS, EINVAL);
    return nss_mc_drop(mc, 2, unique_name, 0) ? EOK : ENOENT;
}

errno_t nss_mc_invalidate_id(struct nss_mc *mc, uint32_t id)
{
    char idkey[16];

    if (mc == NULL || mc->base == NULL) {
        return EOK;
    }
    SSS_CHECK_ARG(mc->type != NSS_MC_INITGROUPS, EINVAL);
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
    memset(mc->used, 0x00, mc->slots / 8);
    mc->evict_next = 0;
    nss_mc_header_update(mc, SSS_MC_HEADER_ALIVE);
    DEBUG(SSSDBG_TRACE_FUNC, "Memory cache %s emptied\n", mc->path);
    return EOK;
}
