/*
 * Whole messages of basic-typed arguments (and byte or uint32 arrays) written in their
 * wire form and demarshalled by libdbus in one step, instead of appended argument by
 * argument (sbus_wire_build.c says why).
 * Used by the generated code's runtime (sbus_gen.c); owned by the caller like any message.
 */
#ifndef SSS_SBUS_WIRE_BUILD_H
#define SSS_SBUS_WIRE_BUILD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <dbus/dbus.h>

/* Messages larger than this are left to libdbus's appending. */
#define SBUS_WIRE_MAX_LEN 4096

/* The header: which fields are NULL (or 0) is left out. */
struct sbus_wire_head {
    int type;                   /* DBUS_MESSAGE_TYPE_METHOD_CALL, _SIGNAL, _METHOD_RETURN */
    const char *destination;
    const char *path;
    const char *interface;
    const char *member;
    uint32_t reply_serial;      /* method returns */
};

/* One argument of a basic type: numbers (y b n q i u x t) in num, s and o in str; or an
 * array of bytes or uint32 (ay, au: code DBUS_TYPE_ARRAY, elem the element's code, values
 * and count; values may be NULL when count is 0). */
struct sbus_wire_arg {
    int code;
    uint64_t num;
    const char *str;
    int elem;
    const void *values;
    uint32_t count;
};

/* Whether code is a basic type sbus_wire_build() writes. */
bool sbus_wire_basic(int code);

/* Whether sbus_wire_build() writes arrays of elem (ay, au). */
bool sbus_wire_fixed_array(int elem);

/*
 * The message, or NULL when it cannot be built here (too large, or libdbus refused it, or out
 * of memory): the caller then builds it through libdbus, which says why. signature must be
 * the type codes of args, in order; values must be what libdbus would accept (the caller has
 * checked them).
 */
DBusMessage *sbus_wire_build(const struct sbus_wire_head *head, const char *signature,
                             const struct sbus_wire_arg *args, size_t num_args);

/* sbus_wire_build()'s bytes alone, written to out (SBUS_WIRE_MAX_LEN bytes of room): their
 * length, or 0 when the message cannot be built here. Not validated by libdbus: only for
 * values checked as sbus_gen.c checks them (sbus_reply_direct.c sends such replies and
 * calls). */
size_t sbus_wire_compose(const struct sbus_wire_head *head, const char *signature,
                         const struct sbus_wire_arg *args, size_t num_args, uint8_t *out);

/* Clears what sbus_wire_compose() wrote to out: its len bytes, or the whole room when it
 * returned 0 (it may have written part before giving up). The bytes may be a password
 * (pamHandler's authtok) and out is on the caller's stack. */
void sbus_wire_erase(uint8_t *out, size_t len);

#endif /* SSS_SBUS_WIRE_BUILD_H */
