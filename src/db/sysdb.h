/*
 * sysdb: the cache. One ldb database per domain, <db_dir>/cache_<domain>.ldb; this layer is
 * the only code that touches ldb. It stores users, groups, group member lists and each user's
 * group list (the result of the last initgroups lookup), with `lastUpdate` and
 * `dataExpireTimestamp` on every entry. Callers (the back-end writes, responders and tools
 * read) decide what "expired" means; sysdb only records and returns the times.
 *
 * Names. Every name is stored in its internal fully qualified form "name@domain". Functions
 * accept a short name ("joe") or the internal form ("joe@dom", domain part matched without
 * regard to case) and always return the internal form; sysdb_short_name() strips it.
 * In SYSDB_CASE_INSENSITIVE mode names are stored lowercased and matched as such; in
 * SYSDB_CASE_PRESERVING mode they are stored as given and matched without regard to case
 * (Unicode simple case folding through C.UTF-8, ASCII-only when that locale is missing).
 * A valid name is non-empty UTF-8 of at most SYSDB_NAME_MAX bytes.
 *
 * Membership. A group entry carries its member user names (already flattened through nested
 * groups by the provider) and its direct nested group names; a user entry carries the group
 * list of its last initgroups lookup (names and the gids they had at that time). The two views
 * are written by their own save operations and expire on their own timers: saving a group
 * never rewrites its members' user entries, and saving a user's group list never rewrites the
 * groups. So a view may be stale by at most its own cache timeout (sss_cache expires both).
 * Deleting a group does not edit users' group lists either.
 *
 * Writes. Every store is atomic: it runs in its own transaction, or inside the caller's
 * (sysdb_transaction_start() nests; an inner cancel dooms the outer transaction).
 * A member list can be built piece by piece with sysdb_name_list_*() (e.g. one LDAP page per
 * event-loop turn), so that the final write of a 50,000-member group stays a few ms.
 *
 * Ownership: struct sysdb_ctx is a talloc object on the caller's mem_ctx; closing the cache
 * is talloc_free(). Results are new talloc objects on the given mem_ctx holding all their
 * strings and arrays, inside the same allocation (users and groups from single lookups,
 * except very large groups) or as talloc descendants: free or steal the result itself,
 * never a string or array of it.
 *
 * Reads. Lookups of single users, groups and group lists are answered from a small
 * in-process cache while the database is unchanged since they were read (mdb only: LMDB's
 * transaction id, which every commit of any process bumps, tags each entry; see
 * sysdb_rcache.h), so a write by another process is seen by the next lookup.
 *
 * Errors common to every function: EINVAL for bad arguments (NULL, invalid name, uid/gid 0,
 * oversize attribute), ENOMEM, EIO for an ldb failure (logged with ldb's message).
 */
#ifndef SSS_SYSDB_H
#define SSS_SYSDB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>
#include <talloc.h>

#include "util/sss_errors.h"

/* Longest name in bytes (short name, without "@domain"). */
#define SYSDB_NAME_MAX 255
/* Longest gecos, home directory, shell or original DN in bytes; larger values are EINVAL. */
#define SYSDB_ATTR_MAX (64 * 1024)
/* Most names in one member or group list; larger lists are EINVAL. */
#define SYSDB_LIST_MAX 1000000

struct sysdb_ctx;

enum sysdb_case {
    SYSDB_CASE_SENSITIVE,   /* case_sensitive = true */
    SYSDB_CASE_INSENSITIVE, /* case_sensitive = false: stored lowercased */
    SYSDB_CASE_PRESERVING,  /* case_sensitive = preserving: stored as given, matched folded */
};

/* The ldb back-end. DEFAULT is mdb, the measured choice (figures in sysdb.c, benchmark in
 * tests/perf/bench_sysdb.c), or tdb when the cache file exists and is a tdb file.
 * mdb files key records by GUID (a guid on every entry, and ldb's DN -> GUID index); tdb
 * files by DN. */
enum sysdb_backend {
    SYSDB_BACKEND_DEFAULT,
    SYSDB_BACKEND_TDB,
    SYSDB_BACKEND_MDB,
};

