/*
 * Building passwd and group records from cache entries (nss_format.h): names, home
 * directories, shells and member lists, under the [nss] and [domain/X] options.
 */
#include <stdio.h>
#include <ctype.h>
#include <string.h>
#include <strings.h>

#include "responder/nss/nss_format.h"
#include "responder/common/resp_names.h"
#include "db/sysdb_subdomains.h"

static errno_t nss_dom_opt(TALLOC_CTX *mem_ctx, struct confdb *cdb, const char *section,
                           const char *option, char **_value)
{
    if (section != NULL && confdb_is_set(cdb, section, option)) {
        return confdb_get_string(cdb, mem_ctx, section, option, _value);
    }
    return confdb_get_string(cdb, mem_ctx, "nss", option, _value);
}

static errno_t nss_dom_format_load(TALLOC_CTX *mem_ctx, struct confdb *cdb,
                                   const char *section, struct nss_dom_format *df)
{
    errno_t ret;

    ret = nss_dom_opt(mem_ctx, cdb, section, "override_homedir", &df->override_homedir);
    if (ret != EOK) {
        return ret;
    }
    ret = nss_dom_opt(mem_ctx, cdb, section, "fallback_homedir", &df->fallback_homedir);
    if (ret != EOK) {
        return ret;
    }
    ret = nss_dom_opt(mem_ctx, cdb, section, "homedir_substring", &df->homedir_substring);
    if (ret != EOK) {
        return ret;
    }
    ret = nss_dom_opt(mem_ctx, cdb, section, "override_shell", &df->override_shell);
    if (ret != EOK) {
        return ret;
    }
    return nss_dom_opt(mem_ctx, cdb, section, "default_shell", &df->default_shell);
}

/* The non-comment lines of the shells file; a missing file is an empty list. */
static errno_t nss_read_shells(TALLOC_CTX *mem_ctx, const char *path, char ***_shells)
{
    char **shells;
    char line[4096];
    size_t n = 0;
    size_t len;
    FILE *f;

    shells = talloc_zero_array(mem_ctx, char *, 1);
    if (shells == NULL) {
        return ENOMEM;
    }
    f = path != NULL ? fopen(path, "r") : NULL;
    while (f != NULL && fgets(line, sizeof(line), f) != NULL) {
        len = strcspn(line, "\r\n");
        line[len] = '\0';
        if (len == 0 || line[0] == '#') {
            continue;
        }
        shells = talloc_realloc(mem_ctx, shells, char *, n + 2);
        if (shells == NULL || (shells[n] = talloc_strdup(shells, line)) == NULL) {
            fclose(f);
            return ENOMEM;
        }
        shells[++n] = NULL;
    }
    if (f != NULL) {
        fclose(f);
    }
    *_shells = shells;
    return EOK;
}

errno_t nss_format_load(TALLOC_CTX *mem_ctx, struct confdb *cdb, struct resp_ctx *rctx,
                        const char *etc_shells, struct nss_format_opts **_opts)
{
    struct nss_format_opts *opts;
    char *section;
    size_t i;
    errno_t ret;

    opts = talloc_zero(mem_ctx, struct nss_format_opts);
    if (opts == NULL) {
        return ENOMEM;
    }
    ret = confdb_get_list(cdb, opts, "nss", "allowed_shells", &opts->allowed_shells);
    if (ret != EOK) {
        goto done;
    }
    ret = confdb_get_list(cdb, opts, "nss", "vetoed_shells", &opts->vetoed_shells);
    if (ret != EOK) {
        goto done;
    }
    ret = confdb_get_string(cdb, opts, "nss", "shell_fallback", &opts->shell_fallback);
    if (ret != EOK) {
        goto done;
    }
    ret = confdb_get_bool(cdb, "nss", "filter_users_in_groups",
                          &opts->filter_users_in_groups);
    if (ret != EOK) {
        goto done;
    }
    ret = nss_read_shells(opts, etc_shells, &opts->etc_shells);
    if (ret != EOK) {
        goto done;
    }
    opts->num_dom = rctx->num_domains;
    opts->dom = talloc_zero_array(opts, struct nss_dom_format, rctx->num_domains + 1);
    if (opts->dom == NULL) {
        ret = ENOMEM;
        goto done;
    }
    for (i = 0; i < rctx->num_domains; i++) {
        section = confdb_domain_section(opts, rctx->domains[i].name);
        if (section == NULL) {
            ret = ENOMEM;
            goto done;
        }
        ret = nss_dom_format_load(opts, cdb, section, &opts->dom[i]);
        talloc_free(section);
        if (ret != EOK) {
            goto done;
        }
    }
done:
    if (ret != EOK) {
        DEBUG(SSSDBG_CRIT_FAILURE, "Cannot read the [nss] output options: %s\n",
              sss_strerror(ret));
        talloc_free(opts);
        return ret;
    }
    *_opts = opts;
    return EOK;
}

