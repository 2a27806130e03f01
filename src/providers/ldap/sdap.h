/*
 * The LDAP id provider core, seen from the back-end: it fetches users and groups from the
 * domain's LDAP servers and hands them back as plain talloc structs. It knows nothing about
 * the cache or the bus; the back-end stores what it gets.
 *
 * One struct sdap_id_ctx per domain holds the options read from confdb, the server list with
 * per-server status (failover), and at most one connection, shared by every operation in
 * flight (asynchronous libldap on the tevent loop; see sdap_private.h).
 *
 * Every operation is a tevent request. Errors a caller must expect from every _recv:
 *   ENOENT       nothing found (lookups of one object);
 *   EINVAL       bad arguments (a NULL context or output pointer, logged as an invalid
 *                argument; a _send given no event context returns NULL), an invalid name,
 *                or the directory holds several entries for one name or id (logged as
 *                "duplicate"); the caller must not guess;
 *   ENETUNREACH  no server could be reached: the domain is offline;
 *   EIO, ENOTCONN the connection broke during the operation (the server is marked bad,
 *                retrying fails over to the next one);
 *   ETIMEDOUT    the server did not answer within ldap_search_timeout (or
 *                ldap_enumeration_search_timeout for enumerations);
 *   EACCES       the bind was refused (wrong ldap_default_bind_dn / ldap_default_authtok);
 *   EOVERFLOW    the server returned part of the answer only (a size or administrative
 *                limit, a referral, a paged search cut short; for enumerations also a
 *                continuation reference): nothing may be concluded from what is missing,
 *                so the caller keeps what it has;
 *   ENOMEM.
 * Entries the directory serves but that are unusable (no or non-numeric id, id 0 or outside
 * [min_id, max_id], invalid UTF-8 names, ...) are skipped with a log line, never returned.
 *
 * Ownership: results of _recv are allocated on (stolen to) the mem_ctx given to _recv.
 */
#ifndef SSS_SDAP_H
#define SSS_SDAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <talloc.h>
#include <tevent.h>

#include "util/util.h"

struct confdb;
struct sdap_id_ctx;

enum sdap_by {
    SDAP_BY_NAME,
    SDAP_BY_ID,
    SDAP_BY_SID,            /* the name argument is a SID string "S-1-..." */
};

/* A POSIX user as the directory describes it. */
struct sdap_user {
    const char *name;       /* the ldap_user_name value (the RDN value when multi-valued) */
    uint32_t uid;
    uint32_t gid;
    const char *gecos;      /* ldap_user_gecos, else ldap_user_fullname (cn), else "" */
    const char *home;       /* "" when absent */
    const char *shell;      /* "" when absent */
    const char *orig_dn;
    const char *upn;        /* ldap_user_principal's first value; NULL when absent */
    const char *email;      /* ldap_user_email (its first value); NULL when absent */
    const char *sid;        /* ldap_user_objectsid as "S-1-..."; NULL when absent */
    const char **extra;     /* ldap_user_extra_attrs: name, value, name, value ... (the
                             * cache name once per value), NULL-terminated; never NULL */
};

/* A POSIX group. member_users and member_groups are NULL-terminated, never NULL. */
struct sdap_group {
    const char *name;
    uint32_t gid;
    const char *orig_dn;
    const char *sid;        /* ldap_group_objectsid as "S-1-..."; NULL when absent */
    /* User names: rfc2307 the memberUid values; rfc2307bis the users reached through
     * member DNs, flattened through nested groups down to ldap_group_nesting_level,
     * without duplicates. Empty for groups returned by a DN-schema initgroups. */
    const char **member_users;
    size_t num_member_users;
    /* rfc2307bis: names of the groups that are direct members of this group. */
    const char **member_groups;
    size_t num_member_groups;
    /* The lists above are the group's whole membership, as a group lookup gives it
     * (rfc2307 initgroups reads memberUid with the group): it can be stored complete. */
    bool members_complete;
    /* Returned by sdap_initgroups_primary_send only because it is the user's primary group
     * (gidNumber), not a group whose members list the user: stored, not a membership. */
    bool not_member;
};

