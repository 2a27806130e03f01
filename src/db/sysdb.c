/*
 * sysdb core: opening a domain's cache (connect, first-time setup of @INDEXLIST and the
 * version entry, checks on reopen). The ldb plumbing shared by the user and group code,
 * transactions included, is in sysdb_ldb.c.
 */
#include "config.h"

#include <assert.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include <ldb_module.h>     /* ldb_schema_attribute_add */

#include "db/sysdb_private.h"
#include "db/sysdb_rcache.h"
#include "db/sysdb_bigcache.h"

/* LMDB reserves this much address space (not disk, not RAM); the file grows as needed. */
#define SYSDB_MDB_MAP_SIZE "lmdb_env_size:8589934592"

static errno_t sysdb_make_base_dns(struct sysdb_ctx *sysdb);

static const char *sysdb_case_names[] = {
    [SYSDB_CASE_SENSITIVE] = "sensitive",
    [SYSDB_CASE_INSENSITIVE] = "insensitive",
    [SYSDB_CASE_PRESERVING] = "preserving",
};

/* ldb's own messages go to our log: warnings and errors as failures, the rest as traces. */
static void sysdb_ldb_debug(void *context, enum ldb_debug_level level,
                            const char *fmt, va_list ap)
    __attribute__((format(printf, 3, 0)));
static void sysdb_ldb_debug(void *context, enum ldb_debug_level level,
                            const char *fmt, va_list ap)
{
    int dlevel;
    char *line;

    (void)context;
    switch (level) {
    case LDB_DEBUG_FATAL:
        dlevel = SSSDBG_CRIT_FAILURE;
        break;
    case LDB_DEBUG_ERROR:
        dlevel = SSSDBG_OP_FAILURE;
        break;
    case LDB_DEBUG_WARNING:
        dlevel = SSSDBG_MINOR_FAILURE;
        break;
    default:
        dlevel = SSSDBG_TRACE_LIBS;
        break;
    }
    if (!debug_enabled(dlevel)) {
        return;
    }
    if (vasprintf(&line, fmt, ap) < 0) {
        return;
    }
    DEBUG(dlevel, "ldb: %s\n", line);
    free(line);
}

bool sysdb_domain_valid(const char *domain)
{
    size_t len = strlen(domain);
    size_t i;

    if (len == 0 || len > SYSDB_NAME_MAX) {
        return false;
    }
    for (i = 0; i < len; i++) {
        unsigned char c = (unsigned char)domain[i];
        if (c < 0x20 || c >= 0x7f || c == '/' || c == '@') {
            return false;
        }
    }
    return true;
}

/* @INDEXLIST, replacing one a cache of another version had: changing it makes ldb reindex
 * (and re-key, when an old cache was keyed by GUID) every record, so it is written while
 * the file holds no entry. */
static errno_t sysdb_setup_indexes(struct sysdb_ctx *sysdb)
{
    struct ldb_message *msg;
    int lret;
    errno_t ret;

    msg = sysdb_msg_new(NULL, sysdb, "@INDEXLIST");
    if (msg == NULL) {
        return ENOMEM;
    }
    lret = ldb_msg_add_string(msg, "@IDXATTR", SYSDB_A_UID_IDX);
    if (lret == LDB_SUCCESS) {
        lret = ldb_msg_add_string(msg, "@IDXATTR", SYSDB_A_GID_IDX);
    }
    if (lret == LDB_SUCCESS) {
        lret = ldb_msg_add_string(msg, "@IDXATTR", SYSDB_A_EMAIL_KEY);
    }
    if (lret == LDB_SUCCESS) {
        lret = ldb_msg_add_string(msg, "@IDXATTR", SYSDB_A_SID);
    }
    if (lret == LDB_SUCCESS && sysdb->backend == SYSDB_BACKEND_MDB) {
        /* ldb_mdb keys records by GUID (its full scans read only the GUID key range); the
         * DN -> GUID index is then built in. */
        lret = ldb_msg_add_string(msg, "@IDXGUID", SYSDB_A_GUID);
        if (lret == LDB_SUCCESS) {
            lret = ldb_msg_add_string(msg, "@IDX_DN_GUID", "GUID");
        }
    }
    if (lret != LDB_SUCCESS) {
        ret = ENOMEM;
        goto done;
    }
    lret = sysdb_ldb_delete(sysdb, msg->dn);
    if (lret != LDB_SUCCESS && lret != LDB_ERR_NO_SUCH_OBJECT) {
        ret = sysdb_ldb_error(sysdb, lret, "Deleting @INDEXLIST");
        goto done;
    }
    lret = sysdb_ldb_add(sysdb, msg);
    ret = sysdb_ldb_error(sysdb, lret, "Adding @INDEXLIST");

done:
    talloc_free(msg);
    return ret;
}

