/*
 * The back-end's request path against a real slapd started by test_be_dp.sh (see that script
 * and test_be.ldif for the data), without a bus: be_account_info_send() is called directly
 * and the cache is checked with the sysdb getters. Users by name and id, removal of what the
 * directory no longer holds, groups (nested, 2,000 members), initgroups (also from a fresh
 * cached user, without searching it again), malformed requests, coalescing of identical requests, the unsupported-provider answer, the offline state machine
 * (dead server, failover to a backup, offline -> online when the server comes back, GoOffline
 * and ResetOffline), enumeration with stale entry removal, the uid/gid 0 guard, the member
 * prefetch (queue, requests waiting for a batch) and the argument checks.
 * Every test has its own cache directory and back-end; leaks are checked in teardown
 * (tests/unit/common: leak baseline, temporary directory, loop waits).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <cmocka.h>

#include "util/util.h"
#include "confdb/confdb.h"
#include "db/sysdb.h"
#include "providers/ldap/sdap.h"
#include "providers/backend/be_ctx.h"
#include "sss_iface/sss_dp.h"
#include "tests/unit/common/tc_common.h"

struct test_ctx {
    struct tc_leaks leaks;
    TALLOC_CTX *mem;
    struct tevent_context *ev;
    struct be_ctx *be;
    char *topdir;
    char *dbdir;
};

struct answer {
    uint16_t dp_error;
    uint32_t error;
    const char *message;
    uint64_t usec;
};

static const char *env(const char *name)
{
    const char *v = getenv(name);

    if (v == NULL) {
        fail_msg("%s is not set: run test_be_dp through test_be_dp.sh", name);
    }
    return v;
}

static void slapd_ctl(const char *what)
{
    char cmd[4096];

    snprintf(cmd, sizeof(cmd), "%s %s", env("BE_TEST_CTL"), what);
    assert_int_equal(system(cmd), 0);
}

static int setup(void **state)
{
    struct tc_leaks leaks;
    struct test_ctx *t;

    tc_leak_start(&leaks);
    t = talloc_zero(NULL, struct test_ctx);
    assert_non_null(t);
    t->leaks = leaks;
    t->mem = talloc_new(t);
    t->ev = tevent_context_init(t->mem);
    assert_non_null(t->ev);
    t->topdir = tc_tmpdir(t, "test_be_dp");
    /* A directory that does not exist yet: be_ctx_create must make it. */
    t->dbdir = talloc_asprintf(t, "%s/sub", t->topdir);
    assert_non_null(t->dbdir);
    *state = t;
    return 0;
}

static int teardown(void **state)
{
    struct test_ctx *t = *state;
    struct tc_leaks leaks = t->leaks;

    talloc_free(t->mem);
    tc_tmpdir_remove(t->topdir);
    talloc_free(t);
    tc_leak_check(&leaks);
    return 0;
}

/* The back-end of domain "test" from the given [domain/test] option lines. */
static void make_be(struct test_ctx *t, const char *fmt, ...)
{
    struct confdb *cdb = NULL;
    char *err = NULL;
    char *opts;
    char *text;
    va_list ap;
    errno_t ret;

    va_start(ap, fmt);
    opts = talloc_vasprintf(t->mem, fmt, ap);
    va_end(ap);
    text = talloc_asprintf(t->mem, "[sssd]\ndomains = test\n[domain/test]\n%s", opts);
    ret = confdb_parse_buffer(t->mem, "test.conf", text, strlen(text), &cdb, &err);
    if (ret != EOK) {
        fail_msg("config refused: %s", err != NULL ? err : sss_strerror(ret));
    }
    ret = be_ctx_create(t->mem, t->ev, cdb, "test", t->dbdir, &t->be);
    assert_int_equal(ret, EOK);
}

/* ldb and tevent register their back-ends and modules on the NULL context once per
 * process: a first back-end, opened and freed here, loads them before any test takes its
 * leak baseline. */
static int group_setup(void **state)
{
    struct test_ctx *t;

    setup((void **)&t);
    make_be(t, "id_provider = proxy\n");
    talloc_free(t->mem);
    tc_tmpdir_remove(t->topdir);
    talloc_free(t);
    return 0;
}

#define LDAP_OPTS "id_provider = ldap\nldap_search_base = dc=test\nldap_schema = rfc2307bis\n" \
                  "entry_cache_user_timeout = 1234\nentry_cache_group_timeout = 2345\n"
#define LIVE LDAP_OPTS "ldap_uri = %s\n"

static struct answer ask(struct test_ctx *t, uint32_t type, const char *filter)
{
    struct answer a = { 0 };
    struct tevent_req *req;
    uint64_t start = sss_monotonic_usec();
    errno_t ret;

    req = be_account_info_send(t->mem, t->ev, t->be, type, filter, 42);
    tc_wait_req(t->ev, req);
    ret = be_account_info_recv(t->mem, req, &a.dp_error, &a.error, &a.message);
    assert_int_equal(ret, EOK);
    talloc_free(req);
    a.usec = sss_monotonic_usec() - start;
    return a;
}

