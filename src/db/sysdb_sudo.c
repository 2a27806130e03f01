/*
 * sysdb_sudo: the sudo rules of a domain (layout and rules in sysdb_sudo.h). The set's
 * entry cn=sudo lists the rule names packed in one value, so a reader fetches exactly the
 * rules and never scans the rest of the cache; each write keeps that list and bumps the
 * generation in the same transaction, so a reader's copy is valid exactly while the
 * generation it was read at is current.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "db/sysdb_private.h"
#include "db/sysdb_sudo.h"
#include "util/sss_hash.h"

#define SUDO_BASE_DN "cn=sudo"
#define SUDO_A_NAMES "names"        /* packed rule names */
#define SUDO_A_GEN "gen"
#define SUDO_A_FULL "lastFull"
#define SUDO_A_USN "maxUSN"
#define SUDO_A_MODTS "maxModTS"
#define SUDO_A_CN "cn"


/* ---- names and DNs ------------------------------------------------------------------- */

static bool sudo_name_equal(const void *item, const void *key, void *ctx)
{
    (void)ctx;
    return strcasecmp((const char *)item, (const char *)key) == 0;
}

/* Rule names are compared without regard to (ASCII) case, as the directory does for cn. */
static uint64_t sudo_name_hash(const char *name)
{
    uint64_t h = sss_hash_bytes(NULL, 0);
    char c;

    for (; *name != '\0'; name++) {
        c = (*name >= 'A' && *name <= 'Z') ? (char)(*name + 32) : *name;
        h = sss_hash_add(h, &c, 1);
    }
    return h;
}

static errno_t sudo_rule_dn(TALLOC_CTX *mem_ctx, struct sysdb_ctx *sysdb, const char *name,
                            struct ldb_dn **_dn)
{
    struct ldb_dn *dn;
    struct ldb_val val;
    size_t len = name != NULL ? strlen(name) : 0;
    size_t i;
    char *key;

    if (len == 0 || len > SYSDB_NAME_MAX || !sysdb_utf8_valid(name, len)) {
        DEBUG(SSSDBG_OP_FAILURE, "Refusing sudo rule name '%s': empty, not UTF-8 or longer "
              "than %d bytes\n", name != NULL ? name : "(null)", SYSDB_NAME_MAX);
        return EINVAL;
    }
    dn = ldb_dn_new(mem_ctx, sysdb->ldb, SUDO_BASE_DN);
    key = talloc_strdup(dn, name);
    if (dn == NULL || key == NULL) {
        talloc_free(dn);
        return ENOMEM;
    }
    /* The RDN is the name folded as the rule set compares names (the cn attribute keeps
     * the name as written): ldb compares RDN values exactly. */
    for (i = 0; i < len; i++) {
        key[i] = (key[i] >= 'A' && key[i] <= 'Z') ? (char)(key[i] + 32) : key[i];
    }
    val.data = (uint8_t *)key;
    val.length = len;
    if (!ldb_dn_add_child_val(dn, SYSDB_A_NAME, val)) {
        talloc_free(dn);
        return ENOMEM;
    }
    *_dn = dn;
    return EOK;
}

/* ---- the set's entry ----------------------------------------------------------------- */

static errno_t sudo_read_base(TALLOC_CTX *mem_ctx, struct sysdb_ctx *sysdb,
                              const char *const *attrs, struct ldb_message **_msg)
{
    struct ldb_dn *dn;
    errno_t ret;

    dn = ldb_dn_new(NULL, sysdb->ldb, SUDO_BASE_DN);
    if (dn == NULL) {
        return ENOMEM;
    }
    ret = sysdb_read_entry(mem_ctx, sysdb, dn, attrs, _msg);
    talloc_free(dn);
    return ret;
}

