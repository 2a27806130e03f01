#!/bin/bash
# Fault scenario 7: soak. Mixed load for SOAK_SECS (full run 1,800 s; short 40 s) through
# the real glibc path: cold lookups (users never asked), warm ones through the responder
# and through the memory cache, negative ones (names that do not exist), a group of 2,000
# members, `id` of users in 20 groups, and every 10 s an invalidation (sss_cache -E);
# the directory server is restarted every SOAK_RESTART_SECS (full 300 s; short 15 s).
# The cold lookups cycle through 2,000 users and the negative ones through 500 names, so
# the caches reach their working size within the first third of the run.
# Must hold: no wrong answer, no lookup failing for more than RESTART_GRACE_MS around a
# restart, no crash, and each service's resident memory and open descriptors flat: at the
# end no more than 20 % + 8 MB and 8 descriptors over what it had a third into the run
# (the caches filling up before that is growth, not a leak; start figures are printed too).
# (Logins and sudo are not in the mix yet.)
# Prints "RESULT soak/mixed pass|fail ..." once.
# Usage: scenario_soak.sh PREFIX   (as root; FAULT_SHORT=1: the short form)
set -u
PREFIX=$(cd "$1" && pwd)
TOP=$(cd "$(dirname "$0")/../.." && pwd)
SCENARIO=soak
. "$TOP/tests/faults/scenario_env.sh"

DOM=soak.test
S=dc=soak,dc=test
NUSERS=20000
if [ -n "${FAULT_SHORT:-}" ]; then SOAK_SECS=40; SOAK_RESTART_SECS=15
else SOAK_SECS=${SOAK_SECS:-1800}; SOAK_RESTART_SECS=${SOAK_RESTART_SECS:-300}; fi
PIDS=
fault_on_exit '[ -n "$PIDS" ] && kill $PIDS 2>/dev/null; wait 2>/dev/null'

{
    ldif_base $S
    for i in $(seq 1 $NUSERS); do
        ldif_user $S "$(printf 'su%05d' "$i")" $((50000 + i)) 60000 "/home/su$i"
    done
    ldif_group $S soakbig 60001 $(for i in $(seq 1 2000); do printf 'su%05d ' "$i"; done)
    for g in $(seq 2 21); do
        ldif_group $S "soakg$g" $((60000 + g)) $(for i in $(seq 1 50); do printf 'su%05d ' "$i"; done)
    done
} > "$WORK/data.ldif"
mkdir -p "$WORK/ldap"
URI=$(slapd_start "$WORK/ldap" "$WORK/data.ldif" $S) || exit 1

write_conf <<CONF
[sssd]
services = nss
domains = $DOM

[nss]
memcache_timeout = 30

[domain/$DOM]
id_provider = ldap
ldap_uri = $URI
ldap_search_base = $S
ldap_network_timeout = 3
entry_cache_timeout = 20
# A restart refuses connections for a moment and the domain goes offline: with SSSD's
# default (60 s) every cold lookup until the next try fails; the soak is about what
# survives the cycles, so it tries again after 2 s.
offline_timeout = 2
CONF
start_sssd && wait_name "sssd.domain_soak_2etest" 10000 || { echo "RESULT soak/mixed fail (sssd did not start)"; exit 1; }

want() { local n; n=$(printf 'su%05d' "$1"); echo "$n:*:$((50000 + $1)):60000:$n:/home/su$1:"; }
# One lookup: "END_MS ok|fail|wrong KIND".
one() { # KIND I [env...]
    local kind=$1 i=$2 out r
    shift 2
    out=$( [ $# -gt 0 ] && export "$@"; in_nss_ns timeout 30 getent passwd "$(printf 'su%05d' "$i")" 2>/dev/null)
    if [ -z "$out" ]; then r=fail
    elif [ "$out" = "$(want "$i")" ]; then r=ok
    else r=wrong; echo "$out" >> "$WORK/wrong.txt"; fi
    echo "$(now_ms) $r $kind"
}
for i in $(seq 1 100); do one warm "$i" > /dev/null; done
in_nss_ns getent group soakbig > /dev/null

# Resident memory (KB) and open descriptors of the monitor, the back-end and sssd_nss.
usage() {
    local p n
    for n in monitor be nss; do
        case $n in monitor) p=$(monitor_pid) ;; be) p=$(be_pid $DOM) ;; nss) p=$(service_pid sssd_nss) ;; esac
        printf '%s %s %s\n' "$n" "$(awk '/^VmRSS/ { print $2 }' "/proc/$p/status" 2>/dev/null || echo 0)" \
            "$(ls "/proc/$p/fd" 2>/dev/null | wc -l)"
    done
}
usage > "$WORK/usage.start"
mark=$(fault_crash_mark)
end=$(( $(now_ms) + SOAK_SECS * 1000 ))

