/* Unit tests of krb5_pwkey.c against the running kernel's keyrings: a password stored as
 * a key reads back byte for byte into a buffer that is wiped when freed, a dropped key
 * and a timed-out key cannot be read, keys of other names are apart, and bad arguments
 * are refused. Skipped when the kernel has no keyrings (ENOSYS). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <unistd.h>

#include "providers/krb5/krb5_common.h"
#include "tests/unit/common/tc_common.h"

static const uint8_t PW[] = "S3cret pass\xc3\xa9";

static struct tc_leaks leaks;

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

static void test_store_read_drop(void **state)
{
    int32_t a = 0;
    int32_t b = 0;
    uint8_t *pw = NULL;
    errno_t ret;

    (void)state;
    ret = krb5_pwkey_store("sssd:test:alice", PW, sizeof(PW) - 1, 60, &a);
    if (ret == ENOSYS) {
        skip();
    }
    assert_int_equal(ret, EOK);
    assert_true(a > 0);
    assert_int_equal(krb5_pwkey_read(NULL, a, &pw), EOK);
    assert_int_equal(talloc_get_size(pw), sizeof(PW));
    assert_memory_equal(pw, PW, sizeof(PW));   /* with its NUL */
    talloc_free(pw);

    /* Another description: another key. The same description again: the kernel
     * replaces that key's bytes (add_key), which krb5_renew.c never relies on (it drops
     * a user's old key before keeping a new one). */
    assert_int_equal(krb5_pwkey_store("sssd:test:carol", (const uint8_t *)"other", 5, 0, &b),
                     EOK);
    assert_int_not_equal(a, b);
    assert_int_equal(krb5_pwkey_read(NULL, a, &pw), EOK);
    assert_memory_equal(pw, PW, sizeof(PW));
    talloc_free(pw);

    krb5_pwkey_drop(a);
    pw = NULL;
    ret = krb5_pwkey_read(NULL, a, &pw);
    /* ENOKEY, or EACCES once the kernel's collector unlinked it (then we no longer
     * possess it, and nobody else may read it). */
    assert_true(ret == ENOKEY || ret == EACCES || ret == EKEYREVOKED);
    assert_null(pw);
    assert_int_equal(krb5_pwkey_read(NULL, b, &pw), EOK);
    assert_memory_equal(pw, "other", 6);
    talloc_free(pw);
    krb5_pwkey_drop(b);
    krb5_pwkey_drop(0);     /* nothing */
}

static void test_timeout(void **state)
{
    int32_t k = 0;
    uint8_t *pw = NULL;
    errno_t ret = EOK;
    int i;

    (void)state;
    if (krb5_pwkey_store("sssd:test:bob", PW, sizeof(PW) - 1, 1, &k) == ENOSYS) {
        skip();
    }
    assert_true(k > 0);
    /* The kernel ends it after 1 s: wait for that, generously bounded. */
    for (i = 0; i < 100; i++) {
        ret = krb5_pwkey_read(NULL, k, &pw);
        if (ret != EOK) {
            break;
        }
        talloc_zfree(pw);
        usleep(50 * 1000);
    }
    assert_true(ret == EKEYEXPIRED || ret == ENOKEY || ret == EACCES);
    assert_null(pw);
    krb5_pwkey_drop(k);
}

static void test_bad_args(void **state)
{
    int32_t k = 0;
    uint8_t *pw = NULL;

    (void)state;
    assert_int_equal(krb5_pwkey_store(NULL, PW, 3, 0, &k), EINVAL);
    assert_int_equal(krb5_pwkey_store("d", NULL, 3, 0, &k), EINVAL);
    assert_int_equal(krb5_pwkey_store("d", PW, 0, 0, &k), EINVAL);
    assert_int_equal(krb5_pwkey_store("d", PW, 3, 0, NULL), EINVAL);
    assert_int_equal(k, 0);
    assert_int_equal(krb5_pwkey_read(NULL, 0, &pw), EINVAL);
    assert_int_equal(krb5_pwkey_read(NULL, -5, &pw), EINVAL);
    assert_null(pw);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_store_read_drop, setup, teardown),
        cmocka_unit_test_setup_teardown(test_timeout, setup, teardown),
        cmocka_unit_test_setup_teardown(test_bad_args, setup, teardown),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