struct sysdb_user {
    const char *name;       /* internal form name@domain */
    uint32_t uid;
    uint32_t gid;           /* primary gid */
    const char *gecos;      /* may be NULL */
    const char *home;       /* may be NULL */
    const char *shell;      /* may be NULL */
    const char *orig_dn;    /* may be NULL */
    const char *upn;        /* Kerberos principal (ldap_user_principal), may be NULL;
                             * stores only: lookups leave it NULL (sysdb_get_user_upn) */
    const char *email;      /* ldap_user_email; may be NULL */
    const char *sid;        /* ldap_user_objectsid as "S-1-5-..."; may be NULL */
    const char **extra;     /* ldap_user_extra_attrs: name, value, name, value ...,
                             * NULL-terminated (a name once per value); stores: may be
                             * NULL; results: never NULL */
    /* set in results, ignored by stores: */
    time_t last_update;
    time_t expire;
};

struct sysdb_group {
    const char *name;            /* internal form name@domain */
    uint32_t gid;
    const char **members;        /* user names, NULL-terminated; stores: may be NULL;
                                  * results: never NULL */
    const char **member_groups;  /* direct nested group names, same rules */
    const char *orig_dn;         /* may be NULL */
    const char *sid;             /* ldap_group_objectsid as "S-1-5-..."; may be NULL */
    /* set in results, ignored by stores: */
    time_t last_update;
    time_t expire;
};

/*
 * Opens (creating when missing, mode 0600) <db_dir>/cache_<domain>.ldb.
 * The case mode is the domain's; opening an existing cache with another mode is refused
 * (EINVAL, logged): names were stored folded, or not, according to the old one; remove the
 * cache file to change it. A cache of another format version is emptied (logged) and set up
 * again: entries are fetched again; but one of versions 2 (without the e-mail index) or 3
 * (without the SID index) is upgraded in place, keeping its entries and cached
 * credentials. Errors: EINVAL, ENOMEM, EIO (cannot open or set up the
 * file), ERR_INTERNAL (the file holds the cache of another domain).
 */
errno_t sysdb_open(TALLOC_CTX *mem_ctx, const char *db_dir, const char *domain,
                   enum sysdb_case case_mode, struct sysdb_ctx **_sysdb);

/*
 * Makes libldb load its modules now: the mdb and tdb back-ends only (sysdb_ldb_modules.c;
 * every module of libldb's directory when LDB_MODULES_PATH is set by the administrator,
 * 40-100 ms where Samba's DSDB modules are installed). A responder calls this once it is
 * up, so its first cache open does not pay that inside a client's request. Opens no
 * cache file; costs nothing after the first call.
 */
void sysdb_preload(void);

/* Same, choosing the ldb back-end (benchmarks, tests). */
errno_t sysdb_open_ext(TALLOC_CTX *mem_ctx, const char *db_dir, const char *domain,
                       enum sysdb_case case_mode, enum sysdb_backend backend,
                       struct sysdb_ctx **_sysdb);

/*
 * Reads the cache file of domain under db_dir whole in a child process (sysdb_check.c)
 * before anyone opens it. A file the child cannot read (short, garbage, a crash) is renamed
 * <file>.corrupt and *_set_aside is true: the domain starts empty. A missing file, or a
 * check running past timeout_ms, leaves the file as it is. Errors: EINVAL, ENOMEM, or an
 * errno of fork() or rename().
 */
errno_t sysdb_check_cache(const char *db_dir, const char *domain, int timeout_ms,
                          bool *_set_aside);

/* Path of the database file, owned by sysdb. */
const char *sysdb_path(struct sysdb_ctx *sysdb);
const char *sysdb_domain(struct sysdb_ctx *sysdb);
/* The case mode the cache was opened with (it decides how names are stored). */
enum sysdb_case sysdb_case_mode(struct sysdb_ctx *sysdb);

/*
 * Transactions nest: only the outermost start/commit reach ldb. A cancel at any depth dooms
 * the whole transaction: every later commit or cancel at an inner depth is accepted, and the
 * outermost commit cancels and returns EIO. Commit or cancel without a transaction: EINVAL.
 */
