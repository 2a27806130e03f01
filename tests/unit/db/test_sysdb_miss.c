/*
 * Unit tests of a name lookup's miss answered from the database's pages (sysdb_users.c,
 * sysdb_rcache_probe(), sysdb_mdb_walk.c): after another process's commits (this binary
 * re-executed as the writer) names never stored are ENOENT without an ldb search (counted
 * through the linker's --wrap of ldb_search), while every stored name, however spelled
 * (case, domain suffix, characters a DN escapes), is still found with its own entry: a
 * wrong key form would make found names absent. A tdb cache has no pages to read: its
 * misses are ldb's. And while another process commits without pause, answers stay right.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>
#include <ldb.h>

#include "tests/unit/common/tc_common.h"
#include "util/util.h"
#include "db/sysdb.h"

#define DOM "miss.dom"
#define NOW 1700000000
#define TMO 5400
#define MANY 3000           /* enough users for a tree of branch pages */
#define CHURN 3000          /* the churning writer's commits */

static const char *const odd_names[] = {
    "a,b", "c=d", "e+f", " lead", "trail ", "#hash", "x\\y", "q\"t", "l<g>", "semi;c",
    "Mixed.Case", NULL
};

static unsigned int searches;

int __real_ldb_search(struct ldb_context *ldb, TALLOC_CTX *mem_ctx, struct ldb_result **res,
                      struct ldb_dn *base, enum ldb_scope scope, const char *const *attrs,
                      const char *exp_fmt, ...);
int __wrap_ldb_search(struct ldb_context *ldb, TALLOC_CTX *mem_ctx, struct ldb_result **res,
                      struct ldb_dn *base, enum ldb_scope scope, const char *const *attrs,
                      const char *exp_fmt, ...) __attribute__((format(printf, 7, 8)));

/* Every ldb search of the process, counted, then run as asked. */
int __wrap_ldb_search(struct ldb_context *ldb, TALLOC_CTX *mem_ctx, struct ldb_result **res,
                      struct ldb_dn *base, enum ldb_scope scope, const char *const *attrs,
                      const char *exp_fmt, ...)
{
    char *exp = NULL;
    va_list ap;
    int ret;

    searches++;
    if (exp_fmt != NULL) {
        va_start(ap, exp_fmt);
        exp = talloc_vasprintf(NULL, exp_fmt, ap);
        va_end(ap);
        if (exp == NULL) {
            return LDB_ERR_OPERATIONS_ERROR;
        }
    }
    ret = __real_ldb_search(ldb, mem_ctx, res, base, scope, attrs,
                            exp != NULL ? "%s" : NULL, exp);
    talloc_free(exp);
    return ret;
}

struct miss_test {
    TALLOC_CTX *mem;
    char *dir;
    struct sysdb_ctx *sysdb;
    enum sysdb_backend backend;
};

static int setup_backend(void **state, enum sysdb_backend backend)
{
    struct miss_test *t = calloc(1, sizeof(*t));

    assert_non_null(t);
    t->mem = talloc_new(NULL);
    assert_non_null(t->mem);
    t->dir = tc_tmpdir(t->mem, "test_sysdb_miss");
    t->backend = backend;
    assert_int_equal(sysdb_open_ext(t->mem, t->dir, DOM, SYSDB_CASE_INSENSITIVE, backend,
                                    &t->sysdb), EOK);
    *state = t;
    return 0;
}

static int setup_mdb(void **state)
{
    return setup_backend(state, SYSDB_BACKEND_MDB);
}

static int setup_tdb(void **state)
{
    return setup_backend(state, SYSDB_BACKEND_TDB);
}

static int teardown(void **state)
{
    struct miss_test *t = *state;

    talloc_free(t->sysdb);
    tc_tmpdir_remove(t->dir);
    talloc_free(t->mem);
    free(t);
    return 0;
}

/* The writer, another process: step "1" stores MANY users and the odd names, step "2"
 * deletes user0 and adds late0. */
