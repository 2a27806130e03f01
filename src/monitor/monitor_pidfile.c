/*
 * The pid file doubles as the single-instance lock: it is held with an fcntl write lock for
 * the life of the monitor, so a stale file left by a crash never blocks a new start. It is
 * taken by the process that stays (after daemonizing): fcntl locks do not pass to a child.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "monitor/monitor.h"

static int pidfile_fd = -1;
static char *pidfile_path;

errno_t monitor_pidfile_acquire(const char *path, pid_t *_other)
{
    struct flock lock = { .l_type = F_WRLCK, .l_whence = SEEK_SET };
    struct stat fd_st, path_st;
    char buf[32];
    int fd, len, tries = 0;
    errno_t ret;

again:
    fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0) {
        return errno;
    }
    if (fcntl(fd, F_SETLK, &lock) != 0) {
        ret = errno;
        if (ret == EACCES || ret == EAGAIN) {
            struct flock who = { .l_type = F_WRLCK, .l_whence = SEEK_SET };
            if (fcntl(fd, F_GETLK, &who) == 0 && who.l_type != F_UNLCK) {
                *_other = who.l_pid;
            } else {
                *_other = 0;
            }
            ret = ERR_ALREADY_RUNNING;
        }
        close(fd);
        return ret;
    }
    /* An instance that was exiting may have unlinked the file between our open and our
     * lock: then we hold a lock nobody else can see. Start over on the current file. */
    if (fstat(fd, &fd_st) != 0 || stat(path, &path_st) != 0
        || fd_st.st_dev != path_st.st_dev || fd_st.st_ino != path_st.st_ino) {
        close(fd);
        if (++tries > 10) {
            return EBUSY;
        }
        goto again;
    }
    len = snprintf(buf, sizeof(buf), "%d\n", (int)getpid());
    if (ftruncate(fd, 0) != 0 || pwrite(fd, buf, (size_t)len, 0) != len) {
        ret = errno ? errno : EIO;
        close(fd);
        return ret;
    }
    free(pidfile_path);
    pidfile_path = strdup(path);
    if (pidfile_path == NULL) {
        close(fd);
        return ENOMEM;
    }
    pidfile_fd = fd;
    return EOK;
}

void monitor_pidfile_remove(void)
{
    if (pidfile_fd < 0) {
        return;
    }
    unlink(pidfile_path);
    close(pidfile_fd);
    pidfile_fd = -1;
    free(pidfile_path);
    pidfile_path = NULL;
}
