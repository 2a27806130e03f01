/*
 * The local account files (resp_local.h): each file's names and ids in two tables of the
 * project's hash table, rebuilt whenever the file changed. A check costs a clock read and,
 * once a second at most, a stat().
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "responder/common/resp_local.h"
#include "util/sss_hash.h"

struct resp_local_file {
    const char *path;
    uint64_t next_check_ms;
    bool seen;                  /* read at least once (or found missing) */
    dev_t dev;
    ino_t ino;
    off_t size;
    struct timespec mtime;
    TALLOC_CTX *data;           /* the tables and names of the last read */
    struct sss_hash_table *names;
    struct sss_hash_table *ids;
};

struct resp_local {
    struct resp_local_file passwd;
    struct resp_local_file group;
};

static bool local_name_equal(const void *item, const void *key, void *ctx)
{
    return strcmp(item, key) == 0;
}

/* Ids are stored as id + 1 cast to a pointer: an item is never NULL. */
static bool local_id_equal(const void *item, const void *key, void *ctx)
{
    return (uintptr_t)item - 1 == *(const uint32_t *)key;
}

static uint64_t local_now_ms(void)
{
    return sss_monotonic_usec() / 1000;
}

/* One line into the tables. Lines the files source ignores are ignored here. */
static errno_t local_add_line(struct resp_local_file *f, char *line)
{
    char *name_end;
    char *id_field;
    char *end;
    char *name;
    unsigned long long id;
    uint32_t id32;
    errno_t ret;

    if (line[0] == '\0' || line[0] == '#' || line[0] == '+' || line[0] == '-') {
        return EOK;
    }
    name_end = strchr(line, ':');
    if (name_end == NULL || name_end == line) {
        return EOK;
    }
    *name_end = '\0';
    name = talloc_strdup(f->data, line);
    if (name == NULL) {
        return ENOMEM;
    }
    ret = sss_hash_table_insert(f->names, sss_hash_str(name), name, name, NULL);
    if (ret != EOK && ret != EEXIST) {
        return ret;
    }
    /* name:password:id:... */
    id_field = strchr(name_end + 1, ':');
    if (id_field == NULL) {
        return EOK;
    }
    id_field++;
    errno = 0;
    id = strtoull(id_field, &end, 10);
    if (errno != 0 || end == id_field || (*end != ':' && *end != '\0') || id > UINT32_MAX
            || id_field[0] == '-' || id_field[0] == '+') {
        return EOK;
    }
    id32 = (uint32_t)id;
    ret = sss_hash_table_insert(f->ids, sss_hash_u32(id32), &id32,
                                (void *)((uintptr_t)id32 + 1), NULL);
    return (ret == EEXIST) ? EOK : ret;
}

/* Reads the file into fresh tables; a file that cannot be read gives empty ones. */
static errno_t local_read(struct resp_local *l, struct resp_local_file *f)
{
    TALLOC_CTX *data;
    char *line = NULL;
    size_t cap = 0;
    ssize_t n;
    FILE *fp;
    errno_t ret = EOK;

    data = talloc_new(l);
    if (data == NULL) {
        return ENOMEM;
    }
    talloc_free(f->data);
    f->data = data;
    f->names = sss_hash_table_new(data, 0, local_name_equal, NULL);
    f->ids = sss_hash_table_new(data, 0, local_id_equal, NULL);
    if (f->names == NULL || f->ids == NULL) {
        return ENOMEM;
    }
    fp = fopen(f->path, "re");
    if (fp == NULL) {
        DEBUG(SSSDBG_MINOR_FAILURE, "Cannot read %s: %s; no local accounts from it\n",
              f->path, strerror(errno));
        return EOK;
    }
    while ((n = getline(&line, &cap, fp)) != -1) {
        if (n > 0 && line[n - 1] == '\n') {
            line[n - 1] = '\0';
        }
        ret = local_add_line(f, line);
        if (ret != EOK) {
            break;
        }
    }
    free(line);
    fclose(fp);
    DEBUG(SSSDBG_TRACE_FUNC, "%s: %zu local names, %zu ids\n", f->path,
          sss_hash_table_count(f->names), sss_hash_table_count(f->ids));
    return ret;
}

/* The file's tables, read again when the file changed since the last check. */
static void local_refresh(struct resp_local *l, struct resp_local_file *f)
{
    uint64_t now = local_now_ms();
    struct stat st;
    bool same;
    errno_t ret;

    if (f->seen && now < f->next_check_ms) {
        return;
    }
    f->next_check_ms = now + RESP_LOCAL_CHECK_MS;
    if (stat(f->path, &st) != 0) {
        memset(&st, 0, sizeof(st));     /* missing: compares as a change once */
    }
    same = f->seen && st.st_dev == f->dev && st.st_ino == f->ino && st.st_size == f->size
           && st.st_mtim.tv_sec == f->mtime.tv_sec && st.st_mtim.tv_nsec == f->mtime.tv_nsec;
    if (same) {
        return;
    }
    f->seen = true;
    f->dev = st.st_dev;
    f->ino = st.st_ino;
    f->size = st.st_size;
    f->mtime = st.st_mtim;
    ret = local_read(l, f);
    if (ret != EOK) {
        DEBUG(SSSDBG_OP_FAILURE, "Cannot load %s: %s\n", f->path, sss_strerror(ret));
        talloc_zfree(f->data);
        f->names = NULL;
        f->ids = NULL;
        f->seen = false;        /* tried again at the next check */
    }
}

struct resp_local *resp_local_new(TALLOC_CTX *mem_ctx, const char *passwd_path,
                                  const char *group_path)
{
    struct resp_local *l = talloc_zero(mem_ctx, struct resp_local);

    if (l == NULL) {
        return NULL;
    }
    l->passwd.path = talloc_strdup(l, passwd_path != NULL ? passwd_path : "/etc/passwd");
    l->group.path = talloc_strdup(l, group_path != NULL ? group_path : "/etc/group");
    if (l->passwd.path == NULL || l->group.path == NULL) {
        talloc_free(l);
        return NULL;
    }
    return l;
}

static bool local_has_name(struct resp_local *l, struct resp_local_file *f, const char *name)
{
    if (l == NULL || name == NULL) {
        return false;
    }
    local_refresh(l, f);
    return f->names != NULL && sss_hash_table_get(f->names, sss_hash_str(name), name) != NULL;
}

static bool local_has_id(struct resp_local *l, struct resp_local_file *f, uint32_t id)
{
    if (l == NULL) {
        return false;
    }
    local_refresh(l, f);
    return f->ids != NULL && sss_hash_table_get(f->ids, sss_hash_u32(id), &id) != NULL;
}

bool resp_local_has_user(struct resp_local *l, const char *name)
{
    return local_has_name(l, l != NULL ? &l->passwd : NULL, name);
}

bool resp_local_has_uid(struct resp_local *l, uint32_t uid)
{
    return local_has_id(l, l != NULL ? &l->passwd : NULL, uid);
}

bool resp_local_has_group(struct resp_local *l, const char *name)
{
    return local_has_name(l, l != NULL ? &l->group : NULL, name);
}

bool resp_local_has_gid(struct resp_local *l, uint32_t gid)
{
    return local_has_id(l, l != NULL ? &l->group : NULL, gid);
}
