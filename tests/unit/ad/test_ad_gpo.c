/*
 * Unit tests of the pure parts of GPO-based access control (src/providers/ad/ad_gpo.h):
 * GptTmpl.inf in UTF-16LE (as the DC's SYSVOL holds it) and UTF-8, hostile bytes (odd
 * lengths, lone surrogates, NULs, huge files); the resultant policy of several GPOs;
 * gPLink options and inheritance blocking; SOMs of a DN; SSSD's precedence order; the
 * Security CSE; the SMB URI; the PAM service map with SSSD's defaults and +/- syntax; and
 * the allow/deny decision. Leak checks on every test.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "tests/unit/common/tc_common.h"
#include "providers/ad/ad_gpo.h"

#define USER "S-1-5-21-1-2-3-1105"
#define GROUP "S-1-5-21-1-2-3-1200"
#define OTHER "S-1-5-21-1-2-3-1300"

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

/* ASCII text as a UTF-16LE file with its BOM, as Windows and samba-tool write it. */
static uint8_t *utf16(const char *text, size_t *_len)
{
    size_t n = strlen(text);
    uint8_t *b = talloc_size(NULL, 2 + 2 * n);

    assert_non_null(b);
    b[0] = 0xFF;
    b[1] = 0xFE;
    for (size_t i = 0; i < n; i++) {
        b[2 + 2 * i] = (uint8_t)text[i];
        b[3 + 2 * i] = 0;
    }
    *_len = 2 + 2 * n;
    return b;
}

static const char *const inf =
    "[Unicode]\r\nUnicode=yes\r\n"
    "[Version]\r\nsignature=\"$CHICAGO$\"\r\nRevision=1\r\n"
    "[Privilege Rights]\r\n"
    "SeInteractiveLogonRight = *S-1-5-32-544,*" GROUP "\r\n"
    "SeDenyInteractiveLogonRight = *" USER "\r\n"
    "SeDenyRemoteInteractiveLogonRight =\r\n"
    "SeShutdownPrivilege = *S-1-5-32-544\r\n";

static void test_inf_utf16(void **state)
{
    struct ad_gpo_settings *s;
    uint8_t *b;
    size_t len;

    b = utf16(inf, &len);
    assert_int_equal(ad_gpo_inf_parse(NULL, b, len, &s), EOK);
    assert_true(s->present[0]);
    assert_int_equal(s->num[0], 2);
    assert_string_equal(s->sids[0][0], "S-1-5-32-544");
    assert_string_equal(s->sids[0][1], GROUP);
    assert_null(s->sids[0][2]);
    assert_int_equal(s->num[1], 1);
    assert_string_equal(s->sids[1][0], USER);
    /* Named with no SID: present, empty. */
    assert_true(s->present[3]);
    assert_int_equal(s->num[3], 0);
    assert_false(s->present[2]);
    assert_false(s->present[4]);
    talloc_free(s);
    talloc_free(b);
}

static void test_inf_utf8_and_layout(void **state)
{
    struct ad_gpo_settings *s;
    const char *text = "\xEF\xBB\xBF; comment\n[privilege rights]\n"
                       "  seinteractivelogonright=*S-1-1-0 , , *S-1-5-32-545  \n"
                       "SeInteractiveLogonRight = *" OTHER "\n"
                       "[Other]\nSeDenyInteractiveLogonRight = *" USER "\n"
                       "[Privilege Rights]\nSeBatchLogonRight\n";

    assert_int_equal(ad_gpo_inf_parse(NULL, (const uint8_t *)text, strlen(text), &s), EOK);
    /* The last of a repeated key counts; other sections are ignored. */
    assert_int_equal(s->num[0], 1);
    assert_string_equal(s->sids[0][0], OTHER);
    assert_false(s->present[1]);
    assert_false(s->present[6]);
    talloc_free(s);
    /* An empty file is an empty policy. */
    assert_int_equal(ad_gpo_inf_parse(NULL, NULL, 0, &s), EOK);
    assert_false(s->present[0]);
    talloc_free(s);
}

