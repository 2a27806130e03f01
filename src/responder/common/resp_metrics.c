/*
 * The responders' metrics (resp_metrics.h). Per-command metrics are kept in two arrays
 * indexed by the command's low byte (every NSS, PAM and sudo command is below 0x100;
 * anything else shares the last slot, labelled "other"), filled on first use.
 */
#include <stdio.h>

#include "util/util.h"
#include "responder/common/resp_metrics.h"

#define RESP_METRICS_CMDS 256

struct resp_metrics_hot resp_metrics_hot;

static struct sss_metric *resp_requests[RESP_METRICS_CMDS];
static struct sss_metric *resp_latency[RESP_METRICS_CMDS];

static size_t resp_metrics_slot(uint32_t cmd)
{
    return cmd < RESP_METRICS_CMDS - 1 ? cmd : RESP_METRICS_CMDS - 1;
}

static void resp_metrics_cmd_init(size_t slot)
{
    char labels[32];

    if (slot == RESP_METRICS_CMDS - 1) {
        snprintf(labels, sizeof(labels), "command=\"other\"");
    } else {
        snprintf(labels, sizeof(labels), "command=\"0x%04zx\"", slot);
    }
    resp_requests[slot] = sss_metric_get("sssd_requests_total",
                                         "Client requests received, by command",
                                         SSS_METRIC_COUNTER, labels);
    resp_latency[slot] = sss_metric_get("sssd_request_duration_seconds",
                                        "Time from a request's arrival to its reply, by "
                                        "command", SSS_METRIC_HISTOGRAM, labels);
}

uint64_t resp_metrics_request(uint32_t cmd)
{
    size_t slot = resp_metrics_slot(cmd);

    if (resp_requests[slot] == NULL) {
        resp_metrics_cmd_init(slot);
    }
    sss_metric_inc(resp_requests[slot]);
    return sss_monotonic_usec();
}

void resp_metrics_answered(uint32_t cmd, uint64_t start_usec)
{
    size_t slot = resp_metrics_slot(cmd);

    if (resp_latency[slot] == NULL) {
        resp_metrics_cmd_init(slot);
    }
    sss_metric_observe(resp_latency[slot], sss_monotonic_usec() - start_usec);
}

void resp_metrics_hot_init(void)
{
    if (resp_metrics_hot.cache_hit != NULL) {
        return;
    }
    resp_metrics_hot.cache_miss = sss_metric_get("sssd_cache_lookups_total",
                                                 "Lookups in the domains' caches by the "
                                                 "responder, found or not",
                                                 SSS_METRIC_COUNTER, "result=\"miss\"");
    resp_metrics_hot.negcache_hit = sss_metric_get("sssd_negcache_hits_total",
                                                   "Lookups answered by the negative cache",
                                                   SSS_METRIC_COUNTER, "");
    resp_metrics_hot.dp_call = sss_metric_get("sssd_dp_calls_total",
                                              "Calls to the back-ends over the bus",
                                              SSS_METRIC_COUNTER, "");
    /* Last: it is the "initialised" flag. */
    resp_metrics_hot.cache_hit = sss_metric_get("sssd_cache_lookups_total",
                                                "Lookups in the domains' caches by the "
                                                "responder, found or not",
                                                SSS_METRIC_COUNTER, "result=\"hit\"");
}
