/*
 * The trusted domains of an AD domain ("subdomains", as SSSD calls them): sssd_be with
 * id_provider = ad reads the joined domain's trustedDomain objects once registered and
 * then every subdomain_refresh_interval seconds (default 14400), and records them in the
 * domain's cache (sysdb_subdomains.h), where responders and sssctl read them. A trust
 * that disappears from the directory disappears from the cache at the next refresh, with
 * its cached users and groups. The back-end routes the requests about a trusted domain's
 * objects to that domain's DCs (ad_subdom_route). Owned by the be_ctx (freed with it).
 */
#ifndef SSS_AD_SUBDOMAINS_H
#define SSS_AD_SUBDOMAINS_H

#include "providers/backend/be_ctx.h"

struct sdap_entry;
struct sysdb_subdom;
struct sdap_id_ctx;
struct be_filter;

/* Starts the refreshes (the first one now). EOK without doing anything when the domain's
 * id provider is not ad. Errors: ENOMEM, confdb errors (logged). */
errno_t ad_subdom_start(struct be_ctx *be);

/* One trustedDomain entry as a trusted domain to record: name lowercased, on mem_ctx.
 * ENOENT (logged): not one this host resolves users of (not an AD trust, or only
 * inbound: that domain trusts us, we do not trust it); EINVAL (logged): an attribute
 * missing or malformed. */
errno_t ad_subdom_from_entry(TALLOC_CTX *mem_ctx, const struct sdap_entry *entry,
                             struct sysdb_subdom *_sub);

/*
 * Where an account request of the joined domain's back-end goes when it is about a
 * trusted domain's object: a name "user@b.test" whose suffix is a recorded trusted
 * domain, an id in the ID-mapping slice of a trusted domain's SID, or a SID of that
 * domain. Returns the trusted domain's id context (made on first use: the DCs of that
 * domain found through DNS SRV records, bound with the joined domain's machine TGT and
 * ccache, which gives cross-realm tickets; the same ID map; every name read stored with
 * "@b.test"), with *_sub the filter to run there (by name: the name without its suffix,
 * except for an initgroups, which starts from the cached, qualified user) on mem_ctx.
 * NULL: the joined domain's request, or no memory for the trusted domain's context
 * (logged; the request then goes to the joined domain's DCs, which do not hold it).
 */
struct sdap_id_ctx *ad_subdom_route(TALLOC_CTX *mem_ctx, struct be_ctx *be, uint32_t type,
                                    const struct be_filter *filter, struct be_filter *_sub);

#endif /* SSS_AD_SUBDOMAINS_H */
