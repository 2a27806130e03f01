/*
 * Whole messages built in their wire form (sbus_wire_build.h) and handed to libdbus in one
 * dbus_message_demarshal(), for method calls, signals and method returns whose arguments are
 * all basic types or arrays of bytes or uint32 (the messages of every lookup: getAccountInfo
 * and its reply, which carries the stored entry as ay).
 *
 * Why: libdbus rewrites the header's SIGNATURE field at every top-level
 * dbus_message_iter_append_basic() (it opens the signature, appends one type code and writes
 * the field back, walking the header fields each time), so a call of seven arguments walks and
 * rewrites its header seven times: 13% of sssd_nss's CPU on a cold lookup, measured with perf.
 * Here the header is written once and libdbus validates the result as it would a received
 * message; anything it refuses, or any type not handled here, makes the caller fall back to
 * appending through libdbus, so no message differs in what it carries.
 *
 * Serials: libdbus keeps a serial it finds in a message and only numbers those with none, and
 * a demarshalled message must have one. Ours come from one counter per process with the top
 * bit set, far from where libdbus's per-connection counters run (from 1, for Hello and the
 * messages still built through libdbus), so no two calls in flight on a connection share one.
 */
#include "config.h"

#include <assert.h>
#include <endian.h>
#include <string.h>

#include "sbus/sbus_private.h"
#include "sbus/sbus_wire_build.h"

#define SBUS_WIRE_SERIAL_BASE 0x80000000U

struct sbus_wire_buf {
    uint8_t *data;              /* SBUS_WIRE_MAX_LEN bytes */
    size_t len;
    bool overflow;
};

static uint32_t sbus_wire_counter;

static uint32_t sbus_wire_next_serial(void)
{
    /* Never 0: the top bit is always set. */
    return SBUS_WIRE_SERIAL_BASE | (sbus_wire_counter++ & ~SBUS_WIRE_SERIAL_BASE);
}

static void wb_put(struct sbus_wire_buf *b, const void *p, size_t n)
{
    if (b->overflow || n > SBUS_WIRE_MAX_LEN - b->len) {
        b->overflow = true;
        return;
    }
    memcpy(b->data + b->len, p, n);
    b->len += n;
}

static void wb_pad(struct sbus_wire_buf *b, size_t align)
{
    static const uint8_t zeros[8];
    size_t pad = (align - b->len % align) % align;

    wb_put(b, zeros, pad);
}

static void wb_u8(struct sbus_wire_buf *b, uint8_t v)
{
    wb_put(b, &v, 1);
}

static void wb_u32(struct sbus_wire_buf *b, uint32_t v)
{
    wb_pad(b, 4);
    wb_put(b, &v, 4);
}

/* s and o: length, bytes, NUL. */
static void wb_str(struct sbus_wire_buf *b, const char *s)
{
    size_t n = strlen(s);

    /* Anything longer than the buffer overflows it below. */
    wb_u32(b, (uint32_t)(n < SBUS_WIRE_MAX_LEN ? n : SBUS_WIRE_MAX_LEN));
    wb_put(b, s, n + 1);
}

/* g: one length byte, bytes, NUL. */
static void wb_sig(struct sbus_wire_buf *b, const char *s)
{
    size_t n = strlen(s);

    if (n > DBUS_MAXIMUM_SIGNATURE_LENGTH) {
        b->overflow = true;
        return;
    }
    wb_u8(b, (uint8_t)n);
    wb_put(b, s, n + 1);
}

/* One header field: a struct (8-aligned) of the code and a variant. */
static void wb_field_str(struct sbus_wire_buf *b, uint8_t code, char type, const char *value)
{
    char sig[2] = { type, '\0' };

    if (value == NULL) {
        return;
    }
    wb_pad(b, 8);
    wb_u8(b, code);
    wb_sig(b, sig);
    if (type == DBUS_TYPE_SIGNATURE) {
        wb_sig(b, value);
    } else {
        wb_str(b, value);
    }
}

static void wb_field_u32(struct sbus_wire_buf *b, uint8_t code, uint32_t value)
{
    wb_pad(b, 8);
    wb_u8(b, code);
    wb_sig(b, DBUS_TYPE_UINT32_AS_STRING);
    wb_u32(b, value);
}