static void tick(struct tevent_context *ev, struct tevent_timer *te, struct timeval now,
                 void *pvt)
{
}

/* Runs the loop until cond(t) holds or ms passed; returns cond(t). Not tc_wait_flag: the
 * tests need a bound in time (a probe after 1 s), and also that something does *not*
 * happen within it. */
static bool wait_until(struct test_ctx *t, bool (*cond)(struct test_ctx *), int ms)
{
    uint64_t deadline = sss_monotonic_usec() + (uint64_t)ms * 1000;
    TALLOC_CTX *tmp = talloc_new(NULL);

    while (!cond(t) && sss_monotonic_usec() < deadline) {
        tevent_add_timer(t->ev, tmp, tevent_timeval_current_ofs(0, 20000), tick, NULL);
        tevent_loop_once(t->ev);
    }
    talloc_free(tmp);
    return cond(t);
}

static bool is_online(struct test_ctx *t) { return !be_is_offline(t->be); }

static bool has(const char **list, const char *name)
{
    for (; list != NULL && *list != NULL; list++) {
        if (strcmp(*list, name) == 0) {
            return true;
        }
    }
    return false;
}

static void store_fake_user(struct test_ctx *t, const char *name, uint32_t uid, time_t when)
{
    struct sysdb_user u = { .name = name, .uid = uid, .gid = 20001 };

    assert_int_equal(sysdb_store_user(t->be->sysdb, &u, when, 1000), EOK);
}

/* ---- tests --------------------------------------------------------------------------- */

static void test_user_by_name_and_id(void **state)
{
    struct test_ctx *t = *state;
    struct sysdb_user *u = NULL;
    struct answer a;

    make_be(t, LIVE, env("BE_TEST_URI"));
    assert_int_equal(access(t->dbdir, F_OK), 0);

    a = ask(t, SSS_DP_USER, "name=alice");
    assert_int_equal(a.dp_error, SSS_DP_ERR_OK);
    assert_int_equal(a.error, 0);
    printf("# figure: cold user lookup (connect + bind + search + store): %.2f ms\n",
           a.usec / 1000.0);
    assert_int_equal(sysdb_get_user_by_name(t->mem, t->be->sysdb, "alice", &u), EOK);
    assert_int_equal(u->uid, 10001);
    assert_int_equal(u->gid, 20001);
    assert_string_equal(u->home, "/home/alice");
    assert_string_equal(u->shell, "/bin/bash");
    assert_int_equal(u->expire - u->last_update, 1234);

    a = ask(t, SSS_DP_USER, "name=alice");
    assert_int_equal(a.dp_error, SSS_DP_ERR_OK);
    printf("# figure: warm user lookup (search + store): %.2f ms\n", a.usec / 1000.0);

    a = ask(t, SSS_DP_USER | SSS_DP_FAST, "idnumber=10002");
    assert_int_equal(a.dp_error, SSS_DP_ERR_OK);
    assert_int_equal(sysdb_get_user_by_uid(t->mem, t->be->sysdb, 10002, &u), EOK);
    assert_string_equal(u->name, "bob@test");
}

static void test_user_not_found_deletes(void **state)
{
    struct test_ctx *t = *state;
    struct sysdb_user *u = NULL;
    struct answer a;

    make_be(t, LIVE, env("BE_TEST_URI"));
    store_fake_user(t, "ghost", 10901, time(NULL));
    store_fake_user(t, "ghost2", 10902, time(NULL));

    a = ask(t, SSS_DP_USER, "name=ghost");
    assert_int_equal(a.dp_error, SSS_DP_ERR_OK);
    assert_int_equal(sysdb_get_user_by_name(t->mem, t->be->sysdb, "ghost", &u), ENOENT);

    a = ask(t, SSS_DP_USER, "idnumber=10902");
    assert_int_equal(a.dp_error, SSS_DP_ERR_OK);
    assert_int_equal(sysdb_get_user_by_uid(t->mem, t->be->sysdb, 10902, &u), ENOENT);

    /* Not cached and not in the directory: still OK. */
    a = ask(t, SSS_DP_USER, "name=nobody-here");
    assert_int_equal(a.dp_error, SSS_DP_ERR_OK);
    a = ask(t, SSS_DP_USER, "idnumber=0");
    assert_int_equal(a.dp_error, SSS_DP_ERR_OK);
}

