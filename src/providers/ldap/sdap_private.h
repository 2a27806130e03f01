/*
 * Internals of the LDAP id provider, shared by its files and its unit tests only.
 *
 *   sdap_options.c    options of one domain read from confdb through one table (struct
 *                     sdap_options, with the user and group descriptors, struct sdap_kind)
 *   sdap_schema.c     attribute maps as data, entry -> sdap_user / sdap_group parsing
 *   sdap_filter.c     RFC 4515 escaping, filter building, DN helpers, a string set
 *   sdap_conn.c       one LDAP connection on the tevent loop: message dispatch by msgid,
 *                     per-operation timeouts, connection loss
 *   sdap_connect.c    non-blocking TCP connect, TLS, StartTLS and bind of a new connection
 *   sdap_io.c         the write queue that lets the socket stay non-blocking
 *   sdap_failover.c   the server list and its bad marks; "give me a ready connection"
 *   sdap_entry_msg.c  one search result entry out of libldap into a struct sdap_entry
 *   sdap_search.c     searches (plain and paged) returning parsed entries; base lookups of
 *                     many DNs with a bounded number in flight
 *   sdap_member_dns.c member DNs to entries in batches (sdap_member_dns.h)
 *   sdap_users.c, sdap_groups.c, sdap_groups_batch.c, sdap_initgroups.c, sdap_enum.c
 *                     the operations of sdap.h; sdap_enum_members.c the member lists of
 *                     enumerated groups (one graph for all of them)
 *   sdap_id.c         struct sdap_id_ctx; searches on its shared connection; the lookup
 *                     of one user or group
 */
#ifndef SSS_SDAP_PRIVATE_H
#define SSS_SDAP_PRIVATE_H

#include <ldap.h>

#include "providers/ldap/sdap.h"

/* Values longer than this are dropped (with a log line) when entries are parsed. */
#define SDAP_MAX_VALUE_LEN (64 * 1024)
/* nds's binary time map: the entry parser keeps it as hex (sdap_entry_msg.c). */
#define SDAP_NDS_TIME_MAP "loginAllowedTimeMap"
/* LDAP_SERVER_SD_FLAGS_OID; its value is BER SEQUENCE { INTEGER flags }. */
#define SDAP_SD_FLAGS_OID "1.2.840.113556.1.4.801"
/* LDAP_SERVER_EXTENDED_DN_OID; value BER SEQUENCE { INTEGER format }, format 1: DN values
 * come as "<GUID=...>;<SID=S-1-5-...>;CN=..." (the SID only for objects that have one). */
#define SDAP_EXTENDED_DN_OID "1.2.840.113556.1.4.529"
/* AD's nTSecurityDescriptor: binary, kept as hex by the entry parser like the nds map. */
#define SDAP_AD_SD "nTSecurityDescriptor"
/* Base lookups of member DNs kept in flight at once on the connection. */
#define SDAP_DN_LOOKUP_WINDOW 64
/* Values OR-ed into one filter (member=..., uid=...). */
#define SDAP_FILTER_BATCH 50

/* ---- argument checks, request steps ---------------------------------------------------- */

/*
 * Argument checks at the entry points, in the spirit of sd-bus's assert_return: an argument
 * that fails its check is the caller's bug, logged with the function and the condition that
 * does not hold, and the entry point fails at once: EINVAL from a function returning
 * errno_t; from a _send function EINVAL posted on the request, or NULL when there is no
 * event context to post on (sdap_req_invalid). Data that comes from outside (names, ids,
 * directory entries) is not checked this way: it fails the request as sdap.h documents.
 * The checks are util's SSS_ARG_VALID and SSS_CHECK_ARG.
 */
/* Ends a _send function whose arguments failed a check. */
static inline struct tevent_req *sdap_req_invalid(struct tevent_req *req,
                                                  struct tevent_context *ev)
{
    if (ev == NULL) {
        talloc_free(req);
        return NULL;
    }
    return sss_req_post(req, ev, EINVAL);
}

/*
 * The start of every operation on the id context, right after tevent_req_create(): false
 * when req is NULL or ev or id_ctx fail their check; req is then what the _send returns
 * (NULL, or the request failing with EINVAL).
 */
#define SDAP_OP_VALID(req, ev, id_ctx) sdap_op_valid(&(req), (ev), (id_ctx), __func__)

static inline bool sdap_op_valid(struct tevent_req **_req, struct tevent_context *ev,
                                 const struct sdap_id_ctx *id_ctx, const char *func)
{
    if (*_req == NULL) {
        return false;
    }
    if ((ev != NULL || sss_arg_invalid(func, "ev != NULL"))
            && (id_ctx != NULL || sss_arg_invalid(func, "id_ctx != NULL"))) {
        return true;
    }
    *_req = sdap_req_invalid(*_req, ev);
    return false;
}

/* The end of a step of a multi-step request, by the step's result: EAGAIN, more is under
 * way (its callback takes over); EOK, the request is done; anything else fails it. */
static inline void sdap_req_step(struct tevent_req *req, errno_t ret)
{
    if (ret == EAGAIN) {
        return;
    }
    if (ret != EOK) {
        tevent_req_error(req, ret);
        return;
    }
    tevent_req_done(req);
}

/* ---- options ---------------------------------------------------------------------- */

enum sdap_schema {
    SDAP_SCHEMA_RFC2307,
    SDAP_SCHEMA_RFC2307BIS,
    SDAP_SCHEMA_AD,
    SDAP_SCHEMA_IPA,
};

