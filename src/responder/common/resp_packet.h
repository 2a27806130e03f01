/*
 * Client packets on the responder side (PROTOCOL.md "Client packet"): the framing state
 * machine that turns a byte stream into one whole request, and a growable reply builder.
 * Neither does any I/O, so the socket server, the unit tests and the fuzzer share them.
 *
 * Ownership: a struct resp_frame and a struct resp_reply are talloc objects owned by the
 * caller's mem_ctx; pointers handed out by their accessors live as long as the object.
 */
#ifndef RESP_PACKET_H
#define RESP_PACKET_H

#include "util/util.h"
#include "sss_client/sss_cli.h"

/* ---- framing: read one request ---- */

struct resp_frame;

/* A frame accepting requests of at most max_len bytes, header included
 * (max_len >= SSS_NSS_HEADER_SIZE). Returns NULL on ENOMEM or a bad max_len. */
struct resp_frame *resp_frame_new(TALLOC_CTX *mem_ctx, size_t max_len);

/* Where the next received bytes go, and how many may be read now without crossing the end
 * of the request (never 0 while the request is incomplete). */
uint8_t *resp_frame_space(struct resp_frame *f, size_t *_len);

/*
 * Accounts for n bytes just written into resp_frame_space().
 * Returns EAGAIN     more bytes are needed;
 *         EOK        the request is complete;
 *         EMSGSIZE   the declared length is larger than max_len;
 *         EBADMSG    the declared length is smaller than the header;
 *         EINVAL     n is larger than the space offered (a caller bug).
 * After anything but EAGAIN the frame stays in that state until resp_frame_reset().
 */
errno_t resp_frame_advance(struct resp_frame *f, size_t n);

/* Copies up to len bytes of data into the frame (the fuzzer's and tests' way to feed it);
 * *_used says how many were taken. Same returns as resp_frame_advance(). */
errno_t resp_frame_feed(struct resp_frame *f, const uint8_t *data, size_t len,
                        size_t *_used);

/* Ready for the next request. */
void resp_frame_reset(struct resp_frame *f);

/* Header fields and body of a complete request (resp_frame_advance() returned EOK). */
uint32_t resp_frame_cmd(struct resp_frame *f);
const uint8_t *resp_frame_body(struct resp_frame *f, size_t *_len);

/* Bytes received so far for the current request. */
size_t resp_frame_received(struct resp_frame *f);

/* ---- replies ---- */

struct resp_reply;

/* A reply to cmd with status 0 and an empty body. NULL on ENOMEM. */
struct resp_reply *resp_reply_new(TALLOC_CTX *mem_ctx, uint32_t cmd);

/* Appends bytes; E2BIG when the reply would pass UINT32_MAX bytes, ENOMEM. After a failed
 * append the reply is unchanged. */
errno_t resp_reply_put(struct resp_reply *r, const void *data, size_t len);
errno_t resp_reply_put_u32(struct resp_reply *r, uint32_t v);
/* The string with its NUL. */
errno_t resp_reply_put_str(struct resp_reply *r, const char *s);

/* Overwrites a uint32 of the body at byte offset off (EINVAL when outside the body). */
errno_t resp_reply_set_u32(struct resp_reply *r, size_t off, uint32_t v);

void resp_reply_set_status(struct resp_reply *r, uint32_t status);

/* Cuts the body back to body_len bytes (EINVAL when longer than the body). */
errno_t resp_reply_truncate(struct resp_reply *r, size_t body_len);

/* Body length so far (header excluded). */
size_t resp_reply_body_len(struct resp_reply *r);

/* The whole packet with its header filled in; valid until the next change. */
const uint8_t *resp_reply_packet(struct resp_reply *r, size_t *_len);

#endif /* RESP_PACKET_H */