static void test_groups(void **state)
{
    struct test_ctx *t = *state;
    struct sysdb_group *g = NULL;
    struct answer a;

    make_be(t, LIVE, env("BE_TEST_URI"));
    a = ask(t, SSS_DP_GROUP, "name=g_dev");
    assert_int_equal(a.dp_error, SSS_DP_ERR_OK);
    assert_int_equal(sysdb_get_group_by_name(t->mem, t->be->sysdb, "g_dev", &g), EOK);
    assert_int_equal(g->gid, 20001);
    assert_true(has(g->members, "alice@test"));
    assert_true(has(g->members, "bob@test"));
    assert_int_equal(g->expire - g->last_update, 2345);

    /* Nested: g_all holds frank and, through g_dev, alice and bob. */
    a = ask(t, SSS_DP_GROUP, "idnumber=20004");
    assert_int_equal(a.dp_error, SSS_DP_ERR_OK);
    assert_int_equal(sysdb_get_group_by_gid(t->mem, t->be->sysdb, 20004, &g), EOK);
    assert_string_equal(g->name, "g_all@test");
    assert_true(has(g->members, "frank@test"));
    assert_true(has(g->members, "alice@test"));
    assert_true(has(g->members, "bob@test"));
    assert_true(has(g->member_groups, "g_dev@test"));

    a = ask(t, SSS_DP_GROUP, "name=g_empty");
    assert_int_equal(a.dp_error, SSS_DP_ERR_OK);
    assert_int_equal(sysdb_get_group_by_name(t->mem, t->be->sysdb, "g_empty", &g), EOK);
    assert_null(g->members[0]);

    /* Gone from the directory: removed from the cache, by name and by gid. */
    {
        struct sysdb_group fake = { .name = "g_gone", .gid = 20901 };

        assert_int_equal(sysdb_store_group(t->be->sysdb, &fake, true, time(NULL), 100), EOK);
        fake.name = "g_gone2";
        fake.gid = 20902;
        assert_int_equal(sysdb_store_group(t->be->sysdb, &fake, true, time(NULL), 100), EOK);
    }
    a = ask(t, SSS_DP_GROUP, "name=g_gone");
    assert_int_equal(a.dp_error, SSS_DP_ERR_OK);
    assert_int_equal(sysdb_get_group_by_name(t->mem, t->be->sysdb, "g_gone", &g), ENOENT);
    a = ask(t, SSS_DP_GROUP, "idnumber=20902");
    assert_int_equal(a.dp_error, SSS_DP_ERR_OK);
    assert_int_equal(sysdb_get_group_by_gid(t->mem, t->be->sysdb, 20902, &g), ENOENT);
}

static void test_big_group(void **state)
{
    struct test_ctx *t = *state;
    struct sysdb_group *g = NULL;
    struct answer a;
    size_t n;

    make_be(t, LIVE, env("BE_TEST_URI"));
    t->be->stats.max_step_usec = 0;
    a = ask(t, SSS_DP_GROUP, "name=g_big");
    assert_int_equal(a.dp_error, SSS_DP_ERR_OK);
    printf("# figure: 2,000-member group through the handler: %.2f ms, longest cache step "
           "%.2f ms\n", a.usec / 1000.0, t->be->stats.max_step_usec / 1000.0);
    assert_int_equal(sysdb_get_group_by_name(t->mem, t->be->sysdb, "g_big", &g), EOK);
    for (n = 0; g->members[n] != NULL; n++);
    assert_int_equal(n, 2000);
    assert_true(has(g->members, "big0001@test"));
    assert_true(has(g->members, "big2000@test"));
    /* Sliced: no single step near the whole save (generous bound for valgrind). */
    assert_true(t->be->stats.max_step_usec < 500 * 1000);
}

static void test_initgroups(void **state)
{
    struct test_ctx *t = *state;
    struct sysdb_group *g = NULL;
    struct sysdb_user *u = NULL;
    uint32_t *gids = NULL;
    size_t count = 0;
    time_t expire = 0;
    bool seen[5] = { false };
    struct answer a;
    size_t i;

    make_be(t, LIVE, env("BE_TEST_URI"));
    /* g_dev already cached with members: initgroups must keep them. */
    a = ask(t, SSS_DP_GROUP, "name=g_dev");
    assert_int_equal(a.dp_error, SSS_DP_ERR_OK);

    a = ask(t, SSS_DP_INITGROUPS, "name=alice");
    assert_int_equal(a.dp_error, SSS_DP_ERR_OK);
    assert_int_equal(sysdb_get_user_by_name(t->mem, t->be->sysdb, "alice", &u), EOK);
    assert_int_equal(sysdb_get_initgroups(t->mem, t->be->sysdb, "alice", &gids, &count,
                                          &expire), EOK);
    for (i = 0; i < count; i++) {
        if (gids[i] >= 20001 && gids[i] <= 20004) {
            seen[gids[i] - 20000] = true;
        }
    }
    /* g_dev, g_ops, g_web directly; g_all through g_dev. */
    assert_true(seen[1] && seen[2] && seen[3] && seen[4]);
    assert_int_equal(count, 4);
    assert_int_equal(sysdb_get_group_by_name(t->mem, t->be->sysdb, "g_dev", &g), EOK);
    assert_true(has(g->members, "bob@test"));
    assert_int_equal(sysdb_get_group_by_name(t->mem, t->be->sysdb, "g_web", &g), EOK);

    /* A user gone from the directory loses its cache entry. */
    store_fake_user(t, "ghost", 10901, time(NULL));
    a = ask(t, SSS_DP_INITGROUPS, "name=ghost");
    assert_int_equal(a.dp_error, SSS_DP_ERR_OK);
    assert_int_equal(sysdb_get_user_by_name(t->mem, t->be->sysdb, "ghost", &u), ENOENT);
}

static uint64_t searches(struct test_ctx *t)
{
    struct sdap_id_stats st;

    sdap_id_ctx_get_stats(t->be->id_ctx, &st);
    return st.searches;
}

