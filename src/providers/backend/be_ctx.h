/*
 * The back-end of one domain (sssd_be --domain NAME), seen by its own files and its unit
 * tests. It answers sssd.dataprovider.getAccountInfo by asking the id provider and writing
 * the domain's cache, keeps the domain's online/offline state, and runs the enumeration task.
 *
 *   be_ctx.c      struct be_ctx: options, cache, id provider; the loop-yield helper;
 *                 result -> dp_error (be_dp_error_of)
 *   be_account.c  one account request: filter parsing, in-flight coalescing, dispatch,
 *                 result -> (dp_error, error, message), the per-request log line
 *   be_id_ldap.c  user / group / initgroups lookups: LDAP result -> cache (or deletion)
 *   be_store.c    sdap structs -> sysdb stores; groups with huge member lists in slices
 *   be_offline.c  the online/offline state machine and its retry timer
 *   be_enum.c     enumeration (periodic task and "*" requests), stale entry removal
 *   be_prefetch*.c member lists of the groups an initgroups stored without them, fetched
 *                 in the background in batches; group requests for them wait for their
 *                 batch (be_prefetch.h: the queue, the waiting side, a batch)
 *   be_pam.c      PAM requests (be_pam.h): auth, chpass, access by provider
 *   be_dp.c       the bus side: the sssd.dataprovider table and the service signals
 *   be_status.c   sssd.backend.Status: online state and servers for sssctl domain-status
 *   be_main.c     the process: config, start-up, registration
 *
 * Ownership: struct be_ctx owns everything the back-end creates (cache, id context, timers,
 * requests in flight). Requests handed to callers live on the caller's mem_ctx; the LDAP
 * operation behind coalesced requests lives on the be_ctx, so it finishes (and writes the
 * cache) even when every caller went away.
 */
#ifndef SSS_BE_CTX_H
#define SSS_BE_CTX_H

#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "util/util.h"
#include "providers/big_group.h"

struct confdb;
struct sysdb_ctx;
struct sdap_id_ctx;
struct sdap_user;
struct sdap_group;
struct sbus_connection;
struct be_offline;
struct be_enum_task;
struct be_op;
struct be_prefetch;
struct be_pam;
struct be_sudo;
struct ad_subdom_task;


/* Member lists larger than this are built in slices across loop turns (the one value
 * the id provider's initgroups paths also use: providers/big_group.h). */
#define BE_BIG_GROUP SSS_BIG_GROUP
/* Names added to a member list per slice; entries stored per enumeration transaction. */
#define BE_NAME_SLICE 1000
#define BE_ENUM_SLICE 100

/* Counters, for tests and diagnostics. */
struct be_stats {
    uint64_t requests;          /* be_account_info_send calls */
    uint64_t coalesced;         /* of those, joined to an identical request in flight */
    uint64_t operations;        /* provider operations started (after coalescing) */
    uint64_t refused_entries;   /* entries with id 0 (or otherwise refused by sysdb) skipped */
    uint64_t went_offline;      /* online -> offline transitions */
    uint64_t went_online;       /* offline -> online transitions */
    uint64_t probes;            /* online probes sent while offline */
    uint64_t enum_rounds;       /* enumeration rounds finished (successfully) */
    uint64_t enum_deleted;      /* stale entries removed by enumeration */
    uint64_t max_step_usec;     /* longest single sliced step (cache work between yields) */
    uint64_t pf_queued;         /* groups queued for the member prefetch */
    uint64_t pf_dropped;        /* of those, dropped (queue full, offline, batch failed) */
    uint64_t pf_batches;        /* prefetch batches (LDAP searches) finished */
    uint64_t pf_stored;         /* groups stored with members by the prefetch */
    uint64_t pf_joined;         /* group requests that waited for a prefetch batch */
    uint64_t pf_fallbacks;      /* of those, sent on their own lookup (batch failed, ...) */
    uint64_t replied_first;     /* users answered before their cache write (reply first) */
};

