/*
 * Latency statistics of the load framework: see load_stats.h. Percentiles are taken over
 * the merged raw samples of every worker, so a p99 of a run is the p99 of all its operations.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "load_stats.h"

void load_samples_init(struct load_samples *s)
{
    s->ns = NULL;
    s->count = 0;
    s->size = 0;
}

void load_samples_free(struct load_samples *s)
{
    free(s->ns);
    load_samples_init(s);
}

int load_samples_reserve(struct load_samples *s, size_t extra)
{
    size_t want, size;
    uint64_t *ns;

    if (extra > SIZE_MAX / sizeof(uint64_t) - s->count) {
        return ENOMEM;
    }
    want = s->count + extra;
    if (want <= s->size) {
        return 0;
    }
    size = s->size ? s->size : 1024;
    while (size < want) {
        size = size > SIZE_MAX / 2 / sizeof(uint64_t) ? want : size * 2;
    }
    ns = realloc(s->ns, size * sizeof(uint64_t));
    if (ns == NULL) {
        return ENOMEM;
    }
    s->ns = ns;
    s->size = size;
    return 0;
}

int load_samples_add(struct load_samples *s, uint64_t ns)
{
    if (s->count == s->size && load_samples_reserve(s, 1) != 0) {
        return ENOMEM;
    }
    s->ns[s->count++] = ns;
    return 0;
}

int load_samples_append(struct load_samples *s, const uint64_t *ns, size_t n)
{
    if (n == 0) {
        return 0;
    }
    if (load_samples_reserve(s, n) != 0) {
        return ENOMEM;
    }
    memcpy(s->ns + s->count, ns, n * sizeof(uint64_t));
    s->count += n;
    return 0;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

    return x < y ? -1 : x > y;
}

void load_samples_sort(struct load_samples *s)
{
    if (s->count > 1) {
        qsort(s->ns, s->count, sizeof(uint64_t), cmp_u64);
    }
}

uint64_t load_percentile(const uint64_t *sorted, size_t n, double p)
{
    uint64_t milli, r;

    if (p <= 0) {
        return sorted[0];
    }
    if (p >= 100) {
        return sorted[n - 1];
    }
    /* rank = ceil(p/100 * n) in integers (p in thousandths of a percent), so that 99.9% of
     * 1000 samples is rank 999 exactly, free of binary-fraction rounding. */
    milli = (uint64_t)llround(p * 1000.0);
    r = (milli * (uint64_t)n + 99999) / 100000;
    if (r < 1) {
        r = 1;
    }
    return sorted[(r > n ? n : r) - 1];
}

void load_summarize(struct load_samples *s, struct load_summary *out)
{
    long double sum = 0;
    size_t i;

    memset(out, 0, sizeof(*out));
    if (s->count == 0) {
        return;
    }
    load_samples_sort(s);
    for (i = 0; i < s->count; i++) {
        sum += s->ns[i];
    }
    out->count = s->count;
    out->min = s->ns[0];
    out->max = s->ns[s->count - 1];
    out->p50 = load_percentile(s->ns, s->count, 50);
    out->p90 = load_percentile(s->ns, s->count, 90);
    out->p99 = load_percentile(s->ns, s->count, 99);
    out->p999 = load_percentile(s->ns, s->count, 99.9);
    out->mean = (double)(sum / s->count);
}

void load_window_merge(struct load_window *into, const struct load_window *w)
{
    if (w->start == 0 && w->end == 0) {
        return;
    }
    if (into->start == 0 && into->end == 0) {
        *into = *w;
        return;
    }
    if (w->start < into->start) {
        into->start = w->start;
    }
    if (w->end > into->end) {
        into->end = w->end;
    }
}

double load_throughput(uint64_t ops, const struct load_window *w)
{
    if (w->end <= w->start) {
        return 0;
    }
    return (double)ops * 1e9 / (double)(w->end - w->start);
}
