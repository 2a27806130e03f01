/*
 * Framing, header parsing and the sender stamp of the master bus's wire reading
 * (sbus_wire.h). The header is the fixed 16 bytes and an array of (code, variant) entries,
 * each 8-aligned; the master needs only a few of them (destination, serial, reply serial,
 * interface and member for signals) but checks all of them as libdbus does, then the body
 * against the SIGNATURE entry (sbus_wire_values.c). The stamp splices a SENDER entry into
 * the header through an iovec: entries are 8-aligned and the body starts 8-aligned, so
 * dropping a peer's own SENDER entry and appending ours keeps every offset's alignment.
 */
#include <string.h>
#include <dbus/dbus-protocol.h>

#include "sbus/sbus_wire.h"

#define WIRE_LOCAL_PATH "/org/freedesktop/DBus/Local"
#define WIRE_LOCAL_IFACE "org.freedesktop.DBus.Local"
/* The value nesting of a header entry's variant: array, struct, variant. */
#define WIRE_FIELD_DEPTH 2

static inline uint32_t wire_get32(const uint8_t *p, bool big_endian)
{
    if (big_endian) {
        return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
    }
    return (uint32_t)p[3] << 24 | (uint32_t)p[2] << 16 | (uint32_t)p[1] << 8 | p[0];
}

static inline void wire_put32(uint8_t *p, uint32_t v, bool big_endian)
{
    if (big_endian) {
        p[0] = v >> 24; p[1] = v >> 16; p[2] = v >> 8; p[3] = v;
    } else {
        p[3] = v >> 24; p[2] = v >> 16; p[1] = v >> 8; p[0] = v;
    }
}

static inline size_t wire_align8(size_t v)
{
    return (v + 7) & ~(size_t)7;
}

errno_t sbus_wire_message_size(const uint8_t *data, size_t len, size_t *_size)
{
    uint32_t body_len, fields_len;
    size_t header_len;
    bool big_endian;

    if (len < SBUS_WIRE_FIXED_SIZE) {
        return EAGAIN;
    }
    if (data[0] != DBUS_LITTLE_ENDIAN && data[0] != DBUS_BIG_ENDIAN) {
        return EBADMSG;
    }
    big_endian = data[0] == DBUS_BIG_ENDIAN;
    body_len = wire_get32(data + 4, big_endian);
    fields_len = wire_get32(data + 12, big_endian);
    if (fields_len > SBUS_WIRE_MAX_MESSAGE || body_len > SBUS_WIRE_MAX_MESSAGE) {
        return EBADMSG;
    }
    header_len = wire_align8(SBUS_WIRE_FIXED_SIZE + (size_t)fields_len);
    if (header_len + body_len > SBUS_WIRE_MAX_MESSAGE) {
        return EBADMSG;
    }
    *_size = header_len + body_len;
    return EOK;
}

bool sbus_wire_equal(const uint8_t *data, struct sbus_wire_str f, const char *s)
{
    return f.off != 0 && strlen(s) == f.len && memcmp(data + f.off, s, f.len) == 0;
}

/* The type each known entry must have, by code (DBUS_HEADER_FIELD_*). */
static const char wire_field_types[] = {
    [DBUS_HEADER_FIELD_PATH] = 'o',
    [DBUS_HEADER_FIELD_INTERFACE] = 's',
    [DBUS_HEADER_FIELD_MEMBER] = 's',
    [DBUS_HEADER_FIELD_ERROR_NAME] = 's',
    [DBUS_HEADER_FIELD_REPLY_SERIAL] = 'u',
    [DBUS_HEADER_FIELD_DESTINATION] = 's',
    [DBUS_HEADER_FIELD_SENDER] = 's',
    [DBUS_HEADER_FIELD_SIGNATURE] = 'g',
    [DBUS_HEADER_FIELD_UNIX_FDS] = 'u',
    [DBUS_HEADER_FIELD_CONTAINER_INSTANCE] = 'o',   /* libdbus 1.14 knows it; forwarded */
};

/* Reads the value of a known entry at *pos (after its variant signature), checking it the
 * way libdbus's generic validation and its field checks together do; end bounds it. */
static bool wire_field_value(const uint8_t *data, size_t end, char type, bool big_endian,
                             size_t *pos, struct sbus_wire_str *str, uint32_t *u)
{
    size_t p = *pos, len;

    if (type == 'g') {
        if (p >= end) {
            return false;
        }
        len = data[p++];
        if (len + 1 > end - p || !sbus_wire_valid_signature((const char *)data + p, len)
                || data[p + len] != 0) {
            return false;
        }
        str->off = (uint32_t)p;
        str->len = (uint32_t)len;
        *pos = p + len + 1;
        return true;
    }
    /* 'u', 's' and 'o' start 4-aligned, the padding NUL */
    for (; p % 4 != 0; p++) {
        if (p >= end || data[p] != 0) {
            return false;
        }
    }
    if (end - p < 4) {
        return false;
    }
    *u = wire_get32(data + p, big_endian);
    p += 4;
    if (type == 'u') {
        *pos = p;
        return true;
    }
    len = *u;
    if (len >= end - p || data[p + len] != 0) {
        return false;   /* past the end, or no NUL after it */
    }
    str->off = (uint32_t)p;
    str->len = (uint32_t)len;
    *pos = p + len + 1;
    /* a path is checked here; strings by the name rules of their entry (stricter than
     * UTF-8, which they imply) */
    return type != 'o' || sbus_wire_valid_path((const char *)data + p, len);
}

