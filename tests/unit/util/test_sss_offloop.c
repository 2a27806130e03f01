/*
 * sss_offloop (src/util/sss_offloop.h): blocking jobs on worker threads completing on a
 * real tevent loop. Checked: results come back and callbacks run on the loop's thread;
 * a one-thread pool completes in submission order; a pool never runs more jobs at once
 * than its bound; freeing a request while its job is queued drops it at once, while it
 * runs calls hurry and lets the thread drop it (a race run many times: every arg is
 * dropped exactly once, none leaks); freeing a pool cancels its requests; spawned
 * children get working pipes, an unknown program gives ENOENT, a cancelled spawn kills
 * its child. Run under ASan/UBSan/LSan in CI.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "util/sss_offloop.h"
#include "tests/unit/common/tc_common.h"

#define JOBS 32

static atomic_int drops;
static atomic_int double_drops;
static atomic_int running_now;
static atomic_int running_max;

struct job {
    unsigned int in;
    unsigned int out;
    unsigned int sleep_us;
    pthread_t thread;
    int block_fd;               /* >= 0: run blocks reading it until hurry closes its peer */
    int hurry_fd;
    atomic_int dropped;
};

static void job_run(void *arg)
{
    struct job *j = arg;
    int now = atomic_fetch_add(&running_now, 1) + 1;
    int max = atomic_load(&running_max);
    char c;

    while (now > max && !atomic_compare_exchange_weak(&running_max, &max, now)) {
    }
    j->thread = pthread_self();
    if (j->sleep_us > 0) {
        usleep(j->sleep_us);
    }
    if (j->block_fd >= 0) {
        while (read(j->block_fd, &c, 1) < 0 && errno == EINTR) {
        }
    }
    j->out = j->in * 3 + 1;
    atomic_fetch_sub(&running_now, 1);
}

static void job_drop(void *arg)
{
    struct job *j = arg;

    if (atomic_fetch_add(&j->dropped, 1) != 0) {
        atomic_fetch_add(&double_drops, 1);
        return;
    }
    if (j->block_fd >= 0) {
        close(j->block_fd);
    }
    if (j->hurry_fd >= 0) {
        close(j->hurry_fd);
    }
    free(j);
    atomic_fetch_add(&drops, 1);
}

static void job_hurry(void *arg)
{
    struct job *j = arg;

    /* EOF for the blocked read(). */
    close(j->hurry_fd);
    j->hurry_fd = -1;
}

static const struct sss_offloop_ops job_ops = {
    .run = job_run, .drop = job_drop, .hurry = job_hurry,
};

static struct job *job_new(unsigned int in, unsigned int sleep_us)
{
    struct job *j = calloc(1, sizeof(*j));

    assert_non_null(j);
    j->in = in;
    j->sleep_us = sleep_us;
    j->block_fd = j->hurry_fd = -1;
    return j;
}

static void reset_counts(void)
{
    atomic_store(&drops, 0);
    atomic_store(&double_drops, 0);
    atomic_store(&running_now, 0);
    atomic_store(&running_max, 0);
}

/* Waits (bounded) for the threads to drop n jobs. */
static void wait_drops(int n)
{
    for (int i = 0; i < 10000 && atomic_load(&drops) < n; i++) {
        usleep(1000);
    }
    assert_int_equal(atomic_load(&drops), n);
    assert_int_equal(atomic_load(&double_drops), 0);
}

struct seen {
    struct tevent_req *reqs[JOBS];
    struct job *jobs[JOBS];
    size_t next;
    size_t done;
    bool all;
    bool in_order;
    bool wrong;
    pthread_t loop;
};

static void seen_cb(struct tevent_req *req)
{
    struct seen *seen = tevent_req_callback_data_void(req);
    size_t i;

    for (i = 0; i < JOBS && seen->reqs[i] != req; i++) {
    }
    assert_true(i < JOBS);
    assert_int_equal(sss_offloop_recv(req), EOK);
    if (i != seen->next) {
        seen->in_order = false;
    }
    seen->next = i + 1;
    if (!pthread_equal(pthread_self(), seen->loop)
            || pthread_equal(seen->jobs[i]->thread, seen->loop)
            || seen->jobs[i]->out != seen->jobs[i]->in * 3 + 1) {
        seen->wrong = true;
    }
    seen->done++;
    seen->all = seen->done == JOBS;
}

