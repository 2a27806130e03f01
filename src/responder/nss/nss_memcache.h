/*
 * The memory-cache writer (PROTOCOL.md "Memory cache", layout in sss_client/sss_mc.h): one
 * struct nss_mc per file (passwd, group, initgroups) that sssd_nss fills after each
 * successful lookup and that clients read without any IPC. Files are byte-compatible with
 * SSSD 2.x, so SSSD's own libnss_sss reads them.
 *
 * Sizing, as SSSD: slots = size_MB x (1048576 / 40) rounded up to a multiple of 8; one hash
 * bucket per slot (ht_size = slots x 4 bytes); free table one bit per slot (set = used,
 * most significant bit first).
 * Allocation: first fit over the free table. When no run of free slots is long enough, the
 * records in the way at a ring cursor are evicted (SSSD's policy: the cursor moves on after
 * each eviction, so the cache is recycled in allocation order, oldest region first).
 * A store first invalidates the records it replaces: passwd and group by name and by id
 * (by the keys it is linked under, see nss_mc_store_passwd_keys()); initgroups by name as
 * asked and by fully qualified name (one record per user).
 *
 * Ownership: a struct nss_mc is a talloc object; freeing it unmaps and closes the file
 * (which stays on disk for clients until reset). A NULL struct nss_mc * is a disabled cache:
 * every call on it is a no-op that returns EOK.
 */
#ifndef NSS_MEMCACHE_H
#define NSS_MEMCACHE_H

#include "util/util.h"
#include "sss_client/sss_mc.h"
#include "responder/nss/nss_protocol.h"

enum nss_mc_type {
    NSS_MC_PASSWD,
    NSS_MC_GROUP,
    NSS_MC_INITGROUPS,
};

struct nss_mc_conf {
    const char *dir;        /* SSSD_MC_PATH in the daemon; a temporary directory in tests */
    enum nss_mc_type type;  /* the file is <dir>/passwd, group or initgroups */
    uint32_t slots;         /* a multiple of 8; 0 disables this cache */
    uint32_t ttl;           /* seconds a record is valid (memcache_timeout); 0 disables */
    const char *pwfield;    /* passwd field of passwd and group records; NULL: "*" */
};

struct nss_mc;

/* Slot count for memcache_size_* (MiB), as SSSD computes it. ERANGE when the file would not
 * fit the header's 32-bit sizes. 0 MiB gives 0 slots (cache disabled). */
errno_t nss_mc_slots_for_mb(uint32_t size_mb, uint32_t *_slots);

/*
 * Marks any existing file recycled and removes it (clients drop it), then creates a fresh
 * one: O_CREAT|O_EXCL, mode 0644, posix_fallocate'd, header ALIVE with a random seed, and
 * keeps an fcntl write lock on its byte 0 for as long as the struct lives.
 * A disabled conf (slots or ttl 0) only removes the old file and sets *_mc to NULL.
 * Returns EOK, EINVAL (bad conf), ENOMEM, or the errno of the failing system call
 * (logged).
 */
errno_t nss_mc_open(TALLOC_CTX *mem_ctx, const struct nss_mc_conf *conf,
                    struct nss_mc **_mc);

/* Stores one record valid for ttl seconds from now. EINVAL on a wrong type for the file
 * or a NULL name; E2BIG when the record is larger than the whole data table. */
errno_t nss_mc_store_passwd(struct nss_mc *mc, const struct nss_pw_entry *pw);
errno_t nss_mc_store_group(struct nss_mc *mc, const struct nss_gr_entry *gr);
errno_t nss_mc_store_initgr(struct nss_mc *mc, const char *name, const char *unique_name,
                            const uint32_t *gids, size_t num_gids);

/* The same with a record lifetime of at most max_ttl seconds (below the file's ttl), so a
 * record never outlives the cache entry it was made from. max_ttl 0 stores a record that
 * is already expired; callers skip the store instead. */
errno_t nss_mc_store_passwd_ttl(struct nss_mc *mc, const struct nss_pw_entry *pw,
                                uint32_t max_ttl);
errno_t nss_mc_store_group_ttl(struct nss_mc *mc, const struct nss_gr_entry *gr,
                               uint32_t max_ttl);
errno_t nss_mc_store_initgr_ttl(struct nss_mc *mc, const char *name, const char *unique_name,
                                const uint32_t *gids, size_t num_gids, uint32_t max_ttl);

/*
 * The same, linking the record under only some of its keys. libnss_sss reads the memory
 * cache before it asks sssd_nss, so a key must only lead to a record where sssd_nss would
 * answer that same record: a user of a second domain found by uid must not answer a later
 * getpwnam() of a name an earlier domain also has (issue 11, item 4). A key left out is not
 * hashed (its hash field is MC_INVALID_VAL32, a value no bucket has: readers of either
 * suite walk the other chain as usual) and drops no other record. keys must not be 0.
 */
#define NSS_MC_KEY_NAME 0x1     /* key1: the name */
#define NSS_MC_KEY_ID   0x2     /* key2: the id in decimal */
#define NSS_MC_KEYS_ALL (NSS_MC_KEY_NAME | NSS_MC_KEY_ID)
errno_t nss_mc_store_passwd_keys(struct nss_mc *mc, const struct nss_pw_entry *pw,
                                 uint32_t max_ttl, unsigned int keys);
errno_t nss_mc_store_group_keys(struct nss_mc *mc, const struct nss_gr_entry *gr,
                                uint32_t max_ttl, unsigned int keys);

/* Invalidates the record whose first key (the name; for initgroups the name as asked) is
 * name. ENOENT when there is none. */
errno_t nss_mc_invalidate_name(struct nss_mc *mc, const char *name);

/* initgroups: every record of the user, by its unique name "short@domain" (the form
 * nss_mc_store_initgr() is given), whatever name it was asked by. ENOENT when there is
 * none, EINVAL on the other files. */
errno_t nss_mc_invalidate_initgr_unique(struct nss_mc *mc, const char *unique_name);

/* passwd: by uid; group: by gid (InvalidateGroupById). ENOENT when there is none, EINVAL on
 * the initgroups file. */
errno_t nss_mc_invalidate_id(struct nss_mc *mc, uint32_t id);

/* passwd, group: whether a record that has not expired is linked under id (its key2), so
 * that a client's lookup by that id is answered from the file. */
bool nss_mc_has_id(struct nss_mc *mc, uint32_t id);

/* Empties the file in place (InvalidateAllUsers, ...Groups, ...Initgroups). */
errno_t nss_mc_invalidate_all(struct nss_mc *mc);

/* Recycles the file: status RECYCLED, unlink, and a new file with a new seed (SIGHUP,
 * ClearMemcache). On failure the cache is left disabled (stores return EOK, store nothing)
 * and the error is returned. */
errno_t nss_mc_reset(struct nss_mc *mc);

/* The file's path; NULL for a disabled cache. */
const char *nss_mc_path(struct nss_mc *mc);

#endif /* NSS_MEMCACHE_H */
