/*
 * Latency statistics of the load framework (sss_load): a growable array of raw samples in
 * nanoseconds, merged exactly across workers (the samples themselves are concatenated, never
 * their percentiles), and a summary with nearest-rank percentiles.
 *
 * Ownership: a struct load_samples owns its array (malloc); load_samples_free() releases it.
 * No function keeps a pointer to its arguments.
 */
#ifndef LOAD_STATS_H
#define LOAD_STATS_H

#include <stddef.h>
#include <stdint.h>

struct load_samples {
    uint64_t *ns;       /* latencies, nanoseconds */
    size_t count;       /* samples held */
    size_t size;        /* room in ns[] */
};

struct load_summary {
    size_t count;
    uint64_t min, p50, p90, p99, p999, max;     /* nanoseconds */
    double mean;                                /* nanoseconds */
};

/* A measured window of one worker or of the whole run (CLOCK_MONOTONIC nanoseconds). */
struct load_window {
    uint64_t start, end;
};

void load_samples_init(struct load_samples *s);
void load_samples_free(struct load_samples *s);

/* Makes room for n more samples. 0, or ENOMEM. */
int load_samples_reserve(struct load_samples *s, size_t n);

/* Appends one sample / n samples. 0, or ENOMEM (s unchanged). */
int load_samples_add(struct load_samples *s, uint64_t ns);
int load_samples_append(struct load_samples *s, const uint64_t *ns, size_t n);

/* Sorts in place, ascending. */
void load_samples_sort(struct load_samples *s);

/* Nearest-rank percentile of an ascending array: the smallest value with at least p% of
 * the samples at or below it. p in [0, 100]; p = 0 gives the minimum. n must be > 0. */
uint64_t load_percentile(const uint64_t *sorted, size_t n, double p);

/* Sorts s and fills *out; an empty s gives a summary of zeros. */
void load_summarize(struct load_samples *s, struct load_summary *out);

/* The union of two windows (earliest start, latest end); an empty window (start == end
 * == 0) is the identity. */
void load_window_merge(struct load_window *into, const struct load_window *w);

/* Operations per second over a window; 0 for an empty window. */
double load_throughput(uint64_t ops, const struct load_window *w);

#endif /* LOAD_STATS_H */
