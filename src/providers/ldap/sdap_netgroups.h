/*
 * NIS netgroups from LDAP (sssd-ldap(5) "ldap_netgroup_*"): the one entry of the netgroup
 * object class (nisNetgroup) whose name attribute (cn) is the name asked, under
 * ldap_netgroup_search_base (else the search base), with its triples (nisNetgroupTriple,
 * as written) and the names of its member netgroups (memberNisNetgroup). A member value
 * that is a DN whose first RDN is <name attribute>=<value> (rfc2307bis-style directories)
 * is taken as that name. Nested netgroups are not followed here: clients expand them, as
 * with SSSD.
 *
 * Errors of _recv: those of every sdap operation (sdap.h): ENOENT (no such netgroup),
 * EINVAL (an invalid name, or several entries of that name: a duplicate), ENETUNREACH,
 * EIO, ENOTCONN, ETIMEDOUT, EACCES, ENOMEM. The result is stolen onto mem_ctx.
 */
#ifndef SSS_SDAP_NETGROUPS_H
#define SSS_SDAP_NETGROUPS_H

#include "providers/ldap/sdap.h"

struct sdap_netgroup {
    const char *name;
    const char *orig_dn;
    const char **triples;       /* NULL-terminated, never NULL; duplicates dropped */
    size_t num_triples;
    const char **members;       /* NULL-terminated, never NULL; duplicates dropped */
    size_t num_members;
};

struct tevent_req *sdap_get_netgroup_send(TALLOC_CTX *mem_ctx, struct tevent_context *ev,
                                          struct sdap_id_ctx *id_ctx, const char *name);
errno_t sdap_get_netgroup_recv(TALLOC_CTX *mem_ctx, struct tevent_req *req,
                               struct sdap_netgroup **_ng);

#endif /* SSS_SDAP_NETGROUPS_H */
