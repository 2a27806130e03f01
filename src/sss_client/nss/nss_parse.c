/*
 * Reply parsers of libnss_sss (PROTOCOL.md "NSS bodies"): turn the bytes sssd_nss sends, or
 * the strings of a memory-cache record, into struct passwd / struct group laid out in the
 * caller's buffer, and append initgroups gids. Pure functions: no I/O, no allocation except
 * the realloc of the caller's gid array, and every read bounds-checked first, so malformed
 * input gives EBADMSG and never a read past the end. A buffer too small gives ERANGE before
 * anything is written to the result.
 */
#include <errno.h>
#include <limits.h>
#include <stdalign.h>
#include <stdlib.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "sss_client/sss_cli.h"
#include "sss_client/nss/nss_private.h"

static uint32_t get_u32(const uint8_t *p)
{
    uint32_t v;

    memcpy(&v, p, sizeof(v));
    return v;
}

/* Finds n NUL-terminated strings at the start of p; *used gets their total size. */
static int scan_strings(const char *p, size_t len, uint32_t n, size_t *used)
{
    size_t off = 0;
    uint32_t i;

    for (i = 0; i < n; i++) {
        const char *nul;

        if (off >= len) {
            return EBADMSG;
        }
        nul = memchr(p + off, '\0', len - off);
        if (nul == NULL) {
            return EBADMSG;
        }
        off = (size_t)(nul - p) + 1;
    }
    *used = off;
    return 0;
}

int nss_reply_count(const uint8_t *body, size_t len, uint32_t *count)
{
    if (body == NULL || len < 2 * sizeof(uint32_t)) {
        return EBADMSG;
    }
    *count = get_u32(body);
    return 0;
}

int nss_fill_passwd(uint32_t uid, uint32_t gid, const char *strs, size_t strs_len,
                    size_t *used, struct passwd *pw, char *buf, size_t buflen)
{
    char *fields[5];
    size_t size;
    size_t off = 0;
    int ret;
    int i;

    ret = scan_strings(strs, strs_len, 5, &size);
    if (ret != 0) {
        return ret;
    }
    *used = size;
    if (buf == NULL || size > buflen) {
        return ERANGE;
    }
    memcpy(buf, strs, size);
    for (i = 0; i < 5; i++) {
        fields[i] = buf + off;
        off += strlen(buf + off) + 1;
    }
    pw->pw_name = fields[0];
    pw->pw_passwd = fields[1];
    pw->pw_uid = uid;
    pw->pw_gid = gid;
    pw->pw_gecos = fields[2];
    pw->pw_dir = fields[3];
    pw->pw_shell = fields[4];
    return 0;
}

/* The start of string k of a group record: 1 the password, 2.. the members (kept in the
 * member pointer slots as offsets for now). */
static void group_string_start(size_t k, size_t start, size_t *passwd_off, char **mem)
{
    if (k == 1) {
        *passwd_off = start;
    } else if (k >= 2) {
        mem[k - 2] = (char *)(uintptr_t)start;
    }
}

/*
 * Finds the ends of the 2 + nmem strings of a group record at the start of strs (len
 * bytes); *end gets the size they take. EBADMSG when fewer end within len. A 50,000-member
 * group is 700 KB: 16 bytes per step instead of a memchr call per name.
 */
static int group_strings(const char *strs, size_t len, uint32_t nmem, char **mem,
                         size_t *passwd_off, size_t *end)
{
    size_t want = 2 + (size_t)nmem;
    size_t start = 0;
    size_t k = 0;
    size_t i = 0;

#ifdef __SSE2__
    const __m128i zero = _mm_setzero_si128();

    for (; k < want && i + 16 <= len; i += 16) {
        __m128i v = _mm_loadu_si128((const __m128i *)(const void *)(strs + i));
        unsigned int m = (unsigned int)_mm_movemask_epi8(_mm_cmpeq_epi8(v, zero));

        while (m != 0 && k < want) {
            size_t nul = i + (size_t)__builtin_ctz(m);

            m &= m - 1;
            group_string_start(k++, start, passwd_off, mem);
            start = nul + 1;
        }
    }
#endif
    for (; k < want && i < len; i++) {
        if (strs[i] == '\0') {
            group_string_start(k++, start, passwd_off, mem);
            start = i + 1;
        }
    }
    if (k < want) {
        return EBADMSG;
    }
    *end = start;
    return 0;
}