errno_t sysdb_transaction_start(struct sysdb_ctx *sysdb);
errno_t sysdb_transaction_commit(struct sysdb_ctx *sysdb);
errno_t sysdb_transaction_cancel(struct sysdb_ctx *sysdb);

/*
 * Ends the transaction this code started: commits when ret is EOK, cancels otherwise.
 * Returns ret when it was an error (the cancel's own failure is only logged), else the
 * commit's result. The one way to close a transaction at a function's single exit:
 *     ret = sysdb_transaction_start(sysdb); if (ret != EOK) return ret;
 *     ret = ...;  if (ret != EOK) goto done;  ...
 *   done:
 *     return sysdb_transaction_end(sysdb, ret);
 */
errno_t sysdb_transaction_end(struct sysdb_ctx *sysdb, errno_t ret);

/*
 * Name helpers. sysdb_fqname() gives the stored form of a name (qualified, folded in
 * insensitive mode); sysdb_short_name() strips "@domain" from an internal name
 * (a name without it is returned as is). Errors: EINVAL, ENOMEM.
 */
errno_t sysdb_fqname(TALLOC_CTX *mem_ctx, struct sysdb_ctx *sysdb, const char *name,
                     char **_fqname);
errno_t sysdb_short_name(TALLOC_CTX *mem_ctx, struct sysdb_ctx *sysdb, const char *fqname,
                         char **_short);
/* The form names are compared in (qualified; folded unless the domain is case sensitive):
 * two names stand for the same entry exactly when their keys are equal. */
errno_t sysdb_name_key(TALLOC_CTX *mem_ctx, struct sysdb_ctx *sysdb, const char *name,
                       char **_key);

/*
 * Stores a user: lastUpdate = now, dataExpireTimestamp = now + cache_timeout (0: expired at
 * once). An entry of the same name is updated (its group list is kept); any other user
 * holding the same uid is deleted first (renamed or superseded), in the same transaction.
 * EINVAL: bad name, uid 0 or gid 0, a string attribute over SYSDB_ATTR_MAX or not UTF-8.
 */
errno_t sysdb_store_user(struct sysdb_ctx *sysdb, const struct sysdb_user *user,
                         time_t now, uint32_t cache_timeout);

/*
 * sysdb_store_user in two steps, for a caller that needs what it writes before writing it
 * (sysdb_reply_user_first): sysdb_user_write_new() checks the user (errors as
 * sysdb_store_user's checks) and keeps it on mem_ctx, its strings and lists referenced
 * (they must outlive the write), and sysdb_user_write_store() builds the entry and stores
 * it as sysdb_store_user does.
 */
struct sysdb_user_write;
errno_t sysdb_user_write_new(TALLOC_CTX *mem_ctx, struct sysdb_ctx *sysdb,
                             const struct sysdb_user *user, time_t now,
                             uint32_t cache_timeout, struct sysdb_user_write **_w);
errno_t sysdb_user_write_store(struct sysdb_ctx *sysdb, struct sysdb_user_write *w);

/*
 * Stores a group like sysdb_store_user (other group holding the gid deleted). with_members
 * true replaces the member lists by grp->members and grp->member_groups (duplicates dropped,
 * order kept) and sets the expiry; false (a group seen through initgroups) keeps the lists and
 * the expiry already cached, and stores a new group (or one whose gid changed) expired, so its
 * members are fetched before a group lookup answers from it.
 * EINVAL as for users, also for a bad member name or a list over SYSDB_LIST_MAX.
 */
errno_t sysdb_store_group(struct sysdb_ctx *sysdb, const struct sysdb_group *grp,
                          bool with_members, time_t now, uint32_t cache_timeout);
/* The same; *_stored_expired (optional, set on success) tells whether this store left the
 * entry expired because its members are unknown (with_members false and the group new, or
 * its gid changed): the caller may fetch its members before anyone asks for them. */
