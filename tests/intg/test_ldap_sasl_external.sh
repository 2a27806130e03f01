#!/bin/bash
# ldap_sasl_mech = EXTERNAL with a client certificate (ldap_tls_cert, ldap_tls_key): the
# back-end binds over StartTLS to a private slapd that requires client certificates and
# gives the directory to the certificate's subject only.
#
# Scenarios: with the certificate, getent answers (the subject's identity reads the
# directory; anonymous reads nothing) and the back-end logs the EXTERNAL bind; without
# ldap_sasl_mech (anonymous over the same TLS) nothing is found; a certificate from another
# CA is refused by slapd and nothing is found.
# Usage: test_ldap_sasl_external.sh PREFIX   (root; 77 without slapd or openssl)
set -u
PREFIX=$(cd "$1" && pwd)
TOP=$(cd "$(dirname "$0")/../.." && pwd)
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/nss_ns.sh"
. "$TOP/tests/lib/slapd.sh"
. "$TOP/tests/lib/tls_certs.sh"
slapd_available || { echo "SKIP: slapd is not available"; exit 77; }
command -v openssl > /dev/null || { echo "SKIP: no openssl"; exit 77; }
SUFFIX=dc=ext,dc=test
WORK=$(mktemp -d /tmp/sssd-ext.XXXXXX)
cleanup() { stop_sssd; slapd_stop "$WORK/ldap" 2>/dev/null; rm -rf "$WORK"; }
trap cleanup EXIT

mkdir -p "$WORK/tls" "$WORK/ldap"
tls_certs_make "$WORK/tls" > "$WORK/tls.log" 2>&1 || { echo "FAIL: test CA"; exit 1; }
client_cert() { # NAME CA
    openssl req -batch -newkey rsa:2048 -nodes -subj "/O=sssd tests/CN=$1" \
        -keyout "$WORK/tls/$1.key" -out "$WORK/tls/$1.csr" 2>/dev/null &&
    openssl x509 -req -sha256 -days 2 -in "$WORK/tls/$1.csr" -CA "$WORK/tls/$2.crt" \
        -CAkey "$WORK/tls/$2.key" -CAcreateserial -out "$WORK/tls/$1.crt" 2>/dev/null
}
client_cert client.ext.test ca || { echo "FAIL: client certificate"; exit 1; }
client_cert rogue.ext.test other-ca || { echo "FAIL: rogue certificate"; exit 1; }
{
    printf 'dn: %s\nobjectClass: top\nobjectClass: dcObject\nobjectClass: organization\n' "$SUFFIX"
    printf 'o: Ext\ndc: ext\n\n'
    printf 'dn: ou=People,%s\nobjectClass: organizationalUnit\nou: People\n\n' "$SUFFIX"
    printf 'dn: uid=alice,ou=People,%s\nobjectClass: top\nobjectClass: account\n' "$SUFFIX"
    printf 'objectClass: posixAccount\nuid: alice\ncn: alice\nuidNumber: 10001\n'
    printf 'gidNumber: 10001\nhomeDirectory: /home/alice\n\n'
} > "$WORK/ext.ldif"
# Client certificates are asked for (try: the anonymous case still connects).
printf 'TLSVerifyClient try\n' > "$WORK/verify.conf"
export SLAPD_EXTRA_SCHEMA="$WORK/verify.conf"
export SLAPD_ACL='access to * by dn.exact="cn=client.ext.test,o=sssd tests" read by * none'
URI=$(SLAPD_TLS_CERT=$WORK/tls/server.crt SLAPD_TLS_KEY=$WORK/tls/server.key \
      SLAPD_TLS_CA=$WORK/tls/ca.crt slapd_start "$WORK/ldap" "$WORK/ext.ldif" "$SUFFIX") \
    || { echo "FAIL: slapd"; exit 1; }
unset SLAPD_EXTRA_SCHEMA SLAPD_ACL

conf() { # EXTRA_DOMAIN_LINES
    write_conf <<CONF
[sssd]
services = nss
domains = ext
[domain/ext]
debug_level = 9
id_provider = ldap
ldap_uri = $URI
ldap_search_base = $SUFFIX
ldap_schema = rfc2307
ldap_id_use_start_tls = true
ldap_tls_cacert = $WORK/tls/ca.crt
ldap_tls_reqcert = demand
$1
CONF
}
restart() {
    stop_sssd
    conf "$1"
    start_sssd && wait_name sssd.domain_ext 5000
}

restart "ldap_sasl_mech = EXTERNAL
ldap_tls_cert = $WORK/tls/client.ext.test.crt
ldap_tls_key = $WORK/tls/client.ext.test.key" || { fail "sssd did not start"; summary; exit; }
out=$(in_nss_ns getent passwd alice)
check "EXTERNAL with the client certificate: alice is found ($out)" \
    grep -q "^alice:\*:10001:" <<< "$out"
check "  ... the back-end logs the EXTERNAL bind" \
    grep -q "SASL bind (EXTERNAL as (the certificate)) to $URI done" "$LOGS/sssd_be_ext.log"
restart "" || fail "restart (anonymous)"
check "anonymous over the same TLS: nothing found" test -z "$(in_nss_ns getent passwd alice)"
restart "ldap_sasl_mech = EXTERNAL
ldap_tls_cert = $WORK/tls/rogue.ext.test.crt
ldap_tls_key = $WORK/tls/rogue.ext.test.key" || fail "restart (rogue certificate)"
check "a certificate of another CA: nothing found" test -z "$(in_nss_ns getent passwd alice)"
summary
