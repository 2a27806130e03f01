/*
 * The options of one LDAP domain, read once from confdb into struct sdap_options.
 * confdb's table gives the defaults (SSSD's), including the attribute-map defaults that
 * depend on ldap_schema; this file only fetches, checks and derives (per-map search bases
 * fall back to ldap_search_base, the URI lists are joined, the schema decides whether
 * group members are names or DNs).
 */
#include "util/util.h"
#include "confdb/confdb.h"
#include "providers/ldap/sdap_private.h"

/* The schemas as data: name, enum, and how the group member attribute is read. */
static const struct {
    const char *name;
    enum sdap_schema schema;
    bool member_is_dn;
} sdap_schemas[] = {
    { "rfc2307", SDAP_SCHEMA_RFC2307, false },
    { "rfc2307bis", SDAP_SCHEMA_RFC2307BIS, true },
    { "ad", SDAP_SCHEMA_AD, true },
    { "ipa", SDAP_SCHEMA_IPA, true },
};

/* Which option names each attribute map entry; required ones must have a value. */
static const struct {
    enum sdap_user_attr attr;
    const char *option;
    bool required;
} sdap_user_map_opts[] = {
    { SDAP_UA_OC, "ldap_user_object_class", true },
    { SDAP_UA_NAME, "ldap_user_name", true },
    { SDAP_UA_UID, "ldap_user_uid_number", true },
    { SDAP_UA_GID, "ldap_user_gid_number", true },
    { SDAP_UA_GECOS, "ldap_user_gecos", false },
    { SDAP_UA_FULLNAME, "ldap_user_fullname", false },
    { SDAP_UA_HOME, "ldap_user_home_directory", false },
    { SDAP_UA_SHELL, "ldap_user_shell", false },
};

static const struct {
    enum sdap_group_attr attr;
    const char *option;
    bool required;
} sdap_group_map_opts[] = {
    { SDAP_GA_OC, "ldap_group_object_class", true },
    { SDAP_GA_NAME, "ldap_group_name", true },
    { SDAP_GA_GID, "ldap_group_gid_number", true },
    { SDAP_GA_MEMBER, "ldap_group_member", true },
};

static const struct {
    const char *name;
    int value;
} sdap_reqcert_values[] = {
    { "never", LDAP_OPT_X_TLS_NEVER },
    { "allow", LDAP_OPT_X_TLS_ALLOW },
    { "try", LDAP_OPT_X_TLS_TRY },
    { "demand", LDAP_OPT_X_TLS_DEMAND },
    { "hard", LDAP_OPT_X_TLS_HARD },
};

/* Reads an option that must be an attribute name: no spaces, parentheses or '='. */
static errno_t get_attr_name(struct confdb *cdb, TALLOC_CTX *mem_ctx, const char *section,
                             const char *option, bool required, const char **_value)
{
    char *value = NULL;
    errno_t ret;

    ret = confdb_get_string(cdb, mem_ctx, section, option, &value);
    if (ret != EOK) {
        return ret;
    }
    if (value == NULL || value[0] == '\0') {
        if (required) {
            DEBUG(SSSDBG_CRIT_FAILURE, "[%s] %s must be set\n", section, option);
            return ERR_INVALID_CONFIG;
        }
        *_value = NULL;
        return EOK;
    }
    if (strpbrk(value, " \t()=*\\,") != NULL) {
        DEBUG(SSSDBG_CRIT_FAILURE, "[%s] %s: '%s' is not an attribute name\n",
              section, option, value);
        return ERR_INVALID_CONFIG;
    }
    *_value = value;
    return EOK;
}

static errno_t get_int(struct confdb *cdb, const char *section, const char *option,
                       int *_value)
{
    errno_t ret = confdb_get_int(cdb, section, option, _value);
    if (ret != EOK) {
        DEBUG(SSSDBG_CRIT_FAILURE, "[%s] %s: %s\n", section, option, sss_strerror(ret));
    }
    return ret;
}

static errno_t read_uris(TALLOC_CTX *mem_ctx, struct confdb *cdb, const char *section,
                         struct sdap_options *opts)
{
    char **primary = NULL;
    char **backup = NULL;
    size_t np = 0;
    size_t nb = 0;
    size_t i;
    errno_t ret;