/* Writes the set's name list (from the table) and the next generation. */
static errno_t sudo_write_base(struct sysdb_ctx *sysdb, struct sss_hash_table *names,
                               uint64_t gen)
{
    TALLOC_CTX *tmp_ctx;
    struct ldb_message *msg;
    char *packed;
    size_t len = 0;
    size_t pos = 0;
    size_t l;
    void *item;
    errno_t ret;

    tmp_ctx = talloc_new(NULL);
    if (tmp_ctx == NULL) {
        return ENOMEM;
    }
    packed = talloc_strdup(tmp_ctx, "");
    while (packed != NULL && sss_hash_table_next(names, &pos, &item)) {
        l = strlen(item) + 1;
        packed = talloc_realloc(tmp_ctx, packed, char, len + l);
        if (packed != NULL) {
            memcpy(packed + len, item, l);
            len += l;
        }
    }
    msg = sysdb_msg_new(tmp_ctx, sysdb, SUDO_BASE_DN);
    if (packed == NULL || msg == NULL) {
        ret = ENOMEM;
        goto done;
    }
    ret = sysdb_msg_set_val(msg, SUDO_A_NAMES, packed, len);
    if (ret == EOK) {
        ret = sysdb_msg_set_num(msg, SUDO_A_GEN, gen);
    }
    if (ret != EOK) {
        goto done;
    }
    if (len == 0) {
        /* No value at all clears the attribute: an empty set is no names. */
        ldb_msg_remove_attr(msg, SUDO_A_NAMES);
        if (ldb_msg_add_empty(msg, SUDO_A_NAMES, LDB_FLAG_MOD_REPLACE, NULL) != LDB_SUCCESS) {
            ret = ENOMEM;
            goto done;
        }
    }
    ret = sysdb_write_entry(sysdb, msg, SYSDB_EXISTS_UNKNOWN);
done:
    talloc_free(tmp_ctx);
    return ret;
}

/* The set's names in a table (items point into *_owner's memory) and its generation. */
static errno_t sudo_load_names(TALLOC_CTX *mem_ctx, struct sysdb_ctx *sysdb,
                               struct sss_hash_table **_table, uint64_t *_gen)
{
    const char *attrs[] = { SUDO_A_NAMES, SUDO_A_GEN, NULL };
    struct sss_hash_table *table;
    struct ldb_message *msg = NULL;
    const char **names = NULL;
    size_t count = 0;
    size_t i;
    uint64_t gen = 0;
    errno_t ret;

    ret = sudo_read_base(mem_ctx, sysdb, attrs, &msg);
    if (ret == EOK) {
        ret = sysdb_msg_names(mem_ctx, msg, SUDO_A_NAMES, &names, &count);
        if (ret == EOK && ldb_msg_find_element(msg, SUDO_A_GEN) != NULL) {
            ret = sysdb_msg_num(msg, SUDO_A_GEN, UINT64_MAX, &gen);
        }
    } else if (ret == ENOENT) {
        ret = EOK;
    }
    if (ret != EOK) {
        return ret;
    }
    table = sss_hash_table_new(mem_ctx, count + 16, sudo_name_equal, NULL);
    if (table == NULL) {
        return ENOMEM;
    }
    for (i = 0; i < count; i++) {
        ret = sss_hash_table_insert(table, sudo_name_hash(names[i]), names[i],
                                    discard_const_p(char, names[i]), NULL);
        if (ret != EOK && ret != EEXIST) {
            return ret;
        }
    }
    *_table = table;
    *_gen = gen;
    return EOK;
}

/* ---- writes -------------------------------------------------------------------------- */

/* The opening of every write of the set: a tmp_ctx, a transaction, the names and the
 * generation. *_tmp_ctx NULL: nothing was started (the error is returned, the caller has
 * nothing to end). Otherwise the transaction is open, whatever the result of loading the
 * names: the caller ends it with that result and frees *_tmp_ctx. */
static errno_t sudo_write_begin(struct sysdb_ctx *sysdb, TALLOC_CTX **_tmp_ctx,
                                struct sss_hash_table **_names, uint64_t *_gen)
{
    TALLOC_CTX *tmp_ctx;
    errno_t ret;

