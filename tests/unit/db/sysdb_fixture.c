/* The shared sysdb test fixture of sysdb_fixture.h. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdlib.h>
#include <cmocka.h>

#include "util/util.h"
#include "tests/unit/db/sysdb_fixture.h"

enum sysdb_backend backend = SYSDB_BACKEND_TDB;

static int setup_mode(void **state, enum sysdb_case mode)
{
    struct test_ctx *tc;

    tc = calloc(1, sizeof(*tc));
    assert_non_null(tc);
    tc_leak_start(&tc->leaks);
    tc->mem = talloc_new(NULL);
    assert_non_null(tc->mem);
    tc->dir = tc_tmpdir(tc->mem, "test_sysdb");
    assert_int_equal(sysdb_open_ext(tc->mem, tc->dir, DOM, mode, backend, &tc->sysdb), EOK);
    *state = tc;
    return 0;
}

int setup(void **state)
{
    return setup_mode(state, SYSDB_CASE_SENSITIVE);
}

int setup_insensitive(void **state)
{
    return setup_mode(state, SYSDB_CASE_INSENSITIVE);
}

int setup_preserving(void **state)
{
    return setup_mode(state, SYSDB_CASE_PRESERVING);
}

int teardown(void **state)
{
    struct test_ctx *tc = *state;

    talloc_free(tc->sysdb);
    tc_tmpdir_remove(tc->dir);
    talloc_free(tc->mem);
    tc_leak_check(&tc->leaks);
    free(tc);
    return 0;
}

void store_user(struct sysdb_ctx *sysdb, const char *name, uint32_t uid)
{
    struct sysdb_user u = { .name = name, .uid = uid, .gid = uid, .gecos = "G",
                            .home = "/home/x", .shell = "/bin/sh" };

    assert_int_equal(sysdb_store_user(sysdb, &u, NOW, TMO), EOK);
}

void store_group(struct sysdb_ctx *sysdb, const char *name, uint32_t gid,
                 const char **members)
{
    struct sysdb_group g = { .name = name, .gid = gid, .members = members };

    assert_int_equal(sysdb_store_group(sysdb, &g, true, NOW, TMO), EOK);
}

void sysdb_fixture_warm_up(void)
{
    TALLOC_CTX *mem;
    struct sysdb_ctx *sysdb;
    char *dir;

    talloc_enable_null_tracking();
    talloc_free(tevent_context_init(NULL));
    mem = talloc_new(NULL);
    assert_non_null(mem);
    dir = tc_tmpdir(mem, "test_sysdb_warm");
    assert_int_equal(sysdb_open_ext(mem, dir, "tdb.dom", SYSDB_CASE_SENSITIVE,
                                    SYSDB_BACKEND_TDB, &sysdb), EOK);
    assert_int_equal(sysdb_open_ext(mem, dir, "mdb.dom", SYSDB_CASE_SENSITIVE,
                                    SYSDB_BACKEND_MDB, &sysdb), EOK);
    tc_tmpdir_remove(dir);
    talloc_free(mem);
}
