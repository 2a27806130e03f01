/*
 * libFuzzer harness for the responder's check of the entry a back-end's getAccountInfo
 * reply carries (sysdb_reply_put, src/db/sysdb_reply.c), against a real sysdb (LMDB in a
 * temporary directory, its read cache on). Input: one byte choosing the kind (user or group
 * by name or id, initgroups), four bytes of id (little-endian; by-id kinds), then the
 * carried bytes. Whatever the check accepts is read back through the normal lookup, which
 * relocates it in place (sysdb_unflat_user/_group) -- ASan catches any read outside it --
 * and is then checked to be the entry asked for: its name key (by name) or its id (by id).
 * Built by tests/fuzz/run.sh; seeds by tests/fuzz/make_sysdb_reply_seeds.py.
 */
#include <stdint.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "util/util.h"
#include "db/sysdb.h"
#include "db/sysdb_rcache.h"
#include "db/sysdb_reply.h"

#define FUZZ_DOM "fuzz.dom"
#define FUZZ_NAME "alice"

static struct sysdb_ctx *fuzz_sysdb;
static char fuzz_dir[] = "/tmp/fuzz_sysdb_reply.XXXXXX";

static void fuzz_cleanup(void)
{
    char path[sizeof(fuzz_dir) + 64];

    talloc_free(fuzz_sysdb);
    fuzz_sysdb = NULL;
    snprintf(path, sizeof(path), "%s/cache_%s.ldb", fuzz_dir, FUZZ_DOM);
    unlink(path);
    snprintf(path, sizeof(path), "%s/cache_%s.ldb-lock", fuzz_dir, FUZZ_DOM);
    unlink(path);
    rmdir(fuzz_dir);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    /* ldb loads its modules with RTLD_DEEPBIND, which ASan refuses; ldb's own switch. */
    setenv("LDB_MODULES_DISABLE_DEEPBIND", "1", 1);
    debug_level = getenv("FUZZ_DEBUG") != NULL ? 0xfff0 : 0;
    if (mkdtemp(fuzz_dir) == NULL
            || sysdb_open_ext(NULL, fuzz_dir, FUZZ_DOM, SYSDB_CASE_INSENSITIVE,
                              SYSDB_BACKEND_MDB, &fuzz_sysdb) != EOK
            || sysdb_rcache_gen(fuzz_sysdb) == 0) {
        fprintf(stderr, "fuzz_sysdb_reply: no sysdb with a read cache in %s\n", fuzz_dir);
        abort();
    }
    atexit(fuzz_cleanup);
    return 0;
}

/* Touches every byte a caller of the result may read. */
static size_t fuzz_walk_str(const char *s)
{
    return s != NULL ? strlen(s) : 0;
}

static size_t fuzz_walk_list(const char **list)
{
    size_t n = 0;
    size_t i;

    if (list == NULL) {
        abort();            /* results promise non-NULL lists */
    }
    for (i = 0; list[i] != NULL; i++) {
        n += strlen(list[i]);
    }
    return n + i;
}

/* The entry named the user or group asked for ("alice" or "alice@fuzz.dom", any case). */
static bool fuzz_is_asked(const char *name)
{
    return strcasecmp(name, FUZZ_NAME) == 0 || strcasecmp(name, FUZZ_NAME "@" FUZZ_DOM) == 0;
}

static void fuzz_check_user(const struct sysdb_user *u, const struct sysdb_reply_key *key)
{
    size_t n;

    n = fuzz_walk_str(u->name) + fuzz_walk_str(u->gecos) + fuzz_walk_str(u->home)
        + fuzz_walk_str(u->shell) + fuzz_walk_str(u->orig_dn) + fuzz_walk_str(u->email);
    n += fuzz_walk_list(u->extra);
    (void)n;
    if (u->name == NULL || u->upn != NULL) {
        abort();
    }
    if (key->kind == SYSDB_RC_USER_UID ? u->uid != key->id : !fuzz_is_asked(u->name)) {
        abort();            /* accepted an entry that is not the one asked for */
    }
}

static void fuzz_check_group(const struct sysdb_group *g, const struct sysdb_reply_key *key)
{
    size_t n;

    n = fuzz_walk_str(g->name) + fuzz_walk_str(g->orig_dn);
    n += fuzz_walk_list(g->members) + fuzz_walk_list(g->member_groups);
    (void)n;
    if (g->name == NULL) {
        abort();
    }
    if (key->kind == SYSDB_RC_GROUP_GID ? g->gid != key->id : !fuzz_is_asked(g->name)) {
        abort();
    }
}

/* The read a responder makes after taking the carried entry (none: "no such entry"): it
 * must hit the read cache. */
static void fuzz_read_back(TALLOC_CTX *mem, const struct sysdb_reply_key *key, bool none)
{
    struct sysdb_user *user = NULL;
    struct sysdb_group *group = NULL;
    uint32_t *gids = NULL;
    size_t count = 0;
    bool have_list = false;
    uint32_t sum = 0;
    size_t i;
    errno_t ret = EINVAL;

    switch (key->kind) {
    case SYSDB_RC_USER_NAME:
        ret = sysdb_get_user_by_name(mem, fuzz_sysdb, key->name, &user);
        break;
    case SYSDB_RC_USER_UID:
        ret = sysdb_get_user_by_uid(mem, fuzz_sysdb, key->id, &user);
        break;
    case SYSDB_RC_GROUP_NAME:
        ret = sysdb_get_group_by_name(mem, fuzz_sysdb, key->name, &group);
        break;
    case SYSDB_RC_GROUP_GID:
        ret = sysdb_get_group_by_gid(mem, fuzz_sysdb, key->id, &group);
        break;
    case SYSDB_RC_INITGR:
        ret = sysdb_get_user_initgroups(mem, fuzz_sysdb, key->name, &user, &have_list,
                                        &gids, &count, NULL);
        break;
    }
    if (ret != (none ? ENOENT : EOK)) {
        abort();            /* an accepted entry (or "no such entry") is what the read finds */
    }
    if (user != NULL) {
        fuzz_check_user(user, key);
    }
    if (group != NULL) {
        fuzz_check_group(group, key);
    }
    for (i = 0; i < count; i++) {
        sum += gids[i];
    }
    (void)sum;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct sysdb_reply_key key = { .name = FUZZ_NAME };
    TALLOC_CTX *mem;
    uint64_t gen;
    errno_t ret;

    if (size < 5) {
        return 0;
    }
    key.kind = (enum sysdb_rc_kind)(SYSDB_RC_USER_NAME + data[0] % 5);
    key.id = (uint32_t)data[1] | (uint32_t)data[2] << 8 | (uint32_t)data[3] << 16
             | (uint32_t)data[4] << 24;
    data += 5;
    size -= 5;
    gen = sysdb_rcache_gen(fuzz_sysdb);
    ret = sysdb_reply_put(fuzz_sysdb, &key, gen, size > 0 ? data : NULL, size);
    if (ret != EOK && ret != EINVAL && ret != E2BIG) {
        abort();            /* nothing commits here: the generation cannot have moved */
    }
    /* Bigger than the read cache keeps: the read goes to the (empty) database. */
    if (ret != EOK || size > SYSDB_RCACHE_MAX_ENTRY) {
        return 0;
    }
    mem = talloc_new(NULL);
    if (mem == NULL) {
        return 0;
    }
    fuzz_read_back(mem, &key, size == 0);
    talloc_free(mem);
    return 0;
}
