/*
 * sss_cache, one domain's cache: open <db_dir>/cache_<domain>.ldb with the domain's case
 * mode (never creating it) and mark the selected entries expired in one transaction. A
 * user's expiry covers its group list too (sysdb_expire_user). The gid of a group expired
 * by name is kept, so sssd_nss can drop just that group from its memory cache.
 */
#include "util/util.h"

#include <sys/stat.h>

#include "tools/sss_cache.h"
#include "db/sysdb_netgroups.h"

errno_t sss_cache_domain_case(struct confdb *cdb, const char *domain, enum sysdb_case *_mode)
{
    TALLOC_CTX *tmp_ctx;
    char *section;
    char *value = NULL;
    errno_t ret;

    SSS_CHECK_ARG(cdb != NULL, EINVAL);
    SSS_CHECK_ARG(domain != NULL, EINVAL);
    SSS_CHECK_ARG(_mode != NULL, EINVAL);
    tmp_ctx = talloc_new(NULL);
    if (tmp_ctx == NULL) {
        return ENOMEM;
    }
    section = confdb_domain_section(tmp_ctx, domain);
    if (section == NULL) {
        ret = ENOMEM;
        goto done;
    }
    ret = confdb_get_string(cdb, tmp_ctx, section, "case_sensitive", &value);
    if (ret != EOK) {
        goto done;
    }
    if (value == NULL || strcasecmp(value, "true") == 0) {
        *_mode = SYSDB_CASE_SENSITIVE;
    } else if (strcasecmp(value, "false") == 0) {
        *_mode = SYSDB_CASE_INSENSITIVE;
    } else if (strcasecmp(value, "preserving") == 0) {
        *_mode = SYSDB_CASE_PRESERVING;
    } else {
        DEBUG(SSSDBG_CRIT_FAILURE, "[%s] case_sensitive = %s is not understood\n",
              section, value);
        ret = ERR_INVALID_CONFIG;
        goto done;
    }
    ret = EOK;

done:
    talloc_free(tmp_ctx);
    return ret;
}

/* SSSD's default re_expression: "name@domain" splits at the first '@' and the domain part
 * is compared without regard to case. */
const char *sss_cache_name_in_domain(const char *name, const char *domain)
{
    const char *at;

    if (name == NULL || domain == NULL) {
        return NULL;
    }
    at = strchr(name, '@');
    if (at == NULL) {
        return name;
    }
    return strcasecmp(at + 1, domain) == 0 ? name : NULL;
}

/* Expires one named entry. *_found is false when it is not cached (or cannot be: an invalid
 * name). It is looked up first: a failed expiry inside the caller's transaction would doom
 * it. */
static errno_t sss_cache_expire_one(struct sysdb_ctx *sysdb, bool is_user, const char *name,
                                    bool *_found)
{
    TALLOC_CTX *tmp_ctx;
    struct sysdb_user *user;
    struct sysdb_group *grp;
    errno_t ret;

    tmp_ctx = talloc_new(NULL);
    if (tmp_ctx == NULL) {
        return ENOMEM;
    }
    if (is_user) {
        ret = sysdb_get_user_by_name(tmp_ctx, sysdb, name, &user);
    } else {
        ret = sysdb_get_group_by_name(tmp_ctx, sysdb, name, &grp);
    }
    if (ret == ENOENT || ret == EINVAL) {
        DEBUG(SSSDBG_TRACE_FUNC, "%s %s: not in the cache of %s\n",
              is_user ? "User" : "Group", name, sysdb_domain(sysdb));
        *_found = false;
        ret = EOK;
        goto done;
    }
    if (ret != EOK) {
        goto done;
    }

    if (is_user) {
        ret = sysdb_expire_user(sysdb, name);
    } else {
        ret = sysdb_expire_group(sysdb, name);
    }
    if (ret != EOK) {
        goto done;
    }
    *_found = true;

done:
    talloc_free(tmp_ctx);
    return ret;
}

/* -n NAME / -N (and -E): as for users and groups, a name not cached matches nothing. */
static errno_t sss_cache_expire_netgroups(struct sysdb_ctx *sysdb,
                                          const struct sss_cache_sel *sel,
                                          struct sss_cache_found *found)
{
    struct sysdb_netgroup *ng;
    const char *name;
    errno_t ret;

