/*
 * Unit tests of sdap_ppolicy: the request control; response controls built here with
 * ber_printf as the draft's PasswordPolicyResponseValue (SEQUENCE { warning [0] CHOICE {
 * timeBeforeExpiration [0] INTEGER, graceAuthNsRemaining [1] INTEGER } OPTIONAL,
 * error [1] ENUMERATED OPTIONAL }) and parsed with libldap; the PAM outcome of a bind and
 * the USER_INFO payloads; hostile values (garbage BER, numbers over 32 bits, negative
 * values, unknown errors, an empty value).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <security/pam_appl.h>
#include <stdlib.h>

#include "tests/unit/common/tc_common.h"
#include "util/util.h"
#include "sss_client/sss_cli.h"
#include "providers/ldap/sdap_ppolicy.h"

static LDAP *ld;

/* A response control holding value (copied). */
static LDAPControl *control(const void *value, size_t len)
{
    struct berval bv = { (ber_len_t)len, discard_const(value) };
    LDAPControl *c = NULL;

    assert_int_equal(ldap_control_create(LDAP_CONTROL_PASSWORDPOLICYRESPONSE, 0, &bv, 1, &c),
                     LDAP_SUCCESS);
    return c;
}

/* warn_tag: -1 none, 0 timeBeforeExpiration, 1 graceAuthNsRemaining; err < 0: none. */
static LDAPControl *response(int warn_tag, ber_int_t warn, int err)
{
    BerElement *ber = ber_alloc_t(LBER_USE_DER);
    struct berval *bv = NULL;
    LDAPControl *c;

    assert_non_null(ber);
    assert_true(ber_printf(ber, "{") >= 0);
    if (warn_tag >= 0) {
        assert_true(ber_printf(ber, "t{ti}", (ber_tag_t)0xA0,
                               (ber_tag_t)(0x80 | warn_tag), warn) >= 0);
    }
    if (err >= 0) {
        assert_true(ber_printf(ber, "te", (ber_tag_t)0x81, (ber_int_t)err) >= 0);
    }
    assert_true(ber_printf(ber, "N}") >= 0);
    assert_int_equal(ber_flatten(ber, &bv), 0);
    c = control(bv->bv_val, bv->bv_len);
    ber_bvfree(bv);
    ber_free(ber, 1);
    return c;
}

static errno_t parse_one(LDAPControl *c, struct sdap_ppolicy *pp)
{
    LDAPControl *ctrls[2] = { c, NULL };
    errno_t ret = sdap_ppolicy_parse(ld, ctrls, pp);

    ldap_control_free(c);
    return ret;
}

static int setup(void **state)
{
    struct tc_leaks *l = calloc(1, sizeof(*l));

    tc_leak_start(l);
    *state = l;
    return 0;
}

static int teardown(void **state)
{
    tc_leak_check(*state);
    free(*state);
    return 0;
}

static void test_request(void **state)
{
    LDAPControl *c = NULL;

    assert_int_equal(sdap_ppolicy_request_control(&c), EOK);
    assert_string_equal(c->ldctl_oid, "1.3.6.1.4.1.42.2.27.8.5.1");
    assert_int_equal(c->ldctl_iscritical, 0);
    assert_int_equal(c->ldctl_value.bv_len, 0);
    ldap_control_free(c);
}

static void test_parse(void **state)
{
    struct sdap_ppolicy pp;
    LDAPControl *other = NULL;
    LDAPControl *ctrls[2] = { NULL, NULL };

    /* Absent. */
    assert_int_equal(sdap_ppolicy_parse(ld, NULL, &pp), EOK);
    assert_false(pp.present);
    assert_int_equal(ldap_control_create("1.2.3.4", 0, NULL, 1, &other), LDAP_SUCCESS);
    ctrls[0] = other;
    assert_int_equal(sdap_ppolicy_parse(ld, ctrls, &pp), EOK);
    assert_false(pp.present);
    ldap_control_free(other);

    assert_int_equal(parse_one(response(0, 3600, -1), &pp), EOK);
    assert_true(pp.present);
    assert_int_equal(pp.expire, 3600);
    assert_int_equal(pp.grace, -1);
    assert_int_equal(pp.error, PP_noError);

    assert_int_equal(parse_one(response(1, 2, -1), &pp), EOK);
    assert_int_equal(pp.expire, -1);
    assert_int_equal(pp.grace, 2);

    assert_int_equal(parse_one(response(-1, 0, PP_changeAfterReset), &pp), EOK);
    assert_int_equal(pp.error, PP_changeAfterReset);
    assert_int_equal(parse_one(response(1, 0, PP_passwordExpired), &pp), EOK);
    assert_int_equal(pp.grace, 0);
    assert_int_equal(pp.error, PP_passwordExpired);
    assert_int_equal(parse_one(response(-1, 0, -1), &pp), EOK);   /* empty sequence */
    assert_true(pp.present);
    assert_int_equal(pp.error, PP_noError);
}