stream() { # KIND: until the end, one lookup after the other
    local kind=$1 i=100 r
    while [ "$(now_ms)" -lt "$end" ]; do
        case $kind in
            cold) i=$((i + 1)); [ $i -gt 2100 ] && i=101; one cold $i ;;
            warm) one warm $(( RANDOM % 100 + 1 )) SSS_NSS_USE_MEMCACHE=NO ;;
            mc) one mc $(( RANDOM % 100 + 1 )) ;;
            neg) r=$(in_nss_ns timeout 30 getent passwd "nosuch$((RANDOM % 500))"); echo "$(now_ms) $([ -z "$r" ] && echo ok || echo wrong) neg" ;;
            group) r=$(in_nss_ns timeout 60 getent group soakbig | cut -d: -f4 | tr ',' '\n' | grep -c .)
                   echo "$(now_ms) $([ "$r" = 2000 ] && echo ok || { [ "$r" = 0 ] && echo fail || echo wrong; }) group" ;;
            id) r=$(in_nss_ns timeout 60 id -G su00007 | wc -w)
                echo "$(now_ms) $([ "$r" = 22 ] && echo ok || { [ "$r" -le 1 ] && echo fail || echo wrong; }) id" ;;
        esac
    done > "$WORK/s.$kind"
}
for k in cold warm mc neg group id; do stream $k & PIDS="$PIDS $!"; done
restarts=0; invalidations=0; restart_at=()
next_restart=$(( $(now_ms) + SOAK_RESTART_SECS * 1000 )); next_inval=$(( $(now_ms) + 10000 ))
mid=$(( $(now_ms) + SOAK_SECS * 1000 / 3 ))
while [ "$(now_ms)" -lt "$end" ]; do
    if [ ! -s "$WORK/usage.mid" ] && [ "$(now_ms)" -ge "$mid" ]; then
        usage > "$WORK/usage.mid"
    fi
    if [ "$(now_ms)" -ge "$next_restart" ]; then
        restart_at+=("$(now_ms)")
        fault_slapd_restart "$WORK/ldap" && restarts=$((restarts + 1))
        next_restart=$(( $(now_ms) + SOAK_RESTART_SECS * 1000 ))
    fi
    if [ "$(now_ms)" -ge "$next_inval" ]; then
        "$SBIN/sss_cache" -E && invalidations=$((invalidations + 1))
        next_inval=$(( $(now_ms) + 10000 ))
    fi
    sleep 0.5
done
wait $PIDS 2>/dev/null
PIDS=
sleep 2
usage > "$WORK/usage.end"

# Failures count only outside a grace window after each restart (ldap_network_timeout and
# a reconnect); wrong answers count everywhere.
RESTART_GRACE_MS=8000
total=$(cat "$WORK"/s.* | wc -l)
wrong=$(cat "$WORK"/s.* | awk '$2 == "wrong"' | wc -l)
fails_outside=$(cat "$WORK"/s.* | awk -v r="${restart_at[*]:-}" -v g=$RESTART_GRACE_MS '
    BEGIN { n = split(r, at, " ") }
    $2 == "fail" { inside = 0; for (k = 1; k <= n; k++) if ($1 >= at[k] && $1 <= at[k] + g) inside = 1
                   if (!inside) c++ }
    END { print c + 0 }')
crashes=$(fault_crashes_since "$mark")
[ -s "$WORK/usage.mid" ] || cp "$WORK/usage.start" "$WORK/usage.mid"
growth=$(paste "$WORK/usage.start" "$WORK/usage.mid" "$WORK/usage.end" | awk '{
    rss0 = $2; rssm = $5; fdm = $6; rss1 = $8; fd1 = $9
    bad = (rss1 > rssm * 1.2 + 8192 || fd1 > fdm + 8)
    printf "%s_rss_kb=%d->%d->%d %s_fds=%d->%d%s ", $1, rss0, rssm, rss1, $1, fdm, fd1,
           bad ? "(GREW)" : "" }')
ok=1
[ "$wrong" = 0 ] && [ "$fails_outside" = 0 ] && [ "$crashes" = 0 ] && [ "$total" -gt 0 ] || ok=0
case $growth in *GREW*) ok=0 ;; esac
[ -s "$WORK/wrong.txt" ] && head -3 "$WORK/wrong.txt" | sed 's/^/  wrong answer: /'
echo "RESULT soak/mixed $([ $ok = 1 ] && echo pass || echo fail) wrong=$wrong crashes=$crashes" \
     "seconds=$SOAK_SECS lookups=$total failed_outside_restarts=$fails_outside" \
     "slapd_restarts=$restarts invalidations=$invalidations $growth"
[ $ok = 1 ] || exit 1
exit 0
