/* Unit tests of src/util: bus name escaping, error texts, debug level translation. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "util/util.h"

static void test_bus_name_escape(void **state)
{
    char *s;

    s = sss_domain_bus_name(NULL, "ldap.test");
    assert_string_equal(s, "sssd.domain_ldap_2etest");
    talloc_free(s);

    s = sss_bus_name_escape(NULL, "a-b_c Z9");
    assert_string_equal(s, "a_2db_5fc_20Z9");
    talloc_free(s);

    s = sss_bus_name_escape(NULL, "\xc3\xa9");
    assert_string_equal(s, "_c3_a9");
    talloc_free(s);

    s = sss_bus_name_escape(NULL, "");
    assert_string_equal(s, "");
    talloc_free(s);

    assert_null(sss_bus_name_escape(NULL, NULL));
}

static void test_strerror(void **state)
{
    assert_string_equal(sss_strerror(EOK), strerror(0));
    assert_string_equal(sss_strerror(ENOENT), strerror(ENOENT));
    assert_string_equal(sss_strerror(ERR_SBUS_UNKNOWN_SERVICE), "No such service on the bus");
    assert_string_equal(sss_strerror(ERR_BASE + 0xFFF0), "Unknown project error");
    assert_true(IS_SSSD_ERROR(ERR_INTERNAL));
    assert_false(IS_SSSD_ERROR(EINVAL));
}

static void test_debug_levels(void **state)
{
    assert_int_equal(debug_convert_level(0), SSSDBG_FATAL_FAILURE);
    assert_int_equal(debug_convert_level(2), SSSDBG_DEFAULT);
    assert_int_equal(debug_convert_level(9), 0x17FF0);
    assert_int_equal(debug_convert_level(0x3ff0), 0x3ff0);
    assert_int_equal(debug_convert_level(-1), SSSDBG_DEFAULT);
}

static void test_logger_parse(void **state)
{
    enum sss_logger l;

    assert_int_equal(debug_parse_logger("stderr", &l), EOK);
    assert_int_equal(l, SSS_LOGGER_STDERR);
    assert_int_equal(debug_parse_logger("files", &l), EOK);
    assert_int_equal(l, SSS_LOGGER_FILES);
    assert_int_equal(debug_parse_logger("journald2", &l), EINVAL);
    assert_int_equal(debug_parse_logger(NULL, &l), EINVAL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bus_name_escape),
        cmocka_unit_test(test_strerror),
        cmocka_unit_test(test_debug_levels),
        cmocka_unit_test(test_logger_parse),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
