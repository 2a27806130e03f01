/*
 * Small text helpers for confdb: whitespace trimming, making untrusted bytes safe to show
 * in a one-line message, integer and boolean parsing with SSSD's spellings, splitting
 * comma-separated lists, and the edit distance used to suggest a known name.
 */
#include <limits.h>
#include <strings.h>

#include "util/sss_csv.h"
#include "confdb/confdb_private.h"

/* Longest piece of user text quoted in a message before it is cut with "...". */
#define CONFDB_QUOTE_MAX 80
/* Names longer than this get no suggestion (keeps the distance cheap). */
#define CONFDB_DISTANCE_MAX 64

/* confdb_is_space's characters. */
#define CONFDB_SPACES " \t\r\n\v\f"

bool confdb_is_space(char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\v' || c == '\f';
}

/* Returns the start of s[0..len) without surrounding whitespace, its length in *_len. */
const char *confdb_trim(const char *s, size_t len, size_t *_len)
{
    while (len > 0 && confdb_is_space(s[0])) {
        s++;
        len--;
    }
    while (len > 0 && confdb_is_space(s[len - 1])) {
        len--;
    }
    *_len = len;
    return s;
}

/* Printable copy of s[0..len): control bytes become \xNN, long text is cut with "...". */
char *confdb_quote(TALLOC_CTX *mem_ctx, const char *s, size_t len)
{
    static const char hex[] = "0123456789abcdef";
    size_t n = len > CONFDB_QUOTE_MAX ? CONFDB_QUOTE_MAX : len;
    char *out;
    size_t i, o = 0;

    out = talloc_array(mem_ctx, char, n * 4 + 4);
    if (out == NULL) {
        return NULL;
    }
    for (i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];

        if (c < 0x20 || c == 0x7f) {
            out[o++] = '\\';
            out[o++] = 'x';
            out[o++] = hex[c >> 4];
            out[o++] = hex[c & 0xf];
        } else {
            out[o++] = (char)c;
        }
    }
    if (n < len) {
        out[o++] = '.';
        out[o++] = '.';
        out[o++] = '.';
    }
    out[o] = '\0';
    return out;
}

char *confdb_quote_str(TALLOC_CTX *mem_ctx, const char *s)
{
    if (s == NULL) {
        return talloc_strdup(mem_ctx, "(null)");
    }
    return confdb_quote(mem_ctx, s, strlen(s));
}

static int confdb_digit(char c, unsigned base)
{
    int d;

    if (c >= '0' && c <= '9') {
        d = c - '0';
    } else if (c >= 'a' && c <= 'f') {
        d = c - 'a' + 10;
    } else if (c >= 'A' && c <= 'F') {
        d = c - 'A' + 10;
    } else {
        return -1;
    }
    return (unsigned)d < base ? d : -1;
}

/*
 * Decimal, or hexadecimal with 0x/0X, optional sign, nothing else (no whitespace, no
 * octal). EINVAL when not a number, ERANGE when it does not fit a long long.
 */
errno_t confdb_parse_int(const char *s, long long *_value)
{
    unsigned long long acc = 0;
    unsigned long long limit = (unsigned long long)LLONG_MAX;
    unsigned base = 10;
    bool neg = false;
    const char *p = s;

    if (p == NULL) {
        return EINVAL;
    }
    if (*p == '+' || *p == '-') {
        neg = *p == '-';
        p++;
    }
    if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) {
        base = 16;
        p += 2;
    }
    if (*p == '\0') {
        return EINVAL;
    }
    for (; *p != '\0'; p++) {
        int d = confdb_digit(*p, base);

        if (d < 0) {
            return EINVAL;
        }
        if (acc > (limit - (unsigned)d) / base) {
            return ERANGE;
        }
        acc = acc * base + (unsigned)d;
    }
    *_value = neg ? -(long long)acc : (long long)acc;
    return EOK;
}

/* true/yes/1 and false/no/0, any case. EINVAL otherwise. */
errno_t confdb_parse_bool(const char *s, bool *_value)
{
    if (s == NULL) {
        return EINVAL;
    }
    if (strcasecmp(s, "true") == 0 || strcasecmp(s, "yes") == 0 || strcmp(s, "1") == 0) {
        *_value = true;
        return EOK;
    }
    if (strcasecmp(s, "false") == 0 || strcasecmp(s, "no") == 0 || strcmp(s, "0") == 0) {
        *_value = false;
        return EOK;
    }
    return EINVAL;
}

/* Splits on ',', trims each item, drops empty ones. The result is NULL-terminated; the
 * items are children of the array. */
errno_t confdb_split_list(TALLOC_CTX *mem_ctx, const char *s, char ***_list, size_t *_count)
{
    TALLOC_CTX *tmp_ctx;
    char **list;
    size_t count = 0;
    size_t alloc = 1;
    const char *p;
    const char *item;
    size_t ilen;
    errno_t ret;

    tmp_ctx = talloc_new(NULL);
    if (tmp_ctx == NULL) {
        return ENOMEM;
    }
    for (p = s; p != NULL && *p != '\0'; p++) {
        if (*p == ',') {
            alloc++;
        }
    }
    list = talloc_zero_array(tmp_ctx, char *, alloc + 1);
    if (list == NULL) {
        ret = ENOMEM;
        goto done;
    }

    p = s;
    while (sss_csv_next(&p, CONFDB_SPACES, &item, &ilen)) {
        if (ilen > 0) {
            list[count] = talloc_strndup(list, item, ilen);
            if (list[count] == NULL) {
                ret = ENOMEM;
                goto done;
            }
            count++;
        }
    }
    list[count] = NULL;

    *_list = talloc_steal(mem_ctx, list);
    if (_count != NULL) {
        *_count = count;
    }
    ret = EOK;

done:
    talloc_free(tmp_ctx);
    return ret;
}

static char confdb_lower(char c)
{
    return (c >= 'A' && c <= 'Z') ? (char)(c - 'A' + 'a') : c;
}

/* Case-insensitive Levenshtein distance; SIZE_MAX when either string is too long. */
size_t confdb_distance(const char *a, const char *b)
{
    size_t row[CONFDB_DISTANCE_MAX + 1];
    size_t la = strlen(a);
    size_t lb = strlen(b);
    size_t i, j;

    if (la > CONFDB_DISTANCE_MAX || lb > CONFDB_DISTANCE_MAX) {
        return SIZE_MAX;
    }
    for (j = 0; j <= lb; j++) {
        row[j] = j;
    }
    for (i = 1; i <= la; i++) {
        size_t diag = row[0];

        row[0] = i;
        for (j = 1; j <= lb; j++) {
            size_t up = row[j];
            size_t best = diag + (confdb_lower(a[i - 1]) == confdb_lower(b[j - 1]) ? 0 : 1);

            if (up + 1 < best) {
                best = up + 1;
            }
            if (row[j - 1] + 1 < best) {
                best = row[j - 1] + 1;
            }
            diag = up;
            row[j] = best;
        }
    }
    return row[lb];
}
