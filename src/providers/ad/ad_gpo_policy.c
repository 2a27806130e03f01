/*
 * The pure parts of GPO-based access control (ad_gpo.h): GptTmpl.inf decoding and
 * parsing, the resultant policy, gPLink and SOM parsing, GPO precedence, the PAM service
 * map and the allow/deny decision. Everything read here comes from the directory or the
 * DC's SYSVOL, hence untrusted: bounded, and malformed input is an error, never a guess.
 */
#include <ctype.h>
#include <string.h>
#include <strings.h>

#include "providers/ad/ad_gpo.h"

static const char *const right_names[AD_GPO_RIGHT_NUM] = {
    "Interactive", "Remote Interactive", "Network", "Batch", "Service", "Permitted",
    "Denied"
};
/* ad_gpo_default_right's words, in enum order. */
static const char *const right_words[AD_GPO_RIGHT_NUM] = {
    "interactive", "remote_interactive", "network", "batch", "service", "permit", "deny"
};
static const char *const right_keys[AD_GPO_NUM_KEYS] = {
    "SeInteractiveLogonRight", "SeDenyInteractiveLogonRight",
    "SeRemoteInteractiveLogonRight", "SeDenyRemoteInteractiveLogonRight",
    "SeNetworkLogonRight", "SeDenyNetworkLogonRight",
    "SeBatchLogonRight", "SeDenyBatchLogonRight",
    "SeServiceLogonRight", "SeDenyServiceLogonRight",
};

/* SSSD 2.8's defaults (Debian build: the cron service is "cron"). */
static const char *const map_interactive[] = {
    "login", "su", "su-l", "gdm-fingerprint", "gdm-password", "gdm-smartcard", "kdm",
    "lightdm", "lxdm", "sddm", "unity", "xdm", NULL
};
static const char *const map_remote_interactive[] = { "sshd", "cockpit", NULL };
static const char *const map_network[] = { "ftp", "samba", NULL };
static const char *const map_batch[] = { "cron", NULL };
static const char *const map_none[] = { NULL };
static const char *const map_permit[] = {
    "polkit-1", "sudo", "sudo-i", "systemd-user", NULL
};
static const char *const *const map_defaults[AD_GPO_RIGHT_NUM] = {
    map_interactive, map_remote_interactive, map_network, map_batch, map_none,
    map_permit, map_none
};

const char *ad_gpo_right_name(enum ad_gpo_right right)
{
    return right < AD_GPO_RIGHT_NUM ? right_names[right] : "-unknown-";
}

const char *ad_gpo_right_key(enum ad_gpo_right right, bool deny)
{
    if (right >= AD_GPO_NUM_LOGON_RIGHTS) {
        return NULL;
    }
    return right_keys[2 * right + (deny ? 1 : 0)];
}

/* ---- GptTmpl.inf ------------------------------------------------------------------ */

/* UTF-16LE (after its BOM) to NUL-terminated UTF-8. */
static errno_t utf16le_to_utf8(TALLOC_CTX *mem_ctx, const uint8_t *in, size_t len,
                               char **_out)
{
    char *out;
    size_t o = 0;
    uint32_t cp;
    uint32_t lo;

    if (len % 2 != 0) {
        return EINVAL;
    }
    /* At most 3 bytes per UTF-16 unit (4 per surrogate pair of two units). */
    out = talloc_size(mem_ctx, len / 2 * 3 + 1);
    if (out == NULL) {
        return ENOMEM;
    }
    for (size_t i = 0; i < len; i += 2) {
        cp = (uint32_t)in[i] | ((uint32_t)in[i + 1] << 8);
        if (cp >= 0xDC00 && cp <= 0xDFFF) {
            goto bad;
        }
        if (cp >= 0xD800 && cp <= 0xDBFF) {
            if (i + 3 >= len) {
                goto bad;
            }
            lo = (uint32_t)in[i + 2] | ((uint32_t)in[i + 3] << 8);
            if (lo < 0xDC00 || lo > 0xDFFF) {
                goto bad;
            }
            cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
            i += 2;
        }
        if (cp == 0) {
            goto bad;
        } else if (cp < 0x80) {
            out[o++] = (char)cp;
        } else if (cp < 0x800) {
            out[o++] = (char)(0xC0 | (cp >> 6));
            out[o++] = (char)(0x80 | (cp & 0x3F));
        } else if (cp < 0x10000) {
            out[o++] = (char)(0xE0 | (cp >> 12));
            out[o++] = (char)(0x80 | ((cp >> 6) & 0x3F));
            out[o++] = (char)(0x80 | (cp & 0x3F));
        } else {
            out[o++] = (char)(0xF0 | (cp >> 18));
            out[o++] = (char)(0x80 | ((cp >> 12) & 0x3F));
            out[o++] = (char)(0x80 | ((cp >> 6) & 0x3F));
            out[o++] = (char)(0x80 | (cp & 0x3F));
        }
    }
    out[o] = '\0';
    *_out = out;
    return EOK;
bad:
    talloc_free(out);
    return EINVAL;
}

