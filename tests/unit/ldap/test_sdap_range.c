/*
 * Ranged attribute retrieval without a server (sdap_entry_range.c): the "range=LO-HI"
 * option as an AD DC names it, what a follow-up asks for, and the merge of follow-up
 * answers into one complete attribute, including the answers of a broken or hostile
 * server (a repeated range, a short range, a missing attribute), which must fail rather
 * than leave a member list cut short. And sdap_entry_from_msg() on a ranged attribute
 * written by a fake server.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <openldap.h>
#include <sys/socket.h>
#include <unistd.h>

#include "providers/ldap/sdap_entry_range.h"

static void assert_range(const char *desc, size_t type_len, bool ranged, uint32_t lo,
                         uint32_t hi, bool last)
{
    struct sdap_range r;
    size_t tl = 0;

    assert_int_equal(sdap_range_parse(desc, &tl, &r), EOK);
    assert_int_equal(tl, type_len);
    assert_int_equal(r.ranged, ranged);
    if (ranged) {
        assert_int_equal(r.lo, lo);
        assert_int_equal(r.last, last);
        if (!last) {
            assert_int_equal(r.hi, hi);
        }
    }
}

static void test_parse(void **state)
{
    static const char *bad[] = {
        "member;range=", "member;range=-1499", "member;range=0-", "member;range=0",
        "member;range=a-5", "member;range=5-4", "member;range=0-1*", "member;range=0-**",
        "member;range=+1-5", "member;range=0- 5", "member;range=0-99999999999",
        "member;range=0-100000001", "member;range=0-1;range=2-*", ";range=0-*", "",
        "member;range=0x1-5", "member;range=0--5",
    };
    struct sdap_range r;
    size_t tl;
    size_t i;

    (void)state;
    assert_range("member", 6, false, 0, 0, false);
    assert_range("member;binary", 6, false, 0, 0, false);
    assert_range("member;range=0-1499", 6, true, 0, 1499, false);
    assert_range("member;Range=1500-*", 6, true, 1500, 0, true);
    assert_range("memberOf;RANGE=0-*", 8, true, 0, 0, true);
    assert_range("member;binary;range=3-3", 6, true, 3, 3, false);
    assert_range("member;range=0-100000000", 6, true, 0, 100000000, false);
    assert_range("member;ranger=0-1", 6, false, 0, 0, false);
    for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        if (sdap_range_parse(bad[i], &tl, &r) != EINVAL) {
            fail_msg("'%s' accepted", bad[i]);
        }
    }
}

static void test_count_and_request(void **state)
{
    struct sdap_range r = { true, 1500, 2999, false };
    struct sdap_range last = { true, 3000, 0, true };
    struct sdap_range plain = { false, 0, 0, false };
    char *s;

    (void)state;
    assert_int_equal(sdap_range_check_count(&r, 1500), EOK);
    assert_int_equal(sdap_range_check_count(&r, 1499), EPROTO);
    assert_int_equal(sdap_range_check_count(&r, 1501), EPROTO);
    assert_int_equal(sdap_range_check_count(&last, 0), EOK);
    assert_int_equal(sdap_range_check_count(&last, 7), EOK);
    assert_int_equal(sdap_range_check_count(&plain, 7), EOK);
    s = sdap_range_request(NULL, "member;range=0-1499", 6, 1500, 0);
    assert_string_equal(s, "member;range=1500-*");
    talloc_free(s);
    s = sdap_range_request(NULL, "memberOf", 8, 200, 100);
    assert_string_equal(s, "memberOf;range=200-299");
    talloc_free(s);
}

/* An entry with one attribute desc holding values "<prefix>lo" .. "<prefix>hi". */
static struct sdap_entry *make_entry(TALLOC_CTX *mem, const char *dn, const char *desc,
                                     unsigned lo, unsigned hi)
{
    struct sdap_entry *e = talloc_zero(mem, struct sdap_entry);
    struct sdap_attr *a;
    unsigned i;

    assert_non_null(e);
    e->dn = talloc_strdup(e, dn);
    e->attrs = talloc_zero_array(e, struct sdap_attr, 2);
    e->num_attrs = 2;
    e->attrs[0].name = talloc_strdup(e->attrs, "cn");
    e->attrs[0].values = talloc_zero_array(e->attrs, char *, 2);
    e->attrs[0].values[0] = talloc_strdup(e->attrs[0].values, "g");
    e->attrs[0].num_values = 1;
    a = &e->attrs[1];
    a->name = talloc_strdup(e->attrs, desc);
    a->values = talloc_zero_array(e->attrs, char *, hi - lo + 2);
    for (i = lo; i <= hi; i++) {
        a->values[a->num_values++] = talloc_asprintf(a->values, "uid=u%u", i);
    }
    return e;
}

static void test_merge(void **state)
{
    TALLOC_CTX *mem = talloc_new(NULL);
    struct sdap_entry *e = make_entry(mem, "cn=g", "member;range=0-2", 0, 2);
    struct sdap_entry *r1 = make_entry(mem, "cn=g", "Member;range=3-5", 3, 5);
    struct sdap_entry *r2 = make_entry(mem, "cn=g", "member;range=6-*", 6, 7);
    const struct sdap_attr *a;
    struct sdap_range r;
    unsigned i;

    (void)state;
    assert_int_equal(sdap_range_find(e, 0), 1);
    assert_int_equal(sdap_range_merge(e, 1, 3, r1, &r), EOK);
    assert_false(r.last);
    assert_int_equal(r.hi, 5);
    talloc_free(r1);        /* the values moved: they outlive the reply */
    assert_int_equal(sdap_range_merge(e, 1, 6, r2, &r), EOK);
    assert_true(r.last);
    talloc_free(r2);
    assert_int_equal(sdap_range_find(e, 0), e->num_attrs);
    a = sdap_entry_attr(e, "member");
    assert_non_null(a);
    assert_string_equal(a->name, "member");
    assert_int_equal(a->num_values, 8);
    for (i = 0; i < 8; i++) {
        char want[16];

        snprintf(want, sizeof(want), "uid=u%u", i);
        assert_string_equal(a->values[i], want);
    }
    assert_null(a->values[8]);
    talloc_free(mem);
}

