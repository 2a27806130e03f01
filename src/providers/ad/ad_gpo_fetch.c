/*
 * One GPO's GptTmpl.inf for sssd_be (ad_gpo_fetch.h part of ad_gpo_access.c): from the
 * on-disk cache when it holds the version the directory names, otherwise from the DC's
 * SYSVOL through gpo_child (ad_gpo_child.c), then cached. The cache, like SSSD's
 * /var/lib/sss/gpo_cache, is SSSD_STATE_DIR/gpo_cache/<domain>/<GPO GUID>/ with the file
 * and its version, root-only. The child is started with sss_spawn_send (posix_spawn from
 * a worker thread: no copy of sssd_be's memory, and the loop does not wait for the exec),
 * its output read through a non-blocking pipe watched by the loop, a timer kills it after
 * the timeout, and it is reaped without waiting.
 */
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "util/util.h"
#include "util/sss_offloop.h"
#include "providers/ad/ad_gpo_fetch.h"

/* ---- the cache --------------------------------------------------------------------- */

static char *cache_path(TALLOC_CTX *mem_ctx, const char *root, const char *domain,
                        const char *guid, const char *file)
{
    return talloc_asprintf(mem_ctx, "%s/%s/%s%s%s", root, domain, guid,
                           file != NULL ? "/" : "", file != NULL ? file : "");
}

/* The whole of a regular file no larger than max. */
static errno_t read_file(TALLOC_CTX *mem_ctx, const char *path, size_t max, uint8_t **_data,
                         size_t *_len)
{
    struct stat st;
    uint8_t *data;
    ssize_t n;
    size_t len = 0;
    errno_t ret;
    int fd;

    fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0) {
        return errno;
    }
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || (size_t)st.st_size > max) {
        close(fd);
        return EINVAL;
    }
    data = talloc_size(mem_ctx, (size_t)st.st_size + 1);
    if (data == NULL) {
        close(fd);
        return ENOMEM;
    }
    while (len < (size_t)st.st_size) {
        n = read(fd, data + len, (size_t)st.st_size - len);
        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n <= 0) {
            ret = n < 0 ? errno : EIO;
            talloc_free(data);
            close(fd);
            return ret;
        }
        len += (size_t)n;
    }
    close(fd);
    data[len] = '\0';
    *_data = data;
    *_len = len;
    return EOK;
}

static errno_t write_file(const char *dir, const char *name, const uint8_t *data, size_t len)
{
    char tmp[PATH_MAX];
    char path[PATH_MAX];
    ssize_t n;
    size_t off = 0;
    int fd;

    if (snprintf(tmp, sizeof(tmp), "%s/.%s.tmp", dir, name) >= (int)sizeof(tmp)
            || snprintf(path, sizeof(path), "%s/%s", dir, name) >= (int)sizeof(path)) {
        return ENAMETOOLONG;
    }
    fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
    if (fd < 0) {
        return errno;
    }
    while (off < len) {
        n = write(fd, data + off, len - off);
        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n <= 0) {
            close(fd);
            unlink(tmp);
            return EIO;
        }
        off += (size_t)n;
    }
    if (fsync(fd) != 0 || close(fd) != 0 || rename(tmp, path) != 0) {
        unlink(tmp);
        return EIO;
    }
    return EOK;
}

/* mkdir -p of the GPO's cache directory, 0700 (it says which policies apply here). */
static errno_t cache_mkdir(const char *root, const char *domain, const char *guid)
{
    const char *parts[] = { root, domain, guid };
    char path[PATH_MAX] = "";
    size_t len = 0;
    int n;

    for (size_t i = 0; i < 3; i++) {
        n = snprintf(path + len, sizeof(path) - len, "%s%s", i == 0 ? "" : "/", parts[i]);
        if (n < 0 || (size_t)n >= sizeof(path) - len) {
            return ENAMETOOLONG;
        }
        len += (size_t)n;
        /* The state directory exists; gpo_cache and below may not. */
        if (mkdir(path, 0700) != 0 && errno != EEXIST) {
            return errno;
        }
    }
    return EOK;
}

