/*
 * TLS in the LDAP id provider, against private slapds started by test_sdap_tls.sh (see
 * there): StartTLS and ldaps:// with ldap_tls_cacert and ldap_tls_reqcert, a wrong CA,
 * reqcert = never, StartTLS refused by a server without TLS, per-domain TLS options, and
 * two "servers" in this process that accept TCP but never finish a TLS handshake (one
 * silent from the start, for ldaps://; one that accepts StartTLS and then goes silent),
 * which must fail within ldap_network_timeout while other timers on the loop keep firing.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <cmocka.h>

#include "tests/unit/ldap/sdap_fixture.h"

/* The options every test here starts from; each adds its servers and TLS settings. */
#define BASE "ldap_search_base = ou=r2307,dc=test\nmin_id = 1000\n"

/* ---- a ticking timer: how long did the loop stay away? ------------------------------- */

struct ticker {
    struct tevent_context *ev;
    struct tevent_timer *te;
    uint64_t last;
    uint64_t max_gap;       /* usec between two ticks (or the start and the first tick) */
    unsigned int ticks;
};

#define TICK_USEC 50000

static void tick(struct tevent_context *ev, struct tevent_timer *te, struct timeval now,
                 void *pvt)
{
    struct ticker *tk = pvt;
    uint64_t t = sss_monotonic_usec();

    if (t - tk->last > tk->max_gap) {
        tk->max_gap = t - tk->last;
    }
    tk->last = t;
    tk->ticks++;
    tk->te = tevent_add_timer(ev, tk, tevent_timeval_current_ofs(0, TICK_USEC), tick, tk);
}

static struct ticker *ticker_start(struct test_ctx *t)
{
    struct ticker *tk = talloc_zero(t->mem, struct ticker);

    assert_non_null(tk);
    tk->ev = t->ev;
    tk->last = sss_monotonic_usec();
    tk->te = tevent_add_timer(t->ev, tk, tevent_timeval_current_ofs(0, TICK_USEC), tick, tk);
    assert_non_null(tk->te);
    return tk;
}

/* The worst gap, counting the time since the last tick up to now. */
static uint64_t ticker_stop(struct ticker *tk)
{
    uint64_t t = sss_monotonic_usec();
    uint64_t gap = tk->max_gap;

    if (t - tk->last > gap) {
        gap = t - tk->last;
    }
    talloc_free(tk);
    return gap;
}

/* ---- requests --------------------------------------------------------------------------- */

static errno_t get_user(struct test_ctx *t, struct sdap_id_ctx *id_ctx, const char *name,
                        struct sdap_user **_user)
{
    return fx_get_user(t, id_ctx, SDAP_BY_NAME, name, 0, _user);
}

/* True when the current connection of id_ctx runs over TLS. */
static bool conn_is_tls(struct sdap_id_ctx *id_ctx)
{
    void *ssl = NULL;

    if (!sdap_conn_usable(id_ctx->conn)) {
        return false;
    }
    if (ldap_get_option(sdap_conn_ld(id_ctx->conn), LDAP_OPT_X_TLS_SSL_CTX, &ssl)
            != LDAP_OPT_SUCCESS) {
        return false;
    }
    return ssl != NULL;
}

/* user01 through id_ctx works, over TLS. */
static void assert_tls_lookup(struct test_ctx *t, struct sdap_id_ctx *id_ctx)
{
    struct sdap_user *u = NULL;

    assert_int_equal(get_user(t, id_ctx, "user01", &u), EOK);
    assert_string_equal(u->name, "user01");
    assert_int_equal(u->uid, 10001);
    assert_true(conn_is_tls(id_ctx));
}

/* A lookup through id_ctx fails with the domain offline, without data, quickly. */
static void assert_tls_refused(struct test_ctx *t, struct sdap_id_ctx *id_ctx)
{
    struct sdap_user *u = NULL;
    uint64_t start = sss_monotonic_usec();

    assert_int_equal(get_user(t, id_ctx, "user01", &u), ENETUNREACH);
    assert_null(u);
    assert_true(sdap_id_ctx_offline(id_ctx));
    assert_null(id_ctx->conn);
    assert_true(sss_monotonic_usec() - start < 2000000);
}

