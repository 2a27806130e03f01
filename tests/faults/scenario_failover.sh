#!/bin/bash
# Fault scenario 1: failover across two real slapd servers holding the same data.
# sssd's domain has ldap_uri = A and ldap_backup_uri = B, each behind a fault_proxy.py (so
# that connections can be refused or cut). For each fault of A, from a fresh start connected
# to A: the fault is injected, then cold lookups (users never seen) are made one after the
# other until one is answered; the time from the fault to that answer is the time to
# recover. Then A is healed and lookups go on until one is served by A again (fail back).
#   dies      slapd A is killed (kill -9): its proxy still accepts, then resets
#   sigstop   slapd A is stopped (SIGSTOP): connections stay open, nothing answers
#   refuses   A's port is closed: connects get ECONNREFUSED
#   drops     every connection to A is reset after 100 bytes of its answer (mid-search)
# Must hold: every answer is right (the user's line as in the directory), the lookups move
# to B within RECOVER_BOUND_MS (ldap_network_timeout + ldap_search_timeout + margin), and no
# lookup is left unanswered for longer than its own timeouts. Fail back is measured and
# reported; it passes when A serves again within FAILBACK_BOUND_MS.
# The servers' state is shown from the back-end's log (the lines on which server serves,
# which is marked bad, the primary tried again), printed as "STATE failover/<fault> +MS
# line" relative to the fault, and as `sssctl domain-status DOMAIN --servers` shows it
# once the lookups have moved to B: it must show B active and A not working.
# Prints one "RESULT failover/<fault> pass|fail recover_ms=N failback_ms=N|none ..." line per
# fault; exits 1 when one failed. A crash (a service of the suite killed by a signal or
# exiting with an error, from the monitor's log) fails the fault.
# Usage: scenario_failover.sh PREFIX   (as root; FAULT_SHORT=1: failover_primary_timeout
# = 3 instead of SSSD's default 31, so each fail back takes seconds)
set -u
PREFIX=$(cd "$1" && pwd)
TOP=$(cd "$(dirname "$0")/../.." && pwd)
SCENARIO=fo
. "$TOP/tests/faults/scenario_env.sh"

DOM=fo.test
S=dc=fo,dc=test
BELOG=$LOGS/sssd_be_$DOM.log
NET_TIMEOUT=2
SEARCH_TIMEOUT=3
RECOVER_BOUND_MS=$(( (NET_TIMEOUT + SEARCH_TIMEOUT) * 1000 + 3000 ))
PRIMARY_TIMEOUT=${FAULT_SHORT:+3}
PRIMARY_TIMEOUT=${PRIMARY_TIMEOUT:-31}
FAILBACK_BOUND_MS=$(( (PRIMARY_TIMEOUT + 10) * 1000 ))
fault_on_exit 'fault_proxy_stop a > /dev/null; fault_proxy_stop b > /dev/null'

{
    ldif_base $S
    for i in $(seq 1 400); do
        ldif_user $S "$(printf 'fu%04d' "$i")" $((34000 + i)) 44000 "/home/fu$i"
    done
} > "$WORK/data.ldif"
for s in a b; do
    mkdir -p "$WORK/$s"
    slapd_start "$WORK/$s" "$WORK/data.ldif" $S > /dev/null || exit 1
done
SA=$(cat "$WORK/a/uri"); SB=$(cat "$WORK/b/uri")
PA=$(fault_proxy_start a "127.0.0.1:${SA##*:}") || exit 1
PB=$(fault_proxy_start b "127.0.0.1:${SB##*:}") || exit 1
URI_A=ldap://127.0.0.1:$PA
URI_B=ldap://127.0.0.1:$PB

NEXT=1
# A cold lookup of user I (each asked for once); "ok" with the right line, "wrong" or "fail".
lookup() { # I
    local name out want i=$1
    name=$(printf 'fu%04d' "$i")
    want="$name:*:$((34000 + i)):44000:$name:/home/fu$i:"
    out=$(SSS_NSS_USE_MEMCACHE=NO in_nss_ns timeout 30 getent passwd "$name")
    if [ -z "$out" ]; then echo fail
    elif [ "$out" = "$want" ]; then echo ok
    else echo "wrong: $out"; fi
}
# The server of the back-end's last connection, from its log.
serving() { grep -o "connected to ldap://127.0.0.1:[0-9]*" "$BELOG" | tail -n 1 | sed 's/.*://'; }

start_fresh() {
    rm -f "$BELOG"
    write_conf <<CONF
[sssd]
services = nss
domains = $DOM

[domain/$DOM]
id_provider = ldap
ldap_uri = $URI_A
ldap_backup_uri = $URI_B
ldap_search_base = $S
ldap_network_timeout = $NET_TIMEOUT
ldap_search_timeout = $SEARCH_TIMEOUT
ldap_opt_timeout = $SEARCH_TIMEOUT
offline_timeout = 5
failover_primary_timeout = $PRIMARY_TIMEOUT
# 6 and the failover lines (SSSDBG_BE_FO, 0x8000)
debug_level = 0x87f0
CONF
    start_sssd && wait_name "sssd.domain_fo_2etest" 10000
}

inject() { # FAULT
    case $1 in
        dies) kill -KILL "$(slapd_pid "$WORK/a")" ;;
        sigstop) kill -STOP "$(slapd_pid "$WORK/a")" ;;
        refuses) fault_proxy_stop a > /dev/null ;;
        drops) fault_proxy_stop a > /dev/null
               fault_proxy_start a "127.0.0.1:${SA##*:}" --listen "127.0.0.1:$PA" \
                   --reset-share 1 --reset-after 100 > /dev/null ;;
    esac
}

