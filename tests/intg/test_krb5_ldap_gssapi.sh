#!/bin/bash
# ldap_sasl_mech = GSSAPI (set-up: krb5_env.sh): the back-end binds to a slapd with Cyrus
# SASL GSSAPI (keytab for ldap/127.0.0.1) as host/client.krb.test, with a TGT krb5_child
# gets from ldap_krb5_keytab into a private ccache.
#
# Scenarios: slapd gives the directory to that SASL identity only (anonymous and simple
# binds read nothing), so getent answering at all shows the GSSAPI bind happened; the
# ccache is root's, 0600, holds the TGT and the ldap/ service ticket; a keytab with a wrong
# key gets nothing (and getent fails); ldap_krb5_ticket_lifetime = 12: a new TGT is fetched
# for a connection made past half its life, and lookups go on; with one connection and
# no lookups for longer than a ticket lives, the timer renews it at half its life and the
# ccache always holds a valid TGT; every ldap/ service ticket
# was asked for by krb5_child, none by sssd_be itself (the KDC's log).
# Usage: test_krb5_ldap_gssapi.sh PREFIX   (root; 77 without slapd, the MIT KDC or the
# Cyrus SASL GSSAPI module)
set -u
PREFIX=$(cd "$1" && pwd)
TOP=$(cd "$(dirname "$0")/../.." && pwd)
if [ -z "${KRB5T_IN_NS:-}" ]; then
    exec unshare --mount --propagation private -- env KRB5T_IN_NS=1 bash "$0" "$@"
