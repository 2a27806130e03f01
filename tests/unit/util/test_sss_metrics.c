/*
 * sss_metrics: counters by name and labels (one metric per label set, the same pointer on
 * every lookup), a name reused with another type refused, histogram buckets (an
 * observation on a bucket's bound falls in it, cumulative in the text, +Inf and _count
 * equal, _sum in seconds), collectors run before rendering and gone once removed, and the
 * exposition text itself.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "util/util.h"
#include "util/sss_metrics.h"

static int teardown(void **state)
{
    sss_metrics_reset();
    return 0;
}

static void test_counters(void **state)
{
    struct sss_metric *a = sss_metric_get("sssd_x_total", "X", SSS_METRIC_COUNTER, "k=\"a\"");
    struct sss_metric *b = sss_metric_get("sssd_x_total", "X", SSS_METRIC_COUNTER, "k=\"b\"");
    char *text;

    assert_non_null(a);
    assert_non_null(b);
    assert_ptr_not_equal(a, b);
    assert_ptr_equal(a, sss_metric_get("sssd_x_total", "X", SSS_METRIC_COUNTER, "k=\"a\""));
    assert_null(sss_metric_get("sssd_x_total", "X", SSS_METRIC_HISTOGRAM, ""));
    sss_metric_inc(a);
    sss_metric_inc(a);
    sss_metric_inc(b);
    sss_metric_inc(NULL);
    text = sss_metrics_render(NULL, "proc");
    assert_string_equal(text, "# HELP sssd_x_total X\n# TYPE sssd_x_total counter\n"
                              "sssd_x_total{process=\"proc\",k=\"a\"} 2\n"
                              "sssd_x_total{process=\"proc\",k=\"b\"} 1\n");
    talloc_free(text);
}

static void test_histogram(void **state)
{
    struct sss_metric *h = sss_metric_get("sssd_t_seconds", "T", SSS_METRIC_HISTOGRAM, "");
    char *text;

    sss_metric_observe(h, 100);         /* on the first bound: in it */
    sss_metric_observe(h, 101);         /* the next bucket (250 us) */
    sss_metric_observe(h, 20000000);    /* above every bound: +Inf only */
    assert_int_equal(h->value, 3);
    assert_int_equal(h->buckets[0], 1);
    assert_int_equal(h->buckets[1], 1);
    text = sss_metrics_render(NULL, "p");
    assert_non_null(strstr(text, "# TYPE sssd_t_seconds histogram\n"));
    assert_non_null(strstr(text, "sssd_t_seconds_bucket{process=\"p\",le=\"0.0001\"} 1\n"));
    assert_non_null(strstr(text, "sssd_t_seconds_bucket{process=\"p\",le=\"0.00025\"} 2\n"));
    assert_non_null(strstr(text, "sssd_t_seconds_bucket{process=\"p\",le=\"10\"} 2\n"));
    assert_non_null(strstr(text, "sssd_t_seconds_bucket{process=\"p\",le=\"+Inf\"} 3\n"));
    assert_non_null(strstr(text, "sssd_t_seconds_sum{process=\"p\"} 20.000201\n"
                                 "sssd_t_seconds_count{process=\"p\"} 3\n"));
    talloc_free(text);
}

static void collect(void *pvt)
{
    (*(int *)pvt)++;
    sss_metric_set(sss_metric_get("sssd_c_total", "C", SSS_METRIC_COUNTER, ""), 42);
}

static void test_collector(void **state)
{
    struct sss_metric_collector *c;
    int calls = 0;
    char *text;

    c = sss_metrics_add_collector(collect, &calls);
    assert_non_null(c);
    text = sss_metrics_render(NULL, "p");
    assert_int_equal(calls, 1);
    assert_non_null(strstr(text, "sssd_c_total{process=\"p\"} 42\n"));
    talloc_free(text);
    sss_metrics_remove_collector(c);
    text = sss_metrics_render(NULL, "p");
    assert_int_equal(calls, 1);
    talloc_free(text);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_teardown(test_counters, teardown),
        cmocka_unit_test_teardown(test_histogram, teardown),
        cmocka_unit_test_teardown(test_collector, teardown),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
