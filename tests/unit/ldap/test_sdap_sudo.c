/*
 * Unit tests of src/providers/ldap/sdap_sudo.c without a server: the sudo options read from
 * a configuration (hostnames and addresses given, host filter on and off, netgroups and
 * wildcards), the filters of the three refreshes (values escaped, USN preferred over
 * modifyTimestamp), and the entry parser: a good entry with every attribute, and the
 * malformed ones it must skip (no cn, empty cn, a value that is not UTF-8), and the
 * ldap_sudorule_* attribute map (filters and parser under other names, unsafe names
 * refused). Leak-checked.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <string.h>

#include "tests/unit/common/tc_common.h"
#include "confdb/confdb.h"
#include "providers/ldap/sdap_private.h"
#include "providers/ldap/sdap_sudo.h"

static struct sdap_sudo_opts *opts_from(TALLOC_CTX *mem, const char *extra)
{
    struct confdb *cdb;
    struct sdap_sudo_opts *o;
    char *error = NULL;
    char *text;

    text = talloc_asprintf(mem, "[sssd]\nservices = nss, sudo\ndomains = d\n"
                           "[domain/d]\nid_provider = ldap\nldap_uri = ldap://127.0.0.1\n"
                           "ldap_search_base = dc=t\n%s", extra);
    assert_int_equal(confdb_parse_buffer(mem, "test", text, strlen(text), &cdb, &error), EOK);
    assert_int_equal(sdap_sudo_opts_read(mem, cdb, "d", &o), EOK);
    return o;
}

static void test_opts_and_filters(void **state)
{
    struct tc_leaks leaks;
    TALLOC_CTX *mem;
    struct sdap_sudo_opts *o;
    const char *names[] = { "r1", "we(ird)*", NULL };
    char *f;

    (void)state;
    tc_leak_start(&leaks);
    mem = talloc_new(NULL);
    o = opts_from(mem, "ldap_sudo_hostnames = h1, h1.example.test\n"
                       "ldap_sudo_ip = 10.0.0.5, 10.0.0.0/8\n"
                       "ldap_sudo_full_refresh_interval = 100\n"
                       "ldap_sudo_include_regexp = true\n");
    assert_int_equal(o->full_interval, 100);
    assert_int_equal(o->smart_interval, 900);
    assert_string_equal(o->host_filter,
        "(|(!(sudoHost=*))(sudoHost=ALL)(sudoHost=h1)(sudoHost=h1.example.test)"
        "(sudoHost=10.0.0.5)(sudoHost=10.0.0.0/8)(sudoHost=+*)"
        "(sudoHost=*\\2A*)(sudoHost=*?*)(sudoHost=*\\5C*)(sudoHost=*[*]*))");

    assert_int_equal(sdap_sudo_filter(mem, o, SDAP_SUDO_FULL, NULL, NULL, NULL, 0, &f), EOK);
    assert_true(strncmp(f, "(&(objectClass=sudoRole)(|(!(sudoHost=*))", 41) == 0);
    assert_int_equal(sdap_sudo_filter(mem, o, SDAP_SUDO_SMART, "42", "20240101000000Z",
                                      NULL, 0, &f), EOK);
    assert_non_null(strstr(f, "(entryUSN>=42)"));
    assert_null(strstr(f, "modifyTimestamp"));
    assert_int_equal(sdap_sudo_filter(mem, o, SDAP_SUDO_SMART, NULL, "20240101000000Z",
                                      NULL, 0, &f), EOK);
    assert_non_null(strstr(f, "(modifyTimestamp>=20240101000000Z)"));
    assert_int_equal(sdap_sudo_filter(mem, o, SDAP_SUDO_RULES, NULL, NULL, names, 2, &f), EOK);
    assert_non_null(strstr(f, "(|(cn=r1)(cn=we\\28ird\\29\\2a))"));
    assert_int_equal(sdap_sudo_filter(mem, o, SDAP_SUDO_RULES, NULL, NULL, names, 0, &f),
                     EINVAL);

    /* Host filter off: no sudoHost term at all. */
    o = opts_from(mem, "ldap_sudo_use_host_filter = false\n");
    assert_string_equal(o->host_filter, "");
    assert_int_equal(sdap_sudo_filter(mem, o, SDAP_SUDO_FULL, NULL, NULL, NULL, 0, &f), EOK);
    assert_string_equal(f, "(&(objectClass=sudoRole))");
    /* Netgroups off, hostnames from the system (whatever they are: at least one). */
    o = opts_from(mem, "ldap_sudo_include_netgroups = false\nldap_sudo_ip = 192.0.2.1\n");
    assert_null(strstr(o->host_filter, "+*"));
    assert_non_null(o->hostnames[0]);
    talloc_free(mem);
    tc_leak_check(&leaks);
}

