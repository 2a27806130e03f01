/*
 * The runtime of the generated bus code, values and arguments (sbus_gen.h): checks of what
 * generated builders hand to libdbus, request-key text, and the signature-driven writer
 * and reader that stand in for the per-member append and parse code the generator used to
 * emit. Only the types generated code supports are handled (see sbus_gen.h); anything
 * else is a generator bug, logged and refused with EINVAL.
 */
#include <stdio.h>
#include <string.h>

#include "sbus/sbus_private.h"
#include "sbus/sbus_gen.h"
#include "sbus/sbus_wire_build.h"

/* -------- values libdbus accepts -------- */

bool sbus_gen_valid_string(const char *str)
{
    return str != NULL && dbus_validate_utf8(str, NULL);
}

bool sbus_gen_valid_path(const char *path)
{
    return path != NULL && dbus_validate_path(path, NULL);
}

bool sbus_gen_valid_bus_name(const char *name)
{
    return name != NULL && dbus_validate_bus_name(name, NULL);
}

bool sbus_gen_valid_strv(const char * const *strv, int *_count)
{
    int count = 0;

    if (strv != NULL) {
        for (count = 0; strv[count] != NULL; count++) {
            if (count >= DBUS_MAXIMUM_ARRAY_LENGTH / 4 || !sbus_gen_valid_string(strv[count])) {
                return false;
            }
        }
    }
    *_count = count;
    return true;
}

bool sbus_gen_valid_uarray(const uint32_t *values, uint32_t count)
{
    return sbus_gen_valid_fixed(values, count, sizeof(uint32_t));
}

bool sbus_gen_valid_fixed(const void *values, uint32_t count, size_t elem_size)
{
    return (count == 0 || values != NULL)
        && count <= DBUS_MAXIMUM_ARRAY_LENGTH / elem_size;
}

/* Bytes per element of the fixed arrays generated code uses (ay, au); 0 for the others. */
static size_t sbus_gen_fixed_size(int elem)
{
    switch (elem) {
    case DBUS_TYPE_BYTE:
        return 1;
    case DBUS_TYPE_UINT32:
        return sizeof(uint32_t);
    default:
        return 0;
    }
}

const char *sbus_gen_key_string(TALLOC_CTX *mem_ctx, const char *str)
{
    char *out;
    size_t i;
    size_t o = 0;

    if (str == NULL) {
        return NULL;
    }
    if (strpbrk(str, "%:") == NULL) {
        return str;
    }
    out = talloc_array(mem_ctx, char, strlen(str) * 3 + 1);
    if (out == NULL) {
        return NULL;
    }
    for (i = 0; str[i] != '\0'; i++) {
        if (str[i] == '%' || str[i] == ':') {
            o += sprintf(out + o, "%%%02x", (unsigned int)(unsigned char)str[i]);
        } else {
            out[o++] = str[i];
        }
    }
    out[o] = '\0';
    return out;
}

/* -------- signatures -------- */

/*
 * The next complete type of signature at *_pos: its type code, DBUS_TYPE_ARRAY with the
 * element's code in *_elem for as, ay and au, DBUS_TYPE_INVALID at the end, and -1 for
 * anything generated code does not use (logged).
 */
static int sbus_gen_next_type(const char **_pos, int *_elem)
{
    const char *pos = *_pos;
    int code = (unsigned char)*pos;

    if (code != '\0' && sbus_wire_basic(code)) {
        *_pos = pos + 1;
        return code;
    }
    switch (code) {
    case '\0':
        return DBUS_TYPE_INVALID;
    case DBUS_TYPE_ARRAY:
        if (pos[1] == DBUS_TYPE_STRING || pos[1] == DBUS_TYPE_UINT32
                || pos[1] == DBUS_TYPE_BYTE) {
            *_elem = pos[1];
            *_pos = pos + 2;
            return code;
        }
        break;
    default:
        break;
    }
    DEBUG(SSSDBG_CRIT_FAILURE, "Unsupported type in the signature '%s'\n", pos);
    return -1;
}

