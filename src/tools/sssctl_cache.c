/*
 * sssctl cache-expire: sss_cache with sssctl's front (the same options, -E, -u NAME, -G, -d
 * DOMAIN...; the same code: sss_cache_parse_args() and sss_cache_run() of libsss_tools, so
 * the two tools never drift apart). The exit status is sss_cache's.
 * sssctl cache-remove: see below.
 */
#include <dirent.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tools/sssctl.h"
#include "tools/sss_cache.h"

int sssctl_cache_expire(struct sssctl_ctx *ctx, int argc, char **argv)
{
    struct sss_cache_args *args;
    struct sss_cache_paths paths;
    struct confdb *cdb = NULL;
    char *error = NULL;
    errno_t ret;
    int status;

    ret = sss_cache_parse_args(ctx->mem, argc, argv, &args);
    if (ret != EOK) {
        return SSS_CACHE_EXIT_FAILURE;
    }
    if (args->help) {
        sss_cache_usage(stdout);
        return SSSCTL_EXIT_OK;
    }
    if (args->config_file != NULL && strcmp(args->config_file, SSSD_CONF_FILE) != 0) {
        ctx->paths.config_file = args->config_file;
    }
    ret = confdb_load(ctx->mem, ctx->paths.config_file, &cdb, &error);
    if (ret != EOK) {
        return sssctl_error("%s", error != NULL ? error : sss_strerror(ret));
    }
    paths.db_dir = ctx->paths.db_dir;
    paths.mc_dir = ctx->paths.mc_dir;
    paths.bus_address = ctx->paths.bus_address;
    paths.bus_timeout_ms = SSSCTL_BUS_TIMEOUT_MS;
    ret = sss_cache_run(cdb, &args->sel, &paths);
    status = ret == EOK ? SSS_CACHE_EXIT_OK
             : ret == ENOENT ? SSS_CACHE_EXIT_NOMATCH : SSS_CACHE_EXIT_FAILURE;
    if (ctx->json) {
        sssctl_json_obj_start(ctx->js, NULL);
        sssctl_json_bool(ctx->js, "expired", ret == EOK);
        sssctl_json_str(ctx->js, "result", ret == EOK ? "ok"
                                           : ret == ENOENT ? "no match" : sss_strerror(ret));
        sssctl_json_int(ctx->js, "exit_status", status);
        sssctl_json_obj_end(ctx->js);
    } else if (ret == EOK) {
        printf("Cache entries expired; responders notified.\n");
    }
    return status;
}

/* ---- cache-remove ------------------------------------------------------------------ */

/* The running monitor's pid, or 0. */
static pid_t sssctl_monitor_pid(void)
{
    FILE *f = fopen(SSSD_PID_FILE, "r");
    long pid = 0;

    if (f == NULL) {
        return 0;
    }
    if (fscanf(f, "%ld", &pid) != 1 || pid <= 1 || kill((pid_t)pid, 0) != 0) {
        pid = 0;
    }
    fclose(f);
    return (pid_t)pid;
}

/* SIGTERM to the monitor, which stops every service; waits up to 20 s. */
static errno_t sssctl_stop_sssd(pid_t pid)
{
    int i;

    if (kill(pid, SIGTERM) != 0) {
        return errno;
    }
    for (i = 0; i < 400; i++) {
        if (kill(pid, 0) != 0 && errno == ESRCH) {
            return EOK;
        }
        usleep(50000);
    }
    return ETIMEDOUT;
}

static errno_t sssctl_start_sssd(const char *config_file)
{
    int status;
    pid_t pid = fork();

    if (pid < 0) {
        return errno;
    }
    if (pid == 0) {
        execl(SSSD_SBIN_PATH "/sssd", "sssd", "-D", "-c", config_file, (char *)NULL);
        _exit(127);
    }
    while (waitpid(pid, &status, 0) < 0) {
        if (errno != EINTR) {
            return errno;
        }
    }
    return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? EOK : EIO;
}