/* initgroups after a getpwnam starts from the fresh cache entry (no second user search)
 * and leaves that entry as the getpwnam stored it; an expired entry is searched again. */
static void test_initgroups_cached_user(void **state)
{
    struct test_ctx *t = *state;
    struct sysdb_user *u = NULL;
    struct sysdb_user *u2 = NULL;
    uint32_t *gids = NULL;
    size_t count = 0;
    time_t expire = 0;
    uint64_t s0, fresh, stale;
    struct answer a;

    make_be(t, LIVE, env("BE_TEST_URI"));
    a = ask(t, SSS_DP_USER, "name=alice");
    assert_int_equal(a.dp_error, SSS_DP_ERR_OK);
    assert_int_equal(sysdb_get_user_by_name(t->mem, t->be->sysdb, "alice", &u), EOK);

    s0 = searches(t);
    a = ask(t, SSS_DP_INITGROUPS, "name=alice");
    assert_int_equal(a.dp_error, SSS_DP_ERR_OK);
    fresh = searches(t) - s0;
    assert_int_equal(sysdb_get_initgroups(t->mem, t->be->sysdb, "alice", &gids, &count,
                                          &expire), EOK);
    assert_int_equal(count, 4);     /* g_dev, g_ops, g_web, g_all (as test_initgroups) */
    assert_int_equal(sysdb_get_user_by_name(t->mem, t->be->sysdb, "alice", &u2), EOK);
    assert_int_equal(u2->expire, u->expire);    /* not stored again */

    /* The same user, expired: searched again and stored again. */
    assert_int_equal(sysdb_store_user(t->be->sysdb, u2, time(NULL), 0), EOK);
    s0 = searches(t);
    a = ask(t, SSS_DP_INITGROUPS, "name=alice");
    assert_int_equal(a.dp_error, SSS_DP_ERR_OK);
    stale = searches(t) - s0;
    assert_int_equal(stale, fresh + 1);
    assert_int_equal(sysdb_get_user_by_name(t->mem, t->be->sysdb, "alice", &u2), EOK);
    assert_true(u2->expire > time(NULL));
    assert_int_equal(sysdb_get_initgroups(t->mem, t->be->sysdb, "alice", &gids, &count,
                                          &expire), EOK);
    assert_int_equal(count, 4);
}

static void test_malformed(void **state)
{
    struct test_ctx *t = *state;
    static const struct { uint32_t type; const char *filter; } bad[] = {
        { SSS_DP_USER, "alice" },
        { SSS_DP_USER, "name=" },
        { SSS_DP_USER, "idnumber=" },
        { SSS_DP_USER, "idnumber=12a" },
        { SSS_DP_USER, "idnumber=-1" },
        { SSS_DP_USER, "idnumber=99999999999" },
        { SSS_DP_GROUP, "" },
        { SSS_DP_INITGROUPS, "idnumber=10001" },
        { SSS_DP_INITGROUPS, "*" },
        { 0x0007, "name=alice" },
        { 0, "name=alice" },
    };
    struct sdap_id_stats before;
    struct sdap_id_stats after;
    struct answer a;
    size_t i;

    make_be(t, LIVE, env("BE_TEST_URI"));
    sdap_id_ctx_get_stats(t->be->id_ctx, &before);
    for (i = 0; i < SSS_ARRAY_SIZE(bad); i++) {
        a = ask(t, bad[i].type, bad[i].filter);
        assert_int_equal(a.dp_error, SSS_DP_ERR_FATAL);
        assert_int_equal(a.error, EINVAL);
        assert_non_null(strstr(a.message, "malformed"));
    }
    sdap_id_ctx_get_stats(t->be->id_ctx, &after);
    assert_int_equal(after.searches, before.searches);
}

static void test_coalescing(void **state)
{
    struct test_ctx *t = *state;
    struct tevent_req *reqs[6];
    bool done[6] = { false };
    struct sdap_id_stats before;
    struct sdap_id_stats after;
    uint16_t dp_error;
    size_t i;

    make_be(t, LIVE, env("BE_TEST_URI"));
    /* Connect first, so the count below holds searches only. */
    assert_int_equal(ask(t, SSS_DP_USER, "name=judy").dp_error, SSS_DP_ERR_OK);
    sdap_id_ctx_get_stats(t->be->id_ctx, &before);
    for (i = 0; i < 6; i++) {
        reqs[i] = be_account_info_send(t->mem, t->ev, t->be, SSS_DP_USER,
                                       i < 5 ? "name=carol" : "name=dave", 100 + i);
        assert_non_null(reqs[i]);
        tevent_req_set_callback(reqs[i], tc_flag_done, &done[i]);
    }
    /* One caller goes away: the others are still answered. */
    talloc_zfree(reqs[2]);
    done[2] = true;
    for (i = 0; i < 6; i++) {
        tc_wait_flag(t->ev, &done[i]);
    }
    for (i = 0; i < 6; i++) {
        if (reqs[i] == NULL) {
            continue;
        }
        assert_int_equal(be_account_info_recv(t->mem, reqs[i], &dp_error, NULL, NULL), EOK);
        assert_int_equal(dp_error, SSS_DP_ERR_OK);
        talloc_free(reqs[i]);
    }
    sdap_id_ctx_get_stats(t->be->id_ctx, &after);
    assert_int_equal(t->be->stats.coalesced, 4);
    assert_int_equal(after.searches - before.searches, 2);   /* carol once, dave once */
    assert_true(sss_list_is_empty(&t->be->ops));
}

