/*
 * cache_req against a real temporary cache (sysdb) and a real in-process master bus. Each
 * domain's back-end is a test double at the bus boundary: a peer named
 * sssd.domain_<escaped> serving sssd.dataprovider.getAccountInfo, which answers from a
 * small in-test "directory" by writing the entry into the cache and replying OK (or
 * removing it when the directory has none), or replies OFFLINE, or never replies.
 * Covered: fresh hit, expired refresh, not found + negative cache (+ reset), offline and
 * unreachable back-ends (stale answers), domains in order, min/max id, root and filters,
 * initgroups, nowait background refresh, and 20 identical lookups -> one back-end call.
 * Every test checks that nothing is left on the talloc heap.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "responder/common/cache_req.h"
#include "responder/common/cache_req_private.h"
#include "sbus/sbus_server.h"
#include "sss_iface/sss_iface.h"
#include "sss_iface/sss_dp.h"
#include "tests/unit/common/tc_common.h"
#include "tests/unit/common/tc_bus.h"

#define CONF \
    "[sssd]\n" \
    "domains = one, two\n" \
    "[nss]\n" \
    "entry_negative_timeout = 30\n" \
    "filter_users = root, nobody\n" \
    "[domain/one]\n" \
    "id_provider = ldap\n" \
    "ldap_uri = ldap://localhost\n" \
    "min_id = 1000\n" \
    "max_id = 1999\n" \
    "[domain/two]\n" \
    "id_provider = ldap\n" \
    "ldap_uri = ldap://localhost\n"

enum be_mode { BE_OK, BE_OFFLINE, BE_HOLD };

struct dir_user {
    const char *name;
    uint32_t uid;
    const char *gecos;
    const char *groups[3];      /* initgroups */
};

struct dir_group {
    const char *name;
    uint32_t gid;
};

struct backend {
    struct test_ctx *t;
    struct sbus_connection *conn;
    struct resp_domain *dom;
    enum be_mode mode;
    unsigned int calls;
    uint32_t last_type;
    char *last_filter;
    const struct dir_user *users;
    const struct dir_group *groups;
    struct sbus_method methods[2];
    struct sbus_interface iface;
};

struct test_ctx {
    char *dir;
    struct tevent_context *ev;
    struct sbus_server *server;
    struct sbus_connection *nss_conn;
    struct confdb *cdb;
    struct resp_ctx *rctx;
    struct backend be[2];
};

static struct tc_leaks leaks;

static const struct dir_user dir_one_users[] = {
    { "alice", 1001, "Alice New", { "devs", "ops", "devs" } },
    { "carol", 1003, "Carol", { NULL } },
    { "nobody", 1099, "Nobody", { NULL } },
    { NULL, 0, NULL, { NULL } },
};
static const struct dir_group dir_one_groups[] = {
    { "devs", 1500 }, { "ops", 1501 }, { NULL, 0 },
};
static const struct dir_user dir_two_users[] = {
    { "alice", 2001, "Alice Two", { NULL } },
    { "bob", 2002, "Bob", { NULL } },
    { NULL, 0, NULL, { NULL } },
};
static const struct dir_group dir_two_groups[] = {
    { "staff", 2500 }, { NULL, 0 },
};

/* ---- the back-end double ---- */

struct be_call_state {
    uint16_t dp_error;
};

static errno_t be_store_user(struct backend *be, const struct dir_user *u)
{
    struct sysdb_ctx *sysdb;
    struct sysdb_user su = { 0 };
    struct sysdb_group sg = { 0 };
    const char *names[4] = { NULL };
    size_t i, j, n = 0;
    errno_t ret;

    ret = resp_domain_sysdb(be->t->rctx, be->dom, &sysdb);
    if (ret != EOK) return ret;
    su.name = u->name;
    su.uid = u->uid;
    su.gid = u->uid;
    su.gecos = u->gecos;
    su.home = "/home/x";
    su.shell = "/bin/sh";
    ret = sysdb_store_user(sysdb, &su, time(NULL), 100);
    if (ret != EOK) return ret;
    for (i = 0; i < 3 && u->groups[i] != NULL; i++) {
        for (j = 0; be->groups[j].name != NULL; j++) {
            if (strcmp(be->groups[j].name, u->groups[i]) == 0) {
                sg.name = be->groups[j].name;
                sg.gid = be->groups[j].gid;
                ret = sysdb_store_group(sysdb, &sg, false, time(NULL), 100);
                if (ret != EOK) return ret;
            }
        }
        names[n++] = u->groups[i];
    }
    return sysdb_store_initgroups(sysdb, u->name, n ? names : NULL, time(NULL), 100);
}