struct nss_dom_format *nss_format_dom(struct nss_format_opts *opts, struct resp_ctx *rctx,
                                      struct resp_domain *dom)
{
    size_t i = (size_t)(dom - rctx->domains);

    return i < opts->num_dom ? &opts->dom[i] : &opts->dom[opts->num_dom];
}

char *nss_expand_homedir(TALLOC_CTX *mem_ctx, const char *tmpl, const char *short_name,
                         uint32_t uid, const char *domain, const char *stored_home,
                         const char *substring)
{
    char *out = talloc_strdup(mem_ctx, "");
    const char *p;

    for (p = tmpl; out != NULL && *p != '\0'; p++) {
        if (*p != '%' || p[1] == '\0') {
            out = talloc_strndup_append_buffer(out, p, 1);
            continue;
        }
        p++;
        switch (*p) {
        case 'u':
            out = talloc_strdup_append_buffer(out, short_name);
            break;
        case 'U':
            out = talloc_asprintf_append_buffer(out, "%u", uid);
            break;
        case 'd':
            out = talloc_strdup_append_buffer(out, domain);
            break;
        case 'f':
            out = talloc_asprintf_append_buffer(out, "%s@%s", short_name, domain);
            break;
        case 'l':
            out = talloc_strndup_append_buffer(out, short_name, 1);
            break;
        case 'o':
            out = talloc_strdup_append_buffer(out, stored_home != NULL ? stored_home : "");
            break;
        case 'H':
            out = talloc_strdup_append_buffer(out, substring != NULL ? substring : "");
            break;
        case '%':
            out = talloc_strdup_append_buffer(out, "%");
            break;
        default:
            DEBUG(SSSDBG_MINOR_FAILURE, "Unknown template %%%c in home directory %s\n", *p,
                  tmpl);
            out = talloc_strndup_append_buffer(out, p - 1, 2);
            break;
        }
    }
    return out;
}

/* A stored home directory with its %H expanded. */
static char *nss_stored_homedir(TALLOC_CTX *mem_ctx, const char *home, const char *substring)
{
    char *out = talloc_strdup(mem_ctx, "");
    const char *p = home;
    const char *h;

    while (out != NULL && (h = strstr(p, "%H")) != NULL) {
        out = talloc_strndup_append_buffer(out, p, (size_t)(h - p));
        if (out != NULL) {
            out = talloc_strdup_append_buffer(out, substring != NULL ? substring : "");
        }
        p = h + 2;
    }
    return out != NULL ? talloc_strdup_append_buffer(out, p) : NULL;
}