static void run_jobs(size_t threads, bool expect_order)
{
    struct tc_leaks leaks;
    struct tevent_context *ev;
    struct sss_offloop *pool = NULL;
    struct seen seen = { .loop = pthread_self(), .in_order = true };
    size_t i;

    reset_counts();
    tc_leak_start(&leaks);
    ev = tevent_context_init(NULL);
    assert_non_null(ev);
    if (threads > 0) {
        assert_int_equal(sss_offloop_create(ev, ev, threads, &pool), EOK);
    }
    for (i = 0; i < JOBS; i++) {
        /* Earlier jobs sleep longer: only a single thread keeps them in order. */
        seen.jobs[i] = job_new(i, (JOBS - i) * 200);
        seen.reqs[i] = sss_offloop_send(ev, ev, pool, &job_ops, seen.jobs[i]);
        assert_non_null(seen.reqs[i]);
        tevent_req_set_callback(seen.reqs[i], seen_cb, &seen);
    }
    tc_wait_flag(ev, &seen.all);
    assert_false(seen.wrong);
    if (expect_order) {
        assert_true(seen.in_order);
    }
    assert_true(atomic_load(&running_max)
                <= (int)(threads > 0 ? threads : SSS_OFFLOOP_SHARED_THREADS));
    if (threads > 1) {
        assert_true(atomic_load(&running_max) > 1);
    }
    for (i = 0; i < JOBS; i++) {
        talloc_free(seen.reqs[i]);
    }
    assert_int_equal(atomic_load(&drops), JOBS);
    talloc_free(ev);
    tc_leak_check(&leaks);
}

static void test_shared_pool(void **state)
{
    (void)state;
    run_jobs(0, false);
}

static void test_one_thread_in_order(void **state)
{
    (void)state;
    run_jobs(1, true);
}

static void test_bounded(void **state)
{
    (void)state;
    run_jobs(3, false);
}

/* Freed while queued: dropped at once on the loop, no callback. */
static void test_cancel_queued(void **state)
{
    struct tc_leaks leaks;
    struct tevent_context *ev;
    struct sss_offloop *pool;
    struct tevent_req *first;
    struct tevent_req *queued;
    struct job *blocker;
    int fds[2];
    bool done = false;

    (void)state;
    reset_counts();
    tc_leak_start(&leaks);
    ev = tevent_context_init(NULL);
    assert_non_null(ev);
    assert_int_equal(sss_offloop_create(ev, ev, 1, &pool), EOK);
    assert_int_equal(pipe(fds), 0);
    blocker = job_new(1, 0);
    blocker->block_fd = fds[0];
    blocker->hurry_fd = fds[1];
    first = sss_offloop_send(ev, ev, pool, &job_ops, blocker);
    assert_non_null(first);
    queued = sss_offloop_send(ev, ev, pool, &job_ops, job_new(2, 0));
    assert_non_null(queued);
    tevent_req_set_callback(queued, tc_flag_done, &done);
    talloc_free(queued);
    assert_int_equal(atomic_load(&drops), 1);
    /* The running one: hurry closes its pipe, its thread drops it. */
    talloc_free(first);
    wait_drops(2);
    assert_false(done);
    talloc_free(ev);
    tc_leak_check(&leaks);
}

/* The race: requests freed at every point of their jobs' lives, many times. */
static void test_cancel_race(void **state)
{
    struct tc_leaks leaks;
    struct tevent_context *ev;
    struct sss_offloop *pool;
    struct tevent_req *reqs[JOBS];
    bool flags[JOBS];
    int total = 0;
    int round;
    size_t i;

    (void)state;
    reset_counts();
    srand(42);
    tc_leak_start(&leaks);
    ev = tevent_context_init(NULL);
    assert_non_null(ev);
    assert_int_equal(sss_offloop_create(ev, ev, 4, &pool), EOK);
    for (round = 0; round < 50; round++) {
        for (i = 0; i < JOBS; i++) {
            flags[i] = false;
            reqs[i] = sss_offloop_send(ev, ev, pool, &job_ops,
                                       job_new(i, (unsigned int)(rand() % 300)));
            assert_non_null(reqs[i]);
            tevent_req_set_callback(reqs[i], tc_flag_done, &flags[i]);
        }
        /* Some freed before any thread ran them, the rest at random loop turns. */
        for (i = 0; i < JOBS; i += 5) {
            talloc_zfree(reqs[i]);
        }
        for (int turn = 0; turn < 4; turn++) {
            usleep((useconds_t)(rand() % 400));
            tevent_loop_once(ev);
            for (i = 0; i < JOBS; i++) {
                if (reqs[i] != NULL && rand() % 3 == 0) {
                    talloc_zfree(reqs[i]);
                }
            }
        }
        for (i = 0; i < JOBS; i++) {
            talloc_zfree(reqs[i]);
        }
        total += JOBS;
    }
    wait_drops(total);
    /* And the pool freed with jobs still running. */
    for (i = 0; i < 8; i++) {
        reqs[i] = sss_offloop_send(ev, ev, pool, &job_ops, job_new(i, 2000));
        assert_non_null(reqs[i]);
    }
    usleep(500);
    talloc_free(ev);
    wait_drops(total + 8);
    tc_leak_check(&leaks);
}

