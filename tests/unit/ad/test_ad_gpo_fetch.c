/*
 * Unit tests of ad_gpo_fetch.c: the GPO cache (a file is returned only for the version it
 * was stored under; hostile cache contents - a version that is not a number, a symlink,
 * an oversized file - read as absent; permissions) and the child machinery (posix_spawn,
 * the output read on the loop, the exit status mapped to ENOENT/EFBIG/EIO, a child that
 * never answers killed at the timeout, more output than AD_GPO_INF_MAX refused; the
 * posix_spawn, which waits for the child's exec, never on the loop's thread). The child
 * here is /bin/sh running a one-line script: what gpo_child does over SMB needs a DC
 * (tests/intg/test_ad_gpo.sh); these tests are about sssd_be's side of the pipe.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <dlfcn.h>
#include <pthread.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tests/unit/common/tc_common.h"
#include "providers/ad/ad_gpo_fetch.h"

#define GUID "{31B2F340-016D-11D2-945F-00C04FB984F9}"

struct fixture {
    struct tc_leaks leaks;
    struct tevent_context *ev;
    char *dir;
};

static int setup(void **state)
{
    struct fixture *f = calloc(1, sizeof(*f));

    tc_leak_start(&f->leaks);
    f->ev = tevent_context_init(NULL);
    assert_non_null(f->ev);
    f->dir = tc_tmpdir(NULL, "test_ad_gpo_fetch");
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    struct fixture *f = *state;

    tc_tmpdir_remove(f->dir);
    talloc_free(f->dir);
    talloc_free(f->ev);
    tc_leak_check(&f->leaks);
    free(f);
    return 0;
}

static void write_text(const char *path, const char *text)
{
    FILE *fp = fopen(path, "w");

    assert_non_null(fp);
    fputs(text, fp);
    fclose(fp);
}

static void test_cache(void **state)
{
    struct fixture *f = *state;
    const uint8_t inf[] = { 0xFF, 0xFE, '[', 0, ']', 0 };
    char path[4096];
    struct stat st;
    uint8_t *data;
    size_t len;

    assert_int_equal(ad_gpo_cache_get(NULL, f->dir, "ad.test", GUID, 3, &data, &len), ENOENT);
    assert_int_equal(ad_gpo_cache_put(f->dir, "ad.test", GUID, 3, inf, sizeof(inf)), EOK);
    assert_int_equal(ad_gpo_cache_get(NULL, f->dir, "ad.test", GUID, 3, &data, &len), EOK);
    assert_int_equal(len, sizeof(inf));
    assert_memory_equal(data, inf, sizeof(inf));
    talloc_free(data);
    /* Another version in the directory: not this one. */
    assert_int_equal(ad_gpo_cache_get(NULL, f->dir, "ad.test", GUID, 4, &data, &len), ENOENT);
    assert_int_equal(ad_gpo_cache_get(NULL, f->dir, "other", GUID, 3, &data, &len), ENOENT);
    /* Root-only. */
    snprintf(path, sizeof(path), "%s/ad.test/%s", f->dir, GUID);
    assert_int_equal(stat(path, &st), 0);
    assert_int_equal(st.st_mode & 0777, 0700);
    snprintf(path, sizeof(path), "%s/ad.test/%s/GptTmpl.inf", f->dir, GUID);
    assert_int_equal(stat(path, &st), 0);
    assert_int_equal(st.st_mode & 0777, 0600);
    /* An empty file (a GPO without a template) is cached as such. */
    assert_int_equal(ad_gpo_cache_put(f->dir, "ad.test", GUID, 5, NULL, 0), EOK);
    assert_int_equal(ad_gpo_cache_get(NULL, f->dir, "ad.test", GUID, 5, &data, &len), EOK);
    assert_int_equal(len, 0);
    talloc_free(data);

    /* Hostile contents read as absent. */
    snprintf(path, sizeof(path), "%s/ad.test/%s/version", f->dir, GUID);
    write_text(path, "5x\n");
    assert_int_equal(ad_gpo_cache_get(NULL, f->dir, "ad.test", GUID, 5, &data, &len), ENOENT);
    write_text(path, "");
    assert_int_equal(ad_gpo_cache_get(NULL, f->dir, "ad.test", GUID, 0, &data, &len), ENOENT);
    write_text(path, "5\n");
    snprintf(path, sizeof(path), "%s/ad.test/%s/GptTmpl.inf", f->dir, GUID);
    unlink(path);
    assert_int_equal(symlink("/etc/passwd", path), 0);
    assert_int_equal(ad_gpo_cache_get(NULL, f->dir, "ad.test", GUID, 5, &data, &len), ENOENT);
    unlink(path);
    write_text(path, "");
    assert_int_equal(truncate(path, AD_GPO_INF_MAX + 1), 0);
    assert_int_equal(ad_gpo_cache_get(NULL, f->dir, "ad.test", GUID, 5, &data, &len), ENOENT);
}

static pthread_t loop_thread;
static int spawns;
static int spawns_on_loop;

