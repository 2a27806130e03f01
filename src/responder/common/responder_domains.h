/*
 * The responders' view of their domains and the state every lookup shares (struct resp_ctx):
 * the [sssd] domains list in order with each domain's lookup options (fully qualified names,
 * case mode, id range, enumeration, output name format), the state the back-ends announce
 * with sssd.Responder.Domain signals (active/inconsistent, online/offline), the negative
 * cache (reset by sssd.Responder.NegativeCache signals), and each domain's cache (sysdb),
 * opened on first use so a responder never creates a cache before its back-end needs it.
 *
 * Ownership: struct resp_ctx is a talloc object on the caller's mem_ctx; domains, caches and
 * the negative cache are its children. resp_ctx_create() takes everything it needs as
 * arguments (tests build one on a temporary cache directory and an in-process bus);
 * resp_domains_init() builds the daemon's from a struct sss_service, and resp_main() is
 * the whole main() of a responder.
 */
#ifndef RESPONDER_DOMAINS_H
#define RESPONDER_DOMAINS_H

#include "service/sss_service.h"
#include "db/sysdb.h"
#include "responder/common/negcache.h"
#include "responder/common/resp_local.h"

struct resp_domain {
    char *name;
    char *bus_name;             /* sssd.domain_<escaped name> */
    bool active;                /* SetActive / SetInconsistent */
    bool online;                /* SetOnline / SetOffline; starts online */
    bool fqnames;               /* use_fully_qualified_names */
    bool enumerate;
    enum sysdb_case case_mode;  /* case_sensitive */
    uint32_t min_id;
    uint32_t max_id;            /* 0: no upper bound */
    char *name_format;          /* [domain] full_name_format, else [sssd]'s */
    char **filter_users;        /* [domain] filter_users (may be empty, never NULL) */
    char **filter_groups;
    struct sysdb_ctx *sysdb;    /* opened by resp_domain_sysdb() */
};

struct resp_ctx {
    struct sss_service *svc;        /* NULL outside the daemon */
    struct tevent_context *ev;
    struct confdb *cdb;
    struct sbus_connection *conn;   /* to the master bus; NULL: back-ends unreachable */
    char *db_dir;                   /* SSSD_DB_PATH in the daemon */
    struct resp_domain *domains;    /* in [sssd] domains order */
    size_t num_domains;
    struct resp_domain *default_domain; /* default_domain_suffix, or NULL */
    bool output_fqnames;            /* every name fully qualified (default_domain_suffix) */
    struct resp_ncache *ncache;     /* entry_negative_timeout */
    struct resp_local *local;       /* /etc/passwd, /etc/group; NULL: not consulted */
    uint32_t local_neg_timeout;     /* local_negative_timeout; 0: local accounts are
                                     * looked up in the directory too */
    uint32_t nowait_percentage;     /* entry_cache_nowait_percentage; 0: off */
    int dp_timeout_ms;              /* getAccountInfo reply timeout; 0: sbus default */
    char **filter_users;            /* [nss] filter_users ("root" by default) */
    char **filter_groups;
    size_t fd_limit;                /* descriptors this process may open (fd_limit applied);
                                     * 0: not set by resp_main() */
    unsigned int negcache_resets;   /* how often the negative cache was reset */
    uint64_t dp_calls;              /* getAccountInfo calls started (chained ones too) */
};

/* Reads the domains and the lookup options from cdb. ev, conn and db_dir are kept
 * (db_dir copied). Errors: EINVAL, ENOMEM, confdb errors (logged). */
errno_t resp_ctx_create(TALLOC_CTX *mem_ctx, struct tevent_context *ev, struct confdb *cdb,
                        struct sbus_connection *conn, const char *db_dir,
                        struct resp_ctx **_rctx);

/* resp_ctx_create() for a service: its loop, config, bus connection and SSSD_DB_PATH. */
errno_t resp_domains_init(TALLOC_CTX *mem_ctx, struct sss_service *svc,
                          struct resp_ctx **_rctx);

/* The configured domain of that name (matched without regard to case), or NULL. */
struct resp_domain *resp_domain_find(struct resp_ctx *rctx, const char *name);

/* The configured domain whose back-end recorded a trusted domain of DNS name or flat name
 * name (any case), or NULL (responder_subdomains.c; also on ENOMEM); *_dns_name: the
 * trusted domain's DNS name (on mem_ctx). Its users are "user@dns_name" in that domain's
 * cache. When that DNS name is a configured domain: that domain, *_dns_name NULL (its
 * users are short names in its own cache). */
struct resp_domain *resp_domain_trusting(struct resp_ctx *rctx, TALLOC_CTX *mem_ctx,
                                         const char *name, char **_dns_name);

/* The domain's cache, opened on first use. Errors: those of sysdb_open() (logged). */
errno_t resp_domain_sysdb(struct resp_ctx *rctx, struct resp_domain *dom,
                          struct sysdb_ctx **_sysdb);

/* Listens for sssd.Responder.Domain and sssd.Responder.NegativeCache signals. EINVAL
 * without a bus connection, errors of sbus_connection_add_listeners(). */
errno_t resp_listen_common(struct resp_ctx *rctx);

/* Adds n listeners (the last one SBUS_LISTENERS_END) to conn; the bus keeps pointers to
 * them, so they are copied onto owner, which must live as long as conn. */
errno_t resp_add_listeners(TALLOC_CTX *owner, struct sbus_connection *conn,
                           const struct sbus_listener *listeners, size_t n);

/* What a responder adds to the common set-up (rctx built, common signals listened for):
 * its interfaces, listeners and client socket. */
typedef errno_t (*resp_init_fn)(struct sss_service *svc, struct resp_ctx *rctx);

/* Applies the responder's fd_limit option (section [name]) to RLIMIT_NOFILE, as SSSD does:
 * the soft limit becomes fd_limit, raising the hard limit when the process may (root),
 * else capped by the hard limit. *_applied: the soft limit now in force. Errors: confdb's,
 * EINVAL (a limit below 64), the errno of getrlimit() (logged). */
errno_t resp_apply_fd_limit(struct confdb *cdb, const char *section, size_t *_applied);

/* A responder's main(): the service "sssd_<name>" (config section and bus name <name>),
 * set up by resp_domains_init(), resp_apply_fd_limit(), resp_listen_common() and then init
 * (NULL: nothing more). Returns the process exit status. */
int resp_main(int argc, const char *argv[], const char *name, resp_init_fn init);

/* Tests: the local account files cache_req consults (resp_local.h) instead of /etc's. */
errno_t resp_ctx_set_local_files(struct resp_ctx *rctx, const char *passwd_path,
                                 const char *group_path);

/* What the signals do, callable directly (tests, sss_cache-like paths). */
void resp_domain_set_online(struct resp_ctx *rctx, const char *name, bool online);
void resp_reset_negative_cache(struct resp_ctx *rctx, enum resp_ncache_type type);

#endif /* RESPONDER_DOMAINS_H */
