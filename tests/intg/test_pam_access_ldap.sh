#!/bin/bash
# access_provider = ldap rules and LDAP authentication under failure, through the real path:
# pamtester with our pam_sss.so against our sssd_pam and sssd_be and a private slapd.
#
#   authorized_service   ldap_access_order = authorized_service: the PAM service must be
#                        in authorizedService ("*" any, "!svc" denies, none: denied)
#   host                 ldap_access_order = host: this machine's name in host ("*" any,
#                        "!name" denies, none: denied)
#   failover             ldap_uri lists a dead server first: the right password passes
#                        from the second one, a wrong or empty one never
#   server errors        the server answers a user's bind busy (51) or unwillingToPerform
#                        (53) (ldap_bind_proxy.py rewrites its answers): no success with
#                        the right password or a wrong one
#   nds time map         ldap_account_expire_policy = nds: a loginAllowedTimeMap that never
#                        allows (binary, all 0x00) denies, one that always allows (all
#                        0xFF) and none allow; the entry parser drops values holding NUL,
#                        so a map it could not read must deny, never allow at any hour
#   user gone            the user's entry deleted from the directory while sssd_pam still
#                        trusts its lookup (pam_id_timeout): ACCT_MGMT is denied at once
#                        (it used to hang until sssd_pam gave up)
#   offline restart      ldap_access_filter's verdicts reached online (alice allowed, bob
#                        denied) still decide after sssd is restarted with slapd stopped;
#                        a user never checked online is denied
#
# Usage: test_pam_access_ldap.sh PREFIX   (root; 77 without slapd or pamtester)
set -u
PREFIX=$(cd "$1" && pwd)
TOP=$(cd "$(dirname "$0")/../.." && pwd)
PAM_TEST=pamacc
PAM_NEEDS="pamtester slappasswd python3 hostname ldapdelete"
. "$(dirname "$0")/pam_env.sh"
SUFFIX=dc=acc,dc=test
PROXY_PID=
PAM_ON_EXIT='[ -n "$PROXY_PID" ] && kill "$PROXY_PID" 2> /dev/null'

# ---- the directory -----------------------------------------------------------------------
HOST=$(hostname)
pw() { echo "Acc-$1-Pass5"; }
cat > "$WORK/ns.schema" <<'EOF'
attributetype ( 1.3.6.1.4.1.5322.17.2.1 NAME 'authorizedService'
    EQUALITY caseIgnoreIA5Match SYNTAX 1.3.6.1.4.1.1466.115.121.1.26{256} )
attributetype ( 1.3.6.1.4.1.99999.17.1 NAME 'loginAllowedTimeMap'
    EQUALITY octetStringMatch SYNTAX 1.3.6.1.4.1.1466.115.121.1.40 SINGLE-VALUE )
