/*
 * The responders' metrics (sss_metrics.h): requests and their latency per command, cache
 * lookups found or missed in the domains' caches, negative-cache hits, calls to the
 * back-ends over the bus. Each is one increment through a pointer looked up once; the
 * inline helpers below are the one-liners the hot files call.
 *
 * The memory cache is read by the clients themselves, without asking the responder: its
 * hits are invisible here by design. Lookups that reach sssd_nss are the memory cache's
 * misses (or lookups with the memory cache off).
 */
#ifndef RESP_METRICS_H
#define RESP_METRICS_H

#include <stdbool.h>
#include <stdint.h>

#include "util/sss_metrics.h"

/* Counts a request of cmd; returns its start time for resp_metrics_answered(). */
uint64_t resp_metrics_request(uint32_t cmd);
/* The request's reply went out: its latency into the command's histogram. */
void resp_metrics_answered(uint32_t cmd, uint64_t start_usec);

struct resp_metrics_hot {
    struct sss_metric *cache_hit;
    struct sss_metric *cache_miss;
    struct sss_metric *negcache_hit;
    struct sss_metric *dp_call;
};
extern struct resp_metrics_hot resp_metrics_hot;
/* Looks the hot metrics up (once; later calls do nothing). */
void resp_metrics_hot_init(void);

static inline void resp_metrics_cache(bool hit)
{
    if (resp_metrics_hot.cache_hit == NULL) {
        resp_metrics_hot_init();
    }
    sss_metric_inc(hit ? resp_metrics_hot.cache_hit : resp_metrics_hot.cache_miss);
}

static inline void resp_metrics_negcache_hit(void)
{
    if (resp_metrics_hot.negcache_hit == NULL) {
        resp_metrics_hot_init();
    }
    sss_metric_inc(resp_metrics_hot.negcache_hit);
}

static inline void resp_metrics_dp_call(void)
{
    if (resp_metrics_hot.dp_call == NULL) {
        resp_metrics_hot_init();
    }
    sss_metric_inc(resp_metrics_hot.dp_call);
}

#endif /* RESP_METRICS_H */
