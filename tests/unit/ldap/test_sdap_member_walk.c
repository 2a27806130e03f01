/*
 * The member-graph walker (sdap_member_walk.c) on graphs built in memory, no server: the
 * member lists a group lookup gives (users flattened through nested groups, direct member
 * groups listed) with membership loops, the depth limit of ldap_group_nesting_level,
 * dangling and unusable members, duplicates and a group reached by paths of several
 * lengths (taken by its shortest); ENOENT for a graph that lacks what a walk needs, a
 * callback's error, the budget count, and no memory left behind. Also the rfc2307 member
 * list (sdap_group_set_members_rfc2307): memberUid values kept in order, invalid names
 * dropped, duplicates removed.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <string.h>

#include "providers/ldap/sdap_member_walk.h"
#include "tests/unit/common/tc_common.h"

#define MAX_NODES 16

struct graph {
    struct sdap_mw_node n[MAX_NODES];
    size_t count;
};

static struct sdap_mw_node *node(struct graph *g, enum sdap_mw_kind kind, const char *name)
{
    struct sdap_mw_node *x = &g->n[g->count++];

    assert_true(g->count <= MAX_NODES);
    memset(x, 0, sizeof(*x));
    x->kind = kind;
    x->name = name;
    return x;
}

/* Gives group its member values (NULL: a dangling value); expanded. */
static void members(TALLOC_CTX *mem_ctx, struct sdap_mw_node *group, size_t n, ...)
{
    va_list ap;
    size_t k;

    group->members = talloc_zero_array(mem_ctx, struct sdap_mw_node *, n + 1);
    assert_non_null(group->members);
    va_start(ap, n);
    for (k = 0; k < n; k++) {
        group->members[k] = va_arg(ap, struct sdap_mw_node *);
    }
    va_end(ap);
    group->num_members = n;
    group->expanded = true;
}

/* The sorted, comma-joined list (order is the walk's, not part of the contract). */
static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static char *joined(TALLOC_CTX *mem_ctx, const char **list, size_t n)
{
    const char **copy = talloc_array(mem_ctx, const char *, n + 1);
    char *out = talloc_strdup(mem_ctx, "");
    size_t i;

    assert_non_null(copy);
    memcpy(copy, list, n * sizeof(*list));
    qsort(copy, n, sizeof(*copy), cmp_str);
    for (i = 0; i < n; i++) {
        out = talloc_asprintf_append(out, "%s%s", i > 0 ? "," : "", copy[i]);
    }
    assert_non_null(out);
    return out;
}

static void assert_lists(struct sdap_mw *w, struct sdap_mw_node *top, const char *users,
                         const char *groups)
{
    struct sdap_group *grp = talloc_zero(NULL, struct sdap_group);

    assert_non_null(grp);
    assert_int_equal(sdap_mw_group_members(w, top, grp, NULL), EOK);
    assert_string_equal(joined(grp, grp->member_users, grp->num_member_users), users);
    assert_string_equal(joined(grp, grp->member_groups, grp->num_member_groups), groups);
    talloc_free(grp);
}

static void test_loops(void **state)
{
    TALLOC_CTX *ctx = talloc_new(NULL);
    struct graph g = { .count = 0 };
    struct sdap_mw_node *a = node(&g, SDAP_MW_GROUP, "a");
    struct sdap_mw_node *b = node(&g, SDAP_MW_GROUP, "b");
    struct sdap_mw_node *c = node(&g, SDAP_MW_GROUP, "c");
    struct sdap_mw_node *u1 = node(&g, SDAP_MW_USER, "u1");
    struct sdap_mw_node *u2 = node(&g, SDAP_MW_USER, "u2");
    struct sdap_mw_node *u3 = node(&g, SDAP_MW_USER, "u3");
    struct sdap_mw *w = sdap_mw_new(ctx, 10);

    assert_non_null(w);
    /* a -> b -> c -> a, and a group that is its own member */
    members(ctx, a, 3, b, u1, a);
    members(ctx, b, 2, c, u2);
    members(ctx, c, 3, a, u3, c);
    assert_lists(w, a, "u1,u2,u3", "b");
    assert_lists(w, b, "u1,u2,u3", "c");
    assert_lists(w, c, "u1,u2,u3", "a");
    /* Walks on one walker do not see each other's marks. */
    assert_lists(w, a, "u1,u2,u3", "b");
    talloc_free(ctx);
}