    ret = confdb_get_list(cdb, mem_ctx, section, "ldap_uri", &primary);
    if (ret != EOK) {
        return ret;
    }
    ret = confdb_get_list(cdb, mem_ctx, section, "ldap_backup_uri", &backup);
    if (ret != EOK) {
        return ret;
    }
    while (primary != NULL && primary[np] != NULL) np++;
    while (backup != NULL && backup[nb] != NULL) nb++;
    if (np == 0) {
        DEBUG(SSSDBG_CRIT_FAILURE, "[%s] ldap_uri must be set\n", section);
        return ERR_INVALID_CONFIG;
    }
    opts->uris = talloc_zero_array(opts, char *, np + nb + 1);
    if (opts->uris == NULL) {
        return ENOMEM;
    }
    for (i = 0; i < np + nb; i++) {
        const char *uri = i < np ? primary[i] : backup[i - np];
        LDAPURLDesc *lud = NULL;

        if (ldap_url_parse(uri, &lud) != LDAP_URL_SUCCESS
                || (strcasecmp(lud->lud_scheme, "ldap") != 0
                    && strcasecmp(lud->lud_scheme, "ldaps") != 0)
                || lud->lud_host == NULL || lud->lud_host[0] == '\0') {
            DEBUG(SSSDBG_CRIT_FAILURE, "[%s] unusable LDAP URI '%s' (ldap:// or ldaps:// "
                  "with a host expected)\n", section, uri);
            if (lud != NULL) {
                ldap_free_urldesc(lud);
            }
            return ERR_INVALID_CONFIG;
        }
        ldap_free_urldesc(lud);
        opts->uris[i] = talloc_strdup(opts->uris, uri);
        if (opts->uris[i] == NULL) {
            return ENOMEM;
        }
    }
    opts->num_uris = np + nb;
    opts->num_primary = np;
    return EOK;
}

errno_t sdap_options_read(TALLOC_CTX *mem_ctx, struct confdb *cdb, const char *domain,
                          struct sdap_options **_opts)
{
    TALLOC_CTX *tmp_ctx = NULL;
    struct sdap_options *opts;
    char *section;
    char *str = NULL;
    size_t i;
    errno_t ret;

    if (cdb == NULL || domain == NULL || _opts == NULL) {
        return EINVAL;
    }
    tmp_ctx = talloc_new(NULL);
    if (tmp_ctx == NULL) {
        return ENOMEM;
    }
    opts = talloc_zero(tmp_ctx, struct sdap_options);
    section = confdb_domain_section(tmp_ctx, domain);
    if (opts == NULL || section == NULL) {
        ret = ENOMEM;
        goto done;
    }
    opts->domain = talloc_strdup(opts, domain);
    if (opts->domain == NULL) {
        ret = ENOMEM;
        goto done;
    }

    ret = read_uris(tmp_ctx, cdb, section, opts);
    if (ret != EOK) {
        goto done;
    }

    ret = confdb_get_string(cdb, opts, section, "ldap_schema", &str);
    if (ret != EOK) {
        goto done;
    }
    opts->schema = SDAP_SCHEMA_RFC2307;
    for (i = 0; i < SSS_ARRAY_SIZE(sdap_schemas); i++) {
        if (str != NULL && strcasecmp(str, sdap_schemas[i].name) == 0) {
            opts->schema = sdap_schemas[i].schema;
            opts->member_is_dn = sdap_schemas[i].member_is_dn;
        }
    }

    /* Search bases: the per-map ones fall back to ldap_search_base; what is still missing
     * is read from the first server's rootDSE (sdap_rootdse.c), as SSSD does. */
    ret = confdb_get_string(cdb, opts, section, "ldap_search_base", &opts->search_base);
    if (ret != EOK) {
        goto done;
    }
    ret = confdb_get_string(cdb, opts, section, "ldap_user_search_base", &opts->user_base);
    if (ret != EOK) {
        goto done;
    }
    ret = confdb_get_string(cdb, opts, section, "ldap_group_search_base", &opts->group_base);
    if (ret != EOK) {
        goto done;
    }
    if (opts->user_base == NULL) {
        opts->user_base = opts->search_base;
    }
    if (opts->group_base == NULL) {
        opts->group_base = opts->search_base;
    }
    if (opts->user_base == NULL || opts->group_base == NULL) {
        DEBUG(SSSDBG_CONF_SETTINGS, "[%s] ldap_search_base is not set: it will be read from "
              "the server's rootDSE\n", section);
    }