/* Deletes every entry (not ldb's @ records): what a cache of another format holds cannot be
 * read by this code, and a cache may always start empty. */
static errno_t sysdb_wipe(struct sysdb_ctx *sysdb)
{
    TALLOC_CTX *tmp_ctx;
    const char *attrs[] = { SYSDB_A_VERSION, NULL };
    struct ldb_result *res = NULL;
    unsigned int i;
    int lret;
    errno_t ret = EOK;

    tmp_ctx = talloc_new(NULL);
    if (tmp_ctx == NULL) {
        return ENOMEM;
    }
    sysdb_ldb_enter();
    lret = ldb_search(sysdb->ldb, tmp_ctx, &res, NULL, LDB_SCOPE_SUBTREE, attrs,
                      "(distinguishedName=*)");
    for (i = 0; lret == LDB_SUCCESS && i < res->count; i++) {
        lret = ldb_delete(sysdb->ldb, res->msgs[i]->dn);
    }
    sysdb_ldb_leave();
    if (lret != LDB_SUCCESS) {
        ret = sysdb_ldb_error(sysdb, lret, "Emptying the cache");
    } else {
        DEBUG(SSSDBG_TRACE_FUNC, "Deleted %u entries of %s\n", res->count, sysdb->path);
    }
    talloc_free(tmp_ctx);
    return ret;
}

/* The version entry: written last, so its presence means a complete setup. */
static errno_t sysdb_setup_base(struct sysdb_ctx *sysdb)
{
    const struct sysdb_str_attr base[] = {
        { SYSDB_A_VERSION, "version", SYSDB_VERSION },
        { SYSDB_A_DOMAIN, "domain", sysdb->domain },
        { SYSDB_A_CASE, "case mode", sysdb_case_names[sysdb->case_mode] },
    };
    struct ldb_message *msg;
    errno_t ret;

    msg = sysdb_msg_new(NULL, sysdb, SYSDB_BASE_DN);
    if (msg == NULL) {
        return ENOMEM;
    }
    ret = sysdb_msg_set_strs(msg, base, SSS_ARRAY_SIZE(base));
    if (ret != EOK) {
        goto done;
    }
    ret = sysdb_write_entry(sysdb, msg, SYSDB_EXISTS_NO);

done:
    talloc_free(msg);
    return ret;
}

/* The formats this one upgrades in place rather than emptying: 2 lacked the index of
 * users' e-mail addresses (mailk), 3 the index of SIDs (objectSIDString). Entries are
 * kept, cached credentials with them; an entry stored before has no address or SID until
 * its next refresh stores one. */
static bool sysdb_version_upgradable(const char *version)
{
    return strcmp(version, "2") == 0 || strcmp(version, "3") == 0;
}

static errno_t sysdb_upgrade_prev(struct sysdb_ctx *sysdb, struct ldb_dn *base,
                                  const char *version)
{
    struct ldb_message *msg;
    int lret;
    errno_t ret;

    msg = sysdb_msg_new(NULL, sysdb, "@INDEXLIST");
    if (msg == NULL) {
        return ENOMEM;
    }
    /* Adding a value to @INDEXLIST makes ldb index the new attribute over every record. */
    lret = ldb_msg_add_empty(msg, "@IDXATTR", LDB_FLAG_MOD_ADD, NULL);
    if (lret == LDB_SUCCESS && strcmp(version, "2") == 0) {
        lret = ldb_msg_add_string(msg, "@IDXATTR", SYSDB_A_EMAIL_KEY);
    }
    if (lret == LDB_SUCCESS) {
        lret = ldb_msg_add_string(msg, "@IDXATTR", SYSDB_A_SID);
    }
    if (lret != LDB_SUCCESS) {
        ret = ENOMEM;
        goto done;
    }
    sysdb_ldb_enter();
    lret = ldb_modify(sysdb->ldb, msg);
    sysdb_ldb_leave();
    ret = sysdb_ldb_error(sysdb, lret, "Adding the indexes of the new format");
    if (ret != EOK) {
        goto done;
    }
    talloc_free(msg);
    msg = ldb_msg_new(NULL);
    if (msg == NULL) {
        return ENOMEM;
    }
    msg->dn = base;
    ret = sysdb_msg_set_str(msg, SYSDB_A_VERSION, SYSDB_VERSION);
    if (ret == EOK) {
        ret = sysdb_write_entry(sysdb, msg, SYSDB_EXISTS_YES);
    }
    if (ret == EOK) {
        DEBUG(SSSDBG_TRACE_FUNC, "%s upgraded from format version %s to " SYSDB_VERSION
              "\n", sysdb->path, version);
    }
done:
    talloc_free(msg);
    return ret;
}