/* How many complete types signature has; -1 when it is not supported. */
static int sbus_gen_count_types(const char *signature)
{
    int count = 0;
    int elem;
    int code;

    while ((code = sbus_gen_next_type(&signature, &elem)) != DBUS_TYPE_INVALID) {
        if (code < 0) {
            return -1;
        }
        count++;
    }
    return count;
}

/* One argument: what is read from a message before it goes where the caller wants it, or
 * what is taken from "..." to be written. */
union sbus_gen_value {
    uint8_t y;
    dbus_bool_t b;
    int16_t n;
    uint16_t q;
    int32_t i;
    uint32_t u;
    int64_t x;
    uint64_t t;
    const char *s;                  /* s, o: read, it points into the message */
    const char **strv;              /* as: NULL-terminated (written: NULL is empty); read,
                                     * on the reader's mem_ctx */
    struct {
        const void *values;         /* ay, au: read, it points into the message; NULL when
                                     * empty */
        uint32_t count;
    } fixed;
};

/* -------- writing -------- */

/* One value to write, taken from "..." as its type says. */
struct sbus_gen_arg {
    int code;                       /* DBUS_TYPE_*; for arrays also elem */
    int elem;
    union sbus_gen_value v;         /* every basic member starts at its address, as
                                     * libdbus reads it */
};

/* Takes the next value of ap as the next type of signature at *_pos says; returns its code,
 * DBUS_TYPE_INVALID at the end, -1 for an unsupported type. */
static int sbus_gen_take_arg(const char **_pos, va_list *ap, struct sbus_gen_arg *arg)
{
    arg->code = sbus_gen_next_type(_pos, &arg->elem);
    switch (arg->code) {
    case DBUS_TYPE_BYTE:    arg->v.y = (uint8_t)va_arg(*ap, int); break;
    case DBUS_TYPE_BOOLEAN: arg->v.b = va_arg(*ap, int) ? TRUE : FALSE; break;
    case DBUS_TYPE_INT16:   arg->v.n = (int16_t)va_arg(*ap, int); break;
    case DBUS_TYPE_UINT16:  arg->v.q = (uint16_t)va_arg(*ap, int); break;
    case DBUS_TYPE_INT32:   arg->v.i = va_arg(*ap, int32_t); break;
    case DBUS_TYPE_UINT32:  arg->v.u = va_arg(*ap, uint32_t); break;
    case DBUS_TYPE_INT64:   arg->v.x = va_arg(*ap, int64_t); break;
    case DBUS_TYPE_UINT64:  arg->v.t = va_arg(*ap, uint64_t); break;
    case DBUS_TYPE_STRING:
    case DBUS_TYPE_OBJECT_PATH:
        arg->v.s = va_arg(*ap, const char *);
        break;
    case DBUS_TYPE_ARRAY:
        if (arg->elem == DBUS_TYPE_STRING) {
            arg->v.strv = va_arg(*ap, const char **);
        } else {
            arg->v.fixed.values = va_arg(*ap, const void *);
            arg->v.fixed.count = va_arg(*ap, uint32_t);
        }
        break;
    default:
        break;
    }
    return arg->code;
}

/* Whether libdbus takes the value (it aborts on what it does not). */
static bool sbus_gen_arg_valid(struct sbus_gen_arg *arg)
{
    int count;

    switch (arg->code) {
    case DBUS_TYPE_STRING:
        return sbus_gen_valid_string(arg->v.s);
    case DBUS_TYPE_OBJECT_PATH:
        return sbus_gen_valid_path(arg->v.s);
    case DBUS_TYPE_ARRAY:
        if (arg->elem != DBUS_TYPE_STRING) {
            return sbus_gen_valid_fixed(arg->v.fixed.values, arg->v.fixed.count,
                                        sbus_gen_fixed_size(arg->elem));
        }
        return sbus_gen_valid_strv(arg->v.strv, &count);
    default:
        return arg->code > 0;
    }
}

