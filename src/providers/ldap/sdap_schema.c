/*
 * From parsed LDAP entries to struct sdap_user / struct sdap_group through the attribute
 * maps (sdap_options.user_map / group_map, filled from confdb's per-schema defaults and the
 * ldap_user_* / ldap_group_* overrides). This is where hostile data is refused: missing or
 * non-numeric ids, id 0 or outside [min_id, max_id], empty or invalid UTF-8 names. Every
 * refusal is logged with the entry's DN, and the entry is skipped by the caller.
 */
#include <ctype.h>
#include <stdlib.h>

#include "util/util.h"
#include "providers/ldap/sdap_private.h"
#include "lib/idmap/idmap.h"

const struct sdap_attr *sdap_entry_attr(const struct sdap_entry *entry, const char *name)
{
    size_t i;

    if (entry == NULL || name == NULL) {
        return NULL;
    }
    for (i = 0; i < entry->num_attrs; i++) {
        if (strcasecmp(entry->attrs[i].name, name) == 0) {
            return &entry->attrs[i];
        }
    }
    return NULL;
}

const char *sdap_entry_value(const struct sdap_entry *entry, const char *name)
{
    const struct sdap_attr *attr = sdap_entry_attr(entry, name);

    if (attr == NULL || attr->num_values == 0) {
        return NULL;
    }
    return attr->values[0];
}

bool sdap_entry_has_oc(const struct sdap_entry *entry, const char *oc)
{
    const struct sdap_attr *attr = sdap_entry_attr(entry, "objectClass");
    size_t i;

    for (i = 0; attr != NULL && oc != NULL && i < attr->num_values; i++) {
        if (strcasecmp(attr->values[i], oc) == 0) {
            return true;
        }
    }
    return false;
}

/* Appends the non-NULL names of map[0..n) to a NULL-terminated list. */
static const char **attrs_append(TALLOC_CTX *mem_ctx, const char **list,
                                 const char *const *map, size_t n, int skip)
{
    size_t len = 0;
    size_t i;

    while (list != NULL && list[len] != NULL) len++;
    list = talloc_realloc(mem_ctx, list, const char *, len + n + 1);
    if (list == NULL) {
        return NULL;
    }
    for (i = 0; i < n; i++) {
        if (map[i] != NULL && (int)i != skip) {
            list[len++] = map[i];
        }
    }
    list[len] = NULL;
    return list;
}

const char **sdap_user_attrs(TALLOC_CTX *mem_ctx, const struct sdap_options *opts)
{
    const char *oc[] = { "objectClass" };
    const char **list = attrs_append(mem_ctx, NULL, oc, 1, -1);

    if (list == NULL) {
        return NULL;
    }
    list = attrs_append(mem_ctx, list, opts->user_map, SDAP_UA_MAX, SDAP_UA_OC);
    if (list == NULL) {
        return NULL;
    }
    return attrs_append(mem_ctx, list, opts->extra_ldap, opts->num_extra, -1);
}

const char **sdap_group_attrs(TALLOC_CTX *mem_ctx, const struct sdap_options *opts,
                              bool with_members)
{
    const char *oc[] = { "objectClass" };
    const char **list = attrs_append(mem_ctx, NULL, oc, 1, -1);

    if (list == NULL) {
        return NULL;
    }
    list = attrs_append(mem_ctx, list, opts->group_map, SDAP_GA_MEMBER, SDAP_GA_OC);
    if (list != NULL && with_members) {
        list = attrs_append(mem_ctx, list, &opts->group_map[SDAP_GA_MEMBER], 1, -1);
    }
    return list;
}

const char **sdap_any_attrs(TALLOC_CTX *mem_ctx, const struct sdap_options *opts)
{
    const char **list = sdap_user_attrs(mem_ctx, opts);

    if (list == NULL) {
        return NULL;
    }
    return attrs_append(mem_ctx, list, opts->group_map, SDAP_GA_MAX, SDAP_GA_OC);
}

