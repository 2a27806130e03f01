/*
 * sss_cache, the memory cache files when no sssd_nss is there to reset them: mark the header
 * RECYCLED and remove the file, so that clients drop their mapping, find no file and ask the
 * socket (PROTOCOL.md "Memory cache"). The header change follows the writers' barrier
 * protocol: b2 = next barrier, status, b1 = b2; a reader copying the header meanwhile sees
 * b1 != b2 and retries. Each step is its own pwrite() on the shared page, so the steps
 * reach readers' mappings in order.
 *
 * A file whose byte-0 write lock is held belongs to a running sssd_nss (it holds that lock
 * for as long as the file is its own): it is left to that process. Anything that is not a
 * memory cache of our version is left alone with a message, never trusted.
 */
#include "util/util.h"

#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sss_client/sss_mc.h"
#include "tools/sss_cache.h"

static errno_t sss_cache_mc_write32(int fd, off_t offset, uint32_t value)
{
    ssize_t n;

    do {
        n = pwrite(fd, &value, sizeof(value), offset);
    } while (n == -1 && errno == EINTR);
    if (n == -1) {
        return errno;
    }
    return n == (ssize_t)sizeof(value) ? EOK : EIO;
}

/* Takes the byte-0 write lock; EBUSY when another process (sssd_nss) holds it. */
static errno_t sss_cache_mc_lock(int fd)
{
    struct flock lock;

    memset(&lock, 0, sizeof(lock));
    lock.l_type = F_WRLCK;
    lock.l_whence = SEEK_SET;
    lock.l_start = 0;
    lock.l_len = 1;
    if (fcntl(fd, F_SETLK, &lock) != 0) {
        if (errno == EAGAIN || errno == EACCES) {
            return EBUSY;
        }
        return errno;
    }
    return EOK;
}

/* Reads and checks the header. EINVAL when the file is not a memory cache we know. */
static errno_t sss_cache_mc_read_header(int fd, struct sss_mc_header *h)
{
    struct stat st;
    ssize_t n;

    if (fstat(fd, &st) != 0) {
        return errno;
    }
    if (!S_ISREG(st.st_mode) || st.st_size < (off_t)sizeof(*h)) {
        return EINVAL;
    }
    do {
        n = pread(fd, h, sizeof(*h), 0);
    } while (n == -1 && errno == EINTR);
    if (n == -1) {
        return errno;
    }
    if (n != (ssize_t)sizeof(*h) || h->major_vno != SSS_MC_MAJOR_VNO
            || h->status > SSS_MC_HEADER_RECYCLED) {
        return EINVAL;
    }
    return EOK;
}

/* Marks the header recycled under the barriers. */
static errno_t sss_cache_mc_mark_recycled(int fd, const struct sss_mc_header *h)
{
    uint32_t barrier = MC_NEXT_BARRIER(h->b1);
    errno_t ret;

    ret = sss_cache_mc_write32(fd, offsetof(struct sss_mc_header, b2), barrier);
    if (ret != EOK) {
        return ret;
    }
    __sync_synchronize();
    ret = sss_cache_mc_write32(fd, offsetof(struct sss_mc_header, status),
                               SSS_MC_HEADER_RECYCLED);
    if (ret != EOK) {
        return ret;
    }
    __sync_synchronize();
    return sss_cache_mc_write32(fd, offsetof(struct sss_mc_header, b1), barrier);
}

/* Removes path if it is still the file open on fd (sssd_nss may have made a new one). */
static errno_t sss_cache_mc_unlink_same(const char *path, int fd)
{
    struct stat mine;
    struct stat now;

    if (fstat(fd, &mine) != 0) {
        return errno;
    }
    if (lstat(path, &now) != 0) {
        return errno == ENOENT ? EOK : errno;
    }
    if (now.st_dev != mine.st_dev || now.st_ino != mine.st_ino) {
        DEBUG(SSSDBG_TRACE_FUNC, "%s was replaced meanwhile; the new file is kept\n", path);
        return EOK;
    }
    if (unlink(path) != 0 && errno != ENOENT) {
        return errno;
    }
    return EOK;
}

errno_t sss_cache_mc_reset_file(const char *path)
{
    struct sss_mc_header h;
    errno_t ret;
    int fd;

    SSS_CHECK_ARG(path != NULL, EINVAL);
    fd = open(path, O_RDWR | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
    if (fd == -1) {
        ret = errno;
        if (ret == ELOOP) {
            ret = EINVAL;   /* a symbolic link is not ours */
        }
        return ret;
    }

    ret = sss_cache_mc_lock(fd);
    if (ret != EOK) {
        goto done;
    }
    ret = sss_cache_mc_read_header(fd, &h);
    if (ret != EOK) {
        goto done;
    }
    ret = sss_cache_mc_mark_recycled(fd, &h);
    if (ret != EOK) {
        goto done;
    }
    ret = sss_cache_mc_unlink_same(path, fd);

done:
    close(fd);      /* drops the lock */
    return ret;
}

errno_t sss_cache_mc_reset(const char *mc_dir, unsigned int files)
{
    static const struct {
        unsigned int flag;
        const char *name;
    } mc_files[] = {
        { SSS_CACHE_MC_PASSWD, "passwd" },
        { SSS_CACHE_MC_GROUP, "group" },
        { SSS_CACHE_MC_INITGROUPS, "initgroups" },
    };
    TALLOC_CTX *tmp_ctx;
    errno_t result = EOK;
    errno_t ret;
    char *path;
    size_t i;

    SSS_CHECK_ARG(mc_dir != NULL, EINVAL);
    tmp_ctx = talloc_new(NULL);
    if (tmp_ctx == NULL) {
        return ENOMEM;
    }
    for (i = 0; i < SSS_ARRAY_SIZE(mc_files); i++) {
        if ((files & mc_files[i].flag) == 0) {
            continue;
        }
        path = talloc_asprintf(tmp_ctx, "%s/%s", mc_dir, mc_files[i].name);
        if (path == NULL) {
            result = ENOMEM;
            break;
        }
        ret = sss_cache_mc_reset_file(path);
        switch (ret) {
        case EOK:
            DEBUG(SSSDBG_TRACE_FUNC, "Memory cache %s reset\n", path);
            break;
        case ENOENT:
            break;
        case EBUSY:
            fprintf(stderr, "sss_cache: memory cache %s is held by a running sssd_nss that is "
                    "not on the bus: left to it\n", path);
            break;
        case EINVAL:
            fprintf(stderr, "sss_cache: %s is not a memory cache file: skipped\n", path);
            break;
        default:
            fprintf(stderr, "sss_cache: cannot reset memory cache %s: %s\n", path,
                    sss_strerror(ret));
            result = ret;
            break;
        }
    }
    talloc_free(tmp_ctx);
    return result;
}
