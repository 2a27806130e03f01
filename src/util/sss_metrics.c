/*
 * Per-process metrics (sss_metrics.h): families in a list, each a list of labelled
 * metrics, rendered in the Prometheus text exposition format (version 0.0.4).
 */
#include <assert.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/util.h"
#include "util/sss_metrics.h"

const uint64_t sss_metric_bucket_usec[SSS_METRIC_BUCKETS] = {
    100, 250, 500, 1000, 2500, 5000, 10000, 25000, 50000, 100000, 250000, 500000,
    1000000, 2500000, 5000000, 10000000,
};

struct sss_metric_family {
    struct sss_metric_family *next;
    char *name;
    char *help;
    enum sss_metric_type type;
    struct sss_metric *metrics;
    struct sss_metric **tail;       /* appending keeps the creation order */
};

struct sss_metric_collector {
    struct sss_metric_collector *next;
    void (*fn)(void *pvt);
    void *pvt;
};

static struct sss_metric_family *families;
static struct sss_metric_family **families_tail = &families;
static struct sss_metric_collector *collectors;

static struct sss_metric_family *family_get(const char *name, const char *help,
                                            enum sss_metric_type type)
{
    struct sss_metric_family *f;

    for (f = families; f != NULL; f = f->next) {
        if (strcmp(f->name, name) == 0) {
            return f->type == type ? f : NULL;
        }
    }
    f = calloc(1, sizeof(*f));
    if (f == NULL) {
        return NULL;
    }
    f->name = strdup(name);
    f->help = strdup(help != NULL ? help : "");
    if (f->name == NULL || f->help == NULL) {
        free(f->name);
        free(f->help);
        free(f);
        return NULL;
    }
    f->type = type;
    f->tail = &f->metrics;
    *families_tail = f;
    families_tail = &f->next;
    return f;
}

struct sss_metric *sss_metric_get(const char *name, const char *help,
                                  enum sss_metric_type type, const char *labels)
{
    struct sss_metric_family *f;
    struct sss_metric *m;

    if (name == NULL) {
        return NULL;
    }
    labels = labels != NULL ? labels : "";
    f = family_get(name, help, type);
    if (f == NULL) {
        return NULL;
    }
    for (m = f->metrics; m != NULL; m = m->next) {
        if (strcmp(m->labels, labels) == 0) {
            return m;
        }
    }
    m = calloc(1, sizeof(*m));
    if (m == NULL) {
        return NULL;
    }
    m->labels = strdup(labels);
    if (m->labels == NULL) {
        free(m);
        return NULL;
    }
    *f->tail = m;
    f->tail = &m->next;
    return m;
}

const char *sss_metric_label_value(char *buf, size_t size, const char *value)
{
    size_t n = 0;
    const char *esc;

    assert(buf != NULL && size > 0);
    for (; value != NULL && *value != '\0'; value++) {
        switch (*value) {
        case '\\': esc = "\\\\"; break;
        case '"': esc = "\\\""; break;
        case '\n': esc = "\\n"; break;
        default: esc = NULL; break;
        }
        if (n + (esc != NULL ? 2 : 1) >= size) {
            break;
        }
        if (esc != NULL) {
            buf[n++] = esc[0];
            buf[n++] = esc[1];
        } else {
            buf[n++] = *value;
        }
    }
    buf[n] = '\0';
    return buf;
}

/* Result codes of RFC 4511, section 4.1.9, and libldap's client side (negative). */
static const char *sss_metric_ldap_class(int result)
{
    if (result < 0) {
        return "no_answer";
    }
    switch (result) {
    case 0:                     /* success */
        return "success";
    case 32:                    /* noSuchObject */
        return "no_such_object";
    case 48:                    /* inappropriateAuthentication */
    case 49:                    /* invalidCredentials */
    case 50:                    /* insufficientAccessRights */
        return "refused";
    case 3:                     /* timeLimitExceeded */
    case 4:                     /* sizeLimitExceeded */
    case 9:                     /* LDAPv2 partial results (referral) */
    case 10:                    /* referral */
    case 11:                    /* adminLimitExceeded */
        return "limit";
    case 51:                    /* busy */
    case 52:                    /* unavailable */
    case 53:                    /* unwillingToPerform */
        return "unavailable";
    default:
        return "other_error";
    }
}

