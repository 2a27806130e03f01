/*
 * sudo_rules: which cached rules a user gets and the wire form of the answer (see
 * sudo_rules.h). Pure code: sudo_cmd.c feeds it the cache's rules and the user's groups.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "responder/sudo/sudo_rules.h"

/* ---- matching ------------------------------------------------------------------------ */

static bool sudo_name_eq(const char *a, const char *b, bool case_sensitive)
{
    if (a == NULL || b == NULL) {
        return false;
    }
    return case_sensitive ? strcmp(a, b) == 0 : strcasecmp(a, b) == 0;
}

static bool sudo_value_matches(const char *v, const struct sudo_user_info *u)
{
    char *end;
    unsigned long id;
    size_t i;

    if (strcmp(v, "ALL") == 0 || v[0] == '+') {
        return true;    /* netgroups: sudo asks innetgr() itself, as with SSSD */
    }
    if (v[0] == '#') {
        errno = 0;
        id = strtoul(v + 1, &end, 10);
        return errno == 0 && end != v + 1 && *end == '\0' && id == u->uid;
    }
    if (v[0] == '%' && v[1] == '#') {
        errno = 0;
        id = strtoul(v + 2, &end, 10);
        if (errno != 0 || end == v + 2 || *end != '\0' || id > UINT32_MAX) {
            return false;
        }
        for (i = 0; i < u->num_gids; i++) {
            if (u->gids[i] == id) {
                return true;
            }
        }
        return false;
    }
    if (v[0] == '%') {
        for (i = 0; u->groups != NULL && u->groups[i] != NULL; i++) {
            if (sudo_name_eq(v + 1, u->groups[i], u->case_sensitive)) {
                return true;
            }
        }
        return false;
    }
    return sudo_name_eq(v, u->name, u->case_sensitive)
           || sudo_name_eq(v, u->fqname, u->case_sensitive);
}

bool sudo_rule_matches_user(const struct sysdb_sudo_rule *rule,
                            const struct sudo_user_info *user)
{
    const char *const *v = rule->values[SYSDB_SUDO_USER];

    for (; v != NULL && *v != NULL; v++) {
        if (sudo_value_matches(*v, user)) {
            return true;
        }
    }
    return false;
}

bool sudo_rule_is_defaults(const struct sysdb_sudo_rule *rule)
{
    return rule->name != NULL && strcasecmp(rule->name, "defaults") == 0;
}

/* ---- time ---------------------------------------------------------------------------- */

errno_t sudo_parse_gentime(const char *s, time_t *_t)
{
    struct tm tm = { 0 };
    const char *p;
    long off = 0;
    int sign;
    int i;
    time_t t;

    if (s == NULL || strlen(s) < 14) {
        return EINVAL;
    }
    for (i = 0; i < 14; i++) {
        if (!isdigit((unsigned char)s[i])) {
            return EINVAL;
        }
    }
    p = strptime(s, "%Y%m%d%H%M%S", &tm);
    if (p == NULL || p != s + 14) {
        return EINVAL;
    }
    if (*p == '.' || *p == ',') {       /* fractions of a second are ignored */
        p++;
        while (isdigit((unsigned char)*p)) {
            p++;
        }
    }
    if (*p == 'Z' && p[1] == '\0') {
        off = 0;
    } else if ((*p == '+' || *p == '-') && strlen(p) == 5 && isdigit((unsigned char)p[1])
               && isdigit((unsigned char)p[2]) && isdigit((unsigned char)p[3])
               && isdigit((unsigned char)p[4])) {
        sign = *p == '-' ? -1 : 1;
        off = sign * (((p[1] - '0') * 10 + (p[2] - '0')) * 3600
                      + ((p[3] - '0') * 10 + (p[4] - '0')) * 60);
    } else {
        return EINVAL;
    }
    t = timegm(&tm);
    if (t == (time_t)-1) {
        return EINVAL;
    }
    *_t = t - off;
    return EOK;
}

