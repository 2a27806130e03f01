/*
 * The one table of known sssd.conf options: for each option the kinds of section it may
 * appear in, its type, its default (as text, or taken from another option, or depending on
 * ldap_schema), the allowed values of enums and the range of integers. Also what the table
 * implies: which section names are ours, which are SSSD's but not served here, and the
 * closest known name to suggest when an administrator mistypes one.
 * Defaults follow sssd.conf(5), sssd-ldap(5) and sssd-krb5(5) and PROTOCOL.md "sssd.conf".
 */
#include <limits.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <strings.h>

#include "confdb/confdb_private.h"

#define K_SSSD CONFDB_K_SSSD
#define K_NSS  CONFDB_K_NSS
#define K_PAM  CONFDB_K_PAM
#define K_SUDO CONFDB_K_SUDO
#define K_DOM  CONFDB_K_DOMAIN
#define K_RESP CONFDB_K_RESP
#define K_ALL  CONFDB_K_ALL

#define OPT_STR(n, k, d) \
    { .name = (n), .kinds = (k), .type = CONFDB_T_STRING, .def = (d) }
#define OPT_LIST(n, k, d) \
    { .name = (n), .kinds = (k), .type = CONFDB_T_LIST, .def = (d) }
#define OPT_BOOL(n, k, d) \
    { .name = (n), .kinds = (k), .type = CONFDB_T_BOOL, .def = (d) }
#define OPT_INT_R(n, k, d, lo, hi) \
    { .name = (n), .kinds = (k), .type = CONFDB_T_INT, .def = (d), .min = (lo), .max = (hi) }
#define OPT_INT(n, k, d) OPT_INT_R(n, k, d, 0, INT_MAX)
#define OPT_ENUM(n, k, d, vals) \
    { .name = (n), .kinds = (k), .type = CONFDB_T_ENUM, .def = (d), .allowed = (vals) }
/* Unset: the value (or default) of option `from` in the same section. */
#define OPT_ENUM_FROM(n, k, from, vals) \
    { .name = (n), .kinds = (k), .type = CONFDB_T_ENUM, .default_from = (from), \
      .allowed = (vals) }
#define OPT_STR_FROM(n, k, from) \
    { .name = (n), .kinds = (k), .type = CONFDB_T_STRING, .default_from = (from) }
#define OPT_INT_FROM(n, k, from) \
    { .name = (n), .kinds = (k), .type = CONFDB_T_INT, .default_from = (from), \
      .min = 0, .max = INT_MAX }
/* SSSD options this suite accepts but does not act on; `why` is the load warning. */
#define OPT_UNUSED(n, t, d, why) \
    { .name = (n), .kinds = K_DOM, .type = (t), .def = (d), .min = 0, .max = INT_MAX, \
      .unused = (why) }
/* LDAP attribute names whose default depends on ldap_schema (see schema_defaults). */
#define OPT_MAP(n) \
    { .name = (n), .kinds = K_DOM, .type = CONFDB_T_STRING, .schema_default = true }


static const char *const id_providers[] = { "ldap", "ad", "ipa", "proxy", "files", NULL };
static const char *const auth_providers[] = {
    "ldap", "krb5", "ad", "ipa", "proxy", "none", NULL
};
static const char *const access_providers[] = {
    "permit", "deny", "simple", "ldap", "ad", "ipa", "krb5", "proxy", NULL
};
static const char *const sudo_providers[] = { "ldap", "ad", "ipa", "none", NULL };
static const char *const ldap_schemas[] = { "rfc2307", "rfc2307bis", "ad", "ipa", NULL };
static const char *const tls_reqcert[] = { "never", "allow", "try", "demand", "hard", NULL };
static const char *const authtok_types[] = { "password", "obfuscated_password", NULL };
static const char *const pwd_policies[] = { "none", "shadow", "mit_kerberos", NULL };
static const char *const expire_policies[] = {
    "shadow", "ad", "rhds", "ipa", "389ds", "nds", NULL
};
static const char *const deref_modes[] = { "never", "searching", "finding", "always", NULL };
static const char *const family_orders[] = {
    "ipv4_first", "ipv4_only", "ipv6_first", "ipv6_only", NULL
};
static const char *const case_modes[] = { "true", "false", "preserving", NULL };
static const char *const private_group_modes[] = { "true", "false", "hybrid", NULL };
static const char *const fast_modes[] = { "never", "try", "demand", NULL };
static const char *const domain_types[] = { "posix", "application", NULL };
static const char *const pwmodify_modes[] = { "exop", "ldap_modify", NULL };
static const char *const gpo_modes[] = { "disabled", "enforcing", "permissive", NULL };