static void test_depth_limit(void **state)
{
    TALLOC_CTX *ctx = talloc_new(NULL);
    struct graph g = { .count = 0 };
    struct sdap_mw_node *g0 = node(&g, SDAP_MW_GROUP, "g0");
    struct sdap_mw_node *g1 = node(&g, SDAP_MW_GROUP, "g1");
    struct sdap_mw_node *g2 = node(&g, SDAP_MW_GROUP, "g2");
    struct sdap_mw_node *g3 = node(&g, SDAP_MW_GROUP, "g3");
    struct sdap_mw_node *u0 = node(&g, SDAP_MW_USER, "u0");
    struct sdap_mw_node *u1 = node(&g, SDAP_MW_USER, "u1");
    struct sdap_mw_node *u2 = node(&g, SDAP_MW_USER, "u2");
    struct sdap_mw_node *u3 = node(&g, SDAP_MW_USER, "u3");
    const char *want[] = { "u0", "u0,u1", "u0,u1,u2", "u0,u1,u2,u3", "u0,u1,u2,u3" };
    int level;

    members(ctx, g0, 2, u0, g1);
    members(ctx, g1, 2, u1, g2);
    members(ctx, g2, 2, u2, g3);
    members(ctx, g3, 1, u3);
    /* Level L: groups up to L hops below the looked-up one give their members; direct
     * member groups are listed at every level (level 0 included). */
    for (level = 0; level <= 4; level++) {
        struct sdap_mw *w = sdap_mw_new(ctx, level);

        assert_non_null(w);
        assert_lists(w, g0, want[level], "g1");
    }
    /* A group beyond the level need not have been read... */
    g3->expanded = false;
    assert_lists(sdap_mw_new(ctx, 2), g0, "u0,u1,u2", "g1");
    /* ...one within it must: the walk cannot give the lookup's answer. */
    {
        struct sdap_group *grp = talloc_zero(ctx, struct sdap_group);

        assert_int_equal(sdap_mw_group_members(sdap_mw_new(ctx, 3), g0, grp, NULL), ENOENT);
        assert_null(grp->member_users);
    }
    talloc_free(ctx);
}

static void test_dangling(void **state)
{
    TALLOC_CTX *ctx = talloc_new(NULL);
    struct graph g = { .count = 0 };
    struct sdap_mw_node *top = node(&g, SDAP_MW_GROUP, "top");
    struct sdap_mw_node *sub = node(&g, SDAP_MW_GROUP, "sub");
    struct sdap_mw_node *odd = node(&g, SDAP_MW_NONE, "printer");
    struct sdap_mw_node *u1 = node(&g, SDAP_MW_USER, "u1");
    struct sdap_mw_node *u2 = node(&g, SDAP_MW_USER, "u2");
    struct sdap_mw *w = sdap_mw_new(ctx, 5);

    /* NULL: a member DN with no entry (or not a DN); odd: an entry that is neither. */
    members(ctx, top, 4, NULL, u1, odd, sub);
    members(ctx, sub, 3, NULL, NULL, u2);
    assert_lists(w, top, "u1,u2", "sub");
    /* An empty group, and one whose only members dangle. */
    members(ctx, sub, 2, NULL, odd);
    assert_lists(w, top, "u1", "sub");
    assert_lists(w, sub, "", "");
    members(ctx, sub, 0);
    assert_lists(w, sub, "", "");
    talloc_free(ctx);
}

