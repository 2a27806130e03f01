/*
 * sdap_entry_count.c: an attribute's values only counted past a limit, on entries a fake
 * server writes into a socket and libldap reads back as a search result entry. A
 * counted list keeps no value but its count and whether the needle is among them; at
 * the limit, ranged, or without a spec the values are read as before; long lengths and
 * two-byte tags count as liblber reads them; a set whose value overruns it, or an
 * indefinite length, ends the attributes, as libldap's own decoding of values does.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <openldap.h>
#include <sys/socket.h>
#include <unistd.h>

#include "providers/ldap/sdap_private.h"

/* A DER buffer built by hand, so that a test can also write what no encoder would. */
struct der {
    unsigned char b[4096];
    size_t len;
};

/* Appends tag, a length (short or two-byte form) and the content. */
static void der_tlv(struct der *d, unsigned char tag, const void *content, size_t len)
{
    assert_true(d->len + len + 4 <= sizeof(d->b));
    d->b[d->len++] = tag;
    if (len < 0x80) {
        d->b[d->len++] = len;
    } else {
        assert_true(len <= 0xffff);
        d->b[d->len++] = 0x82;
        d->b[d->len++] = len >> 8;
        d->b[d->len++] = len & 0xff;
    }
    memcpy(d->b + d->len, content, len);
    d->len += len;
}

static void der_str(struct der *d, const char *s)
{
    der_tlv(d, 0x04, s, strlen(s));
}

/* One attribute: SEQUENCE { type, SET OF value }. */
static void der_attr(struct der *d, const char *type, const char *const *vals)
{
    struct der set = { .len = 0 };
    struct der seq = { .len = 0 };

    for (; *vals != NULL; vals++) {
        der_str(&set, *vals);
    }
    der_str(&seq, type);
    der_tlv(&seq, 0x31, set.b, set.len);
    der_tlv(d, 0x30, seq.b, seq.len);
}

/* Sends entry "cn=g" with the attribute list attrs (the contents of its SEQUENCE) as the
 * answer to a search and parses it with spec. */
static struct sdap_entry *parse(const struct der *attrs, const struct sdap_count_spec *spec)
{
    struct timeval tv = { 1, 0 };
    struct sdap_entry *entry = NULL;
    LDAPMessage *msg = NULL;
    struct der op = { .len = 0 };
    struct der m = { .len = 0 };
    struct der out = { .len = 0 };
    unsigned char id;
    size_t dropped = 0;
    LDAP *ld = NULL;
    int msgid;
    int sv[2];

    assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0, sv), 0);
    assert_int_equal(ldap_init_fd(sv[0], LDAP_PROTO_TCP, NULL, &ld), LDAP_SUCCESS);
    assert_int_equal(ldap_search_ext(ld, "cn=g", LDAP_SCOPE_BASE, NULL, NULL, 0, NULL, NULL,
                                     NULL, 0, &msgid), LDAP_SUCCESS);
    assert_true(msgid > 0 && msgid < 0x80);
    id = msgid;
    der_str(&op, "cn=g");
    der_tlv(&op, 0x30, attrs->b, attrs->len);
    der_tlv(&m, 0x02, &id, 1);
    der_tlv(&m, 0x64, op.b, op.len);              /* [APPLICATION 4] SearchResultEntry */
    der_tlv(&out, 0x30, m.b, m.len);
    assert_int_equal(write(sv[1], out.b, out.len), (ssize_t)out.len);
    assert_int_equal(ldap_result(ld, msgid, LDAP_MSG_ONE, &tv, &msg), LDAP_RES_SEARCH_ENTRY);
    assert_int_equal(sdap_entry_from_msg_counted(NULL, ld, msg, spec, &entry, &dropped), EOK);
    ldap_msgfree(msg);
    ldap_unbind_ext(ld, NULL, NULL);
    close(sv[1]);
    return entry;
}

static const char *const five[] = { "ann", "bob", "bob", "carl", "dora", NULL };
static const char *const gid[] = { "7", NULL };
static const char *const name[] = { "g", NULL };

/* cn, the member list under type, gidNumber. */
static void group_attrs(struct der *d, const char *type)
{
    der_attr(d, "cn", name);
    der_attr(d, type, five);
    der_attr(d, "gidNumber", gid);
}

