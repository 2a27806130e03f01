/*
 * A GPO's GptTmpl.inf for sssd_be (ad_gpo_fetch.c): the on-disk cache keyed by the GPO's
 * GUID and version, and gpo_child, which reads it from the DC's SYSVOL.
 */
#ifndef AD_GPO_FETCH_H
#define AD_GPO_FETCH_H

#include <stdint.h>
#include <tevent.h>

#include "util/util.h"
#include "providers/ad/ad_gpo.h"

/* The cached file when its version is version; ENOENT otherwise. */
errno_t ad_gpo_cache_get(TALLOC_CTX *mem_ctx, const char *domain, const char *guid,
                         uint32_t version, uint8_t **_data, size_t *_len);
errno_t ad_gpo_cache_put(const char *domain, const char *guid, uint32_t version,
                         const uint8_t *data, size_t len);

/* gpo_child on uri, killed after timeout seconds. ENOENT: no such file on the share;
 * EFBIG: larger than AD_GPO_INF_MAX; ETIMEDOUT; EIO: the child failed (its stderr). */
struct tevent_req *ad_gpo_child_send(TALLOC_CTX *mem_ctx, struct tevent_context *ev,
                                     const char *uri, int timeout);
errno_t ad_gpo_child_recv(TALLOC_CTX *mem_ctx, struct tevent_req *req, uint8_t **_data,
                          size_t *_len);

#endif /* AD_GPO_FETCH_H */
