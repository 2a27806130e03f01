/*
 * Ranged attribute retrieval, the parts that touch no connection: the "range=LO-HI" option
 * of an attribute description (MS-ADTS 3.1.1.3.1.3.3), the description of a follow-up
 * request, and the merge of a follow-up's values into the entry being completed. The
 * descriptions come from the server: every malformed or inconsistent one is refused
 * (EINVAL/EPROTO), never guessed at, so that a member list is either whole or an error.
 * Driven by sdap_search.c; fuzzed by tests/fuzz/fuzz_sdap_entry.c.
 */
#include <assert.h>
#include <limits.h>
#include <stdlib.h>

#include "util/util.h"
#include "providers/ldap/sdap_entry_range.h"

#define RANGE_OPT "range="

/* Decimal digits [p, end) as a bound: 1 to 10 digits, at most SDAP_RANGE_MAX_BOUND. */
static bool parse_bound(const char *p, const char *end, uint32_t *_v)
{
    uint64_t v = 0;

    if (p == end || end - p > 10) {
        return false;
    }
    for (; p < end; p++) {
        if (*p < '0' || *p > '9') {
            return false;
        }
        v = v * 10 + (uint64_t)(*p - '0');
    }
    if (v > SDAP_RANGE_MAX_BOUND) {
        return false;
    }
    *_v = (uint32_t)v;
    return true;
}

/* The value of a range option, "LO-HI" or "LO-*", [p, end). */
static bool parse_range_value(const char *p, const char *end, struct sdap_range *r)
{
    const char *dash = memchr(p, '-', end - p);

    if (dash == NULL || !parse_bound(p, dash, &r->lo)) {
        return false;
    }
    if (end - dash == 2 && dash[1] == '*') {
        r->last = true;
        r->hi = 0;
        return true;
    }
    r->last = false;
    return parse_bound(dash + 1, end, &r->hi) && r->hi >= r->lo;
}

errno_t sdap_range_parse(const char *desc, size_t *_type_len, struct sdap_range *_range)
{
    struct sdap_range r = { false, 0, 0, false };
    const char *p;
    size_t type_len;
    size_t len;

    SSS_CHECK_ARG(desc != NULL && _type_len != NULL && _range != NULL, EINVAL);
    type_len = strcspn(desc, ";");
    if (type_len == 0) {
        return EINVAL;
    }
    for (p = desc + type_len; *p == ';'; p += len) {
        p++;
        len = strcspn(p, ";");
        if (len < sizeof(RANGE_OPT) - 1
                || strncasecmp(p, RANGE_OPT, sizeof(RANGE_OPT) - 1) != 0) {
            continue;   /* another option (";binary"): not ours */
        }
        if (r.ranged
                || !parse_range_value(p + sizeof(RANGE_OPT) - 1, p + len, &r)) {
            return EINVAL;
        }
        r.ranged = true;
    }
    *_type_len = type_len;
    *_range = r;
    return EOK;
}

errno_t sdap_range_check_count(const struct sdap_range *range, size_t num_values)
{
    SSS_CHECK_ARG(range != NULL, EINVAL);
    if (!range->ranged || range->last) {
        return EOK;
    }
    return num_values == (size_t)range->hi - range->lo + 1 ? EOK : EPROTO;
}

char *sdap_range_request(TALLOC_CTX *mem_ctx, const char *type, size_t type_len,
                         uint32_t lo, uint32_t window)
{
    if (type == NULL || type_len > INT_MAX) {
        return NULL;
    }
    if (window == 0) {
        return talloc_asprintf(mem_ctx, "%.*s;" RANGE_OPT "%u-*", (int)type_len, type, lo);
    }
    return talloc_asprintf(mem_ctx, "%.*s;" RANGE_OPT "%u-%u", (int)type_len, type, lo,
                           lo + (window - 1));
}

size_t sdap_range_find(const struct sdap_entry *entry, size_t start)
{
    struct sdap_range r;
    size_t type_len;
    size_t i;

    assert(entry != NULL);
    for (i = start; i < entry->num_attrs; i++) {
        if (strchr(entry->attrs[i].name, ';') != NULL
                && sdap_range_parse(entry->attrs[i].name, &type_len, &r) == EOK
                && r.ranged) {
            return i;
        }
    }
    return entry->num_attrs;
}

/* True when description desc is of type [type, type + type_len) (case-insensitive). */
static bool same_type(const char *desc, const char *type, size_t type_len)
{
    return strncasecmp(desc, type, type_len) == 0
           && (desc[type_len] == '\0' || desc[type_len] == ';');
}