static const struct confdb_option confdb_options[] = {
    /* Every section: logging and process control. */
    OPT_INT_R("debug_level", K_ALL, "0x0070", 0, 0xFFFFF),
    OPT_INT_R("debug", K_ALL, NULL, 0, 0xFFFFF),
    OPT_BOOL("debug_timestamps", K_ALL, "true"),
    OPT_BOOL("debug_microseconds", K_ALL, "false"),
    OPT_BOOL("debug_backtrace_enabled", K_ALL, "true"),
    OPT_INT("timeout", K_ALL, "10"),
    OPT_INT("reconnection_retries", K_ALL, "3"),
    OPT_STR("command", K_ALL, NULL),
    OPT_STR("description", K_ALL, NULL),

    /* Every responder. */
    OPT_INT("fd_limit", K_RESP, "8192"),
    OPT_INT("client_idle_timeout", K_RESP, "60"),
    OPT_INT("responder_idle_timeout", K_RESP, "300"),
    OPT_INT("get_domains_timeout", K_RESP, "60"),
    OPT_BOOL("cache_first", K_RESP, "false"),

    /* [sssd]: the monitor. */
    OPT_LIST("services", K_SSSD, "nss, pam"),
    OPT_LIST("domains", K_SSSD, NULL),
    OPT_INT_R("config_file_version", K_SSSD, "2", 1, 2),
    OPT_STR("re_expression", K_SSSD, "(?P<name>[^@]+)@?(?P<domain>[^@]*$)"),
    OPT_STR("full_name_format", K_SSSD, "%1$s@%2$s"),
    OPT_STR("default_domain_suffix", K_SSSD, NULL),
    OPT_STR("user", K_SSSD, "root"),
    OPT_BOOL("monitor_resolv_conf", K_SSSD, "true"),
    OPT_BOOL("try_inotify", K_SSSD, "true"),
    OPT_STR("certificate_verification", K_SSSD, NULL),
    OPT_STR("override_space", K_SSSD, NULL),
    OPT_BOOL("enable_files_domain", K_SSSD, "false"),
    OPT_BOOL("implicit_pac_responder", K_SSSD, "true"),
    OPT_BOOL("core_dumpable", K_SSSD, "true"),
    OPT_STR("passkey_verification", K_SSSD, NULL),
    OPT_LIST("domain_resolution_order", K_SSSD, NULL),
    OPT_INT("sbus_timeout", K_SSSD, NULL),
    OPT_STR("krb5_rcache_dir", K_SSSD, NULL),
    OPT_BOOL("disable_netlink", K_SSSD, "false"),

    /* [nss] */
    OPT_INT("entry_negative_timeout", K_NSS, "15"),
    OPT_INT("local_negative_timeout", K_NSS, "14400"),
    OPT_LIST("filter_users", K_NSS, "root"),
    OPT_LIST("filter_groups", K_NSS, "root"),
    OPT_BOOL("filter_users_in_groups", K_NSS, "true"),
    OPT_STR("pwfield", K_NSS, "*"),
    OPT_STR("override_homedir", K_NSS | K_DOM, NULL),
    OPT_STR("fallback_homedir", K_NSS | K_DOM, NULL),
    OPT_STR("homedir_substring", K_NSS | K_DOM, "/home"),
    OPT_STR("override_shell", K_NSS | K_DOM, NULL),
    OPT_STR("default_shell", K_NSS | K_DOM, NULL),
    OPT_LIST("allowed_shells", K_NSS, NULL),
    OPT_LIST("vetoed_shells", K_NSS, NULL),
    OPT_STR("shell_fallback", K_NSS, "/bin/sh"),
    OPT_INT("memcache_timeout", K_NSS, "300"),
    OPT_INT("memcache_size_passwd", K_NSS, "8"),
    OPT_INT("memcache_size_group", K_NSS, "6"),
    OPT_INT("memcache_size_initgroups", K_NSS, "10"),
    OPT_INT("memcache_size_sid", K_NSS, "6"),
    OPT_INT("enum_cache_timeout", K_NSS, "120"),
    OPT_INT_R("entry_cache_nowait_percentage", K_NSS, "50", 0, 99),
    OPT_STR("user_attributes", K_NSS, NULL),

    /* [pam] */
    OPT_INT("offline_credentials_expiration", K_PAM, "0"),
    OPT_INT("offline_failed_login_attempts", K_PAM, "0"),
    OPT_INT("offline_failed_login_delay", K_PAM, "5"),
    OPT_INT_R("pam_verbosity", K_PAM, "1", 0, 3),
    OPT_INT("pam_id_timeout", K_PAM, "5"),
    OPT_INT("pam_pwd_expiration_warning", K_PAM, "0"),
    OPT_LIST("pam_response_filter", K_PAM, NULL),
    OPT_STR("pam_account_expired_message", K_PAM, NULL),
    OPT_STR("pam_account_locked_message", K_PAM, NULL),
    OPT_LIST("pam_trusted_users", K_PAM, NULL),
    OPT_LIST("pam_public_domains", K_PAM, NULL),
    OPT_BOOL("pam_cert_auth", K_PAM, "false"),
    OPT_STR("pam_cert_db_path", K_PAM, NULL),
    OPT_INT("pam_initgr_timeout", K_PAM, "60"),
    OPT_INT("p11_child_timeout", K_PAM, "10"),
    OPT_INT("p11_wait_for_card_timeout", K_PAM, "60"),
    OPT_STR("p11_uri", K_PAM, NULL),
    OPT_LIST("pam_app_services", K_PAM, NULL),
    OPT_LIST("pam_p11_allowed_services", K_PAM, NULL),
    OPT_LIST("pam_gssapi_services", K_PAM | K_DOM, NULL),
    OPT_BOOL("pam_gssapi_check_upn", K_PAM | K_DOM, "true"),

    /* [sudo] */
    OPT_BOOL("sudo_timed", K_SUDO, "false"),
    OPT_INT("sudo_threshold", K_SUDO, "50"),
    OPT_BOOL("sudo_inverse_order", K_SUDO, "false"),

    /* [domain/NAME]: providers. */
    OPT_ENUM("id_provider", K_DOM, NULL, id_providers),
    OPT_ENUM_FROM("auth_provider", K_DOM, "id_provider", auth_providers),
    OPT_ENUM("access_provider", K_DOM, "permit", access_providers),
    OPT_ENUM_FROM("chpass_provider", K_DOM, "auth_provider", auth_providers),
    OPT_ENUM_FROM("sudo_provider", K_DOM, "id_provider", sudo_providers),
    OPT_STR_FROM("autofs_provider", K_DOM, "id_provider"),
    OPT_STR_FROM("subdomains_provider", K_DOM, "id_provider"),
    OPT_STR_FROM("selinux_provider", K_DOM, "id_provider"),
    OPT_STR_FROM("hostid_provider", K_DOM, "id_provider"),
    OPT_STR_FROM("resolver_provider", K_DOM, "id_provider"),
    OPT_STR("session_provider", K_DOM, NULL),

    /* [domain/NAME]: generic. */
    OPT_ENUM("domain_type", K_DOM, "posix", domain_types),
    OPT_INT_R("min_id", K_DOM, "1", 0, UINT32_MAX),
    OPT_INT_R("max_id", K_DOM, "0", 0, UINT32_MAX),
    OPT_BOOL("enumerate", K_DOM, "false"),
    OPT_STR("subdomain_enumerate", K_DOM, "none"),
    OPT_INT("offline_timeout", K_DOM, "60"),
    OPT_INT("offline_timeout_max", K_DOM, "3600"),
    OPT_INT("offline_timeout_random_offset", K_DOM, "30"),
    OPT_INT_R("failover_primary_timeout", K_DOM, "31", 1, INT_MAX),
    OPT_BOOL("cache_credentials", K_DOM, "false"),
    OPT_INT("cache_credentials_minimal_first_factor_length", K_DOM, "8"),
    OPT_INT("account_cache_expiration", K_DOM, "0"),
    OPT_INT("cached_auth_timeout", K_DOM, "0"),
    OPT_BOOL("use_fully_qualified_names", K_DOM, "false"),
    OPT_ENUM("case_sensitive", K_DOM, "true", case_modes),
    OPT_BOOL("ignore_group_members", K_DOM, "false"),
    OPT_ENUM("auto_private_groups", K_DOM, "false", private_group_modes),
    OPT_INT("entry_cache_timeout", K_DOM, "5400"),
    OPT_INT_FROM("entry_cache_user_timeout", K_DOM, "entry_cache_timeout"),
    OPT_INT_FROM("entry_cache_group_timeout", K_DOM, "entry_cache_timeout"),
    OPT_INT_FROM("entry_cache_netgroup_timeout", K_DOM, "entry_cache_timeout"),
    OPT_INT_FROM("entry_cache_service_timeout", K_DOM, "entry_cache_timeout"),
    OPT_INT_FROM("entry_cache_autofs_timeout", K_DOM, "entry_cache_timeout"),
    OPT_INT_FROM("entry_cache_sudo_timeout", K_DOM, "entry_cache_timeout"),
    OPT_INT_FROM("entry_cache_ssh_host_timeout", K_DOM, "entry_cache_timeout"),
    OPT_INT_FROM("entry_cache_resolver_timeout", K_DOM, "entry_cache_timeout"),
    OPT_INT("refresh_expired_interval", K_DOM, "0"),
    OPT_INT("pwd_expiration_warning", K_DOM, "0"),
    OPT_LIST("filter_users", K_DOM, NULL),
    OPT_LIST("filter_groups", K_DOM, NULL),
    OPT_ENUM("lookup_family_order", K_DOM, "ipv4_first", family_orders),
    OPT_INT("dns_resolver_server_timeout", K_DOM, "1000"),
    OPT_INT("dns_resolver_op_timeout", K_DOM, "3"),
    OPT_INT("dns_resolver_timeout", K_DOM, "6"),
    OPT_STR("dns_discovery_domain", K_DOM, NULL),
    OPT_INT_R("override_gid", K_DOM, NULL, 0, UINT32_MAX),
    OPT_STR("subdomain_homedir", K_DOM, "/home/%d/%u"),
    OPT_LIST("subdomain_inherit", K_DOM, NULL),
    OPT_INT("subdomain_refresh_interval", K_DOM, "14400"),
    OPT_STR("realmd_tags", K_DOM, NULL),
    /* Unset in a domain: the [sssd] value applies (the caller falls back). */
    OPT_STR("re_expression", K_DOM, NULL),
    OPT_STR("full_name_format", K_DOM, NULL),
    OPT_STR("local_auth_policy", K_DOM, "match"),

    /* [domain/NAME]: dynamic DNS (AD, IPA). */
    OPT_BOOL("dyndns_update", K_DOM, "false"),
    OPT_BOOL("dyndns_update_ptr", K_DOM, "true"),
    OPT_INT("dyndns_refresh_interval", K_DOM, "86400"),
    OPT_INT("dyndns_ttl", K_DOM, "3600"),
    OPT_STR("dyndns_iface", K_DOM, NULL),
    OPT_BOOL("dyndns_force_tcp", K_DOM, "false"),
    OPT_STR("dyndns_auth", K_DOM, "GSS-TSIG"),
    OPT_STR("dyndns_server", K_DOM, NULL),

    /* [domain/NAME]: LDAP connection. */
    OPT_LIST("ldap_uri", K_DOM, NULL),
    OPT_LIST("ldap_backup_uri", K_DOM, NULL),
    OPT_LIST("ldap_chpass_uri", K_DOM, NULL),
    OPT_LIST("ldap_chpass_backup_uri", K_DOM, NULL),
    OPT_BOOL("ldap_chpass_update_last_change", K_DOM, "false"),
    OPT_STR("ldap_dns_service_name", K_DOM, "ldap"),
    OPT_STR("ldap_default_bind_dn", K_DOM, NULL),
    OPT_STR("ldap_default_authtok", K_DOM, NULL),
    OPT_ENUM("ldap_default_authtok_type", K_DOM, "password", authtok_types),
    OPT_ENUM("ldap_schema", K_DOM, "rfc2307", ldap_schemas),
    /* 0 would end every LDAP operation at once, or never (libldap): at least a second. */
    OPT_INT_R("ldap_search_timeout", K_DOM, "6", 1, INT_MAX),
    OPT_INT_R("ldap_network_timeout", K_DOM, "6", 1, INT_MAX),
    OPT_INT_R("ldap_opt_timeout", K_DOM, "8", 1, INT_MAX),
    OPT_INT_R("ldap_enumeration_search_timeout", K_DOM, "60", 1, INT_MAX),
    OPT_INT("ldap_enumeration_refresh_timeout", K_DOM, "300"),
    OPT_INT("ldap_purge_cache_timeout", K_DOM, "0"),
    OPT_INT("ldap_connection_expire_timeout", K_DOM, "900"),
    OPT_INT("ldap_connection_expire_offset", K_DOM, "0"),
    OPT_BOOL("ldap_id_use_start_tls", K_DOM, "false"),
    OPT_ENUM("ldap_tls_reqcert", K_DOM, "hard", tls_reqcert),
    OPT_STR("ldap_tls_cacert", K_DOM, NULL),
    OPT_STR("ldap_tls_cacertdir", K_DOM, NULL),
    OPT_STR("ldap_tls_cert", K_DOM, NULL),
    OPT_STR("ldap_tls_key", K_DOM, NULL),
    OPT_STR("ldap_tls_cipher_suite", K_DOM, NULL),
    OPT_BOOL("ldap_auth_disable_tls_never_use_in_production", K_DOM, "false"),
    /* SSSD's default is true; DESIGN.md turns referrals off by default. */
    OPT_BOOL("ldap_referrals", K_DOM, "false"),
    OPT_INT("ldap_page_size", K_DOM, "1000"),
    OPT_BOOL("ldap_disable_paging", K_DOM, "false"),
    OPT_INT("ldap_group_nesting_level", K_DOM, "2"),
    OPT_INT("ldap_deref_threshold", K_DOM, "10"),
    OPT_ENUM("ldap_deref", K_DOM, NULL, deref_modes),
    OPT_BOOL("ldap_force_upper_case_realm", K_DOM, "false"),
    OPT_BOOL("ldap_use_tokengroups", K_DOM, "false"),
    OPT_BOOL("ldap_rfc2307_fallback_to_local_users", K_DOM, "false"),
    OPT_BOOL("ldap_disable_range_retrieval", K_DOM, "false"),
    OPT_INT_R("ldap_min_id", K_DOM, NULL, 0, UINT32_MAX),
    OPT_INT_R("ldap_max_id", K_DOM, NULL, 0, UINT32_MAX),
    OPT_INT("wildcard_limit", K_DOM, "1000"),

    /* [domain/NAME]: LDAP SASL and Kerberos for the connection. */
    OPT_STR("ldap_sasl_mech", K_DOM, NULL),
    OPT_STR("ldap_sasl_authid", K_DOM, NULL),
    OPT_STR("ldap_sasl_realm", K_DOM, NULL),
    OPT_INT_R("ldap_sasl_minssf", K_DOM, "-1", -1, INT_MAX),
    OPT_INT_R("ldap_sasl_maxssf", K_DOM, "-1", -1, INT_MAX),
    OPT_BOOL("ldap_sasl_canonicalize", K_DOM, "false"),
    OPT_STR("ldap_krb5_keytab", K_DOM, NULL),
    OPT_BOOL("ldap_krb5_init_creds", K_DOM, "true"),
    OPT_INT("ldap_krb5_ticket_lifetime", K_DOM, "86400"),

    /* [domain/NAME]: LDAP search bases and filters. */
    OPT_STR("ldap_search_base", K_DOM, NULL),
    OPT_STR("ldap_user_search_base", K_DOM, NULL),
    OPT_STR("ldap_group_search_base", K_DOM, NULL),
    OPT_STR("ldap_sudo_search_base", K_DOM, NULL),
    OPT_STR("ldap_netgroup_search_base", K_DOM, NULL),
    OPT_STR("ldap_autofs_search_base", K_DOM, NULL),
    OPT_STR("ldap_service_search_base", K_DOM, NULL),
    OPT_STR("ldap_host_search_base", K_DOM, NULL),
    OPT_STR("ldap_user_search_filter", K_DOM, NULL),
    OPT_STR("ldap_group_search_filter", K_DOM, NULL),
    OPT_STR("ldap_user_extra_attrs", K_DOM, NULL),

    /* [domain/NAME]: LDAP attribute maps. */
    OPT_MAP("ldap_user_object_class"),
    OPT_MAP("ldap_user_name"),
    OPT_MAP("ldap_user_uid_number"),
    OPT_MAP("ldap_user_gid_number"),
    OPT_MAP("ldap_user_gecos"),
    OPT_MAP("ldap_user_fullname"),
    OPT_MAP("ldap_user_home_directory"),
    OPT_MAP("ldap_user_shell"),
    OPT_MAP("ldap_user_uuid"),
    OPT_MAP("ldap_user_objectsid"),
    OPT_MAP("ldap_user_primary_group"),
    OPT_MAP("ldap_user_modify_timestamp"),
    OPT_MAP("ldap_user_shadow_last_change"),
    OPT_MAP("ldap_user_shadow_min"),
    OPT_MAP("ldap_user_shadow_max"),
    OPT_MAP("ldap_user_shadow_warning"),
    OPT_MAP("ldap_user_shadow_inactive"),
    OPT_MAP("ldap_user_shadow_expire"),
    OPT_MAP("ldap_user_principal"),
    OPT_MAP("ldap_user_member_of"),
    OPT_MAP("ldap_user_ssh_public_key"),
    OPT_MAP("ldap_user_email"),
    OPT_MAP("ldap_ns_account_lock"),
    OPT_MAP("ldap_group_object_class"),
    OPT_MAP("ldap_group_name"),
    OPT_MAP("ldap_group_gid_number"),
    OPT_MAP("ldap_group_member"),
    OPT_MAP("ldap_group_uuid"),
    OPT_MAP("ldap_group_objectsid"),
    OPT_MAP("ldap_group_modify_timestamp"),
    OPT_MAP("ldap_group_type"),
    OPT_MAP("ldap_netgroup_object_class"),
    OPT_MAP("ldap_netgroup_name"),
    OPT_MAP("ldap_netgroup_triple"),
    OPT_MAP("ldap_netgroup_member"),
    OPT_MAP("ldap_netgroup_uuid"),
    OPT_MAP("ldap_netgroup_modify_timestamp"),

    /* [domain/NAME]: LDAP sudo. */
    OPT_INT("ldap_sudo_full_refresh_interval", K_DOM, "21600"),
    OPT_INT("ldap_sudo_smart_refresh_interval", K_DOM, "900"),
    OPT_INT("ldap_sudo_random_offset", K_DOM, "0"),
    OPT_BOOL("ldap_sudo_use_host_filter", K_DOM, "true"),
    OPT_LIST("ldap_sudo_hostnames", K_DOM, NULL),
    OPT_LIST("ldap_sudo_ip", K_DOM, NULL),
    OPT_BOOL("ldap_sudo_include_netgroups", K_DOM, "true"),
    OPT_BOOL("ldap_sudo_include_regexp", K_DOM, "false"),
    OPT_STR("ldap_sudorule_object_class", K_DOM, "sudoRole"),
    OPT_STR("ldap_sudorule_name", K_DOM, "cn"),
    OPT_STR("ldap_sudorule_command", K_DOM, "sudoCommand"),
    OPT_STR("ldap_sudorule_host", K_DOM, "sudoHost"),
    OPT_STR("ldap_sudorule_user", K_DOM, "sudoUser"),
    OPT_STR("ldap_sudorule_option", K_DOM, "sudoOption"),
    OPT_STR("ldap_sudorule_runas", K_DOM, "sudoRunAs"),
    OPT_STR("ldap_sudorule_runasuser", K_DOM, "sudoRunAsUser"),
    OPT_STR("ldap_sudorule_runasgroup", K_DOM, "sudoRunAsGroup"),
    OPT_STR("ldap_sudorule_notbefore", K_DOM, "sudoNotBefore"),
    OPT_STR("ldap_sudorule_notafter", K_DOM, "sudoNotAfter"),
    OPT_STR("ldap_sudorule_order", K_DOM, "sudoOrder"),

    /* [domain/NAME]: LDAP ID mapping. */
    OPT_BOOL("ldap_id_mapping", K_DOM, "false"),
    OPT_INT_R("ldap_idmap_range_min", K_DOM, "200000", 0, UINT32_MAX),
    OPT_INT_R("ldap_idmap_range_max", K_DOM, "2000200000", 0, UINT32_MAX),
    OPT_INT_R("ldap_idmap_range_size", K_DOM, "200000", 1, UINT32_MAX),
    OPT_STR("ldap_idmap_default_domain", K_DOM, NULL),
    OPT_STR("ldap_idmap_default_domain_sid", K_DOM, NULL),
    OPT_BOOL("ldap_idmap_autorid_compat", K_DOM, "false"),
    OPT_INT("ldap_idmap_helper_table_size", K_DOM, "10"),

    /* [domain/NAME]: LDAP access control and password policy. */
    OPT_STR("ldap_access_filter", K_DOM, NULL),
    OPT_LIST("ldap_access_order", K_DOM, "filter"),
    OPT_ENUM("ldap_pwd_policy", K_DOM, "none", pwd_policies),
    OPT_ENUM("ldap_account_expire_policy", K_DOM, NULL, expire_policies),
    OPT_ENUM("ldap_pwmodify_mode", K_DOM, "exop", pwmodify_modes),
    OPT_STR("ldap_pwdlockout_dn", K_DOM, NULL),

    /* [domain/NAME]: Kerberos. */
    OPT_LIST("krb5_server", K_DOM, NULL),
    OPT_LIST("krb5_backup_server", K_DOM, NULL),
    OPT_STR("krb5_realm", K_DOM, NULL),
    OPT_LIST("krb5_kpasswd", K_DOM, NULL),
    OPT_LIST("krb5_backup_kpasswd", K_DOM, NULL),
    OPT_STR("krb5_ccachedir", K_DOM, "/tmp"),
    OPT_STR("krb5_ccname_template", K_DOM, "FILE:%d/krb5cc_%U_XXXXXX"),
    OPT_INT("krb5_auth_timeout", K_DOM, "6"),
    OPT_BOOL("krb5_validate", K_DOM, "false"),
    OPT_STR("krb5_keytab", K_DOM, "/etc/krb5.keytab"),
    OPT_BOOL("krb5_store_password_if_offline", K_DOM, "false"),
    OPT_STR("krb5_renewable_lifetime", K_DOM, NULL),
    OPT_STR("krb5_lifetime", K_DOM, NULL),
    OPT_STR("krb5_renew_interval", K_DOM, "0"),
    OPT_ENUM("krb5_use_fast", K_DOM, "never", fast_modes),
    OPT_STR("krb5_fast_principal", K_DOM, NULL),
    OPT_BOOL("krb5_canonicalize", K_DOM, "false"),
    OPT_BOOL("krb5_use_kdcinfo", K_DOM, "true"),
    OPT_BOOL("krb5_use_enterprise_principal", K_DOM, "false"),
    OPT_LIST("krb5_map_user", K_DOM, NULL),

    /* [domain/NAME]: simple access provider. */
    OPT_LIST("simple_allow_users", K_DOM, NULL),
    OPT_LIST("simple_deny_users", K_DOM, NULL),
    OPT_LIST("simple_allow_groups", K_DOM, NULL),
    OPT_LIST("simple_deny_groups", K_DOM, NULL),

    /* [domain/NAME]: proxy and files providers. */
    OPT_STR("proxy_lib_name", K_DOM, NULL),
    OPT_STR("proxy_pam_target", K_DOM, NULL),
    OPT_BOOL("proxy_fast_alias", K_DOM, "false"),
    OPT_LIST("passwd_files", K_DOM, "/etc/passwd"),
    OPT_LIST("group_files", K_DOM, "/etc/group"),

    /* [domain/NAME]: AD and IPA providers (accepted; providers come later). */
    OPT_STR("ad_domain", K_DOM, NULL),
    OPT_LIST("ad_server", K_DOM, NULL),
    OPT_LIST("ad_backup_server", K_DOM, NULL),
    OPT_STR("ad_hostname", K_DOM, NULL),
    OPT_STR("ad_site", K_DOM, NULL),
    OPT_LIST("ad_enabled_domains", K_DOM, NULL),
    OPT_STR("ad_access_filter", K_DOM, NULL),
    OPT_ENUM("ad_gpo_access_control", K_DOM, "enforcing", gpo_modes),
    OPT_INT("ad_maximum_machine_account_password_age", K_DOM, "30"),
    /* The global catalog (sdap_connect_gc.c): discovered, connected and shown by sssctl;
     * lookups still go to the domain's own LDAP service. */
    OPT_BOOL("ad_enable_gc", K_DOM, "true"),
    /* sssd-ad(5) options common in written configurations (realm join, admin guides):
     * accepted with SSSD's types and defaults, and a warning that they change nothing. */
    OPT_UNUSED("ad_enable_dns_sites", CONFDB_T_BOOL, "true",
               "domain controllers are not chosen by DNS site; ad_site and ad_server "
               "are used"),
    /* GPO-based access control (src/providers/ad/ad_gpo_access.c). */
    OPT_BOOL("ad_gpo_implicit_deny", K_DOM, "false"),
    OPT_BOOL("ad_gpo_ignore_unreadable", K_DOM, "false"),
    OPT_INT("ad_gpo_cache_timeout", K_DOM, "5"),
    OPT_LIST("ad_gpo_map_interactive", K_DOM, NULL),
    OPT_LIST("ad_gpo_map_remote_interactive", K_DOM, NULL),
    OPT_LIST("ad_gpo_map_network", K_DOM, NULL),
    OPT_LIST("ad_gpo_map_batch", K_DOM, NULL),
    OPT_LIST("ad_gpo_map_service", K_DOM, NULL),
    OPT_LIST("ad_gpo_map_permit", K_DOM, NULL),
    OPT_LIST("ad_gpo_map_deny", K_DOM, NULL),
    OPT_STR("ad_gpo_default_right", K_DOM, NULL),
    OPT_UNUSED("ad_machine_account_password_renewal_opts", CONFDB_T_STRING, "86400:750",
               "the machine account password is not renewed by this suite"),
    OPT_UNUSED("ad_update_samba_machine_account_password", CONFDB_T_BOOL, "false",
               "the machine account password is not renewed by this suite"),
    OPT_UNUSED("ad_use_ldaps", CONFDB_T_BOOL, "false",
               "LDAP to the domain controllers is protected by GSSAPI, not LDAPS"),
    OPT_UNUSED("ad_allow_remote_domain_local_groups", CONFDB_T_BOOL, "false",
               "only the joined domain is served, so no remote domain-local groups"),
    OPT_STR("ipa_domain", K_DOM, NULL),
    OPT_LIST("ipa_server", K_DOM, NULL),
    OPT_LIST("ipa_backup_server", K_DOM, NULL),
    OPT_STR("ipa_hostname", K_DOM, NULL),
};

