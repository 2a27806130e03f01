/*
 * sssctl logs-remove and logs-fetch FILE. As SSSD's: logs-remove truncates every log file
 * of the log directory to zero length rather than deleting it (the processes keep writing
 * to the descriptors they hold, in append mode, so the next line lands at the start of the
 * emptied file and nothing needs a restart or a SIGHUP); logs-fetch archives the log
 * directory into FILE as a gzip'ed tar (tar run directly, no shell). Only regular files
 * are touched: a symbolic link in the log directory is skipped, never followed.
 */
#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tools/sssctl.h"

int sssctl_logs_remove(struct sssctl_ctx *ctx, int argc, char **argv)
{
    struct dirent *de;
    struct stat st;
    size_t done = 0, failed = 0;
    uint64_t bytes = 0;
    DIR *dir;
    int dfd, fd;

    if (argc != 1) {
        return sssctl_error("logs-remove takes no arguments");
    }
    dir = opendir(ctx->paths.log_dir);
    if (dir == NULL) {
        return sssctl_error("cannot open %s: %s", ctx->paths.log_dir, strerror(errno));
    }
    dfd = dirfd(dir);
    if (ctx->json) {
        sssctl_json_obj_start(ctx->js, NULL);
        sssctl_json_str(ctx->js, "log_dir", ctx->paths.log_dir);
        sssctl_json_arr_start(ctx->js, "truncated");
    } else {
        printf("Truncating log files in %s\n", ctx->paths.log_dir);
    }
    while ((de = readdir(dir)) != NULL) {
        if (de->d_name[0] == '.') {
            continue;
        }
        fd = openat(dfd, de->d_name, O_WRONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
        if (fd < 0) {
            if (errno != ELOOP && errno != ENXIO && errno != EISDIR) {
                sssctl_error("cannot open %s: %s", de->d_name, strerror(errno));
                failed++;
            }
            continue;   /* a link, a socket or a directory is not a log file */
        }
        if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
            close(fd);
            continue;
        }
        if (ftruncate(fd, 0) != 0) {
            sssctl_error("cannot truncate %s: %s", de->d_name, strerror(errno));
            failed++;
        } else {
            done++;
            bytes += (uint64_t)st.st_size;
            if (ctx->json) {
                sssctl_json_str(ctx->js, NULL, de->d_name);
            }
        }
        close(fd);
    }
    closedir(dir);
    if (ctx->json) {
        sssctl_json_arr_end(ctx->js);
        sssctl_json_int(ctx->js, "bytes_freed", (int64_t)bytes);
        sssctl_json_int(ctx->js, "failed", (int64_t)failed);
        sssctl_json_obj_end(ctx->js);
    } else {
        printf("%zu file%s truncated, %.1f KiB freed, %zu failed\n", done,
               done == 1 ? "" : "s", (double)bytes / 1024.0, failed);
    }
    return failed == 0 ? SSSCTL_EXIT_OK : SSSCTL_EXIT_FAILURE;
}

int sssctl_logs_fetch(struct sssctl_ctx *ctx, int argc, char **argv)
{
    struct stat st;
    pid_t pid;
    int status;

    if (argc != 2 || argv[1][0] == '\0' || argv[1][0] == '-') {
        return sssctl_error("usage: sssctl logs-fetch FILE");
    }
    pid = fork();
    if (pid < 0) {
        return sssctl_error("fork: %s", strerror(errno));
    }
    if (pid == 0) {
        /* The archive's members are relative to the log directory: "./sssd_nss.log". */
        execlp("tar", "tar", "--create", "--gzip", "--file", argv[1],
               "--directory", ctx->paths.log_dir, ".", (char *)NULL);
        fprintf(stderr, "sssctl: cannot run tar: %s\n", strerror(errno));
        _exit(127);
    }
    while (waitpid(pid, &status, 0) < 0) {
        if (errno != EINTR) {
            return sssctl_error("waitpid: %s", strerror(errno));
        }
    }
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || stat(argv[1], &st) != 0) {
        return sssctl_error("archiving %s into %s failed", ctx->paths.log_dir, argv[1]);
    }
    if (ctx->json) {
        sssctl_json_obj_start(ctx->js, NULL);
        sssctl_json_str(ctx->js, "log_dir", ctx->paths.log_dir);
        sssctl_json_str(ctx->js, "archive", argv[1]);
        sssctl_json_int(ctx->js, "bytes", (int64_t)st.st_size);
        sssctl_json_obj_end(ctx->js);
    } else {
        printf("Archived %s into %s (%.1f KiB)\n", ctx->paths.log_dir, argv[1],
               (double)st.st_size / 1024.0);
    }
    return SSSCTL_EXIT_OK;
}