/*
 * Inside the first setup transaction: unless the version was set up by another process
 * meanwhile (*_current), or the file is of a previous version (upgraded in place, then
 * *_current too), empties the file (logged when it held another version) and writes
 * the indexes. The version is read under the write lock, so that two processes opening an
 * old cache at once rebuild it once.
 */
static errno_t sysdb_setup_rebuild(struct sysdb_ctx *sysdb, struct ldb_dn *base,
                                   bool wipe, bool *_current)
{
    TALLOC_CTX *tmp_ctx;
    struct ldb_message *msg;
    const char *version;
    errno_t ret;

    tmp_ctx = talloc_new(NULL);
    if (tmp_ctx == NULL) {
        return ENOMEM;
    }
    ret = sysdb_read_entry(tmp_ctx, sysdb, base, NULL, &msg);
    if (ret == EOK) {
        version = sysdb_msg_str(msg, SYSDB_A_VERSION);
        if (version != NULL && strcmp(version, SYSDB_VERSION) == 0) {
            *_current = true;
            goto done;
        }
        if (version != NULL && sysdb_version_upgradable(version) && !wipe) {
            ret = sysdb_upgrade_prev(sysdb, base, version);
            *_current = ret == EOK;
            /* EIO: ldb refused the reindex, the whole transaction with it. Entries a
             * unique index forbids (two holding one uid or gid, written by something
             * else) cannot be kept: the caller empties the file in a new transaction. */
            ret = ret == EIO ? EUCLEAN : ret;
            goto done;
        }
        DEBUG(SSSDBG_CRIT_FAILURE, "%s holds a cache of format version %s, this is version "
              SYSDB_VERSION ": emptying it; entries will be fetched again\n",
              sysdb->path, version != NULL ? version : "(none)");
    } else if (ret != ENOENT) {
        goto done;
    }
    /* An interrupted old setup may have left entries without a version entry, too. */
    ret = sysdb_wipe(sysdb);
    if (ret != EOK) {
        goto done;
    }
    ret = sysdb_setup_indexes(sysdb);

done:
    talloc_free(tmp_ctx);
    return ret;
}

/*
 * Sets up a new file, or one whose format version is not SYSDB_VERSION, which is emptied
 * first: entries and indexes in one transaction, then the version entry, whose presence
 * means a complete setup.
 */
static errno_t sysdb_setup_new(struct sysdb_ctx *sysdb, struct ldb_dn *base)
{
    bool current = false;
    errno_t ret;

    ret = sysdb_transaction_start(sysdb);
    if (ret != EOK) {
        return ret;
    }
    ret = sysdb_setup_rebuild(sysdb, base, false, &current);
    ret = sysdb_transaction_end(sysdb, ret);
    if (ret == EUCLEAN) {
        ret = sysdb_transaction_start(sysdb);
        if (ret != EOK) {
            return ret;
        }
        ret = sysdb_setup_rebuild(sysdb, base, true, &current);
        ret = sysdb_transaction_end(sysdb, ret);
    }
    if (ret != EOK || current) {
        return ret;
    }
    /* The version entry in a transaction of its own: ldb picks its record format from
     * @INDEXLIST at a transaction's start (else it repacks the records at the commit). An
     * open interrupted before this commit finds no version and sets up again. */
    ret = sysdb_transaction_start(sysdb);
    if (ret != EOK) {
        return ret;
    }
    ret = sysdb_setup_base(sysdb);
    if (ret == EEXIST) {
        ret = EOK;   /* another process finished first; the caller reads it back */
    }
    return sysdb_transaction_end(sysdb, ret);
}