/* true when the attribute has no values, or one of them passes cmp against now. */
static bool sudo_time_bound_ok(const struct sysdb_sudo_rule *rule, enum sysdb_sudo_attr a,
                               time_t now, bool *_bad)
{
    const char *const *v = rule->values[a];
    bool any = false;
    time_t t;

    if (v == NULL || v[0] == NULL) {
        return true;
    }
    for (; *v != NULL; v++) {
        if (sudo_parse_gentime(*v, &t) != EOK) {
            DEBUG(SSSDBG_MINOR_FAILURE, "sudo rule %s: %s '%s' is not a generalized time\n",
                  rule->name, sysdb_sudo_attr_names[a], *v);
            *_bad = true;
            continue;
        }
        any = any || (a == SYSDB_SUDO_NOTBEFORE ? t <= now : now <= t);
    }
    return any;
}

bool sudo_rule_valid_at(const struct sysdb_sudo_rule *rule, time_t now)
{
    bool bad = false;
    bool ok;

    ok = sudo_time_bound_ok(rule, SYSDB_SUDO_NOTBEFORE, now, &bad)
         && sudo_time_bound_ok(rule, SYSDB_SUDO_NOTAFTER, now, &bad);
    return ok && !bad;
}

/* ---- order --------------------------------------------------------------------------- */

static double sudo_rule_order(const struct sysdb_sudo_rule *r, bool *_has)
{
    const char *const *v = r->values[SYSDB_SUDO_ORDER];
    char *end;
    double d;

    *_has = false;
    if (v == NULL || v[0] == NULL) {
        return 0;
    }
    d = strtod(v[0], &end);
    if (end == v[0] || *end != '\0') {
        return 0;
    }
    *_has = true;
    return d;
}

static int sudo_cmp(const void *pa, const void *pb, bool inverse)
{
    const struct sysdb_sudo_rule *a = *(const struct sysdb_sudo_rule *const *)pa;
    const struct sysdb_sudo_rule *b = *(const struct sysdb_sudo_rule *const *)pb;
    bool ha;
    bool hb;
    double oa = sudo_rule_order(a, &ha);
    double ob = sudo_rule_order(b, &hb);

    if (ha != hb) {
        return ha ? 1 : -1;
    }
    if (oa != ob) {
        return (oa < ob) != inverse ? -1 : 1;
    }
    return strcasecmp(a->name, b->name);
}

static int sudo_cmp_asc(const void *a, const void *b)
{
    return sudo_cmp(a, b, false);
}

static int sudo_cmp_desc(const void *a, const void *b)
{
    return sudo_cmp(a, b, true);
}

void sudo_rules_sort(const struct sysdb_sudo_rule **rules, size_t n, bool inverse)
{
    if (n > 1) {
        qsort(rules, n, sizeof(*rules), inverse ? sudo_cmp_desc : sudo_cmp_asc);
    }
}

/* ---- wire ---------------------------------------------------------------------------- */

/* Well-formed UTF-8 (no overlong forms, surrogates or code points past U+10FFFF). */
static bool sudo_utf8_valid(const uint8_t *s, size_t len)
{
    size_t i = 0;
    size_t n;
    size_t k;
    uint32_t cp;

    while (i < len) {
        if (s[i] < 0x80) {
            i++;
            continue;
        }
        if (s[i] >= 0xC2 && s[i] <= 0xDF) {
            n = 1;
            cp = s[i] & 0x1F;
        } else if (s[i] >= 0xE0 && s[i] <= 0xEF) {
            n = 2;
            cp = s[i] & 0x0F;
        } else if (s[i] >= 0xF0 && s[i] <= 0xF4) {
            n = 3;
            cp = s[i] & 0x07;
        } else {
            return false;
        }
        for (k = 1; k <= n; k++) {
            if (i + k >= len || (s[i + k] & 0xC0) != 0x80) {
                return false;
            }
            cp = (cp << 6) | (s[i + k] & 0x3F);
        }
        if ((n == 2 && cp < 0x800) || (n == 3 && (cp < 0x10000 || cp > 0x10FFFF))
                || (cp >= 0xD800 && cp <= 0xDFFF)) {
            return false;
        }
        i += n + 1;
    }
    return true;
}

