/*
 * What a search's messages carry, out of libldap: a result entry into a plain struct
 * sdap_entry, and the paged-results cookie of the final message; and the bound on how
 * large a message libldap may take from a server. The first place the
 * directory's bytes reach our code, so also what the LDAP fuzz harness
 * (tests/fuzz/fuzz_sdap_entry.c) drives. Values longer than SDAP_MAX_VALUE_LEN or holding
 * a NUL byte are dropped (counted, logged): no later C string handling could keep them
 * faithfully, and a 1 MB gecos must not be copied into every reply. The binary attributes
 * the code reads are converted instead: AD's SIDs to their S-1-... form, nds's time map
 * to hex. A search may ask one attribute's values only counted when they are many
 * (sdap_entry_count.c: a big group's memberUid list during an initgroups).
 */
#include "util/util.h"
#include "util/sss_hex.h"
#include "lib/idmap/idmap.h"
#include "providers/ldap/sdap_private.h"
#include "providers/ldap/sdap_entry_range.h"

/* The attributes an entry has room for at first: a user entry's usual count. */
#define SDAP_ENTRY_ATTRS_FIRST 12

static bool value_kept(const struct berval *val)
{
    return val->bv_len <= SDAP_MAX_VALUE_LEN && memchr(val->bv_val, '\0', val->bv_len) == NULL;
}

/* AD's SID-syntax attributes are binary: kept as their string form (S-1-5-...). */
static bool copy_sid_values(struct sdap_attr *attr, const char *dn, const char *name,
                            const struct berval *vals, size_t nv, size_t *_dropped)
{
    errno_t ret;
    size_t i;

    for (i = 0; i < nv; i++) {
        ret = idmap_bin_sid_to_str(attr->values, (const uint8_t *)vals[i].bv_val,
                                   vals[i].bv_len, &attr->values[attr->num_values]);
        if (ret == ENOMEM) {
            return false;
        }
        if (ret != EOK) {
            DEBUG(SSSDBG_OP_FAILURE, "'%s': a value of %s (%lu bytes) is not a SID: "
                  "dropped\n", dn, name, (unsigned long)vals[i].bv_len);
            (*_dropped)++;
            continue;
        }
        attr->num_values++;
    }
    attr->values[attr->num_values] = NULL;
    return true;
}

/* Binary attributes a rule reads byte by byte (nds's loginAllowedTimeMap, 42 bytes with
 * NUL in nearly every restrictive map; a GPO's nTSecurityDescriptor): kept as lowercase
 * hex, which the reader decodes (sss_hex_decode), instead of dropped. */
static bool copy_hex_values(struct sdap_attr *attr, const char *dn, const char *name,
                            const struct berval *vals, size_t nv, size_t *_dropped)
{
    char *out;
    size_t i;

    for (i = 0; i < nv; i++) {
        if (vals[i].bv_len > SDAP_MAX_VALUE_LEN / 2) {
            DEBUG(SSSDBG_OP_FAILURE, "'%s': a value of %s (%lu bytes) is too long: "
                  "dropped\n", dn, name, (unsigned long)vals[i].bv_len);
            (*_dropped)++;
            continue;
        }
        out = talloc_array(attr->values, char, vals[i].bv_len * 2 + 1);
        if (out == NULL) {
            return false;
        }
        sss_hex_encode((const uint8_t *)vals[i].bv_val, vals[i].bv_len, out);
        attr->values[attr->num_values++] = out;
    }
    attr->values[attr->num_values] = NULL;
    return true;
}

/* Copies the values of one attribute, all into one buffer (a child of attr->values): a
 * group's member attribute may hold hundreds of thousands of short values, and a talloc
 * chunk apiece more than doubled their size. No value is ever freed or used as a talloc
 * context on its own. false on ENOMEM. */
