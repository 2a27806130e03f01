/*
 * sysdb idmap: which slice of the id space each domain was given by ID mapping
 * (ldap_id_mapping = true), kept in the domain's cache as SSSD keeps it, so that a restart,
 * or another order of lookups, maps the same ids: a domain whose hashed slice was taken
 * (a hash collision) is moved to another slice, and which one depends on the order the
 * domains were first seen. Stored on the domain's cache entry (cn=sysdb), one value per
 * domain; read at start by the ID-mapping setup. Errors: as sysdb.h says for every
 * function (EINVAL, ENOMEM, EIO).
 */
#ifndef SSS_SYSDB_IDMAP_H
#define SSS_SYSDB_IDMAP_H

#include "db/sysdb.h"

struct sysdb_idmap {
    const char *name;       /* the domain's name in the map (its SID when no better one) */
    const char *sid;        /* S-1-5-21-a-b-c */
    uint32_t slice;
};

/* Records (adds, or replaces the one of the same SID) a domain's slice. EINVAL: an empty
 * name or SID, one holding a space or not UTF-8, or over SYSDB_NAME_MAX bytes. */
errno_t sysdb_idmap_store(struct sysdb_ctx *sysdb, const char *name, const char *sid,
                          uint32_t slice);

/* Every recorded domain, in no particular order (on mem_ctx; *_n may be 0). A malformed
 * value is skipped with a log line. */
errno_t sysdb_idmap_list(TALLOC_CTX *mem_ctx, struct sysdb_ctx *sysdb,
                         struct sysdb_idmap **_maps, size_t *_n);

#endif /* SSS_SYSDB_IDMAP_H */