static errno_t be_answer(struct backend *be, uint32_t type, const char *filter)
{
    struct sysdb_ctx *sysdb;
    struct sysdb_group sg = { 0 };
    const char *members[2] = { NULL, NULL };
    const char *name = NULL;
    uint32_t id = 0;
    size_t i;
    errno_t ret;

    ret = resp_domain_sysdb(be->t->rctx, be->dom, &sysdb);
    if (ret != EOK) return ret;
    if (strncmp(filter, SSS_DP_FILTER_MAIL, strlen(SSS_DP_FILTER_MAIL)) == 0) {
        return EOK;     /* nobody in these directories has an e-mail address */
    }
    if (strncmp(filter, SSS_DP_FILTER_NAME, strlen(SSS_DP_FILTER_NAME)) == 0) {
        name = filter + strlen(SSS_DP_FILTER_NAME);
    } else {
        id = (uint32_t)strtoul(filter + strlen(SSS_DP_FILTER_ID), NULL, 10);
    }
    if (type == SSS_DP_NETGROUP) {
        /* Domain two's directory has the netgroups ng1, root and nobody. */
        const char *triples[] = { "(h1,u1,d1)", NULL };
        const char *nested[] = { "ng2", NULL };
        struct sysdb_netgroup ng = { .triples = triples, .members = nested };

        assert_non_null(name);
        if (be->dom == &be->t->rctx->domains[1]
                && (strcmp(name, "ng1") == 0 || strcmp(name, "root") == 0
                    || strcmp(name, "nobody") == 0)) {
            ng.name = name;
            return sysdb_store_netgroup(sysdb, &ng, time(NULL), 100);
        }
        ret = sysdb_delete_netgroup(sysdb, name);
        return ret == ENOENT ? EOK : ret;
    }
    if (type == SSS_DP_USER || type == SSS_DP_INITGROUPS) {
        for (i = 0; be->users[i].name != NULL; i++) {
            if (name != NULL ? strcmp(name, be->users[i].name) == 0 : id == be->users[i].uid) {
                return be_store_user(be, &be->users[i]);
            }
        }
        if (name != NULL) {
            ret = sysdb_delete_user(sysdb, name);
        }
        return ret == ENOENT ? EOK : ret;
    }
    for (i = 0; be->groups[i].name != NULL; i++) {
        if (name != NULL ? strcmp(name, be->groups[i].name) == 0 : id == be->groups[i].gid) {
            sg.name = be->groups[i].name;
            sg.gid = be->groups[i].gid;
            members[0] = "alice";
            sg.members = members;
            return sysdb_store_group(sysdb, &sg, true, time(NULL), 100);
        }
    }
    return EOK;
}

static struct tevent_req *be_send(TALLOC_CTX *mem_ctx, struct tevent_context *ev,
                                  struct sbus_request *sbus_req, void *data,
                                  uint32_t dp_flags, uint32_t entry_type, const char *filter,
                                  const char *domain, const char *extra, uint32_t cli_id,
                                  uint64_t req_id)
{
    struct backend *be = data;
    struct be_call_state *state;
    struct tevent_req *req;

    req = tevent_req_create(mem_ctx, &state, struct be_call_state);
    assert_non_null(req);
    be->calls++;
    be->last_type = entry_type;
    talloc_free(be->last_filter);
    be->last_filter = talloc_strdup(be->t, filter);
    assert_string_equal(domain, be->dom->name);
    switch (be->mode) {
    case BE_HOLD:
        return req;     /* never answered */
    case BE_OFFLINE:
        state->dp_error = SSS_DP_ERR_OFFLINE;
        break;
    case BE_OK:
        assert_int_equal(be_answer(be, entry_type, filter), EOK);
        state->dp_error = SSS_DP_ERR_OK;
        break;
    }
    tevent_req_done(req);
    return tevent_req_post(req, ev);
}

/* Carries no entry (test_cache_req_carry.c covers replies that do). */
static errno_t be_recv(TALLOC_CTX *mem_ctx, struct tevent_req *req, uint16_t *_dp_error,
                       uint32_t *_error, const char **_message, uint64_t *_gen,
                       const uint8_t **_entry, uint32_t *_n_entry)
{
    struct be_call_state *state = tevent_req_data(req, struct be_call_state);

    TEVENT_REQ_RETURN_ON_ERROR(req);
    *_dp_error = state->dp_error;
    *_error = state->dp_error == SSS_DP_ERR_OK ? 0 : ENETUNREACH;
    *_message = "test";
    *_gen = 0;
    *_entry = NULL;
    *_n_entry = 0;
    return EOK;
}

/* ---- helpers ---- */