/* auto_private_groups (sssd.conf(5)); be_mpg.c. */
enum be_mpg_mode {
    BE_MPG_FALSE,       /* the user's gidNumber, which must name a real group */
    BE_MPG_TRUE,        /* gid = uid, a private group named after the user; gidNumber
                         * ignored (added to the user's groups) */
    BE_MPG_HYBRID,      /* a private group only for uid == gid with no real group of gid */
};

struct be_ctx {
    struct tevent_context *ev;
    struct confdb *cdb;
    const char *domain;
    const char *section;                /* "domain/<domain>" */
    /* The bus connection, for signals; NULL in unit tests (then nothing is emitted). */
    struct sbus_connection *conn;

    char *id_provider;
    bool id_supported;                  /* false: every request fails with id_error */
    errno_t id_error;                   /* ENOTSUP (provider not built) or ERR_INVALID_CONFIG */
    const char *id_error_msg;           /* the reply message saying why */
    struct sysdb_ctx *sysdb;
    struct sdap_id_ctx *id_ctx;         /* id_provider = ldap */

    uint32_t user_timeout;              /* entry_cache_user_timeout */
    uint32_t group_timeout;             /* entry_cache_group_timeout */
    bool enumerate;
    enum be_mpg_mode mpg;               /* auto_private_groups */
    int enum_refresh;                   /* ldap_enumeration_refresh_timeout, s */
    int offline_timeout;                /* first retry delay, s */
    int offline_timeout_max;            /* largest retry delay, s */

    struct be_offline *offline;
    struct be_enum_task *enum_task;
    struct sss_list ops;                /* operations in flight (struct be_op), for
                                         * coalescing */
    uint64_t last_op_usec;              /* when an operation last started or ended */
    struct be_prefetch *prefetch;       /* created on first use */
    struct be_pam *pam;                 /* be_pam_init(); NULL: PAM requests refused */
    struct be_sudo *sudo;               /* be_sudo.h; NULL: no sudo rules from here */
    struct ad_subdom_task *subdoms;     /* ad_subdomains.h: the trusted domains (AD); NULL:
                                         * none routed */
    struct be_stats stats;
    /* The user the last getpwnam stored (be_id_ldap.c): a getgrgid of its gid right after
     * is `id`, whose initgroups comes next, and is answered by one search for both. */
    char *recent_user;
    uint32_t recent_gid;
    time_t recent_at;
    /* be_reply_first.c: the found user whose store waits for the end of its operation,
     * and the carried entry of the answers being sent before that store. */
    struct be_user_later *user_later;
    struct be_carried *carrying;
};

/* ---- be_ctx.c ----------------------------------------------------------------------- */

/*
 * Reads the domain's options from cdb, opens the cache <db_dir>/cache_<domain>.ldb (creating
 * db_dir with mode 0700 when missing) in the domain's case mode, and creates the id provider
 * for id_provider = ldap. Other id providers are logged as unsupported and leave
 * id_supported false; so does an LDAP configuration sdap refuses (the process stays up and
 * answers every request with that error, rather than dying in a restart loop).
 * Errors: EINVAL, ERR_INVALID_CONFIG (no id_provider, bad case_sensitive), ENOMEM, EIO, and
 * sysdb_open's.
 */
errno_t be_ctx_create(TALLOC_CTX *mem_ctx, struct tevent_context *ev, struct confdb *cdb,
                      const char *domain, const char *db_dir, struct be_ctx **_be);

/* Gives the event loop a turn (I/O included) before completing: see be_ctx.c. */
struct tevent_req *be_yield_send(TALLOC_CTX *mem_ctx, struct tevent_context *ev);
errno_t be_yield_recv(struct tevent_req *req);

/* Ends a request from one of its callbacks: done on EOK, failed with ret otherwise. */
void be_req_finish(struct tevent_req *req, errno_t ret);

