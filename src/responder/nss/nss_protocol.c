/*
 * NSS request parsing and reply building (see nss_protocol.h). Parsing reads only the
 * bytes it was given and never allocates, so it is the fuzzer's target as is.
 */
#include "responder/nss/nss_protocol.h"

struct nss_cmd_shape {
    uint32_t cmd;
    enum nss_req_kind kind;
    bool ex;            /* followed by uint32 flags */
};

/* Every passwd/group command and the shape of its body. */
static const struct nss_cmd_shape nss_shapes[] = {
    { SSS_NSS_GETPWNAM,    NSS_REQ_NAME,  false },
    { SSS_NSS_GETPWUID,    NSS_REQ_ID,    false },
    { SSS_NSS_SETPWENT,    NSS_REQ_EMPTY, false },
    { SSS_NSS_GETPWENT,    NSS_REQ_COUNT, false },
    { SSS_NSS_ENDPWENT,    NSS_REQ_EMPTY, false },
    { SSS_NSS_GETPWNAM_EX, NSS_REQ_NAME,  true },
    { SSS_NSS_GETPWUID_EX, NSS_REQ_ID,    true },
    { SSS_NSS_GETGRNAM,    NSS_REQ_NAME,  false },
    { SSS_NSS_GETGRGID,    NSS_REQ_ID,    false },
    { SSS_NSS_SETGRENT,    NSS_REQ_EMPTY, false },
    { SSS_NSS_GETGRENT,    NSS_REQ_COUNT, false },
    { SSS_NSS_ENDGRENT,    NSS_REQ_EMPTY, false },
    { SSS_NSS_INITGR,      NSS_REQ_NAME,  false },
    { SSS_NSS_GETGRNAM_EX, NSS_REQ_NAME,  true },
    { SSS_NSS_GETGRGID_EX, NSS_REQ_ID,    true },
    { SSS_NSS_INITGR_EX,   NSS_REQ_NAME,  true },
    { SSS_NSS_SETNETGRENT, NSS_REQ_NAME,  false },
    { SSS_NSS_GETNETGRENT, NSS_REQ_COUNT, false },
    { SSS_NSS_ENDNETGRENT, NSS_REQ_EMPTY, false },
    { SSS_NSS_GETORIGBYNAME, NSS_REQ_NAME, false },
    { SSS_NSS_GETORIGBYUSERNAME, NSS_REQ_NAME, false },
};

static uint32_t get_u32(const uint8_t *p)
{
    uint32_t v;

    memcpy(&v, p, sizeof(v));
    return v;
}

/* Strict UTF-8: no overlong forms, no surrogates, nothing above U+10FFFF, no NUL. */
static bool nss_utf8_valid(const uint8_t *s, size_t len)
{
    size_t i = 0;
    size_t n, k;
    uint32_t cp;

    while (i < len) {
        if (s[i] == 0) {
            return false;
        }
        if (s[i] < 0x80) {
            i++;
            continue;
        }
        if ((s[i] & 0xE0) == 0xC0) {
            n = 1;
            cp = s[i] & 0x1F;
        } else if ((s[i] & 0xF0) == 0xE0) {
            n = 2;
            cp = s[i] & 0x0F;
        } else if ((s[i] & 0xF8) == 0xF0) {
            n = 3;
            cp = s[i] & 0x07;
        } else {
            return false;
        }
        if (len - i - 1 < n) {
            return false;
        }
        for (k = 1; k <= n; k++) {
            if ((s[i + k] & 0xC0) != 0x80) {
                return false;
            }
            cp = (cp << 6) | (s[i + k] & 0x3F);
        }
        if ((n == 1 && cp < 0x80) || (n == 2 && cp < 0x800) || (n == 3 && cp < 0x10000)
                || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) {
            return false;
        }
        i += n + 1;
    }
    return true;
}

bool nss_name_is_valid(const char *name, size_t len)
{
    if (name == NULL || len == 0 || len > NSS_NAME_MAX) {
        return false;
    }
    return nss_utf8_valid((const uint8_t *)name, len);
}