/*
 * Attribute map defaults per ldap_schema. rfc2307bis and ipa share a column: the LDAP
 * provider maps an IPA server with the rfc2307bis attributes. NULL: no default.
 */
struct confdb_schema_row {
    const char *option;
    const char *rfc2307;
    const char *rfc2307bis;
    const char *ad;
};

static const struct confdb_schema_row schema_defaults[] = {
    { "ldap_user_object_class", "posixAccount", "posixAccount", "user" },
    { "ldap_user_name", "uid", "uid", "sAMAccountName" },
    { "ldap_user_uid_number", "uidNumber", "uidNumber", "uidNumber" },
    { "ldap_user_gid_number", "gidNumber", "gidNumber", "gidNumber" },
    { "ldap_user_gecos", "gecos", "gecos", "gecos" },
    { "ldap_user_fullname", "cn", "cn", "name" },
    { "ldap_user_home_directory", "homeDirectory", "homeDirectory", "unixHomeDirectory" },
    { "ldap_user_shell", "loginShell", "loginShell", "loginShell" },
    { "ldap_user_uuid", NULL, NULL, "objectGUID" },
    { "ldap_user_objectsid", NULL, NULL, "objectSID" },
    { "ldap_user_primary_group", NULL, NULL, "primaryGroupID" },
    { "ldap_user_modify_timestamp", "modifyTimestamp", "modifyTimestamp", "whenChanged" },
    { "ldap_user_shadow_last_change", "shadowLastChange", "shadowLastChange", NULL },
    { "ldap_user_shadow_min", "shadowMin", "shadowMin", NULL },
    { "ldap_user_shadow_max", "shadowMax", "shadowMax", NULL },
    { "ldap_user_shadow_warning", "shadowWarning", "shadowWarning", NULL },
    { "ldap_user_shadow_inactive", "shadowInactive", "shadowInactive", NULL },
    { "ldap_user_shadow_expire", "shadowExpire", "shadowExpire", NULL },
    { "ldap_user_principal", "krbPrincipalName", "krbPrincipalName", "userPrincipalName" },
    { "ldap_user_member_of", NULL, "memberOf", "memberOf" },
    { "ldap_user_ssh_public_key", "sshPublicKey", "sshPublicKey", NULL },
    { "ldap_user_email", "mail", "mail", "mail" },
    { "ldap_ns_account_lock", "nsAccountLock", "nsAccountLock", NULL },
    { "ldap_group_object_class", "posixGroup", "posixGroup", "group" },
    { "ldap_group_name", "cn", "cn", "name" },
    { "ldap_group_gid_number", "gidNumber", "gidNumber", "gidNumber" },
    { "ldap_group_member", "memberuid", "member", "member" },
    { "ldap_group_uuid", NULL, NULL, "objectGUID" },
    { "ldap_group_objectsid", NULL, NULL, "objectSID" },
    { "ldap_group_modify_timestamp", "modifyTimestamp", "modifyTimestamp", "whenChanged" },
    { "ldap_group_type", NULL, NULL, "groupType" },
    /* sssd-ldap(5): the same NIS map whatever the schema. */
    { "ldap_netgroup_object_class", "nisNetgroup", "nisNetgroup", "nisNetgroup" },
    { "ldap_netgroup_name", "cn", "cn", "cn" },
    { "ldap_netgroup_triple", "nisNetgroupTriple", "nisNetgroupTriple", "nisNetgroupTriple" },
    { "ldap_netgroup_member", "memberNisNetgroup", "memberNisNetgroup", "memberNisNetgroup" },
    { "ldap_netgroup_uuid", NULL, NULL, NULL },
    { "ldap_netgroup_modify_timestamp", "modifyTimestamp", "modifyTimestamp", "modifyTimestamp" },
};

