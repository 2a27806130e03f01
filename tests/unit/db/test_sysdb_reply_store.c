/*
 * Unit tests of the writer's read cache fill at commit (src/db/sysdb_pending.c): after a
 * store commits, the back-end's reply entry (sysdb_reply_get) comes from its read cache,
 * not from an ldb read, and it is byte for byte what a fresh read returns. The fresh read
 * is made by another process (this binary re-executed as a reader, with an empty read
 * cache) at the same generation. Covered: a new user and a changed one (attributes
 * cleared), a group with members and nested groups, an initgroups stored with its user in
 * one transaction or of a user already cached, and writes later in the same transaction (an expire, a delete, another
 * user taking the uid) that must not let a stale entry through.
 * Reply first (sysdb_reply_user_first): the entry carried before the store, inside its
 * transaction, is byte for byte the fresh read after the commit, tagged with the
 * commit's generation; another process still one generation short takes it and finds the
 * carried user through its read cache while ldb holds an older one. The carried form is
 * made from the user before the entry itself is built (that waits for the store).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tests/unit/common/tc_common.h"
#include "util/util.h"
#include "db/sysdb.h"
#include "db/sysdb_rcache.h"
#include "db/sysdb_reply.h"

#define DOM "reply.dom"
#define NOW 1700000000
#define TMO 5400

struct rs_test {
    TALLOC_CTX *mem;
    char *dir;                  /* on mem */
    struct sysdb_ctx *sysdb;
};

static int setup(void **state)
{
    struct rs_test *t = calloc(1, sizeof(*t));

    assert_non_null(t);
    t->mem = talloc_new(NULL);
    assert_non_null(t->mem);
    t->dir = tc_tmpdir(t->mem, "test_sysdb_reply_store");
    assert_int_equal(sysdb_open_ext(t->mem, t->dir, DOM, SYSDB_CASE_INSENSITIVE,
                                    SYSDB_BACKEND_MDB, &t->sysdb), EOK);
    *state = t;
    return 0;
}

static int teardown(void **state)
{
    struct rs_test *t = *state;

    talloc_free(t->sysdb);
    tc_tmpdir_remove(t->dir);
    talloc_free(t->mem);
    free(t);
    return 0;
}

static uint64_t hits(struct sysdb_ctx *sysdb)
{
    struct sysdb_rcache_stats st;

    sysdb_rcache_stats(sysdb, &st);
    return st.hits;
}

static uint64_t misses(struct sysdb_ctx *sysdb)
{
    struct sysdb_rcache_stats st;

    sysdb_rcache_stats(sysdb, &st);
    return st.misses;
}

/* The reader: this binary run as another process, writing gen and the blob to out. */
static int reader(const char *dir, const char *kind, const char *arg, const char *out)
{
    struct sysdb_reply_key key = { .kind = (enum sysdb_rc_kind)atoi(kind) };
    struct sysdb_ctx *sysdb;
    uint64_t gen = 0;
    void *blob = NULL;
    size_t len = 0;
    FILE *f;
    errno_t ret;

    if (key.kind == SYSDB_RC_USER_UID || key.kind == SYSDB_RC_GROUP_GID) {
        key.id = (uint32_t)strtoul(arg, NULL, 10);
    } else {
        key.name = arg;
    }
    ret = sysdb_open_ext(NULL, dir, DOM, SYSDB_CASE_INSENSITIVE, SYSDB_BACKEND_MDB, &sysdb);
    if (ret != EOK) {
        return 2;
    }
    ret = sysdb_reply_get(sysdb, sysdb, &key, &gen, &blob, &len);
    f = fopen(out, "w");
    if (ret != EOK || f == NULL || fwrite(&gen, sizeof(gen), 1, f) != 1
            || (len > 0 && fwrite(blob, 1, len, f) != len)) {
        ret = EIO;
    }
    if (f != NULL && fclose(f) != 0) {
        ret = EIO;
    }
    talloc_free(sysdb);
    return ret == EOK ? 0 : 1;
}

/* The responder's side of reply first, as another process: takes the carried entry
 * (blob_path) for a user by name at gen and looks the user up. Exit 0: found with that
 * gecos; 4: put refused; 5: not found or another gecos. */
