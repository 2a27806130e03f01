#!/bin/bash
# Optimistic pre-authentication (krb5_child_asreq.c) against a real Samba AD DC's KDC,
# which always requires pre-authentication: auth_provider = ad through pamtester, and the
# KDC reached through tests/faults/fault_proxy.py (krb5_server names it), which counts the
# TCP connections: one per Kerberos exchange (libkrb5 closes each after its answer).
#   - after a first login (the LDAP connection, the back-end's own TGT, alice's salt
#     learned): three logins take two exchanges each, the AS exchange with the encrypted
#     timestamp at once and the TGS exchange of krb5_validate, where the KDC's
#     PREAUTH_REQUIRED round trip made them three;
#   - krb5_child's log says the hint was right;
#   - a wrong password is refused; alice's password changed through kpasswd: the new one
#     logs her in (AD keeps the salt), the old one no longer.
# Usage: test_krb5_ad_preauth.sh PREFIX   (root; 77 without Samba's AD DC or pamtester)
set -u
PREFIX=$(cd "$1" && pwd)
TOP=$(cd "$(dirname "$0")/../.." && pwd)
AD_TEST=test_krb5_ad_preauth
AD_NEEDS="pamtester python3"
. "$(dirname "$0")/ad_env.sh"
[ -f "$OUR_MOD" ] || { echo "FAIL: $OUR_MOD is not installed"; exit 1; }
samba_ad_user alice Alice-Pass1 || exit 1
samba_ad_join || { echo "FAIL: adcli join"; exit 1; }

mkdir -p /etc/pam.d
printf '%s required %s\n' auth "$OUR_MOD" account "$OUR_MOD" password "$OUR_MOD" \
    session "$OUR_MOD" > /etc/pam.d/adtest
mkdir -p "$WORK/cc"
chmod 1777 "$WORK/cc"

# The proxy in front of the DC's KDC, on a port of its own that the configuration names;
# started again for each count (it reports its connections when it stops).
PROXY_PORT=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
PROXY_PID=
proxy_start() {
    python3 "$TOP/tests/faults/fault_proxy.py" --listen "127.0.0.1:$PROXY_PORT" \
        --target "$SAMBA_AD_DC_IP:88" > "$WORK/proxy.out" 2>&1 &
    PROXY_PID=$!
    for _ in $(seq 100); do grep -q listening "$WORK/proxy.out" && return 0; sleep 0.05; done
    return 1
}
proxy_count() { # stops the proxy; PROXY_N: its connection count
    local _
    kill -TERM "$PROXY_PID"
    wait "$PROXY_PID" 2>/dev/null
    PROXY_PID=
    for _ in $(seq 100); do grep -q "^connections" "$WORK/proxy.out" && break; sleep 0.05; done
    PROXY_N=$(sed -n 's/^connections \([0-9]*\) .*/\1/p' "$WORK/proxy.out")
}
trap '[ -n "$PROXY_PID" ] && kill "$PROXY_PID" 2>/dev/null; _ad_env_exit' EXIT
proxy_start || { fail "the proxy did not start"; summary; exit; }

rm -f "$LOGS"/*.log
write_conf <<CONF
[sssd]
domains = ad.test
services = nss, pam
[pam]
[domain/ad.test]
id_provider = ad
ad_server = $SAMBA_AD_DC
krb5_server = 127.0.0.1:$PROXY_PORT
krb5_ccachedir = $WORK/cc/%u
debug_level = 0x3ff0
CONF
start_sssd || { fail "sssd did not start"; summary; exit; }
ad_wait_pam || fail "sssd_pam or the back-end did not come up"

login() { # EXPECTED_RC PASSWORD USER
    LAST_OUT=$(printf '%s\n' "$2" | LC_ALL=C pamtester adtest "$3" authenticate 2>&1)
    LAST_RC=$?
    [ "$LAST_RC" = "$1" ]
}
check "alice's first login" login 0 Alice-Pass1 alice
proxy_count
check "  ... went to the KDC through the proxy ($PROXY_N connections)" test "${PROXY_N:-0}" -ge 2
proxy_start || fail "the proxy did not start again"
for i in 1 2 3; do
    check "alice's login $((i + 1))" login 0 Alice-Pass1 alice
done
proxy_count
check "  ... two Kerberos exchanges each: six connections to the KDC ($PROXY_N)" \
    test "${PROXY_N:-0}" = 6
check "  ... krb5_child pre-authenticated at once" \
    grep -q "one AS exchange: the salt hint was right" "$LOGS/krb5_child.log"
proxy_start || fail "the proxy did not start again"
login 0 Alice-Wrong1 alice
check "a wrong password is refused ($LAST_OUT)" grep -q "Authentication failure" <<< "$LAST_OUT"

IFS=: read -r _ _ A_UID A_GID _ <<< "$(in_nss_ns getent passwd alice)"
out=$(printf 'Alice-Pass1\nAlice-Pass2\nAlice-Pass2\n' | LC_ALL=C \
      setpriv --reuid="$A_UID" --regid="$A_GID" --clear-groups pamtester adtest alice chauthtok 2>&1)
check "alice changes her AD password ($out)" \
    grep -q "authentication token altered successfully" <<< "$out"
check "  ... the new one logs her in" login 0 Alice-Pass2 alice
login 0 Alice-Pass1 alice
check "  ... the old one no longer ($LAST_OUT)" grep -q "Authentication failure" <<< "$LAST_OUT"
check "no password appears in any log" \
    bash -c '! grep -rqE "Alice-Pass1|Alice-Pass2|Alice-Wrong1" "$1"' _ "$LOGS"
proxy_count
summary
