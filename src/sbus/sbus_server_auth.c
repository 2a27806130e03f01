/*
 * The server side of D-Bus authentication (the specification's SASL profile) for the
 * master bus, EXTERNAL only, as a pure state machine over the bytes a peer sent: no
 * sockets, no allocation. The peer's uid comes from the socket (SO_PEERCRED); the
 * identity a client may name (its uid in decimal, hex-encoded) must be that uid, and the
 * uid must be one the server allows. Replies and their order follow libdbus's server
 * (dbus-auth.c), so every stock client (libdbus, sd-bus, GDBus) gets what it expects,
 * pipelined commands included. A peer that keeps failing or babbling is cut off.
 */
#include <stdio.h>
#include <string.h>

#include "sbus/sbus_server_auth.h"

/* libdbus's server gives up after 6 rejections; babble ends a little later. */
#define AUTH_MAX_REJECTIONS 6
#define AUTH_MAX_COMMANDS 32

static void auth_reply(struct sbus_auth *a, const char *text)
{
    size_t len = strlen(text);

    /* the caller leaves room for the longest reply before every command */
    assert(a->out_len + len + 2 <= sizeof(a->out));
    memcpy(a->out + a->out_len, text, len);
    memcpy(a->out + a->out_len + len, "\r\n", 2);
    a->out_len += len + 2;
}

static void auth_reject(struct sbus_auth *a)
{
    a->state = SBUS_AUTH_WAIT_AUTH;
    a->asked_for_data = false;
    if (++a->rejections >= AUTH_MAX_REJECTIONS) {
        a->state = SBUS_AUTH_FAILED;
        return;
    }
    auth_reply(a, "REJECTED EXTERNAL");
}

static int auth_hex(char c)
{
    if (c >= '0' && c <= '9') {
        return c - '0';
    }
    if (c >= 'a' && c <= 'f') {
        return c - 'a' + 10;
    }
    if (c >= 'A' && c <= 'F') {
        return c - 'A' + 10;
    }
    return -1;
}

/* The identity the EXTERNAL response names, decoded from hex into buf (NUL-terminated).
 * False when it is not hex or too long to be a uid. */
static bool auth_decode(const char *hex, size_t len, char *buf, size_t size)
{
    size_t i;
    int hi, lo;

    if (len % 2 != 0 || len / 2 >= size) {
        return false;
    }
    for (i = 0; i < len; i += 2) {
        hi = auth_hex(hex[i]);
        lo = auth_hex(hex[i + 1]);
        if (hi < 0 || lo < 0) {
            return false;
        }
        buf[i / 2] = (char)(hi << 4 | lo);
    }
    buf[len / 2] = '\0';
    return true;
}

/* The EXTERNAL exchange with the response given (len 0: none, or empty). */
static void auth_external(struct sbus_auth *a, const char *response, size_t len)
{
    char identity[24];
    char mine[24];

    if (len == 0 && !a->asked_for_data) {
        /* no initial response: ask for one (an empty one means "the socket's uid") */
        a->asked_for_data = true;
        a->state = SBUS_AUTH_WAIT_DATA;
        auth_reply(a, "DATA");
        return;
    }
    if (!auth_decode(response, len, identity, sizeof(identity))) {
        a->state = SBUS_AUTH_WAIT_AUTH;
        a->asked_for_data = false;
        auth_reply(a, "ERROR \"Invalid hex encoding\"");
        return;
    }
    snprintf(mine, sizeof(mine), "%lu", (unsigned long)a->uid);
    if ((identity[0] != '\0' && strcmp(identity, mine) != 0) || !a->uid_allowed) {
        auth_reject(a);
        return;
    }
    a->state = SBUS_AUTH_WAIT_BEGIN;
    assert(strlen(a->guid) == SBUS_AUTH_GUID_LEN);
    memcpy(a->out + a->out_len, "OK ", 3);
    memcpy(a->out + a->out_len + 3, a->guid, SBUS_AUTH_GUID_LEN);
    memcpy(a->out + a->out_len + 3 + SBUS_AUTH_GUID_LEN, "\r\n", 2);
    a->out_len += 3 + SBUS_AUTH_GUID_LEN + 2;
}

