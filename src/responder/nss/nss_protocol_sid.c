/*
 * The wire side of the by-SID commands (nss_sid.h): the SID string a client sends is
 * untrusted and checked here before anything looks at it (tests/fuzz/fuzz_nss_sid.c);
 * replies are laid out as SSSD 2.8's nss_protocol_sid.c lays them out: uint32 results
 * (1), uint32 0, uint32 id type, then the SID or name with its NUL, or the uint32 id.
 * "Not found" is the empty reply (0, 0) with status 0, as for getpwnam.
 */
#include "responder/nss/nss_sid.h"

#define NSS_SID_MAX_SUBAUTHS 15

/* Parses decimal digits at s[*pos..len) up to max; false when none, too many or > max. */
static bool nss_sid_num(const char *s, size_t len, size_t *pos, uint64_t max)
{
    uint64_t v = 0;
    size_t start = *pos;

    while (*pos < len && s[*pos] >= '0' && s[*pos] <= '9') {
        v = v * 10 + (uint64_t)(s[*pos] - '0');
        if (v > max || *pos - start >= 20) {
            return false;
        }
        (*pos)++;
    }
    return *pos > start;
}

/* 0x + 1..12 hex digits. */
static bool nss_sid_hex(const char *s, size_t len, size_t *pos)
{
    size_t start = *pos;
    char c;

    while (*pos < len) {
        c = s[*pos];
        if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'))) {
            break;
        }
        if (*pos - start >= 12) {
            return false;
        }
        (*pos)++;
    }
    return *pos > start;
}

bool nss_sid_str_valid(const char *s, size_t len)
{
    size_t pos = 4;
    size_t subs = 0;

    if (s == NULL || len < 5 || len > NSS_SID_STR_MAX || memchr(s, '\0', len) != NULL) {
        return false;
    }
    if (s[0] != 'S' || s[1] != '-' || s[2] != '1' || s[3] != '-') {
        return false;               /* revision 1 is the only one */
    }
    if (len - pos > 2 && s[pos] == '0' && (s[pos + 1] == 'x' || s[pos + 1] == 'X')) {
        pos += 2;
        if (!nss_sid_hex(s, len, &pos)) {
            return false;
        }
    } else if (!nss_sid_num(s, len, &pos, (UINT64_C(1) << 48) - 1)) {
        return false;
    }
    while (pos < len) {
        if (s[pos] != '-' || subs == NSS_SID_MAX_SUBAUTHS) {
            return false;
        }
        pos++;
        if (!nss_sid_num(s, len, &pos, UINT32_MAX)) {
            return false;
        }
        subs++;
    }
    return true;
}

errno_t nss_sid_request_parse(const uint8_t *body, size_t len, const char **_sid)
{
    const char *s = (const char *)body;
    size_t n;

    SSS_CHECK_ARG(_sid != NULL && (body != NULL || len == 0), EINVAL);
    if (len == 0 || body[len - 1] != '\0') {
        DEBUG(SSSDBG_TRACE_FUNC, "SID request: the body does not end with a NUL\n");
        return EBADMSG;
    }
    n = strlen(s);
    if (n != len - 1) {
        DEBUG(SSSDBG_TRACE_FUNC, "SID request: bytes after the SID's NUL\n");
        return EBADMSG;
    }
    if (!nss_sid_str_valid(s, n)) {
        DEBUG(SSSDBG_TRACE_FUNC, "SID request: not a SID string (%zu bytes)\n", n);
        return EINVAL;
    }
    *_sid = s;
    return EOK;
}

static struct resp_reply *nss_sid_reply_head(TALLOC_CTX *mem_ctx, uint32_t cmd,
                                             uint32_t num)
{
    struct resp_reply *r = resp_reply_new(mem_ctx, cmd);

    if (r == NULL || resp_reply_put_u32(r, num) != EOK || resp_reply_put_u32(r, 0) != EOK) {
        talloc_free(r);
        return NULL;
    }
    return r;
}

struct resp_reply *nss_sid_reply_str(TALLOC_CTX *mem_ctx, uint32_t cmd, uint32_t type,
                                     const char *s)
{
    struct resp_reply *r;

    SSS_CHECK_ARG(s != NULL, NULL);
    r = nss_sid_reply_head(mem_ctx, cmd, 1);
    if (r == NULL || resp_reply_put_u32(r, type) != EOK || resp_reply_put_str(r, s) != EOK) {
        talloc_free(r);
        return NULL;
    }
    return r;
}

struct resp_reply *nss_sid_reply_id(TALLOC_CTX *mem_ctx, uint32_t cmd, uint32_t type,
                                    uint32_t id)
{
    struct resp_reply *r = nss_sid_reply_head(mem_ctx, cmd, 1);

    if (r == NULL || resp_reply_put_u32(r, type) != EOK || resp_reply_put_u32(r, id) != EOK) {
        talloc_free(r);
        return NULL;
    }
    return r;
}

struct resp_reply *nss_sid_reply_none(TALLOC_CTX *mem_ctx, uint32_t cmd)
{
    return nss_sid_reply_head(mem_ctx, cmd, 0);
}
