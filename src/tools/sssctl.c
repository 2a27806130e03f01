/*
 * sssctl(8): main(). Checks the caller is root, takes the global --json option (accepted
 * anywhere before "--"), finds the subcommand in one table and runs it. Shared helpers for
 * the subcommands (messages, times, loading the configuration) live here too.
 */
#include <stdarg.h>
#include <time.h>
#include <unistd.h>

#include "tools/sssctl.h"
#include "service/sss_service.h"

static const struct sssctl_command sssctl_commands[] = {
    { "domain-list", "", "list the configured domains and whether each is online",
      sssctl_domain_list },
    { "domain-status", "DOMAIN [--online|--active-server|--servers]",
      "online state, since when and why, the active server and every server's state",
      sssctl_domain_status },
    { "user-show", "NAME", "the cached user: attributes, expiry, memory cache",
      sssctl_user_show },
    { "group-show", "NAME", "the cached group: members, expiry, memory cache",
      sssctl_group_show },
    { "user-checks", "NAME [-a ACTION] [-s SERVICE]",
      "NSS lookup, initgroups, then PAM (auth, acct, ...) through the real libpam",
      sssctl_user_checks },
    { "cache-expire", "[sss_cache options]", "mark cache entries expired (as sss_cache)",
      sssctl_cache_expire },
    { "cache-remove", "[--restart]",
      "remove every cache file and the memory cache (sssd stopped, or --restart)",
      sssctl_cache_remove },
    { "config-check", "[-c FILE]", "validate sssd.conf and its snippets",
      sssctl_config_check },
    { "debug-level", "[LEVEL] [--nss --pam --sudo --monitor --domain=NAME ...]",
      "read or set the debug level of running processes, without a restart",
      sssctl_debug_level },
    { "logs-remove", "", "empty every log file", sssctl_logs_remove },
    { "logs-fetch", "FILE", "archive every log file into FILE (tar.gz)", sssctl_logs_fetch },
    { "stats", "[--prometheus] [--monitor --nss --pam --sudo --domain=NAME ...]",
      "counters and latency histograms of running processes", sssctl_stats },
    { "analyze", "[--logdir DIR] request list | request show ID",
      "follow requests through the logs of every process, with per-stage durations",
      sssctl_analyze },
};

static void sssctl_usage(FILE *out)
{
    size_t i;

    fprintf(out, "Usage: sssctl [--json] COMMAND [OPTIONS]\n\nCommands:\n");
    for (i = 0; i < SSS_ARRAY_SIZE(sssctl_commands); i++) {
        fprintf(out, "  %-14s %s\n      %s\n", sssctl_commands[i].name,
                sssctl_commands[i].args, sssctl_commands[i].help);
    }
    fprintf(out, "\n--json prints one JSON document on stdout (keys: man/sssctl.md).\n");
}

int sssctl_error(const char *fmt, ...)
{
    va_list ap;

    fputs("sssctl: ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    return SSSCTL_EXIT_FAILURE;
}

char *sssctl_time_text(TALLOC_CTX *mem_ctx, time_t t)
{
    char buf[64];
    struct tm tm;

    if (t == 0) {
        return talloc_strdup(mem_ctx, "never");
    }
    if (gmtime_r(&t, &tm) == NULL || strftime(buf, sizeof(buf), "%Y-%m-%d %H:%M:%S UTC",
                                              &tm) == 0) {
        return talloc_asprintf(mem_ctx, "%lld", (long long)t);
    }
    return talloc_strdup(mem_ctx, buf);
}

char *sssctl_age_text(TALLOC_CTX *mem_ctx, time_t t, time_t now)
{
    long long d = (long long)(now - t);
    bool past = d >= 0;
    long long a = past ? d : -d;

    if (a < 60) {
        return talloc_asprintf(mem_ctx, past ? "%lld s ago" : "in %lld s", a);
    }
    if (a < 3600) {
        return talloc_asprintf(mem_ctx, past ? "%lld min %lld s ago" : "in %lld min %lld s",
                               a / 60, a % 60);
    }
    if (a < 86400) {
        return talloc_asprintf(mem_ctx, past ? "%lld h %lld min ago" : "in %lld h %lld min",
                               a / 3600, (a % 3600) / 60);
    }
    return talloc_asprintf(mem_ctx, past ? "%lld days ago" : "in %lld days", a / 86400);
}

errno_t sssctl_load_conf(struct sssctl_ctx *ctx, struct confdb **_cdb)
{
    char *error = NULL;
    errno_t ret;

    ret = confdb_load(ctx->mem, ctx->paths.config_file, _cdb, &error);
    if (ret != EOK) {
        sssctl_error("%s", error != NULL ? error : sss_strerror(ret));
    }
    return ret;
}

/* Removes every "--json" before "--" from argv; returns the new argc. */
static int sssctl_take_json(int argc, char **argv, bool *_json)
{
    int i, j;

    for (i = 1, j = 1; i < argc; i++) {
        if (strcmp(argv[i], "--") == 0) {
            for (; i < argc; i++) {
                argv[j++] = argv[i];
            }
            break;
        }
        if (strcmp(argv[i], "--json") == 0) {
            *_json = true;
            continue;
        }
        argv[j++] = argv[i];
    }
    argv[j] = NULL;
    return j;
}

int main(int argc, char *argv[])
{
    const struct sssctl_command *cmd = NULL;
    struct sssctl_ctx ctx = { 0 };
    errno_t ret;
    int status;
    size_t i;

    argc = sssctl_take_json(argc, argv, &ctx.json);
    if (argc < 2 || strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0
            || strcmp(argv[1], "help") == 0) {
        sssctl_usage(argc < 2 ? stderr : stdout);
        return argc < 2 ? SSSCTL_EXIT_FAILURE : SSSCTL_EXIT_OK;
    }
    for (i = 0; i < SSS_ARRAY_SIZE(sssctl_commands); i++) {
        if (strcmp(argv[1], sssctl_commands[i].name) == 0) {
            cmd = &sssctl_commands[i];
        }
    }
    if (cmd == NULL) {
        sssctl_error("unknown command '%s' (sssctl --help lists them)", argv[1]);
        return SSSCTL_EXIT_FAILURE;
    }
    /* The caches, logs and the bus are root's; saying so beats a puzzling EACCES. */
    if (getuid() != 0 || geteuid() != 0) {
        return sssctl_error("%s must be run as root", cmd->name);
    }
    debug_init("sssctl", 0, SSS_LOGGER_STDERR, NULL);

    ctx.mem = talloc_new(NULL);
    if (ctx.mem == NULL) {
        return sssctl_error("out of memory");
    }
    ctx.paths.config_file = SSSD_CONF_FILE;
    ctx.paths.db_dir = SSSD_DB_PATH;
    ctx.paths.mc_dir = SSSD_MC_PATH;
    ctx.paths.log_dir = SSSD_LOG_PATH;
    ctx.paths.bus_address = sss_master_bus_address();
    if (ctx.json) {
        ctx.js = sssctl_json_new(ctx.mem);
        if (ctx.js == NULL) {
            talloc_free(ctx.mem);
            return sssctl_error("out of memory");
        }
    }
    status = cmd->run(&ctx, argc - 1, argv + 1);
    /* A subcommand that wrote a document gets it printed, whatever its status. */
    if (ctx.json && sssctl_json_text(ctx.js) != NULL) {
        ret = sssctl_json_finish(ctx.js, stdout);
        if (ret != EOK) {
            status = sssctl_error("cannot write the JSON document: %s", sss_strerror(ret));
        }
    }
    talloc_free(ctx.mem);
    return status;
}