/* Sets up a new file, rebuilds one of another version, or checks that an existing one is
 * ours. */
static errno_t sysdb_setup(struct sysdb_ctx *sysdb)
{
    TALLOC_CTX *tmp_ctx;
    struct ldb_message *msg;
    struct ldb_dn *dn;
    const char *value;
    errno_t ret;

    tmp_ctx = talloc_new(NULL);
    if (tmp_ctx == NULL) {
        return ENOMEM;
    }
    dn = ldb_dn_new(tmp_ctx, sysdb->ldb, SYSDB_BASE_DN);
    if (dn == NULL) {
        ret = ENOMEM;
        goto done;
    }

    ret = sysdb_read_entry(tmp_ctx, sysdb, dn, NULL, &msg);
    if (ret == EOK) {
        value = sysdb_msg_str(msg, SYSDB_A_VERSION);
        if (value == NULL || strcmp(value, SYSDB_VERSION) != 0) {
            ret = ENOENT;
        }
    }
    if (ret == ENOENT) {
        /* Read-only checks first: the usual open takes no write lock. */
        ret = sysdb_setup_new(sysdb, dn);
        if (ret != EOK) {
            goto done;
        }
        ret = sysdb_read_entry(tmp_ctx, sysdb, dn, NULL, &msg);
    }
    if (ret != EOK) {
        goto done;
    }

    value = sysdb_msg_str(msg, SYSDB_A_DOMAIN);
    if (value == NULL || strcmp(value, sysdb->domain) != 0) {
        DEBUG(SSSDBG_CRIT_FAILURE, "%s is the cache of domain %s, not %s\n",
              sysdb->path, value ? value : "(none)", sysdb->domain);
        ret = ERR_INTERNAL;
        goto done;
    }
    value = sysdb_msg_str(msg, SYSDB_A_CASE);
    if (value == NULL || strcmp(value, sysdb_case_names[sysdb->case_mode]) != 0) {
        DEBUG(SSSDBG_CRIT_FAILURE, "%s was written with case_sensitive mode %s, now %s; "
              "remove the cache file to change it\n", sysdb->path,
              value ? value : "(none)", sysdb_case_names[sysdb->case_mode]);
        ret = EINVAL;
        goto done;
    }
    ret = EOK;

done:
    talloc_free(tmp_ctx);
    return ret;
}

/* ldb_mdb ignores ldb's create mode: make the files 0600 before it opens them. */
static errno_t sysdb_precreate(const char *path)
{
    int fd;

    fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
    if (fd < 0) {
        errno_t ret = errno;
        DEBUG(SSSDBG_CRIT_FAILURE, "Cannot create %s: %s\n", path, sss_strerror(ret));
        return EIO;
    }
    close(fd);
    return EOK;
}

/*
 * The default back-end: mdb, except for an existing tdb cache (kept, so that an old cache
 * still opens). Measured (tests/perf/bench_sysdb.c, BENCH_SYSDB_USERS=100000): a tdb commit
 * remaps the whole file and walks its freelist, so a one-user save costs 190 us at 10,000
 * cached users and 490 us at 100,000 (and 720 us for a small group); mdb stays at ~60 us at
 * both sizes, and its lookups are as fast or faster (12 us vs 17 us by name at 100,000).
 * mdb adds GUID keys and a DN->GUID index record per entry; with format 2 a user takes
 * ~0.93 KB on disk at 100,000 users (1.4 KB with format 1). tdb saves 5,000 groups in one
 * transaction a little faster.
 */
static enum sysdb_backend sysdb_default_backend(const char *db_dir, const char *domain)
{
    static const char tdb_magic[] = "TDB file";
    char head[sizeof(tdb_magic) - 1];
    char *path;
    ssize_t n = -1;
    int fd;

    path = talloc_asprintf(NULL, "%s/cache_%s.ldb", db_dir, domain);
    if (path == NULL) {
        return SYSDB_BACKEND_MDB;   /* the open fails on the same allocation anyway */
    }
    fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    talloc_free(path);
    if (fd >= 0) {
        n = read(fd, head, sizeof(head));
        close(fd);
    }
    if (n == (ssize_t)sizeof(head) && memcmp(head, tdb_magic, sizeof(head)) == 0) {
        return SYSDB_BACKEND_TDB;
    }
    return SYSDB_BACKEND_MDB;
}