enum sdap_user_attr {
    SDAP_UA_OC,
    SDAP_UA_NAME,
    SDAP_UA_UID,
    SDAP_UA_GID,
    SDAP_UA_GECOS,
    SDAP_UA_FULLNAME,
    SDAP_UA_HOME,
    SDAP_UA_SHELL,
    SDAP_UA_PRINCIPAL,
    SDAP_UA_EMAIL,
    SDAP_UA_OBJSID,             /* ldap_user_objectsid: ids (ldap_id_mapping) or the SID */
    SDAP_UA_PRIMARY_GID,        /* ldap_user_primary_group: ldap_id_mapping only */
    SDAP_UA_MAX
};

enum sdap_group_attr {
    SDAP_GA_OC,
    SDAP_GA_NAME,
    SDAP_GA_GID,
    SDAP_GA_OBJSID,             /* ldap_group_objectsid: the gid (ldap_id_mapping), the SID */
    SDAP_GA_MEMBER,             /* keep last but MAX: the member list is read on demand */
    SDAP_GA_MAX
};

/* NIS netgroups (sdap_netgroups.c). */
enum sdap_netgroup_attr {
    SDAP_NA_OC,
    SDAP_NA_NAME,
    SDAP_NA_TRIPLE,
    SDAP_NA_MEMBER,
    SDAP_NA_MAX
};

/* What the searches of users and of groups differ in, as data: one descriptor per kind in
 * struct sdap_options, set by sdap_options_read(); sdap_kind() picks one by its id. */
enum sdap_kind_id {
    SDAP_KIND_USERS,
    SDAP_KIND_GROUPS,
};

struct sdap_kind {
    const char *label;          /* "user", "group": for logs */
    const char *id_label;       /* "uid", "gid" */
    char *const *base;          /* &user_base / &group_base: read once connected, as it may
                                 * come from the server's rootDSE */
    const char *oc;             /* the kind's object class */
    const char *name_attr;
    const char *id_attr;
    const char *filter;         /* ldap_user_search_filter / ldap_group_search_filter */
    const char *const *attrs;   /* what a lookup reads (for groups: with the members) */
};

struct sdap_options {
    char *domain;
    char **uris;                /* ldap_uri, then ldap_backup_uri (first num_primary) */
    size_t num_uris;
    size_t num_primary;
    char *search_base;
    char *user_base;
    char *group_base;
    char *bind_dn;
    char *authtok;
    enum sdap_schema schema;
    bool member_is_dn;          /* from the schema table */
    /* A trusted domain's context (ad_subdomains.c): "@b.test", appended to the name of
     * every user and group read, so they are stored fully qualified in the joined
     * domain's cache; NULL otherwise. */
    const char *name_suffix;
    int search_timeout;
    int enum_search_timeout;
    int network_timeout;
    int opt_timeout;
    int bad_server_timeout;     /* seconds a failed server is skipped (offline_timeout) */
    int conn_expire;            /* ldap_connection_expire_timeout: seconds a connection is
                                 * handed out for new operations; 0: no limit */
    int primary_timeout;        /* failover_primary_timeout: seconds between tries of a
                                 * primary server while a backup serves */
    bool start_tls;
    int tls_reqcert;            /* LDAP_OPT_X_TLS_NEVER ... HARD */
    char *tls_cacert;
    char *tls_cacertdir;
    char *tls_cert;             /* ldap_tls_cert / ldap_tls_key: a client certificate */
    char *tls_key;
    int nesting_level;
    int page_size;              /* 0: paging disabled */
    uint32_t min_id;
    uint32_t max_id;            /* 0: no upper bound */
    char *user_filter;          /* ldap_user_search_filter, or NULL */
    char *group_filter;
    const char *user_map[SDAP_UA_MAX];
    /* ldap_user_extra_attrs "[name:]ldapAttr, ...": the cache names and, aligned, the
     * directory attributes; NULL-terminated (empty when unset). */
    const char **extra_names;
    const char **extra_ldap;
    size_t num_extra;
    const char *group_map[SDAP_GA_MAX];
    char *netgroup_base;        /* ldap_netgroup_search_base; NULL: the search base */
    const char *netgroup_map[SDAP_NA_MAX];
    struct sdap_kind users;     /* derived from the above */
    struct sdap_kind groups;
    struct sdap_sasl *sasl;     /* ldap_sasl_mech (sdap_sasl.h); NULL: simple/anonymous */
    bool id_mapping;            /* ldap_id_mapping: ids from objectSid (sdap_idmap.c) */
    bool use_tokengroups;       /* ldap_use_tokengroups: initgroups of AD users */
    struct idmap_ctx *idmap;    /* set when id_mapping */
    /* The domain's own SID is in idmap (the map may hold trusted domains before it). */
    bool idmap_own_known;
    /* Called when the map gave a domain a slice (sdap_idmap_set_recorder), to keep it. */
    errno_t (*idmap_record)(void *pvt, const char *name, const char *sid, uint32_t slice);
    void *idmap_record_pvt;
};

static inline const struct sdap_kind *sdap_kind(const struct sdap_options *opts,
                                                enum sdap_kind_id kind)
{
    return kind == SDAP_KIND_GROUPS ? &opts->groups : &opts->users;
}

/* ---- ID mapping (sdap_idmap.c) ------------------------------------------------------ */

struct idmap_ctx;
struct sdap_entry;
/* The map of opts when opts->id_mapping, from the ldap_idmap_* options. Errors:
 * ERR_INVALID_CONFIG (logged), ENOMEM. */
errno_t sdap_idmap_init(struct sdap_options *opts, struct confdb *cdb, const char *section);
/* The ids of a user entry: uid from its SID, gid from its domain and primaryGroupID.
 * EINVAL (logged): no usable SID, or ids outside [min_id, max_id]; ENOMEM. */