static void test_hostile(void **state)
{
    struct sdap_ppolicy pp;
    static const unsigned char garbage[] = { 0x30, 0x05, 0xff, 0xff, 0xff };
    /* SEQUENCE { [0] { [0] INTEGER of 9 bytes } } */
    static const unsigned char huge[] = { 0x30, 0x0d, 0xa0, 0x0b, 0x80, 0x09,
                                          0x01, 0, 0, 0, 0, 0, 0, 0, 0 };

    assert_int_equal(parse_one(control(garbage, sizeof(garbage)), &pp), EINVAL);
    assert_int_equal(parse_one(control(huge, sizeof(huge)), &pp), EINVAL);
    assert_int_equal(parse_one(control("", 0), &pp), EINVAL);
    assert_int_equal(parse_one(response(-1, 0, 99), &pp), EINVAL);
    assert_int_equal(parse_one(response(-1, 0, 65534), &pp), EINVAL);
    /* Negative numbers are no information. */
    assert_int_equal(parse_one(response(0, -5, -1), &pp), EOK);
    assert_int_equal(pp.expire, -1);
    assert_int_equal(parse_one(response(1, -1, -1), &pp), EOK);
    assert_int_equal(pp.grace, -1);
}

static void check_info(const struct sdap_ppolicy_verdict *v, uint32_t type, uint32_t value)
{
    uint32_t t;
    uint32_t val;

    assert_int_equal(v->info_len, 8);
    memcpy(&t, v->info, 4);
    memcpy(&val, v->info + 4, 4);
    assert_int_equal(t, type);
    assert_int_equal(val, value);
}

static void test_verdict(void **state)
{
    struct sdap_ppolicy pp = { .present = false, .expire = -1, .grace = -1,
                               .error = PP_noError };
    struct sdap_ppolicy_verdict v;

    assert_int_equal(sdap_ppolicy_bind_verdict(LDAP_SUCCESS, &pp, 0, &v), EOK);
    assert_int_equal(v.pam_status, PAM_SUCCESS);
    assert_int_equal(v.info_len, 0);
    assert_int_equal(sdap_ppolicy_bind_verdict(LDAP_INVALID_CREDENTIALS, &pp, 0, &v), EOK);
    assert_int_equal(v.pam_status, PAM_AUTH_ERR);
    assert_int_equal(sdap_ppolicy_bind_verdict(LDAP_SERVER_DOWN, &pp, 0, &v), EINVAL);

    pp.present = true;
    pp.expire = 7200;
    assert_int_equal(sdap_ppolicy_bind_verdict(LDAP_SUCCESS, &pp, 0, &v), EOK);
    assert_int_equal(v.pam_status, PAM_SUCCESS);
    check_info(&v, SSS_PAM_USER_INFO_EXPIRE_WARN, 7200);
    assert_int_equal(sdap_ppolicy_bind_verdict(LDAP_SUCCESS, &pp, 3600, &v), EOK);
    assert_int_equal(v.info_len, 0);     /* further than the warning time */
    assert_int_equal(sdap_ppolicy_bind_verdict(LDAP_SUCCESS, &pp, 7200, &v), EOK);
    check_info(&v, SSS_PAM_USER_INFO_EXPIRE_WARN, 7200);

    pp.grace = 0;
    assert_int_equal(sdap_ppolicy_bind_verdict(LDAP_SUCCESS, &pp, 0, &v), EOK);
    assert_int_equal(v.pam_status, PAM_SUCCESS);
    check_info(&v, SSS_PAM_USER_INFO_GRACE_LOGIN, 0);

    pp.error = PP_changeAfterReset;
    assert_int_equal(sdap_ppolicy_bind_verdict(LDAP_SUCCESS, &pp, 0, &v), EOK);
    assert_int_equal(v.pam_status, PAM_NEW_AUTHTOK_REQD);
    /* A wrong password stays wrong whatever the control says. */
    pp.error = PP_passwordExpired;
    assert_int_equal(sdap_ppolicy_bind_verdict(LDAP_INVALID_CREDENTIALS, &pp, 0, &v), EOK);
    assert_int_equal(v.pam_status, PAM_AUTH_ERR);
    assert_int_equal(v.info_len, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_request, setup, teardown),
        cmocka_unit_test_setup_teardown(test_parse, setup, teardown),
        cmocka_unit_test_setup_teardown(test_hostile, setup, teardown),
        cmocka_unit_test_setup_teardown(test_verdict, setup, teardown),
    };
    int failed;

    /* A handle that never connects: libldap keeps parse errors on it. */
    if (ldap_initialize(&ld, "ldap://127.0.0.1:9") != LDAP_SUCCESS) {
        return 1;
    }
    failed = cmocka_run_group_tests_name("sdap_ppolicy", tests, NULL, NULL);
    ldap_unbind_ext_s(ld, NULL, NULL);
    talloc_disable_null_tracking();     /* frees the tracking context (LeakSanitizer) */
    return failed;
}