#define CA "ldap_tls_cacert = %s\n"

/* ---- tests ------------------------------------------------------------------------------ */

static void test_starttls_demand(void **state)
{
    struct test_ctx *t = *state;
    struct sdap_id_ctx *id_ctx;
    struct sdap_id_stats st;
    struct sdap_user **users = NULL;
    struct tevent_req *req;
    size_t num = 0;

    id_ctx = fx_ctx(t, BASE "ldap_uri = %s\nldap_id_use_start_tls = true\n" CA
                    "ldap_tls_reqcert = demand\nldap_page_size = 3\n",
                    fx_env("SDAP_TLS_URI"), fx_env("SDAP_TLS_CA"));
    assert_tls_lookup(t, id_ctx);
    /* more lookups on the same TLS connection */
    assert_tls_lookup(t, id_ctx);
    sdap_id_ctx_get_stats(id_ctx, &st);
    assert_int_equal(st.connects, 1);
    /* a paged enumeration: many messages, several in one TLS record */
    req = sdap_enumerate_users_send(t->mem, t->ev, id_ctx);
    tc_wait_req(t->ev, req);
    assert_int_equal(sdap_enumerate_users_recv(t->mem, req, &users, &num), EOK);
    talloc_free(req);
    assert_true(num >= 5);
    sdap_id_ctx_get_stats(id_ctx, &st);
    assert_true(st.pages > 1);
    /* and a reconnect does the handshake again */
    sdap_id_ctx_disconnect(id_ctx);
    assert_tls_lookup(t, id_ctx);
}

static void test_ldaps_demand(void **state)
{
    struct test_ctx *t = *state;
    struct sdap_id_ctx *id_ctx;

    id_ctx = fx_ctx(t, BASE "ldap_uri = %s\n" CA "ldap_tls_reqcert = demand\n",
                    fx_env("SDAP_TLS_LDAPS_URI"), fx_env("SDAP_TLS_CA"));
    assert_tls_lookup(t, id_ctx);
    assert_string_equal(sdap_id_ctx_server(id_ctx), fx_env("SDAP_TLS_LDAPS_URI"));
    /* hard and the default (hard) too */
    talloc_free(id_ctx);
    id_ctx = fx_ctx(t, BASE "ldap_uri = %s\n" CA "ldap_tls_reqcert = hard\n",
                    fx_env("SDAP_TLS_LDAPS_URI"), fx_env("SDAP_TLS_CA"));
    assert_tls_lookup(t, id_ctx);
    talloc_free(id_ctx);
    id_ctx = fx_ctx(t, BASE "ldap_uri = %s\n" CA, fx_env("SDAP_TLS_LDAPS_URI"),
                    fx_env("SDAP_TLS_CA"));
    assert_tls_lookup(t, id_ctx);
}

static void test_wrong_ca(void **state)
{
    struct test_ctx *t = *state;
    struct sdap_id_ctx *id_ctx;
    struct sdap_id_stats st;
    const char *reqcert[] = { "demand", "hard" };
    size_t i;

    for (i = 0; i < 2; i++) {
        /* StartTLS: the StartTLS exchange succeeds, the handshake fails */
        id_ctx = fx_ctx(t, BASE "ldap_uri = %s\nldap_id_use_start_tls = true\n" CA
                        "ldap_tls_reqcert = %s\n",
                        fx_env("SDAP_TLS_URI"), fx_env("SDAP_TLS_OTHER_CA"), reqcert[i]);
        assert_tls_refused(t, id_ctx);
        talloc_free(id_ctx);
        /* ldaps://, two servers: both tried, both refused */
        id_ctx = fx_ctx(t, BASE "ldap_uri = %s\nldap_backup_uri = %s\n" CA
                        "ldap_tls_reqcert = %s\n",
                        fx_env("SDAP_TLS_LDAPS_URI"), fx_env("SDAP_TLS_LDAPS_URI"),
                        fx_env("SDAP_TLS_OTHER_CA"), reqcert[i]);
        assert_tls_refused(t, id_ctx);
        sdap_id_ctx_get_stats(id_ctx, &st);
        assert_int_equal(st.connect_failures, 2);
        assert_int_equal(st.connects, 0);
        talloc_free(id_ctx);
    }
}