/* Checks a known entry's meaning and records it. */
static bool wire_field(const uint8_t *data, struct sbus_wire_header *h, uint8_t code,
                       struct sbus_wire_str str, uint32_t u, size_t entry, size_t entry_end)
{
    switch (code) {
    case DBUS_HEADER_FIELD_PATH:
        /* libdbus refuses the local path as a prefix */
        if (str.len >= sizeof(WIRE_LOCAL_PATH) - 1
                && memcmp(data + str.off, WIRE_LOCAL_PATH, sizeof(WIRE_LOCAL_PATH) - 1) == 0) {
            return false;
        }
        h->path = str;
        return true;
    case DBUS_HEADER_FIELD_INTERFACE:
        if (!sbus_wire_valid_interface((const char *)data + str.off, str.len)
                || (str.len >= sizeof(WIRE_LOCAL_IFACE) - 1
                    && memcmp(data + str.off, WIRE_LOCAL_IFACE,
                              sizeof(WIRE_LOCAL_IFACE) - 1) == 0)) {
            return false;
        }
        h->interface = str;
        return true;
    case DBUS_HEADER_FIELD_MEMBER:
        h->member = str;
        return sbus_wire_valid_member((const char *)data + str.off, str.len);
    case DBUS_HEADER_FIELD_ERROR_NAME:
        h->error_name = str;
        return sbus_wire_valid_interface((const char *)data + str.off, str.len);
    case DBUS_HEADER_FIELD_REPLY_SERIAL:
        h->reply_serial = u;
        return u != 0;
    case DBUS_HEADER_FIELD_DESTINATION:
        h->destination = str;
        return sbus_wire_valid_bus_name((const char *)data + str.off, str.len);
    case DBUS_HEADER_FIELD_SENDER:
        h->sender = str;
        h->sender_field = (uint32_t)entry;
        h->sender_field_end = (uint32_t)entry_end;
        return sbus_wire_valid_bus_name((const char *)data + str.off, str.len);
    case DBUS_HEADER_FIELD_SIGNATURE:
        h->signature = str;
        return true;
    case DBUS_HEADER_FIELD_UNIX_FDS:
        h->unix_fds = u;
        return true;
    case DBUS_HEADER_FIELD_CONTAINER_INSTANCE:
        return true;
    default:
        return false;
    }
}

/* The entries of the header field array, each (byte code, variant), 8-aligned. A known
 * entry must hold exactly its type, so it is read directly; an unknown one only needs to
 * be a valid variant. */
static bool wire_fields(const uint8_t *data, struct sbus_wire_header *h)
{
    size_t p = SBUS_WIRE_FIXED_SIZE;
    size_t end = SBUS_WIRE_FIXED_SIZE + (size_t)h->fields_len;
    struct sbus_wire_str str;
    size_t entry;
    unsigned int seen = 0;
    uint32_t u;
    uint8_t code;
    char type;

    while (p < end) {
        /* the entry: a struct, so 8-aligned with NUL padding */
        for (; p % 8 != 0; p++) {
            if (p >= end || data[p] != 0) {
                return false;
            }
        }
        entry = p;
        if (p >= end) {
            return false;
        }
        code = data[p++];
        if (code == DBUS_HEADER_FIELD_INVALID) {
            return false;
        }
        if (code > DBUS_HEADER_FIELD_LAST) {
            /* unknown entries are valid and ignored */
            if (sbus_wire_validate_values(data, p, end, "v", 1, h->big_endian,
                                          WIRE_FIELD_DEPTH, &p) != EOK) {
                return false;
            }
            continue;
        }
        type = wire_field_types[code];
        if (end - p < 3 || data[p] != 1 || data[p + 1] != (uint8_t)type || data[p + 2] != 0
                || (seen & (1u << code)) != 0) {
            return false;   /* not a variant of exactly its type, or twice */
        }
        seen |= 1u << code;
        p += 3;
        str.off = 0;
        str.len = 0;
        u = 0;
        if (!wire_field_value(data, end, type, h->big_endian, &p, &str, &u)
                || !wire_field(data, h, code, str, u, entry, wire_align8(p))) {
            return false;
        }
    }
    return p == end;
}

