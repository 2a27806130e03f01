/*
 * Validation of marshalled D-Bus values and of the names and strings they carry, for the
 * master bus's own reading of the wire (sbus_wire.h). It decides exactly what libdbus's
 * validator decides for untrusted data (dbus-marshal-validate.c), quirks included, so that
 * whatever the master forwards its libdbus receivers accept: a padding byte that is not
 * NUL, a boolean other than 0 or 1, a string that is not UTF-8 or holds a NUL, a length
 * past the end, nesting deeper than 32 arrays, 32 structs or 64 values in all: each makes
 * the message invalid. Every read is bounded by the end given; recursion is bounded by the
 * nesting limit.
 */
#include <string.h>

#include "sbus/sbus_wire.h"

/* libdbus's limits: 32 levels of each container in a signature, 64 values in all. */
#define WIRE_MAX_TYPE_DEPTH 32
#define WIRE_MAX_VALUE_DEPTH (2 * WIRE_MAX_TYPE_DEPTH)
#define WIRE_MAX_SIGNATURE 255
#define WIRE_MAX_ARRAY (64u * 1024u * 1024u)

struct wire_ctx {
    const uint8_t *msg;         /* offsets (and so alignment) are relative to this */
    size_t end;                 /* nothing at or past it is read */
    bool big_endian;
};

static inline uint32_t wire_u32(const struct wire_ctx *c, size_t off)
{
    const uint8_t *p = c->msg + off;

    if (c->big_endian) {
        return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
    }
    return (uint32_t)p[3] << 24 | (uint32_t)p[2] << 16 | (uint32_t)p[1] << 8 | p[0];
}

static inline size_t wire_align(size_t off, size_t to)
{
    return (off + to - 1) & ~(to - 1);
}

/* -------- names and strings -------- */

static inline bool wire_name_first(char c)
{
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_';
}

static inline bool wire_name_char(char c)
{
    return wire_name_first(c) || (c >= '0' && c <= '9');
}

static inline bool wire_bus_first(char c)
{
    return wire_name_first(c) || c == '-';
}

static inline bool wire_bus_char(char c)
{
    return wire_name_char(c) || c == '-';
}

bool sbus_wire_valid_bus_name(const char *s, size_t len)
{
    bool dot = false;
    size_t i;

    if (len == 0 || len > SBUS_WIRE_MAX_NAME) {
        return false;
    }
    if (s[0] == ':') {
        /* unique: elements may start with a digit; one element is enough */
        for (i = 1; i < len; i++) {
            if (s[i] == '.') {
                if (i + 1 == len || !wire_bus_char(s[i + 1])) {
                    return false;
                }
                i++;
            } else if (!wire_bus_char(s[i])) {
                return false;
            }
        }
        return true;
    }
    if (!wire_bus_first(s[0])) {
        return false;
    }
    for (i = 1; i < len; i++) {
        if (s[i] == '.') {
            if (i + 1 == len || !wire_bus_first(s[i + 1])) {
                return false;
            }
            dot = true;
            i++;
        } else if (!wire_bus_char(s[i])) {
            return false;
        }
    }
    return dot;
}

bool sbus_wire_valid_interface(const char *s, size_t len)
{
    bool dot = false;
    size_t i;

    if (len == 0 || len > SBUS_WIRE_MAX_NAME || !wire_name_first(s[0])) {
        return false;
    }
    for (i = 1; i < len; i++) {
        if (s[i] == '.') {
            if (i + 1 == len || !wire_name_first(s[i + 1])) {
                return false;
            }
            dot = true;
            i++;
        } else if (!wire_name_char(s[i])) {
            return false;
        }
    }
    return dot;
}

bool sbus_wire_valid_member(const char *s, size_t len)
{
    size_t i;

    if (len == 0 || len > SBUS_WIRE_MAX_NAME || !wire_name_first(s[0])) {
        return false;
    }
    for (i = 1; i < len; i++) {
        if (!wire_name_char(s[i])) {
            return false;
        }
    }
    return true;
}