/* Watches (does not replace) libc's posix_spawn: which thread waits for the exec. */
int posix_spawn(pid_t *pid, const char *path, const posix_spawn_file_actions_t *fa,
                const posix_spawnattr_t *attr, char *const argv[], char *const envp[])
{
    int (*real)(pid_t *, const char *, const posix_spawn_file_actions_t *,
                const posix_spawnattr_t *, char *const [], char *const []);

    *(void **)&real = dlsym(RTLD_NEXT, "posix_spawn");
    assert_non_null(real);
    __atomic_add_fetch(&spawns, 1, __ATOMIC_SEQ_CST);
    if (pthread_equal(pthread_self(), loop_thread)) {
        __atomic_add_fetch(&spawns_on_loop, 1, __ATOMIC_SEQ_CST);
    }
    return real(pid, path, fa, attr, argv, envp);
}

/* Runs "sh -c SCRIPT" as the child (the URI is its $0) and returns the request's error. */
static errno_t run_child(struct fixture *f, const char *script, int timeout,
                         uint8_t **_data, size_t *_len)
{
    struct tevent_req *req;
    char *path;
    FILE *fp;
    errno_t ret;

    path = talloc_asprintf(NULL, "%s/child.sh", f->dir);
    assert_non_null(path);
    fp = fopen(path, "w");
    assert_non_null(fp);
    fprintf(fp, "#!/bin/sh\n%s\n", script);
    fclose(fp);
    assert_int_equal(chmod(path, 0700), 0);
    req = ad_gpo_child_send(f->ev, f->ev, path, "smb://dc/SysVol/x", timeout);
    tc_wait_req(f->ev, req);
    *_data = NULL;
    *_len = 0;
    ret = ad_gpo_child_recv(NULL, req, _data, _len);
    talloc_free(req);
    talloc_free(path);
    return ret;
}

static void test_child(void **state)
{
    struct fixture *f = *state;
    uint8_t *data;
    size_t len;

    assert_int_equal(run_child(f, "printf 'ab\\0c'; [ \"$1\" = smb://dc/SysVol/x ]", 10,
                               &data, &len), EOK);
    assert_int_equal(len, 4);
    assert_memory_equal(data, "ab\0c", 4);
    talloc_free(data);
    assert_int_equal(run_child(f, "exit 0", 10, &data, &len), EOK);
    assert_int_equal(len, 0);
    talloc_free(data);
    assert_int_equal(run_child(f, "printf x; exit 2", 10, &data, &len), ENOENT);
    assert_int_equal(run_child(f, "exit 3", 10, &data, &len), EFBIG);
    assert_int_equal(run_child(f, "printf partial; exit 1", 10, &data, &len), EIO);
    assert_int_equal(run_child(f, "kill -9 $$", 10, &data, &len), EIO);
    /* More than a GptTmpl.inf may be: refused without reading on. */
    assert_int_equal(run_child(f, "head -c 1048577 /dev/zero; exec sleep 30", 10, &data, &len),
                     EFBIG);
    /* Never answers: killed at the timeout. */
    assert_int_equal(run_child(f, "exec sleep 30", 1, &data, &len), ETIMEDOUT);
}

/* The loop goes on while the child starts: posix_spawn ran on another thread. */
static void test_child_off_loop(void **state)
{
    struct fixture *f = *state;
    uint8_t *data;
    size_t len;

    loop_thread = pthread_self();
    spawns = spawns_on_loop = 0;
    assert_int_equal(run_child(f, "printf ok", 10, &data, &len), EOK);
    assert_int_equal(len, 2);
    talloc_free(data);
    assert_int_equal(__atomic_load_n(&spawns, __ATOMIC_SEQ_CST), 1);
    assert_int_equal(__atomic_load_n(&spawns_on_loop, __ATOMIC_SEQ_CST), 0);
}

static void test_child_missing(void **state)
{
    struct fixture *f = *state;
    struct tevent_req *req;
    uint8_t *data = NULL;
    size_t len = 0;

    req = ad_gpo_child_send(f->ev, f->ev, "/nonexistent/gpo_child", "smb://dc/x", 5);
    tc_wait_req(f->ev, req);
    assert_int_not_equal(ad_gpo_child_recv(NULL, req, &data, &len), EOK);
    talloc_free(req);
}

/* tevent registers its backends once, on the first context: not a leak of a test. */
static int group_setup(void **state)
{
    talloc_free(tevent_context_init(NULL));
    return 0;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_cache, setup, teardown),
        cmocka_unit_test_setup_teardown(test_child, setup, teardown),
        cmocka_unit_test_setup_teardown(test_child_off_loop, setup, teardown),
        cmocka_unit_test_setup_teardown(test_child_missing, setup, teardown),
    };
    int failed;

    failed = cmocka_run_group_tests_name("ad_gpo_fetch", tests, group_setup, NULL);
    talloc_disable_null_tracking();     /* frees the tracking context (LeakSanitizer) */
    return failed;
}