static struct sdap_entry *mk_entry(TALLOC_CTX *mem, const char *dn, const char *const *kv)
{
    struct sdap_entry *e = talloc_zero(mem, struct sdap_entry);
    size_t n = 0;

    e->dn = talloc_strdup(e, dn);
    e->attrs = talloc_zero_array(e, struct sdap_attr, 16);
    for (; kv[0] != NULL; kv += 2) {
        struct sdap_attr *a = NULL;
        size_t i;

        for (i = 0; i < n; i++) {
            if (strcmp(e->attrs[i].name, kv[0]) == 0) {
                a = &e->attrs[i];
            }
        }
        if (a == NULL) {
            a = &e->attrs[n++];
            a->name = talloc_strdup(e, kv[0]);
            a->values = talloc_zero_array(e, char *, 8);
        }
        a->values[a->num_values++] = talloc_strdup(e, kv[1]);
    }
    e->num_attrs = n;
    return e;
}

static void test_parse_entry(void **state)
{
    struct tc_leaks leaks;
    TALLOC_CTX *mem;
    struct sysdb_sudo_rule *r;
    const char *good[] = { "cn", "r1", "sudoUser", "alice", "sudoUser", "%admins",
                           "SUDOCOMMAND", "/bin/true", "sudoOrder", "3",
                           "sudoNotAfter", "20300101000000Z", "objectClass", "sudoRole", NULL };
    const char *no_cn[] = { "sudoUser", "alice", NULL };
    const char *empty_cn[] = { "cn", "", "sudoUser", "alice", NULL };
    const char *bad_utf8[] = { "cn", "r2", "sudoCommand", "/bin/\xff", NULL };
    const char *bad_cn[] = { "cn", "r\xc3", NULL };

    (void)state;
    tc_leak_start(&leaks);
    mem = talloc_new(NULL);
    assert_int_equal(sdap_sudo_parse_entry(mem, NULL, mk_entry(mem, "cn=r1,ou=S", good), &r), EOK);
    assert_string_equal(r->name, "r1");
    assert_string_equal(r->orig_dn, "cn=r1,ou=S");
    assert_int_equal(r->num_values[SYSDB_SUDO_USER], 2);
    assert_string_equal(r->values[SYSDB_SUDO_USER][1], "%admins");
    assert_null(r->values[SYSDB_SUDO_USER][2]);
    assert_string_equal(r->values[SYSDB_SUDO_COMMAND][0], "/bin/true");  /* any case */
    assert_string_equal(r->values[SYSDB_SUDO_ORDER][0], "3");
    assert_null(r->values[SYSDB_SUDO_HOST]);
    assert_int_equal(sdap_sudo_parse_entry(mem, NULL, mk_entry(mem, "x=1", no_cn), &r), EINVAL);
    assert_int_equal(sdap_sudo_parse_entry(mem, NULL, mk_entry(mem, "x=2", empty_cn), &r), EINVAL);
    assert_int_equal(sdap_sudo_parse_entry(mem, NULL, mk_entry(mem, "x=3", bad_utf8), &r), EINVAL);
    assert_int_equal(sdap_sudo_parse_entry(mem, NULL, mk_entry(mem, "x=4", bad_cn), &r), EINVAL);
    talloc_free(mem);
    tc_leak_check(&leaks);
}

