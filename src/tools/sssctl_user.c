/*
 * sssctl user-show and group-show: what the cache holds for one user or group, read from the
 * domains' cache files through sysdb (no bus, no lookup: showing never changes the cache).
 * The domains are searched in the configured order, as NSS does, unless the name is
 * qualified with a configured domain ("joe@ldap.test"). Whether the entry is also in the
 * memory cache is read from the mmap files with libnss_sss's own reader, so the answer is
 * the one a client would get (an expired record counts as absent, as for a client).
 */
#include <sys/stat.h>
#include <time.h>

#include "tools/sssctl.h"
#include "tools/sss_cache.h"
#include "sss_client/nss/nss_mc.h"

/* The domains to search: the one a qualified name names, or all in order. *_short is the
 * name without a configured domain suffix. */
static errno_t sssctl_user_domains(struct sssctl_ctx *ctx, struct confdb *cdb,
                                   const char *name, char ***_domains, const char **_short)
{
    char **domains;
    const char *at;
    size_t i;
    errno_t ret;

    ret = confdb_get_domains(cdb, ctx->mem, &domains);
    if (ret != EOK) {
        return ret;
    }
    *_short = name;
    at = strrchr(name, '@');
    for (i = 0; at != NULL && domains[i] != NULL; i++) {
        if (strcasecmp(at + 1, domains[i]) == 0) {
            *_short = talloc_strndup(ctx->mem, name, (size_t)(at - name));
            domains[0] = domains[i];
            domains[1] = NULL;
            break;
        }
    }
    *_domains = domains;
    return *_short != NULL ? EOK : ENOMEM;
}

errno_t sssctl_open_cache(struct sssctl_ctx *ctx, struct confdb *cdb,
                                 const char *domain, struct sysdb_ctx **_sysdb)
{
    enum sysdb_case mode;
    struct stat st;
    char *path;
    errno_t ret;

    *_sysdb = NULL;
    path = talloc_asprintf(ctx->mem, "%s/cache_%s.ldb", ctx->paths.db_dir, domain);
    if (path == NULL) {
        return ENOMEM;
    }
    if (stat(path, &st) != 0) {
        return EOK;     /* never written: nothing cached, and opening would create it */
    }
    ret = sss_cache_domain_case(cdb, domain, &mode);
    if (ret == EOK) {
        ret = sysdb_open(ctx->mem, ctx->paths.db_dir, domain, mode, _sysdb);
    }
    return ret;
}

/* "2026-11-24 10:00:00 UTC (in 5 min 3 s)" or "never". */
static char *sssctl_when(TALLOC_CTX *mem_ctx, time_t t)
{
    if (t == 0) {
        return talloc_strdup(mem_ctx, "never");
    }
    return talloc_asprintf(mem_ctx, "%s (%s)", sssctl_time_text(mem_ctx, t),
                           sssctl_age_text(mem_ctx, t, time(NULL)));
}

static int sssctl_print_fields(struct sssctl_ctx *ctx, const char *const *fields, size_t n)
{
    struct sssctl_table *t = sssctl_table_new(ctx->mem, 2, NULL);
    size_t i;

    if (t == NULL) {
        return sssctl_error("out of memory");
    }
    for (i = 0; i < n; i++) {
        if (sssctl_table_add(t, &fields[2 * i]) != EOK) {
            return sssctl_error("out of memory");
        }
    }
    sssctl_table_print(t, stdout, "");
    return SSSCTL_EXIT_OK;
}

static char *sssctl_join(TALLOC_CTX *mem_ctx, const char *const *list)
{
    char *text = talloc_strdup(mem_ctx, "");
    size_t i;

    for (i = 0; text != NULL && list != NULL && list[i] != NULL; i++) {
        text = talloc_asprintf_append(text, "%s%s", i == 0 ? "" : ", ", list[i]);
    }
    return text != NULL && text[0] == '\0' ? talloc_strdup(mem_ctx, "none") : text;
}

static void sssctl_json_list(struct sssctl_json *js, const char *key, const char *const *list)
{
    size_t i;

    sssctl_json_arr_start(js, key);
    for (i = 0; list != NULL && list[i] != NULL; i++) {
        sssctl_json_str(js, NULL, list[i]);
    }
    sssctl_json_arr_end(js);
}