static void test_unsupported_provider(void **state)
{
    struct test_ctx *t = *state;
    struct answer a;

    make_be(t, "id_provider = proxy\n");
    assert_false(t->be->id_supported);
    a = ask(t, SSS_DP_USER, "name=alice");
    assert_int_equal(a.dp_error, SSS_DP_ERR_FATAL);
    assert_int_equal(a.error, ENOTSUP);
    assert_string_equal(a.message, "id_provider proxy is not supported by this build");
}

/* An LDAP configuration sdap refuses (a mapped attribute that is no attribute name): the
 * back-end stays up and says why. */
static void test_unusable_ldap_config(void **state)
{
    struct test_ctx *t = *state;
    struct answer a;

    make_be(t, "id_provider = ldap\nldap_uri = %s\nldap_search_base = dc=test\n"
            "ldap_user_name = uid(x)\n", env("BE_TEST_URI"));
    assert_false(t->be->id_supported);
    a = ask(t, SSS_DP_GROUP, "name=g_dev");
    assert_int_equal(a.dp_error, SSS_DP_ERR_FATAL);
    assert_int_equal(a.error, ERR_INVALID_CONFIG);
    assert_non_null(strstr(a.message, "refused its configuration"));
}

static void test_offline_dead_server(void **state)
{
    struct test_ctx *t = *state;
    struct sdap_id_stats before;
    struct sdap_id_stats after;
    struct sysdb_user *u = NULL;
    struct answer a;

    make_be(t, LDAP_OPTS "ldap_uri = %s\noffline_timeout = 30\n", env("BE_TEST_DEAD_URI"));
    store_fake_user(t, "alice", 10001, time(NULL));
    a = ask(t, SSS_DP_USER, "name=alice");
    assert_int_equal(a.dp_error, SSS_DP_ERR_OFFLINE);
    assert_int_equal(a.error, ENETUNREACH);
    assert_true(a.usec < 2 * 1000 * 1000);
    printf("# figure: dead server -> offline answer: %.2f ms\n", a.usec / 1000.0);
    assert_true(be_is_offline(t->be));
    assert_int_equal(t->be->stats.went_offline, 1);
    assert_true(be_offline_next_retry(t->be) >= 29 && be_offline_next_retry(t->be) <= 30);
    /* The cache keeps what it had. */
    assert_int_equal(sysdb_get_user_by_name(t->mem, t->be->sysdb, "alice", &u), EOK);

    /* While offline: answered at once, no LDAP traffic. */
    sdap_id_ctx_get_stats(t->be->id_ctx, &before);
    a = ask(t, SSS_DP_GROUP, "name=g_dev");
    assert_int_equal(a.dp_error, SSS_DP_ERR_OFFLINE);
    assert_true(a.usec < 100 * 1000);
    sdap_id_ctx_get_stats(t->be->id_ctx, &after);
    assert_int_equal(after.connect_failures, before.connect_failures);
    assert_int_equal(after.searches, before.searches);
    assert_int_equal(t->be->stats.went_offline, 1);
}

static void test_backup_server(void **state)
{
    struct test_ctx *t = *state;
    struct answer a;

    make_be(t, LDAP_OPTS "ldap_uri = %s\nldap_backup_uri = %s\n", env("BE_TEST_DEAD_URI"),
            env("BE_TEST_URI"));
    a = ask(t, SSS_DP_USER, "name=bob");
    assert_int_equal(a.dp_error, SSS_DP_ERR_OK);
    assert_false(be_is_offline(t->be));
    assert_string_equal(sdap_id_ctx_server(t->be->id_ctx), env("BE_TEST_URI"));
}

/* The only server's link resets the first two connections mid-answer: the lookup is
 * restarted on a new connection each time and answered on the third, and the domain does
 * not go offline (a reset connection is not a dead server). */
static void test_lossy_link(void **state)
{
    struct test_ctx *t = *state;
    struct answer a;

    make_be(t, LIVE, env("BE_TEST_LOSSY_URI"));
    a = ask(t, SSS_DP_USER, "name=alice");
    assert_int_equal(a.dp_error, SSS_DP_ERR_OK);
    assert_int_equal(a.error, 0);
    assert_false(be_is_offline(t->be));
    assert_int_equal(t->be->stats.went_offline, 0);
}