errno_t sdap_idmap_user_ids(const struct sdap_options *opts, const struct sdap_entry *entry,
                            uint32_t *_uid, uint32_t *_gid);
errno_t sdap_idmap_group_id(const struct sdap_options *opts, const struct sdap_entry *entry,
                            uint32_t *_gid);
/* True when ids are mapped and the domain's own SID is not in the map yet: its ids map
 * back to nothing until its search base was read (trusted domains' SIDs do not count). */
bool sdap_idmap_needs_domain(const struct sdap_options *opts);
/* The slices kept across restarts, as SSSD keeps them in the cache (the back-end stores
 * them, sysdb_idmap.h): record is called with each domain the map gives a slice from then
 * on (the hash's pick, or slice 0 for ldap_idmap_default_domain_sid), and a record's
 * failure is logged, never a lookup's; sdap_idmap_restore puts a recorded domain back in
 * its slice, before any lookup, whatever the hash would now pick. EOK when ids are not
 * mapped (nothing to do) or the domain is already there in that slice; EEXIST (logged):
 * its slice, name or SID is taken otherwise; EINVAL: a bad SID or slice; ENOMEM. */
void sdap_idmap_set_recorder(struct sdap_options *opts,
                             errno_t (*record)(void *pvt, const char *name, const char *sid,
                                               uint32_t slice),
                             void *pvt);
errno_t sdap_idmap_restore(struct sdap_options *opts, const char *name, const char *sid,
                           uint32_t slice);
/* Adds the domain whose head object (the search base, read with its objectSid) is base.
 * ENOENT (logged): base is NULL or has no domain SID; EINVAL; ENOMEM. */
errno_t sdap_idmap_add_base_domain(struct sdap_options *opts,
                                   const struct sdap_entry *base);
/* A search filter for the entries of kind whose SIDs map to ids[0..n). ENOENT: none of the
 * ids is in a known slice; ENOMEM. */
errno_t sdap_idmap_filter(TALLOC_CTX *mem_ctx, const struct sdap_options *opts,
                          const struct sdap_kind *kind, const uint32_t *ids, size_t n,
                          char **_filter);
/* A search filter for the entries of kind with one of the SIDs ("S-1-5-..."); malformed
 * ones are left out. ENOENT: none usable, or no SID attribute in the map; ENOMEM. */
errno_t sdap_sid_filter(TALLOC_CTX *mem_ctx, const struct sdap_options *opts,
                        const struct sdap_kind *kind, const char *const *sids, size_t n,
                        char **_filter);

/* ---- initgroups from tokenGroups (sdap_tokengroups.c) --------------------------------- */

/* The groups of user from its tokenGroups (every group it is in, nested ones included,
 * one base search), then the group entries by SID. ENODATA: the server sent no
 * tokenGroups (the caller searches memberships instead); else the search errors. */
struct tevent_req *sdap_tokengroups_send(TALLOC_CTX *mem_ctx, struct tevent_context *ev,
                                         struct sdap_id_ctx *id_ctx,
                                         const struct sdap_user *user);
errno_t sdap_tokengroups_recv(TALLOC_CTX *mem_ctx, struct tevent_req *req,
                              struct sdap_group ***_groups, size_t *_num_groups);

/* Errors: EINVAL, ERR_INVALID_CONFIG (logged, with the reason), ENOMEM. */
errno_t sdap_options_read(TALLOC_CTX *mem_ctx, struct confdb *cdb, const char *domain,
                          struct sdap_options **_opts);
/* The ldap_tls_reqcert spelling of an LDAP_OPT_X_TLS_* value ("?" for another). */
const char *sdap_tls_reqcert_name(int reqcert);

/* ---- entries ---------------------------------------------------------------------- */

struct sdap_attr {
    char *name;
    size_t num_values;
    char **values;              /* NUL-terminated copies; values holding NUL are dropped */
    /* > 0: the values were only counted, not copied (struct sdap_count_spec): values is
     * empty, num_values 0. */
    size_t num_counted;
    bool needle_found;          /* counted: the spec's needle is among the values */
};

/* An attribute a search wants only counted when it holds more than limit values: a big
 * rfc2307 group's memberUid list, which an initgroups stores without members anyway
 * (BE_BIG_GROUP), cost sssd_be 2/3 of a cold initgroups to decode, check and hash. */
struct sdap_count_spec {
    const char *attr;           /* the attribute type (a ranged description never counts) */
    size_t limit;
    const char *needle;         /* noted when a value equals it exactly; may be NULL */
};

struct sdap_entry {
    char *dn;
    size_t num_attrs;
    struct sdap_attr *attrs;
    /* An attribute carries a range option ("member;range=0-1499"): set while parsing
     * (sdap_entry_from_msg), so that the search completes only such entries. */
    bool ranged;
};

/* One search result entry of msg as a struct on mem_ctx (sdap_entry_msg.c). Values too
 * long or holding NUL are dropped and counted in *_dropped. ENOENT: the entry has no DN
 * (skipped, logged); EPROTO: a malformed or short "attr;range=LO-HI" (logged); ENOMEM. */
errno_t sdap_entry_from_msg(TALLOC_CTX *mem_ctx, LDAP *ld, LDAPMessage *msg,
                            struct sdap_entry **_entry, size_t *_dropped);
/* The same, with the values of the attribute spec names only counted when they are more
 * than spec->limit (spec NULL: as sdap_entry_from_msg). */
