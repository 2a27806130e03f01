/*
 * Running krb5_child from sssd_be (krb5_child_handler.c, krb5_child_cfg.c): used by the
 * Kerberos auth provider (logins, password changes, renewals) and by the LDAP provider
 * (a TGT from ldap_krb5_keytab for the SASL GSSAPI bind). The back-end's loop never waits
 * on the child: it is forked, fed and read through non-blocking pipes, killed at the
 * timeout and reaped without blocking.
 */
#ifndef SSS_KRB5_CHILD_CLIENT_H
#define SSS_KRB5_CHILD_CLIENT_H

#include "util/util.h"
#include "providers/krb5/krb5_child_msg.h"

struct confdb;
struct krb5_child_pool;
struct krb5_child_wait;

struct krb5_child_cfg {
    char *child_path;           /* SSSD_LIBEXEC_PATH/krb5_child, or $SSS_KRB5_CHILD */
    char *conf_path;            /* the realm's KDC list (krb5_server...); NULL: none */
    int timeout;                /* seconds; the child is killed after it */
    int spares;                 /* children kept started ahead of time (0: none) */
    struct krb5_child_pool *pool;   /* krb5_child_pool.c; made at the first use */
};

/*
 * Reads krb5_server, krb5_backup_server and krb5_kpasswd of section and, when servers
 * are set, writes them for realm to state_dir/krb5_kdc_<domain>.conf, which the child
 * reads before the system's krb5.conf (KRB5_CONFIG=snippet:system): libkrb5 then fails
 * over between them in that order. Errors: ERR_INVALID_CONFIG (a server with spaces or
 * braces), EIO and errno (the file), ENOMEM.
 */
errno_t krb5_child_cfg_create(TALLOC_CTX *mem_ctx, struct confdb *cdb, const char *domain,
                              const char *section, const char *realm, const char *state_dir,
                              int timeout, struct krb5_child_cfg **_cfg);

/*
 * Rewrites the KDC list of domain (state_dir/krb5_kdc_<domain>.conf) with found, the
 * hosts DNS discovery found in order (NULL-terminated), in place of the _srv_ entries of
 * krb5_server; nothing when krb5_server has none. Children started before see the change
 * (krb5_child_pool.c restarts spares whose krb5.conf changed). Errors: as
 * krb5_child_cfg_create.
 */
errno_t krb5_kdc_list_write(struct confdb *cdb, const char *domain, const char *section,
                            const char *state_dir, char **found);

/* Runs krb5_child with creq; killed after cfg->timeout seconds (ETIMEDOUT).
 * Errors: ETIMEDOUT, EIO (the child died, a malformed answer), ENOMEM. */
struct tevent_req *krb5_child_send(TALLOC_CTX *mem_ctx, struct tevent_context *ev,
                                   struct krb5_child_cfg *cfg,
                                   const struct krb5_child_req *creq);
errno_t krb5_child_recv(TALLOC_CTX *mem_ctx, struct tevent_req *req,
                        struct krb5_child_rsp **_rsp);

/*
 * krb5_child_pool.c: children are started by a worker thread (never forked from the
 * loop), cfg->spares of them ahead of time. fn gets the child (the pid and our ends of its
 * stdin and stdout, which it then owns) or the error that prevented it: at once, from
 * krb5_child_pool_take, when a spare is ready (*_wait = NULL), else later from the loop
 * (*_wait: freeing it gives the place up).
 */
typedef void (*krb5_child_take_fn)(void *pvt, errno_t ret, pid_t pid, int in_fd, int out_fd);
errno_t krb5_child_pool_take(TALLOC_CTX *mem_ctx, struct tevent_context *ev,
                             struct krb5_child_cfg *cfg, krb5_child_take_fn fn, void *pvt,
                             struct krb5_child_wait **_wait);
/* Starts the spares now (at the provider's start), so even the first login has one. */
errno_t krb5_child_pool_prestart(struct krb5_child_cfg *cfg, struct tevent_context *ev);

#endif /* SSS_KRB5_CHILD_CLIENT_H */