static void test_offline_then_online(void **state)
{
    struct test_ctx *t = *state;
    struct answer a;

    make_be(t, LIVE "offline_timeout = 1\n", env("BE_TEST_URI"));
    assert_int_equal(ask(t, SSS_DP_USER, "name=alice").dp_error, SSS_DP_ERR_OK);

    slapd_ctl("stop");
    /* The open connection broke: the request retries on a new one, which fails. */
    a = ask(t, SSS_DP_USER, "name=bob");
    assert_int_equal(a.dp_error, SSS_DP_ERR_OFFLINE);
    assert_true(be_is_offline(t->be));
    assert_int_equal(be_offline_current_delay(t->be), 1);

    /* The first probe (after 1 s) fails: the delay doubles. */
    assert_false(wait_until(t, is_online, 1500));
    assert_true(t->be->stats.probes >= 1);
    assert_int_equal(be_offline_current_delay(t->be), 2);

    slapd_ctl("restart");
    assert_true(wait_until(t, is_online, 4000));
    assert_int_equal(t->be->stats.went_online, 1);
    assert_int_equal(be_offline_next_retry(t->be), -1);
    a = ask(t, SSS_DP_USER, "name=bob");
    assert_int_equal(a.dp_error, SSS_DP_ERR_OK);
}

static void test_go_offline_reset(void **state)
{
    struct test_ctx *t = *state;

    make_be(t, LIVE "offline_timeout = 60\n", env("BE_TEST_URI"));
    be_go_offline(t->be, "test");
    assert_true(be_is_offline(t->be));
    assert_int_equal(ask(t, SSS_DP_USER, "name=alice").dp_error, SSS_DP_ERR_OFFLINE);
    be_reset_offline(t->be);
    assert_true(wait_until(t, is_online, 3000));
    assert_int_equal(ask(t, SSS_DP_USER, "name=alice").dp_error, SSS_DP_ERR_OK);
}

static bool enum_round_done(struct test_ctx *t) { return t->be->stats.enum_rounds >= 1; }

static void test_enumeration(void **state)
{
    struct test_ctx *t = *state;
    struct sysdb_user **users = NULL;
    struct sysdb_group **groups = NULL;
    struct sysdb_group *g = NULL;
    struct sysdb_user *u = NULL;
    size_t nu = 0;
    size_t ng = 0;
    uint64_t start;

    make_be(t, LIVE "enumerate = true\n", env("BE_TEST_URI"));
    /* Stale: cached long ago, not in the directory. Fresh: cached just now. */
    store_fake_user(t, "stale1", 10801, time(NULL) - 100);
    store_fake_user(t, "fresh1", 10802, time(NULL) + 5);

    start = sss_monotonic_usec();
    assert_int_equal(be_enum_task_start(t->be), EOK);
    assert_true(wait_until(t, enum_round_done, 180000));
    printf("# figure: enumeration of 2,010 users and 6 groups: %.1f ms, longest step "
           "%.2f ms\n", (sss_monotonic_usec() - start) / 1000.0,
           t->be->stats.max_step_usec / 1000.0);

    assert_int_equal(sysdb_enumerate_users(t->mem, t->be->sysdb, &users, &nu), EOK);
    assert_int_equal(nu, 2010 + 1);     /* + fresh1 */
    assert_int_equal(sysdb_get_user_by_name(t->mem, t->be->sysdb, "stale1", &u), ENOENT);
    assert_int_equal(sysdb_get_user_by_name(t->mem, t->be->sysdb, "fresh1", &u), EOK);
    assert_int_equal(t->be->stats.enum_deleted, 1);
    assert_int_equal(sysdb_enumerate_groups(t->mem, t->be->sysdb, &groups, &ng), EOK);
    assert_int_equal(ng, 6);
    assert_int_equal(sysdb_get_group_by_name(t->mem, t->be->sysdb, "g_big", &g), EOK);
    assert_non_null(g->members[1999]);
    /* The next round is scheduled. */
    assert_non_null(t->be->enum_task);

    /* "*" through the request path. */
    assert_int_equal(ask(t, SSS_DP_GROUP, "*").dp_error, SSS_DP_ERR_OK);
    assert_int_equal(ask(t, SSS_DP_USER, "*").dp_error, SSS_DP_ERR_OK);
}

static void store_fake_group(struct test_ctx *t, const char *name, uint32_t gid, time_t when)
{
    struct sysdb_group g = { .name = name, .gid = gid };

    assert_int_equal(sysdb_store_group(t->be->sysdb, &g, false, when, 1000), EOK);
}

static errno_t enum_round(struct test_ctx *t)
{
    struct tevent_req *req = be_enum_send(t->mem, t->ev, t->be, BE_ENUM_USERS | BE_ENUM_GROUPS);
    errno_t ret;

    tc_wait_req(t->ev, req);
    ret = be_enum_recv(req);
    talloc_free(req);
    return ret;
}

/* A complete answer holding no users and no groups removes the cached ones (the last user
 * deleted from the directory leaves the cache too); a search base that does not exist is an
 * error, and the cache keeps everything. */