errno_t sdap_entry_from_msg_counted(TALLOC_CTX *mem_ctx, LDAP *ld, LDAPMessage *msg,
                                    const struct sdap_count_spec *spec,
                                    struct sdap_entry **_entry, size_t *_dropped);
/* One attribute of an entry being read (sdap_entry_count.c): as ldap_get_attribute_ber,
 * except that the values of spec's attribute, when more than spec->limit, are counted
 * into *_counted (and *_needle) instead of returned (*_vals NULL). */
int sdap_entry_next_attr(LDAP *ld, LDAPMessage *msg, BerElement *ber,
                         const struct sdap_count_spec *spec, struct berval *_type,
                         struct berval **_vals, size_t *_counted, bool *_needle);
/* The paged-results cookie among a final message's controls: EOK (*_cookie set; length 0
 * on the last page; free bv_val with ber_memfree), ENOENT (no such control: the server
 * does not page), EIO (a malformed control, logged). */
errno_t sdap_page_cookie(LDAP *ld, LDAPControl **ctrls, struct berval *_cookie);
/* Largest LDAP message accepted from a server: a group of a million 100-byte member DNs
 * fits; a header declaring gigabytes drops the connection instead of allocating them. */
#define SDAP_MAX_MESSAGE_LEN (128 * 1024 * 1024)
/* Applies SDAP_MAX_MESSAGE_LEN to the connection of ld (sdap_entry_msg.c). */
errno_t sdap_limit_incoming(LDAP *ld);

/* The attribute named name (case-insensitive), or NULL. */
const struct sdap_attr *sdap_entry_attr(const struct sdap_entry *entry, const char *name);
/* Its first value, or NULL. */
const char *sdap_entry_value(const struct sdap_entry *entry, const char *name);
/* True when objectClass holds oc (case-insensitive). */
bool sdap_entry_has_oc(const struct sdap_entry *entry, const char *oc);

/* ---- schema: entry -> struct ----------------------------------------------------- */

/* NULL-terminated attribute lists for searches (on mem_ctx). */
const char **sdap_user_attrs(TALLOC_CTX *mem_ctx, const struct sdap_options *opts);
/* The values of the user's ldap_user_extra_attrs as struct sdap_user's extra pairs (on
 * mem_ctx; never NULL). Values that are not UTF-8 are skipped (logged). ENOMEM. */
errno_t sdap_user_extra(TALLOC_CTX *mem_ctx, const struct sdap_options *opts,
                        const struct sdap_entry *entry, const char ***_pairs);
const char **sdap_group_attrs(TALLOC_CTX *mem_ctx, const struct sdap_options *opts,
                              bool with_members);
/* Union of both, plus objectClass: for base lookups of DNs of unknown kind. */
const char **sdap_any_attrs(TALLOC_CTX *mem_ctx, const struct sdap_options *opts);

/* EOK, or EINVAL for an unusable entry (the reason is logged), ENOMEM. */
errno_t sdap_parse_user(TALLOC_CTX *mem_ctx, const struct sdap_options *opts,
                        const struct sdap_entry *entry, struct sdap_user **_user);
/* Name and gid only; member lists empty. */
errno_t sdap_parse_group(TALLOC_CTX *mem_ctx, const struct sdap_options *opts,
                         const struct sdap_entry *entry, struct sdap_group **_group);
/* Strict decimal uint32 within [min_id, max_id] and not 0. */
errno_t sdap_parse_id(const char *str, uint32_t min_id, uint32_t max_id, uint32_t *_id);
bool sdap_valid_name(const char *name);
bool sdap_utf8_valid(const char *str, size_t len);

/* ---- filters, DNs, string sets ------------------------------------------------------- */

/* RFC 4515 value escaping: * ( ) \ and bytes < 0x20 or 0x7f as \XX. */
char *sdap_filter_escape(TALLOC_CTX *mem_ctx, const char *value);
/* "(&(objectClass=oc)(attr=<escaped value>)<extra>)"; extra may be NULL and is wrapped
 * in parentheses when it does not start with one. */
char *sdap_filter_eq(TALLOC_CTX *mem_ctx, const char *oc, const char *attr,
                     const char *value, const char *extra);
/* The filter and a log label ("user 'x'", "gid 5") of a lookup of one entry of kind by
 * name (name attribute = name), by id (id attribute = id) or by SID (name: the SID string;
 * the SID attribute = its binary form, sdap_sid_filter). EINVAL for an invalid name or
 * an unknown `by`; ENOENT for an id outside [min_id, max_id], a malformed SID or no SID
 * attribute mapped (nothing to ask); ENOMEM. */
errno_t sdap_lookup_filter(TALLOC_CTX *mem_ctx, const struct sdap_options *opts,
                           const struct sdap_kind *kind, enum sdap_by by,
                           const char *name, uint32_t id, char **_filter, char **_what);
/* "(&(objectClass=oc)(|(attr=v1)(attr=v2)...)<extra>)" over values[0..n). */
char *sdap_filter_or(TALLOC_CTX *mem_ctx, const char *oc, const char *attr,
                     const char *const *values, size_t n, const char *extra);
/* "(&(objectClass=oc)<term><extra>)": term is a filter component the caller built. */
char *sdap_filter_and(TALLOC_CTX *mem_ctx, const char *oc, const char *term,
                      const char *extra);
/* "(&(objectClass=oc)(attr=*)<extra>)". */
char *sdap_filter_present(TALLOC_CTX *mem_ctx, const char *oc, const char *attr,
                          const char *extra);
/* A canonical form for comparing DNs (LDAPv3 normalised, lower-cased); NULL when the
 * DN does not parse. */
