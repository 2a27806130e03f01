/*
 * Building a confdb: confdb_load() reads sssd.conf from disk, confdb_parse_buffer() takes
 * one text from memory (tests, fuzzers); both parse, then validate the whole, the same way.
 * From disk: the main file, then the "*.conf" files of
 * <dir of main file>/conf.d in alphabetical order (names starting with '.' and names not
 * ending in ".conf" are skipped). Every file must be a regular file owned by root (or by
 * the effective uid, so that tests and unprivileged runs work) with mode exactly 0600 or
 * 0400, and at most 1 MiB. The checks are made on the open descriptor, so the file checked
 * is the file read.
 */
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "confdb/confdb_private.h"

#define CONFDB_SNIPPET_DIR "conf.d"
#define CONFDB_SNIPPET_SUFFIX ".conf"

/* Sets *_error ("path: text") on mem_ctx and returns ret. */
static errno_t files_error(TALLOC_CTX *mem_ctx, errno_t ret, char **_error,
                           const char *path, const char *text)
{
    char *shown = confdb_quote_str(mem_ctx, path);

    if (shown == NULL) {
        return ENOMEM;
    }
    *_error = talloc_asprintf(mem_ctx, "%s: %s", shown, text);
    talloc_free(shown);
    return *_error == NULL ? ENOMEM : ret;
}

static errno_t files_check_perms(TALLOC_CTX *mem_ctx, const char *path,
                                 const struct stat *st, char **_error)
{
    unsigned mode = (unsigned)(st->st_mode & 07777);
    uid_t euid = geteuid();
    char *text;
    errno_t ret;

    if ((st->st_uid == 0 || st->st_uid == euid) && (mode == 0600 || mode == 0400)) {
        return EOK;
    }
    if (euid == 0) {
        text = talloc_asprintf(mem_ctx, "refused: owner uid %u, mode %04o; the file must be "
                               "owned by root (uid 0) and have mode 0600 or 0400",
                               (unsigned)st->st_uid, mode);
    } else {
        text = talloc_asprintf(mem_ctx, "refused: owner uid %u, mode %04o; the file must be "
                               "owned by root (uid 0) or by uid %u (the user running this "
                               "program) and have mode 0600 or 0400",
                               (unsigned)st->st_uid, mode, (unsigned)euid);
    }
    if (text == NULL) {
        return ENOMEM;
    }
    ret = files_error(mem_ctx, ERR_CONFIG_PERMS, _error, path, text);
    talloc_free(text);
    return ret;
}

/*
 * Reads one configuration file after checking it. Errors: ERR_MISSING_CONF (main file
 * absent), ERR_CONFIG_PERMS, ERR_INVALID_CONFIG, ENOMEM, all with *_error; and, for a
 * snippet that is not a regular file, ENOTSUP without a message (the caller skips it).
 */
static errno_t files_read(TALLOC_CTX *mem_ctx, const char *path, bool snippet,
                          char **_data, size_t *_len, char **_error)
{
    char msg[256];
    struct stat st;
    char *data = NULL;
    size_t len = 0;
    ssize_t n;
    int fd;
    errno_t ret;

    fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
    if (fd < 0) {
        ret = errno;
        if (ret == ENOENT && !snippet) {
            snprintf(msg, sizeof(msg), "the configuration file does not exist (%s)",
                     strerror(ret));
            return files_error(mem_ctx, ERR_MISSING_CONF, _error, path, msg);
        }
        snprintf(msg, sizeof(msg), "cannot open the file: %s", strerror(ret));
        return files_error(mem_ctx, (ret == EACCES || ret == EPERM) ? ERR_CONFIG_PERMS :
                           ERR_INVALID_CONFIG, _error, path, msg);
    }
    if (fstat(fd, &st) != 0) {
        ret = errno;
        snprintf(msg, sizeof(msg), "cannot stat the file: %s", strerror(ret));
        ret = files_error(mem_ctx, ERR_INVALID_CONFIG, _error, path, msg);
        goto done;
    }
    if (!S_ISREG(st.st_mode)) {
        ret = snippet ? ENOTSUP :
              files_error(mem_ctx, ERR_INVALID_CONFIG, _error, path, "not a regular file");
        goto done;
    }
    ret = files_check_perms(mem_ctx, path, &st, _error);
    if (ret != EOK) {
        goto done;
    }
    if (st.st_size > CONFDB_MAX_FILE_SIZE) {
        snprintf(msg, sizeof(msg), "the file is larger than %d bytes", CONFDB_MAX_FILE_SIZE);
        ret = files_error(mem_ctx, ERR_INVALID_CONFIG, _error, path, msg);
        goto done;
    }

    /* One byte more than the limit tells a file that grew since fstat(). */
    data = talloc_array(mem_ctx, char, CONFDB_MAX_FILE_SIZE + 1);
    if (data == NULL) {
        ret = ENOMEM;
        goto done;
    }
    while (len < CONFDB_MAX_FILE_SIZE + 1) {
        n = read(fd, data + len, CONFDB_MAX_FILE_SIZE + 1 - len);
        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n < 0) {
            ret = errno;
            snprintf(msg, sizeof(msg), "cannot read the file: %s", strerror(ret));
            ret = files_error(mem_ctx, ERR_INVALID_CONFIG, _error, path, msg);
            goto done;
        }
        if (n == 0) {
            break;
        }
        len += (size_t)n;
    }
    if (len > CONFDB_MAX_FILE_SIZE) {
        snprintf(msg, sizeof(msg), "the file is larger than %d bytes", CONFDB_MAX_FILE_SIZE);
        ret = files_error(mem_ctx, ERR_INVALID_CONFIG, _error, path, msg);
        goto done;
    }

    *_data = data;
    *_len = len;
    data = NULL;
    ret = EOK;

