/*
 * Pure helpers of the Kerberos provider (krb5_common.h): the expansion of
 * krb5_ccname_template / krb5_ccachedir, and the lifetimes of krb5_lifetime and
 * krb5_renewable_lifetime. No I/O: unit-tested directly.
 *
 * Template sequences as SSSD 2.8 documents them: %u login name, %U uid, %p principal,
 * %r realm, %h home directory, %d krb5_ccachedir, %P the client's pid, %% a percent. A
 * trailing XXXXXX is left for krb5_child, which makes the name unique.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>

#include "providers/krb5/krb5_common.h"

errno_t krb5_ccname_expand(TALLOC_CTX *mem_ctx, const char *tmpl,
                           const struct krb5_ccname_vars *vars, char **_name)
{
    TALLOC_CTX *tmp_ctx;
    const char *p;
    const char *add;
    char num[16];
    char *out;
    errno_t ret;

    SSS_CHECK_ARG(tmpl != NULL && vars != NULL && _name != NULL, EINVAL);
    tmp_ctx = talloc_new(NULL);
    out = talloc_strdup(tmp_ctx, "");
    if (tmp_ctx == NULL || out == NULL) {
        ret = ENOMEM;
        goto done;
    }
    for (p = tmpl; *p != '\0'; p++) {
        if (*p != '%') {
            out = talloc_strndup_append(out, p, 1);
            if (out == NULL) {
                ret = ENOMEM;
                goto done;
            }
            continue;
        }
        p++;
        add = NULL;
        switch (*p) {
        case 'u':
            add = vars->user;
            break;
        case 'U':
            snprintf(num, sizeof(num), "%u", vars->uid);
            add = num;
            break;
        case 'p':
            add = vars->principal;
            break;
        case 'r':
            add = vars->realm;
            break;
        case 'h':
            add = vars->home;
            break;
        case 'd':
            add = vars->ccachedir;
            break;
        case 'P':
            if (vars->pid != 0) {
                snprintf(num, sizeof(num), "%u", vars->pid);
                add = num;
            }
            break;
        case '%':
            add = "%";
            break;
        default:
            break;      /* unknown, or the template ends in '%' */
        }
        if (add == NULL) {
            DEBUG(SSSDBG_OP_FAILURE, "ccache template [%s]: %%%c is unknown or unavailable\n",
                  tmpl, *p != '\0' ? *p : ' ');
            ret = EINVAL;
            goto done;
        }
        out = talloc_strdup_append(out, add);
        if (out == NULL) {
            ret = ENOMEM;
            goto done;
        }
        if (strlen(out) > PATH_MAX) {
            ret = E2BIG;
            goto done;
        }
    }
    if (strlen(out) > PATH_MAX) {
        ret = E2BIG;
        goto done;
    }
    *_name = talloc_steal(mem_ctx, out);
    ret = EOK;
done:
    talloc_free(tmp_ctx);
    return ret;
}

errno_t krb5_parse_lifetime(const char *str, int *_secs)
{
    const char *p = str;
    long long total = 0;
    long long n;
    char *end;
    int mult;

    SSS_CHECK_ARG(str != NULL && _secs != NULL, EINVAL);
    if (*p == '\0') {
        return EINVAL;
    }
    while (*p != '\0') {
        if (*p < '0' || *p > '9') {
            return EINVAL;
        }
        errno = 0;
        n = strtoll(p, &end, 10);
        if (errno != 0 || n > INT_MAX) {
            return EINVAL;
        }
        switch (*end) {
        case '\0':
            mult = 1;
            if (p != str) {
                return EINVAL;      /* "1d5": a bare number only on its own */
            }
            break;
        case 's':
            mult = 1;
            end++;
            break;
        case 'm':
            mult = 60;
            end++;
            break;
        case 'h':
            mult = 3600;
            end++;
            break;
        case 'd':
            mult = 86400;
            end++;
            break;
        default:
            return EINVAL;
        }
        total += n * mult;
        if (total > INT_MAX) {
            return EINVAL;
        }
        p = end;
    }
    *_secs = (int)total;
    return EOK;
}