char *sdap_dn_canon(TALLOC_CTX *mem_ctx, const char *dn);
/* The value of dn's first RDN when that RDN is the single AVA attr=<value> (attr compared
 * case-insensitively; the value in string form, not empty, without NUL), on mem_ctx; else
 * NULL. */
char *sdap_dn_rdn_value(TALLOC_CTX *mem_ctx, const char *dn, const char *attr);
/* The SID an extended DN names (AD's extended DN control, SDAP_EXTENDED_DN_OID:
 * "<GUID=...>;<SID=S-1-5-...>;CN=..."), checked and on mem_ctx; NULL when it names none
 * (a plain DN: the server ignored the control), names a malformed one, or ENOMEM. */
char *sdap_xdn_sid(TALLOC_CTX *mem_ctx, const char *value);

/* A set of strings (exact match), insertion-ordered: for dedup and loop protection. */
struct sdap_strset;
struct sdap_strset *sdap_strset_new(TALLOC_CTX *mem_ctx);
/* true when added, false when already present (or ENOMEM, logged: treated as present). */
bool sdap_strset_add(struct sdap_strset *set, const char *str);
/* The same, returning the set's own copy of str (valid as long as the set), or NULL when
 * already present (or ENOMEM, logged): lets a caller drop its own copy. */
const char *sdap_strset_intern(struct sdap_strset *set, const char *str);
bool sdap_strset_has(struct sdap_strset *set, const char *str);
size_t sdap_strset_count(struct sdap_strset *set);
/* The same set used as a map: the value is kept as given (not copied). */
bool sdap_strmap_add(struct sdap_strset *set, const char *str, void *value);
void *sdap_strmap_get(struct sdap_strset *set, const char *str);
/* NULL-terminated array of the members in insertion order, on mem_ctx. */
const char **sdap_strset_array(TALLOC_CTX *mem_ctx, struct sdap_strset *set);

/* Maps an LDAP result code to errno_t (LDAP_SUCCESS -> EOK). */
errno_t sdap_ldap_err(int lrc);

/* ---- connection ------------------------------------------------------------------- */

/* The read buffer and write queue under libldap's socket layers (sdap_io.c): the
 * connection's socket is non-blocking, one read takes what the kernel holds, and what the
 * kernel does not take at once waits here. */
struct sdap_io;
typedef void (*sdap_io_notify_fn)(void *pvt);
/* Pushes the layer onto ld's socket buffer (after ldap_init_fd), queueing on. The layer
 * belongs to ld: it is freed with it. Errors: EINVAL, EIO, ENOMEM. */
errno_t sdap_io_install(LDAP *ld, struct sdap_io **_io);
/* The same on a bare socket buffer (above its TCP layer): the layer belongs to sb. */
errno_t sdap_io_push(Sockbuf *sb, struct sdap_io **_io);
/* One read from the socket into the read buffer: EOK (bytes came, the buffer is full, or
 * the socket met its end or an error, which libldap's next read after the buffered bytes
 * reports), or EAGAIN (nothing yet). */
errno_t sdap_io_fill(struct sdap_io *io);
/* Whether the last read filled the whole buffer: the socket may hold more at once. */
bool sdap_io_filled_up(struct sdap_io *io);
/* Bytes read from the socket that libldap has not taken yet. */
size_t sdap_io_buffered(struct sdap_io *io);
/* Off: writes pass straight through (a blocking socket, the TLS handshake thread); only
 * with nothing queued. */
void sdap_io_set_queueing(struct sdap_io *io, bool on);
/* fn is called when bytes start waiting in the queue: watch the socket for writes. */
void sdap_io_set_notify(struct sdap_io *io, sdap_io_notify_fn fn, void *pvt);
size_t sdap_io_pending(struct sdap_io *io);
/* Sends what the kernel takes now. EOK (some may still wait), or the socket's errno. */
errno_t sdap_io_flush(struct sdap_io *io);

struct sdap_conn;
struct sdap_op;

/* Called for each message of an operation (msg owned by the callee, free with
 * ldap_msgfree), or once with msg NULL and error ETIMEDOUT / EIO / ENOTCONN, after which
 * the operation is already unregistered. Runs inside the dispatcher: it must not free the
 * connection, and requests finishing here must use tevent_req_defer_callback(). */
typedef void (*sdap_op_fn)(void *pvt, LDAPMessage *msg, errno_t error);

/* Wraps an established LDAP handle (its socket is fd). The connection is reference
 * counted: the creator holds one reference; every request using it takes one (searches do
 * it themselves). When the count drops to 0 the connection is freed from a tevent
 * immediate, never synchronously, so a pointer used right after sdap_conn_unref() in the
 * same function stays valid. lost_fn is called (once, last thing in the dispatcher) when
 * the connection breaks, after every pending operation was failed with EIO; its error is
 * ETIMEDOUT when the server was found hung (silent past an operation's timeout), EIO when
 * the connection was lost or reset. */
typedef void (*sdap_conn_lost_fn)(struct sdap_conn *conn, void *pvt, errno_t error);
errno_t sdap_conn_create(TALLOC_CTX *mem_ctx, struct tevent_context *ev, LDAP *ld,
                         int fd, const char *uri, struct sdap_conn **_conn);
void sdap_conn_ref(struct sdap_conn *conn);
void sdap_conn_unref(struct sdap_conn *conn);
void sdap_conn_set_lost_fn(struct sdap_conn *conn, sdap_conn_lost_fn fn, void *pvt);
/* The handle's write queue: the connection watches the socket for writes while bytes
 * wait, and forgets io before it frees the handle. */
