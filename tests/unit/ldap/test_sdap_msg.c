/*
 * sdap_entry_msg.c without a server: the paged-results control of a final message, as a
 * hostile or broken server may send it. A control with no value used to reach
 * ldap_parse_pageresponse_control(), whose assertion aborted sssd_be (found by
 * tests/fuzz/fuzz_sdap_entry.c). And the bound on a message's declared length: without
 * it, libldap allocated 2 GB for a 6-byte header and waited for the rest. And AD's
 * binary SID attributes (objectSid, tokenGroups): kept in their string form, malformed
 * values dropped.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <openldap.h>
#include <sys/socket.h>
#include <unistd.h>

#include "providers/ldap/sdap_private.h"

static LDAP *new_ld(void)
{
    LDAP *ld = NULL;

    assert_int_equal(ldap_initialize(&ld, "ldap://127.0.0.1"), LDAP_SUCCESS);
    return ld;
}

static void test_page_control_without_value(void **state)
{
    LDAPControl page = { .ldctl_oid = (char *)LDAP_CONTROL_PAGEDRESULTS };
    LDAPControl *ctrls[] = { &page, NULL };
    struct berval cookie = { 0, NULL };
    LDAP *ld = new_ld();

    (void)state;
    assert_int_equal(sdap_page_cookie(ld, ctrls, &cookie), EIO);
    ldap_unbind_ext(ld, NULL, NULL);
}

static void test_page_control_garbage_value(void **state)
{
    char junk[] = "\x30\x05\x02\x01";
    LDAPControl page = {
        .ldctl_oid = (char *)LDAP_CONTROL_PAGEDRESULTS,
        .ldctl_value = { sizeof(junk) - 1, junk },
    };
    LDAPControl *ctrls[] = { &page, NULL };
    struct berval cookie = { 0, NULL };
    LDAP *ld = new_ld();

    (void)state;
    assert_int_equal(sdap_page_cookie(ld, ctrls, &cookie), EIO);
    ldap_unbind_ext(ld, NULL, NULL);
}

/* An empty value (not a missing one): libldap's parser read through a NULL buffer. Found
 * by fuzz_sdap_entry (corpus: regress-page-control-empty-value). */
static void test_page_control_empty_value(void **state)
{
    char empty[] = "";
    LDAPControl page = {
        .ldctl_oid = (char *)LDAP_CONTROL_PAGEDRESULTS,
        .ldctl_value = { 0, empty },
    };
    LDAPControl *ctrls[] = { &page, NULL };
    struct berval cookie = { 0, NULL };
    LDAP *ld = new_ld();

    (void)state;
    assert_int_equal(sdap_page_cookie(ld, ctrls, &cookie), EIO);
    ldap_unbind_ext(ld, NULL, NULL);
}

static void test_page_control_cookie(void **state)
{
    struct berval in = { 6, (char *)"cookie" };
    struct berval cookie = { 0, NULL };
    LDAPControl *ctrl = NULL;
    LDAPControl *ctrls[2] = { NULL, NULL };
    LDAP *ld = new_ld();

    (void)state;
    /* A request control has the same value layout as the response: size, cookie. */
    assert_int_equal(ldap_create_page_control(ld, 100, &in, 0, &ctrl), LDAP_SUCCESS);
    ctrls[0] = ctrl;
    assert_int_equal(sdap_page_cookie(ld, ctrls, &cookie), EOK);
    assert_int_equal(cookie.bv_len, 6);
    assert_memory_equal(cookie.bv_val, "cookie", 6);
    ber_memfree(cookie.bv_val);
    ldap_control_free(ctrl);
    ctrls[0] = NULL;
    assert_int_equal(sdap_page_cookie(ld, ctrls, &cookie), ENOENT);
    assert_int_equal(sdap_page_cookie(ld, NULL, &cookie), ENOENT);
    ldap_unbind_ext(ld, NULL, NULL);
}

/* ldap_result() on a connection whose server sent only a header declaring a 2 GB message
 * and then waits: -1 at once when the bound applies, 0 (still reading) when it does not. */
static int result_after_huge_header(bool limited)
{
    static const unsigned char header[] = { 0x30, 0x84, 0x7f, 0xff, 0xff, 0xff, 0x02, 0x01 };
    struct timeval tv = { 0, 0 };
    LDAPMessage *msg = NULL;
    LDAP *ld = NULL;
    int msgid;
    int sv[2];
    int rc;

    /* Non-blocking, as sssd_be's: else libldap blocks reading the body that never comes. */
    assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0, sv), 0);
    assert_int_equal(ldap_init_fd(sv[0], LDAP_PROTO_TCP, NULL, &ld), LDAP_SUCCESS);
    if (limited) {
        assert_int_equal(sdap_limit_incoming(ld), EOK);
    }
    assert_int_equal(ldap_search_ext(ld, "dc=x", LDAP_SCOPE_BASE, NULL, NULL, 0, NULL, NULL,
                                     NULL, 0, &msgid), LDAP_SUCCESS);
    assert_int_equal(write(sv[1], header, sizeof(header)), (ssize_t)sizeof(header));
    rc = ldap_result(ld, msgid, LDAP_MSG_ONE, &tv, &msg);
    ldap_msgfree(msg);
    ldap_unbind_ext(ld, NULL, NULL);
    close(sv[1]);
    return rc;
}

