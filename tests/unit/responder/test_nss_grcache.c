/*
 * nss_grcache: kept records come back only for the same group, domain and database
 * generation; small groups are not kept; the table stays bounded.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "db/sysdb.h"
#include "responder/nss/nss_grcache.h"

#define N NSS_GRCACHE_MIN_MEMBERS

struct fixture {
    TALLOC_CTX *mem;
    const char **names;         /* N "uNNNN" member names */
};

static int setup(void **state)
{
    struct fixture *f = talloc_zero(NULL, struct fixture);
    size_t i;

    assert_non_null(f);
    f->names = talloc_array(f, const char *, N + 1);
    assert_non_null(f->names);
    for (i = 0; i < N; i++) {
        f->names[i] = talloc_asprintf(f->names, "u%04zu", i);
        assert_non_null(f->names[i]);
    }
    f->names[N] = NULL;
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    talloc_free(*state);
    return 0;
}

static struct nss_gr_entry record(struct fixture *f, const char *name, uint32_t gid,
                                  size_t members)
{
    struct nss_gr_entry gr = { .name = name, .gid = gid, .members = f->names,
                               .num_members = members };
    return gr;
}

static void test_hit_only_at_same_generation(void **state)
{
    struct fixture *f = *state;
    struct nss_grcache *c = nss_grcache_new(f);
    struct resp_domain dom1 = { .name = "one" }, dom2 = { .name = "two" };
    struct sysdb_group g = { .name = "big@one", .gid = 500 };
    struct sysdb_group other = { .name = "big2@one", .gid = 500 };
    struct nss_gr_entry gr = record(f, "big", 500, N);
    const struct nss_gr_entry *hit;

    assert_non_null(c);
    assert_null(nss_grcache_get(c, &dom1, &g, 7));
    nss_grcache_put(c, &dom1, &g, 7, &gr);
    hit = nss_grcache_get(c, &dom1, &g, 7);
    assert_non_null(hit);
    assert_string_equal(hit->name, "big");
    assert_int_equal(hit->gid, 500);
    assert_int_equal(hit->num_members, N);
    assert_string_equal(hit->members[0], "u0000");
    assert_string_equal(hit->members[N - 1], "u0999");
    assert_null(hit->members[N]);
    /* the packed block is the members one after the other */
    assert_int_equal(hit->packed_len, (size_t)N * 6);
    assert_memory_equal(hit->packed, "u0000\0u0001", 12);
    /* a copy: the caller's strings may go away */
    assert_ptr_not_equal(hit->members[0], f->names[0]);

    assert_null(nss_grcache_get(c, &dom1, &g, 8));       /* something was committed */
    assert_null(nss_grcache_get(c, &dom2, &g, 7));       /* another domain */
    assert_null(nss_grcache_get(c, &dom1, &other, 7));   /* another name, same gid */
    g.gid = 501;
    assert_null(nss_grcache_get(c, &dom1, &g, 7));
    g.gid = 500;
    assert_null(nss_grcache_get(c, &dom1, &g, 0));       /* generation unknown */
    assert_null(nss_grcache_get(NULL, &dom1, &g, 7));

    /* a new read of the same group replaces its record */
    gr.name = "renamed";
    nss_grcache_put(c, &dom1, &g, 9, &gr);
    assert_null(nss_grcache_get(c, &dom1, &g, 7));
    hit = nss_grcache_get(c, &dom1, &g, 9);
    assert_non_null(hit);
    assert_string_equal(hit->name, "renamed");
}

static void test_small_and_unknown_not_kept(void **state)
{
    struct fixture *f = *state;
    struct nss_grcache *c = nss_grcache_new(f);
    struct resp_domain dom = { .name = "one" };
    struct sysdb_group g = { .name = "small@one", .gid = 600 };
    struct nss_gr_entry gr = record(f, "small", 600, N - 1);

    nss_grcache_put(c, &dom, &g, 3, &gr);
    assert_null(nss_grcache_get(c, &dom, &g, 3));
    gr = record(f, "small", 600, N);
    nss_grcache_put(c, &dom, &g, 0, &gr);
    assert_null(nss_grcache_get(c, &dom, &g, 0));
    nss_grcache_put(NULL, &dom, &g, 3, &gr);             /* no cache: nothing happens */
}

static void test_packed_members_kept(void **state)
{
    struct fixture *f = *state;
    struct nss_grcache *c = nss_grcache_new(f);
    struct resp_domain dom = { .name = "one" };
    struct sysdb_group g = { .name = "p@one", .gid = 700 };
    struct nss_gr_entry gr = record(f, "p", 700, N);
    const struct nss_gr_entry *hit;
    char *packed = talloc_size(f, (size_t)N * 6);
    size_t i;

    for (i = 0; i < N; i++) {
        memcpy(packed + i * 6, f->names[i], 6);
    }
    gr.packed = packed;
    gr.packed_len = (size_t)N * 6;
    nss_grcache_put(c, &dom, &g, 4, &gr);
    memset(packed, 'x', (size_t)N * 6);                  /* the cache holds its own copy */
    hit = nss_grcache_get(c, &dom, &g, 4);
    assert_non_null(hit);
    assert_string_equal(hit->members[1], "u0001");
    assert_string_equal(hit->members[N - 1], "u0999");
}

static void test_bounded_lru(void **state)
{
    struct fixture *f = *state;
    struct nss_grcache *c = nss_grcache_new(f);
    struct resp_domain dom = { .name = "one" };
    struct sysdb_group g[NSS_GRCACHE_SLOTS + 1];
    char names[NSS_GRCACHE_SLOTS + 1][16];
    struct nss_gr_entry gr;
    size_t i;

    for (i = 0; i <= NSS_GRCACHE_SLOTS; i++) {
        snprintf(names[i], sizeof(names[i]), "g%zu@one", i);
        g[i].name = names[i];
        g[i].gid = (uint32_t)(800 + i);
    }
    for (i = 0; i < NSS_GRCACHE_SLOTS; i++) {
        gr = record(f, names[i], g[i].gid, N);
        nss_grcache_put(c, &dom, &g[i], 5, &gr);
    }
    /* g0 used again: g1 is now the least recently used and makes room for the new one */
    assert_non_null(nss_grcache_get(c, &dom, &g[0], 5));
    gr = record(f, names[NSS_GRCACHE_SLOTS], g[NSS_GRCACHE_SLOTS].gid, N);
    nss_grcache_put(c, &dom, &g[NSS_GRCACHE_SLOTS], 5, &gr);
    assert_null(nss_grcache_get(c, &dom, &g[1], 5));
    assert_non_null(nss_grcache_get(c, &dom, &g[0], 5));
    for (i = 2; i <= NSS_GRCACHE_SLOTS; i++) {
        assert_non_null(nss_grcache_get(c, &dom, &g[i], 5));
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_hit_only_at_same_generation, setup, teardown),
        cmocka_unit_test_setup_teardown(test_small_and_unknown_not_kept, setup, teardown),
        cmocka_unit_test_setup_teardown(test_packed_members_kept, setup, teardown),
        cmocka_unit_test_setup_teardown(test_bounded_lru, setup, teardown),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