bool sbus_wire_valid_path(const char *s, size_t len)
{
    size_t i, last_slash = 0;

    if (len == 0 || s[0] != '/') {
        return false;
    }
    for (i = 1; i < len; i++) {
        if (s[i] == '/') {
            if (i - last_slash < 2) {
                return false;       /* an empty element */
            }
            last_slash = i;
        } else if (!wire_name_char(s[i])) {
            return false;
        }
    }
    return len == 1 || len - last_slash >= 2;   /* no trailing slash but in "/" */
}

bool sbus_wire_valid_utf8(const uint8_t *s, size_t len)
{
    const uint64_t high = 0x8080808080808080ULL, ones = 0x0101010101010101ULL;
    size_t i = 0, n, k;
    uint32_t cp, min;
    uint64_t w;

    while (i < len) {
        /* eight ASCII bytes at a time, none of them NUL */
        while (len - i >= 8) {
            memcpy(&w, s + i, 8);
            if ((w & high) != 0 || ((w - ones) & ~w & high) != 0) {
                break;
            }
            i += 8;
        }
        if (i == len) {
            break;
        }
        if (s[i] < 0x80) {
            if (s[i] == 0) {
                return false;
            }
            i++;
            continue;
        }
        if ((s[i] & 0xe0) == 0xc0) {
            n = 2; cp = s[i] & 0x1f; min = 0x80;
        } else if ((s[i] & 0xf0) == 0xe0) {
            n = 3; cp = s[i] & 0x0f; min = 0x800;
        } else if ((s[i] & 0xf8) == 0xf0) {
            n = 4; cp = s[i] & 0x07; min = 0x10000;
        } else {
            return false;   /* a continuation byte, or a 5- or 6-byte form */
        }
        if (len - i < n) {
            return false;
        }
        for (k = 1; k < n; k++) {
            if ((s[i + k] & 0xc0) != 0x80) {
                return false;
            }
            cp = cp << 6 | (s[i + k] & 0x3f);
        }
        if (cp < min || cp >= 0x110000 || (cp & 0xfffff800) == 0xd800) {
            return false;   /* overlong, past Unicode, or a surrogate */
        }
        i += n;
    }
    return true;
}

/* -------- signatures -------- */

/* Per type code: its alignment (0: not a type), and whether it is basic or fixed. */
#define WIRE_BASIC 0x10
#define WIRE_FIXED 0x20
static const uint8_t wire_types[256] = {
    ['y'] = 1 | WIRE_BASIC | WIRE_FIXED, ['b'] = 4 | WIRE_BASIC | WIRE_FIXED,
    ['n'] = 2 | WIRE_BASIC | WIRE_FIXED, ['q'] = 2 | WIRE_BASIC | WIRE_FIXED,
    ['i'] = 4 | WIRE_BASIC | WIRE_FIXED, ['u'] = 4 | WIRE_BASIC | WIRE_FIXED,
    ['h'] = 4 | WIRE_BASIC | WIRE_FIXED, ['x'] = 8 | WIRE_BASIC | WIRE_FIXED,
    ['t'] = 8 | WIRE_BASIC | WIRE_FIXED, ['d'] = 8 | WIRE_BASIC | WIRE_FIXED,
    ['s'] = 4 | WIRE_BASIC, ['o'] = 4 | WIRE_BASIC, ['g'] = 1 | WIRE_BASIC,
    ['v'] = 1, ['a'] = 4, ['('] = 8, ['{'] = 8,
};

static inline bool wire_type_basic(char c)
{
    return (wire_types[(uint8_t)c] & WIRE_BASIC) != 0;
}

