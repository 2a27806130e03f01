/*
 * Names as clients write them and as responders answer them.
 *
 * Input: "name@domain" is fully qualified when the part after the last '@' names a
 * configured domain (without regard to case); the lookup is then limited to that domain.
 * When it names a domain a configured one trusts (resp_domain_trusting: its DNS name or
 * its flat name, "dave@b.test" or "dave@B"), the lookup is limited to the trusting domain,
 * of "dave@b.test": trusted domains' objects are stored and answered fully qualified with
 * the DNS name, as SSSD answers them. The down-level form "B\dave" (or "b.test\dave"),
 * which SSSD's AD default re_expression accepts, names the same object; a backslash name
 * whose prefix is no trusted domain stays a short name, as before. (The joined domain's own
 * flat name is not recorded anywhere the responder reads: "AD\alice" and "alice@AD" are
 * not understood, where SSSD understands them; "ad.test\alice" is.) A trusted domain that
 * is configured itself is that domain in every form (its own back-end answers it).
 * A name without '@' is short: it is looked up in default_domain_suffix's domain when that
 * is set, else in every domain that does not require fully qualified names
 * (use_fully_qualified_names = true). A name whose '@' suffix is not a configured domain is
 * unknown (not found), as with SSSD's default re_expression. Custom re_expression values are
 * not interpreted (documented limitation): the split at the last '@' is what the default
 * expression "(?P<name>[^@]+)@?(?P<domain>[^@]*$)" does.
 *
 * Output: the short name, or full_name_format applied (%1$s name, %2$s domain, %3$s flat
 * name = domain name here, %% a percent sign) when the domain uses fully qualified names
 * or default_domain_suffix is set; a trusted domain's "dave@b.test" is printed as it is.
 */
#ifndef RESP_NAMES_H
#define RESP_NAMES_H

#include "responder/common/responder_domains.h"

/*
 * Splits input. *_dom is the one domain to search, or NULL for "every domain that accepts
 * short names"; *_short is the name without the domain, or "name@dns.name" for a trusted
 * domain's (on mem_ctx).
 * Errors: EINVAL (empty name or empty part), ENOENT (unknown domain suffix), ENOMEM.
 */
errno_t resp_parse_name(TALLOC_CTX *mem_ctx, struct resp_ctx *rctx, const char *input,
                        struct resp_domain **_dom, char **_short);

/* The short form of a name as dom's cache stores it (sysdb_short_name()), on mem_ctx.
 * Errors: those of resp_domain_sysdb(), EINVAL, ENOMEM. */
errno_t resp_short_name(TALLOC_CTX *mem_ctx, struct resp_ctx *rctx, struct resp_domain *dom,
                        const char *stored, char **_short);

/* The name clients see for short_name of dom. NULL on ENOMEM. */
char *resp_output_name(TALLOC_CTX *mem_ctx, struct resp_ctx *rctx, struct resp_domain *dom,
                       const char *short_name);

/* full_name_format expansion alone. NULL on ENOMEM. */
char *resp_format_fqname(TALLOC_CTX *mem_ctx, const char *format, const char *name,
                         const char *domain);

/* True when short_name of dom is listed in list: as "name" (any domain) or "name@domain".
 * Names compare without regard to case in case-insensitive domains. NULL list: false. */
bool resp_name_in_list(struct resp_domain *dom, char *const *list, const char *short_name);

/* A user (or group) filtered by [nss] filter_users (filter_groups) or the domain's list. */
bool resp_user_is_filtered(struct resp_ctx *rctx, struct resp_domain *dom,
                           const char *short_name);
bool resp_group_is_filtered(struct resp_ctx *rctx, struct resp_domain *dom,
                            const char *short_name);

/* filter_users of one domain, prepared once for many checks (a big group's member list):
 * only the entries that apply to the domain, with their lengths. */
struct resp_name_filter {
    size_t num;
    const char **names;     /* the name part of each applicable entry (not NUL-terminated) */
    size_t *lens;
    bool fold;              /* compare without regard to case */
};

/* resp_user_is_filtered() as a prepared filter for dom (on mem_ctx). NULL on ENOMEM. */
struct resp_name_filter *resp_user_filter_prepare(TALLOC_CTX *mem_ctx, struct resp_ctx *rctx,
                                                  struct resp_domain *dom);
/* The same answer as resp_user_is_filtered() for the len bytes at name. */
bool resp_name_filter_match(const struct resp_name_filter *f, const char *name, size_t len);

/* The name as the negative cache keys it: lowercased (ASCII) unless dom is case sensitive.
 * NULL on ENOMEM. */
char *resp_ncache_name(TALLOC_CTX *mem_ctx, struct resp_domain *dom, const char *short_name);

#endif /* RESP_NAMES_H */