static int taker(const char *dir, const char *name, const char *gen_s, const char *gecos,
                 const char *blob_path)
{
    struct sysdb_reply_key key = { .kind = SYSDB_RC_USER_NAME, .name = name };
    struct sysdb_ctx *sysdb;
    struct sysdb_user *user = NULL;
    char buf[SYSDB_RCACHE_MAX_ENTRY];
    ssize_t len;
    int fd;
    errno_t ret;

    fd = open(blob_path, O_RDONLY);
    if (fd < 0) {
        return 2;
    }
    len = read(fd, buf, sizeof(buf));
    close(fd);
    if (len <= 0) {
        return 2;
    }
    if (sysdb_open_ext(NULL, dir, DOM, SYSDB_CASE_INSENSITIVE, SYSDB_BACKEND_MDB,
                       &sysdb) != EOK) {
        return 2;
    }
    ret = sysdb_reply_put(sysdb, &key, strtoull(gen_s, NULL, 10), buf, (size_t)len);
    if (ret != EOK) {
        talloc_free(sysdb);
        return 4;
    }
    ret = sysdb_get_user_by_name(sysdb, sysdb, name, &user);
    ret = ret == EOK && user->gecos != NULL && strcmp(user->gecos, gecos) == 0 ? 0 : 5;
    talloc_free(sysdb);
    return ret;
}

/* Runs the taker on blob; its exit status. */
static int run_taker(struct rs_test *t, const char *name, uint64_t gen, const char *gecos,
                     const void *blob, size_t len)
{
    char *path = talloc_asprintf(t->mem, "%s/carried.bin", t->dir);
    char gen_s[32];
    int status;
    pid_t pid;
    int fd;

    assert_non_null(path);
    fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, blob, len), (ssize_t)len);
    close(fd);
    snprintf(gen_s, sizeof(gen_s), "%llu", (unsigned long long)gen);
    pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        execl("/proc/self/exe", "test_sysdb_reply_store", "--taker", t->dir, name, gen_s,
              gecos, path, (char *)NULL);
        _exit(3);
    }
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status));
    return WEXITSTATUS(status);
}

/* The whole file at path, on mem_ctx. */
static char *read_whole(TALLOC_CTX *mem_ctx, const char *path, size_t *_len)
{
    char *data = talloc_size(mem_ctx, 1 << 20);
    size_t len = 0;
    ssize_t n;
    int fd;

    assert_non_null(data);
    fd = open(path, O_RDONLY);
    assert_true(fd >= 0);
    while ((n = read(fd, data + len, (1 << 20) - len)) > 0) {
        len += (size_t)n;
    }
    assert_int_equal(n, 0);
    close(fd);
    *_len = len;
    return data;
}

/* A fresh read of key by another process: its generation and flat entry (on mem_ctx). */
static void fresh_read(struct rs_test *t, const struct sysdb_reply_key *key, uint64_t *_gen,
                       char **_blob, size_t *_len)
{
    char *out = talloc_asprintf(t->mem, "%s/reply.out", t->dir);
    char kind[16];
    char arg[16];
    char *data;
    size_t len;
    int status;
    pid_t pid;

    snprintf(kind, sizeof(kind), "%d", (int)key->kind);
    snprintf(arg, sizeof(arg), "%u", key->id);
    pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        execl("/proc/self/exe", "test_sysdb_reply_store", "--reader", t->dir, kind,
              key->name != NULL ? key->name : arg, out, (char *)NULL);
        _exit(3);
    }
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
    data = read_whole(t->mem, out, &len);
    assert_true(len >= sizeof(uint64_t));
    memcpy(_gen, data, sizeof(uint64_t));
    *_len = len - sizeof(uint64_t);
    *_blob = data + sizeof(uint64_t);
}

/*
 * The writer's reply entry for key: served by its read cache (filled by the store, no ldb
 * read) when from_store, and equal to a fresh read by another process at the same
 * generation.
 */
static void assert_reply(struct rs_test *t, const struct sysdb_reply_key *key, bool from_store)
{
    uint64_t before = hits(t->sysdb);
    uint64_t missed = misses(t->sysdb);
    uint64_t gen;
    uint64_t fresh_gen;
    void *blob;
    size_t len;
    char *fresh;
    size_t fresh_len;

    assert_int_equal(sysdb_reply_get(t->mem, t->sysdb, key, &gen, &blob, &len), EOK);
    if (from_store) {
        /* The entry the store left: one hit, no miss (no read). */
        assert_int_equal(hits(t->sysdb), before + 1);
        assert_int_equal(misses(t->sysdb), missed);
    }
    assert_true(len > 0);
    fresh_read(t, key, &fresh_gen, &fresh, &fresh_len);
    assert_int_equal(fresh_gen, gen);
    assert_int_equal(fresh_len, len);
    assert_memory_equal(fresh, blob, len);
    talloc_free(blob);
}