static bool sbus_gen_append_array(DBusMessageIter *iter, const struct sbus_gen_arg *arg)
{
    DBusMessageIter sub;
    char elem[2] = { (char)arg->elem, '\0' };
    uint32_t i;
    bool ok = true;

    if (!dbus_message_iter_open_container(iter, DBUS_TYPE_ARRAY, elem, &sub)) {
        return false;
    }
    if (arg->elem != DBUS_TYPE_STRING) {
        ok = dbus_message_iter_append_fixed_array(&sub, arg->elem, &arg->v.fixed.values,
                                                  (int)arg->v.fixed.count);
    }
    for (i = 0; ok && arg->elem == DBUS_TYPE_STRING && arg->v.strv != NULL
                && arg->v.strv[i] != NULL; i++) {
        ok = dbus_message_iter_append_basic(&sub, DBUS_TYPE_STRING, &arg->v.strv[i]);
    }
    if (!ok) {
        dbus_message_iter_abandon_container(iter, &sub);
        return false;
    }
    return dbus_message_iter_close_container(iter, &sub);
}

/* Checks every value first, so nothing is appended (nor a message made) for an invalid one. */
static errno_t sbus_gen_check_va(const char *signature, va_list ap)
{
    struct sbus_gen_arg arg = { 0 };
    const char *pos = signature;
    va_list args;
    errno_t ret = EOK;

    va_copy(args, ap);
    while (sbus_gen_take_arg(&pos, &args, &arg) != DBUS_TYPE_INVALID) {
        if (!sbus_gen_arg_valid(&arg)) {
            ret = EINVAL;
            break;
        }
    }
    va_end(args);
    return ret;
}

/* Appends values that sbus_gen_check_va() accepted. */
static errno_t sbus_gen_append_va(DBusMessage *msg, const char *signature, va_list ap)
{
    struct sbus_gen_arg arg = { 0 };
    DBusMessageIter iter;
    const char *pos = signature;
    va_list args;
    bool ok = true;

    va_copy(args, ap);
    dbus_message_iter_init_append(msg, &iter);
    while (ok && sbus_gen_take_arg(&pos, &args, &arg) != DBUS_TYPE_INVALID) {
        if (arg.code == DBUS_TYPE_ARRAY) {
            ok = sbus_gen_append_array(&iter, &arg);
        } else {
            ok = dbus_message_iter_append_basic(&iter, arg.code, &arg.v);
        }
    }
    va_end(args);
    return ok ? EOK : ENOMEM;
}

errno_t sbus_gen_write_va(DBusMessage *msg, const char *signature, va_list ap)
{
    errno_t ret;

    SSS_CHECK_ARG(msg != NULL, EINVAL);
    SSS_CHECK_ARG(signature != NULL, EINVAL);

    ret = sbus_gen_check_va(signature, ap);
    if (ret != EOK) {
        return ret;
    }
    return sbus_gen_append_va(msg, signature, ap);
}

errno_t sbus_gen_write(DBusMessage *msg, const char *signature, ...)
{
    va_list ap;
    errno_t ret;

    va_start(ap, signature);
    ret = sbus_gen_write_va(msg, signature, ap);
    va_end(ap);
    return ret;
}

#define SBUS_GEN_WIRE_MAX_ARGS 16

/* The values of ap for sbus_wire_build() when signature has basic types and byte or
 * uint32 arrays only (at most SBUS_GEN_WIRE_MAX_ARGS of them); false otherwise. */
