/*
 * sssctl's JSON writer: builds one document in memory (so a failure half-way prints nothing
 * rather than a truncated document) and writes it with two-space indentation. Strings are
 * escaped as RFC 8259 requires ('"', '\\' and every control character below 0x20) and the
 * output is always valid UTF-8: names and messages come from directories and log files, so
 * a byte that is not part of a well-formed UTF-8 sequence (overlong forms, surrogates and
 * values above U+10FFFF included) is written as U+FFFD.
 */
#include <assert.h>
#include <inttypes.h>

#include "tools/sssctl.h"

#define SSSCTL_JSON_DEPTH 32

struct sssctl_json {
    char *buf;
    bool oom;
    int depth;
    bool is_array[SSSCTL_JSON_DEPTH];
    bool has_items[SSSCTL_JSON_DEPTH];
    bool top_done;
};

struct sssctl_json *sssctl_json_new(TALLOC_CTX *mem_ctx)
{
    struct sssctl_json *js = talloc_zero(mem_ctx, struct sssctl_json);

    if (js == NULL) {
        return NULL;
    }
    js->buf = talloc_strdup(js, "");
    if (js->buf == NULL) {
        talloc_free(js);
        return NULL;
    }
    return js;
}

static void json_append(struct sssctl_json *js, const char *text, size_t len)
{
    char *buf;

    if (js->oom) {
        return;
    }
    buf = talloc_strndup_append_buffer(js->buf, text, len);
    if (buf == NULL) {
        js->oom = true;
        return;
    }
    js->buf = buf;
}

static void json_puts(struct sssctl_json *js, const char *text)
{
    json_append(js, text, strlen(text));
}

/* Length of the well-formed UTF-8 sequence at s (1-4), or 0 when it is not one. */
static size_t json_utf8_len(const unsigned char *s)
{
    if (s[0] < 0x80) {
        return 1;
    }
    if (s[0] >= 0xc2 && s[0] <= 0xdf) {
        return (s[1] & 0xc0) == 0x80 ? 2 : 0;
    }
    if (s[0] >= 0xe0 && s[0] <= 0xef) {
        if ((s[1] & 0xc0) != 0x80 || (s[2] & 0xc0) != 0x80) {
            return 0;
        }
        if ((s[0] == 0xe0 && s[1] < 0xa0) || (s[0] == 0xed && s[1] >= 0xa0)) {
            return 0;   /* overlong, or a UTF-16 surrogate */
        }
        return 3;
    }
    if (s[0] >= 0xf0 && s[0] <= 0xf4) {
        if ((s[1] & 0xc0) != 0x80 || (s[2] & 0xc0) != 0x80 || (s[3] & 0xc0) != 0x80) {
            return 0;
        }
        if ((s[0] == 0xf0 && s[1] < 0x90) || (s[0] == 0xf4 && s[1] >= 0x90)) {
            return 0;   /* overlong, or above U+10FFFF */
        }
        return 4;
    }
    return 0;
}

static void json_string(struct sssctl_json *js, const char *value)
{
    const unsigned char *s = (const unsigned char *)value;
    char esc[8];
    size_t len;

    json_puts(js, "\"");
    while (*s != '\0') {
        switch (*s) {
        case '"':  json_puts(js, "\\\""); s++; continue;
        case '\\': json_puts(js, "\\\\"); s++; continue;
        case '\n': json_puts(js, "\\n"); s++; continue;
        case '\r': json_puts(js, "\\r"); s++; continue;
        case '\t': json_puts(js, "\\t"); s++; continue;
        case '\b': json_puts(js, "\\b"); s++; continue;
        case '\f': json_puts(js, "\\f"); s++; continue;
        default:
            break;
        }
        if (*s < 0x20) {
            snprintf(esc, sizeof(esc), "\\u%04x", *s);
            json_puts(js, esc);
            s++;
            continue;
        }
        len = json_utf8_len(s);
        if (len == 0) {
            json_puts(js, "\\ufffd");
            s++;
            continue;
        }
        json_append(js, (const char *)s, len);
        s += len;
    }
    json_puts(js, "\"");
}

static void json_indent(struct sssctl_json *js)
{
    int i;

    json_puts(js, "\n");
    for (i = 0; i < js->depth; i++) {
        json_puts(js, "  ");
    }
}

/* Everything a value needs before it: separator, indentation, key. */
static void json_value_start(struct sssctl_json *js, const char *key)
{
    if (js->depth == 0) {
        assert(key == NULL && !js->top_done);
        js->top_done = true;
        return;
    }
    assert(js->is_array[js->depth - 1] == (key == NULL));
    if (js->has_items[js->depth - 1]) {
        json_puts(js, ",");
    }
    js->has_items[js->depth - 1] = true;
    json_indent(js);
    if (key != NULL) {
        json_string(js, key);
        json_puts(js, ": ");
    }
}

static void json_open(struct sssctl_json *js, const char *key, bool array)
{
    json_value_start(js, key);
    assert(js->depth < SSSCTL_JSON_DEPTH);
    json_puts(js, array ? "[" : "{");
    js->is_array[js->depth] = array;
    js->has_items[js->depth] = false;
    js->depth++;
}

static void json_close(struct sssctl_json *js, bool array)
{
    bool had_items;

    assert(js->depth > 0 && js->is_array[js->depth - 1] == array);
    had_items = js->has_items[js->depth - 1];
    js->depth--;
    if (had_items) {
        json_indent(js);
    }
    json_puts(js, array ? "]" : "}");
}

void sssctl_json_obj_start(struct sssctl_json *js, const char *key) { json_open(js, key, false); }
void sssctl_json_obj_end(struct sssctl_json *js) { json_close(js, false); }
void sssctl_json_arr_start(struct sssctl_json *js, const char *key) { json_open(js, key, true); }
void sssctl_json_arr_end(struct sssctl_json *js) { json_close(js, true); }

void sssctl_json_str(struct sssctl_json *js, const char *key, const char *value)
{
    json_value_start(js, key);
    if (value == NULL) {
        json_puts(js, "null");
        return;
    }
    json_string(js, value);
}

void sssctl_json_int(struct sssctl_json *js, const char *key, int64_t value)
{
    char num[32];

    json_value_start(js, key);
    snprintf(num, sizeof(num), "%" PRId64, value);
    json_puts(js, num);
}

void sssctl_json_bool(struct sssctl_json *js, const char *key, bool value)
{
    json_value_start(js, key);
    json_puts(js, value ? "true" : "false");
}

void sssctl_json_time(struct sssctl_json *js, const char *key, time_t value)
{
    if (value == 0) {
        json_value_start(js, key);
        json_puts(js, "null");
        return;
    }
    sssctl_json_int(js, key, (int64_t)value);
}

const char *sssctl_json_text(struct sssctl_json *js)
{
    if (js == NULL || js->oom || js->depth != 0 || !js->top_done) {
        return NULL;
    }
    return js->buf;
}

errno_t sssctl_json_finish(struct sssctl_json *js, FILE *out)
{
    const char *text;

    if (js == NULL || js->oom) {
        return ENOMEM;
    }
    text = sssctl_json_text(js);
    if (text == NULL) {
        return EINVAL;
    }
    if (fprintf(out, "%s\n", text) < 0 || fflush(out) != 0) {
        return EIO;
    }
    return EOK;
}