static void test_counted_past_limit(void **state)
{
    const struct sdap_count_spec spec = { "memberUid", 3, "bob" };
    struct der d = { .len = 0 };
    const struct sdap_attr *a;
    struct sdap_entry *e;

    (void)state;
    group_attrs(&d, "memberUid");
    e = parse(&d, &spec);
    a = sdap_entry_attr(e, "memberUid");
    assert_non_null(a);
    assert_int_equal(a->num_counted, 5);
    assert_int_equal(a->num_values, 0);
    assert_null(a->values[0]);
    assert_true(a->needle_found);
    /* The attributes on either side are read as ever. */
    assert_string_equal(sdap_entry_value(e, "cn"), "g");
    assert_string_equal(sdap_entry_value(e, "gidNumber"), "7");
    talloc_free(e);
}

/* The needle is matched exactly: neither a prefix nor another case. */
static void test_needle_exact(void **state)
{
    const struct sdap_count_spec prefix = { "memberUid", 3, "bo" };
    const struct sdap_count_spec upper = { "memberUid", 3, "BOB" };
    struct der d = { .len = 0 };
    struct sdap_entry *e;

    (void)state;
    group_attrs(&d, "memberUid");
    e = parse(&d, &prefix);
    assert_int_equal(sdap_entry_attr(e, "memberUid")->num_counted, 5);
    assert_false(sdap_entry_attr(e, "memberUid")->needle_found);
    talloc_free(e);
    e = parse(&d, &upper);
    assert_false(sdap_entry_attr(e, "memberUid")->needle_found);
    talloc_free(e);
}

/* At the limit, and for the type in another case: the values, as without a spec. */
static void test_at_limit_read(void **state)
{
    const struct sdap_count_spec spec = { "memberUid", 5, "bob" };
    struct der d = { .len = 0 };
    const struct sdap_attr *a;
    struct sdap_entry *e;
    size_t i;

    (void)state;
    group_attrs(&d, "MEMBERUID");
    e = parse(&d, &spec);
    a = sdap_entry_attr(e, "memberUid");
    assert_non_null(a);
    assert_int_equal(a->num_counted, 0);
    assert_int_equal(a->num_values, 5);
    for (i = 0; i < 5; i++) {
        assert_string_equal(a->values[i], five[i]);
    }
    assert_null(a->values[5]);
    assert_string_equal(sdap_entry_value(e, "gidNumber"), "7");
    talloc_free(e);
}

/* A spec for another attribute, no spec, or a ranged description: nothing counted. */
static void test_not_counted(void **state)
{
    const struct sdap_count_spec other = { "member", 1, NULL };
    const struct sdap_count_spec spec = { "memberUid", 1, NULL };
    struct der d = { .len = 0 };
    struct der r = { .len = 0 };
    struct sdap_entry *e;

    (void)state;
    group_attrs(&d, "memberUid");
    e = parse(&d, &other);
    assert_int_equal(sdap_entry_attr(e, "memberUid")->num_values, 5);
    talloc_free(e);
    e = parse(&d, NULL);
    assert_int_equal(sdap_entry_attr(e, "memberUid")->num_values, 5);
    assert_int_equal(sdap_entry_attr(e, "memberUid")->num_counted, 0);
    talloc_free(e);
    group_attrs(&r, "memberUid;range=0-*");
    e = parse(&r, &spec);
    assert_int_equal(sdap_entry_attr(e, "memberUid;range=0-*")->num_values, 5);
    assert_int_equal(sdap_entry_attr(e, "memberUid;range=0-*")->num_counted, 0);
    talloc_free(e);
}

/* A value whose length runs past its set (9 bytes declared, 3 there): the attributes end
 * before it, with or without a spec, and nothing is counted. */
static void test_overrun_set(void **state)
{
    const struct sdap_count_spec spec = { "memberUid", 0, NULL };
    static const unsigned char bad_set[] = { 0x04, 0x09, 'a', 'b', 'c' };
    struct der d = { .len = 0 };
    struct der seq = { .len = 0 };
    struct sdap_entry *e;

    (void)state;
    der_attr(&d, "cn", name);
    der_str(&seq, "memberUid");
    der_tlv(&seq, 0x31, bad_set, sizeof(bad_set));
    der_tlv(&d, 0x30, seq.b, seq.len);
    der_attr(&d, "gidNumber", gid);
    e = parse(&d, &spec);
    assert_string_equal(sdap_entry_value(e, "cn"), "g");
    assert_null(sdap_entry_attr(e, "memberUid"));
    assert_null(sdap_entry_attr(e, "gidNumber"));
    talloc_free(e);
    e = parse(&d, NULL);
    assert_string_equal(sdap_entry_value(e, "cn"), "g");
    assert_null(sdap_entry_attr(e, "memberUid"));
    assert_null(sdap_entry_attr(e, "gidNumber"));
    talloc_free(e);
}

