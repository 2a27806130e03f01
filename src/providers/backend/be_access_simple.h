/*
 * be_access_simple: SSSD's simple access provider (access_provider = simple) as pure code.
 * The rules come from four comma-separated options of the domain, simple_allow_users,
 * simple_deny_users, simple_allow_groups and simple_deny_groups (items trimmed, empty items
 * skipped); each name is short ("joe") or qualified with this domain ("joe@dom"), and is
 * matched by the domain's case rule, the cache's own (sysdb_name_key(): the same rule that
 * finds the user's entry). A name qualified with another domain can only match a user of
 * this domain literally named so, i.e. it never matches a normal name.
 *
 * Decision, as sssd-simple(5) and SSSD 2.8's simple_access_check.c:
 *   - every list empty: allow;
 *   - any allow list set: deny unless the user is in simple_allow_users or one of its
 *     groups is in simple_allow_groups;
 *   - the user in simple_deny_users, or one of its groups in simple_deny_groups: deny, even
 *     when an allow list names it (deny lists win).
 * "Its groups" are the names the caller passes: the user's primary group and its
 * supplementary groups, as cached after the login's initgroups refresh.
 *
 * Ownership: the rules are a talloc object on the caller's context. They keep a pointer to
 * the sysdb context (checks fold names by its case rule): the cache must outlive them.
 */
#ifndef SSS_BE_ACCESS_SIMPLE_H
#define SSS_BE_ACCESS_SIMPLE_H

#include <stdbool.h>
#include <talloc.h>

#include "util/sss_errors.h"
#include "db/sysdb.h"

struct be_access_simple;

/*
 * Parses the four option values (NULL or "" = not set) for the domain of sysdb.
 * ERR_INVALID_CONFIG (logged with the option and the item) for a name that cannot be a
 * name of the domain (too long, not UTF-8); EINVAL, ENOMEM.
 */
errno_t be_access_simple_parse(TALLOC_CTX *mem_ctx, struct sysdb_ctx *sysdb,
                               const char *allow_users, const char *deny_users,
                               const char *allow_groups, const char *deny_groups,
                               struct be_access_simple **_rules);

/* true when no list is set (everyone is allowed). */
bool be_access_simple_is_empty(const struct be_access_simple *rules);

/*
 * Decides for user (short or internal form) in groups (group names, NULL-terminated; NULL
 * for none). *_allowed is set on EOK only. EINVAL: bad arguments or an invalid name;
 * ENOMEM.
 */
errno_t be_access_simple_check(const struct be_access_simple *rules, const char *user,
                               const char *const *groups, bool *_allowed);

#endif /* SSS_BE_ACCESS_SIMPLE_H */
