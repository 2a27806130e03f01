/*
 * be_pam_hasher: the worker thread that makes cached-credential hashes off the back-end's
 * loop. Checked here on a real tevent loop and a real thread: every job's hash verifies
 * against its own password (and not another's), the callbacks run on the loop in
 * submission order, uncacheable passwords give "", and freeing the hasher with jobs still
 * queued drops them without a callback (the running one by its thread) and leaks nothing
 * (run under ASan/LSan in CI).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <crypt.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "providers/backend/be_pam_private.h"
#include "tests/unit/common/tc_common.h"

#define JOBS 24

struct seen {
    pthread_t loop;
    size_t next;                /* the index the next callback must carry */
    size_t done;
    bool all;
    bool wrong_thread;
    char hashes[JOBS][SYSDB_CREDS_HASH_SIZE];
    errno_t rets[JOBS];
};

struct one {
    struct seen *seen;
    size_t index;
};

static void done_cb(void *pvt, errno_t ret, const char *hash)
{
    struct one *one = pvt;
    struct seen *seen = one->seen;

    if (!pthread_equal(pthread_self(), seen->loop)) {
        seen->wrong_thread = true;
    }
    assert_int_equal(one->index, seen->next);
    seen->next++;
    seen->rets[one->index] = ret;
    if (ret == EOK) {
        snprintf(seen->hashes[one->index], SYSDB_CREDS_HASH_SIZE, "%s", hash);
    }
    seen->done++;
    seen->all = seen->done == JOBS;
}

static void password(char *buf, size_t size, size_t i)
{
    snprintf(buf, size, "Hasher-Pass-%zu", i);
}

static bool verifies(const char *pw, const char *hash)
{
    struct crypt_data cd;
    const char *out;
    bool ok;

    memset(&cd, 0, sizeof(cd));
    out = crypt_rn(pw, hash, &cd, sizeof(cd));
    ok = out != NULL && out[0] != '*' && strcmp(out, hash) == 0;
    explicit_bzero(&cd, sizeof(cd));
    return ok;
}

static void test_jobs_in_order(void **state)
{
    struct tc_leaks leaks;
    struct tevent_context *ev;
    struct be_pam_hasher *h;
    struct seen seen = { .loop = pthread_self() };
    struct one ones[JOBS];
    char pw[64];
    char other[64];
    size_t i;

    (void)state;
    tc_leak_start(&leaks);
    ev = tevent_context_init(NULL);
    assert_non_null(ev);
    assert_int_equal(be_pam_hasher_create(ev, ev, &h), EOK);
    for (i = 0; i < JOBS; i++) {
        ones[i] = (struct one){ .seen = &seen, .index = i };
        password(pw, sizeof(pw), i);
        /* Every fourth one is shorter than min_len: "" (not cacheable). */
        assert_int_equal(be_pam_hasher_submit(h, (const uint8_t *)pw, strlen(pw),
                                              i % 4 == 3 ? 100 : 0, done_cb, &ones[i]),
                         EOK);
    }
    tc_wait_flag(ev, &seen.all);
    assert_false(seen.wrong_thread);
    for (i = 0; i < JOBS; i++) {
        assert_int_equal(seen.rets[i], EOK);
        password(pw, sizeof(pw), i);
        password(other, sizeof(other), (i + 1) % JOBS);
        if (i % 4 == 3) {
            assert_string_equal(seen.hashes[i], "");
            continue;
        }
        assert_int_equal(strncmp(seen.hashes[i], "$y$", 3), 0);
        assert_true(verifies(pw, seen.hashes[i]));
        assert_false(verifies(other, seen.hashes[i]));
    }
    assert_int_equal(be_pam_hasher_submit(h, NULL, 3, 0, done_cb, &ones[0]), EINVAL);
    assert_int_equal(be_pam_hasher_submit(h, (const uint8_t *)"x", 0, 0, done_cb, &ones[0]),
                     EINVAL);
    talloc_free(ev);
    tc_leak_check(&leaks);
}

static void never_cb(void *pvt, errno_t ret, const char *hash)
{
    (void)ret;
    (void)hash;
    *(bool *)pvt = true;
}

/* Freed with jobs queued (and one probably running): no callback, no leak. */
static void test_free_with_jobs_queued(void **state)
{
    struct tc_leaks leaks;
    struct tevent_context *ev;
    struct be_pam_hasher *h;
    bool called = false;
    size_t i;

    (void)state;
    tc_leak_start(&leaks);
    ev = tevent_context_init(NULL);
    assert_non_null(ev);
    assert_int_equal(be_pam_hasher_create(ev, ev, &h), EOK);
    for (i = 0; i < 16; i++) {
        assert_int_equal(be_pam_hasher_submit(h, (const uint8_t *)"Queued-Pass-1", 13, 0,
                                              never_cb, &called), EOK);
    }
    talloc_free(h);
    assert_false(called);
    /* A hasher never used starts no thread and frees cleanly too. */
    assert_int_equal(be_pam_hasher_create(ev, ev, &h), EOK);
    talloc_free(h);
    talloc_free(ev);
    tc_leak_check(&leaks);
}

/* tevent registers its back-ends on the NULL context once: before the leak baselines. */
static int group_setup(void **state)
{
    (void)state;
    talloc_free(tevent_context_init(NULL));
    return 0;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_jobs_in_order),
        cmocka_unit_test(test_free_with_jobs_queued),
    };
    int failed;

    failed = cmocka_run_group_tests_name("be_pam_hasher", tests, group_setup, NULL);
    tc_leak_end();
    return failed;
}
