/*
 * The LDAP id provider against a real slapd started by test_sdap.sh (see that script and
 * test_sdap.ldif for the data): lookups by name and id, rfc2307 and rfc2307bis groups,
 * nesting and loops, initgroups, paged enumeration, failover, offline detection, many
 * lookups on one connection, simple bind, search timeout, hostile entries and filter
 * escaping. Every test builds its own confdb from text and its own id context.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/resource.h>
#include <unistd.h>
#include <cmocka.h>

#include "tests/unit/ldap/sdap_fixture.h"

/* sdap_options_read() on a [domain/test] section of the given option lines. */
static errno_t read_opts(struct test_ctx *t, const char *lines, struct sdap_options **_opts)
{
    char *text = talloc_asprintf(t->mem, "ldap_uri = ldap://127.0.0.1:9\n%s", lines);

    assert_non_null(text);
    return sdap_options_read(t->mem, fx_confdb(t, text), "test", _opts);
}

#define R2307 "ldap_uri = %s\nldap_search_base = ou=r2307,dc=test\nmin_id = 1000\n" \
              "max_id = 1000000\nldap_page_size = 5\n"
#define BIS "ldap_uri = %s\nldap_search_base = ou=bis,dc=test\nldap_schema = rfc2307bis\n"

static errno_t get_user(struct test_ctx *t, enum sdap_by by, const char *name, uint32_t id,
                        struct sdap_user **_user)
{
    return fx_get_user(t, t->id_ctx, by, name, id, _user);
}

static errno_t get_group(struct test_ctx *t, enum sdap_by by, const char *name, uint32_t id,
                         struct sdap_group **_group)
{
    struct tevent_req *req = sdap_get_group_send(t->mem, t->ev, t->id_ctx, by, name, id);
    struct sdap_group *dummy = NULL;
    errno_t ret;

    tc_wait_req(t->ev, req);
    ret = sdap_get_group_recv(t->mem, req, _group != NULL ? _group : &dummy);
    talloc_free(req);
    return ret;
}

static bool has(const char **list, const char *name)
{
    for (; list != NULL && *list != NULL; list++) {
        if (strcmp(*list, name) == 0) {
            return true;
        }
    }
    return false;
}

/* ---- tests --------------------------------------------------------------------------- */

static void test_filter_escape(void **state)
{
    struct test_ctx *t = *state;
    char *f;

    f = sdap_filter_escape(t->mem, "a*b(c)d\\e");
    assert_string_equal(f, "a\\2ab\\28c\\29d\\5ce");
    f = sdap_filter_eq(t->mem, "posixAccount", "uid", "*)(uid=*", "(x=y)");
    assert_string_equal(f, "(&(objectClass=posixAccount)(uid=\\2a\\29\\28uid=\\2a)(x=y))");
    f = sdap_filter_eq(t->mem, "posixAccount", "uid", "a", "x=y");
    assert_string_equal(f, "(&(objectClass=posixAccount)(uid=a)(x=y))");
}

static void test_parse_helpers(void **state)
{
    uint32_t id = 7;

    assert_int_equal(sdap_parse_id("1000", 1000, 0, &id), EOK);
    assert_int_equal(id, 1000);
    assert_int_equal(sdap_parse_id("0", 0, 0, &id), ERANGE);
    assert_int_equal(sdap_parse_id("999", 1000, 0, &id), ERANGE);
    assert_int_equal(sdap_parse_id("2001", 1000, 2000, &id), ERANGE);
    assert_int_equal(sdap_parse_id("4294967296", 1, 0, &id), ERANGE);
    /* (uid_t)-1: "unchanged" to setreuid() and chown(), never an id */
    assert_int_equal(sdap_parse_id("4294967295", 1, 0, &id), ERANGE);
    assert_int_equal(sdap_parse_id("4294967294", 1, 0, &id), EOK);
    assert_int_equal(sdap_parse_id("12a", 1, 0, &id), EINVAL);
    assert_int_equal(sdap_parse_id("-5", 1, 0, &id), EINVAL);
    assert_int_equal(sdap_parse_id("", 1, 0, &id), EINVAL);
    assert_true(sdap_valid_name("j\xc3\xbcrgen"));
    assert_false(sdap_valid_name("bad\xff"));
    assert_false(sdap_valid_name("\xc0\xaf"));          /* overlong */
    assert_false(sdap_valid_name("\xe2\x82"));          /* truncated */
    assert_false(sdap_valid_name("tab\there"));
    assert_false(sdap_valid_name(""));
    assert_false(sdap_valid_name("   "));
}

/* The string set keeps insertion order and map values, refuses duplicates, and grows. */
static void test_strset(void **state)
{
    struct test_ctx *t = *state;
    struct sdap_strset *set = sdap_strset_new(t->mem);
    const char **arr;
    char key[32];
    int i;

    assert_non_null(set);
    for (i = 0; i < 1000; i++) {
        snprintf(key, sizeof(key), "k%d", 999 - i);
        assert_true(sdap_strmap_add(set, key, (void *)(uintptr_t)(i + 1)));
    }
    assert_false(sdap_strmap_add(set, "k5", (void *)(uintptr_t)7));
    assert_false(sdap_strset_add(set, "k999"));
    assert_false(sdap_strset_add(set, NULL));
    assert_int_equal(sdap_strset_count(set), 1000);
    assert_int_equal((uintptr_t)sdap_strmap_get(set, "k5"), 995);
    assert_null(sdap_strmap_get(set, "k1000"));
    assert_true(sdap_strset_has(set, "k0"));
    assert_false(sdap_strset_has(set, "K0"));
    arr = sdap_strset_array(t->mem, set);
    assert_non_null(arr);
    assert_string_equal(arr[0], "k999");
    assert_string_equal(arr[999], "k0");
    assert_null(arr[1000]);
    assert_int_equal(sdap_strset_count(NULL), 0);
    assert_false(sdap_strset_has(NULL, "k0"));
}

/* Options come from confdb with its defaults; only the provider's own checks and
 * derived values are added. */
