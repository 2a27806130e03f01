/* pam_sss's flows through the real libpam (fixtures: test_pam_harness.h): authentication
 * with right, wrong and empty passwords, unknown users and root, no server and a silent
 * one, _SSS_LOOPS, the options (retry=, domains=, forward_pass, use_first_pass,
 * prompt_always, ignore_unknown_user, ignore_authinfo_unavail), SSS_OTP, the preauth round,
 * account/session/setcred requests and statuses, the expired-password hand-over from auth to
 * account, every USER_INFO text, TEXT_MSG and the environment items, and malformed or
 * failing replies (never PAM_SUCCESS, nothing shown). */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>
#include <security/pam_appl.h>
#include <security/pam_modules.h>

#include "sss_client/sss_cli.h"
#include "test_pam_harness.h"

/* ---- authentication ---- */

static void test_auth_success(void **state)
{
    struct conv_data cd;
    struct pts_req r;

    service_all("plain", "");
    conv_init(&cd, 1, "secret");
    assert_int_equal(one("plain", "alice", &cd, pam_authenticate, 0), PAM_SUCCESS);
    assert_string_equal(cd.shown, "P:Password: \n");
    assert_int_equal(pts_count(), 1);
    r = last_req();
    assert_true(r.valid);
    assert_int_equal(r.cmd, SSS_PAM_AUTHENTICATE);
    assert_true(r.priv);                /* root uses the private socket */
    assert_string_equal(r.user, "alice");
    assert_string_equal(r.service, "plain");
    assert_int_equal(r.cli_pid, getpid());
    assert_true(r.has_authtok);
    assert_int_equal(r.authtok_type, SSS_AUTHTOK_TYPE_PASSWORD);
    assert_string_equal(r.authtok, "secret");
    assert_false(r.has_newauthtok);
    assert_int_equal(r.flags, 0);
    assert_false(r.has_domains);
}

static void test_auth_wrong_and_empty(void **state)
{
    struct conv_data cd;

    service_all("plain", "");
    conv_init(&cd, 1, "Secret");
    assert_int_equal(one("plain", "alice", &cd, pam_authenticate, 0), PAM_AUTH_ERR);
    conv_init(&cd, 1, "");
    assert_int_equal(one("plain", "alice", &cd, pam_authenticate, 0), PAM_AUTH_ERR);
    /* The empty password went to the server as such, never as a success shortcut. */
    assert_true(last_req().has_authtok);
    assert_int_equal(last_req().authtok_type, SSS_AUTHTOK_TYPE_PASSWORD);
    assert_int_equal(last_req().authtok_len, 0);
}

static void test_auth_unknown_and_root(void **state)
{
    const char *ignore[] = { "ignore_unknown_user" };
    struct conv_data cd;

    service_all("plain", "");
    conv_init(&cd, 1, "x");
    assert_int_equal(one("plain", "nobody", &cd, pam_authenticate, 0), PAM_USER_UNKNOWN);
    conv_init(&cd, 1, "x");
    assert_int_equal(direct(t.authenticate, "nobody", &cd, 1, ignore), PAM_IGNORE);
    /* root is never sssd's: refused without asking anything or anyone */
    pts_clear();
    conv_init(&cd, 1, "x");
    assert_int_equal(one("plain", "root", &cd, pam_authenticate, 0), PAM_USER_UNKNOWN);
    assert_int_equal(direct(t.authenticate, "root", &cd, 1, ignore), PAM_IGNORE);
    assert_int_equal(pts_count(), 0);
    assert_string_equal(cd.shown, "");
}

static void test_auth_no_server(void **state)
{
    const char *ignore[] = { "ignore_authinfo_unavail" };
    char empty[96];
    struct conv_data cd;

    snprintf(empty, sizeof(empty), "%s/nothing-here", t.confdir);
    t.set_socket_dir(empty);
    service_all("plain", "");
    conv_init(&cd, 2, "secret", "secret");
    assert_int_equal(one("plain", "alice", &cd, pam_authenticate, 0), PAM_AUTHINFO_UNAVAIL);
    assert_int_equal(direct(t.authenticate, "alice", &cd, 1, ignore), PAM_IGNORE);
    conv_init(&cd, 0);
    assert_int_equal(one("plain", "alice", &cd, pam_acct_mgmt, 0), PAM_AUTHINFO_UNAVAIL);
}

