/*
 * The options of one LDAP domain, read once from confdb into struct sdap_options through
 * one table (sdap_opt_table), which says for each option the field it fills and how it is
 * read, like the attribute maps. confdb gives the defaults (SSSD's, including the
 * attribute-map defaults that depend on ldap_schema) and has checked types, enum values and
 * ranges at load, so nothing of that is repeated here. What this file adds is what only the
 * provider knows: attribute options must name attributes and the required ones be set,
 * timeouts must be at least a second, and the values that follow from others (the URI lists
 * joined and checked, per-map search bases falling back to ldap_search_base, paging turned
 * off, whether group members are names or DNs, the descriptors of users and groups).
 */
#include <limits.h>
#include <stddef.h>
#include <strings.h>
#include <unistd.h>

#include "util/util.h"
#include "confdb/confdb.h"
#include "providers/ldap/sdap_private.h"
#include "providers/ldap/sdap_sasl.h"

/* Names of the values of the enum options, indexed by the value stored. */
static const char *const sdap_schema_names[] = {
    [SDAP_SCHEMA_RFC2307] = "rfc2307",
    [SDAP_SCHEMA_RFC2307BIS] = "rfc2307bis",
    [SDAP_SCHEMA_AD] = "ad",
    [SDAP_SCHEMA_IPA] = "ipa",
};

static const char *const sdap_reqcert_names[] = {
    [LDAP_OPT_X_TLS_NEVER] = "never",
    [LDAP_OPT_X_TLS_HARD] = "hard",
    [LDAP_OPT_X_TLS_DEMAND] = "demand",
    [LDAP_OPT_X_TLS_ALLOW] = "allow",
    [LDAP_OPT_X_TLS_TRY] = "try",
};

enum sdap_opt_type {
    SDAP_OPT_STRING,            /* char *, on opts; NULL when unset and without default */
    SDAP_OPT_INT,               /* int, at least .min */
    SDAP_OPT_BOOL,
    SDAP_OPT_ID,                /* uint32_t */
    SDAP_OPT_ENUM,              /* an enum: the index of the value in .names */
    SDAP_OPT_ATTR,              /* const char *: an attribute name; .required: must be set */
};

struct sdap_opt {
    const char *name;
    enum sdap_opt_type type;
    size_t offset;              /* of the field in struct sdap_options */
    int min;
    bool required;
    const char *const *names;
    size_t num_names;
};

/* The field's offset, refused at compile time unless the field has the type the reader
 * writes through. */
#define OPT_FIELD(field, type) \
    (offsetof(struct sdap_options, field) + 0 * sizeof(char[ \
        __builtin_types_compatible_p(__typeof__(((struct sdap_options *)0)->field), type) \
        ? 1 : -1]))
#define OPT_ENUM_FIELD(field) \
    (offsetof(struct sdap_options, field) + 0 * sizeof(char[ \
        sizeof(((struct sdap_options *)0)->field) == sizeof(int) ? 1 : -1]))

#define OPT_STRING(n, field) \
    { .name = (n), .type = SDAP_OPT_STRING, .offset = OPT_FIELD(field, char *) }
#define OPT_INT(n, field, lo) \
    { .name = (n), .type = SDAP_OPT_INT, .offset = OPT_FIELD(field, int), .min = (lo) }
#define OPT_BOOL(n, field) \
    { .name = (n), .type = SDAP_OPT_BOOL, .offset = OPT_FIELD(field, bool) }
#define OPT_ID(n, field) \
    { .name = (n), .type = SDAP_OPT_ID, .offset = OPT_FIELD(field, uint32_t) }
#define OPT_ENUM(n, field, vals) \
    { .name = (n), .type = SDAP_OPT_ENUM, .offset = OPT_ENUM_FIELD(field), \
      .names = (vals), .num_names = SSS_ARRAY_SIZE(vals) }
#define OPT_ATTR(n, field, req) \
    { .name = (n), .type = SDAP_OPT_ATTR, .offset = OPT_FIELD(field, const char *), \
      .required = (req) }