static const struct nss_cmd_shape *nss_find_shape(uint32_t cmd)
{
    size_t i;

    for (i = 0; i < SSS_ARRAY_SIZE(nss_shapes); i++) {
        if (nss_shapes[i].cmd == cmd) {
            return &nss_shapes[i];
        }
    }
    return NULL;
}

/* name\0 [flags]: the name ends at the first NUL, which must be where the shape says. */
static errno_t nss_parse_name(const struct nss_cmd_shape *shape, const uint8_t *body,
                              size_t len, struct nss_request *req)
{
    size_t tail = shape->ex ? sizeof(uint32_t) : 0;
    const uint8_t *nul;
    size_t name_len;

    if (body == NULL || len < 1 + tail) {
        DEBUG(SSSDBG_TRACE_FUNC, "Command 0x%04x: body of %zu bytes is too short for a "
              "name\n", shape->cmd, len);
        return EBADMSG;
    }
    nul = memchr(body, '\0', len - tail);
    if (nul == NULL) {
        DEBUG(SSSDBG_TRACE_FUNC, "Command 0x%04x: name is not NUL-terminated\n", shape->cmd);
        return EBADMSG;
    }
    name_len = (size_t)(nul - body);
    if (name_len + 1 != len - tail) {
        DEBUG(SSSDBG_TRACE_FUNC, "Command 0x%04x: %zu stray bytes after the name (embedded "
              "NUL or wrong length)\n", shape->cmd, len - tail - name_len - 1);
        return EBADMSG;
    }
    /* A well-formed request for a name no entry can have: a program may ask that. */
    if (name_len == 0) {
        DEBUG(SSSDBG_TRACE_FUNC, "Command 0x%04x: empty name\n", shape->cmd);
        return EINVAL;
    }
    if (name_len > NSS_NAME_MAX) {
        DEBUG(SSSDBG_TRACE_FUNC, "Command 0x%04x: name of %zu bytes is longer than %d\n",
              shape->cmd, name_len, NSS_NAME_MAX);
        return EINVAL;
    }
    if (!nss_utf8_valid(body, name_len)) {
        DEBUG(SSSDBG_TRACE_FUNC, "Command 0x%04x: name is not valid UTF-8\n", shape->cmd);
        return EINVAL;
    }
    req->name = (const char *)body;
    req->name_len = name_len;
    if (shape->ex) {
        req->flags = get_u32(body + name_len + 1);
    }
    return EOK;
}

errno_t nss_request_parse(uint32_t cmd, const uint8_t *body, size_t len,
                          struct nss_request *_req)
{
    const struct nss_cmd_shape *shape;
    struct nss_request req;
    size_t want;
    errno_t ret;

    SSS_CHECK_ARG(_req != NULL && (body != NULL || len == 0), EINVAL);
    shape = nss_find_shape(cmd);
    if (shape == NULL) {
        return ENOTSUP;
    }
    memset(&req, 0, sizeof(req));
    req.cmd = cmd;
    req.kind = shape->kind;

    switch (shape->kind) {
    case NSS_REQ_NAME:
        ret = nss_parse_name(shape, body, len, &req);
        if (ret != EOK) {
            return ret;
        }
        break;
    case NSS_REQ_ID:
        want = sizeof(uint32_t) * (shape->ex ? 2 : 1);
        if (len != want) {
            DEBUG(SSSDBG_TRACE_FUNC, "Command 0x%04x: body of %zu bytes, expected %zu\n",
                  cmd, len, want);
            return EBADMSG;
        }
        req.id = get_u32(body);
        if (shape->ex) {
            req.flags = get_u32(body + sizeof(uint32_t));
        }
        break;
    case NSS_REQ_COUNT:
        if (len != sizeof(uint32_t)) {
            DEBUG(SSSDBG_TRACE_FUNC, "Command 0x%04x: body of %zu bytes, expected 4\n",
                  cmd, len);
            return EBADMSG;
        }
        req.count = get_u32(body);
        break;
    case NSS_REQ_EMPTY:
        if (len != 0) {
            DEBUG(SSSDBG_TRACE_FUNC, "Command 0x%04x: expected an empty body, got %zu "
                  "bytes\n", cmd, len);
            return EBADMSG;
        }
        break;
    }
    *_req = req;
    return EOK;
}

