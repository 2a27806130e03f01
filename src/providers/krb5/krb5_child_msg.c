/*
 * The codec of krb5_child's request and response (krb5_child_msg.h). It is linked into
 * both sssd_be and krb5_child, so each side checks what the other wrote as if it came
 * from an attacker: bounded total size, every length against the bytes left, no NUL
 * inside a string, no trailing bytes, enumerations in range. Buffers and decoded messages
 * that carry passwords are wiped when freed.
 */
#include <assert.h>

#include "providers/krb5/krb5_child_msg.h"

/* ---- writing ------------------------------------------------------------------------ */

struct k5m_out {
    uint8_t *buf;
    size_t len;
    size_t cap;
};

static int k5m_wipe(uint8_t *p)
{
    explicit_bzero(p, talloc_get_size(p));
    return 0;
}

static void k5m_put(struct k5m_out *o, const void *data, size_t len)
{
    /* The caller sized cap from the same fields: overflowing is a bug here. */
    assert(o->len + len <= o->cap);
    memcpy(o->buf + o->len, data, len);
    o->len += len;
}

static void k5m_put_u32(struct k5m_out *o, uint32_t v)
{
    k5m_put(o, &v, sizeof(v));
}

static void k5m_put_i64(struct k5m_out *o, int64_t v)
{
    k5m_put(o, &v, sizeof(v));
}

static void k5m_put_str(struct k5m_out *o, const char *s)
{
    uint32_t len = (uint32_t)strlen(s);

    k5m_put_u32(o, len);
    k5m_put(o, s, len);
}

/* Sizes the strings; EINVAL for a NULL one, E2BIG past the bound. */
static errno_t k5m_size(const char **strs, size_t n, size_t fixed, size_t *_total)
{
    size_t total = fixed;
    size_t i;

    for (i = 0; i < n; i++) {
        if (strs[i] == NULL) {
            return EINVAL;
        }
        total += sizeof(uint32_t) + strlen(strs[i]);
        if (total > KRB5_CHILD_MSG_MAX) {
            return E2BIG;
        }
    }
    *_total = total;
    return EOK;
}

static errno_t k5m_start(TALLOC_CTX *mem_ctx, size_t total, struct k5m_out *o)
{
    o->buf = talloc_zero_array(mem_ctx, uint8_t, total);
    if (o->buf == NULL) {
        return ENOMEM;
    }
    talloc_set_destructor(o->buf, k5m_wipe);
    o->len = 0;
    o->cap = total;
    return EOK;
}

/* A hint is no hint (etype 0, no salt, no count) or an AES enctype with a salt. */
static bool k5m_hint_valid(const struct krb5_child_salt_hint *h, const char *salt)
{
    if (h->etype == 0) {
        return h->iter == 0 && salt[0] == '\0';
    }
    return h->etype >= KRB5_CHILD_HINT_ETYPE_MIN && h->etype <= KRB5_CHILD_HINT_ETYPE_MAX
           && h->iter > 0 && strlen(salt) <= KRB5_CHILD_HINT_SALT_MAX;
}

errno_t krb5_child_req_encode(TALLOC_CTX *mem_ctx, const struct krb5_child_req *req,
                              uint8_t **_buf, size_t *_len)
{
    const char *strs[8];
    struct k5m_out o;
    size_t total = 0;
    size_t i;
    errno_t ret;

    SSS_CHECK_ARG(req != NULL && _buf != NULL && _len != NULL, EINVAL);
    strs[6] = req->hint.salt != NULL ? req->hint.salt : "";
    if (req->cmd < KRB5_CHILD_AUTH || req->cmd > KRB5_CHILD_CMD_MAX
            || (req->flags & ~KRB5_CHILD_F_ALL) != 0 || !k5m_hint_valid(&req->hint, strs[6])) {
        return EINVAL;
    }
    strs[0] = req->principal;
    strs[1] = req->ccname;
    strs[2] = req->keytab;
    strs[3] = req->password;
    strs[4] = req->new_password;
    strs[5] = req->realm;
    strs[7] = req->service;
    ret = k5m_size(strs, SSS_ARRAY_SIZE(strs), 9 * sizeof(uint32_t), &total);
    if (ret != EOK) {
        return ret;
    }
    ret = k5m_start(mem_ctx, total, &o);
    if (ret != EOK) {
        return ret;
    }
    k5m_put_u32(&o, KRB5_CHILD_REQ_MAGIC);
    k5m_put_u32(&o, req->cmd);
    k5m_put_u32(&o, req->flags);
    k5m_put_u32(&o, req->uid);
    k5m_put_u32(&o, req->gid);
    k5m_put_u32(&o, (uint32_t)req->lifetime);
    k5m_put_u32(&o, (uint32_t)req->renewable_lifetime);
    k5m_put_u32(&o, (uint32_t)req->hint.etype);
    k5m_put_u32(&o, req->hint.iter);
    for (i = 0; i < SSS_ARRAY_SIZE(strs); i++) {
        k5m_put_str(&o, strs[i]);
    }
    assert(o.len == total);
    *_buf = o.buf;
    *_len = o.len;
    return EOK;
}