errno_t sudo_parse_query(const uint8_t *body, size_t len, uint32_t *_uid, const char **_name)
{
    const char *name;
    size_t nlen;

    if (body == NULL || len < sizeof(uint32_t) + 2) {
        return EINVAL;
    }
    name = (const char *)body + sizeof(uint32_t);
    nlen = len - sizeof(uint32_t);
    if (name[nlen - 1] != '\0' || strlen(name) != nlen - 1
            || !sudo_utf8_valid((const uint8_t *)name, nlen - 1)) {
        return EINVAL;
    }
    memcpy(_uid, body, sizeof(uint32_t));
    *_name = name;
    return EOK;
}

struct sudo_buf {
    uint8_t *data;
    size_t len;
    errno_t err;
};

static void sudo_put(TALLOC_CTX *mem_ctx, struct sudo_buf *b, const void *p, size_t n)
{
    uint8_t *d;

    if (b->err != EOK) {
        return;
    }
    if (b->len + n > UINT32_MAX - 16) {
        b->err = E2BIG;
        return;
    }
    d = talloc_realloc(mem_ctx, b->data, uint8_t, b->len + n);
    if (d == NULL) {
        b->err = ENOMEM;
        return;
    }
    memcpy(d + b->len, p, n);
    b->data = d;
    b->len += n;
}

static void sudo_put_u32(TALLOC_CTX *mem_ctx, struct sudo_buf *b, uint32_t v)
{
    sudo_put(mem_ctx, b, &v, sizeof(v));
}

static void sudo_put_str(TALLOC_CTX *mem_ctx, struct sudo_buf *b, const char *s)
{
    sudo_put(mem_ctx, b, s, strlen(s) + 1);
}

errno_t sudo_build_reply(TALLOC_CTX *mem_ctx, const struct sysdb_sudo_rule *const *rules,
                         size_t n, uint8_t **_body, size_t *_len)
{
    struct sudo_buf b = { NULL, 0, EOK };
    uint32_t nattrs;
    size_t i;
    size_t a;
    size_t k;

    SSS_CHECK_ARG(rules != NULL || n == 0, EINVAL);
    SSS_CHECK_ARG(_body != NULL && _len != NULL, EINVAL);
    sudo_put_u32(mem_ctx, &b, SUDO_ERROR_OK);
    sudo_put_str(mem_ctx, &b, "");      /* the domain: unused since SSSD 1.x, always "" */
    sudo_put_u32(mem_ctx, &b, (uint32_t)n);
    for (i = 0; i < n; i++) {
        nattrs = 1;
        for (a = 0; a < SYSDB_SUDO_ATTR_MAX; a++) {
            nattrs += rules[i]->values[a] != NULL && rules[i]->values[a][0] != NULL;
        }
        sudo_put_u32(mem_ctx, &b, nattrs);
        sudo_put_str(mem_ctx, &b, "cn");
        sudo_put_u32(mem_ctx, &b, 1);
        sudo_put_str(mem_ctx, &b, rules[i]->name);
        for (a = 0; a < SYSDB_SUDO_ATTR_MAX; a++) {
            if (rules[i]->values[a] == NULL || rules[i]->values[a][0] == NULL) {
                continue;
            }
            for (k = 0; rules[i]->values[a][k] != NULL; k++) {
            }
            sudo_put_str(mem_ctx, &b, sysdb_sudo_attr_names[a]);
            sudo_put_u32(mem_ctx, &b, (uint32_t)k);
            for (k = 0; rules[i]->values[a][k] != NULL; k++) {
                sudo_put_str(mem_ctx, &b, rules[i]->values[a][k]);
            }
        }
    }
    if (b.err != EOK) {
        talloc_free(b.data);
        return b.err;
    }
    *_body = b.data;
    *_len = b.len;
    return EOK;
}