void sdap_conn_set_io(struct sdap_conn *conn, struct sdap_io *io);
/* Bytes waiting in its write queue (for tests and diagnostics). */
size_t sdap_conn_pending(struct sdap_conn *conn);
LDAP *sdap_conn_ld(struct sdap_conn *conn);
const char *sdap_conn_uri(struct sdap_conn *conn);
bool sdap_conn_usable(struct sdap_conn *conn);
size_t sdap_conn_num_ops(struct sdap_conn *conn);
/* Fails every pending operation with error and marks the connection unusable. */
void sdap_conn_fail(struct sdap_conn *conn, errno_t error);

/* Registers msgid; the operation lives on mem_ctx (freeing it abandons the LDAP operation
 * if still pending). timeout 0: none. fn is called under the request id current now
 * (sss_debug_req_id), so the answer resumes the request that sent the operation. */
errno_t sdap_op_add(TALLOC_CTX *mem_ctx, struct sdap_conn *conn, int msgid, int timeout,
                    sdap_op_fn fn, void *pvt, struct sdap_op **_op);
/* The operation is over (final message seen): unregister without abandoning. */
void sdap_op_done(struct sdap_op *op);

/* Simple bind on conn (the result message's code as errno; EACCES for bad credentials). */
struct tevent_req *sdap_bind_send(TALLOC_CTX *mem_ctx, struct tevent_context *ev,
                                  struct sdap_conn *conn, const char *dn,
                                  const char *password, int timeout);
errno_t sdap_bind_recv(struct tevent_req *req);
/* The LDAP result code of the bind (for the probes); -1 when no answer came. */
int sdap_bind_result(struct tevent_req *req);

/* A ready connection to uri: TCP, TLS or StartTLS as configured, bound. Errors: EIO,
 * ECONNREFUSED, ETIMEDOUT, EACCES (bind refused), EINVAL (bad URI), ENOMEM. */
struct tevent_req *sdap_connect_send(TALLOC_CTX *mem_ctx, struct tevent_context *ev,
                                     const struct sdap_options *opts, const char *uri);
errno_t sdap_connect_recv(TALLOC_CTX *mem_ctx, struct tevent_req *req,
                          struct sdap_conn **_conn);

/* The servers DNS names for SERVICE.NAME (sdap_connect_srv.c): ldap://host:port URIs in the order
 * to try them, how many of the first came from a site's records (NAME = SITE._sites.DOMAIN;
 * else 0), and the smallest TTL of the records. ENOENT when DNS names none; the lookup's
 * errors (sss_srv.h), ENOMEM. */
struct tevent_req *sdap_srv_send(TALLOC_CTX *mem_ctx, struct tevent_context *ev,
                                 const char *service, const char *name, int timeout);
errno_t sdap_srv_recv(TALLOC_CTX *mem_ctx, struct tevent_req *req, char ***_uris,
                      size_t *_num, size_t *_num_site, uint32_t *_ttl);

/* The AD LDAP ping over CLDAP (sdap_connect_cldap.c): the client's site and the forest as
 * the DC at host sees them. Errors: ETIMEDOUT, ENOENT (no Netlogon answer), the socket's
 * (ECONNREFUSED...), EHOSTUNREACH (host not resolved), ENOMEM. */
struct tevent_req *sdap_cldap_ping_send(TALLOC_CTX *mem_ctx, struct tevent_context *ev,
                                        const char *host, const char *domain, int timeout);
errno_t sdap_cldap_ping_recv(TALLOC_CTX *mem_ctx, struct tevent_req *req, char **_site,
                             char **_forest);
/* Its parts, for tests and the fuzz harness: the request datagram; the reply datagram to
 * the names (EBADMSG: malformed or another msgid; ENOENT: no Netlogon value); the
 * NETLOGON_SAM_LOGON_RESPONSE_EX value to the names (EBADMSG). */
errno_t sdap_cldap_request(TALLOC_CTX *mem_ctx, const char *domain, uint8_t msgid,
                           uint8_t **_msg, size_t *_len);
errno_t sdap_cldap_parse(TALLOC_CTX *mem_ctx, const uint8_t *dgram, size_t len,
                         uint8_t msgid, char **_client_site, char **_forest);
errno_t sdap_netlogon_parse(TALLOC_CTX *mem_ctx, const uint8_t *blob, size_t len,
                            char **_client_site, char **_forest);

/* ---- failover ----------------------------------------------------------------------- */

struct sdap_fo;
struct sdap_fo *sdap_fo_create(TALLOC_CTX *mem_ctx, const struct sdap_options *opts);
/* The SRV service the failover's placeholders ask for (default "_ldap._tcp"; the
 * global catalog's: "_gc._tcp"); a static string. */
void sdap_fo_set_service(struct sdap_fo *fo, const char *service);
/* Index of the first server at or after start not marked bad at now, or -1. */
int sdap_fo_next(struct sdap_fo *fo, size_t start, time_t now);
/* True for a server of ldap_backup_uri. */
bool sdap_fo_is_backup(struct sdap_fo *fo, size_t idx);
const char *sdap_fo_uri(struct sdap_fo *fo, size_t idx);
void sdap_fo_mark_bad(struct sdap_fo *fo, size_t idx, time_t now);
void sdap_fo_mark_good(struct sdap_fo *fo, size_t idx);
/* True when a server other than idx is not marked bad at now. */
bool sdap_fo_has_other(struct sdap_fo *fo, size_t idx, time_t now);
void sdap_fo_reset(struct sdap_fo *fo);
/* Records the outcome of a connection to server idx (EOK: contact) for diagnostics. */
void sdap_fo_note(struct sdap_fo *fo, size_t idx, errno_t error, time_t now);