static void test_never_wrong_ca(void **state)
{
    struct test_ctx *t = *state;
    struct sdap_id_ctx *id_ctx;

    id_ctx = fx_ctx(t, BASE "ldap_uri = %s\n" CA "ldap_tls_reqcert = never\n",
                    fx_env("SDAP_TLS_LDAPS_URI"), fx_env("SDAP_TLS_OTHER_CA"));
    assert_tls_lookup(t, id_ctx);
    talloc_free(id_ctx);
    id_ctx = fx_ctx(t, BASE "ldap_uri = %s\nldap_id_use_start_tls = true\n" CA
                    "ldap_tls_reqcert = never\n",
                    fx_env("SDAP_TLS_URI"), fx_env("SDAP_TLS_OTHER_CA"));
    assert_tls_lookup(t, id_ctx);
    /* allow and try accept a certificate they cannot verify, too */
    talloc_free(id_ctx);
    id_ctx = fx_ctx(t, BASE "ldap_uri = %s\n" CA "ldap_tls_reqcert = allow\n",
                    fx_env("SDAP_TLS_LDAPS_URI"), fx_env("SDAP_TLS_OTHER_CA"));
    assert_tls_lookup(t, id_ctx);
}

/* A server without TLS refuses StartTLS: the domain fails over to the next server. */
static void test_starttls_without_tls(void **state)
{
    struct test_ctx *t = *state;
    struct sdap_id_ctx *id_ctx;
    struct sdap_id_stats st;

    id_ctx = fx_ctx(t, BASE "ldap_uri = %s\nldap_id_use_start_tls = true\n" CA
                    "ldap_tls_reqcert = demand\n",
                    fx_env("SDAP_PLAIN_URI"), fx_env("SDAP_TLS_CA"));
    assert_tls_refused(t, id_ctx);
    talloc_free(id_ctx);

    id_ctx = fx_ctx(t, BASE "ldap_uri = %s\nldap_backup_uri = %s\n"
                    "ldap_id_use_start_tls = true\n" CA "ldap_tls_reqcert = demand\n",
                    fx_env("SDAP_PLAIN_URI"), fx_env("SDAP_TLS_URI"), fx_env("SDAP_TLS_CA"));
    assert_tls_lookup(t, id_ctx);
    assert_string_equal(sdap_id_ctx_server(id_ctx), fx_env("SDAP_TLS_URI"));
    sdap_id_ctx_get_stats(id_ctx, &st);
    assert_int_equal(st.connect_failures, 1);
}

/* TLS options are per connection: domains with different CAs and reqcert values, on one
 * loop, in every order, each get exactly what they configured. */
static void test_options_do_not_leak(void **state)
{
    struct test_ctx *t = *state;
    struct sdap_id_ctx *good, *bad, *never;
    struct sdap_user *u = NULL;

    never = fx_ctx(t, BASE "ldap_uri = %s\n" CA "ldap_tls_reqcert = never\n",
                   fx_env("SDAP_TLS_LDAPS_URI"), fx_env("SDAP_TLS_OTHER_CA"));
    bad = fx_ctx(t, BASE "ldap_uri = %s\n" CA "ldap_tls_reqcert = demand\n",
                 fx_env("SDAP_TLS_LDAPS_URI"), fx_env("SDAP_TLS_OTHER_CA"));
    good = fx_ctx(t, BASE "ldap_uri = %s\nldap_id_use_start_tls = true\n" CA
                  "ldap_tls_reqcert = demand\n", fx_env("SDAP_TLS_URI"),
                  fx_env("SDAP_TLS_CA"));

    assert_tls_lookup(t, never);        /* "never" must not stick for the others */
    assert_tls_refused(t, bad);
    assert_tls_lookup(t, good);         /* the wrong CA of "bad" must not stick */
    sdap_id_ctx_reset_servers(bad);
    assert_tls_refused(t, bad);         /* the right CA of "good" must not stick */
    sdap_id_ctx_disconnect(never);
    assert_tls_lookup(t, never);
    sdap_id_ctx_disconnect(good);
    assert_tls_lookup(t, good);
    /* a plain domain next to them still works without TLS */
    talloc_free(bad);
    bad = fx_ctx(t, BASE "ldap_uri = %s\n", fx_env("SDAP_PLAIN_URI"));
    assert_int_equal(get_user(t, bad, "user01", &u), EOK);
    assert_false(conn_is_tls(bad));
}