static bool sbus_gen_wire_args(const char *signature, va_list ap, struct sbus_wire_arg *out,
                               size_t *_num)
{
    struct sbus_gen_arg arg = { 0 };
    const char *pos = signature;
    va_list args;
    size_t n = 0;
    bool ok = true;

    va_copy(args, ap);
    while (sbus_gen_take_arg(&pos, &args, &arg) != DBUS_TYPE_INVALID) {
        if (n == SBUS_GEN_WIRE_MAX_ARGS
                || !(sbus_wire_basic(arg.code)
                     || (arg.code == DBUS_TYPE_ARRAY && sbus_wire_fixed_array(arg.elem)))) {
            ok = false;
            break;
        }
        out[n].code = arg.code;
        out[n].str = NULL;
        out[n].elem = 0;
        out[n].values = NULL;
        out[n].count = 0;
        if (arg.code == DBUS_TYPE_ARRAY) {
            out[n].num = 0;
            out[n].elem = arg.elem;
            out[n].values = arg.v.fixed.values;
            out[n].count = arg.v.fixed.count;
            n++;
            continue;
        }
        switch (arg.code) {
        case DBUS_TYPE_BYTE:    out[n].num = arg.v.y; break;
        case DBUS_TYPE_BOOLEAN: out[n].num = arg.v.b; break;
        case DBUS_TYPE_INT16:   out[n].num = (uint16_t)arg.v.n; break;
        case DBUS_TYPE_UINT16:  out[n].num = arg.v.q; break;
        case DBUS_TYPE_INT32:   out[n].num = (uint32_t)arg.v.i; break;
        case DBUS_TYPE_UINT32:  out[n].num = arg.v.u; break;
        case DBUS_TYPE_INT64:   out[n].num = (uint64_t)arg.v.x; break;
        case DBUS_TYPE_UINT64:  out[n].num = arg.v.t; break;
        default:                out[n].num = 0; out[n].str = arg.v.s; break;
        }
        n++;
    }
    va_end(args);
    *_num = n;
    return ok;
}

/* The message built whole by sbus_wire_build(), or NULL: append through libdbus. */
static DBusMessage *sbus_gen_wire_va(const struct sbus_wire_head *head, const char *signature,
                                     va_list ap)
{
    struct sbus_wire_arg args[SBUS_GEN_WIRE_MAX_ARGS];
    size_t num;

    if (!sbus_gen_wire_args(signature, ap, args, &num)) {
        return NULL;
    }
    return sbus_wire_build(head, signature, args, num);
}

/* Creates the message (destination NULL: a signal) and appends the values. */
static errno_t sbus_gen_new_va(DBusMessage **_msg, const char *destination, const char *path,
                               const char *interface, const char *member,
                               const char *signature, va_list ap)
{
    struct sbus_wire_head head;
    DBusMessage *msg;
    errno_t ret;

    SSS_CHECK_ARG(_msg != NULL, EINVAL);
    SSS_CHECK_ARG(signature != NULL, EINVAL);
    if (!sbus_gen_valid_path(path)) {
        return EINVAL;
    }
    ret = sbus_gen_check_va(signature, ap);
    if (ret != EOK) {
        return ret;
    }
    head.type = destination != NULL ? DBUS_MESSAGE_TYPE_METHOD_CALL : DBUS_MESSAGE_TYPE_SIGNAL;
    head.destination = destination;
    head.path = path;
    head.interface = interface;
    head.member = member;
    head.reply_serial = 0;
    msg = sbus_gen_wire_va(&head, signature, ap);
    if (msg != NULL) {
        *_msg = msg;
        return EOK;
    }
    if (destination != NULL) {
        msg = dbus_message_new_method_call(destination, path, interface, member);
    } else {
        msg = dbus_message_new_signal(path, interface, member);
    }
    if (msg == NULL) {
        return ENOMEM;
    }
    ret = sbus_gen_append_va(msg, signature, ap);
    if (ret != EOK) {
        dbus_message_unref(msg);
        return ret;
    }
    *_msg = msg;
    return EOK;
}

errno_t sbus_gen_new_call(DBusMessage **_msg, const char *destination, const char *path,
                          const char *interface, const char *member, const char *signature,
                          ...)
{
    va_list ap;
    errno_t ret;

    if (!sbus_gen_valid_bus_name(destination)) {
        return EINVAL;
    }
    va_start(ap, signature);
    ret = sbus_gen_new_va(_msg, destination, path, interface, member, signature, ap);
    va_end(ap);
    return ret;
}

