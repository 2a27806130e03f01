/*
 * Is a domain's cache file safe to open? LMDB maps the file and trusts it: a truncated file
 * kills the reader with SIGBUS on the first page past the end, scribbled pages may send it
 * anywhere. So before any service opens the caches, the monitor has each one read whole by
 * a child process (the meta pages against the file size, then every record through ldb).
 * A child that crashes, fails or finds the file short condemns the file: it is renamed
 * <file>.corrupt (the last one kept for the administrator) and the domain starts with an
 * empty cache, refilled from the directory. A check that runs out of time trusts the file
 * (a slow disk is no corruption) and says so.
 */
#include "config.h"

#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "db/sysdb_private.h"

/* LMDB meta page fields (see sysdb_rcache.c for the layout). */
#define CHECK_META_OFS 16
#define CHECK_MAGIC 0xBEEFC0DEU
#define CHECK_PSIZE_OFS (CHECK_META_OFS + 24)
#define CHECK_LAST_PG_OFS (CHECK_META_OFS + 120)
#define CHECK_TXNID_OFS (CHECK_META_OFS + 128)
#define CHECK_MIN_PSIZE 4096u

/* The pages the newer meta page says are in use fit in the file: false when it is short or
 * the meta pages are garbage. Reads with pread: nothing is mapped yet. */
static bool check_mdb_size(int fd, off_t size)
{
    uint8_t meta[2][CHECK_TXNID_OFS + 8];
    uint64_t txnid[2] = { 0, 0 };
    uint64_t last_pg[2] = { 0, 0 };
    uint32_t magic;
    uint32_t psize = 0;
    int newest = -1;
    int i;

    if (pread(fd, meta[0], sizeof(meta[0]), 0) != (ssize_t)sizeof(meta[0])) {
        return false;
    }
    memcpy(&psize, meta[0] + CHECK_PSIZE_OFS, sizeof(psize));
    if (psize < CHECK_MIN_PSIZE || (psize & (psize - 1)) != 0 || size < 2 * (off_t)psize
            || pread(fd, meta[1], sizeof(meta[1]), psize) != (ssize_t)sizeof(meta[1])) {
        return false;
    }
    for (i = 0; i < 2; i++) {
        memcpy(&magic, meta[i] + CHECK_META_OFS, sizeof(magic));
        memcpy(&txnid[i], meta[i] + CHECK_TXNID_OFS, sizeof(txnid[i]));
        memcpy(&last_pg[i], meta[i] + CHECK_LAST_PG_OFS, sizeof(last_pg[i]));
        if (magic == CHECK_MAGIC && (newest < 0 || txnid[i] > txnid[newest])) {
            newest = i;
        }
    }
    if (newest < 0 || last_pg[newest] > (uint64_t)size / psize) {
        return false;
    }
    return (off_t)((last_pg[newest] + 1) * psize) <= size;
}

/* ldb's complaints about the file: the parent's one log line says it all. */
static void check_quiet(void *context, enum ldb_debug_level level, const char *fmt, va_list ap)
{
    (void)context; (void)level; (void)fmt; (void)ap;
}

/* The child: exit 0 when every record reads back, 1 otherwise; a crash says the same. */
static void check_child(const char *path)
{
    struct ldb_result *res = NULL;
    struct ldb_context *ldb;
    char head[8] = { 0 };
    struct stat st;
    char *url;
    int fd;
    bool is_mdb;

    fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0 || fstat(fd, &st) != 0) {
        _exit(1);
    }
    is_mdb = pread(fd, head, sizeof(head), 0) != (ssize_t)sizeof(head)
             || memcmp(head, "TDB file", sizeof(head)) != 0;
    if (is_mdb && !check_mdb_size(fd, st.st_size)) {
        _exit(1);
    }
    close(fd);
    ldb = sysdb_ldb_new(NULL, NULL);
    url = talloc_asprintf(ldb, "%s://%s", is_mdb ? "mdb" : "tdb", path);
    if (ldb == NULL || url == NULL || ldb_set_debug(ldb, check_quiet, NULL) != LDB_SUCCESS
            || ldb_connect(ldb, url, LDB_FLG_RDONLY, NULL) != LDB_SUCCESS
            || ldb_search(ldb, ldb, &res, NULL, LDB_SCOPE_SUBTREE, NULL, NULL) != LDB_SUCCESS
            || res->count == 0) {
        _exit(1);
    }
    _exit(0);
}

/* Waits for the child up to timeout_ms: its status, or -1 when it had to be killed. */
static int check_wait(pid_t pid, int timeout_ms)
{
    struct timespec tick = { 0, 5 * 1000 * 1000 };
    int status = 0;
    int waited;

    for (waited = 0; waited < timeout_ms; waited += 5) {
        if (waitpid(pid, &status, WNOHANG) == pid) {
            return status;
        }
        nanosleep(&tick, NULL);
    }
    kill(pid, SIGKILL);
    waitpid(pid, &status, 0);
    return -1;
}

errno_t sysdb_check_cache(const char *db_dir, const char *domain, int timeout_ms,
                          bool *_set_aside)
{
    TALLOC_CTX *tmp_ctx;
    struct stat st;
    char *path;
    char *aside;
    char *lock;
    pid_t pid;
    int status;
    errno_t ret;

    SSS_CHECK_ARG(db_dir != NULL && domain != NULL && _set_aside != NULL, EINVAL);
    SSS_CHECK_ARG(sysdb_domain_valid(domain), EINVAL);
    *_set_aside = false;
    tmp_ctx = talloc_new(NULL);
    path = talloc_asprintf(tmp_ctx, "%s/cache_%s.ldb", db_dir, domain);
    aside = talloc_asprintf(tmp_ctx, "%s.corrupt", path ? path : "");
    lock = talloc_asprintf(tmp_ctx, "%s-lock", path ? path : "");
    if (path == NULL || aside == NULL || lock == NULL) {
        ret = ENOMEM;
        goto done;
    }
    if (lstat(path, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size == 0) {
        ret = EOK;          /* nothing cached yet (an empty file is what precreate makes) */
        goto done;
    }
    pid = fork();
    if (pid < 0) {
        ret = errno;
        goto done;
    }
    if (pid == 0) {
        check_child(path);
    }
    status = check_wait(pid, timeout_ms);
    if (status == -1) {
        DEBUG(SSSDBG_MINOR_FAILURE, "The check of %s took over %d ms: the file is trusted "
              "unchecked\n", path, timeout_ms);
        ret = EOK;
        goto done;
    }
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
        ret = EOK;
        goto done;
    }
    if (rename(path, aside) != 0) {
        ret = errno;
        DEBUG(SSSDBG_FATAL_FAILURE, "The cache %s is unreadable and cannot be set aside: "
              "%s\n", path, strerror(ret));
        goto done;
    }
    (void)unlink(lock);
    *_set_aside = true;
    DEBUG(SSSDBG_FATAL_FAILURE, "The cache of domain %s (%s) is damaged (%s %d): set aside "
          "as %s; the domain starts with an empty cache\n", domain, path,
          WIFSIGNALED(status) ? "the reader died of signal" : "the reader failed, status",
          WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status), aside);
    ret = EOK;

done:
    talloc_free(tmp_ctx);
    return ret;
}
