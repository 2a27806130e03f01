/* Unit tests of the hash function and table (src/util/sss_hash.h): FNV-1a test vectors, the
 * table against a plain array model under random inserts and removals (with a hash that
 * makes long clusters that wrap around the end), filter, iteration, clear. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdlib.h>
#include <cmocka.h>

#include "util/util.h"

#define KEYS 1000

/* Items and keys are the same small integers + 1, cast to pointers. */
static void *as_ptr(size_t k)
{
    return (void *)(uintptr_t)(k + 1);
}

static bool int_equal(const void *item, const void *key, void *ctx)
{
    size_t *calls = ctx;

    if (calls != NULL) {
        (*calls)++;
    }
    return item == key;
}

/* A deliberately bad hash: few distinct values, all landing near the end of small tables,
 * so clusters are long and wrap around. */
static uint64_t bad_hash(size_t k)
{
    return 0xFFFFFFFBu + (k % 5);     /* the last 5 slots of any table size */
}

static uint64_t good_hash(size_t k)
{
    return sss_hash_u32((uint32_t)k);
}

static void test_fnv1a_vectors(void **state)
{
    /* Published FNV-1a 64-bit test vectors. */
    assert_true(sss_hash_str("") == 0xcbf29ce484222325ULL);
    assert_true(sss_hash_str("a") == 0xaf63dc4c8601ec8cULL);
    assert_true(sss_hash_str("foobar") == 0x85944171f73967e8ULL);
    assert_true(sss_hash_bytes("foobar", 6) == sss_hash_str("foobar"));
    /* Pieces hash as the whole. */
    assert_true(sss_hash_add_str(sss_hash_str("foo"), "bar") == sss_hash_str("foobar"));
}

static void check_model(struct sss_hash_table *t, const bool *present, uint64_t (*hash)(size_t))
{
    size_t n = 0;
    size_t pos = 0;
    void *item;
    size_t k;

    for (k = 0; k < KEYS; k++) {
        if (present[k]) {
            assert_ptr_equal(sss_hash_table_get(t, hash(k), as_ptr(k)), as_ptr(k));
            n++;
        } else {
            assert_null(sss_hash_table_get(t, hash(k), as_ptr(k)));
        }
    }
    assert_int_equal(sss_hash_table_count(t), n);
    k = 0;
    while (sss_hash_table_next(t, &pos, &item)) {
        assert_true(present[(uintptr_t)item - 1]);
        k++;
    }
    assert_int_equal(k, n);
}

static void run_model(uint64_t (*hash)(size_t), size_t ops, unsigned seed)
{
    TALLOC_CTX *mem = talloc_new(NULL);
    struct sss_hash_table *t = sss_hash_table_new(mem, 0, int_equal, NULL);
    bool present[KEYS] = { false };
    void *existing;
    size_t i;
    size_t k;
    errno_t ret;

    assert_non_null(t);
    srand(seed);
    for (i = 0; i < ops; i++) {
        /* Bad hashes make every probe walk the whole cluster: keep those tables small. */
        k = (size_t)rand() % (hash == bad_hash ? 40 : KEYS);
        switch (rand() % 3) {
        case 0:
        case 1:
            existing = NULL;
            ret = sss_hash_table_insert(t, hash(k), as_ptr(k), as_ptr(k), &existing);
            if (present[k]) {
                assert_int_equal(ret, EEXIST);
                assert_ptr_equal(existing, as_ptr(k));
            } else {
                assert_int_equal(ret, EOK);
                present[k] = true;
            }
            break;
        default:
            if (rand() % 2) {
                assert_ptr_equal(sss_hash_table_remove(t, hash(k), as_ptr(k)),
                                 present[k] ? as_ptr(k) : NULL);
            } else {
                assert_int_equal(sss_hash_table_remove_item(t, hash(k), as_ptr(k)),
                                 present[k]);
            }
            present[k] = false;
            break;
        }
        if (i % 97 == 0) {
            check_model(t, present, hash);
        }
    }
    check_model(t, present, hash);
    talloc_free(mem);
}

static void test_table_model_good_hash(void **state)
{
    run_model(good_hash, 20000, 1);
}

static void test_table_model_bad_hash(void **state)
{
    run_model(bad_hash, 20000, 2);
}

static bool keep_even(void *item, void *ctx)
{
    size_t *freed = ctx;

    if (((uintptr_t)item - 1) % 2 == 0) {
        return true;
    }
    (*freed)++;
    return false;
}

static void test_table_filter(void **state)
{
    TALLOC_CTX *mem = talloc_new(NULL);
    uint64_t (*hashes[])(size_t) = { good_hash, bad_hash };
    bool present[KEYS];
    size_t freed;
    size_t h;
    size_t k;
    size_t n;

    for (h = 0; h < 2; h++) {
        struct sss_hash_table *t = sss_hash_table_new(mem, 4, int_equal, NULL);

        n = h == 0 ? KEYS : 40;
        for (k = 0; k < KEYS; k++) {
            present[k] = k < n;
            if (k < n) {
                assert_int_equal(sss_hash_table_insert(t, hashes[h](k), as_ptr(k), as_ptr(k),
                                                       NULL), EOK);
            }
        }
        freed = 0;
        assert_int_equal(sss_hash_table_filter(t, keep_even, &freed), n / 2);
        assert_int_equal(freed, n / 2);
        for (k = 0; k < n; k++) {
            present[k] = k % 2 == 0;
        }
        check_model(t, present, hashes[h]);
    }
    talloc_free(mem);
}

static void test_table_clear_and_args(void **state)
{
    TALLOC_CTX *mem = talloc_new(NULL);
    size_t calls = 0;
    struct sss_hash_table *t = sss_hash_table_new(mem, 100, int_equal, &calls);
    size_t k;

    assert_null(sss_hash_table_new(mem, 0, NULL, NULL));
    assert_non_null(t);
    assert_int_equal(sss_hash_table_insert(t, 1, as_ptr(1), NULL, NULL), EINVAL);
    assert_int_equal(sss_hash_table_insert(NULL, 1, as_ptr(1), as_ptr(1), NULL), EINVAL);
    assert_null(sss_hash_table_get(NULL, 1, as_ptr(1)));
    for (k = 0; k < 100; k++) {
        assert_int_equal(sss_hash_table_insert(t, good_hash(k), as_ptr(k), as_ptr(k), NULL),
                         EOK);
    }
    /* Stored hashes filter the compares: a hit costs about one callback. */
    calls = 0;
    for (k = 0; k < 100; k++) {
        assert_non_null(sss_hash_table_get(t, good_hash(k), as_ptr(k)));
    }
    assert_true(calls < 110);
    sss_hash_table_clear(t);
    assert_int_equal(sss_hash_table_count(t), 0);
    assert_null(sss_hash_table_get(t, good_hash(5), as_ptr(5)));
    assert_int_equal(sss_hash_table_insert(t, good_hash(5), as_ptr(5), as_ptr(5), NULL), EOK);
    talloc_free(mem);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fnv1a_vectors),
        cmocka_unit_test(test_table_model_good_hash),
        cmocka_unit_test(test_table_model_bad_hash),
        cmocka_unit_test(test_table_filter),
        cmocka_unit_test(test_table_clear_and_args),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