    *_tmp_ctx = NULL;
    tmp_ctx = talloc_new(NULL);
    if (tmp_ctx == NULL) {
        return ENOMEM;
    }
    ret = sysdb_transaction_start(sysdb);
    if (ret != EOK) {
        talloc_free(tmp_ctx);
        return ret;
    }
    *_tmp_ctx = tmp_ctx;
    return sudo_load_names(tmp_ctx, sysdb, _names, _gen);
}

static errno_t sudo_rule_msg(TALLOC_CTX *mem_ctx, struct sysdb_ctx *sysdb,
                             const struct sysdb_sudo_rule *rule, time_t now, uint32_t timeout,
                             struct ldb_message **_msg)
{
    struct ldb_message *msg;
    struct ldb_message_element *el;
    const char *v;
    size_t total = 0;
    size_t a;
    size_t i;
    int lret;
    errno_t ret;

    msg = ldb_msg_new(mem_ctx);
    if (msg == NULL) {
        return ENOMEM;
    }
    ret = sudo_rule_dn(msg, sysdb, rule->name, &msg->dn);
    if (ret != EOK) {
        goto done;
    }
    ret = sysdb_msg_set_str(msg, SUDO_A_CN, rule->name);
    if (ret == EOK) {
        ret = sysdb_msg_set_str(msg, SYSDB_A_ORIG_DN, rule->orig_dn);
    }
    if (ret == EOK) {
        ret = sysdb_msg_set_times(msg, SYSDB_A_LAST_UPDATE, SYSDB_A_EXPIRE, now,
                                  (uint64_t)now + timeout);
    }
    if (ret != EOK) {
        goto done;
    }
    for (a = 0; a < SYSDB_SUDO_ATTR_MAX; a++) {
        lret = ldb_msg_add_empty(msg, sysdb_sudo_attr_names[a], LDB_FLAG_MOD_REPLACE, &el);
        if (lret != LDB_SUCCESS) {
            ret = ENOMEM;
            goto done;
        }
        for (i = 0; rule->values[a] != NULL && rule->values[a][i] != NULL; i++) {
            v = rule->values[a][i];
            total += strlen(v);
            if (i >= SYSDB_SUDO_MAX_VALUES || total > SYSDB_ATTR_MAX * 16
                    || !sysdb_utf8_valid(v, strlen(v))) {
                DEBUG(SSSDBG_OP_FAILURE, "sudo rule %s: %s has too many, too long or "
                      "non-UTF-8 values\n", rule->name, sysdb_sudo_attr_names[a]);
                ret = EINVAL;
                goto done;
            }
            lret = ldb_msg_add_string(msg, sysdb_sudo_attr_names[a], v);
            if (lret != LDB_SUCCESS) {
                ret = ENOMEM;
                goto done;
            }
        }
    }
    *_msg = msg;
    msg = NULL;
    ret = EOK;
done:
    talloc_free(msg);
    return ret;
}

/* Makes each attribute one element: ldb versions differ on whether ldb_msg_add_string
 * appends to the element ldb_msg_add_empty made or adds another of the same name. */
static errno_t sudo_msg_fold(struct ldb_message *msg)
{
    struct ldb_message_element *els = msg->elements;
    unsigned int n = msg->num_elements;
    unsigned int i;
    unsigned int j;
    unsigned int k;
    struct ldb_val *vals;

    for (i = 0; i < n; i++) {
        for (j = i + 1; j < n; j++) {
            if (ldb_attr_cmp(els[i].name, els[j].name) != 0) {
                continue;
            }
            vals = talloc_realloc(msg->elements, els[i].values, struct ldb_val,
                                  els[i].num_values + els[j].num_values);
            if (vals == NULL) {
                return ENOMEM;
            }
            memcpy(vals + els[i].num_values, els[j].values,
                   els[j].num_values * sizeof(struct ldb_val));
            els[i].values = vals;
            els[i].num_values += els[j].num_values;
            for (k = j; k + 1 < n; k++) {
                els[k] = els[k + 1];
            }
            n--;
            j--;
        }
    }
    msg->num_elements = n;
    return EOK;
}