char *nss_user_homedir(TALLOC_CTX *mem_ctx, struct nss_dom_format *df,
                       const char *short_name, uint32_t uid, const char *domain,
                       const char *stored_home)
{
    if (df->override_homedir != NULL && df->override_homedir[0] != '\0') {
        return nss_expand_homedir(mem_ctx, df->override_homedir, short_name, uid, domain,
                                  stored_home, df->homedir_substring);
    }
    if (stored_home != NULL && stored_home[0] != '\0') {
        return nss_stored_homedir(mem_ctx, stored_home, df->homedir_substring);
    }
    if (df->fallback_homedir != NULL && df->fallback_homedir[0] != '\0') {
        return nss_expand_homedir(mem_ctx, df->fallback_homedir, short_name, uid, domain,
                                  stored_home, df->homedir_substring);
    }
    return talloc_strdup(mem_ctx, "");
}

static bool nss_list_has(char *const *list, const char *s)
{
    size_t i;

    for (i = 0; list != NULL && list[i] != NULL; i++) {
        if (strcmp(list[i], s) == 0) {
            return true;
        }
    }
    return false;
}

const char *nss_user_shell(struct nss_format_opts *opts, struct nss_dom_format *df,
                           const char *stored_shell)
{
    bool have_allowed = opts->allowed_shells != NULL && opts->allowed_shells[0] != NULL;
    bool have_vetoed = opts->vetoed_shells != NULL && opts->vetoed_shells[0] != NULL;
    const char *fallback = opts->shell_fallback != NULL ? opts->shell_fallback : "";

    if (df->override_shell != NULL && df->override_shell[0] != '\0') {
        return df->override_shell;
    }
    if (stored_shell == NULL || stored_shell[0] == '\0') {
        return df->default_shell != NULL ? df->default_shell : "";
    }
    if (!have_allowed && !have_vetoed) {
        return stored_shell;
    }
    if (nss_list_has(opts->vetoed_shells, stored_shell)) {
        return fallback;
    }
    if (nss_list_has(opts->etc_shells, stored_shell)
            || nss_list_has(opts->allowed_shells, "*")) {
        return stored_shell;
    }
    if (nss_list_has(opts->allowed_shells, stored_shell)) {
        return fallback;
    }
    return NSS_NOLOGIN_SHELL;
}

/* The short name and the output name of a name as dom's cache stores it (on mem_ctx). */
static errno_t nss_format_name(TALLOC_CTX *mem_ctx, struct resp_ctx *rctx,
                               struct resp_domain *dom, const char *stored, char **_short,
                               const char **_out)
{
    char *short_name;
    char *out;
    errno_t ret;

    ret = resp_short_name(mem_ctx, rctx, dom, stored, &short_name);
    if (ret != EOK) {
        return ret;
    }
    out = resp_output_name(mem_ctx, rctx, dom, short_name);
    if (out == NULL) {
        return ENOMEM;
    }
    *_short = short_name;
    *_out = out;
    return EOK;
}

/* Characters that end a passwd(5) field or line. */
#define NSS_FIELD_BREAKERS ":\n\r"

/* s with every field or line breaker replaced by a space (s itself when it has none, the
 * common case: no copy); NULL on ENOMEM. */
static const char *nss_safe_field(TALLOC_CTX *mem_ctx, const char *user, const char *what,
                                  const char *s)
{
    char *copy;
    size_t i;

    if (s == NULL || s[strcspn(s, NSS_FIELD_BREAKERS)] == '\0') {
        return s;
    }
    copy = talloc_strdup(mem_ctx, s);
    if (copy == NULL) {
        return NULL;
    }
    for (i = strcspn(copy, NSS_FIELD_BREAKERS); copy[i] != '\0';
         i += 1 + strcspn(copy + i + 1, NSS_FIELD_BREAKERS)) {
        copy[i] = ' ';
    }
    DEBUG(SSSDBG_MINOR_FAILURE, "The %s of %s holds ':' or a line break: answered with "
          "spaces in their place\n", what, user);
    return copy;
}

