/*
 * GPO security filtering (ad_gpo_sd.h): parses a GPO's nTSecurityDescriptor, bytes the
 * directory sent and nothing vouches for, and decides whether the GPO applies to a logon
 * as SSSD does. Every offset and size is checked against the bytes before it is used;
 * tests/fuzz/fuzz_ad_gpo_sd.c drives the parser.
 */
#include <string.h>

#include "lib/idmap/idmap.h"
#include "providers/ad/ad_gpo_sd.h"

#define SD_HEADER_LEN 20
#define SD_REVISION 1
#define SD_DACL_PRESENT 0x0004
#define ACL_HEADER_LEN 8
#define ACE_HEADER_LEN 4
#define ACE_OBJECT_TYPE_PRESENT 0x1
#define ACE_INHERITED_OBJECT_TYPE_PRESENT 0x2
#define SID_MIN_LEN 8
#define SID_MAX_SUBAUTH 15

#define AD_GPO_AUTH_USERS "S-1-5-11"

static uint16_t get16(const uint8_t *p)
{
    return (uint16_t)(p[0] | p[1] << 8);
}

static uint32_t get32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16
           | (uint32_t)p[3] << 24;
}

/* The SID at p (at most avail bytes) into its string form. */
static errno_t parse_sid(TALLOC_CTX *mem_ctx, const uint8_t *p, size_t avail, char **_sid)
{
    size_t len;

    if (avail < SID_MIN_LEN || p[1] > SID_MAX_SUBAUTH) {
        return EINVAL;
    }
    len = SID_MIN_LEN + 4 * (size_t)p[1];
    if (len > avail) {
        return EINVAL;
    }
    return idmap_bin_sid_to_str(mem_ctx, p, len, _sid);
}

/* One ACE of size bytes at p (its header checked by the caller). */
static errno_t parse_ace(TALLOC_CTX *mem_ctx, const uint8_t *p, size_t size,
                         struct ad_gpo_ace *ace)
{
    size_t off = ACE_HEADER_LEN;
    uint32_t oflags;

    ace->type = p[0];
    ace->flags = p[1];
    if (ace->type != AD_GPO_ACE_ALLOWED && ace->type != AD_GPO_ACE_DENIED
            && ace->type != AD_GPO_ACE_ALLOWED_OBJECT
            && ace->type != AD_GPO_ACE_DENIED_OBJECT) {
        return EOK;     /* never matches: no trustee */
    }
    if (size < off + 4) {
        return EINVAL;
    }
    ace->mask = get32(p + off);
    off += 4;
    if (ace->type == AD_GPO_ACE_ALLOWED_OBJECT || ace->type == AD_GPO_ACE_DENIED_OBJECT) {
        if (size < off + 4) {
            return EINVAL;
        }
        oflags = get32(p + off);
        off += 4;
        if (oflags & ACE_OBJECT_TYPE_PRESENT) {
            if (size < off + 16) {
                return EINVAL;
            }
            memcpy(ace->object_type, p + off, 16);
            ace->has_object_type = true;
            off += 16;
        }
        if (oflags & ACE_INHERITED_OBJECT_TYPE_PRESENT) {
            if (size < off + 16) {
                return EINVAL;
            }
            off += 16;
        }
    }
    return parse_sid(mem_ctx, p + off, size - off, &ace->trustee);
}

errno_t ad_gpo_sd_parse(TALLOC_CTX *mem_ctx, const uint8_t *data, size_t len,
                        struct ad_gpo_sd **_sd)
{
    TALLOC_CTX *tmp_ctx;
    struct ad_gpo_sd *sd;
    const uint8_t *acl;
    uint32_t dacl_off;
    size_t acl_size;
    size_t count;
    size_t off;
    size_t ace_size;
    errno_t ret;

