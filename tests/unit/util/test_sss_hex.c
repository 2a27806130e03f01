/* Unit tests of the lowercase hex form (src/util/sss_hex.h): known vectors both ways, every
 * byte value through a round trip, and what the decoder refuses (odd length, uppercase,
 * characters that are not hex digits). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <string.h>
#include <cmocka.h>

#include "util/sss_hex.h"

static void test_vectors(void **state)
{
    static const uint8_t bytes[] = { 0x00, 0x01, 0x7f, 0x80, 0xab, 0xff };
    char hex[2 * sizeof(bytes) + 1];
    char back[sizeof(bytes)];

    (void)state;
    memset(hex, 'x', sizeof(hex));
    sss_hex_encode(bytes, sizeof(bytes), hex);
    assert_string_equal(hex, "00017f80abff");
    assert_int_equal(sss_hex_decode(hex, back), sizeof(bytes));
    assert_memory_equal(back, bytes, sizeof(bytes));

    sss_hex_encode(bytes, 0, hex);
    assert_string_equal(hex, "");
    assert_int_equal(sss_hex_decode("", back), 0);
}

static void test_round_trip(void **state)
{
    uint8_t bytes[256];
    char hex[2 * sizeof(bytes) + 1];
    char back[sizeof(bytes)];
    size_t i;

    (void)state;
    for (i = 0; i < sizeof(bytes); i++) {
        bytes[i] = (uint8_t)i;
    }
    sss_hex_encode(bytes, sizeof(bytes), hex);
    assert_int_equal(strlen(hex), 2 * sizeof(bytes));
    assert_int_equal(strspn(hex, "0123456789abcdef"), 2 * sizeof(bytes));
    assert_int_equal(sss_hex_decode(hex, back), sizeof(bytes));
    assert_memory_equal(back, bytes, sizeof(bytes));
}

static void test_refused(void **state)
{
    char back[8];

    (void)state;
    assert_int_equal(sss_hex_decode("abc", back), 0);       /* odd length */
    assert_int_equal(sss_hex_decode("AB", back), 0);        /* the parser writes lowercase */
    assert_int_equal(sss_hex_decode("0g", back), 0);
    assert_int_equal(sss_hex_decode("g0", back), 0);
    assert_int_equal(sss_hex_decode("0/", back), 0);        /* just below '0' */
    assert_int_equal(sss_hex_decode("00 1", back), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_vectors),
        cmocka_unit_test(test_round_trip),
        cmocka_unit_test(test_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