bool sdap_utf8_valid(const char *str, size_t len)
{
    const unsigned char *s = (const unsigned char *)str;
    size_t i = 0;

    while (i < len) {
        unsigned char c = s[i];
        size_t n;
        uint32_t cp;
        size_t k;

        if (c < 0x80) {
            i++;
            continue;
        } else if (c >= 0xc2 && c <= 0xdf) {
            n = 1; cp = c & 0x1f;
        } else if (c >= 0xe0 && c <= 0xef) {
            n = 2; cp = c & 0x0f;
        } else if (c >= 0xf0 && c <= 0xf4) {
            n = 3; cp = c & 0x07;
        } else {
            return false;
        }
        if (i + n >= len) {
            return false;
        }
        for (k = 1; k <= n; k++) {
            if ((s[i + k] & 0xc0) != 0x80) {
                return false;
            }
            cp = (cp << 6) | (s[i + k] & 0x3f);
        }
        /* overlong forms, surrogates, beyond U+10FFFF */
        if ((n == 2 && cp < 0x800) || (n == 3 && cp < 0x10000) || cp > 0x10ffff
                || (cp >= 0xd800 && cp <= 0xdfff)) {
            return false;
        }
        i += n + 1;
    }
    return true;
}

#define SDAP_ONES UINT64_C(0x0101010101010101)
#define SDAP_HIGHS UINT64_C(0x8080808080808080)

/* Whether a byte of x (all below 0x80) is a control character (< 0x20, or 0x7f). The
 * borrow tricks can flag a byte above a true hit, never flag a word without one. */
static bool sdap_word_has_control(uint64_t x)
{
    uint64_t del = x ^ (SDAP_ONES * 0x7f);

    return (((x - SDAP_ONES * 0x20) & ~x) | ((del - SDAP_ONES) & ~del)) & SDAP_HIGHS;
}

/* The rest of a name from its first non-ASCII byte's word on: valid UTF-8, no controls. */
static bool sdap_valid_name_rest(const unsigned char *s, size_t len)
{
    size_t i;

    if (!sdap_utf8_valid((const char *)s, len)) {
        return false;
    }
    for (i = 0; i < len; i++) {
        if (s[i] < 0x20 || s[i] == 0x7f) {
            return false;
        }
    }
    return true;    /* a non-ASCII character is not a blank */
}

/* Non-empty, valid UTF-8, no control characters, not only blanks. Eight ASCII bytes at a
 * time (every member of every group goes through here: three passes a byte at a time were
 * 14% of a cold initgroups); from the first word with another byte, the UTF-8 check. What
 * precedes that word is whole ASCII characters. */
bool sdap_valid_name(const char *name)
{
    const unsigned char *s = (const unsigned char *)name;
    bool blank = true;
    uint64_t x;
    size_t len;
    size_t i;

    if (name == NULL) {
        return false;
    }
    len = strlen(name);
    for (i = 0; i + 8 <= len; i += 8) {
        memcpy(&x, s + i, 8);
        if (x & SDAP_HIGHS) {
            return sdap_valid_name_rest(s + i, len - i);
        }
        if (sdap_word_has_control(x)) {
            return false;
        }
        blank = blank && x == SDAP_ONES * ' ';
    }
    for (; i < len; i++) {
        if (s[i] >= 0x80) {
            return sdap_valid_name_rest(s + i, len - i);
        }
        if (s[i] < 0x20 || s[i] == 0x7f) {
            return false;
        }
        blank = blank && s[i] == ' ';
    }
    return !blank;          /* also false for "" */
}

