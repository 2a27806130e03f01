/*
 * sdap_access_rules: the LDAP access and password-expiry rules (see sdap_access_rules.h).
 * Attribute values arrive as bervals (not NUL-terminated, possibly hostile): every number
 * and time is parsed strictly from a bounded copy; anything malformed is EINVAL, never
 * "allowed".
 */
#include "config.h"

#include <security/pam_appl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "util/util.h"
#include "util/sss_csv.h"
#include "providers/ldap/sdap_access_rules.h"

#define SDAP_DAY 86400
#define SDAP_LOCKED_FOREVER "000001010000Z"
#define SDAP_AD_NEVER 0x7FFFFFFFFFFFFFFFULL
#define SDAP_AD_EPOCH_DIFF 11644473600ULL   /* seconds from 1601-01-01 to 1970-01-01 */
#define SDAP_KRB_WARNING_DEFAULT (7 * SDAP_DAY)
#define SDAP_VALUE_MAX 64                   /* longest number or time we parse */

/* SSSD's SYSTEM_INFO texts. */
#define SHADOW_EXPIRE_MSG "Account expired according to shadow attributes"
#define AD_DISABLE_MSG "The user account is disabled on the AD server"
#define AD_EXPIRED_MSG "The user account is expired on the AD server"
#define RHDS_LOCK_MSG "The user account is locked on the server"
#define NDS_DISABLE_MSG "The user account is disabled on the server"
#define NDS_EXPIRED_MSG "The user account is expired"
#define NDS_TIME_MAP_MSG "The user account is not allowed at this time"

static const struct {
    const char *word;
    enum sdap_access_rule rule;
} sdap_access_words[] = {
    { "filter", SDAP_ACCESS_FILTER },
    { "lockout", SDAP_ACCESS_LOCKOUT },
    { "ppolicy", SDAP_ACCESS_PPOLICY },
    { "expire", SDAP_ACCESS_EXPIRE },
    { "pwd_expire_policy_reject", SDAP_ACCESS_PWD_EXPIRE_REJECT },
    { "pwd_expire_policy_warn", SDAP_ACCESS_PWD_EXPIRE_WARN },
    { "pwd_expire_policy_renew", SDAP_ACCESS_PWD_EXPIRE_RENEW },
    { "authorized_service", SDAP_ACCESS_SERVICE },
    { "host", SDAP_ACCESS_HOST },
};

static void sdap_verdict_init(struct sdap_access_verdict *v, int pam_status, const char *info)
{
    v->pam_status = pam_status;
    v->system_info = info;
    v->expire_warn = -1;
}

/* The values of attribute name, or NULL. */
static struct berval **sdap_rule_values(const struct sdap_rule_attr *attrs, size_t count,
                                        const char *name)
{
    size_t i;

    for (i = 0; i < count; i++) {
        if (attrs[i].name != NULL && strcasecmp(attrs[i].name, name) == 0) {
            if (attrs[i].values == NULL || attrs[i].values[0] == NULL) {
                return NULL;
            }
            return attrs[i].values;
        }
    }
    return NULL;
}

/* The single value of name copied into buf (SDAP_VALUE_MAX + 1 bytes). ENOENT: missing;
 * EINVAL: too long, or holding a NUL. */
static errno_t sdap_rule_str(const struct sdap_rule_attr *attrs, size_t count,
                             const char *name, char *buf)
{
    struct berval **vals = sdap_rule_values(attrs, count, name);

    if (vals == NULL) {
        return ENOENT;
    }
    if (vals[0]->bv_len > SDAP_VALUE_MAX
            || (vals[0]->bv_len > 0 && memchr(vals[0]->bv_val, '\0', vals[0]->bv_len) != NULL)) {
        DEBUG(SSSDBG_OP_FAILURE, "Malformed %s value\n", name);
        return EINVAL;
    }
    memcpy(buf, vals[0]->bv_val, vals[0]->bv_len);
    buf[vals[0]->bv_len] = '\0';
    return EOK;
}

/* A decimal integer in [min, max]; the whole string. */
static errno_t sdap_parse_int(const char *s, long long min, long long max, long long *_n)
{
    char *end;
    long long n;

    if (s[0] == '\0' || s[0] == ' ' || s[0] == '+') {
        return EINVAL;
    }
    errno = 0;
    n = strtoll(s, &end, 10);
    if (errno != 0 || *end != '\0' || n < min || n > max) {
        return EINVAL;
    }
    *_n = n;
    return EOK;
}

