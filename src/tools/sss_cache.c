/*
 * sss_cache(8): the command. main() only parses the command line, checks the caller is
 * root, loads the configuration and maps the result of sss_cache_run() to SSSD's exit
 * statuses (see sss_cache.h); the work is in the other sss_cache_*.c files.
 */
#include "util/util.h"

#include <stdio.h>
#include <unistd.h>

#include "confdb/confdb.h"
#include "service/sss_service.h"
#include "tools/sss_cache.h"

/* Loads the configuration. *_cdb is NULL (and EOK returned) when the file does not exist:
 * sssd was never set up here, so nothing is cached. */
static errno_t sss_cache_load_conf(TALLOC_CTX *mem_ctx, const char *path, const char *domain,
                                   struct confdb **_cdb)
{
    char *error = NULL;
    errno_t ret;

    *_cdb = NULL;
    ret = confdb_load(mem_ctx, path, _cdb, &error);
    if (ret == ERR_MISSING_CONF && domain == NULL) {
        fprintf(stderr, "sss_cache: %s does not exist: SSSD is not configured, nothing to "
                "invalidate\n", path);
        return EOK;
    }
    if (ret == ERR_MISSING_CONF) {
        fprintf(stderr, "Could not open domain %s: %s does not exist\n", domain, path);
        return ENOENT;
    }
    if (ret != EOK) {
        fprintf(stderr, "sss_cache: %s\n", error != NULL ? error : sss_strerror(ret));
    }
    return ret;
}

int main(int argc, char *argv[])
{
    TALLOC_CTX *tmp_ctx;
    struct sss_cache_args *args;
    struct sss_cache_paths paths;
    struct confdb *cdb;
    errno_t ret;
    int status;

    tmp_ctx = talloc_new(NULL);
    if (tmp_ctx == NULL) {
        fprintf(stderr, "sss_cache: out of memory\n");
        return SSS_CACHE_EXIT_FAILURE;
    }
    ret = sss_cache_parse_args(tmp_ctx, argc, argv, &args);
    if (ret != EOK) {
        status = SSS_CACHE_EXIT_FAILURE;
        goto done;
    }
    if (args->help) {
        sss_cache_usage(stdout);
        status = SSS_CACHE_EXIT_OK;
        goto done;
    }
    if (getuid() != 0) {
        fprintf(stderr, "sss_cache must be run as root\n");
        status = SSS_CACHE_EXIT_FAILURE;
        goto done;
    }
    debug_init("sss_cache", args->debug_level, SSS_LOGGER_STDERR, NULL);

    ret = sss_cache_load_conf(tmp_ctx, args->config_file, args->sel.domain, &cdb);
    if (ret == EOK && cdb != NULL) {
        paths.db_dir = SSSD_DB_PATH;
        paths.mc_dir = SSSD_MC_PATH;
        paths.bus_address = sss_master_bus_address();
        paths.bus_timeout_ms = SSS_CACHE_BUS_TIMEOUT_MS;
        ret = sss_cache_run(cdb, &args->sel, &paths);
    }
    switch (ret) {
    case EOK:
        status = SSS_CACHE_EXIT_OK;
        break;
    case ENOENT:
        status = SSS_CACHE_EXIT_NOMATCH;
        break;
    default:
        status = SSS_CACHE_EXIT_FAILURE;
        break;
    }

done:
    talloc_free(tmp_ctx);
    return status;
}
