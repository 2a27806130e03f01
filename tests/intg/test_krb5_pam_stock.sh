#!/bin/bash
# SSSD 2.8's own pam_sss.so (Debian's libpam-sss, unpacked, never installed) against our
# sssd_pam and sssd_be with auth_provider = krb5 (set-up: krb5_env.sh, a real MIT KDC behind
# a proxy), side by side with our pam_sss.so: every scenario must give the expected status
# with both modules, and the same output.
#
# Scenarios: the right Kerberos password (auth + account): a ccache with a krbtgt, alice's,
# 0600, for each module's login; a wrong password and the LDAP password refused
# (PAM_AUTH_ERR); an unknown user; the KDC refusing connections with cached credentials:
# both log in offline and both show SSSD's notice; a wrong password offline refused.
# Usage: test_krb5_pam_stock.sh PREFIX   (root; 77 without slapd, pamtester, the MIT KDC
# or Debian's libpam-sss from the mirror)
set -u
PREFIX=$(cd "$1" && pwd)
TOP=$(cd "$(dirname "$0")/../.." && pwd)
if [ -z "${KRB5T_IN_NS:-}" ]; then
    exec unshare --mount --propagation private -- env KRB5T_IN_NS=1 bash "$0" "$@"
fi
. "$(dirname "$0")/krb5_env.sh"

mkdir -p "$WORK/debs"
if ! (cd "$WORK/debs" && apt-get download -q libpam-sss) > "$WORK/download.log" 2>&1; then
    echo "SKIP: cannot download Debian's libpam-sss (no mirror?)"
    exit 77
fi
dpkg -x "$WORK"/debs/libpam-sss_*.deb "$WORK/pamsss" || { echo "FAIL: dpkg -x"; exit 1; }
SSSD_MOD=$(find "$WORK/pamsss" -name pam_sss.so | head -n1)
[ -n "$SSSD_MOD" ] || { echo "FAIL: no pam_sss.so in libpam-sss"; exit 1; }
printf '%s required %s\n' auth "$SSSD_MOD" account "$SSSD_MOD" password "$SSSD_MOD" \
    session "$SSSD_MOD" > /etc/pam.d/krb5stock
# SSSD's module has /var/lib/sss/pipes compiled in: ours are at $PIPES.
mkdir -p /var/lib/sss/pipes "$PIPES"
mount --bind "$PIPES" /var/lib/sss/pipes || { echo "FAIL: bind $PIPES"; exit 1; }

both() { # NAME EXPECTED_STATUS PASSWORD USER OPS...
    local name=$1 want=$2 pw=$3
    shift 3
    pam_both "$name" "$want" '%s\n' "$pw" krb5stock krb5test "$@"
}

restart "" || { fail "sssd did not start"; tail -n 30 "$LOGS"/*.log; summary; exit; }
out=$(printf '%s\n' Alice-Krb1 | LC_ALL=C pamtester krb5stock alice authenticate acct_mgmt 2>&1)
check "SSSD's pam_sss.so: alice logs in with her Kerberos password" test $? = 0
CC=$(ls -d "$WORK"/cc/alice/krb5cc_10001_* 2>/dev/null | head -n1)
check "  ... a ccache from our sssd_be (${CC##*/})" test -n "$CC"
check "  ... alice's, 0600" test "$(stat -c '%u %a' "$CC" 2>/dev/null)" = "10001 600"
check "  ... holding a krbtgt for alice@$REALM" \
    grep -q "krbtgt/$REALM@$REALM" <<< "$(klist_of "FILE:$CC")"
rm -rf "$WORK/cc/alice"
both "right password (auth + account)" 0 Alice-Krb1 alice authenticate acct_mgmt
check "  ... a ccache for each login" test "$(ls "$WORK"/cc/alice | wc -l)" = 2
both "wrong password" 1 Alice-Bad2 alice authenticate
expect_line "  ... PAM_AUTH_ERR" "Authentication failure"
both "the LDAP password is not the Kerberos one" 1 Alice-Ldap1 alice authenticate
both "an unknown user" 1 Nobody-1 nobody-here authenticate

# Offline: an expiry date, so both modules show the offline notice at the default verbosity.
PAM_EXTRA="offline_credentials_expiration = 2" restart "cache_credentials = true" \
    || fail "restart with cache_credentials"
n0=$(wc -l < "$LOGS/sssd_be_krbtest.log")
check "online login (caches the hash)" \
    login 0 Alice-Krb1 alice authenticate
for _ in $(seq 200); do
    tail -n +"$n0" "$LOGS/sssd_be_krbtest.log" | grep -q "cached credentials of \[alice\] updated" \
        && break
    sleep 0.05
done
proxy_refuse || fail "the proxy does not refuse"
both "the KDC refuses connections: offline login with the cached hash" 0 Alice-Krb1 alice \
    authenticate
expect_line "  ... SSSD's module tells her it was offline" "Authenticated with cached credentials"
both "  ... a wrong password offline" 1 Alice-Bad2 alice authenticate
kill -USR2 "$PROXY_PID"

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