static void test_duplicates(void **state)
{
    TALLOC_CTX *ctx = talloc_new(NULL);
    struct graph g = { .count = 0 };
    struct sdap_mw_node *top = node(&g, SDAP_MW_GROUP, "top");
    struct sdap_mw_node *a = node(&g, SDAP_MW_GROUP, "a");
    struct sdap_mw_node *b = node(&g, SDAP_MW_GROUP, "b");
    struct sdap_mw_node *x = node(&g, SDAP_MW_GROUP, "x");
    struct sdap_mw_node *u1 = node(&g, SDAP_MW_USER, "u1");
    struct sdap_mw_node *u1b = node(&g, SDAP_MW_USER, "u1");   /* another DN, same name */
    struct sdap_mw_node *ux = node(&g, SDAP_MW_USER, "ux");

    /* The same values twice, a user by two paths and under two DNs, and x reached both
     * directly and through a then b: taken at distance 1, so expanded at level 1. */
    members(ctx, top, 6, a, u1, u1, a, x, u1b);
    members(ctx, a, 2, b, u1);
    members(ctx, b, 1, x);
    members(ctx, x, 1, ux);
    assert_lists(sdap_mw_new(ctx, 1), top, "u1,ux", "a,x");
    /* Without the direct value x is 3 hops down: beyond level 1 and 2, within 3. */
    members(ctx, top, 2, a, a);
    assert_lists(sdap_mw_new(ctx, 1), top, "u1", "a");
    assert_lists(sdap_mw_new(ctx, 2), top, "u1", "a");
    assert_lists(sdap_mw_new(ctx, 3), top, "u1,ux", "a");
    talloc_free(ctx);
}

struct count {
    size_t seen;
    size_t stop_at;
};

static errno_t count_cb(struct sdap_mw_node *n, int dist, void *pvt)
{
    struct count *c = pvt;

    assert_true(dist >= 1);
    return ++c->seen == c->stop_at ? EIO : EOK;
}

static void test_callback_and_budget(void **state)
{
    TALLOC_CTX *ctx = talloc_new(NULL);
    struct graph g = { .count = 0 };
    struct sdap_mw_node *top = node(&g, SDAP_MW_GROUP, "top");
    struct sdap_mw_node *a = node(&g, SDAP_MW_GROUP, "a");
    struct sdap_mw_node *u1 = node(&g, SDAP_MW_USER, "u1");
    struct sdap_mw_node *u2 = node(&g, SDAP_MW_USER, "u2");
    struct sdap_mw *w = sdap_mw_new(ctx, 1);
    struct count c = { 0, 0 };
    size_t budget = 100;

    members(ctx, top, 3, a, u1, top);
    members(ctx, a, 3, u1, u2, NULL);
    /* Every value looked at counts, taken or not; the top is never handed over. */
    assert_int_equal(sdap_mw_walk(w, top, count_cb, &c, &budget), EOK);
    assert_int_equal(c.seen, 3);
    assert_int_equal(budget, 94);
    budget = 2;
    c.seen = 0;
    assert_int_equal(sdap_mw_walk(w, top, count_cb, &c, &budget), EOK);
    assert_int_equal(budget, 0);
    assert_int_equal(c.seen, 3);
    /* The callback's error ends the walk. */
    c.seen = 0;
    c.stop_at = 2;
    assert_int_equal(sdap_mw_walk(w, top, count_cb, &c, NULL), EIO);
    assert_int_equal(c.seen, 2);
    assert_int_equal(sdap_mw_walk(NULL, top, count_cb, &c, NULL), EINVAL);
    assert_int_equal(sdap_mw_walk(w, NULL, count_cb, &c, NULL), EINVAL);
    talloc_free(ctx);
}

/* A graph wider than the walker's first buffers: they grow. */
static void test_wide(void **state)
{
    TALLOC_CTX *ctx = talloc_new(NULL);
    struct sdap_mw_node *top = talloc_zero(ctx, struct sdap_mw_node);
    struct sdap_mw_node *sub;
    struct sdap_group *grp = talloc_zero(ctx, struct sdap_group);
    size_t n = 3000;
    size_t k;

    top->kind = SDAP_MW_GROUP;
    top->name = "top";
    top->expanded = true;
    top->num_members = n;
    top->members = talloc_zero_array(ctx, struct sdap_mw_node *, n);
    for (k = 0; k < n; k++) {
        sub = talloc_zero(ctx, struct sdap_mw_node);
        sub->kind = k % 2 == 0 ? SDAP_MW_GROUP : SDAP_MW_USER;
        sub->name = talloc_asprintf(sub, "m%zu", k);
        sub->expanded = true;
        top->members[k] = sub;
    }
    assert_int_equal(sdap_mw_group_members(sdap_mw_new(ctx, 2), top, grp, NULL), EOK);
    assert_int_equal(grp->num_member_users, n / 2);
    assert_int_equal(grp->num_member_groups, n / 2);
    talloc_free(ctx);
}

