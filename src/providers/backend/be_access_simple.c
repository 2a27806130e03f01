/*
 * be_access_simple: the simple access provider's rules (see be_access_simple.h). Each list
 * is kept as the sorted key forms of its names, so a check costs one key computation per
 * name of the user and its groups and a binary search per list.
 */
#include "config.h"

#include <stdlib.h>

#include "util/util.h"
#include "util/sss_csv.h"
#include "providers/backend/be_access_simple.h"

enum be_access_list {
    BE_ACCESS_ALLOW_USERS,
    BE_ACCESS_DENY_USERS,
    BE_ACCESS_ALLOW_GROUPS,
    BE_ACCESS_DENY_GROUPS,
    BE_ACCESS_NLISTS
};

static const char *const be_access_options[BE_ACCESS_NLISTS] = {
    "simple_allow_users", "simple_deny_users", "simple_allow_groups", "simple_deny_groups",
};

struct be_access_simple {
    struct sysdb_ctx *sysdb;
    char **keys[BE_ACCESS_NLISTS];     /* sorted key forms */
    size_t count[BE_ACCESS_NLISTS];
};

static int be_access_cmp(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static bool be_access_has(const struct be_access_simple *rules, enum be_access_list list,
                          const char *key)
{
    if (rules->count[list] == 0) {
        return false;
    }
    return bsearch(&key, rules->keys[list], rules->count[list], sizeof(char *),
                   be_access_cmp) != NULL;
}

/* Splits one option value into sorted key forms on rules. */
static errno_t be_access_parse_list(struct be_access_simple *rules, enum be_access_list list,
                                    const char *value)
{
    TALLOC_CTX *tmp_ctx;
    const char *p;
    const char *word;
    char *item;
    char **keys = NULL;
    size_t len;
    size_t n = 0;
    errno_t ret;

    if (value == NULL || value[0] == '\0') {
        return EOK;
    }
    tmp_ctx = talloc_new(NULL);
    if (tmp_ctx == NULL) {
        return ENOMEM;
    }
    p = value;
    while (sss_csv_next(&p, " \t", &word, &len)) {
        if (len > 0) {
            item = talloc_strndup(tmp_ctx, word, len);
            if (item == NULL) {
                ret = ENOMEM;
                goto done;
            }
            keys = talloc_realloc(tmp_ctx, keys, char *, n + 1);
            if (keys == NULL) {
                ret = ENOMEM;
                goto done;
            }
            ret = sysdb_name_key(keys, rules->sysdb, item, &keys[n]);
            if (ret == EINVAL) {
                DEBUG(SSSDBG_FATAL_FAILURE, "%s: \"%s\" is not a valid name\n",
                      be_access_options[list], item);
                ret = ERR_INVALID_CONFIG;
            }
            if (ret != EOK) {
                goto done;
            }
            n++;
        }
    }
    if (n > 0) {
        qsort(keys, n, sizeof(char *), be_access_cmp);
        rules->keys[list] = talloc_steal(rules, keys);
        rules->count[list] = n;
    }
    ret = EOK;

done:
    talloc_free(tmp_ctx);
    return ret;
}

errno_t be_access_simple_parse(TALLOC_CTX *mem_ctx, struct sysdb_ctx *sysdb,
                               const char *allow_users, const char *deny_users,
                               const char *allow_groups, const char *deny_groups,
                               struct be_access_simple **_rules)
{
    const char *values[BE_ACCESS_NLISTS] = { allow_users, deny_users, allow_groups,
                                              deny_groups };
    struct be_access_simple *rules;
    errno_t ret = EOK;
    int i;

    SSS_CHECK_ARG(sysdb != NULL && _rules != NULL, EINVAL);

    rules = talloc_zero(mem_ctx, struct be_access_simple);
    if (rules == NULL) {
        return ENOMEM;
    }
    rules->sysdb = sysdb;
    for (i = 0; i < BE_ACCESS_NLISTS && ret == EOK; i++) {
        ret = be_access_parse_list(rules, (enum be_access_list)i, values[i]);
    }
    if (ret != EOK) {
        talloc_free(rules);
        return ret;
    }
    *_rules = rules;
    return EOK;
}

bool be_access_simple_is_empty(const struct be_access_simple *rules)
{
    int i;

    for (i = 0; rules != NULL && i < BE_ACCESS_NLISTS; i++) {
        if (rules->count[i] != 0) {
            return false;
        }
    }
    return true;
}

/* Is any of groups in list? */
static errno_t be_access_groups_in(TALLOC_CTX *tmp_ctx, const struct be_access_simple *rules,
                                   enum be_access_list list, const char *const *groups,
                                   bool *_found)
{
    char *key;
    errno_t ret;
    size_t i;

    *_found = false;
    for (i = 0; groups != NULL && groups[i] != NULL && rules->count[list] != 0; i++) {
        ret = sysdb_name_key(tmp_ctx, rules->sysdb, groups[i], &key);
        if (ret != EOK) {
            return ret;
        }
        if (be_access_has(rules, list, key)) {
            *_found = true;
            return EOK;
        }
    }
    return EOK;
}

errno_t be_access_simple_check(const struct be_access_simple *rules, const char *user,
                               const char *const *groups, bool *_allowed)
{
    TALLOC_CTX *tmp_ctx;
    char *key;
    bool allowed;
    bool found;
    errno_t ret;

    SSS_CHECK_ARG(rules != NULL && user != NULL && _allowed != NULL, EINVAL);

    tmp_ctx = talloc_new(NULL);
    if (tmp_ctx == NULL) {
        return ENOMEM;
    }
    ret = sysdb_name_key(tmp_ctx, rules->sysdb, user, &key);
    if (ret != EOK) {
        goto done;
    }
    /* No allow list: everyone not denied below. */
    allowed = rules->count[BE_ACCESS_ALLOW_USERS] == 0
              && rules->count[BE_ACCESS_ALLOW_GROUPS] == 0;
    if (be_access_has(rules, BE_ACCESS_ALLOW_USERS, key)) {
        allowed = true;
    }
    if (be_access_has(rules, BE_ACCESS_DENY_USERS, key)) {
        allowed = false;
        goto decided;
    }
    if (!allowed) {
        ret = be_access_groups_in(tmp_ctx, rules, BE_ACCESS_ALLOW_GROUPS, groups, &found);
        if (ret != EOK) {
            goto done;
        }
        allowed = found;
    }
    if (allowed) {
        ret = be_access_groups_in(tmp_ctx, rules, BE_ACCESS_DENY_GROUPS, groups, &found);
        if (ret != EOK) {
            goto done;
        }
        allowed = !found;
    }

decided:
    DEBUG(SSSDBG_TRACE_FUNC, "Simple access for %s: %s\n", user, allowed ? "allowed" : "denied");
    *_allowed = allowed;
    ret = EOK;

done:
    talloc_free(tmp_ctx);
    return ret;
}
