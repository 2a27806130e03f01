/*
 * sss_cache, the whole run: expire the selection in each configured domain (or the -d one),
 * decide from what matched which signals the responders need, send them, and reset the
 * memory cache files when no sssd_nss took them. As in SSSD, a run whose named entries all
 * matched nothing ends with "No cache object matched the specified search" and notifies
 * nobody, while "all users" or "all groups" always succeeds, even on an empty cache.
 *
 * The memory cache: whatever matched, all of it goes (InvalidateAllUsers, ...Groups and
 * ...Initgroups, or the three files when no sssd_nss is there), as SSSD's sss_cache does
 * (sss_memcache_clear_all()). Anything can mention an entry: a group's member list names
 * its users, a user's initgroups record lists the group, a renamed entry keeps its id; a
 * finer invalidation left such records answering stale (issue 17, item 4). The negative
 * caches are reset by kind: a user -> NegativeCache.ResetUsers, a group or a netgroup ->
 * ResetGroups. sssd_nss drops what it remembers of a netgroup by itself: the expiry moves
 * the cache's generation.
 */
#include "util/util.h"

#include "tools/sss_cache.h"

/* One note per kind this suite does not cache that was asked for (by name, which never
 * matches, or as a whole). *_any_all: one was asked for as a whole, which counts as a match. */
static void sss_cache_note_others(const struct sss_cache_sel *sel, bool *_any_all)
{
    int k;

    *_any_all = false;
    for (k = 0; k < SSS_CACHE_OTHER_COUNT; k++) {
        if (k == SSS_CACHE_NETGROUP) {
            continue;       /* cached: expired like users and groups */
        }
        if (sel->other_all[k] || sel->other_name[k] != NULL) {
            fprintf(stderr, "sss_cache: %s are not cached by this suite: nothing to "
                    "invalidate\n", sss_cache_other_plural(k));
        }
        if (sel->other_all[k]) {
            *_any_all = true;
        }
    }
}

/* What the responders are told after a run that matched something. */
static void sss_cache_make_notice(const struct sss_cache_found *found,
                                  struct sss_cache_notice *notice)
{
    memset(notice, 0, sizeof(*notice));
    notice->mc_users = true;
    notice->mc_groups = true;
    notice->mc_initgroups = true;
    notice->neg_users = found->users;
    /* ResetGroups also empties the responders' negative cache of netgroups. */
    notice->neg_groups = found->groups || found->netgroups;
}

static unsigned int sss_cache_mc_files(const struct sss_cache_notice *notice)
{
    unsigned int files = 0;

    if (notice->mc_users) {
        files |= SSS_CACHE_MC_PASSWD;
    }
    /* The files cannot drop one group: the whole group file goes. */
    if (notice->mc_groups || notice->n_gids > 0) {
        files |= SSS_CACHE_MC_GROUP;
    }
    if (notice->mc_initgroups) {
        files |= SSS_CACHE_MC_INITGROUPS;
    }
    return files;
}

/* The domains to visit: all configured ones, or the -d one (ENOENT when not configured). */
static errno_t sss_cache_domains(TALLOC_CTX *mem_ctx, struct confdb *cdb,
                                 const char *only, char ***_domains)
{
    char **domains;
    char **one;
    size_t i;
    errno_t ret;

    ret = confdb_get_domains(cdb, mem_ctx, &domains);
    if (ret != EOK) {
        return ret;
    }
    if (only == NULL) {
        *_domains = domains;
        return EOK;
    }
    for (i = 0; domains[i] != NULL; i++) {
        if (strcmp(domains[i], only) == 0) {
            break;
        }
    }
    if (domains[i] == NULL) {
        fprintf(stderr, "Could not open domain %s: it is not in the [sssd] domains list\n",
                only);
        talloc_free(domains);
        return ENOENT;
    }
    one = talloc_zero_array(mem_ctx, char *, 2);
    if (one == NULL) {
        talloc_free(domains);
        return ENOMEM;
    }
    one[0] = talloc_steal(one, domains[i]);
    talloc_free(domains);
    *_domains = one;
    return EOK;
}

/* Expires in one domain, with the case mode its configuration gives. */
static errno_t sss_cache_expire_in(struct confdb *cdb, const char *domain, const char *db_dir,
                                   const struct sss_cache_sel *sel,
                                   struct sss_cache_found *found)
{
    enum sysdb_case mode;
    errno_t ret;