/* Cache files: cache_<domain>.ldb and the lock files ldb's mdb back-end keeps by them. */
static bool sssctl_is_cache_file(const char *name)
{
    size_t len = strlen(name);

    return strncmp(name, "cache_", 6) == 0
           && ((len > 4 && strcmp(name + len - 4, ".ldb") == 0)
               || (len > 9 && strcmp(name + len - 9, ".ldb-lock") == 0));
}

/*
 * sssctl cache-remove [--restart]: removes every domain's cache file and the memory cache,
 * so everything is fetched again. As SSSD's, only while sssd is stopped: the back-ends and
 * responders hold the cache files open, and a file removed under them would go on being
 * used, unlinked, until they restart. --restart stops sssd, removes, and starts it again.
 */
int sssctl_cache_remove(struct sssctl_ctx *ctx, int argc, char **argv)
{
    bool restart = false;
    struct dirent *de;
    size_t removed = 0, failed = 0;
    pid_t pid;
    DIR *dir;
    errno_t ret;

    if (argc == 2 && strcmp(argv[1], "--restart") == 0) {
        restart = true;
    } else if (argc != 1) {
        return sssctl_error("usage: sssctl cache-remove [--restart]");
    }
    pid = sssctl_monitor_pid();
    if (pid != 0 && !restart) {
        return sssctl_error("sssd is running (pid %ld): stop it first, or use --restart "
                            "(stop sssd, remove the caches, start it again)", (long)pid);
    }
    if (pid != 0) {
        ret = sssctl_stop_sssd(pid);
        if (ret != EOK) {
            return sssctl_error("cannot stop sssd (pid %ld): %s", (long)pid, sss_strerror(ret));
        }
    }
    dir = opendir(ctx->paths.db_dir);
    if (dir == NULL && errno != ENOENT) {
        return sssctl_error("cannot open %s: %s", ctx->paths.db_dir, strerror(errno));
    }
    if (ctx->json) {
        sssctl_json_obj_start(ctx->js, NULL);
        sssctl_json_arr_start(ctx->js, "removed");
    }
    while (dir != NULL && (de = readdir(dir)) != NULL) {
        if (!sssctl_is_cache_file(de->d_name)) {
            continue;
        }
        if (unlinkat(dirfd(dir), de->d_name, 0) != 0) {
            sssctl_error("cannot remove %s/%s: %s", ctx->paths.db_dir, de->d_name,
                         strerror(errno));
            failed++;
            continue;
        }
        removed++;
        if (ctx->json) {
            sssctl_json_str(ctx->js, NULL, de->d_name);
        } else {
            printf("removed %s/%s\n", ctx->paths.db_dir, de->d_name);
        }
    }
    if (dir != NULL) {
        closedir(dir);
    }
    /* Clients mapping the memory cache are told to let go before the files go. */
    ret = sss_cache_mc_reset(ctx->paths.mc_dir, SSS_CACHE_MC_PASSWD | SSS_CACHE_MC_GROUP
                                                | SSS_CACHE_MC_INITGROUPS);
    failed += ret != EOK ? 1 : 0;
    if (restart && pid != 0) {
        ret = sssctl_start_sssd(ctx->paths.config_file);
        if (ret != EOK) {
            sssctl_error("the caches were removed but sssd did not start again: %s",
                         sss_strerror(ret));
            failed++;
        }
    }
    if (ctx->json) {
        sssctl_json_arr_end(ctx->js);
        sssctl_json_bool(ctx->js, "memory_cache_reset", ret == EOK);
        sssctl_json_bool(ctx->js, "restarted", restart && pid != 0 && ret == EOK);
        sssctl_json_int(ctx->js, "failed", (int64_t)failed);
        sssctl_json_obj_end(ctx->js);
    } else {
        printf("%zu cache file%s removed, memory cache reset%s, %zu failed\n", removed,
               removed == 1 ? "" : "s", restart && pid != 0 ? ", sssd restarted" : "",
               failed);
    }
    return failed == 0 ? SSSCTL_EXIT_OK : SSSCTL_EXIT_FAILURE;
}