    if (sel->all_netgroups || sel->other_all[SSS_CACHE_NETGROUP]) {
        ret = sysdb_expire_all_netgroups(sysdb);
        if (ret == EOK) {
            found->netgroups = true;
        }
        return ret;
    }
    name = sss_cache_name_in_domain(sel->other_name[SSS_CACHE_NETGROUP], sysdb_domain(sysdb));
    if (name == NULL) {
        return EOK;
    }
    ret = sysdb_get_netgroup(NULL, sysdb, name, &ng);
    if (ret == ENOENT || ret == EINVAL) {
        DEBUG(SSSDBG_TRACE_FUNC, "Netgroup %s: not in the cache of %s\n", name,
              sysdb_domain(sysdb));
        return EOK;
    }
    if (ret != EOK) {
        return ret;
    }
    talloc_free(ng);
    ret = sysdb_expire_netgroup(sysdb, name);
    if (ret == EOK) {
        found->netgroups = true;
    }
    return ret;
}

static errno_t sss_cache_expire_sel(struct sysdb_ctx *sysdb, const struct sss_cache_sel *sel,
                                    struct sss_cache_found *found)
{
    const char *domain = sysdb_domain(sysdb);
    const char *name;
    bool hit;
    errno_t ret;

    if (sel->all_users) {
        ret = sysdb_expire_all_users(sysdb);
        if (ret != EOK) {
            return ret;
        }
        found->users = true;
    } else if ((name = sss_cache_name_in_domain(sel->user, domain)) != NULL) {
        ret = sss_cache_expire_one(sysdb, true, name, &hit);
        if (ret != EOK) {
            return ret;
        }
        found->users |= hit;
    }

    if (sel->all_groups) {
        ret = sysdb_expire_all_groups(sysdb);
        if (ret != EOK) {
            return ret;
        }
        found->groups = true;
    } else if ((name = sss_cache_name_in_domain(sel->group, domain)) != NULL) {
        ret = sss_cache_expire_one(sysdb, false, name, &hit);
        if (ret != EOK) {
            return ret;
        }
        found->groups |= hit;
    }
    return sss_cache_expire_netgroups(sysdb, sel, found);
}

errno_t sss_cache_expire_domain(const char *db_dir, const char *domain, enum sysdb_case mode,
                                const struct sss_cache_sel *sel, struct sss_cache_found *found)
{
    TALLOC_CTX *tmp_ctx;
    struct sysdb_ctx *sysdb;
    struct sss_cache_found here = { 0 };
    struct stat st;
    char *path;
    errno_t ret;

    SSS_CHECK_ARG(db_dir != NULL, EINVAL);
    SSS_CHECK_ARG(domain != NULL, EINVAL);
    SSS_CHECK_ARG(sel != NULL, EINVAL);
    SSS_CHECK_ARG(found != NULL, EINVAL);
    tmp_ctx = talloc_new(NULL);
    if (tmp_ctx == NULL) {
        return ENOMEM;
    }
    /* sysdb_open() would create a missing cache: a domain never looked up has nothing. */
    path = talloc_asprintf(tmp_ctx, "%s/cache_%s.ldb", db_dir, domain);
    if (path == NULL) {
        ret = ENOMEM;
        goto done;
    }
    if (stat(path, &st) != 0) {
        ret = errno;
        if (ret == ENOENT) {
            DEBUG(SSSDBG_TRACE_FUNC, "No cache for domain %s yet (%s)\n", domain, path);
            ret = EOK;
        }
        goto done;
    }

    ret = sysdb_open(tmp_ctx, db_dir, domain, mode, &sysdb);
    if (ret != EOK) {
        goto done;
    }
    ret = sysdb_transaction_start(sysdb);
    if (ret != EOK) {
        goto done;
    }
    /* Collect apart, so a failed domain (transaction cancelled) adds nothing. */
    ret = sss_cache_expire_sel(sysdb, sel, &here);
    ret = sysdb_transaction_end(sysdb, ret);
    if (ret != EOK) {
        goto done;
    }

    found->users |= here.users;
    found->groups |= here.groups;
    found->netgroups |= here.netgroups;
    ret = EOK;

done:
    talloc_free(tmp_ctx);
    return ret;
}
