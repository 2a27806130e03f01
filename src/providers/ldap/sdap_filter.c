/*
 * Small pure helpers of the LDAP provider: RFC 4515 escaping of values put into filters
 * (user-provided names never reach a filter unescaped), building the filters the
 * operations use, a canonical form of DNs for comparing them, a string set (and map) used
 * for deduplication, loop protection and DN -> name lookups, the LDAP result code -> errno
 * mapping, and the log line of a failed argument check.
 */
#include "util/util.h"
#include "providers/ldap/sdap_private.h"
#include "lib/idmap/idmap.h"

char *sdap_filter_escape(TALLOC_CTX *mem_ctx, const char *value)
{
    static const char hex[] = "0123456789abcdef";
    const unsigned char *p;
    char *out;
    size_t len = 0;
    size_t o = 0;

    if (value == NULL) {
        return NULL;
    }
    for (p = (const unsigned char *)value; *p != '\0'; p++) {
        len += (*p == '*' || *p == '(' || *p == ')' || *p == '\\' || *p < 0x20
                || *p == 0x7f) ? 3 : 1;
    }
    out = talloc_size(mem_ctx, len + 1);
    if (out == NULL) {
        return NULL;
    }
    for (p = (const unsigned char *)value; *p != '\0'; p++) {
        if (*p == '*' || *p == '(' || *p == ')' || *p == '\\' || *p < 0x20 || *p == 0x7f) {
            out[o++] = '\\';
            out[o++] = hex[*p >> 4];
            out[o++] = hex[*p & 0x0f];
        } else {
            out[o++] = (char)*p;
        }
    }
    out[o] = '\0';
    return out;
}

/* extra as a filter component: "" when unset, "(...)" when not parenthesised. */
static const char *extra_part(TALLOC_CTX *mem_ctx, const char *extra)
{
    if (extra == NULL || extra[0] == '\0') {
        return "";
    }
    if (extra[0] == '(') {
        return extra;
    }
    return talloc_asprintf(mem_ctx, "(%s)", extra);
}

char *sdap_filter_eq(TALLOC_CTX *mem_ctx, const char *oc, const char *attr,
                     const char *value, const char *extra)
{
    TALLOC_CTX *tmp_ctx = talloc_new(NULL);
    const char *ex;
    char *esc;
    char *filter = NULL;

    if (tmp_ctx == NULL) {
        return NULL;
    }
    esc = sdap_filter_escape(tmp_ctx, value);
    ex = extra_part(tmp_ctx, extra);
    if (esc != NULL && ex != NULL) {
        filter = talloc_asprintf(mem_ctx, "(&(objectClass=%s)(%s=%s)%s)", oc, attr, esc, ex);
    }
    talloc_free(tmp_ctx);
    return filter;
}

char *sdap_filter_or(TALLOC_CTX *mem_ctx, const char *oc, const char *attr,
                     const char *const *values, size_t n, const char *extra)
{
    TALLOC_CTX *tmp_ctx = talloc_new(NULL);
    const char *ex;
    char *terms;
    char *esc;
    char *filter = NULL;
    size_t i;

    if (tmp_ctx == NULL) {
        return NULL;
    }
    terms = talloc_strdup(tmp_ctx, "");
    for (i = 0; terms != NULL && i < n; i++) {
        esc = sdap_filter_escape(tmp_ctx, values[i]);
        if (esc == NULL) {
            goto done;
        }
        terms = talloc_asprintf_append_buffer(terms, "(%s=%s)", attr, esc);
    }
    ex = extra_part(tmp_ctx, extra);
    if (terms != NULL && ex != NULL) {
        filter = talloc_asprintf(mem_ctx, "(&(objectClass=%s)(|%s)%s)", oc, terms, ex);
    }
done:
    talloc_free(tmp_ctx);
    return filter;
}

char *sdap_filter_present(TALLOC_CTX *mem_ctx, const char *oc, const char *attr,
                          const char *extra)
{
    char *term = talloc_asprintf(NULL, "(%s=*)", attr);
    char *filter = term == NULL ? NULL : sdap_filter_and(mem_ctx, oc, term, extra);

    talloc_free(term);
    return filter;
}

