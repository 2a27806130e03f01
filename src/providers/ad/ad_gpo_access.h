/*
 * GPO-based access control of access_provider = ad in sssd_be (ad_gpo_access.c): the
 * options (ad_gpo_*) and the request that decides one PAM account check from the GPOs
 * that apply to this host. The pure parts are in ad_gpo.h.
 */
#ifndef AD_GPO_ACCESS_H
#define AD_GPO_ACCESS_H

#include <tevent.h>

#include "confdb/confdb.h"
#include "providers/ldap/sdap_private.h"
#include "providers/ad/ad_gpo.h"

enum ad_gpo_mode { AD_GPO_MODE_DISABLED, AD_GPO_MODE_PERMISSIVE, AD_GPO_MODE_ENFORCING };

struct ad_gpo_ctx;

/* Reads ad_gpo_access_control, ad_gpo_map_*, ad_gpo_default_right, ad_gpo_implicit_deny,
 * ad_gpo_cache_timeout and ad_hostname of section. ERR_INVALID_CONFIG for a bad map. */
errno_t ad_gpo_ctx_create(TALLOC_CTX *mem_ctx, struct confdb *cdb, const char *section,
                          const char *domain, struct ad_gpo_ctx **_ctx);
enum ad_gpo_mode ad_gpo_ctx_mode(const struct ad_gpo_ctx *ctx);

/* Decides for the user at user_dn and PAM service. *_allowed: enforcing's verdict, or
 * true in permissive mode (what enforcing would deny is logged). An error (directory or
 * SYSVOL unreadable) is for the caller, which denies. */
struct tevent_req *ad_gpo_access_send(TALLOC_CTX *mem_ctx, struct tevent_context *ev,
                                      struct ad_gpo_ctx *ctx, struct sdap_id_ctx *id_ctx,
                                      const char *user_dn, const char *service);
errno_t ad_gpo_access_recv(struct tevent_req *req, bool *_allowed);

#endif /* AD_GPO_ACCESS_H */