/* ---- servers that never finish a handshake -------------------------------------------- */

struct fake_server {
    int lfd;
    int port;
    bool starttls;          /* answer the StartTLS request, then say nothing */
    struct tevent_fd *lfde;
    int cfd;
    struct tevent_fd *cfde;
    bool answered;
};

static int fake_server_destructor(struct fake_server *fs)
{
    talloc_zfree(fs->cfde);
    talloc_zfree(fs->lfde);
    if (fs->cfd >= 0) {
        close(fs->cfd);
    }
    close(fs->lfd);
    return 0;
}

/* The client's first message: the StartTLS request. Answer it with success, keeping its
 * message id; everything after (the TLS ClientHello) is read and ignored. */
static void fake_server_read(struct tevent_context *ev, struct tevent_fd *fde,
                             uint16_t flags, void *pvt)
{
    struct fake_server *fs = pvt;
    uint8_t buf[4096];
    uint8_t resp[] = { 0x30, 0x0c, 0x02, 0x01, 0x00, 0x78, 0x07,
                       0x0a, 0x01, 0x00, 0x04, 0x00, 0x04, 0x00 };
    ssize_t n;

    n = read(fs->cfd, buf, sizeof(buf));
    if (n <= 0) {
        talloc_zfree(fs->cfde);
        return;
    }
    if (fs->answered) {
        return;
    }
    fs->answered = true;
    /* 30 LL 02 01 ID 77 ...: a short request with a one-byte message id */
    assert_true(n > 5 && buf[0] == 0x30 && buf[2] == 0x02 && buf[3] == 0x01 && buf[5] == 0x77);
    resp[4] = buf[4];
    assert_int_equal(write(fs->cfd, resp, sizeof(resp)), sizeof(resp));
}

static void fake_server_accept(struct tevent_context *ev, struct tevent_fd *fde,
                               uint16_t flags, void *pvt)
{
    struct fake_server *fs = pvt;

    if (fs->cfd >= 0) {
        return;
    }
    fs->cfd = accept(fs->lfd, NULL, NULL);
    assert_true(fs->cfd >= 0);
    fs->cfde = tevent_add_fd(ev, fs, fs->cfd, TEVENT_FD_READ, fake_server_read, fs);
    assert_non_null(fs->cfde);
}

/* A listener on 127.0.0.1. Silent: never accepts (the kernel completes the TCP handshake,
 * nothing ever answers). starttls: answers StartTLS from this same loop, then is silent. */
static struct fake_server *fake_server(struct test_ctx *t, bool starttls)
{
    struct fake_server *fs = talloc_zero(t->mem, struct fake_server);
    struct sockaddr_in sin = { .sin_family = AF_INET };
    socklen_t len = sizeof(sin);

    assert_non_null(fs);
    fs->cfd = -1;
    fs->starttls = starttls;
    sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    fs->lfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    assert_true(fs->lfd >= 0);
    talloc_set_destructor(fs, fake_server_destructor);
    assert_int_equal(bind(fs->lfd, (struct sockaddr *)&sin, sizeof(sin)), 0);
    assert_int_equal(listen(fs->lfd, 8), 0);
    assert_int_equal(getsockname(fs->lfd, (struct sockaddr *)&sin, &len), 0);
    fs->port = ntohs(sin.sin_port);
    if (starttls) {
        fs->lfde = tevent_add_fd(t->ev, fs, fs->lfd, TEVENT_FD_READ, fake_server_accept, fs);
        assert_non_null(fs->lfde);
    }
    return fs;
}