errno_t sysdb_sudo_store(struct sysdb_ctx *sysdb, struct sysdb_sudo_rule *const *rules,
                         size_t n, time_t now, uint32_t timeout)
{
    TALLOC_CTX *tmp_ctx;
    struct sss_hash_table *names;
    struct ldb_message *msg;
    char *name;
    uint64_t gen;
    size_t i;
    errno_t ret;

    SSS_CHECK_ARG(sysdb != NULL, EINVAL);
    SSS_CHECK_ARG(rules != NULL || n == 0, EINVAL);
    ret = sudo_write_begin(sysdb, &tmp_ctx, &names, &gen);
    if (tmp_ctx == NULL) {
        return ret;
    }
    if (ret != EOK) {
        goto done;
    }
    for (i = 0; i < n; i++) {
        ret = sudo_rule_msg(tmp_ctx, sysdb, rules[i], now, timeout, &msg);
        if (ret == EOK) {
            ret = sudo_msg_fold(msg);
        }
        if (ret == EOK) {
            ret = sysdb_write_entry(sysdb, msg, SYSDB_EXISTS_UNKNOWN);
        }
        if (ret != EOK) {
            goto done;
        }
        talloc_free(msg);
        if (sss_hash_table_get(names, sudo_name_hash(rules[i]->name), rules[i]->name)
                == NULL) {
            name = talloc_strdup(tmp_ctx, rules[i]->name);
            if (name == NULL) {
                ret = ENOMEM;
                goto done;
            }
            ret = sss_hash_table_insert(names, sudo_name_hash(name), name, name, NULL);
            if (ret != EOK) {
                goto done;
            }
        }
    }
    if (sss_hash_table_count(names) > SYSDB_SUDO_MAX_RULES) {
        DEBUG(SSSDBG_OP_FAILURE, "More than %d sudo rules: refused\n", SYSDB_SUDO_MAX_RULES);
        ret = EINVAL;
        goto done;
    }
    ret = sudo_write_base(sysdb, names, gen + 1);
done:
    ret = sysdb_transaction_end(sysdb, ret);
    talloc_free(tmp_ctx);
    return ret;
}

errno_t sysdb_sudo_delete(struct sysdb_ctx *sysdb, const char *const *names_in, size_t n)
{
    TALLOC_CTX *tmp_ctx;
    struct sss_hash_table *names;
    struct ldb_dn *dn;
    uint64_t gen;
    size_t i;
    int lret;
    errno_t ret;

    SSS_CHECK_ARG(sysdb != NULL, EINVAL);
    SSS_CHECK_ARG(names_in != NULL || n == 0, EINVAL);
    ret = sudo_write_begin(sysdb, &tmp_ctx, &names, &gen);
    if (tmp_ctx == NULL) {
        return ret;
    }
    for (i = 0; ret == EOK && i < n; i++) {
        sss_hash_table_remove(names, sudo_name_hash(names_in[i]), names_in[i]);
        ret = sudo_rule_dn(tmp_ctx, sysdb, names_in[i], &dn);
        if (ret == EINVAL) {
            ret = EOK;      /* such a name was never stored */
            continue;
        }
        if (ret != EOK) {
            break;
        }
        lret = sysdb_ldb_delete(sysdb, dn);
        ret = lret == LDB_ERR_NO_SUCH_OBJECT ? EOK : sysdb_ldb_error(sysdb, lret, "Delete");
    }
    if (ret == EOK) {
        ret = sudo_write_base(sysdb, names, gen + 1);
    }
    ret = sysdb_transaction_end(sysdb, ret);
    talloc_free(tmp_ctx);
    return ret;
}