static void test_options(void **state)
{
    struct test_ctx *t = *state;
    struct sdap_options *o = NULL;

    assert_int_equal(read_opts(t, "", &o), EOK);
    assert_int_equal(o->search_timeout, 6);
    assert_int_equal(o->enum_search_timeout, 60);
    assert_int_equal(o->network_timeout, 6);
    assert_int_equal(o->opt_timeout, 8);
    assert_int_equal(o->bad_server_timeout, 60);
    assert_int_equal(o->page_size, 1000);
    assert_int_equal(o->nesting_level, 2);
    assert_int_equal(o->min_id, 1);
    assert_int_equal(o->schema, SDAP_SCHEMA_RFC2307);
    assert_false(o->member_is_dn);
    assert_int_equal(o->tls_reqcert, LDAP_OPT_X_TLS_HARD);
    assert_false(o->start_tls);
    assert_null(o->search_base);
    assert_null(o->user_base);
    assert_string_equal(o->user_map[SDAP_UA_NAME], "uid");
    assert_string_equal(o->group_map[SDAP_GA_MEMBER], "memberuid");
    assert_string_equal(sdap_tls_reqcert_name(o->tls_reqcert), "hard");
    assert_int_equal(o->num_uris, 1);

    assert_int_equal(read_opts(t, "ldap_schema = rfc2307bis\nldap_tls_reqcert = never\n"
                               "ldap_disable_paging = true\nldap_search_base = dc=x\n"
                               "ldap_group_search_base = ou=g,dc=x\n"
                               "ldap_backup_uri = ldaps://b.test\n", &o), EOK);
    assert_int_equal(o->schema, SDAP_SCHEMA_RFC2307BIS);
    assert_true(o->member_is_dn);
    assert_string_equal(o->group_map[SDAP_GA_MEMBER], "member");
    assert_int_equal(o->tls_reqcert, LDAP_OPT_X_TLS_NEVER);
    assert_int_equal(o->page_size, 0);
    assert_string_equal(o->user_base, "dc=x");
    assert_string_equal(o->group_base, "ou=g,dc=x");
    assert_int_equal(o->num_uris, 2);
    assert_int_equal(o->num_primary, 1);

    /* refused: a map that is not an attribute or is empty (a zero timeout never gets this
     * far: confdb refuses it at load, tests/unit/confdb) */
    assert_int_equal(read_opts(t, "ldap_user_name = a b\n", &o), ERR_INVALID_CONFIG);
    assert_int_equal(read_opts(t, "ldap_user_name = \n", &o), ERR_INVALID_CONFIG);
}

/* Bad arguments fail at once, logged: EINVAL, or NULL where nothing can be posted. */
static void test_invalid_args(void **state)
{
    struct test_ctx *t = *state;
    struct sdap_id_ctx *id_ctx = NULL;
    struct sdap_user *u = NULL;
    struct sdap_group **groups = NULL;
    struct tevent_req *req;
    size_t n = 0;

    assert_int_equal(sdap_id_ctx_create(t->mem, NULL, NULL, "test", &id_ctx), EINVAL);
    assert_null(id_ctx);
    assert_null(sdap_get_user_send(t->mem, NULL, NULL, SDAP_BY_NAME, "x", 0));
    req = sdap_get_user_send(t->mem, t->ev, NULL, SDAP_BY_NAME, "x", 0);
    tc_wait_req(t->ev, req);
    assert_int_equal(sdap_get_user_recv(t->mem, req, &u), EINVAL);
    talloc_free(req);
    req = sdap_enumerate_groups_send(t->mem, t->ev, NULL);
    tc_wait_req(t->ev, req);
    assert_int_equal(sdap_enumerate_groups_recv(t->mem, req, &groups, &n), EINVAL);
    assert_int_equal(sdap_enumerate_groups_recv(t->mem, req, NULL, &n), EINVAL);
    talloc_free(req);
    assert_null(sdap_id_ctx_server(NULL));
    assert_false(sdap_id_ctx_offline(NULL));
}

static void test_user_by_name_and_id(void **state)
{
    struct test_ctx *t = *state;
    struct sdap_user *u = NULL;
    struct sdap_id_stats st;

    fx_ctx(t, R2307, fx_env("SDAP_TEST_URI"));
    assert_int_equal(get_user(t, SDAP_BY_NAME, "user01", 0, &u), EOK);
    assert_string_equal(u->name, "user01");
    assert_int_equal(u->uid, 10001);
    assert_int_equal(u->gid, 20001);
    assert_string_equal(u->gecos, "User 1");
    assert_string_equal(u->home, "/home/user01");
    assert_string_equal(u->shell, "/bin/bash");
    assert_string_equal(u->orig_dn, "uid=user01,ou=people,ou=r2307,dc=test");

    assert_int_equal(get_user(t, SDAP_BY_ID, NULL, 10002, &u), EOK);
    assert_string_equal(u->name, "user02");
    assert_int_equal(get_user(t, SDAP_BY_NAME, "nosuchuser", 0, &u), ENOENT);
    assert_int_equal(get_user(t, SDAP_BY_ID, NULL, 12345, &u), ENOENT);
    /* gecos falls back to cn */
    assert_int_equal(get_user(t, SDAP_BY_NAME, "nogecos", 0, &u), EOK);
    assert_string_equal(u->gecos, "Nogecos Test");
    assert_string_equal(sdap_id_ctx_server(t->id_ctx), fx_env("SDAP_TEST_URI"));
    sdap_id_ctx_get_stats(t->id_ctx, &st);
    assert_int_equal(st.connects, 1);
}

/* No ldap_search_base: the base comes from the server's rootDSE (namingContexts dc=test). */
static void test_base_from_rootdse(void **state)
{
    struct test_ctx *t = *state;
    struct sdap_user *u = NULL;
    char *nc_vals[] = { "dc=a", "dc=b" };
    char *def_vals[] = { "dc=b" };
    struct sdap_attr two[] = { { "namingContexts", 2, nc_vals } };
    struct sdap_attr with_default[] = { { "namingContexts", 2, nc_vals },
                                        { "defaultNamingContext", 1, def_vals } };
    struct sdap_entry e = { "", 1, two };
    const char *base = NULL;

    fx_ctx(t, "ldap_uri = %s\nmin_id = 1000\n", fx_env("SDAP_TEST_URI"));
    assert_null(t->id_ctx->opts->user_base);
    assert_int_equal(get_user(t, SDAP_BY_NAME, "user01", 0, &u), EOK);
    assert_string_equal(u->orig_dn, "uid=user01,ou=people,ou=r2307,dc=test");
    assert_string_equal(t->id_ctx->opts->user_base, "dc=test");
    assert_string_equal(t->id_ctx->opts->group_base, "dc=test");

    /* several naming contexts: only a default one settles it */
    assert_int_equal(sdap_rootdse_pick_base(&e, &base), E2BIG);
    e.attrs = with_default;
    e.num_attrs = 2;
    assert_int_equal(sdap_rootdse_pick_base(&e, &base), EOK);
    assert_string_equal(base, "dc=b");
    e.num_attrs = 0;
    assert_int_equal(sdap_rootdse_pick_base(&e, &base), ENOENT);
    assert_int_equal(sdap_rootdse_pick_base(NULL, &base), ENOENT);
}