static void test_inf_hostile(void **state)
{
    struct ad_gpo_settings *s = NULL;
    uint8_t *b;
    size_t len;
    uint8_t odd[] = { 0xFF, 0xFE, '[', 0, 'P' };
    uint8_t lone_lo[] = { 0xFF, 0xFE, 0x00, 0xDC, 'a', 0 };
    uint8_t lone_hi_end[] = { 0xFF, 0xFE, 'a', 0, 0x00, 0xD8 };
    uint8_t hi_then_a[] = { 0xFF, 0xFE, 0x00, 0xD8, 'a', 0 };
    uint8_t nul16[] = { 0xFF, 0xFE, 'a', 0, 0, 0, 'b', 0 };
    uint8_t pair[] = { 0xFF, 0xFE, 0x3D, 0xD8, 0x00, 0xDE, '\n', 0 };
    const char nul8[] = "[Privilege Rights]\nSeInteractiveLogonRight = *S-1\0-5";
    const char unclosed[] = "[Privilege Rights\nSeInteractiveLogonRight = *S-1-5-11\n";

    assert_int_equal(ad_gpo_inf_parse(NULL, odd, sizeof(odd), &s), EINVAL);
    assert_int_equal(ad_gpo_inf_parse(NULL, lone_lo, sizeof(lone_lo), &s), EINVAL);
    assert_int_equal(ad_gpo_inf_parse(NULL, lone_hi_end, sizeof(lone_hi_end), &s), EINVAL);
    assert_int_equal(ad_gpo_inf_parse(NULL, hi_then_a, sizeof(hi_then_a), &s), EINVAL);
    assert_int_equal(ad_gpo_inf_parse(NULL, nul16, sizeof(nul16), &s), EINVAL);
    assert_int_equal(ad_gpo_inf_parse(NULL, (const uint8_t *)nul8, sizeof(nul8) - 1, &s),
                     EINVAL);
    assert_int_equal(ad_gpo_inf_parse(NULL, (const uint8_t *)unclosed, strlen(unclosed),
                                      &s), EINVAL);
    assert_null(s);
    /* A surrogate pair (an emoji) decodes. */
    assert_int_equal(ad_gpo_inf_parse(NULL, pair, sizeof(pair), &s), EOK);
    talloc_free(s);
    b = talloc_zero_size(NULL, AD_GPO_INF_MAX + 2);
    assert_int_equal(ad_gpo_inf_parse(NULL, b, AD_GPO_INF_MAX + 2, &s), EFBIG);
    talloc_free(b);
    b = utf16("[Privilege Rights]\nSeInteractiveLogonRight = ,,,*,**,\n", &len);
    assert_int_equal(ad_gpo_inf_parse(NULL, b, len, &s), EOK);
    assert_true(s->present[0]);
    assert_int_equal(s->num[0], 1);     /* "*" alone is empty, "**" leaves "*" */
    assert_string_equal(s->sids[0][0], "*");
    talloc_free(s);
    talloc_free(b);
}

static struct ad_gpo_settings *parse(const char *text)
{
    struct ad_gpo_settings *s;

    assert_int_equal(ad_gpo_inf_parse(NULL, (const uint8_t *)text, strlen(text), &s), EOK);
    return s;
}