fi
ls /usr/lib/*/sasl2/libgssapiv2.so* > /dev/null 2>&1 \
    || { echo "SKIP: no Cyrus SASL GSSAPI module (libsasl2-modules-gssapi-mit)"; exit 77; }
ID="uid=host/client.krb.test,cn=gssapi,cn=auth"
# Before slapd starts: its keytab, its SASL directives, an ACL for the host's identity only.
KRB5T_BEFORE_SLAPD='
    krb5kdc_kadmin "$WORK/kdc" "addprinc -randkey ldap/127.0.0.1" || exit 1
    krb5kdc_kadmin "$WORK/kdc" "addprinc -randkey host/client.krb.test" || exit 1
    krb5kdc_ktadd "$WORK/kdc" "$WORK/ldap.keytab" ldap/127.0.0.1 || exit 1
    krb5kdc_ktadd "$WORK/kdc" "$WORK/host.keytab" host/client.krb.test || exit 1
    printf "sasl-host 127.0.0.1\nsasl-realm $REALM\n" > "$WORK/sasl.conf"
    export SLAPD_EXTRA_SCHEMA="$WORK/sasl.conf" KRB5_KTNAME="FILE:$WORK/ldap.keytab"
    export KRB5_CONFIG="$WORK/kdc/krb5.conf"
    export SLAPD_ACL="access to * by dn.regex=\"^uid=host/client\\.krb\\.test,(cn=krb\\.test,)?cn=gssapi,cn=auth\$\" read by * none"
'
. "$(dirname "$0")/krb5_env.sh"
unset KRB5_KTNAME KRB5_CONFIG

# The slapd set-up itself, with the MIT tools: kinit from the keytab, ldapwhoami.
out=$(KRB5_CONFIG=$KCONF KRB5CCNAME=FILE:$WORK/whoami.cc bash -c "
    kinit -k -t $WORK/host.keytab host/client.krb.test &&
    LDAPSASL_NOCANON=on ldapwhoami -Q -Y GSSAPI -H $URI" 2>&1)
check "slapd takes GSSAPI from the host principal (ldapwhoami: $out)" \
    grep -qi "dn:uid=host/client.krb.test,.*cn=gssapi,cn=auth" <<< "$out"
check "  ... and gives nothing to anonymous binds" test -z \
    "$(ldapsearch -x -LLL -H "$URI" -b "$SUFFIX" "(uid=alice)" dn 2>/dev/null)"

GSS="ldap_sasl_mech = GSSAPI
ldap_sasl_authid = host/client.krb.test
krb5_server = 127.0.0.1:$KDC_PORT"
restart "$GSS
ldap_krb5_keytab = $WORK/host.keytab" || { fail "sssd did not start"; summary; exit; }
out=$(in_nss_ns getent passwd alice)
check "getent passwd alice through the GSSAPI-bound back-end ($out)" \
    grep -q "^alice:\*:10001:10001:" <<< "$out"
check "  ... the back-end says how it bound" \
    grep -q "SASL bind (GSSAPI as host/client.krb.test@$REALM) to $URI done" \
    "$LOGS/sssd_be_krbtest.log"
CC=$PREFIX/var/lib/sss/db/ccache_krbtest
check "  ... its ccache is root's, 0600" test "$(stat -c '%u %a' "$CC" 2>/dev/null)" = "0 600"
out=$(klist_of "FILE:$CC")
check "  ... with the TGT" grep -q "krbtgt/$REALM@$REALM" <<< "$out"
check "  ... and the LDAP service ticket" grep -q "ldap/127.0.0.1" <<< "$out"
check "a login (auth_provider = krb5) works beside it" login 0 Alice-Krb1 alice

# A wrong key: the KDC refuses the keytab, the bind cannot happen.
KRB5_CONFIG=$KCONF ktutil > /dev/null 2>&1 <<KT
addent -password -p host/client.krb.test@$REALM -k 9 -e aes256-cts-hmac-sha1-96
Not-The-Key-1
wkt $WORK/wrong.keytab
quit
KT
restart "$GSS
ldap_krb5_keytab = $WORK/wrong.keytab" || fail "restart (wrong keytab)"
rm -f "$CC"
out=$(in_nss_ns getent passwd bob)
check "a keytab with a wrong key: no bind, bob is not found ($out)" test -z "$out"
check "  ... the back-end says why" grep -q "no TGT for host/client.krb.test@$REALM" \
    "$LOGS/sssd_be_krbtest.log"

# Renewal: a 12 s TGT; connections expire after 3 s, a new one past 6 s gets a new TGT.
restart "$GSS
ldap_krb5_keytab = $WORK/host.keytab
ldap_krb5_ticket_lifetime = 12
ldap_connection_expire_timeout = 3
entry_cache_timeout = 1" || fail "restart (short tickets)"
check "short tickets: bob found" test -n "$(in_nss_ns getent passwd bob)"
first=$(grep -c "TGT for host/client.krb.test@$REALM obtained" "$LOGS/sssd_be_krbtest.log")
sleep 8
check "  ... 8 s later carol is found" test -n "$(in_nss_ns getent passwd carol)"
now=$(grep -c "TGT for host/client.krb.test@$REALM obtained" "$LOGS/sssd_be_krbtest.log")
check "  ... over a connection with a new TGT (obtained $first then $now times)" \
    test "$now" -gt "$first"

# The renewal timer: one long-lived connection (no expiry), no lookups for longer than
# the 12 s ticket lives; the ccache must still hold a valid TGT, renewed at half its life.
restart "$GSS
ldap_krb5_keytab = $WORK/host.keytab
ldap_krb5_ticket_lifetime = 12" || fail "restart (renewal timer)"
check "renewal timer: bob found over one connection" test -n "$(in_nss_ns getent passwd bob)"
n0=$(grep -c "TGT for host/client.krb.test@$REALM obtained" "$LOGS/sssd_be_krbtest.log")
t0=$(KRB5_CONFIG=$KCONF klist -c "FILE:$CC" 2>/dev/null | grep "krbtgt/$REALM@$REALM")
sleep 15
check "  ... 15 s later, without a lookup, the ccache's TGT is still valid (klist -s)" \
    env KRB5_CONFIG="$KCONF" klist -s -c "FILE:$CC"
t1=$(KRB5_CONFIG=$KCONF klist -c "FILE:$CC" 2>/dev/null | grep "krbtgt/$REALM@$REALM")
check "  ... and a new one (was: ${t0:0:36}; now: ${t1:0:36})" test "$t0" != "$t1"
check "  ... the timer asked for it" grep -q "renewing the TGT of host/client.krb.test@$REALM" \
    "$LOGS/sssd_be_krbtest.log"
n1=$(grep -c "TGT for host/client.krb.test@$REALM obtained" "$LOGS/sssd_be_krbtest.log")
check "  ... at half its life: 2 to 4 renewals in 15 s ($((n1 - n0)))" \
    test $((n1 - n0)) -ge 2 -a $((n1 - n0)) -le 4
check "  ... and lookups go on" test -n "$(in_nss_ns getent passwd carol)"
now=$(grep -c "TGT for host/client.krb.test@$REALM obtained" "$LOGS/sssd_be_krbtest.log")

# Every ldap/ ticket came from a child (plus ldapwhoami's): sssd_be's GSSAPI found its
# ticket in the ccache and never asked the KDC from its event loop.
tgs=$(grep -c "TGS_REQ.*ldap/127.0.0.1" "$WORK/kdc/krb5kdc.log")
check "the KDC saw one ldap/ ticket request per child run ($tgs = $now + 1)" \
    test "$tgs" = $((now + 1))
summary