/* The id context: shared state of every operation of one domain. */
struct sdap_id_ctx {
    struct tevent_context *ev;
    struct sdap_options *opts;
    struct sdap_fo *fo;
    struct sdap_conn *conn;         /* ready connection, or NULL */
    int conn_server;                /* fo index of conn */
    const char *last_uri;
    bool offline;
    struct sss_list waiters;        /* sdap_conn_waiter: get_conn requests awaiting it */
    struct tevent_req *connecting;      /* the failover walk in progress, or NULL */
    time_t conn_since;              /* when conn was established */
    struct tevent_timer *primary_timer; /* on a backup server: when to try the primaries */
    struct tevent_req *primary_probe;   /* a connection to a primary being tried */
    struct sdap_id_stats stats;
    struct sdap_id_ctx *gc;             /* the global catalog's (sdap_connect_gc.c), or NULL */
    struct sdap_id_ctx *dom;            /* the GC's: the domain's that owns it, else NULL */
    struct tevent_req *gc_probe;        /* a connection to it being tried (this is the GC's) */
    enum { SDAP_GC_UNKNOWN, SDAP_GC_USABLE, SDAP_GC_UNUSABLE } gc_posix;   /* the GC's: may
                                     * it serve lookups (ldap_id_mapping, or uidNumber and
                                     * gidNumber in its partial attribute set) */
};

/* A ready connection (shared). Errors: ENETUNREACH (every server failed), EACCES, ENOMEM.
 * Requests waiting at the same time share one connection attempt. */
struct tevent_req *sdap_get_conn_send(TALLOC_CTX *mem_ctx, struct tevent_context *ev,
                                      struct sdap_id_ctx *id_ctx);
errno_t sdap_get_conn_recv(struct tevent_req *req, struct sdap_conn **_conn);
/* Forgets the waiting requests (the id context is being freed). */
void sdap_get_conn_detach(struct sdap_id_ctx *id_ctx);

/* ---- searches ----------------------------------------------------------------------- */

struct sdap_search_args {
    const char *base;
    int scope;                  /* LDAP_SCOPE_BASE, _ONELEVEL, _SUBTREE */
    const char *filter;
    const char *const *attrs;
    int timeout;                /* seconds per request (per page) */
    int page_size;              /* 0: no paged results control */
    /* When set, the base is read from here once connected (a base discovered from the
     * server's rootDSE is known only then); base is ignored. */
    char *const *base_ref;
    bool missing_base_ok;       /* noSuchObject gives 0 entries instead of ENOENT */
    bool refs_partial;          /* a continuation reference makes the answer partial
                                 * (EOVERFLOW): for callers that need the whole subtree */
    bool extended_dn;           /* AD's extended DN control, string format (not critical:
                                 * other servers send plain DNs) */
    int sd_flags;               /* > 0: AD's SD flags control (SDAP_SD_FLAGS_OID, critical)
                                 * asks nTSecurityDescriptor for these parts only (4: the
                                 * DACL, which an account may read without SACL rights) */
    /* An attribute only counted past a limit (sdap_entry_from_msg_counted); NULL: none.
     * Must outlive the search. */
    const struct sdap_count_spec *count_only;
};

/* ---- the search base from the rootDSE (sdap_rootdse.c) ------------------------------- */

/* True when ldap_search_base (or a map's own base) is missing: read from the server. */
bool sdap_base_needed(const struct sdap_options *opts);
/* The base a rootDSE entry names: defaultNamingContext, else its only namingContexts.
 * ENOENT: none; E2BIG: several and no default. */
errno_t sdap_rootdse_pick_base(const struct sdap_entry *rootdse, const char **_base);
/* Fills the missing bases of opts with base. */
errno_t sdap_options_set_base(struct sdap_options *opts, const char *base);
/* Reads the rootDSE on conn and fills the missing bases of opts. Errors: the search's,
 * ERR_INVALID_CONFIG (no usable naming context, logged). */
struct tevent_req *sdap_rootdse_base_send(TALLOC_CTX *mem_ctx, struct tevent_context *ev,
                                          struct sdap_conn *conn, struct sdap_options *opts,
                                          const char *uri);
errno_t sdap_rootdse_base_recv(struct tevent_req *req);
/* The rootDSE's schemaNamingContext (AD: the forest's schema partition). ENOENT: the
 * server names none. */
struct tevent_req *sdap_rootdse_schema_send(TALLOC_CTX *mem_ctx, struct tevent_context *ev,
                                            struct sdap_conn *conn, int timeout,
                                            struct sdap_id_stats *stats);
errno_t sdap_rootdse_schema_recv(TALLOC_CTX *mem_ctx, struct tevent_req *req, char **_dn);

/* Entries of one search (all pages). stats may be NULL. */
struct tevent_req *sdap_search_send(TALLOC_CTX *mem_ctx, struct tevent_context *ev,
                                    struct sdap_conn *conn,
                                    const struct sdap_search_args *args,
                                    struct sdap_id_stats *stats);
errno_t sdap_search_recv(TALLOC_CTX *mem_ctx, struct tevent_req *req,
                         struct sdap_entry ***_entries, size_t *_num);

/* Base-scope lookups of dns[0..n) with at most SDAP_DN_LOOKUP_WINDOW in flight. The
 * result array is aligned with dns: an entry, or NULL for a DN that does not exist. */