/* Runs one lookup to its end. Returns its error; *_res on the test ctx on EOK. */
static errno_t lookup(struct test_ctx *t, enum cache_req_type type, const char *name,
                      uint32_t id, uint32_t flags, struct cache_req_result **_res)
{
    struct cache_req_result *res = NULL;
    struct tevent_req *req;
    errno_t ret;

    req = cache_req_send(t, t->ev, t->rctx, type, name, id, flags, 42);
    tc_wait_req(t->ev, req);
    ret = cache_req_recv(t, req, &res);
    talloc_free(req);
    if (_res != NULL) {
        *_res = res;
    } else {
        talloc_free(res);
    }
    return ret;
}

static void store_user(struct test_ctx *t, int d, const char *name, uint32_t uid,
                       const char *gecos, time_t stored, uint32_t timeout)
{
    struct sysdb_ctx *sysdb;
    struct sysdb_user u = { .name = name, .uid = uid, .gid = uid, .gecos = gecos };

    assert_int_equal(resp_domain_sysdb(t->rctx, &t->rctx->domains[d], &sysdb), EOK);
    assert_int_equal(sysdb_store_user(sysdb, &u, stored, timeout), EOK);
}

/* ---- fixtures ---- */

static const char *test_path(struct test_ctx *t, const char *name)
{
    const char *path = talloc_asprintf(t, "%s/%s", t->dir, name);

    assert_non_null(path);
    return path;
}

static void write_file(struct test_ctx *t, const char *name, const char *text)
{
    FILE *f = fopen(test_path(t, name), "w");

    assert_non_null(f);
    assert_int_equal(fputs(text, f) >= 0 || text[0] == '\0', true);
    assert_int_equal(fclose(f), 0);
}

static void setup_backend(struct test_ctx *t, int d, const struct dir_user *users,
                          const struct dir_group *groups)
{
    struct backend *be = &t->be[d];

    be->t = t;
    be->dom = &t->rctx->domains[d];
    be->users = users;
    be->groups = groups;
    be->conn = tc_bus_connect(t, t->ev, t->server, be->dom->bus_name);
    be->methods[0] = (struct sbus_method)SBUS_METHOD_ASYNC_sssd_dataprovider_getAccountInfo(
                         be_send, be_recv, be);
    be->methods[1] = (struct sbus_method)SBUS_METHODS_END;
    be->iface.name = SBUS_IFACE_sssd_dataprovider;
    be->iface.methods = be->methods;
    assert_int_equal(sbus_connection_add_interface(be->conn, SSS_BUS_PATH, &be->iface), EOK);
}

static int setup(void **state)
{
    struct test_ctx *t;
    char *err = NULL;

    tc_leak_start(&leaks);
    t = talloc_zero(NULL, struct test_ctx);
    assert_non_null(t);
    t->dir = tc_tmpdir(t, "test_cache_req");
    t->ev = tevent_context_init(t);
    assert_non_null(t->ev);
    t->server = tc_bus_server(t, t->ev, t->dir);
    assert_int_equal(confdb_parse_buffer(t, "test.conf", CONF, strlen(CONF), &t->cdb, &err),
                     EOK);
    t->nss_conn = tc_bus_connect(t, t->ev, t->server, SSS_BUS_NSS);
    assert_int_equal(resp_ctx_create(t, t->ev, t->cdb, t->nss_conn, t->dir, &t->rctx), EOK);
    /* The local accounts are the test's own, not the machine's. */
    write_file(t, "passwd", "");
    write_file(t, "group", "");
    assert_int_equal(resp_ctx_set_local_files(t->rctx, test_path(t, "passwd"),
                                              test_path(t, "group")), EOK);
    setup_backend(t, 0, dir_one_users, dir_one_groups);
    setup_backend(t, 1, dir_two_users, dir_two_groups);
    *state = t;
    return 0;
}

static int teardown(void **state)
{
    struct test_ctx *t = *state;
    char *dir = talloc_steal(NULL, t->dir);

    /* The caches are closed before their directory goes. */
    talloc_free(t);
    tc_tmpdir_remove(dir);
    talloc_free(dir);
    tc_leak_check(&leaks);
    return 0;
}

/* ---- tests ---- */

static void test_fresh_hit(void **state)
{
    struct test_ctx *t = *state;
    struct cache_req_result *res;

    store_user(t, 0, "alice", 1001, "Cached", time(NULL), 100);
    assert_int_equal(lookup(t, CACHE_REQ_USER_BY_NAME, "alice", 0, 0, &res), EOK);
    assert_int_equal(res->source, CACHE_REQ_SRC_CACHE);
    assert_string_equal(res->user->gecos, "Cached");
    assert_string_equal(res->short_name, "alice");
    assert_ptr_equal(res->domain, &t->rctx->domains[0]);
    assert_int_equal(t->be[0].calls + t->be[1].calls, 0);
    talloc_free(res);
    /* by id too */
    assert_int_equal(lookup(t, CACHE_REQ_USER_BY_ID, NULL, 1001, 0, &res), EOK);
    assert_int_equal(res->source, CACHE_REQ_SRC_CACHE);
    assert_int_equal(t->be[0].calls, 0);
    talloc_free(res);
}

