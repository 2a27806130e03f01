/*
 * What the files of sssd_nss share: the responder context and the command handlers.
 * nss_main.c starts the process and owns struct nss_ctx; nss_cmd.c runs the lookups
 * (GETPW*, GETGR*, INITGR and their _EX variants) through cache_req; nss_cmd_pw.c,
 * nss_cmd_gr.c and nss_cmd_initgr.c turn results into replies and memory-cache records;
 * nss_cmd_enum.c serves SET/GET/END*ENT from the snapshots of nss_enum.c;
 * nss_cmd_netgr.c serves SET/GET/ENDNETGRENT from the netgroup snapshots of nss_netgr.c.
 */
#ifndef NSS_PRIVATE_H
#define NSS_PRIVATE_H

#include "responder/common/responder_domains.h"
#include "responder/common/resp_socket.h"
#include "responder/common/cache_req.h"
#include "responder/nss/nss_protocol.h"
#include "responder/nss/nss_memcache.h"
#include "responder/nss/nss_format.h"
#include "responder/nss/nss_grcache.h"

/* The gids of a domain's groups that filter_groups names, as its cache knew them at
 * generation gen (nss_cmd_initgr.c). */
struct nss_filtered_gids {
    uint64_t gen;                   /* 0: to be computed */
    uint32_t *gids;
    size_t num;
};

/* Gids of initgroups answers that got no memory-cache record (nss_cmd_initgr.c), valid for
 * one domain at one cache generation: a warm initgroups does not read them again. */
#define NSS_INITGR_SKIP_MAX 64
struct nss_initgr_skip {
    const struct resp_domain *dom;
    uint64_t gen;
    uint32_t gids[NSS_INITGR_SKIP_MAX];
    size_t num;
};

/* Users whose groups' records an initgroups wrote, at which cache generation and until
 * when they are surely still live: a warm initgroups then skips the per-gid checks
 * (~100 ns each: a user in 1,000 groups paid 45 -> 120-180 us without this memo). */
#define NSS_INITGR_DONE_SLOTS 64
struct nss_initgr_done {
    uint64_t key;           /* sss_hash of domain and short name; 0: empty */
    uint64_t gen;
    time_t until;
};

struct nss_initgr_queue;

struct nss_ctx {
    struct resp_ctx *rctx;
    struct nss_initgr_queue *initgr_queue;      /* answers whose groups' records wait */
    struct nss_initgr_skip initgr_skip;
    struct nss_initgr_done initgr_done[NSS_INITGR_DONE_SLOTS];
    struct nss_filtered_gids *filtered_gids;    /* one per rctx domain, made on first use */
    struct nss_enum_ctx *enum_ctx;              /* enumeration snapshots, made on first use */
    struct nss_netgr_mem *netgr_mem;            /* recent netgroups, made on first use */
    uint32_t enum_min_rebuild_s;                /* NSS_ENUM_MIN_REBUILD_S (0 in tests) */
    struct resp_server *srv;
    struct nss_mc *mc[3];           /* by enum nss_mc_type; NULL when disabled */
    char *pwfield;
    struct nss_format_opts *fmt;
    struct nss_grcache *grcache;    /* formatted big groups; NULL: none kept */
    uint32_t memcache_timeout;
    char **user_attributes;         /* [nss] user_attributes: the extra attributes the
                                     * GETORIG* replies carry ("+name" as "name") */
    struct nss_sid_maps *sid_maps;  /* the domains' ID maps (nss_sid_map.c), made on use */
};

/* GETORIGBYNAME / GETORIGBYUSERNAME for a user found (nss_cmd_pw.c). */
errno_t nss_orig_answer(struct nss_ctx *nctx, struct nss_reply *reply,
                        struct cache_req_result *res);

/* The handler of every by-name, by-id and initgroups command (+ _EX). */
errno_t nss_cmd_lookup(struct resp_request *rreq);

/* GET_VERSION, with the request probes around the common handler. */
errno_t nss_cmd_get_version(struct resp_request *rreq);

/* ---- probes (nss_probe.c) ---- */

/* "GETPWNAM" ... for a command number; "?" for an unknown one. */
const char *nss_cmd_name(uint32_t cmd);