static void test_hostile_users(void **state)
{
    struct test_ctx *t = *state;
    struct sdap_user *u = NULL;

    fx_ctx(t, R2307, fx_env("SDAP_TEST_URI"));
    /* uid 0 is never returned, by name or by id */
    assert_int_equal(get_user(t, SDAP_BY_NAME, "zero", 0, &u), ENOENT);
    assert_int_equal(get_user(t, SDAP_BY_ID, NULL, 0, &u), ENOENT);
    assert_int_equal(get_user(t, SDAP_BY_NAME, "nouidnum", 0, &u), ENOENT);
    assert_int_equal(get_user(t, SDAP_BY_NAME, "badgid", 0, &u), ENOENT);
    assert_int_equal(get_user(t, SDAP_BY_NAME, "highid", 0, &u), ENOENT);
    assert_int_equal(get_user(t, SDAP_BY_ID, NULL, 5000000, &u), ENOENT);
    /* two entries for one name: refused */
    assert_int_equal(get_user(t, SDAP_BY_NAME, "dup", 0, &u), EINVAL);
    /* the 100 KiB gecos is dropped, cn stands in */
    assert_int_equal(get_user(t, SDAP_BY_NAME, "biggecos", 0, &u), EOK);
    assert_string_equal(u->gecos, "Biggecos Test");
    /* multi-valued uid: the RDN value wins, the alias finds the same entry */
    assert_int_equal(get_user(t, SDAP_BY_NAME, "multialias", 0, &u), EOK);
    assert_string_equal(u->name, "multi");
    /* filter injection finds nothing and breaks nothing */
    assert_int_equal(get_user(t, SDAP_BY_NAME, "*)(uid=*", 0, &u), ENOENT);
    assert_int_equal(get_user(t, SDAP_BY_NAME, "*", 0, &u), ENOENT);
    assert_int_equal(get_user(t, SDAP_BY_NAME, "user01)(|(uid=*", 0, &u), ENOENT);
    assert_int_equal(get_user(t, SDAP_BY_NAME, "", 0, &u), EINVAL);
    assert_int_equal(get_user(t, SDAP_BY_NAME, "bad\xff", 0, &u), EINVAL);
}

static void test_invalid_utf8_name(void **state)
{
    struct test_ctx *t = *state;
    struct sdap_user *u = NULL;
    struct sdap_user **users = NULL;
    struct tevent_req *req;
    size_t n = 0;

    fx_ctx(t, "ldap_uri = %s\nldap_search_base = ou=raw,dc=test\n"
           "ldap_user_name = sdapTestRawName\n", fx_env("SDAP_TEST_URI"));
    assert_int_equal(get_user(t, SDAP_BY_ID, NULL, 50001, &u), EOK);
    assert_string_equal(u->name, "rawok");
    assert_int_equal(get_user(t, SDAP_BY_ID, NULL, 50002, &u), ENOENT);
    req = sdap_enumerate_users_send(t->mem, t->ev, t->id_ctx);
    tc_wait_req(t->ev, req);
    assert_int_equal(sdap_enumerate_users_recv(t->mem, req, &users, &n), EOK);
    assert_int_equal(n, 1);
    assert_string_equal(users[0]->name, "rawok");
}

static void test_rfc2307_groups(void **state)
{
    struct test_ctx *t = *state;
    struct sdap_group *g = NULL;

    fx_ctx(t, R2307, fx_env("SDAP_TEST_URI"));
    assert_int_equal(get_group(t, SDAP_BY_NAME, "group1", 0, &g), EOK);
    assert_string_equal(g->name, "group1");
    assert_int_equal(g->gid, 20001);
    assert_int_equal(g->num_member_users, 3);
    assert_true(has(g->member_users, "user01"));
    assert_true(has(g->member_users, "user02"));
    assert_true(has(g->member_users, "ghost"));
    assert_null(g->member_groups[0]);
    assert_int_equal(get_group(t, SDAP_BY_ID, NULL, 20002, &g), EOK);
    assert_string_equal(g->name, "group2");
    assert_int_equal(get_group(t, SDAP_BY_NAME, "empty", 0, &g), EOK);
    assert_int_equal(g->num_member_users, 0);
    assert_null(g->member_users[0]);
    assert_int_equal(get_group(t, SDAP_BY_NAME, "rootgrp", 0, &g), ENOENT);
    assert_int_equal(get_group(t, SDAP_BY_ID, NULL, 0, &g), ENOENT);
    assert_int_equal(get_group(t, SDAP_BY_NAME, "badgrp", 0, &g), ENOENT);
    assert_int_equal(get_group(t, SDAP_BY_NAME, "*", 0, &g), ENOENT);
}

static void test_rfc2307bis_nesting(void **state)
{
    struct test_ctx *t = *state;
    struct sdap_group *g = NULL;

    fx_ctx(t, BIS "ldap_group_nesting_level = 2\n", fx_env("SDAP_TEST_URI"));
    /* g_top > g_mid > g_low > g_deep: level 2 reaches carol (g_low), not dave (g_deep) */
    assert_int_equal(get_group(t, SDAP_BY_NAME, "g_top", 0, &g), EOK);
    assert_int_equal(g->gid, 40001);
    assert_int_equal(g->num_member_users, 3);
    assert_true(has(g->member_users, "alice"));
    assert_true(has(g->member_users, "bob"));
    assert_true(has(g->member_users, "carol"));
    assert_false(has(g->member_users, "dave"));
    assert_int_equal(g->num_member_groups, 1);
    assert_string_equal(g->member_groups[0], "g_mid");

    /* a loop: loop_a contains loop_b contains loop_a */
    assert_int_equal(get_group(t, SDAP_BY_NAME, "loop_a", 0, &g), EOK);
    assert_int_equal(g->num_member_users, 2);
    assert_true(has(g->member_users, "eve"));
    assert_true(has(g->member_users, "alice"));
    assert_int_equal(g->num_member_groups, 1);
    assert_string_equal(g->member_groups[0], "loop_b");

    /* odd members: a missing DN, a uid-0 user, a DN outside any tree, itself */
    assert_int_equal(get_group(t, SDAP_BY_ID, NULL, 40020, &g), EOK);
    assert_int_equal(g->num_member_users, 1);
    assert_string_equal(g->member_users[0], "alice");
    assert_int_equal(g->num_member_groups, 0);
}

static void test_rfc2307bis_nesting_levels(void **state)
{
    struct test_ctx *t = *state;
    struct sdap_group *g = NULL;

    fx_ctx(t, BIS "ldap_group_nesting_level = 0\n", fx_env("SDAP_TEST_URI"));
    assert_int_equal(get_group(t, SDAP_BY_NAME, "g_top", 0, &g), EOK);
    assert_int_equal(g->num_member_users, 1);
    assert_string_equal(g->member_users[0], "alice");
    assert_int_equal(g->num_member_groups, 1);
    talloc_free(t->id_ctx);

    fx_ctx(t, BIS "ldap_group_nesting_level = 5\n", fx_env("SDAP_TEST_URI"));
    assert_int_equal(get_group(t, SDAP_BY_NAME, "g_top", 0, &g), EOK);
    assert_int_equal(g->num_member_users, 4);
    assert_true(has(g->member_users, "dave"));
}

static void initgroups(struct test_ctx *t, const char *name, errno_t expected,
                       struct sdap_group ***_groups, size_t *_n)
{
    struct tevent_req *req = sdap_initgroups_send(t->mem, t->ev, t->id_ctx, name);
    struct sdap_user *user = NULL;

    tc_wait_req(t->ev, req);
    assert_int_equal(sdap_initgroups_recv(t->mem, req, &user, _groups, _n), expected);
    if (expected == EOK) {
        assert_string_equal(user->name, name);
    }
    talloc_free(req);
}

/* rfc2307 initgroups brings each group complete (memberUid) with members users;
 * members < 0: a DN schema, whose lists lists_as_lookup compares. */