char *sdap_filter_and(TALLOC_CTX *mem_ctx, const char *oc, const char *term,
                      const char *extra)
{
    TALLOC_CTX *tmp_ctx = talloc_new(NULL);
    const char *ex;
    char *filter = NULL;

    if (tmp_ctx == NULL) {
        return NULL;
    }
    ex = extra_part(tmp_ctx, extra);
    if (ex != NULL) {
        filter = talloc_asprintf(mem_ctx, "(&(objectClass=%s)%s%s)", oc, term, ex);
    }
    talloc_free(tmp_ctx);
    return filter;
}

char *sdap_dn_canon(TALLOC_CTX *mem_ctx, const char *dn)
{
    char *norm = NULL;
    char *out;
    size_t i;

    if (dn == NULL) {
        return NULL;
    }
    if (ldap_dn_normalize(dn, LDAP_DN_FORMAT_LDAP, &norm, LDAP_DN_FORMAT_LDAPV3)
            != LDAP_SUCCESS || norm == NULL) {
        return NULL;
    }
    out = talloc_strdup(mem_ctx, norm);
    ldap_memfree(norm);
    if (out == NULL) {
        return NULL;
    }
    for (i = 0; out[i] != '\0'; i++) {
        if (out[i] >= 'A' && out[i] <= 'Z') {
            out[i] = (char)(out[i] - 'A' + 'a');
        }
    }
    return out;
}

char *sdap_dn_rdn_value(TALLOC_CTX *mem_ctx, const char *dn, const char *attr)
{
    LDAPDN ldn = NULL;
    LDAPAVA *ava;
    char *out = NULL;

    if (ldap_str2dn(dn, &ldn, LDAP_DN_FORMAT_LDAP) != LDAP_SUCCESS || ldn == NULL) {
        return NULL;
    }
    if (ldn[0] == NULL || ldn[0][0] == NULL || ldn[0][1] != NULL) {
        goto done;
    }
    ava = ldn[0][0];
    if ((ava->la_flags & LDAP_AVA_BINARY) != 0
            || ava->la_attr.bv_len != strlen(attr)
            || strncasecmp(ava->la_attr.bv_val, attr, ava->la_attr.bv_len) != 0
            || ava->la_value.bv_len == 0
            || memchr(ava->la_value.bv_val, '\0', ava->la_value.bv_len) != NULL) {
        goto done;
    }
    out = talloc_strndup(mem_ctx, ava->la_value.bv_val, ava->la_value.bv_len);
done:
    ldap_dnfree(ldn);
    return out;
}

/* ---- string set / map: the project's hash table plus an insertion-ordered array ------ */

/* One member: its value and a copy of the string, in one allocation (a lookup touches the
 * table's slot and this, nothing else). */
struct strset_entry {
    void *value;
    char key[];
};

struct sdap_strset {
    struct sss_hash_table *index;   /* items: struct strset_entry */
    struct strset_entry **order;    /* insertion order, for sdap_strset_array() */
    size_t count;
    size_t cap;
    char *block;                    /* where the next entry goes */
    size_t block_left;
};

/* Entries are carved from blocks of this size rather than allocated one by one: a talloc
 * chunk's header is larger than a typical entry, and a group of 500,000 members fills
 * three sets (about 90 bytes saved per member and set). Nothing is removed from a set, so
 * a block lives as long as the set. */
#define STRSET_BLOCK_SIZE (64 * 1024)

#define STRSET_INITIAL_CAP 8

static bool strset_equal(const void *item, const void *key, void *ctx)
{
    const struct strset_entry *entry = item;

    return strcmp(entry->key, key) == 0;
}

struct sdap_strset *sdap_strset_new(TALLOC_CTX *mem_ctx)
{
    struct sdap_strset *set = talloc_zero(mem_ctx, struct sdap_strset);

    if (set == NULL) {
        return NULL;
    }
    set->cap = STRSET_INITIAL_CAP;
    set->order = talloc_array(set, struct strset_entry *, set->cap);
    set->index = sss_hash_table_new(set, set->cap, strset_equal, NULL);
    if (set->order == NULL || set->index == NULL) {
        talloc_free(set);
        return NULL;
    }
    return set;
}