static int sysdb_ctx_destructor(struct sysdb_ctx *sysdb)
{
    /* ldb goes first: it may still use nothing of ours, but the locale is not talloc'd. */
    talloc_zfree(sysdb->ldb);
    if (sysdb->fold_locale != (locale_t)0) {
        freelocale(sysdb->fold_locale);
        sysdb->fold_locale = (locale_t)0;
    }
    return 0;
}

errno_t sysdb_open_ext(TALLOC_CTX *mem_ctx, const char *db_dir, const char *domain,
                       enum sysdb_case case_mode, enum sysdb_backend backend,
                       struct sysdb_ctx **_sysdb)
{
    struct sysdb_ctx *sysdb = NULL;
    const char *options[] = { NULL, NULL };
    char *url;
    size_t i;
    int lret;
    errno_t ret;

    SSS_CHECK_ARG(db_dir != NULL, EINVAL);
    SSS_CHECK_ARG(domain != NULL, EINVAL);
    SSS_CHECK_ARG(_sysdb != NULL, EINVAL);
    SSS_CHECK_ARG(sysdb_domain_valid(domain), EINVAL);
    SSS_CHECK_ARG((unsigned int)case_mode <= SYSDB_CASE_PRESERVING, EINVAL);
    SSS_CHECK_ARG((unsigned int)backend <= SYSDB_BACKEND_MDB, EINVAL);
    if (backend == SYSDB_BACKEND_DEFAULT) {
        backend = sysdb_default_backend(db_dir, domain);
    }

    sysdb = talloc_zero(mem_ctx, struct sysdb_ctx);
    if (sysdb == NULL) {
        return ENOMEM;
    }
    talloc_set_destructor(sysdb, sysdb_ctx_destructor);
    sysdb->case_mode = case_mode;
    sysdb->backend = backend;
    sysdb->domain = talloc_strdup(sysdb, domain);
    sysdb->domain_lc = talloc_strdup(sysdb, domain);
    sysdb->path = talloc_asprintf(sysdb, "%s/cache_%s.ldb", db_dir, domain);
    if (sysdb->domain == NULL || sysdb->domain_lc == NULL || sysdb->path == NULL) {
        ret = ENOMEM;
        goto done;
    }
    sysdb->domain_len = strlen(domain);
    for (i = 0; i < sysdb->domain_len; i++) {
        if (sysdb->domain_lc[i] >= 'A' && sysdb->domain_lc[i] <= 'Z') {
            sysdb->domain_lc[i] += 'a' - 'A';
        }
    }
    sysdb->fold_locale = newlocale(LC_CTYPE_MASK, "C.UTF-8", (locale_t)0);
    if (sysdb->fold_locale == (locale_t)0) {
        DEBUG(SSSDBG_MINOR_FAILURE, "No C.UTF-8 locale: names fold in ASCII only\n");
    }
    if (getrandom(sysdb->guid_prefix, sizeof(sysdb->guid_prefix), 0)
            != (ssize_t)sizeof(sysdb->guid_prefix)) {
        uint64_t seed = sss_monotonic_usec() ^ ((uint64_t)getpid() << 32);
        memcpy(sysdb->guid_prefix, &seed, sizeof(sysdb->guid_prefix));
    }

    /* ldb runs each request as a nested event loop turn. Given no event context, it makes a
     * new one (an epoll fd) per request; a private poll context, which never polls here
     * (requests only post zero timers), keeps a lookup at a few microseconds and never
     * runs the caller's main loop re-entrantly. */
    sysdb->ev = tevent_context_init_byname(sysdb, "poll");
    if (sysdb->ev == NULL) {
        ret = ENOMEM;
        goto done;
    }
    sysdb->ldb = sysdb_ldb_new(sysdb, sysdb->ev);
    if (sysdb->ldb == NULL) {
        ret = ENOMEM;
        goto done;
    }
    lret = ldb_set_debug(sysdb->ldb, sysdb_ldb_debug, NULL);
    if (lret != LDB_SUCCESS) {
        ret = EIO;
        goto done;
    }
    ldb_set_create_perms(sysdb->ldb, 0600);