/* Records the duration of a sliced step that started at start_usec (be_stats.max_step_usec). */
void be_step_done(struct be_ctx *be, uint64_t start_usec);

/* The dp_error an operation result stands for (EOK -> OK, ENETUNREACH -> OFFLINE,
 * ETIMEDOUT -> TIMEOUT, anything else -> FATAL): the answer of an account request and the
 * probes of internal requests (enumeration rounds, online probes). Here, beside struct
 * be_ctx, so be_account.c, be_enum.c and be_offline.c each use it without needing another. */
uint16_t be_dp_error_of(errno_t ret);

/* ---- be_account.c ------------------------------------------------------------------- */

/*
 * One getAccountInfo request: entry_type (SSS_DP_USER/GROUP/INITGROUPS, SSS_DP_FAST
 * ignored) and filter as in sss_dp.h. req_id is the caller's request id (logs, probes: the
 * LDAP and cache work runs under it; a request joining one in flight leaves that work
 * under the first request's id).
 * The reply is always a dp answer: _recv fails only with ENOMEM (or EINVAL for bad use).
 * The request does not finish before the cache write committed, unless its caller asked
 * for the reply first (be_account_info_reply_first): then a user found by name or uid may
 * be answered just before its write (be_reply_first.c).
 */
struct tevent_req *be_account_info_send(TALLOC_CTX *mem_ctx, struct tevent_context *ev,
                                        struct be_ctx *be, uint32_t entry_type,
                                        const char *filter, uint64_t req_id);
errno_t be_account_info_recv(TALLOC_CTX *mem_ctx, struct tevent_req *req,
                             uint16_t *_dp_error, uint32_t *_error, const char **_message);
/* The caller of req takes the entry from be->carrying (be_dp.c) and reads no cache in its
 * callback: the answer may then come before the cache write (be_reply_first.c). */
void be_account_info_reply_first(struct tevent_req *req);

/* ---- be_id_ldap.c ------------------------------------------------------------------- */

enum be_filter_kind {
    BE_FILTER_NAME,
    BE_FILTER_ID,
    BE_FILTER_ENUM,
    BE_FILTER_MAIL,             /* users by e-mail address (SSSD's fallback by e-mail) */
    BE_FILTER_SID,              /* users, groups by SID (SSSD's BE_FILTER_SECID) */
};

struct be_filter {
    enum be_filter_kind kind;
    const char *name;           /* BE_FILTER_NAME; BE_FILTER_MAIL: the address;
                                 * BE_FILTER_SID: the SID string */
    uint32_t id;                /* BE_FILTER_ID */
};

/* A getAccountInfo filter of entry type type (without flags): "name=<name>",
 * "idnumber=<decimal uint32>", "mail=<address>" (users), "secid=<SID>" (users, groups; a
 * well-formed SID string) or "*". *_f points into filter.
 * EINVAL with *_why set otherwise (be_account.c). */
errno_t be_parse_filter(uint32_t type, const char *filter, struct be_filter *_f,
                        const char **_why);

/*
 * The cache refresh behind one request (type is SSS_DP_USER, _GROUP or _INITGROUPS without
 * flags). EOK: the cache holds the answer (the entry was stored, or removed because the
 * directory has no such object). Errors: sdap's (ENETUNREACH, ETIMEDOUT, EINVAL, EIO,
 * ENOTCONN, EACCES), sysdb's, ENOMEM.
 */
struct tevent_req *be_id_ldap_send(TALLOC_CTX *mem_ctx, struct tevent_context *ev,
                                   struct be_ctx *be, uint32_t type,
                                   const struct be_filter *filter);
errno_t be_id_ldap_recv(struct tevent_req *req);
/* The same on id_ctx (be->id_ctx or its global catalog's); keep_missing (the GC): an
 * object the directory does not hold is ENOENT and the cache is left as it was, and an
 * initgroups starts only from the user's fresh cache entry (ENOENT without one). */
