# The sssd.conf of the sudo tests and benches: one LDAP domain (rfc2307) with its sudo rules
# under ou=SUDOers. Sourced after tests/intg/lib.sh (write_conf); uses $URI and $SUFFIX.
# Kept apart from tests/intg/sudo_env.sh because that file enters a namespace when sourced.

sudo_conf() { # SERVICES SUDO_LINES DOMAIN_LINES
    write_conf <<CONF
[sssd]
services = $1
domains = LDAP
[nss]
[sudo]
$2
[domain/LDAP]
id_provider = ldap
ldap_uri = $URI
ldap_search_base = $SUFFIX
ldap_schema = rfc2307
ldap_sudo_search_base = ou=SUDOers,$SUFFIX
$3
CONF
}
