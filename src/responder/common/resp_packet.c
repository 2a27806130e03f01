/*
 * Client packet framing and reply building (see resp_packet.h). The frame never reads past
 * the end of the request it is assembling: first the 16-byte header, then exactly the body
 * the header declares, so a client that pipelines cannot make us swallow its next request.
 */
#include <assert.h>

#include "responder/common/resp_packet.h"

enum resp_frame_state {
    RESP_FRAME_PARTIAL,
    RESP_FRAME_DONE,
    RESP_FRAME_BAD,
};

struct resp_frame {
    uint8_t *buf;
    size_t max_len;
    size_t have;
    uint32_t len;               /* declared length, once known */
    enum resp_frame_state state;
    errno_t error;              /* in RESP_FRAME_BAD */
};

static uint32_t get_u32(const uint8_t *p)
{
    uint32_t v;

    memcpy(&v, p, sizeof(v));
    return v;
}

struct resp_frame *resp_frame_new(TALLOC_CTX *mem_ctx, size_t max_len)
{
    struct resp_frame *f;

    SSS_CHECK_ARG(max_len >= SSS_NSS_HEADER_SIZE && max_len <= UINT32_MAX, NULL);
    f = talloc_zero(mem_ctx, struct resp_frame);
    if (f == NULL) {
        return NULL;
    }
    f->buf = talloc_size(f, max_len);
    if (f->buf == NULL) {
        talloc_free(f);
        return NULL;
    }
    f->max_len = max_len;
    return f;
}

void resp_frame_reset(struct resp_frame *f)
{
    f->have = 0;
    f->len = 0;
    f->state = RESP_FRAME_PARTIAL;
    f->error = EOK;
}

uint8_t *resp_frame_space(struct resp_frame *f, size_t *_len)
{
    size_t want;

    if (f->state != RESP_FRAME_PARTIAL) {
        *_len = 0;
        return f->buf + f->have;
    }
    want = (f->have < SSS_NSS_HEADER_SIZE) ? SSS_NSS_HEADER_SIZE : f->len;
    *_len = want - f->have;
    return f->buf + f->have;
}

static errno_t resp_frame_fail(struct resp_frame *f, errno_t error)
{
    f->state = RESP_FRAME_BAD;
    f->error = error;
    return error;
}

errno_t resp_frame_advance(struct resp_frame *f, size_t n)
{
    size_t space;
    bool had_len;

    if (f->state == RESP_FRAME_DONE) {
        return EOK;
    }
    if (f->state == RESP_FRAME_BAD) {
        return f->error;
    }
    resp_frame_space(f, &space);
    SSS_CHECK_ARG(n <= space, EINVAL);
    had_len = f->have >= sizeof(uint32_t);
    f->have += n;
    /* resp_frame_space() never offers more than the header, then the declared length,
     * which was checked against max_len as soon as it was known. */
    assert(f->have <= f->max_len);
    if (!had_len && f->have >= sizeof(uint32_t)) {
        /* The length is known as soon as its four bytes are in. */
        f->len = get_u32(f->buf);
        if (f->len < SSS_NSS_HEADER_SIZE) {
            return resp_frame_fail(f, EBADMSG);
        }
        if (f->len > f->max_len) {
            return resp_frame_fail(f, EMSGSIZE);
        }
    }
    if (f->have < SSS_NSS_HEADER_SIZE || f->have < f->len) {
        return EAGAIN;
    }
    f->state = RESP_FRAME_DONE;
    return EOK;
}

errno_t resp_frame_feed(struct resp_frame *f, const uint8_t *data, size_t len,
                        size_t *_used)
{
    size_t used = 0;
    size_t space;
    uint8_t *dst;
    errno_t ret = EAGAIN;

    while (f->state == RESP_FRAME_PARTIAL && used < len) {
        dst = resp_frame_space(f, &space);
        if (space > len - used) {
            space = len - used;
        }
        memcpy(dst, data + used, space);
        used += space;
        ret = resp_frame_advance(f, space);
    }
    if (f->state == RESP_FRAME_DONE) {
        ret = EOK;
    } else if (f->state == RESP_FRAME_BAD) {
        ret = f->error;
    }
    *_used = used;
    return ret;
}