/* sssd:nss_request_start / nss_request_done for rreq. nreq is the parsed request, or NULL
 * when there is none (GET_VERSION, a malformed body): the key is then "". result: 0, ENOENT
 * or an errno; domain: the answering domain or NULL. */
void nss_probe_start(struct resp_request *rreq, const struct nss_request *nreq);
void nss_probe_done(struct resp_request *rreq, const struct nss_request *nreq, int result,
                    unsigned int entries, const char *domain);

/* ---- enumeration (nss_enum.c: snapshots and cursors; nss_cmd_enum.c: commands) ---- */

/* A GET*ENT reply holds at most this many records, whatever the client asks (SSSD's client
 * asks 256), and stops growing past NSS_ENUM_MAX_REPLY_BYTES (a reply always holds one
 * record when any is left: a big group may be larger alone). */
#define NSS_ENUM_MAX_PER_REPLY 256
#define NSS_ENUM_MAX_REPLY_BYTES (1024 * 1024)
/* A snapshot is shared while the caches are unchanged, or for this long at least. */
#define NSS_ENUM_MIN_REBUILD_S 3
/* Snapshots of a map alive at once (the oldest is retired beyond). */
#define NSS_ENUM_MAX_SNAPS 3
/* Entries filtered per event-loop step while a snapshot is built. */
#define NSS_ENUM_CHUNK 1024

struct nss_enum_item {
    struct resp_domain *dom;
    struct sysdb_user *user;
    struct sysdb_group *group;
};

struct nss_enum_snap;
struct nss_enum_ctx;

/* A client's place in a snapshot. */
struct nss_enum_cursor {
    struct nss_enum_snap *snap;     /* holds a reference */
    size_t pos;
};

/* A client's enumeration state: one cursor per map (NULL before SET*ENT), [pw]; the
 * netgroup of its last SETNETGRENT (NULL: none) and how many of its records GETNETGRENT
 * returned. */
struct nss_enum_client {
    struct nss_enum_cursor *cur[2];
    char *netgr_name;
    uint32_t netgr_pos;
};

/* The client's state (created when asked and missing; NULL on ENOMEM). */
struct nss_enum_client *nss_enum_client(struct resp_request *rreq, bool create);

/* A cursor at the start of a snapshot of the users (pw) or groups: the newest one when it
 * is still current, else a new one once built (nss_enum.c). _recv: EOK, EINVAL, ENOMEM;
 * the cursor is stolen onto mem_ctx. */
struct tevent_req *nss_enum_cursor_send(TALLOC_CTX *mem_ctx, struct tevent_context *ev,
                                        struct nss_ctx *nctx, bool pw);
errno_t nss_enum_cursor_recv(TALLOC_CTX *mem_ctx, struct tevent_req *req,
                             struct nss_enum_cursor **_cur);

/* Records left after the cursor (0 at the end, or when its snapshot was retired). */
size_t nss_enum_cursor_left(struct nss_enum_cursor *cur);
/* Whether two cursors walk the same snapshot (tests). */
bool nss_enum_cursor_same(struct nss_enum_cursor *a, struct nss_enum_cursor *b);

/* Adds up to count (at most NSS_ENUM_MAX_PER_REPLY, NSS_ENUM_MAX_REPLY_BYTES) records from
 * the cursor to reply and moves it. ENOMEM, EINVAL, E2BIG. */
errno_t nss_enum_fill(struct nss_ctx *nctx, struct nss_enum_cursor *cur, uint32_t count,
                      struct nss_reply *reply);

/* SET/GET/END*ENT. */
errno_t nss_cmd_setent(struct resp_request *rreq);
errno_t nss_cmd_getent(struct resp_request *rreq);
errno_t nss_cmd_endent(struct resp_request *rreq);

/* ---- netgroups (nss_netgr.c: snapshots and memory; nss_cmd_netgr.c: commands) ---- */

/* Netgroups remembered at once (the least recently used is dropped beyond). */
#define NSS_NETGR_MEM_MAX 256

/* One record: a triple (member NULL; NULL fields mean "any") or a member netgroup. */
struct nss_netgr_rec {
    char *host;
    char *user;
    char *domain;
    char *member;
};