static bool has_group_m(struct sdap_group **groups, size_t n, const char *name, int members)
{
    size_t i;

    for (i = 0; i < n; i++) {
        if (strcmp(groups[i]->name, name) == 0) {
            if (members >= 0) {
                assert_true(groups[i]->members_complete);
                assert_int_equal(groups[i]->num_member_users, members);
            }
            return true;
        }
    }
    return false;
}

/* Every group of an initgroups marked complete lists exactly what its own lookup gives.
 * Returns how many were complete. */
static size_t lists_as_lookup(struct test_ctx *t, struct sdap_group **groups, size_t n,
                              int level, const char *user)
{
    struct sdap_group *g = NULL;
    size_t complete = 0;
    size_t i, k;

    for (i = 0; i < n; i++) {
        if (!groups[i]->members_complete) {
            continue;
        }
        complete++;
        assert_int_equal(get_group(t, SDAP_BY_NAME, groups[i]->name, 0, &g), EOK);
        if (groups[i]->num_member_users != g->num_member_users
                || groups[i]->num_member_groups != g->num_member_groups) {
            fail_msg("level %d, %s of %s: %zu users %zu groups, by name %zu users "
                     "%zu groups", level, g->name, user, groups[i]->num_member_users,
                     groups[i]->num_member_groups, g->num_member_users,
                     g->num_member_groups);
        }
        for (k = 0; k < g->num_member_users; k++) {
            assert_true(has(groups[i]->member_users, g->member_users[k]));
        }
        for (k = 0; k < g->num_member_groups; k++) {
            assert_true(has(groups[i]->member_groups, g->member_groups[k]));
        }
        talloc_free(g);
    }
    return complete;
}

static bool has_group(struct sdap_group **groups, size_t n, const char *name)
{
    return has_group_m(groups, n, name, -1);
}

static void test_initgroups(void **state)
{
    struct test_ctx *t = *state;
    struct sdap_group **groups = NULL;
    size_t n = 0;

    fx_ctx(t, R2307, fx_env("SDAP_TEST_URI"));
    initgroups(t, "user01", EOK, &groups, &n);
    assert_int_equal(n, 2);     /* group1, group2; not rootgrp (gid 0) nor badgrp */
    /* complete: every memberUid, not only the user's (ghost has no entry, kept as a
     * group lookup keeps it) */
    assert_true(has_group_m(groups, n, "group1", 3));
    assert_true(has_group_m(groups, n, "group2", 1));
    initgroups(t, "user03", EOK, &groups, &n);
    assert_int_equal(n, 0);
    initgroups(t, "nosuchuser", ENOENT, &groups, &n);
    talloc_free(t->id_ctx);

    fx_ctx(t, BIS "ldap_group_nesting_level = 2\n", fx_env("SDAP_TEST_URI"));
    initgroups(t, "alice", EOK, &groups, &n);
    assert_int_equal(n, 4);
    assert_true(has_group(groups, n, "g_top"));
    assert_true(has_group(groups, n, "loop_b"));
    assert_true(has_group(groups, n, "loop_a"));
    assert_true(has_group(groups, n, "g_odd"));
    initgroups(t, "dave", EOK, &groups, &n);
    assert_int_equal(n, 3);     /* g_deep, g_low, g_mid; g_top is 3 hops up */
    assert_true(has_group(groups, n, "g_deep"));
    assert_true(has_group(groups, n, "g_low"));
    assert_true(has_group(groups, n, "g_mid"));
}

/* `id`'s initgroups (sdap_initgroups_primary_send), rfc2307bis: the same groups a plain
 * initgroups gives plus the primary group (not_member unless it holds one of them), and
 * every group it marks complete lists exactly what its own lookup gives, at every nesting
 * level, for every user of the tree (nesting, loops, odd and absent members). */
static void test_initgroups_primary_complete(void **state)
{
    static const int levels[] = { 0, 1, 2, 5 };
    static const char *names[] = { "alice", "bob", "carol", "dave", "eve" };
    struct test_ctx *t = *state;
    struct sdap_group **plain = NULL;
    struct sdap_group **groups = NULL;
    struct sdap_user *user = NULL;
    struct tevent_req *req;
    size_t complete = 0;
    size_t plain_complete = 0;
    size_t primary = 0;
    size_t np = 0;
    size_t n = 0;
    size_t i, l, u;

    for (l = 0; l < sizeof(levels) / sizeof(levels[0]); l++) {
        fx_ctx(t, BIS "ldap_group_nesting_level = %d\n", fx_env("SDAP_TEST_URI"), levels[l]);
        for (u = 0; u < sizeof(names) / sizeof(names[0]); u++) {
            assert_int_equal(get_user(t, SDAP_BY_NAME, names[u], 0, &user), EOK);
            initgroups(t, names[u], EOK, &plain, &np);
            req = sdap_initgroups_primary_send(t->mem, t->ev, t->id_ctx, user);
            tc_wait_req(t->ev, req);
            assert_int_equal(sdap_initgroups_recv(t->mem, req, NULL, &groups, &n), EOK);
            talloc_free(req);
            for (i = 0; i < n; i++) {
                if (groups[i]->not_member) {
                    assert_int_equal(groups[i]->gid, user->gid);
                    assert_false(has_group(plain, np, groups[i]->name));
                    primary++;
                } else if (!has_group(plain, np, groups[i]->name)) {
                    fail_msg("level %d, %s: %s is not in the plain initgroups", levels[l],
                             names[u], groups[i]->name);
                }
            }
            complete += lists_as_lookup(t, groups, n, levels[l], names[u]);
            /* A login's initgroups uses the same graph (since w14): complete too. */
            plain_complete += lists_as_lookup(t, plain, np, levels[l], names[u]);
            /* as many as the plain one, and the primary group when it is not among them */
            assert_int_equal(n, np + (has_group(plain, np, "g_top") ? 0 : 1));
            talloc_free(groups);
            talloc_free(plain);
            talloc_free(user);
        }
        talloc_free(t->id_ctx);
    }
    assert_true(primary > 0);
    assert_true(complete > 0);
    assert_true(plain_complete > 0);
}

