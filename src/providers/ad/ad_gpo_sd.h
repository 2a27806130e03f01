/*
 * GPO security filtering (access_provider = ad): a GPO's nTSecurityDescriptor, read from
 * the directory as untrusted bytes, and whether the GPO applies to a logon. Pure parts,
 * with no I/O (ad_gpo_sd.c), shared by the back-end (ad_gpo_access.c), the unit tests and
 * the libFuzzer harness tests/fuzz/fuzz_ad_gpo_sd.c.
 *
 * The bytes are a self-relative SECURITY_DESCRIPTOR (MS-DTYP 2.4.6); only its DACL (ACL,
 * 2.4.5) is kept, with each ACE's type, flags, access mask, object type GUID (object ACEs,
 * 2.4.4.3) and trustee SID in its S-1-... form. ACE types without a SID we need (audit,
 * callback...) are kept with their type only and never match.
 */
#ifndef AD_GPO_SD_H
#define AD_GPO_SD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <talloc.h>

#include "util/util.h"

/* The "Apply Group Policy" extended right, edacfd8f-ffb3-11d1-b41d-00a0c968f939, as the
 * 16 bytes of an ACE's ObjectType (Data1-3 little-endian). */
#define AD_GPO_AGP_GUID_BYTES \
    { 0x8f, 0xfd, 0xac, 0xed, 0xb3, 0xff, 0xd1, 0x11, \
      0xb4, 0x1d, 0x00, 0xa0, 0xc9, 0x68, 0xf9, 0x39 }

#define AD_GPO_ACE_ALLOWED 0x00
#define AD_GPO_ACE_DENIED 0x01
#define AD_GPO_ACE_ALLOWED_OBJECT 0x05
#define AD_GPO_ACE_DENIED_OBJECT 0x06
#define AD_GPO_ACE_INHERIT_ONLY 0x08            /* AceFlags */
#define AD_GPO_RIGHT_DS_READ_PROPERTY 0x00000010
#define AD_GPO_RIGHT_DS_CONTROL_ACCESS 0x00000100

struct ad_gpo_ace {
    uint8_t type;
    uint8_t flags;
    uint32_t mask;
    bool has_object_type;
    uint8_t object_type[16];
    char *trustee;              /* NULL for a type we do not read */
};

struct ad_gpo_sd {
    bool has_dacl;              /* SE_DACL_PRESENT and a DACL (not a NULL DACL) */
    size_t num_aces;
    struct ad_gpo_ace *aces;
};

/* Parses a self-relative security descriptor. EINVAL for anything malformed: a revision
 * other than 1, offsets or sizes outside the bytes, an ACL revision other than 2 or 4, an
 * ACE shorter than its type needs, a SID that does not fill its place. ENOMEM. */
errno_t ad_gpo_sd_parse(TALLOC_CTX *mem_ctx, const uint8_t *data, size_t len,
                        struct ad_gpo_sd **_sd);

/* Whether the GPO applies, as SSSD decides it ([MS-ADTS] 5.1.3.3.2 and 5.1.3.3.4): the
 * logon's SIDs are the user's, the host's (computer account) and group_sids, with
 * Authenticated Users (S-1-5-11) always counted; ACEs flagged inherit-only are skipped.
 * No DACL: applies. An empty DACL: does not. Otherwise the access/denied ACEs of the
 * logon's SIDs first grant or deny read property in order (a right denied before it is
 * granted stays denied); then the first object ACE of the logon's SIDs carrying the
 * control access right for Apply Group Policy (or for every extended right: no object
 * type) decides: allowed or denied, provided read property was granted; an ACE met
 * before read property was granted is passed over. None decides: does not apply.
 * host_sid may be NULL. */
bool ad_gpo_sd_applies(const struct ad_gpo_sd *sd, const char *user_sid,
                       const char *host_sid, const char *const *group_sids,
                       size_t num_groups);

#endif /* AD_GPO_SD_H */
