/*
 * D-Bus match rules as the master bus keeps them for AddMatch/RemoveMatch: a parser for the
 * textual form ("type='signal',interface='x',member='y',arg0='z'"), a matcher against a
 * message, and field-by-field equality. Pure code: no server state, no logging.
 *
 * Supported keys: type, sender, interface, member, path, path_namespace, destination and
 * arg0..arg63 (string equality). Anything else makes the rule invalid.
 */
#ifndef SBUS_MATCH_H
#define SBUS_MATCH_H

#include <stdbool.h>
#include <dbus/dbus.h>
#include <talloc.h>

#include "util/sss_errors.h"

/* Longest rule text accepted (the D-Bus specification's limit). */
#define SBUS_MATCH_RULE_MAX_LEN 1024
/* argN keys accepted: arg0 .. arg63. */
#define SBUS_MATCH_RULE_MAX_ARGS 64

/* A parsed rule. NULL (or DBUS_MESSAGE_TYPE_INVALID for type) means "any". */
struct sbus_match_rule {
    int type;                   /* DBUS_MESSAGE_TYPE_* */
    const char *sender;
    const char *interface;
    const char *member;
    const char *path;
    const char *path_namespace;
    const char *destination;
    const char **args;          /* args[i] for argi; num_args entries, NULL = no condition */
    unsigned int num_args;      /* highest argN used + 1; 0 when none */
};

/*
 * Parses text into a rule allocated on mem_ctx (all strings are its children).
 * Errors: EINVAL (syntax, unknown or duplicate key, bad value, too long), ENOMEM.
 */
errno_t sbus_match_rule_parse(TALLOC_CTX *mem_ctx, const char *text,
                              struct sbus_match_rule **_rule);

/* Whether the connection that sent the message being matched owns the bus name name. */
typedef bool (*sbus_match_sender_fn)(const char *name, void *pvt);

/* Whether msg satisfies every condition of rule; the rule's sender is compared with the
 * message's sender only. */
bool sbus_match_rule_matches(const struct sbus_match_rule *rule, DBusMessage *msg);

/* Like sbus_match_rule_matches, but when the rule's sender differs from the message's,
 * owns_name(rule->sender, pvt) decides (the bus answers whether the sending connection
 * owns that well-known name). owns_name may be NULL. */
bool sbus_match_rule_matches_full(const struct sbus_match_rule *rule, DBusMessage *msg,
                                  sbus_match_sender_fn owns_name, void *pvt);

/* Whether both rules have the same parsed fields (what RemoveMatch compares). */
bool sbus_match_rule_equal(const struct sbus_match_rule *a, const struct sbus_match_rule *b);

#endif /* SBUS_MATCH_H */