errno_t sysdb_sudo_set_meta(struct sysdb_ctx *sysdb, time_t when, const char *max_usn,
                            const char *max_modts)
{
    struct ldb_message *msg;
    errno_t ret;

    SSS_CHECK_ARG(sysdb != NULL, EINVAL);
    msg = sysdb_msg_new(NULL, sysdb, SUDO_BASE_DN);
    if (msg == NULL) {
        return ENOMEM;
    }
    ret = sysdb_transaction_start(sysdb);
    if (ret != EOK) {
        talloc_free(msg);
        return ret;
    }
    ret = when != 0 ? sysdb_msg_set_num(msg, SUDO_A_FULL, (uint64_t)when) : EOK;
    if (ret == EOK && max_usn != NULL) {
        ret = sysdb_msg_set_str(msg, SUDO_A_USN, max_usn);
    }
    if (ret == EOK && max_modts != NULL) {
        ret = sysdb_msg_set_str(msg, SUDO_A_MODTS, max_modts);
    }
    if (ret == EOK && msg->num_elements > 0) {
        ret = sysdb_write_entry(sysdb, msg, SYSDB_EXISTS_UNKNOWN);
    }
    ret = sysdb_transaction_end(sysdb, ret);
    talloc_free(msg);
    return ret;
}

/* Sets dataExpireTimestamp of the named rules (all: names NULL) to the expired mark. */
static errno_t sudo_expire(struct sysdb_ctx *sysdb, const char *name)
{
    TALLOC_CTX *tmp_ctx;
    struct sss_hash_table *names;
    struct ldb_message *msg;
    size_t pos = 0;
    void *item;
    uint64_t gen;
    size_t done_count = 0;
    errno_t ret;

    ret = sudo_write_begin(sysdb, &tmp_ctx, &names, &gen);
    if (tmp_ctx == NULL) {
        return ret;
    }
    while (ret == EOK && sss_hash_table_next(names, &pos, &item)) {
        if (name != NULL && strcasecmp(name, item) != 0) {
            continue;
        }
        msg = ldb_msg_new(tmp_ctx);
        if (msg == NULL) {
            ret = ENOMEM;
            break;
        }
        ret = sudo_rule_dn(msg, sysdb, item, &msg->dn);
        if (ret == EOK) {
            ret = sysdb_msg_set_num(msg, SYSDB_A_EXPIRE, SYSDB_EXPIRED_TS);
        }
        if (ret == EOK) {
            ret = sysdb_write_entry(sysdb, msg, SYSDB_EXISTS_YES);
        }
        if (ret == ENOENT) {
            ret = EOK;      /* listed but gone: nothing to expire */
            continue;
        }
        done_count++;
    }
    if (ret == EOK && done_count > 0) {
        ret = sudo_write_base(sysdb, names, gen + 1);
    }
    /* A name that matched nothing is no failure of the transaction (the caller's may hold
     * other work): it commits, and the answer is ENOENT. */
    ret = sysdb_transaction_end(sysdb, ret);
    if (ret == EOK && name != NULL && done_count == 0) {
        ret = ENOENT;
    }
    talloc_free(tmp_ctx);
    return ret;
}

errno_t sysdb_sudo_expire(struct sysdb_ctx *sysdb, const char *name)
{
    SSS_CHECK_ARG(sysdb != NULL && name != NULL, EINVAL);
    return sudo_expire(sysdb, name);
}

errno_t sysdb_sudo_expire_all(struct sysdb_ctx *sysdb)
{
    SSS_CHECK_ARG(sysdb != NULL, EINVAL);
    return sudo_expire(sysdb, NULL);
}

/* ---- reads --------------------------------------------------------------------------- */

errno_t sysdb_sudo_get_meta(TALLOC_CTX *mem_ctx, struct sysdb_ctx *sysdb,
                            struct sysdb_sudo_meta *_meta)
{
    const char *attrs[] = { SUDO_A_GEN, SUDO_A_FULL, SUDO_A_USN, SUDO_A_MODTS, NULL };
    struct sysdb_sudo_meta meta = { 0 };
    struct ldb_message *msg;
    uint64_t num;
    errno_t ret;