    ret = sss_cache_domain_case(cdb, domain, &mode);
    if (ret != EOK) {
        return ret;
    }
    return sss_cache_expire_domain(db_dir, domain, mode, sel, found);
}

/* Expires in every domain; a domain that fails is reported and the others still done.
 * *_failed: some domain failed. */
static errno_t sss_cache_expire_all_domains(struct confdb *cdb, char **domains,
                                            const char *db_dir,
                                            const struct sss_cache_sel *sel,
                                            struct sss_cache_found *found, bool *_failed)
{
    errno_t ret;
    size_t i;

    *_failed = false;
    for (i = 0; domains[i] != NULL; i++) {
        ret = sss_cache_expire_in(cdb, domains[i], db_dir, sel, found);
        if (ret == ENOMEM) {
            return ret;
        }
        if (ret != EOK) {
            fprintf(stderr, "sss_cache: could not invalidate entries of domain %s: %s%s\n",
                    domains[i], sss_strerror(ret),
                    ret == EINVAL ? " (was case_sensitive changed? see the log with "
                                    "--debug 2)" : "");
            *_failed = true;
        }
    }
    return EOK;
}

/* Signals, and the files when no sssd_nss got them. */
static errno_t sss_cache_tell(const struct sss_cache_notice *notice,
                              const struct sss_cache_paths *paths)
{
    bool nss_told = false;
    errno_t ret;

    ret = sss_cache_notify(paths->bus_address, notice, paths->bus_timeout_ms, &nss_told);
    if (ret != EOK) {
        DEBUG(SSSDBG_TRACE_FUNC, "Master bus %s not reachable (%s): sssd is not running\n",
              paths->bus_address, sss_strerror(ret));
    } else if (!nss_told) {
        DEBUG(SSSDBG_TRACE_FUNC, "No sssd_nss on the bus\n");
    }
    if (nss_told) {
        return EOK;
    }
    return sss_cache_mc_reset(paths->mc_dir, sss_cache_mc_files(notice));
}

errno_t sss_cache_run(struct confdb *cdb, const struct sss_cache_sel *sel,
                      const struct sss_cache_paths *paths)
{
    TALLOC_CTX *tmp_ctx;
    struct sss_cache_found found = { 0 };
    struct sss_cache_notice notice;
    char **domains;
    bool other_all;
    bool failed;
    bool matched;
    errno_t ret;

    SSS_CHECK_ARG(cdb != NULL, EINVAL);
    SSS_CHECK_ARG(sel != NULL, EINVAL);
    SSS_CHECK_ARG(paths != NULL, EINVAL);
    SSS_CHECK_ARG(paths->db_dir != NULL, EINVAL);
    SSS_CHECK_ARG(paths->mc_dir != NULL, EINVAL);
    SSS_CHECK_ARG(paths->bus_address != NULL, EINVAL);
    tmp_ctx = talloc_new(NULL);
    if (tmp_ctx == NULL) {
        return ENOMEM;
    }

    ret = sss_cache_domains(tmp_ctx, cdb, sel->domain, &domains);
    if (ret != EOK) {
        goto done;
    }
    sss_cache_note_others(sel, &other_all);

    ret = sss_cache_expire_all_domains(cdb, domains, paths->db_dir, sel, &found,
                                       &failed);
    if (ret != EOK) {
        goto done;
    }

    /* "All of a kind" matches even an empty cache; a name must have been found. */
    matched = sel->all_users || sel->all_groups || other_all || found.users || found.groups
              || found.netgroups || sel->all_netgroups || sel->other_all[SSS_CACHE_NETGROUP];
    if (!matched) {
        if (!failed) {
            fprintf(stderr, "No cache object matched the specified search\n");
        }
        ret = failed ? EIO : ENOENT;
        goto done;
    }
    /* "-U" over domains without any cache file still resets the memory cache: it may hold
     * entries of a cache removed by hand. */
    found.users |= sel->all_users;
    found.groups |= sel->all_groups;

    sss_cache_make_notice(&found, &notice);
    if (!sss_cache_notice_empty(&notice)) {
        ret = sss_cache_tell(&notice, paths);
        if (ret != EOK) {
            failed = true;
        }
    }
    ret = failed ? EIO : EOK;

done:
    talloc_free(tmp_ctx);
    return ret;
}
