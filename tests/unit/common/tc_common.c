/* The shared unit-test helpers of tc_common.h. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <ftw.h>
#include <unistd.h>
#include <cmocka.h>

#include "tests/unit/common/tc_common.h"

void tc_leak_start(struct tc_leaks *leaks)
{
    static bool at_exit;

    /* The tracking context outlives the suite; freed at exit, LeakSanitizer stays quiet
     * in tests that forget tc_leak_end(). */
    if (!at_exit) {
        at_exit = atexit(talloc_disable_null_tracking) == 0;
    }
    talloc_enable_null_tracking();
    leaks->blocks = talloc_total_blocks(NULL);
}

void tc_leak_check(const struct tc_leaks *leaks)
{
    if (talloc_total_blocks(NULL) != leaks->blocks) {
        talloc_report_full(NULL, stderr);
    }
    assert_int_equal(talloc_total_blocks(NULL), leaks->blocks);
}

void tc_leak_end(void)
{
    talloc_disable_null_tracking();
}

char *tc_tmpdir(TALLOC_CTX *mem_ctx, const char *prefix)
{
    char *dir = talloc_asprintf(mem_ctx, "/tmp/%s.XXXXXX", prefix);

    assert_non_null(dir);
    assert_non_null(mkdtemp(dir));
    return dir;
}

static int remove_one(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
    return remove(path);
}

void tc_tmpdir_remove(const char *dir)
{
    assert_non_null(dir);
    assert_int_equal(nftw(dir, remove_one, 16, FTW_DEPTH | FTW_PHYS), 0);
}

void tc_wait_flag(struct tevent_context *ev, bool *flag)
{
    int i;

    for (i = 0; i < TC_WAIT_MAX_TURNS && !*flag; i++) {
        assert_int_equal(tevent_loop_once(ev), 0);
    }
    assert_true(*flag);
}

void tc_flag_done(struct tevent_req *req)
{
    bool *done = tevent_req_callback_data_void(req);

    *done = true;
}

void tc_wait_req(struct tevent_context *ev, struct tevent_req *req)
{
    bool done = false;

    assert_non_null(req);
    tevent_req_set_callback(req, tc_flag_done, &done);
    tc_wait_flag(ev, &done);
}
