#!/bin/bash
# Cached credentials refreshed by online logins (be_pam_creds.c, be_pam_hasher.c), through
# the real path: pamtester with our pam_sss.so, our sssd_pam and sssd_be, a private slapd
# with StartTLS.
#
#   coalescing      20 parallel logins of one user cost a few hashes, not 20: one at once,
#                   then at most one per 5 s window and user ("cached credentials of
#                   [alice] updated" counted in the back-end's log), each login succeeds
#   last one wins   a login with the old password, the directory changes it, a login with
#                   the new one at once: once the refreshes are done and slapd is stopped,
#                   the new password passes offline and the old one does not
#   other users     a burst of several users: each one's hash is stored
#   connections     rounds of 8 parallel logins reuse the idle authentication connections
#                   (sdap_auth.c keeps up to 8): at most 8 new ones over all the rounds
#   no password     in any debug-9 log
#
# Usage: test_pam_creds_refresh.sh PREFIX   (root; 77 without slapd or pamtester)
set -u
PREFIX=$(cd "$1" && pwd)
TOP=$(cd "$(dirname "$0")/../.." && pwd)
PAM_TEST=pamref
PAM_NEEDS="pamtester slappasswd ldappasswd"
PAM_TLS=1
. "$(dirname "$0")/pam_env.sh"
SUFFIX=dc=ref,dc=test
[ -n "${KEEP:-}" ] && trap "stop_sssd; slapd_stop $WORK/ldap" EXIT

# ---- the directory -----------------------------------------------------------------------
pw() { echo "Ref-$1-Pass7"; }
USERS=(alice bob carol dave erin)
mkdir -p "$WORK/tls" "$WORK/ldap"
tls_certs_make "$WORK/tls" > "$WORK/tls.log" 2>&1 || { echo "FAIL: test certificates"; exit 1; }
{
    printf 'dn: %s\nobjectClass: top\nobjectClass: dcObject\nobjectClass: organization\n' "$SUFFIX"
    printf 'o: Ref\ndc: ref\n\n'
    printf 'dn: ou=People,%s\nobjectClass: organizationalUnit\nou: People\n\n' "$SUFFIX"
    n=10001
    for u in "${USERS[@]}"; do
        printf 'dn: uid=%s,ou=People,%s\nobjectClass: top\nobjectClass: account\n' "$u" "$SUFFIX"
        printf 'objectClass: posixAccount\nstructuralObjectClass: account\n'
        printf 'uid: %s\ncn: %s\nuidNumber: %s\ngidNumber: %s\n' "$u" "$u" $n $n
        printf 'homeDirectory: /home/%s\nloginShell: /bin/sh\nuserPassword: %s\n\n' \
            "$u" "$(slappasswd -s "$(pw "$u")")"
        n=$((n + 1))
    done
} > "$WORK/ref.ldif"
URI=$(SLAPD_TLS_CERT=$WORK/tls/server.crt SLAPD_TLS_KEY=$WORK/tls/server.key \
      SLAPD_TLS_CA=$WORK/tls/ca.crt slapd_start "$WORK/ldap" "$WORK/ref.ldif" "$SUFFIX") \
    || { echo "FAIL: slapd"; exit 1; }

write_conf <<CONF
[sssd]
services = nss, pam
domains = ref
debug_level = 9
[pam]
debug_level = 9
pam_verbosity = 2
[domain/ref]
debug_level = 9
id_provider = ldap
auth_provider = ldap
cache_credentials = true
offline_timeout = 600
ldap_uri = $URI
ldap_search_base = $SUFFIX
ldap_schema = rfc2307
ldap_id_use_start_tls = true
ldap_tls_cacert = $WORK/tls/ca.crt
ldap_tls_reqcert = demand
CONF
start_sssd || { fail "sssd did not start"; summary; exit; }
for _ in $(seq 200); do
    [ -S "$PIPES/private/pam" ] && wait_name sssd.domain_ref 100 && break
    sleep 0.05
done

mount -t tmpfs -o mode=0755 tmpfs /etc/pam.d || { echo "FAIL: tmpfs over /etc/pam.d"; exit 1; }
printf '%s required %s\n' auth "$OUR_MOD" account "$OUR_MOD" > /etc/pam.d/pamref
mkdir -p /var/lib/sss/pipes "$PIPES"
mount --bind "$PIPES" /var/lib/sss/pipes || { echo "FAIL: bind $PIPES"; exit 1; }

