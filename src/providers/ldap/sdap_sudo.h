/*
 * sdap_sudo: sudoRole entries from LDAP for the sudo provider (sudo_provider = ldap). It
 * reads the sudo options of a domain, builds the search filters of SSSD's three refreshes
 * (full: every rule of this host; smart: rules changed since the highest entryUSN or
 * modifyTimestamp seen; rules: the named rules), runs them as paged searches on the id
 * context's shared connection, and parses entries into struct sysdb_sudo_rule (a plain
 * struct: sdap writes nothing to the cache). Unusable entries (no cn, a value that is not
 * UTF-8) are skipped with a log line and counted, never returned.
 *
 * Host filter (ldap_sudo_use_host_filter, default true): a rule is fetched when it has no
 * sudoHost, sudoHost=ALL, one of this host's names (ldap_sudo_hostnames, default the host
 * name and its fully qualified name) or addresses (ldap_sudo_ip, default every non-loopback
 * address of the host and its network in CIDR form), a netgroup (+..., with
 * ldap_sudo_include_netgroups) or a wildcard (with ldap_sudo_include_regexp). sudo itself
 * checks sudoHost again; the filter keeps other hosts' rules out of the cache.
 *
 * Attribute map (ldap_sudorule_object_class, _name, _user, _host, _command, _option, _runas,
 * _runasuser, _runasgroup, _notbefore, _notafter, _order; defaults: the sudo schema's names,
 * whatever ldap_schema says, as in SSSD): the filters, the attributes asked for and the
 * parser use the mapped names; the cache and the replies keep the schema's names.
 *
 * Errors of _recv: those of sdap.h; EOVERFLOW (a partial answer) must keep the caller from
 * removing rules the answer does not hold.
 */
#ifndef SSS_SDAP_SUDO_H
#define SSS_SDAP_SUDO_H

#include "providers/ldap/sdap.h"
#include "db/sysdb_sudo.h"

struct sdap_sudo_opts {
    char *search_base;          /* ldap_sudo_search_base; NULL: ldap_search_base */
    int full_interval;          /* ldap_sudo_full_refresh_interval, s; 0: none */
    int smart_interval;         /* ldap_sudo_smart_refresh_interval, s; 0: none */
    int random_offset;          /* ldap_sudo_random_offset, s */
    bool use_host_filter;
    bool include_netgroups;
    bool include_regexp;
    char **hostnames;           /* NULL-terminated */
    char **ips;                 /* NULL-terminated, CIDR or plain addresses */
    char *host_filter;          /* built from the above; "" when not filtering */
    char *map_oc;               /* ldap_sudorule_object_class */
    char *map_name;             /* ldap_sudorule_name */
    char *map[SYSDB_SUDO_ATTR_MAX];     /* the LDAP name of each sudo attribute */
};

/* Reads the [domain/NAME] sudo options and works out this host's names and addresses.
 * Errors: ERR_INVALID_CONFIG (bad interval, a mapped name that is not an attribute name),
 * ENOMEM, confdb's. */
errno_t sdap_sudo_opts_read(TALLOC_CTX *mem_ctx, struct confdb *cdb, const char *domain,
                            struct sdap_sudo_opts **_opts);

/* Which refresh a search is for. */
enum sdap_sudo_refresh {
    SDAP_SUDO_FULL,
    SDAP_SUDO_SMART,            /* needs a USN or a modifyTimestamp */
    SDAP_SUDO_RULES,            /* needs names */
};

/* The search filter of a refresh (on mem_ctx). usn / modts: the highest seen (SMART; NULL
 * when unknown: then every rule). names: the rules to fetch (RULES). ENOMEM, EINVAL. */
errno_t sdap_sudo_filter(TALLOC_CTX *mem_ctx, const struct sdap_sudo_opts *opts,
                         enum sdap_sudo_refresh kind, const char *usn, const char *modts,
                         const char *const *names, size_t num_names, char **_filter);

struct sdap_sudo_result {
    struct sysdb_sudo_rule **rules;     /* NULL-terminated */
    size_t num_rules;
    size_t skipped;                     /* malformed entries left out */
    char *max_usn;                      /* highest entryUSN among the entries, or NULL */
    char *max_modts;                    /* highest modifyTimestamp, or NULL */
};

/* One entry as a rule (on mem_ctx), read through opts' attribute map (NULL: the schema's
 * names). EINVAL: unusable (the reason is logged). Exposed for the unit tests. */
struct sdap_entry;
errno_t sdap_sudo_parse_entry(TALLOC_CTX *mem_ctx, const struct sdap_sudo_opts *opts,
                              const struct sdap_entry *entry, struct sysdb_sudo_rule **_rule);

/* A paged search of sudoRole entries under the sudo search base with filter. */
struct tevent_req *sdap_sudo_search_send(TALLOC_CTX *mem_ctx, struct tevent_context *ev,
                                         struct sdap_id_ctx *id_ctx,
                                         const struct sdap_sudo_opts *opts,
                                         const char *filter);
errno_t sdap_sudo_search_recv(TALLOC_CTX *mem_ctx, struct tevent_req *req,
                              struct sdap_sudo_result **_result);

#endif /* SSS_SDAP_SUDO_H */