static const struct sdap_opt sdap_opt_table[] = {
    OPT_ENUM("ldap_schema", schema, sdap_schema_names),
    /* Search bases: see sdap_options_derive(). */
    OPT_STRING("ldap_search_base", search_base),
    OPT_STRING("ldap_user_search_base", user_base),
    OPT_STRING("ldap_group_search_base", group_base),
    OPT_STRING("ldap_netgroup_search_base", netgroup_base),
    OPT_STRING("ldap_default_bind_dn", bind_dn),
    OPT_STRING("ldap_default_authtok", authtok),
    OPT_STRING("ldap_user_search_filter", user_filter),
    OPT_STRING("ldap_group_search_filter", group_filter),
    OPT_STRING("ldap_tls_cacert", tls_cacert),
    OPT_STRING("ldap_tls_cacertdir", tls_cacertdir),
    OPT_STRING("ldap_tls_cert", tls_cert),
    OPT_STRING("ldap_tls_key", tls_key),
    OPT_ENUM("ldap_tls_reqcert", tls_reqcert, sdap_reqcert_names),
    /* A timeout of 0 would end every operation at once, or never end it (libldap). */
    OPT_INT("ldap_search_timeout", search_timeout, 1),
    OPT_INT("ldap_enumeration_search_timeout", enum_search_timeout, 1),
    OPT_INT("ldap_network_timeout", network_timeout, 1),
    OPT_INT("ldap_opt_timeout", opt_timeout, 1),
    OPT_INT("offline_timeout", bad_server_timeout, 0),
    OPT_INT("ldap_connection_expire_timeout", conn_expire, 0),
    OPT_INT("failover_primary_timeout", primary_timeout, 1),
    OPT_INT("ldap_group_nesting_level", nesting_level, 0),
    OPT_INT("ldap_page_size", page_size, 0),
    OPT_BOOL("ldap_id_use_start_tls", start_tls),
    OPT_ID("min_id", min_id),
    OPT_ID("max_id", max_id),
    OPT_ATTR("ldap_user_object_class", user_map[SDAP_UA_OC], true),
    OPT_ATTR("ldap_user_name", user_map[SDAP_UA_NAME], true),
    OPT_ATTR("ldap_user_uid_number", user_map[SDAP_UA_UID], true),
    OPT_ATTR("ldap_user_gid_number", user_map[SDAP_UA_GID], true),
    OPT_ATTR("ldap_user_gecos", user_map[SDAP_UA_GECOS], false),
    OPT_ATTR("ldap_user_fullname", user_map[SDAP_UA_FULLNAME], false),
    OPT_ATTR("ldap_user_home_directory", user_map[SDAP_UA_HOME], false),
    OPT_ATTR("ldap_user_shell", user_map[SDAP_UA_SHELL], false),
    OPT_ATTR("ldap_user_principal", user_map[SDAP_UA_PRINCIPAL], false),
    OPT_ATTR("ldap_user_email", user_map[SDAP_UA_EMAIL], false),
    OPT_BOOL("ldap_id_mapping", id_mapping),
    OPT_BOOL("ldap_use_tokengroups", use_tokengroups),
    OPT_ATTR("ldap_group_object_class", group_map[SDAP_GA_OC], true),
    OPT_ATTR("ldap_group_name", group_map[SDAP_GA_NAME], true),
    OPT_ATTR("ldap_group_gid_number", group_map[SDAP_GA_GID], true),
    OPT_ATTR("ldap_group_member", group_map[SDAP_GA_MEMBER], true),
    OPT_ATTR("ldap_netgroup_object_class", netgroup_map[SDAP_NA_OC], true),
    OPT_ATTR("ldap_netgroup_name", netgroup_map[SDAP_NA_NAME], true),
    OPT_ATTR("ldap_netgroup_triple", netgroup_map[SDAP_NA_TRIPLE], true),
    OPT_ATTR("ldap_netgroup_member", netgroup_map[SDAP_NA_MEMBER], true),
};

const char *sdap_tls_reqcert_name(int reqcert)
{
    if (reqcert < 0 || (size_t)reqcert >= SSS_ARRAY_SIZE(sdap_reqcert_names)
            || sdap_reqcert_names[reqcert] == NULL) {
        return "?";
    }
    return sdap_reqcert_names[reqcert];
}

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