/* An entry with one attribute, memberUid, holding values[0..n). */
static struct sdap_entry *uid_entry(TALLOC_CTX *mem_ctx, const char *const *values, size_t n)
{
    struct sdap_entry *e = talloc_zero(mem_ctx, struct sdap_entry);
    size_t i;

    assert_non_null(e);
    e->dn = talloc_strdup(e, "cn=g,ou=Groups,dc=example,dc=com");
    e->num_attrs = 1;
    e->attrs = talloc_zero_array(e, struct sdap_attr, 1);
    assert_non_null(e->attrs);
    e->attrs[0].name = talloc_strdup(e, "memberUid");
    e->attrs[0].num_values = n;
    e->attrs[0].values = talloc_array(e, char *, n + 1);
    assert_non_null(e->attrs[0].values);
    for (i = 0; i < n; i++) {
        e->attrs[0].values[i] = talloc_strdup(e, values[i]);
    }
    return e;
}

static void test_rfc2307_members(void **state)
{
    static const char *const vals[] = { "bob", "alice", "bob", "", "bad\001name", "   ",
                                        "carol", "alice", "dave smith" };
    TALLOC_CTX *ctx = talloc_new(NULL);
    struct sdap_options *opts = talloc_zero(ctx, struct sdap_options);
    struct sdap_group *grp = talloc_zero(ctx, struct sdap_group);
    const char **many;
    struct sdap_entry *e;
    size_t i;

    opts->group_map[SDAP_GA_MEMBER] = "memberUid";
    grp->name = "g";
    e = uid_entry(ctx, vals, sizeof(vals) / sizeof(vals[0]));
    assert_int_equal(sdap_group_set_members_rfc2307(grp, opts, e), EOK);
    assert_int_equal(grp->num_member_users, 4);
    assert_string_equal(grp->member_users[0], "bob");
    assert_string_equal(grp->member_users[1], "alice");
    assert_string_equal(grp->member_users[2], "carol");
    assert_string_equal(grp->member_users[3], "dave smith");
    assert_null(grp->member_users[4]);
    /* The names outlive the entry they came from. */
    talloc_free(e);
    assert_string_equal(grp->member_users[3], "dave smith");
    /* No values: an empty list; then 10,000 names, each given twice. */
    e = uid_entry(ctx, NULL, 0);
    assert_int_equal(sdap_group_set_members_rfc2307(grp, opts, e), EOK);
    assert_int_equal(grp->num_member_users, 0);
    assert_null(grp->member_users[0]);
    many = talloc_array(ctx, const char *, 20000);
    for (i = 0; i < 20000; i++) {
        many[i] = talloc_asprintf(many, "user%05zu", i % 10000);
    }
    e = uid_entry(ctx, many, 20000);
    assert_int_equal(sdap_group_set_members_rfc2307(grp, opts, e), EOK);
    assert_int_equal(grp->num_member_users, 10000);
    assert_string_equal(grp->member_users[9999], "user09999");
    talloc_free(ctx);
}

static int leak_setup(void **state)
{
    static struct tc_leaks leaks;

    tc_leak_start(&leaks);
    *state = &leaks;
    return 0;
}

static int leak_teardown(void **state)
{
    tc_leak_check(*state);
    return 0;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_loops, leak_setup, leak_teardown),
        cmocka_unit_test_setup_teardown(test_depth_limit, leak_setup, leak_teardown),
        cmocka_unit_test_setup_teardown(test_dangling, leak_setup, leak_teardown),
        cmocka_unit_test_setup_teardown(test_duplicates, leak_setup, leak_teardown),
        cmocka_unit_test_setup_teardown(test_callback_and_budget, leak_setup, leak_teardown),
        cmocka_unit_test_setup_teardown(test_wide, leak_setup, leak_teardown),
        cmocka_unit_test_setup_teardown(test_rfc2307_members, leak_setup, leak_teardown),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);

    tc_leak_end();
    return rc;
}
