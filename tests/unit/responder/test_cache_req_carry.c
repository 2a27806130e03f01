/*
 * cache_req with back-end replies that carry the stored entry (sss_dp.h, sysdb_reply.h),
 * against a real temporary cache and a real in-process master bus. The back-end double
 * writes the cache as sssd_be does, takes the carried entry with sysdb_reply_get() as
 * sssd_be does, and then, per test, carries it as is, carries an edited copy (so that an
 * answer shows whether the carried entry or the cache answered), carries an older one
 * (taken before a newer write), one of another key, or a damaged one. Covered: the carried
 * entry answers; a carried entry older than the cache never does; "not found" carried still
 * negative-caches; a reply without entry and any malformed or foreign entry fall back to
 * the cache read; an entry over the read cache's limit is not even copied; initgroups and
 * groups carried; every single-byte corruption and every truncation of a carried entry is
 * refused or harmless (run under ASan in CI); lookups by SID.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>

#include "responder/common/cache_req.h"
#include "responder/common/cache_req_private.h"
#include "db/sysdb_reply.h"
#include "db/sysdb_rcache.h"
#include "sbus/sbus_server.h"
#include "sss_iface/sss_iface.h"
#include "sss_iface/sss_dp.h"
#include "tests/unit/common/tc_common.h"
#include "tests/unit/common/tc_bus.h"

#define CONF \
    "[sssd]\n" \
    "domains = one\n" \
    "[nss]\n" \
    "entry_negative_timeout = 30\n" \
    "[domain/one]\n" \
    "id_provider = ldap\n" \
    "ldap_uri = ldap://localhost\n"

enum carry {
    CARRY_NONE,         /* gen 0: an older back-end, or nothing to vouch for */
    CARRY_AS_IS,        /* what sssd_be sends */
    CARRY_EDITED,       /* the entry with "New" in its gecos spelt "NEW" */
    CARRY_OLDER,        /* taken, then the entry is written again ("Newer") */
    CARRY_OTHER_KEY,    /* the entry of another user (carol's) */
    CARRY_TRUNCATED,    /* all but its last 8 bytes */
    CARRY_OVERSIZED,    /* padded past the read cache's entry limit */
};

struct test_ctx {
    char *dir;
    struct tevent_context *ev;
    struct sbus_server *server;
    struct sbus_connection *nss_conn;
    struct sbus_connection *be_conn;
    struct confdb *cdb;
    struct resp_ctx *rctx;
    struct sysdb_ctx *sysdb;
    struct sbus_method methods[2];
    struct sbus_interface iface;
    enum carry carry;
    bool exists;                /* the directory has alice (and her groups) */
    unsigned int calls;
    char last_filter[128];      /* of the last back-end call */
};

static struct tc_leaks leaks;

/* ---- the back-end double ---- */

struct be_state {
    uint64_t gen;
    uint8_t *entry;
    size_t len;
};

static void store_alice(struct test_ctx *t, const char *gecos)
{
    struct sysdb_user u = { .name = "alice", .uid = 1001, .gid = 1001, .gecos = gecos,
                            .home = "/home/alice", .shell = "/bin/sh",
                            .sid = "S-1-5-21-1-2-3-1001" };
    struct sysdb_group g = { .name = "devs", .gid = 1500, .sid = "S-1-5-21-1-2-3-1500" };
    const char *members[] = { "alice", NULL };
    const char *groups[] = { "devs", NULL };

    g.members = members;
    assert_int_equal(sysdb_store_user(t->sysdb, &u, time(NULL), 100), EOK);
    assert_int_equal(sysdb_store_group(t->sysdb, &g, true, time(NULL), 100), EOK);
    assert_int_equal(sysdb_store_initgroups(t->sysdb, "alice", groups, time(NULL), 100), EOK);
}

static void store_carol(struct test_ctx *t)
{
    struct sysdb_user u = { .name = "carol", .uid = 1003, .gid = 1003, .gecos = "Carol" };

    assert_int_equal(sysdb_store_user(t->sysdb, &u, time(NULL), 100), EOK);
}