/* ---- replies ---- */

struct nss_reply {
    struct resp_reply *out;
    char *pwfield;
    uint32_t num;
};

#define NSS_REPLY_HDR (2 * sizeof(uint32_t))

struct nss_reply *nss_reply_new(TALLOC_CTX *mem_ctx, uint32_t cmd, const char *pwfield)
{
    struct nss_reply *r;
    errno_t ret;

    r = talloc_zero(mem_ctx, struct nss_reply);
    if (r == NULL) {
        return NULL;
    }
    r->pwfield = talloc_strdup(r, pwfield != NULL ? pwfield : "*");
    r->out = resp_reply_new(r, cmd);
    if (r->pwfield == NULL || r->out == NULL) {
        goto fail;
    }
    /* num_results and reserved: the first is written by nss_reply_finish() */
    ret = resp_reply_put(r->out, (const uint32_t[2]){ 0, 0 }, NSS_REPLY_HDR);
    if (ret != EOK) {
        goto fail;
    }
    return r;
fail:
    talloc_free(r);
    return NULL;
}

static const char *or_empty(const char *s)
{
    return s != NULL ? s : "";
}

/* Appends strings (NULL is sent as ""). */
static errno_t nss_reply_put_strs(struct nss_reply *r, const char *const *strs, size_t n)
{
    size_t i;
    errno_t ret;

    for (i = 0; i < n; i++) {
        ret = resp_reply_put_str(r->out, or_empty(strs[i]));
        if (ret != EOK) {
            return ret;
        }
    }
    return EOK;
}

/* Ends a record: counted on success, cut off again on failure. */
static errno_t nss_reply_end_record(struct nss_reply *r, size_t start, uint32_t count,
                                    errno_t ret)
{
    if (ret != EOK) {
        (void)resp_reply_truncate(r->out, start);
        return ret;
    }
    r->num += count;
    return EOK;
}

errno_t nss_reply_passwd_add(struct nss_reply *r, const struct nss_pw_entry *pw)
{
    const char *strs[NSS_PW_NUM_STRS];
    size_t start;
    errno_t ret;

    SSS_CHECK_ARG(r != NULL && pw != NULL && pw->name != NULL, EINVAL);
    if (r->num == UINT32_MAX) {
        return EINVAL;
    }
    nss_pw_strs(pw, r->pwfield, strs);
    start = resp_reply_body_len(r->out);
    ret = resp_reply_put_u32(r->out, pw->uid);
    if (ret != EOK) {
        goto done;
    }
    ret = resp_reply_put_u32(r->out, pw->gid);
    if (ret != EOK) {
        goto done;
    }
    ret = nss_reply_put_strs(r, strs, NSS_PW_NUM_STRS);
done:
    return nss_reply_end_record(r, start, 1, ret);
}

errno_t nss_reply_group_add(struct nss_reply *r, const struct nss_gr_entry *gr)
{
    const char *strs[2];
    size_t start;
    errno_t ret;

    SSS_CHECK_ARG(r != NULL && gr != NULL && gr->name != NULL, EINVAL);
    SSS_CHECK_ARG(gr->num_members == 0 || gr->members != NULL, EINVAL);
    if (r->num == UINT32_MAX || gr->num_members > UINT32_MAX) {
        return EINVAL;
    }
    strs[0] = gr->name;
    strs[1] = r->pwfield;
    start = resp_reply_body_len(r->out);
    ret = resp_reply_put_u32(r->out, gr->gid);
    if (ret != EOK) {
        goto done;
    }
    ret = resp_reply_put_u32(r->out, (uint32_t)gr->num_members);
    if (ret != EOK) {
        goto done;
    }
    ret = nss_reply_put_strs(r, strs, 2);
    if (ret != EOK) {
        goto done;
    }
    ret = gr->packed != NULL ? resp_reply_put(r->out, gr->packed, gr->packed_len)
                             : nss_reply_put_strs(r, gr->members, gr->num_members);
done:
    return nss_reply_end_record(r, start, 1, ret);
}

