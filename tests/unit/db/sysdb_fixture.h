/*
 * The fixture the sysdb unit tests share (test_sysdb.c, test_sysdb_lists.c): a cache of the
 * back-end under test in a temporary directory, opened in a given case mode, checked for
 * leaks at teardown; store helpers; and the warm-up main() does before running its suite
 * once per back-end (tdb, then mdb, setting `backend`). Include after cmocka.h.
 */
#ifndef SYSDB_FIXTURE_H
#define SYSDB_FIXTURE_H

#include "tests/unit/common/tc_common.h"
#include "db/sysdb.h"

#define DOM "test.dom"
#define NOW 1700000000
#define TMO 5400

/* The back-end the running suite tests. */
extern enum sysdb_backend backend;

struct test_ctx {
    struct tc_leaks leaks;
    TALLOC_CTX *mem;
    char *dir;                  /* on mem */
    struct sysdb_ctx *sysdb;    /* on mem */
};

/* cmocka setups (case_sensitive true, false, preserving) and the teardown. */
int setup(void **state);
int setup_insensitive(void **state);
int setup_preserving(void **state);
int teardown(void **state);

/* Stores a user (gid = uid) or a group with members, asserting success. */
void store_user(struct sysdb_ctx *sysdb, const char *name, uint32_t uid);
void store_group(struct sysdb_ctx *sysdb, const char *name, uint32_t gid,
                 const char **members);

/* Opens and closes a cache of each back-end before any baseline is taken: ldb loads its
 * back-end modules once per process, onto the NULL context. Call first in main(). */
void sysdb_fixture_warm_up(void);

#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)

#endif /* SYSDB_FIXTURE_H */
