/*
 * ID-mapping slices kept across restarts (sdap_idmap.c, as SSSD keeps them in its cache):
 * two domain SIDs whose hashes pick the same slice, computed here. The one seen second is
 * moved to the next free slice, so which domain gets which slice depends on the order of
 * the lookups; a restart that sees them in the other order must still map the same ids.
 * Run 1 records the slices given (the recorder the back-end stores in the cache); run 2
 * restores them first and looks the domains up in the other order: the same ids. Run 3,
 * without the records, shows what they prevent (the ids move). No server: the SIDs are
 * handed to the group parser's mapping as an AD group entry's objectSid would be.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>

#include "util/util.h"
#include "confdb/confdb.h"
#include "lib/idmap/idmap.h"
#include "sss_client/murmurhash3.h"
#include "providers/ldap/sdap_private.h"

#define LOWER 200000u
#define SIZE 200000u
#define NSLICES 10u

struct record {
    char sid[64];
    uint32_t slice;
};

struct records {
    struct record r[8];
    size_t n;
};

static errno_t record(void *pvt, const char *name, const char *sid, uint32_t slice)
{
    struct records *recs = pvt;

    (void)name;
    assert_true(recs->n < 8);
    snprintf(recs->r[recs->n].sid, sizeof(recs->r[recs->n].sid), "%s", sid);
    recs->r[recs->n++].slice = slice;
    return EOK;
}

static struct sdap_options *new_opts(TALLOC_CTX *mem)
{
    char conf[512];
    struct confdb *cdb;
    struct sdap_options *opts;
    char *error = NULL;

    snprintf(conf, sizeof(conf), "[sssd]\ndomains = t\n[domain/t]\nid_provider = ldap\n"
             "ldap_uri = ldap://127.0.0.1\nldap_search_base = dc=t\nldap_schema = ad\n"
             "ldap_id_mapping = true\nldap_idmap_range_min = %u\n"
             "ldap_idmap_range_max = %u\nldap_idmap_range_size = %u\n", LOWER,
             LOWER + NSLICES * SIZE, SIZE);
    assert_int_equal(confdb_parse_buffer(mem, "t", conf, strlen(conf), &cdb, &error), EOK);
    assert_int_equal(sdap_options_read(mem, cdb, "t", &opts), EOK);
    assert_non_null(opts->idmap);
    return opts;
}

/* The gid of a group whose objectSid is dom_sid-rid. */
static uint32_t gid_of(struct sdap_options *opts, const char *dom_sid, uint32_t rid)
{
    struct sdap_entry e = { 0 };
    struct sdap_attr a = { 0 };
    char sid[80];
    char *values[2] = { sid, NULL };
    uint32_t gid = 0;

    snprintf(sid, sizeof(sid), "%s-%u", dom_sid, rid);
    a.name = discard_const(opts->group_map[SDAP_GA_OBJSID]);
    a.values = values;
    a.num_values = 1;
    e.dn = discard_const("cn=g,dc=t");
    e.attrs = &a;
    e.num_attrs = 1;
    assert_int_equal(sdap_idmap_group_id(opts, &e, &gid), EOK);
    return gid;
}

/* Two domain SIDs hashing to the same slice. */
static void colliding_sids(char *a, char *b, size_t len)
{
    uint32_t want;
    uint32_t i;

    snprintf(a, len, "S-1-5-21-1000-2000-3000");
    want = murmurhash3(a, strlen(a), IDMAP_HASH_SEED) % NSLICES;
    for (i = 1; i < 100000; i++) {
        snprintf(b, len, "S-1-5-21-1000-2000-%u", 3000 + i);
        if (murmurhash3(b, strlen(b), IDMAP_HASH_SEED) % NSLICES == want) {
            return;
        }
    }
    fail_msg("no colliding SID found");
}

static void test_collision_kept_across_restart(void **state)
{
    TALLOC_CTX *mem = talloc_new(NULL);
    struct records recs = { .n = 0 };
    struct sdap_options *opts;
    char a[64];
    char b[64];
    uint32_t ga;
    uint32_t gb;
    size_t i;

    (void)state;
    colliding_sids(a, b, sizeof(a));
    /* run 1: a first, then b (moved to the next free slice); slices recorded */
    opts = new_opts(mem);
    sdap_idmap_set_recorder(opts, record, &recs);
    ga = gid_of(opts, a, 1105);
    gb = gid_of(opts, b, 1105);
    assert_int_equal(recs.n, 2);
    assert_string_equal(recs.r[0].sid, a);
    assert_string_equal(recs.r[1].sid, b);
    assert_int_equal(recs.r[1].slice, (recs.r[0].slice + 1) % NSLICES);
    assert_int_equal(ga, LOWER + recs.r[0].slice * SIZE + 1105);
    assert_int_equal(gb, LOWER + recs.r[1].slice * SIZE + 1105);
    /* run 2: restored first, then b before a: the same ids, nothing new recorded */
    opts = new_opts(mem);
    for (i = 0; i < recs.n; i++) {
        assert_int_equal(sdap_idmap_restore(opts, recs.r[i].sid, recs.r[i].sid,
                                            recs.r[i].slice), EOK);
        /* twice is harmless */
        assert_int_equal(sdap_idmap_restore(opts, recs.r[i].sid, recs.r[i].sid,
                                            recs.r[i].slice), EOK);
    }
    sdap_idmap_set_recorder(opts, record, &recs);
    assert_int_equal(gid_of(opts, b, 1105), gb);
    assert_int_equal(gid_of(opts, a, 1105), ga);
    assert_int_equal(recs.n, 2);
    /* a record that clashes with the map is refused, not applied */
    assert_int_equal(sdap_idmap_restore(opts, "S-1-5-21-9-9-9", "S-1-5-21-9-9-9",
                                        recs.r[0].slice), EEXIST);
    assert_int_equal(sdap_idmap_restore(opts, a, a, recs.r[1].slice), EEXIST);
    assert_int_equal(sdap_idmap_restore(opts, "x", "S-1-5-21-8-8-8", NSLICES), EINVAL);
    /* run 3, without the records: b first takes the hashed slice, and its ids move */
    opts = new_opts(mem);
    assert_int_not_equal(gid_of(opts, b, 1105), gb);
    assert_int_not_equal(gid_of(opts, a, 1105), ga);
    talloc_free(mem);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_collision_kept_across_restart),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
