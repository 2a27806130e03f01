/*
 * ad_subdomains.c: a trustedDomain entry as the DC sends it (after sdap_entry_msg.c,
 * securityIdentifier already a SID string) becomes a trusted domain to record, or is
 * refused: attributes missing or malformed (EINVAL), a trust whose users are not ours to
 * resolve (ENOENT: inbound only, not an AD trust). Names come back lowercased.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "util/util.h"
#include "db/sysdb_subdomains.h"
#include "providers/ldap/sdap_private.h"
#include "providers/ad/ad_subdomains.h"

#define B_SID "S-1-5-21-1166454421-1179288475-760847990"

/* An entry of the usual attributes, value v[i] for attribute i (NULL: absent). */
static struct sdap_entry *entry_of(TALLOC_CTX *mem_ctx, const char *const v[6])
{
    static const char *const names[6] = { "trustPartner", "flatName", "securityIdentifier",
                                          "trustDirection", "trustType", "trustAttributes" };
    struct sdap_entry *e = talloc_zero(mem_ctx, struct sdap_entry);
    size_t i;

    assert_non_null(e);
    e->dn = talloc_strdup(e, "CN=B.TEST,CN=System,DC=ad,DC=test");
    e->attrs = talloc_zero_array(e, struct sdap_attr, 6);
    assert_non_null(e->attrs);
    for (i = 0; i < 6; i++) {
        if (v[i] == NULL) {
            continue;
        }
        e->attrs[e->num_attrs].name = talloc_strdup(e, names[i]);
        e->attrs[e->num_attrs].values = talloc_zero_array(e, char *, 2);
        e->attrs[e->num_attrs].values[0] = talloc_strdup(e, v[i]);
        e->attrs[e->num_attrs].num_values = 1;
        e->num_attrs++;
    }
    return e;
}

static void test_two_way_forest(void **state)
{
    TALLOC_CTX *mem = talloc_new(NULL);
    const char *const v[6] = { "B.Test", "B", B_SID, "3", "2", "8" };
    struct sysdb_subdom sub;

    assert_int_equal(ad_subdom_from_entry(mem, entry_of(mem, v), &sub), EOK);
    assert_string_equal(sub.name, "b.test");
    assert_string_equal(sub.flat, "B");
    assert_string_equal(sub.sid, B_SID);
    assert_int_equal(sub.direction, 3);
    assert_int_equal(sub.type, 2);
    assert_int_equal(sub.attributes, 8);
    talloc_free(mem);
}

static void test_outbound_negative_attrs(void **state)
{
    TALLOC_CTX *mem = talloc_new(NULL);
    /* AD writes flag words as signed 32-bit integers */
    const char *const v[6] = { "c.test", "C", B_SID, "2", "2", "-2147483640" };
    struct sysdb_subdom sub;

    assert_int_equal(ad_subdom_from_entry(mem, entry_of(mem, v), &sub), EOK);
    assert_int_equal(sub.attributes, 0x80000008u);
    talloc_free(mem);
}

static void test_not_ours(void **state)
{
    TALLOC_CTX *mem = talloc_new(NULL);
    const char *const inbound[6] = { "b.test", "B", B_SID, "1", "2", "8" };
    const char *const downlevel[6] = { "nt4", "NT4", B_SID, "3", "1", "0" };
    struct sysdb_subdom sub;

    assert_int_equal(ad_subdom_from_entry(mem, entry_of(mem, inbound), &sub), ENOENT);
    assert_int_equal(ad_subdom_from_entry(mem, entry_of(mem, downlevel), &sub), ENOENT);
    talloc_free(mem);
}

static void test_malformed(void **state)
{
    TALLOC_CTX *mem = talloc_new(NULL);
    const char *const bad[][6] = {
        { NULL, "B", B_SID, "3", "2", "8" },
        { "b.test", NULL, B_SID, "3", "2", "8" },
        { "b.test", "B", NULL, "3", "2", "8" },
        { "b.test", "B", "S-1-5-32-544", "3", "2", "8" },   /* not a domain's SID */
        { "b.test", "B", B_SID, NULL, "2", "8" },
        { "b.test", "B", B_SID, "3", "x", "8" },
        { "b.test", "B", B_SID, "3", "2", "" },
        { "b.test", "B", B_SID, "99999999999", "2", "8" },
        { "b test", "B", B_SID, "3", "2", "8" },            /* stored space-separated */
        { "b.test", "B C", B_SID, "3", "2", "8" },
        { "", "B", B_SID, "3", "2", "8" },
    };
    struct sysdb_subdom sub;
    size_t i;

    for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        assert_int_equal(ad_subdom_from_entry(mem, entry_of(mem, bad[i]), &sub), EINVAL);
    }
    assert_int_equal(ad_subdom_from_entry(mem, NULL, &sub), EINVAL);
    talloc_free(mem);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_two_way_forest),
        cmocka_unit_test(test_outbound_negative_attrs),
        cmocka_unit_test(test_not_ours),
        cmocka_unit_test(test_malformed),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
