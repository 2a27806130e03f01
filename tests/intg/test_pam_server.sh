#!/bin/bash
# Our sssd_pam and sssd_be (auth_provider = ldap) behind pamtester, with our pam_sss.so and
# SSSD 2.8's (Debian's libpam-sss, unpacked, never installed) side by side: every scenario
# must give the expected PAM result with both modules, and the same output. The directory
# is a private slapd with StartTLS (a throwaway CA) and userPassword hashes.
#
# Scenarios: right password (auth + account, session open/close), wrong, empty, unknown
# user; a user running pamtester (public socket); a non-root client refused by the private
# socket; access_provider = deny; root's password reset refused as SSSD does (PRELIM ->
# PAM_PERM_DENIED); a user's password change (old checked, new works, old does not); a
# change the server refuses (its text shown as CHPASS_ERROR); no TLS -> refused, with
# ldap_auth_disable_tls_never_use_in_production -> allowed; slapd stopped (no cached
# credentials) -> PAM_AUTHINFO_UNAVAIL; sssd_be stopped then killed with kill -9 while a
# login waits -> PAM_AUTHINFO_UNAVAIL, never success; and at debug_level = 9 no password
# used anywhere appears in any log.
#
# Everything runs in a private mount namespace with a tmpfs over /etc/pam.d.
# Usage: test_pam_server.sh PREFIX   (root; 77 when slapd, pamtester or libpam-sss are
# not available)
set -u
PREFIX=$(cd "$1" && pwd)
TOP=$(cd "$(dirname "$0")/../.." && pwd)
PAM_TEST=pamsrv
PAM_NEEDS="pamtester slappasswd setpriv python3"
PAM_TLS=1
. "$(dirname "$0")/pam_env.sh"
SUFFIX=dc=pam,dc=test

mkdir -p "$WORK/debs"
if ! (cd "$WORK/debs" && apt-get download -q libpam-sss) > "$WORK/download.log" 2>&1; then
    echo "SKIP: cannot download Debian's libpam-sss (no mirror?)"
    exit 77
fi
dpkg -x "$WORK"/debs/libpam-sss_*.deb "$WORK/pamsss" || { echo "FAIL: dpkg -x"; exit 1; }
SSSD_MOD=$(find "$WORK/pamsss" -name pam_sss.so | head -n1)
[ -n "$SSSD_MOD" ] || { echo "FAIL: no pam_sss.so in libpam-sss"; exit 1; }

# ---- the directory -----------------------------------------------------------------------
PASSWORDS=(Alice-Pass1 Alice-Wrong2 Bob-Pass2 Bob-Pass3 Bob-Wrong4 Carol-Pass5 Carol-New6
           Alice-Pass9 Nobody-Pass7)
mkdir -p "$WORK/tls" "$WORK/ldap"
tls_certs_make "$WORK/tls" > "$WORK/tls.log" 2>&1 || { echo "FAIL: test certificates"; exit 1; }
user_entry() { # UID UIDNUMBER PASSWORD
    printf 'dn: uid=%s,ou=People,%s\nobjectClass: top\nobjectClass: account\n' "$1" "$SUFFIX"
    printf 'objectClass: posixAccount\nstructuralObjectClass: account\n'
    printf 'uid: %s\ncn: %s\nuidNumber: %s\ngidNumber: %s\n' "$1" "$1" "$2" "$2"
    printf 'homeDirectory: /home/%s\nloginShell: /bin/sh\nuserPassword: %s\n\n' \
        "$1" "$(slappasswd -s "$3")"
}
{
    printf 'dn: %s\nobjectClass: top\nobjectClass: dcObject\nobjectClass: organization\n' "$SUFFIX"
    printf 'o: Pam\ndc: pam\n\n'
    printf 'dn: ou=People,%s\nobjectClass: organizationalUnit\nou: People\n\n' "$SUFFIX"
    user_entry alice 10001 'Alice-Pass1'
    user_entry bob 10002 'Bob-Pass2'
    user_entry carol 10003 'Carol-Pass5'
} > "$WORK/pam.ldif"
# Users change their own password, except carol (the server refuses hers).
export SLAPD_ACL="access to dn.exact=\"uid=carol,ou=People,$SUFFIX\" attrs=userPassword by anonymous auth by * none
access to attrs=userPassword by self write by anonymous auth by * none
access to * by * read"
URI=$(SLAPD_TLS_CERT=$WORK/tls/server.crt SLAPD_TLS_KEY=$WORK/tls/server.key \
      SLAPD_TLS_CA=$WORK/tls/ca.crt slapd_start "$WORK/ldap" "$WORK/pam.ldif" "$SUFFIX") \
    || { echo "FAIL: slapd"; exit 1; }