static int writer(const char *dir, const char *backend, const char *step)
{
    struct sysdb_user u = { .home = "/home/x", .shell = "/bin/sh" };
    struct sysdb_ctx *sysdb;
    char name[32];
    errno_t ret;
    int i;

    ret = sysdb_open_ext(NULL, dir, DOM, SYSDB_CASE_INSENSITIVE,
                         strcmp(backend, "tdb") == 0 ? SYSDB_BACKEND_TDB : SYSDB_BACKEND_MDB,
                         &sysdb);
    if (ret != EOK) {
        return 2;
    }
    if (strcmp(step, "1") == 0) {
        for (i = 0; i < MANY && ret == EOK; i++) {
            snprintf(name, sizeof(name), "user%d", i);
            u.name = name;
            u.uid = u.gid = 10000 + i;
            ret = sysdb_store_user(sysdb, &u, NOW, TMO);
        }
        for (i = 0; odd_names[i] != NULL && ret == EOK; i++) {
            u.name = odd_names[i];
            u.uid = u.gid = 20000 + i;
            ret = sysdb_store_user(sysdb, &u, NOW, TMO);
        }
        for (i = 0; i < 2 && ret == EOK; i++) {
            struct sysdb_group g = { .name = i ? "Odd, grp" : "grp0", .gid = 50000 + i };

            ret = sysdb_store_group(sysdb, &g, true, NOW, TMO);
        }
    } else if (strcmp(step, "churn") == 0) {
        /* Commits for a while: every stored user rewritten (pages copied and freed), and
         * new names added, one transaction each. */
        for (i = 0; i < CHURN && ret == EOK; i++) {
            snprintf(name, sizeof(name), i % 2 ? "user%d" : "churn%d", i % 2 ? i % MANY : i);
            u.name = name;
            u.uid = u.gid = i % 2 ? 10000 + i % MANY : 40000 + i;
            u.gecos = i % 2 ? "rewritten" : NULL;
            ret = sysdb_store_user(sysdb, &u, NOW, TMO);
        }
    } else {
        ret = sysdb_delete_user(sysdb, "user0");
        if (ret == EOK) {
            u.name = "late0";
            u.uid = u.gid = 30000;
            ret = sysdb_store_user(sysdb, &u, NOW, TMO);
        }
    }
    talloc_free(sysdb);
    return ret == EOK ? 0 : 1;
}

static pid_t start_writer(struct miss_test *t, const char *step)
{
    pid_t pid;

    pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        execl("/proc/self/exe", "test_sysdb_miss", "--writer", t->dir,
              t->backend == SYSDB_BACKEND_TDB ? "tdb" : "mdb", step, (char *)NULL);
        _exit(3);
    }
    return pid;
}

static void wait_writer(pid_t pid)
{
    int status;

    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
}

static void run_writer(struct miss_test *t, const char *step)
{
    wait_writer(start_writer(t, step));
}

static void assert_uid(struct miss_test *t, const char *name, uint32_t uid)
{
    struct sysdb_user *u = NULL;

    if (sysdb_get_user_by_name(t->mem, t->sysdb, name, &u) != EOK) {
        fail_msg("%s not found", name);
    }
    assert_int_equal(u->uid, uid);
    talloc_free(u);
}

static void assert_missing(struct miss_test *t, const char *name)
{
    struct sysdb_user *u = NULL;

    assert_int_equal(sysdb_get_user_by_name(t->mem, t->sysdb, name, &u), ENOENT);
}