struct nss_netgr_snap {
    struct sss_list link;           /* in the memory, most recently used first */
    uint64_t hash;
    char *key;                      /* the name as the client asked it */
    struct resp_domain *dom;
    uint64_t gen;                   /* the domain cache's generation it was read at */
    time_t expire;                  /* of the cache entry; 0: never remembered */
    struct nss_netgr_rec *recs;
    uint32_t num;
};

/* The snapshot of the netgroup res holds (CACHE_REQ_NETGROUP), asked as key. EINVAL,
 * ENOMEM, E2BIG. */
errno_t nss_netgr_snap_build(TALLOC_CTX *mem_ctx, const char *key,
                             struct cache_req_result *res, struct nss_netgr_snap **_snap);

/* Adds up to count records from *pos on to reply and moves *pos. ENOMEM, EINVAL, E2BIG. */
errno_t nss_netgr_fill(const struct nss_netgr_snap *snap, uint32_t *pos, uint32_t count,
                       struct nss_reply *reply);

/* The remembered snapshot of key when it still answers (moved to the front), else NULL
 * (a stale one is dropped). */
struct nss_netgr_snap *nss_netgr_mem_find(struct nss_ctx *nctx, const char *key, time_t now);
/* Remembers snap in place of any other of its key (stolen when kept); returns snap. */
struct nss_netgr_snap *nss_netgr_mem_keep(struct nss_ctx *nctx, struct nss_netgr_snap *snap);
/* Drops what is remembered of key. */
void nss_netgr_mem_forget(struct nss_ctx *nctx, const char *key);
size_t nss_netgr_mem_count(struct nss_ctx *nctx);

/* SETNETGRENT, GETNETGRENT, ENDNETGRENT. */
errno_t nss_cmd_setnetgrent(struct resp_request *rreq);
errno_t nss_cmd_getnetgrent(struct resp_request *rreq);
errno_t nss_cmd_endnetgrent(struct resp_request *rreq);

/* How long a memory-cache record of res may live: 0 (do not store) for an answer from an
 * expired entry, else memcache_timeout capped by the entry's remaining validity. */
uint32_t nss_mc_record_ttl(struct nss_ctx *nctx, struct cache_req_result *res);

/*
 * The memory-cache keys (NSS_MC_KEY_*) under which a passwd (user) or group record made
 * from res, answering nreq, may be found: those where a lookup through sssd_nss would give
 * that same record, for as long as the record lives. The key the client asked by was just
 * resolved in domain order; the other one only when no domain before res's could claim
 * it: the output name when it is qualified, or no earlier domain accepts it as a short
 * name (filtered there counts as not accepting); the id when no earlier domain's id range
 * holds it. So a by-id answer from a second domain never answers a getpwnam() of a name
 * the first domain may have (issue 11, item 4). SSSD 2.8 links both keys always.
 */
unsigned int nss_mc_record_keys(struct nss_ctx *nctx, struct cache_req_result *res,
                                const struct nss_request *nreq, const char *out_name,
                                uint32_t id, bool user);

/* Whether a domain before dom could answer a by-id lookup of id (its id range holds it). */
bool nss_earlier_domain_takes_id(struct resp_ctx *rctx, struct resp_domain *dom, uint32_t id);

/* Adds res to reply and stores it in the memory cache under the keys that may lead to it.
 * nreq is the client's request; asked is the name as the client wrote it (initgroups keys
 * its record by it). Errors: ENOMEM, EINVAL, E2BIG. */
errno_t nss_pw_answer(struct nss_ctx *nctx, struct nss_reply *reply,
                      struct cache_req_result *res, const struct nss_request *nreq);
errno_t nss_gr_answer(struct nss_ctx *nctx, struct nss_reply *reply,
                      struct cache_req_result *res, const struct nss_request *nreq);
errno_t nss_initgr_answer(struct nss_ctx *nctx, struct nss_reply *reply,
                          struct cache_req_result *res, const char *asked);

/* The memory-cache records of the groups of res (an initgroups answer), written after the
 * reply (nss_initgr_mc.c): queued here, written by nss_initgr_mc_flush() or a short timer.
 * Only an accelerator: failures are logged. */
void nss_initgr_mc_defer(struct nss_ctx *nctx, struct cache_req_result *res);
void nss_initgr_mc_flush(struct nss_ctx *nctx);

#endif /* NSS_PRIVATE_H */