LDAPTLS_CACERT=$WORK/tls/ca.crt ldapwhoami -x -H "$URI" -ZZ -D "uid=alice,ou=People,$SUFFIX" \
    -w 'Alice-Pass1' > /dev/null 2>&1 || { echo "FAIL: alice cannot bind to the test slapd"; exit 1; }

conf() { pam_ldap_conf pamtest "$@"; }          # EXTRA_DOMAIN_LINES [EXTRA_PAM_LINES]
restart() { pam_ldap_restart pamtest "$@"; }    # EXTRA_DOMAIN_LINES [EXTRA_PAM_LINES]

# ---- PAM services in the namespace ---------------------------------------------------------
mount -t tmpfs -o mode=0755 tmpfs /etc/pam.d || { echo "FAIL: tmpfs over /etc/pam.d"; exit 1; }
for tag in ours sssd; do
    [ "$tag" = ours ] && mod=$OUR_MOD || mod=$SSSD_MOD
    printf '%s required %s\n' auth "$mod" account "$mod" password "$mod" session "$mod" \
        > "/etc/pam.d/pamsrv-$tag"
done
# SSSD's module has /var/lib/sss/pipes compiled in: ours are at $PIPES.
mkdir -p /var/lib/sss/pipes "$PIPES"
mount --bind "$PIPES" /var/lib/sss/pipes || { echo "FAIL: bind $PIPES"; exit 1; }

AS=()
both() { # NAME EXPECTED_STATUS INPUT USER OPS...
    local name=$1 want=$2 input=$3
    shift 3
    pam_both "$name" "$want" '%b' "$input" pamsrv-sssd pamsrv-ours "$@"
}
expect_line() { # NAME PATTERN
    if grep -q -- "$2" <<< "$LAST_OUT"; then ok "$1"; else
        fail "$1 (no '$2')"; echo "$LAST_OUT" | sed 's/^/        /'; fi
}
run() { # MODULE_TAG INPUT USER OPS...
    local tag=$1 input=$2
    shift 2
    LAST_OUT=$(printf '%b' "$input" | LC_ALL=C "${AS[@]}" pamtester "pamsrv-$tag" "$@" 2>&1)
}

