/* Unit tests of the Kerberos provider's pure parts: ccache name templates, lifetimes,
 * and krb5_child's message codec (round trips, and every truncation and corruption of a
 * valid message refused without a crash). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "providers/krb5/krb5_common.h"

static const struct krb5_ccname_vars vars = {
    .user = "alice", .uid = 10001, .principal = "alice@EXAMPLE.TEST",
    .realm = "EXAMPLE.TEST", .home = "/home/alice", .ccachedir = "/run/cc", .pid = 4242,
};

static void expect_name(const char *tmpl, const char *want)
{
    char *name = NULL;

    assert_int_equal(krb5_ccname_expand(NULL, tmpl, &vars, &name), EOK);
    assert_string_equal(name, want);
    talloc_free(name);
}

static void expect_refused(const char *tmpl, const struct krb5_ccname_vars *v)
{
    char *name = NULL;

    assert_int_equal(krb5_ccname_expand(NULL, tmpl, v, &name), EINVAL);
    assert_null(name);
}

static void test_ccname_expand(void **state)
{
    struct krb5_ccname_vars nohome = vars;

    (void)state;
    expect_name("FILE:%d/krb5cc_%U_XXXXXX", "FILE:/run/cc/krb5cc_10001_XXXXXX");
    expect_name("DIR:/run/user/%U/krb5cc", "DIR:/run/user/10001/krb5cc");
    expect_name("FILE:%h/.cc_%u_%r_%p_%P_%%", "FILE:/home/alice/.cc_alice_EXAMPLE.TEST_"
                "alice@EXAMPLE.TEST_4242_%");
    expect_name("KEYRING:persistent:%U", "KEYRING:persistent:10001");
    expect_name("", "");
    expect_refused("FILE:/tmp/%x", &vars);
    expect_refused("FILE:/tmp/cc%", &vars);
    nohome.home = NULL;
    nohome.ccachedir = NULL;
    nohome.pid = 0;
    expect_refused("FILE:%h/cc", &nohome);
    expect_refused("FILE:%d/cc", &nohome);
    expect_refused("FILE:/tmp/%P", &nohome);
}

static void test_ccname_too_long(void **state)
{
    char tmpl[5000];
    char *name = NULL;

    (void)state;
    memset(tmpl, 'a', sizeof(tmpl) - 1);
    tmpl[sizeof(tmpl) - 1] = '\0';
    assert_int_equal(krb5_ccname_expand(NULL, tmpl, &vars, &name), E2BIG);
}

static void test_lifetime(void **state)
{
    int s = -1;

    (void)state;
    assert_int_equal(krb5_parse_lifetime("3600", &s), EOK);
    assert_int_equal(s, 3600);
    assert_int_equal(krb5_parse_lifetime("1d2h3m4s", &s), EOK);
    assert_int_equal(s, 86400 + 7200 + 180 + 4);
    assert_int_equal(krb5_parse_lifetime("90m", &s), EOK);
    assert_int_equal(s, 5400);
    assert_int_equal(krb5_parse_lifetime("", &s), EINVAL);
    assert_int_equal(krb5_parse_lifetime("1d5", &s), EINVAL);
    assert_int_equal(krb5_parse_lifetime("-5", &s), EINVAL);
    assert_int_equal(krb5_parse_lifetime("5x", &s), EINVAL);
    assert_int_equal(krb5_parse_lifetime("99999999999", &s), EINVAL);
    assert_int_equal(krb5_parse_lifetime("30000d", &s), EINVAL);
}

static void test_req_roundtrip(void **state)
{
    struct krb5_child_req in = {
        .cmd = KRB5_CHILD_CHPASS, .flags = KRB5_CHILD_F_VALIDATE | KRB5_CHILD_F_ENTERPRISE,
        .uid = 10001, .gid = 10002, .lifetime = 600, .renewable_lifetime = 3600,
        .principal = "alice@EXAMPLE.TEST", .ccname = "FILE:/tmp/x", .keytab = "",
        .password = "old", .new_password = "new", .realm = "EXAMPLE.TEST",
        .service = "ldap/srv.example.test",
    };
    struct krb5_child_req *out = NULL;
    uint8_t *buf = NULL;
    size_t len = 0;
    size_t cut;

    (void)state;
    assert_int_equal(krb5_child_req_encode(NULL, &in, &buf, &len), EOK);
    assert_int_equal(krb5_child_req_decode(NULL, buf, len, &out), EOK);
    assert_int_equal(out->cmd, in.cmd);
    assert_int_equal(out->flags, in.flags);
    assert_int_equal(out->uid, 10001);
    assert_int_equal(out->gid, 10002);
    assert_int_equal(out->lifetime, 600);
    assert_int_equal(out->renewable_lifetime, 3600);
    assert_string_equal(out->principal, in.principal);
    assert_string_equal(out->ccname, in.ccname);
    assert_string_equal(out->keytab, "");
    assert_string_equal(out->password, "old");
    assert_string_equal(out->new_password, "new");
    assert_string_equal(out->realm, in.realm);
    assert_string_equal(out->service, in.service);
    talloc_free(out);
    for (cut = 0; cut < len; cut++) {
        out = NULL;
        assert_int_equal(krb5_child_req_decode(NULL, buf, cut, &out), EBADMSG);
        assert_null(out);
    }
    /* A NUL inside a string, a bad command, unknown flags. */
    buf[len - 1] = '\0';
    assert_int_equal(krb5_child_req_decode(NULL, buf, len, &out), EBADMSG);
    talloc_free(buf);
    in.cmd = 99;
    assert_int_equal(krb5_child_req_encode(NULL, &in, &buf, &len), EINVAL);
    in.cmd = KRB5_CHILD_AUTH;
    in.flags = 0x100;
    assert_int_equal(krb5_child_req_encode(NULL, &in, &buf, &len), EINVAL);
    in.flags = 0;
    in.keytab = NULL;
    assert_int_equal(krb5_child_req_encode(NULL, &in, &buf, &len), EINVAL);
}