static void store_user(struct sysdb_ctx *sysdb, const char *name, uint32_t uid,
                       const char *gecos, bool full)
{
    const char *extra[] = { "employeeNumber", "42", "l", "Brno", NULL };
    struct sysdb_user u = { .name = name, .uid = uid, .gid = uid + 1, .gecos = gecos,
                            .home = "/home/x", .shell = "/bin/sh" };

    if (full) {
        u.orig_dn = "uid=x,ou=people,dc=example,dc=com";
        u.email = "X.Person@Example.com";
        u.upn = "x@EXAMPLE.COM";
        u.extra = extra;
    }
    assert_int_equal(sysdb_store_user(sysdb, &u, NOW, TMO), EOK);
}

static void test_user(void **state)
{
    struct rs_test *t = *state;
    struct sysdb_reply_key by_name = { .kind = SYSDB_RC_USER_NAME, .name = "Joe" };
    struct sysdb_reply_key by_uid = { .kind = SYSDB_RC_USER_UID, .id = 5000 };

    store_user(t->sysdb, "Joe", 5000, "Joe Bloggs", true);
    assert_reply(t, &by_name, true);
    store_user(t->sysdb, "Joe", 5000, "Joe Bloggs", true);
    assert_reply(t, &by_uid, true);
    /* Changed, with the optional attributes gone: the cleared ones are not carried. */
    store_user(t->sysdb, "joe", 5000, "Joe B.", false);
    assert_reply(t, &by_name, true);
    assert_reply(t, &by_uid, false);
    /* Another name takes the uid: the old entry is deleted, the new one carried. */
    store_user(t->sysdb, "ann", 5000, "Ann", true);
    by_name.name = "ann";
    assert_reply(t, &by_name, true);
    store_user(t->sysdb, "ann", 5000, "Ann", true);
    assert_reply(t, &by_uid, true);
}

static void test_group(void **state)
{
    struct rs_test *t = *state;
    struct sysdb_reply_key by_name = { .kind = SYSDB_RC_GROUP_NAME, .name = "devs" };
    struct sysdb_reply_key by_gid = { .kind = SYSDB_RC_GROUP_GID, .id = 7000 };
    struct sysdb_group g = {
        .name = "devs", .gid = 7000, .orig_dn = "cn=devs,ou=groups,dc=example,dc=com",
        .members = (const char *[]){ "joe", "Ann", "bob", NULL },
        .member_groups = (const char *[]){ "admins", NULL },
    };

    assert_int_equal(sysdb_store_group(t->sysdb, &g, true, NOW, TMO), EOK);
    assert_reply(t, &by_name, true);
    g.members = (const char *[]){ "carl", NULL };
    g.member_groups = NULL;
    assert_int_equal(sysdb_store_group(t->sysdb, &g, true, NOW + 1, TMO), EOK);
    assert_reply(t, &by_gid, true);
    assert_reply(t, &by_name, false);
}