bool sbus_wire_valid_signature(const char *s, size_t len)
{
    /* How many complete types each open struct or dict entry holds so far; [0] is the
     * signature's top level. The checks and their order are libdbus's. */
    unsigned int counts[2 * WIRE_MAX_TYPE_DEPTH + 2];
    unsigned int top = 0;
    unsigned int struct_depth = 0, array_depth = 0, dict_depth = 0;
    char c, last = '\0';
    size_t i;

    if (len > WIRE_MAX_SIGNATURE) {
        return false;
    }
    counts[0] = 0;
    for (i = 0; i < len; i++) {
        c = s[i];
        switch (c) {
        case 'y': case 'b': case 'n': case 'q': case 'i': case 'u': case 'h':
        case 'x': case 't': case 'd': case 's': case 'o': case 'g': case 'v':
            break;
        case 'a':
            if (++array_depth > WIRE_MAX_TYPE_DEPTH) {
                return false;
            }
            break;
        case '(':
            if (++struct_depth > WIRE_MAX_TYPE_DEPTH) {
                return false;
            }
            counts[++top] = 0;
            break;
        case ')':
            if (struct_depth == 0 || last == '(') {
                return false;
            }
            top--;
            struct_depth--;
            break;
        case '{':
            if (last != 'a' || ++dict_depth > WIRE_MAX_TYPE_DEPTH) {
                return false;
            }
            counts[++top] = 0;
            break;
        case '}':
            if (dict_depth == 0) {
                return false;
            }
            dict_depth--;
            if (counts[top--] != 2) {
                return false;
            }
            break;
        default:
            return false;
        }
        if (c != 'a' && c != '{' && c != '(') {
            counts[top]++;
        }
        if (array_depth > 0) {
            if (c == 'a') {
                /* the byte after the signature is its NUL in libdbus: never ')' or '}' */
                if (i + 1 < len && (s[i + 1] == ')' || s[i + 1] == '}')) {
                    return false;
                }
            } else {
                array_depth = 0;
            }
        }
        if (last == '{' && !wire_type_basic(c)) {
            return false;
        }
        last = c;
    }
    return array_depth == 0 && struct_depth == 0 && dict_depth == 0;
}

/* The length of the single complete type at s (of a valid signature), 0 if malformed. */
static size_t wire_type_len(const char *s, size_t max)
{
    size_t i = 0;
    int open = 0;

    while (i < max) {
        switch (s[i++]) {
        case 'a':
            continue;
        case '(':
        case '{':
            open++;
            continue;
        case ')':
        case '}':
            if (--open < 0) {
                return 0;
            }
            break;
        default:
            break;
        }
        if (open == 0) {
            return i;
        }
    }
    return 0;
}

static inline size_t wire_alignment(char t)
{
    return wire_types[(uint8_t)t] & 0x0f;
}

static inline bool wire_fixed(char t)
{
    return (wire_types[(uint8_t)t] & WIRE_FIXED) != 0;
}

/* -------- values -------- */

/* Moves *pos to alignment `to`, the padding being NUL and within the end (a == end is
 * allowed: only what comes next needs bytes). */
static bool wire_pad(const struct wire_ctx *c, size_t *pos, size_t to)
{
    size_t a = wire_align(*pos, to);

    if (a > c->end) {
        return false;
    }
    for (; *pos < a; (*pos)++) {
        if (c->msg[*pos] != 0) {
            return false;
        }
    }
    return true;
}

static bool wire_value(const struct wire_ctx *c, const char **sigp, const char *sig_end,
                       size_t *pos, unsigned int depth);

/* An array: length, padding to the element's alignment, elements that fill it exactly. */
static bool wire_array(const struct wire_ctx *c, const char *elem, size_t elem_len,
                       size_t *pos, unsigned int depth)
{
    size_t p = *pos, array_end;
    const char *s;
    uint32_t len, v;

    if (!wire_pad(c, &p, 4) || c->end - p < 4) {
        return false;
    }
    len = wire_u32(c, p);
    p += 4;
    if (!wire_pad(c, &p, wire_alignment(elem[0])) || len > c->end - p) {
        return false;
    }
    array_end = p + len;
    if (len > 0) {
        if (len > WIRE_MAX_ARRAY) {
            return false;
        }
        if (wire_fixed(elem[0])) {
            /* a whole number of values (each as long as its alignment); only booleans
             * have values to check */
            if (len % wire_alignment(elem[0]) != 0) {
                return false;
            }
            for (; elem[0] == 'b' && p < array_end; p += 4) {
                v = wire_u32(c, p);
                if (v > 1) {
                    return false;
                }
            }
            p = array_end;
        } else {
            if (depth + 1 > WIRE_MAX_VALUE_DEPTH) {
                return false;
            }
            while (p < array_end) {
                s = elem;
                if (!wire_value(c, &s, elem + elem_len, &p, depth + 1)) {
                    return false;
                }
            }
            if (p != array_end) {
                return false;
            }
        }
    }
    *pos = p;
    return true;
}

