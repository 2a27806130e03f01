/*
 * id_provider = ad: the AD provider is the LDAP provider (src/providers/ldap) with AD's
 * defaults. The static ones (ldap_schema = ad, ldap_id_mapping = true, ldap_sasl_mech =
 * GSSAPI) are confdb's provider defaults, seen by every process; this module computes the
 * ones that follow from other options and stores them in the back-end's confdb
 * (confdb_set_default) before the LDAP id context reads its options:
 *
 *   ad_domain          the domain section's name
 *   krb5_realm         ad_domain in upper case
 *   ldap_uri           ldap://<host> for each ad_server (ldap_backup_uri: ad_backup_server);
 *                      _srv_ (and ad_server unset) gives ldap://_srv_.NAME, the failover's
 *                      DNS SRV discovery entry (sdap_failover.c), NAME being
 *                      dns_discovery_domain or ad_domain, as ad_site._sites.NAME when
 *                      ad_site is set; _srv_ in ad_backup_server is ignored, as in SSSD
 *   krb5_server        the same hosts (the DCs are the KDCs), krb5_backup_server likewise;
 *                      _srv_ stays _srv_: the DCs discovery finds (ad_servers.c)
 *   ad_hostname        the host name
 *   ldap_sasl_authid   SHORTHOST$ (the machine account adcli/realmd join creates), in the
 *                      realm: SHORTHOST$@REALM
 * Values written in sssd.conf always win. Without ad_site, the failover learns the site
 * from the first DC DNS names (the LDAP ping, sdap_connect_cldap.c). ad_servers.c: the KDC
 * list from discovery and the global catalog (ad_enable_gc).
 */
#ifndef SSS_AD_OPTIONS_H
#define SSS_AD_OPTIONS_H

#include "util/util.h"

struct confdb;

/* Errors: ERR_INVALID_CONFIG (logged: a server that is not a host name), ENOMEM, confdb's. */
errno_t ad_options_apply(struct confdb *cdb, const char *domain);

struct sdap_id_ctx;
/* After the LDAP id context of domain is made: when krb5_server has _srv_, the KDC list
 * follows the DCs its failover discovers (ad_servers.c), for krb5_child and for this
 * process's GSSAPI (KRB5_CONFIG is set); with ad_enable_gc, the global catalog's id
 * context is made and connected after the domain's. Errors: ENOMEM, confdb's, setenv's,
 * sdap_id_ctx_create's. */
errno_t ad_servers_init(struct confdb *cdb, const char *domain, struct sdap_id_ctx *id_ctx);

#endif /* SSS_AD_OPTIONS_H */