errno_t sbus_gen_new_signal(DBusMessage **_msg, const char *path, const char *interface,
                            const char *member, const char *signature, ...)
{
    va_list ap;
    errno_t ret;

    va_start(ap, signature);
    ret = sbus_gen_new_va(_msg, NULL, path, interface, member, signature, ap);
    va_end(ap);
    return ret;
}

errno_t sbus_gen_check_call(const char *destination, const char *path, const char *signature,
                            ...)
{
    va_list ap;
    errno_t ret;

    SSS_CHECK_ARG(signature != NULL, EINVAL);
    if (!sbus_gen_valid_bus_name(destination) || !sbus_gen_valid_path(path)) {
        return EINVAL;
    }
    va_start(ap, signature);
    ret = sbus_gen_check_va(signature, ap);
    va_end(ap);
    return ret;
}

/* A generated call while sbus_call_send_out() decides whether it goes on the wire. */
struct sbus_gen_lazy_call {
    struct sbus_wire_head head;
    const char *signature;
    va_list ap;                 /* the caller's values, checked */
};

/* Composed and written to the socket (sbus_call_direct): true when it is out. */
static bool sbus_gen_lazy_direct(struct sbus_connection *conn, void *pvt,
                                 dbus_uint32_t *_serial)
{
    struct sbus_gen_lazy_call *call = pvt;
    struct sbus_wire_arg args[SBUS_GEN_WIRE_MAX_ARGS];
    uint8_t data[SBUS_WIRE_MAX_LEN];
    va_list ap;
    size_t num;
    size_t len = 0;
    bool sent;

    va_copy(ap, call->ap);
    if (sbus_gen_wire_args(call->signature, ap, args, &num)) {
        len = sbus_wire_compose(&call->head, call->signature, args, num, data);
    }
    va_end(ap);
    sent = len != 0 && sbus_call_direct(conn, data, len);
    if (sent) {
        /* The header's serial (bytes 8-11), in our byte order as composed. */
        memcpy(_serial, data + 8, sizeof(*_serial));
    }
    /* pamHandler's authtok and newauthtok are in there. */
    sbus_wire_erase(data, len);
    return sent;
}

/* The message for libdbus, as sbus_gen_new_call() builds it. */
static DBusMessage *sbus_gen_lazy_build(void *pvt, errno_t *_error)
{
    struct sbus_gen_lazy_call *call = pvt;
    DBusMessage *msg = NULL;
    va_list ap;

    va_copy(ap, call->ap);
    *_error = sbus_gen_new_va(&msg, call->head.destination, call->head.path,
                              call->head.interface, call->head.member, call->signature, ap);
    va_end(ap);
    return *_error == EOK ? msg : NULL;
}

struct tevent_req *sbus_gen_call_raw_send(TALLOC_CTX *mem_ctx, struct sbus_connection *conn,
                                          int timeout_ms, errno_t build_error, char *key,
                                          const char *destination, const char *path,
                                          const char *interface, const char *member,
                                          const char *signature, ...)
{
    struct sbus_gen_lazy_call call = { 0 };
    struct sbus_call_out out = { 0 };
    struct tevent_req *req;

    call.head.type = DBUS_MESSAGE_TYPE_METHOD_CALL;
    call.head.destination = destination;
    call.head.path = path;
    call.head.interface = interface;
    call.head.member = member;
    call.signature = signature;
    out.error = build_error;
    out.destination = destination;
    out.interface = interface;
    out.member = member;
    out.direct = sbus_gen_lazy_direct;
    out.build = sbus_gen_lazy_build;
    out.pvt = &call;
    va_start(call.ap, signature);
    req = sbus_call_send_out(mem_ctx, conn, &out, key, timeout_ms);
    va_end(call.ap);
    talloc_free(key);
    return req;
}

/* The connection the reply being written (sbus_gen_direct_begin .. _end, around the
 * invoker's write_out) may go out on directly, and whether it did. */
static struct sbus_connection *sbus_gen_direct_conn;
static bool sbus_gen_direct_sent;

