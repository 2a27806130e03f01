/*
 * sssctl(8): diagnostics and administration of the suite. Every live question goes over the
 * master bus to the monitor or a service (no system bus, no InfoPipe); cached data is read
 * from the cache files the way the responders and libnss_sss read them. Each subcommand
 * prints for people by default (aligned columns, units, a summary line) or, with --json, one
 * JSON document on stdout with stable keys (documented in man/sssctl.md).
 *
 *   sssctl.c            main(): root check, global options, the command table
 *   sssctl_json.c       the JSON writer (one document, escaped, valid UTF-8 out)
 *   sssctl_table.c      aligned text tables
 *   sssctl_bus.c        a synchronous connection to the master bus for the tool
 *   sssctl_domain.c     domain-list, domain-status
 *   sssctl_user.c       user-show, group-show
 *   sssctl_checks.c     user-checks (NSS, then PAM through the real libpam)
 *   sssctl_cache.c      cache-expire (sss_cache's code), cache-remove
 *   sssctl_config.c     config-check
 *   sssctl_debug.c      debug-level
 *   sssctl_logs.c       logs-remove, logs-fetch
 *   sssctl_analyze.c    analyze request list / show: one request through every log
 *   sssctl_stats.c      stats: every process's metrics, for people, JSON or Prometheus
 *
 * Exit status: 0 success, 1 failure or bad command line (a message on stderr says which).
 * Ownership: every subcommand allocates on ctx->mem, freed by main().
 */
#ifndef SSS_TOOLS_SSSCTL_H
#define SSS_TOOLS_SSSCTL_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <talloc.h>
#include <tevent.h>

#include "util/util.h"
#include "confdb/confdb.h"

#define SSSCTL_EXIT_OK      0
#define SSSCTL_EXIT_FAILURE 1

/* How long a bus question may take before the tool gives up. */
#define SSSCTL_BUS_TIMEOUT_MS 10000

struct sssctl_json;

/* Where files live; main() fills it from the build's paths, tests may point elsewhere. */
struct sssctl_paths {
    const char *config_file;    /* -c, or SSSD_CONF_FILE */
    const char *db_dir;         /* SSSD_DB_PATH */
    const char *mc_dir;         /* SSSD_MC_PATH */
    const char *log_dir;        /* SSSD_LOG_PATH */
    const char *bus_address;    /* sss_master_bus_address() */
};

struct sssctl_ctx {
    TALLOC_CTX *mem;
    bool json;                  /* --json: one JSON document on stdout */
    struct sssctl_paths paths;
    struct sssctl_json *js;     /* the document being written when json */
};

/* A subcommand: argv[0] is its name; returns an exit status. */
struct sssctl_command {
    const char *name;
    const char *args;           /* for the usage text */
    const char *help;
    int (*run)(struct sssctl_ctx *ctx, int argc, char **argv);
};