/* The read cache key of a call, as sssd_be derives it. */
static void call_key(uint32_t type, const char *filter, struct sysdb_reply_key *key)
{
    bool by_name = strncmp(filter, SSS_DP_FILTER_NAME, strlen(SSS_DP_FILTER_NAME)) == 0;

    key->name = by_name ? filter + strlen(SSS_DP_FILTER_NAME) : NULL;
    key->id = by_name ? 0 : (uint32_t)strtoul(filter + strlen(SSS_DP_FILTER_ID), NULL, 10);
    switch (type) {
    case SSS_DP_USER: key->kind = by_name ? SYSDB_RC_USER_NAME : SYSDB_RC_USER_UID; break;
    case SSS_DP_GROUP: key->kind = by_name ? SYSDB_RC_GROUP_NAME : SYSDB_RC_GROUP_GID; break;
    default: key->kind = SYSDB_RC_INITGR; break;
    }
}

static void edit_new(uint8_t *blob, size_t len)
{
    size_t i;

    for (i = 0; i + 3 <= len; i++) {
        if (memcmp(blob + i, "New", 3) == 0) {
            memcpy(blob + i, "NEW", 3);
            return;
        }
    }
    fail_msg("no \"New\" in the carried entry");
}

static struct tevent_req *be_send(TALLOC_CTX *mem_ctx, struct tevent_context *ev,
                                  struct sbus_request *sbus_req, void *data,
                                  uint32_t dp_flags, uint32_t entry_type, const char *filter,
                                  const char *domain, const char *extra, uint32_t cli_id,
                                  uint64_t req_id)
{
    struct test_ctx *t = data;
    struct sysdb_reply_key key;
    struct be_state *state;
    struct tevent_req *req;
    void *blob = NULL;
    errno_t ret;

    req = tevent_req_create(mem_ctx, &state, struct be_state);
    assert_non_null(req);
    t->calls++;
    snprintf(t->last_filter, sizeof(t->last_filter), "%s", filter);
    if (t->exists) {
        store_alice(t, "Alice New");
    } else {
        ret = sysdb_delete_user(t->sysdb, "alice");
        assert_true(ret == EOK || ret == ENOENT);
    }
    call_key(entry_type & SSS_DP_TYPE_MASK, filter, &key);
    if (t->carry == CARRY_OTHER_KEY) {
        store_carol(t);
        key.name = "carol";
        key.id = 1003;
    }
    if (t->carry != CARRY_NONE) {
        assert_int_equal(sysdb_reply_get(state, t->sysdb, &key, &state->gen, &blob,
                                         &state->len), EOK);
        assert_true(state->gen != 0);
        state->entry = blob;
    }
    switch (t->carry) {
    case CARRY_EDITED:
        edit_new(state->entry, state->len);
        break;
    case CARRY_OLDER:
        store_alice(t, "Alice Newer");
        break;
    case CARRY_TRUNCATED:
        assert_true(state->len > 8);
        state->len -= 8;
        break;
    case CARRY_OVERSIZED:
        state->entry = talloc_realloc(state, state->entry, uint8_t,
                                      SYSDB_RCACHE_MAX_ENTRY + 1);
        assert_non_null(state->entry);
        memset(state->entry + state->len, 0, SYSDB_RCACHE_MAX_ENTRY + 1 - state->len);
        state->len = SYSDB_RCACHE_MAX_ENTRY + 1;
        break;
    default:
        break;
    }
    tevent_req_done(req);
    return tevent_req_post(req, ev);
}

static errno_t be_recv(TALLOC_CTX *mem_ctx, struct tevent_req *req, uint16_t *_dp_error,
                       uint32_t *_error, const char **_message, uint64_t *_gen,
                       const uint8_t **_entry, uint32_t *_n_entry)
{
    struct be_state *state = tevent_req_data(req, struct be_state);

    TEVENT_REQ_RETURN_ON_ERROR(req);
    *_dp_error = SSS_DP_ERR_OK;
    *_error = 0;
    *_message = "test";
    *_gen = state->gen;
    *_entry = talloc_steal(mem_ctx, state->entry);
    *_n_entry = (uint32_t)state->len;
    return EOK;
}