void sbus_gen_direct_begin(struct sbus_connection *conn)
{
    sbus_gen_direct_conn = conn;
    sbus_gen_direct_sent = false;
}

bool sbus_gen_direct_end(void)
{
    bool sent = sbus_gen_direct_sent;

    sbus_gen_direct_conn = NULL;
    sbus_gen_direct_sent = false;
    return sent;
}

/* The reply composed in wire form and written to the socket (sbus_reply_direct.c): true
 * when it went out; false when nothing was written. Its values were checked. */
static bool sbus_gen_reply_direct(const struct sbus_wire_head *head, const char *signature,
                                  va_list ap)
{
    struct sbus_wire_arg args[SBUS_GEN_WIRE_MAX_ARGS];
    uint8_t data[SBUS_WIRE_MAX_LEN];
    size_t num;
    size_t len;
    bool sent;

    if (!sbus_gen_wire_args(signature, ap, args, &num)) {
        return false;
    }
    len = sbus_wire_compose(head, signature, args, num, data);
    sent = len > 0 && sbus_reply_direct(sbus_gen_direct_conn, data, len);
    sbus_wire_erase(data, len);
    return sent;
}

errno_t sbus_gen_new_reply(DBusMessage **_reply, DBusMessage *call, const char *signature,
                           ...)
{
    struct sbus_wire_head head = { 0 };
    DBusMessage *reply;
    va_list ap;
    errno_t ret;

    SSS_CHECK_ARG(_reply != NULL, EINVAL);
    SSS_CHECK_ARG(call != NULL, EINVAL);
    SSS_CHECK_ARG(signature != NULL, EINVAL);
    va_start(ap, signature);
    ret = sbus_gen_check_va(signature, ap);
    if (ret != EOK) {
        goto done;
    }
    /* As dbus_message_new_method_return(): to the caller, answering its serial. */
    head.type = DBUS_MESSAGE_TYPE_METHOD_RETURN;
    head.destination = dbus_message_get_sender(call);
    head.reply_serial = dbus_message_get_serial(call);
    if (head.reply_serial != 0 && sbus_gen_direct_conn != NULL
            && !dbus_message_get_no_reply(call)
            && sbus_gen_reply_direct(&head, signature, ap)) {
        /* Out already: no message for the caller to send. */
        sbus_gen_direct_sent = true;
        *_reply = NULL;
        goto done;
    }
    reply = head.reply_serial != 0 ? sbus_gen_wire_va(&head, signature, ap) : NULL;
    if (reply == NULL) {
        reply = dbus_message_new_method_return(call);
        if (reply == NULL) {
            ret = ENOMEM;
            goto done;
        }
        ret = sbus_gen_append_va(reply, signature, ap);
        if (ret != EOK) {
            dbus_message_unref(reply);
            goto done;
        }
    }
    *_reply = reply;
done:
    va_end(ap);
    return ret;
}

/* -------- reading -------- */

/* The strings of the array under iter, copied onto mem_ctx, NULL-terminated. */
static errno_t sbus_gen_read_strv(TALLOC_CTX *mem_ctx, DBusMessageIter *iter,
                                  const char ***_strv)
{
    DBusMessageIter sub;
    const char **strv;
    const char *str;
    int count = dbus_message_iter_get_element_count(iter);
    int i;

    strv = talloc_zero_array(mem_ctx, const char *, count + 1);
    if (strv == NULL) {
        return ENOMEM;
    }
    dbus_message_iter_recurse(iter, &sub);
    for (i = 0; i < count; i++) {
        dbus_message_iter_get_basic(&sub, &str);
        strv[i] = talloc_strdup(strv, str);
        if (strv[i] == NULL) {
            talloc_free(strv);
            return ENOMEM;
        }
        dbus_message_iter_next(&sub);
    }
    *_strv = strv;
    return EOK;
}

/*
 * Reads every argument of msg, which must have exactly signature, into an array of values
 * allocated on mem_ctx; string arrays are copied onto the array, the rest points into msg.
 */
