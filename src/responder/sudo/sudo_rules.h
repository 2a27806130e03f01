/*
 * sudo_rules: which cached rules a user gets, as pure code (no I/O): the sudoUser match
 * (the user's name, #uid, %group and %#gid of each of the user's groups, +netgroup, which
 * sudo itself checks, and ALL), the defaults entry (cn=defaults), sudo_timed
 * (sudoNotBefore/sudoNotAfter, generalized time), sudoOrder (ascending; descending with
 * sudo_inverse_order; rules without an order first, then by name for a stable answer), and
 * the reply body of PROTOCOL.md "sudo bodies" with the request's parser.
 */
#ifndef SUDO_RULES_H
#define SUDO_RULES_H

#include "util/util.h"
#include "db/sysdb_sudo.h"

/* SSSD's reply error codes (the first uint32 of a reply). */
#define SUDO_ERROR_OK 0

/* Who asks: everything a sudoUser value is compared with. */
struct sudo_user_info {
    const char *name;           /* as the domain stores it, short */
    const char *fqname;         /* name@domain (may equal name's forms; may be NULL) */
    uint32_t uid;
    const char *const *groups;  /* short group names, NULL-terminated (may be NULL) */
    const uint32_t *gids;       /* the user's gids, primary included */
    size_t num_gids;
    bool case_sensitive;
};

/* The rule applies to the user (a sudoUser value matches). */
bool sudo_rule_matches_user(const struct sysdb_sudo_rule *rule,
                            const struct sudo_user_info *user);

/* The rule is the defaults entry. */
bool sudo_rule_is_defaults(const struct sysdb_sudo_rule *rule);

/* sudo_timed: valid at now (no bounds, or within one sudoNotBefore and one sudoNotAfter).
 * A value that does not parse makes the rule invalid (logged). */
bool sudo_rule_valid_at(const struct sysdb_sudo_rule *rule, time_t now);

/* Generalized time ("20250101000000Z", fractions and offsets allowed) -> time_t. EINVAL. */
errno_t sudo_parse_gentime(const char *s, time_t *_t);

/* Sorts rules[0..n) by sudoOrder (see above). */
void sudo_rules_sort(const struct sysdb_sudo_rule **rules, size_t n, bool inverse);

/* Request body: uint32 uid, name with its NUL (non-empty, valid UTF-8, nothing after it).
 * *_name points into body. EINVAL for anything else. */
errno_t sudo_parse_query(const uint8_t *body, size_t len, uint32_t *_uid, const char **_name);

/* Appends the reply body (error 0, domain "", rules) to out, a talloc'd buffer. */
errno_t sudo_build_reply(TALLOC_CTX *mem_ctx, const struct sysdb_sudo_rule *const *rules,
                         size_t n, uint8_t **_body, size_t *_len);

#endif /* SUDO_RULES_H */
