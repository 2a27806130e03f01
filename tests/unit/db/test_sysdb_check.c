/*
 * sysdb_check_cache(): a sound cache is kept, a truncated or scribbled one is set aside
 * (renamed .corrupt) without harming the caller, a missing one is left alone; after a set
 * aside, sysdb_open() starts an empty cache. Runs with the mdb back-end (the default one,
 * whose reader dies of SIGBUS on a short file) and tdb.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "tests/unit/db/sysdb_fixture.h"

#define CHECK_MS 20000

/* A cache of 500 users in the fixture's directory, closed; its path on mem. */
static char *make_cache(struct test_ctx *t)
{
    char name[64];
    char *path;
    int i;

    for (i = 0; i < 500; i++) {
        snprintf(name, sizeof(name), "u%04d@" DOM, i);
        store_user(t->sysdb, name, 10000 + i);
    }
    TALLOC_FREE(t->sysdb);
    path = talloc_asprintf(t->mem, "%s/cache_" DOM ".ldb", t->dir);
    assert_non_null(path);
    return path;
}

static bool exists(const char *path)
{
    struct stat st;

    return stat(path, &st) == 0;
}

static void reopen_empty(struct test_ctx *t)
{
    struct sysdb_user *u = NULL;

    assert_int_equal(sysdb_open_ext(t->mem, t->dir, DOM, SYSDB_CASE_SENSITIVE, backend,
                                    &t->sysdb), EOK);
    assert_int_equal(sysdb_get_user_by_name(t->mem, t->sysdb, "u0001@" DOM, &u), ENOENT);
}

static void test_sound_cache_kept(void **state)
{
    struct test_ctx *t = *state;
    char *path = make_cache(t);
    struct sysdb_user *u = NULL;
    bool aside = true;

    assert_int_equal(sysdb_check_cache(t->dir, DOM, CHECK_MS, &aside), EOK);
    assert_false(aside);
    assert_true(exists(path));
    assert_int_equal(sysdb_open_ext(t->mem, t->dir, DOM, SYSDB_CASE_SENSITIVE, backend,
                                    &t->sysdb), EOK);
    assert_int_equal(sysdb_get_user_by_name(t->mem, t->sysdb, "u0001@" DOM, &u), EOK);
}

static void test_missing_cache_left_alone(void **state)
{
    struct test_ctx *t = *state;
    bool aside = true;

    assert_int_equal(sysdb_check_cache(t->dir, "other.dom", CHECK_MS, &aside), EOK);
    assert_false(aside);
}

static void test_truncated_cache_set_aside(void **state)
{
    struct test_ctx *t = *state;
    char *path = make_cache(t);
    struct stat st;
    bool aside = false;

    assert_int_equal(stat(path, &st), 0);
    assert_int_equal(truncate(path, st.st_size / 2), 0);
    assert_int_equal(sysdb_check_cache(t->dir, DOM, CHECK_MS, &aside), EOK);
    assert_true(aside);
    assert_false(exists(path));
    assert_true(exists(talloc_asprintf(t->mem, "%s.corrupt", path)));
    reopen_empty(t);
}

static void test_scribbled_cache_set_aside(void **state)
{
    struct test_ctx *t = *state;
    char *path = make_cache(t);
    char junk[4096];
    struct stat st;
    bool aside = false;
    off_t ofs;
    int fd;

    memset(junk, 0xa5, sizeof(junk));
    assert_int_equal(stat(path, &st), 0);
    fd = open(path, O_WRONLY);
    assert_true(fd >= 0);
    /* Every page after the first two (the meta pages of mdb, the header of tdb). */
    for (ofs = 2 * (off_t)sizeof(junk); ofs < st.st_size; ofs += sizeof(junk)) {
        assert_int_equal(pwrite(fd, junk, sizeof(junk), ofs), (ssize_t)sizeof(junk));
    }
    close(fd);
    assert_int_equal(sysdb_check_cache(t->dir, DOM, CHECK_MS, &aside), EOK);
    assert_true(aside);
    assert_false(exists(path));
    reopen_empty(t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        T(test_sound_cache_kept),
        T(test_missing_cache_left_alone),
        T(test_truncated_cache_set_aside),
        T(test_scribbled_cache_set_aside),
    };
    int failed;

    sysdb_fixture_warm_up();
    backend = SYSDB_BACKEND_MDB;
    failed = cmocka_run_group_tests_name("mdb", tests, NULL, NULL);
    backend = SYSDB_BACKEND_TDB;
    failed += cmocka_run_group_tests_name("tdb", tests, NULL, NULL);
    return failed;
}