/* Counters, for tests and diagnostics. */
struct sdap_id_stats {
    uint64_t connects;      /* connections established (bound and ready) */
    uint64_t connect_failures;
    uint64_t searches;      /* search operations sent (each page counts) */
    uint64_t pages;         /* pages received by paged searches */
};

/*
 * Reads the options of section "domain/<domain>" and prepares the server list. Does not
 * connect; the first operation does. Errors: EINVAL (bad arguments), ERR_INVALID_CONFIG
 * (no ldap_uri, an unusable URI, no search base, a required attribute map unset), ENOMEM.
 */
errno_t sdap_id_ctx_create(TALLOC_CTX *mem_ctx, struct tevent_context *ev,
                           struct confdb *cdb, const char *domain,
                           struct sdap_id_ctx **_id_ctx);

/* The getters and controls below accept id_ctx NULL (a domain without the LDAP id
 * provider): NULL, false, nothing. */

/* The URI of the server of the current (or last) connection; NULL before any. */
const char *sdap_id_ctx_server(struct sdap_id_ctx *id_ctx);

/* True when the last connection attempt failed on every server. */
bool sdap_id_ctx_offline(struct sdap_id_ctx *id_ctx);

void sdap_id_ctx_get_stats(struct sdap_id_ctx *id_ctx, struct sdap_id_stats *_stats);

/* Drops the connection (pending operations fail with ENOTCONN); the next operation
 * reconnects. Server status is kept. */
void sdap_id_ctx_disconnect(struct sdap_id_ctx *id_ctx);

/* Forgets every server's bad mark (e.g. when the back-end goes back online by hand). */
void sdap_id_ctx_reset_servers(struct sdap_id_ctx *id_ctx);

/* Called each time DNS discovery (ldap://_srv_ entries) installs an answer, with the
 * host names of every server discovery named, in failover order (NULL-terminated, valid
 * during the call): the AD provider derives its KDC list from them. */
typedef void (*sdap_discovery_fn)(void *pvt, char **hosts);
void sdap_id_ctx_on_discovery(struct sdap_id_ctx *id_ctx, sdap_discovery_fn fn, void *pvt);

/* Called each time a new connection becomes the domain's (after "served by" is logged). */
typedef void (*sdap_connected_fn)(void *pvt);
void sdap_id_ctx_on_connect(struct sdap_id_ctx *id_ctx, sdap_connected_fn fn, void *pvt);

/*
 * The global catalog of an AD domain (sdap_connect_gc.c): an id context over the same
 * options as dom's, whose servers are dom's on the GC port (3268, 3269 for ldaps) and whose
 * DNS discovery asks _gc._tcp records; it shares dom's SASL credentials (one machine TGT,
 * one ccache). Owned by and reachable from dom (sdap_id_ctx_gc). Errors: as
 * sdap_id_ctx_create.
 */
errno_t sdap_id_ctx_create_gc(struct confdb *cdb, const char *domain,
                              struct sdap_id_ctx *dom);
/* dom's global catalog context, or NULL (none, or dom NULL). */
struct sdap_id_ctx *sdap_id_ctx_gc(struct sdap_id_ctx *dom);
/* Connects gc unless a usable connection or an attempt is there already; the outcome is
 * in its server states (sdap_id_ctx_servers). Never waits, never fails the caller. */
void sdap_gc_probe(struct sdap_id_ctx *gc);
/* dom's global catalog when it may serve a lookup now: connected, and holding the ids
 * (ldap_id_mapping, or uidNumber and gidNumber replicated to it). NULL otherwise, after
 * starting a connection attempt (sdap_gc_probe) when it has none: never waits. */
struct sdap_id_ctx *sdap_gc_usable(struct sdap_id_ctx *dom);

/* ID mapping (ldap_id_mapping = true): the slice a domain was given, kept across restarts
 * as SSSD keeps it in the cache. At start, before any lookup, each recorded slice is put
 * back (sdap_id_ctx_idmap_restore: EOK, also when ids are not mapped; EEXIST/EINVAL, logged:
 * the record clashes with the map and is not used), then record is set: it gets each slice
 * the map gives from then on. See sdap_idmap_restore (sdap_private.h). */
