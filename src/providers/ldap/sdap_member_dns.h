/*
 * Member DNs to entries (sdap_member_dns.c), for the resolution of rfc2307bis members in
 * sdap_groups.c: the entries of many DNs read on the id context's shared connection with
 * OR-filter searches on the RDN value where the DN's shape allows it, base lookups
 * otherwise.
 */
#ifndef SSS_SDAP_MEMBER_DNS_H
#define SSS_SDAP_MEMBER_DNS_H

#include "providers/ldap/sdap_private.h"

/* Member DNs resolved by their RDN value: values per OR filter, searches in flight. */
#define SDAP_DN_BATCH 125
#define SDAP_DN_BATCH_WINDOW 16

/*
 * The entries of dns[0..n), read with attrs: the same result as sdap_id_lookup_dns
 * (an array aligned with dns, NULL for a DN that does not exist or is not a DN), in far
 * fewer searches. DNs whose first RDN is the user (group) name attribute and that lie under
 * the user (group) search base are read with OR filters on that value, SDAP_DN_BATCH per
 * search (any object class), and a returned entry is taken only when its canonical DN is
 * a requested one; a DN a successful batch did not return does not exist (an entry holds
 * its RDN's value); every other DN, and those of failed batches, get a base lookup.
 *
 * canons (optional, aligned with dns) holds the sdap_dn_canon() forms when the caller has
 * them already. dns, canons and attrs must live as long as the request.
 * Errors: those of sdap_id_search (a batch the server refuses falls back to base
 * lookups, except for ENOMEM, ETIMEDOUT and ENETUNREACH), ENOMEM.
 */
struct tevent_req *sdap_member_dns_send(TALLOC_CTX *mem_ctx, struct tevent_context *ev,
                                        struct sdap_id_ctx *id_ctx,
                                        const char *const *dns,
                                        const char *const *canons, size_t n,
                                        const char *const *attrs);
/* The entries, aligned with dns, on mem_ctx. */
errno_t sdap_member_dns_recv(TALLOC_CTX *mem_ctx, struct tevent_req *req,
                             struct sdap_entry ***_entries);

#endif /* SSS_SDAP_MEMBER_DNS_H */
