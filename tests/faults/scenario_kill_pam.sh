#!/bin/bash
# Fault scenario 3, logins: kill -9 of sssd_pam, sssd_be and the monitor, each during two
# streams of PAM logins through pamtester and our pam_sss.so (auth + account): one with the
# right password, one with a wrong one. The scenario runs in a mount namespace of its own
# with a private /etc/pam.d (a tmpfs) holding one service, faultpam.
# Must hold: no login with the wrong password ever succeeds (wrong_password_ok=0, all along,
# also while parts are down and coming back); no pamtester hangs longer than
# KS_REQUEST_BOUND_MS; logins with the right password are back within RECOVER_BOUND_MS of each
# kill (time to recover: from the kill to the first successful login started after it);
# no crash. Prints "RESULT kill9/logins_<part> pass|fail ..." per kill.
# Usage: scenario_kill_pam.sh PREFIX   (as root; FAULT_SHORT=1: shorter streams)
set -u
PREFIX=$(cd "$1" && pwd)
TOP=$(cd "$(dirname "$0")/../.." && pwd)
if [ -z "${FAULT_PAM_IN_NS:-}" ]; then
    exec unshare --mount --propagation private -- env FAULT_PAM_IN_NS=1 bash "$0" "$@"
fi
SCENARIO=killpam
. "$TOP/tests/faults/scenario_env.sh"
for t in pamtester slappasswd; do
    command -v $t > /dev/null || { echo "$t not installed: skipped"; exit 77; }
done
OUR_MOD=$PREFIX/lib/security/pam_sss.so
[ -f "$OUR_MOD" ] || { echo "RESULT kill9/logins fail ($OUR_MOD missing)"; exit 1; }

DOM=killpam.test
S=dc=killpam,dc=test
SETTLE=${FAULT_SHORT:+2}
SETTLE=${SETTLE:-5}
KS_REQUEST_BOUND_MS=15000
RECOVER_BOUND_MS=15000
KS_LABEL=logins
KS_BAD_NAME=wrong_password_ok
KS_PARTS="sssd_pam sssd_be monitor"
KS_SOCKET=pam
KS_BUS_NAMES="sssd.domain_killpam_2etest"
. "$TOP/tests/faults/kill_streams.sh"

{
    ldif_base $S
    printf 'dn: uid=pamu,ou=People,%s\nobjectClass: top\nobjectClass: account\n' "$S"
    printf 'objectClass: posixAccount\nstructuralObjectClass: account\nuid: pamu\ncn: pamu\n'
    printf 'uidNumber: 39001\ngidNumber: 39001\nhomeDirectory: /home/pamu\n'
    printf 'userPassword: %s\n\n' "$(slappasswd -s 'Right-Pass1')"
} > "$WORK/data.ldif"
mkdir -p "$WORK/ldap"
URI=$(slapd_start "$WORK/ldap" "$WORK/data.ldif" $S) || exit 1

write_conf <<CONF
[sssd]
services = nss, pam
domains = $DOM

[domain/$DOM]
id_provider = ldap
auth_provider = ldap
ldap_uri = $URI
ldap_search_base = $S
ldap_auth_disable_tls_never_use_in_production = true
cache_credentials = true
CONF
mount -t tmpfs -o mode=0755 tmpfs /etc/pam.d || { echo "RESULT kill9/logins fail (no tmpfs over /etc/pam.d)"; exit 1; }
printf 'auth required %s\naccount required %s\n' "$OUR_MOD" "$OUR_MOD" > /etc/pam.d/faultpam
start_sssd && ks_ready || { echo "RESULT kill9/logins fail (sssd did not start)"; exit 1; }

# One login, auth + account: good = the right password, bad = a wrong one.
ks_request() {
    local pw t0 t1 r
    [ "$1" = good ] && pw=Right-Pass1 || pw=Wrong-Pass2
    t0=$(now_ms)
    if printf '%s\n' "$pw" | timeout 60 pamtester faultpam pamu authenticate acct_mgmt \
            > /dev/null 2>&1; then r=through; else r=refused; fi
    t1=$(now_ms)
    echo "$t1 $((t1 - t0)) $r"
}
[ "$(ks_request good | cut -d' ' -f3)" = through ] \
    || { echo "RESULT kill9/logins fail (no first login)"; exit 1; }
ks_run
exit $FAILED