errno_t ad_gpo_cache_get(TALLOC_CTX *mem_ctx, const char *root, const char *domain,
                         const char *guid, uint32_t version, uint8_t **_data, size_t *_len)
{
    TALLOC_CTX *tmp_ctx = talloc_new(NULL);
    uint8_t *vdata = NULL;
    size_t vlen;
    char *path;
    char *end;
    unsigned long cached;
    errno_t ret;

    if (tmp_ctx == NULL) {
        return ENOMEM;
    }
    path = cache_path(tmp_ctx, root, domain, guid, "version");
    if (path == NULL) {
        ret = ENOMEM;
        goto done;
    }
    ret = read_file(tmp_ctx, path, 32, &vdata, &vlen);
    if (ret != EOK) {
        ret = ENOENT;
        goto done;
    }
    errno = 0;
    cached = strtoul((char *)vdata, &end, 10);
    if (errno != 0 || end == (char *)vdata || (*end != '\0' && *end != '\n')
            || cached != version) {
        ret = ENOENT;
        goto done;
    }
    path = cache_path(tmp_ctx, root, domain, guid, "GptTmpl.inf");
    if (path == NULL) {
        ret = ENOMEM;
        goto done;
    }
    ret = read_file(mem_ctx, path, AD_GPO_INF_MAX, _data, _len);
    if (ret != EOK) {
        ret = ENOENT;
    }
done:
    talloc_free(tmp_ctx);
    return ret;
}

errno_t ad_gpo_cache_put(const char *root, const char *domain, const char *guid,
                         uint32_t version, const uint8_t *data, size_t len)
{
    char vbuf[16];
    char *dir;
    errno_t ret;

    ret = cache_mkdir(root, domain, guid);
    if (ret != EOK) {
        return ret;
    }
    dir = cache_path(NULL, root, domain, guid, NULL);
    if (dir == NULL) {
        return ENOMEM;
    }
    /* The file first: a version without its file is never read as valid. */
    ret = write_file(dir, "GptTmpl.inf", data, len);
    if (ret == EOK) {
        snprintf(vbuf, sizeof(vbuf), "%u\n", version);
        ret = write_file(dir, "version", (const uint8_t *)vbuf, strlen(vbuf));
    }
    talloc_free(dir);
    return ret;
}

/* ---- the child --------------------------------------------------------------------- */

struct ad_gpo_child_state {
    struct tevent_context *ev;
    pid_t pid;
    int fd;
    uint8_t *buf;
    size_t len;
    struct tevent_req *spawn;
    struct tevent_fd *fde;
    struct tevent_timer *timer;
};

static int ad_gpo_child_destructor(struct ad_gpo_child_state *state)
{
    /* On the event context: the reaping outlives the request. */
    sss_child_reap(state->ev, state->ev, state->pid, true);
    if (state->fd >= 0) {
        close(state->fd);
    }
    return 0;
}

static void ad_gpo_child_started(struct tevent_req *subreq);
static void ad_gpo_child_readable(struct tevent_context *ev, struct tevent_fd *fde,
                                  uint16_t flags, void *pvt);
static void ad_gpo_child_timeout(struct tevent_context *ev, struct tevent_timer *te,
                                 struct timeval now, void *pvt);
static void ad_gpo_child_wait(struct tevent_context *ev, struct tevent_timer *te,
                              struct timeval now, void *pvt);

struct tevent_req *ad_gpo_child_send(TALLOC_CTX *mem_ctx, struct tevent_context *ev,
                                     const char *path, const char *uri, int timeout)
{
    struct ad_gpo_child_state *state;
    struct tevent_req *req;
    const char *argv[3];
    errno_t ret;

    req = tevent_req_create(mem_ctx, &state, struct ad_gpo_child_state);
    if (req == NULL) {
        return NULL;
    }
    state->ev = ev;
    state->pid = -1;
    state->fd = -1;
    talloc_set_destructor(state, ad_gpo_child_destructor);
    state->buf = talloc_size(state, AD_GPO_INF_MAX + 1);
    if (state->buf == NULL) {
        ret = ENOMEM;
        goto done;
    }
    /* Started from a worker thread: the loop never waits for the child's exec. */
    argv[0] = "gpo_child";
    argv[1] = uri;
    argv[2] = NULL;
    state->spawn = sss_spawn_send(state, ev, NULL, path, argv, NULL, SSS_SPAWN_STDOUT);
    if (state->spawn == NULL) {
        ret = ENOMEM;
        goto done;
    }
    tevent_req_set_callback(state->spawn, ad_gpo_child_started, req);
    /* The timeout counts from now: a start that hangs is bounded too. */
    state->timer = tevent_add_timer(ev, state, tevent_timeval_current_ofs(timeout, 0),
                                    ad_gpo_child_timeout, req);
    if (state->timer == NULL) {
        ret = ENOMEM;
        goto done;
    }
    return req;
done:
    return sss_req_post(req, ev, ret);
}