static void test_expired_refreshed(void **state)
{
    struct test_ctx *t = *state;
    struct cache_req_result *res;

    store_user(t, 0, "alice", 1001, "Old", time(NULL) - 1000, 10);
    assert_int_equal(lookup(t, CACHE_REQ_USER_BY_NAME, "alice", 0, 0, &res), EOK);
    assert_int_equal(res->source, CACHE_REQ_SRC_DP);
    assert_string_equal(res->user->gecos, "Alice New");
    assert_int_equal(t->be[0].calls, 1);
    assert_int_equal(t->be[0].last_type, SSS_DP_USER);
    assert_string_equal(t->be[0].last_filter, "name=alice");
    assert_int_equal(t->be[1].calls, 0);
    talloc_free(res);
    /* now valid: no second call */
    assert_int_equal(lookup(t, CACHE_REQ_USER_BY_NAME, "alice", 0, 0, NULL), EOK);
    assert_int_equal(t->be[0].calls, 1);
    /* the _EX NO_CACHE flag asks anyway */
    assert_int_equal(lookup(t, CACHE_REQ_USER_BY_NAME, "alice", 0, CACHE_REQ_BYPASS_CACHE,
                            NULL), EOK);
    assert_int_equal(t->be[0].calls, 2);
}

static void test_missing_negative_cache(void **state)
{
    struct test_ctx *t = *state;

    assert_int_equal(lookup(t, CACHE_REQ_USER_BY_NAME, "ghost", 0, 0, NULL), ENOENT);
    assert_int_equal(t->be[0].calls, 1);
    assert_int_equal(t->be[1].calls, 1);
    assert_int_equal(resp_ncache_count(t->rctx->ncache, RESP_NCACHE_USER), 2);
    /* within entry_negative_timeout: no back-end call */
    assert_int_equal(lookup(t, CACHE_REQ_USER_BY_NAME, "ghost", 0, 0, NULL), ENOENT);
    assert_int_equal(t->be[0].calls + t->be[1].calls, 2);
    /* groups are kept apart */
    assert_int_equal(lookup(t, CACHE_REQ_GROUP_BY_NAME, "ghost", 0, 0, NULL), ENOENT);
    assert_int_equal(t->be[0].calls + t->be[1].calls, 4);
    /* ResetUsers empties the users only */
    resp_reset_negative_cache(t->rctx, RESP_NCACHE_USER);
    assert_int_equal(resp_ncache_count(t->rctx->ncache, RESP_NCACHE_GROUP), 2);
    assert_int_equal(lookup(t, CACHE_REQ_USER_BY_NAME, "ghost", 0, 0, NULL), ENOENT);
    assert_int_equal(t->be[0].calls + t->be[1].calls, 6);
    /* by id */
    assert_int_equal(lookup(t, CACHE_REQ_USER_BY_ID, NULL, 1777, 0, NULL), ENOENT);
    assert_int_equal(lookup(t, CACHE_REQ_USER_BY_ID, NULL, 1777, 0, NULL), ENOENT);
    assert_int_equal(t->be[0].calls + t->be[1].calls, 8);
}

static void test_offline_stale(void **state)
{
    struct test_ctx *t = *state;
    struct cache_req_result *res;
    unsigned int calls;

    t->be[0].mode = BE_OFFLINE;
    store_user(t, 0, "alice", 1001, "Old", time(NULL) - 1000, 10);
    assert_int_equal(lookup(t, CACHE_REQ_USER_BY_NAME, "alice", 0, 0, &res), EOK);
    assert_int_equal(res->source, CACHE_REQ_SRC_STALE);
    assert_string_equal(res->user->gecos, "Old");
    assert_int_equal(t->be[0].calls, 1);
    talloc_free(res);
    /* offline and not cached: not found in one, nothing negative-cached there */
    assert_int_equal(lookup(t, CACHE_REQ_USER_BY_NAME, "carol", 0, 0, NULL), ENOENT);
    assert_int_equal(resp_ncache_count(t->rctx->ncache, RESP_NCACHE_USER), 1);
    /* a name one cannot answer for is not tried as an e-mail address anywhere */
    calls = t->be[0].calls + t->be[1].calls;
    assert_int_equal(lookup(t, CACHE_REQ_USER_BY_NAME, "carol@one", 0, 0, NULL), ENOENT);
    assert_int_equal(t->be[0].calls + t->be[1].calls, calls + 1);
    /* a domain known offline: the expired entry at once, no call */
    resp_domain_set_online(t->rctx, "one", false);
    assert_int_equal(lookup(t, CACHE_REQ_USER_BY_NAME, "alice", 0, 0, &res), EOK);
    assert_int_equal(res->source, CACHE_REQ_SRC_STALE);
    assert_int_equal(t->be[0].calls, 3);
    talloc_free(res);
    /* online again: asked again */
    resp_domain_set_online(t->rctx, "one", true);
    t->be[0].mode = BE_OK;
    assert_int_equal(lookup(t, CACHE_REQ_USER_BY_NAME, "alice", 0, 0, &res), EOK);
    assert_int_equal(res->source, CACHE_REQ_SRC_DP);
    assert_int_equal(t->be[0].calls, 4);
    talloc_free(res);
}