static bool copy_values(struct sdap_attr *attr, const char *dn, const char *name,
                        size_t type_len, const struct berval *vals, size_t nv, size_t *_dropped)
{
    size_t total = 0;
    size_t kept = 0;
    char *buf;
    size_t i;

    /* By type: a ranged "objectSid;range=0-*" holds SIDs too. */
    if ((type_len == strlen("objectSid") && strncasecmp(name, "objectSid", type_len) == 0)
            || (type_len == strlen("tokenGroups")
                && strncasecmp(name, "tokenGroups", type_len) == 0)) {
        return copy_sid_values(attr, dn, name, vals, nv, _dropped);
    }
    if ((type_len == strlen(SDAP_NDS_TIME_MAP)
            && strncasecmp(name, SDAP_NDS_TIME_MAP, type_len) == 0)
            || (type_len == strlen(SDAP_AD_SD) && strncasecmp(name, SDAP_AD_SD, type_len) == 0)) {
        return copy_hex_values(attr, dn, name, vals, nv, _dropped);
    }
    for (i = 0; i < nv; i++) {
        if (value_kept(&vals[i])) {
            total += vals[i].bv_len + 1;
            kept++;
        }
    }
    buf = total > 0 ? talloc_size(attr->values, total) : NULL;
    if (total > 0 && buf == NULL) {
        return false;
    }
    for (i = 0; i < nv; i++) {
        /* Checked again only when some value is dropped (a member list scanned twice for
         * NULs was 2% of a cold initgroups). */
        if (kept < nv && !value_kept(&vals[i])) {
            /* At the default level: the directory holds data we cannot keep. */
            DEBUG(SSSDBG_OP_FAILURE, "'%s': a value of %s (%lu bytes) is too long or "
                  "holds NUL: dropped\n", dn, name, (unsigned long)vals[i].bv_len);
            (*_dropped)++;
            continue;
        }
        memcpy(buf, vals[i].bv_val, vals[i].bv_len);
        buf[vals[i].bv_len] = '\0';
        attr->values[attr->num_values++] = buf;
        buf += vals[i].bv_len + 1;
    }
    attr->values[attr->num_values] = NULL;
    return true;
}

errno_t sdap_entry_from_msg(TALLOC_CTX *mem_ctx, LDAP *ld, LDAPMessage *msg,
                            struct sdap_entry **_entry, size_t *_dropped)
{
    return sdap_entry_from_msg_counted(mem_ctx, ld, msg, NULL, _entry, _dropped);
}

errno_t sdap_entry_from_msg_counted(TALLOC_CTX *mem_ctx, LDAP *ld, LDAPMessage *msg,
                                    const struct sdap_count_spec *spec,
                                    struct sdap_entry **_entry, size_t *_dropped)
{
    struct sdap_entry *entry;
    BerElement *ber = NULL;
    struct berval dn = { 0, NULL };
    struct berval type;
    struct berval *vals;
    char *name;
    size_t cap = 0;             /* entry->attrs' room, grown by doubling */
    errno_t ret = EOK;

