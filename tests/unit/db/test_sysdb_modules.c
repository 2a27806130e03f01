/*
 * Which of libldb's modules a process that opens caches maps (sysdb_ldb_modules.c): the
 * mdb and tdb back-ends only; every module of the directory, as libldb does by itself,
 * when the administrator set LDB_MODULES_PATH. Read from /proc/self/maps. Where libldb's
 * directory holds nothing but the back-ends there is nothing to tell apart: skipped.
 */
#include "config.h"

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "util/util.h"
#include "db/sysdb.h"
#include "tests/unit/common/tc_common.h"

static bool is_backend(const char *base)
{
    return strcmp(base, "mdb.so") == 0 || strcmp(base, "tdb.so") == 0;
}

/* Modules of libldb's directory that are not back-ends (what a limited process skips). */
static size_t dir_others(void)
{
    DIR *d = opendir(SSS_LDB_MODULESDIR);
    struct dirent *de;
    size_t n = 0;
    size_t len;

    if (d == NULL) {
        return 0;
    }
    while ((de = readdir(d)) != NULL) {
        len = strlen(de->d_name);
        if (len > 3 && strcmp(de->d_name + len - 3, ".so") == 0 && !is_backend(de->d_name)) {
            n++;
        }
    }
    closedir(d);
    return n;
}

/* Counts the mapped files of libldb's directory: back-ends, and the others. */
static void mapped_modules(size_t *_backends, size_t *_others)
{
    FILE *f = fopen("/proc/self/maps", "r");
    char line[4096];
    char last[4096] = "";
    const char *path;
    const char *base;
    size_t dlen = strlen(SSS_LDB_MODULESDIR);

    *_backends = *_others = 0;
    assert_non_null(f);
    while (fgets(line, sizeof(line), f) != NULL) {
        line[strcspn(line, "\n")] = '\0';
        path = strchr(line, '/');
        if (path == NULL || strncmp(path, SSS_LDB_MODULESDIR "/", dlen + 1) != 0
                || strcmp(path, last) == 0) {
            continue;   /* not a module, or another segment of the one just counted */
        }
        snprintf(last, sizeof(last), "%s", path);
        base = path + dlen + 1;
        if (is_backend(base)) {
            (*_backends)++;
        } else {
            (*_others)++;
        }
    }
    fclose(f);
}

static void open_both(void)
{
    TALLOC_CTX *mem = talloc_new(NULL);
    char *dir = tc_tmpdir(mem, "test_sysdb_modules");
    struct sysdb_ctx *sysdb;

    assert_int_equal(sysdb_open_ext(mem, dir, "mdb.dom", SYSDB_CASE_SENSITIVE,
                                    SYSDB_BACKEND_MDB, &sysdb), EOK);
    assert_int_equal(sysdb_open_ext(mem, dir, "tdb.dom", SYSDB_CASE_SENSITIVE,
                                    SYSDB_BACKEND_TDB, &sysdb), EOK);
    tc_tmpdir_remove(dir);
    talloc_free(mem);
}

/* First (in a child, before this process opens any cache): the administrator's
 * LDB_MODULES_PATH keeps libldb's own behaviour, the whole directory. */
static void test_admin_path_kept(void **state)
{
    size_t backends, others;
    int status;
    pid_t pid;

    if (dir_others() == 0) {
        skip();
    }
    pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        setenv("LDB_MODULES_PATH", SSS_LDB_MODULESDIR "/mdb.so", 1);
        open_both();
        mapped_modules(&backends, &others);
        _exit(backends == 2 && others == dir_others() ? 0 : 1);
    }
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
}

static void test_only_backends(void **state)
{
    size_t backends, others;

    if (dir_others() == 0 || getenv("LDB_MODULES_PATH") != NULL) {
        skip();
    }
    open_both();
    sysdb_preload();
    mapped_modules(&backends, &others);
    assert_int_equal(backends, 2);
    assert_int_equal(others, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_admin_path_kept),
        cmocka_unit_test(test_only_backends),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
