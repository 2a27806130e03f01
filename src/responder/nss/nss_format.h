/*
 * How sssd_nss turns cache entries into the records clients see: output names (short, or
 * full_name_format for fully qualified domains), the home directory (override_homedir,
 * else the stored one, else fallback_homedir; templates below), the shell (override_shell;
 * else the stored one checked against vetoed_shells, /etc/shells and allowed_shells; else
 * default_shell), and group member lists (member names formatted the same way, filtered
 * users dropped when filter_users_in_groups is true).
 *
 * Home directory templates: %u user name (short), %U uid, %d domain, %f fully qualified
 * name (user@domain), %l first letter of the user name, %o the stored home directory,
 * %H homedir_substring, %% a percent sign. A stored home directory only has %H expanded
 * (directories may carry it, as SSSD allows). An unknown %x is kept as written (logged).
 *
 * Shells, as SSSD documents them: with neither allowed_shells nor vetoed_shells set the
 * stored shell is used as is. Otherwise: in vetoed_shells -> shell_fallback; listed in
 * /etc/shells -> the shell; allowed_shells contains "*" -> the shell; in allowed_shells
 * but not in /etc/shells -> shell_fallback; anything else (also with only vetoed_shells
 * set) -> /sbin/nologin. An empty stored shell gives default_shell (or ""). /etc/shells is
 * read once, when the options are loaded.
 *
 * override_homedir, fallback_homedir, homedir_substring, override_shell and default_shell
 * may be set per domain ([domain/X] wins over [nss]).
 *
 * Fields: a gecos, home directory or shell holding ':' or a line break ('\n', '\r'; from
 * the directory, or a template) would split a passwd(5) line or start another one in
 * whatever writes the entry out (a script saving getpwent() lines, a merge into
 * /etc/passwd): each such character is answered as a space, in the reply and in the memory
 * cache alike. SSSD 2.8 passes them through; glibc's putpwent() (getent) itself rewrites
 * such a gecos with spaces and refuses an entry whose home or shell has one ("error
 * writing passwd entry: Invalid argument"), so this is glibc's gecos rule applied to all
 * three fields before any program sees them. Refusing the whole user instead would lock a
 * user out for a colon in a display name.
 *
 * Ownership: struct nss_format_opts is a talloc object; records built by nss_format_pw()
 * and nss_format_gr() are allocated on the caller's mem_ctx.
 */
#ifndef NSS_FORMAT_H
#define NSS_FORMAT_H

#include "responder/common/responder_domains.h"
#include "responder/nss/nss_protocol.h"

#define NSS_NOLOGIN_SHELL "/sbin/nologin"

struct nss_dom_format {
    char *override_homedir;
    char *fallback_homedir;
    char *homedir_substring;
    char *override_shell;
    char *default_shell;
};

struct nss_format_opts {
    struct nss_dom_format *dom;     /* one per rctx domain, in the same order */
    size_t num_dom;
    char **allowed_shells;          /* never NULL */
    char **vetoed_shells;           /* never NULL */
    char *shell_fallback;
    char **etc_shells;              /* the lines of /etc/shells; never NULL */
    bool filter_users_in_groups;
};

/* Reads the options for every domain of rctx; etc_shells is the shells file ("/etc/shells"
 * in the daemon; a missing file is an empty list). Errors: confdb errors, ENOMEM. */
errno_t nss_format_load(TALLOC_CTX *mem_ctx, struct confdb *cdb, struct resp_ctx *rctx,
                        const char *etc_shells, struct nss_format_opts **_opts);

/* The format options of dom (which must be one of rctx's domains). */
struct nss_dom_format *nss_format_dom(struct nss_format_opts *opts, struct resp_ctx *rctx,
                                      struct resp_domain *dom);

/* Expands a home directory template for a user. NULL on ENOMEM. */
char *nss_expand_homedir(TALLOC_CTX *mem_ctx, const char *tmpl, const char *short_name,
                         uint32_t uid, const char *domain, const char *stored_home,
                         const char *substring);

/* The home directory and shell a user gets (never NULL except on ENOMEM). */
char *nss_user_homedir(TALLOC_CTX *mem_ctx, struct nss_dom_format *df,
                       const char *short_name, uint32_t uid, const char *domain,
                       const char *stored_home);
const char *nss_user_shell(struct nss_format_opts *opts, struct nss_dom_format *df,
                           const char *stored_shell);

/* The passwd record of a user of dom (strings on mem_ctx). Errors: ENOMEM, EINVAL. */
errno_t nss_format_pw(TALLOC_CTX *mem_ctx, struct nss_format_opts *opts,
                      struct resp_ctx *rctx, struct resp_domain *dom,
                      const struct sysdb_user *user, struct nss_pw_entry *_pw);

/* The group record of a group of dom, members formatted and filtered (on mem_ctx). */
errno_t nss_format_gr(TALLOC_CTX *mem_ctx, struct nss_format_opts *opts,
                      struct resp_ctx *rctx, struct resp_domain *dom,
                      const struct sysdb_group *group, struct nss_gr_entry *_gr);

#endif /* NSS_FORMAT_H */
