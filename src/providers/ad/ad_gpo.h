/*
 * GPO-based access control for access_provider = ad (ad_gpo_access_control): the pure
 * parts, with no I/O, shared by the back-end and the tests.
 *
 *  - which GPOs apply and in which order: the SOMs above the computer object (its OUs and
 *    the domain; the site is added by the caller), each SOM's gPLink (disabled links
 *    dropped, only enforced ones kept above a SOM whose gPOptions blocks inheritance),
 *    the precedence SSSD uses ([unenforced site, domain, OU...; enforced ...], later
 *    wins), gPCMachineExtensionNames holding the Security CSE, gPCFileSysPath as an SMB
 *    URI of the GPO's GptTmpl.inf;
 *  - GptTmpl.inf ([Privilege Rights] of the Security CSE, UTF-16LE with a BOM, or UTF-8),
 *    a parser of untrusted bytes (tests/fuzz/fuzz_ad_gpo_inf.c), and the resultant
 *    policy (each key of a later GPO replaces the earlier value; an explicitly empty
 *    value removes it);
 *  - the PAM service to logon right map (ad_gpo_map_* with SSSD's defaults and its
 *    +service/-service syntax, ad_gpo_default_right) and the decision: a user is allowed
 *    when the allow list is empty (unless ad_gpo_implicit_deny) or holds the user's SID or
 *    one of its group SIDs, and the deny list holds none of them (deny wins).
 */
#ifndef AD_GPO_H
#define AD_GPO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <talloc.h>

#include "util/util.h"

/* The Security client-side extension: the only one evaluated. */
#define AD_GPO_CSE_SECURITY "{827D319E-6EAC-11D2-A4EA-00C04F79F83A}"
#define AD_GPO_GPTTMPL_SUFFIX "/Machine/Microsoft/Windows NT/SecEdit/GptTmpl.inf"
/* Every authenticated user is in this group (SSSD adds it to the user's groups). */
#define AD_GPO_AUTHENTICATED_USERS_SID "S-1-5-11"
/* GptTmpl.inf files larger than this are refused. */
#define AD_GPO_INF_MAX (1024 * 1024)

enum ad_gpo_right {
    AD_GPO_RIGHT_INTERACTIVE,
    AD_GPO_RIGHT_REMOTE_INTERACTIVE,
    AD_GPO_RIGHT_NETWORK,
    AD_GPO_RIGHT_BATCH,
    AD_GPO_RIGHT_SERVICE,
    AD_GPO_RIGHT_PERMIT,        /* always allowed */
    AD_GPO_RIGHT_DENY,          /* always denied */
    AD_GPO_RIGHT_NUM
};

/* The five logon rights that have keys in GptTmpl.inf, each an allow and a deny key. */
#define AD_GPO_NUM_LOGON_RIGHTS 5
#define AD_GPO_NUM_KEYS (2 * AD_GPO_NUM_LOGON_RIGHTS)

/* "Interactive", "Remote Interactive"... for logs; the option's word for parsing. */
const char *ad_gpo_right_name(enum ad_gpo_right right);
/* "SeInteractiveLogonRight" (allow) / "SeDenyInteractiveLogonRight"; NULL for permit and
 * deny. */
const char *ad_gpo_right_key(enum ad_gpo_right right, bool deny);

/* [Privilege Rights] settings of one GptTmpl.inf, or the resultant policy of several.
 * Index: 2 * right + deny. A key not set has sids == NULL. */
struct ad_gpo_settings {
    bool present[AD_GPO_NUM_KEYS];  /* the file names the key (maybe with no SID) */
    char **sids[AD_GPO_NUM_KEYS];   /* NULL-terminated, without the leading '*' */
    size_t num[AD_GPO_NUM_KEYS];
};

/* Parses a GptTmpl.inf: UTF-16LE with its BOM (FF FE), or UTF-8 (BOM optional). EINVAL
 * for anything else (odd length, a lone surrogate, a NUL, too large); other sections and
 * keys are ignored. */
errno_t ad_gpo_inf_parse(TALLOC_CTX *mem_ctx, const uint8_t *data, size_t len,
                         struct ad_gpo_settings **_settings);
/* Applies one GPO's settings on top of the resultant policy (GPOs in precedence order). */
errno_t ad_gpo_settings_apply(struct ad_gpo_settings *result,
                              const struct ad_gpo_settings *gpo);

/* ---- which GPOs ---------------------------------------------------------------- */

struct ad_gpo_link {
    char *gpo_dn;
    bool enforced;
};

/* "[LDAP://cn={GUID},cn=policies,...;0][...;2]": links 1 and 3 (disabled) dropped,
 * 0 (unenforced) dropped when enforced_only, 2 enforced; anything else EINVAL. */
errno_t ad_gpo_gplink_parse(TALLOC_CTX *mem_ctx, const char *raw, bool enforced_only,
                            struct ad_gpo_link **_links, size_t *_num);

/* The SOMs of a computer object's DN: its parents starting with OU= or DC=, nearest first,
 * up to the first DC= component's DN (the domain). EINVAL for a malformed DN. */
errno_t ad_gpo_som_dns(TALLOC_CTX *mem_ctx, const char *target_dn, char ***_soms,
                       size_t *_num);

struct ad_gpo_som {
    const char *dn;
    struct ad_gpo_link *links;
    size_t num_links;
};

/* The GPO DNs in the order they apply (the last one wins a conflict), from the SOMs
 * nearest first (OUs, domain, then site): unenforced links of the site, domain, then OUs
 * outwards in, each SOM's first link last; then enforced links, OUs first. */
errno_t ad_gpo_candidates(TALLOC_CTX *mem_ctx, const struct ad_gpo_som *soms,
                          size_t num_soms, char ***_dns, size_t *_num);

/* gPCMachineExtensionNames "[{cse}{tool}...][...]" names the Security CSE. */
bool ad_gpo_has_security_cse(const char *machine_ext_names);

/* "\\dom\SysVol\dom\Policies\{GUID}" on server -> "smb://server/SysVol/dom/Policies/
 * {GUID}" + AD_GPO_GPTTMPL_SUFFIX. EINVAL for fewer than three backslashes. */
errno_t ad_gpo_smb_uri(TALLOC_CTX *mem_ctx, const char *server, const char *file_sys_path,
                       char **_uri);

/* ---- services and the decision -------------------------------------------------- */

struct ad_gpo_map;

/* opts[right]: the ad_gpo_map_* option of each right (NULL: unset), "+svc, -svc" only;
 * default_right: ad_gpo_default_right (NULL: deny). EINVAL for a bad item, a service in
 * two maps, or an unknown default right. */
errno_t ad_gpo_map_create(TALLOC_CTX *mem_ctx, const char *const opts[AD_GPO_RIGHT_NUM],
                          const char *default_right, struct ad_gpo_map **_map);
enum ad_gpo_right ad_gpo_map_service(const struct ad_gpo_map *map, const char *service);

enum ad_gpo_verdict {
    AD_GPO_ALLOWED,
    AD_GPO_NOT_ALLOWED,   /* allow list without any of the user's SIDs (or implicit deny) */
    AD_GPO_DENIED,        /* the deny list holds one of the user's SIDs */
};

/* The decision for one logon right on the resultant policy. group_sids need not hold
 * AD_GPO_AUTHENTICATED_USERS_SID: it is always counted. */
enum ad_gpo_verdict ad_gpo_check(const struct ad_gpo_settings *policy,
                                 enum ad_gpo_right right, bool implicit_deny,
                                 const char *user_sid, const char *const *group_sids,
                                 size_t num_groups);

#endif /* AD_GPO_H */