/* The entries each message type needs (libdbus's check_mandatory_fields). */
static bool wire_mandatory(const struct sbus_wire_header *h)
{
    switch (h->type) {
    case DBUS_MESSAGE_TYPE_SIGNAL:
        return h->interface.off != 0 && h->path.off != 0 && h->member.off != 0;
    case DBUS_MESSAGE_TYPE_METHOD_CALL:
        return h->path.off != 0 && h->member.off != 0;
    case DBUS_MESSAGE_TYPE_ERROR:
        return h->error_name.off != 0 && h->reply_serial != 0;
    case DBUS_MESSAGE_TYPE_METHOD_RETURN:
        return h->reply_serial != 0;
    default:
        return true;
    }
}

errno_t sbus_wire_parse(const uint8_t *data, size_t size, struct sbus_wire_header *h)
{
    size_t total, i;

    if (sbus_wire_message_size(data, size, &total) != EOK || total != size) {
        return EBADMSG;
    }
    memset(h, 0, sizeof(*h));
    h->big_endian = data[0] == DBUS_BIG_ENDIAN;
    h->type = data[1];
    h->flags = data[2];
    h->body_len = wire_get32(data + 4, h->big_endian);
    h->serial = wire_get32(data + 8, h->big_endian);
    h->fields_len = wire_get32(data + 12, h->big_endian);
    h->header_len = (uint32_t)wire_align8(SBUS_WIRE_FIXED_SIZE + (size_t)h->fields_len);
    if (h->type == DBUS_MESSAGE_TYPE_INVALID || data[3] != DBUS_MAJOR_PROTOCOL_VERSION
            || h->serial == 0) {
        return EBADMSG;
    }
    if (!wire_fields(data, h)) {
        return EBADMSG;
    }
    for (i = SBUS_WIRE_FIXED_SIZE + h->fields_len; i < h->header_len; i++) {
        if (data[i] != 0) {
            return EBADMSG;
        }
    }
    if (!wire_mandatory(h) || h->unix_fds != 0) {
        return EBADMSG;
    }
    return sbus_wire_validate_values(data, h->header_len, size,
                                     h->signature.off != 0 ? (const char *)data + h->signature.off : "",
                                     h->signature.len, h->big_endian, 0, NULL);
}

errno_t sbus_wire_stamp_sender(const uint8_t *msg, const struct sbus_wire_header *h,
                               const char *sender, struct sbus_wire_stamp *stamp)
{
    size_t name_len = strlen(sender);
    size_t fields_end = SBUS_WIRE_FIXED_SIZE + (size_t)h->fields_len;
    size_t keep_a, keep_b_start, kept, pad, entry, fields_len, header_len;
    uint8_t *t = stamp->tail;

    if (name_len > SBUS_WIRE_MAX_NAME) {
        return EINVAL;
    }
    /* The peer's entries up to its SENDER entry (A), those after it (B). */
    if (h->sender_field != 0) {
        keep_a = h->sender_field;
        keep_b_start = h->sender_field_end < fields_end ? h->sender_field_end : fields_end;
    } else {
        keep_a = fields_end;
        keep_b_start = fields_end;
    }
    kept = keep_a + (fields_end - keep_b_start);
    pad = wire_align8(kept) - kept;
    entry = 8 + name_len + 1;
    fields_len = kept + pad + entry - SBUS_WIRE_FIXED_SIZE;
    header_len = wire_align8(SBUS_WIRE_FIXED_SIZE + fields_len);
    if (header_len + h->body_len > SBUS_WIRE_MAX_MESSAGE) {
        return EINVAL;
    }

    memcpy(stamp->fixed, msg, 12);
    wire_put32(stamp->fixed + 12, (uint32_t)fields_len, h->big_endian);
    memset(t, 0, pad);
    t += pad;
    t[0] = DBUS_HEADER_FIELD_SENDER;
    t[1] = 1;
    t[2] = DBUS_TYPE_STRING;
    t[3] = '\0';
    wire_put32(t + 4, (uint32_t)name_len, h->big_endian);
    memcpy(t + 8, sender, name_len + 1);
    t += entry;
    memset(t, 0, header_len - (SBUS_WIRE_FIXED_SIZE + fields_len));
    t += header_len - (SBUS_WIRE_FIXED_SIZE + fields_len);

    stamp->iovcnt = 0;
    stamp->iov[stamp->iovcnt++] = (struct iovec){ stamp->fixed, SBUS_WIRE_FIXED_SIZE };
    if (keep_a > SBUS_WIRE_FIXED_SIZE) {
        stamp->iov[stamp->iovcnt++] = (struct iovec){ (void *)(msg + SBUS_WIRE_FIXED_SIZE),
                                                      keep_a - SBUS_WIRE_FIXED_SIZE };
    }
    if (fields_end > keep_b_start) {
        stamp->iov[stamp->iovcnt++] = (struct iovec){ (void *)(msg + keep_b_start),
                                                      fields_end - keep_b_start };
    }
    stamp->iov[stamp->iovcnt++] = (struct iovec){ stamp->tail, (size_t)(t - stamp->tail) };
    if (h->body_len > 0) {
        stamp->iov[stamp->iovcnt++] = (struct iovec){ (void *)(msg + h->header_len),
                                                      h->body_len };
    }
    stamp->size = header_len + h->body_len;
    return EOK;
}