void sss_metric_ldap_op(const char *server, const char *operation, int ldap_result)
{
    char value[512];
    char labels[640];

    sss_metric_label_value(value, sizeof(value), server != NULL ? server : "");
    snprintf(labels, sizeof(labels), "server=\"%s\",operation=\"%s\",result=\"%s\"", value,
             operation, sss_metric_ldap_class(ldap_result));
    sss_metric_inc(sss_metric_get("sssd_ldap_operations_total", "LDAP operations that "
                                  "ended, by server, operation and result class",
                                  SSS_METRIC_COUNTER, labels));
}

void sss_metric_observe(struct sss_metric *m, uint64_t usec)
{
    size_t i;

    if (m == NULL) {
        return;
    }
    m->value++;
    m->sum_usec += usec;
    for (i = 0; i < SSS_METRIC_BUCKETS; i++) {
        if (usec <= sss_metric_bucket_usec[i]) {
            m->buckets[i]++;
            return;
        }
    }
}

struct sss_metric_collector *sss_metrics_add_collector(void (*fn)(void *pvt), void *pvt)
{
    struct sss_metric_collector *c = calloc(1, sizeof(*c));

    if (c == NULL) {
        return NULL;
    }
    c->fn = fn;
    c->pvt = pvt;
    c->next = collectors;
    collectors = c;
    return c;
}

void sss_metrics_remove_collector(struct sss_metric_collector *c)
{
    struct sss_metric_collector **p;

    for (p = &collectors; *p != NULL; p = &(*p)->next) {
        if (*p == c) {
            *p = c->next;
            free(c);
            return;
        }
    }
}

/* name{process="p",labels[,extra]} */
static char *render_series(char *text, const char *name, const char *suffix,
                           const char *process, const char *labels, const char *extra)
{
    return talloc_asprintf_append_buffer(text, "%s%s{process=\"%s\"%s%s%s%s} ", name, suffix,
                                         process, labels[0] != '\0' ? "," : "", labels,
                                         extra != NULL ? "," : "", extra != NULL ? extra : "");
}

static char *render_histogram(char *text, const struct sss_metric_family *f,
                              const struct sss_metric *m, const char *process)
{
    uint64_t cumulative = 0;
    char le[48];
    size_t i;

    for (i = 0; text != NULL && i < SSS_METRIC_BUCKETS; i++) {
        cumulative += m->buckets[i];
        snprintf(le, sizeof(le), "le=\"%g\"", (double)sss_metric_bucket_usec[i] / 1e6);
        text = render_series(text, f->name, "_bucket", process, m->labels, le);
        text = talloc_asprintf_append_buffer(text, "%" PRIu64 "\n", cumulative);
    }
    text = render_series(text, f->name, "_bucket", process, m->labels, "le=\"+Inf\"");
    text = talloc_asprintf_append_buffer(text, "%" PRIu64 "\n", m->value);
    text = render_series(text, f->name, "_sum", process, m->labels, NULL);
    text = talloc_asprintf_append_buffer(text, "%.6f\n", (double)m->sum_usec / 1e6);
    text = render_series(text, f->name, "_count", process, m->labels, NULL);
    return talloc_asprintf_append_buffer(text, "%" PRIu64 "\n", m->value);
}

char *sss_metrics_render(TALLOC_CTX *mem_ctx, const char *process)
{
    struct sss_metric_collector *c;
    struct sss_metric_family *f;
    struct sss_metric *m;
    char *text;

    for (c = collectors; c != NULL; c = c->next) {
        c->fn(c->pvt);
    }
    text = talloc_strdup(mem_ctx, "");
    for (f = families; text != NULL && f != NULL; f = f->next) {
        text = talloc_asprintf_append_buffer(text, "# HELP %s %s\n# TYPE %s %s\n", f->name,
                                             f->help, f->name,
                                             f->type == SSS_METRIC_COUNTER ? "counter"
                                                                           : "histogram");
        for (m = f->metrics; text != NULL && m != NULL; m = m->next) {
            if (f->type == SSS_METRIC_HISTOGRAM) {
                text = render_histogram(text, f, m, process);
                continue;
            }
            text = render_series(text, f->name, "", process, m->labels, NULL);
            text = talloc_asprintf_append_buffer(text, "%" PRIu64 "\n", m->value);
        }
    }
    return text;
}

void sss_metrics_reset(void)
{
    struct sss_metric_family *f;
    struct sss_metric *m;

    while (collectors != NULL) {
        sss_metrics_remove_collector(collectors);
    }
    while ((f = families) != NULL) {
        families = f->next;
        while ((m = f->metrics) != NULL) {
            f->metrics = m->next;
            free(m->labels);
            free(m);
        }
        free(f->name);
        free(f->help);
        free(f);
    }
    families_tail = &families;
}
