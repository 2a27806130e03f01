#!/bin/bash
# ldap_user_principal (set-up: krb5_env.sh): the principal a krb5 login asks the KDC for is
# the user's krbPrincipalName from the directory (cached with the user), and name@krb5_realm
# only when the directory has none, as SSSD's find_or_guess_upn does.
#
# Scenarios: dave's entry says krbPrincipalName dave.smith@KRB.TEST and the realm has no
# dave@KRB.TEST: he logs in with that principal's password (ccache: default principal
# dave.smith, %p in the template is the directory's principal), a wrong password is still
# refused; alice, without krbPrincipalName, logs in as alice@KRB.TEST; frank's principal
# is not usable (a control character): ignored, he is still served by getent and logs in
# as frank@KRB.TEST; ldap_user_principal naming another attribute is followed.
# krb5_use_enterprise_principal: erin's AD-style UPN erin@mail.test is sent as an enterprise
# name in krb5_realm, also when the host's krb5.conf has another default realm.
# krb5_canonicalize: the AS-REQs carry the canonicalize option (read on the wire by
# tests/intg/krb5_tap.py), and do not without it.
# Usage: test_krb5_upn.sh PREFIX   (root; 77 without slapd, pamtester or the MIT KDC)
set -u
PREFIX=$(cd "$1" && pwd)
TOP=$(cd "$(dirname "$0")/../.." && pwd)
if [ -z "${KRB5T_IN_NS:-}" ]; then
    exec unshare --mount --propagation private -- env KRB5T_IN_NS=1 bash "$0" "$@"
fi
# MIT's krbPrincipalName and its auxiliary class (kerberos.schema of krb5-kdc-ldap, which
# is not installed here): the two definitions the entries need.
KRB5T_BEFORE_SLAPD='
    cat > "$WORK/krbprinc.schema" <<SCHEMA
attributetype ( 2.16.840.1.113719.1.301.4.1.1 NAME '"'"'krbPrincipalName'"'"'
    EQUALITY caseExactIA5Match SUBSTR caseExactSubstringsMatch
    SYNTAX 1.3.6.1.4.1.1466.115.121.1.26 )
objectclass ( 2.16.840.1.113719.1.301.6.8 NAME '"'"'krbPrincipalAux'"'"' SUP top AUXILIARY
    MAY krbPrincipalName )
SCHEMA
    export SLAPD_EXTRA_SCHEMA="$WORK/krbprinc.schema"
    krb5kdc_addprinc "$WORK/kdc" dave.smith Dave-Krb5 || exit 1
    krb5kdc_addprinc "$WORK/kdc" frank Frank-Krb6 || exit 1
    krb5kdc_addprinc "$WORK/kdc" gina.other Gina-Krb7 || exit 1
    krb5kdc_addprinc "$WORK/kdc" "erin\\@mail.test" Erin-Krb8 || exit 1
    upn_user() { # UID UIDNUMBER ATTR VALUE
        user_entry "$1" "$2" "$1-Ldap" | sed "/^\$/d"
        printf "objectClass: krbPrincipalAux\n%s\n\n" "$3: $4"
    }
    {
        upn_user dave 10004 krbPrincipalName dave.smith@$REALM
        upn_user frank 10005 krbPrincipalName "$(printf "frank\\001@$REALM")"
        upn_user gina 10006 description gina.other@$REALM
        upn_user erin 10007 krbPrincipalName erin@mail.test
    } >> "$WORK/krb.ldif"
'
. "$(dirname "$0")/krb5_env.sh"
PASSWORDS+=(Dave-Krb5 Frank-Krb6 Gina-Krb7 Erin-Krb8)