/* "AUTH [mechanism [initial-response]]" */
static void auth_command_auth(struct sbus_auth *a, const char *args, size_t len)
{
    const char *blank = memchr(args, ' ', len);
    size_t mech_len = blank != NULL ? (size_t)(blank - args) : len;

    if (mech_len == 8 && memcmp(args, "EXTERNAL", 8) == 0) {
        a->asked_for_data = false;
        if (blank != NULL) {
            auth_external(a, blank + 1, len - mech_len - 1);
        } else {
            auth_external(a, "", 0);
        }
        return;
    }
    auth_reject(a);     /* no mechanism, or one we do not have */
}

static bool auth_is(const char *line, size_t len, const char *cmd, const char **_args,
                    size_t *_args_len)
{
    size_t n = strlen(cmd);

    if (len < n || memcmp(line, cmd, n) != 0 || (len > n && line[n] != ' ')) {
        return false;
    }
    *_args = len > n ? line + n + 1 : line + n;
    *_args_len = len > n ? len - n - 1 : 0;
    return true;
}

/* One command line (without its CRLF). */
static void auth_line(struct sbus_auth *a, const char *line, size_t len)
{
    const char *args;
    size_t args_len;

    if (++a->commands > AUTH_MAX_COMMANDS) {
        a->state = SBUS_AUTH_FAILED;
        return;
    }
    if (auth_is(line, len, "BEGIN", &args, &args_len)) {
        /* before OK the specification says to disconnect */
        a->state = a->state == SBUS_AUTH_WAIT_BEGIN ? SBUS_AUTH_DONE : SBUS_AUTH_FAILED;
    } else if (auth_is(line, len, "AUTH", &args, &args_len)) {
        if (a->state == SBUS_AUTH_WAIT_AUTH) {
            auth_command_auth(a, args, args_len);
        } else {
            auth_reply(a, a->state == SBUS_AUTH_WAIT_DATA
                          ? "ERROR \"Sent AUTH while another AUTH in progress\""
                          : "ERROR \"Sent AUTH while expecting BEGIN\"");
        }
    } else if (auth_is(line, len, "DATA", &args, &args_len)) {
        if (a->state == SBUS_AUTH_WAIT_DATA) {
            auth_external(a, args, args_len);
        } else {
            auth_reply(a, "ERROR \"Not currently in an auth conversation\"");
        }
    } else if (auth_is(line, len, "CANCEL", &args, &args_len)
               || auth_is(line, len, "ERROR", &args, &args_len)) {
        auth_reject(a);
    } else if (auth_is(line, len, "NEGOTIATE_UNIX_FD", &args, &args_len)) {
        /* this bus passes no file descriptors */
        auth_reply(a, "ERROR \"Unix fd passing is not supported on this bus\"");
    } else {
        auth_reply(a, "ERROR \"Unknown command\"");
    }
}

size_t sbus_auth_input(struct sbus_auth *a, const char *in, size_t len)
{
    const char *eol;
    size_t used = 0;

    if (a->state == SBUS_AUTH_NUL && len > 0) {
        /* the credentials byte every client sends first */
        a->state = in[0] == '\0' ? SBUS_AUTH_WAIT_AUTH : SBUS_AUTH_FAILED;
        used = 1;
    }
    while (a->state != SBUS_AUTH_DONE && a->state != SBUS_AUTH_FAILED
           && sizeof(a->out) - a->out_len >= SBUS_AUTH_MAX_REPLY) {
        eol = memmem(in + used, len - used, "\r\n", 2);
        if (eol == NULL) {
            if (len - used > SBUS_AUTH_MAX_LINE) {
                a->state = SBUS_AUTH_FAILED;
            }
            break;
        }
        auth_line(a, in + used, (size_t)(eol - (in + used)));
        used = (size_t)(eol - in) + 2;
    }
    return used;
}