/*
 * ldap_uri's _srv_ (sssd-ldap(5) SERVICE DISCOVERY): the failover's placeholder
 * ldap://_srv_.NAME (sdap_failover.c) for the SRV records _ldap._tcp.NAME, NAME being
 * dns_discovery_domain, else the domain part of the host's name (sssd.conf(5)); a host
 * name without one leaves ldap://_srv_, which the failover reads as the domain's name.
 */
static errno_t srv_placeholder(TALLOC_CTX *mem_ctx, struct confdb *cdb, const char *section,
                               char **_uri)
{
    char host[HOST_NAME_MAX + 1];
    char *name = NULL;
    const char *dot = NULL;
    errno_t ret;

    ret = confdb_get_string(cdb, mem_ctx, section, "dns_discovery_domain", &name);
    if (ret != EOK) {
        return ret;
    }
    if (name == NULL && gethostname(host, sizeof(host)) == 0) {
        host[sizeof(host) - 1] = '\0';
        dot = strchr(host, '.');
    }
    if (name == NULL && dot != NULL && dot[1] != '\0') {
        name = talloc_strdup(mem_ctx, dot + 1);
        if (name == NULL) {
            return ENOMEM;
        }
    }
    if (name == NULL) {
        DEBUG(SSSDBG_CONF_SETTINGS, "[%s] ldap_uri _srv_: no dns_discovery_domain and no "
              "domain in the host name; asking DNS under the domain's name\n", section);
    }
    *_uri = name != NULL ? talloc_asprintf(mem_ctx, "ldap://_srv_.%s", name)
                         : talloc_strdup(mem_ctx, "ldap://_srv_");
    return *_uri == NULL ? ENOMEM : EOK;
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

        if (strcasecmp(uri, "_srv_") == 0) {
            if (i >= np) {
                /* SSSD discovers primary servers only. */
                DEBUG(SSSDBG_CRIT_FAILURE, "[%s] ldap_backup_uri: _srv_ (DNS discovery) is "
                      "allowed in ldap_uri only\n", section);
                return ERR_INVALID_CONFIG;
            }
            ret = srv_placeholder(mem_ctx, cdb, section, &primary[i]);
            if (ret != EOK) {
                return ret;
            }
            uri = primary[i];
        }
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

/* The value of an enum option: the index of its name in opt->names. */
static errno_t read_enum(TALLOC_CTX *tmp_ctx, struct confdb *cdb, const char *section,
                         const struct sdap_opt *opt, int *_value)
{
    char *str = NULL;
    size_t i;
    errno_t ret;

    ret = confdb_get_string(cdb, tmp_ctx, section, opt->name, &str);
    if (ret != EOK) {
        return ret;
    }
    for (i = 0; str != NULL && i < opt->num_names; i++) {
        if (opt->names[i] != NULL && strcasecmp(str, opt->names[i]) == 0) {
            *_value = (int)i;
            return EOK;
        }
    }
    /* confdb checks enum values at load: this is a value added there and not here. */
    DEBUG(SSSDBG_CRIT_FAILURE, "[%s] %s: value '%s' is not known to the LDAP provider\n",
          section, opt->name, str != NULL ? str : "(none)");
    return ERR_INVALID_CONFIG;
}

/* Reads the option of one table row into its field of opts. Errors: confdb's, and
 * ERR_INVALID_CONFIG; both logged. */
static errno_t read_opt(TALLOC_CTX *tmp_ctx, struct confdb *cdb, const char *section,
                        const struct sdap_opt *opt, struct sdap_options *opts)
{
    char *field = (char *)opts + opt->offset;
    int num = 0;
    errno_t ret = ERR_INTERNAL;

    switch (opt->type) {
    case SDAP_OPT_STRING:
        ret = confdb_get_string(cdb, opts, section, opt->name, (char **)(void *)field);
        break;
    case SDAP_OPT_INT:
        ret = confdb_get_int(cdb, section, opt->name, &num);
        if (ret == EOK && num < opt->min) {
            DEBUG(SSSDBG_CRIT_FAILURE, "[%s] %s = %d: at least %d expected\n", section,
                  opt->name, num, opt->min);
            return ERR_INVALID_CONFIG;
        }
        memcpy(field, &num, sizeof(num));
        break;
    case SDAP_OPT_BOOL:
        ret = confdb_get_bool(cdb, section, opt->name, (bool *)(void *)field);
        break;
    case SDAP_OPT_ID:
        ret = confdb_get_uint32(cdb, section, opt->name, (uint32_t *)(void *)field);
        break;
    case SDAP_OPT_ENUM:
        ret = read_enum(tmp_ctx, cdb, section, opt, &num);
        if (ret == ERR_INVALID_CONFIG) {
            return ret;
        }
        memcpy(field, &num, sizeof(num));
        break;
    case SDAP_OPT_ATTR:
        return get_attr_name(cdb, opts, section, opt->name, opt->required,
                             (const char **)(void *)field);
    }
    if (ret != EOK) {
        DEBUG(SSSDBG_CRIT_FAILURE, "[%s] %s: %s\n", section, opt->name, sss_strerror(ret));
    }
    return ret;
}

/* ldap_user_extra_attrs: "[name:]ldapAttr" items, name defaulting to the attribute.
 * ERR_INVALID_CONFIG (logged) for an item that is not that, or a name given twice. */
static errno_t read_extra_attrs(TALLOC_CTX *tmp_ctx, struct confdb *cdb, const char *section,
                                struct sdap_options *opts)
{
    const char *option = "ldap_user_extra_attrs";
    char **items = NULL;
    char *colon;
    size_t n = 0;
    size_t i, j;
    errno_t ret;

    ret = confdb_get_list(cdb, tmp_ctx, section, option, &items);
    if (ret != EOK) {
        return ret;
    }
    while (items[n] != NULL) {
        n++;
    }
    opts->extra_names = talloc_zero_array(opts, const char *, n + 1);
    opts->extra_ldap = talloc_zero_array(opts, const char *, n + 1);
    if (opts->extra_names == NULL || opts->extra_ldap == NULL) {
        return ENOMEM;
    }
    for (i = 0; i < n; i++) {
        colon = strchr(items[i], ':');
        opts->extra_ldap[i] = talloc_strdup(opts, colon != NULL ? colon + 1 : items[i]);
        opts->extra_names[i] = colon != NULL ? talloc_strndup(opts, items[i],
                                                               (size_t)(colon - items[i]))
                                             : opts->extra_ldap[i];
        if (opts->extra_ldap[i] == NULL || opts->extra_names[i] == NULL) {
            return ENOMEM;
        }
        if (opts->extra_names[i][0] == '\0' || opts->extra_ldap[i][0] == '\0'
                || strpbrk(opts->extra_names[i], " \t()=*\\,:") != NULL
                || strpbrk(opts->extra_ldap[i], " \t()=*\\,:") != NULL) {
            DEBUG(SSSDBG_CRIT_FAILURE, "[%s] %s: '%s' is not [name:]attribute\n", section,
                  option, items[i]);
            return ERR_INVALID_CONFIG;
        }
        for (j = 0; j < i; j++) {
            if (strcasecmp(opts->extra_names[j], opts->extra_names[i]) == 0) {
                DEBUG(SSSDBG_CRIT_FAILURE, "[%s] %s: '%s' is named twice\n", section, option,
                      opts->extra_names[i]);
                return ERR_INVALID_CONFIG;
            }
        }
    }
    opts->num_extra = n;
    return EOK;
}

/* The descriptors of the two kinds of entries: what their searches differ in. */
static errno_t sdap_options_kinds(struct sdap_options *opts)
{
    opts->users = (struct sdap_kind) {
        .label = "user",
        .id_label = "uid",
        .base = &opts->user_base,
        .oc = opts->user_map[SDAP_UA_OC],
        .name_attr = opts->user_map[SDAP_UA_NAME],
        .id_attr = opts->user_map[SDAP_UA_UID],
        .filter = opts->user_filter,
        .attrs = sdap_user_attrs(opts, opts),
    };
    opts->groups = (struct sdap_kind) {
        .label = "group",
        .id_label = "gid",
        .base = &opts->group_base,
        .oc = opts->group_map[SDAP_GA_OC],
        .name_attr = opts->group_map[SDAP_GA_NAME],
        .id_attr = opts->group_map[SDAP_GA_GID],
        .filter = opts->group_filter,
        .attrs = sdap_group_attrs(opts, opts, true),
    };
    return opts->users.attrs != NULL && opts->groups.attrs != NULL ? EOK : ENOMEM;
}

/* The values that follow from others. Errors: ERR_INVALID_CONFIG (logged), ENOMEM. */
static errno_t sdap_options_derive(struct sdap_options *opts, const char *section,
                                   bool disable_paging)
{
    /* rfc2307 names members by their uid; the other schemas by DN. */
    opts->member_is_dn = opts->schema != SDAP_SCHEMA_RFC2307;
    if (disable_paging) {
        opts->page_size = 0;
    }
    /* The per-map bases fall back to ldap_search_base; what is still missing is read from
     * the first server's rootDSE (sdap_rootdse.c), as SSSD does. */
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
    /* confdb refuses this at load already; the id checks of sdap_schema.c rely on it. */
    if (opts->max_id != 0 && opts->max_id < opts->min_id) {
        DEBUG(SSSDBG_CRIT_FAILURE, "[%s] max_id %u is below min_id %u\n", section,
              opts->max_id, opts->min_id);
        return ERR_INVALID_CONFIG;
    }
    return sdap_options_kinds(opts);
}

errno_t sdap_options_read(TALLOC_CTX *mem_ctx, struct confdb *cdb, const char *domain,
                          struct sdap_options **_opts)
{
    TALLOC_CTX *tmp_ctx = NULL;
    struct sdap_options *opts;
    bool disable_paging = false;
    char *section;
    size_t i;
    errno_t ret;

    if (!SSS_ARG_VALID(cdb != NULL) || !SSS_ARG_VALID(domain != NULL)
            || !SSS_ARG_VALID(_opts != NULL)) {
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
    for (i = 0; i < SSS_ARRAY_SIZE(sdap_opt_table); i++) {
        ret = read_opt(tmp_ctx, cdb, section, &sdap_opt_table[i], opts);
        if (ret != EOK) {
            goto done;
        }
    }
    ret = read_extra_attrs(tmp_ctx, cdb, section, opts);
    if (ret != EOK) {
        goto done;
    }
    ret = confdb_get_bool(cdb, section, "ldap_disable_paging", &disable_paging);
    if (ret != EOK) {
        goto done;
    }
    /* The SID attributes: required to map ids; otherwise read when the schema maps them
     * (AD: objectSid), so that entries carry their SID for lookups by SID. */
    ret = get_attr_name(cdb, opts, section, "ldap_user_objectsid", opts->id_mapping,
                        &opts->user_map[SDAP_UA_OBJSID]);
    if (ret == EOK) {
        ret = get_attr_name(cdb, opts, section, "ldap_group_objectsid", opts->id_mapping,
                            &opts->group_map[SDAP_GA_OBJSID]);
    }
    if (ret != EOK) {
        goto done;
    }
    if (opts->id_mapping) {
        /* Read only for id mapping: an rfc2307 directory never sends it. */
        ret = get_attr_name(cdb, opts, section, "ldap_user_primary_group", true,
                            &opts->user_map[SDAP_UA_PRIMARY_GID]);
        if (ret == EOK) {
            ret = sdap_idmap_init(opts, cdb, section);
        }
        if (ret != EOK) {
            goto done;
        }
    }
    ret = sdap_options_derive(opts, section, disable_paging);
    if (ret != EOK) {
        goto done;
    }
    ret = sdap_sasl_read(opts, cdb, domain, section, &opts->sasl);
    if (ret != EOK) {
        goto done;
    }
    sdap_sasl_plugins_need(opts->sasl != NULL);
    DEBUG(SSSDBG_CONF_SETTINGS, "[%s] %zu server(s), schema %s, user base '%s', group base "
          "'%s', page size %d, nesting level %d\n", section, opts->num_uris,
          sdap_schema_names[opts->schema], opts->user_base, opts->group_base,
          opts->page_size, opts->nesting_level);
    *_opts = talloc_steal(mem_ctx, opts);
    ret = EOK;
done:
    talloc_free(tmp_ctx);
    return ret;
}
