/*
 * sysdb netgroups: the cache of NIS netgroups (nisNetgroup entries) of one domain, in the
 * same file as its users and groups, as SSSD keeps them. A netgroup is its name, its triples
 * exactly as the directory wrote them ("(host,user,domain)", split only when answered, so a
 * malformed one is skipped by the reader as SSSD does), the names of the netgroups it
 * contains (memberNisNetgroup: returned to glibc, which expands them), its original DN and
 * the usual lastUpdate / dataExpireTimestamp.
 *
 * Names follow sysdb.h: stored as "name@domain" (folded in case-insensitive domains), looked
 * up by short or internal name. Member netgroup names and triples are kept as given.
 * Errors: as sysdb.h says for every function (EINVAL, ENOMEM, EIO), plus ENOENT for a
 * netgroup not cached.
 */
#ifndef SSS_SYSDB_NETGROUPS_H
#define SSS_SYSDB_NETGROUPS_H

#include "db/sysdb.h"

struct sysdb_netgroup {
    const char *name;           /* internal form name@domain */
    const char **triples;       /* NULL-terminated; stores: may be NULL; results: never NULL */
    const char **members;       /* nested netgroup names, same rules */
    const char *orig_dn;        /* may be NULL */
    /* set in results, ignored by stores: */
    time_t last_update;
    time_t expire;
};

/* Stores (adds or replaces) a netgroup: lastUpdate = now, expiry now + cache_timeout.
 * EINVAL: bad name, a triple or member that is empty, not UTF-8 or over SYSDB_ATTR_MAX,
 * more than SYSDB_LIST_MAX values. */
errno_t sysdb_store_netgroup(struct sysdb_ctx *sysdb, const struct sysdb_netgroup *ng,
                             time_t now, uint32_t cache_timeout);

/* The cached netgroup (expired ones too); ENOENT when not cached. */
errno_t sysdb_get_netgroup(TALLOC_CTX *mem_ctx, struct sysdb_ctx *sysdb, const char *name,
                           struct sysdb_netgroup **_ng);

/* ENOENT when not cached. */
errno_t sysdb_delete_netgroup(struct sysdb_ctx *sysdb, const char *name);

/* sss_cache -n / -N: marks expired. ENOENT for a name not cached; _all: EOK when none. */
errno_t sysdb_expire_netgroup(struct sysdb_ctx *sysdb, const char *name);
errno_t sysdb_expire_all_netgroups(struct sysdb_ctx *sysdb);

/* Names (internal form) of every cached netgroup, NULL-terminated on mem_ctx. */
errno_t sysdb_list_netgroups(TALLOC_CTX *mem_ctx, struct sysdb_ctx *sysdb,
                             const char ***_names, size_t *_count);

/*
 * Splits a triple "(host,user,domain)" as SSSD (and nss_ldap) do: whitespace around the
 * parentheses and around each field is ignored, an empty field gives NULL, a field is kept
 * otherwise as written ("-" stays "-": glibc reads it as "no valid value"). EINVAL for
 * anything else (no parentheses, missing commas, bytes after ')'). Results on mem_ctx.
 */
errno_t sysdb_netgr_split_triple(TALLOC_CTX *mem_ctx, const char *triple, char **_host,
                                 char **_user, char **_domain);

#endif /* SSS_SYSDB_NETGROUPS_H */
