/*
 * The failover internals shared by the LDAP provider's three failover files: the server
 * list and its state (sdap_fo_servers.c), the walk that tries servers in order until one
 * gives a ready connection (sdap_fo_walk.c), and the shared connection with its return to
 * a primary (sdap_failover.c). The rest of the provider uses sdap_private.h's sdap_fo_*.
 */
#ifndef SDAP_FO_PRIVATE_H
#define SDAP_FO_PRIVATE_H

#include <stdbool.h>
#include <stdint.h>
#include <time.h>
#include <tevent.h>

#include "providers/ldap/sdap_private.h"

struct sdap_server {
    const char *uri;
    bool backup;
    time_t bad_until;           /* 0: good */
    const char *srv_name;       /* a placeholder: the DNS name after _ldap._tcp.; else NULL */
    time_t srv_expires;         /* a placeholder's records: valid until; 0: unknown */
    bool discovered;            /* named by the placeholder before it */
    bool site_asked;            /* a placeholder: the LDAP ping was sent for its site */
    /* For diagnostics only (sdap_id_ctx_servers): failover decisions never read them. */
    errno_t last_error;
    time_t last_contact;
    time_t last_failure;
    uint64_t connects;
    uint64_t failures;
};

struct sdap_fo {
    struct sdap_server *servers;    /* placeholders' records: children of this array */
    size_t num;
    int bad_timeout;
    char *gone_uri;                 /* the last server DNS stopped naming while in use */
    sdap_discovery_fn found_fn;     /* told each answer installed; NULL: nobody */
    void *found_pvt;
    sdap_connected_fn conn_fn;      /* told each connection installed; NULL: nobody */
    void *conn_pvt;
    const char *service;            /* the SRV service: "_ldap._tcp", or "_gc._tcp" */
};

/* Like sdap_fo_next, for a server to connect to: placeholders are skipped. */
int sdap_fo_next_server(struct sdap_fo *fo, size_t start, time_t now);
/* idx is a placeholder (ldap://_srv_). */
bool sdap_fo_is_srv(struct sdap_fo *fo, size_t idx);
/* Every server failed: the next walk asks DNS again. */
void sdap_fo_srv_expire(struct sdap_fo *fo);
/* Puts the records (uris, in order; the first n_site the site's) after placeholder idx
 * instead of its previous ones; a server still named keeps its state. ENOMEM leaves fo as
 * it was. */
errno_t sdap_fo_srv_install(struct sdap_fo *fo, size_t idx, char **uris, size_t n,
                            size_t n_site, uint32_t ttl, time_t now);
/* Tells the discovery listener the hosts of every discovered server, in failover order. */
void sdap_fo_tell_found(struct sdap_fo *fo);
/* The index of uri after a change of the list, or -1. */
int sdap_fo_find(struct sdap_fo *fo, const char *uri);

/* The failover walk of id_ctx's list, from its start: the recv gives the ready
 * connection and its server's index. ENETUNREACH: every server failed (offline); EACCES:
 * credentials refused (failing over would not help). */
struct tevent_req *sdap_fo_walk_send(TALLOC_CTX *mem_ctx, struct tevent_context *ev,
                                     struct sdap_id_ctx *id_ctx);
errno_t sdap_fo_walk_recv(TALLOC_CTX *mem_ctx, struct tevent_req *req,
                          struct sdap_conn **_conn, int *_idx);

#endif /* SDAP_FO_PRIVATE_H */
