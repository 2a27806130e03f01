/*
 * pam_sss's reply parser and the texts of SSS_PAM_USER_INFO items. The parser checks a whole
 * reply before pam_sss acts on any item of it, so a malformed reply shows no message, sets
 * no environment variable and never turns into a success: the caller answers
 * PAM_SYSTEM_ERR instead. Items of types this client does not know are skipped, as SSSD's
 * client skips them (newer servers add types). The texts are SSSD 2.8's, byte for byte
 * (tests/intg/test_pam_client_wire.sh shows both clients the same replies). Pure functions
 * over byte buffers, also driven by tests/fuzz/fuzz_pam_reply.c.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "sss_client/sss_cli.h"
#include "sss_client/pam/pam_sss_private.h"

#define U32 sizeof(uint32_t)

static uint32_t get_u32(const uint8_t *p)
{
    uint32_t v;

    memcpy(&v, p, sizeof(v));
    return v;
}

/* A string item: one NUL, at the very end. */
static bool is_string(const uint8_t *data, uint32_t len)
{
    return len > 0 && data[len - 1] == '\0' && memchr(data, '\0', len - 1) == NULL;
}

/* The size a USER_INFO item of a known subtype must have; 0 for subtypes with a message
 * (their size follows from the message length), -1 for unknown subtypes. */
static long user_info_size(uint32_t subtype)
{
    switch (subtype) {
    case SSS_PAM_USER_INFO_OFFLINE_AUTH:
    case SSS_PAM_USER_INFO_OFFLINE_AUTH_DELAYED:
        return U32 + sizeof(int64_t);
    case SSS_PAM_USER_INFO_OFFLINE_CHPASS:
    case SSS_PAM_USER_INFO_OTP_CHPASS:
    case SSS_PAM_USER_INFO_PIN_LOCKED:
        return U32;
    case SSS_PAM_USER_INFO_GRACE_LOGIN:
    case SSS_PAM_USER_INFO_EXPIRE_WARN:
        return 2 * U32;
    case SSS_PAM_USER_INFO_CHPASS_ERROR:
    case SSS_PAM_USER_INFO_ACCOUNT_EXPIRED:
        return 0;
    default:
        return -1;
    }
}

/* 0 when a USER_INFO payload is well formed, ENOENT for an unknown subtype, else EBADMSG. */
static int user_info_check(const uint8_t *data, size_t len)
{
    long want;

    if (len < U32) {
        return EBADMSG;
    }
    want = user_info_size(get_u32(data));
    if (want < 0) {
        return ENOENT;
    }
    if (want == 0) {
        /* subtype, uint32 message length, the message */
        if (len < 2 * U32 || len - 2 * U32 != get_u32(data + U32)) {
            return EBADMSG;
        }
        return 0;
    }
    return len == (size_t)want ? 0 : EBADMSG;
}

static int check_item(uint32_t type, const uint8_t *data, uint32_t len)
{
    const uint8_t *eq;

    switch (type) {
    case SSS_PAM_SYSTEM_INFO:
    case SSS_PAM_DOMAIN_NAME:
    case SSS_PAM_TEXT_MSG:
        return is_string(data, len) ? 0 : EBADMSG;
    case SSS_PAM_ENV_ITEM:
    case SSS_ENV_ITEM:
    case SSS_ALL_ENV_ITEM:
        /* NAME=value: without '=' putenv() would remove a variable instead. */
        if (!is_string(data, len)) {
            return EBADMSG;
        }
        eq = memchr(data, '=', len);
        return eq != NULL && eq != data ? 0 : EBADMSG;
    case SSS_PAM_USER_INFO: {
        int ret = user_info_check(data, len);

        return ret == ENOENT ? 0 : ret;
    }
    default:
        return 0;
    }
}

int pam_sss_reply_parse(const uint8_t *body, size_t len, struct pam_sss_reply *_reply)
{
    struct pam_sss_reply reply;
    size_t off = 2 * U32;
    int32_t status;
    int32_t count;
    int32_t i;

    if (body == NULL || _reply == NULL || len < 2 * U32) {
        return EBADMSG;
    }
    memcpy(&status, body, sizeof(status));
    memcpy(&count, body + U32, sizeof(count));
    if (status < 0 || status > PAM_SSS_MAX_PAM_STATUS || count < 0) {
        return EBADMSG;
    }
    /* Each item takes at least its 8-byte header: a larger count cannot fit. */
    if ((size_t)count > (len - off) / (2 * U32)) {
        return EBADMSG;
    }
    for (i = 0; i < count; i++) {
        uint32_t type;
        uint32_t ilen;
        int ret;

        if (len - off < 2 * U32) {
            return EBADMSG;
        }
        type = get_u32(body + off);
        ilen = get_u32(body + off + U32);
        off += 2 * U32;
        if (ilen > len - off) {
            return EBADMSG;
        }
        ret = check_item(type, body + off, ilen);
        if (ret != 0) {
            return ret;
        }
        off += ilen;
    }
    if (off != len) {
        return EBADMSG;     /* bytes after the last item: not a reply we understand */
    }

    reply.status = status;
    reply.count = (uint32_t)count;
    reply.items = body + 2 * U32;
    reply.items_len = len - 2 * U32;
    *_reply = reply;
    return 0;
}