/* Connects through a server that never completes the TLS handshake, with
 * ldap_network_timeout = 2, while a timer ticks every 50 ms on the same loop. */
static void silent_handshake(struct test_ctx *t, bool starttls)
{
    struct fake_server *fs = fake_server(t, starttls);
    struct sdap_id_ctx *id_ctx;
    struct sdap_user *u = NULL;
    struct ticker *tk;
    uint64_t start, elapsed, gap;
    errno_t ret;

    id_ctx = fx_ctx(t, BASE "ldap_uri = %s://127.0.0.1:%d\nldap_id_use_start_tls = %s\n" CA
                    "ldap_tls_reqcert = demand\nldap_network_timeout = 2\n",
                    starttls ? "ldap" : "ldaps", fs->port, starttls ? "true" : "false",
                    fx_env("SDAP_TLS_CA"));
    tk = ticker_start(t);
    start = sss_monotonic_usec();
    ret = get_user(t, id_ctx, "user01", &u);
    elapsed = sss_monotonic_usec() - start;
    gap = ticker_stop(tk);
    print_message("    %s handshake with a silent server: failed after %.2f s, "
                  "longest stall of the loop %.3f s\n", starttls ? "StartTLS" : "ldaps",
                  elapsed / 1e6, gap / 1e6);
    assert_int_equal(ret, ENETUNREACH);
    assert_null(u);
    if (starttls) {
        assert_true(fs->answered);     /* the handshake was really under way */
    }
    assert_true(elapsed >= 1500000);
    assert_true(elapsed < 3500000);
    /* the loop kept running: no stall much longer than the ticker period */
    assert_true(gap < 500000);
    talloc_free(id_ctx);
    talloc_free(fs);
}

static void test_silent_ldaps(void **state)
{
    silent_handshake(*state, false);
}

static void test_silent_starttls(void **state)
{
    silent_handshake(*state, true);
}

static void flag_set(struct tevent_context *ev, struct tevent_timer *te, struct timeval now,
                     void *pvt)
{
    *(bool *)pvt = true;
}

/* Freeing the id context while a handshake is under way neither hangs nor leaks (the
 * helper thread frees the handle; valgrind checks). */
static void test_free_during_handshake(void **state)
{
    struct test_ctx *t = *state;
    struct fake_server *fs = fake_server(t, false);
    struct sdap_id_ctx *id_ctx;
    struct tevent_req *req;
    struct sdap_id_stats st;
    uint64_t start;
    bool later = false;

    id_ctx = fx_ctx(t, BASE "ldap_uri = ldaps://127.0.0.1:%d\n" CA "ldap_network_timeout = 2\n",
                    fs->port, fx_env("SDAP_TLS_CA"));
    req = sdap_get_user_send(t->mem, t->ev, id_ctx, SDAP_BY_NAME, "user01", 0);
    assert_non_null(req);
    /* TCP connects at once; then the handshake hangs */
    assert_non_null(tevent_add_timer(t->ev, t->mem, tevent_timeval_current_ofs(0, 300000),
                                     flag_set, &later));
    tc_wait_flag(t->ev, &later);
    sdap_id_ctx_get_stats(id_ctx, &st);
    assert_int_equal(st.connect_failures, 0);
    start = sss_monotonic_usec();
    talloc_free(req);
    talloc_free(id_ctx);
    assert_true(sss_monotonic_usec() - start < 100000);
    talloc_free(fs);
    usleep(200000);     /* let the thread finish before leaks are counted */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        FX_TEST(test_starttls_demand),
        FX_TEST(test_ldaps_demand),
        FX_TEST(test_wrong_ca),
        FX_TEST(test_never_wrong_ca),
        FX_TEST(test_starttls_without_tls),
        FX_TEST(test_options_do_not_leak),
        FX_TEST(test_silent_ldaps),
        FX_TEST(test_silent_starttls),
        FX_TEST(test_free_during_handshake),
    };
    fx_debug_from_env();
    return cmocka_run_group_tests(tests, NULL, NULL);
}
