#!/bin/bash
# Benchmark: start-up time of the whole star and its idle CPU use. Prints figures; never
# fails on timing. Usage: bench_startup.sh PREFIX [RUNS] [IDLE_SECONDS]   (as root)
#  - "sssd -D" wall time: from exec until the detaching parent returns, which it does only
#    once every service has registered with the monitor;
#  - the monitor's own figure: its log line "All N services registered X ms after start-up";
#  - idle CPU: utime+stime of every process of the suite over IDLE_SECONDS.
set -u
PREFIX=$(cd "$1" && pwd)
RUNS=${2:-10}
IDLE=${3:-30}
. "$(dirname "$0")/../intg/lib.sh"

write_conf <<CONF
[sssd]
services = nss, pam, sudo
domains = ldap.test, corp.example
[nss]
[pam]
[sudo]
[domain/ldap.test]
id_provider = ldap
ldap_uri = ldap://127.0.0.1:3899
[domain/corp.example]
id_provider = ldap
ldap_uri = ldap://127.0.0.1:3898
CONF

stop_sssd
wall=()
internal=()
for i in $(seq "$RUNS"); do
    : > "$LOGS/sssd.log" 2>/dev/null || true
    t0=$(date +%s%N)
    start_sssd || { echo "start failed"; exit 1; }
    t1=$(date +%s%N)
    wall+=("$(( (t1 - t0) / 1000 ))")
    internal+=("$(grep -o 'registered [0-9.]* ms after start-up' "$LOGS/sssd.log" | tail -n1 | awk '{print $2}')")
    [ "$i" -lt "$RUNS" ] && stop_sssd
done

stats() { sort -n | awk '{a[NR]=$1} END {printf "median %.1f  min %.1f  max %.1f  (n=%d)", a[int((NR+1)/2)], a[1], a[NR], NR}'; }
echo "start-up, sssd -D wall time (ms):          $(printf '%s\n' "${wall[@]}" | awk '{print $1/1000}' | stats)"
echo "start-up, monitor to all registered (ms):  $(printf '%s\n' "${internal[@]}" | stats)"

cpu_ticks() { local t=0 p; for p in $(all_suite_pids); do
    t=$(( t + $(awk '{print $14 + $15}' "/proc/$p/stat" 2>/dev/null || echo 0) )); done; echo $t; }
c0=$(cpu_ticks); s0=$(now_ms)
sleep "$IDLE"
c1=$(cpu_ticks); s1=$(now_ms)
hz=$(getconf CLK_TCK)
awk -v c=$((c1 - c0)) -v hz="$hz" -v ms=$((s1 - s0)) -v n="$(all_suite_pids | wc -l)" \
    'BEGIN { printf "idle CPU over %.0f s, %d processes: %d ticks = %.3f%% of one CPU\n", ms/1000, n, c, 100*c/hz/(ms/1000) }'
stop_sssd
