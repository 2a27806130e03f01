/*
 * The confdb object and its lookups: creating it, finding sections and entries, collecting
 * warnings, and the typed getters, which fall back to the option table's defaults
 * (including defaults taken from another option or from ldap_schema). Building one, from
 * files or from memory, lives in confdb_load.c.
 */
#include <limits.h>
#include <stdarg.h>

#include "confdb/confdb_private.h"

/* Chains like chpass_provider -> auth_provider -> id_provider stay short. */
#define CONFDB_MAX_DEFAULT_DEPTH 4

struct confdb *confdb_new(TALLOC_CTX *mem_ctx)
{
    struct confdb *cdb;

    cdb = talloc_zero(mem_ctx, struct confdb);
    if (cdb == NULL) {
        return NULL;
    }
    cdb->warnings = talloc_zero_array(cdb, char *, 1);
    if (cdb->warnings == NULL) {
        talloc_free(cdb);
        return NULL;
    }
    return cdb;
}

struct confdb_section *confdb_find_section(struct confdb *cdb, const char *name)
{
    size_t i;

    for (i = 0; i < cdb->num_sections; i++) {
        if (strcmp(cdb->sections[i].name, name) == 0) {
            return &cdb->sections[i];
        }
    }
    return NULL;
}

struct confdb_entry *confdb_find_entry(struct confdb_section *sec, const char *option)
{
    size_t i;

    if (sec == NULL) {
        return NULL;
    }
    for (i = 0; i < sec->num_entries; i++) {
        if (strcmp(sec->entries[i].opt->name, option) == 0) {
            return &sec->entries[i];
        }
    }
    return NULL;
}

bool confdb_warnings_full(struct confdb *cdb)
{
    return cdb->num_warnings >= CONFDB_MAX_WARNINGS;
}

/* Appends a warning; past CONFDB_MAX_WARNINGS one last line says the rest were dropped.
 * Out of memory only loses the warning. */
void confdb_add_warning(struct confdb *cdb, const char *fmt, ...)
{
    char **warnings;
    char *text;
    va_list ap;

    if (cdb->num_warnings > CONFDB_MAX_WARNINGS) {
        return;
    }
    if (cdb->num_warnings == CONFDB_MAX_WARNINGS) {
        text = talloc_asprintf(cdb, "more than %d warnings; the rest are not shown",
                               CONFDB_MAX_WARNINGS);
    } else {
        va_start(ap, fmt);
        text = talloc_vasprintf(cdb, fmt, ap);
        va_end(ap);
    }
    if (text == NULL) {
        return;
    }
    warnings = talloc_realloc(cdb, cdb->warnings, char *, cdb->num_warnings + 2);
    if (warnings == NULL) {
        talloc_free(text);
        return;
    }
    talloc_steal(warnings, text);
    warnings[cdb->num_warnings++] = text;
    warnings[cdb->num_warnings] = NULL;
    cdb->warnings = warnings;
    DEBUG(SSSDBG_TRACE_FUNC, "config warning: %s\n", text);
}

const char *const *confdb_warnings(struct confdb *cdb)
{
    static const char *const none[] = { NULL };

    if (cdb == NULL || cdb->warnings == NULL) {
        return none;
    }
    return (const char *const *)cdb->warnings;
}

char *confdb_domain_section(TALLOC_CTX *mem_ctx, const char *domain)
{
    if (domain == NULL) {
        return NULL;
    }
    return talloc_asprintf(mem_ctx, "domain/%s", domain);
}

/* Kind of a section name as the getters see it; 0 when it is not one of ours. */
static unsigned confdb_lookup_kind(const char *section)
{
    unsigned kind = 0;

    if (confdb_section_classify(section, &kind) != CONFDB_SEC_SERVED) {
        return 0;
    }
    return kind;
}

/* The effective text of opt in sec: its value, else its default, resolved through
 * default_from and ldap_schema. NULL when there is none. */
static const char *confdb_effective(struct confdb_section *sec, unsigned kind,
                                    const struct confdb_option *opt, unsigned depth)
{
    struct confdb_entry *entry;
    const struct confdb_option *from;
    const struct confdb_option *schema_opt;
    const char *value;

    entry = confdb_find_entry(sec, opt->name);
    if (entry != NULL) {
        return entry->value;
    }
    if ((kind & CONFDB_K_DOMAIN) != 0 && depth < CONFDB_MAX_DEFAULT_DEPTH
            && strcmp(opt->name, "id_provider") != 0) {
        from = confdb_option_find("id_provider", kind);
        value = from != NULL ? confdb_effective(sec, kind, from, depth + 1) : NULL;
        value = value != NULL ? confdb_provider_default(opt->name, value) : NULL;
        if (value != NULL) {
            return value;
        }
    }
    if (opt->schema_default) {
        schema_opt = confdb_option_find("ldap_schema", kind);
        value = schema_opt != NULL ? confdb_effective(sec, kind, schema_opt, depth + 1) : NULL;
        return confdb_schema_default(opt->name, value);
    }
    if (opt->default_from == NULL) {
        return opt->def;
    }
    if (depth >= CONFDB_MAX_DEFAULT_DEPTH) {
        return NULL;
    }
    from = confdb_option_find(opt->default_from, kind);
    if (from == NULL) {
        return NULL;
    }
    value = confdb_effective(sec, kind, from, depth + 1);
    if (value != NULL && opt->type == CONFDB_T_ENUM && !confdb_enum_allows(opt, value)) {
        /* e.g. id_provider = proxy: no proxy sudo provider, so sudo is off. */
        value = confdb_enum_allows(opt, "none") ? "none" : NULL;
    }
    return value;
}

