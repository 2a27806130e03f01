/*
 * be_sudo: the sudo provider of a back-end (sudo_provider = ldap). It exists only when the
 * [sssd] services name sudo and the domain's sudo provider is ldap with the LDAP id
 * provider: otherwise nothing at all is searched for sudo.
 *
 *   full refresh   every rule of the host (sdap_sudo.h); cached rules the directory no
 *                  longer has are removed (only after a complete answer); first run at
 *                  start-up plus a random delay up to ldap_sudo_random_offset, then every
 *                  ldap_sudo_full_refresh_interval
 *   smart refresh  rules whose entryUSN / modifyTimestamp is at or above the highest seen,
 *                  every ldap_sudo_smart_refresh_interval (skipped while a full one runs
 *                  and until a full one succeeded); removes nothing
 *   rules refresh  the named rules, on request of sssd_sudo (expired rules of a user);
 *                  removes those the directory no longer has, and when it removed any, a
 *                  full refresh follows at once (as SSSD does): others may be gone too
 * Only one full refresh runs at a time: sudoHandler FULL requests and the one after a
 * deletion run as (or join) the periodic task's, which is rescheduled from their end.
 * Rules are stored BE_SUDO_SLICE per transaction with a loop turn between slices. Refreshes
 * due while the domain is offline are skipped; one finding no server takes it offline.
 */
#ifndef SSS_BE_SUDO_H
#define SSS_BE_SUDO_H

#include "providers/backend/be_ctx.h"

#define BE_SUDO_SLICE 250

struct be_sudo_stats {
    uint64_t full;              /* successful full refreshes */
    uint64_t smart;
    uint64_t rules;
    uint64_t failed;
    uint64_t skipped_entries;   /* malformed sudoRole entries left out */
    uint64_t last_full_usec;    /* duration of the last full refresh */
};

/* Sets be->sudo up when sudo applies to this domain (see above); EOK without doing
 * anything otherwise. Errors: ERR_INVALID_CONFIG, ENOMEM, confdb's. */
errno_t be_sudo_init(struct be_ctx *be);

/* Starts the periodic refreshes (after registration). No-op without be->sudo. */
errno_t be_sudo_start(struct be_ctx *be);

/*
 * One refresh on request: type SSS_DP_SUDO_FULL (joins a full refresh in flight) or
 * SSS_DP_SUDO_RULES with names[0..n) (NULL-terminated). The reply is a dp answer (sss_dp.h): _recv fails only
 * with ENOMEM or EINVAL. Without sudo on this domain: DP_ERR_FATAL, ENOTSUP.
 */
struct tevent_req *be_sudo_handler_send(TALLOC_CTX *mem_ctx, struct tevent_context *ev,
                                        struct be_ctx *be, uint32_t type,
                                        const char **names, uint64_t req_id);
errno_t be_sudo_handler_recv(TALLOC_CTX *mem_ctx, struct tevent_req *req,
                             uint16_t *_dp_error, uint32_t *_error, const char **_message);

void be_sudo_get_stats(struct be_ctx *be, struct be_sudo_stats *_stats);

#endif /* SSS_BE_SUDO_H */