errno_t krb5_child_rsp_encode(TALLOC_CTX *mem_ctx, const struct krb5_child_rsp *rsp,
                              uint8_t **_buf, size_t *_len)
{
    const char *strs[3];
    struct k5m_out o;
    size_t total = 0;
    errno_t ret;

    SSS_CHECK_ARG(rsp != NULL && _buf != NULL && _len != NULL, EINVAL);
    strs[1] = rsp->hint.salt != NULL ? rsp->hint.salt : "";
    if (rsp->status > KRB5_CHILD_STATUS_MAX || !k5m_hint_valid(&rsp->hint, strs[1])) {
        return EINVAL;
    }
    strs[0] = rsp->ccname;
    strs[2] = rsp->message;
    ret = k5m_size(strs, 3, 4 * sizeof(uint32_t) + 2 * sizeof(int64_t), &total);
    if (ret != EOK) {
        return ret;
    }
    ret = k5m_start(mem_ctx, total, &o);
    if (ret != EOK) {
        return ret;
    }
    k5m_put_u32(&o, KRB5_CHILD_RSP_MAGIC);
    k5m_put_u32(&o, rsp->status);
    k5m_put_i64(&o, rsp->endtime);
    k5m_put_i64(&o, rsp->renew_till);
    k5m_put_u32(&o, (uint32_t)rsp->hint.etype);
    k5m_put_u32(&o, rsp->hint.iter);
    k5m_put_str(&o, strs[0]);
    k5m_put_str(&o, strs[1]);
    k5m_put_str(&o, strs[2]);
    assert(o.len == total);
    *_buf = o.buf;
    *_len = o.len;
    return EOK;
}

/* ---- reading ------------------------------------------------------------------------ */

struct k5m_in {
    const uint8_t *p;
    size_t left;
};

static errno_t k5m_get(struct k5m_in *in, void *out, size_t len)
{
    if (in->left < len) {
        return EBADMSG;
    }
    memcpy(out, in->p, len);
    in->p += len;
    in->left -= len;
    return EOK;
}

static errno_t k5m_get_str(TALLOC_CTX *mem_ctx, struct k5m_in *in, const char **_s)
{
    uint32_t len = 0;
    char *s;
    errno_t ret;

    ret = k5m_get(in, &len, sizeof(len));
    if (ret != EOK) {
        return ret;
    }
    if (len > in->left || memchr(in->p, '\0', len) != NULL) {
        return EBADMSG;
    }
    s = talloc_size(mem_ctx, (size_t)len + 1);
    if (s == NULL) {
        return ENOMEM;
    }
    talloc_set_destructor((uint8_t *)s, k5m_wipe);
    memcpy(s, in->p, len);
    s[len] = '\0';
    in->p += len;
    in->left -= len;
    *_s = s;
    return EOK;
}

errno_t krb5_child_req_decode(TALLOC_CTX *mem_ctx, const uint8_t *buf, size_t len,
                              struct krb5_child_req **_req)
{
    struct k5m_in in = { buf, len };
    struct krb5_child_req *req = NULL;
    uint32_t magic = 0;
    uint32_t u[8];
    const char **strs[8];
    size_t i;
    errno_t ret;

