/*
 * Reading one attribute of a search result entry, with the values of one attribute only
 * counted when they are many (struct sdap_count_spec). An rfc2307 initgroups reads
 * memberUid with each group so that small groups come back complete; a group of 10,000
 * members is stored without them anyway (BE_BIG_GROUP), yet decoding, validating and
 * hashing its values was 6.3M of the 9.85M instructions sssd_be spent on such a cold
 * initgroups. Here those values are walked by their BER lengths only, inside the set that
 * holds them (count_set; liblber's own element reader for the encodings it does not
 * take): no array, no copy, no per-value check.
 */
#include "util/util.h"
#include "providers/ldap/sdap_private.h"

/* Whether type names spec's attribute: the type alone, so never a ranged description. */
static bool counted_type(const struct sdap_count_spec *spec, const struct berval *type)
{
    return strlen(spec->attr) == type->bv_len
           && strncasecmp(spec->attr, type->bv_val, type->bv_len) == 0;
}

/* Walks the values in set (the contents of a SET OF value): their number, and whether
 * one equals needle. false: the set is malformed (a value overruns it). */
static bool walk_set(BerElement *sub, const struct berval *set, const char *needle,
                     size_t *_count, bool *_needle, struct berval *out)
{
    size_t nlen = needle != NULL ? strlen(needle) : 0;
    ber_len_t left = 0;
    struct berval v;
    size_t n = 0;

    ber_init2(sub, discard_const(set), LBER_USE_DER);
    while (ber_skip_element(sub, &v) != LBER_DEFAULT) {
        if (needle != NULL && v.bv_len == nlen && memcmp(v.bv_val, needle, nlen) == 0) {
            *_needle = true;
        }
        if (out != NULL) {
            out[n] = v;
        }
        n++;
    }
    /* Ended short of the set's end: a value's length ran past it. */
    if (ber_get_option(sub, LBER_OPT_REMAINING_BYTES, &left) != LBER_OPT_SUCCESS
            || left != 0) {
        return false;
    }
    *_count = n;
    return true;
}

/* Counts the values in set as walk_set does, without liblber (whose reader is most of the
 * cost of a 10,000-value walk), for the encodings it reads the same way: one-byte tags,
 * short or long lengths. 1: counted; 0: malformed (where liblber's reader also stops);
 * -1: a multi-byte tag, left to walk_set. */
static int count_set(const struct berval *set, const char *needle, size_t *_count,
                     bool *_needle)
{
    const unsigned char *p = (const unsigned char *)set->bv_val;
    const unsigned char *end = p + set->bv_len;
    size_t nlen = needle != NULL ? strlen(needle) : 0;
    size_t len;
    size_t k;
    size_t n = 0;

    while (p < end) {
        if ((*p++ & 0x1f) == 0x1f) {
            return -1;
        }
        if (p == end) {
            return 0;
        }
        len = *p++;
        if (len & 0x80) {
            k = len & 0x7f;
            /* 0x80 (indefinite) and lengths wider than liblber's are refused, as there */
            if (k == 0 || k > sizeof(ber_len_t) || (size_t)(end - p) < k) {
                return 0;
            }
            for (len = 0; k > 0; k--) {
                len = (len << 8) | *p++;
            }
        }
        if (len > (size_t)(end - p)) {
            return 0;
        }
        /* The last byte first: names of one length often share their start. */
        if (needle != NULL && len == nlen
                && (len == 0 || p[len - 1] == (unsigned char)needle[len - 1])
                && memcmp(p, needle, len) == 0) {
            *_needle = true;
        }
        p += len;
        n++;
    }
    *_count = n;
    return 1;
}

/* The values of a counted attribute: counted when over the limit, else returned as
 * ldap_get_attribute_ber would (an array on liblber's memory, pointing into the message). */
static int count_or_take(BerElement *ber, const struct sdap_count_spec *spec,
                         struct berval **_vals, size_t *_counted, bool *_needle)
{
    struct berval set;
    BerElement *sub = NULL;
    struct berval *vals;
    size_t n = 0;
    bool needle = false;
    int counted;
    int rc = LDAP_DECODING_ERROR;

    if (ber_skip_element(ber, &set) == LBER_DEFAULT) {
        return LDAP_DECODING_ERROR;
    }
    counted = count_set(&set, spec->needle, &n, &needle);
    if (counted == 0) {
        return LDAP_DECODING_ERROR;
    }
    if (counted < 0) {
        sub = ber_alloc_t(LBER_USE_DER);
        if (sub == NULL) {
            return LDAP_NO_MEMORY;
        }
        needle = false;
        if (!walk_set(sub, &set, spec->needle, &n, &needle, NULL)) {
            goto done;
        }
    }
    if (n > spec->limit) {
        *_counted = n;
        *_needle = needle;
        rc = LDAP_SUCCESS;
        goto done;
    }
    if (n == 0) {
        rc = LDAP_SUCCESS;      /* as libldap: no array for an empty set */
        goto done;
    }
    if (sub == NULL && (sub = ber_alloc_t(LBER_USE_DER)) == NULL) {
        return LDAP_NO_MEMORY;
    }
    vals = ber_memalloc((n + 1) * sizeof(*vals));
    if (vals == NULL) {
        rc = LDAP_NO_MEMORY;
        goto done;
    }
    walk_set(sub, &set, NULL, &n, &needle, vals);
    vals[n].bv_val = NULL;
    vals[n].bv_len = 0;
    *_vals = vals;
    rc = LDAP_SUCCESS;
done:
    if (sub != NULL) {
        ber_free(sub, 0);
    }
    return rc;
}

int sdap_entry_next_attr(LDAP *ld, LDAPMessage *msg, BerElement *ber,
                         const struct sdap_count_spec *spec, struct berval *_type,
                         struct berval **_vals, size_t *_counted, bool *_needle)
{
    ber_len_t left = 0;
    ber_len_t siz = sizeof(struct berval);

    *_counted = 0;
    *_needle = false;
    *_vals = NULL;
    if (spec == NULL) {
        return ldap_get_attribute_ber(ld, msg, ber, _type, _vals);
    }
    /* What ldap_get_attribute_ber does ("{mM}"), with a look at the type in between. */
    _type->bv_val = NULL;
    _type->bv_len = 0;
    if (ber_get_option(ber, LBER_OPT_REMAINING_BYTES, &left) != LBER_OPT_SUCCESS) {
        return LDAP_DECODING_ERROR;
    }
    if (left == 0) {
        return LDAP_SUCCESS;    /* the end of the attributes */
    }
    if (ber_scanf(ber, "{m", _type) == LBER_ERROR) {
        return LDAP_DECODING_ERROR;
    }
    if (counted_type(spec, _type)) {
        return count_or_take(ber, spec, _vals, _counted, _needle);
    }
    if (ber_scanf(ber, "M}", _vals, &siz, (ber_len_t)0) == LBER_ERROR) {
        return LDAP_DECODING_ERROR;
    }
    return LDAP_SUCCESS;
}