struct tevent_req *sdap_lookup_dns_send(TALLOC_CTX *mem_ctx, struct tevent_context *ev,
                                        struct sdap_conn *conn,
                                        const char *const *dns, size_t n,
                                        const char *const *attrs, int timeout,
                                        struct sdap_id_stats *stats);
errno_t sdap_lookup_dns_recv(TALLOC_CTX *mem_ctx, struct tevent_req *req,
                             struct sdap_entry ***_entries);

/* A subtree search of the entries of kind matching filter under the kind's base, reading
 * kind->attrs. */
struct sdap_search_args sdap_kind_search(const struct sdap_kind *kind, const char *filter,
                                         int timeout, int page_size);

/* The same on the id context's shared connection (connecting first when needed). The
 * strings args points to must live as long as the request. */
struct tevent_req *sdap_id_search_send(TALLOC_CTX *mem_ctx, struct tevent_context *ev,
                                       struct sdap_id_ctx *id_ctx,
                                       const struct sdap_search_args *args);
errno_t sdap_id_search_recv(TALLOC_CTX *mem_ctx, struct tevent_req *req,
                            struct sdap_entry ***_entries, size_t *_num);
/* One search of a request that searches step by step (access rules, GPOs): *args, the
 * caller's and alive while the search runs, becomes a search of base (NULL: the id
 * context's search base) at scope for filter and attrs, with sd_flags (0: none), the id
 * context's search timeout, and a missing base giving no entry; fn gets the answer
 * (sdap_id_search_recv) with req as its data. ENOMEM. */
errno_t sdap_id_search_step(struct tevent_req *req, struct tevent_context *ev,
                            struct sdap_id_ctx *id_ctx, struct sdap_search_args *args,
                            const char *base, int scope, const char *filter,
                            const char *const *attrs, int sd_flags, tevent_req_fn fn);
struct tevent_req *sdap_id_lookup_dns_send(TALLOC_CTX *mem_ctx, struct tevent_context *ev,
                                           struct sdap_id_ctx *id_ctx,
                                           const char *const *dns, size_t n,
                                           const char *const *attrs);
errno_t sdap_id_lookup_dns_recv(TALLOC_CTX *mem_ctx, struct tevent_req *req,
                                struct sdap_entry ***_entries);
/* The one entry of a kind named name (SDAP_BY_NAME) or holding id (SDAP_BY_ID), with the
 * kind's attrs. Errors: those of sdap_id_search; ENOENT: no entry, or an id outside
 * [min_id, max_id]; EINVAL: bad arguments, an invalid name, or several entries (logged as
 * a duplicate: the directory is inconsistent and guessing could hand out the wrong
 * identity). The recv gives the entry and the options to parse it with. */
struct tevent_req *sdap_id_lookup_one_send(TALLOC_CTX *mem_ctx, struct tevent_context *ev,
                                           struct sdap_id_ctx *id_ctx,
                                           enum sdap_kind_id kind, enum sdap_by by,
                                           const char *name, uint32_t id);
errno_t sdap_id_lookup_one_recv(TALLOC_CTX *mem_ctx, struct tevent_req *req,
                                const struct sdap_options **_opts,
                                struct sdap_entry **_entry);

/* Replaces group's member lists with the members of users and groups, in the order they
 * were added (copies, on group); a NULL set leaves that list as it is. ENOMEM: group is
 * unchanged. */
/* A NULL-terminated array on mem_ctx holding groups[0..n), each moved onto it: what a
 * lookup's _recv hands its caller. NULL when out of memory (nothing moved). */
struct sdap_group **sdap_groups_move(TALLOC_CTX *mem_ctx, struct sdap_group **groups,
                                     size_t n);
errno_t sdap_group_set_members(struct sdap_group *group, struct sdap_strset *users,
                               struct sdap_strset *groups);

/* rfc2307: the memberUid values of entry -> group->member_users (valid, deduplicated). */
errno_t sdap_group_set_members_rfc2307(struct sdap_group *group,
                                       const struct sdap_options *opts,
                                       const struct sdap_entry *entry);

/* rfc2307bis: the member DNs of a group entry -> user names (flattened through nested
 * groups down to nesting_level, loops cut) and direct member group names. */
struct tevent_req *sdap_resolve_members_send(TALLOC_CTX *mem_ctx, struct tevent_context *ev,
                                             struct sdap_id_ctx *id_ctx,
                                             const struct sdap_entry *group_entry,
                                             int nesting_level);
/* Sets the resolved members on group (sdap_group_set_members). */
errno_t sdap_resolve_members_recv(struct tevent_req *req, struct sdap_group *group);
/* After a successful _recv: the nested groups met whose own lookup the walk answers
 * completely (same member lists, members_complete set), moved onto a NULL-terminated
 * array on mem_ctx; none when the walk was too big to keep its graph. ENOMEM. */
errno_t sdap_resolve_members_nested(TALLOC_CTX *mem_ctx, struct tevent_req *req,
                                    struct sdap_group ***_groups, size_t *_num_groups);

/* Enumeration (sdap_enum_members.c): sets on groups[0..n) (entries[i] is the entry of
 * groups[i]) the member lists sdap_resolve_members would give each of them, reading the
 * member DNs of all of them together. groups and entries must live as long as the
 * request. Errors: those of sdap_member_dns, ENOMEM. */
struct tevent_req *sdap_enum_members_send(TALLOC_CTX *mem_ctx, struct tevent_context *ev,
                                          struct sdap_id_ctx *id_ctx,
                                          struct sdap_group **groups,
                                          struct sdap_entry **entries, size_t n);
errno_t sdap_enum_members_recv(struct tevent_req *req);

#endif /* SSS_SDAP_PRIVATE_H */