/* An optional integer attribute: *_n = dflt when missing. */
static errno_t sdap_rule_int(const struct sdap_rule_attr *attrs, size_t count, const char *name,
                             long long min, long long max, long long dflt, long long *_n)
{
    char buf[SDAP_VALUE_MAX + 1];
    errno_t ret;

    ret = sdap_rule_str(attrs, count, name, buf);
    if (ret == ENOENT) {
        *_n = dflt;
        return EOK;
    }
    if (ret == EOK) {
        ret = sdap_parse_int(buf, min, max, _n);
    }
    if (ret != EOK) {
        DEBUG(SSSDBG_OP_FAILURE, "Malformed %s value\n", name);
    }
    return ret;
}

/* An optional LDAP Boolean (TRUE / FALSE, any case): false when missing. */
static errno_t sdap_rule_bool(const struct sdap_rule_attr *attrs, size_t count,
                              const char *name, bool *_b)
{
    char buf[SDAP_VALUE_MAX + 1];
    errno_t ret;

    ret = sdap_rule_str(attrs, count, name, buf);
    if (ret == ENOENT) {
        *_b = false;
        return EOK;
    }
    if (ret != EOK) {
        return ret;
    }
    if (strcasecmp(buf, "true") == 0) {
        *_b = true;
    } else if (strcasecmp(buf, "false") == 0) {
        *_b = false;
    } else {
        DEBUG(SSSDBG_OP_FAILURE, "Malformed %s value\n", name);
        return EINVAL;
    }
    return EOK;
}

errno_t sdap_generalized_time(const char *s, size_t len, time_t *_t)
{
    int f[6] = { 0 };
    static const int widths[6] = { 4, 2, 2, 2, 2, 2 };
    struct tm tm = { 0 };
    size_t p = 0;
    time_t t;
    int i;
    int j;

    SSS_CHECK_ARG(s != NULL && _t != NULL, EINVAL);
    for (i = 0; i < 6; i++) {
        for (j = 0; j < widths[i]; j++, p++) {
            if (p >= len || s[p] < '0' || s[p] > '9') {
                return EINVAL;
            }
            f[i] = f[i] * 10 + (s[p] - '0');
        }
    }
    if (p < len && s[p] == '.') {   /* a fraction of a second, ignored */
        for (p++, j = 0; p < len && s[p] >= '0' && s[p] <= '9'; p++, j++) {
        }
        if (j == 0) {
            return EINVAL;
        }
    }
    if (p + 1 != len || s[p] != 'Z') {
        return EINVAL;
    }
    if (f[0] < 1 || f[1] < 1 || f[1] > 12 || f[2] < 1 || f[2] > 31 || f[3] > 23
            || f[4] > 59 || f[5] > 60) {
        return EINVAL;
    }
    tm.tm_year = f[0] - 1900;
    tm.tm_mon = f[1] - 1;
    tm.tm_mday = f[2];
    tm.tm_hour = f[3];
    tm.tm_min = f[4];
    tm.tm_sec = f[5];
    t = timegm(&tm);
    if (t == (time_t)-1 || tm.tm_mday != f[2]) {    /* e.g. February 30th */
        return EINVAL;
    }
    *_t = t;
    return EOK;
}

/* An optional generalized time attribute. ENOENT: missing. */
static errno_t sdap_rule_time(const struct sdap_rule_attr *attrs, size_t count,
                              const char *name, time_t *_t)
{
    struct berval **vals = sdap_rule_values(attrs, count, name);
    errno_t ret;

    if (vals == NULL) {
        return ENOENT;
    }
    ret = sdap_generalized_time(vals[0]->bv_val, vals[0]->bv_len, _t);
    if (ret != EOK) {
        DEBUG(SSSDBG_OP_FAILURE, "Malformed %s value\n", name);
    }
    return ret;
}

errno_t sdap_access_order_parse(TALLOC_CTX *mem_ctx, const char *value,
                                enum sdap_access_rule **_rules, size_t *_count)
{
    enum sdap_access_rule *rules;
    const char *pos;
    const char *p;
    size_t n = 0;
    size_t len;
    size_t i;
    size_t k;