static void ad_gpo_child_started(struct tevent_req *subreq)
{
    struct tevent_req *req = tevent_req_callback_data(subreq, struct tevent_req);
    struct ad_gpo_child_state *state = tevent_req_data(req, struct ad_gpo_child_state);
    errno_t ret;

    state->spawn = NULL;
    ret = sss_spawn_recv(subreq, &state->pid, NULL, &state->fd);
    talloc_free(subreq);
    if (ret != EOK) {
        DEBUG(SSSDBG_CRIT_FAILURE, "cannot start gpo_child: %s\n", strerror(ret));
        tevent_req_error(req, ret);
        return;
    }
    state->fde = tevent_add_fd(state->ev, state, state->fd, TEVENT_FD_READ,
                               ad_gpo_child_readable, req);
    if (state->fde == NULL) {
        tevent_req_error(req, ENOMEM);
    }
}

static void ad_gpo_child_timeout(struct tevent_context *ev, struct tevent_timer *te,
                                 struct timeval now, void *pvt)
{
    struct tevent_req *req = talloc_get_type_abort(pvt, struct tevent_req);

    DEBUG(SSSDBG_OP_FAILURE, "gpo_child did not answer in time: killed\n");
    tevent_req_error(req, ETIMEDOUT);
}

static void ad_gpo_child_readable(struct tevent_context *ev, struct tevent_fd *fde,
                                  uint16_t flags, void *pvt)
{
    struct tevent_req *req = talloc_get_type_abort(pvt, struct tevent_req);
    struct ad_gpo_child_state *state = tevent_req_data(req, struct ad_gpo_child_state);
    ssize_t n;

    n = read(state->fd, state->buf + state->len, AD_GPO_INF_MAX + 1 - state->len);
    if (n < 0 && (errno == EAGAIN || errno == EINTR)) {
        return;
    }
    if (n > 0) {
        state->len += (size_t)n;
        if (state->len <= AD_GPO_INF_MAX) {
            return;
        }
        tevent_req_error(req, EFBIG);
        return;
    }
    if (n < 0) {
        tevent_req_error(req, errno);
        return;
    }
    /* EOF: the child is exiting; its status says whether the bytes are the file. */
    TALLOC_FREE(state->fde);
    ad_gpo_child_wait(ev, NULL, tevent_timeval_current(), req);
}

/* Polls for the child's exit status (the overall timer bounds it). */
static void ad_gpo_child_wait(struct tevent_context *ev, struct tevent_timer *te,
                              struct timeval now, void *pvt)
{
    struct tevent_req *req = talloc_get_type_abort(pvt, struct tevent_req);
    struct ad_gpo_child_state *state = tevent_req_data(req, struct ad_gpo_child_state);
    int status = 0;
    pid_t got;

    got = waitpid(state->pid, &status, WNOHANG);
    if (got == 0) {
        if (tevent_add_timer(ev, state, tevent_timeval_current_ofs(0, 2000),
                             ad_gpo_child_wait, req) == NULL) {
            tevent_req_error(req, ENOMEM);
        }
        return;
    }
    if (got != state->pid) {
        tevent_req_error(req, EIO);
        return;
    }
    state->pid = -1;
    if (!WIFEXITED(status)) {
        tevent_req_error(req, EIO);
        return;
    }
    switch (WEXITSTATUS(status)) {
    case 0:
        tevent_req_done(req);
        return;
    case 2:
        tevent_req_error(req, ENOENT);
        return;
    case 3:
        tevent_req_error(req, EFBIG);
        return;
    default:
        tevent_req_error(req, EIO);
        return;
    }
}

errno_t ad_gpo_child_recv(TALLOC_CTX *mem_ctx, struct tevent_req *req, uint8_t **_data,
                          size_t *_len)
{
    struct ad_gpo_child_state *state = tevent_req_data(req, struct ad_gpo_child_state);

    TEVENT_REQ_RETURN_ON_ERROR(req);
    *_data = talloc_steal(mem_ctx, state->buf);
    *_len = state->len;
    return EOK;
}
