/*
 * SID <-> POSIX id mapping, computed exactly as SSSD does (ldap_id_mapping = true), so a
 * machine that switches between SSSD and this suite keeps its files' owners.
 *
 * The id space [range_min, range_max) is cut into slices of range_size ids. A domain's
 * primary slice is picked from MurmurHash3 (x86_32, seed 0xdeadbeef) of its SID string
 * ("S-1-5-21-a-b-c"): slice = hash % number of slices, moved to the next free slice (and
 * round) when it overlaps one already taken; with autorid_compat the search starts at slice
 * 0 instead; ldap_idmap_default_domain_sid puts that domain in slice 0. The id of a SID is
 * the slice start + RID. RIDs beyond range_size use secondary slices: RIDs
 * [k * range_size, (k + 1) * range_size) of a domain hash the name "<domain SID>-<k *
 * range_size>" the same way. helper_table_size secondary slices are computed when the
 * domain is added (they avoid the slices taken at that moment; with 0 there are no secondary
 * slices at all); one becomes a registered
 * slice (that later picks avoid) when a SID or id of it is first mapped.
 *
 * Pure data and functions: no I/O, no global state. An idmap context is a talloc object.
 */
#ifndef SSS_IDMAP_H
#define SSS_IDMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <talloc.h>

#include "util/sss_errors.h"

/* SSSD's defaults. */
#define IDMAP_DEFAULT_LOWER 200000
#define IDMAP_DEFAULT_UPPER 2000200000
#define IDMAP_DEFAULT_RANGESIZE 200000
#define IDMAP_DEFAULT_HELPERS 10
/* The seed SSSD hashes SIDs with. */
#define IDMAP_HASH_SEED 0xdeadbeef

struct idmap_opts {
    uint32_t lower;             /* ldap_idmap_range_min */
    uint32_t upper;             /* ldap_idmap_range_max */
    uint32_t rangesize;         /* ldap_idmap_range_size */
    bool autorid;               /* ldap_idmap_autorid_compat */
    uint32_t helpers;           /* ldap_idmap_helper_table_size */
};

struct idmap_ctx;

/* Errors: EINVAL (rangesize 0, upper <= lower, fewer ids than one slice), ENOMEM. */
errno_t idmap_ctx_create(TALLOC_CTX *mem_ctx, const struct idmap_opts *opts,
                         struct idmap_ctx **_ctx);

/* Adds a domain by name and SID ("S-1-5-21-a-b-c") in slice *_slice, or, when *_slice is
 * -1, in the slice the hash picks; *_slice is then the slice used. Errors: EINVAL (not a
 * domain SID, slice beyond the range), EEXIST (overlaps a domain or the name or SID is
 * already used), ERANGE (no free slice), ENOMEM. */
errno_t idmap_add_domain(struct idmap_ctx *ctx, const char *name, const char *dom_sid,
                         int64_t *_slice);

/* The id of a SID. Errors: EINVAL (not S-1-5-21-a-b-c-RID), ENOENT (no such domain: add
 * it first), ENOTSUP (a BUILTIN SID, S-1-5-32-*: not mapped, as in SSSD), ERANGE (no slice can hold it), ENOMEM. */
errno_t idmap_sid_to_id(struct idmap_ctx *ctx, const char *sid, uint32_t *_id);

/* The SID of an id, on mem_ctx. Errors: ENOENT (in no slice), ENOMEM. */
errno_t idmap_id_to_sid(TALLOC_CTX *mem_ctx, struct idmap_ctx *ctx, uint32_t id,
                        char **_sid);

/* The primary slice of the domain with SID dom_sid (the slice number, as idmap_add_domain
 * takes it). ENOENT: no such domain. */
errno_t idmap_domain_slice(const struct idmap_ctx *ctx, const char *dom_sid,
                           uint32_t *_slice);

/* True once a domain was added. */
bool idmap_has_domains(const struct idmap_ctx *ctx);

/* True for "S-1-5-21-" and three 32-bit sub-authorities, nothing after. */
bool idmap_is_domain_sid(const char *sid);

/* The domain part of an object SID (without its last sub-authority) on mem_ctx, and the
 * RID. Errors: EINVAL (not S-1-5-21-a-b-c-RID), ENOMEM. */
errno_t idmap_split_sid(TALLOC_CTX *mem_ctx, const char *sid, char **_dom_sid,
                        uint32_t *_rid);

/* The binary SID of AD (objectSid, tokenGroups) as a string, on mem_ctx. Errors: EINVAL
 * (too short, length not matching its sub-authority count), ENOMEM. */
errno_t idmap_bin_sid_to_str(TALLOC_CTX *mem_ctx, const uint8_t *bin, size_t len,
                             char **_sid);

/* The other way, for search filters; *_len bytes on mem_ctx. Errors: EINVAL, ENOMEM. */
errno_t idmap_str_sid_to_bin(TALLOC_CTX *mem_ctx, const char *sid, uint8_t **_bin,
                             size_t *_len);

#endif /* SSS_IDMAP_H */
