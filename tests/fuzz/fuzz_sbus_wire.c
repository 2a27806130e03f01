/*
 * libFuzzer harness for the master bus's wire reading (src/sbus/sbus_wire*.c), checked
 * against libdbus itself: every input is framed and parsed by sbus_wire and demarshalled by
 * dbus_message_demarshal(); both must agree on the size, on whether the message is valid,
 * and on every header field the master reads. A valid message is then stamped with a new
 * sender; the stamped bytes must be valid for both as well, carry that sender and the same
 * body. Inputs are either raw bytes (first byte even) or one of a set of messages libdbus
 * marshals here (first byte odd), with the rest of the input as (offset, xor) edits, so the
 * fuzzer starts from valid messages of every type and argument kind. Build: tests/fuzz/run.sh.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dbus/dbus.h>

#include "sbus/sbus_wire.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_TEMPLATES 16

static struct {
    char *data;
    int len;
} templates[MAX_TEMPLATES];
static int num_templates;

static void fail(const char *what, const uint8_t *msg, size_t len)
{
    size_t i;

    fprintf(stderr, "fuzz_sbus_wire: %s (%zu bytes):", what, len);
    for (i = 0; i < len && i < 512; i++) {
        fprintf(stderr, "%s%02x", i % 16 == 0 ? "\n  " : " ", msg[i]);
    }
    fprintf(stderr, "\n");
    abort();
}

static void add_template(DBusMessage *msg, const char *sender)
{
    if (msg == NULL || num_templates == MAX_TEMPLATES) {
        abort();
    }
    dbus_message_set_serial(msg, 7 + num_templates);
    if (sender != NULL) {
        dbus_message_set_sender(msg, sender);
    }
    if (!dbus_message_marshal(msg, &templates[num_templates].data,
                              &templates[num_templates].len)) {
        abort();
    }
    num_templates++;
    dbus_message_unref(msg);
}

static void build_templates(void)
{
    DBusMessage *msg, *call;
    DBusMessageIter it, sub, var, entry;
    const char *s = "h\xc3\xa9llo", *path = "/org/sssd/x", *sig = "a{sv}", *key = "k";
    dbus_uint64_t id = 42;
    dbus_uint32_t u = 5;
    dbus_bool_t b = TRUE;
    double d = 1.5;
    unsigned char y = 3;
    dbus_int16_t n = -2;

    call = dbus_message_new_method_call("sssd.nss", "/sssd", "sssd.dataprovider",
                                        "getAccountInfo");
    dbus_message_append_args(call, DBUS_TYPE_UINT32, &u, DBUS_TYPE_STRING, &s,
                             DBUS_TYPE_UINT64, &id, DBUS_TYPE_INVALID);
    dbus_message_set_serial(call, 3);
    add_template(dbus_message_copy(call), NULL);
    add_template(dbus_message_copy(call), ":1.7");

    msg = dbus_message_new_method_return(call);
    dbus_message_set_destination(msg, ":1.3");
    dbus_message_append_args(msg, DBUS_TYPE_INT16, &n, DBUS_TYPE_BOOLEAN, &b,
                             DBUS_TYPE_DOUBLE, &d, DBUS_TYPE_BYTE, &y, DBUS_TYPE_INVALID);
    add_template(msg, ":1.9");

    msg = dbus_message_new_error(call, "org.freedesktop.DBus.Error.Failed", "no");
    add_template(msg, NULL);

    msg = dbus_message_new_signal("/org/freedesktop/DBus", "org.freedesktop.DBus",
                                  "NameOwnerChanged");
    dbus_message_append_args(msg, DBUS_TYPE_STRING, &s, DBUS_TYPE_OBJECT_PATH, &path,
                             DBUS_TYPE_SIGNATURE, &sig, DBUS_TYPE_INVALID);
    add_template(msg, NULL);

    /* containers: a{sv} with nested variants, (iu), ab, ay, empty arrays */
    msg = dbus_message_new_method_call("org.freedesktop.DBus", "/", "a.b", "C");
    dbus_message_iter_init_append(msg, &it);
    dbus_message_iter_open_container(&it, DBUS_TYPE_ARRAY, "{sv}", &sub);
    dbus_message_iter_open_container(&sub, DBUS_TYPE_DICT_ENTRY, NULL, &entry);
    dbus_message_iter_append_basic(&entry, DBUS_TYPE_STRING, &key);
    dbus_message_iter_open_container(&entry, DBUS_TYPE_VARIANT, "ab", &var);
    {
        DBusMessageIter arr;
        dbus_message_iter_open_container(&var, DBUS_TYPE_ARRAY, "b", &arr);
        dbus_message_iter_append_basic(&arr, DBUS_TYPE_BOOLEAN, &b);
        dbus_message_iter_append_basic(&arr, DBUS_TYPE_BOOLEAN, &b);
        dbus_message_iter_close_container(&var, &arr);
    }
    dbus_message_iter_close_container(&entry, &var);
    dbus_message_iter_close_container(&sub, &entry);
    dbus_message_iter_close_container(&it, &sub);
    dbus_message_iter_open_container(&it, DBUS_TYPE_STRUCT, NULL, &sub);
    dbus_message_iter_append_basic(&sub, DBUS_TYPE_UINT32, &u);
    dbus_message_iter_open_container(&sub, DBUS_TYPE_VARIANT, "v", &var);
    {
        DBusMessageIter inner;
        dbus_message_iter_open_container(&var, DBUS_TYPE_VARIANT, "t", &inner);
        dbus_message_iter_append_basic(&inner, DBUS_TYPE_UINT64, &id);
        dbus_message_iter_close_container(&var, &inner);
    }
    dbus_message_iter_close_container(&sub, &var);
    dbus_message_iter_close_container(&it, &sub);
    dbus_message_iter_open_container(&it, DBUS_TYPE_ARRAY, "y", &sub);
    dbus_message_iter_append_basic(&sub, DBUS_TYPE_BYTE, &y);
    dbus_message_iter_close_container(&it, &sub);
    dbus_message_iter_open_container(&it, DBUS_TYPE_ARRAY, "(sx)", &sub);
    dbus_message_iter_close_container(&it, &sub);
    add_template(msg, ":1.11");

    dbus_message_unref(call);
}

