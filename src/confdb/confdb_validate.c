/*
 * Validation: each value against its option's type (integers with their range, booleans,
 * enums, which come out in the table's spelling), and the configuration as a whole once
 * every file is read: the [sssd] section and its domains and services, a section and an
 * id_provider for each domain, id ranges that make sense. The first problem stops the
 * load with one "file:line: ..." message; what SSSD would ignore becomes a warning.
 */
#include <stdarg.h>
#include <strings.h>

#include "confdb/confdb_private.h"

/* "one of: a, b, c" for an enum option. */
static char *confdb_allowed_text(TALLOC_CTX *mem_ctx, const struct confdb_option *opt)
{
    char *text;
    size_t i;

    text = talloc_strdup(mem_ctx, "one of: ");
    for (i = 0; text != NULL && opt->allowed != NULL && opt->allowed[i] != NULL; i++) {
        text = talloc_asprintf_append(text, "%s%s", i == 0 ? "" : ", ", opt->allowed[i]);
    }
    return text;
}

/*
 * Checks raw against opt's type. EOK: *_value is the text to store (a talloc copy on
 * mem_ctx). EINVAL: *_allowed says what would have been accepted. ENOMEM.
 */
errno_t confdb_check_value(TALLOC_CTX *mem_ctx, const struct confdb_option *opt,
                           const char *raw, char **_value, char **_allowed)
{
    const char *store = raw;
    char *allowed = NULL;
    char *value;
    long long num;
    bool b;
    size_t i;
    errno_t ret;

    switch (opt->type) {
    case CONFDB_T_STRING:
    case CONFDB_T_LIST:
        break;
    case CONFDB_T_INT:
        ret = confdb_parse_int(raw, &num);
        if (ret != EOK || num < opt->min || num > opt->max) {
            allowed = talloc_asprintf(mem_ctx, "an integer from %lld to %lld (decimal, or "
                                      "hexadecimal with 0x)", opt->min, opt->max);
        }
        break;
    case CONFDB_T_BOOL:
        if (confdb_parse_bool(raw, &b) != EOK) {
            allowed = talloc_strdup(mem_ctx, "a boolean: true or false, yes or no, 1 or 0");
        }
        break;
    case CONFDB_T_ENUM:
        store = NULL;
        for (i = 0; opt->allowed != NULL && opt->allowed[i] != NULL; i++) {
            if (strcasecmp(raw, opt->allowed[i]) == 0) {
                store = opt->allowed[i];
                break;
            }
        }
        if (store == NULL) {
            allowed = confdb_allowed_text(mem_ctx, opt);
        }
        break;
    }

    if (store == NULL || allowed != NULL) {
        if (allowed == NULL) {
            return ENOMEM;
        }
        *_allowed = allowed;
        return EINVAL;
    }
    value = talloc_strdup(mem_ctx, store);
    if (value == NULL) {
        return ENOMEM;
    }
    *_value = value;
    return EOK;
}

struct confdb_checker {
    struct confdb *cdb;
    TALLOC_CTX *err_ctx;
    char **error;
};

/* Formats "file:line: text" (or "file: text" when line is 0) and returns
 * ERR_INVALID_CONFIG. */
static errno_t check_error(struct confdb_checker *c, const char *file, unsigned line,
                           const char *fmt, ...) __attribute__((format(printf, 4, 5)));

static errno_t check_error(struct confdb_checker *c, const char *file, unsigned line,
                           const char *fmt, ...)
{
    char *text;
    va_list ap;

    va_start(ap, fmt);
    text = talloc_vasprintf(c->err_ctx, fmt, ap);
    va_end(ap);
    if (text == NULL) {
        return ENOMEM;
    }
    if (line > 0) {
        *c->error = talloc_asprintf(c->err_ctx, "%s:%u: %s", file, line, text);
    } else {
        *c->error = talloc_asprintf(c->err_ctx, "%s: %s", file, text);
    }
    talloc_free(text);
    return *c->error == NULL ? ENOMEM : ERR_INVALID_CONFIG;
}