/* The cold `id`: the user, its groups and its list in one transaction. */
static void test_initgroups(void **state)
{
    struct rs_test *t = *state;
    struct sysdb_reply_key initgr = { .kind = SYSDB_RC_INITGR, .name = "joe" };
    struct sysdb_reply_key by_name = { .kind = SYSDB_RC_USER_NAME, .name = "joe" };
    struct sysdb_group g1 = { .name = "g1", .gid = 6001 };
    struct sysdb_group g2 = { .name = "g2", .gid = 6002,
                              .members = (const char *[]){ "joe", NULL } };

    for (int round = 0; round < 2; round++) {
        assert_int_equal(sysdb_transaction_start(t->sysdb), EOK);
        store_user(t->sysdb, "joe", 5000, round == 0 ? "first" : "second", round == 0);
        assert_int_equal(sysdb_store_group(t->sysdb, &g1, false, NOW, TMO), EOK);
        assert_int_equal(sysdb_store_group(t->sysdb, &g2, true, NOW, TMO), EOK);
        assert_int_equal(sysdb_store_initgroups_gids(t->sysdb, "joe",
                                                     (const char *[]){ "g1", "g2", NULL },
                                                     (const uint32_t[]){ 6001, 6002 },
                                                     NOW + round, TMO), EOK);
        assert_int_equal(sysdb_transaction_commit(t->sysdb), EOK);
        assert_reply(t, &initgr, true);
        assert_reply(t, &by_name, true);
    }
    /* The user already cached (`id` after getpwnam): its part comes from the read cache
     * as of the transaction's start; then the same after a change to the user entry in
     * the transaction (an expire), which must not be missed. */
    store_user(t->sysdb, "joe", 5000, "cached", true);
    for (int round = 0; round < 2; round++) {
        struct sysdb_user *u;

        /* The user in the read cache at the current generation. */
        assert_int_equal(sysdb_get_user_by_name(t->mem, t->sysdb, "joe", &u), EOK);
        talloc_free(u);
        assert_int_equal(sysdb_transaction_start(t->sysdb), EOK);
        assert_int_equal(sysdb_store_group(t->sysdb, &g2, true, NOW + 5, TMO), EOK);
        if (round == 1) {
            assert_int_equal(sysdb_expire_user(t->sysdb, "joe"), EOK);
        }
        assert_int_equal(sysdb_store_initgroups_gids(t->sysdb, "joe",
                                                     (const char *[]){ "g2", NULL },
                                                     (const uint32_t[]){ 6002 },
                                                     NOW + 5, TMO), EOK);
        assert_int_equal(sysdb_transaction_commit(t->sysdb), EOK);
        assert_reply(t, &initgr, round == 0);
    }
    /* An empty list, stored with the user. */
    assert_int_equal(sysdb_transaction_start(t->sysdb), EOK);
    store_user(t->sysdb, "joe", 5000, "third", true);
    assert_int_equal(sysdb_store_initgroups(t->sysdb, "joe", (const char *[]){ NULL },
                                            NOW, TMO), EOK);
    assert_int_equal(sysdb_transaction_commit(t->sysdb), EOK);
    assert_reply(t, &initgr, true);
}

/* Writes after the store in the same transaction: what a read returns is carried. */
static void test_later_writes(void **state)
{
    struct rs_test *t = *state;
    struct sysdb_reply_key by_name = { .kind = SYSDB_RC_USER_NAME, .name = "joe" };
    struct sysdb_reply_key by_uid = { .kind = SYSDB_RC_USER_UID, .id = 5000 };
    struct sysdb_reply_key initgr = { .kind = SYSDB_RC_INITGR, .name = "joe" };
    struct sysdb_user *u;
    uint64_t gen;
    void *blob;
    size_t len;

    /* Expired after the store: the expiry a read sees. */
    assert_int_equal(sysdb_transaction_start(t->sysdb), EOK);
    store_user(t->sysdb, "joe", 5000, "Joe", true);
    assert_int_equal(sysdb_store_initgroups(t->sysdb, "joe", (const char *[]){ NULL },
                                            NOW, TMO), EOK);
    assert_int_equal(sysdb_expire_user(t->sysdb, "joe"), EOK);
    assert_int_equal(sysdb_transaction_commit(t->sysdb), EOK);
    assert_reply(t, &by_name, false);
    assert_reply(t, &initgr, false);
    assert_int_equal(sysdb_get_user_by_name(t->mem, t->sysdb, "joe", &u), EOK);
    assert_int_equal(u->expire, 1);
    talloc_free(u);

    /* Another user takes the uid in the same transaction: joe is gone. */
    assert_int_equal(sysdb_transaction_start(t->sysdb), EOK);
    store_user(t->sysdb, "joe", 5000, "Joe", true);
    store_user(t->sysdb, "bob", 5000, "Bob", false);
    assert_int_equal(sysdb_transaction_commit(t->sysdb), EOK);
    assert_int_equal(sysdb_reply_get(t->mem, t->sysdb, &by_name, &gen, &blob, &len), EOK);
    assert_int_equal(len, 0);
    assert_reply(t, &by_uid, false);

    /* Stored, then deleted; and a cancelled store leaves nothing behind. */
    assert_int_equal(sysdb_transaction_start(t->sysdb), EOK);
    store_user(t->sysdb, "carl", 5002, "Carl", true);
    assert_int_equal(sysdb_delete_user(t->sysdb, "carl"), EOK);
    assert_int_equal(sysdb_transaction_commit(t->sysdb), EOK);
    by_name.name = "carl";
    assert_int_equal(sysdb_reply_get(t->mem, t->sysdb, &by_name, &gen, &blob, &len), EOK);
    assert_int_equal(len, 0);
    assert_int_equal(sysdb_transaction_start(t->sysdb), EOK);
    store_user(t->sysdb, "dave", 5003, "Dave", true);
    assert_int_equal(sysdb_transaction_cancel(t->sysdb), EOK);
    by_name.name = "dave";
    assert_int_equal(sysdb_reply_get(t->mem, t->sysdb, &by_name, &gen, &blob, &len), EOK);
    assert_int_equal(len, 0);
}