static void test_resultant_and_check(void **state)
{
    struct ad_gpo_settings *result = talloc_zero(NULL, struct ad_gpo_settings);
    struct ad_gpo_settings *g1;
    struct ad_gpo_settings *g2;
    const char *groups[] = { GROUP };

    /* An empty policy allows everyone, unless implicit deny. */
    assert_int_equal(ad_gpo_check(result, AD_GPO_RIGHT_INTERACTIVE, false, USER, groups, 1),
                     AD_GPO_ALLOWED);
    assert_int_equal(ad_gpo_check(result, AD_GPO_RIGHT_INTERACTIVE, true, USER, groups, 1),
                     AD_GPO_NOT_ALLOWED);
    assert_int_equal(ad_gpo_check(result, AD_GPO_RIGHT_PERMIT, true, USER, NULL, 0),
                     AD_GPO_ALLOWED);
    assert_int_equal(ad_gpo_check(result, AD_GPO_RIGHT_DENY, false, USER, NULL, 0),
                     AD_GPO_DENIED);

    g1 = parse("[Privilege Rights]\nSeDenyInteractiveLogonRight = *" USER "\n"
               "SeInteractiveLogonRight = *" OTHER "\n");
    g2 = parse("[Privilege Rights]\nSeInteractiveLogonRight = *" GROUP "\n"
               "SeDenyRemoteInteractiveLogonRight = *" GROUP "\n");
    assert_int_equal(ad_gpo_settings_apply(result, g1), EOK);
    assert_int_equal(ad_gpo_check(result, AD_GPO_RIGHT_INTERACTIVE, false, USER, groups, 1),
                     AD_GPO_DENIED);
    assert_int_equal(ad_gpo_check(result, AD_GPO_RIGHT_INTERACTIVE, false, GROUP, NULL, 0),
                     AD_GPO_NOT_ALLOWED);
    assert_int_equal(ad_gpo_check(result, AD_GPO_RIGHT_INTERACTIVE, false, OTHER, NULL, 0),
                     AD_GPO_ALLOWED);
    /* Other rights are untouched. */
    assert_int_equal(ad_gpo_check(result, AD_GPO_RIGHT_REMOTE_INTERACTIVE, false, USER,
                                  groups, 1), AD_GPO_ALLOWED);
    /* A later GPO replaces the allow list, keeps the deny list it does not name. */
    assert_int_equal(ad_gpo_settings_apply(result, g2), EOK);
    assert_int_equal(ad_gpo_check(result, AD_GPO_RIGHT_INTERACTIVE, false, OTHER, NULL, 0),
                     AD_GPO_NOT_ALLOWED);
    assert_int_equal(ad_gpo_check(result, AD_GPO_RIGHT_INTERACTIVE, false, "S-1-5-21-9",
                                  groups, 1), AD_GPO_ALLOWED);
    assert_int_equal(ad_gpo_check(result, AD_GPO_RIGHT_INTERACTIVE, false, USER, groups, 1),
                     AD_GPO_DENIED);
    assert_int_equal(ad_gpo_check(result, AD_GPO_RIGHT_REMOTE_INTERACTIVE, false, USER,
                                  groups, 1), AD_GPO_DENIED);
    talloc_free(g1);
    talloc_free(g2);
    /* An explicitly empty value removes the setting; Authenticated Users always counts. */
    g1 = parse("[Privilege Rights]\nSeDenyInteractiveLogonRight =\n"
               "SeInteractiveLogonRight = *S-1-5-11\n");
    assert_int_equal(ad_gpo_settings_apply(result, g1), EOK);
    assert_false(result->present[1]);
    assert_int_equal(ad_gpo_check(result, AD_GPO_RIGHT_INTERACTIVE, false, USER, NULL, 0),
                     AD_GPO_ALLOWED);
    talloc_free(g1);
    talloc_free(result);
}

static void test_gplink(void **state)
{
    struct ad_gpo_link *l;
    size_t n;

    assert_int_equal(ad_gpo_gplink_parse(NULL, "[LDAP://cn={A},cn=policies,dc=x;0]"
                                         "[ldap://cn={B},cn=policies,dc=x;2]"
                                         "[LDAP://cn={C},dc=x;1][LDAP://cn={D},dc=x;3]"
                                         "[cn={E\\;x},dc=x;0]", false, &l, &n), EOK);
    assert_int_equal(n, 3);
    assert_string_equal(l[0].gpo_dn, "cn={A},cn=policies,dc=x");
    assert_false(l[0].enforced);
    assert_string_equal(l[1].gpo_dn, "cn={B},cn=policies,dc=x");
    assert_true(l[1].enforced);
    assert_string_equal(l[2].gpo_dn, "cn={E\\;x},dc=x");
    talloc_free(l);
    assert_int_equal(ad_gpo_gplink_parse(NULL, "[LDAP://cn={A},dc=x;0][LDAP://cn={B},dc=x;2]",
                                         true, &l, &n), EOK);
    assert_int_equal(n, 1);
    assert_string_equal(l[0].gpo_dn, "cn={B},dc=x");
    talloc_free(l);
    assert_int_equal(ad_gpo_gplink_parse(NULL, "", false, &l, &n), EOK);
    assert_int_equal(n, 0);
    talloc_free(l);
    l = NULL;
    assert_int_equal(ad_gpo_gplink_parse(NULL, "[LDAP://cn={A},dc=x;4]", false, &l, &n), EINVAL);
    assert_int_equal(ad_gpo_gplink_parse(NULL, "[LDAP://cn={A},dc=x]", false, &l, &n), EINVAL);
    assert_int_equal(ad_gpo_gplink_parse(NULL, "[LDAP://cn={A},dc=x;0", false, &l, &n), EINVAL);
    assert_int_equal(ad_gpo_gplink_parse(NULL, "x[a;0]", false, &l, &n), EINVAL);
    assert_int_equal(ad_gpo_gplink_parse(NULL, "[LDAP://;0]", false, &l, &n), EINVAL);
    assert_int_equal(ad_gpo_gplink_parse(NULL, "[a;-2]", false, &l, &n), EINVAL);
    assert_int_equal(ad_gpo_gplink_parse(NULL, "[a;99999999999999999999999]", false, &l, &n),
                     EINVAL);
    assert_null(l);
}

