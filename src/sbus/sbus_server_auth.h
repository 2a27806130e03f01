/*
 * Authentication of a master bus peer (sbus_server_auth.c): a state machine fed with the
 * bytes the peer sent before its first message. Pure: the caller reads the socket, sends
 * out[0..out_len) and empties it, and hands whatever follows BEGIN to the message reader.
 */
#ifndef SBUS_SERVER_AUTH_H
#define SBUS_SERVER_AUTH_H

#include <assert.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* The server's GUID in OK: 32 hex digits. */
#define SBUS_AUTH_GUID_LEN 32
/* Longest command line a peer may send. */
#define SBUS_AUTH_MAX_LINE 1024
/* Room one command's reply may need. */
#define SBUS_AUTH_MAX_REPLY 64

enum sbus_auth_state {
    SBUS_AUTH_NUL = 0,          /* waiting for the credentials byte */
    SBUS_AUTH_WAIT_AUTH,
    SBUS_AUTH_WAIT_DATA,
    SBUS_AUTH_WAIT_BEGIN,
    SBUS_AUTH_DONE,             /* BEGIN received: messages follow */
    SBUS_AUTH_FAILED,           /* the peer must be disconnected */
};

struct sbus_auth {
    enum sbus_auth_state state;
    uid_t uid;                  /* the peer's, from the socket */
    bool uid_allowed;           /* whether the server lets that uid in */
    const char *guid;           /* SBUS_AUTH_GUID_LEN hex digits */
    bool asked_for_data;
    unsigned int rejections;
    unsigned int commands;
    char out[4 * SBUS_AUTH_MAX_REPLY];  /* replies not sent yet */
    size_t out_len;
};

/*
 * Consumes the complete command lines at the start of in[0..len) (and the first byte,
 * which must be NUL), appending replies to a->out while there is room; returns how many
 * bytes it used. Call again after sending out if bytes remain and the state is neither
 * DONE nor FAILED: a partial line waits for more input (FAILED past SBUS_AUTH_MAX_LINE).
 */
size_t sbus_auth_input(struct sbus_auth *a, const char *in, size_t len);

#endif /* SBUS_SERVER_AUTH_H */
