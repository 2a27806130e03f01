/*
 * Unit tests of src/lib/idmap/idmap_wellknown.c: well-known SIDs named as SSSD 2.8 names
 * them ([MS-DTYP] 2.4.2.4 SIDs, SSSD's domain names), domain SIDs left to the lookups,
 * every other SID refused, and the names back to SIDs.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <string.h>
#include <cmocka.h>

#include "lib/idmap/idmap_wellknown.h"

static void expect_wk(const char *sid, const char *dom, const char *name)
{
    const char *d = NULL;
    const char *n = NULL;

    assert_int_equal(idmap_wellknown_sid(sid, &d, &n), EOK);
    assert_string_equal(d, dom);
    assert_string_equal(n, name);
}

static void expect_ret(const char *sid, errno_t want)
{
    const char *d = NULL;
    const char *n = NULL;

    assert_int_equal(idmap_wellknown_sid(sid, &d, &n), want);
    assert_null(d);
    assert_null(n);
}

static void test_wellknown_sids(void **state)
{
    (void)state;
    expect_wk("S-1-0-0", "NULL AUTHORITY", "NULL SID");
    expect_wk("S-1-1-0", "WORLD AUTHORITY", "Everyone");
    expect_wk("S-1-2-1", "LOCAL AUTHORITY", "CONSOLE LOGON");
    expect_wk("S-1-3-4", "CREATOR AUTHORITY", "OWNER RIGHTS");
    expect_wk("S-1-5-11", "NT AUTHORITY", "Authenticated Users");
    expect_wk("S-1-5-18", "NT AUTHORITY", "LOCAL SYSTEM");
    expect_wk("S-1-5-1000", "NT AUTHORITY", "OTHER_ORGANIZATIONS");
    expect_wk("S-1-5-64-10", "NT AUTHORITY", "NTLM AUTHENTICATION");
    expect_wk("S-1-5-65-1", "NT AUTHORITY", "THIS ORGANIZATION CERTIFICATE");
    expect_wk("S-1-5-32-544", "BUILTIN", "Administrators");
    expect_wk("S-1-5-32-580", "BUILTIN", "Remote Management Users");
    expect_wk("S-1-16-12288", "MANDATORY LABEL AUTHORITY", "HIGH");
    expect_wk("S-1-18-1", "AUTHENTICATION AUTHORITY", "AUTHENTICATION ASSERTION");
    /* A logon session's SID: any two sub-authorities. */
    expect_wk("S-1-5-5-0-0", "NT AUTHORITY", "LOGON ID");
    expect_wk("S-1-5-5-4294967295-123456", "NT AUTHORITY", "LOGON ID");
}

static void test_domain_and_other_sids(void **state)
{
    (void)state;
    /* Domain SIDs: the directory's objects, looked up. */
    expect_ret("S-1-5-21-1-2-3-1000", ENOENT);
    expect_ret("S-1-5-21-1193303005-3770482081-3744074285-512", ENOENT);
    /* Well-known authorities, SIDs the table does not hold: refused, not looked up. */
    expect_ret("S-1-5-32-999", EINVAL);
    expect_ret("S-1-5-32-553", EINVAL);
    expect_ret("S-1-5-16", EINVAL);
    expect_ret("S-1-5-64-11", EINVAL);
    expect_ret("S-1-5-80-123-456", EINVAL);
    expect_ret("S-1-1-1", EINVAL);
    expect_ret("S-1-1-0-0", EINVAL);
    expect_ret("S-1-5", EINVAL);
    expect_ret("S-1-15-2-1", EINVAL);
    /* LOGON ID needs exactly two 32-bit sub-authorities. */
    expect_ret("S-1-5-5-1", EINVAL);
    expect_ret("S-1-5-5-1-2-3", EINVAL);
    expect_ret("S-1-5-5-1-", EINVAL);
    expect_ret("S-1-5-5-1-4294967296", EINVAL);
    expect_ret("S-1-5-5--1-2", EINVAL);
    expect_ret("", EINVAL);
    expect_ret("Everyone", EINVAL);
    assert_int_equal(idmap_wellknown_sid(NULL, NULL, NULL), EINVAL);
}

static void test_wellknown_names(void **state)
{
    const char *sid = NULL;

    (void)state;
    assert_int_equal(idmap_wellknown_name("WORLD AUTHORITY", "Everyone", &sid), EOK);
    assert_string_equal(sid, "S-1-1-0");
    assert_int_equal(idmap_wellknown_name("BUILTIN", "Administrators", &sid), EOK);
    assert_string_equal(sid, "S-1-5-32-544");
    assert_int_equal(idmap_wellknown_name("NT AUTHORITY", "Authenticated Users", &sid), EOK);
    assert_string_equal(sid, "S-1-5-11");
    sid = NULL;
    /* Exact comparison, the right domain, no per-session SID. */
    assert_int_equal(idmap_wellknown_name("BUILTIN", "administrators", &sid), ENOENT);
    assert_int_equal(idmap_wellknown_name("NT AUTHORITY", "Administrators", &sid), ENOENT);
    assert_int_equal(idmap_wellknown_name("NT AUTHORITY", "LOGON ID", &sid), ENOENT);
    assert_int_equal(idmap_wellknown_name("ad.test", "alice", &sid), ENOENT);
    assert_null(sid);
    assert_int_equal(idmap_wellknown_name(NULL, "Everyone", &sid), EINVAL);
}

/* Every name of the table goes back to the SID that names it. */
static void test_round_trip(void **state)
{
    static const char *sids[] = { "S-1-0-0", "S-1-3-2", "S-1-5-9", "S-1-5-20", "S-1-5-114",
                                  "S-1-5-64-21", "S-1-5-32-568", "S-1-16-28672", "S-1-18-6" };
    const char *dom, *name, *back;
    size_t i;

    (void)state;
    for (i = 0; i < sizeof(sids) / sizeof(sids[0]); i++) {
        assert_int_equal(idmap_wellknown_sid(sids[i], &dom, &name), EOK);
        assert_int_equal(idmap_wellknown_name(dom, name, &back), EOK);
        assert_string_equal(back, sids[i]);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_wellknown_sids),
        cmocka_unit_test(test_domain_and_other_sids),
        cmocka_unit_test(test_wellknown_names),
        cmocka_unit_test(test_round_trip),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