errno_t sdap_id_ctx_idmap_restore(struct sdap_id_ctx *id_ctx, const char *name,
                                  const char *sid, uint32_t slice);
void sdap_id_ctx_idmap_recorder(struct sdap_id_ctx *id_ctx,
                                errno_t (*record)(void *pvt, const char *name,
                                                  const char *sid, uint32_t slice),
                                void *pvt);

/* One configured server as the failover sees it (sssctl domain-status). */
struct sdap_server_info {
    const char *uri;
    bool backup;                /* from ldap_backup_uri */
    bool active;                /* the current connection's server */
    bool bad;                   /* marked bad: skipped until bad_until */
    bool tried;                 /* a connection was attempted at least once */
    errno_t last_error;         /* of the last failure; EOK when none */
    time_t last_contact;        /* last successful connection; 0: never */
    time_t last_failure;        /* 0: never */
    uint64_t connects;          /* successful connections */
    uint64_t failures;          /* failed connections and connections lost */
    bool discovered;            /* named by DNS (an SRV record of a discovery entry) */
    /* A discovery entry (ad_server = _srv_) rather than a server: the SRV name asked
     * (_ldap._tcp.NAME), the site it asks first ("" when none) and until when its records
     * hold (0: not known yet); NULL, NULL, 0 for a server. */
    const char *dns_name;
    const char *site;
    time_t dns_expires;
};

/* Every configured server in failover order, discovery entries included (each followed by
 * the servers DNS named for it). *_servers is a talloc array on mem_ctx whose uri strings
 * belong to id_ctx. id_ctx NULL gives 0 servers. ENOMEM. */
errno_t sdap_id_ctx_servers(TALLOC_CTX *mem_ctx, struct sdap_id_ctx *id_ctx,
                            struct sdap_server_info **_servers, size_t *_count);

/* One user by name (by == SDAP_BY_NAME, id ignored), by uid (name ignored) or by SID
 * (SDAP_BY_SID, name the SID string; ENOENT when the map has no SID attribute or name is
 * not a SID). */
struct tevent_req *sdap_get_user_send(TALLOC_CTX *mem_ctx, struct tevent_context *ev,
                                      struct sdap_id_ctx *id_ctx, enum sdap_by by,
                                      const char *name, uint32_t id);
errno_t sdap_get_user_recv(TALLOC_CTX *mem_ctx, struct tevent_req *req,
                           struct sdap_user **_user);

/* The users whose ldap_user_email equals email (the directory's matching rule decides
 * case), usable entries only: *_users is NULL-terminated, *_num_users may be 0. ENOENT
 * when ldap_user_email is unset or email could not be anyone's address. */
struct tevent_req *sdap_get_users_by_email_send(TALLOC_CTX *mem_ctx,
                                                struct tevent_context *ev,
                                                struct sdap_id_ctx *id_ctx,
                                                const char *email);
errno_t sdap_get_users_by_email_recv(TALLOC_CTX *mem_ctx, struct tevent_req *req,
                                     struct sdap_user ***_users, size_t *_num_users);

/* One group by name or gid, with its members. */
struct tevent_req *sdap_get_group_send(TALLOC_CTX *mem_ctx, struct tevent_context *ev,
                                       struct sdap_id_ctx *id_ctx, enum sdap_by by,
                                       const char *name, uint32_t id);
errno_t sdap_get_group_recv(TALLOC_CTX *mem_ctx, struct tevent_req *req,
                            struct sdap_group **_group);
/* The same, with the nested groups (rfc2307bis) the lookup read completely on the way:
 * each with the member lists its own lookup would give now, members_complete set (a
 * NULL-terminated array, maybe empty; always empty for rfc2307). */
errno_t sdap_get_group_nested_recv(TALLOC_CTX *mem_ctx, struct tevent_req *req,
                                   struct sdap_group **_group,
                                   struct sdap_group ***_nested, size_t *_num_nested);