    SSS_CHECK_ARG(buf != NULL || len == 0, EINVAL);
    SSS_CHECK_ARG(_req != NULL, EINVAL);
    if (len > KRB5_CHILD_MSG_MAX) {
        return E2BIG;
    }
    req = talloc_zero(mem_ctx, struct krb5_child_req);
    if (req == NULL) {
        return ENOMEM;
    }
    ret = k5m_get(&in, &magic, sizeof(magic));
    for (i = 0; ret == EOK && i < SSS_ARRAY_SIZE(u); i++) {
        ret = k5m_get(&in, &u[i], sizeof(u[i]));
    }
    if (ret != EOK || magic != KRB5_CHILD_REQ_MAGIC) {
        ret = EBADMSG;
        goto done;
    }
    req->cmd = u[0];
    req->flags = u[1];
    req->uid = u[2];
    req->gid = u[3];
    req->lifetime = (int32_t)u[4];
    req->renewable_lifetime = (int32_t)u[5];
    req->hint.etype = (int32_t)u[6];
    req->hint.iter = u[7];
    if (req->cmd < KRB5_CHILD_AUTH || req->cmd > KRB5_CHILD_CMD_MAX
            || (req->flags & ~KRB5_CHILD_F_ALL) != 0
            || req->lifetime < 0 || req->renewable_lifetime < 0) {
        ret = EBADMSG;
        goto done;
    }
    strs[0] = &req->principal;
    strs[1] = &req->ccname;
    strs[2] = &req->keytab;
    strs[3] = &req->password;
    strs[4] = &req->new_password;
    strs[5] = &req->realm;
    strs[6] = &req->hint.salt;
    strs[7] = &req->service;
    for (i = 0; i < SSS_ARRAY_SIZE(strs); i++) {
        ret = k5m_get_str(req, &in, strs[i]);
        if (ret != EOK) {
            goto done;
        }
    }
    if (!k5m_hint_valid(&req->hint, req->hint.salt) || in.left != 0) {
        ret = EBADMSG;
        goto done;
    }
    *_req = req;
    req = NULL;
    ret = EOK;
done:
    talloc_free(req);
    return ret;
}

errno_t krb5_child_rsp_decode(TALLOC_CTX *mem_ctx, const uint8_t *buf, size_t len,
                              struct krb5_child_rsp **_rsp)
{
    struct k5m_in in = { buf, len };
    struct krb5_child_rsp *rsp = NULL;
    uint32_t magic = 0;
    errno_t ret;

    SSS_CHECK_ARG(buf != NULL || len == 0, EINVAL);
    SSS_CHECK_ARG(_rsp != NULL, EINVAL);
    if (len > KRB5_CHILD_MSG_MAX) {
        return E2BIG;
    }
    rsp = talloc_zero(mem_ctx, struct krb5_child_rsp);
    if (rsp == NULL) {
        return ENOMEM;
    }
    ret = k5m_get(&in, &magic, sizeof(magic));
    if (ret == EOK) {
        ret = k5m_get(&in, &rsp->status, sizeof(rsp->status));
    }
    if (ret == EOK) {
        ret = k5m_get(&in, &rsp->endtime, sizeof(rsp->endtime));
    }
    if (ret == EOK) {
        ret = k5m_get(&in, &rsp->renew_till, sizeof(rsp->renew_till));
    }
    if (ret == EOK) {
        ret = k5m_get(&in, &rsp->hint.etype, sizeof(rsp->hint.etype));
    }
    if (ret == EOK) {
        ret = k5m_get(&in, &rsp->hint.iter, sizeof(rsp->hint.iter));
    }
    if (ret != EOK || magic != KRB5_CHILD_RSP_MAGIC || rsp->status > KRB5_CHILD_STATUS_MAX) {
        ret = EBADMSG;
        goto done;
    }
    ret = k5m_get_str(rsp, &in, &rsp->ccname);
    if (ret == EOK) {
        ret = k5m_get_str(rsp, &in, &rsp->hint.salt);
    }
    if (ret == EOK) {
        ret = k5m_get_str(rsp, &in, &rsp->message);
    }
    if (ret != EOK) {
        goto done;
    }
    if (!k5m_hint_valid(&rsp->hint, rsp->hint.salt) || in.left != 0) {
        ret = EBADMSG;
        goto done;
    }
    *_rsp = rsp;
    rsp = NULL;
    ret = EOK;
done:
    talloc_free(rsp);
    return ret;
}