static const char *confdb_type_name(enum confdb_type type)
{
    switch (type) {
    case CONFDB_T_STRING:
        return "string";
    case CONFDB_T_INT:
        return "integer";
    case CONFDB_T_BOOL:
        return "boolean";
    case CONFDB_T_LIST:
        return "list";
    case CONFDB_T_ENUM:
        return "enum";
    }
    return "unknown";
}

/*
 * Finds option in the table for section's kind and checks the getter fits its type
 * (types is a bit mask of 1 << enum confdb_type). EINVAL for a programming error.
 */
static errno_t confdb_lookup(struct confdb *cdb, const char *section, const char *option,
                             unsigned types, const char **_value)
{
    const struct confdb_option *opt;
    unsigned kind;

    if (cdb == NULL || section == NULL || option == NULL) {
        DEBUG(SSSDBG_CRIT_FAILURE, "confdb lookup with a NULL argument\n");
        return EINVAL;
    }
    kind = confdb_lookup_kind(section);
    opt = kind != 0 ? confdb_option_find(option, kind) : NULL;
    if (opt == NULL) {
        DEBUG(SSSDBG_CRIT_FAILURE, "option '%s' is not known in section [%s]\n",
              option, section);
        return EINVAL;
    }
    if ((types & (1u << opt->type)) == 0) {
        DEBUG(SSSDBG_CRIT_FAILURE, "option '%s' is of type %s, wrong getter\n",
              option, confdb_type_name(opt->type));
        return EINVAL;
    }
    *_value = confdb_effective(confdb_find_section(cdb, section), kind, opt, 0);
    return EOK;
}

errno_t confdb_get_string(struct confdb *cdb, TALLOC_CTX *mem_ctx,
                          const char *section, const char *option, char **_value)
{
    const char *value;
    char *copy = NULL;
    errno_t ret;

    if (_value == NULL) {
        return EINVAL;
    }
    ret = confdb_lookup(cdb, section, option, ~0u, &value);
    if (ret != EOK) {
        return ret;
    }
    if (value != NULL) {
        copy = talloc_strdup(mem_ctx, value);
        if (copy == NULL) {
            return ENOMEM;
        }
    }
    *_value = copy;
    return EOK;
}

static errno_t confdb_get_number(struct confdb *cdb, const char *section, const char *option,
                                 long long *_value)
{
    const char *value;
    long long num;
    errno_t ret;

    ret = confdb_lookup(cdb, section, option, 1u << CONFDB_T_INT, &value);
    if (ret != EOK) {
        return ret;
    }
    if (value == NULL) {
        return ENOENT;
    }
    ret = confdb_parse_int(value, &num);
    if (ret != EOK) {
        /* Values are checked at load and defaults by the unit tests. */
        DEBUG(SSSDBG_CRIT_FAILURE, "bad stored integer '%s' for %s\n", value, option);
        return ERR_INTERNAL;
    }
    *_value = num;
    return EOK;
}

/* An integer option that must fit [min, max] (ERANGE otherwise). */
static errno_t confdb_get_ranged(struct confdb *cdb, const char *section, const char *option,
                                 long long min, long long max, long long *_num)
{
    long long num;
    errno_t ret;

    ret = confdb_get_number(cdb, section, option, &num);
    if (ret != EOK) {
        return ret;
    }
    if (num < min || num > max) {
        return ERANGE;
    }
    *_num = num;
    return EOK;
}

errno_t confdb_get_int(struct confdb *cdb, const char *section, const char *option,
                       int *_value)
{
    long long num;
    errno_t ret;

    if (_value == NULL) {
        return EINVAL;
    }
    ret = confdb_get_ranged(cdb, section, option, INT_MIN, INT_MAX, &num);
    if (ret == EOK) {
        *_value = (int)num;
    }
    return ret;
}

errno_t confdb_get_uint32(struct confdb *cdb, const char *section, const char *option,
                          uint32_t *_value)
{
    long long num;
    errno_t ret;

    if (_value == NULL) {
        return EINVAL;
    }
    ret = confdb_get_ranged(cdb, section, option, 0, UINT32_MAX, &num);
    if (ret == EOK) {
        *_value = (uint32_t)num;
    }
    return ret;
}