    if (backend == SYSDB_BACKEND_MDB) {
        url = talloc_asprintf(sysdb, "%s-lock", sysdb->path);
        if (url == NULL) {
            ret = ENOMEM;
            goto done;
        }
        ret = sysdb_precreate(sysdb->path);
        if (ret != EOK) {
            goto done;
        }
        ret = sysdb_precreate(url);
        talloc_free(url);
        if (ret != EOK) {
            goto done;
        }
        url = talloc_asprintf(sysdb, "mdb://%s", sysdb->path);
        options[0] = SYSDB_MDB_MAP_SIZE;
    } else {
        url = talloc_asprintf(sysdb, "tdb://%s", sysdb->path);
    }
    if (url == NULL) {
        ret = ENOMEM;
        goto done;
    }
    /* No two users hold one uid and no two groups one gid (a store deletes the other
     * holder): the indexes enforcing it let a store skip the search for one
     * (sysdb_write_unique). Registered at each open, not written: a cache of an older
     * version opens as it is. The syntax is ldb's default one, which the index keys were
     * made with. */
    lret = ldb_schema_attribute_add(sysdb->ldb, SYSDB_A_UID_IDX,
                                    LDB_ATTR_FLAG_FIXED | LDB_ATTR_FLAG_UNIQUE_INDEX,
                                    LDB_SYNTAX_OCTET_STRING);
    if (lret == LDB_SUCCESS) {
        lret = ldb_schema_attribute_add(sysdb->ldb, SYSDB_A_GID_IDX,
                                        LDB_ATTR_FLAG_FIXED | LDB_ATTR_FLAG_UNIQUE_INDEX,
                                        LDB_SYNTAX_OCTET_STRING);
    }
    if (lret != LDB_SUCCESS) {
        ret = ENOMEM;
        goto done;
    }
    /* A cache: losing the last writes on a power cut is fine (the back-end refetches),
     * and the commit of a big save must not wait for the disk. */
    lret = ldb_connect(sysdb->ldb, url, LDB_FLG_NOSYNC, options);
    talloc_free(url);
    if (lret != LDB_SUCCESS) {
        DEBUG(SSSDBG_CRIT_FAILURE, "Cannot open %s: %s\n", sysdb->path,
              ldb_errstring(sysdb->ldb));
        ret = EIO;
        goto done;
    }

    ret = sysdb_make_base_dns(sysdb);
    if (ret != EOK) {
        goto done;
    }
    ret = sysdb_setup(sysdb);
    if (ret != EOK) {
        goto done;
    }
    /* After the setup: the file now has its meta pages. */
    sysdb_rcache_init(sysdb);
    if (sysdb->rcache != NULL) {
        /* Same validity rule as the read cache: only where that one works. */
        sysdb->bigcache = sysdb_bigcache_new(sysdb);
    }

    *_sysdb = sysdb;
    sysdb = NULL;
    ret = EOK;

done:
    talloc_free(sysdb);
    return ret;
}

void sysdb_preload(void)
{
    /* The modules stay loaded for the process (libldb keeps a global list). */
    talloc_free(sysdb_ldb_new(NULL, NULL));
}

errno_t sysdb_open(TALLOC_CTX *mem_ctx, const char *db_dir, const char *domain,
                   enum sysdb_case case_mode, struct sysdb_ctx **_sysdb)
{
    return sysdb_open_ext(mem_ctx, db_dir, domain, case_mode, SYSDB_BACKEND_DEFAULT, _sysdb);
}

const char *sysdb_path(struct sysdb_ctx *sysdb)
{
    return sysdb == NULL ? NULL : sysdb->path;
}

const char *sysdb_domain(struct sysdb_ctx *sysdb)
{
    return sysdb == NULL ? NULL : sysdb->domain;
}

enum sysdb_case sysdb_case_mode(struct sysdb_ctx *sysdb)
{
    assert(sysdb != NULL);
    return sysdb->case_mode;
}

/* The containers' DNs, made once. */
static errno_t sysdb_make_base_dns(struct sysdb_ctx *sysdb)
{
    int kind;

    for (kind = 0; kind < SYSDB_NUM_KINDS; kind++) {
        sysdb->base_dn[kind] = ldb_dn_new_fmt(sysdb, sysdb->ldb, "cn=%s",
                                              sysdb_kinds[kind].container);
        if (sysdb->base_dn[kind] == NULL) {
            return ENOMEM;
        }
    }
    return EOK;
}
