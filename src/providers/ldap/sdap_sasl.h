/*
 * SASL binds of the LDAP provider (sdap_sasl.c): ldap_sasl_mech = GSSAPI with
 * ldap_krb5_keytab, ldap_sasl_authid, ldap_sasl_realm, ldap_krb5_init_creds,
 * ldap_krb5_ticket_lifetime. The back-end's TGT (and the service ticket of the server it
 * binds to) come from krb5_child into a private ccache; the bind itself is
 * ldap_sasl_interactive_bind driven step by step from the event loop.
 */
#ifndef SSS_SDAP_SASL_H
#define SSS_SDAP_SASL_H

#include "util/util.h"

struct confdb;
struct sdap_conn;
struct sdap_sasl;

/* NULL in *_sasl when ldap_sasl_mech is not set (simple or anonymous binds).
 * Errors: ERR_INVALID_CONFIG (a mechanism not supported here, GSSAPI without a realm),
 * ENOMEM, and the KDC list's (krb5_child_cfg_create). */
errno_t sdap_sasl_read(TALLOC_CTX *mem_ctx, struct confdb *cdb, const char *domain,
                       const char *section, struct sdap_sasl **_sasl);

/* The SASL bind on a fresh connection (a new TGT first when the old one is past half its
 * life, or was for another server). Errors: EACCES (refused), ETIMEDOUT, EIO, ENOMEM. */
struct tevent_req *sdap_sasl_bind_send(TALLOC_CTX *mem_ctx, struct tevent_context *ev,
                                       struct sdap_conn *conn, struct sdap_sasl *sasl,
                                       int timeout);
errno_t sdap_sasl_bind_recv(struct tevent_req *req);
/* "GSSAPI as host/x@R", for the logs. */
const char *sdap_sasl_name(const struct sdap_sasl *sasl);

/* Called with each domain's options as they are read (sasl: they name ldap_sasl_mech):
 * while none does, Cyrus SASL is kept from loading its plugins (sdap_sasl_plugins.c). */
void sdap_sasl_plugins_need(bool sasl);

#endif /* SSS_SDAP_SASL_H */
