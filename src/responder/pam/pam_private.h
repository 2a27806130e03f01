/*
 * sssd_pam inside: the responder's state and the command handlers.
 *
 *   pam_req.c   the wire codec (pam_req.h)
 *   pam_cmd.c   one PAM request: parse, which domains the client may use, the user's
 *               identity and groups through cache_req (refreshed at most every
 *               pam_id_timeout seconds per user), pamHandler on the user's back-end, the
 *               reply (DOMAIN_NAME, the back-end's items after pam_verbosity's filter)
 *   pam_main.c  the process: options, the public and private sockets
 *
 * Ownership: struct pam_ctx lives on the resp_ctx; requests live on the client request
 * (resp_socket.h), so a client that goes away cancels its request and frees its password.
 */
#ifndef PAM_PRIVATE_H
#define PAM_PRIVATE_H

#include "responder/common/responder_domains.h"
#include "responder/common/resp_socket.h"
#include "responder/pam/pam_req.h"

/* SSSD's pam_verbosity levels. */
#define PAM_VERBOSITY_NO_MESSAGES 0
#define PAM_VERBOSITY_IMPORTANT   1
#define PAM_VERBOSITY_INFO        2
#define PAM_VERBOSITY_DEBUG       3

/* How long sssd_pam waits for the back-end's pamHandler answer: longer than a bind that
 * fails over across a few servers (ldap_network_timeout + ldap_opt_timeout each). */
#define PAM_DP_TIMEOUT_MS (60 * 1000)

/* Users whose identity was refreshed less than pam_id_timeout ago (at most this many are
 * remembered: when the table is full the stale ones go, and if that is not enough, all). */
#define PAM_ID_TABLE_MAX 4096

struct sss_hash_table;

struct pam_ctx {
    struct resp_ctx *rctx;
    uint32_t id_timeout;            /* pam_id_timeout, s */
    int verbosity;                  /* pam_verbosity */
    char *expired_message;          /* pam_account_expired_message ("" when unset) */
    char *locked_message;           /* pam_account_locked_message ("" when unset) */
    uint32_t *trusted_uids;         /* pam_trusted_users; NULL: everybody is trusted */
    size_t num_trusted;
    char **public_domains;          /* pam_public_domains (may be empty, never NULL) */
    bool public_all;                /* pam_public_domains = all */
    struct sss_hash_table *recent;  /* name -> struct pam_recent (pam_id_timeout) */
    struct resp_server *pub_srv;
    struct resp_server *priv_srv;
    uint64_t dp_calls;              /* pamHandler calls sent */
};

/* What each socket's handlers get from resp_request_pvt(). */
struct pam_sock {
    struct pam_ctx *pctx;
    bool priv;                      /* pipes/private/pam */
};

/* The handler of every PAM command but GET_VERSION. */
errno_t pam_cmd_forward(struct resp_request *rreq);

/* pam_trusted_users: whether uid may use every domain (else only pam_public_domains). */
bool pam_uid_trusted(struct pam_ctx *pctx, uid_t uid);

#endif /* PAM_PRIVATE_H */
