/*
 * sss_cache: marks cache entries expired so the next lookup goes to the server, and makes
 * every responder drop what it holds (memory cache, negative cache). The work is split so a
 * test can run each part on its own directories and bus:
 *   sss_cache_opts.c   command line -> struct sss_cache_args
 *   sss_cache_db.c     one domain's cache: expire the selected entries
 *   sss_cache_bus.c    the signals to the responders over the master bus
 *   sss_cache_mc.c     resetting the memory cache files when no sssd_nss can do it
 *   sss_cache_run.c    the whole run over the configured domains
 *   sss_cache.c        main(): root check, config, exit status
 *
 * Compatibility (SSSD 2.x sss_cache(8)): exit 0 on success; 1 for a bad command line, a
 * non-root caller, an unreadable configuration or a failure; 2 (ENOENT) when a named entry
 * matched nothing ("No cache object matched the specified search") or the -d domain is not
 * configured. A missing configuration is not an error (shadow-utils runs sss_cache after
 * useradd on hosts where sssd never ran). Netgroups (-n, -N, and -E) are expired like
 * users and groups. Services, autofs maps, SSH hosts and sudo rules are not cached by this
 * suite: asking for all of one kind succeeds with a note, asking for one by name never
 * matches.
 *
 * Ownership: everything hangs off the caller's talloc context; nothing is global.
 */
#ifndef SSS_TOOLS_SSS_CACHE_H
#define SSS_TOOLS_SSS_CACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <talloc.h>
#include <tevent.h>

#include "util/sss_errors.h"
#include "db/sysdb.h"
#include "confdb/confdb.h"


/* Exit statuses, as SSSD's sss_cache. */
#define SSS_CACHE_EXIT_OK       0
#define SSS_CACHE_EXIT_FAILURE  1
#define SSS_CACHE_EXIT_NOMATCH  2   /* ENOENT */

/* How long the tool waits for the master bus before resetting the memory cache itself. */
#define SSS_CACHE_BUS_TIMEOUT_MS 10000

/* Kinds SSSD's sss_cache knows and this suite does not cache. */
enum sss_cache_other {
    SSS_CACHE_NETGROUP,
    SSS_CACHE_SERVICE,
    SSS_CACHE_AUTOFS_MAP,
    SSS_CACHE_SSH_HOST,
    SSS_CACHE_SUDO_RULE,
    SSS_CACHE_OTHER_COUNT
};

/* "netgroups", "services", ...: for messages. */
const char *sss_cache_other_plural(enum sss_cache_other kind);

/* What to invalidate. Names may be qualified ("joe@dom": that domain only). An "all" flag
 * overrides the name of the same kind, as in SSSD. */
struct sss_cache_sel {
    bool all_users;
    bool all_groups;
    const char *user;
    const char *group;
    bool all_netgroups;                             /* -E (-N is other_all[NETGROUP]) */
    const char *domain;                             /* -d; NULL: every domain */
    bool other_all[SSS_CACHE_OTHER_COUNT];          /* asked explicitly (not through -E) */
    const char *other_name[SSS_CACHE_OTHER_COUNT];
};

struct sss_cache_args {
    struct sss_cache_sel sel;
    const char *config_file;    /* SSSD_CONF_FILE unless -c */
    int debug_level;            /* --debug; 0 by default */
    bool help;                  /* -?, --help or --usage: print sss_cache_usage(), exit 0 */
};

/* -------- sss_cache_opts.c -------- */

/*
 * Parses argv (left unchanged). On a bad command line prints the reason and a hint to
 * stderr and returns EINVAL. *_args and its strings live on mem_ctx. ENOMEM.
 */
errno_t sss_cache_parse_args(TALLOC_CTX *mem_ctx, int argc, char *const argv[],
                             struct sss_cache_args **_args);
void sss_cache_usage(FILE *out);

/* -------- sss_cache_db.c -------- */

/* What one or more domains' expiry matched. */
struct sss_cache_found {
    bool users;         /* -U, or the -u user was cached */
    bool groups;        /* -G, or the -g group was cached */
    bool netgroups;     /* -N, -E, or the -n netgroup was cached */
};

/* The domain's case mode from its case_sensitive option. ERR_INVALID_CONFIG, ENOMEM. */
errno_t sss_cache_domain_case(struct confdb *cdb, const char *domain,
                              enum sysdb_case *_mode);