    SSS_CHECK_ARG(_rules != NULL && _count != NULL, EINVAL);
    if (value == NULL || value[0] == '\0') {
        value = "filter";
    }
    rules = talloc_array(mem_ctx, enum sdap_access_rule, SSS_ARRAY_SIZE(sdap_access_words));
    if (rules == NULL) {
        return ENOMEM;
    }
    pos = value;
    while (sss_csv_next(&pos, " \t", &p, &len)) {
        for (i = 0; i < SSS_ARRAY_SIZE(sdap_access_words); i++) {
            if (strlen(sdap_access_words[i].word) == len
                    && strncasecmp(sdap_access_words[i].word, p, len) == 0) {
                break;
            }
        }
        if (i == SSS_ARRAY_SIZE(sdap_access_words)) {
            DEBUG(SSSDBG_FATAL_FAILURE, "ldap_access_order: %s \"%.*s\"\n",
                  len == 0 ? "empty item" : (len == 5 && strncasecmp(p, "rhost", 5) == 0)
                  ? "not supported:" : "unknown rule", (int)len, p);
            talloc_free(rules);
            return ERR_INVALID_CONFIG;
        }
        for (k = 0; k < n && rules[k] != sdap_access_words[i].rule; k++) {
        }
        if (k < n) {
            DEBUG(SSSDBG_CONF_SETTINGS, "ldap_access_order: %s repeated, kept once\n",
                  sdap_access_words[i].word);
        } else {
            rules[n++] = sdap_access_words[i].rule;
        }
    }
    *_rules = rules;
    *_count = n;
    return EOK;
}

/* One item of ad_access_filter: its specificity (0: malformed), the name it applies to
 * (NULL: any) and where its filter starts. */
enum { SDAP_AD_ANY = 1, SDAP_AD_FOREST = 2, SDAP_AD_DOMAIN = 3 };

static int sdap_ad_filter_item(char *item, char **_name, char **_filter)
{
    char *first = strchr(item, ':');
    char *second;
    int kind = SDAP_AD_DOMAIN;

    *_name = NULL;
    *_filter = item;
    /* An item in parentheses is a plain filter even with ':' inside, such as
     * (memberOf:1.2.840.113556.1.4.1941:=...); SSSD 2.8 would skip it as malformed. */
    if (first == NULL || item[0] == '(') {
        return SDAP_AD_ANY;
    }
    second = strchr(first + 1, ':');
    if (second == NULL) {
        /* "NAME:(FILTER)": a domain name without the keyword */
        *_name = item;
        *first = '\0';
        *_filter = first + 1;
    } else {
        *first = '\0';
        if (strcmp(item, "FOREST") == 0) {
            kind = SDAP_AD_FOREST;
        } else if (strcmp(item, "DOM") != 0) {
            return 0;
        }
        *_name = first + 1;
        *second = '\0';
        *_filter = second + 1;
    }
    /* The extended forms need a name and a filter already in parentheses. */
    if ((*_name)[0] == '\0' || (*_filter)[0] != '(') {
        return 0;
    }
    return kind;
}

errno_t sdap_ad_access_filter_pick(TALLOC_CTX *mem_ctx, const char *value,
                                   const char *domain, const char *forest, char **_filter)
{
    TALLOC_CTX *tmp_ctx;
    char *copy;
    char *item;
    char *next;
    char *name;
    char *filter;
    const char *best = NULL;
    int best_kind = 0;
    int kind;
    errno_t ret = EOK;

    SSS_CHECK_ARG(domain != NULL && forest != NULL && _filter != NULL, EINVAL);
    *_filter = NULL;
    if (value == NULL || value[0] == '\0') {
        return EOK;
    }
    tmp_ctx = talloc_new(NULL);
    copy = talloc_strdup(tmp_ctx, value);
    if (tmp_ctx == NULL || copy == NULL) {
        ret = ENOMEM;
        goto done;
    }
    for (item = copy; item != NULL; item = next) {
        next = strchr(item, '?');
        if (next != NULL) {
            *next++ = '\0';
        }
        while (*item == ' ' || *item == '\t') {
            item++;
        }
        for (size_t len = strlen(item); len > 0 && (item[len - 1] == ' '
                                                    || item[len - 1] == '\t'); len--) {
            item[len - 1] = '\0';
        }
        if (item[0] == '\0') {
            continue;
        }
        kind = sdap_ad_filter_item(item, &name, &filter);
        if (kind == 0) {
            DEBUG(SSSDBG_MINOR_FAILURE, "ad_access_filter: item \"%s\" could not be parsed, "
                  "skipped\n", item);
            continue;
        }
        if ((kind == SDAP_AD_DOMAIN && strcasecmp(name, domain) != 0)
                || (kind == SDAP_AD_FOREST && strcasecmp(name, forest) != 0)) {
            continue;
        }
        if (kind > best_kind) {
            best_kind = kind;
            best = filter;
        }
    }
    if (best != NULL) {
        *_filter = talloc_asprintf(mem_ctx, best[0] == '(' ? "%s" : "(%s)", best);
        if (*_filter == NULL) {
            ret = ENOMEM;
        }
    }
done:
    talloc_free(tmp_ctx);
    return ret;
}

