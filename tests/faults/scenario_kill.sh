#!/bin/bash
# Fault scenario 3 (the part that applies without PAM and sudo): kill -9 of sssd_be,
# sssd_nss and the monitor, each during a stream of lookups through the real glibc path
# (getent in the NSS mount namespace). Three streams run all along: users already cached
# asked through sssd_nss (memory cache off), the same through the memory cache, and cold
# lookups of users never asked before (each needs sssd_be and the directory).
# For each kill: the monitor restarts sssd_be and sssd_nss at once; a killed monitor takes
# its services with it (they leave when the bus goes) and is started again by the test, as
# systemd's Restart= would. The time to recover is from the kill to the first right
# answer that needs the killed part (a cold lookup for sssd_be, a lookup through the
# responder for sssd_nss, both for the monitor).
# Must hold: no wrong answer (a line different from the directory's) in any stream; no
# lookup takes longer than LOOKUP_BOUND_MS (libnss_sss's own timeout is 300 s); each part
# is back within RECOVER_BOUND_MS; after a killed monitor none of its old services is left;
# no crash (a service killed by a signal the test did not send, from the monitor's log);
# and afterwards the cache is consistent: with the directory stopped, every user answered
# during the run is answered from the cache with its directory line, through the
# responder and through the memory cache.
# Prints "RESULT kill9/<part> pass|fail recover_ms=N wrong=N crashes=N ..." per kill and
# "RESULT kill9/cache ..." for the check afterwards; exits 1 when one failed.
# Usage: scenario_kill.sh PREFIX   (as root; FAULT_SHORT=1: shorter streams)
set -u
PREFIX=$(cd "$1" && pwd)
TOP=$(cd "$(dirname "$0")/../.." && pwd)
SCENARIO=kill
. "$TOP/tests/faults/scenario_env.sh"

DOM=kill.test
S=dc=kill,dc=test
WARM=40                         # users cached before the kills: ku0001..ku0040
NUSERS=2000
LOOKUP_BOUND_MS=10000
RECOVER_BOUND_MS=15000
SETTLE=${FAULT_SHORT:+1}
SETTLE=${SETTLE:-4}             # seconds of streams before and after each kill
STREAM_PIDS=
fault_on_exit '[ -n "$STREAM_PIDS" ] && kill $STREAM_PIDS 2>/dev/null; wait 2>/dev/null'

{
    ldif_base $S
    for i in $(seq 1 $NUSERS); do
        ldif_user $S "$(printf 'ku%04d' "$i")" $((36000 + i)) 46000 "/home/ku$i"
    done
} > "$WORK/data.ldif"
mkdir -p "$WORK/ldap"
URI=$(slapd_start "$WORK/ldap" "$WORK/data.ldif" $S) || exit 1

rm -f "$LOGS/sssd.log" "$LOGS/sssd_nss.log" "$LOGS/sssd_be_$DOM.log"
write_conf <<CONF
[sssd]
services = nss
domains = $DOM

[domain/$DOM]
id_provider = ldap
ldap_uri = $URI
ldap_search_base = $S
ldap_network_timeout = 3
ldap_search_timeout = 5
CONF
start_sssd && wait_name "sssd.domain_kill_2etest" 10000 || { echo "RESULT kill9/start fail (sssd)"; exit 1; }