    ret = confdb_get_string(cdb, opts, section, "ldap_default_bind_dn", &opts->bind_dn);
    if (ret == EOK) {
        ret = confdb_get_string(cdb, opts, section, "ldap_default_authtok", &opts->authtok);
    }
    if (ret == EOK) {
        ret = confdb_get_string(cdb, opts, section, "ldap_user_search_filter",
                                &opts->user_filter);
    }
    if (ret == EOK) {
        ret = confdb_get_string(cdb, opts, section, "ldap_group_search_filter",
                                &opts->group_filter);
    }
    if (ret == EOK) {
        ret = confdb_get_string(cdb, opts, section, "ldap_tls_cacert", &opts->tls_cacert);
    }
    if (ret == EOK) {
        ret = confdb_get_string(cdb, opts, section, "ldap_tls_cacertdir", &opts->tls_cacertdir);
    }
    if (ret == EOK) {
        ret = confdb_get_string(cdb, tmp_ctx, section, "ldap_tls_reqcert", &str);
    }
    if (ret != EOK) {
        goto done;
    }
    opts->tls_reqcert = LDAP_OPT_X_TLS_HARD;
    for (i = 0; i < SSS_ARRAY_SIZE(sdap_reqcert_values); i++) {
        if (str != NULL && strcasecmp(str, sdap_reqcert_values[i].name) == 0) {
            opts->tls_reqcert = sdap_reqcert_values[i].value;
        }
    }

    if ((ret = get_int(cdb, section, "ldap_search_timeout", &opts->search_timeout)) != EOK
        || (ret = get_int(cdb, section, "ldap_enumeration_search_timeout",
                          &opts->enum_search_timeout)) != EOK
        || (ret = get_int(cdb, section, "ldap_network_timeout", &opts->network_timeout)) != EOK
        || (ret = get_int(cdb, section, "ldap_opt_timeout", &opts->opt_timeout)) != EOK
        || (ret = get_int(cdb, section, "offline_timeout", &opts->bad_server_timeout)) != EOK
        || (ret = get_int(cdb, section, "ldap_group_nesting_level", &opts->nesting_level)) != EOK
        || (ret = get_int(cdb, section, "ldap_page_size", &opts->page_size)) != EOK) {
        goto done;
    }
    ret = confdb_get_bool(cdb, section, "ldap_id_use_start_tls", &opts->start_tls);
    if (ret != EOK) {
        goto done;
    }
    {
        bool disable_paging = false;
        ret = confdb_get_bool(cdb, section, "ldap_disable_paging", &disable_paging);
        if (ret != EOK) {
            goto done;
        }
        if (disable_paging || opts->page_size < 0) {
            opts->page_size = 0;
        }
    }
    ret = confdb_get_uint32(cdb, section, "min_id", &opts->min_id);
    if (ret == EOK) {
        ret = confdb_get_uint32(cdb, section, "max_id", &opts->max_id);
    }
    if (ret != EOK) {
        goto done;
    }
    if (opts->max_id != 0 && opts->max_id < opts->min_id) {
        DEBUG(SSSDBG_CRIT_FAILURE, "[%s] max_id %u is below min_id %u\n", section,
              opts->max_id, opts->min_id);
        ret = ERR_INVALID_CONFIG;
        goto done;
    }
    if (opts->search_timeout <= 0) opts->search_timeout = 6;
    if (opts->enum_search_timeout <= 0) opts->enum_search_timeout = 60;
    if (opts->network_timeout <= 0) opts->network_timeout = 6;
    if (opts->opt_timeout <= 0) opts->opt_timeout = 8;
    if (opts->bad_server_timeout < 0) opts->bad_server_timeout = 0;
    if (opts->nesting_level < 0) opts->nesting_level = 0;

    for (i = 0; i < SSS_ARRAY_SIZE(sdap_user_map_opts); i++) {
        ret = get_attr_name(cdb, opts, section, sdap_user_map_opts[i].option,
                            sdap_user_map_opts[i].required,
                            &opts->user_map[sdap_user_map_opts[i].attr]);
        if (ret != EOK) {
            goto done;
        }
    }
    for (i = 0; i < SSS_ARRAY_SIZE(sdap_group_map_opts); i++) {
        ret = get_attr_name(cdb, opts, section, sdap_group_map_opts[i].option,
                            sdap_group_map_opts[i].required,
                            &opts->group_map[sdap_group_map_opts[i].attr]);
        if (ret != EOK) {
            goto done;
        }
    }

    DEBUG(SSSDBG_CONF_SETTINGS, "[%s] %zu server(s), schema %s, user base '%s', group base "
          "'%s', page size %d, nesting level %d\n", section, opts->num_uris,
          sdap_schemas[opts->schema].name, opts->user_base, opts->group_base,
          opts->page_size, opts->nesting_level);
    *_opts = talloc_steal(mem_ctx, opts);
    ret = EOK;
done:
    talloc_free(tmp_ctx);
    return ret;
}