errno_t sdap_parse_id(const char *str, uint32_t min_id, uint32_t max_id, uint32_t *_id)
{
    unsigned long long v = 0;
    const char *p;

    if (str == NULL || str[0] == '\0') {
        return EINVAL;
    }
    for (p = str; *p != '\0'; p++) {
        if (*p < '0' || *p > '9') {
            return EINVAL;
        }
        v = v * 10 + (unsigned long long)(*p - '0');
        if (v > UINT32_MAX) {
            return ERANGE;
        }
    }
    /* 4294967295 is (uid_t)-1: setreuid() and chown() read it as "leave unchanged". */
    if (v == 0 || v == UINT32_MAX || v < min_id || (max_id != 0 && v > max_id)) {
        return ERANGE;
    }
    *_id = (uint32_t)v;
    return EOK;
}

/* The name of an entry: the only value, or with several the one equal to the RDN value
 * (else the first), logged. */
static errno_t entry_name(TALLOC_CTX *mem_ctx, const struct sdap_entry *entry,
                          const char *attr_name, const char *what, const char **_name)
{
    const struct sdap_attr *attr = sdap_entry_attr(entry, attr_name);
    const char *name;
    char *rdn;
    size_t i;

    if (attr == NULL || attr->num_values == 0) {
        DEBUG(SSSDBG_OP_FAILURE, "%s '%s' has no %s: skipped\n", what, entry->dn, attr_name);
        return EINVAL;
    }
    name = attr->values[0];
    if (attr->num_values > 1) {
        rdn = sdap_dn_rdn_value(mem_ctx, entry->dn, attr_name);
        for (i = 0; rdn != NULL && i < attr->num_values; i++) {
            if (strcasecmp(attr->values[i], rdn) == 0) {
                name = attr->values[i];
                break;
            }
        }
        DEBUG(SSSDBG_MINOR_FAILURE, "%s '%s' has %zu values of %s: using '%s'\n", what,
              entry->dn, attr->num_values, attr_name, name);
        talloc_free(rdn);
    }
    if (!sdap_valid_name(name)) {
        DEBUG(SSSDBG_OP_FAILURE, "%s '%s': %s is empty or not valid UTF-8: skipped\n", what,
              entry->dn, attr_name);
        return EINVAL;
    }
    *_name = name;
    return EOK;
}

static errno_t entry_id(const struct sdap_entry *entry, const char *attr_name,
                        uint32_t min_id, uint32_t max_id, const char *what, uint32_t *_id)
{
    const struct sdap_attr *attr = sdap_entry_attr(entry, attr_name);
    errno_t ret;

    if (attr == NULL || attr->num_values == 0) {
        DEBUG(SSSDBG_OP_FAILURE, "%s '%s' has no %s: skipped\n", what, entry->dn, attr_name);
        return EINVAL;
    }
    if (attr->num_values > 1) {
        DEBUG(SSSDBG_OP_FAILURE, "%s '%s' has %zu values of %s: skipped\n", what, entry->dn,
              attr->num_values, attr_name);
        return EINVAL;
    }
    ret = sdap_parse_id(attr->values[0], min_id, max_id, _id);
    if (ret == EINVAL) {
        DEBUG(SSSDBG_OP_FAILURE, "%s '%s': %s '%.32s' is not a number: skipped\n", what,
              entry->dn, attr_name, attr->values[0]);
        return EINVAL;
    }
    if (ret != EOK) {
        /* max_id 0 means no upper bound but the largest id glibc can carry. */
        DEBUG(SSSDBG_OP_FAILURE, "%s '%s': %s %.32s is 0 or outside [%u, %u]: skipped\n",
              what, entry->dn, attr_name, attr->values[0], min_id,
              max_id != 0 ? max_id : UINT32_MAX - 1);
        return EINVAL;
    }
    return EOK;
}

/* A text attribute that may be absent: "" then, and "" for an invalid value (logged). */
static const char *entry_text(const struct sdap_entry *entry, const char *attr_name,
                              const char *what)
{
    const char *value;

    if (attr_name == NULL) {
        return NULL;
    }
    value = sdap_entry_value(entry, attr_name);
    if (value != NULL && !sdap_utf8_valid(value, strlen(value))) {
        DEBUG(SSSDBG_MINOR_FAILURE, "%s '%s': %s is not valid UTF-8: ignored\n", what,
              entry->dn, attr_name);
        return NULL;
    }
    return value;
}