struct cancelled {
    errno_t ret;
    bool done;
};

static void cancelled_cb(struct tevent_req *req)
{
    struct cancelled *c = tevent_req_callback_data_void(req);

    c->ret = sss_offloop_recv(req);
    c->done = true;
}

/* Freeing the pool fails its requests (from the loop) with ECANCELED. */
static void test_pool_freed(void **state)
{
    struct tc_leaks leaks;
    struct tevent_context *ev;
    struct sss_offloop *pool;
    struct tevent_req *running;
    struct tevent_req *queued;
    struct cancelled c1 = { 0 };
    struct cancelled c2 = { 0 };
    struct job *blocker;
    int fds[2];

    (void)state;
    reset_counts();
    tc_leak_start(&leaks);
    ev = tevent_context_init(NULL);
    assert_non_null(ev);
    assert_int_equal(sss_offloop_create(ev, ev, 1, &pool), EOK);
    assert_int_equal(pipe(fds), 0);
    blocker = job_new(1, 0);
    blocker->block_fd = fds[0];
    blocker->hurry_fd = -1;
    running = sss_offloop_send(ev, ev, pool, &job_ops, blocker);
    queued = sss_offloop_send(ev, ev, pool, &job_ops, job_new(2, 0));
    assert_non_null(running);
    assert_non_null(queued);
    tevent_req_set_callback(running, cancelled_cb, &c1);
    tevent_req_set_callback(queued, cancelled_cb, &c2);
    while (atomic_load(&running_now) == 0) {
        usleep(100);
    }
    talloc_free(pool);
    assert_false(c1.done);      /* never inside the free */
    tc_wait_flag(ev, &c1.done);
    tc_wait_flag(ev, &c2.done);
    assert_int_equal(c1.ret, ECANCELED);
    assert_int_equal(c2.ret, ECANCELED);
    talloc_free(queued);
    assert_int_equal(atomic_load(&drops), 1);
    talloc_free(running);
    close(fds[1]);              /* now the blocked job ends and its thread drops it */
    wait_drops(2);
    talloc_free(ev);
    tc_leak_check(&leaks);
}

static void test_bad_args(void **state)
{
    struct tc_leaks leaks;
    struct tevent_context *ev;
    struct sss_offloop *pool;
    struct tevent_req *req;
    static const struct sss_offloop_ops no_run = { .drop = job_drop };

    (void)state;
    reset_counts();
    tc_leak_start(&leaks);
    ev = tevent_context_init(NULL);
    assert_non_null(ev);
    assert_int_equal(sss_offloop_create(ev, ev, 0, &pool), EINVAL);
    req = sss_offloop_send(ev, ev, NULL, &no_run, job_new(1, 0));
    tc_wait_req(ev, req);
    assert_int_equal(sss_offloop_recv(req), EINVAL);
    talloc_free(req);
    assert_int_equal(atomic_load(&drops), 1);      /* still dropped */
    talloc_free(ev);
    tc_leak_check(&leaks);
}

/* ---- spawn ---------------------------------------------------------------------------- */

