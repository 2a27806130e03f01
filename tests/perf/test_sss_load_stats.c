/*
 * Unit tests of tests/perf/load_stats.c, the statistics of the load framework: nearest-rank
 * percentiles, exact merging of the samples of several workers, windows and throughput.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

#include "load_stats.h"

static void fill(struct load_samples *s, uint64_t from, uint64_t to)
{
    uint64_t v;

    for (v = from; v <= to; v++) {
        assert_int_equal(load_samples_add(s, v), 0);
    }
}

static void test_percentile_nearest_rank(void **state)
{
    uint64_t one[] = {42};
    uint64_t two[] = {10, 20};
    struct load_samples s;

    load_samples_init(&s);
    fill(&s, 1, 100);
    assert_int_equal(load_percentile(s.ns, s.count, 0), 1);
    assert_int_equal(load_percentile(s.ns, s.count, 1), 1);
    assert_int_equal(load_percentile(s.ns, s.count, 50), 50);
    assert_int_equal(load_percentile(s.ns, s.count, 50.5), 51);
    assert_int_equal(load_percentile(s.ns, s.count, 90), 90);
    assert_int_equal(load_percentile(s.ns, s.count, 99), 99);
    assert_int_equal(load_percentile(s.ns, s.count, 99.9), 100);
    assert_int_equal(load_percentile(s.ns, s.count, 100), 100);
    load_samples_free(&s);

    /* 99.9% of 1000 is rank 999 exactly: no rounding up to the maximum */
    fill(&s, 1, 1000);
    assert_int_equal(load_percentile(s.ns, s.count, 99.9), 999);
    assert_int_equal(load_percentile(s.ns, s.count, 99), 990);
    load_samples_free(&s);

    assert_int_equal(load_percentile(one, 1, 0), 42);
    assert_int_equal(load_percentile(one, 1, 50), 42);
    assert_int_equal(load_percentile(one, 1, 99.9), 42);
    assert_int_equal(load_percentile(two, 2, 50), 10);
    assert_int_equal(load_percentile(two, 2, 50.1), 20);
}

static void test_summary(void **state)
{
    struct load_samples s;
    struct load_summary sum;
    uint64_t v;

    load_samples_init(&s);
    /* out of order on purpose: summarize sorts */
    for (v = 1000; v >= 1; v--) {
        assert_int_equal(load_samples_add(&s, v * 1000), 0);
    }
    load_summarize(&s, &sum);
    assert_int_equal(sum.count, 1000);
    assert_int_equal(sum.min, 1000);
    assert_int_equal(sum.p50, 500000);
    assert_int_equal(sum.p90, 900000);
    assert_int_equal(sum.p99, 990000);
    assert_int_equal(sum.p999, 999000);
    assert_int_equal(sum.max, 1000000);
    assert_true(sum.mean > 500499.9 && sum.mean < 500500.1);
    assert_int_equal(s.ns[0], 1000);
    load_samples_free(&s);

    load_summarize(&s, &sum);
    assert_int_equal(sum.count, 0);
    assert_int_equal(sum.p50, 0);
    assert_int_equal(sum.max, 0);
}

/* Two workers, one fast and one slow: the merged percentiles are those of all operations,
 * not the mean of each worker's percentile. */
static void test_merge_is_exact(void **state)
{
    struct load_samples fast, slow, all, ref;
    struct load_summary a, b, m, r;
    uint64_t v;

    load_samples_init(&fast);
    load_samples_init(&slow);
    load_samples_init(&all);
    load_samples_init(&ref);
    fill(&fast, 1, 900);               /* 900 operations of 1..900 ns */
    for (v = 0; v < 100; v++) {        /* 100 operations of 10,000..10,099 ns */
        assert_int_equal(load_samples_add(&slow, 10000 + v), 0);
    }
    assert_int_equal(load_samples_append(&all, slow.ns, slow.count), 0);
    assert_int_equal(load_samples_append(&all, fast.ns, fast.count), 0);
    assert_int_equal(all.count, 1000);

    load_summarize(&all, &m);
    assert_int_equal(m.p50, 500);
    assert_int_equal(m.p90, 900);
    assert_int_equal(m.p99, 10089);
    assert_int_equal(m.p999, 10098);
    assert_int_equal(m.max, 10099);

    /* the same as one list built in one go, whatever the order of the merge */
    fill(&ref, 1, 900);
    for (v = 0; v < 100; v++) {
        assert_int_equal(load_samples_add(&ref, 10000 + v), 0);
    }
    load_summarize(&ref, &r);
    assert_memory_equal(&m, &r, sizeof(m));

    /* and not what averaging the workers' own p50 would say */
    load_summarize(&fast, &a);
    load_summarize(&slow, &b);
    assert_int_not_equal(m.p50, (a.p50 + b.p50) / 2);

    load_samples_free(&fast);
    load_samples_free(&slow);
    load_samples_free(&all);
    load_samples_free(&ref);
}

static void test_growth(void **state)
{
    struct load_samples s;
    uint64_t big[5000];
    size_t i;

    load_samples_init(&s);
    assert_int_equal(load_samples_append(&s, NULL, 0), 0);
    assert_int_equal(s.count, 0);
    for (i = 0; i < 5000; i++) {
        big[i] = i;
    }
    /* across several reallocations, nothing lost or reordered */
    assert_int_equal(load_samples_append(&s, big, 1000), 0);
    assert_int_equal(load_samples_add(&s, 7), 0);
    assert_int_equal(load_samples_append(&s, big, 5000), 0);
    assert_int_equal(s.count, 6001);
    assert_true(s.size >= s.count);
    assert_int_equal(s.ns[999], 999);
    assert_int_equal(s.ns[1000], 7);
    assert_int_equal(s.ns[1001], 0);
    assert_int_equal(s.ns[6000], 4999);
    assert_int_equal(load_samples_reserve(&s, 100000), 0);
    assert_true(s.size >= 106001);
    assert_int_equal(s.count, 6001);
    assert_int_equal(load_samples_reserve(&s, SIZE_MAX), ENOMEM);
    assert_int_equal(s.count, 6001);
    load_samples_free(&s);
    assert_null(s.ns);
    assert_int_equal(s.count, 0);
}

static void test_window_and_throughput(void **state)
{
    struct load_window all = {0, 0};
    struct load_window w1 = {1000, 500001000};
    struct load_window w2 = {2000, 600000000};
    struct load_window empty = {0, 0};

    load_window_merge(&all, &empty);
    assert_int_equal(all.start, 0);
    assert_int_equal(all.end, 0);
    assert_true(load_throughput(10, &all) == 0);

    load_window_merge(&all, &w2);
    load_window_merge(&all, &w1);
    load_window_merge(&all, &empty);
    assert_int_equal(all.start, 1000);
    assert_int_equal(all.end, 600000000);

    /* 1000 operations in 0.5 s */
    assert_true(load_throughput(1000, &w1) > 1999.999 && load_throughput(1000, &w1) < 2000.001);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_percentile_nearest_rank),
        cmocka_unit_test(test_summary),
        cmocka_unit_test(test_merge_is_exact),
        cmocka_unit_test(test_growth),
        cmocka_unit_test(test_window_and_throughput),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
