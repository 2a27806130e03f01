/*
 * Unit tests of sdap_access_rules: ldap_access_order parsing, each account expire policy
 * (shadow, ad, rhds/389ds, ipa, nds), lockout and ppolicy lock times, authorized_service /
 * host lists, the shadow and mit_kerberos password policies and their PAM mapping, and
 * hostile values (garbage times and numbers, huge numbers, empty values): an error or a
 * denial, never an allow. Leak checks on every test.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <security/pam_appl.h>
#include <stdlib.h>

#include "tests/unit/common/tc_common.h"
#include "util/util.h"
#include "providers/ldap/sdap_access_rules.h"

#define DAY 86400
/* 2023-11-14 22:13:20 UTC, a Tuesday: day 19675. */
#define NOW 1700000000
#define TODAY 19675

/* Up to 8 single-valued attributes from "name=value" strings. */
struct entry {
    struct sdap_rule_attr attrs[8];
    struct berval bv[8];
    struct berval *vals[8][2];
    size_t count;
};

static void entry_add_len(struct entry *e, const char *name, const char *value, size_t len)
{
    size_t i = e->count++;

    assert_true(i < 8);
    e->bv[i].bv_val = discard_const(value);
    e->bv[i].bv_len = len;
    e->vals[i][0] = &e->bv[i];
    e->vals[i][1] = NULL;
    e->attrs[i].name = name;
    e->attrs[i].values = e->vals[i];
}

static void entry_add(struct entry *e, const char *name, const char *value)
{
    entry_add_len(e, name, value, strlen(value));
}

static int teardown_leaks(void **state)
{
    tc_leak_check(*state);
    free(*state);
    return 0;
}

static int setup_leaks(void **state)
{
    struct tc_leaks *l = calloc(1, sizeof(*l));

    tc_leak_start(l);
    *state = l;
    return 0;
}

static int expire_status(enum sdap_expire_policy pol, struct entry *e, time_t now)
{
    struct sdap_access_verdict v;
    errno_t ret;

    ret = sdap_access_expire(pol, e->attrs, e->count, now, &v);
    return ret == EOK ? v.pam_status : -ret;
}

static void test_access_order(void **state)
{
    enum sdap_access_rule *r;
    size_t n;

    assert_int_equal(sdap_access_order_parse(NULL, NULL, &r, &n), EOK);
    assert_int_equal(n, 1);
    assert_int_equal(r[0], SDAP_ACCESS_FILTER);
    talloc_free(r);
    assert_int_equal(sdap_access_order_parse(NULL, " Expire, ppolicy ,filter,expire,"
                                             "pwd_expire_policy_renew,host,"
                                             "authorized_service,lockout", &r, &n), EOK);
    assert_int_equal(n, 7);
    assert_int_equal(r[0], SDAP_ACCESS_EXPIRE);
    assert_int_equal(r[1], SDAP_ACCESS_PPOLICY);
    assert_int_equal(r[2], SDAP_ACCESS_FILTER);
    assert_int_equal(r[3], SDAP_ACCESS_PWD_EXPIRE_RENEW);
    assert_int_equal(r[6], SDAP_ACCESS_LOCKOUT);
    talloc_free(r);
    r = NULL;
    assert_int_equal(sdap_access_order_parse(NULL, "filter,bogus", &r, &n), ERR_INVALID_CONFIG);
    assert_int_equal(sdap_access_order_parse(NULL, "filter,,expire", &r, &n),
                     ERR_INVALID_CONFIG);
    assert_int_equal(sdap_access_order_parse(NULL, "rhost", &r, &n), ERR_INVALID_CONFIG);
    assert_int_equal(sdap_access_order_parse(NULL, "filterx", &r, &n), ERR_INVALID_CONFIG);
    assert_null(r);
}

