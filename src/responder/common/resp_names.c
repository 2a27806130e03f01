/*
 * Name parsing, output formatting and filter lists (resp_names.h).
 */
#include <ctype.h>
#include <strings.h>

#include "responder/common/resp_names.h"
#include "db/sysdb_subdomains.h"

/* "B\dave", the down-level form, when B is a trusted domain's flat or DNS name: *_dom the
 * trusting domain, *_short "dave@b.test". ENOENT: not one (the name is then a short name,
 * backslash and all, as before). */
static errno_t resp_parse_down_level(TALLOC_CTX *mem_ctx, struct resp_ctx *rctx,
                                     const char *input, const char *bs,
                                     struct resp_domain **_dom, char **_short)
{
    struct resp_domain *dom;
    char *prefix;
    char *dns;

    prefix = talloc_strndup(mem_ctx, input, (size_t)(bs - input));
    if (prefix == NULL) {
        return ENOMEM;
    }
    /* A configured domain first, as "dave@b.test" goes to b.test when it is configured. */
    dns = NULL;
    dom = resp_domain_find(rctx, prefix);
    if (dom == NULL) {
        dom = resp_domain_trusting(rctx, prefix, prefix, &dns);
    }
    if (dom == NULL) {
        talloc_free(prefix);
        return ENOENT;
    }
    *_short = dns != NULL ? talloc_asprintf(mem_ctx, "%s@%s", bs + 1, dns)
                          : talloc_strdup(mem_ctx, bs + 1);
    talloc_free(prefix);
    if (*_short == NULL) {
        return ENOMEM;
    }
    *_dom = dom;
    return EOK;
}

errno_t resp_parse_name(TALLOC_CTX *mem_ctx, struct resp_ctx *rctx, const char *input,
                        struct resp_domain **_dom, char **_short)
{
    struct resp_domain *dom = NULL;
    const char *at;
    const char *bs;
    char *short_name;
    char *dns;
    errno_t ret;

    SSS_CHECK_ARG(rctx != NULL && input != NULL, EINVAL);
    SSS_CHECK_ARG(_dom != NULL && _short != NULL, EINVAL);
    if (input[0] == '\0') {
        return EINVAL;
    }
    at = strrchr(input, '@');
    if (at != NULL) {
        if (at == input || at[1] == '\0') {
            return EINVAL;
        }
        dom = resp_domain_find(rctx, at + 1);
        if (dom != NULL) {
            short_name = talloc_strndup(mem_ctx, input, (size_t)(at - input));
        } else {
            /* A trusted domain's object (by its DNS or flat name): stored qualified with
             * the DNS name in its domain's cache. */
            dom = resp_domain_trusting(rctx, mem_ctx, at + 1, &dns);
            if (dom == NULL) {
                return ENOENT;
            }
            short_name = dns != NULL
                ? talloc_asprintf(mem_ctx, "%.*s@%s", (int)(at - input), input, dns)
                : talloc_strndup(mem_ctx, input, (size_t)(at - input));
            talloc_free(dns);
        }
    } else {
        bs = strchr(input, '\\');
        if (bs != NULL && bs != input && bs[1] != '\0') {
            ret = resp_parse_down_level(mem_ctx, rctx, input, bs, _dom, _short);
            if (ret != ENOENT) {
                return ret;
            }
        }
        dom = rctx->default_domain;
        short_name = talloc_strdup(mem_ctx, input);
    }
    if (short_name == NULL) {
        return ENOMEM;
    }
    *_dom = dom;
    *_short = short_name;
    return EOK;
}

char *resp_format_fqname(TALLOC_CTX *mem_ctx, const char *format, const char *name,
                         const char *domain)
{
    char *out = talloc_strdup(mem_ctx, "");
    const char *p = format;
    const char *arg;

    while (out != NULL && *p != '\0') {
        if (p[0] == '%' && p[1] == '%') {
            out = talloc_strdup_append_buffer(out, "%");
            p += 2;
            continue;
        }
        if (p[0] == '%' && p[1] >= '1' && p[1] <= '3' && strncmp(p + 2, "$s", 2) == 0) {
            arg = p[1] == '1' ? name : domain;
            out = talloc_strdup_append_buffer(out, arg);
            p += 4;
            continue;
        }
        out = talloc_strndup_append_buffer(out, p, 1);
        p++;
    }
    return out;
}

errno_t resp_short_name(TALLOC_CTX *mem_ctx, struct resp_ctx *rctx, struct resp_domain *dom,
                        const char *stored, char **_short)
{
    struct sysdb_ctx *sysdb;
    errno_t ret;

    ret = resp_domain_sysdb(rctx, dom, &sysdb);
    if (ret != EOK) {
        return ret;
    }
    return sysdb_short_name(mem_ctx, sysdb, stored, _short);
}

