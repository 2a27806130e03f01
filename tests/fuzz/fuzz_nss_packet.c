/*
 * libFuzzer harness for the bytes a client sends sssd_nss: the framing state machine
 * (fed in chunks whose sizes come from the input, so partial reads are covered), then the
 * NSS request parser on each framed request's body under its own command and under every
 * other NSS command. Built by tests/fuzz/run.sh with resp_packet.c and nss_protocol.c.
 */
#include <stdint.h>
#include <stddef.h>

#include "responder/nss/nss_protocol.h"

static const uint32_t nss_cmds[] = {
    SSS_NSS_GETPWNAM, SSS_NSS_GETPWUID, SSS_NSS_SETPWENT, SSS_NSS_GETPWENT,
    SSS_NSS_ENDPWENT, SSS_NSS_GETPWNAM_EX, SSS_NSS_GETPWUID_EX, SSS_NSS_GETGRNAM,
    SSS_NSS_GETGRGID, SSS_NSS_SETGRENT, SSS_NSS_GETGRENT, SSS_NSS_ENDGRENT, SSS_NSS_INITGR,
    SSS_NSS_GETGRNAM_EX, SSS_NSS_GETGRGID_EX, SSS_NSS_INITGR_EX, SSS_NSS_GETORIGBYNAME,
    SSS_NSS_GETORIGBYUSERNAME, SSS_GET_VERSION, 0xFFFF,
};

static void check_request(uint32_t cmd, const uint8_t *body, size_t len)
{
    struct nss_request req;

    if (nss_request_parse(cmd, body, len, &req) != EOK) {
        return;
    }
    /* What the parser promises about a name. */
    if (req.kind == NSS_REQ_NAME) {
        if (req.name_len == 0 || req.name_len > NSS_NAME_MAX
                || strlen(req.name) != req.name_len
                || !nss_name_is_valid(req.name, req.name_len)) {
            __builtin_trap();
        }
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static struct resp_frame *frame;
    const uint8_t *body;
    size_t pos = 1;
    size_t chunk;
    size_t used;
    size_t blen;
    size_t i;
    errno_t ret;

    if (frame == NULL) {
        debug_level = 0;
        frame = resp_frame_new(NULL, SSS_CLI_MAX_REQUEST_SIZE);
        if (frame == NULL) {
            return 0;
        }
    }
    if (size == 0) {
        return 0;
    }
    /* data[0] picks the chunk size of the reads (1..256 bytes). */
    chunk = (size_t)data[0] + 1;
    resp_frame_reset(frame);
    while (pos < size) {
        ret = resp_frame_feed(frame, data + pos, size - pos < chunk ? size - pos : chunk,
                              &used);
        pos += used;
        if (ret == EAGAIN) {
            continue;
        }
        if (ret != EOK) {
            break;      /* the server closes such a connection */
        }
        body = resp_frame_body(frame, &blen);
        if (blen + SSS_NSS_HEADER_SIZE > SSS_CLI_MAX_REQUEST_SIZE) {
            __builtin_trap();
        }
        check_request(resp_frame_cmd(frame), body, blen);
        for (i = 0; i < sizeof(nss_cmds) / sizeof(nss_cmds[0]); i++) {
            check_request(nss_cmds[i], body, blen);
        }
        resp_frame_reset(frame);
    }
    return 0;
}
