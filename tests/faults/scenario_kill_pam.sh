#!/bin/bash
# Fault scenario 3, logins: kill -9 of sssd_pam, sssd_be and the monitor, each during two
# streams of PAM logins through pamtester and our pam_sss.so (auth + account): one with the
# right password, one with a wrong one. The scenario runs in a mount namespace of its own
# with a private /etc/pam.d (a tmpfs) holding one service, faultpam.
# Must hold: no login with the wrong password ever succeeds (wrong_password_ok=0, all along,
# also while parts are down and coming back); no pamtester hangs longer than
# LOGIN_BOUND_MS; logins with the right password are back within RECOVER_BOUND_MS of each
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
LOGIN_BOUND_MS=15000
RECOVER_BOUND_MS=15000
STREAM_PIDS=
fault_on_exit '[ -n "$STREAM_PIDS" ] && kill $STREAM_PIDS 2>/dev/null; wait 2>/dev/null'

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
ready() {
    local _
    for _ in $(seq 300); do
        [ -S "$PIPES/pam" ] && wait_name "sssd.domain_killpam_2etest" 100 && return 0
        sleep 0.05
    done
    return 1
}
start_sssd && ready || { echo "RESULT kill9/logins fail (sssd did not start)"; exit 1; }

# One login: "END_MS DURATION_MS ok|refused right|wrong".
login() { # right|wrong
    local pw t0 t1 r
    [ "$1" = right ] && pw=Right-Pass1 || pw=Wrong-Pass2
    t0=$(now_ms)
    if printf '%s\n' "$pw" | timeout 60 pamtester faultpam pamu authenticate acct_mgmt \
            > /dev/null 2>&1; then r=ok; else r=refused; fi
    t1=$(now_ms)
    echo "$t1 $((t1 - t0)) $r $1"
}
[ "$(login right | cut -d' ' -f3)" = ok ] || { echo "RESULT kill9/logins fail (no first login)"; exit 1; }
stream() { while :; do login "$1"; sleep 0.05; done > "$WORK/s.$1"; }
stream right & STREAM_PIDS="$STREAM_PIDS $!"
stream wrong & STREAM_PIDS="$STREAM_PIDS $!"

kill_one() { # PART
    local part=$1 pid t0 t1 back deadline rec=none mark crashes bad slow ok=1
    sleep "$SETTLE"
    mark=$(fault_crash_mark)
    case $part in
        sssd_pam) pid=$(service_pid sssd_pam) ;;
        sssd_be) pid=$(be_pid $DOM) ;;
        monitor) pid=$(monitor_pid) ;;
    esac
    [ -n "$pid" ] || { echo "RESULT kill9/logins_$part fail (nothing to kill)"; FAILED=1; return; }
    t0=$(now_ms)
    kill -KILL "$pid"
    if [ "$part" = monitor ]; then
        for _ in $(seq 200); do
            [ -z "$(service_pid sssd_pam)" ] && [ -z "$(be_pid $DOM)" ] && break
            sleep 0.05
        done
        rm -f "$PIDFILE"
        start_sssd && ready || { echo "RESULT kill9/logins_$part fail (no restart)"; FAILED=1; return; }
    fi
    deadline=$(( t0 + 60000 ))
    while [ "$(now_ms)" -lt "$deadline" ]; do
        back=$(awk -v t="$t0" '$1 - $2 > t && $3 == "ok" { print $1; exit }' "$WORK/s.right")
        [ -n "$back" ] && { rec=$(( back - t0 )); break; }
        sleep 0.1
    done
    sleep "$SETTLE"
    t1=$(now_ms)
    bad=$(awk -v a="$t0" -v b="$t1" '$1 >= a && $1 <= b && $3 == "ok"' "$WORK/s.wrong" | wc -l)
    slow=$(cat "$WORK/s.right" "$WORK/s.wrong" | awk -v a="$t0" -v b="$t1" \
        '$1 >= a && $1 <= b && $2 > s { s = $2 } END { print s + 0 }')
    crashes=$(fault_crashes_since "$mark" 9)
    [ "$rec" != none ] && [ "$rec" -le "$RECOVER_BOUND_MS" ] || ok=0
    [ "$bad" = 0 ] && [ "$slow" -le "$LOGIN_BOUND_MS" ] && [ "$crashes" = 0 ] || ok=0
    echo "RESULT kill9/logins_$part $([ $ok = 1 ] && echo pass || echo fail) recover_ms=$rec" \
         "wrong=$bad wrong_password_ok=$bad crashes=$crashes slowest_login_ms=$slow" \
         "(bounds: recover $RECOVER_BOUND_MS ms, a login $LOGIN_BOUND_MS ms)"
    [ $ok = 1 ] || FAILED=1
}
mark_all=$(fault_crash_mark)
for part in sssd_pam sssd_be monitor; do
    kill_one $part
done
kill $STREAM_PIDS 2>/dev/null
wait $STREAM_PIDS 2>/dev/null
STREAM_PIDS=
# The whole run: no wrong password ever let in.
bad_all=$(awk '$3 == "ok"' "$WORK/s.wrong" | wc -l)
n_wrong=$(wc -l < "$WORK/s.wrong"); n_right=$(wc -l < "$WORK/s.right")
ok_right=$(awk '$3 == "ok"' "$WORK/s.right" | wc -l)
echo "RESULT kill9/logins_all $([ "$bad_all" = 0 ] && echo pass || echo fail) wrong=$bad_all" \
     "wrong_password_ok=$bad_all crashes=$(fault_crashes_since "$mark_all" 9)" \
     "wrong_password_logins=$n_wrong right_password_logins=$n_right right_password_ok=$ok_right"
[ "$bad_all" = 0 ] || FAILED=1
exit $FAILED