static void test_spawn_pipes(void **state)
{
    const char *argv[] = { "sh", "-c", "read x; echo \"got:$x:$OFFLOOP_T\"; exit 7", NULL };
    const char *envp[] = { "OFFLOOP_T=env-ok", NULL };
    struct tc_leaks leaks;
    struct tevent_context *ev;
    struct tevent_req *req;
    char buf[64] = "";
    size_t len = 0;
    ssize_t n;
    int in_fd = -1;
    int out_fd = -1;
    int status;
    pid_t pid = -1;

    (void)state;
    tc_leak_start(&leaks);
    ev = tevent_context_init(NULL);
    assert_non_null(ev);
    req = sss_spawn_send(ev, ev, NULL, "/bin/sh", argv, envp,
                         SSS_SPAWN_STDIN | SSS_SPAWN_STDOUT);
    tc_wait_req(ev, req);
    assert_int_equal(sss_spawn_recv(req, &pid, &in_fd, &out_fd), EOK);
    talloc_free(req);                   /* the child is ours now: not killed */
    assert_true(pid > 0);
    assert_true(in_fd >= 0 && out_fd >= 0);
    assert_int_equal(write(in_fd, "hello\n", 6), 6);
    close(in_fd);
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 7);
    while ((n = read(out_fd, buf + len, sizeof(buf) - 1 - len)) > 0) {
        len += (size_t)n;
    }
    close(out_fd);
    buf[len] = '\0';
    assert_string_equal(buf, "got:hello:env-ok\n");

    req = sss_spawn_send(ev, ev, NULL, "/nonexistent/offloop_child", argv, NULL, 0);
    tc_wait_req(ev, req);
    assert_int_equal(sss_spawn_recv(req, &pid, NULL, NULL), ENOENT);
    talloc_free(req);
    talloc_free(ev);
    tc_leak_check(&leaks);
}

/* Freed before the caller took the child, done or not: killed and reaped. */
static void test_spawn_cancel(void **state)
{
    const char *argv[] = { "sleep", "60", NULL };
    struct tc_leaks leaks;
    struct tevent_context *ev;
    struct tevent_req *req;
    int status;

    (void)state;
    tc_leak_start(&leaks);
    ev = tevent_context_init(NULL);
    assert_non_null(ev);
    for (int i = 0; i < 20; i++) {
        req = sss_spawn_send(ev, ev, NULL, "/bin/sleep", argv, NULL, SSS_SPAWN_STDOUT);
        assert_non_null(req);
        if (i % 2 == 1) {
            tc_wait_req(ev, req);
        }
        talloc_free(req);
    }
    /* Every child is gone and reaped (the thread's drop may still be at it). */
    for (int i = 0; i < 5000 && waitpid(-1, &status, WNOHANG) != -1; i++) {
        usleep(1000);
    }
    assert_int_equal(waitpid(-1, &status, WNOHANG), -1);
    assert_int_equal(errno, ECHILD);
    talloc_free(ev);
    tc_leak_check(&leaks);
}

static void test_reap(void **state)
{
    const char *argv[] = { "sleep", "60", NULL };
    struct tevent_context *ev;
    struct tevent_req *req;
    pid_t pid;
    int status;

    (void)state;
    ev = tevent_context_init(NULL);
    assert_non_null(ev);
    req = sss_spawn_send(ev, ev, NULL, "/bin/sleep", argv, NULL, 0);
    tc_wait_req(ev, req);
    assert_int_equal(sss_spawn_recv(req, &pid, NULL, NULL), EOK);
    talloc_free(req);
    sss_child_reap(ev, ev, pid, true);
    /* A zombie still answers kill(0): only the reaper's waitpid makes it ESRCH. */
    for (int i = 0; i < 2000 && kill(pid, 0) == 0; i++) {
        tevent_loop_once(ev);
    }
    assert_int_equal(kill(pid, 0), -1);
    assert_int_equal(errno, ESRCH);
    assert_int_equal(waitpid(pid, &status, WNOHANG), -1);
    talloc_free(ev);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_shared_pool),
        cmocka_unit_test(test_one_thread_in_order),
        cmocka_unit_test(test_bounded),
        cmocka_unit_test(test_cancel_queued),
        cmocka_unit_test(test_cancel_race),
        cmocka_unit_test(test_pool_freed),
        cmocka_unit_test(test_bad_args),
        cmocka_unit_test(test_spawn_pipes),
        cmocka_unit_test(test_spawn_cancel),
        cmocka_unit_test(test_reap),
    };
    struct tevent_context *ev;
    int rc;

    /* tevent's one-time backend list, before the first leak baseline. */
    ev = tevent_context_init(NULL);
    talloc_free(ev);
    rc = cmocka_run_group_tests(tests, NULL, NULL);
    tc_leak_end();
    return rc;
}