struct tevent_req *be_id_ldap_conn_send(TALLOC_CTX *mem_ctx, struct tevent_context *ev,
                                        struct be_ctx *be, struct sdap_id_ctx *id_ctx,
                                        bool keep_missing, uint32_t type,
                                        const struct be_filter *filter);

/* ---- be_id_gc.c --------------------------------------------------------------------- */

/* One account request routed as SSSD's AD provider routes it: the global catalog first
 * for what it serves, then the domain's LDAP (be_id_gc.c). Results and errors as
 * be_id_ldap_send; the global catalog's own failures are never returned. */
struct tevent_req *be_id_send(TALLOC_CTX *mem_ctx, struct tevent_context *ev,
                              struct be_ctx *be, uint32_t type,
                              const struct be_filter *filter);
errno_t be_id_recv(struct tevent_req *req);

/* The end of a group request that found group: stores it (sliced when huge; the group is
 * moved onto mem_ctx, which must live until then) and ends req with the store's result.
 * EAGAIN: the store runs; anything else: nothing started, the caller ends req. */
errno_t be_group_store_finish(struct tevent_req *req, TALLOC_CTX *mem_ctx,
                              struct tevent_context *ev, struct be_ctx *be,
                              struct sdap_group *group);

/* ---- be_mpg.c ----------------------------------------------------------------------- */

/*
 * A group request (by name or gid) in a domain with auto_private_groups true or hybrid:
 * the user whose private group it may be is looked up as sssd.conf(5) says, and the cache
 * made to hold the answer: the private group (with its user), the real group, or nothing.
 * EOK in every such case; errors as be_id_ldap_send.
 */
struct tevent_req *be_mpg_group_send(TALLOC_CTX *mem_ctx, struct tevent_context *ev,
                                     struct be_ctx *be, const struct be_filter *filter);
errno_t be_mpg_group_recv(struct tevent_req *req);

/*
 * auto_private_groups = true: the user's own gidNumber is one of its groups (SSSD adds
 * it): when groups does not hold it, the group of that gid is looked up and appended.
 * *_groups / *_num are replaced (stolen onto mem_ctx) when a group was added. A group that
 * does not exist, or a failed search, adds nothing (EOK).
 */
struct tevent_req *be_mpg_primary_send(TALLOC_CTX *mem_ctx, struct tevent_context *ev,
                                       struct be_ctx *be, const struct sdap_user *user,
                                       struct sdap_group **groups, size_t num_groups);
errno_t be_mpg_primary_recv(TALLOC_CTX *mem_ctx, struct tevent_req *req,
                            struct sdap_group ***_groups, size_t *_num_groups);

/* ---- be_store.c --------------------------------------------------------------------- */

/* Stores one user / group (members replaced when with_members) in the caller's transaction
 * or its own. EINVAL for an entry sysdb refuses (id 0, bad name ...): counted in
 * be_stats.refused_entries and logged. */
errno_t be_store_user(struct be_ctx *be, const struct sdap_user *user, time_t now);
/* The sysdb form of user (its strings are user's) that be_store_user stores. */
struct sysdb_user;
void be_user_to_sysdb(struct be_ctx *be, const struct sdap_user *user,
                      struct sysdb_user *su);
/* be_store_user with the entry already built (sysdb_user_write_new of user's sysdb form,
 * stamped now). */
struct sysdb_user_write;
errno_t be_store_user_prepared(struct be_ctx *be, const struct sdap_user *user,
                               struct sysdb_user_write *w, time_t now);
errno_t be_store_group(struct be_ctx *be, const struct sdap_group *group, bool with_members,
                       time_t now);
/* be_store_group without members; *_expired: stored expired as new (see sysdb_store_group_ext). */
errno_t be_store_group_seen(struct be_ctx *be, const struct sdap_group *group, time_t now,
                            bool *_expired);