static void test_enumerate(void **state)
{
    struct test_ctx *t = *state;
    struct sdap_user **users = NULL;
    struct sdap_group **groups = NULL;
    struct tevent_req *req;
    struct sdap_id_stats st;
    size_t n = 0;
    size_t i;

    fx_ctx(t, R2307, fx_env("SDAP_TEST_URI"));
    req = sdap_enumerate_users_send(t->mem, t->ev, t->id_ctx);
    tc_wait_req(t->ev, req);
    assert_int_equal(sdap_enumerate_users_recv(t->mem, req, &users, &n), EOK);
    /* 20 users + biggecos, multi, nogecos; hostile and duplicate entries skipped */
    assert_int_equal(n, 23);
    for (i = 0; i < n; i++) {
        assert_true(users[i]->uid >= 1000);
        assert_string_not_equal(users[i]->name, "dup");
    }
    sdap_id_ctx_get_stats(t->id_ctx, &st);
    /* 29 entries in pages of 5 */
    assert_int_equal(st.pages, 6);
    assert_int_equal(st.connects, 1);

    req = sdap_enumerate_groups_send(t->mem, t->ev, t->id_ctx);
    tc_wait_req(t->ev, req);
    assert_int_equal(sdap_enumerate_groups_recv(t->mem, req, &groups, &n), EOK);
    assert_int_equal(n, 3);     /* group1, group2, empty */
    talloc_free(t->id_ctx);

    fx_ctx(t, BIS "ldap_page_size = 3\n", fx_env("SDAP_TEST_URI"));
    req = sdap_enumerate_groups_send(t->mem, t->ev, t->id_ctx);
    tc_wait_req(t->ev, req);
    assert_int_equal(sdap_enumerate_groups_recv(t->mem, req, &groups, &n), EOK);
    assert_int_equal(n, 11);     /* with g_ghosts */
    for (i = 0; i < n; i++) {
        if (strcmp(groups[i]->name, "g_top") == 0) {
            /* flattened as by name: g_top > g_mid > g_low, level 2 */
            assert_int_equal(groups[i]->num_member_users, 3);
            assert_true(has(groups[i]->member_users, "alice"));
            assert_true(has(groups[i]->member_users, "bob"));
            assert_true(has(groups[i]->member_users, "carol"));
            assert_int_equal(groups[i]->num_member_groups, 1);
            assert_string_equal(groups[i]->member_groups[0], "g_mid");
        }
        if (strcmp(groups[i]->name, "g_big") == 0) {
            assert_int_equal(groups[i]->num_member_users, 5000);
        }
    }
}

/* Enumerated rfc2307bis groups list exactly the members a lookup by name gives, in the same
 * order, at every nesting level (nesting, loops, odd members, a 5,000-member group). */
static void test_enumerate_nested_as_by_name(void **state)
{
    static const int levels[] = { 0, 1, 2, 5 };
    struct test_ctx *t = *state;
    struct sdap_group **groups = NULL;
    struct sdap_group *g = NULL;
    struct tevent_req *req;
    size_t n = 0;
    size_t i;
    size_t k;
    size_t l;

    for (l = 0; l < sizeof(levels) / sizeof(levels[0]); l++) {
        fx_ctx(t, BIS "ldap_group_nesting_level = %d\n", fx_env("SDAP_TEST_URI"), levels[l]);
        req = sdap_enumerate_groups_send(t->mem, t->ev, t->id_ctx);
        tc_wait_req(t->ev, req);
        assert_int_equal(sdap_enumerate_groups_recv(t->mem, req, &groups, &n), EOK);
        talloc_free(req);
        assert_true(n >= 10);
        for (i = 0; i < n; i++) {
            assert_int_equal(get_group(t, SDAP_BY_NAME, groups[i]->name, 0, &g), EOK);
            if (groups[i]->num_member_users != g->num_member_users
                    || groups[i]->num_member_groups != g->num_member_groups) {
                fail_msg("level %d, group %s: enumerated %zu users %zu groups, by name "
                         "%zu users %zu groups", levels[l], g->name,
                         groups[i]->num_member_users, groups[i]->num_member_groups,
                         g->num_member_users, g->num_member_groups);
            }
            for (k = 0; k < g->num_member_users; k++) {
                assert_string_equal(groups[i]->member_users[k], g->member_users[k]);
            }
            for (k = 0; k < g->num_member_groups; k++) {
                assert_string_equal(groups[i]->member_groups[k], g->member_groups[k]);
            }
            talloc_free(g);
        }
        talloc_free(groups);
        talloc_free(t->id_ctx);
    }
}

static size_t nested_of(struct test_ctx *t, const char *name, struct sdap_group ***_nested)
{
    struct tevent_req *req = sdap_get_group_send(t->mem, t->ev, t->id_ctx, SDAP_BY_NAME,
                                                 name, 0);
    struct sdap_group *g = NULL;
    size_t n = 0;

    tc_wait_req(t->ev, req);
    assert_int_equal(sdap_get_group_nested_recv(t->mem, req, &g, _nested, &n), EOK);
    assert_string_equal(g->name, name);
    talloc_free(req);
    return n;
}

/* The nested groups a lookup hands back complete list exactly what their own lookup gives
 * (same order), at every nesting level, for every group of the tree; the walk gives none
 * whose own walk would go deeper than it did. */
static void test_nested_complete_as_by_name(void **state)
{
    static const int levels[] = { 0, 1, 2, 5 };
    struct test_ctx *t = *state;
    struct sdap_group **groups = NULL;
    struct sdap_group **nested = NULL;
    struct sdap_group *g = NULL;
    struct tevent_req *req;
    size_t total = 0;
    size_t n = 0;
    size_t m;
    size_t i, j, k, l;

    for (l = 0; l < sizeof(levels) / sizeof(levels[0]); l++) {
        fx_ctx(t, BIS "ldap_group_nesting_level = %d\n", fx_env("SDAP_TEST_URI"), levels[l]);
        req = sdap_enumerate_groups_send(t->mem, t->ev, t->id_ctx);
        tc_wait_req(t->ev, req);
        assert_int_equal(sdap_enumerate_groups_recv(t->mem, req, &groups, &n), EOK);
        talloc_free(req);
        for (i = 0; i < n; i++) {
            m = nested_of(t, groups[i]->name, &nested);
            for (j = 0; j < m; j++) {
                assert_true(nested[j]->members_complete);
                assert_int_equal(get_group(t, SDAP_BY_NAME, nested[j]->name, 0, &g), EOK);
                if (nested[j]->num_member_users != g->num_member_users
                        || nested[j]->num_member_groups != g->num_member_groups) {
                    fail_msg("level %d, %s via %s: %zu users %zu groups, by name %zu users "
                             "%zu groups", levels[l], g->name, groups[i]->name,
                             nested[j]->num_member_users, nested[j]->num_member_groups,
                             g->num_member_users, g->num_member_groups);
                }
                for (k = 0; k < g->num_member_users; k++) {
                    assert_string_equal(nested[j]->member_users[k], g->member_users[k]);
                }
                for (k = 0; k < g->num_member_groups; k++) {
                    assert_string_equal(nested[j]->member_groups[k], g->member_groups[k]);
                }
                talloc_free(g);
            }
            total += m;
            talloc_free(nested);
        }
        if (levels[l] == 2) {
            /* g_top > g_mid > g_low > g_deep: g_mid's own walk needs g_deep's members,
             * which g_top's walk (level 2) did not read; loop_a gives loop_b. */
            assert_int_equal(nested_of(t, "g_top", &nested), 0);
            talloc_free(nested);
            assert_int_equal(nested_of(t, "loop_a", &nested), 1);
            assert_string_equal(nested[0]->name, "loop_b");
            assert_int_equal(nested[0]->num_member_users, 2);
            talloc_free(nested);
        }
        if (levels[l] == 5) {
            assert_int_equal(nested_of(t, "g_top", &nested), 3);
            talloc_free(nested);
        }
        talloc_free(groups);
        talloc_free(t->id_ctx);
    }
    assert_true(total > 0);
}