static void test_auth_silent_server(void **state)
{
    struct conv_data cd;

    canned.action = PTS_SILENT;
    use_canned(SSS_PAM_AUTHENTICATE);
    t.set_timeout_ms(300);
    service_all("plain", "");
    conv_init(&cd, 1, "secret");
    assert_int_equal(one("plain", "alice", &cd, pam_authenticate, 0), PAM_AUTHINFO_UNAVAIL);
}

static void test_loops_guard(void **state)
{
    struct conv_data cd;

    setenv("_SSS_LOOPS", "NO", 1);
    service_all("plain", "");
    conv_init(&cd, 1, "secret");
    assert_int_equal(one("plain", "alice", &cd, pam_authenticate, 0), PAM_AUTHINFO_UNAVAIL);
    assert_int_equal(pts_count(), 0);
}

static void test_retry(void **state)
{
    struct conv_data cd;
    int i;

    service_all("retry", "retry=2");
    conv_init(&cd, 3, "a", "b", "secret");
    assert_int_equal(one("retry", "alice", &cd, pam_authenticate, 0), PAM_SUCCESS);
    assert_string_equal(cd.shown, "P:Password: \nP:Password: \nP:Password: \n");
    assert_int_equal(pts_count(), 3);
    conv_init(&cd, 3, "a", "b", "c");
    assert_int_equal(one("retry", "alice", &cd, pam_authenticate, 0), PAM_AUTH_ERR);
    /* Bad values mean no retry. */
    for (i = 0; i < 3; i++) {
        const char *bad[] = { "retry=-1", "retry=2x", "retry=" };
        char opts[32];

        snprintf(opts, sizeof(opts), "%s", bad[i]);
        service_all("badretry", opts);
        conv_init(&cd, 2, "a", "secret");
        assert_int_equal(one("badretry", "alice", &cd, pam_authenticate, 0), PAM_AUTH_ERR);
        assert_int_equal(cd.next, 1);
    }
}

static void test_domains(void **state)
{
    struct conv_data cd;

    service_all("dom", "domains=ldap1,ldap2");
    conv_init(&cd, 1, "secret");
    assert_int_equal(one("dom", "alice", &cd, pam_authenticate, 0), PAM_SUCCESS);
    assert_true(last_req().has_domains);
    assert_string_equal(last_req().domains, "ldap1,ldap2");
    /* An empty domains= fails closed, before asking anything. */
    pts_clear();
    service_all("dom", "domains=");
    conv_init(&cd, 1, "secret");
    assert_int_equal(one("dom", "alice", &cd, pam_authenticate, 0), PAM_SYSTEM_ERR);
    assert_int_equal(pts_count(), 0);
    assert_string_equal(cd.shown, "");
}

/* forward_pass puts the password on the stack for the next module: one prompt, two
 * requests with the same password; use_first_pass takes it from there. */
static void test_forward_and_first_pass(void **state)
{
    struct conv_data cd;

    service("stack", "auth optional forward_pass", "auth required use_first_pass",
            (const char *)NULL);
    conv_init(&cd, 1, "secret");
    assert_int_equal(one("stack", "alice", &cd, pam_authenticate, 0), PAM_SUCCESS);
    assert_string_equal(cd.shown, "P:Password: \n");
    assert_int_equal(pts_count(), 2);
    assert_string_equal(req_at(0).authtok, "secret");
    assert_int_equal(req_at(0).flags, SSS_PAM_CLI_FLAGS_FORWARD_PASS);
    assert_string_equal(req_at(1).authtok, "secret");
    assert_int_equal(req_at(1).flags, SSS_PAM_CLI_FLAGS_USE_FIRST_PASS);

    /* Without forward_pass nothing is on the stack: use_first_pass sends an empty
     * password (as SSSD does) and fails. */
    pts_clear();
    service("stack2", "auth optional", "auth required use_first_pass", (const char *)NULL);
    conv_init(&cd, 1, "secret");
    assert_int_equal(one("stack2", "alice", &cd, pam_authenticate, 0), PAM_AUTH_ERR);
    assert_int_equal(pts_count(), 2);
    assert_int_equal(req_at(1).authtok_len, 0);

    /* A password already on the stack is used without use_first_pass too, unless
     * prompt_always. */
    pts_clear();
    service("stack3", "auth optional forward_pass", "auth required prompt_always",
            (const char *)NULL);
    conv_init(&cd, 2, "secret", "secret");
    assert_int_equal(one("stack3", "alice", &cd, pam_authenticate, 0), PAM_SUCCESS);
    assert_int_equal(cd.next, 2);
    assert_int_equal(req_at(1).flags, SSS_PAM_CLI_FLAGS_PROMPT_ALWAYS);
}