/* SSSD sections this suite does not serve: accepted with a warning, contents ignored. */
static const char *const ignored_sections[] = {
    "ifp", "ssh", "pac", "autofs", "kcm", "session_recording", "secrets", NULL
};
static const char *const ignored_prefixes[] = {
    "application/", "prompting/", "certmap/", NULL
};
static const char *const served_sections[] = { "sssd", "nss", "pam", "sudo", NULL };

#define DOMAIN_PREFIX "domain/"
#define DOMAIN_PREFIX_LEN (sizeof(DOMAIN_PREFIX) - 1)

_Static_assert(SSS_ARRAY_SIZE(confdb_options) <= UINT16_MAX, "confdb_by_name holds uint16_t");

const struct confdb_option *confdb_option_table(size_t *_count)
{
    *_count = SSS_ARRAY_SIZE(confdb_options);
    return confdb_options;
}

/* The table's row numbers sorted by name, rows of one name in table order: a getter looks its
 * option up on every call, some per request (~4.6k instructions for a scan of ~400 rows
 * with strcmp; ~9 compares through this index). Built once, on first use. */
static uint16_t confdb_by_name[SSS_ARRAY_SIZE(confdb_options)];
static pthread_once_t confdb_by_name_once = PTHREAD_ONCE_INIT;