static void test_no_reply_and_unreachable(void **state)
{
    struct test_ctx *t = *state;
    struct cache_req_result *res;

    t->rctx->dp_timeout_ms = 200;
    t->be[0].mode = BE_HOLD;
    store_user(t, 0, "alice", 1001, "Old", time(NULL) - 1000, 10);
    assert_int_equal(lookup(t, CACHE_REQ_USER_BY_NAME, "alice", 0, 0, &res), EOK);
    assert_int_equal(res->source, CACHE_REQ_SRC_STALE);
    talloc_free(res);

    /* domain two's back-end is gone: ERR_SBUS_UNKNOWN_SERVICE, stale answer */
    store_user(t, 1, "bob", 2002, "Old Bob", time(NULL) - 1000, 10);
    talloc_zfree(t->be[1].conn);
    assert_int_equal(lookup(t, CACHE_REQ_USER_BY_ID, NULL, 2002, 0, &res), EOK);
    assert_int_equal(res->source, CACHE_REQ_SRC_STALE);
    assert_string_equal(res->user->gecos, "Old Bob");
    talloc_free(res);
}

static void test_domain_order_and_ids(void **state)
{
    struct test_ctx *t = *state;
    struct cache_req_result *res;

    /* alice exists in both: the first domain answers */
    assert_int_equal(lookup(t, CACHE_REQ_USER_BY_NAME, "alice", 0, 0, &res), EOK);
    assert_string_equal(res->domain->name, "one");
    assert_int_equal(res->user->uid, 1001);
    assert_int_equal(t->be[1].calls, 0);
    talloc_free(res);
    /* bob only in the second: one says no, two answers */
    assert_int_equal(lookup(t, CACHE_REQ_USER_BY_NAME, "bob", 0, 0, &res), EOK);
    assert_string_equal(res->domain->name, "two");
    assert_int_equal(t->be[0].calls, 2);
    assert_int_equal(t->be[1].calls, 1);
    talloc_free(res);
    /* a fully qualified name limits the lookup to its domain */
    assert_int_equal(lookup(t, CACHE_REQ_USER_BY_NAME, "alice@two", 0, 0, &res), EOK);
    assert_int_equal(res->user->uid, 2001);
    assert_int_equal(t->be[0].calls, 2);
    talloc_free(res);
    /* uid 2001 is above one's max_id: one is not asked */
    assert_int_equal(lookup(t, CACHE_REQ_USER_BY_ID, NULL, 2001, 0, &res), EOK);
    assert_string_equal(res->domain->name, "two");
    assert_int_equal(t->be[0].calls, 2);
    talloc_free(res);
    /* below one's min_id: only two (min_id 1) is asked */
    assert_int_equal(lookup(t, CACHE_REQ_USER_BY_ID, NULL, 999, 0, NULL), ENOENT);
    assert_int_equal(t->be[0].calls, 2);
    assert_int_equal(t->be[1].calls, 3);
    /* groups by gid */
    assert_int_equal(lookup(t, CACHE_REQ_GROUP_BY_ID, NULL, 2500, 0, &res), EOK);
    assert_string_equal(res->short_name, "staff");
    talloc_free(res);
}

static void test_root_and_filters(void **state)
{
    struct test_ctx *t = *state;

    assert_int_equal(lookup(t, CACHE_REQ_USER_BY_NAME, "root", 0, 0, NULL), ENOENT);
    assert_int_equal(lookup(t, CACHE_REQ_USER_BY_ID, NULL, 0, 0, NULL), ENOENT);
    assert_int_equal(lookup(t, CACHE_REQ_GROUP_BY_ID, NULL, 0, 0, NULL), ENOENT);
    assert_int_equal(lookup(t, CACHE_REQ_USER_BY_NAME, "nobody", 0, 0, NULL), ENOENT);
    assert_int_equal(t->be[0].calls + t->be[1].calls, 0);
    /* "@suffix" naming no domain: as SSSD, the whole name is a name, then an e-mail
     * address, in each domain (the back-ends know neither) */
    assert_int_equal(lookup(t, CACHE_REQ_USER_BY_NAME, "alice@nosuchdomain", 0, 0, NULL),
                     ENOENT);
    assert_int_equal(t->be[0].calls + t->be[1].calls, 4);
    /* filtered by name after a lookup by id */
    assert_int_equal(lookup(t, CACHE_REQ_USER_BY_ID, NULL, 1099, 0, NULL), ENOENT);
}