/* Whether a client would find the user in the memory cache, by either name form. */
static bool sssctl_mc_has_user(const char *short_name, const char *fq_name, bool *_initgr)
{
    struct passwd pw;
    char buf[4096];
    long int start = 0, size = 0;
    gid_t *gids = NULL;
    bool found;

    found = nss_mc_getpwnam(short_name, strlen(short_name), &pw, buf, sizeof(buf)) != ENOENT
            || nss_mc_getpwnam(fq_name, strlen(fq_name), &pw, buf, sizeof(buf)) != ENOENT;
    *_initgr = nss_mc_initgroups_dyn(short_name, strlen(short_name), &start, &size, &gids,
                                     -1) == 0
               || nss_mc_initgroups_dyn(fq_name, strlen(fq_name), &start, &size, &gids,
                                        -1) == 0;
    free(gids);
    return found;
}

static bool sssctl_mc_has_group(const char *short_name, const char *fq_name)
{
    struct group gr;
    char buf[64 * 1024];

    return nss_mc_getgrnam(short_name, strlen(short_name), &gr, buf, sizeof(buf)) != ENOENT
           || nss_mc_getgrnam(fq_name, strlen(fq_name), &gr, buf, sizeof(buf)) != ENOENT;
}

static int sssctl_user_out(struct sssctl_ctx *ctx, const char *domain, const char *short_name,
                           struct sysdb_user *u, bool have_list, const char **groups,
                           time_t ig_expire)
{
    time_t now = time(NULL);
    bool mc_initgr = false;
    bool mc = sssctl_mc_has_user(short_name, u->name, &mc_initgr);

    if (ctx->json) {
        sssctl_json_obj_start(ctx->js, NULL);
        sssctl_json_str(ctx->js, "name", u->name);
        sssctl_json_str(ctx->js, "domain", domain);
        sssctl_json_int(ctx->js, "uid", u->uid);
        sssctl_json_int(ctx->js, "gid", u->gid);
        sssctl_json_str(ctx->js, "gecos", u->gecos);
        sssctl_json_str(ctx->js, "home", u->home);
        sssctl_json_str(ctx->js, "shell", u->shell);
        sssctl_json_str(ctx->js, "original_dn", u->orig_dn);
        sssctl_json_time(ctx->js, "last_update", u->last_update);
        sssctl_json_time(ctx->js, "expire", u->expire);
        sssctl_json_bool(ctx->js, "expired", u->expire <= now);
        if (have_list) {
            sssctl_json_time(ctx->js, "initgroups_expire", ig_expire);
            sssctl_json_list(ctx->js, "groups", groups);
        } else {
            sssctl_json_str(ctx->js, "initgroups_expire", NULL);
            sssctl_json_str(ctx->js, "groups", NULL);
        }
        sssctl_json_obj_start(ctx->js, "memory_cache");
        sssctl_json_bool(ctx->js, "passwd", mc);
        sssctl_json_bool(ctx->js, "initgroups", mc_initgr);
        sssctl_json_obj_end(ctx->js);
        sssctl_json_obj_end(ctx->js);
        return SSSCTL_EXIT_OK;
    }
    {
        const char *fields[] = {
            "Name:", u->name,
            "Domain:", domain,
            "UID / GID:", talloc_asprintf(ctx->mem, "%u / %u", u->uid, u->gid),
            "GECOS:", u->gecos,
            "Home directory:", u->home,
            "Shell:", u->shell,
            "Original DN:", u->orig_dn,
            "Cache entry last update:", sssctl_when(ctx->mem, u->last_update),
            "Cache entry expiration:", talloc_asprintf(ctx->mem, "%s%s",
                                                       sssctl_when(ctx->mem, u->expire),
                                                       u->expire <= now ? ", expired" : ""),
            "Initgroups expiration:", have_list ? sssctl_when(ctx->mem, ig_expire)
                                                : "no group list cached",
            "Groups (last initgroups):", have_list ? sssctl_join(ctx->mem, groups) : "-",
            "In memory cache:", talloc_asprintf(ctx->mem, "passwd %s, initgroups %s",
                                                mc ? "yes" : "no", mc_initgr ? "yes" : "no"),
        };

        return sssctl_print_fields(ctx, fields, SSS_ARRAY_SIZE(fields) / 2);
    }
}

static int sssctl_group_out(struct sssctl_ctx *ctx, const char *domain, const char *short_name,
                            struct sysdb_group *g)
{
    time_t now = time(NULL);
    bool mc = sssctl_mc_has_group(short_name, g->name);
    size_t n = 0;