static errno_t enum_users(struct test_ctx *t, size_t *_n)
{
    struct tevent_req *req = sdap_enumerate_users_send(t->mem, t->ev, t->id_ctx);
    struct sdap_user **users = NULL;
    errno_t ret;

    tc_wait_req(t->ev, req);
    ret = sdap_enumerate_users_recv(t->mem, req, &users, _n);
    talloc_free(users);
    talloc_free(req);
    return ret;
}

/* A partial answer is an error, never a short list: the size limit of cn=limited (3), with
 * and without paging, in an enumeration and in an initgroups (user01 is in 4 groups); the
 * administrative limit of cn=unchecked; a referral for a base outside the tree; and a
 * continuation reference under ou=withref, which only enumeration takes as partial. */
static void test_partial_answers(void **state)
{
    struct test_ctx *t = *state;
    struct sdap_group **groups = NULL;
    struct sdap_user *u = NULL;
    size_t n = 0;

#define LIMITED "ldap_default_bind_dn = cn=limited,dc=test\nldap_default_authtok = limited\n"
    fx_ctx(t, R2307 LIMITED, fx_env("SDAP_TEST_URI"));
    assert_int_equal(enum_users(t, &n), EOVERFLOW);
    initgroups(t, "user01", EOVERFLOW, &groups, &n);
    /* one entry per lookup stays within the limit */
    assert_int_equal(get_user(t, SDAP_BY_NAME, "user01", 0, &u), EOK);
    talloc_free(t->id_ctx);

    fx_ctx(t, R2307 LIMITED "ldap_page_size = 2\n", fx_env("SDAP_TEST_URI"));
    assert_int_equal(enum_users(t, &n), EOVERFLOW);
    talloc_free(t->id_ctx);

    fx_ctx(t, R2307 LIMITED "ldap_page_size = 0\n", fx_env("SDAP_TEST_URI"));
    assert_int_equal(enum_users(t, &n), EOVERFLOW);
    talloc_free(t->id_ctx);

    fx_ctx(t, R2307 "ldap_default_bind_dn = cn=unchecked,dc=test\n"
           "ldap_default_authtok = unchecked\n", fx_env("SDAP_TEST_URI"));
    assert_int_equal(enum_users(t, &n), EOVERFLOW);
    talloc_free(t->id_ctx);

    fx_ctx(t, "ldap_uri = %s\nldap_search_base = dc=elsewhere\n", fx_env("SDAP_TEST_URI"));
    assert_int_equal(enum_users(t, &n), EOVERFLOW);
    talloc_free(t->id_ctx);

    fx_ctx(t, "ldap_uri = %s\nldap_search_base = ou=withref,dc=test\n",
           fx_env("SDAP_TEST_URI"));
    assert_int_equal(enum_users(t, &n), EOVERFLOW);
    assert_int_equal(get_user(t, SDAP_BY_NAME, "refuser1", 0, &u), EOK);
    assert_int_equal(get_user(t, SDAP_BY_NAME, "nosuchuser", 0, &u), ENOENT);
    talloc_free(t->id_ctx);

    /* unlimited, the same searches are complete */
    fx_ctx(t, R2307, fx_env("SDAP_TEST_URI"));
    assert_int_equal(enum_users(t, &n), EOK);
    assert_int_equal(n, 23);
#undef LIMITED
}

static void test_failover(void **state)
{
    struct test_ctx *t = *state;
    struct sdap_user *u = NULL;
    struct sdap_id_stats st;

    fx_ctx(t, "ldap_uri = %s, %s\nldap_search_base = ou=r2307,dc=test\n",
           fx_env("SDAP_TEST_DEAD_URI"), fx_env("SDAP_TEST_URI"));
    assert_int_equal(get_user(t, SDAP_BY_NAME, "user01", 0, &u), EOK);
    assert_string_equal(sdap_id_ctx_server(t->id_ctx), fx_env("SDAP_TEST_URI"));
    sdap_id_ctx_get_stats(t->id_ctx, &st);
    assert_int_equal(st.connects, 1);
    assert_int_equal(st.connect_failures, 1);
    talloc_free(t->id_ctx);

    /* the backup list is used after the primary list */
    fx_ctx(t, "ldap_uri = %s\nldap_backup_uri = %s\nldap_search_base = ou=r2307,dc=test\n",
           fx_env("SDAP_TEST_DEAD_URI"), fx_env("SDAP_TEST_URI"));
    assert_int_equal(get_user(t, SDAP_BY_ID, NULL, 10001, &u), EOK);
    assert_string_equal(sdap_id_ctx_server(t->id_ctx), fx_env("SDAP_TEST_URI"));

    /* a lost connection fails over on the next operation */
    sdap_id_ctx_disconnect(t->id_ctx);
    assert_int_equal(get_user(t, SDAP_BY_ID, NULL, 10001, &u), EOK);
    sdap_id_ctx_get_stats(t->id_ctx, &st);
    assert_int_equal(st.connects, 2);
}

/* A connection older than ldap_connection_expire_timeout takes no new operation: the next
 * lookup opens a new one (and, on a backup server, that walk starts from the primaries). */
static void test_conn_expire(void **state)
{
    struct test_ctx *t = *state;
    struct sdap_user *u = NULL;
    struct sdap_id_stats st;

    fx_ctx(t, R2307 "ldap_connection_expire_timeout = 1\n", fx_env("SDAP_TEST_URI"));
    assert_int_equal(get_user(t, SDAP_BY_NAME, "user01", 0, &u), EOK);
    assert_int_equal(get_user(t, SDAP_BY_NAME, "user02", 0, &u), EOK);
    sdap_id_ctx_get_stats(t->id_ctx, &st);
    assert_int_equal(st.connects, 1);
    usleep(2100000);
    assert_int_equal(get_user(t, SDAP_BY_NAME, "user03", 0, &u), EOK);
    sdap_id_ctx_get_stats(t->id_ctx, &st);
    assert_int_equal(st.connects, 2);
}

/* True once a TCP connect to the host:port of uri is accepted (want) or refused (!want). */
static bool port_state_is(const char *uri, bool want)
{
    struct sockaddr_in sin = { .sin_family = AF_INET };
    const char *colon = strrchr(uri, ':');
    int fd;
    int rc;

    assert_non_null(colon);
    sin.sin_port = htons((uint16_t)atoi(colon + 1));
    sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    fd = socket(AF_INET, SOCK_STREAM, 0);
    assert_true(fd >= 0);
    rc = connect(fd, (struct sockaddr *)&sin, sizeof(sin));
    close(fd);
    return (rc == 0) == want;
}

static void wait_port(const char *uri, bool accepting)
{
    int i;

    for (i = 0; i < 400 && !port_state_is(uri, accepting); i++) {
        usleep(25000);
    }
    assert_true(port_state_is(uri, accepting));
}

static void flag_timer(struct tevent_context *ev, struct tevent_timer *te, struct timeval tv,
                       void *pvt)
{
    *(bool *)pvt = true;
}

/* Runs the loop for usec (background work: timers, the primary probe). */
static void spin(struct test_ctx *t, unsigned int usec)
{
    bool done = false;

    assert_non_null(tevent_add_timer(t->ev, t->ev, tevent_timeval_current_ofs(0, usec),
                                     flag_timer, &done));
    tc_wait_flag(t->ev, &done);
}

