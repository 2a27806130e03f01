/* Unit tests of the KDC list from DNS discovery (krb5_kdc_list_write, krb5_child_cfg.c):
 * the hosts discovery found take _srv_'s place among krb5_server's entries, in order,
 * for the KDCs and (without krb5_kpasswd) the kpasswd servers; a new answer replaces the
 * previous one; a host that cannot go into a krb5.conf is refused and the previous file
 * stays; a krb5_server without _srv_ is never rewritten. Files in a private directory. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <sys/stat.h>

#include "confdb/confdb.h"
#include "providers/krb5/krb5_child_client.h"
#include "tests/unit/common/tc_common.h"

static struct tc_leaks leaks;

struct kdc_test {
    char *dir;
    char *path;
    struct confdb *cdb;
};

static int setup(void **state)
{
    (void)state;
    tc_leak_start(&leaks);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    tc_leak_check(&leaks);
    return 0;
}

static void kdc_test_init(TALLOC_CTX *mem, struct kdc_test *t, const char *servers)
{
    char *conf;
    char *error = NULL;

    t->dir = tc_tmpdir(mem, "test_krb5_kdc_list");
    t->path = talloc_asprintf(mem, "%s/krb5_kdc_d.conf", t->dir);
    conf = talloc_asprintf(mem, "[sssd]\ndomains = d\n[domain/d]\nid_provider = ldap\n"
                           "ldap_uri = ldap://x\nkrb5_realm = AD.TEST\nkrb5_server = %s\n",
                           servers);
    assert_non_null(t->path);
    assert_non_null(conf);
    assert_int_equal(confdb_parse_buffer(mem, "test.conf", conf, strlen(conf), &t->cdb,
                                         &error), EOK);
}

static char *read_all(TALLOC_CTX *mem, const char *path)
{
    char buf[4096];
    FILE *f = fopen(path, "r");
    size_t n;

    if (f == NULL) {
        return NULL;
    }
    n = fread(buf, 1, sizeof(buf) - 1, f);
    fclose(f);
    buf[n] = '\0';
    return talloc_strdup(mem, buf);
}

static void test_found_in_place_of_srv(void **state)
{
    TALLOC_CTX *mem = talloc_new(NULL);
    char *found1[] = { "dc1.ad.test", "dc2.ad.test", NULL };
    char *found2[] = { "dc3.ad.test", NULL };
    struct kdc_test t;
    char *text;

    (void)state;
    kdc_test_init(mem, &t, "first.ad.test, _srv_");
    assert_int_equal(krb5_kdc_list_write(t.cdb, "d", "domain/d", t.dir, found1), EOK);
    text = read_all(mem, t.path);
    assert_non_null(text);
    assert_non_null(strstr(text, "AD.TEST = {\n"
                                 "        kdc = first.ad.test\n"
                                 "        kdc = dc1.ad.test\n"
                                 "        kdc = dc2.ad.test\n"
                                 "        kpasswd_server = first.ad.test\n"
                                 "        kpasswd_server = dc1.ad.test\n"
                                 "        kpasswd_server = dc2.ad.test\n"
                                 "    }\n"));

    /* The next answer replaces the previous one. */
    assert_int_equal(krb5_kdc_list_write(t.cdb, "d", "domain/d", t.dir, found2), EOK);
    text = read_all(mem, t.path);
    assert_non_null(text);
    assert_non_null(strstr(text, "kdc = first.ad.test\n        kdc = dc3.ad.test\n"));
    assert_null(strstr(text, "dc1.ad.test"));
    tc_tmpdir_remove(t.dir);
    talloc_free(mem);
}

static void test_bad_host_keeps_previous(void **state)
{
    TALLOC_CTX *mem = talloc_new(NULL);
    char *good[] = { "dc1.ad.test", NULL };
    char *bad[] = { "dc2.ad.test", "evil}\n[realms]", NULL };
    struct kdc_test t;
    char *before;
    char *after;

    (void)state;
    kdc_test_init(mem, &t, "_srv_");
    assert_int_equal(krb5_kdc_list_write(t.cdb, "d", "domain/d", t.dir, good), EOK);
    before = read_all(mem, t.path);
    assert_non_null(before);
    assert_int_equal(krb5_kdc_list_write(t.cdb, "d", "domain/d", t.dir, bad),
                     ERR_INVALID_CONFIG);
    after = read_all(mem, t.path);
    assert_non_null(after);
    assert_string_equal(before, after);
    tc_tmpdir_remove(t.dir);
    talloc_free(mem);
}

static void test_named_kdcs_untouched(void **state)
{
    TALLOC_CTX *mem = talloc_new(NULL);
    char *found[] = { "dc1.ad.test", NULL };
    struct kdc_test t;
    struct stat st;

    (void)state;
    kdc_test_init(mem, &t, "kdc.ad.test");
    assert_int_equal(krb5_kdc_list_write(t.cdb, "d", "domain/d", t.dir, found), EOK);
    assert_int_equal(stat(t.path, &st), -1);
    tc_tmpdir_remove(t.dir);
    talloc_free(mem);
}

static void test_bad_args(void **state)
{
    char *found[] = { NULL };

    (void)state;
    assert_int_equal(krb5_kdc_list_write(NULL, "d", "domain/d", "/tmp", found), EINVAL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_found_in_place_of_srv, setup, teardown),
        cmocka_unit_test_setup_teardown(test_bad_host_keeps_previous, setup, teardown),
        cmocka_unit_test_setup_teardown(test_named_kdcs_untouched, setup, teardown),
        cmocka_unit_test_setup_teardown(test_bad_args, setup, teardown),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);

    tc_leak_end();
    return rc;
}