/* ---- fixtures and helpers ---- */

static int setup(void **state)
{
    struct test_ctx *t;
    char *err = NULL;
    char *passwd, *group;
    FILE *f;

    tc_leak_start(&leaks);
    t = talloc_zero(NULL, struct test_ctx);
    assert_non_null(t);
    t->dir = tc_tmpdir(t, "test_cache_req_carry");
    t->ev = tevent_context_init(t);
    assert_non_null(t->ev);
    t->server = tc_bus_server(t, t->ev, t->dir);
    assert_int_equal(confdb_parse_buffer(t, "test.conf", CONF, strlen(CONF), &t->cdb, &err),
                     EOK);
    t->nss_conn = tc_bus_connect(t, t->ev, t->server, SSS_BUS_NSS);
    assert_int_equal(resp_ctx_create(t, t->ev, t->cdb, t->nss_conn, t->dir, &t->rctx), EOK);
    /* The local accounts are the test's own (empty), not the machine's. */
    passwd = talloc_asprintf(t, "%s/passwd", t->dir);
    group = talloc_asprintf(t, "%s/group", t->dir);
    assert_non_null(passwd);
    assert_non_null(group);
    f = fopen(passwd, "w");
    assert_non_null(f);
    fclose(f);
    f = fopen(group, "w");
    assert_non_null(f);
    fclose(f);
    assert_int_equal(resp_ctx_set_local_files(t->rctx, passwd, group), EOK);
    assert_int_equal(resp_domain_sysdb(t->rctx, &t->rctx->domains[0], &t->sysdb), EOK);
    t->be_conn = tc_bus_connect(t, t->ev, t->server, t->rctx->domains[0].bus_name);
    t->methods[0] = (struct sbus_method)SBUS_METHOD_ASYNC_sssd_dataprovider_getAccountInfo(
                        be_send, be_recv, t);
    t->methods[1] = (struct sbus_method)SBUS_METHODS_END;
    t->iface.name = SBUS_IFACE_sssd_dataprovider;
    t->iface.methods = t->methods;
    assert_int_equal(sbus_connection_add_interface(t->be_conn, SSS_BUS_PATH, &t->iface), EOK);
    t->exists = true;
    *state = t;
    return 0;
}

static int teardown(void **state)
{
    struct test_ctx *t = *state;
    char *dir = talloc_steal(NULL, t->dir);

    talloc_free(t);
    tc_tmpdir_remove(dir);
    talloc_free(dir);
    tc_leak_check(&leaks);
    return 0;
}

