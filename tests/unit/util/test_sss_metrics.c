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

/* Label values escaped as the exposition format wants; LDAP results by class. */
static void test_labels_and_ldap_classes(void **state)
{
    char buf[64];
    char small[6];
    char *text;

    assert_string_equal(sss_metric_label_value(buf, sizeof(buf), "a\"b\\c\nd"),
                        "a\\\"b\\\\c\\nd");
    /* cut short, never an escape cut in half */
    sss_metric_label_value(small, sizeof(small), "ab\"cd");
    assert_true(strlen(small) < sizeof(small));
    assert_true(strlen(small) == 0 || small[strlen(small) - 1] != '\\');

    sss_metric_ldap_op("ldap://x", "search", 0);
    sss_metric_ldap_op("ldap://x", "search", 32);
    sss_metric_ldap_op("ldap://x", "user_bind", 49);
    sss_metric_ldap_op("ldap://x", "search", 4);
    sss_metric_ldap_op("ldap://x", "passwd_modify", 53);
    sss_metric_ldap_op("ldap://x", "starttls", -1);
    sss_metric_ldap_op("ldap://x", "search", 80);
    text = sss_metrics_render(NULL, "p");
    assert_non_null(text);
    assert_non_null(strstr(text, "operation=\"search\",result=\"success\"} 1\n"));
    assert_non_null(strstr(text, "operation=\"search\",result=\"no_such_object\"} 1\n"));
    assert_non_null(strstr(text, "operation=\"user_bind\",result=\"refused\"} 1\n"));
    assert_non_null(strstr(text, "operation=\"search\",result=\"limit\"} 1\n"));
    assert_non_null(strstr(text, "operation=\"passwd_modify\",result=\"unavailable\"} 1\n"));
    assert_non_null(strstr(text, "operation=\"starttls\",result=\"no_answer\"} 1\n"));
    assert_non_null(strstr(text, "operation=\"search\",result=\"other_error\"} 1\n"));
    talloc_free(text);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_teardown(test_counters, teardown),
        cmocka_unit_test_teardown(test_histogram, teardown),
        cmocka_unit_test_teardown(test_collector, teardown),
        cmocka_unit_test_teardown(test_labels_and_ldap_classes, teardown),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
