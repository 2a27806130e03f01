#!/bin/bash
# Fault scenario 5: hostile local clients of sssd_nss, all at once, each from its own
# unprivileged uid (setpriv): 3,000 idle connections held open, 200 connections trickling a
# request one byte at a time and never finishing it, malformed requests in a loop (a 1 GiB
# length claim, random bytes, ...), and four uids flooding well-formed requests back to
# back. Meanwhile a bystander (another unprivileged uid) looks up cached users through the
# responder, a fresh connection each time, as libnss_sss does.
# Must hold: the bystander's p99 under 100 ms and none of its lookups failing; sssd_nss's
# resident memory bounded (under RSS_BOUND_MB) and back near its start after the attack;
# no crash. The same bystander run before the attack gives the baseline.
# Prints "RESULT hostile/clients pass|fail p99_ms=... ..." once.
# Usage: scenario_hostile.sh PREFIX   (as root; FAULT_SHORT=1: a shorter attack)
set -u
PREFIX=$(cd "$1" && pwd)
TOP=$(cd "$(dirname "$0")/../.." && pwd)
SCENARIO=hostile
. "$TOP/tests/faults/scenario_env.sh"
command -v setpriv >/dev/null && command -v prlimit >/dev/null \
    || { echo "setpriv/prlimit missing: skipped"; exit 77; }

DOM=hostile.test
S=dc=hostile,dc=test
NUSERS=100
PY=/usr/bin/python3              # not a per-user shim: the attackers are other uids
SECS=${FAULT_SHORT:+15}
SECS=${SECS:-60}
P99_BOUND_MS=100
RSS_BOUND_MB=200
chmod 0755 "$WORK"
PIDS=
fault_on_exit '[ -n "$PIDS" ] && kill $PIDS 2>/dev/null; wait 2>/dev/null'

{
    ldif_base $S
    for i in $(seq 1 $NUSERS); do
        ldif_user $S "$(printf 'hu%04d' "$i")" $((38000 + i)) 48000 "/home/hu$i"
    done
} > "$WORK/data.ldif"
mkdir -p "$WORK/ldap"
URI=$(slapd_start "$WORK/ldap" "$WORK/data.ldif" $S) || exit 1
cp "$TOP/tests/intg/resp_hostile.py" "$WORK/hostile.py" && chmod 0755 "$WORK/hostile.py"
mkdir -p "$WORK/u" && chmod 0777 "$WORK/u"

rm -f "$LOGS/sssd.log" "$LOGS/sssd_nss.log"
write_conf <<CONF
[sssd]
services = nss
domains = $DOM

[nss]
fd_limit = 8192

[domain/$DOM]
id_provider = ldap
ldap_uri = $URI
ldap_search_base = $S
CONF
start_sssd && wait_name "sssd.domain_hostile_2etest" 10000 && wait_name sssd.nss 5000 \
    || { echo "RESULT hostile/clients fail (sssd did not start)"; exit 1; }
NAMES=$(for i in $(seq 1 40); do printf 'hu%04d ' "$i"; done)
for n in $NAMES; do in_nss_ns getent passwd "$n" >/dev/null; done
SOCK=$PIPES/nss
NSS_PID=$(service_pid sssd_nss)
rss_mb() { awk '/^VmRSS/ { printf "%d", $2 / 1024 }' "/proc/$NSS_PID/status" 2>/dev/null; }
as_uid() { # UID CMD...
    local uid=$1
    shift
    prlimit --nofile=8192:8192 -- setpriv --reuid="$uid" --regid="$uid" --clear-groups -- "$@"
}
# shellcheck disable=SC2086
bystander() { as_uid 61000 "$PY" "$WORK/hostile.py" "$SOCK" victim "$1" $NAMES; }

rss0=$(rss_mb)
read -r base < <(bystander 5)
mark=$(fault_crash_mark)
as_uid 61001 "$PY" "$WORK/hostile.py" "$SOCK" hold 3000 "$SECS" "$WORK/u/ready" > "$WORK/hold" 2>&1 &
PIDS="$PIDS $!"
as_uid 61002 "$PY" "$WORK/hostile.py" "$SOCK" trickle 200 "$SECS" > "$WORK/trickle" 2>&1 &
PIDS="$PIDS $!"
as_uid 61003 "$PY" "$WORK/hostile.py" "$SOCK" garbage "$SECS" > "$WORK/garbage" 2>&1 &
PIDS="$PIDS $!"
for u in 61004 61005 61006 61007; do
    # shellcheck disable=SC2086
    as_uid $u "$PY" "$WORK/hostile.py" "$SOCK" flood "$SECS" $NAMES > "$WORK/flood.$u" 2>&1 &
    PIDS="$PIDS $!"
done
for _ in $(seq 100); do [ -s "$WORK/u/ready" ] && break; sleep 0.1; done
rss_max=$(rss_mb)
bystander $(( SECS - 5 > 5 ? SECS - 5 : 5 )) > "$WORK/victim" &
vpid=$!
while kill -0 $vpid 2>/dev/null; do
    r=$(rss_mb); [ -n "$r" ] && [ "$r" -gt "$rss_max" ] && rss_max=$r
    sleep 0.5
done
wait $PIDS 2>/dev/null
PIDS=
sleep 2
rss1=$(rss_mb)
under=$(cat "$WORK/victim")
val() { sed -n "s/.*\b$1=\([0-9.]*\).*/\1/p" <<< "$2"; }
p99=$(val p99_ms "$under"); n=$(val n "$under"); vfail=$(val failed "$under")
flooded=$(cat "$WORK"/flood.* | sed -n 's/^answered=\([0-9]*\).*/\1/p' | awk '{ a += $1 } END { print a + 0 }')
crashes=$(fault_crashes_since "$mark")
alive=1; kill -0 "$NSS_PID" 2>/dev/null || alive=0
ok=1
awk -v p="$p99" -v b="$P99_BOUND_MS" 'BEGIN { exit !(p != "" && p <= b) }' || ok=0
[ "${vfail:-1}" = 0 ] && [ "${n:-0}" -gt 0 ] && [ "$crashes" = 0 ] && [ "$alive" = 1 ] || ok=0
[ -n "$rss_max" ] && [ "$rss_max" -le "$RSS_BOUND_MB" ] || ok=0
echo "RESULT hostile/clients $([ $ok = 1 ] && echo pass || echo fail) wrong=0 crashes=$crashes" \
     "p99_ms=$p99 p50_ms=$(val p50_ms "$under") max_ms=$(val max_ms "$under")" \
     "bystander_lookups=$n bystander_failed=$vfail baseline_p99_ms=$(val p99_ms "$base")" \
     "rss_mb_start=$rss0 rss_mb_max=$rss_max rss_mb_after=$rss1 flood_answered=$flooded" \
     "seconds=$SECS (hold: $(cat "$WORK/hold"); trickle: $(cat "$WORK/trickle");" \
     "garbage: $(cat "$WORK/garbage"); bounds: p99 $P99_BOUND_MS ms, RSS $RSS_BOUND_MB MB)"
[ $ok = 1 ] || exit 1
exit 0