EOF
b64() { python3 -c "import base64, sys; print(base64.b64encode(bytes([int(sys.argv[1], 16)]) * 42).decode())" "$1"; }
user_entry() { # UID UIDNUMBER [EXTRA_LDIF_LINES]
    printf 'dn: uid=%s,ou=People,%s\nobjectClass: top\nobjectClass: account\n' "$1" "$SUFFIX"
    printf 'objectClass: posixAccount\nobjectClass: extensibleObject\n'
    printf 'uid: %s\ncn: %s\nuidNumber: %s\ngidNumber: %s\n' "$1" "$1" "$2" "$2"
    printf 'homeDirectory: /home/%s\nloginShell: /bin/sh\nuserPassword: %s\n' \
        "$1" "$(slappasswd -s "$(pw "$1")")"
    [ -n "${3:-}" ] && printf '%b\n' "$3"
    echo
}
{
    printf 'dn: %s\nobjectClass: top\nobjectClass: dcObject\nobjectClass: organization\n' "$SUFFIX"
    printf 'o: Acc\ndc: acc\n\n'
    printf 'dn: ou=People,%s\nobjectClass: organizationalUnit\nou: People\n\n' "$SUFFIX"
    user_entry alice 10001 "description: login-ok\nauthorizedService: pamacc\nhost: $HOST"
    user_entry bob 10002 "authorizedService: sshd\nhost: elsewhere.example"
    user_entry carol 10003 "description: login-ok\nauthorizedService: *\nhost: *"
    user_entry dave 10004 "authorizedService: !pamacc\nauthorizedService: *\nhost: !$HOST\nhost: *"
    user_entry erin 10005 "description: login-ok"
    user_entry frank 10006 "loginAllowedTimeMap:: $(b64 00)"
    user_entry gina 10007 "loginAllowedTimeMap:: $(b64 ff)"
    user_entry hank 10008
    # ivy's map allows only the hours around now: NUL bytes everywhere else.
    user_entry ivy 10009 "loginAllowedTimeMap:: $(python3 -c '
import base64, time
m = bytearray(42)
t = time.gmtime()
# tm_wday counts from Monday in Python and from Sunday in C: the map is Sunday-based.
now = ((t.tm_wday + 1) % 7) * 48 + t.tm_hour * 2 + (t.tm_min >= 30)
for d in range(-4, 9):
    b = (now + d) % 336
    m[b // 8] |= 1 << (b % 8)
print(base64.b64encode(bytes(m)).decode())')"
} > "$WORK/acc.ldif"
mkdir -p "$WORK/ldap"
URI=$(SLAPD_EXTRA_SCHEMA=$WORK/ns.schema slapd_start "$WORK/ldap" "$WORK/acc.ldif" "$SUFFIX") \
    || { echo "FAIL: slapd"; cat "$WORK"/ldap/*.log 2> /dev/null | tail -5; exit 1; }

restart() { # LDAP_URI EXTRA_DOMAIN_LINES [EXTRA_PAM_LINES]
    stop_sssd
    write_conf <<CONF
[sssd]
services = nss, pam
domains = acc
[pam]
${3:-}
[domain/acc]
id_provider = ldap
auth_provider = ldap
ldap_uri = $1
ldap_search_base = $SUFFIX
ldap_schema = rfc2307
ldap_auth_disable_tls_never_use_in_production = true
ldap_network_timeout = 2
ldap_opt_timeout = 4
offline_timeout = 600
$2
CONF
    start_sssd || return 1
    wait_ready
}
wait_ready() {
    for _ in $(seq 200); do
        [ -S "$PIPES/private/pam" ] && wait_name sssd.domain_acc 100 && return 0
        sleep 0.05
    done
    return 1
}

mount -t tmpfs -o mode=0755 tmpfs /etc/pam.d || { echo "FAIL: tmpfs over /etc/pam.d"; exit 1; }
printf '%s required %s\n' auth "$OUR_MOD" account "$OUR_MOD" > /etc/pam.d/pamacc
mkdir -p /var/lib/sss/pipes "$PIPES"
mount --bind "$PIPES" /var/lib/sss/pipes || { echo "FAIL: bind $PIPES"; exit 1; }

run() { # NAME WANT USER OPS...   (the user's own password unless INPUT is set)
    local name=$1 want=$2 user=$3 rc
    shift 3
    LAST_OUT=$(printf '%s\n' "${INPUT-$(pw "$user")}" | LC_ALL=C pamtester pamacc "$user" "$@" 2>&1)
    rc=$?
    if [ "$rc" = "$want" ]; then ok "$name: status $want"; else
        fail "$name: status $rc, expected $want"; echo "$LAST_OUT" | sed 's/^/        /'; fi
}
never() { # NAME USER OPS...: anything but a success
    local name=$1 user=$2 rc
    shift 2
    LAST_OUT=$(printf '%s\n' "${INPUT-$(pw "$user")}" | LC_ALL=C pamtester pamacc "$user" "$@" 2>&1)
    rc=$?
    if [ "$rc" != 0 ] && ! grep -q "successfully" <<< "$LAST_OUT"; then
        ok "$name: refused ($(tail -n1 <<< "$LAST_OUT" | sed 's/^pamtester: //'))"
    else
        fail "$name: a success"; echo "$LAST_OUT" | sed 's/^/        /'
    fi
}
has() { # NAME PATTERN
    if grep -q -- "$2" <<< "$LAST_OUT"; then ok "$1"; else
        fail "$1 (no '$2')"; echo "$LAST_OUT" | sed 's/^/        /'; fi
}
DENIED="Permission denied"

# ---- authorized_service ------------------------------------------------------------------
restart "$URI" "access_provider = ldap
ldap_access_order = authorized_service" || { fail "sssd did not start"; summary; exit; }
run "authorized_service: alice (pamacc listed)" 0 alice authenticate acct_mgmt
run "authorized_service: bob (only sshd)" 1 bob acct_mgmt
has "  ... PAM_PERM_DENIED" "$DENIED"
run "authorized_service: carol (*)" 0 carol acct_mgmt
run "authorized_service: dave (!pamacc beats *)" 1 dave acct_mgmt
run "authorized_service: erin (no authorizedService)" 1 erin acct_mgmt

# ---- host ----------------------------------------------------------------------------------
restart "$URI" "access_provider = ldap
ldap_access_order = host" || fail "restart (host)"
run "host: alice ($HOST listed)" 0 alice acct_mgmt
run "host: bob (another host)" 1 bob acct_mgmt
has "  ... PAM_PERM_DENIED" "$DENIED"
run "host: carol (*)" 0 carol acct_mgmt
run "host: dave (!$HOST beats *)" 1 dave acct_mgmt
run "host: erin (no host)" 1 erin acct_mgmt

# ---- failover: a dead server first ----------------------------------------------------------
DEAD=$(slapd_free_port)
restart "ldap://127.0.0.1:$DEAD, $URI" "" || fail "restart (failover)"
INPUT="wrong-$(pw alice)" never "failover: alice, wrong password" alice authenticate
has "  ... PAM_AUTH_ERR" "Authentication failure"
INPUT="" never "failover: alice, empty password" alice authenticate
run "failover: alice, right password (from the second server)" 0 alice authenticate
INPUT="wrong-$(pw bob)" never "failover: bob, wrong password" bob authenticate

# ---- the server answers the bind with an error ----------------------------------------------
for code in 51 53; do
    python3 "$TOP/tests/intg/ldap_bind_proxy.py" --listen 127.0.0.1:0 --target "${URI#ldap://}" \
        --dn "uid=alice,ou=People,$SUFFIX" --code $code --text "test server says $code" \
        --port-file "$WORK/proxy.port" > "$WORK/proxy.log" 2>&1 &
    PROXY_PID=$!
    for _ in $(seq 100); do [ -s "$WORK/proxy.port" ] && break; sleep 0.05; done
    restart "ldap://127.0.0.1:$(cat "$WORK/proxy.port")" "" || fail "restart (proxy $code)"
    never "bind answered $code: alice, right password" alice authenticate
    INPUT="wrong-$(pw alice)" never "bind answered $code: alice, wrong password" alice authenticate
    run "bind answered $code: carol (not rewritten) still logs in" 0 carol authenticate
    stop_sssd
    kill "$PROXY_PID" 2> /dev/null
    wait "$PROXY_PID" 2> /dev/null
    PROXY_PID=
    rm -f "$WORK/proxy.port"
done

# ---- nds: loginAllowedTimeMap ----------------------------------------------------------------
restart "$URI" "access_provider = ldap
ldap_access_order = expire
ldap_account_expire_policy = nds" || fail "restart (nds)"
run "nds: frank's map never allows (binary, NUL bytes): denied" 1 frank acct_mgmt
has "  ... PAM_PERM_DENIED" "$DENIED"
run "nds: gina's map always allows" 0 gina acct_mgmt
run "nds: hank has no map" 0 hank acct_mgmt
run "nds: ivy's map allows these hours only (binary, NUL bytes): allowed" 0 ivy acct_mgmt

# ---- the user's entry gone while sssd_pam trusts its lookup ----------------------------------
restart "$URI" "access_provider = ldap
ldap_access_filter = (objectClass=posixAccount)" "pam_id_timeout = 600" || fail "restart (gone)"
run "hank logs in (looked up, pam_id_timeout = 600)" 0 hank authenticate acct_mgmt
ldapdelete -x -H "$URI" -D "cn=admin,$SUFFIX" -w secret "uid=hank,ou=People,$SUFFIX" \
    || fail "ldapdelete hank"
T0=$(date +%s)
run "hank deleted from the directory: account check denied" 1 hank acct_mgmt
has "  ... PAM_PERM_DENIED, not a timeout" "$DENIED"
check "  ... at once (within 20 s, not sssd_pam's 60 s limit)" test $(( $(date +%s) - T0 )) -lt 20

# ---- ldap_access_filter's verdicts across a restart while offline ---------------------------
restart "$URI" "access_provider = ldap
ldap_access_filter = (description=login-ok)" || fail "restart (filter)"
run "filter online: alice allowed" 0 alice acct_mgmt
run "filter online: bob denied" 1 bob acct_mgmt
run "carol is looked up (no access check)" 0 carol authenticate
slapd_stop "$WORK/ldap"
stop_sssd
start_sssd && wait_ready || fail "sssd did not start again"
run "slapd stopped, sssd restarted: alice still allowed (the cached verdict)" 0 alice acct_mgmt
run "  ... bob still denied" 1 bob acct_mgmt
has "  ... PAM_PERM_DENIED" "$DENIED"
run "  ... carol, never checked online, denied" 1 carol acct_mgmt
summary