static errno_t sbus_gen_read_values(TALLOC_CTX *mem_ctx, DBusMessage *msg,
                                    const char *signature, union sbus_gen_value **_values)
{
    union sbus_gen_value *values;
    DBusMessageIter iter;
    DBusMessageIter sub;
    const char *pos = signature;
    int count;
    int elem = 0;
    int code;
    int n;
    int i;
    errno_t ret;

    SSS_CHECK_ARG(msg != NULL, EINVAL);
    SSS_CHECK_ARG(signature != NULL, EINVAL);
    count = sbus_gen_count_types(signature);
    if (count < 0) {
        return EINVAL;
    }
    if (!dbus_message_has_signature(msg, signature)) {
        return ERR_SBUS_INVALID_ARGS;
    }
    values = talloc_zero_array(mem_ctx, union sbus_gen_value, count + 1);
    if (values == NULL) {
        return ENOMEM;
    }

    /* The signature matched: each argument has the type the signature names. */
    dbus_message_iter_init(msg, &iter);
    for (i = 0; i < count; i++) {
        code = sbus_gen_next_type(&pos, &elem);
        if (code != DBUS_TYPE_ARRAY) {
            dbus_message_iter_get_basic(&iter, &values[i]);
        } else if (elem == DBUS_TYPE_STRING) {
            ret = sbus_gen_read_strv(values, &iter, &values[i].strv);
            if (ret != EOK) {
                talloc_free(values);
                return ret;
            }
        } else {
            dbus_message_iter_recurse(&iter, &sub);
            dbus_message_iter_get_fixed_array(&sub, &values[i].fixed.values, &n);
            values[i].fixed.count = (uint32_t)n;
            if (n == 0) {
                values[i].fixed.values = NULL;
            }
        }
        dbus_message_iter_next(&iter);
    }
    *_values = values;
    return EOK;
}

/* Replaces the strings and fixed arrays of values, which point into their message, with
 * copies on values' own context. */
static errno_t sbus_gen_copy_values(const char *signature, union sbus_gen_value *values)
{
    const char *pos = signature;
    union sbus_gen_value *v;
    int elem = 0;
    int code;

    for (v = values; (code = sbus_gen_next_type(&pos, &elem)) > 0; v++) {
        if (code == DBUS_TYPE_STRING || code == DBUS_TYPE_OBJECT_PATH) {
            v->s = talloc_strdup(values, v->s);
            if (v->s == NULL) {
                return ENOMEM;
            }
        } else if (code == DBUS_TYPE_ARRAY && elem != DBUS_TYPE_STRING
                   && v->fixed.count > 0) {
            v->fixed.values = talloc_memdup(values, v->fixed.values,
                                            v->fixed.count * sbus_gen_fixed_size(elem));
            if (v->fixed.values == NULL) {
                return ENOMEM;
            }
        }
    }
    return EOK;
}

/* ptr, moved to mem_ctx when it is owned (on the values' context), else as it is. */
static void *sbus_gen_hand(TALLOC_CTX *mem_ctx, bool owned, const void *ptr)
{
    return discard_const(owned ? talloc_steal(mem_ctx, ptr) : ptr);
}

/* Hands values out through the pointers of ap, as signature says; a NULL pointer skips its
 * value (which then goes with values). */
static void sbus_gen_hand_out(TALLOC_CTX *mem_ctx, bool copied, const char *signature,
                              union sbus_gen_value *values, va_list *ap)
{
    const char *pos = signature;
    union sbus_gen_value *v;
    void *ptr;
    int elem = 0;
    int code;