static void test_som_dns(void **state)
{
    char **s;
    size_t n;

    assert_int_equal(ad_gpo_som_dns(NULL, "CN=HOST,OU=Linux,OU=Servers\\, EU,CN=x,"
                                    "DC=ad,DC=test", &s, &n), EOK);
    assert_int_equal(n, 3);
    assert_string_equal(s[0], "OU=Linux,OU=Servers\\, EU,CN=x,DC=ad,DC=test");
    assert_string_equal(s[1], "OU=Servers\\, EU,CN=x,DC=ad,DC=test");
    assert_string_equal(s[2], "DC=ad,DC=test");
    talloc_free(s);
    assert_int_equal(ad_gpo_som_dns(NULL, "CN=HOST,CN=Computers,DC=ad,DC=test", &s, &n), EOK);
    assert_int_equal(n, 1);
    assert_string_equal(s[0], "DC=ad,DC=test");
    talloc_free(s);
    assert_int_equal(ad_gpo_som_dns(NULL, "CN=HOST,O=x", &s, &n), EINVAL);
    assert_int_equal(ad_gpo_som_dns(NULL, "DC=test", &s, &n), EINVAL);
    assert_int_equal(ad_gpo_som_dns(NULL, "CN=a\\", &s, &n), EINVAL);
}

static void test_candidates(void **state)
{
    struct ad_gpo_link ou[] = { { "ou1", false }, { "ou2", false }, { "ouE", true } };
    struct ad_gpo_link dom[] = { { "dom1", false }, { "domE", true } };
    struct ad_gpo_link site[] = { { "site1", false }, { "siteE", true } };
    struct ad_gpo_som soms[] = {
        { "OU=a,DC=x", ou, 3 }, { "DC=x", dom, 2 }, { "CN=s,CN=Sites", site, 2 }
    };
    const char *want[] = { "site1", "dom1", "ou2", "ou1", "ouE", "domE", "siteE" };
    char **dns;
    size_t n;

    assert_int_equal(ad_gpo_candidates(NULL, soms, 3, &dns, &n), EOK);
    assert_int_equal(n, 7);
    for (size_t i = 0; i < n; i++) {
        assert_string_equal(dns[i], want[i]);
    }
    assert_null(dns[n]);
    talloc_free(dns);
}

static void test_cse_and_uri(void **state)
{
    char *uri;

    assert_true(ad_gpo_has_security_cse("[{35378EAC-683F-11D2-A89A-00C04FBBCFA2}"
                                        "{53D6AB1B-2488-11D1-A28C-00C04FB94F17}]"
                                        "[{827d319e-6eac-11d2-a4ea-00c04f79f83a}"
                                        "{803E14A0-B4FB-11D0-A0D0-00A0C90F574B}]"));
    assert_false(ad_gpo_has_security_cse("[{35378EAC-683F-11D2-A89A-00C04FBBCFA2}"
                                         "{827D319E-6EAC-11D2-A4EA-00C04F79F83A}]"));
    assert_false(ad_gpo_has_security_cse(""));
    assert_false(ad_gpo_has_security_cse(NULL));
    assert_int_equal(ad_gpo_smb_uri(NULL, "dc1.ad.test", "\\\\ad.test\\SysVol\\ad.test\\"
                                    "Policies\\{31B2F340-016D-11D2-945F-00C04FB984F9}",
                                    &uri), EOK);
    assert_string_equal(uri, "smb://dc1.ad.test/SysVol/ad.test/Policies/"
                        "{31B2F340-016D-11D2-945F-00C04FB984F9}/Machine/Microsoft/"
                        "Windows NT/SecEdit/GptTmpl.inf");
    talloc_free(uri);
    assert_int_equal(ad_gpo_smb_uri(NULL, "dc1", "\\\\ad.test", &uri), EINVAL);
    assert_int_equal(ad_gpo_smb_uri(NULL, "dc1/x", "\\\\a\\b\\c", &uri), EINVAL);
}

