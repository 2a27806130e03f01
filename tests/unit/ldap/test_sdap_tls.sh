#!/bin/bash
# Runs test_sdap_tls (cmocka) against two private slapds holding test_sdap.ldif:
#   one with TLS (a throwaway CA and server certificate from tests/lib/tls_certs.sh),
#   listening on ldap:// (StartTLS) and ldaps://, and one without TLS.
# Exports to the program:
#   SDAP_TLS_URI          ldap://127.0.0.1:<port> of the TLS server (StartTLS)
#   SDAP_TLS_LDAPS_URI    ldaps://127.0.0.1:<port> of the same server
#   SDAP_PLAIN_URI        ldap://127.0.0.1:<port> of the server without TLS
#   SDAP_TLS_CA           the CA that signed the server certificate
#   SDAP_TLS_OTHER_CA     an unrelated CA
# Exit 77 (automake SKIP) when slapd or openssl/certtool is not installed.
# SDAP_TEST_VALGRIND=1 runs the program under valgrind (definite leaks and memory errors
# fail the test); SDAP_TEST_DEBUG=<level> turns the provider's logging on.
set -u
here=$(cd "$(dirname "$0")" && pwd)
top_srcdir=${srcdir:-$here/../../..}
. "$top_srcdir/tests/lib/slapd.sh"
. "$top_srcdir/tests/lib/tls_certs.sh"

slapd_available || { echo "slapd not installed: skipped"; exit 77; }
tls_certs_available || { echo "neither openssl nor certtool installed: skipped"; exit 77; }
bin=${TEST_SDAP_TLS_BIN:-./test_sdap_tls}
[ -x "$bin" ] || { echo "$bin not built"; exit 99; }

tmp=$(mktemp -d "${TMPDIR:-/tmp}/test_sdap_tls.XXXXXX") || exit 99
cleanup() { slapd_stop "$tmp/tls"; slapd_stop "$tmp/plain"; rm -rf "$tmp"; }
trap cleanup EXIT

tls_certs_make "$tmp/certs" || exit 99
export SLAPD_EXTRA_SCHEMA="$here/test_sdap.schema"
plain=$(slapd_start "$tmp/plain" "$here/test_sdap.ldif" "dc=test") || exit 99
uri=$(SLAPD_TLS_CERT="$tmp/certs/server.crt" SLAPD_TLS_KEY="$tmp/certs/server.key" \
      SLAPD_TLS_CA="$tmp/certs/ca.crt" slapd_start "$tmp/tls" "$here/test_sdap.ldif" "dc=test") \
    || exit 99
export SDAP_TLS_URI=$uri
export SDAP_TLS_LDAPS_URI=$(slapd_ldaps_uri "$tmp/tls")
export SDAP_PLAIN_URI=$plain
export SDAP_TLS_CA="$tmp/certs/ca.crt"
export SDAP_TLS_OTHER_CA="$tmp/certs/other-ca.crt"
[ -n "$SDAP_TLS_LDAPS_URI" ] || { echo "no ldaps:// listener"; exit 99; }
# Nothing from the environment or ldap.conf may decide TLS behaviour behind the test's back.
export LDAPNOINIT=1

if [ "${SDAP_TEST_VALGRIND:-0}" = 1 ]; then
    valgrind --quiet --error-exitcode=1 --leak-check=full --errors-for-leak-kinds=definite \
        --show-leak-kinds=definite "$bin"
else
    "$bin"
fi
