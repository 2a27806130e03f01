/* MurmurHash3 x86_32 against the algorithm's published test vectors, and the memory-cache
 * layout sizes PROTOCOL.md fixes. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <string.h>
#include <cmocka.h>

#include "sss_client/murmurhash3.h"
#include "sss_client/sss_mc.h"

static void test_vectors(void **state)
{
    assert_int_equal(murmurhash3("", 0, 0), 0);
    assert_int_equal(murmurhash3("", 0, 1), 0x514e28b7);
    assert_int_equal(murmurhash3("", 0, 0xffffffff), 0x81f16f39);
    assert_int_equal(murmurhash3("hello", 5, 0), 0x248bfa47);
    assert_int_equal(murmurhash3("Hello, world!", 13, 1234), 0xfaf6cdb3);
    assert_int_equal(murmurhash3("The quick brown fox jumps over the lazy dog", 43, 0),
                     0x2e4ff723);
}

static void test_tail_lengths(void **state)
{
    /* Every tail length gives a different hash, and the NUL counts when included. */
    assert_int_not_equal(murmurhash3("abc", 3, 7), murmurhash3("abc", 4, 7));
    assert_int_not_equal(murmurhash3("abcd", 1, 7), murmurhash3("abcd", 2, 7));
    assert_int_not_equal(murmurhash3("abcd", 2, 7), murmurhash3("abcd", 3, 7));
}

static void test_layout(void **state)
{
    assert_int_equal(sizeof(struct sss_mc_header), 52);
    assert_int_equal(MC_HEADER_SIZE, 56);
    assert_int_equal(sizeof(struct sss_mc_rec), MC_SLOT_SIZE);
    assert_int_equal(offsetof(struct sss_mc_rec, expire), 8);
    assert_int_equal(sizeof(struct sss_mc_pwd_data), 16);
    assert_int_equal(sizeof(struct sss_mc_grp_data), 16);
    assert_int_equal(sizeof(struct sss_mc_initgr_data), 24);
    assert_int_equal(MC_SLOT_COUNT(8) % 8, 0);
    assert_true(MC_VALID_BARRIER(MC_NEXT_BARRIER(0xf0ffffff)));
    assert_int_equal(MC_NEXT_BARRIER(0xf0ffffff), 0xf0000000);
    assert_false(MC_VALID_BARRIER(0));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_vectors),
        cmocka_unit_test(test_tail_lengths),
        cmocka_unit_test(test_layout),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