bool pam_sss_reply_next(const struct pam_sss_reply *reply, size_t *cursor,
                        struct pam_sss_item *_item)
{
    const uint8_t *p;

    if (*cursor >= reply->items_len) {
        return false;
    }
    /* pam_sss_reply_parse() checked that every header and payload lies inside. */
    p = reply->items + *cursor;
    _item->type = get_u32(p);
    _item->len = get_u32(p + U32);
    _item->data = p + 2 * U32;
    *cursor += 2 * U32 + _item->len;
    return true;
}

/* ---- the texts ----------------------------------------------------------------------- */

#define MINSEC  60
#define HOURSEC (60 * MINSEC)
#define DAYSEC  (24 * HOURSEC)

/* strftime("%c") of a time in local time, or "" when it cannot be shown. */
static void format_time(int64_t t, char *buf, size_t size)
{
    time_t tt = (time_t)t;
    struct tm tm;

    buf[0] = '\0';
    /* SSSD's format, the locale's date and time, whatever the locale does with years. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-y2k"
    if (localtime_r(&tt, &tm) == NULL || strftime(buf, size, "%c", &tm) == 0) {
        buf[0] = '\0';
    }
#pragma GCC diagnostic pop
}

static int text_printf(char **_text, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int text_printf(char **_text, const char *fmt, ...)
{
    va_list ap;
    char *text;
    int n;

    va_start(ap, fmt);
    n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0) {
        return ENOMEM;
    }
    text = malloc((size_t)n + 1);
    if (text == NULL) {
        return ENOMEM;
    }
    va_start(ap, fmt);
    n = vsnprintf(text, (size_t)n + 1, fmt, ap);
    va_end(ap);
    if (n < 0) {
        free(text);
        return ENOMEM;
    }
    *_text = text;
    return 0;
}

int pam_sss_user_info_text(const uint8_t *data, size_t len, char **_text)
{
    char when[128];
    int64_t t;
    uint32_t v;
    int ret;

    if (data == NULL || _text == NULL) {
        return EINVAL;
    }
    ret = user_info_check(data, len);
    if (ret != 0) {
        return ret;
    }

    switch (get_u32(data)) {
    case SSS_PAM_USER_INFO_OFFLINE_AUTH:
        memcpy(&t, data + U32, sizeof(t));
        when[0] = '\0';
        if (t > 0) {
            format_time(t, when, sizeof(when));
        }
        return text_printf(_text, "%s%s%s.", "Authenticated with cached credentials",
                           when[0] != '\0' ? ", your cached password will expire at: " : "",
                           when);
    case SSS_PAM_USER_INFO_OFFLINE_AUTH_DELAYED:
        memcpy(&t, data + U32, sizeof(t));
        if (t <= 0) {
            return EBADMSG;
        }
        format_time(t, when, sizeof(when));
        return text_printf(_text, "%s%s.", "Authentication is denied until: ", when);
    case SSS_PAM_USER_INFO_OFFLINE_CHPASS:
        return text_printf(_text, "%s", "System is offline, password change not possible");
    case SSS_PAM_USER_INFO_OTP_CHPASS:
        return text_printf(_text, "%s", "After changing the OTP password, you need to log out "
                           "and back in order to acquire a ticket");
    case SSS_PAM_USER_INFO_PIN_LOCKED:
        return text_printf(_text, "%s", "PIN locked");
    case SSS_PAM_USER_INFO_GRACE_LOGIN:
        v = get_u32(data + U32);
        /* SSSD prints the uint32 with %d: keep its output for every value. */
        return text_printf(_text, "Your password has expired. You have %d grace login(s) "
                           "remaining.", (int)v);
    case SSS_PAM_USER_INFO_EXPIRE_WARN: {
        const char *unit = "second(s)";

        v = get_u32(data + U32);
        if (v >= DAYSEC) {
            v /= DAYSEC;
            unit = "day(s)";
        } else if (v >= HOURSEC) {
            v /= HOURSEC;
            unit = "hour(s)";
        } else if (v >= MINSEC) {
            v /= MINSEC;
            unit = "minute(s)";
        }
        return text_printf(_text, "Your password will expire in %d %s.", (int)v, unit);
    }
    case SSS_PAM_USER_INFO_CHPASS_ERROR:
    case SSS_PAM_USER_INFO_ACCOUNT_EXPIRED:
        v = get_u32(data + U32);
        /* The message is counted, not NUL-terminated; it stops at an embedded NUL too. */
        return text_printf(_text, "%s%s%.*s",
                           get_u32(data) == SSS_PAM_USER_INFO_CHPASS_ERROR
                               ? "Password change failed. " : "Permission denied. ",
                           v > 0 ? "Server message: " : "",
                           (int)v, v > 0 ? (const char *)(data + 2 * U32) : "");
    default:
        return ENOENT;
    }
}