/* The server says the token was a one-time password: it is not handed on. */
static void test_otp_not_forwarded(void **state)
{
    struct conv_data cd;

    pts_status(&canned, PAM_SUCCESS);
    pts_item(&canned, SSS_OTP, NULL, 0);
    use_canned(SSS_PAM_AUTHENTICATE);
    service("otp", "auth optional forward_pass", "auth optional use_first_pass",
            (const char *)NULL);
    conv_init(&cd, 1, "123456");
    one("otp", "alice", &cd, pam_authenticate, 0);
    assert_int_equal(pts_count(), 2);
    assert_string_equal(req_at(0).authtok, "123456");
    assert_int_equal(req_at(1).authtok_len, 0);
}

static void test_preauth(void **state)
{
    struct conv_data cd;
    int fd;

    fd = open(t.indicator, O_CREAT | O_WRONLY, 0644);
    assert_true(fd >= 0);
    close(fd);
    service_all("plain", "");
    conv_init(&cd, 1, "secret");
    assert_int_equal(one("plain", "alice", &cd, pam_authenticate, 0), PAM_SUCCESS);
    assert_int_equal(pts_count(), 2);
    assert_int_equal(req_at(0).cmd, SSS_PAM_PREAUTH);
    assert_false(req_at(0).has_authtok);
    assert_int_equal(req_at(1).cmd, SSS_PAM_AUTHENTICATE);
}

/* ---- account, session, credentials ---- */

static void test_other_operations(void **state)
{
    static const struct { int (*op)(pam_handle_t *, int); uint32_t cmd; } ops[] = {
        { pam_acct_mgmt, SSS_PAM_ACCT_MGMT },
        { pam_open_session, SSS_PAM_OPEN_SESSION },
        { pam_close_session, SSS_PAM_CLOSE_SESSION },
        { pam_setcred, SSS_PAM_SETCRED },
    };
    struct conv_data cd;
    size_t i;

    service_all("plain", "");
    for (i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
        pts_clear();
        conv_init(&cd, 0);
        assert_int_equal(one("plain", "bob", &cd, ops[i].op, 0), PAM_SUCCESS);
        assert_int_equal(pts_count(), 1);
        assert_int_equal(last_req().cmd, ops[i].cmd);
        assert_false(last_req().has_authtok);
        assert_string_equal(cd.shown, "");
        conv_init(&cd, 0);
        assert_int_equal(one("plain", "nobody", &cd, ops[i].op, 0), PAM_USER_UNKNOWN);
    }
}

static void test_account_statuses(void **state)
{
    static const int statuses[] = {
        PAM_PERM_DENIED, PAM_ACCT_EXPIRED, PAM_NEW_AUTHTOK_REQD, PAM_SYSTEM_ERR,
    };
    struct conv_data cd;
    size_t i;

    service_all("plain", "");
    for (i = 0; i < sizeof(statuses) / sizeof(statuses[0]); i++) {
        pts_status(&canned, statuses[i]);
        use_canned(SSS_PAM_ACCT_MGMT);
        conv_init(&cd, 0);
        assert_int_equal(one("plain", "bob", &cd, pam_acct_mgmt, 0), statuses[i]);
    }
}

/* Auth answered PAM_NEW_AUTHTOK_REQD: auth succeeds, account asks for a new password. */
static void test_expired_password_handover(void **state)
{
    struct conv_data cd;
    pam_handle_t *pamh;

    pts_status(&canned, PAM_NEW_AUTHTOK_REQD);
    use_canned(SSS_PAM_AUTHENTICATE);
    service_all("plain", "");
    conv_init(&cd, 1, "secret");
    pamh = start("plain", "alice", &cd);
    assert_int_equal(pam_authenticate(pamh, 0), PAM_SUCCESS);
    assert_int_equal(pam_acct_mgmt(pamh, 0), PAM_NEW_AUTHTOK_REQD);
    pam_end(pamh, PAM_SUCCESS);
    assert_string_equal(cd.shown, "P:Password: \nI:Password expired. Change your password now.\n");
}

/* ---- messages and environment ---- */