/* Inside an initgroups' store transaction, before storing groups[0..n) in it: the gids'
 * holders of those stored without members (incomplete or big: be_store_group_seen) read at
 * once for the stores to come (sysdb_groups_prefetch). A failure is only logged: each
 * store then searches its own. */
void be_store_seen_groups_prefetch(struct be_ctx *be, struct sdap_group *const *groups,
                                   size_t n);

/* More than BE_BIG_GROUP member names: stored in slices (be_store_group_send), on its own. */
bool be_group_is_big(const struct sdap_group *group);

/* Stores a group with its members; lists over BE_BIG_GROUP names are built BE_NAME_SLICE
 * names per loop turn and written by one final store. Errors as be_store_group. */
struct tevent_req *be_store_group_send(TALLOC_CTX *mem_ctx, struct tevent_context *ev,
                                       struct be_ctx *be, const struct sdap_group *group);
errno_t be_store_group_recv(struct tevent_req *req);

/* The user's private group {name, gid = uid, no members} (auto_private_groups). Errors
 * as be_store_group. */
errno_t be_store_private_group(struct be_ctx *be, const struct sdap_user *user, time_t now);

/* Removes a cached user / group by name or by id; absent entries are not an error. */
errno_t be_delete_user(struct be_ctx *be, const struct be_filter *filter);
errno_t be_delete_group(struct be_ctx *be, const struct be_filter *filter);

/* ---- be_prefetch.c, be_prefetch_wait.c ---------------------------------------------- */

/* Gids per prefetch search; batches in flight; most groups waiting (more are dropped). */
#define BE_PF_BATCH 100
#define BE_PF_WINDOW 3
#define BE_PF_MAX_QUEUED 20000
/* An initgroups that stored fewer new groups than this queues none. Fetching in the
 * background the members of every group of every user who logs in costs the directory
 * more than the few getgrgid lookups it saves; and each batch's commit makes the
 * responders' read caches start over. Measured: with every initgroups queued, warm
 * getpwnam through the responder went from 22 to 40 us p50 while a benchmark's 3,000
 * cold initgroups were being prefetched. */
#define BE_PF_MIN_GROUPS 32

/*
 * Queues groups[0..n) (stored by an initgroups without members, hence expired) for a member
 * fetch, in that order, after the ones already waiting (at most BE_PF_MAX_QUEUED; more are
 * dropped and logged); groups already queued are skipped. Nothing starts while an operation
 * is in flight (the caller's included): batches run once the back-end had none for a while,
 * or at once when a request waits for one of the groups (be_prefetch_join).
 */
void be_prefetch_queue(struct be_ctx *be, struct sdap_group *const *groups, size_t n);

/* Called with EOK when the group was stored with its members; with an error when the
 * prefetch gave up on it (the caller must look it up on its own). */
typedef void (*be_prefetch_fn)(void *pvt, errno_t ret);

/*
 * A group request (filter by name or gid) for a group queued or in flight: the caller waits
 * for that group's batch (moved to the front when only queued) and fn is called from the
 * event loop, never from inside this call. The wait lives on mem_ctx (freeing it cancels
 * it). false: not a prefetched group, fn will not be called.
 */
bool be_prefetch_join(struct be_ctx *be, const struct be_filter *filter, TALLOC_CTX *mem_ctx,
                      be_prefetch_fn fn, void *pvt);

/* Groups queued (not yet in a batch) and in flight, for tests and diagnostics. */
size_t be_prefetch_pending(struct be_ctx *be);

/* ---- be_offline.c ------------------------------------------------------------------- */