static void test_expire_shadow(void **state)
{
    struct entry e = { 0 };
    char buf[32];
    enum sdap_expire_policy pol;

    assert_int_equal(sdap_expire_policy_parse("Shadow", &pol), EOK);
    assert_int_equal(pol, SDAP_EXPIRE_SHADOW);
    assert_int_equal(sdap_expire_policy_parse("nis", &pol), ERR_INVALID_CONFIG);
    /* No attribute: allowed. */
    assert_int_equal(expire_status(pol, &e, NOW), PAM_SUCCESS);
    /* SSSD 2.8: expired once today > shadowExpire. */
    snprintf(buf, sizeof(buf), "%d", TODAY);
    entry_add(&e, "shadowExpire", buf);
    assert_int_equal(expire_status(pol, &e, NOW), PAM_SUCCESS);
    assert_int_equal(expire_status(pol, &e, NOW + DAY), PAM_ACCT_EXPIRED);
    e.bv[0].bv_val = "0";
    e.bv[0].bv_len = 1;
    assert_int_equal(expire_status(pol, &e, NOW), PAM_SUCCESS);   /* 0 = not set */
    e.bv[0].bv_val = "-1";
    e.bv[0].bv_len = 2;
    assert_int_equal(expire_status(pol, &e, NOW), PAM_SUCCESS);
    /* Hostile values: errors. */
    e.bv[0].bv_val = "12x";
    e.bv[0].bv_len = 3;
    assert_int_equal(expire_status(pol, &e, NOW), -EINVAL);
    e.bv[0].bv_val = "99999999999999999999999";
    e.bv[0].bv_len = strlen(e.bv[0].bv_val);
    assert_int_equal(expire_status(pol, &e, NOW), -EINVAL);
    e.bv[0].bv_len = 0;
    assert_int_equal(expire_status(pol, &e, NOW), -EINVAL);
    e.bv[0].bv_val = "1\0002";
    e.bv[0].bv_len = 3;
    assert_int_equal(expire_status(pol, &e, NOW), -EINVAL);
    /* No policy configured: "expire" denies. */
    assert_int_equal(expire_status(SDAP_EXPIRE_NONE, &e, NOW), PAM_PERM_DENIED);
}

static void test_expire_ad(void **state)
{
    struct entry e = { 0 };
    struct sdap_access_verdict v;
    /* FILETIME of NOW: (NOW + 11644473600) * 10^7 */
    const unsigned long long ft_now = (NOW + 11644473600ULL) * 10000000ULL;
    char past[32];
    char future[32];

    snprintf(past, sizeof(past), "%llu", ft_now - 1);
    snprintf(future, sizeof(future), "%llu", ft_now + 10000000ULL);
    entry_add(&e, "userAccountControl", "512");
    entry_add(&e, "accountExpires", "0");
    assert_int_equal(expire_status(SDAP_EXPIRE_AD, &e, NOW), PAM_SUCCESS);
    e.bv[1].bv_val = "9223372036854775807";
    e.bv[1].bv_len = strlen(e.bv[1].bv_val);
    assert_int_equal(expire_status(SDAP_EXPIRE_AD, &e, NOW), PAM_SUCCESS);
    e.bv[1].bv_val = future;
    e.bv[1].bv_len = strlen(future);
    assert_int_equal(expire_status(SDAP_EXPIRE_AD, &e, NOW), PAM_SUCCESS);
    e.bv[1].bv_val = past;
    e.bv[1].bv_len = strlen(past);
    assert_int_equal(sdap_access_expire(SDAP_EXPIRE_AD, e.attrs, e.count, NOW, &v), EOK);
    assert_int_equal(v.pam_status, PAM_ACCT_EXPIRED);
    assert_string_equal(v.system_info, "The user account is expired on the AD server");
    /* Disabled wins, and is a permission denial. */
    e.bv[0].bv_val = "514";
    e.bv[0].bv_len = 3;
    assert_int_equal(expire_status(SDAP_EXPIRE_AD, &e, NOW), PAM_PERM_DENIED);
    /* Hostile: beyond 2^63-1, negative, garbage. */
    e.bv[0].bv_val = "512";
    e.bv[1].bv_val = "18446744073709551615";
    e.bv[1].bv_len = strlen(e.bv[1].bv_val);
    assert_int_equal(expire_status(SDAP_EXPIRE_AD, &e, NOW), -EINVAL);
    e.bv[1].bv_val = "-1";
    e.bv[1].bv_len = 2;
    assert_int_equal(expire_status(SDAP_EXPIRE_AD, &e, NOW), -EINVAL);
    e.bv[1].bv_val = "0";
    e.bv[1].bv_len = 1;
    e.bv[0].bv_val = "disabled";
    e.bv[0].bv_len = 8;
    assert_int_equal(expire_status(SDAP_EXPIRE_AD, &e, NOW), -EINVAL);
}