static void test_initgroups(void **state)
{
    struct test_ctx *t = *state;
    struct cache_req_result *res;

    assert_int_equal(lookup(t, CACHE_REQ_INITGROUPS, "alice", 0, 0, &res), EOK);
    assert_int_equal(res->source, CACHE_REQ_SRC_DP);
    assert_int_equal(t->be[0].calls, 1);
    assert_int_equal(t->be[0].last_type, SSS_DP_INITGROUPS);
    assert_int_equal(res->num_gids, 2);
    assert_int_equal(res->gids[0], 1500);
    assert_int_equal(res->gids[1], 1501);
    talloc_free(res);
    assert_int_equal(lookup(t, CACHE_REQ_INITGROUPS, "alice", 0, 0, &res), EOK);
    assert_int_equal(res->source, CACHE_REQ_SRC_CACHE);
    assert_int_equal(t->be[0].calls, 1);
    talloc_free(res);
    /* a cached user without a group list still needs the call */
    store_user(t, 1, "bob", 2002, "Bob", time(NULL), 100);
    assert_int_equal(lookup(t, CACHE_REQ_INITGROUPS, "bob@two", 0, 0, &res), EOK);
    assert_int_equal(t->be[1].calls, 1);
    assert_int_equal(res->num_gids, 0);
    talloc_free(res);
}

static void test_nowait_refresh(void **state)
{
    struct test_ctx *t = *state;
    struct cache_req_result *res;
    int i;

    /* 60 s into a 100 s lifetime: past the default 50 % */
    store_user(t, 0, "alice", 1001, "Aging", time(NULL) - 60, 100);
    assert_int_equal(lookup(t, CACHE_REQ_USER_BY_NAME, "alice", 0, 0, &res), EOK);
    assert_int_equal(res->source, CACHE_REQ_SRC_CACHE);
    assert_string_equal(res->user->gecos, "Aging");
    talloc_free(res);
    for (i = 0; i < 200 && t->be[0].calls == 0; i++) {
        tevent_loop_once(t->ev);
    }
    assert_int_equal(t->be[0].calls, 1);
    /* let the reply come back and be dropped */
    for (i = 0; i < 50 && t->rctx->dp_calls > 0 && sbus_call_in_flight(t->nss_conn) > 0; i++) {
        tevent_loop_once(t->ev);
    }
    assert_int_equal(sbus_call_in_flight(t->nss_conn), 0);
}

static void test_concurrent_identical(void **state)
{
    struct test_ctx *t = *state;
    struct tevent_req *reqs[20];
    struct cache_req_result *res;
    bool done[20] = { false };
    size_t i;

    for (i = 0; i < 20; i++) {
        reqs[i] = cache_req_send(t, t->ev, t->rctx, CACHE_REQ_USER_BY_NAME, "carol", 0, 0,
                                 i + 1);
        assert_non_null(reqs[i]);
        tevent_req_set_callback(reqs[i], tc_flag_done, &done[i]);
    }
    for (i = 0; i < 20; i++) {
        tc_wait_flag(t->ev, &done[i]);
        assert_int_equal(cache_req_recv(t, reqs[i], &res), EOK);
        assert_int_equal(res->user->uid, 1003);
        talloc_free(res);
        talloc_free(reqs[i]);
    }
    assert_int_equal(t->be[0].calls, 1);
    assert_int_equal(t->be[1].calls, 0);
}

static void test_cancel(void **state)
{
    struct test_ctx *t = *state;
    struct tevent_req *req;
    int i;

    /* a client going away frees its lookup while the call is in flight */
    t->be[0].mode = BE_HOLD;
    req = cache_req_send(t, t->ev, t->rctx, CACHE_REQ_USER_BY_NAME, "carol", 0, 0, 7);
    assert_non_null(req);
    for (i = 0; i < 100 && t->be[0].calls == 0; i++) {
        tevent_loop_once(t->ev);
    }
    assert_int_equal(t->be[0].calls, 1);
    talloc_free(req);
}

/* ldb loads its modules once per process, on the NULL context: do it before baselines. */
static void warm_up_ldb(void)
{
    char *dir = tc_tmpdir(NULL, "test_warmup");
    struct sysdb_ctx *sysdb;

    assert_int_equal(sysdb_open(NULL, dir, "warmup", SYSDB_CASE_SENSITIVE, &sysdb), EOK);
    talloc_free(sysdb);
    tc_tmpdir_remove(dir);
    talloc_free(dir);
}

