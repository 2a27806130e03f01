/*
 * The runtime of the generated bus code (sbus_gen.h): checks of the values generated
 * builders pass to libdbus, copies of what libdbus allocates, request-key text, and the
 * answers generated invokers give.
 */
#include <stdio.h>
#include <string.h>

#include "sbus/sbus_private.h"
#include "sbus/sbus_gen.h"

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
    return (count == 0 || values != NULL)
        && count <= DBUS_MAXIMUM_ARRAY_LENGTH / sizeof(uint32_t);
}

/* -------- arguments -------- */

bool sbus_gen_take_strv(TALLOC_CTX *mem_ctx, char **raw, int count, const char ***_strv)
{
    const char **strv;
    bool ok = false;
    int i;

    strv = talloc_zero_array(mem_ctx, const char *, count + 1);
    if (strv == NULL) {
        goto done;
    }
    for (i = 0; i < count; i++) {
        strv[i] = talloc_strdup(strv, raw[i]);
        if (strv[i] == NULL) {
            talloc_free(strv);
            goto done;
        }
    }
    *_strv = strv;
    ok = true;

done:
    dbus_free_string_array(raw);
    return ok;
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

errno_t sbus_gen_no_args(DBusMessage *msg)
{
    return dbus_message_has_signature(msg, "") ? EOK : ERR_SBUS_INVALID_ARGS;
}

/* -------- answering -------- */

void sbus_gen_log_bad_args(struct sbus_request *sbus_req, const char *expected)
{
    DBusMessage *msg = sbus_req->message;
    bool is_signal = dbus_message_get_type(msg) == DBUS_MESSAGE_TYPE_SIGNAL;

    DEBUG(SSSDBG_MINOR_FAILURE, "%s %s.%s from %s: signature '%s', expected '%s'\n",
          is_signal ? "Dropping signal" : "Rejecting call",
          dbus_message_get_interface(msg), dbus_message_get_member(msg),
          sbus_req->sender != NULL ? sbus_req->sender : "(unknown sender)",
          dbus_message_get_signature(msg), expected);
}

void sbus_gen_reply_empty(struct sbus_request *sbus_req)
{
    DBusMessage *reply;

    reply = dbus_message_new_method_return(sbus_req->message);
    if (reply == NULL) {
        sbus_request_reply_error(sbus_req, ENOMEM);
        return;
    }
    sbus_request_reply(sbus_req, reply);
}

struct sbus_gen_invoke_state *sbus_gen_invoke_state_create(struct sbus_request *sbus_req,
                                                           const struct sbus_method *method)
{
    struct sbus_gen_invoke_state *state;

    state = talloc_zero(sbus_req, struct sbus_gen_invoke_state);
    if (state == NULL) {
        return NULL;
    }
    state->sbus_req = sbus_req;
    state->method = method;
    return state;
}