/* ldap_sudorule_*: a schema with other names is searched and parsed under those names;
 * the rule keeps the sudo schema's attributes. A mapped name that would change a filter is
 * refused. */
static void test_attribute_map(void **state)
{
    struct tc_leaks leaks;
    TALLOC_CTX *mem;
    struct sdap_sudo_opts *o;
    struct confdb *cdb;
    char *error = NULL;
    const char *bad;
    const char *names[] = { "r1", NULL };
    const char *mapped[] = { "ruleName", "r1", "who", "alice", "what", "/bin/true",
                             "sudoCommand", "/bin/false", "rank", "7", NULL };
    struct sysdb_sudo_rule *r;
    char *f;

    (void)state;
    tc_leak_start(&leaks);
    mem = talloc_new(NULL);
    o = opts_from(mem, "ldap_sudo_hostnames = h1\nldap_sudo_ip = 10.0.0.5\n"
                       "ldap_sudorule_object_class = mySudo\nldap_sudorule_name = ruleName\n"
                       "ldap_sudorule_user = who\nldap_sudorule_command = what\n"
                       "ldap_sudorule_host = where\nldap_sudorule_order = rank\n");
    assert_string_equal(o->host_filter, "(|(!(where=*))(where=ALL)(where=h1)(where=10.0.0.5)"
                                        "(where=+*))");
    assert_int_equal(sdap_sudo_filter(mem, o, SDAP_SUDO_RULES, NULL, NULL, names, 1, &f), EOK);
    assert_true(strncmp(f, "(&(objectClass=mySudo)(|(ruleName=r1))(|(!(where=*))", 51) == 0);
    assert_string_equal(o->map[SYSDB_SUDO_OPTION], "sudoOption");   /* unmapped: default */
    assert_int_equal(sdap_sudo_parse_entry(mem, o, mk_entry(mem, "ruleName=r1", mapped), &r),
                     EOK);
    assert_string_equal(r->name, "r1");
    assert_string_equal(r->values[SYSDB_SUDO_USER][0], "alice");
    assert_int_equal(r->num_values[SYSDB_SUDO_COMMAND], 1);     /* "what", not sudoCommand */
    assert_string_equal(r->values[SYSDB_SUDO_COMMAND][0], "/bin/true");
    assert_string_equal(r->values[SYSDB_SUDO_ORDER][0], "7");
    /* Without the map the same entry has no usable name. */
    assert_int_equal(sdap_sudo_parse_entry(mem, NULL, mk_entry(mem, "ruleName=r1", mapped), &r),
                     EINVAL);

    for (bad = "ldap_sudorule_host = sudoHost)(cn=*\n"; bad != NULL;
         bad = strstr(bad, "(cn") != NULL ? "ldap_sudorule_user = 9a\n" : NULL) {
        char *text = talloc_asprintf(mem, "[sssd]\nservices = nss, sudo\ndomains = d\n"
                                     "[domain/d]\nid_provider = ldap\n"
                                     "ldap_uri = ldap://127.0.0.1\n%s", bad);

        assert_int_equal(confdb_parse_buffer(mem, "test", text, strlen(text), &cdb, &error),
                         EOK);
        assert_int_equal(sdap_sudo_opts_read(mem, cdb, "d", &o), ERR_INVALID_CONFIG);
    }
    talloc_free(mem);
    tc_leak_check(&leaks);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_opts_and_filters),
        cmocka_unit_test(test_parse_entry),
        cmocka_unit_test(test_attribute_map),
    };
    int failed;

    failed = cmocka_run_group_tests_name("sdap_sudo", tests, NULL, NULL);
    talloc_disable_null_tracking();     /* frees the tracking context (LeakSanitizer) */
    return failed;
}
