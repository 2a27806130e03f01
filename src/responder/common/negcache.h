/*
 * The responders' negative cache: "this name or id does not exist in this domain", kept for
 * entry_negative_timeout seconds after a back-end said so, so that repeated lookups of
 * missing entries (a typo in a script, a uid nobody has) cost neither a back-end call nor a
 * cache read. Users and groups are separate (initgroups uses the user entries) and are
 * emptied separately by sssd.Responder.NegativeCache.ResetUsers / ResetGroups.
 *
 * Keys are (type, domain, name) or (type, domain, id); names are compared as given (callers
 * pass them folded for case-insensitive domains). A timeout of 0 disables the cache.
 * Expired entries are dropped when met, and swept as the cache grows, so it never holds
 * much more than twice what was added within one timeout. Netgroups (by name only) have
 * their own type, emptied with the groups. The clock is time() unless a
 * test sets another one.
 *
 * Ownership: struct resp_ncache is a talloc object; entries are its children.
 */
#ifndef RESP_NEGCACHE_H
#define RESP_NEGCACHE_H

#include <time.h>
#include "util/util.h"

enum resp_ncache_type {
    RESP_NCACHE_USER,
    RESP_NCACHE_GROUP,
    RESP_NCACHE_NETGROUP,
};

struct resp_ncache;

/* EINVAL (_nc NULL), ENOMEM. */
errno_t resp_ncache_create(TALLOC_CTX *mem_ctx, uint32_t timeout, struct resp_ncache **_nc);

/* Replaces the clock (tests). NULL restores time(). */
void resp_ncache_set_clock(struct resp_ncache *nc, time_t (*clock)(void));

/* True when the entry is present and not expired. */
bool resp_ncache_check_name(struct resp_ncache *nc, enum resp_ncache_type type,
                            const char *domain, const char *name);
bool resp_ncache_check_id(struct resp_ncache *nc, enum resp_ncache_type type,
                          const char *domain, uint32_t id);

/* Adds (or renews) an entry valid for the timeout. EOK, EINVAL (NULL argument), ENOMEM. */
errno_t resp_ncache_add_name(struct resp_ncache *nc, enum resp_ncache_type type,
                             const char *domain, const char *name);
errno_t resp_ncache_add_id(struct resp_ncache *nc, enum resp_ncache_type type,
                           const char *domain, uint32_t id);

/* Drops every entry of that type. */
void resp_ncache_reset(struct resp_ncache *nc, enum resp_ncache_type type);

/* Live entries of that type (tests, logs). */
size_t resp_ncache_count(struct resp_ncache *nc, enum resp_ncache_type type);

#endif /* RESP_NEGCACHE_H */