/* Reply first for user u (whose older entry, if any, is in the cache): the carried form
 * made before the store is the fresh read after it, byte for byte, by name and by uid; the
 * store's commit is the tagged generation; another process one generation short answers
 * from it (gecos: the carried entry's) before the commit. */
static void assert_user_first(struct rs_test *t, const struct sysdb_user *u,
                              const char *asked)
{
    struct sysdb_reply_key by_name = { .kind = SYSDB_RC_USER_NAME, .name = asked };
    struct sysdb_reply_key by_uid = { .kind = SYSDB_RC_USER_UID, .id = u->uid };
    struct sysdb_reply_key other = { .kind = SYSDB_RC_USER_NAME, .name = "nobody-else" };
    struct sysdb_user_write *w;
    uint64_t gen, gen_uid, fresh_gen;
    const void *blob, *blob_uid;
    size_t len, len_uid, fresh_len;
    char *fresh;

    assert_int_equal(sysdb_user_write_new(t->mem, t->sysdb, u, NOW, TMO, &w), EOK);
    /* Outside a transaction the generation is not ours to vouch for. */
    assert_int_equal(sysdb_reply_user_first(t->sysdb, &by_name, w, &gen, &blob, &len),
                     ENOTSUP);
    assert_int_equal(sysdb_transaction_start(t->sysdb), EOK);
    assert_int_equal(sysdb_reply_user_first(t->sysdb, &by_name, w, &gen, &blob, &len), EOK);
    assert_int_equal(sysdb_reply_user_first(t->sysdb, &by_uid, w, &gen_uid, &blob_uid,
                                            &len_uid), EOK);
    assert_int_equal(gen_uid, gen);
    /* Not the entry the key names. */
    assert_int_equal(sysdb_reply_user_first(t->sysdb, &other, w, &gen_uid, &blob_uid,
                                            &len_uid), ENOTSUP);
    /* Before the commit, another process one generation short answers from the carried
     * entry; a tag two ahead is refused. */
    assert_int_equal(run_taker(t, asked, gen, u->gecos, blob, len), 0);
    assert_int_equal(run_taker(t, asked, gen + 1, u->gecos, blob, len), 4);
    assert_int_equal(sysdb_user_write_store(t->sysdb, w), EOK);
    assert_int_equal(sysdb_transaction_commit(t->sysdb), EOK);
    /* After it, the tag is the database's, and the read is the carried entry. */
    assert_int_equal(run_taker(t, asked, gen, u->gecos, blob, len), 0);
    assert_int_equal(run_taker(t, asked, gen - 1, u->gecos, blob, len), 4);
    fresh_read(t, &by_name, &fresh_gen, &fresh, &fresh_len);
    assert_int_equal(fresh_gen, gen);
    assert_int_equal(fresh_len, len);
    assert_memory_equal(fresh, blob, len);
    fresh_read(t, &by_uid, &fresh_gen, &fresh, &fresh_len);
    assert_int_equal(fresh_len, len);
    assert_memory_equal(fresh, blob, len);
    /* The writer's own read after the commit comes from what the store recorded. */
    assert_reply(t, &by_name, true);
    talloc_free(w);
}