done:
    talloc_free(data);
    close(fd);
    return ret;
}

/* "<dir of path>/conf.d" */
static char *files_snippet_dir(TALLOC_CTX *mem_ctx, const char *path)
{
    const char *slash = strrchr(path, '/');

    if (slash == NULL) {
        return talloc_strdup(mem_ctx, CONFDB_SNIPPET_DIR);
    }
    if (slash == path) {
        return talloc_strdup(mem_ctx, "/" CONFDB_SNIPPET_DIR);
    }
    return talloc_asprintf(mem_ctx, "%.*s/%s", (int)(slash - path), path, CONFDB_SNIPPET_DIR);
}

static bool files_is_snippet(const char *name)
{
    size_t len = strlen(name);
    size_t slen = strlen(CONFDB_SNIPPET_SUFFIX);

    return name[0] != '.' && len > slen &&
           strcmp(name + len - slen, CONFDB_SNIPPET_SUFFIX) == 0;
}

static int files_cmp(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Snippet paths in dir, sorted; an absent directory gives none. */
static errno_t files_list_snippets(TALLOC_CTX *mem_ctx, const char *dir,
                                   char ***_paths, size_t *_count, char **_error)
{
    TALLOC_CTX *tmp_ctx;
    struct dirent *de;
    char msg[256];
    char **names = NULL;
    size_t count = 0;
    size_t i;
    DIR *d;
    errno_t ret;

    tmp_ctx = talloc_new(NULL);
    if (tmp_ctx == NULL) {
        return ENOMEM;
    }
    d = opendir(dir);
    if (d == NULL) {
        ret = errno;
        if (ret == ENOENT || ret == ENOTDIR) {
            *_paths = NULL;
            *_count = 0;
            ret = EOK;
            goto done;
        }
        snprintf(msg, sizeof(msg), "cannot read the snippet directory: %s", strerror(ret));
        ret = files_error(mem_ctx, (ret == EACCES || ret == EPERM) ? ERR_CONFIG_PERMS :
                          ERR_INVALID_CONFIG, _error, dir, msg);
        goto done;
    }

    for (;;) {
        char **grown;

        errno = 0;
        de = readdir(d);
        if (de == NULL) {
            if (errno != 0) {
                ret = errno;
                snprintf(msg, sizeof(msg), "cannot read the snippet directory: %s",
                         strerror(ret));
                ret = files_error(mem_ctx, ERR_INVALID_CONFIG, _error, dir, msg);
                goto done;
            }
            break;
        }
        if (!files_is_snippet(de->d_name)) {
            continue;
        }
        grown = talloc_realloc(tmp_ctx, names, char *, count + 1);
        if (grown == NULL) {
            ret = ENOMEM;
            goto done;
        }
        names = grown;
        names[count] = talloc_strdup(names, de->d_name);
        if (names[count] == NULL) {
            ret = ENOMEM;
            goto done;
        }
        count++;
    }

    if (count > 0) {
        qsort(names, count, sizeof(char *), files_cmp);
        for (i = 0; i < count; i++) {
            names[i] = talloc_asprintf(names, "%s/%s", dir, names[i]);
            if (names[i] == NULL) {
                ret = ENOMEM;
                goto done;
            }
        }
    }
    *_paths = talloc_steal(mem_ctx, names);
    *_count = count;
    ret = EOK;

done:
    if (d != NULL) {
        closedir(d);
    }
    talloc_free(tmp_ctx);
    return ret;
}

/*
 * The common end of both entry points: validates the parsed configuration and hands cdb
 * (on tmp_ctx) over to mem_ctx, or sets *_error from err (or the error's text).
 */
static errno_t load_finish(TALLOC_CTX *mem_ctx, TALLOC_CTX *tmp_ctx, struct confdb *cdb,
                           errno_t ret, char *err, struct confdb **_cdb, char **_error)
{
    if (ret == EOK) {
        ret = confdb_check_config(cdb, tmp_ctx, &err);
    }
    if (ret == EOK) {
        *_cdb = talloc_steal(mem_ctx, cdb);
    } else if (_error != NULL) {
        *_error = talloc_strdup(mem_ctx, err != NULL ? err : sss_strerror(ret));
    }
    talloc_free(tmp_ctx);
    return ret;
}

errno_t confdb_parse_buffer(TALLOC_CTX *mem_ctx, const char *source_name,
                            const char *buf, size_t len,
                            struct confdb **_cdb, char **_error)
{
    TALLOC_CTX *tmp_ctx;
    struct confdb *cdb;
    char *err = NULL;
    errno_t ret;

    if (source_name == NULL || (buf == NULL && len > 0) || _cdb == NULL) {
        DEBUG(SSSDBG_CRIT_FAILURE, "Invalid argument: source %s, %zu bytes at %p\n",
              source_name != NULL ? source_name : "(null)", len, buf);
        return EINVAL;
    }
    tmp_ctx = talloc_new(NULL);
    if (tmp_ctx == NULL) {
        return ENOMEM;
    }
    cdb = confdb_new(tmp_ctx);
    ret = cdb == NULL ? ENOMEM : confdb_parse_source(cdb, tmp_ctx, source_name, buf, len, &err);
    return load_finish(mem_ctx, tmp_ctx, cdb, ret, err, _cdb, _error);
}

/* Reads the snippets of conf.d after the main file; a snippet that is not a regular file
 * is skipped with a warning. */
static errno_t load_snippets(struct confdb *cdb, TALLOC_CTX *tmp_ctx, const char *config_file,
                             char **_err)
{
    char **snippets = NULL;
    size_t num_snippets = 0;
    char *shown;
    char *data;
    char *dir;
    size_t len;
    size_t i;
    errno_t ret;

    dir = files_snippet_dir(tmp_ctx, config_file);
    if (dir == NULL) {
        return ENOMEM;
    }
    ret = files_list_snippets(tmp_ctx, dir, &snippets, &num_snippets, _err);
    if (ret != EOK) {
        return ret;
    }
    for (i = 0; i < num_snippets; i++) {
        ret = files_read(tmp_ctx, snippets[i], true, &data, &len, _err);
        if (ret == ENOTSUP) {
            shown = confdb_quote_str(tmp_ctx, snippets[i]);
            confdb_add_warning(cdb, "%s: not a regular file, skipped",
                               shown != NULL ? shown : "?");
            continue;
        }
        if (ret != EOK) {
            return ret;
        }
        ret = confdb_parse_source(cdb, tmp_ctx, snippets[i], data, len, _err);
        talloc_free(data);
        if (ret != EOK) {
            return ret;
        }
    }
    return EOK;
}

errno_t confdb_load(TALLOC_CTX *mem_ctx, const char *config_file,
                    struct confdb **_cdb, char **_error)
{
    TALLOC_CTX *tmp_ctx;
    struct confdb *cdb;
    char *data;
    size_t len;
    char *err = NULL;
    errno_t ret;

    if (config_file == NULL || config_file[0] == '\0' || _cdb == NULL) {
        DEBUG(SSSDBG_CRIT_FAILURE, "Invalid argument: config file %s\n",
              config_file != NULL ? config_file : "(null)");
        return EINVAL;
    }
    tmp_ctx = talloc_new(NULL);
    if (tmp_ctx == NULL) {
        return ENOMEM;
    }
    cdb = confdb_new(tmp_ctx);
    if (cdb == NULL) {
        ret = ENOMEM;
        goto done;
    }
    ret = files_read(tmp_ctx, config_file, false, &data, &len, &err);
    if (ret != EOK) {
        goto done;
    }
    ret = confdb_parse_source(cdb, tmp_ctx, config_file, data, len, &err);
    talloc_free(data);
    if (ret != EOK) {
        goto done;
    }
    ret = load_snippets(cdb, tmp_ctx, config_file, &err);

done:
    return load_finish(mem_ctx, tmp_ctx, cdb, ret, err, _cdb, _error);
}
