/*
 * sysdb names: validation (UTF-8, length), the internal qualified form "name@domain", case
 * folding for case-insensitive domains, and packed name lists: a member or group list kept
 * as NUL-terminated names back to back, built with duplicates dropped through a hash table
 * (O(1) per name) and split back into pointers without copying.
 */
#include "config.h"

#include <assert.h>
#include <wctype.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "db/sysdb_private.h"
#include "util/sss_hash.h"

/* Decodes one UTF-8 sequence at s (n bytes left). Returns its length and the code point,
 * or 0 for an invalid, overlong or surrogate sequence, or a NUL byte. */
static size_t sysdb_utf8_decode(const unsigned char *s, size_t n, uint32_t *_cp)
{
    uint32_t cp;
    size_t len;
    size_t i;

    if (s[0] == 0) {
        return 0;
    }
    if (s[0] < 0x80) {
        *_cp = s[0];
        return 1;
    }
    if (s[0] >= 0xc2 && s[0] <= 0xdf) {
        len = 2;
        cp = s[0] & 0x1f;
    } else if (s[0] >= 0xe0 && s[0] <= 0xef) {
        len = 3;
        cp = s[0] & 0x0f;
    } else if (s[0] >= 0xf0 && s[0] <= 0xf4) {
        len = 4;
        cp = s[0] & 0x07;
    } else {
        return 0;
    }
    if (len > n) {
        return 0;
    }
    for (i = 1; i < len; i++) {
        if ((s[i] & 0xc0) != 0x80) {
            return 0;
        }
        cp = (cp << 6) | (s[i] & 0x3f);
    }
    if ((len == 3 && cp < 0x800) || (len == 4 && (cp < 0x10000 || cp > 0x10ffff))
            || (cp >= 0xd800 && cp <= 0xdfff)) {
        return 0;
    }
    *_cp = cp;
    return len;
}