static void test_expire_rhds_ipa_nds(void **state)
{
    struct entry e = { 0 };
    struct entry n = { 0 };
    unsigned char map[42];

    assert_int_equal(expire_status(SDAP_EXPIRE_RHDS, &e, NOW), PAM_SUCCESS);
    entry_add(&e, "nsAccountLock", "TRUE");
    assert_int_equal(expire_status(SDAP_EXPIRE_RHDS, &e, NOW), PAM_PERM_DENIED);
    assert_int_equal(expire_status(SDAP_EXPIRE_IPA, &e, NOW), PAM_PERM_DENIED);
    e.bv[0].bv_val = "false";
    e.bv[0].bv_len = 5;
    assert_int_equal(expire_status(SDAP_EXPIRE_RHDS, &e, NOW), PAM_SUCCESS);
    /* ipa also applies the AD attributes. */
    entry_add(&e, "accountExpires", "1");
    assert_int_equal(expire_status(SDAP_EXPIRE_RHDS, &e, NOW), PAM_SUCCESS);
    assert_int_equal(expire_status(SDAP_EXPIRE_IPA, &e, NOW), PAM_ACCT_EXPIRED);
    e.bv[0].bv_val = "maybe";
    assert_int_equal(expire_status(SDAP_EXPIRE_RHDS, &e, NOW), -EINVAL);

    /* nds */
    assert_int_equal(expire_status(SDAP_EXPIRE_NDS, &n, NOW), PAM_SUCCESS);
    entry_add(&n, "loginDisabled", "FALSE");
    entry_add(&n, "loginExpirationTime", "20231114221321Z");
    assert_int_equal(expire_status(SDAP_EXPIRE_NDS, &n, NOW), PAM_SUCCESS);
    assert_int_equal(expire_status(SDAP_EXPIRE_NDS, &n, NOW + 2), PAM_PERM_DENIED);
    n.bv[1].bv_val = "2023111422132Z";
    n.bv[1].bv_len = strlen(n.bv[1].bv_val);
    assert_int_equal(expire_status(SDAP_EXPIRE_NDS, &n, NOW), -EINVAL);
    n.bv[1].bv_val = "20231114221321.5Z";
    n.bv[1].bv_len = strlen(n.bv[1].bv_val);
    assert_int_equal(expire_status(SDAP_EXPIRE_NDS, &n, NOW), PAM_SUCCESS);
    /* Time map: Tuesday 22:13 UTC = half hour 2*48 + 44 = 140: byte 17, bit 4. */
    memset(map, 0, sizeof(map));
    entry_add_len(&n, "loginAllowedTimeMap", (const char *)map, sizeof(map));
    assert_int_equal(expire_status(SDAP_EXPIRE_NDS, &n, NOW), PAM_PERM_DENIED);
    map[17] = 1u << 4;
    assert_int_equal(expire_status(SDAP_EXPIRE_NDS, &n, NOW), PAM_SUCCESS);
    assert_int_equal(expire_status(SDAP_EXPIRE_NDS, &n, NOW + 1800), PAM_PERM_DENIED);
    n.bv[2].bv_len = 41;   /* wrong size: denied */
    assert_int_equal(expire_status(SDAP_EXPIRE_NDS, &n, NOW), PAM_PERM_DENIED);
    n.bv[0].bv_val = "TRUE";
    n.bv[0].bv_len = 4;
    assert_int_equal(expire_status(SDAP_EXPIRE_NDS, &n, NOW), PAM_PERM_DENIED);
}

static int lock_status(bool ppolicy, struct entry *e, const char *duration, time_t now)
{
    struct sdap_access_verdict v;
    errno_t ret;

    ret = sdap_access_lockout(ppolicy, e->attrs, e->count, duration, now, &v);
    return ret == EOK ? v.pam_status : -ret;
}

