/*
 * libnss_sss's reader of the memory cache files written by sssd_nss (PROTOCOL.md "Memory
 * cache", layout in sss_mc.h). Lookups answer 0 (found, result filled), ERANGE (found, the
 * caller's buffer is too small) or ENOENT (not there, expired, the cache is missing, disabled
 * by SSS_NSS_USE_MEMCACHE=NO, being rebuilt, or corrupt: ask the socket). A corrupt file is
 * only ever a miss.
 */
#ifndef NSS_MC_H
#define NSS_MC_H

#include <grp.h>
#include <pthread.h>
#include <pwd.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "sss_client/sss_mc.h"

/* --- the lookups (nss_mc_passwd.c, nss_mc_group.c, nss_mc_initgr.c) --- */
int nss_mc_getpwnam(const char *name, size_t name_len,
                    struct passwd *pw, char *buf, size_t buflen);
int nss_mc_getpwuid(uid_t uid, struct passwd *pw, char *buf, size_t buflen);
int nss_mc_getgrnam(const char *name, size_t name_len,
                    struct group *gr, char *buf, size_t buflen);
int nss_mc_getgrgid(gid_t gid, struct group *gr, char *buf, size_t buflen);
/* Appends the user's gids per nss_add_gids(): 0, ENOMEM or ENOENT. */
int nss_mc_initgroups_dyn(const char *name, size_t name_len, long int *start,
                          long int *size, gid_t **groups, long int limit);

/* --- shared machinery (nss_mc_common.c) --- */

/*
 * How often, at most, a lookup re-checks its mapping with fstat() (unlinked file, descriptor
 * closed by the application, size changed), in ms of CLOCK_MONOTONIC_COARSE. Every lookup
 * still checks the header (status RECYCLED, version, geometry), which is how sssd_nss tells
 * readers to let go: it marks a file RECYCLED before unlinking it, and on start it marks and
 * removes a file left by a crashed writer. The fstat() is the fallback for a file removed
 * some other way; a result from it within this window is no staler than one read by a
 * lookup that raced with the removal, and the record's own expiry still applies.
 */
#define NSS_MC_STAT_INTERVAL_MS 10

/* One mapping of one file; replaced when the file is recycled, freed by its last reader. */
struct nss_mc_map;

/* One cache file ("passwd", "group", "initgroups") and its current mapping. */
struct nss_mc_file {
    const char *name;
    pthread_mutex_t lock;
    struct nss_mc_map *cur;
};

#define NSS_MC_FILE_INITIALIZER(n) { (n), PTHREAD_MUTEX_INITIALIZER, NULL }

extern struct nss_mc_file nss_mc_passwd_file;
extern struct nss_mc_file nss_mc_group_file;
extern struct nss_mc_file nss_mc_initgr_file;

/* Tells whether a record (a private copy) is the one looked for: 1 yes, 0 no, -1 corrupt. */
typedef int (*nss_mc_match_fn)(const struct sss_mc_rec *rec, const void *key);

/*
 * Looks key (len bytes including its NUL) up in f: walks the bucket's chain, copies each
 * candidate under the barrier protocol, and for records whose hash1 (by_key2: hash2) is the
 * bucket asks match(). On a valid, unexpired match returns 0 and a malloc'ed copy in *rec
 * (free it). Otherwise ENOENT (or ENOMEM).
 */
int nss_mc_find(struct nss_mc_file *f, const char *key, size_t len, bool by_key2,
                nss_mc_match_fn match, const void *match_key, struct sss_mc_rec **rec);

/* Checks that the NUL-terminated string at off lies inside [lo, hi) of base: 0 or -1. */
int nss_mc_check_str(const char *base, size_t lo, size_t hi, size_t off);

/* Unmaps f's file when no reader uses it (library unload, tests). */
void nss_mc_close_file(struct nss_mc_file *f);

/* pthread_atfork child handler part: the three files' locks made usable again. */
void nss_mc_after_fork(void);

#ifdef SSS_CLIENT_TEST
/* Test builds only: the directory of the cache files, and unmapping all of them. */
void nss_mc_set_dir(const char *dir);
void nss_mc_close_all(void);
#endif

#endif /* NSS_MC_H */