/* The entry's SID (attr, converted to "S-1-..." by sdap_entry_msg.c when it is objectSid;
 * other attributes hold the string form): its first value when it is a well-formed SID,
 * else NULL (logged when malformed: the entry is kept, without a SID). */
static const char *entry_sid_value(const struct sdap_entry *entry, const char *attr)
{
    const char *value;
    uint8_t *bin = NULL;
    size_t len = 0;
    errno_t ret;

    if (attr == NULL) {
        return NULL;
    }
    value = sdap_entry_value(entry, attr);
    if (value == NULL) {
        return NULL;
    }
    ret = idmap_str_sid_to_bin(NULL, value, &bin, &len);
    talloc_free(bin);
    if (ret != EOK) {
        DEBUG(SSSDBG_MINOR_FAILURE, "'%s': %s is not a SID: ignored\n", entry->dn, attr);
        return NULL;
    }
    return value;
}

/* What every entry of a kind must have: a usable name and id. EINVAL (logged): unusable. */
static errno_t entry_name_id(TALLOC_CTX *mem_ctx, const struct sdap_options *opts,
                             const struct sdap_kind *kind, const struct sdap_entry *entry,
                             const char **_name, uint32_t *_id)
{
    errno_t ret;

    ret = entry_name(mem_ctx, entry, kind->name_attr, kind->label, _name);
    if (ret != EOK) {
        return ret;
    }
    return entry_id(entry, kind->id_attr, opts->min_id, opts->max_id, kind->label, _id);
}

/* The user's Kerberos principal: the first value (SSSD asks libkrb5 for the first one
 * too). One with a control character or without a name before '@' is ignored (logged):
 * the login then uses user@krb5_realm, and the user is still served. */
static const char *entry_principal(const struct sdap_entry *entry, const char *attr_name)
{
    const char *upn = entry_text(entry, attr_name, "user");
    const char *p;

    if (upn == NULL || upn[0] == '\0') {
        return NULL;
    }
    for (p = upn; *p != '\0'; p++) {
        if ((unsigned char)*p < 0x20 || *p == 0x7f) {
            break;
        }
    }
    if (*p != '\0' || upn[0] == '@') {
        DEBUG(SSSDBG_MINOR_FAILURE, "user '%s': %s is not a usable principal: ignored\n",
              entry->dn, attr_name);
        return NULL;
    }
    return upn;
}

/* The parsers build the struct on mem_ctx and free it when the entry is refused: no
 * temporary context on the path that parses every entry of an enumeration. */

/* The name as stored: with the trusted domain's suffix when opts has one. */
static char *sdap_qualified_name(TALLOC_CTX *mem_ctx, const struct sdap_options *opts,
                                 const char *name)
{
    if (opts->name_suffix == NULL) {
        return talloc_strdup(mem_ctx, name);
    }
    return talloc_asprintf(mem_ctx, "%s%s", name, opts->name_suffix);
}

