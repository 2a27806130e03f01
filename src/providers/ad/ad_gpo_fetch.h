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

/* The cache's root (SSSD: /var/lib/sss/gpo_cache) and the child's path. */
#define AD_GPO_CACHE_DIR SSSD_STATE_DIR "/gpo_cache"
#define AD_GPO_CHILD_PATH SSSD_LIBEXEC_PATH "/gpo_child"

/* The file cached under root/domain/guid when its version is version; ENOENT otherwise
 * (none, another version, unreadable). */
errno_t ad_gpo_cache_get(TALLOC_CTX *mem_ctx, const char *root, const char *domain,
                         const char *guid, uint32_t version, uint8_t **_data, size_t *_len);
/* Stores it (directories 0700, files 0600, each written whole then renamed). */
errno_t ad_gpo_cache_put(const char *root, const char *domain, const char *guid,
                         uint32_t version, const uint8_t *data, size_t len);

/* The child program (AD_GPO_CHILD_PATH) on uri, killed after timeout seconds. ENOENT: no
 * such file on the share (exit 2); EFBIG: larger than AD_GPO_INF_MAX (exit 3 or more
 * output); ETIMEDOUT; EIO: the child failed (exit 1, a signal; its stderr). */
struct tevent_req *ad_gpo_child_send(TALLOC_CTX *mem_ctx, struct tevent_context *ev,
                                     const char *path, const char *uri, int timeout);
errno_t ad_gpo_child_recv(TALLOC_CTX *mem_ctx, struct tevent_req *req, uint8_t **_data,
                          size_t *_len);

#endif /* AD_GPO_FETCH_H */