static void test_enumeration_empty(void **state)
{
    struct test_ctx *t = *state;
    struct sysdb_user *u = NULL;
    struct sysdb_group *g = NULL;
    time_t old = time(NULL) - 100;

    make_be(t, LIVE "ldap_search_base = ou=nosuch,dc=test\n", env("BE_TEST_URI"));
    store_fake_user(t, "gone1", 10901, old);
    store_fake_group(t, "gonegrp", 10901, old);
    assert_int_not_equal(enum_round(t), EOK);
    assert_int_equal(sysdb_get_user_by_name(t->mem, t->be->sysdb, "gone1", &u), EOK);
    assert_int_equal(sysdb_get_group_by_name(t->mem, t->be->sysdb, "gonegrp", &g), EOK);
    assert_int_equal(t->be->stats.enum_deleted, 0);
    talloc_zfree(t->be);

    make_be(t, LIVE "ldap_search_base = ou=empty,dc=test\n", env("BE_TEST_URI"));
    assert_int_equal(enum_round(t), EOK);
    assert_int_equal(sysdb_get_user_by_name(t->mem, t->be->sysdb, "gone1", &u), ENOENT);
    assert_int_equal(sysdb_get_group_by_name(t->mem, t->be->sysdb, "gonegrp", &g), ENOENT);
    assert_int_equal(t->be->stats.enum_deleted, 2);
}

static void test_zero_ids_refused(void **state)
{
    struct test_ctx *t = *state;
    struct sdap_user root = { .name = "root", .uid = 0, .gid = 0, .gecos = "", .home = "",
                              .shell = "" };
    const char *none[] = { NULL };
    struct sdap_group wheel = { .name = "wheel", .gid = 0, .member_users = none,
                                .member_groups = none };
    struct sysdb_user *u = NULL;

    make_be(t, LIVE, env("BE_TEST_URI"));
    assert_int_equal(be_store_user(t->be, &root, time(NULL)), EINVAL);
    assert_int_equal(be_store_group(t->be, &wheel, true, time(NULL)), EINVAL);
    assert_int_equal(t->be->stats.refused_entries, 2);
    assert_int_equal(sysdb_get_user_by_name(t->mem, t->be->sysdb, "root", &u), ENOENT);
}

struct pf_wait {
    bool done;
    errno_t ret;
};

static void pf_told(void *pvt, errno_t ret)
{
    struct pf_wait *w = pvt;

    w->done = true;
    w->ret = ret;
}

static bool prefetch_idle(struct test_ctx *t) { return be_prefetch_pending(t->be) == 0; }

/* The member prefetch driven directly: groups queued as an initgroups queues them, requests
 * joining the batch by name and by gid, a group the directory does not hold, a waiter that
 * goes away, and a request right after the store. */
static void test_prefetch(void **state)
{
    struct test_ctx *t = *state;
    struct sdap_group groups[] = {
        { .name = "g_dev", .gid = 20001 }, { .name = "g_ops", .gid = 20002 },
        { .name = "g_web", .gid = 20003 }, { .name = "g_all", .gid = 20004 },
        { .name = "g_gone", .gid = 29001 },
    };
    struct sdap_group *list[SSS_ARRAY_SIZE(groups)];
    struct sdap_group *empty = &(struct sdap_group){ .name = "g_empty", .gid = 20005 };
    struct be_filter web = { .kind = BE_FILTER_NAME, .name = "g_web" };
    struct be_filter gone = { .kind = BE_FILTER_ID, .id = 29001 };
    struct be_filter other = { .kind = BE_FILTER_ID, .id = 29999 };
    struct be_filter by_empty = { .kind = BE_FILTER_ID, .id = 20005 };
    struct pf_wait w_web = { false, -1 };
    struct pf_wait w_gone = { false, -1 };
    struct pf_wait w_other = { false, -1 };
    struct pf_wait w_left = { false, -1 };
    struct pf_wait w_again = { false, -1 };
    struct sysdb_group *g = NULL;
    TALLOC_CTX *leaving;
    size_t i;

    make_be(t, LIVE, env("BE_TEST_URI"));
    for (i = 0; i < SSS_ARRAY_SIZE(groups); i++) {
        list[i] = &groups[i];
    }
    be_prefetch_queue(t->be, list, SSS_ARRAY_SIZE(list));
    assert_int_equal(be_prefetch_pending(t->be), 5);
    be_prefetch_queue(t->be, list, SSS_ARRAY_SIZE(list));     /* queued already */
    be_prefetch_queue(t->be, &empty, 1);
    assert_int_equal(be_prefetch_pending(t->be), 6);
    assert_int_equal(t->be->stats.pf_queued, 6);

    assert_true(be_prefetch_join(t->be, &web, t->mem, pf_told, &w_web));
    assert_true(be_prefetch_join(t->be, &gone, t->mem, pf_told, &w_gone));
    assert_false(be_prefetch_join(t->be, &other, t->mem, pf_told, &w_other));
    leaving = talloc_new(t->mem);
    assert_true(be_prefetch_join(t->be, &by_empty, leaving, pf_told, &w_left));
    talloc_free(leaving);       /* its wait is cancelled, its group still fetched */

    tc_wait_flag(t->ev, &w_web.done);
    assert_int_equal(w_web.ret, EOK);
    tc_wait_flag(t->ev, &w_gone.done);
    assert_int_equal(w_gone.ret, ENOENT);
    assert_true(wait_until(t, prefetch_idle, 10000));
    assert_false(w_other.done);
    assert_false(w_left.done);
    assert_int_equal(t->be->stats.pf_stored, 5);
    assert_int_equal(t->be->stats.pf_joined, 3);
    assert_int_equal(t->be->stats.pf_fallbacks, 1);

    assert_int_equal(sysdb_get_group_by_name(t->mem, t->be->sysdb, "g_web", &g), EOK);
    assert_true(has(g->members, "dave@test"));
    assert_true(g->expire > time(NULL));
    assert_int_equal(sysdb_get_group_by_name(t->mem, t->be->sysdb, "g_all", &g), EOK);
    assert_true(has(g->members, "frank@test"));
    assert_true(has(g->members, "alice@test"));
    assert_int_equal(sysdb_get_group_by_gid(t->mem, t->be->sysdb, 20005, &g), EOK);

    /* Stored a moment ago: answered from the cache, from the loop. */
    assert_true(be_prefetch_join(t->be, &web, t->mem, pf_told, &w_again));
    assert_false(w_again.done);
    tc_wait_flag(t->ev, &w_again.done);
    assert_int_equal(w_again.ret, EOK);
}