    for (v = values; (code = sbus_gen_next_type(&pos, &elem)) > 0; v++) {
        ptr = va_arg(*ap, void *);
        if (code == DBUS_TYPE_ARRAY && elem != DBUS_TYPE_STRING) {
            if (ptr != NULL) {
                *(const void **)ptr = sbus_gen_hand(mem_ctx, copied, v->fixed.values);
            }
            ptr = va_arg(*ap, void *);
            if (ptr != NULL) {
                *(uint32_t *)ptr = v->fixed.count;
            }
            continue;
        }
        if (ptr == NULL) {
            continue;
        }
        switch (code) {
        case DBUS_TYPE_BYTE:    *(uint8_t *)ptr = v->y; break;
        case DBUS_TYPE_BOOLEAN: *(bool *)ptr = v->b != FALSE; break;
        case DBUS_TYPE_INT16:   *(int16_t *)ptr = v->n; break;
        case DBUS_TYPE_UINT16:  *(uint16_t *)ptr = v->q; break;
        case DBUS_TYPE_INT32:   *(int32_t *)ptr = v->i; break;
        case DBUS_TYPE_UINT32:  *(uint32_t *)ptr = v->u; break;
        case DBUS_TYPE_INT64:   *(int64_t *)ptr = v->x; break;
        case DBUS_TYPE_UINT64:  *(uint64_t *)ptr = v->t; break;
        case DBUS_TYPE_STRING:
        case DBUS_TYPE_OBJECT_PATH:
            *(const char **)ptr = sbus_gen_hand(mem_ctx, copied, v->s);
            break;
        case DBUS_TYPE_ARRAY:
            *(const char ***)ptr = sbus_gen_hand(mem_ctx, true, v->strv);
            break;
        }
    }
}

/* Reads msg as signature says into the pointers of ap; with copy, strings and fixed arrays
 * are copied onto mem_ctx too instead of pointing into msg. */
static errno_t sbus_gen_read_va(TALLOC_CTX *mem_ctx, bool copy, DBusMessage *msg,
                                const char *signature, va_list ap)
{
    union sbus_gen_value *values = NULL;
    va_list args;
    errno_t ret;

    ret = sbus_gen_read_values(NULL, msg, signature, &values);
    if (ret != EOK) {
        goto done;
    }
    if (copy) {
        ret = sbus_gen_copy_values(signature, values);
        if (ret != EOK) {
            goto done;
        }
    }
    va_copy(args, ap);
    sbus_gen_hand_out(mem_ctx, copy, signature, values, &args);
    va_end(args);
    ret = EOK;

done:
    talloc_free(values);
    return ret;
}

errno_t sbus_gen_read(TALLOC_CTX *mem_ctx, DBusMessage *msg, const char *signature, ...)
{
    va_list ap;
    errno_t ret;

    va_start(ap, signature);
    ret = sbus_gen_read_va(mem_ctx, false, msg, signature, ap);
    va_end(ap);
    return ret;
}

errno_t sbus_gen_read_copy_va(TALLOC_CTX *mem_ctx, DBusMessage *msg, const char *signature,
                              va_list ap)
{
    return sbus_gen_read_va(mem_ctx, true, msg, signature, ap);
}

errno_t sbus_gen_read_request(struct sbus_request *sbus_req, const char *signature, ...)
{
    DBusMessage *msg;
    va_list ap;
    errno_t ret;

    SSS_CHECK_ARG(sbus_req != NULL, EINVAL);
    msg = sbus_req->message;
    va_start(ap, signature);
    ret = sbus_gen_read_va(sbus_req, false, msg, signature, ap);
    va_end(ap);
    if (ret == ERR_SBUS_INVALID_ARGS) {
        DEBUG(SSSDBG_MINOR_FAILURE, "%s %s.%s from %s: signature '%s', expected '%s'\n",
              dbus_message_get_type(msg) == DBUS_MESSAGE_TYPE_SIGNAL
                  ? "Dropping signal" : "Rejecting call",
              dbus_message_get_interface(msg), dbus_message_get_member(msg),
              sbus_req->sender != NULL ? sbus_req->sender : "(unknown sender)",
              dbus_message_get_signature(msg), signature);
    } else if (ret != EOK) {
        DEBUG(SSSDBG_CRIT_FAILURE, "Cannot read the arguments of %s.%s: %s\n",
              dbus_message_get_interface(msg), dbus_message_get_member(msg),
              sss_strerror(ret));
    }
    return ret;
}