/* Accounts of the local files (local_negative_timeout) are looked up in no domain, by
 * name or id; lines the files source skips are skipped; a file that changes is read again;
 * "name@domain" still asks the directory. */
static void test_local_accounts(void **state)
{
    struct test_ctx *t = *state;
    unsigned int calls;

    write_file(t, "passwd", "# comment\n\nlocal1:x:1001:1001::/:/bin/sh\n"
                            "+nisuser::::::\n-alice\nbroken\nnoid:x:abc:1::/:\n");
    write_file(t, "group", "lgroup:x:1500:\n");
    assert_int_equal(resp_ctx_set_local_files(t->rctx, test_path(t, "passwd"),
                                              test_path(t, "group")), EOK);

    assert_int_equal(lookup(t, CACHE_REQ_USER_BY_NAME, "local1", 0, 0, NULL), ENOENT);
    assert_int_equal(lookup(t, CACHE_REQ_INITGROUPS, "local1", 0, 0, NULL), ENOENT);
    assert_int_equal(lookup(t, CACHE_REQ_USER_BY_NAME, "noid", 0, 0, NULL), ENOENT);
    /* uid 1001 is local1's: alice of domain one (uid 1001) is not looked up by id */
    assert_int_equal(lookup(t, CACHE_REQ_USER_BY_ID, NULL, 1001, 0, NULL), ENOENT);
    assert_int_equal(lookup(t, CACHE_REQ_GROUP_BY_NAME, "lgroup", 0, 0, NULL), ENOENT);
    assert_int_equal(lookup(t, CACHE_REQ_GROUP_BY_ID, NULL, 1500, 0, NULL), ENOENT);
    assert_int_equal(t->be[0].calls + t->be[1].calls, 0);

    /* compat entries are not local names: alice is looked up (and found by name) */
    assert_int_equal(lookup(t, CACHE_REQ_USER_BY_NAME, "alice", 0, 0, NULL), EOK);
    assert_int_equal(lookup(t, CACHE_REQ_USER_BY_NAME, "nisuser", 0, 0, NULL), ENOENT);
    calls = t->be[0].calls + t->be[1].calls;
    assert_true(calls >= 2);
    /* a qualified name asks its domain (then, not found, every domain by e-mail address) */
    assert_int_equal(lookup(t, CACHE_REQ_USER_BY_NAME, "local1@two", 0, 0, NULL), ENOENT);
    assert_int_equal(t->be[1].calls + t->be[0].calls, calls + 3);

    /* a user added to the file is local from the next check on */
    sleep(1);
    write_file(t, "passwd", "bob:x:2002:2002::/:/bin/sh\n");
    usleep((RESP_LOCAL_CHECK_MS + 100) * 1000);
    calls = t->be[0].calls + t->be[1].calls;
    assert_int_equal(lookup(t, CACHE_REQ_USER_BY_NAME, "bob", 0, 0, NULL), ENOENT);
    assert_int_equal(t->be[0].calls + t->be[1].calls, calls);

    /* local_negative_timeout = 0 turns it off */
    t->rctx->local_neg_timeout = 0;
    assert_int_equal(lookup(t, CACHE_REQ_USER_BY_NAME, "bob", 0, 0, NULL), EOK);
}

/* Repeated gids go, first occurrences stay in list order, at any size (the sorted path
 * above a few dozen). */
/* Netgroups: by name over the domains in order, their own negative cache (emptied with the
 * groups), no root guard and no filter_users (a netgroup is not an account), offline
 * answers from the expired entry. */
