/*
 * Lookups by SID for libsss_nss_idmap (sss_nss_getsidbyname, getnamebysid, getidbysid,
 * getsidbyid/uid/gid, getsidbyusername/groupname, getorigbygroupname): the commands
 * 0x0111.. of SSSD's sss_cli.h, answered as SSSD 2.8's nss responder answers them.
 *
 * nss_protocol_sid.c: the SID string check (untrusted bytes: fuzzed by
 * tests/fuzz/fuzz_nss_sid.c), request bodies and replies; nss_sid_map.c: a domain's
 * SID <-> id mapping, built from the slices the back-end recorded in the domain's cache
 * (ldap_id_mapping = true), so the responder maps exactly as the back-end did, and kept;
 * nss_cmd_sid.c: the commands, on top of cache_req (which asks the back-end, keeps the
 * answer in the cache and the misses in the negative cache); well-known SIDs come from
 * lib/idmap/idmap_wellknown.h, no domain asked.
 */
#ifndef NSS_SID_H
#define NSS_SID_H

#include "responder/nss/nss_private.h"
#include "lib/idmap/idmap.h"

/* sss_nss_idmap.h's enum sss_id_type. */
enum nss_sid_id_type {
    NSS_SID_TYPE_NOT_SPECIFIED = 0,
    NSS_SID_TYPE_UID = 1,
    NSS_SID_TYPE_GID = 2,
    NSS_SID_TYPE_BOTH = 3,
};

/* Longest SID string accepted in a request, NUL excluded: "S-1-" + a 48-bit authority +
 * 15 sub-authorities of 10 digits is under 190 bytes. */
#define NSS_SID_STR_MAX 192

/* ---- nss_protocol_sid.c ---- */

/* True when s[0..len) (no NUL inside) is a SID string: S-1-<authority>[-<sub>]{0,15},
 * the authority a decimal up to 2^48-1 or 0x + 12 hex digits at most, each sub-authority a
 * decimal up to 2^32-1, no sign, no space, no empty part. */
bool nss_sid_str_valid(const char *s, size_t len);

/* The body of GETNAMEBYSID / GETIDBYSID: the SID string with its NUL. EBADMSG: no NUL at
 * the end, or one inside (the connection is closed); EINVAL: not a SID or longer than
 * NSS_SID_STR_MAX (answered with that status). *_sid points into body. */
errno_t nss_sid_request_parse(const uint8_t *body, size_t len, const char **_sid);

/* Replies: one result of type type holding a string (SID, name) or an id; the empty
 * "not found" reply. NULL on ENOMEM. */
struct resp_reply *nss_sid_reply_str(TALLOC_CTX *mem_ctx, uint32_t cmd, uint32_t type,
                                     const char *s);
struct resp_reply *nss_sid_reply_id(TALLOC_CTX *mem_ctx, uint32_t cmd, uint32_t type,
                                    uint32_t id);
struct resp_reply *nss_sid_reply_none(TALLOC_CTX *mem_ctx, uint32_t cmd);

/* ---- nss_sid_map.c ---- */

/* The ID map of dom as its back-end built it: the options of [domain/NAME] and the slices
 * its cache recorded; kept between requests (nss_sid_map.c says when it is built again),
 * valid until the next call of these functions. ENOTSUP: the domain does not map ids from
 * SIDs (ldap_id_mapping = false); errors of confdb, sysdb and idmap_ctx_create (logged).
 * *_rangesize: the slice size. */
errno_t nss_sid_map_get(struct nss_ctx *nctx, struct resp_domain *dom,
                        struct idmap_ctx **_map, uint32_t *_rangesize);

/* The SID of id in dom; ENOENT when dom's map gives it none (not mapped, or in a secondary
 * slice, whose place depends on the back-end's order of lookups: not answered here),
 * ENOTSUP as above, ENOMEM. */
errno_t nss_sid_of_id(TALLOC_CTX *mem_ctx, struct nss_ctx *nctx, struct resp_domain *dom,
                      uint32_t id, char **_sid);

/* The SID of an object of dom with id and, when the cache holds one, its stored SID
 * (objectSIDString, from the directory's objectSid): the stored one first, as SSSD answers
 * from the cache, else what dom's map gives (nss_sid_of_id: ENOENT, ENOTSUP, ENOMEM). */
errno_t nss_sid_of_entry(TALLOC_CTX *mem_ctx, struct nss_ctx *nctx, struct resp_domain *dom,
                         const char *stored, uint32_t id, char **_sid);

/* The domain and id a SID maps to. ENOENT when no domain's map holds it, with *_ask: true
 * when a directory may still hold it (a domain that does not map ids, a map the back-end
 * has put no domain in yet, a RID in a secondary slice of a domain a map holds), false
 * when no domain we serve can (a SID of a domain no map holds, or not a domain SID: it is
 * not asked for). ENOMEM. */
errno_t nss_sid_to_id(struct nss_ctx *nctx, const char *sid, struct resp_domain **_dom,
                      uint32_t *_id, bool *_ask);

/* auto_private_groups = true in dom: read once (again after a cache reset, SIGHUP). */
bool nss_sid_domain_mpg(struct nss_ctx *nctx, struct resp_domain *dom);

/* ---- nss_sid_type.c ---- */

/* The type of a user (group NULL) or of group, found in dom: NSS_SID_TYPE_UID for a user,
 * _GID for a group; NSS_SID_TYPE_BOTH instead for a user, or a user's private group, of a
 * domain with auto_private_groups = true. */
uint32_t nss_sid_type_of(struct nss_ctx *nctx, struct resp_domain *dom,
                         const struct sysdb_group *group);

/* ---- nss_cmd_sid.c ---- */

/* The handler of every command above. */
errno_t nss_cmd_sid(struct resp_request *rreq);

#endif /* NSS_SID_H */
