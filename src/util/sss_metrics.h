/*
 * Per-process metrics: counters and latency histograms, read over the bus
 * (sssd.service.GetMetrics) and rendered in the Prometheus text exposition format.
 *
 * Cheap by construction: the services are single-threaded, so a metric is a plain struct
 * and counting is one increment through a pointer the caller keeps (looked up once, by
 * name and labels, with sss_metric_get()); no lock, no atomic, no allocation on the hot
 * path. Numbers that other modules already keep (struct be_stats, sdap's per-server
 * counts) are not counted twice: a collector copies them into metrics when they are read.
 *
 * Naming follows Prometheus: sssd_<what>_total for counters, sssd_<what>_seconds for
 * histograms (buckets "le" in seconds, cumulative, +Inf, _sum, _count). Every sample gets
 * process="<debug_prg_name>" when rendered.
 *
 * Ownership: metrics live for the whole process, in plain malloc'ed memory (not on any
 * talloc context, so unit tests' talloc leak checks do not see them); sss_metrics_reset()
 * frees them (tests).
 */
#ifndef SSS_METRICS_H
#define SSS_METRICS_H

#include <stdbool.h>
#include <stdint.h>
#include <talloc.h>

enum sss_metric_type {
    SSS_METRIC_COUNTER,
    SSS_METRIC_HISTOGRAM,
};

/* Upper bounds of the histogram buckets in microseconds (+Inf is implicit). */
#define SSS_METRIC_BUCKETS 16
extern const uint64_t sss_metric_bucket_usec[SSS_METRIC_BUCKETS];

struct sss_metric {
    struct sss_metric *next;                /* in its family */
    char *labels;                           /* 'command="0x0011"', or "" */
    uint64_t value;                         /* counter value; histogram: count */
    uint64_t sum_usec;                      /* histogram only */
    uint64_t buckets[SSS_METRIC_BUCKETS];   /* histogram only; not cumulative */
};

/*
 * The metric of family name (created with help and type on first use) with labels, a
 * complete Prometheus label list without braces ("" or 'server="ldap://x"'), created at
 * zero on first use. NULL when out of memory or when name is known with another type;
 * the increment functions accept NULL (nothing is counted).
 */
struct sss_metric *sss_metric_get(const char *name, const char *help,
                                  enum sss_metric_type type, const char *labels);

static inline void sss_metric_inc(struct sss_metric *m)
{
    if (m != NULL) {
        m->value++;
    }
}

/* For collectors: the counter takes the value another module keeps. */
static inline void sss_metric_set(struct sss_metric *m, uint64_t value)
{
    if (m != NULL) {
        m->value = value;
    }
}

/*
 * Writes value into buf as a Prometheus label value (backslash, double quote and newline
 * escaped). Returns buf; a value that does not fit is cut short.
 */
const char *sss_metric_label_value(char *buf, size_t size, const char *value);

/*
 * The end of one LDAP operation (operation: "search", "bind" of the connection,
 * "user_bind", "passwd_modify", "starttls") with server,
 * counted in sssd_ldap_operations_total{server,operation,result} where result is the class
 * of ldap_result: "success"; "no_such_object"; "refused" (invalid credentials, access
 * rights, inappropriate authentication); "limit" (size, time, admin limit, referral:
 * part of the answer only); "unavailable" (busy, unavailable, unwilling to perform);
 * "no_answer" (libldap's negative codes: server down, timeout, connection lost, or -1
 * for an operation given up without a result); "other_error". Once per operation on the
 * wire (each page of a paged search), never on the warm lookup path.
 */
void sss_metric_ldap_op(const char *server, const char *operation, int ldap_result);

/* One observation of a duration, in microseconds. */
void sss_metric_observe(struct sss_metric *m, uint64_t usec);

/* A function called before every rendering to refresh metrics from other modules' own
 * counters. The returned handle removes it (sss_metrics_remove_collector), e.g. from a
 * destructor of the object pvt points to. NULL when out of memory. */
struct sss_metric_collector;
struct sss_metric_collector *sss_metrics_add_collector(void (*fn)(void *pvt), void *pvt);
void sss_metrics_remove_collector(struct sss_metric_collector *c);

/* The exposition text of every metric, each sample labelled process="<process>".
 * NULL when out of memory. */
char *sss_metrics_render(TALLOC_CTX *mem_ctx, const char *process);

/* Frees every metric and collector (tests). */
void sss_metrics_reset(void);

#endif /* SSS_METRICS_H */