errno_t sdap_expire_policy_parse(const char *value, enum sdap_expire_policy *_policy)
{
    SSS_CHECK_ARG(_policy != NULL, EINVAL);
    if (value == NULL || value[0] == '\0') {
        *_policy = SDAP_EXPIRE_NONE;
    } else if (strcasecmp(value, "shadow") == 0) {
        *_policy = SDAP_EXPIRE_SHADOW;
    } else if (strcasecmp(value, "ad") == 0) {
        *_policy = SDAP_EXPIRE_AD;
    } else if (strcasecmp(value, "rhds") == 0 || strcasecmp(value, "389ds") == 0) {
        *_policy = SDAP_EXPIRE_RHDS;
    } else if (strcasecmp(value, "ipa") == 0) {
        *_policy = SDAP_EXPIRE_IPA;
    } else if (strcasecmp(value, "nds") == 0) {
        *_policy = SDAP_EXPIRE_NDS;
    } else {
        DEBUG(SSSDBG_FATAL_FAILURE, "ldap_account_expire_policy: unknown policy \"%s\"\n",
              value);
        return ERR_INVALID_CONFIG;
    }
    return EOK;
}

static errno_t sdap_expire_shadow(const struct sdap_rule_attr *attrs, size_t count,
                                  time_t now, struct sdap_access_verdict *v)
{
    long long expire;
    errno_t ret;

    ret = sdap_rule_int(attrs, count, "shadowExpire", -1, INT32_MAX, -1, &expire);
    if (ret != EOK) {
        return ret;
    }
    if (expire > 0 && (long long)(now / SDAP_DAY) > expire) {
        sdap_verdict_init(v, PAM_ACCT_EXPIRED, SHADOW_EXPIRE_MSG);
    }
    return EOK;
}

static errno_t sdap_expire_ad(const struct sdap_rule_attr *attrs, size_t count, time_t now,
                              struct sdap_access_verdict *v)
{
    char buf[SDAP_VALUE_MAX + 1];
    unsigned long long expires = 0;
    long long uac;
    char *end;
    errno_t ret;

    ret = sdap_rule_int(attrs, count, "userAccountControl", INT32_MIN, UINT32_MAX, 0, &uac);
    if (ret != EOK) {
        return ret;
    }
    ret = sdap_rule_str(attrs, count, "accountExpires", buf);
    if (ret == EOK) {
        errno = 0;
        expires = strtoull(buf, &end, 10);
        if (buf[0] < '0' || buf[0] > '9' || errno != 0 || *end != '\0'
                || expires > SDAP_AD_NEVER) {
            DEBUG(SSSDBG_OP_FAILURE, "Malformed accountExpires value\n");
            return EINVAL;
        }
    } else if (ret != ENOENT) {
        return ret;
    }
    if (((uint32_t)uac & 0x2) != 0) {
        sdap_verdict_init(v, PAM_PERM_DENIED, AD_DISABLE_MSG);
    } else if (expires != 0 && expires != SDAP_AD_NEVER
               && ((unsigned long long)now + SDAP_AD_EPOCH_DIFF) * 10000000ULL > expires) {
        sdap_verdict_init(v, PAM_ACCT_EXPIRED, AD_EXPIRED_MSG);
    }
    return EOK;
}

static errno_t sdap_expire_rhds(const struct sdap_rule_attr *attrs, size_t count,
                                struct sdap_access_verdict *v)
{
    bool locked;
    errno_t ret;

