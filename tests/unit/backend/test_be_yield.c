/*
 * be_yield: the turn a sliced back-end job gives the event loop between slices. Checked on a
 * real tevent loop: a chain of yields completes in order, a socket that is ready while the
 * chain runs is served during the chain and not after it (what a tevent immediate would get
 * wrong), pending yields share one descriptor (the loop's), freeing them leaks nothing and
 * the loop yields on (also when the loop goes first), and a process out of descriptors
 * still yields. How long a
 * yield takes is a benchmark's business (tests/perf: the cold big-group figures).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <dirent.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include "providers/backend/be_ctx.h"
#include "tests/unit/common/tc_common.h"

#define CHAIN 200
#define BYTES 50

struct reader {
    int fd;
    size_t served;
};

struct chain {
    struct tevent_context *ev;
    size_t yields;              /* yields completed */
    size_t served_at_end;       /* bytes the socket handler had read when the chain ended */
    size_t *served;
    bool done;
    errno_t ret;
};

static void chain_next(struct tevent_req *subreq);

static void chain_step(struct chain *c)
{
    struct tevent_req *subreq;

    subreq = be_yield_send(c->ev, c->ev);
    assert_non_null(subreq);
    tevent_req_set_callback(subreq, chain_next, c);
}

static void chain_next(struct tevent_req *subreq)
{
    struct chain *c = tevent_req_callback_data_void(subreq);

    c->ret = be_yield_recv(subreq);
    talloc_free(subreq);
    if (c->ret != EOK) {
        c->done = true;
        return;
    }
    c->yields++;
    if (c->yields == CHAIN) {
        c->served_at_end = *c->served;
        c->done = true;
        return;
    }
    chain_step(c);
}

static void socket_readable(struct tevent_context *ev, struct tevent_fd *fde, uint16_t flags,
                            void *pvt)
{
    struct reader *r = pvt;
    char byte;

    /* One byte a turn: the socket stays ready until all BYTES are read. */
    if (read(r->fd, &byte, 1) == 1) {
        r->served++;
    }
}

static void test_chain_serves_ready_sockets(void **state)
{
    struct tevent_context *ev;
    struct chain c = {0};
    char bytes[BYTES];
    struct reader r = {0};
    int sv[2];

    (void)state;
    ev = tevent_context_init(NULL);
    assert_non_null(ev);
    assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
    memset(bytes, 'x', sizeof(bytes));
    assert_int_equal(write(sv[1], bytes, sizeof(bytes)), sizeof(bytes));
    r.fd = sv[0];
    assert_non_null(tevent_add_fd(ev, ev, sv[0], TEVENT_FD_READ, socket_readable, &r));

    c.ev = ev;
    c.served = &r.served;
    chain_step(&c);
    tc_wait_flag(ev, &c.done);
    assert_int_equal(c.ret, EOK);
    assert_int_equal(c.yields, CHAIN);
    /* Every byte was read while the chain still ran. */
    assert_int_equal(c.served_at_end, BYTES);

    talloc_free(ev);
    close(sv[0]);
    close(sv[1]);
}

static size_t open_fds(void)
{
    DIR *d = opendir("/proc/self/fd");
    size_t n = 0;

    assert_non_null(d);
    while (readdir(d) != NULL) {
        n++;
    }
    closedir(d);
    return n;
}

static void test_free_pending(void **state)
{
    struct tevent_context *ev;
    struct chain c = {0};
    size_t served = 0;
    struct tevent_req *reqs[64];
    struct tc_leaks leaks;
    TALLOC_CTX *mem;
    size_t before;
    size_t i;

    (void)state;
    ev = tevent_context_init(NULL);
    assert_non_null(ev);
    before = open_fds();
    tc_leak_start(&leaks);
    mem = talloc_new(NULL);
    for (i = 0; i < 64; i++) {
        reqs[i] = be_yield_send(mem, ev);
        assert_non_null(reqs[i]);
    }
    /* One eventfd for the loop, however many yields wait. */
    assert_int_equal(open_fds(), before + 1);
    talloc_free(mem);
    tc_leak_check(&leaks);
    /* The loop still yields after its waiting yields were freed. */
    c.ev = ev;
    c.served = &served;
    chain_step(&c);
    tc_wait_flag(ev, &c.done);
    assert_int_equal(c.ret, EOK);
    assert_int_equal(c.yields, CHAIN);
    assert_int_equal(open_fds(), before + 1);
    talloc_free(ev);
}

/* The loop freed before the pending yields (a teardown that frees the event context
 * first): the yields' descriptors go with the loop, and freeing the yields afterwards must
 * not touch them again. */
static void test_free_loop_first(void **state)
{
    struct tevent_context *ev;
    struct tevent_req *reqs[8];
    TALLOC_CTX *mem;
    size_t before;
    size_t i;

    (void)state;
    mem = talloc_new(NULL);
    assert_non_null(mem);
    before = open_fds();
    ev = tevent_context_init(NULL);
    assert_non_null(ev);
    for (i = 0; i < 8; i++) {
        reqs[i] = be_yield_send(mem, ev);
        assert_non_null(reqs[i]);
    }
    talloc_free(ev);
    assert_int_equal(open_fds(), before);
    talloc_free(mem);
}

/* No descriptor left for an eventfd (a back-end at its RLIMIT_NOFILE with many LDAP
 * connections): the yield still gives the loop its turn and completes, it does not fail
 * the job that yields. */
static void test_no_fd_left(void **state)
{
    struct tevent_context *ev;
    struct chain c = {0};
    struct rlimit saved;
    struct rlimit low;
    size_t served = 0;
    int dups[256];
    size_t ndups = 0;
    int fd;

    (void)state;
    ev = tevent_context_init(NULL);
    assert_non_null(ev);
    assert_int_equal(getrlimit(RLIMIT_NOFILE, &saved), 0);
    low = saved;
    low.rlim_cur = (rlim_t)open_fds() + 4;
    assert_int_equal(setrlimit(RLIMIT_NOFILE, &low), 0);
    /* Every descriptor below the limit taken. */
    while (ndups < sizeof(dups) / sizeof(dups[0]) && (fd = dup(0)) >= 0) {
        dups[ndups++] = fd;
    }
    c.ev = ev;
    c.served = &served;
    chain_step(&c);
    tc_wait_flag(ev, &c.done);
    while (ndups > 0) {
        close(dups[--ndups]);
    }
    assert_int_equal(setrlimit(RLIMIT_NOFILE, &saved), 0);
    assert_int_equal(c.ret, EOK);
    assert_int_equal(c.yields, CHAIN);
    talloc_free(ev);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_chain_serves_ready_sockets),
        cmocka_unit_test(test_free_pending),
        cmocka_unit_test(test_free_loop_first),
        cmocka_unit_test(test_no_fd_left),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