/* Fail back: while a backup serves, the primary is tried every failover_primary_timeout
 * seconds in the background, and once it answers the next lookups go to it. */
static void test_failback(void **state)
{
    struct test_ctx *t = *state;
    struct sdap_user *u = NULL;
    const char *primary = fx_env("SDAP_TEST_PROXY_URI");
    pid_t proxy = (pid_t)atoi(fx_env("SDAP_TEST_PROXY_PID"));
    int i;

    fx_ctx(t, "ldap_uri = %s\nldap_backup_uri = %s\nldap_search_base = ou=r2307,dc=test\n"
           "failover_primary_timeout = 1\n", primary, fx_env("SDAP_TEST_URI"));
    assert_int_equal(kill(proxy, SIGHUP), 0);      /* the primary refuses */
    wait_port(primary, false);
    assert_int_equal(get_user(t, SDAP_BY_NAME, "user01", 0, &u), EOK);
    assert_string_equal(sdap_id_ctx_server(t->id_ctx), fx_env("SDAP_TEST_URI"));

    assert_int_equal(kill(proxy, SIGUSR2), 0);     /* the primary is back */
    wait_port(primary, true);
    /* A generous bound: the probe runs every second. */
    for (i = 0; i < 100 && strcmp(sdap_id_ctx_server(t->id_ctx), primary) != 0; i++) {
        spin(t, 100000);
    }
    assert_string_equal(sdap_id_ctx_server(t->id_ctx), primary);
    assert_int_equal(get_user(t, SDAP_BY_NAME, "user02", 0, &u), EOK);
    assert_string_equal(sdap_id_ctx_server(t->id_ctx), primary);
}

/* The only server resets a connection mid-answer: that lookup fails (EIO; the back-end
 * retries it once), but the server is not marked bad for it: the next lookup reconnects
 * and is answered (before, the domain went offline for offline_timeout). */
static void test_reset_single_server(void **state)
{
    struct test_ctx *t = *state;
    struct sdap_user *u = NULL;
    struct sdap_id_stats st;

    fx_ctx(t, R2307, fx_env("SDAP_TEST_LOSSY_URI"));
    assert_int_equal(get_user(t, SDAP_BY_NAME, "user01", 0, &u), EIO);
    assert_false(sdap_id_ctx_offline(t->id_ctx));
    assert_int_equal(get_user(t, SDAP_BY_NAME, "user01", 0, &u), EOK);
    assert_string_equal(u->name, "user01");
    sdap_id_ctx_get_stats(t->id_ctx, &st);
    assert_int_equal(st.connects, 2);
}

static void test_all_dead(void **state)
{
    struct test_ctx *t = *state;
    struct sdap_user *u = NULL;
    uint64_t start;

    fx_ctx(t, "ldap_uri = %s\nldap_backup_uri = %s\nldap_search_base = ou=r2307,dc=test\n"
           "ldap_network_timeout = 2\n",
           fx_env("SDAP_TEST_DEAD_URI"), fx_env("SDAP_TEST_DEAD_URI2"));
    start = sss_monotonic_usec();
    assert_int_equal(get_user(t, SDAP_BY_NAME, "user01", 0, &u), ENETUNREACH);
    assert_true(sss_monotonic_usec() - start < 2000000);
    assert_true(sdap_id_ctx_offline(t->id_ctx));
    /* both servers are marked bad: the next attempt answers at once */
    start = sss_monotonic_usec();
    assert_int_equal(get_group(t, SDAP_BY_NAME, "group1", 0, NULL), ENETUNREACH);
    assert_true(sss_monotonic_usec() - start < 100000);
}

struct many_ctx {
    int pending;
    int ok;
    bool done;
};

static void many_done(struct tevent_req *req)
{
    struct many_ctx *m = tevent_req_callback_data_void(req);
    struct sdap_user *u = NULL;

    if (sdap_get_user_recv(req, req, &u) == EOK) {
        m->ok++;
    }
    talloc_free(req);
    m->pending--;
    m->done = m->pending == 0;
}

static void test_many_on_one_connection(void **state)
{
    struct test_ctx *t = *state;
    struct many_ctx m = { 0, 0, false };
    struct sdap_id_stats st;
    char name[16];
    int i;

    fx_ctx(t, R2307, fx_env("SDAP_TEST_URI"));
    for (i = 0; i < 50; i++) {
        struct tevent_req *req;

        snprintf(name, sizeof(name), "user%02d", i % 20 + 1);
        req = sdap_get_user_send(t->mem, t->ev, t->id_ctx, SDAP_BY_NAME, name, 0);
        assert_non_null(req);
        tevent_req_set_callback(req, many_done, &m);
        m.pending++;
    }
    tc_wait_flag(t->ev, &m.done);
    assert_int_equal(m.ok, 50);
    sdap_id_ctx_get_stats(t->id_ctx, &st);
    assert_int_equal(st.connects, 1);
    assert_int_equal(st.searches, 50);
}

static void test_simple_bind(void **state)
{
    struct test_ctx *t = *state;
    struct sdap_user *u = NULL;

    fx_ctx(t, R2307 "ldap_default_bind_dn = cn=admin,dc=test\nldap_default_authtok = secret\n",
           fx_env("SDAP_TEST_URI"));
    assert_int_equal(get_user(t, SDAP_BY_NAME, "user01", 0, &u), EOK);
    talloc_free(t->id_ctx);

    fx_ctx(t, R2307 "ldap_default_bind_dn = cn=admin,dc=test\nldap_default_authtok = wrong\n",
           fx_env("SDAP_TEST_URI"));
    assert_int_equal(get_user(t, SDAP_BY_NAME, "user01", 0, &u), EACCES);
    assert_false(sdap_id_ctx_offline(t->id_ctx));
}

/* kill(SIGSTOP) returns before the target has stopped: wait until /proc says so, or a
 * request sent right away may still be answered on a busy machine. */
static void wait_stopped(pid_t pid)
{
    char path[64], buf[512];
    const char *state;
    FILE *f;
    int i;

    snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
    for (i = 0; i < 200; i++) {
        f = fopen(path, "r");
        if (f != NULL) {
            buf[0] = '\0';
            if (fgets(buf, sizeof(buf), f) == NULL) {
                buf[0] = '\0';
            }
            fclose(f);
            state = strrchr(buf, ')');
            if (state != NULL && state[1] == ' ' && state[2] == 'T') {
                return;
            }
        }
        usleep(5000);
    }
}