static int confdb_by_name_cmp(const void *a, const void *b)
{
    uint16_t ia = *(const uint16_t *)a;
    uint16_t ib = *(const uint16_t *)b;
    int c = strcmp(confdb_options[ia].name, confdb_options[ib].name);

    return c != 0 ? c : (ia > ib) - (ia < ib);
}

static void confdb_by_name_build(void)
{
    size_t i;

    for (i = 0; i < SSS_ARRAY_SIZE(confdb_options); i++) {
        confdb_by_name[i] = (uint16_t)i;
    }
    qsort(confdb_by_name, SSS_ARRAY_SIZE(confdb_options), sizeof(confdb_by_name[0]),
          confdb_by_name_cmp);
}

const struct confdb_option *confdb_option_find(const char *name, unsigned kind)
{
    const struct confdb_option *opt;
    size_t lo = 0;
    size_t hi = SSS_ARRAY_SIZE(confdb_options);
    size_t mid;

    if (name == NULL) {
        return NULL;
    }
    pthread_once(&confdb_by_name_once, confdb_by_name_build);
    /* The first position whose name is not below name. */
    while (lo < hi) {
        mid = lo + (hi - lo) / 2;
        if (strcmp(confdb_options[confdb_by_name[mid]].name, name) < 0) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    /* Rows of that name in table order: the first that fits kind, as the table reads. */
    for (; lo < SSS_ARRAY_SIZE(confdb_options); lo++) {
        opt = &confdb_options[confdb_by_name[lo]];
        if (strcmp(opt->name, name) != 0) {
            break;
        }
        if ((opt->kinds & kind) != 0) {
            return opt;
        }
    }
    return NULL;
}

/* The first row of that name in any kind of section. */
const struct confdb_option *confdb_option_find_any(const char *name)
{
    return confdb_option_find(name, CONFDB_K_ALL);
}

/* How far off a name may be and still get a suggestion. */
static size_t confdb_suggest_limit(const char *name)
{
    size_t len = strlen(name);

    if (len < 4) {
        return 1;
    }
    return len / 3 + 1 > 4 ? 4 : len / 3 + 1;
}

/* Closest option name valid in that kind of section, or NULL when none is close. */
const char *confdb_option_suggest(const char *name, unsigned kind)
{
    const char *best = NULL;
    size_t limit = confdb_suggest_limit(name);
    size_t len = strlen(name);
    size_t best_d = SIZE_MAX;
    size_t i;

    for (i = 0; i < SSS_ARRAY_SIZE(confdb_options); i++) {
        size_t olen = strlen(confdb_options[i].name);
        size_t d;

        if ((confdb_options[i].kinds & kind) == 0) {
            continue;
        }
        /* The distance is at least the difference in length. */
        if ((olen > len ? olen - len : len - olen) > limit) {
            continue;
        }
        d = confdb_distance(name, confdb_options[i].name);
        if (d < best_d) {
            best_d = d;
            best = confdb_options[i].name;
        }
    }
    if (best == NULL || best_d > limit || best_d >= len) {
        return NULL;
    }
    return best;
}

/* Closest section name ("nss", "domain/x", ...), talloc'd, or NULL when none is close. */
char *confdb_section_suggest(TALLOC_CTX *mem_ctx, const char *name)
{
    static const char *const prefixes[] = {
        "domain", "application", "prompting", "certmap", NULL
    };
    const char *slash = strchr(name, '/');
    const char *best = NULL;
    size_t best_d = SIZE_MAX;
    size_t i, d;

    if (slash != NULL) {
        char *head = talloc_strndup(NULL, name, (size_t)(slash - name));

        if (head == NULL) {
            return NULL;
        }
        for (i = 0; prefixes[i] != NULL; i++) {
            d = confdb_distance(head, prefixes[i]);
            if (d < best_d) {
                best_d = d;
                best = prefixes[i];
            }
        }
        if (best_d > confdb_suggest_limit(head) || best_d >= strlen(head)) {
            best = NULL;
        }
        talloc_free(head);
        if (best == NULL) {
            return NULL;
        }
        return talloc_asprintf(mem_ctx, "%s%s", best, slash);
    }

    if (strcasecmp(name, "domain") == 0) {
        return talloc_strdup(mem_ctx, "domain/NAME");
    }
    for (i = 0; served_sections[i] != NULL; i++) {
        d = confdb_distance(name, served_sections[i]);
        if (d < best_d) {
            best_d = d;
            best = served_sections[i];
        }
    }
    for (i = 0; ignored_sections[i] != NULL; i++) {
        d = confdb_distance(name, ignored_sections[i]);
        if (d < best_d) {
            best_d = d;
            best = ignored_sections[i];
        }
    }
    if (best == NULL || best_d > confdb_suggest_limit(name) || best_d >= strlen(name)) {
        return NULL;
    }
    return talloc_strdup(mem_ctx, best);
}

/* A domain name: not empty, no '/', no control bytes. */
bool confdb_domain_name_valid(const char *name)
{
    const unsigned char *p;

    if (name == NULL || name[0] == '\0') {
        return false;
    }
    for (p = (const unsigned char *)name; *p != '\0'; p++) {
        if (*p == '/' || *p < 0x20 || *p == 0x7f) {
            return false;
        }
    }
    return true;
}

enum confdb_section_class confdb_section_classify(const char *name, unsigned *_kind)
{
    static const unsigned served_kinds[] = {
        CONFDB_K_SSSD, CONFDB_K_NSS, CONFDB_K_PAM, CONFDB_K_SUDO
    };
    size_t i;

    for (i = 0; served_sections[i] != NULL; i++) {
        if (strcmp(name, served_sections[i]) == 0) {
            *_kind = served_kinds[i];
            return CONFDB_SEC_SERVED;
        }
    }
    if (strncmp(name, DOMAIN_PREFIX, DOMAIN_PREFIX_LEN) == 0) {
        const char *dom = name + DOMAIN_PREFIX_LEN;

        /* domain/PARENT/CHILD configures a trusted domain: SSSD's, not ours. */
        if (dom[0] != '\0' && strchr(dom, '/') != NULL) {
            return CONFDB_SEC_IGNORED;
        }
        if (!confdb_domain_name_valid(dom)) {
            return CONFDB_SEC_BAD_DOMAIN;
        }
        *_kind = CONFDB_K_DOMAIN;
        return CONFDB_SEC_SERVED;
    }
    for (i = 0; ignored_sections[i] != NULL; i++) {
        if (strcmp(name, ignored_sections[i]) == 0) {
            return CONFDB_SEC_IGNORED;
        }
    }
    for (i = 0; ignored_prefixes[i] != NULL; i++) {
        if (strncmp(name, ignored_prefixes[i], strlen(ignored_prefixes[i])) == 0) {
            return CONFDB_SEC_IGNORED;
        }
    }
    return CONFDB_SEC_UNKNOWN;
}

/* "[sssd], [nss] or [domain/NAME]" for a set of kinds. */
char *confdb_kind_names(TALLOC_CTX *mem_ctx, unsigned kinds)
{
    static const struct {
        unsigned kind;
        const char *text;
    } names[] = {
        { CONFDB_K_SSSD, "[sssd]" },
        { CONFDB_K_NSS, "[nss]" },
        { CONFDB_K_PAM, "[pam]" },
        { CONFDB_K_SUDO, "[sudo]" },
        { CONFDB_K_DOMAIN, "[domain/NAME]" },
    };
    const char *parts[SSS_ARRAY_SIZE(names)];
    size_t n = 0;
    size_t i;
    char *out;

    for (i = 0; i < SSS_ARRAY_SIZE(names); i++) {
        if (kinds & names[i].kind) {
            parts[n++] = names[i].text;
        }
    }
    out = talloc_strdup(mem_ctx, "");
    for (i = 0; i < n && out != NULL; i++) {
        const char *sep = i == 0 ? "" : (i + 1 == n ? " or " : ", ");

        out = talloc_asprintf_append(out, "%s%s", sep, parts[i]);
    }
    return out;
}

/*
 * Defaults that differ with the domain's id_provider (sssd-ad(5)): the AD provider reads
 * the AD schema, maps ids from SIDs and binds with GSSAPI unless told otherwise. Defaults
 * computed from other values (ldap_uri from ad_server, krb5_realm from ad_domain, the
 * SASL identity from the host name) are the provider's (confdb_set_default).
 */
struct confdb_provider_row {
    const char *provider;
    const char *option;
    const char *value;
};

static const struct confdb_provider_row provider_defaults[] = {
    { "ad", "ldap_schema", "ad" },
    { "ad", "ldap_id_mapping", "true" },
    { "ad", "ldap_sasl_mech", "GSSAPI" },
    { "ad", "ldap_use_tokengroups", "true" },
    /* A user's userPrincipalName carries the DNS domain (alice@ad.example), which is
     * not a realm: SSSD's AD provider asks for it as an enterprise name by default. */
    { "ad", "krb5_use_enterprise_principal", "true" },
    /* sssd-krb5(5): "false (IPA and AD provider: true)". A joined host has the keytab, so
     * a TGT from a KDC that does not know the host key (a spoofed one) logs nobody in. */
    { "ad", "krb5_validate", "true" },
    /* sssd-ad(5): AD users often carry no unixHomeDirectory; names are case-insensitive
     * in AD, so SSSD folds them (and answers lowercased) unless told otherwise. */
    { "ad", "fallback_homedir", "/home/%d/%u" },
    { "ad", "case_sensitive", "false" },
};

const char *confdb_provider_default(const char *option, const char *id_provider)
{
    size_t i;

    if (id_provider == NULL) {
        return NULL;
    }
    for (i = 0; i < SSS_ARRAY_SIZE(provider_defaults); i++) {
        if (strcmp(provider_defaults[i].option, option) == 0
                && strcmp(provider_defaults[i].provider, id_provider) == 0) {
            return provider_defaults[i].value;
        }
    }
    return NULL;
}

/* Default of an attribute-map option under ldap_schema `schema` (NULL: rfc2307). */
const char *confdb_schema_default(const char *option, const char *schema)
{
    size_t i;

    for (i = 0; i < SSS_ARRAY_SIZE(schema_defaults); i++) {
        if (strcmp(schema_defaults[i].option, option) != 0) {
            continue;
        }
        if (schema == NULL || strcmp(schema, "rfc2307") == 0) {
            return schema_defaults[i].rfc2307;
        }
        if (strcmp(schema, "ad") == 0) {
            return schema_defaults[i].ad;
        }
        return schema_defaults[i].rfc2307bis;
    }
    return NULL;
}

bool confdb_enum_allows(const struct confdb_option *opt, const char *value)
{
    size_t i;

    if (opt->allowed == NULL || value == NULL) {
        return false;
    }
    for (i = 0; opt->allowed[i] != NULL; i++) {
        if (strcmp(opt->allowed[i], value) == 0) {
            return true;
        }
    }
    return false;
}
