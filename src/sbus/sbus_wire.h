/*
 * The D-Bus wire format as the master bus reads it: framing a byte stream into messages,
 * validating a message exactly as libdbus's loader does for untrusted data (header fields,
 * names, body against its signature), and stamping the sender without copying: the master
 * forwards the bytes a peer sent, with the SENDER field spliced in through an iovec.
 * Pure code: no server state, no allocation, no logging. Every offset is checked against
 * the message size before it is read; a message is only ever accepted whole.
 *
 * Validity is libdbus's (dbus-marshal-header.c, dbus-marshal-validate.c, dbus-message.c,
 * version 1.14): a message accepted here is accepted by dbus_message_demarshal() and the
 * other way round (tests/fuzz/fuzz_sbus_wire.c checks both directions), except that a
 * message announcing unix fds is refused: this bus passes none, so its receiver would.
 */
#ifndef SBUS_WIRE_H
#define SBUS_WIRE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

#include "util/sss_errors.h"

/* The fixed part: byte order, type, flags, version, body length, serial, fields length. */
#define SBUS_WIRE_FIXED_SIZE 16
/* The specification's limit on a whole message (libdbus's default too). */
#define SBUS_WIRE_MAX_MESSAGE (128u * 1024u * 1024u)
/* Longest bus name (and interface, member, error name) the specification allows. */
#define SBUS_WIRE_MAX_NAME 255

/* A string header field: offset of its first byte in the message (it is NUL-terminated
 * there, so data + off is a C string), length without the NUL; off 0 when absent. */
struct sbus_wire_str {
    uint32_t off;
    uint32_t len;
};

struct sbus_wire_header {
    bool big_endian;
    uint8_t type;                   /* DBUS_MESSAGE_TYPE_*; others are valid and ignored */
    uint8_t flags;                  /* DBUS_HEADER_FLAG_* */
    uint32_t serial;
    uint32_t reply_serial;          /* 0 when absent */
    uint32_t unix_fds;              /* 0 when absent */
    uint32_t body_len;
    uint32_t fields_len;            /* of the header field array, without final padding */
    uint32_t header_len;            /* fixed part + fields, padded to 8: where the body is */
    struct sbus_wire_str path;
    struct sbus_wire_str interface;
    struct sbus_wire_str member;
    struct sbus_wire_str error_name;
    struct sbus_wire_str destination;
    struct sbus_wire_str sender;
    struct sbus_wire_str signature;
    uint32_t sender_field;          /* offset of the SENDER field's entry, 0 when none */
    uint32_t sender_field_end;      /* where the entry after it starts (or the array end) */
};

/*
 * Framing: the size of the message that starts at data, from its first 16 bytes.
 * EOK: *_size set (may exceed len: wait for more). EAGAIN: fewer than 16 bytes.
 * EBADMSG: not a message (byte order, lengths over the limits): the stream is lost.
 */
errno_t sbus_wire_message_size(const uint8_t *data, size_t len, size_t *_size);

/*
 * Validates the whole message data[0..size) (size as sbus_wire_message_size() gave) and
 * fills h. EOK or EBADMSG (anything libdbus would call corrupt, or unix fds announced).
 */
errno_t sbus_wire_parse(const uint8_t *data, size_t size, struct sbus_wire_header *h);

/* The string field f of a parsed message, or NULL when absent. */
static inline const char *sbus_wire_get(const uint8_t *data, struct sbus_wire_str f)
{
    return f.off != 0 ? (const char *)data + f.off : NULL;
}

/* Whether the string field f equals the C string s. */
bool sbus_wire_equal(const uint8_t *data, struct sbus_wire_str f, const char *s);

/* -------- validators (the specification's rules, as libdbus applies them) -------- */

bool sbus_wire_valid_bus_name(const char *s, size_t len);
bool sbus_wire_valid_interface(const char *s, size_t len);     /* also error names */
bool sbus_wire_valid_member(const char *s, size_t len);
bool sbus_wire_valid_path(const char *s, size_t len);
bool sbus_wire_valid_utf8(const uint8_t *s, size_t len);      /* no NUL either */
/* A valid signature of any number of complete types (at most 255 bytes). */
bool sbus_wire_valid_signature(const char *s, size_t len);

/*
 * Validates body[0..len) (which starts 8-aligned in its message) against sig (already a
 * valid signature), in the given byte order. depth is libdbus's nesting count of the
 * values' container (0 for a message body). EOK or EBADMSG.
 */
errno_t sbus_wire_validate_values(const uint8_t *msg, size_t start, size_t end,
                                  const char *sig, size_t sig_len, bool big_endian,
                                  unsigned int depth, size_t *_next);

/* -------- the sender stamp -------- */

/* Room for padding, the SENDER entry (code, signature "s", length, name, NUL), padding. */
#define SBUS_WIRE_STAMP_TAIL (7 + 8 + SBUS_WIRE_MAX_NAME + 1 + 7)
#define SBUS_WIRE_STAMP_IOV 5

/* The message as it goes out: the fixed part rewritten, the peer's header fields minus
 * any SENDER entry, the new SENDER entry, the body; iov points into msg and into this. */
struct sbus_wire_stamp {
    uint8_t fixed[SBUS_WIRE_FIXED_SIZE];
    uint8_t tail[SBUS_WIRE_STAMP_TAIL];
    struct iovec iov[SBUS_WIRE_STAMP_IOV];
    int iovcnt;
    size_t size;                    /* of the stamped message */
};

/*
 * Fills stamp so that its iov is msg (parsed into h) with sender as its SENDER field,
 * replacing any the peer put there. sender must be a valid bus name; msg must stay where
 * it is while the iov is used. EOK, or EINVAL (sender too long, or the message would grow
 * past the limit).
 */
errno_t sbus_wire_stamp_sender(const uint8_t *msg, const struct sbus_wire_header *h,
                               const char *sender, struct sbus_wire_stamp *stamp);

#endif /* SBUS_WIRE_H */