restart "" || { fail "sssd did not start"; tail -n 30 "$LOGS"/*.log; summary; exit; }
check "the public socket is root:root 0666, the private one 0600" test \
    "$(stat -c '%u:%g %a' "$PIPES/pam") $(stat -c '%u:%g %a' "$PIPES/private/pam")" \
    = "0:0 666 0:0 600"
check "sssd_pam runs" test -n "$(service_pid sssd_pam)"

both "right password, auth + account" 0 'Alice-Pass1\n' alice authenticate acct_mgmt
expect_line "  ... pamtester says so" "successfully authenticated"
both "session open and close, setcred" 0 '' alice open_session close_session setcred
both "wrong password" 1 'Alice-Wrong2\n' alice authenticate
expect_line "  ... PAM_AUTH_ERR" "Authentication failure"
both "empty password" 1 '\n' alice authenticate
expect_line "  ... PAM_AUTH_ERR" "Authentication failure"
both "unknown user" 1 'Nobody-Pass7\n' nobody-here authenticate
expect_line "  ... PAM_USER_UNKNOWN" "User not known to the underlying authentication module"
both "fully qualified name" 0 'Alice-Pass1\n' alice@pamtest authenticate

AS=(setpriv --reuid=10001 --regid=10001 --clear-groups)
both "as the user (public socket), right password" 0 'Alice-Pass1\n' alice authenticate acct_mgmt
both "as the user (public socket), wrong password" 1 'Alice-Pass9\n' alice authenticate
AS=()
out=$(setpriv --reuid=10001 --regid=10001 --clear-groups /usr/bin/python3 -c '
import socket, sys
s = socket.socket(socket.AF_UNIX)
try:
    s.connect(sys.argv[1]); print("connected")
except OSError as e:
    print("refused", e.errno)' "$PIPES/private/pam" 2>&1)
check "a non-root client cannot reach the private socket ($out)" test "$out" = "refused 13"

# ---- password change ----
both "root resets a password: refused" 1 '' alice chauthtok
expect_line "  ... with SSSD's message" "Password reset by root is not supported."
AS=(setpriv --reuid=10002 --regid=10002 --clear-groups)
run ours 'Bob-Wrong4\nBob-Pass3\nBob-Pass3\n' bob chauthtok
expect_line "a wrong current password stops the change" "Authentication failure"
run ours 'Bob-Pass2\nBob-Pass3\nBob-Pass3\n' bob chauthtok
expect_line "bob changes his password with our module" "authentication token altered successfully"
both "the new password works" 0 'Bob-Pass3\n' bob authenticate
both "the old one does not" 1 'Bob-Pass2\n' bob authenticate
run sssd 'Bob-Pass3\nBob-Pass2\nBob-Pass2\n' bob chauthtok
expect_line "and back with SSSD's module" "authentication token altered successfully"
AS=(setpriv --reuid=10003 --regid=10003 --clear-groups)
run ours 'Carol-Pass5\nCarol-New6\nCarol-New6\n' carol chauthtok
expect_line "a change the server refuses fails" "Authentication token manipulation error"
expect_line "  ... and shows the server's text" "Password change failed. Server message:"
LAST_OUT_OURS=$LAST_OUT
run sssd 'Carol-Pass5\nCarol-New6\nCarol-New6\n' carol chauthtok
check "  ... the same output with SSSD's module" test \
    "${LAST_OUT_OURS//pamsrv-ours/X}" = "${LAST_OUT//pamsrv-sssd/X}"
AS=()

# ---- access ----
restart "access_provider = deny" || fail "restart with access_provider = deny"
both "access_provider = deny: auth works, account refused" 1 'Alice-Pass1\n' alice authenticate acct_mgmt
expect_line "  ... PAM_PERM_DENIED" "Permission denied"

# ---- TLS ----
restart "ldap_id_use_start_tls = false" || fail "restart without TLS"
both "no TLS: the right password is refused" 1 'Alice-Pass1\n' alice authenticate
check "  ... and the log says why" grep -q "without TLS" "$LOGS/sssd_be_pamtest.log"
restart "ldap_id_use_start_tls = false
ldap_auth_disable_tls_never_use_in_production = true" || fail "restart with TLS disabled"
both "ldap_auth_disable_tls_never_use_in_production: allowed" 0 'Alice-Pass1\n' alice authenticate

# ---- the back-end gone ----
restart "" "pam_id_timeout = 600" || fail "restart"
both "warm-up login" 0 'Alice-Pass1\n' alice authenticate
BE=$(be_pid pamtest)
kill -STOP "$BE"
( printf 'Alice-Pass1\n' | LC_ALL=C pamtester pamsrv-ours alice authenticate > "$WORK/killed.out" 2>&1
  echo $? > "$WORK/killed.rc" ) &
WAITER=$!
sleep 1
kill -KILL "$BE"
wait $WAITER
LAST_OUT=$(cat "$WORK/killed.out")
check "sssd_be killed mid-login: not a success" test "$(cat "$WORK/killed.rc")" = 1
expect_line "  ... PAM_AUTHINFO_UNAVAIL" "Authentication service cannot retrieve authentication info"
check "  ... and the monitor restarts sssd_be" wait_new_owner sssd.domain_pamtest "" 10000

slapd_stop "$WORK/ldap"
both "slapd stopped, no cached credentials" 1 'Alice-Pass1\n' alice authenticate
expect_line "  ... PAM_AUTHINFO_UNAVAIL" "Authentication service cannot retrieve authentication info"
both "slapd stopped, wrong password" 1 'Alice-Wrong2\n' alice authenticate

# ---- no password in any log ----
stop_sssd
n=$(cat "$LOGS"/*.log | wc -l)
check "the logs were written at debug_level 9 ($n lines)" test "$n" -gt 500
leaked=0
for pw in "${PASSWORDS[@]}"; do
    if grep -rlF -- "$pw" "$LOGS" > /dev/null 2>&1; then
        fail "password $pw appears in $(grep -rlF -- "$pw" "$LOGS" | tr '\n' ' ')"
        leaked=1
    fi
done
[ "$leaked" = 0 ] && ok "no password used appears in any log"
summary