    SSS_CHECK_ARG(ld != NULL && msg != NULL && _entry != NULL && _dropped != NULL, EINVAL);
    /* One pass over the entry: the DN, then each attribute with its values, which point
     * into the message. ldap_get_values_len() per attribute scanned the entry from its
     * start each time, most of the work of parsing an entry. */
    if (ldap_get_dn_ber(ld, msg, &ber, &dn) != LDAP_SUCCESS || dn.bv_val == NULL) {
        DEBUG(SSSDBG_OP_FAILURE, "entry without DN skipped\n");
        if (ber != NULL) {
            ber_free(ber, 0);
        }
        return ENOENT;
    }
    entry = talloc_zero(mem_ctx, struct sdap_entry);
    if (entry != NULL) {
        entry->dn = talloc_strndup(entry, dn.bv_val, dn.bv_len);
    }
    if (entry == NULL || entry->dn == NULL) {
        talloc_free(entry);
        ber_free(ber, 0);
        return ENOMEM;
    }
    while (ret == EOK) {
        struct sdap_attr *attr;
        struct sdap_range range;
        size_t type_len;
        size_t nv = 0;
        size_t counted;
        bool needle;

        vals = NULL;
        /* A decoding error ends the attributes here, as the end of the list does. */
        if (sdap_entry_next_attr(ld, msg, ber, spec, &type, &vals, &counted, &needle)
                != LDAP_SUCCESS || type.bv_val == NULL) {
            if (vals != NULL) {
                ber_memfree(vals);
            }
            break;
        }
        name = talloc_strndup(entry, type.bv_val, type.bv_len);
        if (name == NULL) {
            ber_memfree(vals);
            ret = ENOMEM;
            break;
        }
        while (vals != NULL && vals[nv].bv_val != NULL) {
            nv++;
        }
        /* A ranged description ("member;range=0-1499") must hold its whole range: the
         * rest is read by the search (sdap_search.c), and a short range would leave a
         * member list cut short. */
        type_len = 0;
        range.ranged = false;
        if (name[0] != '\0' && (sdap_range_parse(name, &type_len, &range) != EOK
                                 || sdap_range_check_count(&range, nv) != EOK)) {
            DEBUG(SSSDBG_OP_FAILURE, "'%s': attribute '%s' with %zu value(s): a malformed "
                  "or incomplete range, the entry is refused\n", entry->dn, name, nv);
            ret = EPROTO;
        }
        entry->ranged = entry->ranged || range.ranged;
        if (ret == EOK && entry->num_attrs == cap) {
            /* Not one realloc per attribute: that was a sixth of parsing a user entry. */
            cap = cap == 0 ? SDAP_ENTRY_ATTRS_FIRST : cap * 2;
            attr = talloc_realloc(entry, entry->attrs, struct sdap_attr, cap);
            if (attr == NULL) {
                ret = ENOMEM;
            } else {
                entry->attrs = attr;
            }
        }
        if (ret == EOK) {
            attr = &entry->attrs[entry->num_attrs++];
            attr->name = talloc_steal(entry->attrs, name);
            name = NULL;
            attr->values = talloc_array(entry->attrs, char *, nv + 1);
            attr->num_values = 0;
            attr->num_counted = counted;
            attr->needle_found = needle;
            if (attr->values == NULL
                    || !copy_values(attr, entry->dn, attr->name, type_len, vals, nv,
                                    _dropped)) {
                ret = ENOMEM;
            }
            if (counted > 0) {
                DEBUG(SSSDBG_TRACE_FUNC, "'%s': %zu values of %s counted, not read\n",
                      entry->dn, counted, attr->name);
            }
        }
        talloc_free(name);
        if (vals != NULL) {
            ber_memfree(vals);
        }
    }
    ber_free(ber, 0);
    if (ret != EOK) {
        talloc_free(entry);
        return ret;
    }
    *_entry = entry;
    return EOK;
}

errno_t sdap_page_cookie(LDAP *ld, LDAPControl **ctrls, struct berval *_cookie)
{
    LDAPControl *page;
    ber_int_t estimate = 0;
    int lrc;

    SSS_CHECK_ARG(ld != NULL && _cookie != NULL, EINVAL);
    page = ldap_control_find(LDAP_CONTROL_PAGEDRESULTS, ctrls, NULL);
    if (page == NULL) {
        return ENOENT;
    }
    /* libldap 2.5 asserts (aborts the process) on a control without a value, and reads
     * through a NULL buffer on an empty one (ber_init of 0 bytes): a server could stop
     * sssd_be with one packet. Both found by fuzz_sdap_entry. */
    if (page->ldctl_value.bv_val == NULL || page->ldctl_value.bv_len == 0) {
        DEBUG(SSSDBG_OP_FAILURE, "paged results control without a value\n");
        return EIO;
    }
    _cookie->bv_len = 0;
    _cookie->bv_val = NULL;
    lrc = ldap_parse_pageresponse_control(ld, page, &estimate, _cookie);
    if (lrc != LDAP_SUCCESS) {
        DEBUG(SSSDBG_OP_FAILURE, "bad paged results control: %s\n", ldap_err2string(lrc));
        return EIO;
    }
    return EOK;
}

errno_t sdap_limit_incoming(LDAP *ld)
{
    ber_len_t max = SDAP_MAX_MESSAGE_LEN;
    Sockbuf *sb = NULL;

    SSS_CHECK_ARG(ld != NULL, EINVAL);
    /* Without a bound, libldap allocates whatever length a message header declares
     * before reading it: one 6-byte header from a hostile server asks for 2 GB.
     * Found by fuzz_sdap_entry. */
    if (ldap_get_option(ld, LDAP_OPT_SOCKBUF, &sb) != LDAP_OPT_SUCCESS || sb == NULL
            || ber_sockbuf_ctrl(sb, LBER_SB_OPT_SET_MAX_INCOMING, &max) != 1) {
        DEBUG(SSSDBG_CRIT_FAILURE, "cannot bound the size of incoming LDAP messages\n");
        return EIO;
    }
    return EOK;
}