/* Misses after a commit of another process, then the names stored, then a second commit. */
static void test_misses(void **state)
{
    struct miss_test *t = *state;
    char name[64];
    unsigned int before;
    int i;

    run_writer(t, "1");
    before = searches;
    for (i = 0; i < MANY; i++) {
        snprintf(name, sizeof(name), "nobody%d", i);
        assert_missing(t, name);
    }
    /* Names next to stored ones in key order, and other kinds' keys. */
    assert_missing(t, "user");
    assert_missing(t, "user30000");
    assert_missing(t, "a,");
    assert_missing(t, "zzzz");
    assert_missing(t, "0");
    if (t->backend == SYSDB_BACKEND_MDB) {
        assert_int_equal(searches - before, 0);
    } else {
        assert_true(searches - before >= MANY);
    }

    /* Every stored user is found, in every spelling, with its own entry. */
    for (i = 0; i < MANY; i++) {
        snprintf(name, sizeof(name), i % 2 ? "user%d" : "USER%d@Miss.Dom", i);
        assert_uid(t, name, 10000 + i);
    }
    for (i = 0; odd_names[i] != NULL; i++) {
        assert_uid(t, odd_names[i], 20000 + i);
        snprintf(name, sizeof(name), "%s@" DOM, odd_names[i]);
        assert_uid(t, name, 20000 + i);
    }
    assert_uid(t, "MIXED.case", 20000 + 10);

    /* A second commit: a deleted name is missing, an added one found. */
    assert_uid(t, "user0", 10000);
    assert_missing(t, "late0");
    run_writer(t, "2");
    assert_missing(t, "user0");
    assert_uid(t, "late0", 30000);
    assert_uid(t, "user1", 10001);
}

/* Groups by name take the same page lookup for a miss. */
static void test_group_misses(void **state)
{
    struct miss_test *t = *state;
    struct sysdb_group *g;
    char name[64];
    unsigned int before;
    int i;

    run_writer(t, "1");
    before = searches;
    for (i = 0; i < MANY; i++) {
        snprintf(name, sizeof(name), "nogroup%d", i);
        assert_int_equal(sysdb_get_group_by_name(t->mem, t->sysdb, name, &g), ENOENT);
    }
    if (t->backend == SYSDB_BACKEND_MDB) {
        assert_int_equal(searches - before, 0);
    } else {
        assert_true(searches - before >= MANY);
    }
    for (i = 0; i < 2; i++) {
        g = NULL;
        assert_int_equal(sysdb_get_group_by_name(t->mem, t->sysdb,
                                                 i ? "ODD, GRP@" DOM : "Grp0", &g), EOK);
        assert_int_equal(g->gid, 50000 + i);
        talloc_free(g);
    }
}

/* While another process commits one transaction after another, stored names are always
 * found and names never stored never are: a walk that met a commit asks ldb. */
static void test_concurrent_commits(void **state)
{
    struct miss_test *t = *state;
    struct sysdb_user *u;
    char name[64];
    pid_t pid;
    int status;
    int rounds = 0;
    int i;

    run_writer(t, "1");
    pid = start_writer(t, "churn");
    do {
        for (i = 0; i < 200; i++) {
            snprintf(name, sizeof(name), "user%d", (rounds * 200 + i * 7) % MANY);
            assert_uid(t, name, 10000 + (rounds * 200 + i * 7) % MANY);
            snprintf(name, sizeof(name), "nobody%d", i);
            assert_int_equal(sysdb_get_user_by_name(t->mem, t->sysdb, name, &u), ENOENT);
        }
        rounds++;
    } while (waitpid(pid, &status, WNOHANG) == 0);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
    print_message("%d rounds of 400 lookups during the writer's %d commits\n", rounds, CHURN);
    assert_uid(t, "churn0", 40000);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_misses, setup_mdb, teardown),
        cmocka_unit_test_setup_teardown(test_misses, setup_tdb, teardown),
        cmocka_unit_test_setup_teardown(test_group_misses, setup_mdb, teardown),
        cmocka_unit_test_setup_teardown(test_group_misses, setup_tdb, teardown),
        cmocka_unit_test_setup_teardown(test_concurrent_commits, setup_mdb, teardown),
    };

    if (argc == 5 && strcmp(argv[1], "--writer") == 0) {
        return writer(argv[2], argv[3], argv[4]);
    }
    return cmocka_run_group_tests(tests, NULL, NULL);
}
