/*
 * pam_sss's request packer: one PAM request body as sssd_pam (ours and SSSD 2.8's) reads
 * it, PROTOCOL.md "PAM bodies". Items go in the order SSSD 2.8's client writes them, so the
 * bytes on the wire are the same as its own (tests/intg/test_pam_client_wire.sh compares
 * them). A pure function: no PAM, no socket.
 */
#include <assert.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "sss_client/sss_cli.h"
#include "sss_client/pam/pam_sss_private.h"

/* Item header: type and size. */
#define ITEM_HDR    (2 * sizeof(uint32_t))

static bool present(const char *s)
{
    return s != NULL && s[0] != '\0';
}

/* Bytes an item takes, or 0 when it is left out; EINVAL in *ret for an oversized one. */
static size_t string_size(const char *s, int *ret)
{
    size_t n;

    if (!present(s)) {
        return 0;
    }
    n = strnlen(s, PAM_SSS_MAX_STRING + 1);
    if (n > PAM_SSS_MAX_STRING) {
        *ret = EINVAL;
        return 0;
    }
    return ITEM_HDR + n + 1;
}

static size_t tok_size(const struct pam_sss_tok *tok, int *ret)
{
    if (tok->data == NULL) {
        return 0;
    }
    if (tok->len > PAM_SSS_MAX_AUTHTOK) {
        *ret = EINVAL;
        return 0;
    }
    return ITEM_HDR + sizeof(uint32_t) + tok->len;
}

static uint8_t *put_u32(uint8_t *p, uint32_t v)
{
    memcpy(p, &v, sizeof(v));
    return p + sizeof(v);
}

static uint8_t *put_string(uint8_t *p, uint32_t type, const char *s)
{
    size_t n;

    if (!present(s)) {
        return p;
    }
    n = strlen(s) + 1;
    p = put_u32(p, type);
    p = put_u32(p, (uint32_t)n);
    memcpy(p, s, n);
    return p + n;
}

static uint8_t *put_uint(uint8_t *p, uint32_t type, uint32_t v)
{
    p = put_u32(p, type);
    p = put_u32(p, sizeof(uint32_t));
    return put_u32(p, v);
}

static uint8_t *put_tok(uint8_t *p, uint32_t type, const struct pam_sss_tok *tok)
{
    if (tok->data == NULL) {
        return p;
    }
    p = put_u32(p, type);
    p = put_u32(p, (uint32_t)(sizeof(uint32_t) + tok->len));
    p = put_u32(p, tok->type);
    if (tok->len > 0) {
        memcpy(p, tok->data, tok->len);
    }
    return p + tok->len;
}

int pam_sss_pack(const struct pam_sss_req *req, uint8_t **_body, size_t *_len)
{
    size_t len = 2 * sizeof(uint32_t);     /* the markers */
    uint8_t *body;
    uint8_t *p;
    int ret = 0;

    if (req == NULL || _body == NULL || _len == NULL) {
        return EINVAL;
    }
    len += string_size(req->user, &ret);
    len += string_size(req->service, &ret);
    len += string_size(req->tty, &ret);
    len += string_size(req->ruser, &ret);
    len += string_size(req->rhost, &ret);
    len += string_size(req->domains, &ret);
    len += ITEM_HDR + sizeof(uint32_t);                     /* CLI_PID */
    len += req->child_pid > 0 ? ITEM_HDR + sizeof(uint32_t) : 0;
    len += tok_size(&req->authtok, &ret);
    len += tok_size(&req->newauthtok, &ret);
    len += ITEM_HDR + sizeof(uint32_t);                     /* FLAGS */
    if (ret != 0) {
        return ret;
    }

    body = malloc(len);
    if (body == NULL) {
        return ENOMEM;
    }
    p = put_u32(body, SSS_START_OF_PAM_REQUEST);
    p = put_string(p, SSS_PAM_ITEM_USER, req->user);
    p = put_string(p, SSS_PAM_ITEM_SERVICE, req->service);
    p = put_string(p, SSS_PAM_ITEM_TTY, req->tty);
    p = put_string(p, SSS_PAM_ITEM_RUSER, req->ruser);
    p = put_string(p, SSS_PAM_ITEM_RHOST, req->rhost);
    p = put_string(p, SSS_PAM_ITEM_REQUESTED_DOMAINS, req->domains);
    p = put_uint(p, SSS_PAM_ITEM_CLI_PID, req->cli_pid);
    if (req->child_pid > 0) {
        p = put_uint(p, SSS_PAM_ITEM_CHILD_PID, req->child_pid);
    }
    p = put_tok(p, SSS_PAM_ITEM_AUTHTOK, &req->authtok);
    p = put_tok(p, SSS_PAM_ITEM_NEWAUTHTOK, &req->newauthtok);
    p = put_uint(p, SSS_PAM_ITEM_FLAGS, req->flags);
    p = put_u32(p, SSS_END_OF_PAM_REQUEST);
    /* The sizes computed above and the bytes written agree by construction. */
    assert((size_t)(p - body) == len);

    *_body = body;
    *_len = len;
    return 0;
}