/* A string or object path: length, bytes, NUL. */
static bool wire_string(const struct wire_ctx *c, char t, size_t *pos)
{
    size_t p = *pos;
    uint32_t len;

    if (!wire_pad(c, &p, 4) || c->end - p < 4) {
        return false;
    }
    len = wire_u32(c, p);
    p += 4;
    if (len > c->end - p) {
        return false;
    }
    if (t == 'o' ? !sbus_wire_valid_path((const char *)c->msg + p, len)
                 : !sbus_wire_valid_utf8(c->msg + p, len)) {
        return false;
    }
    p += len;
    if (p == c->end || c->msg[p] != 0) {
        return false;
    }
    *pos = p + 1;
    return true;
}

/* A signature value: length byte, bytes, NUL; *_sig set to its text. */
static bool wire_signature_value(const struct wire_ctx *c, size_t *pos, const char **_sig,
                                 size_t *_len)
{
    size_t p = *pos;
    size_t len = c->msg[p++];

    if (len + 1 > c->end - p || !sbus_wire_valid_signature((const char *)c->msg + p, len)
            || c->msg[p + len] != 0) {
        return false;
    }
    *_sig = (const char *)c->msg + p;
    *_len = len;
    *pos = p + len + 1;
    return true;
}

/* One value of the complete type at *sigp; both cursors move past it. depth is that of
 * libdbus's validator frame holding the value: containers open a frame one deeper. */
static bool wire_value(const struct wire_ctx *c, const char **sigp, const char *sig_end,
                       size_t *pos, unsigned int depth)
{
    const char *sig = *sigp;
    const char *inner;
    size_t p = *pos, al, len, inner_len;
    char t = sig[0];

    if (p >= c->end || sig >= sig_end) {
        return false;
    }
    switch (t) {
    case 'y':
        p++;
        break;
    case 'b': case 'n': case 'q': case 'i': case 'u': case 'h':
    case 'x': case 't': case 'd':
        al = wire_alignment(t);
        if (!wire_pad(c, &p, al) || c->end - p < al) {
            return false;
        }
        if (t == 'b' && wire_u32(c, p) > 1) {
            return false;
        }
        p += al;
        break;
    case 's': case 'o':
        if (!wire_string(c, t, &p)) {
            return false;
        }
        break;
    case 'g':
        if (!wire_signature_value(c, &p, &inner, &inner_len)) {
            return false;
        }
        break;
    case 'a':
        len = wire_type_len(sig + 1, (size_t)(sig_end - sig - 1));
        if (len == 0 || !wire_array(c, sig + 1, len, &p, depth)) {
            return false;
        }
        sig += len;
        break;
    case '(': case '{':
        if (!wire_pad(c, &p, 8) || depth + 1 > WIRE_MAX_VALUE_DEPTH) {
            return false;
        }
        inner = sig + 1;
        while (inner < sig_end && *inner != ')' && *inner != '}') {
            if (!wire_value(c, &inner, sig_end, &p, depth + 1)) {
                return false;
            }
        }
        if (inner >= sig_end) {
            return false;
        }
        sig = inner;
        break;
    case 'v':
        if (!wire_signature_value(c, &p, &inner, &inner_len) || inner_len == 0
                || !wire_pad(c, &p, wire_alignment(inner[0]))
                || depth + 1 > WIRE_MAX_VALUE_DEPTH) {
            return false;
        }
        sig_end = inner + inner_len;
        if (!wire_value(c, &inner, sig_end, &p, depth + 1) || inner != sig_end) {
            return false;   /* invalid, or more than one value */
        }
        break;
    default:
        return false;
    }
    *sigp = sig + 1;
    *pos = p;
    return true;
}

errno_t sbus_wire_validate_values(const uint8_t *msg, size_t start, size_t end,
                                  const char *sig, size_t sig_len, bool big_endian,
                                  unsigned int depth, size_t *_next)
{
    struct wire_ctx c = { .msg = msg, .end = end, .big_endian = big_endian };
    const char *s = sig, *sig_end = sig + sig_len;
    size_t p = start;

    while (s < sig_end) {
        if (!wire_value(&c, &s, sig_end, &p, depth)) {
            return EBADMSG;
        }
    }
    if (_next != NULL) {
        *_next = p;
    } else if (p != end) {
        return EBADMSG;     /* bytes left over */
    }
    return EOK;
}