int nss_fill_group(uint32_t gid, uint32_t nmem, const char *strs, size_t strs_len,
                   size_t *used, struct group *gr, char *buf, size_t buflen)
{
    size_t passwd_off = 0;
    size_t align;
    size_t ptrs;
    size_t off = 0;
    char **mem;
    char *s;
    uint32_t i;

    /* Each member takes at least its NUL, so nmem <= strs_len once this succeeds. */
    if (nmem > strs_len) {
        return EBADMSG;
    }
    ptrs = ((size_t)nmem + 1) * sizeof(char *);
    /* Too small for the pointers and one byte per string, whatever the strings hold: say so
     * before scanning them. glibc retries ERANGE with a buffer twice as big from 1 KB on,
     * and a scan per attempt would cost a 10,000-member group more than its lookup. */
    if (buf == NULL || buflen < ptrs + (size_t)nmem + 2 + alignof(char *)) {
        *used = 0;
        return ERANGE;
    }
    align = (alignof(char *) - ((uintptr_t)buf % alignof(char *))) % alignof(char *);
    mem = (char **)(void *)(buf + align);

    /* One pass finds every string's end; the member slots hold offsets until the copy. */
    if (group_strings(strs, strs_len, nmem, mem, &passwd_off, &off) != 0) {
        return EBADMSG;
    }
    *used = off;
    if (off > buflen - align - ptrs) {
        return ERANGE;
    }
    s = buf + align + ptrs;
    memcpy(s, strs, off);

    gr->gr_gid = gid;
    gr->gr_name = s;
    gr->gr_passwd = s + passwd_off;
    for (i = 0; i < nmem; i++) {
        mem[i] = s + (uintptr_t)mem[i];
    }
    mem[nmem] = NULL;
    gr->gr_mem = mem;
    return 0;
}

int nss_parse_passwd(const uint8_t *p, size_t len, size_t *consumed,
                     struct passwd *pw, char *buf, size_t buflen)
{
    size_t used = 0;
    int ret;

    if (p == NULL || len < 2 * sizeof(uint32_t)) {
        return EBADMSG;
    }
    ret = nss_fill_passwd(get_u32(p), get_u32(p + 4), (const char *)p + 8, len - 8,
                          &used, pw, buf, buflen);
    if (ret == 0 || ret == ERANGE) {
        *consumed = 8 + used;
    }
    return ret;
}

int nss_parse_group(const uint8_t *p, size_t len, size_t *consumed,
                    struct group *gr, char *buf, size_t buflen)
{
    size_t used = 0;
    int ret;

    if (p == NULL || len < 2 * sizeof(uint32_t)) {
        return EBADMSG;
    }
    ret = nss_fill_group(get_u32(p), get_u32(p + 4), (const char *)p + 8, len - 8,
                         &used, gr, buf, buflen);
    if (ret == 0 || ret == ERANGE) {
        *consumed = 8 + used;
    }
    return ret;
}

/* Checks the reply head of a single-entry lookup: ENOENT for none, EBADMSG unless one. */
static int one_result(const uint8_t *body, size_t len)
{
    uint32_t count;
    int ret;

    ret = nss_reply_count(body, len, &count);
    if (ret != 0) {
        return ret;
    }
    if (count == 0) {
        return ENOENT;
    }
    return count == 1 ? 0 : EBADMSG;
}

int nss_parse_one_passwd(const uint8_t *body, size_t len,
                         struct passwd *pw, char *buf, size_t buflen)
{
    size_t consumed;
    int ret;

