/*
 * The responders' view of their domains: the [sssd] domains list in order, each active or
 * inconsistent as the back-ends announce with sssd.Responder.Domain signals. Lookups (later)
 * skip an inconsistent domain until it is active again.
 */
#ifndef RESPONDER_DOMAINS_H
#define RESPONDER_DOMAINS_H

#include "service/sss_service.h"

struct resp_domain {
    char *name;
    bool active;
};

struct resp_ctx {
    struct sss_service *svc;
    struct resp_domain *domains;    /* in [sssd] domains order */
    size_t num_domains;
    unsigned int negcache_resets;   /* how often the negative cache was reset */
};

/* Reads the domains list; every domain starts active. */
errno_t resp_domains_init(TALLOC_CTX *mem_ctx, struct sss_service *svc,
                          struct resp_ctx **_rctx);

struct resp_domain *resp_domain_find(struct resp_ctx *rctx, const char *name);

/* Listens for sssd.Responder.Domain and sssd.Responder.NegativeCache signals. */
errno_t resp_listen_common(struct resp_ctx *rctx);

#endif /* RESPONDER_DOMAINS_H */