heal() { # FAULT
    case $1 in
        dies) rm -f "$WORK/a/slapd.pid"; fault_slapd_restart "$WORK/a" ;;
        sigstop) kill -CONT "$(slapd_pid "$WORK/a")" ;;
        refuses|drops) fault_proxy_stop a > /dev/null
               fault_proxy_start a "127.0.0.1:${SA##*:}" --listen "127.0.0.1:$PA" > /dev/null ;;
    esac
}

# The back-end's log lines on the servers' state from the fault on, as STATE lines.
server_state() { # FAULT HH:MM:SS.NNN-of-the-fault
    grep -E 'served by|marked bad|trying primary|still fails|no answer and not a byte|lost:|lost;|is now offline|back online' "$BELOG" |
        awk -v f="$1" -v w0="$2" '
        function ms(t,  a) { split(t, a, ":"); return (a[1] * 3600 + a[2] * 60 + a[3]) * 1000 }
        { match($0, /[0-9][0-9]:[0-9][0-9]:[0-9][0-9]\.[0-9]+/); t = ms(substr($0, RSTART, RLENGTH))
          if (t < ms(w0)) next
          sub(/^.*\(0x[0-9a-f]+\): */, "")
          printf "STATE failover/%s +%d ms %s\n", f, t - ms(w0), $0 }' | head -n 12
}

# What `sssctl domain-status --servers` says while B serves: quoted as STATE lines, and
# the two states as figures (sssctl_a, sssctl_b). Fails unless B is active and A not working.
SSSCTL_A=none SSSCTL_B=none
sssctl_view() { # FAULT
    local json
    "$SBIN/sssctl" domain-status "$DOM" --servers 2>&1 | head -n 8 |
        sed "s|^|STATE failover/$1 +sssctl |"
    json=$("$SBIN/sssctl" domain-status "$DOM" --servers --json 2>/dev/null)
    read -r SSSCTL_A SSSCTL_B < <(python3 -c '
import json, sys
try:
    s = {x["uri"].rsplit(":", 1)[-1]: x["state"].replace(" ", "_") for x in json.loads(sys.argv[1])["servers"]}
except Exception:
    s = {}
print(s.get(sys.argv[2], "none"), s.get(sys.argv[3], "none"))' "$json" "$PA" "$PB")
    [ "$SSSCTL_A" = not_working ] && [ "$SSSCTL_B" = active ]
}

scenario() { # FAULT
    local fault=$1 r t0 t1 wall0 mark crashes recover=none failback=none wrong=0 failed=0 tries=0 ok=1 worst=0 \
          tl0 tl1
    start_fresh || { echo "RESULT failover/$fault fail (sssd did not start)"; FAILED=1; return; }
    r=$(lookup $NEXT); NEXT=$((NEXT + 1))
    if [ "$r" != ok ] || [ "$(serving)" != "$PA" ]; then
        echo "RESULT failover/$fault fail (no first answer from A: $r, served by $(serving))"
        FAILED=1; stop_sssd; return
    fi
    mark=$(fault_crash_mark)
    wall0=$(date +%H:%M:%S.%N)
    inject "$fault"
    t0=$(now_ms)
    while [ $(( $(now_ms) - t0 )) -lt 60000 ]; do
        tl0=$(now_ms); r=$(lookup $NEXT); tl1=$(now_ms); NEXT=$((NEXT + 1))
        tries=$((tries + 1))
        [ $((tl1 - tl0)) -gt "$worst" ] && worst=$((tl1 - tl0))
        case $r in
            ok) recover=$(( tl1 - t0 )); break ;;
            wrong*) wrong=$((wrong + 1)); echo "  $fault: $r" ;;
            *) failed=$((failed + 1)) ;;
        esac
    done
    sssctl_view "$fault" || ok=0
    heal "$fault"
    t1=$(now_ms)
    if [ "$recover" != none ]; then
        while [ $(( $(now_ms) - t1 )) -lt "$FAILBACK_BOUND_MS" ]; do
            r=$(lookup $NEXT); NEXT=$((NEXT + 1))
            [ "${r%%:*}" = wrong ] && wrong=$((wrong + 1))
            if [ "$r" = ok ] && [ "$(serving)" = "$PA" ]; then
                failback=$(( $(now_ms) - t1 )); break
            fi
            sleep 0.5
        done
    fi
    crashes=$(fault_crashes_since "$mark")
    server_state "$fault" "$wall0"
    [ "$crashes" = 0 ] || ok=0
    [ "$recover" = none ] && ok=0
    [ "$recover" != none ] && [ "$recover" -gt "$RECOVER_BOUND_MS" ] && ok=0
    [ "$wrong" -gt 0 ] && ok=0
    [ "$failback" = none ] && ok=0
    echo "RESULT failover/$fault $([ $ok = 1 ] && echo pass || echo fail)" \
         "recover_ms=$recover failback_ms=$failback lookups_before_recovery=$tries" \
         "wrong=$wrong crashes=$crashes failed=$failed slowest_lookup_ms=$worst" \
         "sssctl_a=$SSSCTL_A sssctl_b=$SSSCTL_B" \
         "(bounds: recover ${RECOVER_BOUND_MS} ms, fail back ${FAILBACK_BOUND_MS} ms)"
    [ $ok = 1 ] || FAILED=1
    stop_sssd
}

for f in ${FAULTS:-dies sigstop refuses drops}; do
    scenario "$f"
done
exit $FAILED
