/*
 * id_provider = ad: the AD provider is the LDAP provider (src/providers/ldap) with AD's
 * defaults. The static ones (ldap_schema = ad, ldap_id_mapping = true, ldap_sasl_mech =
 * GSSAPI) are confdb's provider defaults, seen by every process; this module computes the
 * ones that follow from other options and stores them in the back-end's confdb
 * (confdb_set_default) before the LDAP id context reads its options:
 *
 *   ad_domain          the domain section's name
 *   krb5_realm         ad_domain in upper case
 *   ldap_uri           ldap://<host> for each ad_server (ldap_backup_uri: ad_backup_server)
 *   krb5_server        the same hosts (the DCs are the KDCs), krb5_backup_server likewise
 *   ad_hostname        the host name
 *   ldap_sasl_authid   SHORTHOST$ (the machine account adcli/realmd join creates), in the
 *                      realm: SHORTHOST$@REALM
 * Values written in sssd.conf always win. Not yet: ad_server = _srv_ (DNS SRV discovery,
 * sites), the global catalog.
 */
#ifndef SSS_AD_OPTIONS_H
#define SSS_AD_OPTIONS_H

#include "util/util.h"

struct confdb;

/* Errors: ERR_INVALID_CONFIG (logged: no ad_server, _srv_), ENOMEM, confdb's. */
errno_t ad_options_apply(struct confdb *cdb, const char *domain);

#endif /* SSS_AD_OPTIONS_H */