errno_t be_offline_init(struct be_ctx *be);
bool be_is_offline(struct be_ctx *be);
/* Goes offline (signal SetOffline, retry timer at offline_timeout) unless already offline. */
void be_go_offline(struct be_ctx *be, const char *why);
/* A request met the offline state: may start an early probe (see be_offline.c). */
void be_offline_request_seen(struct be_ctx *be);
/* sssd.service.ResetOffline: offline -> probe now; online -> forget bad server marks. */
void be_reset_offline(struct be_ctx *be);
/* Seconds until the next scheduled probe; -1 when none is scheduled (online, or probing). */
int be_offline_next_retry(struct be_ctx *be);
/* The delay the next failed probe would be followed by (for tests and logs). */
int be_offline_current_delay(struct be_ctx *be);
/* When the state last changed (or the back-end started) and why; the reason belongs to be. */
void be_offline_since(struct be_ctx *be, time_t *_since, const char **_reason);
/* Emits SetActive(domain) (after registration). */
void be_announce_active(struct be_ctx *be);

/* ---- be_enum.c ---------------------------------------------------------------------- */

#define BE_ENUM_USERS  0x1
#define BE_ENUM_GROUPS 0x2

/*
 * One enumeration round over what (BE_ENUM_USERS | BE_ENUM_GROUPS): fetch everything, store
 * it in slices of BE_ENUM_SLICE entries per transaction with a loop turn between slices, then
 * remove cached entries of that kind that this round did not see and nothing refreshed since
 * the round started. Errors: sdap's and sysdb's.
 */
struct tevent_req *be_enum_send(TALLOC_CTX *mem_ctx, struct tevent_context *ev,
                                struct be_ctx *be, int what);
errno_t be_enum_recv(struct tevent_req *req);

/* The periodic task: a first round now, then one every enum_refresh seconds after the end
 * of the previous round; rounds are skipped while offline. No-op unless enumerate. */
errno_t be_enum_task_start(struct be_ctx *be);

/* ---- be_reply_first.c ---------------------------------------------------------------- */

struct sdap_user;

/* The entry answers carry while they are sent before their store (be_dp.c reads it). */
struct be_carried {
    uint32_t type;              /* SSS_DP_USER */
    struct be_filter filter;    /* name or id */
    uint64_t gen;
    const void *blob;           /* the store's own (sysdb_user_write_form) */
    size_t len;
};

/* be_id_ldap.c, a user found by name or id: hands it over (taken, on success) to be
 * stored at the end of its operation, after or before the answers (be_account.c). false:
 * not taken (no bus: unit tests; out of memory): the caller stores it now. */
bool be_user_later_set(struct be_ctx *be, uint32_t type, const struct be_filter *filter,
                       struct sdap_user *user, time_t now);

/* be_account.c, when an operation ends: the user handed over during it, or NULL. */
struct be_user_later *be_user_later_take(struct be_ctx *be);

/* Stores it now, before the answers (be_store_user's errors). */
errno_t be_user_later_store(struct be_ctx *be, struct be_user_later *later);

/* Opens the write transaction and sets be->carrying for the answers. EOK: answer now
 * (each reply sent before this returns), then be_reply_first_end(); else (ENOTSUP: the
 * entry cannot be carried, sysdb errors) nothing is open: be_user_later_store() instead. */
errno_t be_reply_first_begin(struct be_ctx *be, struct be_user_later *later);

/* After the answers: flushes them to the bus, stores the user in the open transaction and
 * commits. A failure is logged only (the answers were the directory's). */
void be_reply_first_end(struct be_ctx *be, struct be_user_later *later);

/* ---- be_dp.c ------------------------------------------------------------------------ */

/* Serves sssd.dataprovider at SSS_BUS_PATH and listens to GoOffline / ResetOffline. */
errno_t be_dp_register(struct be_ctx *be, struct sbus_connection *conn);

/* ---- be_status.c --------------------------------------------------------------------- */

/* Serves sssd.backend.Status (sssctl domain-status) on conn. ENOMEM, sbus errors. */
errno_t be_status_register(struct be_ctx *be, struct sbus_connection *conn);

#endif /* SSS_BE_CTX_H */