    ret = one_result(body, len);
    if (ret != 0) {
        return ret;
    }
    return nss_parse_passwd(body + 8, len - 8, &consumed, pw, buf, buflen);
}

int nss_parse_one_group(const uint8_t *body, size_t len,
                        struct group *gr, char *buf, size_t buflen)
{
    size_t consumed;
    int ret;

    ret = one_result(body, len);
    if (ret != 0) {
        return ret;
    }
    return nss_parse_group(body + 8, len - 8, &consumed, gr, buf, buflen);
}

int nss_parse_initgr(const uint8_t *body, size_t len, const uint8_t **gids, uint32_t *count)
{
    uint32_t n;
    int ret;

    ret = nss_reply_count(body, len, &n);
    if (ret != 0) {
        return ret;
    }
    if (n > (len - 8) / sizeof(uint32_t)) {
        return EBADMSG;
    }
    if (n == 0) {
        return ENOENT;
    }
    *gids = body + 8;
    *count = n;
    return 0;
}

int nss_add_gids(const uint8_t *gids, uint32_t count, long int *start, long int *size,
                 gid_t **groups, long int limit)
{
    long int n = (long int)count;
    long int i;

    if (*start < 0 || *size < *start || count > (uint32_t)(LONG_MAX / 2)) {
        return 0;       /* nothing sane to append to */
    }
    /* SSSD's contract, which programs calling the module directly rely on: when the room
     * left is too small, *size grows by exactly count (capped at limit, and then only
     * what fits below limit is added); otherwise nothing is reallocated. */
    if (*size - *start < n) {
        long int newsize = *size + n;
        gid_t *grown;

        if (limit > 0 && newsize > limit) {
            newsize = limit > *start ? limit : *start;
            n = newsize - *start;
        }
        if ((unsigned long)newsize > SIZE_MAX / sizeof(gid_t)) {
            return ENOMEM;
        }
        if (newsize > *size) {
            grown = realloc(*groups, (size_t)newsize * sizeof(gid_t));
            if (grown == NULL) {
                return ENOMEM;
            }
            *groups = grown;
            *size = newsize;
        }
    }
    for (i = 0; i < n; i++) {
        (*groups)[*start] = (gid_t)get_u32(gids + (size_t)i * sizeof(uint32_t));
        *start += 1;
    }
    return 0;
}

int nss_parse_netgr(const uint8_t *p, size_t len, size_t *consumed,
                    struct nss_netgr_ent *ent, char *buf, size_t buflen)
{
    const char *strs;
    const char *fields[3];
    uint32_t type;
    uint32_t n;
    size_t used;
    size_t off = 0;
    uint32_t i;
    int ret;

    if (p == NULL || len < sizeof(uint32_t)) {
        return EBADMSG;
    }
    type = get_u32(p);
    if (type == SSS_NETGR_REP_TRIPLE) {
        n = 3;
    } else if (type == SSS_NETGR_REP_GROUP) {
        n = 1;
    } else {
        return EBADMSG;
    }
    strs = (const char *)p + sizeof(uint32_t);
    ret = scan_strings(strs, len - sizeof(uint32_t), n, &used);
    if (ret != 0) {
        return ret;
    }
    if (buf == NULL || used > buflen) {
        return ERANGE;
    }
    memcpy(buf, strs, used);
    for (i = 0; i < n; i++) {
        fields[i] = buf + off;
        off += strlen(buf + off) + 1;
    }
    memset(ent, 0, sizeof(*ent));
    if (n == 3) {
        ent->is_triple = 1;
        ent->host = fields[0][0] != '\0' ? fields[0] : NULL;
        ent->user = fields[1][0] != '\0' ? fields[1] : NULL;
        ent->domain = fields[2][0] != '\0' ? fields[2] : NULL;
    } else {
        ent->member = fields[0];
    }
    *consumed = sizeof(uint32_t) + used;
    return 0;
}