    SSS_CHECK_ARG(sysdb != NULL && _meta != NULL, EINVAL);
    ret = sudo_read_base(mem_ctx, sysdb, attrs, &msg);
    if (ret == ENOENT) {
        *_meta = meta;
        return EOK;
    }
    if (ret != EOK) {
        return ret;
    }
    if (ldb_msg_find_element(msg, SUDO_A_GEN) != NULL) {
        ret = sysdb_msg_num(msg, SUDO_A_GEN, UINT64_MAX, &meta.gen);
    }
    if (ret == EOK && ldb_msg_find_element(msg, SUDO_A_FULL) != NULL) {
        ret = sysdb_msg_num(msg, SUDO_A_FULL, INT64_MAX, &num);
        meta.last_full = (time_t)num;
    }
    if (ret == EOK) {
        meta.max_usn = sysdb_msg_str(msg, SUDO_A_USN);
        meta.max_modts = sysdb_msg_str(msg, SUDO_A_MODTS);
        meta.max_usn = meta.max_usn != NULL ? talloc_strdup(mem_ctx, meta.max_usn) : NULL;
        meta.max_modts = meta.max_modts != NULL ? talloc_strdup(mem_ctx, meta.max_modts)
                                                : NULL;
        if ((sysdb_msg_str(msg, SUDO_A_USN) != NULL && meta.max_usn == NULL)
                || (sysdb_msg_str(msg, SUDO_A_MODTS) != NULL && meta.max_modts == NULL)) {
            ret = ENOMEM;
        }
    }
    talloc_free(msg);
    if (ret == EOK) {
        *_meta = meta;
    }
    return ret;
}

errno_t sysdb_sudo_gen(struct sysdb_ctx *sysdb, uint64_t *_gen)
{
    TALLOC_CTX *tmp_ctx;
    struct sysdb_sudo_meta meta;
    errno_t ret;

    SSS_CHECK_ARG(sysdb != NULL && _gen != NULL, EINVAL);
    tmp_ctx = talloc_new(NULL);
    if (tmp_ctx == NULL) {
        return ENOMEM;
    }
    ret = sysdb_sudo_get_meta(tmp_ctx, sysdb, &meta);
    if (ret == EOK) {
        *_gen = meta.gen;
    }
    talloc_free(tmp_ctx);
    return ret;
}

errno_t sysdb_sudo_names(TALLOC_CTX *mem_ctx, struct sysdb_ctx *sysdb, const char ***_names,
                         size_t *_count)
{
    const char *attrs[] = { SUDO_A_NAMES, NULL };
    struct ldb_message *msg;
    const char **names;
    size_t count;
    errno_t ret;

    SSS_CHECK_ARG(sysdb != NULL && _names != NULL && _count != NULL, EINVAL);
    ret = sudo_read_base(mem_ctx, sysdb, attrs, &msg);
    if (ret == ENOENT) {
        msg = NULL;
    } else if (ret != EOK) {
        return ret;
    }
    ret = msg != NULL ? sysdb_msg_names(mem_ctx, msg, SUDO_A_NAMES, &names, &count)
                      : sysdb_packed_split(mem_ctx, NULL, &names, &count);
    if (ret != EOK) {
        talloc_free(msg);
        return ret;
    }
    if (msg != NULL) {
        talloc_steal(names, msg);   /* the names point into its value */
    }
    *_names = names;
    *_count = count;
    return EOK;
}

static errno_t sudo_msg_to_rule(TALLOC_CTX *mem_ctx, struct ldb_message *msg,
                                struct sysdb_sudo_rule **_rule)
{
    struct sysdb_sudo_rule *rule;
    struct ldb_message_element *el;
    size_t a;
    unsigned int i;
    errno_t ret;

