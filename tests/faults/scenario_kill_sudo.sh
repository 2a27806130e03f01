#!/bin/bash
# Fault scenario 3, sudo: kill -9 of sssd_sudo, sssd_be and the monitor, each during two
# streams of Debian's real sudo run by alice (setpriv to her uid) through our
# libsss_sudo.so: one runs the command her LDAP rule allows (/bin/true), one a command no
# rule gives her (/usr/bin/id). The scenario runs in a mount namespace of its own whose
# nsswitch.conf says `sudoers: sss` and whose multiarch library directory is an overlay
# adding our libsss_sudo.so and libnss_sss.so.2 (sudo is setuid: the loader looks only
# there).
# Must hold: the forbidden command never runs as root (wrong_grant=0, all along, also while
# parts are down and coming back); no sudo hangs longer than SUDO_BOUND_MS; the allowed
# command runs again within RECOVER_BOUND_MS of each kill (from the kill to the first
# success started after it); no crash. Prints "RESULT kill9/sudo_<part> pass|fail ..." per
# kill.
# Usage: scenario_kill_sudo.sh PREFIX   (as root; FAULT_SHORT=1: shorter streams)
set -u
PREFIX=$(cd "$1" && pwd)
TOP=$(cd "$(dirname "$0")/../.." && pwd)
if [ -z "${FAULT_SUDO_IN_NS:-}" ]; then
    exec unshare --mount --propagation private -- env FAULT_SUDO_IN_NS=1 bash "$0" "$@"
fi
SCENARIO=killsudo
. "$TOP/tests/faults/scenario_env.sh"
MULTIARCH=/usr/lib/x86_64-linux-gnu
command -v sudo > /dev/null || { echo "sudo not installed: skipped"; exit 77; }
[ -f /usr/libexec/sudo/sudoers.so ] || { echo "this sudo has no SSSD support: skipped"; exit 77; }
[ -d "$MULTIARCH" ] || { echo "no $MULTIARCH: skipped"; exit 77; }
for f in lib/libsss_sudo.so lib/libnss_sss.so.2; do
    [ -f "$PREFIX/$f" ] || { echo "RESULT kill9/sudo fail ($PREFIX/$f missing)"; exit 1; }
done

DOM=killsudo.test
S=dc=killsudo,dc=test
SETTLE=${FAULT_SHORT:+2}
SETTLE=${SETTLE:-5}
SUDO_BOUND_MS=15000
RECOVER_BOUND_MS=15000
STREAM_PIDS=
fault_on_exit '[ -n "$STREAM_PIDS" ] && kill $STREAM_PIDS 2>/dev/null; wait 2>/dev/null'

{
    ldif_base $S
    ldif_user $S alice 39101 39101 /home/alice
    ldif_group $S alice 39101
    printf 'dn: ou=SUDOers,%s\nobjectClass: organizationalUnit\nou: SUDOers\n\n' "$S"
    printf 'dn: cn=alice_true,ou=SUDOers,%s\nobjectClass: top\nobjectClass: sudoRole\n' "$S"
    printf 'cn: alice_true\nsudoUser: alice\nsudoHost: ALL\nsudoCommand: /bin/true\n'
    printf 'sudoRunAsUser: root\nsudoOption: !authenticate\n\n'
} > "$WORK/data.ldif"
mkdir -p "$WORK/ldap"
URI=$(SLAPD_EXTRA_SCHEMA=$TOP/tests/lib/sudo.schema slapd_start "$WORK/ldap" "$WORK/data.ldif" $S) \
    || exit 1

write_conf <<CONF
[sssd]
services = nss, sudo
domains = $DOM

[domain/$DOM]
id_provider = ldap
ldap_uri = $URI
ldap_search_base = $S
ldap_schema = rfc2307
ldap_sudo_search_base = ou=SUDOers,$S
CONF

# The namespace: sudo finds our libraries and asks sss for its rules.
mkdir -p "$WORK/libs"
cp "$PREFIX/lib/libsss_sudo.so" "$PREFIX/lib/libnss_sss.so.2" "$WORK/libs/"
printf 'passwd: files sss\ngroup: files sss\nshadow: files\nhosts: files\nsudoers: sss\n' \
    > "$WORK/nsswitch.conf"
mount -t overlay overlay -o "lowerdir=$WORK/libs:$MULTIARCH" "$MULTIARCH" \
    || { echo "RESULT kill9/sudo fail (no overlay over $MULTIARCH)"; exit 1; }
mount --bind "$WORK/nsswitch.conf" /etc/nsswitch.conf \
    || { echo "RESULT kill9/sudo fail (no private nsswitch.conf)"; exit 1; }

ready() {
    local _
    for _ in $(seq 300); do
        [ -S "$PIPES/sudo" ] && wait_name sssd.sudo 100 && wait_name "sssd.domain_killsudo_2etest" 100 \
            && return 0
        sleep 0.05
    done
    return 1
}
start_sssd && ready || { echo "RESULT kill9/sudo fail (sssd did not start)"; exit 1; }