/* size bytes for an entry, aligned for its pointer, from the set's current block. */
static struct strset_entry *strset_carve(struct sdap_strset *set, size_t size)
{
    const size_t align = _Alignof(struct strset_entry);
    char *out;

    size = (size + align - 1) & ~(align - 1);
    if (size > set->block_left) {
        size_t bsize = size > STRSET_BLOCK_SIZE ? size : STRSET_BLOCK_SIZE;

        set->block = talloc_size(set, bsize);
        if (set->block == NULL) {
            set->block_left = 0;
            return NULL;
        }
        set->block_left = bsize;
    }
    out = set->block;
    set->block += size;
    set->block_left -= size;
    return (struct strset_entry *)(void *)out;
}

/* Adds str with value; the entry, or NULL when present or out of memory. */
static struct strset_entry *strset_insert(struct sdap_strset *set, const char *str,
                                          void *value)
{
    struct strset_entry *entry;
    uint64_t hash;
    size_t len;
    errno_t ret;

    if (set == NULL || str == NULL) {
        return NULL;
    }
    /* Looked up before anything is allocated: adding a member again costs one probe. */
    hash = sss_hash_str(str);
    if (sss_hash_table_get(set->index, hash, str) != NULL) {
        return NULL;
    }
    if (set->count == set->cap) {
        struct strset_entry **n = talloc_realloc(set, set->order, struct strset_entry *,
                                                 set->cap * 2);
        if (n == NULL) {
            DEBUG(SSSDBG_CRIT_FAILURE, "out of memory\n");
            return NULL;
        }
        set->order = n;
        set->cap *= 2;
    }
    len = strlen(str);
    entry = strset_carve(set, sizeof(*entry) + len + 1);
    if (entry == NULL) {
        DEBUG(SSSDBG_CRIT_FAILURE, "out of memory\n");
        return NULL;
    }
    entry->value = value;
    memcpy(entry->key, str, len + 1);
    ret = sss_hash_table_insert(set->index, hash, str, entry, NULL);
    if (ret != EOK) {
        DEBUG(SSSDBG_CRIT_FAILURE, "out of memory\n");
        return NULL;               /* the carved bytes stay unused in the block */
    }
    set->order[set->count++] = entry;
    return entry;
}

bool sdap_strmap_add(struct sdap_strset *set, const char *str, void *value)
{
    return strset_insert(set, str, value) != NULL;
}

const char *sdap_strset_intern(struct sdap_strset *set, const char *str)
{
    struct strset_entry *entry = strset_insert(set, str, NULL);

    return entry != NULL ? entry->key : NULL;
}

bool sdap_strset_add(struct sdap_strset *set, const char *str)
{
    return sdap_strmap_add(set, str, NULL);
}

void *sdap_strmap_get(struct sdap_strset *set, const char *str)
{
    struct strset_entry *entry;

    if (set == NULL || str == NULL) {
        return NULL;
    }
    entry = sss_hash_table_get(set->index, sss_hash_str(str), str);
    return entry != NULL ? entry->value : NULL;
}

bool sdap_strset_has(struct sdap_strset *set, const char *str)
{
    if (set == NULL || str == NULL) {
        return false;
    }
    return sss_hash_table_get(set->index, sss_hash_str(str), str) != NULL;
}

size_t sdap_strset_count(struct sdap_strset *set)
{
    return set == NULL ? 0 : set->count;
}

const char **sdap_strset_array(TALLOC_CTX *mem_ctx, struct sdap_strset *set)
{
    size_t n = sdap_strset_count(set);
    const char **arr = talloc_array(mem_ctx, const char *, n + 1);
    size_t i;

    if (arr == NULL) {
        return NULL;
    }
    for (i = 0; i < n; i++) {
        arr[i] = talloc_strdup(arr, set->order[i]->key);
        if (arr[i] == NULL) {
            talloc_free(arr);
            return NULL;
        }
    }
    arr[n] = NULL;
    return arr;
}