    while (g->members[n] != NULL) {
        n++;
    }
    if (ctx->json) {
        sssctl_json_obj_start(ctx->js, NULL);
        sssctl_json_str(ctx->js, "name", g->name);
        sssctl_json_str(ctx->js, "domain", domain);
        sssctl_json_int(ctx->js, "gid", g->gid);
        sssctl_json_str(ctx->js, "original_dn", g->orig_dn);
        sssctl_json_time(ctx->js, "last_update", g->last_update);
        sssctl_json_time(ctx->js, "expire", g->expire);
        sssctl_json_bool(ctx->js, "expired", g->expire <= now);
        sssctl_json_list(ctx->js, "members", g->members);
        sssctl_json_list(ctx->js, "member_groups", g->member_groups);
        sssctl_json_obj_start(ctx->js, "memory_cache");
        sssctl_json_bool(ctx->js, "group", mc);
        sssctl_json_obj_end(ctx->js);
        sssctl_json_obj_end(ctx->js);
        return SSSCTL_EXIT_OK;
    }
    {
        const char *fields[] = {
            "Name:", g->name,
            "Domain:", domain,
            "GID:", talloc_asprintf(ctx->mem, "%u", g->gid),
            "Original DN:", g->orig_dn,
            "Cache entry last update:", sssctl_when(ctx->mem, g->last_update),
            "Cache entry expiration:", talloc_asprintf(ctx->mem, "%s%s",
                                                       sssctl_when(ctx->mem, g->expire),
                                                       g->expire <= now ? ", expired" : ""),
            "Members:", talloc_asprintf(ctx->mem, "%zu: %s", n,
                                        sssctl_join(ctx->mem, g->members)),
            "Member groups:", sssctl_join(ctx->mem, g->member_groups),
            "In memory cache:", mc ? "yes" : "no",
        };

        return sssctl_print_fields(ctx, fields, SSS_ARRAY_SIZE(fields) / 2);
    }
}

/* user-show and group-show: the first domain whose cache holds the name. */
static int sssctl_show(struct sssctl_ctx *ctx, int argc, char **argv, bool group)
{
    const char *what = group ? "Group" : "User";
    struct sysdb_ctx *sysdb;
    struct confdb *cdb;
    char **domains;
    const char *short_name;
    size_t i;
    errno_t ret;

    if (argc != 2 || argv[1][0] == '-') {
        return sssctl_error("usage: sssctl %s NAME", argv[0]);
    }
    if (sssctl_load_conf(ctx, &cdb) != EOK) {
        return SSSCTL_EXIT_FAILURE;
    }
    ret = sssctl_user_domains(ctx, cdb, argv[1], &domains, &short_name);
    if (ret != EOK) {
        return sssctl_error("cannot read the domains: %s", sss_strerror(ret));
    }
    for (i = 0; domains[i] != NULL; i++) {
        ret = sssctl_open_cache(ctx, cdb, domains[i], &sysdb);
        if (ret != EOK) {
            sssctl_error("cannot open the cache of %s: %s", domains[i], sss_strerror(ret));
            continue;
        }
        if (sysdb == NULL) {
            continue;
        }
        if (group) {
            struct sysdb_group *g;

            ret = sysdb_get_group_by_name(ctx->mem, sysdb, short_name, &g);
            if (ret == EOK) {
                return sssctl_group_out(ctx, domains[i], short_name, g);
            }
        } else {
            struct sysdb_user *u;
            const char **groups = NULL;
            size_t count = 0;
            time_t ig_expire = 0;
            errno_t ig;

            ret = sysdb_get_user_by_name(ctx->mem, sysdb, short_name, &u);
            if (ret == EOK) {
                ig = sysdb_get_initgroups_names(ctx->mem, sysdb, short_name, &groups, &count,
                                                &ig_expire);
                return sssctl_user_out(ctx, domains[i], short_name, u, ig == EOK, groups,
                                       ig_expire);
            }
        }
        if (ret != ENOENT && ret != EINVAL) {
            sssctl_error("cannot read the cache of %s: %s", domains[i], sss_strerror(ret));
        }
    }
    return sssctl_error("%s %s is not present in cache.", what, argv[1]);
}

int sssctl_user_show(struct sssctl_ctx *ctx, int argc, char **argv)
{
    return sssctl_show(ctx, argc, argv, false);
}

int sssctl_group_show(struct sssctl_ctx *ctx, int argc, char **argv)
{
    return sssctl_show(ctx, argc, argv, true);
}