errno_t nss_reply_initgr_add(struct nss_reply *r, const uint32_t *gids, size_t num)
{
    errno_t ret;

    SSS_CHECK_ARG(r != NULL && (num == 0 || gids != NULL), EINVAL);
    if (num > UINT32_MAX - r->num) {
        return EINVAL;
    }
    if (num > (UINT32_MAX / sizeof(uint32_t))) {
        return E2BIG;
    }
    /* One append: it either happens whole or not at all. */
    ret = resp_reply_put(r->out, gids, num * sizeof(uint32_t));
    return nss_reply_end_record(r, resp_reply_body_len(r->out), (uint32_t)num, ret);
}

errno_t nss_reply_netgr_triple_add(struct nss_reply *r, const char *host, const char *user,
                                   const char *domain)
{
    const char *strs[3] = { host, user, domain };
    size_t start;
    errno_t ret;

    SSS_CHECK_ARG(r != NULL, EINVAL);
    if (r->num == UINT32_MAX) {
        return EINVAL;
    }
    start = resp_reply_body_len(r->out);
    ret = resp_reply_put_u32(r->out, SSS_NETGR_REP_TRIPLE);
    if (ret == EOK) {
        ret = nss_reply_put_strs(r, strs, 3);
    }
    return nss_reply_end_record(r, start, 1, ret);
}

errno_t nss_reply_netgr_member_add(struct nss_reply *r, const char *name)
{
    size_t start;
    errno_t ret;

    /* glibc would look up "" as a netgroup name: never sent. */
    SSS_CHECK_ARG(r != NULL && name != NULL && name[0] != '\0', EINVAL);
    if (r->num == UINT32_MAX) {
        return EINVAL;
    }
    start = resp_reply_body_len(r->out);
    ret = resp_reply_put_u32(r->out, SSS_NETGR_REP_GROUP);
    if (ret == EOK) {
        ret = resp_reply_put_str(r->out, name);
    }
    return nss_reply_end_record(r, start, 1, ret);
}

errno_t nss_reply_orig_add(struct nss_reply *r, uint32_t id_type, const char *const *pairs)
{
    size_t start;
    size_t n = 0;
    errno_t ret;

    SSS_CHECK_ARG(r != NULL && pairs != NULL, EINVAL);
    while (pairs[n] != NULL) {
        n++;
    }
    SSS_CHECK_ARG(n % 2 == 0, EINVAL);
    if (r->num == UINT32_MAX) {
        return EINVAL;
    }
    start = resp_reply_body_len(r->out);
    ret = resp_reply_put_u32(r->out, id_type);
    if (ret == EOK) {
        ret = nss_reply_put_strs(r, pairs, n);
    }
    return nss_reply_end_record(r, start, 1, ret);
}

errno_t nss_reply_netgr_found(struct nss_reply *r)
{
    SSS_CHECK_ARG(r != NULL, EINVAL);
    if (r->num == UINT32_MAX) {
        return EINVAL;
    }
    r->num++;
    return EOK;
}

uint32_t nss_reply_num_results(struct nss_reply *r)
{
    SSS_CHECK_ARG(r != NULL, 0);
    return r->num;
}

size_t nss_reply_body_len(struct nss_reply *r)
{
    SSS_CHECK_ARG(r != NULL, 0);
    return resp_reply_body_len(r->out);
}

struct resp_reply *nss_reply_finish(TALLOC_CTX *mem_ctx, struct nss_reply *r)
{
    struct resp_reply *out;

    SSS_CHECK_ARG(r != NULL, NULL);
    /* The body always starts with the two counters, so this cannot fail. */
    (void)resp_reply_set_u32(r->out, 0, r->num);
    out = talloc_steal(mem_ctx, r->out);
    talloc_free(r);
    return out;
}