static void test_lockout(void **state)
{
    struct entry e = { 0 };

    assert_int_equal(lock_status(true, &e, NULL, NOW), PAM_SUCCESS);
    entry_add(&e, "pwdAccountLockedTime", "000001010000Z");
    assert_int_equal(lock_status(true, &e, "300", NOW), PAM_PERM_DENIED);
    assert_int_equal(lock_status(false, &e, NULL, NOW), PAM_PERM_DENIED);
    /* Locked at NOW - 100. */
    e.bv[0].bv_val = "20231114221140Z";
    e.bv[0].bv_len = strlen(e.bv[0].bv_val);
    assert_int_equal(lock_status(false, &e, NULL, NOW), PAM_SUCCESS);   /* lockout: ignored */
    assert_int_equal(lock_status(true, &e, NULL, NOW), PAM_PERM_DENIED); /* duration unknown */
    assert_int_equal(lock_status(true, &e, "0", NOW), PAM_PERM_DENIED);  /* until unlocked */
    assert_int_equal(lock_status(true, &e, "300", NOW), PAM_PERM_DENIED);
    assert_int_equal(lock_status(true, &e, "60", NOW), PAM_SUCCESS);     /* over */
    assert_int_equal(lock_status(true, &e, "300", NOW - 200), PAM_SUCCESS); /* future */
    /* Hostile. */
    assert_int_equal(lock_status(true, &e, "-5", NOW), -EINVAL);
    assert_int_equal(lock_status(true, &e, "99999999999", NOW), -EINVAL);
    assert_int_equal(lock_status(true, &e, "", NOW), -EINVAL);
    e.bv[0].bv_val = "yesterday";
    e.bv[0].bv_len = 9;
    assert_int_equal(lock_status(true, &e, "60", NOW), -EINVAL);
    e.bv[0].bv_val = "20231399221140Z";
    assert_int_equal(lock_status(true, &e, "60", NOW), -EINVAL);
    e.bv[0].bv_len = 0;
    assert_int_equal(lock_status(true, &e, "60", NOW), -EINVAL);
}

static void test_match_list(void **state)
{
    struct entry e = { 0 };
    struct berval b[3] = { { 4, "sshd" }, { 4, "!su2" }, { 1, "*" } };
    struct berval *vals[4] = { &b[0], &b[1], NULL, NULL };
    struct sdap_access_verdict v;

    assert_int_equal(sdap_access_match_list("authorizedService", e.attrs, 0, "sshd", &v), EOK);
    assert_int_equal(v.pam_status, PAM_PERM_DENIED);   /* no attribute: denied */
    e.attrs[0].name = "authorizedService";
    e.attrs[0].values = vals;
    e.count = 1;
    assert_int_equal(sdap_access_match_list("authorizedservice", e.attrs, 1, "SSHD", &v), EOK);
    assert_int_equal(v.pam_status, PAM_SUCCESS);
    assert_int_equal(sdap_access_match_list("authorizedService", e.attrs, 1, "login", &v), EOK);
    assert_int_equal(v.pam_status, PAM_PERM_DENIED);
    vals[2] = &b[2];
    assert_int_equal(sdap_access_match_list("authorizedService", e.attrs, 1, "login", &v), EOK);
    assert_int_equal(v.pam_status, PAM_SUCCESS);
    assert_int_equal(sdap_access_match_list("authorizedService", e.attrs, 1, "su2", &v), EOK);
    assert_int_equal(v.pam_status, PAM_PERM_DENIED);   /* explicit denial beats "*" */
    assert_int_equal(sdap_access_match_list("authorizedService", e.attrs, 1, "su", &v), EOK);
    assert_int_equal(v.pam_status, PAM_SUCCESS);
}

static enum sdap_pwexpire_state pw_state(enum sdap_pwd_policy pol, struct entry *e, time_t now,
                                         int64_t *left)
{
    struct sdap_pwexpire r;

    assert_int_equal(sdap_pwexpire_check(pol, e->attrs, e->count, now, -1, &r), EOK);
    *left = r.seconds_left;
    return r.state;
}