    ret = sdap_rule_bool(attrs, count, "nsAccountLock", &locked);
    if (ret == EOK && locked) {
        sdap_verdict_init(v, PAM_PERM_DENIED, RHDS_LOCK_MSG);
    }
    return ret;
}

/* Is the half hour of now (UTC) allowed by a 42-byte loginAllowedTimeMap? */
static bool sdap_nds_time_allowed(const struct berval *map, time_t now)
{
    struct tm tm;
    size_t bit;

    if (map->bv_len != 42 || gmtime_r(&now, &tm) == NULL) {
        return false;
    }
    bit = (size_t)tm.tm_wday * 48 + (size_t)tm.tm_hour * 2 + (tm.tm_min < 30 ? 0 : 1);
    return (((const unsigned char *)map->bv_val)[bit / 8] & (1u << (bit % 8))) != 0;
}

static errno_t sdap_expire_nds(const struct sdap_rule_attr *attrs, size_t count, time_t now,
                               struct sdap_access_verdict *v)
{
    struct berval **map;
    bool disabled;
    time_t expire;
    errno_t ret;

    ret = sdap_rule_bool(attrs, count, "loginDisabled", &disabled);
    if (ret != EOK) {
        return ret;
    }
    if (disabled) {
        sdap_verdict_init(v, PAM_PERM_DENIED, NDS_DISABLE_MSG);
        return EOK;
    }
    ret = sdap_rule_time(attrs, count, "loginExpirationTime", &expire);
    if (ret == EOK && now > expire) {
        sdap_verdict_init(v, PAM_PERM_DENIED, NDS_EXPIRED_MSG);
        return EOK;
    } else if (ret != EOK && ret != ENOENT) {
        return ret;
    }
    map = sdap_rule_values(attrs, count, "loginAllowedTimeMap");
    if (map != NULL && !sdap_nds_time_allowed(map[0], now)) {
        sdap_verdict_init(v, PAM_PERM_DENIED, NDS_TIME_MAP_MSG);
    }
    return EOK;
}

errno_t sdap_access_expire(enum sdap_expire_policy policy, const struct sdap_rule_attr *attrs,
                           size_t count, time_t now, struct sdap_access_verdict *_verdict)
{
    struct sdap_access_verdict v;
    errno_t ret;

    SSS_CHECK_ARG(_verdict != NULL && (attrs != NULL || count == 0) && now >= 0, EINVAL);
    sdap_verdict_init(&v, PAM_SUCCESS, NULL);
    switch (policy) {
    case SDAP_EXPIRE_NONE:
        DEBUG(SSSDBG_CRIT_FAILURE, "Access rule expire without ldap_account_expire_policy: "
              "access denied\n");
        sdap_verdict_init(&v, PAM_PERM_DENIED, NULL);
        ret = EOK;
        break;
    case SDAP_EXPIRE_SHADOW:
        ret = sdap_expire_shadow(attrs, count, now, &v);
        break;
    case SDAP_EXPIRE_AD:
        ret = sdap_expire_ad(attrs, count, now, &v);
        break;
    case SDAP_EXPIRE_RHDS:
        ret = sdap_expire_rhds(attrs, count, &v);
        break;
    case SDAP_EXPIRE_IPA:
        ret = sdap_expire_rhds(attrs, count, &v);
        if (ret == EOK && v.pam_status == PAM_SUCCESS) {
            ret = sdap_expire_ad(attrs, count, now, &v);
        }
        break;
    case SDAP_EXPIRE_NDS:
        ret = sdap_expire_nds(attrs, count, now, &v);
        break;
    default:
        ret = EINVAL;
        break;
    }
    if (ret == EOK) {
        *_verdict = v;
    }
    return ret;
}

errno_t sdap_access_lockout(bool ppolicy, const struct sdap_rule_attr *attrs, size_t count,
                            const char *lockout_duration, time_t now,
                            struct sdap_access_verdict *_verdict)
{
    struct berval **vals;
    long long duration;
    time_t locked_at;
    bool locked = true;
    errno_t ret;