/* Prints "sssctl: " + message to stderr; returns SSSCTL_EXIT_FAILURE. */
int sssctl_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* "2026-11-24 23:59:59 UTC" (talloc'd), or "never" for 0. */
char *sssctl_time_text(TALLOC_CTX *mem_ctx, time_t t);
/* "3 min 4 s ago" / "in 12 s" relative to now (talloc'd). */
char *sssctl_age_text(TALLOC_CTX *mem_ctx, time_t t, time_t now);

/* -------- sssctl_json.c -------- */

/* A writer of one JSON document. Members of an object take a key, elements of an array
 * and the top value take key NULL. Misuse (a key in an array, unbalanced ends) is a
 * programming error caught by assert(). Out of memory makes _finish return ENOMEM. */
struct sssctl_json *sssctl_json_new(TALLOC_CTX *mem_ctx);
void sssctl_json_obj_start(struct sssctl_json *js, const char *key);
void sssctl_json_obj_end(struct sssctl_json *js);
void sssctl_json_arr_start(struct sssctl_json *js, const char *key);
void sssctl_json_arr_end(struct sssctl_json *js);
/* value NULL writes null. Invalid UTF-8 bytes become U+FFFD. */
void sssctl_json_str(struct sssctl_json *js, const char *key, const char *value);
void sssctl_json_int(struct sssctl_json *js, const char *key, int64_t value);
void sssctl_json_bool(struct sssctl_json *js, const char *key, bool value);
/* A Unix time as an integer, or null when 0 (never). */
void sssctl_json_time(struct sssctl_json *js, const char *key, time_t value);
/* The document so far (talloc'd on js); NULL on ENOMEM or when not balanced. */
const char *sssctl_json_text(struct sssctl_json *js);
/* Writes the finished document and a newline. EOK, ENOMEM, EINVAL (not balanced), EIO. */
errno_t sssctl_json_finish(struct sssctl_json *js, FILE *out);

/* -------- sssctl_table.c -------- */

struct sssctl_table;

/* A table of ncols columns; headers may be NULL (no header line). */
struct sssctl_table *sssctl_table_new(TALLOC_CTX *mem_ctx, size_t ncols,
                                      const char *const *headers);
/* Adds a row of ncols cells (NULL prints as "-"). ENOMEM. */
errno_t sssctl_table_add(struct sssctl_table *t, const char *const *cells);
/* Prints the rows with columns padded to their widest cell (in characters). */
void sssctl_table_print(struct sssctl_table *t, FILE *out, const char *indent);

/* -------- sssctl_bus.c -------- */

struct sssctl_bus {
    struct tevent_context *ev;
    struct sbus_connection *conn;
};

/* Connects to the master bus as a plain client. EIO (with a message) when nothing serves
 * address (the suite is not running), ETIMEDOUT, ENOMEM. */
errno_t sssctl_bus_open(TALLOC_CTX *mem_ctx, const char *address, struct sssctl_bus **_bus);
/* Runs the loop until req is done, at most SSSCTL_BUS_TIMEOUT_MS (ETIMEDOUT). */
errno_t sssctl_bus_wait(struct sssctl_bus *bus, struct tevent_req *req);
/* The well-known names on the bus (NULL-terminated, on mem_ctx). */
errno_t sssctl_bus_names(TALLOC_CTX *mem_ctx, struct sssctl_bus *bus, const char ***_names);
bool sssctl_names_has(const char *const *names, const char *name);

/* -------- sssctl_targets.c: the processes a command talks to -------- */

struct sssctl_target {
    const char *process;        /* for people: "sssd_nss", "sssd_be[ldap.test]" */
    const char *bus_name;
};

/* Adds a target unless already there (list on mem_ctx). ENOMEM. */
errno_t sssctl_target_add(TALLOC_CTX *mem_ctx, struct sssctl_target **list, size_t *n,
                          const char *process, const char *bus_name);
/* The back-end of domain. ENOMEM. */
errno_t sssctl_add_domain(struct sssctl_ctx *ctx, struct sssctl_target **list, size_t *n,
                          const char *domain);
/* Every process of the suite: the monitor, the configured services and domains.
 * ERR_INVALID_CONFIG (the configuration could not be loaded: said why), ENOMEM. */
errno_t sssctl_all_targets(struct sssctl_ctx *ctx, struct sssctl_target **list, size_t *n);
/* getopt_long entries of the target options, for a command's option table. */
#define SSSCTL_TARGET_LONGOPTS \
    { "monitor", no_argument,       NULL, 'm' }, \
    { "nss",     no_argument,       NULL, 'n' }, \
    { "pam",     no_argument,       NULL, 'p' }, \
    { "sudo",    no_argument,       NULL, 's' }, \
    { "domain",  required_argument, NULL, 'd' }
/* Applies the target option c (from getopt_long, with its argument): ENOENT when c is not
 * one, ENOMEM. */
errno_t sssctl_target_option(struct sssctl_ctx *ctx, int c, const char *arg,
                             struct sssctl_target **list, size_t *n);
/* The chosen targets (every process of the suite when none was chosen), the bus opened
 * and the names on it. SSSCTL_EXIT_OK, or SSSCTL_EXIT_FAILURE (said why). */
int sssctl_targets_open(struct sssctl_ctx *ctx, struct sssctl_target **list, size_t *n,
                        struct sssctl_bus **_bus, const char ***_names);

/* -------- sssctl_user.c: the caches -------- */

struct confdb;
struct sysdb_ctx;
/* The domain's cache (on ctx->mem), or NULL (*_sysdb) when the domain has no cache file
 * yet (opening would create one). Errors: sysdb_open()'s, ENOMEM. */
errno_t sssctl_open_cache(struct sssctl_ctx *ctx, struct confdb *cdb, const char *domain,
                          struct sysdb_ctx **_sysdb);

/* -------- subcommands -------- */

int sssctl_domain_list(struct sssctl_ctx *ctx, int argc, char **argv);
int sssctl_domain_status(struct sssctl_ctx *ctx, int argc, char **argv);
int sssctl_user_show(struct sssctl_ctx *ctx, int argc, char **argv);
int sssctl_group_show(struct sssctl_ctx *ctx, int argc, char **argv);
int sssctl_user_checks(struct sssctl_ctx *ctx, int argc, char **argv);
int sssctl_cache_expire(struct sssctl_ctx *ctx, int argc, char **argv);
int sssctl_cache_remove(struct sssctl_ctx *ctx, int argc, char **argv);
int sssctl_config_check(struct sssctl_ctx *ctx, int argc, char **argv);
int sssctl_debug_level(struct sssctl_ctx *ctx, int argc, char **argv);
int sssctl_logs_remove(struct sssctl_ctx *ctx, int argc, char **argv);
int sssctl_logs_fetch(struct sssctl_ctx *ctx, int argc, char **argv);
int sssctl_analyze(struct sssctl_ctx *ctx, int argc, char **argv);
int sssctl_stats(struct sssctl_ctx *ctx, int argc, char **argv);

/* Loads ctx->paths.config_file; prints the reason on failure. */
errno_t sssctl_load_conf(struct sssctl_ctx *ctx, struct confdb **_cdb);

#endif /* SSS_TOOLS_SSSCTL_H */