/* Value of an integer option in sec, or its default. */
static long long check_int(struct confdb_section *sec, const char *option)
{
    const struct confdb_option *opt = confdb_option_find(option, CONFDB_K_DOMAIN);
    struct confdb_entry *entry = confdb_find_entry(sec, option);
    const char *text = entry != NULL ? entry->value : (opt != NULL ? opt->def : NULL);
    long long num = 0;

    if (text == NULL || confdb_parse_int(text, &num) != EOK) {
        return 0;
    }
    return num;
}

/* domain is the listed name, shown its printable form for messages. */
static errno_t check_domain(struct confdb_checker *c, TALLOC_CTX *mem_ctx,
                            struct confdb_entry *domains, const char *domain,
                            const char *shown)
{
    struct confdb_section *sec;
    struct confdb_entry *at;
    char *name;
    char *allowed;
    long long min_id, max_id;
    size_t i;

    name = confdb_domain_section(mem_ctx, domain);
    if (name == NULL) {
        return ENOMEM;
    }
    sec = confdb_find_section(c->cdb, name);
    if (sec == NULL) {
        return check_error(c, domains->file, domains->line,
                           "domain '%s' is listed in [sssd] domains but there is no "
                           "[domain/%s] section", shown, shown);
    }
    if (confdb_find_entry(sec, "id_provider") == NULL) {
        allowed = confdb_allowed_text(mem_ctx,
                                      confdb_option_find("id_provider", CONFDB_K_DOMAIN));
        if (allowed == NULL) {
            return ENOMEM;
        }
        return check_error(c, sec->file, sec->line, "section [domain/%s] has no "
                           "'id_provider', which is required (%s)", shown, allowed);
    }

    /* Once per load: the monitor logs the warnings at start, sssctl shows them. */
    for (i = 0; i < sec->num_entries; i++) {
        at = &sec->entries[i];
        if (at->opt != NULL && at->opt->unused != NULL) {
            confdb_add_warning(c->cdb, "%s:%u: option '%s' in [domain/%s] is accepted but "
                               "has no effect here: %s", at->file, at->line, at->opt->name,
                               shown, at->opt->unused);
        }
    }

    min_id = check_int(sec, "min_id");
    max_id = check_int(sec, "max_id");
    if (max_id != 0 && min_id > max_id) {
        at = confdb_find_entry(sec, "min_id");
        if (at == NULL) {
            at = confdb_find_entry(sec, "max_id");
        }
        return check_error(c, at != NULL ? at->file : sec->file,
                           at != NULL ? at->line : sec->line,
                           "in section [domain/%s], min_id (%lld) is larger than max_id "
                           "(%lld); max_id 0 means no upper limit", shown, min_id, max_id);
    }
    return EOK;
}

static errno_t check_domains(struct confdb_checker *c, TALLOC_CTX *mem_ctx,
                             struct confdb_section *sssd)
{
    struct confdb_entry *entry;
    char **list;
    char *shown;
    size_t count, i, j;
    bool listed;
    errno_t ret;

    entry = confdb_find_entry(sssd, "domains");
    if (entry == NULL) {
        return check_error(c, sssd->file, sssd->line, "section [sssd] has no 'domains' "
                           "option; list the domains to serve, e.g. 'domains = example.com'");
    }
    ret = confdb_split_list(mem_ctx, entry->value, &list, &count);
    if (ret != EOK) {
        return ret;
    }
    if (count == 0) {
        return check_error(c, entry->file, entry->line, "option 'domains' in section "
                           "[sssd] is empty; list at least one domain");
    }
    for (i = 0; i < count; i++) {
        shown = confdb_quote_str(mem_ctx, list[i]);
        if (shown == NULL) {
            return ENOMEM;
        }
        if (!confdb_domain_name_valid(list[i])) {
            return check_error(c, entry->file, entry->line, "invalid domain name '%s' in "
                               "[sssd] domains: it must not contain '/' or control "
                               "characters", shown);
        }
        for (j = 0; j < i; j++) {
            if (strcmp(list[i], list[j]) == 0) {
                return check_error(c, entry->file, entry->line, "domain '%s' is listed "
                                   "twice in [sssd] domains", shown);
            }
        }
        ret = check_domain(c, mem_ctx, entry, list[i], shown);
        if (ret != EOK) {
            return ret;
        }
    }