static void test_pwd_shadow(void **state)
{
    struct entry e = { 0 };
    struct sdap_pwexpire r;
    struct sdap_access_verdict v;
    enum sdap_pwd_policy pol;
    char last[16];
    int64_t left;

    assert_int_equal(sdap_pwd_policy_parse("SHADOW", &pol), EOK);
    assert_int_equal(sdap_pwd_policy_parse("ppolicy", &pol), ERR_INVALID_CONFIG);
    pol = SDAP_PWD_POLICY_SHADOW;
    /* No shadowLastChange: no policy, even with other attributes. */
    entry_add(&e, "shadowMax", "10");
    assert_int_equal(pw_state(pol, &e, NOW, &left), SDAP_PWEXPIRE_OK);
    /* Changed 5 days ago, max 10, warning 7: warn with 5 days left. */
    snprintf(last, sizeof(last), "%d", TODAY - 5);
    entry_add(&e, "shadowLastChange", last);
    entry_add(&e, "shadowWarning", "7");
    assert_int_equal(pw_state(pol, &e, NOW, &left), SDAP_PWEXPIRE_WARN);
    assert_int_equal(left, 5 * DAY);
    /* Warning 3: nothing yet. */
    e.bv[2].bv_val = "3";
    assert_int_equal(pw_state(pol, &e, NOW, &left), SDAP_PWEXPIRE_OK);
    /* Age 10 = max: 0 days left = the seconds until midnight. */
    assert_int_equal(pw_state(pol, &e, NOW + 5 * DAY, &left), SDAP_PWEXPIRE_WARN);
    assert_int_equal(left, (TODAY + 6) * (int64_t)DAY - (NOW + 5 * DAY));
    /* Age 11 > max: expired; with inactive 2, account expired from age 13. */
    assert_int_equal(pw_state(pol, &e, NOW + 6 * DAY, &left), SDAP_PWEXPIRE_EXPIRED);
    entry_add(&e, "shadowInactive", "2");
    assert_int_equal(pw_state(pol, &e, NOW + 7 * DAY, &left), SDAP_PWEXPIRE_EXPIRED);
    assert_int_equal(pw_state(pol, &e, NOW + 8 * DAY, &left), SDAP_PWEXPIRE_ACCOUNT_EXPIRED);
    /* shadowLastChange 0: must change now. */
    e.bv[1].bv_val = "0";
    e.bv[1].bv_len = 1;
    assert_int_equal(pw_state(pol, &e, NOW, &left), SDAP_PWEXPIRE_EXPIRED);
    /* In the future: ignored. */
    snprintf(last, sizeof(last), "%d", TODAY + 30);
    e.bv[1].bv_val = last;
    e.bv[1].bv_len = strlen(last);
    assert_int_equal(pw_state(pol, &e, NOW, &left), SDAP_PWEXPIRE_OK);
    /* shadowExpire passed: account expired. */
    snprintf(last, sizeof(last), "%d", TODAY - 1);
    entry_add(&e, "shadowExpire", "19000");
    assert_int_equal(pw_state(pol, &e, NOW, &left), SDAP_PWEXPIRE_ACCOUNT_EXPIRED);
    /* Hostile numbers are errors. */
    e.bv[4].bv_val = "-7";
    e.bv[4].bv_len = 2;
    assert_int_equal(sdap_pwexpire_check(pol, e.attrs, e.count, NOW, -1, &r), EINVAL);
    e.bv[4].bv_val = "1e5";
    e.bv[4].bv_len = 3;
    assert_int_equal(sdap_pwexpire_check(pol, e.attrs, e.count, NOW, -1, &r), EINVAL);

    /* Mapping. */
    r = (struct sdap_pwexpire){ SDAP_PWEXPIRE_EXPIRED, 0 };
    sdap_pwexpire_verdict(&r, SDAP_PWEXPIRE_FOR_AUTH, &v);
    assert_int_equal(v.pam_status, PAM_NEW_AUTHTOK_REQD);
    sdap_pwexpire_verdict(&r, SDAP_PWEXPIRE_FOR_REJECT, &v);
    assert_int_equal(v.pam_status, PAM_PERM_DENIED);
    sdap_pwexpire_verdict(&r, SDAP_PWEXPIRE_FOR_WARN, &v);
    assert_int_equal(v.pam_status, PAM_SUCCESS);
    sdap_pwexpire_verdict(&r, SDAP_PWEXPIRE_FOR_RENEW, &v);
    assert_int_equal(v.pam_status, PAM_NEW_AUTHTOK_REQD);
    r.state = SDAP_PWEXPIRE_ACCOUNT_EXPIRED;
    sdap_pwexpire_verdict(&r, SDAP_PWEXPIRE_FOR_WARN, &v);
    assert_int_equal(v.pam_status, PAM_ACCT_EXPIRED);
    r = (struct sdap_pwexpire){ SDAP_PWEXPIRE_WARN, 3600 };
    sdap_pwexpire_verdict(&r, SDAP_PWEXPIRE_FOR_AUTH, &v);
    assert_int_equal(v.pam_status, PAM_SUCCESS);
    assert_int_equal(v.expire_warn, 3600);
}

