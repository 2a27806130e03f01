/*
 * libsss_sudo's reply parser. The reply comes from whatever listens on the sudo socket;
 * the socket checks make that root, but the parser still trusts nothing: every count is
 * checked against the bytes left before anything is allocated for it (a rule takes at least
 * 4 bytes, an attribute 5, a value 1), every string must end inside the buffer, and bytes
 * left over make the reply malformed. Plain libc.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "sss_client/sudo/sss_sudo_private.h"

struct sudo_cursor {
    const uint8_t *buf;
    size_t len;
    size_t pos;
};

static int cur_u32(struct sudo_cursor *c, uint32_t *v)
{
    if (c->len - c->pos < sizeof(uint32_t)) {
        return EBADMSG;
    }
    memcpy(v, c->buf + c->pos, sizeof(uint32_t));
    c->pos += sizeof(uint32_t);
    return 0;
}

static int cur_str(struct sudo_cursor *c, char **s)
{
    const uint8_t *start = c->buf + c->pos;
    const uint8_t *nul;
    size_t n;

    nul = c->pos < c->len ? memchr(start, '\0', c->len - c->pos) : NULL;
    if (nul == NULL) {
        return EBADMSG;
    }
    n = (size_t)(nul - start);
    *s = malloc(n + 1);
    if (*s == NULL) {
        return ENOMEM;
    }
    memcpy(*s, start, n + 1);
    c->pos += n + 1;
    return 0;
}

/* A count that the bytes left could hold, each item taking at least min bytes. */
static int cur_count(struct sudo_cursor *c, size_t min, uint32_t *n)
{
    int ret = cur_u32(c, n);

    if (ret == 0 && (size_t)*n > (c->len - c->pos) / min) {
        ret = EBADMSG;
    }
    return ret;
}

static void free_attrs(struct sss_sudo_attr *attrs, unsigned int n)
{
    unsigned int i;
    unsigned int j;

    if (attrs == NULL) {
        return;
    }
    for (i = 0; i < n; i++) {
        free(attrs[i].name);
        for (j = 0; attrs[i].values != NULL && j < attrs[i].num_values; j++) {
            free(attrs[i].values[j]);
        }
        free(attrs[i].values);
    }
    free(attrs);
}

static int parse_attr(struct sudo_cursor *c, struct sss_sudo_attr *a)
{
    uint32_t n;
    int ret;

    ret = cur_str(c, &a->name);
    if (ret == 0) {
        ret = cur_count(c, 1, &n);
    }
    if (ret != 0) {
        return ret;
    }
    a->values = calloc((size_t)n + 1, sizeof(char *));
    if (a->values == NULL) {
        return ENOMEM;
    }
    for (a->num_values = 0; a->num_values < n; a->num_values++) {
        ret = cur_str(c, &a->values[a->num_values]);
        if (ret != 0) {
            return ret;
        }
    }
    return 0;
}

static int parse_rule(struct sudo_cursor *c, struct sss_sudo_rule *r)
{
    uint32_t n;
    unsigned int i;
    int ret;

    ret = cur_count(c, 5, &n);
    if (ret != 0) {
        return ret;
    }
    r->attrs = calloc((size_t)n + 1, sizeof(struct sss_sudo_attr));
    if (r->attrs == NULL) {
        return ENOMEM;
    }
    for (i = 0; i < n; i++) {
        /* Counted before it is parsed: a half-parsed attribute is freed with the rest. */
        r->num_attrs = i + 1;
        ret = parse_attr(c, &r->attrs[i]);
        if (ret != 0) {
            return ret;
        }
    }
    r->num_attrs = n;
    return 0;
}

static void free_rules(struct sss_sudo_result *res)
{
    unsigned int i;

    if (res == NULL) {
        return;
    }
    for (i = 0; res->rules != NULL && i < res->num_rules; i++) {
        free_attrs(res->rules[i].attrs, res->rules[i].num_attrs);
    }
    free(res->rules);
    free(res);
}

int sss_sudo_parse_reply(const uint8_t *buf, size_t len, uint32_t *_error,
                         char **_domainname, struct sss_sudo_result **_result)
{
    struct sudo_cursor c = { buf, len, 0 };
    struct sss_sudo_result *res = NULL;
    char *domain = NULL;
    uint32_t error;
    uint32_t n;
    unsigned int i;
    int ret;

    if ((buf == NULL && len > 0) || _error == NULL || _result == NULL) {
        return EINVAL;
    }
    ret = cur_u32(&c, &error);
    if (ret != 0) {
        return ret;
    }
    if (error != SSS_SUDO_ERROR_OK) {
        *_error = error;
        return 0;
    }
    ret = cur_str(&c, &domain);
    if (ret == 0) {
        ret = cur_count(&c, 4, &n);
    }
    if (ret != 0) {
        goto fail;
    }
    res = calloc(1, sizeof(*res));
    if (res == NULL || (res->rules = calloc((size_t)n + 1, sizeof(struct sss_sudo_rule)))
            == NULL) {
        ret = ENOMEM;
        goto fail;
    }
    for (i = 0; i < n; i++) {
        res->num_rules = i + 1;
        ret = parse_rule(&c, &res->rules[i]);
        if (ret != 0) {
            goto fail;
        }
    }
    res->num_rules = n;
    if (c.pos != c.len) {
        ret = EBADMSG;
        goto fail;
    }
    *_error = error;
    *_result = res;
    if (_domainname != NULL) {
        *_domainname = domain;
    } else {
        free(domain);
    }
    return 0;
fail:
    free_rules(res);
    free(domain);
    return ret;
}

void sss_sudo_free_result(struct sss_sudo_result *result)
{
    free_rules(result);
}