static size_t sysdb_utf8_encode(uint32_t cp, char *out)
{
    if (cp < 0x80) {
        out[0] = (char)cp;
        return 1;
    }
    if (cp < 0x800) {
        out[0] = (char)(0xc0 | (cp >> 6));
        out[1] = (char)(0x80 | (cp & 0x3f));
        return 2;
    }
    if (cp < 0x10000) {
        out[0] = (char)(0xe0 | (cp >> 12));
        out[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
        out[2] = (char)(0x80 | (cp & 0x3f));
        return 3;
    }
    out[0] = (char)(0xf0 | (cp >> 18));
    out[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
    out[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
    out[3] = (char)(0x80 | (cp & 0x3f));
    return 4;
}

bool sysdb_utf8_valid(const char *s, size_t len)
{
    const unsigned char *u = (const unsigned char *)s;
    uint32_t cp;
    size_t i = 0;
    size_t n;

    while (i < len) {
        if (u[i] != 0 && u[i] < 0x80) {
            i++;
            continue;
        }
        n = sysdb_utf8_decode(u + i, len - i, &cp);
        if (n == 0) {
            return false;
        }
        i += n;
    }
    return true;
}

/* Copies (fold false) or lowercases (fold true) len bytes of valid-or-not UTF-8 into out.
 * Returns the bytes written, or 0 when the input is not valid UTF-8. Output is at most
 * 2 * len bytes (a folded character never needs more than twice its encoding). */
static size_t sysdb_utf8_copy(struct sysdb_ctx *sysdb, const char *s, size_t len, bool fold,
                              char *out)
{
    const unsigned char *u = (const unsigned char *)s;
    uint32_t cp;
    size_t i = 0;
    size_t o = 0;
    size_t n;

    while (i < len) {
        if (u[i] != 0 && u[i] < 0x80) {
            out[o++] = (char)((fold && u[i] >= 'A' && u[i] <= 'Z') ? u[i] + ('a' - 'A') : u[i]);
            i++;
            continue;
        }
        n = sysdb_utf8_decode(u + i, len - i, &cp);
        if (n == 0) {
            return 0;
        }
        if (fold && sysdb->fold_locale != (locale_t)0) {
            uint32_t lc = (uint32_t)towlower_l((wint_t)cp, sysdb->fold_locale);
            if (lc != 0 && lc <= 0x10ffff && !(lc >= 0xd800 && lc <= 0xdfff)) {
                cp = lc;
            }
            o += sysdb_utf8_encode(cp, out + o);
        } else {
            memcpy(out + o, s + i, n);
            o += n;
        }
        i += n;
    }
    return o;
}

size_t sysdb_name_room(struct sysdb_ctx *sysdb, size_t len)
{
    return 2 * len + sysdb->domain_len + 2;
}

size_t sysdb_name_write(struct sysdb_ctx *sysdb, const char *name, size_t len,
                        bool fold, char *out)
{
    size_t short_len = len;
    size_t dlen = sysdb->domain_len;
    bool do_fold;
    size_t n;

    /* "joe@dom" (domain matched without case) is already qualified. */
    if (len > dlen + 1 && name[len - dlen - 1] == '@'
            && strncasecmp(name + len - dlen, sysdb->domain, dlen) == 0) {
        short_len = len - dlen - 1;
    }
    if (short_len == 0 || short_len > SYSDB_NAME_MAX) {
        return 0;
    }

    if (sysdb->case_mode == SYSDB_CASE_SENSITIVE) {
        do_fold = false;
    } else if (sysdb->case_mode == SYSDB_CASE_INSENSITIVE) {
        do_fold = true;
    } else {
        do_fold = fold;
    }

    n = sysdb_utf8_copy(sysdb, name, short_len, do_fold, out);
    if (n == 0) {
        return 0;
    }
    out[n++] = '@';
    memcpy(out + n, do_fold ? sysdb->domain_lc : sysdb->domain, dlen);
    n += dlen;
    out[n] = '\0';
    return n;
}

static errno_t sysdb_name_form(TALLOC_CTX *mem_ctx, struct sysdb_ctx *sysdb,
                               const char *name, bool fold, char **_out)
{
    size_t len;
    char *out;

    SSS_CHECK_ARG(sysdb != NULL, EINVAL);
    SSS_CHECK_ARG(name != NULL, EINVAL);
    len = strnlen(name, SYSDB_NAME_MAX + sysdb->domain_len + 2);
    out = talloc_size(mem_ctx, sysdb_name_room(sysdb, len));
    if (out == NULL) {
        return ENOMEM;
    }
    if (sysdb_name_write(sysdb, name, len, fold, out) == 0 || name[len] != '\0') {
        DEBUG(SSSDBG_OP_FAILURE, "Invalid name (empty, too long or not UTF-8)\n");
        talloc_free(out);
        return EINVAL;
    }
    *_out = out;
    return EOK;
}

size_t sysdb_name_key_buf(struct sysdb_ctx *sysdb, const char *name, char *buf)
{
    size_t len;
    size_t n;

    len = strnlen(name, SYSDB_NAME_MAX + sysdb->domain_len + 2);
    n = sysdb_name_write(sysdb, name, len, true, buf);
    if (n == 0 || name[len] != '\0') {
        DEBUG(SSSDBG_OP_FAILURE, "Invalid name (empty, too long or not UTF-8)\n");
        return 0;
    }
    return n;
}

errno_t sysdb_name_stored(TALLOC_CTX *mem_ctx, struct sysdb_ctx *sysdb, const char *name,
                          char **_stored)
{
    return sysdb_name_form(mem_ctx, sysdb, name, false, _stored);
}

errno_t sysdb_name_key(TALLOC_CTX *mem_ctx, struct sysdb_ctx *sysdb, const char *name,
                       char **_key)
{
    return sysdb_name_form(mem_ctx, sysdb, name, true, _key);
}

errno_t sysdb_fqname(TALLOC_CTX *mem_ctx, struct sysdb_ctx *sysdb, const char *name,
                     char **_fqname)
{
    SSS_CHECK_ARG(_fqname != NULL, EINVAL);
    return sysdb_name_stored(mem_ctx, sysdb, name, _fqname);
}

errno_t sysdb_short_name(TALLOC_CTX *mem_ctx, struct sysdb_ctx *sysdb, const char *fqname,
                         char **_short)
{
    size_t len;
    size_t dlen;
    char *out;

    SSS_CHECK_ARG(sysdb != NULL, EINVAL);
    SSS_CHECK_ARG(fqname != NULL, EINVAL);
    SSS_CHECK_ARG(_short != NULL, EINVAL);
    len = strlen(fqname);
    dlen = sysdb->domain_len;
    if (len > dlen + 1 && fqname[len - dlen - 1] == '@'
            && strncasecmp(fqname + len - dlen, sysdb->domain, dlen) == 0) {
        len -= dlen + 1;
    }
    out = talloc_strndup(mem_ctx, fqname, len);
    if (out == NULL) {
        return ENOMEM;
    }
    *_short = out;
    return EOK;
}

/* ---- packed name lists ---- */

struct sysdb_name_list {
    struct sysdb_ctx *sysdb;
    char *buf;          /* stored forms, each NUL-terminated */
    size_t len;
    size_t cap;
    char *keys;         /* folded forms (preserving mode only; otherwise keys are in buf) */
    size_t klen;
    size_t kcap;
    /* The names seen, for dropping duplicates: items are key offsets + 1 (never NULL)
     * cast to pointers, so the buffers may move; made by the first add. */
    struct sss_hash_table *seen;
    size_t count;
};

/* A lookup key of the seen table: klen bytes, not necessarily NUL-terminated. */
struct sysdb_name_ref {
    const char *key;
    size_t klen;
};

static const char *sysdb_name_list_keybuf(struct sysdb_name_list *list)
{
    return list->sysdb->case_mode == SYSDB_CASE_PRESERVING ? list->keys : list->buf;
}

static bool sysdb_name_list_equal(const void *item, const void *key, void *ctx)
{
    const struct sysdb_name_ref *ref = key;
    const char *other = sysdb_name_list_keybuf(ctx) + ((uintptr_t)item - 1);

    return memcmp(other, ref->key, ref->klen) == 0 && other[ref->klen] == '\0';
}

errno_t sysdb_name_list_new(TALLOC_CTX *mem_ctx, struct sysdb_ctx *sysdb,
                            struct sysdb_name_list **_list)
{
    struct sysdb_name_list *list;

    SSS_CHECK_ARG(sysdb != NULL, EINVAL);
    SSS_CHECK_ARG(_list != NULL, EINVAL);
    list = talloc_zero(mem_ctx, struct sysdb_name_list);
    if (list == NULL) {
        return ENOMEM;
    }
    list->sysdb = sysdb;
    *_list = list;
    return EOK;
}

static errno_t sysdb_buf_reserve(TALLOC_CTX *owner, char **buf, size_t *cap, size_t used,
                                 size_t need)
{
    size_t newcap;
    char *tmp;

    if (used + need <= *cap) {
        return EOK;
    }
    newcap = *cap ? *cap : 1024;
    while (newcap < used + need) {
        newcap *= 2;
    }
    if (newcap > UINT32_MAX) {
        return EINVAL;
    }
    tmp = talloc_realloc(owner, *buf, char, newcap);
    if (tmp == NULL) {
        return ENOMEM;
    }
    *buf = tmp;
    *cap = newcap;
    return EOK;
}

errno_t sysdb_name_list_add(struct sysdb_name_list *list, const char *const *names,
                            size_t count)
{
    struct sysdb_ctx *sysdb;
    struct sysdb_name_ref ref;
    uint64_t hash;
    void *item;
    bool preserving;
    size_t i;
    size_t len;
    size_t room;
    size_t n;
    char *stored;
    errno_t ret;

    SSS_CHECK_ARG(list != NULL, EINVAL);
    SSS_CHECK_ARG(names != NULL || count == 0 || count == (size_t)-1, EINVAL);
    if (names == NULL) {
        return EOK;
    }
    if (count == (size_t)-1) {
        for (count = 0; names[count] != NULL; count++) ;
    }
    if (count > SYSDB_LIST_MAX || list->count + count > SYSDB_LIST_MAX) {
        DEBUG(SSSDBG_OP_FAILURE, "Refusing a list of more than %d names\n", SYSDB_LIST_MAX);
        return EINVAL;
    }
    sysdb = list->sysdb;
    preserving = sysdb->case_mode == SYSDB_CASE_PRESERVING;

    if (list->seen == NULL) {
        /* Sized for the first slice: one call with a whole list never grows it. */
        list->seen = sss_hash_table_new(list, count, sysdb_name_list_equal, list);
        if (list->seen == NULL) {
            return ENOMEM;
        }
    }

    for (i = 0; i < count; i++) {
        if (names[i] == NULL) {
            DEBUG(SSSDBG_OP_FAILURE, "NULL name in a list\n");
            return EINVAL;
        }
        len = strnlen(names[i], SYSDB_NAME_MAX + sysdb->domain_len + 2);
        room = sysdb_name_room(sysdb, len);
        ret = sysdb_buf_reserve(list, &list->buf, &list->cap, list->len, room);
        if (ret != EOK) {
            return ret;
        }
        stored = list->buf + list->len;
        n = names[i][len] == '\0' ? sysdb_name_write(sysdb, names[i], len, false, stored) : 0;
        if (n == 0) {
            DEBUG(SSSDBG_OP_FAILURE, "Invalid name in a list (empty, too long or not UTF-8)\n");
            return EINVAL;
        }
        if (preserving) {
            ret = sysdb_buf_reserve(list, &list->keys, &list->kcap, list->klen, room);
            if (ret != EOK) {
                return ret;
            }
            ref.key = list->keys + list->klen;
            ref.klen = sysdb_name_write(sysdb, names[i], len, true, list->keys + list->klen);
        } else {
            ref.key = stored;
            ref.klen = n;
        }
        /* The name is written past the end of the list: it becomes part of it only when
         * it was not seen before. Every key ends in the same "@domain": only the part
         * before it is hashed. */
        assert(ref.klen > sysdb->domain_len + 1);
        item = (void *)(uintptr_t)((preserving ? list->klen : list->len) + 1);
        hash = sss_hash_bytes(ref.key, ref.klen - sysdb->domain_len - 1);
        ret = sss_hash_table_insert(list->seen, hash, &ref, item, NULL);
        if (ret == EEXIST) {
            continue;
        }
        if (ret != EOK) {
            return ret;
        }
        list->len += n + 1;
        if (preserving) {
            list->klen += ref.klen + 1;
        }
        list->count++;
    }
    return EOK;
}

errno_t sysdb_name_list_make(TALLOC_CTX *mem_ctx, struct sysdb_ctx *sysdb,
                             const char *const *names, struct sysdb_name_list **_list)
{
    struct sysdb_name_list *list;
    errno_t ret;

    ret = sysdb_name_list_new(mem_ctx, sysdb, &list);
    if (ret != EOK) {
        return ret;
    }
    ret = sysdb_name_list_add(list, names, (size_t)-1);
    if (ret != EOK) {
        talloc_free(list);
        return ret;
    }
    *_list = list;
    return EOK;
}

size_t sysdb_name_list_count(struct sysdb_name_list *list)
{
    return list == NULL ? 0 : list->count;
}

const char *sysdb_name_list_data(struct sysdb_name_list *list, size_t *_len)
{
    *_len = list->len;
    return list->buf;
}

/*
 * The NULs of data[0..len): their number, and (starts not NULL) starts[k + 1] = the byte
 * after the k-th one, starts[0] = data. A 50,000-member list is 700 KB: one strlen per name
 * cost half of a warm big-group lookup; 16 bytes per step find them all at once.
 */
static size_t sysdb_packed_nuls(const char *data, size_t len, const char **starts)
{
    size_t n = 0;
    size_t i = 0;

    if (starts != NULL) {
        starts[0] = data;
    }
#ifdef __SSE2__
    {
        const __m128i zero = _mm_setzero_si128();

        for (; i + 16 <= len; i += 16) {
            __m128i v = _mm_loadu_si128((const __m128i *)(const void *)(data + i));
            unsigned int m = (unsigned int)_mm_movemask_epi8(_mm_cmpeq_epi8(v, zero));

            if (starts == NULL) {
                for (; m != 0; m &= m - 1) {    /* no popcnt in the x86-64 baseline */
                    n++;
                }
                continue;
            }
            while (m != 0) {
                unsigned int b = (unsigned int)__builtin_ctz(m);

                m &= m - 1;
                starts[++n] = data + i + b + 1;
            }
        }
    }
#endif
    for (; i < len; i++) {
        if (data[i] == '\0') {
            n++;
            if (starts != NULL) {
                starts[n] = data + i + 1;
            }
        }
    }
    return n;
}

errno_t sysdb_packed_split(TALLOC_CTX *mem_ctx, const struct ldb_val *val,
                           const char ***_names, size_t *_count)
{
    const char *data = val ? (const char *)val->data : NULL;
    size_t len = val ? val->length : 0;
    const char **names;
    size_t count;

    if (len == 0) {
        data = "";
    } else if (data[len - 1] != '\0') {
        DEBUG(SSSDBG_CRIT_FAILURE, "Corrupt packed name list\n");
        return EIO;
    }
    /* Every name ends with a NUL and the last byte is one: names = NULs. */
    count = len > 0 ? sysdb_packed_nuls(data, len, NULL) : 0;
    names = talloc_array(mem_ctx, const char *, count + 1);
    if (names == NULL) {
        return ENOMEM;
    }
    if (count > 0) {
        sysdb_packed_nuls(data, len, names);
    }
    names[count] = NULL;
    *_names = names;
    *_count = count;
    return EOK;
}

errno_t sysdb_msg_names(TALLOC_CTX *mem_ctx, const struct ldb_message *msg, const char *attr,
                        const char ***_names, size_t *_count)
{
    const struct ldb_message_element *el;

    el = ldb_msg_find_element(msg, attr);
    return sysdb_packed_split(mem_ctx, el != NULL && el->num_values == 1 ? &el->values[0] : NULL,
                              _names, _count);
}

errno_t sysdb_name_dn(TALLOC_CTX *mem_ctx, struct sysdb_ctx *sysdb, enum sysdb_kind kind,
                      const char *name, struct ldb_dn **_dn)
{
    struct ldb_dn *dn;
    char *key;
    errno_t ret;

    ret = sysdb_name_key(mem_ctx, sysdb, name, &key);
    if (ret != EOK) {
        return ret;
    }
    ret = sysdb_entry_dn(mem_ctx, sysdb, kind, key, &dn);
    talloc_free(key);
    if (ret != EOK) {
        return ret;
    }
    *_dn = dn;
    return EOK;
}