errno_t sysdb_store_group_ext(struct sysdb_ctx *sysdb, const struct sysdb_group *grp,
                              bool with_members, time_t now, uint32_t cache_timeout,
                              bool *_stored_expired);

/*
 * Incremental member lists, for saving a huge group without one long stall: create a list,
 * add names in slices across event-loop turns (each call validates, qualifies, folds and
 * drops duplicates: O(slice)), then store. The list belongs to the caller (talloc_free).
 */
struct sysdb_name_list;
errno_t sysdb_name_list_new(TALLOC_CTX *mem_ctx, struct sysdb_ctx *sysdb,
                            struct sysdb_name_list **_list);
/* Adds count names (or up to a NULL entry when count is (size_t)-1). EINVAL: a bad name (the
 * names of this call before it stay added) or the list would exceed SYSDB_LIST_MAX. */
errno_t sysdb_name_list_add(struct sysdb_name_list *list, const char *const *names,
                            size_t count);
size_t sysdb_name_list_count(struct sysdb_name_list *list);

/* sysdb_store_group with member lists given as built lists (either may be NULL: empty). */
errno_t sysdb_store_group_lists(struct sysdb_ctx *sysdb, const struct sysdb_group *grp,
                                struct sysdb_name_list *members,
                                struct sysdb_name_list *member_groups,
                                time_t now, uint32_t cache_timeout);

/*
 * Stores the user's full group list from an initgroups lookup (group names; NULL-terminated,
 * NULL or empty for none), with its own expiry (now + cache_timeout). The groups must be
 * cached already (stored before, or earlier in the same transaction): their gids are recorded
 * with the list. ENOENT: the user, or one of the groups, is not cached (nothing written).
 */
errno_t sysdb_store_initgroups(struct sysdb_ctx *sysdb, const char *user,
                               const char *const *group_names,
                               time_t now, uint32_t cache_timeout);
/* The same with the groups' gids given (aligned with group_names, none 0), for a caller
 * that has just stored those groups itself: the groups are not read back (a user in 5,000
 * groups saves 5,000 reads), so nothing checks that they are cached with these gids. When
 * group_names holds a name twice the gids are read as by sysdb_store_initgroups.
 * EINVAL: gids NULL for a non-empty list, or a gid 0. */
errno_t sysdb_store_initgroups_gids(struct sysdb_ctx *sysdb, const char *user,
                                    const char *const *group_names, const uint32_t *gids,
                                    time_t now, uint32_t cache_timeout);

/* Lookups. ENOENT when not cached. Expired entries are returned (callers decide). */
errno_t sysdb_get_user_by_name(TALLOC_CTX *mem_ctx, struct sysdb_ctx *sysdb,
                               const char *name, struct sysdb_user **_user);
/* The user's stored Kerberos principal (ldap_user_principal), read from the entry itself:
 * not a field of the read cache, whose users serve the warm lookups. ENOENT when the user
 * is not cached or has no principal stored. */
errno_t sysdb_get_user_upn(TALLOC_CTX *mem_ctx, struct sysdb_ctx *sysdb, const char *name,
                           char **_upn);
errno_t sysdb_get_user_by_uid(TALLOC_CTX *mem_ctx, struct sysdb_ctx *sysdb,
                              uint32_t uid, struct sysdb_user **_user);
errno_t sysdb_get_group_by_name(TALLOC_CTX *mem_ctx, struct sysdb_ctx *sysdb,
                                const char *name, struct sysdb_group **_group);
/*
 * The users whose e-mail address is email (SSSD's lookup by e-mail, ldap_user_email),
 * compared as names are: exactly in a case-sensitive domain, folded otherwise. *_users is
 * a NULL-terminated array on mem_ctx (several users may share an address; callers decide
 * what that means). ENOENT when none; EINVAL for an address no user could hold (empty,
 * not UTF-8, over SYSDB_NAME_MAX bytes). One index lookup, no read cache.
 */
errno_t sysdb_get_users_by_email(TALLOC_CTX *mem_ctx, struct sysdb_ctx *sysdb,
                                 const char *email, struct sysdb_user ***_users,
                                 size_t *_count);