# One sudo run as alice: "END_MS DURATION_MS ran|refused allowed|forbidden".
run_sudo() { # allowed|forbidden
    local cmd t0 t1 r
    [ "$1" = allowed ] && cmd=/bin/true || cmd=/usr/bin/id
    t0=$(now_ms)
    if timeout 60 setpriv --reuid=39101 --regid=39101 --init-groups sudo -n "$cmd" \
            > /dev/null 2>&1; then r=ran; else r=refused; fi
    t1=$(now_ms)
    echo "$t1 $((t1 - t0)) $r $1"
}
first=
for _ in $(seq 100); do
    first=$(run_sudo allowed | cut -d' ' -f3)
    [ "$first" = ran ] && break
    sleep 0.1
done
[ "$first" = ran ] || { echo "RESULT kill9/sudo fail (alice's rule never applied)"; exit 1; }
[ "$(run_sudo forbidden | cut -d' ' -f3)" = refused ] \
    || { echo "RESULT kill9/sudo fail (the forbidden command ran before any kill)"; exit 1; }
stream() { while :; do run_sudo "$1"; sleep 0.05; done > "$WORK/s.$1"; }
stream allowed & STREAM_PIDS="$STREAM_PIDS $!"
stream forbidden & STREAM_PIDS="$STREAM_PIDS $!"

kill_one() { # PART
    local part=$1 pid t0 t1 back deadline rec=none mark crashes bad slow ok=1
    sleep "$SETTLE"
    mark=$(fault_crash_mark)
    case $part in
        sssd_sudo) pid=$(service_pid sssd_sudo) ;;
        sssd_be) pid=$(be_pid $DOM) ;;
        monitor) pid=$(monitor_pid) ;;
    esac
    [ -n "$pid" ] || { echo "RESULT kill9/sudo_$part fail (nothing to kill)"; FAILED=1; return; }
    t0=$(now_ms)
    kill -KILL "$pid"
    if [ "$part" = monitor ]; then
        for _ in $(seq 200); do
            [ -z "$(service_pid sssd_sudo)" ] && [ -z "$(be_pid $DOM)" ] && break
            sleep 0.05
        done
        rm -f "$PIDFILE"
        start_sssd && ready || { echo "RESULT kill9/sudo_$part fail (no restart)"; FAILED=1; return; }
    fi
    deadline=$(( t0 + 60000 ))
    while [ "$(now_ms)" -lt "$deadline" ]; do
        back=$(awk -v t="$t0" '$1 - $2 > t && $3 == "ran" { print $1; exit }' "$WORK/s.allowed")
        [ -n "$back" ] && { rec=$(( back - t0 )); break; }
        sleep 0.1
    done
    sleep "$SETTLE"
    t1=$(now_ms)
    bad=$(awk -v a="$t0" -v b="$t1" '$1 >= a && $1 <= b && $3 == "ran"' "$WORK/s.forbidden" | wc -l)
    slow=$(cat "$WORK/s.allowed" "$WORK/s.forbidden" | awk -v a="$t0" -v b="$t1" \
        '$1 >= a && $1 <= b && $2 > s { s = $2 } END { print s + 0 }')
    crashes=$(fault_crashes_since "$mark" 9)
    [ "$rec" != none ] && [ "$rec" -le "$RECOVER_BOUND_MS" ] || ok=0
    [ "$bad" = 0 ] && [ "$slow" -le "$SUDO_BOUND_MS" ] && [ "$crashes" = 0 ] || ok=0
    echo "RESULT kill9/sudo_$part $([ $ok = 1 ] && echo pass || echo fail) recover_ms=$rec" \
         "wrong=$bad wrong_grant=$bad crashes=$crashes slowest_sudo_ms=$slow" \
         "(bounds: recover $RECOVER_BOUND_MS ms, a sudo $SUDO_BOUND_MS ms)"
    [ $ok = 1 ] || FAILED=1
}
mark_all=$(fault_crash_mark)
for part in sssd_sudo sssd_be monitor; do
    kill_one $part
done
kill $STREAM_PIDS 2>/dev/null
wait $STREAM_PIDS 2>/dev/null
STREAM_PIDS=
# The whole run: the forbidden command never ran.
bad_all=$(awk '$3 == "ran"' "$WORK/s.forbidden" | wc -l)
n_forb=$(wc -l < "$WORK/s.forbidden"); n_allow=$(wc -l < "$WORK/s.allowed")
ok_allow=$(awk '$3 == "ran"' "$WORK/s.allowed" | wc -l)
echo "RESULT kill9/sudo_all $([ "$bad_all" = 0 ] && echo pass || echo fail) wrong=$bad_all" \
     "wrong_grant=$bad_all crashes=$(fault_crashes_since "$mark_all" 9)" \
     "forbidden_runs=$n_forb allowed_runs=$n_allow allowed_ran=$ok_allow"
[ "$bad_all" = 0 ] || FAILED=1
exit $FAILED