static void test_map(void **state)
{
    const char *opts[AD_GPO_RIGHT_NUM] = { NULL };
    struct ad_gpo_map *m;

    assert_int_equal(ad_gpo_map_create(NULL, opts, NULL, &m), EOK);
    assert_int_equal(ad_gpo_map_service(m, "login"), AD_GPO_RIGHT_INTERACTIVE);
    assert_int_equal(ad_gpo_map_service(m, "gdm-password"), AD_GPO_RIGHT_INTERACTIVE);
    assert_int_equal(ad_gpo_map_service(m, "xdm"), AD_GPO_RIGHT_INTERACTIVE);
    assert_int_equal(ad_gpo_map_service(m, "sshd"), AD_GPO_RIGHT_REMOTE_INTERACTIVE);
    assert_int_equal(ad_gpo_map_service(m, "cockpit"), AD_GPO_RIGHT_REMOTE_INTERACTIVE);
    assert_int_equal(ad_gpo_map_service(m, "samba"), AD_GPO_RIGHT_NETWORK);
    assert_int_equal(ad_gpo_map_service(m, "cron"), AD_GPO_RIGHT_BATCH);
    assert_int_equal(ad_gpo_map_service(m, "sudo"), AD_GPO_RIGHT_PERMIT);
    assert_int_equal(ad_gpo_map_service(m, "my-app"), AD_GPO_RIGHT_DENY);
    talloc_free(m);

    opts[AD_GPO_RIGHT_INTERACTIVE] = "+my-app, -su";
    opts[AD_GPO_RIGHT_REMOTE_INTERACTIVE] = "-sshd";
    opts[AD_GPO_RIGHT_PERMIT] = "+sshd";
    assert_int_equal(ad_gpo_map_create(NULL, opts, "Permit", &m), EOK);
    assert_int_equal(ad_gpo_map_service(m, "my-app"), AD_GPO_RIGHT_INTERACTIVE);
    assert_int_equal(ad_gpo_map_service(m, "sshd"), AD_GPO_RIGHT_PERMIT);
    assert_int_equal(ad_gpo_map_service(m, "su"), AD_GPO_RIGHT_PERMIT);  /* default right */
    talloc_free(m);

    m = NULL;
    opts[AD_GPO_RIGHT_REMOTE_INTERACTIVE] = NULL;   /* sshd in two maps */
    assert_int_equal(ad_gpo_map_create(NULL, opts, NULL, &m), EINVAL);
    opts[AD_GPO_RIGHT_PERMIT] = "sshd";             /* no +/- */
    assert_int_equal(ad_gpo_map_create(NULL, opts, NULL, &m), EINVAL);
    opts[AD_GPO_RIGHT_PERMIT] = "+";
    assert_int_equal(ad_gpo_map_create(NULL, opts, NULL, &m), EINVAL);
    opts[AD_GPO_RIGHT_PERMIT] = NULL;
    assert_int_equal(ad_gpo_map_create(NULL, opts, "everything", &m), EINVAL);
    assert_null(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_inf_utf16, setup_leaks, teardown_leaks),
        cmocka_unit_test_setup_teardown(test_inf_utf8_and_layout, setup_leaks, teardown_leaks),
        cmocka_unit_test_setup_teardown(test_inf_hostile, setup_leaks, teardown_leaks),
        cmocka_unit_test_setup_teardown(test_resultant_and_check, setup_leaks, teardown_leaks),
        cmocka_unit_test_setup_teardown(test_gplink, setup_leaks, teardown_leaks),
        cmocka_unit_test_setup_teardown(test_som_dns, setup_leaks, teardown_leaks),
        cmocka_unit_test_setup_teardown(test_candidates, setup_leaks, teardown_leaks),
        cmocka_unit_test_setup_teardown(test_cse_and_uri, setup_leaks, teardown_leaks),
        cmocka_unit_test_setup_teardown(test_map, setup_leaks, teardown_leaks),
    };
    int failed;

    failed = cmocka_run_group_tests_name("ad_gpo", tests, NULL, NULL);
    talloc_disable_null_tracking();     /* frees the tracking context (LeakSanitizer) */
    return failed;
}