/* The text of the file, NUL-terminated, whatever its encoding. */
static errno_t inf_text(TALLOC_CTX *mem_ctx, const uint8_t *data, size_t len, char **_text)
{
    if (len >= 2 && data[0] == 0xFF && data[1] == 0xFE) {
        return utf16le_to_utf8(mem_ctx, data + 2, len - 2, _text);
    }
    if (len >= 3 && data[0] == 0xEF && data[1] == 0xBB && data[2] == 0xBF) {
        data += 3;
        len -= 3;
    }
    if (memchr(data, '\0', len) != NULL) {
        return EINVAL;
    }
    *_text = talloc_strndup(mem_ctx, (const char *)data, len);
    return *_text == NULL ? ENOMEM : EOK;
}

/* Trims spaces and tabs at both ends, in place. */
static char *trim(char *s)
{
    char *end;

    while (*s == ' ' || *s == '\t') {
        s++;
    }
    end = s + strlen(s);
    while (end > s && (end[-1] == ' ' || end[-1] == '\t' || end[-1] == '\r')) {
        *--end = '\0';
    }
    return s;
}

/* "*S-1-5-32-544, *S-1-5-21-...": the items, trimmed, '*' stripped (strip_star), empty
 * ones skipped. */
static errno_t sid_list_parse(TALLOC_CTX *mem_ctx, char *value, bool strip_star,
                              char ***_sids, size_t *_num)
{
    char **sids;
    size_t num = 0;
    size_t max = 1;
    char *item;
    char *next;

    for (const char *p = value; *p != '\0'; p++) {
        max += *p == ',' ? 1 : 0;
    }
    sids = talloc_zero_array(mem_ctx, char *, max + 1);
    if (sids == NULL) {
        return ENOMEM;
    }
    for (item = value; item != NULL; item = next) {
        next = strchr(item, ',');
        if (next != NULL) {
            *next++ = '\0';
        }
        item = trim(item);
        if (strip_star && item[0] == '*') {
            item++;
        }
        if (item[0] == '\0') {
            continue;
        }
        sids[num] = talloc_strdup(sids, item);
        if (sids[num] == NULL) {
            talloc_free(sids);
            return ENOMEM;
        }
        num++;
    }
    *_sids = sids;
    *_num = num;
    return EOK;
}

static int key_index(const char *key)
{
    for (int k = 0; k < AD_GPO_NUM_KEYS; k++) {
        if (strcasecmp(key, right_keys[k]) == 0) {
            return k;
        }
    }
    return -1;
}

errno_t ad_gpo_inf_parse(TALLOC_CTX *mem_ctx, const uint8_t *data, size_t len,
                         struct ad_gpo_settings **_settings)
{
    TALLOC_CTX *tmp_ctx;
    struct ad_gpo_settings *s;
    char *text = NULL;
    char *line;
    char *next;
    char *eq;
    char *key;
    bool in_rights = false;
    int k;
    errno_t ret;