static void expect_text(const void *payload, size_t len, const char *want)
{
    char expect[512];
    struct conv_data cd;

    pts_status(&canned, PAM_SUCCESS);
    pts_string(&canned, SSS_PAM_DOMAIN_NAME, "test");
    pts_item(&canned, SSS_PAM_USER_INFO, payload, len);
    use_canned(SSS_PAM_AUTHENTICATE);
    conv_init(&cd, 1, "x");
    assert_int_equal(one("plain", "alice", &cd, pam_authenticate, 0), PAM_SUCCESS);
    snprintf(expect, sizeof(expect), "P:Password: \n%s%s%s", want[0] ? "I:" : "", want,
             want[0] ? "\n" : "");
    assert_string_equal(cd.shown, expect);
}

static void test_user_info_messages(void **state)
{
    uint8_t b[64];
    uint32_t v;
    int64_t when = 1700000000;

    service_all("plain", "");
    v = SSS_PAM_USER_INFO_OFFLINE_AUTH;
    memcpy(b, &v, 4);
    memcpy(b + 4, &when, 8);
    expect_text(b, 12, "Authenticated with cached credentials, your cached password will "
                "expire at: Tue Nov 14 22:13:20 2023.");
    v = SSS_PAM_USER_INFO_OFFLINE_AUTH_DELAYED;
    memcpy(b, &v, 4);
    expect_text(b, 12, "Authentication is denied until: Tue Nov 14 22:13:20 2023.");
    v = SSS_PAM_USER_INFO_OFFLINE_CHPASS;
    memcpy(b, &v, 4);
    expect_text(b, 4, "System is offline, password change not possible");
    v = SSS_PAM_USER_INFO_GRACE_LOGIN;
    memcpy(b, &v, 4);
    v = 2;
    memcpy(b + 4, &v, 4);
    expect_text(b, 8, "Your password has expired. You have 2 grace login(s) remaining.");
    v = SSS_PAM_USER_INFO_EXPIRE_WARN;
    memcpy(b, &v, 4);
    v = 3 * 86400;
    memcpy(b + 4, &v, 4);
    expect_text(b, 8, "Your password will expire in 3 day(s).");
    v = SSS_PAM_USER_INFO_CHPASS_ERROR;
    memcpy(b, &v, 4);
    v = 8;
    memcpy(b + 4, &v, 4);
    memcpy(b + 8, "too weak", 8);
    expect_text(b, 16, "Password change failed. Server message: too weak");
    v = SSS_PAM_USER_INFO_ACCOUNT_EXPIRED;
    memcpy(b, &v, 4);
    expect_text(b, 16, "Permission denied. Server message: too weak");
    v = 77;         /* unknown subtype: nothing shown, the reply still counts */
    memcpy(b, &v, 4);
    expect_text(b, 4, "");
}

static void test_text_and_env(void **state)
{
    struct conv_data cd;
    pam_handle_t *pamh;

    pts_status(&canned, PAM_SUCCESS);
    pts_string(&canned, SSS_PAM_SYSTEM_INFO, "for the log only");
    pts_string(&canned, SSS_PAM_TEXT_MSG, "Hello from the server");
    pts_string(&canned, SSS_PAM_ENV_ITEM, "PAM_SSS_T_PAMONLY=1");
    pts_string(&canned, SSS_ENV_ITEM, "PAM_SSS_T_ENVONLY=2");
    pts_string(&canned, SSS_ALL_ENV_ITEM, "PAM_SSS_T_BOTH=3");
    use_canned(SSS_PAM_OPEN_SESSION);
    service_all("plain", "");
    conv_init(&cd, 0);
    pamh = start("plain", "alice", &cd);
    assert_int_equal(pam_open_session(pamh, 0), PAM_SUCCESS);
    assert_string_equal(cd.shown, "I:Hello from the server\n");
    assert_string_equal(pam_getenv(pamh, "PAM_SSS_T_PAMONLY"), "1");
    assert_null(pam_getenv(pamh, "PAM_SSS_T_ENVONLY"));
    assert_string_equal(pam_getenv(pamh, "PAM_SSS_T_BOTH"), "3");
    assert_null(getenv("PAM_SSS_T_PAMONLY"));
    assert_string_equal(getenv("PAM_SSS_T_ENVONLY"), "2");
    assert_string_equal(getenv("PAM_SSS_T_BOTH"), "3");
    pam_end(pamh, PAM_SUCCESS);
    /* putenv() kept the module's strings in environ; take them back so LSan sees no leak. */
    {
        char *s1 = getenv("PAM_SSS_T_ENVONLY") - strlen("PAM_SSS_T_ENVONLY=");
        char *s2 = getenv("PAM_SSS_T_BOTH") - strlen("PAM_SSS_T_BOTH=");

        unsetenv("PAM_SSS_T_ENVONLY");
        unsetenv("PAM_SSS_T_BOTH");
        free(s1);
        free(s2);
    }
}