errno_t sysdb_get_group_by_gid(TALLOC_CTX *mem_ctx, struct sysdb_ctx *sysdb,
                               uint32_t gid, struct sysdb_group **_group);
/*
 * The user or group whose SID (objectSIDString, indexed) is sid, compared exactly: one
 * index read, then the lookup by uid or gid (through the read cache). ENOENT when no entry
 * of that kind holds it; EINVAL for an empty sid or one over SYSDB_NAME_MAX bytes.
 */
errno_t sysdb_get_user_by_sid(TALLOC_CTX *mem_ctx, struct sysdb_ctx *sysdb,
                              const char *sid, struct sysdb_user **_user);
errno_t sysdb_get_group_by_sid(TALLOC_CTX *mem_ctx, struct sysdb_ctx *sysdb,
                               const char *sid, struct sysdb_group **_group);

/*
 * The gids of the groups of the user's last initgroups (in the order given then, not
 * including the primary gid unless the provider listed it) and that list's expiry.
 * *_gids is a talloc array on mem_ctx (NULL when the count is 0).
 * ENOENT: the user is not cached, or no initgroups list was stored for it.
 * Same with names: *_names is NULL-terminated, never NULL.
 */
errno_t sysdb_get_initgroups(TALLOC_CTX *mem_ctx, struct sysdb_ctx *sysdb, const char *user,
                             uint32_t **_gids, size_t *_count, time_t *_expire);
/*
 * A user and its group list in one read (what initgroups needs): *_user as
 * sysdb_get_user_by_name (skipped when _user is NULL); *_have_list false when no list was
 * stored (then *_gids NULL, *_count 0, *_expire 0); otherwise as sysdb_get_initgroups.
 * ENOENT: the user is not cached.
 */
errno_t sysdb_get_user_initgroups(TALLOC_CTX *mem_ctx, struct sysdb_ctx *sysdb,
                                  const char *name, struct sysdb_user **_user,
                                  bool *_have_list, uint32_t **_gids, size_t *_count,
                                  time_t *_expire);
errno_t sysdb_get_initgroups_names(TALLOC_CTX *mem_ctx, struct sysdb_ctx *sysdb,
                                   const char *user, const char ***_names, size_t *_count,
                                   time_t *_expire);

/* Every cached user / group (a full scan: for enumeration and tools, not for lookups).
 * The arrays are talloc'd on mem_ctx, NULL-terminated; count 0 is EOK. */
errno_t sysdb_enumerate_users(TALLOC_CTX *mem_ctx, struct sysdb_ctx *sysdb,
                              struct sysdb_user ***_users, size_t *_count);
errno_t sysdb_enumerate_groups(TALLOC_CTX *mem_ctx, struct sysdb_ctx *sysdb,
                               struct sysdb_group ***_groups, size_t *_count);

/* The names (internal form) of the cached users, or groups, whose lastUpdate is before
 * `before`: enumeration's stale-entry scan, reading the name and the time of each entry
 * only. *_names is NULL-terminated, on mem_ctx; count 0 is EOK. */
errno_t sysdb_names_updated_before(TALLOC_CTX *mem_ctx, struct sysdb_ctx *sysdb, bool groups,
                                   time_t before, char ***_names, size_t *_count);

/* Deletes the entry (a user with its group list). ENOENT when not cached. */
errno_t sysdb_delete_user(struct sysdb_ctx *sysdb, const char *name);
errno_t sysdb_delete_group(struct sysdb_ctx *sysdb, const char *name);

/*
 * sss_cache: marks entries expired (dataExpireTimestamp = 1; for users also the group
 * list's expiry). ENOENT for a name not cached; the _all variants return EOK on an empty
 * cache.
 */
errno_t sysdb_expire_user(struct sysdb_ctx *sysdb, const char *name);
errno_t sysdb_expire_group(struct sysdb_ctx *sysdb, const char *name);
errno_t sysdb_expire_all_users(struct sysdb_ctx *sysdb);
errno_t sysdb_expire_all_groups(struct sysdb_ctx *sysdb);

#endif /* SSS_SYSDB_H */