/* The name to look up in domain for a name given on the command line, or NULL when the
 * name is qualified with another domain ("joe@other"). */
const char *sss_cache_name_in_domain(const char *name, const char *domain);

/*
 * Expires the selected entries of <db_dir>/cache_<domain>.ldb in one transaction and adds
 * what matched to *found. A domain without a cache file is skipped (EOK, nothing found, no
 * file created). Errors: sysdb_open()'s (EINVAL when the cache was made with another case
 * mode), EIO, ENOMEM.
 */
errno_t sss_cache_expire_domain(const char *db_dir, const char *domain, enum sysdb_case mode,
                                const struct sss_cache_sel *sel, struct sss_cache_found *found);

/* -------- sss_cache_bus.c -------- */

/* Which signals to send. */
struct sss_cache_notice {
    bool mc_users;          /* sssd.nss.MemoryCache.InvalidateAllUsers */
    bool mc_groups;         /* InvalidateAllGroups */
    bool mc_initgroups;     /* InvalidateAllInitgroups */
    const uint32_t *gids;   /* InvalidateGroupById each (skipped when mc_groups) */
    size_t n_gids;
    bool neg_users;         /* sssd.Responder.NegativeCache.ResetUsers */
    bool neg_groups;        /* ResetGroups */
};

/* True when the notice asks for nothing. */
bool sss_cache_notice_empty(const struct sss_cache_notice *notice);

/*
 * Connects to the master bus at address as a plain client (no well-known name), emits the
 * notice's signals from SSS_BUS_PATH, then asks the bus NameHasOwner("sssd.nss"): its
 * answer comes after the bus has routed the signals sent before it, so *_nss_told says
 * whether a running sssd_nss got them. Errors: the sbus connect and call errors (EIO when
 * nothing listens at address), ENOMEM.
 */
struct tevent_req *sss_cache_notify_send(TALLOC_CTX *mem_ctx, struct tevent_context *ev,
                                         const char *address,
                                         const struct sss_cache_notice *notice);
errno_t sss_cache_notify_recv(struct tevent_req *req, bool *_nss_told);

/* The same on a loop of its own, giving up after timeout_ms (ETIMEDOUT). */
errno_t sss_cache_notify(const char *address, const struct sss_cache_notice *notice,
                         int timeout_ms, bool *_nss_told);

/* -------- sss_cache_mc.c -------- */

#define SSS_CACHE_MC_PASSWD     0x1
#define SSS_CACHE_MC_GROUP      0x2
#define SSS_CACHE_MC_INITGROUPS 0x4

/*
 * Tells the clients of one memory cache file to drop it (header status RECYCLED, written
 * under the header barriers), then removes it; clients reopen, find no file and use the
 * socket. Returns EOK; ENOENT (no file); EBUSY (a running sssd_nss holds its lock: left to
 * it); EINVAL (too short, not a regular file, or not a memory cache of our version: left
 * alone); or the errno of a failed open, write or unlink.
 */
errno_t sss_cache_mc_reset_file(const char *path);

/* Resets the selected files (SSS_CACHE_MC_*) of mc_dir, printing one line to stderr for
 * each file left alone. EOK unless a file could not be reset (its errno). */
errno_t sss_cache_mc_reset(const char *mc_dir, unsigned int files);

/* -------- sss_cache_run.c -------- */

struct sss_cache_paths {
    const char *db_dir;         /* SSSD_DB_PATH */
    const char *mc_dir;         /* SSSD_MC_PATH */
    const char *bus_address;    /* sss_master_bus_address() */
    int bus_timeout_ms;         /* 0: SSS_CACHE_BUS_TIMEOUT_MS */
};

/*
 * The whole run for a loaded configuration: expire in every configured domain (or the -d
 * one), then notify the responders (the whole memory cache goes, as with SSSD), or reset
 * the three memory cache files when no sssd_nss is on the bus. Messages for the administrator go to stderr.
 * Returns EOK; ENOENT when a named entry matched nothing (nothing is notified then) or the
 * -d domain is not configured; ERR_INVALID_CONFIG, EIO (a domain's cache or a memory cache
 * file could not be handled: the other domains and files are still done), ENOMEM.
 */
errno_t sss_cache_run(struct confdb *cdb, const struct sss_cache_sel *sel,
                      const struct sss_cache_paths *paths);

#endif /* SSS_TOOLS_SSS_CACHE_H */