static void test_pwd_krb(void **state)
{
    struct entry e = { 0 };
    struct sdap_pwexpire r;
    int64_t left;
    const enum sdap_pwd_policy pol = SDAP_PWD_POLICY_MIT_KERBEROS;

    entry_add(&e, "krbPasswordExpiration", "20231115221320Z");   /* NOW + 1 day */
    assert_int_equal(pw_state(pol, &e, NOW, &left), SDAP_PWEXPIRE_OK);  /* no last change */
    entry_add(&e, "krbLastPwdChange", "20231001000000Z");
    assert_int_equal(pw_state(pol, &e, NOW, &left), SDAP_PWEXPIRE_WARN);  /* within 7 days */
    assert_int_equal(left, DAY);
    assert_int_equal(sdap_pwexpire_check(pol, e.attrs, e.count, NOW, 3600, &r), EOK);
    assert_int_equal(r.state, SDAP_PWEXPIRE_OK);
    assert_int_equal(pw_state(pol, &e, NOW + DAY + 1, &left), SDAP_PWEXPIRE_EXPIRED);
    e.bv[0].bv_val = "garbage";
    e.bv[0].bv_len = 7;
    assert_int_equal(sdap_pwexpire_check(pol, e.attrs, e.count, NOW, -1, &r), EINVAL);
}

static void test_generalized_time(void **state)
{
    time_t t;

    assert_int_equal(sdap_generalized_time("19700101000000Z", 15, &t), EOK);
    assert_int_equal(t, 0);
    assert_int_equal(sdap_generalized_time("20231114221320Z", 15, &t), EOK);
    assert_int_equal(t, NOW);
    assert_int_equal(sdap_generalized_time("20240229000000Z", 15, &t), EOK);
    assert_int_equal(sdap_generalized_time("20230229000000Z", 15, &t), EINVAL);
    assert_int_equal(sdap_generalized_time("20231114221320", 14, &t), EINVAL);
    assert_int_equal(sdap_generalized_time("20231114221320+0100", 19, &t), EINVAL);
    assert_int_equal(sdap_generalized_time("20231114221320.Z", 16, &t), EINVAL);
    assert_int_equal(sdap_generalized_time("20231114221320ZZ", 16, &t), EINVAL);
    assert_int_equal(sdap_generalized_time("2023111422132aZ", 15, &t), EINVAL);
    assert_int_equal(sdap_generalized_time("00000101000000Z", 15, &t), EINVAL);
    assert_int_equal(sdap_generalized_time("", 0, &t), EINVAL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_access_order, setup_leaks, teardown_leaks),
        cmocka_unit_test_setup_teardown(test_expire_shadow, setup_leaks, teardown_leaks),
        cmocka_unit_test_setup_teardown(test_expire_ad, setup_leaks, teardown_leaks),
        cmocka_unit_test_setup_teardown(test_expire_rhds_ipa_nds, setup_leaks, teardown_leaks),
        cmocka_unit_test_setup_teardown(test_lockout, setup_leaks, teardown_leaks),
        cmocka_unit_test_setup_teardown(test_match_list, setup_leaks, teardown_leaks),
        cmocka_unit_test_setup_teardown(test_pwd_shadow, setup_leaks, teardown_leaks),
        cmocka_unit_test_setup_teardown(test_pwd_krb, setup_leaks, teardown_leaks),
        cmocka_unit_test_setup_teardown(test_generalized_time, setup_leaks, teardown_leaks),
    };
    int failed;

    failed = cmocka_run_group_tests_name("sdap_access_rules", tests, NULL, NULL);
    talloc_disable_null_tracking();     /* frees the tracking context (LeakSanitizer) */
    return failed;
}
