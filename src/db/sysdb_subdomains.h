/*
 * sysdb subdomains: the domains a domain trusts (AD's trustedDomain objects), kept in the
 * domain's cache as SSSD keeps its "subdomains", so that responders and sssctl learn them
 * from the cache, and a restart knows them before the DC answers. Written by the back-end
 * (ad_subdomains.c) as a whole list at each refresh: a domain no longer trusted is gone
 * from the list. Errors: as sysdb.h says for every function (EINVAL, ENOMEM, EIO).
 */
#ifndef SSS_SYSDB_SUBDOMAINS_H
#define SSS_SYSDB_SUBDOMAINS_H

#include "db/sysdb.h"

struct sysdb_subdom {
    const char *name;       /* trustPartner, the DNS name (b.test), lowercased */
    const char *flat;       /* flatName, the NetBIOS name (B) */
    const char *sid;        /* securityIdentifier, S-1-5-21-a-b-c */
    uint32_t direction;     /* trustDirection: 1 inbound, 2 outbound, 3 both */
    uint32_t type;          /* trustType: 2 uplevel (AD) */
    uint32_t attributes;    /* trustAttributes: 8 forest transitive, ... */
};

/* Replaces the recorded list with subs[0..n) (n == 0: no trusted domain). EINVAL: an
 * empty field, one holding a space or not UTF-8, or over SYSDB_NAME_MAX bytes. */
errno_t sysdb_subdom_replace(struct sysdb_ctx *sysdb, const struct sysdb_subdom *subs,
                             size_t n);

/* The recorded list, in the order it was written (on mem_ctx; *_n may be 0). A malformed
 * value is skipped with a log line. */
errno_t sysdb_subdom_list(TALLOC_CTX *mem_ctx, struct sysdb_ctx *sysdb,
                          struct sysdb_subdom **_subs, size_t *_n);

/* The recorded trusted domain of that name or flat name (any case), on mem_ctx. ENOENT:
 * none. */
errno_t sysdb_subdom_find(TALLOC_CTX *mem_ctx, struct sysdb_ctx *sysdb, const char *name,
                          struct sysdb_subdom *_sub);

/* Removes the cached users and groups of the trusted domain name (those stored as
 * "NAME@name"), as SSSD removes a subdomain's objects with it; *_removed: how many. A
 * scan of the cache: for the rare removal of a trust. */
errno_t sysdb_subdom_purge(struct sysdb_ctx *sysdb, const char *name, size_t *_removed);

#endif /* SSS_SYSDB_SUBDOMAINS_H */