    SSS_CHECK_ARG((data != NULL || len == 0) && _settings != NULL, EINVAL);
    if (len > AD_GPO_INF_MAX) {
        return EFBIG;
    }
    tmp_ctx = talloc_new(NULL);
    s = talloc_zero(mem_ctx, struct ad_gpo_settings);
    if (tmp_ctx == NULL || s == NULL) {
        ret = ENOMEM;
        goto done;
    }
    ret = inf_text(tmp_ctx, data == NULL ? (const uint8_t *)"" : data, len, &text);
    if (ret != EOK) {
        goto done;
    }
    for (line = text; line != NULL; line = next) {
        next = strchr(line, '\n');
        if (next != NULL) {
            *next++ = '\0';
        }
        line = trim(line);
        if (line[0] == '\0' || line[0] == ';' || line[0] == '#') {
            continue;
        }
        if (line[0] == '[') {
            char *close = strchr(line, ']');

            if (close == NULL) {
                ret = EINVAL;
                goto done;
            }
            *close = '\0';
            in_rights = strcasecmp(trim(line + 1), "Privilege Rights") == 0;
            continue;
        }
        if (!in_rights) {
            continue;
        }
        eq = strchr(line, '=');
        if (eq == NULL) {
            /* A key without a value names no SID: nothing to apply. */
            continue;
        }
        *eq = '\0';
        key = trim(line);
        k = key_index(key);
        if (k < 0) {
            continue;
        }
        /* A key given twice: the last one counts (libini's default, which SSSD uses). */
        talloc_free(s->sids[k]);
        s->sids[k] = NULL;
        ret = sid_list_parse(s, trim(eq + 1), true, &s->sids[k], &s->num[k]);
        if (ret != EOK) {
            goto done;
        }
        s->present[k] = true;
    }
    ret = EOK;
done:
    talloc_free(tmp_ctx);
    if (ret != EOK) {
        talloc_free(s);
        return ret;
    }
    *_settings = s;
    return EOK;
}

errno_t ad_gpo_settings_apply(struct ad_gpo_settings *result,
                              const struct ad_gpo_settings *gpo)
{
    char **copy;

    SSS_CHECK_ARG(result != NULL && gpo != NULL, EINVAL);
    for (int k = 0; k < AD_GPO_NUM_KEYS; k++) {
        if (!gpo->present[k]) {
            continue;
        }
        copy = NULL;
        if (gpo->num[k] > 0) {
            copy = talloc_zero_array(result, char *, gpo->num[k] + 1);
            if (copy == NULL) {
                return ENOMEM;
            }
            for (size_t i = 0; i < gpo->num[k]; i++) {
                copy[i] = talloc_strdup(copy, gpo->sids[k][i]);
                if (copy[i] == NULL) {
                    talloc_free(copy);
                    return ENOMEM;
                }
            }
        }
        /* An explicitly empty value removes the setting (SSSD deletes it). */
        talloc_free(result->sids[k]);
        result->sids[k] = copy;
        result->num[k] = gpo->num[k];
        result->present[k] = copy != NULL;
    }
    return EOK;
}

/* ---- which GPOs ------------------------------------------------------------------- */

errno_t ad_gpo_gplink_parse(TALLOC_CTX *mem_ctx, const char *raw, bool enforced_only,
                            struct ad_gpo_link **_links, size_t *_num)
{
    TALLOC_CTX *tmp_ctx;
    struct ad_gpo_link *links;
    size_t num = 0;
    size_t max = 0;
    const char *p;
    const char *close;
    const char *semi;
    char *dn;
    char *end;
    unsigned long opt;
    errno_t ret;

    SSS_CHECK_ARG(raw != NULL && _links != NULL && _num != NULL, EINVAL);
    for (p = raw; *p != '\0'; p++) {
        max += *p == ']' ? 1 : 0;
    }
    tmp_ctx = talloc_new(NULL);
    links = talloc_zero_array(mem_ctx, struct ad_gpo_link, max + 1);
    if (tmp_ctx == NULL || links == NULL) {
        ret = ENOMEM;
        goto done;
    }
    for (p = raw; *p != '\0'; p = close + 1) {
        close = strchr(p, ']');
        if (p[0] != '[' || close == NULL) {
            ret = EINVAL;
            goto done;
        }
        /* The options follow the last ';' (a DN may hold an escaped one). */
        semi = NULL;
        for (const char *q = p + 1; q < close; q++) {
            semi = *q == ';' ? q : semi;
        }
        if (semi == NULL || semi + 1 == close || !isdigit((unsigned char)semi[1])) {
            ret = EINVAL;
            goto done;
        }
        errno = 0;
        opt = strtoul(semi + 1, &end, 10);
        if (errno != 0 || end != close) {
            ret = EINVAL;
            goto done;
        }
        p++;
        if (strncasecmp(p, "LDAP://", 7) == 0) {
            p += 7;
        }
        if (p >= semi) {
            ret = EINVAL;
            goto done;
        }
        if (opt == 1 || opt == 3 || (opt == 0 && enforced_only)) {
            continue;   /* disabled, or inheritance blocked below this SOM */
        }
        if (opt != 0 && opt != 2) {
            ret = EINVAL;
            goto done;
        }
        dn = talloc_strndup(links, p, semi - p);
        if (dn == NULL) {
            ret = ENOMEM;
            goto done;
        }
        links[num].gpo_dn = dn;
        links[num].enforced = opt == 2;
        num++;
    }
    ret = EOK;
done:
    talloc_free(tmp_ctx);
    if (ret != EOK) {
        talloc_free(links);
        return ret;
    }
    *_links = links;
    *_num = num;
    return EOK;
}