errno_t sdap_range_finish(struct sdap_entry *entry, size_t idx)
{
    struct sdap_attr *a;
    char *plain;
    size_t type_len;
    size_t i;

    SSS_CHECK_ARG(entry != NULL && idx < entry->num_attrs, EINVAL);
    a = &entry->attrs[idx];
    type_len = strcspn(a->name, ";");
    for (i = 0; i < entry->num_attrs; i++) {
        if (i != idx && strlen(entry->attrs[i].name) == type_len
                && strncasecmp(entry->attrs[i].name, a->name, type_len) == 0) {
            DEBUG(SSSDBG_OP_FAILURE, "'%s': the server sent both '%s' and '%s': refused\n",
                  entry->dn, entry->attrs[i].name, a->name);
            return EPROTO;
        }
    }
    plain = talloc_strndup(entry->attrs, a->name, type_len);
    if (plain == NULL) {
        return ENOMEM;
    }
    talloc_free(a->name);
    a->name = plain;
    return EOK;
}

errno_t sdap_range_merge(struct sdap_entry *entry, size_t idx, uint32_t expect_lo,
                         struct sdap_entry *reply, struct sdap_range *_range)
{
    struct sdap_attr *a;
    struct sdap_attr *src = NULL;
    struct sdap_range r = { false, 0, 0, false };
    char **values;
    size_t type_len;
    size_t rlen;
    size_t i;
    errno_t ret;

    SSS_CHECK_ARG(entry != NULL && idx < entry->num_attrs && reply != NULL
                  && _range != NULL, EINVAL);
    a = &entry->attrs[idx];
    type_len = strcspn(a->name, ";");
    for (i = 0; i < reply->num_attrs; i++) {
        if (!same_type(reply->attrs[i].name, a->name, type_len)) {
            continue;
        }
        ret = sdap_range_parse(reply->attrs[i].name, &rlen, &r);
        if (ret != EOK || !r.ranged || src != NULL) {
            DEBUG(SSSDBG_OP_FAILURE, "'%s': the answer for the values of %.*s from %u on "
                  "holds '%s': not a continuation of the range\n", entry->dn,
                  (int)type_len, a->name, expect_lo, reply->attrs[i].name);
            return EPROTO;
        }
        src = &reply->attrs[i];
    }
    if (src == NULL) {
        DEBUG(SSSDBG_OP_FAILURE, "'%s': the answer for the values of %.*s from %u on does "
              "not hold the attribute: the value list would be incomplete\n", entry->dn,
              (int)type_len, a->name, expect_lo);
        return EPROTO;
    }
    sdap_range_parse(src->name, &rlen, &r);
    if (r.lo != expect_lo) {
        DEBUG(SSSDBG_OP_FAILURE, "'%s': asked for the values of %.*s from %u on, the server "
              "sent '%s': refused\n", entry->dn, (int)type_len, a->name, expect_lo,
              src->name);
        return EPROTO;
    }
    values = talloc_realloc(entry->attrs, a->values, char *,
                            a->num_values + src->num_values + 1);
    if (values == NULL) {
        return ENOMEM;
    }
    a->values = values;
    for (i = 0; i < src->num_values; i++) {
        values[a->num_values++] = src->values[i];
    }
    values[a->num_values] = NULL;
    /* The values' buffers are children of src->values: they now live with a->values. */
    talloc_steal(a->values, src->values);
    src->values = NULL;
    src->num_values = 0;
    if (r.last) {
        ret = sdap_range_finish(entry, idx);
        if (ret != EOK) {
            return ret;
        }
    }
    *_range = r;
    return EOK;
}

uint32_t sdap_range_test_window(void)
{
    static int64_t window = -1;
    const char *env;
    char *end = NULL;
    unsigned long v;

    if (window >= 0) {
        return (uint32_t)window;
    }
    window = 0;
    env = getenv("SSS_TEST_LDAP_RANGE_WINDOW");
    if (env != NULL && *env != '\0') {
        errno = 0;
        v = strtoul(env, &end, 10);
        if (errno == 0 && *end == '\0' && v > 0 && v <= SDAP_RANGE_MAX_BOUND) {
            window = (int64_t)v;
            DEBUG(SSSDBG_CONF_SETTINGS, "test hook: member values asked %lu at a time\n",
                  v);
        }
    }
    return (uint32_t)window;
}