uint32_t resp_frame_cmd(struct resp_frame *f)
{
    if (f->have < 2 * sizeof(uint32_t)) {
        return 0;
    }
    return get_u32(f->buf + SSS_HDR_CMD * sizeof(uint32_t));
}

const uint8_t *resp_frame_body(struct resp_frame *f, size_t *_len)
{
    if (f->state != RESP_FRAME_DONE) {
        *_len = 0;
        return NULL;
    }
    *_len = f->len - SSS_NSS_HEADER_SIZE;
    return f->buf + SSS_NSS_HEADER_SIZE;
}

size_t resp_frame_received(struct resp_frame *f)
{
    return f->have;
}

/* ---- replies ---- */

struct resp_reply {
    uint8_t *buf;
    size_t len;                 /* header included */
    size_t cap;
    uint32_t cmd;
    uint32_t status;
};

struct resp_reply *resp_reply_new(TALLOC_CTX *mem_ctx, uint32_t cmd)
{
    struct resp_reply *r;

    r = talloc_zero(mem_ctx, struct resp_reply);
    if (r == NULL) {
        return NULL;
    }
    r->cap = 256;
    r->buf = talloc_zero_size(r, r->cap);
    if (r->buf == NULL) {
        talloc_free(r);
        return NULL;
    }
    r->len = SSS_NSS_HEADER_SIZE;
    r->cmd = cmd;
    return r;
}

static errno_t resp_reply_reserve(struct resp_reply *r, size_t more)
{
    size_t need;
    size_t cap;
    uint8_t *nbuf;

    if (more > UINT32_MAX - r->len) {
        return E2BIG;
    }
    need = r->len + more;
    if (need <= r->cap) {
        return EOK;
    }
    cap = r->cap;
    while (cap < need) {
        cap = (cap > SIZE_MAX / 2) ? need : cap * 2;
    }
    nbuf = talloc_realloc_size(r, r->buf, cap);
    if (nbuf == NULL) {
        return ENOMEM;
    }
    r->buf = nbuf;
    r->cap = cap;
    return EOK;
}

errno_t resp_reply_put(struct resp_reply *r, const void *data, size_t len)
{
    errno_t ret;

    SSS_CHECK_ARG(r != NULL && (data != NULL || len == 0), EINVAL);
    ret = resp_reply_reserve(r, len);
    if (ret != EOK) {
        return ret;
    }
    if (len != 0) {
        memcpy(r->buf + r->len, data, len);
    }
    r->len += len;
    return EOK;
}

errno_t resp_reply_put_u32(struct resp_reply *r, uint32_t v)
{
    return resp_reply_put(r, &v, sizeof(v));
}

errno_t resp_reply_put_str(struct resp_reply *r, const char *s)
{
    SSS_CHECK_ARG(s != NULL, EINVAL);
    return resp_reply_put(r, s, strlen(s) + 1);
}

errno_t resp_reply_set_u32(struct resp_reply *r, size_t off, uint32_t v)
{
    SSS_CHECK_ARG(r != NULL && off <= r->len - SSS_NSS_HEADER_SIZE, EINVAL);
    SSS_CHECK_ARG(r->len - SSS_NSS_HEADER_SIZE - off >= sizeof(v), EINVAL);
    memcpy(r->buf + SSS_NSS_HEADER_SIZE + off, &v, sizeof(v));
    return EOK;
}

void resp_reply_set_status(struct resp_reply *r, uint32_t status)
{
    r->status = status;
}

errno_t resp_reply_truncate(struct resp_reply *r, size_t body_len)
{
    SSS_CHECK_ARG(r != NULL && body_len <= r->len - SSS_NSS_HEADER_SIZE, EINVAL);
    r->len = SSS_NSS_HEADER_SIZE + body_len;
    return EOK;
}

size_t resp_reply_body_len(struct resp_reply *r)
{
    return r->len - SSS_NSS_HEADER_SIZE;
}

const uint8_t *resp_reply_packet(struct resp_reply *r, size_t *_len)
{
    uint32_t hdr[4];

    hdr[SSS_HDR_LEN] = (uint32_t)r->len;
    hdr[SSS_HDR_CMD] = r->cmd;
    hdr[SSS_HDR_STATUS] = r->status;
    hdr[SSS_HDR_RESERVED] = 0;
    memcpy(r->buf, hdr, sizeof(hdr));
    *_len = r->len;
    return r->buf;
}