getprinc() { # NAME -> kadmin.local's "Principal: ..." line, if it has one
    krb5kdc_kadmin "$WORK/kdc" "getprinc $1" 2>/dev/null
    grep '^Principal:' "$WORK/kdc/kadmin.log"
}
check "the realm has dave.smith" test -n "$(getprinc "dave.smith@$REALM")"
check "  ... not dave" test -z "$(getprinc "dave@$REALM")"
restart "krb5_ccname_template = FILE:$WORK/cc/%u/krb5cc_%p" \
    || { fail "sssd did not start"; tail -n 30 "$LOGS"/*.log; summary; exit; }
if login 0 Dave-Krb5 dave authenticate acct_mgmt; then
    ok "dave logs in as his directory principal dave.smith@$REALM"
else
    fail "dave's login (rc $LAST_RC)"; echo "$LAST_OUT" | sed 's/^/        /'
fi
CC=$WORK/cc/dave/krb5cc_dave.smith@$REALM
check "  ... %p in the ccache name is that principal" test -f "$CC"
out=$(klist_of "FILE:$CC")
check "  ... its default principal is dave.smith@$REALM" \
    grep -q "Default principal: dave.smith@$REALM" <<< "$out"
check "  ... holding a krbtgt" grep -q "krbtgt/$REALM@$REALM" <<< "$out"
check "  ... the back-end logged the principal it used" \
    grep -q "\[dave\]: principal \[dave.smith@$REALM\]" "$LOGS/sssd_be_krbtest.log"
check "dave with a wrong password: refused" login 1 Alice-Krb1 dave
expect_line "  ... PAM_AUTH_ERR" "Authentication failure"
check "alice, without krbPrincipalName: alice@$REALM" login 0 Alice-Krb1 alice
check "  ... her ccache says so" grep -q "Default principal: alice@$REALM" \
    <<< "$(klist_of "FILE:$WORK/cc/alice/krb5cc_alice@$REALM")"
out=$(in_nss_ns getent passwd frank)
check "frank's principal has a control character: he is still served ($out)" \
    grep -q "^frank:\*:10005:" <<< "$out"
check "  ... the principal was ignored (logged)" \
    grep -q "krbPrincipalName is not a usable principal: ignored" "$LOGS/sssd_be_krbtest.log"
check "  ... and he logs in as frank@$REALM" login 0 Frank-Krb6 frank
check "gina: no krbPrincipalName, so gina@$REALM (unknown to the KDC): refused" \
    login 1 Gina-Krb7 gina

restart "ldap_user_principal = description" || fail "restart with ldap_user_principal"
check "ldap_user_principal = description: gina logs in as gina.other@$REALM" \
    login 0 Gina-Krb7 gina
check "  ... and dave, whose description is empty, as dave@$REALM (unknown): refused" \
    login 1 Dave-Krb5 dave

# ---- krb5_use_enterprise_principal -------------------------------------------------------
# erin's principal is an AD-style UPN (mail.test is no realm); the realm holds it as the
# enterprise name erin\@mail.test@KRB.TEST (MIT 1.20's DB2 back-end has no aliases: an
# enterprise name is found when a principal has exactly that name). The host's krb5.conf
# names another default realm: the enterprise name must still get krb5_realm.
check "the realm has the enterprise name erin\\@mail.test" \
    test -n "$(getprinc "erin\\@mail.test@$REALM")"
sed "s/default_realm = $REALM/default_realm = OTHER.TEST/" "$WORK/etc-krb5.conf" > "$WORK/k.tmp"
cat "$WORK/k.tmp" > /etc/krb5.conf     # in place: /etc/krb5.conf is bound over
check "  ... and the host's krb5.conf says default_realm = OTHER.TEST" \
    grep -q "default_realm = OTHER.TEST" /etc/krb5.conf
restart "krb5_use_enterprise_principal = true
krb5_ccname_template = FILE:$WORK/cc/%u/ent" || fail "restart with the enterprise principal"
if login 0 Erin-Krb8 erin authenticate acct_mgmt; then
    ok "krb5_use_enterprise_principal = true: erin logs in as erin@mail.test"
else
    fail "erin's enterprise login (rc $LAST_RC)"; echo "$LAST_OUT" | sed 's/^/        /'
    tail -n 5 "$LOGS/krb5_child.log" | sed 's/^/        /'
fi
out=$(klist_of "FILE:$WORK/cc/erin/ent")
check "  ... her ccache: the enterprise name in krb5_realm" \
    grep -qF "Default principal: erin\@mail.test@$REALM" <<< "$out"
check "  ... with a krbtgt" grep -q "krbtgt/$REALM@$REALM" <<< "$out"
check "  ... a wrong password is refused" login 1 Dave-Krb5 erin
restart "" || fail "restart without the enterprise principal"
check "without it, erin@mail.test names a realm nobody serves: refused" login 1 Erin-Krb8 erin

# ---- krb5_canonicalize -------------------------------------------------------------------
# MIT 1.20's DB2 back-end has no aliases, so its KDC never answers with another name: what
# can be checked is the request. tests/intg/krb5_tap.py relays to the KDC and reads each
# AS-REQ's kdc-options (the canonicalize bit, RFC 6806) and cname.
python3 "$TOP/tests/intg/krb5_tap.py" --listen 127.0.0.1:0 --target "127.0.0.1:$KDC_PORT" \
    --port-file "$WORK/tap_port" --log "$WORK/tap.log" > "$WORK/tap.out" 2>&1 &
TAP_PID=$!
EXTRA_CLEANUP='kill $TAP_PID 2>/dev/null'
for _ in $(seq 100); do [ -s "$WORK/tap_port" ] && break; sleep 0.05; done
TAPPED="krb5_server = 127.0.0.1:$(cat "$WORK/tap_port")"
restart "$TAPPED
krb5_canonicalize = true" || fail "restart with krb5_canonicalize"
: > "$WORK/tap.log"
check "krb5_canonicalize = true: dave logs in" login 0 Dave-Krb5 dave
check "  ... every AS-REQ asked for canonicalization ($(sort "$WORK/tap.log" | uniq -c | tr -s ' \n' ' '))" \
    test -n "$(grep "^AS-REQ" "$WORK/tap.log")" -a -z "$(grep "^AS-REQ" "$WORK/tap.log" | grep -v "canonicalize=1 cname=dave.smith$")"
restart "$TAPPED" || fail "restart without krb5_canonicalize"
: > "$WORK/tap.log"
check "krb5_canonicalize unset: dave logs in" login 0 Dave-Krb5 dave
check "  ... no AS-REQ asked for it ($(sort "$WORK/tap.log" | uniq -c | tr -s ' \n' ' '))" \
    test -n "$(grep "^AS-REQ" "$WORK/tap.log")" -a -z "$(grep "^AS-REQ" "$WORK/tap.log" | grep -v "canonicalize=0 cname=dave.smith$")"

stop_sssd
leaked=0
for pw in "${PASSWORDS[@]}"; do
    if grep -rlF -- "$pw" "$LOGS" > /dev/null 2>&1; then
        fail "password $pw appears in $(grep -rlF -- "$pw" "$LOGS" | tr '\n' ' ')"
        leaked=1
    fi
done
[ "$leaked" = 0 ] && ok "no password appears in any log"
summary
