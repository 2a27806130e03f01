/*
 * DNS SRV records (RFC 2782) for server discovery (ad_server = _srv_): one lookup of a
 * name such as _ldap._tcp.ad.test through the system's resolver (resolv.conf) without
 * blocking the caller's event loop, the parser of the answer (untrusted bytes: fuzzed by
 * tests/fuzz/fuzz_srv_answer.c) and the RFC 2782 order of the targets.
 */
#ifndef SSS_SRV_H
#define SSS_SRV_H

#include <stdint.h>
#include <talloc.h>
#include <tevent.h>

#include "util/util.h"

/* At most this many records of one answer are used; the rest are ignored. */
#define SSS_SRV_MAX_RECORDS 64

struct sss_srv_rec {
    char *host;                 /* the target, without the final dot; [A-Za-z0-9._-] only */
    uint16_t priority;
    uint16_t weight;
    uint16_t port;
};

/* Parses a DNS answer (msg, len) to a query of type SRV: the SRV records of the answer
 * section with a usable target (a target "." means "no such service here": skipped). *_ttl
 * is the smallest TTL among them. Errors: ENOENT (NXDOMAIN, or no usable record), EBADMSG
 * (malformed), EIO (another error code), ENOMEM. */
errno_t sss_srv_parse(TALLOC_CTX *mem_ctx, const uint8_t *msg, size_t len,
                      struct sss_srv_rec **_recs, size_t *_num, uint32_t *_ttl);

/* Sorts recs in the order to try them (RFC 2782): lowest priority first; within one
 * priority, a weighted random order (weight 0 entries have a small chance to go first).
 * rnd returns a uniformly random value; tests pass their own. */
void sss_srv_order(struct sss_srv_rec *recs, size_t num, uint32_t (*rnd)(void *pvt),
                   void *pvt);

/* One SRV lookup in a helper thread (res_nquery on a private resolver state): the loop
 * keeps running and gives up after timeout seconds (ETIMEDOUT). The records come in RFC
 * 2782 order. Errors: ENOENT (no such records), ETIMEDOUT, EIO, EBADMSG, ENOMEM. */
struct tevent_req *sss_srv_lookup_send(TALLOC_CTX *mem_ctx, struct tevent_context *ev,
                                       const char *name, int timeout);
errno_t sss_srv_lookup_recv(TALLOC_CTX *mem_ctx, struct tevent_req *req,
                            struct sss_srv_rec **_recs, size_t *_num, uint32_t *_ttl);

#endif /* SSS_SRV_H */
