#!/bin/bash
# How often each process sleeps and is woken for one cold lookup (issue 18: "fewer wake-ups
# per cold lookup: count them for ours and nslcd"). Each system (tests/perf/systems/<sys>.sh:
# ours, nslcd, stock_sssd where it can run) serves a private slapd with gen_directory.py's
# directory; N users never asked before are looked up one after the other with getent
# through glibc; every process of the system is read for its voluntary context switches
# (each one a sleep that ended in a wake-up) before and after, and the client's own come
# from GNU time. An idle window of the same length, with no lookup, is measured the same
# way and printed beside (timers that fire whatever the load).
# A count, not a timing: load on the machine changes involuntary switches, not these.
# Prints one table a system: process, wake-ups per lookup, idle wake-ups per lookup-time, and
# CPU time per lookup (user + system from /proc/PID/stat: clock ticks, so use N >= 500 for a
# figure to ~20 us), slapd's too (over the whole run): CPU, like the wake-ups, swings much
# less with the machine's load than times do.
# Usage: bench_wakeups.sh PREFIX [N] [SYSTEMS]   (root; default N=50, SYSTEMS "ours nslcd")
set -u
PREFIX=$(cd "$1" && pwd)
N=${2:-50}
SYSTEMS=${3:-ours nslcd}
HERE=$(cd "$(dirname "$0")" && pwd)
TOP=$(cd "$HERE/../.." && pwd)

if [ "${BW_INNER:-}" = 1 ]; then
    # Inside a system's namespace: $LOAD_CTL pids lists its processes.
    # Every thread counts (nslcd answers from a pool of threads; sssd_be hashes passwords
    # in one).
    counts() { # -> "comm total" lines, voluntary switches summed per process name
        local p t name
        for p in $("$LOAD_CTL" pids); do
            name=$(awk '/^Name:/ { print $2 }' "/proc/$p/status" 2>/dev/null) || continue
            for t in /proc/"$p"/task/*/status; do
                awk -v n="$name" '/^voluntary_ctxt_switches:/ { print n, $2 }' "$t" 2>/dev/null
            done
        done | awk '{ s[$1] += $2 } END { for (k in s) print k, s[k] }' | LC_ALL=C sort
    }
    # -> "comm ticks" lines: CPU time (user + system, clock ticks) summed per process name.
    cpus() {
        local p
        for p in $("$LOAD_CTL" pids); do
            awk '{ n = $2; gsub(/[()]/, "", n); sub(/^.*\) /, ""); print n, $12 + $13 }' \
                "/proc/$p/stat" 2>/dev/null
        done | awk '{ s[$1] += $2 } END { for (k in s) print k, s[k] }' | LC_ALL=C sort
    }
    # One warm-up lookup of another user, so one-time work of the first request is not counted.
    getent passwd user009999 > /dev/null
    sleep 0.5
    counts > "$BW_OUT.before"
    cpus > "$BW_OUT.cpu0"
    t0=$(date +%s%N)
    : > "$BW_OUT.client"
    for i in $(seq 1 "$N"); do
        /usr/bin/time -f "%w" -a -o "$BW_OUT.client" getent passwd "$(printf 'user%06d' "$i")" \
            > /dev/null || echo "lookup $i failed" >&2
    done
    t1=$(date +%s%N)
    counts > "$BW_OUT.after"
    cpus > "$BW_OUT.cpu1"
    # The idle window: as long as the lookups took.
    sleep "$(awk -v d=$(( t1 - t0 )) 'BEGIN { printf "%.3f", d / 1e9 }')"
    counts > "$BW_OUT.idle"
    echo "$(( (t1 - t0) / 1000000 ))" > "$BW_OUT.ms"
    exit 0
fi

[ "$(id -u)" = 0 ] || { echo "bench_wakeups.sh: needs root"; exit 77; }
[ -x /usr/bin/time ] || { echo "SKIP: no GNU time (/usr/bin/time)"; exit 77; }
. "$TOP/tests/lib/slapd.sh"
slapd_available || { echo "SKIP: no slapd"; exit 77; }
WORK=$(mktemp -d /tmp/sssd-wakeups.XXXXXX)
chmod 0755 "$WORK"
trap 'slapd_stop "$WORK/ldap" 2> /dev/null; rm -rf "$WORK"' EXIT
BASEDN=dc=perf,dc=test
python3 "$HERE/gen_directory.py" 10000 100 100 10 "$BASEDN" rfc2307 > "$WORK/dir.ldif" || exit 1
mkdir -p "$WORK/ldap"
URI=$(SLAPD_LOGLEVEL=none slapd_start "$WORK/ldap" "$WORK/dir.ldif" "$BASEDN") || exit 1
slapd_ticks() { awk '{ sub(/^.*\) /, ""); print $12 + $13 }' "/proc/$(slapd_pid "$WORK/ldap")/stat"; }

for sys in $SYSTEMS; do
    runner=$HERE/systems/$sys.sh
    if ! why=$(PREFIX=$PREFIX bash "$runner" available 2>&1); then
        echo "== $sys: skipped ($(echo "$why" | tail -n 1))"
        continue
    fi
    PREFIX=$PREFIX bash "$runner" prepare "$WORK/$sys" > "$WORK/$sys.prepare" 2>&1 ||
        { echo "== $sys: skipped (prepare failed)"; continue; }
    out=$WORK/$sys.out
    s0=$(slapd_ticks)
    if ! PREFIX=$PREFIX BW_INNER=1 BW_OUT=$out bash "$runner" run "$WORK/$sys" "$URI" "$BASEDN" \
            rfc2307 -- bash "$0" "$PREFIX" "$N" > "$WORK/$sys.log" 2>&1; then
        echo "== $sys: failed"; tail -n 5 "$WORK/$sys.log"; continue
    fi
    echo "== $sys: $N cold getpwnam one after the other in $(cat "$out.ms") ms"
    printf '  %-16s %12s %12s %16s\n' process "per lookup" "idle, same" "CPU us/lookup"
    LC_ALL=C join -a 1 -a 2 -e 0 -o 0,1.2,2.2 "$out.before" "$out.after" | while read -r name b a; do
        i=$(awk -v n="$name" '$1 == n { print $2 }' "$out.idle")
        c0=$(awk -v n="$name" '$1 == n { print $2 }' "$out.cpu0")
        c1=$(awk -v n="$name" '$1 == n { print $2 }' "$out.cpu1")
        printf '  %-16s %12.2f %12.2f %16.0f\n' "$name" "$(awk -v a="$a" -v b="$b" -v n="$N" \
            'BEGIN { print (a - b) / n }')" "$(awk -v i="${i:-$a}" -v a="$a" -v n="$N" \
            'BEGIN { print (i - a) / n }')" "$(awk -v a="${c1:-0}" -v b="${c0:-0}" -v n="$N" \
            -v hz="$(getconf CLK_TCK)" 'BEGIN { print (a - b) * 1e6 / hz / n }')"
    done
    # slapd runs outside the system's pid namespace: its CPU over the whole run (start-up and
    # the warm-up lookup included), its wake-ups not counted.
    printf '  %-16s %12s %12s %16.0f\n' "slapd (server)" - - "$(awk -v a="$(slapd_ticks)" \
        -v b="$s0" -v n="$N" -v hz="$(getconf CLK_TCK)" 'BEGIN { print (a - b) * 1e6 / hz / n }')"
    printf '  %-16s %12.2f\n' "client (getent)" "$(awk '{ s += $1 } END { print s / NR }' "$out.client")"
done
