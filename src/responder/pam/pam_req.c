/*
 * The PAM responder's wire codec: request parsing and reply building (pam_req.h). Every
 * length read from the client is checked against what is left of the body before use.
 */
#include <string.h>

#include "responder/pam/pam_req.h"
#include "sss_client/sss_cli.h"

#define U32 sizeof(uint32_t)

static uint32_t get_u32(const uint8_t *p)
{
    uint32_t v;

    memcpy(&v, p, sizeof(v));
    return v;
}

static int pam_tok_destructor(uint8_t *data)
{
    explicit_bzero(data, talloc_get_size(data));
    return 0;
}

void pam_tok_clear(struct pam_tok *tok)
{
    if (tok == NULL) {
        return;
    }
    talloc_free(tok->data);     /* the destructor wipes it */
    tok->data = NULL;
    tok->len = 0;
    tok->type = SSS_AUTHTOK_TYPE_EMPTY;
}

/* A string item: its NUL last and nowhere else (SSSD refuses both). */
static errno_t take_string(TALLOC_CTX *mem_ctx, const uint8_t *data, uint32_t size,
                           char **_str)
{
    char *s;

    if (size == 0 || data[size - 1] != '\0' || strlen((const char *)data) != size - 1) {
        return EINVAL;
    }
    s = talloc_memdup(mem_ctx, data, size);
    if (s == NULL) {
        return ENOMEM;
    }
    talloc_free(*_str);
    *_str = s;
    return EOK;
}

static errno_t take_u32(const uint8_t *data, uint32_t size, uint32_t *_v)
{
    if (size != U32) {
        return EINVAL;
    }
    *_v = get_u32(data);
    return EOK;
}

static errno_t take_tok(TALLOC_CTX *mem_ctx, const uint8_t *data, uint32_t size,
                        struct pam_tok *tok)
{
    size_t len;

    if (size < U32) {
        return EINVAL;
    }
    len = size - U32;
    if (len > PAM_REQ_MAX_TOK) {
        return EINVAL;
    }
    pam_tok_clear(tok);
    tok->type = get_u32(data);
    if (len == 0) {
        return EOK;
    }
    tok->data = talloc_memdup(mem_ctx, data + U32, len);
    if (tok->data == NULL) {
        return ENOMEM;
    }
    talloc_set_destructor(tok->data, pam_tok_destructor);
    tok->len = len;
    return EOK;
}

static errno_t parse_item(struct pam_data *pd, uint32_t type, const uint8_t *data,
                          uint32_t size)
{
    switch (type) {
    case SSS_PAM_ITEM_USER:
        return take_string(pd, data, size, &pd->user);
    case SSS_PAM_ITEM_SERVICE:
        return take_string(pd, data, size, &pd->service);
    case SSS_PAM_ITEM_TTY:
        return take_string(pd, data, size, &pd->tty);
    case SSS_PAM_ITEM_RUSER:
        return take_string(pd, data, size, &pd->ruser);
    case SSS_PAM_ITEM_RHOST:
        return take_string(pd, data, size, &pd->rhost);
    case SSS_PAM_ITEM_REQUESTED_DOMAINS:
        return take_string(pd, data, size, &pd->domains);
    case SSS_PAM_ITEM_CLI_PID:
        return take_u32(data, size, &pd->cli_pid);
    case SSS_PAM_ITEM_CHILD_PID:
        return take_u32(data, size, &pd->child_pid);
    case SSS_PAM_ITEM_FLAGS:
        return take_u32(data, size, &pd->cli_flags);
    case SSS_PAM_ITEM_AUTHTOK:
        return take_tok(pd, data, size, &pd->authtok);
    case SSS_PAM_ITEM_NEWAUTHTOK:
        return take_tok(pd, data, size, &pd->newauthtok);
    default:
        /* CLI_LOCALE and what newer clients add: SSSD skips them too. */
        return EOK;
    }
}

static errno_t empty_strings(struct pam_data *pd)
{
    char **fields[] = { &pd->service, &pd->tty, &pd->ruser, &pd->rhost, &pd->domains };
    size_t i;

    for (i = 0; i < SSS_ARRAY_SIZE(fields); i++) {
        if (*fields[i] == NULL) {
            *fields[i] = talloc_strdup(pd, "");
            if (*fields[i] == NULL) {
                return ENOMEM;
            }
        }
    }
    return EOK;
}

errno_t pam_req_parse(TALLOC_CTX *mem_ctx, uint32_t cmd, const uint8_t *body, size_t len,
                      struct pam_data **_pd)
{
    struct pam_data *pd;
    size_t pos;
    uint32_t type;
    uint32_t size;
    errno_t ret;