/* The position just after the first unescaped ',' of dn, or NULL. */
static const char *dn_parent(const char *dn)
{
    for (const char *p = dn; *p != '\0'; p++) {
        if (*p == '\\') {
            if (p[1] == '\0') {
                return NULL;
            }
            p++;
        } else if (*p == ',') {
            return p + 1;
        }
    }
    return NULL;
}

errno_t ad_gpo_som_dns(TALLOC_CTX *mem_ctx, const char *target_dn, char ***_soms,
                       size_t *_num)
{
    char **soms;
    size_t num = 0;
    size_t max = 1;
    const char *p;

    SSS_CHECK_ARG(target_dn != NULL && _soms != NULL && _num != NULL, EINVAL);
    for (p = target_dn; *p != '\0'; p++) {
        max += *p == ',' ? 1 : 0;
    }
    soms = talloc_zero_array(mem_ctx, char *, max + 1);
    if (soms == NULL) {
        return ENOMEM;
    }
    for (p = dn_parent(target_dn); p != NULL; p = dn_parent(p)) {
        while (*p == ' ') {
            p++;
        }
        if (strncasecmp(p, "OU=", 3) == 0 || strncasecmp(p, "DC=", 3) == 0) {
            soms[num] = talloc_strdup(soms, p);
            if (soms[num] == NULL) {
                talloc_free(soms);
                return ENOMEM;
            }
            num++;
        }
        if (strncasecmp(p, "DC=", 3) == 0) {
            break;
        }
    }
    if (num == 0 || strncasecmp(soms[num - 1], "DC=", 3) != 0) {
        /* No domain component: not a DN inside a domain. */
        talloc_free(soms);
        return EINVAL;
    }
    *_soms = soms;
    *_num = num;
    return EOK;
}

errno_t ad_gpo_candidates(TALLOC_CTX *mem_ctx, const struct ad_gpo_som *soms,
                          size_t num_soms, char ***_dns, size_t *_num)
{
    char **dns;
    size_t total = 0;
    size_t n = 0;

    SSS_CHECK_ARG((soms != NULL || num_soms == 0) && _dns != NULL && _num != NULL, EINVAL);
    for (size_t s = 0; s < num_soms; s++) {
        total += soms[s].num_links;
    }
    dns = talloc_zero_array(mem_ctx, char *, total + 1);
    if (dns == NULL) {
        return ENOMEM;
    }
    /* Unenforced, walking the SOMs and their links backwards: the nearest SOM's first
     * link ends up last, winning. */
    for (size_t s = num_soms; s-- > 0;) {
        for (size_t l = soms[s].num_links; l-- > 0;) {
            if (!soms[s].links[l].enforced) {
                dns[n++] = soms[s].links[l].gpo_dn;
            }
        }
    }
    /* Enforced after all of them, nearest SOM first: the farthest enforced one wins. */
    for (size_t s = 0; s < num_soms; s++) {
        for (size_t l = 0; l < soms[s].num_links; l++) {
            if (soms[s].links[l].enforced) {
                dns[n++] = soms[s].links[l].gpo_dn;
            }
        }
    }
    assert(n == total);
    for (size_t i = 0; i < n; i++) {
        dns[i] = talloc_strdup(dns, dns[i]);
        if (dns[i] == NULL) {
            talloc_free(dns);
            return ENOMEM;
        }
    }
    *_dns = dns;
    *_num = n;
    return EOK;
}