/*
 * The home directory of a trusted domain's user (stored as "dave@b.test" in the trusting
 * domain's cache; b.test one of the domains its back-end recorded): the templates see the
 * trusted domain as %d and the name in it as %u, so the AD default fallback_homedir
 * "/home/%d/%u" gives /home/b.test/dave. SSSD's subdomains inherit the parent's
 * override_homedir, fallback_homedir and homedir_substring and expand them with their own
 * name; its subdomain_homedir is applied only by the IPA provider and the PAC responder,
 * never to an AD provider's trusted domains. Only a short name holding '@' is checked
 * (the cache is read): every other user's path is one strchr() longer.
 */
static char *nss_pw_homedir(TALLOC_CTX *mem_ctx, struct resp_ctx *rctx,
                            struct resp_domain *dom, struct nss_dom_format *df,
                            const char *short_name, const struct sysdb_user *user)
{
    const char *at = strrchr(short_name, '@');
    struct sysdb_subdom sub;
    struct sysdb_ctx *sysdb;
    TALLOC_CTX *tmp_ctx;
    char *home = NULL;
    char *name;

    if (at == NULL || at == short_name) {
        return nss_user_homedir(mem_ctx, df, short_name, user->uid, dom->name, user->home);
    }
    tmp_ctx = talloc_new(NULL);
    if (tmp_ctx == NULL) {
        return NULL;
    }
    if (resp_domain_sysdb(rctx, dom, &sysdb) == EOK
            && sysdb_subdom_find(tmp_ctx, sysdb, at + 1, &sub) == EOK
            && strcasecmp(sub.name, at + 1) == 0) {
        name = talloc_strndup(tmp_ctx, short_name, (size_t)(at - short_name));
        if (name != NULL) {
            home = nss_user_homedir(mem_ctx, df, name, user->uid, sub.name, user->home);
        }
    } else {
        home = nss_user_homedir(mem_ctx, df, short_name, user->uid, dom->name, user->home);
    }
    talloc_free(tmp_ctx);
    return home;
}

errno_t nss_format_pw(TALLOC_CTX *mem_ctx, struct nss_format_opts *opts,
                      struct resp_ctx *rctx, struct resp_domain *dom,
                      const struct sysdb_user *user, struct nss_pw_entry *_pw)
{
    struct nss_dom_format *df = nss_format_dom(opts, rctx, dom);
    struct nss_pw_entry pw = { 0 };
    char *short_name;
    errno_t ret;

    SSS_CHECK_ARG(user != NULL && user->name != NULL && _pw != NULL, EINVAL);
    ret = nss_format_name(mem_ctx, rctx, dom, user->name, &short_name, &pw.name);
    if (ret != EOK) {
        return ret;
    }
    pw.uid = user->uid;
    pw.gid = user->gid;
    pw.gecos = nss_safe_field(mem_ctx, short_name, "gecos",
                              user->gecos != NULL ? user->gecos : "");
    pw.dir = nss_safe_field(mem_ctx, short_name, "home directory",
                            nss_pw_homedir(mem_ctx, rctx, dom, df, short_name, user));
    pw.shell = nss_safe_field(mem_ctx, short_name, "shell",
                              nss_user_shell(opts, df, user->shell));
    if (pw.gecos == NULL || pw.dir == NULL || pw.shell == NULL) {
        return ENOMEM;
    }
    *_pw = pw;
    return EOK;
}

/* The short form of a member name: its length without the "@domain" suffix of the domain's
 * cache (the rule of sysdb_short_name(), without allocating). */
static size_t nss_member_short_len(const char *name, size_t len, const char *domain,
                                   size_t dlen)
{
    /* The cache writes the suffix as the domain is spelt: memcmp settles nearly all. */
    if (len > dlen + 1 && name[len - dlen - 1] == '@'
            && (memcmp(name + len - dlen, domain, dlen) == 0
                || strncasecmp(name + len - dlen, domain, dlen) == 0)) {
        return len - dlen - 1;
    }
    return len;
}