errno_t sdap_parse_user(TALLOC_CTX *mem_ctx, const struct sdap_options *opts,
                        const struct sdap_entry *entry, struct sdap_user **_user)
{
    struct sdap_user *user;
    const char *name = NULL;
    const char *gecos;
    const char *home;
    const char *shell;
    const char *upn;
    const char *sid;
    errno_t ret;

    user = talloc_zero(mem_ctx, struct sdap_user);
    if (user == NULL) {
        return ENOMEM;
    }
    if (opts->idmap != NULL) {
        /* ldap_id_mapping: both ids from SIDs (sdap_idmap.c), in [min_id, max_id] too. */
        ret = entry_name(user, entry, opts->users.name_attr, "user", &name);
        if (ret == EOK) {
            ret = sdap_idmap_user_ids(opts, entry, &user->uid, &user->gid);
        }
        if (ret != EOK) {
            goto done;
        }
    } else {
        ret = entry_name_id(user, opts, &opts->users, entry, &name, &user->uid);
        if (ret != EOK) {
            goto done;
        }
        /* The primary gid must be in [min_id, max_id] too, as SSSD requires for a non-MPG
         * domain ("primary gid out of range"); it is never 0. */
        ret = entry_id(entry, opts->user_map[SDAP_UA_GID], opts->min_id, opts->max_id,
                       "user", &user->gid);
        if (ret != EOK) {
            goto done;
        }
    }
    gecos = entry_text(entry, opts->user_map[SDAP_UA_GECOS], "user");
    if (gecos == NULL) {
        gecos = entry_text(entry, opts->user_map[SDAP_UA_FULLNAME], "user");
    }
    home = entry_text(entry, opts->user_map[SDAP_UA_HOME], "user");
    shell = entry_text(entry, opts->user_map[SDAP_UA_SHELL], "user");
    upn = entry_principal(entry, opts->user_map[SDAP_UA_PRINCIPAL]);

    user->name = sdap_qualified_name(user, opts, name);
    user->gecos = talloc_strdup(user, gecos != NULL ? gecos : "");
    user->home = talloc_strdup(user, home != NULL ? home : "");
    user->shell = talloc_strdup(user, shell != NULL ? shell : "");
    user->orig_dn = talloc_strdup(user, entry->dn);
    user->upn = upn != NULL ? talloc_strdup(user, upn) : NULL;
    user->email = talloc_strdup(user, entry_text(entry, opts->user_map[SDAP_UA_EMAIL], "user"));
    sid = entry_sid_value(entry, opts->user_map[SDAP_UA_OBJSID]);
    user->sid = sid != NULL ? talloc_strdup(user, sid) : NULL;
    ret = sdap_user_extra(user, opts, entry, &user->extra);
    if (ret != EOK) {
        goto done;
    }
    if (user->name == NULL || user->gecos == NULL || user->home == NULL
            || user->shell == NULL || user->orig_dn == NULL
            || (upn != NULL && user->upn == NULL) || (sid != NULL && user->sid == NULL)) {
        ret = ENOMEM;
    }
done:
    if (ret != EOK) {
        talloc_free(user);
        return ret;
    }
    *_user = user;
    return EOK;
}

errno_t sdap_parse_group(TALLOC_CTX *mem_ctx, const struct sdap_options *opts,
                         const struct sdap_entry *entry, struct sdap_group **_group)
{
    struct sdap_group *group;
    const char *name = NULL;
    const char *sid;
    errno_t ret;

    group = talloc_zero(mem_ctx, struct sdap_group);
    if (group == NULL) {
        return ENOMEM;
    }
    if (opts->idmap != NULL) {
        ret = entry_name(group, entry, opts->groups.name_attr, "group", &name);
        if (ret == EOK) {
            ret = sdap_idmap_group_id(opts, entry, &group->gid);
        }
    } else {
        ret = entry_name_id(group, opts, &opts->groups, entry, &name, &group->gid);
    }
    if (ret != EOK) {
        goto done;
    }
    group->name = sdap_qualified_name(group, opts, name);
    group->orig_dn = talloc_strdup(group, entry->dn);
    sid = entry_sid_value(entry, opts->group_map[SDAP_GA_OBJSID]);
    group->sid = sid != NULL ? talloc_strdup(group, sid) : NULL;
    group->member_users = talloc_zero_array(group, const char *, 1);
    group->member_groups = talloc_zero_array(group, const char *, 1);
    if (group->name == NULL || group->orig_dn == NULL || group->member_users == NULL
            || group->member_groups == NULL || (sid != NULL && group->sid == NULL)) {
        ret = ENOMEM;
    }
done:
    if (ret != EOK) {
        talloc_free(group);
        return ret;
    }
    *_group = group;
    return EOK;
}