bool ad_gpo_has_security_cse(const char *names)
{
    const char *p;
    size_t len = strlen(AD_GPO_CSE_SECURITY);

    if (names == NULL) {
        return false;
    }
    /* Each bracket opens with the CSE's GUID, then its tools' GUIDs. */
    for (p = strchr(names, '['); p != NULL; p = strchr(p + 1, '[')) {
        if (strncasecmp(p + 1, AD_GPO_CSE_SECURITY, len) == 0) {
            return true;
        }
    }
    return false;
}

errno_t ad_gpo_smb_uri(TALLOC_CTX *mem_ctx, const char *server, const char *path,
                       char **_uri)
{
    const char *rest = path;
    char *uri;

    SSS_CHECK_ARG(server != NULL && path != NULL && _uri != NULL, EINVAL);
    /* Skip "\\domain": the share path starts at the third backslash. */
    for (int i = 0; i < 3 && rest != NULL; i++) {
        rest = strchr(i == 0 ? rest : rest + 1, '\\');
    }
    if (rest == NULL || server[0] == '\0' || strchr(server, '/') != NULL) {
        return EINVAL;
    }
    uri = talloc_asprintf(mem_ctx, "smb://%s%s%s", server, rest, AD_GPO_GPTTMPL_SUFFIX);
    if (uri == NULL) {
        return ENOMEM;
    }
    for (char *c = uri; *c != '\0'; c++) {
        *c = *c == '\\' ? '/' : *c;
    }
    *_uri = uri;
    return EOK;
}

/* ---- services and the decision ---------------------------------------------------- */

struct ad_gpo_map_entry {
    char *service;
    enum ad_gpo_right right;
};

struct ad_gpo_map {
    struct ad_gpo_map_entry *entries;
    size_t num;
    enum ad_gpo_right default_right;
};

static errno_t map_add(struct ad_gpo_map *map, const char *service, enum ad_gpo_right right)
{
    struct ad_gpo_map_entry *entries;

    for (size_t i = 0; i < map->num; i++) {
        if (strcasecmp(map->entries[i].service, service) == 0) {
            if (map->entries[i].right == right) {
                return EOK;
            }
            DEBUG(SSSDBG_CRIT_FAILURE, "Configuration error: PAM service %s maps to both "
                  "%s and %s (remove it from one map with the '-service' syntax of the "
                  "ad_gpo_map_* options)\n", service,
                  right_names[map->entries[i].right], right_names[right]);
            return EINVAL;
        }
    }
    entries = talloc_realloc(map, map->entries, struct ad_gpo_map_entry, map->num + 1);
    if (entries == NULL) {
        return ENOMEM;
    }
    map->entries = entries;
    entries[map->num].service = talloc_strdup(entries, service);
    if (entries[map->num].service == NULL) {
        return ENOMEM;
    }
    entries[map->num].right = right;
    map->num++;
    return EOK;
}

static bool map_removed(char **items, size_t num, const char *svc)
{
    for (size_t r = 0; r < num; r++) {
        if (items[r][0] == '-' && strcasecmp(items[r] + 1, svc) == 0) {
            return true;
        }
    }
    return false;
}

/* The items of one ad_gpo_map_* option: added ones first, then the defaults, each unless
 * removed. */
static errno_t map_option(struct ad_gpo_map *map, enum ad_gpo_right right, const char *opt)
{
    TALLOC_CTX *tmp_ctx = talloc_new(NULL);
    char **items = NULL;
    size_t num = 0;
    errno_t ret;

    if (tmp_ctx == NULL) {
        return ENOMEM;
    }
    if (opt != NULL) {
        char *copy = talloc_strdup(tmp_ctx, opt);

        ret = copy == NULL ? ENOMEM : sid_list_parse(tmp_ctx, copy, false, &items, &num);
        if (ret != EOK) {
            goto done;
        }
    }
    for (size_t i = 0; i < num; i++) {
        if ((items[i][0] != '+' && items[i][0] != '-') || items[i][1] == '\0') {
            DEBUG(SSSDBG_CRIT_FAILURE, "ad_gpo_map values must start with either '+' (to "
                  "add a service) or '-' (to remove one), got '%s'\n", items[i]);
            ret = EINVAL;
            goto done;
        }
    }
    for (size_t i = 0; i < num; i++) {
        if (items[i][0] == '+' && !map_removed(items, num, items[i] + 1)) {
            ret = map_add(map, items[i] + 1, right);
            if (ret != EOK) {
                goto done;
            }
        }
    }
    for (size_t i = 0; map_defaults[right][i] != NULL; i++) {
        if (!map_removed(items, num, map_defaults[right][i])) {
            ret = map_add(map, map_defaults[right][i], right);
            if (ret != EOK) {
                goto done;
            }
        }
    }
    ret = EOK;
done:
    talloc_free(tmp_ctx);
    return ret;
}