    /* SSSD ignores a domain section that is not listed: so do we, but say so. */
    for (i = 0; i < c->cdb->num_sections; i++) {
        struct confdb_section *sec = &c->cdb->sections[i];
        const char *dom = sec->name + strlen("domain/");

        if (sec->kind != CONFDB_K_DOMAIN) {
            continue;
        }
        listed = false;
        for (j = 0; j < count && !listed; j++) {
            listed = strcmp(list[j], dom) == 0;
        }
        if (!listed) {
            shown = confdb_quote_str(mem_ctx, sec->name);
            confdb_add_warning(c->cdb, "%s:%u: section [%s] is ignored: domain '%s' is not "
                               "listed in [sssd] domains", sec->file, sec->line,
                               shown != NULL ? shown : "?", shown != NULL ?
                               shown + strlen("domain/") : "?");
        }
    }
    return EOK;
}

static errno_t check_services(struct confdb_checker *c, TALLOC_CTX *mem_ctx,
                              struct confdb_section *sssd)
{
    static const char *const served[] = { "nss", "pam", "sudo", NULL };
    static const char *const not_provided[] = { "ifp", "ssh", "pac", "autofs", "kcm", NULL };
    struct confdb_entry *entry;
    char **list;
    char *shown;
    size_t count, i, j;
    bool known;
    errno_t ret;

    entry = confdb_find_entry(sssd, "services");
    if (entry == NULL) {
        return EOK;
    }
    ret = confdb_split_list(mem_ctx, entry->value, &list, &count);
    if (ret != EOK) {
        return ret;
    }
    for (i = 0; i < count; i++) {
        known = false;
        for (j = 0; served[j] != NULL && !known; j++) {
            known = strcmp(list[i], served[j]) == 0;
        }
        if (known) {
            continue;
        }
        shown = confdb_quote_str(mem_ctx, list[i]);
        if (shown == NULL) {
            return ENOMEM;
        }
        for (j = 0; not_provided[j] != NULL && !known; j++) {
            known = strcmp(list[i], not_provided[j]) == 0;
        }
        if (known) {
            confdb_add_warning(c->cdb, "%s:%u: service '%s' in [sssd] services is not "
                               "provided by this suite and is ignored", entry->file,
                               entry->line, shown);
            continue;
        }
        return check_error(c, entry->file, entry->line, "unknown service '%s' in [sssd] "
                           "services; known services: nss, pam, sudo (served) and ifp, ssh, "
                           "pac, autofs, kcm (not provided by this suite)", shown);
    }
    return EOK;
}

/*
 * Whole-configuration checks, after every file is parsed. Errors: ERR_INVALID_CONFIG with
 * *_error on err_ctx, ENOMEM.
 */
errno_t confdb_check_config(struct confdb *cdb, TALLOC_CTX *err_ctx, char **_error)
{
    struct confdb_checker c = { .cdb = cdb, .err_ctx = err_ctx, .error = _error };
    struct confdb_section *sssd;
    TALLOC_CTX *tmp_ctx;
    errno_t ret;

    tmp_ctx = talloc_new(NULL);
    if (tmp_ctx == NULL) {
        return ENOMEM;
    }

    sssd = confdb_find_section(cdb, "sssd");
    if (sssd == NULL) {
        ret = check_error(&c, cdb->main_file != NULL ? cdb->main_file : "sssd.conf", 0,
                          "the [sssd] section is missing; it is required and must list the "
                          "domains to serve in 'domains'");
        goto done;
    }
    ret = check_services(&c, tmp_ctx, sssd);
    if (ret != EOK) {
        goto done;
    }
    ret = check_domains(&c, tmp_ctx, sssd);

done:
    talloc_free(tmp_ctx);
    return ret;
}