/* short_name is "dave@b.test" with b.test a trusted domain dom's back-end recorded. */
static bool resp_is_trusted_name(struct resp_ctx *rctx, struct resp_domain *dom,
                                 const char *short_name)
{
    const char *at = strrchr(short_name, '@');
    struct sysdb_subdom sub;
    struct sysdb_ctx *sysdb;
    TALLOC_CTX *tmp_ctx;
    bool trusted;

    if (at == NULL || at == short_name || resp_domain_sysdb(rctx, dom, &sysdb) != EOK) {
        return false;
    }
    tmp_ctx = talloc_new(NULL);
    if (tmp_ctx == NULL) {
        return false;
    }
    trusted = sysdb_subdom_find(tmp_ctx, sysdb, at + 1, &sub) == EOK
              && strcasecmp(sub.name, at + 1) == 0;
    talloc_free(tmp_ctx);
    return trusted;
}

char *resp_output_name(TALLOC_CTX *mem_ctx, struct resp_ctx *rctx, struct resp_domain *dom,
                       const char *short_name)
{
    /* A trusted domain's name is already qualified with its own domain, as SSSD prints
     * it: the trusting domain's full_name_format would give dave@b.test@a.test. Only
     * names holding '@' read the cache. */
    if ((dom->fqnames || rctx->output_fqnames)
            && !resp_is_trusted_name(rctx, dom, short_name)) {
        return resp_format_fqname(mem_ctx, dom->name_format, short_name, dom->name);
    }
    return talloc_strdup(mem_ctx, short_name);
}

static bool resp_name_equal(struct resp_domain *dom, const char *a, const char *b, size_t blen)
{
    if (strlen(a) != blen) {
        return false;
    }
    if (dom->case_mode == SYSDB_CASE_SENSITIVE) {
        return strncmp(a, b, blen) == 0;
    }
    return strncasecmp(a, b, blen) == 0;
}

bool resp_name_in_list(struct resp_domain *dom, char *const *list, const char *short_name)
{
    const char *at;
    size_t i;

    if (list == NULL || short_name == NULL) {
        return false;
    }
    for (i = 0; list[i] != NULL; i++) {
        at = strrchr(list[i], '@');
        if (at == NULL) {
            if (resp_name_equal(dom, short_name, list[i], strlen(list[i]))) {
                return true;
            }
            continue;
        }
        if (strcasecmp(at + 1, dom->name) == 0
                && resp_name_equal(dom, short_name, list[i], (size_t)(at - list[i]))) {
            return true;
        }
    }
    return false;
}

bool resp_user_is_filtered(struct resp_ctx *rctx, struct resp_domain *dom,
                           const char *short_name)
{
    return resp_name_in_list(dom, rctx->filter_users, short_name)
           || resp_name_in_list(dom, dom->filter_users, short_name);
}

/* Adds the entries of list that apply to dom (see resp_name_in_list) to f. */
static errno_t resp_name_filter_add(struct resp_name_filter *f, struct resp_domain *dom,
                                    char *const *list)
{
    const char *at;
    size_t i;

    for (i = 0; list != NULL && list[i] != NULL; i++) {
        at = strrchr(list[i], '@');
        if (at != NULL && strcasecmp(at + 1, dom->name) != 0) {
            continue;
        }
        f->names = talloc_realloc(f, f->names, const char *, f->num + 1);
        f->lens = talloc_realloc(f, f->lens, size_t, f->num + 1);
        if (f->names == NULL || f->lens == NULL) {
            return ENOMEM;
        }
        f->names[f->num] = list[i];
        f->lens[f->num] = at != NULL ? (size_t)(at - list[i]) : strlen(list[i]);
        f->num++;
    }
    return EOK;
}

struct resp_name_filter *resp_user_filter_prepare(TALLOC_CTX *mem_ctx, struct resp_ctx *rctx,
                                                  struct resp_domain *dom)
{
    struct resp_name_filter *f = talloc_zero(mem_ctx, struct resp_name_filter);

    if (f == NULL) {
        return NULL;
    }
    f->fold = dom->case_mode != SYSDB_CASE_SENSITIVE;
    if (resp_name_filter_add(f, dom, rctx->filter_users) != EOK
            || resp_name_filter_add(f, dom, dom->filter_users) != EOK) {
        talloc_free(f);
        return NULL;
    }
    return f;
}

bool resp_name_filter_match(const struct resp_name_filter *f, const char *name, size_t len)
{
    size_t i;

    for (i = 0; i < f->num; i++) {
        if (f->lens[i] != len) {
            continue;
        }
        if (f->fold ? strncasecmp(name, f->names[i], len) == 0
                    : strncmp(name, f->names[i], len) == 0) {
            return true;
        }
    }
    return false;
}

bool resp_group_is_filtered(struct resp_ctx *rctx, struct resp_domain *dom,
                            const char *short_name)
{
    return resp_name_in_list(dom, rctx->filter_groups, short_name)
           || resp_name_in_list(dom, dom->filter_groups, short_name);
}

char *resp_ncache_name(TALLOC_CTX *mem_ctx, struct resp_domain *dom, const char *short_name)
{
    char *name = talloc_strdup(mem_ctx, short_name);
    size_t i;

    if (name != NULL && dom->case_mode != SYSDB_CASE_SENSITIVE) {
        for (i = 0; name[i] != '\0'; i++) {
            name[i] = (char)tolower((unsigned char)name[i]);
        }
    }
    return name;
}