BELOG=$LOGS/sssd_be_ref.log
BASE=$(($(wc -l < "$BELOG") + 1))   # the log of earlier runs is kept: count from here
login() { # USER PASSWORD -> pamtester's status (output in $WORK/out.USER.N)
    printf '%s\n' "$2" | LC_ALL=C pamtester pamref "$1" authenticate > "$WORK/out.$1.$3" 2>&1
}
updates() { tail -n +"$BASE" "$BELOG" | grep -c "cached credentials of \[$1\] updated"; }
wait_updates() { # USER COUNT: until the back-end has logged COUNT updates of USER (10 s)
    for _ in $(seq 200); do
        [ "$(updates "$1")" -ge "$2" ] && return 0
        sleep 0.05
    done
    return 1
}

# ---- coalescing --------------------------------------------------------------------------
login alice "$(pw alice)" 0 || fail "alice's first login"
check "alice's first login refreshes her hash at once" wait_updates alice 1
T0=$(date +%s)
for i in $(seq 1 20); do
    ( login alice "$(pw alice)" "$i"; echo $? > "$WORK/rc.$i" ) &
done
wait
T1=$(date +%s)
bad=0
for i in $(seq 1 20); do [ "$(cat "$WORK/rc.$i")" = 0 ] || bad=$((bad + 1)); done
check "20 parallel logins of alice all succeed" test "$bad" = 0
sleep 6.5      # past the last window (5 s)
N=$(($(updates alice) - 1))
# One hash when the window after the first login ends, then at most one per window.
MAX=$((2 + (T1 - T0) / 5))
check "  ... and cost $N hash refreshes (at most $MAX: coalesced, not 20)" \
    test "$N" -ge 1 -a "$N" -le "$MAX"

# ---- a burst of several users: each one's hash is stored ----------------------------------
before=()
for u in bob carol dave erin; do before+=("$(updates "$u")"); done
for u in bob carol dave erin; do
    for i in 1 2 3; do login "$u" "$(pw "$u")" "$i" & done
done
wait
i=0
for u in bob carol dave erin; do
    check "burst: $u's hash stored" wait_updates "$u" $((before[i] + 1))
    i=$((i + 1))
done

# ---- parallel logins reuse idle authentication connections -------------------------------
conns() { tail -n +"$BASE" "$BELOG" | grep -c "binding as .*(new connection)"; }
c0=$(conns)
bad=0
for round in 1 2 3 4 5 6; do
    for u in bob carol dave erin; do
        for i in 1 2; do
            ( login "$u" "$(pw "$u")" "r$round$i" || echo x >> "$WORK/par.bad" ) &
        done
    done
    wait
done
check "6 rounds of 8 parallel logins all succeed" test ! -e "$WORK/par.bad"
NEWC=$(($(conns) - c0))
check "  ... and open $NEWC new LDAP connections (at most 8: the idle ones are reused)" \
    test "$NEWC" -le 8

# ---- the last password wins ----------------------------------------------------------------
NEWPW=Ref-alice-New8
n0=$(updates alice)
login alice "$(pw alice)" old || fail "alice's login before the change"
LDAPTLS_CACERT=$WORK/tls/ca.crt ldappasswd -x -H "$URI" -ZZ -D "cn=admin,$SUFFIX" -w secret \
    -s "$NEWPW" "uid=alice,ou=People,$SUFFIX" > /dev/null 2>&1 || fail "ldappasswd"
login alice "$NEWPW" new
check "a login with the new password at once (within the window)" \
    grep -q "successfully authenticated" "$WORK/out.alice.new"
# Either the old one was hashed at once and the new one when its window ended, or both
# fell in a window and only the new one was: past the window, at least one refresh.
sleep 6.5
check "  ... the refreshes are done" wait_updates alice $((n0 + 1))
slapd_stop "$WORK/ldap"
login alice "$NEWPW" off1
check "slapd stopped: the new password passes from the cache" \
    grep -q "successfully authenticated" "$WORK/out.alice.off1"
check "  ... offline" grep -q "Authenticated with cached credentials" "$WORK/out.alice.off1"
login alice "$(pw alice)" off2
check "  ... the old one does not" grep -q "Authentication failure" "$WORK/out.alice.off2"

# ---- no password in any log ----------------------------------------------------------------
stop_sssd
leaked=0
for p in "$NEWPW" $(for u in "${USERS[@]}"; do pw "$u"; done); do
    if grep -rqF -- "$p" "$LOGS"; then
        leaked=1
        echo "        '$p' found in $(grep -rlF -- "$p" "$LOGS" | tr '\n' ' ')"
    fi
done
check "no password in any debug-9 log" test "$leaked" = 0
summary