errno_t confdb_get_bool(struct confdb *cdb, const char *section, const char *option,
                        bool *_value)
{
    const char *value;
    bool b;
    errno_t ret;

    if (_value == NULL) {
        return EINVAL;
    }
    ret = confdb_lookup(cdb, section, option, 1u << CONFDB_T_BOOL, &value);
    if (ret != EOK) {
        return ret;
    }
    if (value == NULL) {
        return ENOENT;
    }
    ret = confdb_parse_bool(value, &b);
    if (ret != EOK) {
        DEBUG(SSSDBG_CRIT_FAILURE, "bad stored boolean '%s' for %s\n", value, option);
        return ERR_INTERNAL;
    }
    *_value = b;
    return EOK;
}

errno_t confdb_get_list(struct confdb *cdb, TALLOC_CTX *mem_ctx,
                        const char *section, const char *option, char ***_list)
{
    const char *value;
    errno_t ret;

    if (_list == NULL) {
        return EINVAL;
    }
    ret = confdb_lookup(cdb, section, option,
                        (1u << CONFDB_T_LIST) | (1u << CONFDB_T_STRING), &value);
    if (ret != EOK) {
        return ret;
    }
    return confdb_split_list(mem_ctx, value != NULL ? value : "", _list, NULL);
}

bool confdb_is_set(struct confdb *cdb, const char *section, const char *option)
{
    struct confdb_section *sec;
    char *provider = NULL;
    bool set;

    if (cdb == NULL || section == NULL || option == NULL) {
        return false;
    }
    sec = confdb_find_section(cdb, section);
    if (confdb_find_entry(sec, option) != NULL) {
        return true;
    }
    /* The id_provider's default is a domain-level value as in SSSD, where it wins over
     * an [nss] fallback_homedir. */
    if (sec == NULL || (sec->kind & CONFDB_K_DOMAIN) == 0
            || strcmp(option, "id_provider") == 0
            || confdb_get_string(cdb, NULL, section, "id_provider", &provider) != EOK
            || provider == NULL) {
        return false;
    }
    set = confdb_provider_default(option, provider) != NULL;
    talloc_free(provider);
    return set;
}

errno_t confdb_get_domains(struct confdb *cdb, TALLOC_CTX *mem_ctx, char ***_domains)
{
    return confdb_get_list(cdb, mem_ctx, "sssd", "domains", _domains);
}

/* Services this suite runs; confdb_check_config() has refused unknown names. */
static bool confdb_service_served(const char *name)
{
    return strcmp(name, "nss") == 0 || strcmp(name, "pam") == 0 ||
           strcmp(name, "sudo") == 0;
}

errno_t confdb_get_services(struct confdb *cdb, TALLOC_CTX *mem_ctx, char ***_services)
{
    TALLOC_CTX *tmp_ctx;
    char **all;
    char **out;
    size_t count;
    size_t n = 0;
    size_t i, j;
    errno_t ret;

    if (_services == NULL) {
        return EINVAL;
    }
    tmp_ctx = talloc_new(NULL);
    if (tmp_ctx == NULL) {
        return ENOMEM;
    }
    ret = confdb_get_list(cdb, tmp_ctx, "sssd", "services", &all);
    if (ret != EOK) {
        goto done;
    }
    for (count = 0; all[count] != NULL; count++) {
        /* count */
    }
    out = talloc_zero_array(tmp_ctx, char *, count + 1);
    if (out == NULL) {
        ret = ENOMEM;
        goto done;
    }
    for (i = 0; i < count; i++) {
        bool seen = false;

        if (!confdb_service_served(all[i])) {
            continue;
        }
        for (j = 0; j < n; j++) {
            if (strcmp(out[j], all[i]) == 0) {
                seen = true;
                break;
            }
        }
        if (!seen) {
            out[n++] = talloc_steal(out, all[i]);
        }
    }
    out[n] = NULL;

    *_services = talloc_steal(mem_ctx, out);
    ret = EOK;

done:
    talloc_free(tmp_ctx);
    return ret;
}

errno_t confdb_set_default(struct confdb *cdb, const char *section, const char *option,
                           const char *value)
{
    const struct confdb_option *opt;
    struct confdb_section *sec;
    struct confdb_entry *entries;
    struct confdb_entry *entry;
    char *copy;

    if (cdb == NULL || section == NULL || option == NULL || value == NULL) {
        return EINVAL;
    }
    sec = confdb_find_section(cdb, section);
    if (sec == NULL) {
        return ENOENT;
    }
    opt = confdb_option_find(option, sec->kind);
    if (opt == NULL) {
        DEBUG(SSSDBG_CRIT_FAILURE, "option '%s' is not known in section [%s]\n", option,
              section);
        return EINVAL;
    }
    if (confdb_find_entry(sec, option) != NULL) {
        return EOK;
    }
    copy = talloc_strdup(cdb, value);
    entries = talloc_realloc(cdb, sec->entries, struct confdb_entry, sec->num_entries + 1);
    if (copy == NULL || entries == NULL) {
        talloc_free(copy);
        return ENOMEM;
    }
    sec->entries = entries;
    entry = &entries[sec->num_entries++];
    entry->opt = opt;
    entry->value = copy;
    entry->file = "(provider default)";
    entry->file_idx = UINT_MAX;
    entry->line = 0;
    return EOK;
}