static void test_search_timeout(void **state)
{
    struct test_ctx *t = *state;
    struct sdap_user *u = NULL;
    pid_t pid = (pid_t)atoi(fx_env("SDAP_TEST_SLAPD_PID"));
    struct sdap_id_stats st;
    uint64_t start;
    errno_t ret;

    /* offline_timeout = 0: the server marked bad is tried again after a second */
    fx_ctx(t, R2307 "ldap_search_timeout = 1\noffline_timeout = 0\n", fx_env("SDAP_TEST_URI"));
    assert_int_equal(get_user(t, SDAP_BY_NAME, "user01", 0, &u), EOK);
    assert_int_equal(kill(pid, SIGSTOP), 0);
    wait_stopped(pid);
    start = sss_monotonic_usec();
    ret = get_user(t, SDAP_BY_NAME, "user02", 0, &u);
    kill(pid, SIGCONT);
    /* Not a byte from the hung server: the connection is dropped (EIO, the back-end then
     * retries on the next server), not just the search abandoned. */
    assert_int_equal(ret, EIO);
    assert_true(sss_monotonic_usec() - start < 2500000);
    /* the server is back: a new connection serves again */
    usleep(1100000);
    assert_int_equal(get_user(t, SDAP_BY_NAME, "user03", 0, &u), EOK);
    sdap_id_ctx_get_stats(t->id_ctx, &st);
    assert_int_equal(st.connects, 2);
}

static void test_big_group(void **state)
{
    struct test_ctx *t = *state;
    struct sdap_group *g = NULL;
    struct sdap_id_stats st;
    struct rusage ru0;
    struct rusage ru1;
    uint64_t start;
    uint64_t usec;

    fx_ctx(t, BIS, fx_env("SDAP_TEST_URI"));
    assert_int_equal(get_user(t, SDAP_BY_NAME, "alice", 0, NULL), EOK);    /* connect */
    getrusage(RUSAGE_SELF, &ru0);
    start = sss_monotonic_usec();
    assert_int_equal(get_group(t, SDAP_BY_NAME, "g_big", 0, &g), EOK);
    usec = sss_monotonic_usec() - start;
    getrusage(RUSAGE_SELF, &ru1);
    assert_int_equal(g->num_member_users, 5000);
    sdap_id_ctx_get_stats(t->id_ctx, &st);
    printf("# rfc2307bis group of 5000 members resolved in %.1f ms (%llu searches, "
           "%.1f ms of our CPU)\n", usec / 1000.0, (unsigned long long)st.searches,
           ((ru1.ru_utime.tv_sec - ru0.ru_utime.tv_sec) * 1e6
            + (ru1.ru_utime.tv_usec - ru0.ru_utime.tv_usec)
            + (ru1.ru_stime.tv_sec - ru0.ru_stime.tv_sec) * 1e6
            + (ru1.ru_stime.tv_usec - ru0.ru_stime.tv_usec)) / 1000.0);
}

/* Member DNs read in batches by their RDN value: few searches, the same members as base
 * lookups, and only the requested DNs taken. */
static void test_batched_member_dns(void **state)
{
    struct test_ctx *t = *state;
    struct sdap_group *g = NULL;
    struct sdap_id_stats st0;
    struct sdap_id_stats st;
    char name[16];
    int i;

    fx_ctx(t, BIS "ldap_group_nesting_level = 1\n", fx_env("SDAP_TEST_URI"));
    assert_int_equal(get_user(t, SDAP_BY_NAME, "twin", 0, NULL), EOK);     /* connect */
    sdap_id_ctx_get_stats(t->id_ctx, &st0);
    assert_int_equal(get_group(t, SDAP_BY_NAME, "g_2k", 0, &g), EOK);
    sdap_id_ctx_get_stats(t->id_ctx, &st);
    printf("# g_2k (2,003 member DNs) resolved with %llu searches\n",
           (unsigned long long)(st.searches - st0.searches));
    assert_true(st.searches - st0.searches <= 25);
    /* 2,000 big users, rawok (outside the user base: a base lookup), big04999 (g_sub) */
    assert_int_equal(g->num_member_users, 2002);
    for (i = 1; i <= 2000; i++) {
        snprintf(name, sizeof(name), "big%05d", i);
        assert_true(has(g->member_users, name));
    }
    assert_false(has(g->member_users, "big02001"));
    assert_true(has(g->member_users, "rawok"));
    assert_true(has(g->member_users, "big04999"));
    /* uid=twin,ou=people does not exist; uid=twin,ou=people2 is someone else */
    assert_false(has(g->member_users, "twin"));
    assert_int_equal(g->num_member_groups, 1);
    assert_string_equal(g->member_groups[0], "g_sub");

    /* the small groups resolve as before through the batches too */
    assert_int_equal(get_group(t, SDAP_BY_ID, NULL, 40020, &g), EOK);
    assert_int_equal(g->num_member_users, 1);
    assert_string_equal(g->member_users[0], "alice");
}

/* A member DN that a batch searched for and did not get does not exist: no base lookup
 * for it (600 of them cost 600 base searches before). A batch filter names no object
 * class, so a user whose DN is shaped like a group's is still found by it. */
static void test_absent_member_dns(void **state)
{
    struct test_ctx *t = *state;
    struct sdap_group *g = NULL;
    struct sdap_id_stats st0;
    struct sdap_id_stats st;

    fx_ctx(t, BIS, fx_env("SDAP_TEST_URI"));
    assert_int_equal(get_user(t, SDAP_BY_NAME, "alice", 0, NULL), EOK);    /* connect */
    sdap_id_ctx_get_stats(t->id_ctx, &st0);
    assert_int_equal(get_group(t, SDAP_BY_NAME, "g_ghosts", 0, &g), EOK);
    sdap_id_ctx_get_stats(t->id_ctx, &st);
    printf("# g_ghosts (602 member DNs, 600 absent) resolved with %llu searches\n",
           (unsigned long long)(st.searches - st0.searches));
    assert_true(st.searches - st0.searches <= 10);
    assert_int_equal(g->num_member_users, 2);
    assert_true(has(g->member_users, "big00001"));
    assert_true(has(g->member_users, "frank"));
    assert_int_equal(g->num_member_groups, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        FX_TEST(test_filter_escape),
        FX_TEST(test_parse_helpers),
        FX_TEST(test_strset),
        FX_TEST(test_options),
        FX_TEST(test_invalid_args),
        FX_TEST(test_user_by_name_and_id),
        FX_TEST(test_base_from_rootdse),
        FX_TEST(test_hostile_users),
        FX_TEST(test_invalid_utf8_name),
        FX_TEST(test_rfc2307_groups),
        FX_TEST(test_rfc2307bis_nesting),
        FX_TEST(test_rfc2307bis_nesting_levels),
        FX_TEST(test_initgroups),
        FX_TEST(test_initgroups_primary_complete),
        FX_TEST(test_enumerate),
        FX_TEST(test_enumerate_nested_as_by_name),
        FX_TEST(test_nested_complete_as_by_name),
        FX_TEST(test_partial_answers),
        FX_TEST(test_failover),
        FX_TEST(test_all_dead),
        FX_TEST(test_conn_expire),
        FX_TEST(test_failback),
        FX_TEST(test_reset_single_server),
        FX_TEST(test_many_on_one_connection),
        FX_TEST(test_simple_bind),
        FX_TEST(test_search_timeout),
        FX_TEST(test_big_group),
        FX_TEST(test_batched_member_dns),
        FX_TEST(test_absent_member_dns),
    };
    fx_debug_from_env();
    return cmocka_run_group_tests(tests, NULL, NULL);
}