static void test_netgroup(void **state)
{
    struct test_ctx *t = *state;
    struct cache_req_result *res;

    assert_int_equal(lookup(t, CACHE_REQ_NETGROUP, "ng1", 0, 0, &res), EOK);
    assert_string_equal(res->domain->name, "two");
    assert_int_equal(res->source, CACHE_REQ_SRC_DP);
    assert_string_equal(res->short_name, "ng1");
    assert_non_null(res->netgroup);
    assert_string_equal(res->netgroup->triples[0], "(h1,u1,d1)");
    assert_string_equal(res->netgroup->members[0], "ng2");
    assert_int_equal(t->be[0].last_type, SSS_DP_NETGROUP);
    assert_string_equal(t->be[1].last_filter, "name=ng1");
    talloc_free(res);
    /* one was asked and had none: negatively cached there, as a netgroup */
    assert_int_equal(resp_ncache_count(t->rctx->ncache, RESP_NCACHE_NETGROUP), 1);
    assert_int_equal(resp_ncache_count(t->rctx->ncache, RESP_NCACHE_USER), 0);
    assert_int_equal(resp_ncache_count(t->rctx->ncache, RESP_NCACHE_GROUP), 0);
    assert_int_equal(lookup(t, CACHE_REQ_NETGROUP, "ng1", 0, 0, &res), EOK);
    assert_int_equal(res->source, CACHE_REQ_SRC_CACHE);
    assert_int_equal(t->be[0].calls + t->be[1].calls, 2);
    talloc_free(res);

    /* missing everywhere: negative cache until ResetGroups */
    assert_int_equal(lookup(t, CACHE_REQ_NETGROUP, "ghost", 0, 0, NULL), ENOENT);
    assert_int_equal(lookup(t, CACHE_REQ_NETGROUP, "ghost", 0, 0, NULL), ENOENT);
    assert_int_equal(t->be[0].calls + t->be[1].calls, 4);
    assert_int_equal(resp_ncache_count(t->rctx->ncache, RESP_NCACHE_NETGROUP), 3);
    resp_reset_negative_cache(t->rctx, RESP_NCACHE_USER);
    assert_int_equal(resp_ncache_count(t->rctx->ncache, RESP_NCACHE_NETGROUP), 3);
    resp_ncache_reset(t->rctx->ncache, RESP_NCACHE_NETGROUP);
    assert_int_equal(lookup(t, CACHE_REQ_NETGROUP, "ghost", 0, 0, NULL), ENOENT);
    assert_int_equal(t->be[0].calls + t->be[1].calls, 6);

    /* "root" and a name filter_users lists are netgroup names like any other */
    assert_int_equal(lookup(t, CACHE_REQ_NETGROUP, "root", 0, 0, NULL), EOK);
    assert_int_equal(lookup(t, CACHE_REQ_NETGROUP, "nobody", 0, 0, NULL), EOK);

    /* offline: the expired entry answers */
    t->be[1].mode = BE_OFFLINE;
    assert_int_equal(sysdb_expire_netgroup(t->rctx->domains[1].sysdb, "ng1"), EOK);
    assert_int_equal(lookup(t, CACHE_REQ_NETGROUP, "ng1", 0, 0, &res), EOK);
    assert_int_equal(res->source, CACHE_REQ_SRC_STALE);
    talloc_free(res);
}

static void test_dedupe_gids(void **state)
{
    uint32_t *gids = talloc_array(NULL, uint32_t, 5000);
    uint32_t *ref = talloc_array(gids, uint32_t, 5000);
    size_t n, r, i, j;

    assert_non_null(gids);
    for (i = 0; i < 5000; i++) {
        gids[i] = (uint32_t)((i * 7919) % 3001);     /* 3001 distinct, many repeated */
    }
    for (r = 0, i = 0; i < 5000; i++) {
        for (j = 0; j < r && ref[j] != gids[i]; j++) {
            /* search */
        }
        if (j == r) {
            ref[r++] = gids[i];
        }
    }
    n = cache_req_dedupe_gids(gids, 5000);
    assert_int_equal(n, r);
    assert_int_equal(n, 3001);
    assert_memory_equal(gids, ref, n * sizeof(uint32_t));
    gids[0] = 5;
    gids[1] = 5;
    gids[2] = 4;
    assert_int_equal(cache_req_dedupe_gids(gids, 3), 2);
    assert_int_equal(gids[1], 4);
    assert_int_equal(cache_req_dedupe_gids(gids, 0), 0);
    talloc_free(gids);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_fresh_hit, setup, teardown),
        cmocka_unit_test_setup_teardown(test_expired_refreshed, setup, teardown),
        cmocka_unit_test_setup_teardown(test_missing_negative_cache, setup, teardown),
        cmocka_unit_test_setup_teardown(test_offline_stale, setup, teardown),
        cmocka_unit_test_setup_teardown(test_no_reply_and_unreachable, setup, teardown),
        cmocka_unit_test_setup_teardown(test_domain_order_and_ids, setup, teardown),
        cmocka_unit_test_setup_teardown(test_root_and_filters, setup, teardown),
        cmocka_unit_test_setup_teardown(test_initgroups, setup, teardown),
        cmocka_unit_test_setup_teardown(test_nowait_refresh, setup, teardown),
        cmocka_unit_test_setup_teardown(test_concurrent_identical, setup, teardown),
        cmocka_unit_test_setup_teardown(test_cancel, setup, teardown),
        cmocka_unit_test_setup_teardown(test_netgroup, setup, teardown),
        cmocka_unit_test(test_dedupe_gids),
        cmocka_unit_test_setup_teardown(test_local_accounts, setup, teardown),
    };

    talloc_enable_null_tracking();
    talloc_free(tevent_context_init(NULL));
    warm_up_ldb();
    return cmocka_run_group_tests(tests, NULL, NULL);
}
