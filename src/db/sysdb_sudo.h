/*
 * sysdb_sudo: the sudo rules of a domain in its cache. The back-end writes the sudoRole
 * entries it fetched (full, smart and per-rule refreshes); sssd_sudo reads them all and
 * picks the rules of a user itself (sudo_rules.c), so the cache needs no index of users.
 *
 * Layout, in the domain's ldb file:
 *   cn=sudo                  the rule set: the packed list of rule names, a generation
 *                            number bumped by every write, the time of the last full
 *                            refresh and the highest entryUSN / modifyTimestamp seen
 *   name=<cn>,cn=sudo        one rule: its sudo* attributes as multi-valued strings, the
 *                            original DN, lastUpdate and dataExpireTimestamp
 * Reading the whole set is one base read of cn=sudo and one base read per rule: it never
 * scans the users and groups of the cache. Readers keep a parsed copy while the generation
 * is unchanged (sysdb_sudo_gen()).
 *
 * Rule names are the cn values (case-insensitive, as in the directory). A name whose DN
 * would be too long for the cache's keys, or that is not UTF-8, is refused (EINVAL).
 *
 * Writes run in the caller's transaction or in their own. Errors: sysdb's (EINVAL, ENOMEM,
 * EIO); ENOENT where said.
 */
#ifndef SSS_SYSDB_SUDO_H
#define SSS_SYSDB_SUDO_H

#include "db/sysdb.h"

/* The sudoRole attributes kept, in the order replies list them. */
enum sysdb_sudo_attr {
    SYSDB_SUDO_USER,
    SYSDB_SUDO_HOST,
    SYSDB_SUDO_COMMAND,
    SYSDB_SUDO_OPTION,
    SYSDB_SUDO_RUNAS,
    SYSDB_SUDO_RUNASUSER,
    SYSDB_SUDO_RUNASGROUP,
    SYSDB_SUDO_NOTBEFORE,
    SYSDB_SUDO_NOTAFTER,
    SYSDB_SUDO_ORDER,
    SYSDB_SUDO_ATTR_MAX
};

/* "sudoUser", "sudoHost", ...: the names of the LDAP schema, which are also the names
 * SSSD's replies (and sudo) use. In the header so that sdap (which links no cache code)
 * parses entries with the same table. */
static const char *const sysdb_sudo_attr_names[SYSDB_SUDO_ATTR_MAX] = {
    [SYSDB_SUDO_USER] = "sudoUser",
    [SYSDB_SUDO_HOST] = "sudoHost",
    [SYSDB_SUDO_COMMAND] = "sudoCommand",
    [SYSDB_SUDO_OPTION] = "sudoOption",
    [SYSDB_SUDO_RUNAS] = "sudoRunAs",
    [SYSDB_SUDO_RUNASUSER] = "sudoRunAsUser",
    [SYSDB_SUDO_RUNASGROUP] = "sudoRunAsGroup",
    [SYSDB_SUDO_NOTBEFORE] = "sudoNotBefore",
    [SYSDB_SUDO_NOTAFTER] = "sudoNotAfter",
    [SYSDB_SUDO_ORDER] = "sudoOrder",
};

/* Most rules per domain and values per attribute accepted. */
#define SYSDB_SUDO_MAX_RULES 1000000
#define SYSDB_SUDO_MAX_VALUES 100000

struct sysdb_sudo_rule {
    const char *name;                               /* the cn */
    const char **values[SYSDB_SUDO_ATTR_MAX];       /* NULL-terminated; results: never NULL;
                                                     * stores: NULL is none */
    size_t num_values[SYSDB_SUDO_ATTR_MAX];         /* results only */
    const char *orig_dn;                            /* may be NULL */
    /* set in results, ignored by stores: */
    time_t last_update;
    time_t expire;
};

/* What the back-end remembers about the rule set between refreshes. */
struct sysdb_sudo_meta {
    uint64_t gen;               /* bumped by every write of rules */
    time_t last_full;           /* the last successful full refresh; 0: never */
    const char *max_usn;        /* highest entryUSN seen, or NULL */
    const char *max_modts;      /* highest modifyTimestamp seen, or NULL */
};

/* Stores rules[0..n) (replacing rules of the same names), each expiring at now + timeout,
 * and adds their names to the set. EINVAL: a rule sysdb refuses (nothing written). */
errno_t sysdb_sudo_store(struct sysdb_ctx *sysdb, struct sysdb_sudo_rule *const *rules,
                         size_t n, time_t now, uint32_t timeout);

/* Removes the named rules (names not cached are skipped). */
errno_t sysdb_sudo_delete(struct sysdb_ctx *sysdb, const char *const *names, size_t n);

/* The names of the cached rules: NULL-terminated, on mem_ctx; count 0 is EOK. */
errno_t sysdb_sudo_names(TALLOC_CTX *mem_ctx, struct sysdb_ctx *sysdb, const char ***_names,
                         size_t *_count);

/* Every cached rule (NULL-terminated array on mem_ctx). */
errno_t sysdb_sudo_get_all(TALLOC_CTX *mem_ctx, struct sysdb_ctx *sysdb,
                           struct sysdb_sudo_rule ***_rules, size_t *_count);

/* One rule by name. ENOENT when not cached. */
errno_t sysdb_sudo_get_rule(TALLOC_CTX *mem_ctx, struct sysdb_ctx *sysdb, const char *name,
                            struct sysdb_sudo_rule **_rule);

/* The state of the set (all zero/NULL for a cache that never held rules). The strings are
 * copies on mem_ctx (free each, or mem_ctx). */
errno_t sysdb_sudo_get_meta(TALLOC_CTX *mem_ctx, struct sysdb_ctx *sysdb,
                            struct sysdb_sudo_meta *_meta);
/* Only the generation: the cheap check a reader makes before each use of its copy. */
errno_t sysdb_sudo_gen(struct sysdb_ctx *sysdb, uint64_t *_gen);

/* Records a full refresh at `when` and the highest USN / modifyTimestamp (NULL: keep). */
errno_t sysdb_sudo_set_meta(struct sysdb_ctx *sysdb, time_t when, const char *max_usn,
                            const char *max_modts);

/* sss_cache: marks one rule / every rule expired. ENOENT for a rule not cached. */
errno_t sysdb_sudo_expire(struct sysdb_ctx *sysdb, const char *name);
errno_t sysdb_sudo_expire_all(struct sysdb_ctx *sysdb);

#endif /* SSS_SYSDB_SUDO_H */