want() { local n; n=$(printf 'ku%04d' "$1"); echo "$n:*:$((36000 + $1)):46000:$n:/home/ku$1:"; }
# One lookup: prints "END_MS DURATION_MS ok|fail|wrong I" (wrong: the line differs).
lookup_line() { # I [env...]
    local i=$1 t0 t1 out r
    shift
    t0=$(now_ms)
    out=$( [ $# -gt 0 ] && export "$@"; in_nss_ns timeout 60 getent passwd "$(printf 'ku%04d' "$i")" 2>/dev/null)
    t1=$(now_ms)
    if [ -z "$out" ]; then r=fail
    elif [ "$out" = "$(want "$i")" ]; then r=ok
    else r=wrong; echo "$out" >> "$WORK/wrong.txt"; fi
    echo "$t1 $((t1 - t0)) $r $i"
}

for i in $(seq 1 $WARM); do
    [ "$(lookup_line "$i" | cut -d' ' -f3)" = ok ] || { echo "RESULT kill9/start fail (warm-up of ku$i)"; exit 1; }
done

# The streams write one line per lookup into their file until killed.
stream_warm() { while :; do lookup_line $(( RANDOM % WARM + 1 )) SSS_NSS_USE_MEMCACHE=NO; done > "$WORK/s.warm"; }
stream_mc() { while :; do lookup_line $(( RANDOM % WARM + 1 )); sleep 0.02; done > "$WORK/s.mc"; }
stream_cold() { local i=$((WARM + 1)); while :; do lookup_line $i; i=$((i + 1)); sleep 0.05; done > "$WORK/s.cold"; }
stream_warm & STREAM_PIDS="$STREAM_PIDS $!"
stream_mc & STREAM_PIDS="$STREAM_PIDS $!"
stream_cold & STREAM_PIDS="$STREAM_PIDS $!"

# The first lookup of FILE started after T_MS and answered right: its end time, or nothing.
first_ok_after() { awk -v t="$2" '$1 - $2 > t && $3 == "ok" { print $1; exit }' "$1"; }
# "wrong unanswered slowest_ms" of the lines of FILEs ending in [T0, T1].
figures() { # T0 T1 FILE...
    local t0=$1 t1=$2
    shift 2
    cat "$@" | awk -v a="$t0" -v b="$t1" '$1 >= a && $1 <= b {
        if ($3 == "wrong") w++; if ($3 == "fail") f++; if ($2 > s) s = $2 }
        END { printf "%d %d %d\n", w, f, s }'
}

kill_one() { # PART
    local part=$1 crash_mark pid t0 t1 rec=none old_children="" w f s ok=1 crashes back left=0 deadline
    sleep "$SETTLE"
    crash_mark=$(fault_crash_mark)
    case $part in
        sssd_be) pid=$(be_pid $DOM) ;;
        sssd_nss) pid=$(service_pid sssd_nss) ;;
        monitor) pid=$(monitor_pid); old_children="$(be_pid $DOM) $(service_pid sssd_nss)" ;;
    esac
    [ -n "$pid" ] || { echo "RESULT kill9/$part fail (no process to kill)"; FAILED=1; return; }
    t0=$(now_ms)
    kill -KILL "$pid"
    if [ "$part" = monitor ]; then
        # Its services leave with the bus; then the suite is started again.
        deadline=$(( t0 + 10000 ))
        while [ "$(now_ms)" -lt "$deadline" ]; do
            left=0
            for c in $old_children; do kill -0 "$c" 2>/dev/null && left=$((left + 1)); done
            [ $left = 0 ] && break
            sleep 0.05
        done
        rm -f "$PIDFILE"
        start_sssd || { echo "RESULT kill9/$part fail (sssd did not start again)"; FAILED=1; return; }
    fi
    # Back: the first right answer that needs the killed part.
    deadline=$(( t0 + 60000 ))
    while [ "$(now_ms)" -lt "$deadline" ]; do
        case $part in
            sssd_be) back=$(first_ok_after "$WORK/s.cold" "$t0") ;;
            sssd_nss) back=$(first_ok_after "$WORK/s.warm" "$t0") ;;
            monitor) back=$(first_ok_after "$WORK/s.cold" "$t0")
                     [ -n "$back" ] && [ -z "$(first_ok_after "$WORK/s.warm" "$t0")" ] && back= ;;
        esac
        [ -n "$back" ] && { rec=$(( back - t0 )); break; }
        sleep 0.1
    done
    sleep "$SETTLE"
    t1=$(now_ms)
    read -r w f s <<< "$(figures "$t0" "$t1" "$WORK/s.warm" "$WORK/s.mc" "$WORK/s.cold")"
    crashes=$(fault_crashes_since "$crash_mark" 9)     # 9: the test's own kill
    [ "$rec" = none ] && ok=0
    [ "$rec" != none ] && [ "$rec" -gt "$RECOVER_BOUND_MS" ] && ok=0
    [ "$w" = 0 ] || ok=0
    [ "$s" -le "$LOOKUP_BOUND_MS" ] || ok=0
    [ "$crashes" = 0 ] || ok=0
    [ "$left" = 0 ] || ok=0
    echo "RESULT kill9/$part $([ $ok = 1 ] && echo pass || echo fail) recover_ms=$rec" \
         "wrong=$w crashes=$crashes unanswered=$f slowest_lookup_ms=$s" \
         "$([ "$part" = monitor ] && echo "old_services_left=$left ")(bounds: recover" \
         "$RECOVER_BOUND_MS ms, a lookup $LOOKUP_BOUND_MS ms)"
    [ $ok = 1 ] || FAILED=1
}

t_start=$(now_ms)
mark_start=$(fault_crash_mark)
for part in ${KILL_PARTS:-sssd_be sssd_nss monitor}; do
    kill_one "$part"
done
kill $STREAM_PIDS 2>/dev/null
wait $STREAM_PIDS 2>/dev/null
STREAM_PIDS=
read -r w_all f_all s_all <<< "$(figures "$t_start" "$(now_ms)" "$WORK/s.warm" "$WORK/s.mc" "$WORK/s.cold")"
n_all=$(cat "$WORK/s.warm" "$WORK/s.mc" "$WORK/s.cold" | wc -l)
[ -s "$WORK/wrong.txt" ] && sed 's/^/  wrong answer: /' "$WORK/wrong.txt" | head -5

# The cache afterwards: the directory stops; every user answered in the run must still be
# answered right, from the cache, through the responder and through the memory cache.
answered=$(cat "$WORK/s.warm" "$WORK/s.mc" "$WORK/s.cold" | awk '$3 == "ok" { print $4 }' | sort -un)
slapd_stop "$WORK/ldap"
bad=0; n=0
for i in $answered; do
    n=$((n + 1))
    [ "$(lookup_line "$i" SSS_NSS_USE_MEMCACHE=NO | cut -d' ' -f3)" = ok ] || { bad=$((bad + 1)); echo "  not from the cache: ku$i (responder)"; }
    [ "$(lookup_line "$i" | cut -d' ' -f3)" = ok ] || { bad=$((bad + 1)); echo "  not from the cache: ku$i (memory cache)"; }
done
crashes_all=$(fault_crashes_since "$mark_start" 9)
alive=1
[ -n "$(monitor_pid)" ] && kill -0 "$(monitor_pid)" 2>/dev/null || alive=0
[ -n "$(be_pid $DOM)" ] && [ -n "$(service_pid sssd_nss)" ] || alive=0
ok=1
[ "$bad" = 0 ] && [ "$n" -gt "$WARM" ] && [ "$alive" = 1 ] && [ "$w_all" = 0 ] \
    && [ "$crashes_all" = 0 ] || ok=0
echo "RESULT kill9/cache $([ $ok = 1 ] && echo pass || echo fail) wrong=$w_all crashes=$crashes_all" \
     "users_checked=$n not_from_cache=$bad services_up=$alive" \
     "lookups_in_run=$n_all unanswered_in_run=$f_all slowest_lookup_ms=$s_all"
[ $ok = 1 ] || FAILED=1
exit $FAILED