    rule = talloc_zero(mem_ctx, struct sysdb_sudo_rule);
    if (rule == NULL) {
        return ENOMEM;
    }
    talloc_steal(rule, msg);
    rule->name = sysdb_msg_str(msg, SUDO_A_CN);
    rule->orig_dn = sysdb_msg_str(msg, SYSDB_A_ORIG_DN);
    ret = sysdb_msg_times(msg, SYSDB_A_LAST_UPDATE, SYSDB_A_EXPIRE, &rule->last_update,
                          &rule->expire);
    if (ret != EOK || rule->name == NULL) {
        DEBUG(SSSDBG_OP_FAILURE, "Malformed sudo rule entry %s\n",
              ldb_dn_get_linearized(msg->dn));
        talloc_free(rule);
        return EIO;
    }
    for (a = 0; a < SYSDB_SUDO_ATTR_MAX; a++) {
        el = ldb_msg_find_element(msg, sysdb_sudo_attr_names[a]);
        rule->num_values[a] = el != NULL ? el->num_values : 0;
        rule->values[a] = talloc_array(rule, const char *, rule->num_values[a] + 1);
        if (rule->values[a] == NULL) {
            talloc_free(rule);
            return ENOMEM;
        }
        for (i = 0; i < rule->num_values[a]; i++) {
            /* ldb keeps a NUL after every value it hands out. */
            rule->values[a][i] = (const char *)el->values[i].data;
        }
        rule->values[a][rule->num_values[a]] = NULL;
    }
    *_rule = rule;
    return EOK;
}

errno_t sysdb_sudo_get_rule(TALLOC_CTX *mem_ctx, struct sysdb_ctx *sysdb, const char *name,
                            struct sysdb_sudo_rule **_rule)
{
    struct ldb_message *msg;
    struct ldb_dn *dn;
    errno_t ret;

    SSS_CHECK_ARG(sysdb != NULL && name != NULL && _rule != NULL, EINVAL);
    ret = sudo_rule_dn(NULL, sysdb, name, &dn);
    if (ret != EOK) {
        return ret == EINVAL ? ENOENT : ret;
    }
    ret = sysdb_read_entry(mem_ctx, sysdb, dn, NULL, &msg);
    talloc_free(dn);
    if (ret != EOK) {
        return ret;
    }
    return sudo_msg_to_rule(mem_ctx, msg, _rule);
}

errno_t sysdb_sudo_get_all(TALLOC_CTX *mem_ctx, struct sysdb_ctx *sysdb,
                           struct sysdb_sudo_rule ***_rules, size_t *_count)
{
    TALLOC_CTX *tmp_ctx;
    struct sysdb_sudo_rule **rules;
    const char **names;
    size_t count;
    size_t n = 0;
    size_t i;
    errno_t ret;

    SSS_CHECK_ARG(sysdb != NULL && _rules != NULL && _count != NULL, EINVAL);
    tmp_ctx = talloc_new(NULL);
    if (tmp_ctx == NULL) {
        return ENOMEM;
    }
    ret = sysdb_sudo_names(tmp_ctx, sysdb, &names, &count);
    if (ret != EOK) {
        goto done;
    }
    rules = talloc_array(tmp_ctx, struct sysdb_sudo_rule *, count + 1);
    if (rules == NULL) {
        ret = ENOMEM;
        goto done;
    }
    for (i = 0; i < count; i++) {
        ret = sysdb_sudo_get_rule(rules, sysdb, names[i], &rules[n]);
        if (ret == ENOENT || ret == EIO) {
            continue;       /* listed but gone or damaged: logged, the others count */
        }
        if (ret != EOK) {
            goto done;
        }
        n++;
    }
    rules[n] = NULL;
    *_rules = talloc_steal(mem_ctx, rules);
    *_count = n;
    ret = EOK;
done:
    talloc_free(tmp_ctx);
    return ret;
}
