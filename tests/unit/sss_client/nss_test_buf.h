/* Byte-buffer builder shared by the NSS client tests: replies and cache records are laid
 * out by hand, in host byte order, exactly as PROTOCOL.md describes them. */
#ifndef NSS_TEST_BUF_H
#define NSS_TEST_BUF_H

#include <stdint.h>
#include <string.h>

struct tbuf {
    uint8_t data[65536];
    size_t len;
};

static inline void tb_u32(struct tbuf *b, uint32_t v)
{
    memcpy(b->data + b->len, &v, sizeof(v));
    b->len += sizeof(v);
}

static inline void tb_str(struct tbuf *b, const char *s)
{
    size_t n = strlen(s) + 1;

    memcpy(b->data + b->len, s, n);
    b->len += n;
}

static inline void tb_pw(struct tbuf *b, uint32_t uid, uint32_t gid, const char *name,
                         const char *pw, const char *gecos, const char *dir, const char *sh)
{
    tb_u32(b, uid);
    tb_u32(b, gid);
    tb_str(b, name);
    tb_str(b, pw);
    tb_str(b, gecos);
    tb_str(b, dir);
    tb_str(b, sh);
}

#endif