errno_t sdap_ldap_err(int lrc)
{
    switch (lrc) {
    case LDAP_SUCCESS:
        return EOK;
    case LDAP_NO_SUCH_OBJECT:
        return ENOENT;
    case LDAP_INVALID_CREDENTIALS:
    case LDAP_INAPPROPRIATE_AUTH:
    case LDAP_INSUFFICIENT_ACCESS:
    case LDAP_STRONG_AUTH_REQUIRED:
    case LDAP_CONFIDENTIALITY_REQUIRED:
        return EACCES;
    case LDAP_TIMEOUT:
    case LDAP_TIMELIMIT_EXCEEDED:
        return ETIMEDOUT;
    case LDAP_SERVER_DOWN:
    case LDAP_CONNECT_ERROR:
        return ENOTCONN;
    case LDAP_NO_MEMORY:
        return ENOMEM;
    case LDAP_FILTER_ERROR:
    case LDAP_PARAM_ERROR:
    case LDAP_INVALID_DN_SYNTAX:
        return EINVAL;
    default:
        return EIO;
    }
}

errno_t sdap_lookup_filter(TALLOC_CTX *mem_ctx, const struct sdap_options *opts,
                           const struct sdap_kind *kind, enum sdap_by by,
                           const char *name, uint32_t id, char **_filter, char **_what)
{
    char idstr[16];
    uint32_t checked;
    char *filter;
    char *what;
    errno_t ret;

    if (by == SDAP_BY_NAME) {
        if (!sdap_valid_name(name)) {
            DEBUG(SSSDBG_OP_FAILURE, "refusing to look up an empty or invalid %s name\n",
                  kind->label);
            return EINVAL;
        }
        filter = sdap_filter_eq(mem_ctx, kind->oc, kind->name_attr, name, kind->filter);
        what = talloc_asprintf(mem_ctx, "%s '%s'", kind->label, name);
    } else if (by == SDAP_BY_ID) {
        snprintf(idstr, sizeof(idstr), "%u", id);
        if (sdap_parse_id(idstr, opts->min_id, opts->max_id, &checked) != EOK) {
            DEBUG(SSSDBG_TRACE_FUNC, "%s %u is outside the domain's range\n", kind->id_label,
                  id);
            return ENOENT;
        }
        if (opts->idmap != NULL) {
            /* ldap_id_mapping: the objectSid the id maps back to. */
            filter = NULL;
            ret = sdap_idmap_filter(mem_ctx, opts, kind, &id, 1, &filter);
            if (ret == ENOENT) {
                DEBUG(SSSDBG_TRACE_FUNC, "%s %u is in no slice of a known domain\n",
                      kind->id_label, id);
            }
            if (ret != EOK) {
                return ret;
            }
        } else {
            filter = sdap_filter_eq(mem_ctx, kind->oc, kind->id_attr, idstr, kind->filter);
        }
        what = talloc_asprintf(mem_ctx, "%s %u", kind->id_label, id);
    } else if (by == SDAP_BY_SID) {
        /* The SID in its binary form, each byte escaped (sdap_sid_filter). */
        filter = NULL;
        ret = name != NULL ? sdap_sid_filter(mem_ctx, opts, kind, &name, 1, &filter) : ENOENT;
        if (ret == ENOENT) {
            DEBUG(SSSDBG_TRACE_FUNC, "%s SID %s: not a SID, or no SID attribute mapped\n",
                  kind->label, name != NULL ? name : "(null)");
        }
        if (ret != EOK) {
            return ret;
        }
        what = talloc_asprintf(mem_ctx, "%s SID %s", kind->label, name);
    } else {
        return EINVAL;
    }
    if (filter == NULL || what == NULL) {
        talloc_free(filter);
        talloc_free(what);
        return ENOMEM;
    }
    *_filter = filter;
    *_what = what;
    return EOK;
}

char *sdap_xdn_sid(TALLOC_CTX *mem_ctx, const char *value)
{
    const char *start;
    const char *end;
    uint8_t *bin = NULL;
    size_t len = 0;
    char *sid;

    if (value == NULL || value[0] != '<' || (start = strstr(value, "<SID=")) == NULL) {
        return NULL;
    }
    start += strlen("<SID=");
    end = strchr(start, '>');
    if (end == NULL) {
        return NULL;
    }
    sid = talloc_strndup(mem_ctx, start, end - start);
    /* Only a well-formed SID goes on to a filter. */
    if (sid == NULL || idmap_str_sid_to_bin(NULL, sid, &bin, &len) != EOK) {
        talloc_free(sid);
        return NULL;
    }
    talloc_free(bin);
    return sid;
}