    SSS_CHECK_ARG((data != NULL || len == 0) && _sd != NULL, EINVAL);
    if (len < SD_HEADER_LEN || data[0] != SD_REVISION) {
        return EINVAL;
    }
    tmp_ctx = talloc_new(NULL);
    sd = talloc_zero(tmp_ctx, struct ad_gpo_sd);
    if (tmp_ctx == NULL || sd == NULL) {
        ret = ENOMEM;
        goto done;
    }
    dacl_off = get32(data + 16);
    /* Without the present bit, or with a NULL DACL (offset 0), nothing is restricted. */
    if (!(get16(data + 2) & SD_DACL_PRESENT) || dacl_off == 0) {
        ret = EOK;
        goto done;
    }
    if (dacl_off < SD_HEADER_LEN || dacl_off > len || len - dacl_off < ACL_HEADER_LEN) {
        ret = EINVAL;
        goto done;
    }
    acl = data + dacl_off;
    acl_size = get16(acl + 2);
    count = get16(acl + 4);
    if ((acl[0] != 2 && acl[0] != 4) || acl_size < ACL_HEADER_LEN
            || acl_size > len - dacl_off
            || count > (acl_size - ACL_HEADER_LEN) / ACE_HEADER_LEN) {
        ret = EINVAL;
        goto done;
    }
    sd->has_dacl = true;
    sd->aces = talloc_zero_array(sd, struct ad_gpo_ace, count > 0 ? count : 1);
    if (sd->aces == NULL) {
        ret = ENOMEM;
        goto done;
    }
    off = ACL_HEADER_LEN;
    for (size_t i = 0; i < count; i++) {
        if (acl_size - off < ACE_HEADER_LEN) {
            ret = EINVAL;
            goto done;
        }
        ace_size = get16(acl + off + 2);
        if (ace_size < ACE_HEADER_LEN || ace_size > acl_size - off) {
            ret = EINVAL;
            goto done;
        }
        ret = parse_ace(sd->aces, acl + off, ace_size, &sd->aces[i]);
        if (ret != EOK) {
            goto done;
        }
        off += ace_size;
    }
    sd->num_aces = count;
    ret = EOK;
done:
    if (ret == EOK) {
        *_sd = talloc_steal(mem_ctx, sd);
    }
    talloc_free(tmp_ctx);
    return ret;
}

static bool sid_is_logon(const char *sid, const char *user_sid, const char *host_sid,
                         const char *const *group_sids, size_t num_groups)
{
    if (sid == NULL) {
        return false;
    }
    if (strcmp(sid, AD_GPO_AUTH_USERS) == 0 || (user_sid != NULL && strcmp(sid, user_sid) == 0)
            || (host_sid != NULL && strcmp(sid, host_sid) == 0)) {
        return true;
    }
    for (size_t i = 0; i < num_groups; i++) {
        if (group_sids[i] != NULL && strcmp(sid, group_sids[i]) == 0) {
            return true;
        }
    }
    return false;
}

bool ad_gpo_sd_applies(const struct ad_gpo_sd *sd, const char *user_sid,
                       const char *host_sid, const char *const *group_sids,
                       size_t num_groups)
{
    static const uint8_t agp[16] = AD_GPO_AGP_GUID_BYTES;
    const struct ad_gpo_ace *ace;
    uint32_t granted = 0;
    uint32_t denied = 0;
    bool mine;

    assert(sd != NULL);
    if (!sd->has_dacl) {
        return true;
    }
    /* Read property, from the plain ACEs ([MS-ADTS] 5.1.3.3.2). */
    for (size_t i = 0; i < sd->num_aces; i++) {
        ace = &sd->aces[i];
        if ((ace->flags & AD_GPO_ACE_INHERIT_ONLY)
                || !sid_is_logon(ace->trustee, user_sid, host_sid, group_sids, num_groups)) {
            continue;
        }
        if (ace->type == AD_GPO_ACE_DENIED) {
            denied |= ace->mask & ~granted;
        } else if (ace->type == AD_GPO_ACE_ALLOWED) {
            granted |= ace->mask & ~denied;
        }
    }
    /* Apply Group Policy, from the object ACEs ([MS-ADTS] 5.1.3.3.4): the first wins. */
    for (size_t i = 0; i < sd->num_aces; i++) {
        ace = &sd->aces[i];
        if (ace->type != AD_GPO_ACE_ALLOWED_OBJECT && ace->type != AD_GPO_ACE_DENIED_OBJECT) {
            continue;
        }
        mine = !(ace->flags & AD_GPO_ACE_INHERIT_ONLY)
               && sid_is_logon(ace->trustee, user_sid, host_sid, group_sids, num_groups);
        if (!mine || !(ace->mask & AD_GPO_RIGHT_DS_CONTROL_ACCESS)
                || (ace->has_object_type && memcmp(ace->object_type, agp, 16) != 0)) {
            continue;
        }
        if (granted & AD_GPO_RIGHT_DS_READ_PROPERTY) {
            return ace->type == AD_GPO_ACE_ALLOWED_OBJECT;
        }
    }
    return false;
}