/* An empty set: no values, nothing counted (limit 0 counts only a list of one or more). */
static void test_empty_set(void **state)
{
    const struct sdap_count_spec spec = { "memberUid", 0, "bob" };
    static const char *const none[] = { NULL };
    struct der d = { .len = 0 };
    struct sdap_entry *e;

    (void)state;
    der_attr(&d, "memberUid", none);
    der_attr(&d, "gidNumber", gid);
    e = parse(&d, &spec);
    assert_int_equal(sdap_entry_attr(e, "memberUid")->num_values, 0);
    assert_int_equal(sdap_entry_attr(e, "memberUid")->num_counted, 0);
    assert_string_equal(sdap_entry_value(e, "gidNumber"), "7");
    talloc_free(e);
}

/* A set of raw bytes under memberUid, between cn and gidNumber. */
static void raw_member_set(struct der *d, const void *set, size_t len)
{
    struct der seq = { .len = 0 };

    der_attr(d, "cn", name);
    der_str(&seq, "memberUid");
    der_tlv(&seq, 0x31, set, len);
    der_tlv(d, 0x30, seq.b, seq.len);
    der_attr(d, "gidNumber", gid);
}

/* Long-form lengths (a 200-byte value), and a value under a two-byte tag, which liblber
 * reads too (the walk leaves such a set to it): counted alike, the needle found. */
static void test_long_lengths_and_tags(void **state)
{
    const struct sdap_count_spec spec = { "memberUid", 2, "bob" };
    struct der set = { .len = 0 };
    struct der d = { .len = 0 };
    struct sdap_entry *e;
    char big[200];

    (void)state;
    memset(big, 'a', sizeof(big));
    der_tlv(&set, 0x04, big, sizeof(big));
    der_str(&set, "bob");
    der_str(&set, "ann");
    raw_member_set(&d, set.b, set.len);
    e = parse(&d, &spec);
    assert_int_equal(sdap_entry_attr(e, "memberUid")->num_counted, 3);
    assert_true(sdap_entry_attr(e, "memberUid")->needle_found);
    assert_string_equal(sdap_entry_value(e, "gidNumber"), "7");
    talloc_free(e);

    set.len = 0;
    der_tlv(&set, 0x04, big, sizeof(big));
    set.b[set.len++] = 0x1f;        /* [UNIVERSAL 32]: a two-byte tag */
    der_tlv(&set, 0x20, "bob", 3);
    der_str(&set, "ann");
    d.len = 0;
    raw_member_set(&d, set.b, set.len);
    e = parse(&d, &spec);
    assert_int_equal(sdap_entry_attr(e, "memberUid")->num_counted, 3);
    assert_true(sdap_entry_attr(e, "memberUid")->needle_found);
    assert_string_equal(sdap_entry_value(e, "gidNumber"), "7");
    talloc_free(e);
}

/* An indefinite length (0x80) inside the set: refused as liblber refuses it. */
static void test_indefinite_length(void **state)
{
    const struct sdap_count_spec spec = { "memberUid", 0, NULL };
    static const unsigned char set[] = { 0x04, 0x03, 'a', 'n', 'n', 0x04, 0x80, 0x00, 0x00 };
    struct der d = { .len = 0 };
    struct sdap_entry *e;

    (void)state;
    raw_member_set(&d, set, sizeof(set));
    e = parse(&d, &spec);
    assert_null(sdap_entry_attr(e, "memberUid"));
    assert_null(sdap_entry_attr(e, "gidNumber"));
    talloc_free(e);
    e = parse(&d, NULL);
    assert_null(sdap_entry_attr(e, "memberUid"));
    talloc_free(e);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_counted_past_limit),
        cmocka_unit_test(test_needle_exact),
        cmocka_unit_test(test_at_limit_read),
        cmocka_unit_test(test_not_counted),
        cmocka_unit_test(test_overrun_set),
        cmocka_unit_test(test_empty_set),
        cmocka_unit_test(test_long_lengths_and_tags),
        cmocka_unit_test(test_indefinite_length),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
