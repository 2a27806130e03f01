/*
 * sssd_sudo internals: the responder's context and the request that answers
 * GET_SUDORULES / GET_DEFAULTS (sudo_cmd.c). Only the sudo responder's files and its unit
 * tests include this.
 */
#ifndef SUDO_PRIVATE_H
#define SUDO_PRIVATE_H

#include "responder/common/responder_domains.h"
#include "responder/common/resp_socket.h"
#include "responder/sudo/sudo_rules.h"

/* A domain's cached rules, parsed, valid while the cache's rule generation is gen. */
struct sudo_snap {
    bool loaded;
    uint64_t gen;
    struct sysdb_sudo_rule **rules;     /* on the snapshot's own context */
    size_t num_rules;
    TALLOC_CTX *mem;
};

struct sudo_ctx {
    struct resp_ctx *rctx;
    bool timed;                 /* [sudo] sudo_timed */
    int threshold;              /* [sudo] sudo_threshold */
    bool inverse_order;         /* [sudo] sudo_inverse_order */
    struct sudo_snap *snaps;    /* one per rctx->domains[i] */
    struct resp_server *srv;
    uint64_t dp_refreshes;      /* sudoHandler calls made */
};

enum sudo_req_type {
    SUDO_REQ_RULES,
    SUDO_REQ_DEFAULTS,
};

/* Builds the context from [sudo] (tests give their own resp_ctx). */
errno_t sudo_ctx_create(TALLOC_CTX *mem_ctx, struct resp_ctx *rctx, struct sudo_ctx **_sctx);

/*
 * The rules of the user (name as sudo gives it, uid its uid) or the defaults: the user is
 * looked up like initgroups (cache_req); a uid that is not the user's gives ENOENT, as in
 * SSSD. Expired rules among the answer are refreshed first when the domain is online
 * (sudoHandler RULES, or FULL past sudo_threshold rules; a cache without any full refresh
 * yet asks FULL); offline, or when the refresh fails, the cached rules answer.
 * _recv: the reply body (PROTOCOL.md); errors ENOENT (no such user), ENOMEM, EIO.
 */
struct tevent_req *sudo_get_rules_send(TALLOC_CTX *mem_ctx, struct tevent_context *ev,
                                       struct sudo_ctx *sctx, enum sudo_req_type type,
                                       uint32_t uid, const char *name, uint64_t req_id);
errno_t sudo_get_rules_recv(TALLOC_CTX *mem_ctx, struct tevent_req *req, uint8_t **_body,
                            size_t *_len, size_t *_num_rules);

#endif /* SUDO_PRIVATE_H */