static void test_huge_message_refused(void **state)
{
    (void)state;
    assert_int_equal(result_after_huge_header(false), 0);
    assert_int_equal(result_after_huge_header(true), -1);
}

/* A search result entry (msgid 1) "cn=u" with objectSid and tokenGroups values, a
 * trustedDomain's securityIdentifier and a cn, written by a fake server, parsed with
 * sdap_entry_from_msg(). */
static void test_sid_attrs(void **state)
{
    static const char sid[] = {
        0x01, 0x05, 0x00, 0x00, 0x00, 0x00, 0x00, 0x05, 0x15, 0x00, 0x00, 0x00, 0xee, 0x2d,
        0xd7, 0x17, 0x0e, 0xd4, 0xed, 0x30, 0x6d, 0xe2, 0xd7, 0x24, 0x50, 0x04, 0x00, 0x00
    };
    static const char builtin[] = {
        0x01, 0x02, 0x00, 0x00, 0x00, 0x00, 0x00, 0x05, 0x20, 0x00, 0x00, 0x00, 0x20, 0x02,
        0x00, 0x00
    };
    static const char dom_sid[] = {
        0x01, 0x04, 0x00, 0x00, 0x00, 0x00, 0x00, 0x05, 0x15, 0x00, 0x00, 0x00, 0xee, 0x2d,
        0xd7, 0x17, 0x0e, 0xd4, 0xed, 0x30, 0x6d, 0xe2, 0xd7, 0x24
    };
    struct berval v_sid = { sizeof(sid), discard_const(sid) };
    struct berval v_dom = { sizeof(dom_sid), discard_const(dom_sid) };
    struct berval v_builtin = { sizeof(builtin), discard_const(builtin) };
    struct berval v_short = { 7, discard_const(sid) };      /* truncated: dropped */
    struct berval *tg[] = { &v_builtin, &v_short, &v_sid, NULL };
    struct timeval tv = { 1, 0 };
    const struct sdap_attr *a;
    struct sdap_entry *entry = NULL;
    LDAPMessage *msg = NULL;
    struct berval *bv = NULL;
    BerElement *ber;
    size_t dropped = 0;
    LDAP *ld = NULL;
    int msgid;
    int sv[2];

    (void)state;
    assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0, sv), 0);
    assert_int_equal(ldap_init_fd(sv[0], LDAP_PROTO_TCP, NULL, &ld), LDAP_SUCCESS);
    assert_int_equal(ldap_search_ext(ld, "cn=u", LDAP_SCOPE_BASE, NULL, NULL, 0, NULL, NULL,
                                     NULL, 0, &msgid), LDAP_SUCCESS);
    ber = ber_alloc_t(LBER_USE_DER);
    assert_non_null(ber);
    assert_true(ber_printf(ber, "{it{s{{s[O]}{s[V]}{s[O]}{s[s]}}}}", msgid, (ber_tag_t)0x64,
                           "cn=u", "objectSid", &v_sid, "tokenGroups", tg,
                           "securityIdentifier", &v_dom, "cn", "u") >= 0);
    assert_int_equal(ber_flatten(ber, &bv), 0);
    assert_int_equal(write(sv[1], bv->bv_val, bv->bv_len), (ssize_t)bv->bv_len);
    assert_int_equal(ldap_result(ld, msgid, LDAP_MSG_ONE, &tv, &msg), LDAP_RES_SEARCH_ENTRY);
    assert_int_equal(sdap_entry_from_msg(NULL, ld, msg, &entry, &dropped), EOK);
    assert_string_equal(sdap_entry_value(entry, "objectSid"),
                        "S-1-5-21-399977966-820892686-618127981-1104");
    a = sdap_entry_attr(entry, "tokenGroups");
    assert_non_null(a);
    assert_int_equal(a->num_values, 2);
    assert_string_equal(a->values[0], "S-1-5-32-544");
    assert_string_equal(a->values[1], "S-1-5-21-399977966-820892686-618127981-1104");
    assert_int_equal(dropped, 1);
    assert_string_equal(sdap_entry_value(entry, "securityIdentifier"),
                        "S-1-5-21-399977966-820892686-618127981");
    assert_string_equal(sdap_entry_value(entry, "cn"), "u");
    talloc_free(entry);
    ber_bvfree(bv);
    ber_free(ber, 1);
    ldap_msgfree(msg);
    ldap_unbind_ext(ld, NULL, NULL);
    close(sv[1]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_page_control_without_value),
        cmocka_unit_test(test_page_control_garbage_value),
        cmocka_unit_test(test_page_control_empty_value),
        cmocka_unit_test(test_page_control_cookie),
        cmocka_unit_test(test_huge_message_refused),
        cmocka_unit_test(test_sid_attrs),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