static void wb_arg(struct sbus_wire_buf *b, const struct sbus_wire_arg *arg)
{
    uint16_t v16;
    uint32_t v32;
    uint64_t v64;

    switch (arg->code) {
    case DBUS_TYPE_BYTE:
        wb_u8(b, (uint8_t)arg->num);
        return;
    case DBUS_TYPE_INT16:
    case DBUS_TYPE_UINT16:
        v16 = (uint16_t)arg->num;
        wb_pad(b, 2);
        wb_put(b, &v16, 2);
        return;
    case DBUS_TYPE_BOOLEAN:
    case DBUS_TYPE_INT32:
    case DBUS_TYPE_UINT32:
        v32 = (uint32_t)arg->num;
        wb_u32(b, v32);
        return;
    case DBUS_TYPE_INT64:
    case DBUS_TYPE_UINT64:
        v64 = arg->num;
        wb_pad(b, 8);
        wb_put(b, &v64, 8);
        return;
    case DBUS_TYPE_STRING:
    case DBUS_TYPE_OBJECT_PATH:
        wb_str(b, arg->str);
        return;
    case DBUS_TYPE_ARRAY:
        /* The length in bytes, then the elements, aligned as an element (a uint32 is
         * already aligned after the length). */
        if (!sbus_wire_fixed_array(arg->elem)
                || arg->count > SBUS_WIRE_MAX_LEN / (arg->elem == DBUS_TYPE_BYTE ? 1 : 4)) {
            b->overflow = true;
            return;
        }
        v32 = arg->count * (arg->elem == DBUS_TYPE_BYTE ? 1 : 4);
        wb_u32(b, v32);
        if (v32 > 0) {
            wb_put(b, arg->values, v32);
        }
        return;
    default:
        /* The caller only hands what sbus_wire_basic() / _fixed_array() accept. */
        b->overflow = true;
        return;
    }
}

bool sbus_wire_basic(int code)
{
    switch (code) {
    case DBUS_TYPE_BYTE:
    case DBUS_TYPE_BOOLEAN:
    case DBUS_TYPE_INT16:
    case DBUS_TYPE_UINT16:
    case DBUS_TYPE_INT32:
    case DBUS_TYPE_UINT32:
    case DBUS_TYPE_INT64:
    case DBUS_TYPE_UINT64:
    case DBUS_TYPE_STRING:
    case DBUS_TYPE_OBJECT_PATH:
        return true;
    default:
        return false;
    }
}

bool sbus_wire_fixed_array(int elem)
{
    return elem == DBUS_TYPE_BYTE || elem == DBUS_TYPE_UINT32;
}

size_t sbus_wire_compose(const struct sbus_wire_head *head, const char *signature,
                         const struct sbus_wire_arg *args, size_t num_args, uint8_t *out)
{
    struct sbus_wire_buf b;
    size_t fields_end;
    size_t body_start;
    uint32_t v32;
    size_t i;

    assert(head != NULL && signature != NULL && (args != NULL || num_args == 0));
    b.data = out;
    b.len = 0;
    b.overflow = false;
#if __BYTE_ORDER == __LITTLE_ENDIAN
    wb_u8(&b, DBUS_LITTLE_ENDIAN);
#else
    wb_u8(&b, DBUS_BIG_ENDIAN);
#endif
    wb_u8(&b, (uint8_t)head->type);
    /* As libdbus's constructors: returns and signals expect no reply. */
    wb_u8(&b, head->type == DBUS_MESSAGE_TYPE_METHOD_CALL ? 0
                                                          : DBUS_HEADER_FLAG_NO_REPLY_EXPECTED);
    wb_u8(&b, DBUS_MAJOR_PROTOCOL_VERSION);
    wb_u32(&b, 0);                                  /* body length, set below */
    wb_u32(&b, sbus_wire_next_serial());
    wb_u32(&b, 0);                                  /* fields array length, set below */
    wb_field_str(&b, DBUS_HEADER_FIELD_PATH, DBUS_TYPE_OBJECT_PATH, head->path);
    wb_field_str(&b, DBUS_HEADER_FIELD_DESTINATION, DBUS_TYPE_STRING, head->destination);
    wb_field_str(&b, DBUS_HEADER_FIELD_INTERFACE, DBUS_TYPE_STRING, head->interface);
    wb_field_str(&b, DBUS_HEADER_FIELD_MEMBER, DBUS_TYPE_STRING, head->member);
    if (head->reply_serial != 0) {
        wb_field_u32(&b, DBUS_HEADER_FIELD_REPLY_SERIAL, head->reply_serial);
    }
    if (signature[0] != '\0') {
        wb_field_str(&b, DBUS_HEADER_FIELD_SIGNATURE, DBUS_TYPE_SIGNATURE, signature);
    }
    fields_end = b.len;
    wb_pad(&b, 8);
    body_start = b.len;
    for (i = 0; i < num_args; i++) {
        wb_arg(&b, &args[i]);
    }
    if (b.overflow) {
        return 0;
    }
    v32 = (uint32_t)(b.len - body_start);
    memcpy(b.data + 4, &v32, 4);
    v32 = (uint32_t)(fields_end - 16);
    memcpy(b.data + 12, &v32, 4);
    return b.len;
}

DBusMessage *sbus_wire_build(const struct sbus_wire_head *head, const char *signature,
                             const struct sbus_wire_arg *args, size_t num_args)
{
    uint8_t data[SBUS_WIRE_MAX_LEN];    /* on the stack: no allocation but libdbus's own */
    DBusMessage *msg = NULL;
    size_t len;

    len = sbus_wire_compose(head, signature, args, num_args, data);
    if (len != 0) {
        /* libdbus validates it whole (header fields, UTF-8, signature against the body). */
        msg = dbus_message_demarshal((const char *)data, (int)len, NULL);
    }
    sbus_wire_erase(data, len);
    return msg;
}

void sbus_wire_erase(uint8_t *out, size_t len)
{
    explicit_bzero(out, len != 0 ? len : SBUS_WIRE_MAX_LEN);
}