/*
 * Member names as clients see them. Big groups make this the hot loop of a group lookup
 * (50,000 members), so each name is measured once and short names are appended to one
 * growing buffer (offsets first, pointers once it stops moving) instead of one allocation
 * per member; fully qualified output goes through full_name_format per member.
 */
static errno_t nss_format_members(TALLOC_CTX *mem_ctx, struct nss_format_opts *opts,
                                  struct resp_ctx *rctx, struct resp_domain *dom,
                                  const char *const *in, struct nss_gr_entry *gr)
{
    struct resp_name_filter *filter = NULL;
    struct sysdb_ctx *sysdb;
    const char *domain;
    size_t dlen;
    bool fq = dom->fqnames || rctx->output_fqnames;
    const char **members;
    size_t *offs = NULL;
    size_t count;
    size_t slen;
    size_t used = 0;
    size_t cap = 0;
    size_t n = 0;
    char *buf = NULL;
    char *tmp;
    size_t i;
    errno_t ret;

    ret = resp_domain_sysdb(rctx, dom, &sysdb);
    if (ret != EOK) {
        return ret;
    }
    domain = sysdb_domain(sysdb);
    dlen = strlen(domain);
    for (count = 0; in != NULL && in[count] != NULL; count++) {
        /* count */
    }
    members = talloc_zero_array(mem_ctx, const char *, count + 1);
    if (members == NULL) {
        return ENOMEM;
    }
    if (opts->filter_users_in_groups) {
        filter = resp_user_filter_prepare(members, rctx, dom);
        if (filter == NULL) {
            return ENOMEM;
        }
    }
    if (!fq && count > 0) {
        offs = talloc_array(members, size_t, count);
        cap = count * 16;
        buf = talloc_size(members, cap);
        if (offs == NULL || buf == NULL) {
            return ENOMEM;
        }
    }
    for (i = 0; i < count; i++) {
        slen = nss_member_short_len(in[i], strlen(in[i]), domain, dlen);
        if (filter != NULL && resp_name_filter_match(filter, in[i], slen)) {
            continue;
        }
        if (!fq) {
            if (slen + 1 > cap - used) {
                cap = cap * 2 > used + slen + 1 ? cap * 2 : used + slen + 1;
                buf = talloc_realloc_size(members, buf, cap);
                if (buf == NULL) {
                    return ENOMEM;
                }
            }
            memcpy(buf + used, in[i], slen);
            buf[used + slen] = '\0';
            offs[n++] = used;
            used += slen + 1;
            continue;
        }
        tmp = talloc_strndup(members, in[i], slen);
        members[n] = tmp != NULL ? resp_output_name(members, rctx, dom, tmp) : NULL;
        if (members[n] == NULL) {
            return ENOMEM;
        }
        talloc_free(tmp);
        n++;
    }
    for (i = 0; offs != NULL && i < n; i++) {
        members[i] = buf + offs[i];
    }
    talloc_free(offs);
    gr->members = members;
    gr->num_members = n;
    gr->packed = buf;
    gr->packed_len = used;
    return EOK;
}

errno_t nss_format_gr(TALLOC_CTX *mem_ctx, struct nss_format_opts *opts,
                      struct resp_ctx *rctx, struct resp_domain *dom,
                      const struct sysdb_group *group, struct nss_gr_entry *_gr)
{
    struct nss_gr_entry gr = { 0 };
    char *short_name;
    errno_t ret;

    SSS_CHECK_ARG(group != NULL && group->name != NULL && _gr != NULL, EINVAL);
    ret = nss_format_name(mem_ctx, rctx, dom, group->name, &short_name, &gr.name);
    if (ret != EOK) {
        return ret;
    }
    gr.gid = group->gid;
    ret = nss_format_members(mem_ctx, opts, rctx, dom, group->members, &gr);
    if (ret != EOK) {
        return ret;
    }
    *_gr = gr;
    return EOK;
}