static bool same_str(const uint8_t *data, struct sbus_wire_str f, const char *theirs)
{
    const char *ours = sbus_wire_get(data, f);

    if (ours == NULL || theirs == NULL) {
        return ours == theirs;
    }
    return strlen(ours) == f.len && strcmp(ours, theirs) == 0;
}

/* Our header reading equals libdbus's. */
static void compare(const uint8_t *msg, size_t len, const struct sbus_wire_header *h,
                    DBusMessage *dmsg)
{
    const char *sig = dbus_message_get_signature(dmsg);

    if (h->type != dbus_message_get_type(dmsg)
            || h->serial != dbus_message_get_serial(dmsg)
            || (h->type <= DBUS_MESSAGE_TYPE_SIGNAL
                && h->reply_serial != dbus_message_get_reply_serial(dmsg))
            || ((h->flags & DBUS_HEADER_FLAG_NO_REPLY_EXPECTED) != 0)
                   != (bool)dbus_message_get_no_reply(dmsg)
            || !same_str(msg, h->path, dbus_message_get_path(dmsg))
            || !same_str(msg, h->interface, dbus_message_get_interface(dmsg))
            || !same_str(msg, h->member, dbus_message_get_member(dmsg))
            || !same_str(msg, h->error_name, dbus_message_get_error_name(dmsg))
            || !same_str(msg, h->destination, dbus_message_get_destination(dmsg))
            || !same_str(msg, h->sender, dbus_message_get_sender(dmsg))
            || strlen(sig) != h->signature.len
            || (h->signature.off != 0 && strcmp(sig, (const char *)msg + h->signature.off) != 0)) {
        fail("header fields differ from libdbus's", msg, len);
    }
}

static void check(const uint8_t *msg, size_t len)
{
    struct sbus_wire_header h, h2;
    struct sbus_wire_stamp stamp;
    DBusMessage *dmsg, *dmsg2;
    DBusError error;
    uint8_t *flat;
    size_t total, off;
    int needed, i;
    errno_t ret;

    ret = sbus_wire_message_size(msg, len, &total);
    if (len >= SBUS_WIRE_FIXED_SIZE) {
        needed = dbus_message_demarshal_bytes_needed((const char *)msg, (int)len);
        if ((ret == EBADMSG) != (needed < 0) || (ret == EOK && (size_t)needed != total)) {
            fail("framing differs from libdbus's", msg, len);
        }
    }
    if (ret != EOK || total > len) {
        return;
    }

    dbus_error_init(&error);
    dmsg = dbus_message_demarshal((const char *)msg, (int)total, &error);
    ret = sbus_wire_parse(msg, total, &h);
    if ((ret == EOK) != (dmsg != NULL)) {
        fprintf(stderr, "ours %d, libdbus: %s\n", ret, dmsg != NULL ? "valid" : error.message);
        fail("validity differs from libdbus's", msg, total);
    }
    dbus_error_free(&error);
    if (dmsg == NULL) {
        return;
    }
    compare(msg, total, &h, dmsg);
    dbus_message_unref(dmsg);

    if (sbus_wire_stamp_sender(msg, &h, ":1.12345", &stamp) != EOK) {
        return;     /* only when it would grow past the limit */
    }
    flat = malloc(stamp.size);
    if (flat == NULL) {
        abort();
    }
    for (off = 0, i = 0; i < stamp.iovcnt; i++) {
        memcpy(flat + off, stamp.iov[i].iov_base, stamp.iov[i].iov_len);
        off += stamp.iov[i].iov_len;
    }
    if (off != stamp.size || sbus_wire_parse(flat, off, &h2) != EOK) {
        fail("the stamped message is not valid", flat, off);
    }
    dmsg2 = dbus_message_demarshal((const char *)flat, (int)off, &error);
    if (dmsg2 == NULL) {
        fail("libdbus refuses the stamped message", flat, off);
    }
    compare(flat, off, &h2, dmsg2);
    if (!sbus_wire_equal(flat, h2.sender, ":1.12345") || h2.body_len != h.body_len
            || memcmp(flat + h2.header_len, msg + h.header_len, h.body_len) != 0
            || h2.serial != h.serial || h2.type != h.type) {
        fail("the stamp changed more than the sender", flat, off);
    }
    dbus_message_unref(dmsg2);
    free(flat);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    uint8_t *buf;
    size_t len, i, pos;
    int t;

    if (num_templates == 0) {
        build_templates();
    }
    if (size == 0) {
        return 0;
    }
    if ((data[0] & 1) == 0) {
        check(data + 1, size - 1);
        return 0;
    }
    t = (data[0] >> 1) % num_templates;
    len = (size_t)templates[t].len;
    buf = malloc(len);
    if (buf == NULL) {
        abort();
    }
    memcpy(buf, templates[t].data, len);
    for (i = 1; i + 2 < size; i += 3) {
        pos = ((size_t)data[i] << 8 | data[i + 1]) % len;
        buf[pos] ^= data[i + 2];
    }
    check(buf, len);
    free(buf);
    return 0;
}