static void test_user_first(void **state)
{
    struct rs_test *t = *state;
    const char *extra[] = { "employeeNumber", "42", "l", "Brno", NULL };
    struct sysdb_user u = { .name = "Joe", .uid = 5000, .gid = 5001, .gecos = "Joe B.",
                            .home = "/home/joe", .shell = "/bin/sh",
                            .orig_dn = "uid=joe,ou=people,dc=example,dc=com",
                            .email = "Joe@Example.com", .upn = "joe@EXAMPLE.COM",
                            .extra = extra };
    struct sysdb_user w_less = { .name = "joe", .uid = 5000, .gid = 5001, .gecos = "J",
                                 .shell = "/bin/zsh" };
    struct sysdb_user_write *w;

    /* A new user (no older entry), by another spelling of the name. */
    assert_user_first(t, &u, "JOE");
    /* Changed, with optional attributes cleared (the store's empty elements). */
    assert_user_first(t, &w_less, "joe");
    /* Changed back, from the small entry. */
    u.gecos = "Joe Bloggs";
    assert_user_first(t, &u, "joe");
    /* An entry the store refuses is refused before anything is carried. */
    u.uid = 0;
    assert_int_equal(sysdb_user_write_new(t->mem, t->sysdb, &u, NOW, TMO, &w), EINVAL);
}

/* The carried form comes from the user, not from the entry the store writes: nothing of
 * the entry (DN, ldb message: a third of sssd_be's work before the answer) is built until
 * the store runs, and the form still is the fresh read, for a user with no extra
 * attributes and for a name long enough that its entry is built at once (its escaped key
 * checked). */
static void test_user_first_entry_later(void **state)
{
    struct rs_test *t = *state;
    struct sysdb_reply_key by_name = { .kind = SYSDB_RC_USER_NAME, .name = "ann" };
    struct sysdb_user u = { .name = "ann", .uid = 6000, .gid = 6001, .gecos = "Ann",
                            .home = "/home/ann", .orig_dn = "uid=ann,dc=example,dc=com" };
    struct sysdb_user_write *w;
    const void *blob;
    size_t len, before;
    uint64_t gen;
    char long_name[201];
    char commas[SYSDB_NAME_MAX + 1];

    assert_int_equal(sysdb_user_write_new(t->mem, t->sysdb, &u, NOW, TMO, &w), EOK);
    assert_int_equal(sysdb_transaction_start(t->sysdb), EOK);
    assert_int_equal(sysdb_reply_user_first(t->sysdb, &by_name, w, &gen, &blob, &len), EOK);
    /* w, the name's two forms and the carried form: no message, no DN. */
    before = talloc_total_blocks(w);
    assert_true(before <= 4);
    assert_int_equal(sysdb_user_write_store(t->sysdb, w), EOK);
    assert_true(talloc_total_blocks(w) > before);
    assert_int_equal(sysdb_transaction_commit(t->sysdb), EOK);
    talloc_free(w);
    /* Again through the whole check, changed. */
    u.gecos = "Ann A.";
    u.shell = "/bin/ksh";
    assert_user_first(t, &u, "Ann");

    /* A name the DN escapes: the form's name is the RDN unescaped, as a read gives it. */
    u.name = "o'x,y+z=w";
    u.uid = 6004;
    assert_user_first(t, &u, "O'X,Y+Z=W");

    memset(long_name, 'l', sizeof(long_name) - 1);
    long_name[sizeof(long_name) - 1] = '\0';
    u.name = long_name;
    u.uid = 6002;
    assert_user_first(t, &u, long_name);
    /* A name whose escaped key is too long is refused before anything is carried. */
    memset(commas, ',', sizeof(commas) - 1);
    commas[sizeof(commas) - 1] = '\0';
    u.name = commas;
    u.uid = 6003;
    assert_int_equal(sysdb_user_write_new(t->mem, t->sysdb, &u, NOW, TMO, &w), EINVAL);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_user, setup, teardown),
        cmocka_unit_test_setup_teardown(test_group, setup, teardown),
        cmocka_unit_test_setup_teardown(test_initgroups, setup, teardown),
        cmocka_unit_test_setup_teardown(test_later_writes, setup, teardown),
        cmocka_unit_test_setup_teardown(test_user_first, setup, teardown),
        cmocka_unit_test_setup_teardown(test_user_first_entry_later, setup, teardown),
    };

    if (argc == 6 && strcmp(argv[1], "--reader") == 0) {
        return reader(argv[2], argv[3], argv[4], argv[5]);
    }
    if (argc == 7 && strcmp(argv[1], "--taker") == 0) {
        return taker(argv[2], argv[3], argv[4], argv[5], argv[6]);
    }
    return cmocka_run_group_tests(tests, NULL, NULL);
}