/* Answers a client must refuse: each leaves the attribute incomplete. */
static void test_merge_refused(void **state)
{
    TALLOC_CTX *mem = talloc_new(NULL);
    struct sdap_entry *e = make_entry(mem, "cn=g", "member;range=0-2", 0, 2);
    struct sdap_range r;

    (void)state;
    /* the same range again (a server that never moves on) */
    assert_int_equal(sdap_range_merge(e, 1, 3, make_entry(mem, "cn=g", "member;range=0-2",
                                                          0, 2), &r), EPROTO);
    /* a gap */
    assert_int_equal(sdap_range_merge(e, 1, 3, make_entry(mem, "cn=g", "member;range=4-*",
                                                          4, 5), &r), EPROTO);
    /* no member attribute at all, or the plain one */
    assert_int_equal(sdap_range_merge(e, 1, 3, make_entry(mem, "cn=g", "memberOf;range=3-*",
                                                          3, 5), &r), EPROTO);
    assert_int_equal(sdap_range_merge(e, 1, 3, make_entry(mem, "cn=g", "member", 3, 5),
                                      &r), EPROTO);
    assert_int_equal(e->attrs[1].num_values, 3);
    assert_string_equal(e->attrs[1].name, "member;range=0-2");
    /* the last range, but the entry also holds plain "member": two lists, refused */
    e = make_entry(mem, "cn=g", "member;range=0-*", 0, 2);
    talloc_free(e->attrs[0].name);
    e->attrs[0].name = talloc_strdup(e->attrs, "MEMBER");
    assert_int_equal(sdap_range_finish(e, 1), EPROTO);
    talloc_free(mem);
}

/* A search result entry "cn=g" with member under desc holding nv values, written by a
 * fake server, through sdap_entry_from_msg(). */
static errno_t entry_from_server(const char *desc, size_t nv, struct sdap_entry **_e)
{
    struct berval v[8];
    struct berval *vals[9];
    struct timeval tv = { 1, 0 };
    LDAPMessage *msg = NULL;
    struct berval *bv = NULL;
    BerElement *ber;
    size_t dropped = 0;
    LDAP *ld = NULL;
    errno_t ret;
    int msgid;
    int sv[2];
    size_t i;

    assert_true(nv <= 8);
    for (i = 0; i < nv; i++) {
        v[i].bv_val = discard_const("uid=u,dc=t");
        v[i].bv_len = strlen(v[i].bv_val);
        vals[i] = &v[i];
    }
    vals[nv] = NULL;
    assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0, sv), 0);
    assert_int_equal(ldap_init_fd(sv[0], LDAP_PROTO_TCP, NULL, &ld), LDAP_SUCCESS);
    assert_int_equal(ldap_search_ext(ld, "cn=g", LDAP_SCOPE_BASE, NULL, NULL, 0, NULL, NULL,
                                     NULL, 0, &msgid), LDAP_SUCCESS);
    ber = ber_alloc_t(LBER_USE_DER);
    assert_non_null(ber);
    assert_true(ber_printf(ber, "{it{s{{s[s]}{s[V]}}}}", msgid, (ber_tag_t)0x64, "cn=g",
                           "cn", "g", desc, vals) >= 0);
    assert_int_equal(ber_flatten(ber, &bv), 0);
    assert_int_equal(write(sv[1], bv->bv_val, bv->bv_len), (ssize_t)bv->bv_len);
    assert_int_equal(ldap_result(ld, msgid, LDAP_MSG_ONE, &tv, &msg), LDAP_RES_SEARCH_ENTRY);
    ret = sdap_entry_from_msg(NULL, ld, msg, _e, &dropped);
    ber_bvfree(bv);
    ber_free(ber, 1);
    ldap_msgfree(msg);
    ldap_unbind_ext(ld, NULL, NULL);
    close(sv[1]);
    return ret;
}

static void test_entry_from_msg(void **state)
{
    struct sdap_entry *e = NULL;

    (void)state;
    /* Windows' form, whatever was asked: kept under its description for the follow-up */
    assert_int_equal(entry_from_server("member;range=0-2", 3, &e), EOK);
    assert_int_equal(sdap_range_find(e, 0), 1);
    assert_int_equal(e->attrs[1].num_values, 3);
    talloc_free(e);
    assert_int_equal(entry_from_server("member;range=0-*", 5, &e), EOK);
    talloc_free(e);
    /* a range holding fewer (or more) values than it names: part of them is missing */
    assert_int_equal(entry_from_server("member;range=0-2", 2, &e), EPROTO);
    assert_int_equal(entry_from_server("member;range=0-2", 4, &e), EPROTO);
    assert_int_equal(entry_from_server("member;range=2-0", 0, &e), EPROTO);
    assert_int_equal(entry_from_server("member;range=0-x", 1, &e), EPROTO);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse),
        cmocka_unit_test(test_count_and_request),
        cmocka_unit_test(test_merge),
        cmocka_unit_test(test_merge_refused),
        cmocka_unit_test(test_entry_from_msg),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