static void test_rsp_roundtrip(void **state)
{
    struct krb5_child_rsp in = {
        .status = KRB5_CHILD_CHPASS_REJECTED, .endtime = 1700000000, .renew_till = -1,
        .ccname = "DIR:/run/user/1/cc", .message = "Password is too short",
    };
    struct krb5_child_rsp *out = NULL;
    uint8_t *buf = NULL;
    uint8_t *big;
    size_t len = 0;
    uint32_t huge = 0xFFFFFFF0u;

    (void)state;
    assert_int_equal(krb5_child_rsp_encode(NULL, &in, &buf, &len), EOK);
    assert_int_equal(krb5_child_rsp_decode(NULL, buf, len, &out), EOK);
    assert_int_equal(out->status, in.status);
    assert_int_equal(out->endtime, in.endtime);
    assert_int_equal(out->renew_till, -1);
    assert_string_equal(out->ccname, in.ccname);
    assert_string_equal(out->message, in.message);
    talloc_free(out);
    /* A string length far past the end; trailing bytes; a bad status. */
    memcpy(buf + 24, &huge, sizeof(huge));
    assert_int_equal(krb5_child_rsp_decode(NULL, buf, len, &out), EBADMSG);
    talloc_free(buf);
    assert_int_equal(krb5_child_rsp_encode(NULL, &in, &buf, &len), EOK);
    big = talloc_zero_array(NULL, uint8_t, len + 1);
    memcpy(big, buf, len);
    assert_int_equal(krb5_child_rsp_decode(NULL, big, len + 1, &out), EBADMSG);
    assert_int_equal(krb5_child_rsp_decode(NULL, big, KRB5_CHILD_MSG_MAX + 1, &out), E2BIG);
    talloc_free(big);
    huge = 77;
    memcpy(buf + 4, &huge, sizeof(huge));
    assert_int_equal(krb5_child_rsp_decode(NULL, buf, len, &out), EBADMSG);
    talloc_free(buf);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ccname_expand),
        cmocka_unit_test(test_ccname_too_long),
        cmocka_unit_test(test_lifetime),
        cmocka_unit_test(test_req_roundtrip),
        cmocka_unit_test(test_rsp_roundtrip),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
