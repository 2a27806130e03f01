/*
 * confdb: sssd.conf read, validated and looked up by type.
 *
 * confdb_load() reads the main file, then the "*.conf" files of <dir of main file>/conf.d
 * in alphabetical order (later files override earlier values). It checks every file's
 * owner and mode, every section, option and value against one table of known options,
 * and then the whole configuration: the [sssd] section, its domains and services, each
 * domain's id_provider. On failure it returns one human-readable line, meant to be printed
 * as is. Things SSSD would merely ignore (unknown options or sections, unserved services)
 * become warnings.
 *
 * Ownership: a struct confdb is a talloc object owned by the caller's mem_ctx. Strings and
 * lists handed out by the getters are new talloc allocations on the given mem_ctx; the
 * warnings array belongs to the confdb object.
 */
#ifndef SSS_CONFDB_H
#define SSS_CONFDB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <talloc.h>

#include "util/sss_errors.h"

/* Largest configuration file accepted, per file. */
#define CONFDB_MAX_FILE_SIZE (1024 * 1024)

struct confdb;

/*
 * Loads config_file (normally SSSD_CONF_FILE) and its conf.d snippets.
 * Returns EOK, or:
 *   ERR_MISSING_CONF    config_file does not exist;
 *   ERR_CONFIG_PERMS    a file is not owned by root (or the effective uid) or its mode is
 *                       not exactly 0600 or 0400, or it cannot be opened for lack of rights;
 *   ERR_INVALID_CONFIG  anything else wrong with the contents or the files;
 *   EINVAL / ENOMEM     bad arguments / out of memory.
 * On failure, *_error (if _error is not NULL) is set to one line, talloc'd on mem_ctx.
 */
errno_t confdb_load(TALLOC_CTX *mem_ctx, const char *config_file,
                    struct confdb **_cdb, char **_error);

/*
 * Same checks on an in-memory buffer (any bytes, need not be NUL-terminated), with no
 * file permission checks and no snippets. source_name is used in messages.
 * Returns EOK, ERR_INVALID_CONFIG (with *_error), EINVAL or ENOMEM.
 */
errno_t confdb_parse_buffer(TALLOC_CTX *mem_ctx, const char *source_name,
                            const char *buf, size_t len,
                            struct confdb **_cdb, char **_error);

/* Warnings collected while loading, "file:line: text"; NULL-terminated, never NULL. */
const char *const *confdb_warnings(struct confdb *cdb);

/*
 * Typed lookups. section is "sssd", "nss", "pam", "sudo" or "domain/<name>". An option that
 * is not set gives the table's default (which for some options is another option's value,
 * e.g. auth_provider follows id_provider, or depends on ldap_schema).
 * Errors: EINVAL when the option is not in the table for that kind of section or the getter
 * does not fit the option's type (a programming error, logged); ENOENT from confdb_get_int
 * and confdb_get_bool when the option is unset and has no default; ENOMEM.
 */

/* Any option type; *_value is NULL when unset without default. */
errno_t confdb_get_string(struct confdb *cdb, TALLOC_CTX *mem_ctx,
                          const char *section, const char *option, char **_value);

/* Integer options; decimal or 0x-prefixed hexadecimal. */
errno_t confdb_get_int(struct confdb *cdb, const char *section, const char *option,
                       int *_value);

/* Integer options holding ids (min_id, max_id, ...); ERANGE when negative or too large
 * (confdb_get_int gives ERANGE for values beyond an int). */
errno_t confdb_get_uint32(struct confdb *cdb, const char *section, const char *option,
                          uint32_t *_value);

/* Boolean options: true/false, yes/no, 1/0, any case. */
errno_t confdb_get_bool(struct confdb *cdb, const char *section, const char *option,
                        bool *_value);

/* List or string options, split on ',' with items trimmed and empty items dropped.
 * *_list is NULL-terminated, possibly empty; items are children of the array. */
errno_t confdb_get_list(struct confdb *cdb, TALLOC_CTX *mem_ctx,
                        const char *section, const char *option, char ***_list);

/* True when the option is written in the configuration, or, in a domain section, has a
 * default of the domain's id_provider (fallback_homedir for ad): a domain-level value,
 * as opposed to an option's generic default. */
bool confdb_is_set(struct confdb *cdb, const char *section, const char *option);

/* A provider's computed default (ldap_uri from ad_server...): stored as the option's value
 * in section unless the configuration sets it; afterwards confdb_is_set() is true for it.
 * Only the calling process sees it. Errors: EINVAL (unknown option), ENOENT (no such
 * section), ENOMEM. */
errno_t confdb_set_default(struct confdb *cdb, const char *section, const char *option,
                           const char *value);

/* The [sssd] domains list, in the written order, duplicates refused at load. */
errno_t confdb_get_domains(struct confdb *cdb, TALLOC_CTX *mem_ctx, char ***_domains);

/* The [sssd] services this suite serves (nss, pam, sudo), in written order, without
 * duplicates; default "nss, pam" when services is not set. */
errno_t confdb_get_services(struct confdb *cdb, TALLOC_CTX *mem_ctx, char ***_services);

/* "domain/<domain>"; NULL on ENOMEM or NULL domain. */
char *confdb_domain_section(TALLOC_CTX *mem_ctx, const char *domain);

#endif /* SSS_CONFDB_H */