/* Groups by gid, many in one search (paged), each with its members exactly as
 * sdap_get_group gives them. Only entries holding one of gids[0..n) are returned, in the
 * directory's order; a gid held by several entries gives none of them (logged), an unusable
 * entry is skipped: a gid missing from the result must be looked up on its own to learn
 * why. Errors as for every operation (never ENOENT). */
struct tevent_req *sdap_get_groups_by_gid_send(TALLOC_CTX *mem_ctx, struct tevent_context *ev,
                                               struct sdap_id_ctx *id_ctx,
                                               const uint32_t *gids, size_t n);
errno_t sdap_get_groups_by_gid_recv(TALLOC_CTX *mem_ctx, struct tevent_req *req,
                                    struct sdap_group ***_groups, size_t *_num_groups);

/* The user and every group it belongs to (rfc2307bis: also the groups above those, up to
 * ldap_group_nesting_level), groups without member lists. ENOENT when the user is unknown. */
struct tevent_req *sdap_initgroups_send(TALLOC_CTX *mem_ctx, struct tevent_context *ev,
                                        struct sdap_id_ctx *id_ctx, const char *name);
/* The same for a user the caller already holds (its cache entry, fresh): no user search.
 * user->name (the directory's form: rfc2307 matches memberUid with it) and user->orig_dn
 * must be set; the user _recv gives back holds only name, orig_dn, uid and gid. */
struct tevent_req *sdap_initgroups_user_send(TALLOC_CTX *mem_ctx, struct tevent_context *ev,
                                             struct sdap_id_ctx *id_ctx,
                                             const struct sdap_user *user);
/* Not AD (sdap_initgroups_brings_primary): as sdap_initgroups_user_send, and the (first)
 * search also returns the group whose gidNumber is user->gid, marked not_member unless it
 * lists the user (rfc2307bis: unless it also holds one of the user's groups). Every group
 * comes back complete (rfc2307: its memberUid values; the DN schemas: the member DNs
 * resolved along the walk, sdap_initgroups_graph.c, unless the graph grows too big). What
 * `id` asks right after getpwnam (getgrgid of the primary gid, initgroups, getgrgid of each
 * group) in the searches of one initgroups. */
struct tevent_req *sdap_initgroups_primary_send(TALLOC_CTX *mem_ctx, struct tevent_context *ev,
                                                struct sdap_id_ctx *id_ctx,
                                                const struct sdap_user *user);
bool sdap_initgroups_brings_primary(const struct sdap_id_ctx *id_ctx);
/* True when an initgroups started from a user (sdap_initgroups_user_send) finds its groups
 * by the user's DN and SID only (the AD schema: tokenGroups, member=DN), never by its name:
 * a name folded by a case-insensitive cache serves as well as the directory's spelling. */
bool sdap_initgroups_by_dn(const struct sdap_id_ctx *id_ctx);
errno_t sdap_initgroups_recv(TALLOC_CTX *mem_ctx, struct tevent_req *req,
                             struct sdap_user **_user,
                             struct sdap_group ***_groups, size_t *_num_groups);

/* Every user / group under the search base, with paged results (ldap_page_size).
 * Groups come with their members exactly as sdap_get_group gives them (rfc2307bis:
 * flattened through nested groups down to ldap_group_nesting_level). */
struct tevent_req *sdap_enumerate_users_send(TALLOC_CTX *mem_ctx, struct tevent_context *ev,
                                             struct sdap_id_ctx *id_ctx);
errno_t sdap_enumerate_users_recv(TALLOC_CTX *mem_ctx, struct tevent_req *req,
                                  struct sdap_user ***_users, size_t *_num_users);

struct tevent_req *sdap_enumerate_groups_send(TALLOC_CTX *mem_ctx, struct tevent_context *ev,
                                              struct sdap_id_ctx *id_ctx);
errno_t sdap_enumerate_groups_recv(TALLOC_CTX *mem_ctx, struct tevent_req *req,
                                   struct sdap_group ***_groups, size_t *_num_groups);

#endif /* SSS_SDAP_H */