    SSS_CHECK_ARG(_pd != NULL && (body != NULL || len == 0), EINVAL);
    pd = talloc_zero(mem_ctx, struct pam_data);
    if (pd == NULL) {
        return ENOMEM;
    }
    pd->cmd = cmd;
    if (len < 2 * U32 || get_u32(body) != SSS_START_OF_PAM_REQUEST) {
        ret = EINVAL;
        goto done;
    }
    pos = U32;
    for (;;) {
        if (len - pos < U32) {
            ret = EINVAL;           /* no end marker */
            goto done;
        }
        type = get_u32(body + pos);
        pos += U32;
        if (type == SSS_END_OF_PAM_REQUEST) {
            ret = pos == len ? EOK : EINVAL;
            break;
        }
        if (len - pos < U32) {
            ret = EINVAL;
            goto done;
        }
        size = get_u32(body + pos);
        pos += U32;
        if (size > len - pos) {
            ret = EINVAL;
            goto done;
        }
        ret = parse_item(pd, type, body + pos, size);
        if (ret != EOK) {
            goto done;
        }
        pos += size;
    }
    if (ret == EOK && (pd->user == NULL || pd->user[0] == '\0')) {
        ret = EINVAL;
    }
    if (ret == EOK) {
        ret = empty_strings(pd);
    }
done:
    if (ret != EOK) {
        talloc_free(pd);        /* wipes any token taken */
        return ret;
    }
    *_pd = pd;
    return EOK;
}

errno_t pam_reply_start(struct pam_reply_build *b, TALLOC_CTX *mem_ctx, uint32_t cmd,
                        uint32_t status)
{
    errno_t ret;

    SSS_CHECK_ARG(b != NULL, EINVAL);
    b->count = 0;
    b->reply = resp_reply_new(mem_ctx, cmd);
    if (b->reply == NULL) {
        return ENOMEM;
    }
    ret = resp_reply_put_u32(b->reply, status);
    if (ret == EOK) {
        ret = resp_reply_put_u32(b->reply, 0);
    }
    if (ret != EOK) {
        talloc_free(b->reply);
        b->reply = NULL;
    }
    return ret;
}

errno_t pam_reply_add(struct pam_reply_build *b, uint32_t type, const void *data,
                      uint32_t len)
{
    size_t before;
    errno_t ret;

    SSS_CHECK_ARG(b != NULL && b->reply != NULL && (data != NULL || len == 0), EINVAL);
    before = resp_reply_body_len(b->reply);
    ret = resp_reply_put_u32(b->reply, type);
    if (ret == EOK) {
        ret = resp_reply_put_u32(b->reply, len);
    }
    if (ret == EOK && len > 0) {
        ret = resp_reply_put(b->reply, data, len);
    }
    if (ret == EOK) {
        b->count++;
        ret = resp_reply_set_u32(b->reply, U32, b->count);
    }
    if (ret != EOK) {
        (void)resp_reply_truncate(b->reply, before);
    }
    return ret;
}

errno_t pam_items_walk(const uint8_t *items, size_t len, pam_item_fn fn, void *pvt)
{
    size_t pos;
    uint32_t size;
    int pass;
    errno_t ret;

    SSS_CHECK_ARG(fn != NULL && (items != NULL || len == 0), EINVAL);
    /* Pass 0 checks the packing, pass 1 hands the items out. */
    for (pass = 0; pass < 2; pass++) {
        pos = 0;
        while (pos < len) {
            if (len - pos < 2 * U32) {
                return EINVAL;
            }
            size = get_u32(items + pos + U32);
            if (size > len - pos - 2 * U32) {
                return EINVAL;
            }
            if (pass == 1) {
                ret = fn(pvt, get_u32(items + pos), items + pos + 2 * U32, size);
                if (ret != EOK) {
                    return ret;
                }
            }
            pos += 2 * U32 + size;
        }
    }
    return EOK;
}

const char *pam_cmd_name(uint32_t cmd)
{
    switch (cmd) {
    case SSS_PAM_AUTHENTICATE:      return "AUTHENTICATE";
    case SSS_PAM_SETCRED:           return "SETCRED";
    case SSS_PAM_ACCT_MGMT:         return "ACCT_MGMT";
    case SSS_PAM_OPEN_SESSION:      return "OPEN_SESSION";
    case SSS_PAM_CLOSE_SESSION:     return "CLOSE_SESSION";
    case SSS_PAM_CHAUTHTOK:         return "CHAUTHTOK";
    case SSS_PAM_CHAUTHTOK_PRELIM:  return "CHAUTHTOK_PRELIM";
    case SSS_PAM_PREAUTH:           return "PREAUTH";
    default:                        return "UNKNOWN";
    }
}