static errno_t lookup(struct test_ctx *t, enum cache_req_type type, const char *name,
                      uint32_t id, struct cache_req_result **_res)
{
    struct cache_req_result *res = NULL;
    struct tevent_req *req;
    errno_t ret;

    req = cache_req_send(t, t->ev, t->rctx, type, name, id, 0, 42);
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

/* The gecos a cold lookup of alice (by name, else by uid) answers. */
static char *cold_gecos(struct test_ctx *t, bool by_uid)
{
    struct cache_req_result *res;
    char *gecos;

    assert_int_equal(lookup(t, by_uid ? CACHE_REQ_USER_BY_ID : CACHE_REQ_USER_BY_NAME,
                            by_uid ? NULL : "alice", by_uid ? 1001 : 0, &res), EOK);
    assert_int_equal(res->source, CACHE_REQ_SRC_DP);
    assert_int_equal(res->user->uid, 1001);
    gecos = talloc_strdup(t, res->user->gecos);
    talloc_free(res);
    return gecos;
}

/* ---- tests ---- */

static void test_carried_entry_answers(void **state)
{
    struct test_ctx *t = *state;

    /* As sssd_be sends it: the same answer the cache gives. */
    t->carry = CARRY_AS_IS;
    assert_string_equal(cold_gecos(t, false), "Alice New");
    /* An edited copy shows which one answered: the carried entry, by name and by uid. */
    assert_int_equal(sysdb_expire_user(t->sysdb, "alice"), EOK);
    t->carry = CARRY_EDITED;
    assert_string_equal(cold_gecos(t, false), "Alice NEW");
    assert_int_equal(sysdb_expire_user(t->sysdb, "alice"), EOK);
    assert_string_equal(cold_gecos(t, true), "Alice NEW");
    assert_int_equal(t->calls, 3);
}

static void test_older_entry_never_wins(void **state)
{
    struct test_ctx *t = *state;

    /* Taken before a newer write: the newer cache entry answers. */
    t->carry = CARRY_OLDER;
    assert_string_equal(cold_gecos(t, false), "Alice Newer");
    assert_int_equal(sysdb_expire_user(t->sysdb, "alice"), EOK);
    assert_string_equal(cold_gecos(t, true), "Alice Newer");
}

static void test_fallbacks(void **state)
{
    struct test_ctx *t = *state;
    static const enum carry modes[] = { CARRY_NONE, CARRY_OTHER_KEY, CARRY_TRUNCATED };
    size_t i;

    for (i = 0; i < sizeof(modes) / sizeof(modes[0]); i++) {
        t->carry = modes[i];
        assert_string_equal(cold_gecos(t, false), "Alice New");
        assert_int_equal(sysdb_expire_user(t->sysdb, "alice"), EOK);
        assert_string_equal(cold_gecos(t, true), "Alice New");
        assert_int_equal(sysdb_expire_user(t->sysdb, "alice"), EOK);
    }
}

/* An entry over the read cache's limit is not even copied out of the reply: nothing
 * carried, and the lookup reads the cache. */
static void test_oversized_not_taken(void **state)
{
    struct test_ctx *t = *state;
    struct cache_req_dp_entry entry = { .gen = 1 };
    struct tevent_req *req;
    uint16_t dp_error = 1;
    uint32_t error = 1;

    t->carry = CARRY_OVERSIZED;
    req = cache_req_dp_send(t, t->rctx, &t->rctx->domains[0], SSS_DP_USER,
                            SSS_DP_FILTER_NAME "alice", 42);
    tc_wait_req(t->ev, req);
    assert_int_equal(cache_req_dp_recv(t, req, &dp_error, &error, &entry), EOK);
    talloc_free(req);
    assert_int_equal(dp_error, SSS_DP_ERR_OK);
    assert_int_equal(entry.gen, 0);
    assert_null(entry.blob);
    assert_int_equal(entry.len, 0);
    assert_int_equal(sysdb_expire_user(t->sysdb, "alice"), EOK);
    assert_string_equal(cold_gecos(t, false), "Alice New");
}

static void test_not_found_negative_cache(void **state)
{
    struct test_ctx *t = *state;

    t->carry = CARRY_AS_IS;
    t->exists = false;
    assert_int_equal(lookup(t, CACHE_REQ_USER_BY_NAME, "alice", 0, NULL), ENOENT);
    assert_int_equal(resp_ncache_count(t->rctx->ncache, RESP_NCACHE_USER), 1);
    assert_int_equal(lookup(t, CACHE_REQ_USER_BY_NAME, "alice", 0, NULL), ENOENT);
    assert_int_equal(t->calls, 1);
    /* by uid too */
    assert_int_equal(lookup(t, CACHE_REQ_USER_BY_ID, NULL, 1001, NULL), ENOENT);
    assert_int_equal(resp_ncache_count(t->rctx->ncache, RESP_NCACHE_USER), 2);
    assert_int_equal(t->calls, 2);
}

static void test_initgroups_and_groups(void **state)
{
    struct test_ctx *t = *state;
    struct cache_req_result *res;

    t->carry = CARRY_AS_IS;
    assert_int_equal(lookup(t, CACHE_REQ_INITGROUPS, "alice", 0, &res), EOK);
    assert_int_equal(res->source, CACHE_REQ_SRC_DP);
    assert_int_equal(res->num_gids, 1);
    assert_int_equal(res->gids[0], 1500);
    talloc_free(res);
    assert_int_equal(sysdb_expire_group(t->sysdb, "devs"), EOK);
    assert_int_equal(lookup(t, CACHE_REQ_GROUP_BY_NAME, "devs", 0, &res), EOK);
    assert_int_equal(res->source, CACHE_REQ_SRC_DP);
    assert_int_equal(res->group->gid, 1500);
    assert_non_null(res->group->members[0]);
    assert_null(res->group->members[1]);
    talloc_free(res);
    assert_int_equal(sysdb_expire_group(t->sysdb, "devs"), EOK);
    assert_int_equal(lookup(t, CACHE_REQ_GROUP_BY_ID, NULL, 1500, &res), EOK);
    assert_int_equal(res->source, CACHE_REQ_SRC_DP);
    assert_string_equal(res->short_name, "devs");
    talloc_free(res);
}

/* Lookups by SID (CACHE_REQ_*_BY_SID): a SID never seen asks the back-end with
 * "secid=<SID>", then the entry holding it answers from the cache; groups too; a SID
 * nobody holds is not found and negatively cached (asked once). */
static void test_by_sid(void **state)
{
    struct test_ctx *t = *state;
    struct cache_req_result *res;

    t->carry = CARRY_NONE;
    assert_int_equal(lookup(t, CACHE_REQ_USER_BY_SID, "S-1-5-21-1-2-3-1001", 0, &res), EOK);
    assert_int_equal(t->calls, 1);
    assert_string_equal(t->last_filter, "secid=S-1-5-21-1-2-3-1001");
    assert_int_equal(res->source, CACHE_REQ_SRC_DP);
    assert_string_equal(res->short_name, "alice");
    assert_int_equal(res->user->uid, 1001);
    assert_string_equal(res->user->sid, "S-1-5-21-1-2-3-1001");
    talloc_free(res);
    assert_int_equal(lookup(t, CACHE_REQ_USER_BY_SID, "S-1-5-21-1-2-3-1001", 0, &res), EOK);
    assert_int_equal(res->source, CACHE_REQ_SRC_CACHE);
    talloc_free(res);
    /* The group's SID is no user's; the group stored with alice answers from the cache. */
    assert_int_equal(lookup(t, CACHE_REQ_GROUP_BY_SID, "S-1-5-21-1-2-3-1500", 0, &res), EOK);
    assert_int_equal(res->source, CACHE_REQ_SRC_CACHE);
    assert_string_equal(res->short_name, "devs");
    assert_int_equal(res->group->gid, 1500);
    talloc_free(res);
    assert_int_equal(t->calls, 1);
    /* Unknown: asked once, then the negative cache. */
    assert_int_equal(lookup(t, CACHE_REQ_USER_BY_SID, "S-1-5-21-1-2-3-1500", 0, NULL), ENOENT);
    assert_int_equal(t->calls, 2);
    assert_int_equal(lookup(t, CACHE_REQ_USER_BY_SID, "S-1-5-21-1-2-3-1500", 0, NULL), ENOENT);
    assert_int_equal(t->calls, 2);
    /* No SID: refused as a bad argument. */
    assert_int_equal(lookup(t, CACHE_REQ_GROUP_BY_SID, NULL, 0, NULL), EINVAL);
}

/* Every single-byte change and every truncation of carried entries: refused (EINVAL), or
 * taken and then read back without harm (a byte of a string changed). */
static void damage_and_read(struct test_ctx *t, const struct sysdb_reply_key *key)
{
    TALLOC_CTX *tmp = talloc_new(NULL);
    struct sysdb_user *user;
    struct sysdb_group *group;
    uint32_t *gids;
    size_t count;
    bool have;
    uint64_t gen;
    void *blob;
    uint8_t *copy;
    size_t len;
    size_t i;
    errno_t ret;

    assert_int_equal(sysdb_reply_get(tmp, t->sysdb, key, &gen, &blob, &len), EOK);
    assert_true(len > 0);
    for (i = 0; i < 2 * len; i++) {
        copy = talloc_memdup(tmp, blob, len);
        assert_non_null(copy);
        if (i < len) {
            copy[i] ^= (i % 3 == 0) ? 0xff : (i % 3 == 1 ? 0x01 : 0x80);
        }
        ret = sysdb_reply_put(t->sysdb, key, gen, copy, i < len ? len : i - len);
        assert_true(ret == EOK || ret == EINVAL);
        switch (key->kind) {
        case SYSDB_RC_USER_NAME:
            ret = sysdb_get_user_by_name(tmp, t->sysdb, key->name, &user);
            if (ret == EOK) {
                assert_non_null(user->name);
                assert_non_null(user->extra);
                count = strlen(user->name) + (user->gecos ? strlen(user->gecos) : 0)
                        + (user->sid ? strlen(user->sid) : 0);
                (void)count;
            }
            break;
        case SYSDB_RC_GROUP_GID:
            ret = sysdb_get_group_by_gid(tmp, t->sysdb, key->id, &group);
            if (ret == EOK) {
                for (count = 0; group->members[count] != NULL; count++) {
                    assert_true(strlen(group->members[count]) < 1024);
                }
                assert_true(group->sid == NULL || strlen(group->sid) < 1024);
            }
            break;
        default:
            ret = sysdb_get_user_initgroups(tmp, t->sysdb, key->name, &user, &have, &gids,
                                            &count, NULL);
            break;
        }
        talloc_free(copy);
    }
    talloc_free(tmp);
}

static void test_damaged_entries(void **state)
{
    struct test_ctx *t = *state;
    struct sysdb_reply_key user = { .kind = SYSDB_RC_USER_NAME, .name = "alice" };
    struct sysdb_reply_key group = { .kind = SYSDB_RC_GROUP_GID, .id = 1500 };
    struct sysdb_reply_key initgr = { .kind = SYSDB_RC_INITGR, .name = "alice" };
    uint8_t junk[64] = { 0 };

    store_alice(t, "Alice New");
    damage_and_read(t, &user);
    damage_and_read(t, &group);
    damage_and_read(t, &initgr);
    /* Nothing stored for a generation the database has left, or for none. */
    assert_int_equal(sysdb_reply_put(t->sysdb, &user, 1, junk, sizeof(junk)), ESTALE);
    assert_int_equal(sysdb_reply_put(t->sysdb, &user, 0, NULL, 0), ESTALE);
}

/* ldb's one-time module set-up, before the first leak baseline. */
static void warm_up_ldb(void)
{
    char *dir = tc_tmpdir(NULL, "test_carry_warmup");
    struct sysdb_ctx *sysdb;

    assert_int_equal(sysdb_open(NULL, dir, "warmup", SYSDB_CASE_SENSITIVE, &sysdb), EOK);
    talloc_free(sysdb);
    tc_tmpdir_remove(dir);
    talloc_free(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_carried_entry_answers, setup, teardown),
        cmocka_unit_test_setup_teardown(test_older_entry_never_wins, setup, teardown),
        cmocka_unit_test_setup_teardown(test_fallbacks, setup, teardown),
        cmocka_unit_test_setup_teardown(test_oversized_not_taken, setup, teardown),
        cmocka_unit_test_setup_teardown(test_not_found_negative_cache, setup, teardown),
        cmocka_unit_test_setup_teardown(test_initgroups_and_groups, setup, teardown),
        cmocka_unit_test_setup_teardown(test_damaged_entries, setup, teardown),
        cmocka_unit_test_setup_teardown(test_by_sid, setup, teardown),
    };

    talloc_enable_null_tracking();
    talloc_free(tevent_context_init(NULL));
    warm_up_ldb();
    return cmocka_run_group_tests(tests, NULL, NULL);
}
