/*
 * The PAM responder's wire codec (PROTOCOL.md "PAM bodies"): the request body pam_sss sends
 * (ours and SSSD 2.8's, protocol versions 2 and 3) parsed into struct pam_data, and the
 * reply body built from a status and items. No I/O, no bus: the command code, its unit
 * tests and the fuzzer (tests/fuzz/fuzz_pam_request.c) share it.
 *
 * The request: uint32 SSS_START_OF_PAM_REQUEST, items {uint32 type, uint32 size, data},
 * uint32 SSS_END_OF_PAM_REQUEST as the very last four bytes. SSSD's rules: strings carry
 * their NUL and no other; uint32 items are exactly 4 bytes; an authtok is uint32 type then
 * its bytes; unknown item types are skipped; a later item replaces an earlier one of the
 * same type. Anything else (a truncated item, a missing marker, bytes after the end) is
 * EINVAL and the client gets PAM_SYSTEM_ERR, as from SSSD.
 *
 * Ownership: struct pam_data is a talloc object; its strings and tokens are its children.
 * Tokens (passwords) are wiped when freed (explicit_bzero), and never logged.
 */
#ifndef PAM_REQ_H
#define PAM_REQ_H

#include "util/util.h"
#include "responder/common/resp_packet.h"

/* Longest token (password) accepted: the whole request is at most 1024 bytes anyway. */
#define PAM_REQ_MAX_TOK 1024

struct pam_tok {
    uint32_t type;          /* SSS_AUTHTOK_TYPE_*; EMPTY when absent */
    uint8_t *data;          /* NULL when len is 0; wiped when freed */
    size_t len;
};

struct pam_data {
    uint32_t cmd;
    char *user;             /* NULL when absent (the request is then refused) */
    char *service;          /* "" when absent, as every string below */
    char *tty;
    char *ruser;
    char *rhost;
    char *domains;          /* REQUESTED_DOMAINS: pam_sss's domains= option */
    uint32_t cli_pid;
    uint32_t child_pid;
    uint32_t cli_flags;     /* SSS_PAM_CLI_FLAGS_* */
    struct pam_tok authtok;
    struct pam_tok newauthtok;
};

/* Parses body (len bytes) of a request with command cmd. EOK with *_pd on mem_ctx; EINVAL
 * for a malformed body or a request without a user; ENOMEM. */
errno_t pam_req_parse(TALLOC_CTX *mem_ctx, uint32_t cmd, const uint8_t *body, size_t len,
                      struct pam_data **_pd);

/* Wipes and forgets a token now (it is wiped on free anyway). */
void pam_tok_clear(struct pam_tok *tok);

/* A reply body in the making: int32 status, int32 count, the items. */
struct pam_reply_build {
    struct resp_reply *reply;
    uint32_t count;
};

/* Starts a reply to cmd with status and no items. ENOMEM. */
errno_t pam_reply_start(struct pam_reply_build *b, TALLOC_CTX *mem_ctx, uint32_t cmd,
                        uint32_t status);
/* Appends one item {type, len, data}. E2BIG, ENOMEM. */
errno_t pam_reply_add(struct pam_reply_build *b, uint32_t type, const void *data,
                      uint32_t len);

/*
 * Walks items packed as n x {uint32 type, uint32 len, data} (the pamHandler reply, sss_dp.h)
 * and calls fn for each. EINVAL when the packing is broken (nothing is called then: the
 * whole blob is checked first). fn returning non-EOK stops the walk with that value.
 */
typedef errno_t (*pam_item_fn)(void *pvt, uint32_t type, const uint8_t *data, uint32_t len);
errno_t pam_items_walk(const uint8_t *items, size_t len, pam_item_fn fn, void *pvt);

/* The command's name ("AUTHENTICATE" ...), "UNKNOWN" for another value. */
const char *pam_cmd_name(uint32_t cmd);

#endif /* PAM_REQ_H */