/* ---- malformed and failing replies: never PAM_SUCCESS, nothing acted upon ---- */

static void test_malformed_replies(void **state)
{
    struct conv_data cd;
    int i;
    int ret;

    service_all("plain", "");
    for (i = 0; ; i++) {
        uint32_t w[8] = { 0 };
        size_t n = 0;

        memset(&canned, 0, sizeof(canned));
        canned.action = PTS_ANSWER;
        switch (i) {
        case 0: n = 4; break;                                           /* too short */
        case 1: w[1] = 1; w[2] = SSS_PAM_TEXT_MSG; w[3] = 100; n = 16; break; /* past end */
        case 2: w[1] = 1; w[2] = SSS_PAM_TEXT_MSG; w[3] = 4; memcpy(&w[4], "abcd", 4);
            n = 20; break;                                              /* no NUL */
        case 3: w[1] = 0x7fffffff; n = 8; break;                        /* huge count */
        case 4: w[1] = 0xffffffff; n = 8; break;                        /* negative count */
        case 5: w[0] = 0xffffffff; n = 8; break;                        /* bad status */
        case 6: w[1] = 1; w[2] = SSS_PAM_TEXT_MSG; w[3] = 5; memcpy(&w[4], "hi\0\0", 4);
            n = 21; break;                                              /* cut short */
        case 7: w[1] = 0; w[2] = 0; n = 12; break;                      /* trailing bytes */
        case 8: canned.action = PTS_ERROR; canned.hdr_status = EIO; break;
        case 9: canned.action = PTS_WRONG_CMD; n = 8; break;
        case 10: canned.action = PTS_HANGUP; break;
        case 11: canned.action = PTS_ERROR; canned.hdr_status = EAGAIN; break;
        default:
            return;
        }
        if (canned.action == PTS_ANSWER || canned.action == PTS_WRONG_CMD) {
            pts_raw(&canned, w, n);
        }
        use_canned(SSS_PAM_AUTHENTICATE);
        conv_init(&cd, 1, "secret");
        ret = one("plain", "alice", &cd, pam_authenticate, 0);
        if (ret != PAM_SYSTEM_ERR && ret != PAM_AUTHINFO_UNAVAIL) {
            fail_msg("malformed reply %d gave %d", i, ret);
        }
        /* The text item of case 1/2/6 was never shown. */
        assert_string_equal(cd.shown, "P:Password: \n");
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_auth_success, setup, teardown),
        cmocka_unit_test_setup_teardown(test_auth_wrong_and_empty, setup, teardown),
        cmocka_unit_test_setup_teardown(test_auth_unknown_and_root, setup, teardown),
        cmocka_unit_test_setup_teardown(test_auth_no_server, setup, teardown),
        cmocka_unit_test_setup_teardown(test_auth_silent_server, setup, teardown),
        cmocka_unit_test_setup_teardown(test_loops_guard, setup, teardown),
        cmocka_unit_test_setup_teardown(test_retry, setup, teardown),
        cmocka_unit_test_setup_teardown(test_domains, setup, teardown),
        cmocka_unit_test_setup_teardown(test_forward_and_first_pass, setup, teardown),
        cmocka_unit_test_setup_teardown(test_otp_not_forwarded, setup, teardown),
        cmocka_unit_test_setup_teardown(test_preauth, setup, teardown),
        cmocka_unit_test_setup_teardown(test_other_operations, setup, teardown),
        cmocka_unit_test_setup_teardown(test_account_statuses, setup, teardown),
        cmocka_unit_test_setup_teardown(test_expired_password_handover, setup, teardown),
        cmocka_unit_test_setup_teardown(test_user_info_messages, setup, teardown),
        cmocka_unit_test_setup_teardown(test_text_and_env, setup, teardown),
        cmocka_unit_test_setup_teardown(test_malformed_replies, setup, teardown),
    };

    if (geteuid() != 0) {
        /* Root and non-root callers use different sockets; the flows need both. */
        fprintf(stderr, "needs root, skipped\n");
        return 77;
    }
    setenv("TZ", "UTC", 1);
    alarm(600);     /* a hang is a failure, not a stuck build */
    return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
