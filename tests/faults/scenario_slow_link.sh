#!/bin/bash
# Fault scenario 2: a slow, lossy link to the directory (the kernel has no netem here, so a
# user-space proxy makes it): fault_proxy.py holds every chunk 300 ms and resets a share of
# the connections (30 %, seeded) after 200 bytes of the server's answer. Connections expire
# after 3 s (ldap_connection_expire_timeout), so a run opens many of them and meets resets
# all along, not only on its first connection.
# Must hold: cold lookups (users never seen) are answered right (at least 90 % of them on
# the first try; none wrong), the domain does not get stuck offline (a last cold lookup
# after the run is answered within RECOVER_BOUND_MS), and cached answers stay fast (the
# slowest of 50 lookups of users answered in the run, through sssd_nss with the memory
# cache off, under 1 s).
# Prints "RESULT slow_link pass|fail recover_ms=N ..." (recover_ms: from the end of the
# lossy run to the first cold answer after it) and exits 1 on failure.
# A crash (a service of the suite killed by a signal or exiting with an error, from the
# monitor's log) fails it.
# Usage: scenario_slow_link.sh PREFIX   (as root; FAULT_SHORT=1: 15 cold lookups, not 30)
set -u
PREFIX=$(cd "$1" && pwd)
TOP=$(cd "$(dirname "$0")/../.." && pwd)
SCENARIO=slow
. "$TOP/tests/faults/scenario_env.sh"

DOM=slow.test
S=dc=slowlink,dc=test
N=${SLOW_LINK_LOOKUPS:-30}
[ -n "${FAULT_SHORT:-}" ] && N=15
RECOVER_BOUND_MS=30000
fault_on_exit 'fault_proxy_stop lossy > /dev/null'

{
    ldif_base $S
    for i in $(seq 1 200); do
        ldif_user $S "sl$i" $((35000 + i)) 45000 "/home/sl$i"
    done
} > "$WORK/data.ldif"
mkdir -p "$WORK/ldap"
URI=$(slapd_start "$WORK/ldap" "$WORK/data.ldif" $S) || exit 1
P=$(fault_proxy_start lossy "127.0.0.1:${URI##*:}" --chunk-delay-ms 300 --reset-share 0.3 \
    --reset-after 200 --seed 4) || exit 1

rm -f "$LOGS/sssd_be_$DOM.log"
write_conf <<CONF
[sssd]
services = nss
domains = $DOM

[domain/$DOM]
id_provider = ldap
ldap_uri = ldap://127.0.0.1:$P
ldap_search_base = $S
ldap_network_timeout = 5
ldap_search_timeout = 10
ldap_connection_expire_timeout = 3
offline_timeout = 5
debug_level = 6
CONF
start_sssd && wait_name sssd.domain_slow_2etest 10000 || { echo "RESULT slow_link fail (sssd)"; exit 1; }

lookup() { # I -> ok | wrong: ... | fail
    local out want="sl$1:*:$((35000 + $1)):45000:sl$1:/home/sl$1:"
    out=$(SSS_NSS_USE_MEMCACHE=NO in_nss_ns timeout 60 getent passwd "sl$1")
    if [ -z "$out" ]; then echo fail
    elif [ "$out" = "$want" ]; then echo ok
    else echo "wrong: $out"; fi
}

mark=$(fault_crash_mark)
ok=0; wrong=0; failed=0; times=(); answered=()
for i in $(seq 1 "$N"); do
    t0=$(now_ms); r=$(lookup "$i"); t1=$(now_ms)
    times+=($((t1 - t0)))
    case $r in
        ok) ok=$((ok + 1)); answered+=("$i") ;;
        wrong*) wrong=$((wrong + 1)); echo "  $r" ;;
        *) failed=$((failed + 1)) ;;
    esac
done
cold=$(printf '%s\n' "${times[@]}" | sort -n | awk '{a[NR]=$1} END {printf "p50 %d ms, max %d ms", a[int((NR+1)/2)], a[NR]}')

# Not stuck offline: one more cold lookup after the run, asked again every 200 ms until it
# is answered (the same user: the directory holds 200).
t0=$(now_ms); recover=none
while [ $(( $(now_ms) - t0 )) -lt "$RECOVER_BOUND_MS" ]; do
    r=$(lookup $((N + 1)))
    [ "$r" = ok ] && { recover=$(( $(now_ms) - t0 )); break; }
    [ "${r%%:*}" = wrong ] && { wrong=$((wrong + 1)); echo "  $r"; }
    sleep 0.2
done

# Cached answers through sssd_nss (memory cache off) while the link stays bad.
worst=0
for k in $(seq 50); do
    t0=$(now_ms)
    out=$(SSS_NSS_USE_MEMCACHE=NO in_nss_ns getent passwd "sl${answered[$(( k % ${#answered[@]} ))]}")
    t1=$(now_ms)
    [ -n "$out" ] || worst=999999
    [ $((t1 - t0)) -gt "$worst" ] && worst=$((t1 - t0))
done
stats=$(fault_proxy_stop lossy)
went_offline=$(grep -c "is now offline" "$LOGS/sssd_be_$DOM.log")
crashes=$(fault_crashes_since "$mark")

pass=1
[ $((ok * 10)) -ge $((N * 9)) ] || pass=0
[ "$wrong" = 0 ] || pass=0
[ "$recover" != none ] || pass=0
[ "$worst" -lt 1000 ] || pass=0
[ "$crashes" = 0 ] || pass=0
echo "RESULT slow_link $([ $pass = 1 ] && echo pass || echo fail) recover_ms=$recover" \
     "wrong=$wrong crashes=$crashes cold_answered=$ok/$N failed=$failed cold_$cold" \
     "slowest_cached_ms=$worst went_offline=$went_offline proxy: $stats"
[ $pass = 1 ]