errno_t ad_gpo_map_create(TALLOC_CTX *mem_ctx, const char *const opts[AD_GPO_RIGHT_NUM],
                          const char *default_right, struct ad_gpo_map **_map)
{
    struct ad_gpo_map *map;
    errno_t ret;
    int r;

    SSS_CHECK_ARG(opts != NULL && _map != NULL, EINVAL);
    map = talloc_zero(mem_ctx, struct ad_gpo_map);
    if (map == NULL) {
        return ENOMEM;
    }
    for (r = 0; r < AD_GPO_RIGHT_NUM; r++) {
        ret = map_option(map, r, opts[r]);
        if (ret != EOK) {
            goto done;
        }
    }
    map->default_right = AD_GPO_RIGHT_DENY;
    if (default_right != NULL && default_right[0] != '\0') {
        for (r = 0; r < AD_GPO_RIGHT_NUM; r++) {
            if (strcasecmp(default_right, right_words[r]) == 0) {
                break;
            }
        }
        if (r == AD_GPO_RIGHT_NUM) {
            DEBUG(SSSDBG_CRIT_FAILURE, "ad_gpo_default_right '%s' is not one of "
                  "interactive, remote_interactive, network, batch, service, permit, "
                  "deny\n", default_right);
            ret = EINVAL;
            goto done;
        }
        map->default_right = r;
    }
    ret = EOK;
done:
    if (ret != EOK) {
        talloc_free(map);
        return ret;
    }
    *_map = map;
    return EOK;
}

enum ad_gpo_right ad_gpo_map_service(const struct ad_gpo_map *map, const char *service)
{
    assert(map != NULL);
    for (size_t i = 0; service != NULL && i < map->num; i++) {
        if (strcasecmp(map->entries[i].service, service) == 0) {
            return map->entries[i].right;
        }
    }
    return map->default_right;
}

/* Whether the user's SID, one of its groups' or Authenticated Users is in the list. */
static bool sids_match(char **list, size_t num, const char *user_sid,
                       const char *const *group_sids, size_t num_groups)
{
    for (size_t i = 0; i < num; i++) {
        if (strcasecmp(list[i], AD_GPO_AUTHENTICATED_USERS_SID) == 0
                || (user_sid != NULL && strcasecmp(list[i], user_sid) == 0)) {
            return true;
        }
        for (size_t g = 0; g < num_groups; g++) {
            if (group_sids[g] != NULL && strcasecmp(list[i], group_sids[g]) == 0) {
                return true;
            }
        }
    }
    return false;
}

enum ad_gpo_verdict ad_gpo_check(const struct ad_gpo_settings *policy,
                                 enum ad_gpo_right right, bool implicit_deny,
                                 const char *user_sid, const char *const *group_sids,
                                 size_t num_groups)
{
    size_t a;
    size_t d;

    assert(policy != NULL && (group_sids != NULL || num_groups == 0));
    if (right == AD_GPO_RIGHT_PERMIT) {
        return AD_GPO_ALLOWED;
    }
    if (right >= AD_GPO_NUM_LOGON_RIGHTS) {
        return AD_GPO_DENIED;
    }
    a = 2 * right;
    d = a + 1;
    if (sids_match(policy->sids[d], policy->num[d], user_sid, group_sids, num_groups)) {
        return AD_GPO_DENIED;
    }
    if (policy->num[a] == 0) {
        return implicit_deny ? AD_GPO_NOT_ALLOWED : AD_GPO_ALLOWED;
    }
    if (sids_match(policy->sids[a], policy->num[a], user_sid, group_sids, num_groups)) {
        return AD_GPO_ALLOWED;
    }
    return AD_GPO_NOT_ALLOWED;
}