    SSS_CHECK_ARG(_verdict != NULL && (attrs != NULL || count == 0) && now >= 0, EINVAL);
    vals = sdap_rule_values(attrs, count, "pwdAccountLockedTime");
    if (vals == NULL) {
        locked = false;
    } else if (vals[0]->bv_len == strlen(SDAP_LOCKED_FOREVER)
               && strncasecmp(vals[0]->bv_val, SDAP_LOCKED_FOREVER, vals[0]->bv_len) == 0) {
        locked = true;
    } else if (!ppolicy) {
        /* "lockout" only honours the permanent lock, as SSSD. */
        locked = false;
    } else {
        ret = sdap_generalized_time(vals[0]->bv_val, vals[0]->bv_len, &locked_at);
        if (ret != EOK) {
            DEBUG(SSSDBG_OP_FAILURE, "Malformed pwdAccountLockedTime value\n");
            return ret;
        }
        if (locked_at > now) {
            locked = false;
        } else if (lockout_duration != NULL) {
            ret = sdap_parse_int(lockout_duration, 0, UINT32_MAX, &duration);
            if (ret != EOK) {
                DEBUG(SSSDBG_OP_FAILURE, "Malformed pwdLockoutDuration value\n");
                return ret;
            }
            if (duration != 0 && now - locked_at > duration) {
                locked = false;
            }
        }
    }
    sdap_verdict_init(_verdict, locked ? PAM_PERM_DENIED : PAM_SUCCESS, NULL);
    return EOK;
}

errno_t sdap_access_match_list(const char *attr_name, const struct sdap_rule_attr *attrs,
                               size_t count, const char *value,
                               struct sdap_access_verdict *_verdict)
{
    struct berval **vals;
    size_t vlen;
    size_t i;
    bool allowed = false;
    const struct berval *bv;

    SSS_CHECK_ARG(attr_name != NULL && value != NULL && _verdict != NULL, EINVAL);
    SSS_CHECK_ARG(attrs != NULL || count == 0, EINVAL);
    vlen = strlen(value);
    vals = sdap_rule_values(attrs, count, attr_name);
    for (i = 0; vals != NULL && vals[i] != NULL; i++) {
        bv = vals[i];
        if (bv->bv_len == vlen + 1 && bv->bv_val[0] == '!'
                && strncasecmp(bv->bv_val + 1, value, vlen) == 0) {
            DEBUG(SSSDBG_TRACE_FUNC, "Access denied by !%s in %s\n", value, attr_name);
            allowed = false;
            break;
        }
        if ((bv->bv_len == vlen && strncasecmp(bv->bv_val, value, vlen) == 0)
                || (bv->bv_len == 1 && bv->bv_val[0] == '*')) {
            allowed = true;
        }
    }
    sdap_verdict_init(_verdict, allowed ? PAM_SUCCESS : PAM_PERM_DENIED, NULL);
    return EOK;
}

errno_t sdap_pwd_policy_parse(const char *value, enum sdap_pwd_policy *_policy)
{
    SSS_CHECK_ARG(_policy != NULL, EINVAL);
    if (value == NULL || value[0] == '\0' || strcasecmp(value, "none") == 0) {
        *_policy = SDAP_PWD_POLICY_NONE;
    } else if (strcasecmp(value, "shadow") == 0) {
        *_policy = SDAP_PWD_POLICY_SHADOW;
    } else if (strcasecmp(value, "mit_kerberos") == 0) {
        *_policy = SDAP_PWD_POLICY_MIT_KERBEROS;
    } else {
        DEBUG(SSSDBG_FATAL_FAILURE, "ldap_pwd_policy: unknown policy \"%s\"\n", value);
        return ERR_INVALID_CONFIG;
    }
    return EOK;
}

