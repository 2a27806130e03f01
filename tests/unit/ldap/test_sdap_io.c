/*
 * The LDAP connection's socket stays non-blocking on the loop, writes included
 * (sdap_io.c). The peer here is a listening socket of the test that never accepts nor
 * reads, with a tiny receive buffer: a few searches fill the kernel's buffers, the rest
 * wait in the write queue. While they wait the loop keeps turning (a 50 ms timer measures
 * how late it fires; a blocking write would hold it for ldap_opt_timeout), every search
 * ends when the silent connection is given up (never refused with LDAP_BUSY), and freeing
 * the id context with bytes still queued leaks nothing. No slapd is needed.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>
#include <cmocka.h>

#include "tests/unit/ldap/sdap_fixture.h"

#define NUM_LOOKUPS 400

struct lag {
    struct test_ctx *t;
    struct tevent_timer *timer;
    struct timeval due;
    uint64_t worst_usec;
    size_t max_queued;          /* bytes seen waiting in the write queue */
};

static void lag_tick(struct tevent_context *ev, struct tevent_timer *te, struct timeval now,
                     void *pvt)
{
    struct lag *lag = pvt;
    struct timeval t = tevent_timeval_current();
    int64_t late = ((int64_t)t.tv_sec - lag->due.tv_sec) * 1000000
                   + (t.tv_usec - lag->due.tv_usec);

    if (late > 0 && (uint64_t)late > lag->worst_usec) {
        lag->worst_usec = (uint64_t)late;
    }
    if (lag->t->id_ctx != NULL && sdap_conn_pending(lag->t->id_ctx->conn) > lag->max_queued) {
        lag->max_queued = sdap_conn_pending(lag->t->id_ctx->conn);
    }
    lag->due = tevent_timeval_current_ofs(0, 50000);
    lag->timer = tevent_add_timer(ev, lag, lag->due, lag_tick, lag);
}

struct results {
    size_t pending;
    size_t timedout;
    size_t dropped;             /* EIO: the silent connection was dropped */
    size_t other;
    errno_t first_other;
    bool done;
};

static void lookup_done(struct tevent_req *req)
{
    struct results *r = tevent_req_callback_data_void(req);
    struct sdap_user *u = NULL;
    errno_t ret;

    ret = sdap_get_user_recv(req, req, &u);
    talloc_free(req);
    if (ret == ETIMEDOUT) {
        r->timedout++;
    } else if (ret == EIO) {
        r->dropped++;
    } else {
        if (r->other++ == 0) {
            r->first_other = ret;
        }
    }
    if (--r->pending == 0) {
        r->done = true;
    }
}

static void start_lookup(struct test_ctx *t, struct results *r, const char *name)
{
    struct tevent_req *req;

    req = sdap_get_user_send(t, t->ev, t->id_ctx, SDAP_BY_NAME, name, 0);
    assert_non_null(req);
    tevent_req_set_callback(req, lookup_done, r);
    r->pending++;
}

static void nop(struct tevent_context *ev, struct tevent_timer *te, struct timeval now,
                void *pvt)
{
}

/* A loopback listener nobody accepts on; its port. */
static int deaf_listener(int *_port)
{
    struct sockaddr_in sin = { .sin_family = AF_INET };
    socklen_t len = sizeof(sin);
    int small = 2048;
    int fd;

    fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    assert_true(fd >= 0);
    /* Inherited by the connections the kernel completes in the backlog. */
    assert_int_equal(setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &small, sizeof(small)), 0);
    sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    assert_int_equal(bind(fd, (struct sockaddr *)&sin, sizeof(sin)), 0);
    assert_int_equal(listen(fd, 4), 0);
    assert_int_equal(getsockname(fd, (struct sockaddr *)&sin, &len), 0);
    *_port = ntohs(sin.sin_port);
    return fd;
}

static void test_writes_never_block(void **state)
{
    struct test_ctx *t = *state;
    struct results r = { 0 };
    struct lag *lag;
    char name[300];
    int small = 4096;
    int cfd = -1;
    int port;
    int fd;
    int i;

    fd = deaf_listener(&port);
    fx_ctx(t, "ldap_uri = ldap://127.0.0.1:%d\nldap_search_base = dc=test\n"
           "ldap_search_timeout = 3\nldap_opt_timeout = 30\nldap_network_timeout = 3\n",
           port);
    lag = talloc_zero(t->mem, struct lag);
    assert_non_null(lag);
    lag->t = t;
    lag->due = tevent_timeval_current_ofs(0, 50000);
    lag->timer = tevent_add_timer(t->ev, lag, lag->due, lag_tick, lag);
    /* A first lookup opens the connection; then its send buffer is made tiny, so that the
     * kernel takes a few KB at most. */
    start_lookup(t, &r, "first");
    while (t->id_ctx->conn == NULL) {
        tevent_add_timer(t->ev, lag, tevent_timeval_current_ofs(0, 10000), nop, NULL);
        tevent_loop_once(t->ev);
    }
    assert_int_equal(ldap_get_option(sdap_conn_ld(t->id_ctx->conn), LDAP_OPT_DESC, &cfd),
                     LDAP_OPT_SUCCESS);
    assert_int_equal(setsockopt(cfd, SOL_SOCKET, SO_SNDBUF, &small, sizeof(small)), 0);
    /* Long names: NUM_LOOKUPS searches of ~300 bytes each, far more than the buffers. */
    for (i = 1; i < NUM_LOOKUPS; i++) {
        snprintf(name, sizeof(name), "u%04d%0250d", i, 0);
        start_lookup(t, &r, name);
    }
    tc_wait_flag(t->ev, &r.done);
    printf("# %d lookups to a peer that never reads: %zu timed out, %zu failed with the "
           "dropped connection, %zu other (first: %s); up to %zu bytes queued; worst loop "
           "lag %.1f ms\n", NUM_LOOKUPS, r.timedout, r.dropped, r.other,
           r.other > 0 ? sss_strerror(r.first_other) : "-", lag->max_queued,
           lag->worst_usec / 1000.0);
    /* The peer never says a word: at the first timeout the connection is dropped as hung
     * and every lookup fails with it (none is refused as busy, none hangs). */
    assert_int_equal(r.other, 0);
    assert_int_equal(r.timedout + r.dropped, NUM_LOOKUPS);
    assert_true(lag->max_queued > 0);
    /* A write blocking until ldap_opt_timeout would hold the loop 30 s; a loop starved of
     * CPU on a loaded machine has been seen to lag ~3 s: 10 s tells the two apart. */
    assert_true(lag->worst_usec < 10000000);
    talloc_free(lag);
    /* Freed with bytes still queued: nothing leaks (checked in teardown). */
    talloc_zfree(t->id_ctx);
    close(fd);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        FX_TEST(test_writes_never_block),
    };

    fx_debug_from_env();
    return cmocka_run_group_tests(tests, NULL, NULL);
}
