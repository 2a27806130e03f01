/* Unit tests of the comma-separated value reader (src/util/sss_csv.h): the items and their
 * trimming, empty items where a caller must see them (leading, doubled and trailing
 * commas, an empty value), the end of the list, and a value with no blanks to trim. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <string.h>
#include <cmocka.h>

#include "util/sss_csv.h"

/* The items of value as "[a][b]..." into out. */
static void items(const char *value, const char *blanks, char *out, size_t size)
{
    const char *pos = value;
    const char *item;
    size_t len;
    size_t used = 0;

    out[0] = '\0';
    while (sss_csv_next(&pos, blanks, &item, &len)) {
        assert_true(used + len + 3 <= size);
        out[used++] = '[';
        memcpy(out + used, item, len);
        used += len;
        out[used++] = ']';
        out[used] = '\0';
    }
    assert_null(pos);
    /* Once done, it stays done. */
    assert_false(sss_csv_next(&pos, blanks, &item, &len));
}

static void check(const char *value, const char *blanks, const char *want)
{
    char out[256];

    items(value, blanks, out, sizeof(out));
    assert_string_equal(out, want);
}

static void test_items(void **state)
{
    (void)state;
    check("a", " \t", "[a]");
    check("a,b,c", " \t", "[a][b][c]");
    check(" a ,\tb\t, c d ", " \t", "[a][b][c d]");
    check("filter, access ,expire", " \t", "[filter][access][expire]");
}

static void test_empty_items(void **state)
{
    (void)state;
    check("", " \t", "[]");
    check("  ", " \t", "[]");
    check(",", " \t", "[][]");
    check("a,", " \t", "[a][]");
    check(",a", " \t", "[][a]");
    check("a,, ,b", " \t", "[a][][][b]");
}

static void test_blanks(void **state)
{
    (void)state;
    /* Only the blanks named are trimmed, and only around an item. */
    check(" a\t, b ", " ", "[a\t][b]");
    check(" a , b ", "", "[ a ][ b ]");
    check("\r\na b\f,\v", " \t\r\n\v\f", "[a b][]");
}

static void test_end(void **state)
{
    const char *pos = NULL;
    const char *item = "unchanged";
    size_t len = 7;

    (void)state;
    assert_false(sss_csv_next(&pos, " ", &item, &len));
    assert_string_equal(item, "unchanged");
    assert_int_equal(len, 7);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_items),
        cmocka_unit_test(test_empty_items),
        cmocka_unit_test(test_blanks),
        cmocka_unit_test(test_end),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