static errno_t sdap_pwexpire_shadow(const struct sdap_rule_attr *attrs, size_t count,
                                    time_t now, struct sdap_pwexpire *r)
{
    long long lastchg, max, warn, inact, expire;
    long long today = now / SDAP_DAY;
    long long age;
    errno_t ret;

    ret = sdap_rule_int(attrs, count, "shadowLastChange", -1, INT32_MAX, -1, &lastchg);
    if (ret == EOK) {
        ret = sdap_rule_int(attrs, count, "shadowMax", -1, INT32_MAX, -1, &max);
    }
    if (ret == EOK) {
        ret = sdap_rule_int(attrs, count, "shadowWarning", -1, INT32_MAX, -1, &warn);
    }
    if (ret == EOK) {
        ret = sdap_rule_int(attrs, count, "shadowInactive", -1, INT32_MAX, -1, &inact);
    }
    if (ret == EOK) {
        ret = sdap_rule_int(attrs, count, "shadowExpire", -1, INT32_MAX, -1, &expire);
    }
    if (ret != EOK) {
        return ret;
    }
    if (sdap_rule_values(attrs, count, "shadowLastChange") == NULL) {
        return EOK;     /* no shadow data: no policy */
    }
    if (lastchg <= 0) {
        r->state = SDAP_PWEXPIRE_EXPIRED;
        return EOK;
    }
    age = today - lastchg;
    if (age < 0) {
        DEBUG(SSSDBG_OP_FAILURE, "shadowLastChange is in the future: ignored\n");
        return EOK;
    }
    if ((expire != -1 && today > expire)
            || (max != -1 && inact != -1 && age > max + inact)) {
        r->state = SDAP_PWEXPIRE_ACCOUNT_EXPIRED;
    } else if (max != -1 && age > max) {
        r->state = SDAP_PWEXPIRE_EXPIRED;
    } else if (max != -1 && warn != -1 && age > max - warn) {
        r->state = SDAP_PWEXPIRE_WARN;
        r->seconds_left = (max - age) * SDAP_DAY;
        if (r->seconds_left == 0) {
            r->seconds_left = (today + 1) * SDAP_DAY - now;
        }
    }
    return EOK;
}

static errno_t sdap_pwexpire_krb(const struct sdap_rule_attr *attrs, size_t count, time_t now,
                                 int64_t warning, struct sdap_pwexpire *r)
{
    time_t expire;
    errno_t ret;

    if (sdap_rule_values(attrs, count, "krbLastPwdChange") == NULL) {
        return EOK;
    }
    ret = sdap_rule_time(attrs, count, "krbPasswordExpiration", &expire);
    if (ret == ENOENT) {
        return EOK;
    }
    if (ret != EOK) {
        return ret;
    }
    if (now > expire) {
        r->state = SDAP_PWEXPIRE_EXPIRED;
    } else if (warning == 0 || now + warning > expire) {
        r->state = SDAP_PWEXPIRE_WARN;
        r->seconds_left = expire - now;
    }
    return EOK;
}

errno_t sdap_pwexpire_check(enum sdap_pwd_policy policy, const struct sdap_rule_attr *attrs,
                            size_t count, time_t now, int64_t krb_warning,
                            struct sdap_pwexpire *_result)
{
    struct sdap_pwexpire r = { .state = SDAP_PWEXPIRE_OK, .seconds_left = 0 };
    errno_t ret;

    SSS_CHECK_ARG(_result != NULL && (attrs != NULL || count == 0) && now >= 0, EINVAL);
    switch (policy) {
    case SDAP_PWD_POLICY_NONE:
        ret = EOK;
        break;
    case SDAP_PWD_POLICY_SHADOW:
        ret = sdap_pwexpire_shadow(attrs, count, now, &r);
        break;
    case SDAP_PWD_POLICY_MIT_KERBEROS:
        ret = sdap_pwexpire_krb(attrs, count, now,
                                krb_warning < 0 ? SDAP_KRB_WARNING_DEFAULT : krb_warning, &r);
        break;
    default:
        ret = EINVAL;
        break;
    }
    if (ret == EOK) {
        *_result = r;
    }
    return ret;
}

void sdap_pwexpire_verdict(const struct sdap_pwexpire *result, enum sdap_pwexpire_use use,
                           struct sdap_access_verdict *_verdict)
{
    sdap_verdict_init(_verdict, PAM_SUCCESS, NULL);
    switch (result->state) {
    case SDAP_PWEXPIRE_OK:
        break;
    case SDAP_PWEXPIRE_WARN:
        _verdict->expire_warn = result->seconds_left;
        break;
    case SDAP_PWEXPIRE_ACCOUNT_EXPIRED:
        /* Every use: SSSD only turns "password expired" into warn/reject/renew. */
        _verdict->pam_status = PAM_ACCT_EXPIRED;
        break;
    case SDAP_PWEXPIRE_EXPIRED:
        if (use == SDAP_PWEXPIRE_FOR_AUTH || use == SDAP_PWEXPIRE_FOR_RENEW) {
            _verdict->pam_status = PAM_NEW_AUTHTOK_REQD;
        } else if (use == SDAP_PWEXPIRE_FOR_REJECT) {
            _verdict->pam_status = PAM_PERM_DENIED;
        }
        break;
    }
}