/* Bad use of the entry points is refused with EINVAL (and logged), never a crash. */
static void test_bad_arguments(void **state)
{
    struct test_ctx *t = *state;
    struct be_filter by_id = { .kind = BE_FILTER_ID, .id = 10001 };
    struct be_filter all = { .kind = BE_FILTER_ENUM };
    struct tevent_req *req;
    struct be_ctx *be = NULL;

    req = be_account_info_send(t->mem, t->ev, NULL, SSS_DP_USER, "name=alice", 1);
    tc_wait_req(t->ev, req);
    assert_int_equal(be_account_info_recv(t->mem, req, NULL, NULL, NULL), EINVAL);
    talloc_free(req);
    assert_int_equal(be_account_info_recv(t->mem, NULL, NULL, NULL, NULL), EINVAL);
    assert_int_equal(be_ctx_create(t->mem, t->ev, NULL, "test", t->dbdir, &be), EINVAL);
    assert_null(be);

    make_be(t, LIVE, env("BE_TEST_URI"));
    req = be_id_ldap_send(t->mem, t->ev, t->be, SSS_DP_INITGROUPS, &by_id);
    tc_wait_req(t->ev, req);
    assert_int_equal(be_id_ldap_recv(req), EINVAL);
    talloc_free(req);
    req = be_id_ldap_send(t->mem, t->ev, t->be, SSS_DP_USER, &all);
    tc_wait_req(t->ev, req);
    assert_int_equal(be_id_ldap_recv(req), EINVAL);
    talloc_free(req);
    req = be_enum_send(t->mem, t->ev, t->be, 0);
    tc_wait_req(t->ev, req);
    assert_int_equal(be_enum_recv(req), EINVAL);
    talloc_free(req);
    assert_int_equal(be_store_user(t->be, NULL, time(NULL)), EINVAL);
    assert_int_equal(be_delete_group(t->be, &all), EINVAL);
    assert_int_equal(be_prefetch_pending(t->be), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_user_by_name_and_id, setup, teardown),
        cmocka_unit_test_setup_teardown(test_user_not_found_deletes, setup, teardown),
        cmocka_unit_test_setup_teardown(test_groups, setup, teardown),
        cmocka_unit_test_setup_teardown(test_big_group, setup, teardown),
        cmocka_unit_test_setup_teardown(test_initgroups, setup, teardown),
        cmocka_unit_test_setup_teardown(test_initgroups_cached_user, setup, teardown),
        cmocka_unit_test_setup_teardown(test_malformed, setup, teardown),
        cmocka_unit_test_setup_teardown(test_coalescing, setup, teardown),
        cmocka_unit_test_setup_teardown(test_unsupported_provider, setup, teardown),
        cmocka_unit_test_setup_teardown(test_unusable_ldap_config, setup, teardown),
        cmocka_unit_test_setup_teardown(test_offline_dead_server, setup, teardown),
        cmocka_unit_test_setup_teardown(test_lossy_link, setup, teardown),
        cmocka_unit_test_setup_teardown(test_backup_server, setup, teardown),
        cmocka_unit_test_setup_teardown(test_offline_then_online, setup, teardown),
        cmocka_unit_test_setup_teardown(test_go_offline_reset, setup, teardown),
        cmocka_unit_test_setup_teardown(test_enumeration, setup, teardown),
        cmocka_unit_test_setup_teardown(test_enumeration_empty, setup, teardown),
        cmocka_unit_test_setup_teardown(test_zero_ids_refused, setup, teardown),
        cmocka_unit_test_setup_teardown(test_prefetch, setup, teardown),
        cmocka_unit_test_setup_teardown(test_bad_arguments, setup, teardown),
    };

    debug_init("test_be_dp", getenv("BE_TEST_DEBUG") != NULL
               ? (int)strtol(getenv("BE_TEST_DEBUG"), NULL, 0) : 0, SSS_LOGGER_STDERR, NULL);
    return cmocka_run_group_tests(tests, group_setup, NULL);
}
