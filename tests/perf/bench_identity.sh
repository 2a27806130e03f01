#!/bin/bash
# Benchmark of the identity path (the identity issue's table): a private slapd loaded with
# gen_directory.py's directory, our sssd on it, and bench_nss timing lookups in-process
# through libnss_sss.so.2. Prints figures; never fails on timing.
# Usage: bench_identity.sh PREFIX BENCH_NSS [USERS NGROUPS BIG MANY]   (as root)
#   defaults: 100000 20000 50000 5000 (the issue's directory); try 10000 1000 5000 500 first.
#   USERS must be at least 10000 (the scenarios use distinct slices of the first 10,000).
# Environment: BENCH_SCHEMA=rfc2307bis for member DNs (default rfc2307), BENCH_RUNS (3),
#   BENCH_STALL=0 to skip the event-loop stall measurement (needs `perf` and tracepoints),
#   BENCH_ALL=0 to skip "all users once".
# Every cold figure is over users never looked up before (distinct slices of the directory);
# every "empty cache" restart wipes the cache and the memory cache.
set -u
PREFIX=$(cd "$1" && pwd)
BENCH=$(cd "$(dirname "$2")" && pwd)/$(basename "$2")
USERS=${3:-100000}; NGROUPS=${4:-20000}; BIG=${5:-50000}; MANY=${6:-5000}
SCHEMA=${BENCH_SCHEMA:-rfc2307}
RUNS=${BENCH_RUNS:-3}
TOP=$(cd "$(dirname "$0")/../.." && pwd)
. "$TOP/tests/intg/lib.sh"
. "$TOP/tests/intg/nss_ns.sh"
. "$TOP/tests/lib/slapd.sh"
LIB=$PREFIX/lib/libnss_sss.so.2
WORK=$(mktemp -d /tmp/sssd-bench.XXXXXX)
STALL_PID=
cleanup() {
    stall_stop > /dev/null 2>&1
    stop_sssd
    slapd_stop "$WORK/ldap" 2>/dev/null
    rm -rf "$WORK"
}
trap cleanup EXIT

echo "directory: $USERS users, $NGROUPS groups, a group of $BIG, a group of 5000," \
     "a user in $MANY groups; schema $SCHEMA"
t0=$(now_ms)
python3 "$TOP/tests/perf/gen_directory.py" "$USERS" "$NGROUPS" "$BIG" "$MANY" dc=perf,dc=test \
    "$SCHEMA" > "$WORK/dir.ldif"
mkdir -p "$WORK/ldap"
URI=$(SLAPD_LOGLEVEL=none slapd_start "$WORK/ldap" "$WORK/dir.ldif" dc=perf,dc=test) || exit 1
echo "slapd loaded in $(( $(now_ms) - t0 )) ms at $URI"

write_conf <<CONF
[sssd]
services = nss
domains = perf.test
[nss]
[domain/perf.test]
id_provider = ldap
ldap_uri = $URI
ldap_search_base = dc=perf,dc=test
ldap_schema = $SCHEMA
CONF

# --- the back-end's event-loop stalls: the gaps between one epoll_wait's return and the
# next call on the main loop, traced with perf's syscall tracepoints. One trace per sssd_be.
STALL_N=0
stall_start() {
    [ "${BENCH_STALL:-1}" = 1 ] && command -v perf > /dev/null || return 0
    local pid
    pid=$(be_pid perf.test)
    [ -n "$pid" ] || return 0
    STALL_N=$((STALL_N + 1))
    perf record -q -o "$WORK/stall.$STALL_N.data" \
        -e 'syscalls:sys_enter_epoll_wait,syscalls:sys_exit_epoll_wait' \
        -e 'syscalls:sys_enter_epoll_pwait,syscalls:sys_exit_epoll_pwait' \
        -e 'syscalls:sys_enter_poll,syscalls:sys_exit_poll' \
        -p "$pid" > "$WORK/stall.$STALL_N.log" 2>&1 &
    STALL_PID=$!
    sleep 0.5
}
stall_stop() {
    [ -n "$STALL_PID" ] || return 0
    kill -INT "$STALL_PID" 2>/dev/null
    wait "$STALL_PID" 2>/dev/null
    STALL_PID=
}
stall_report() { # the longest gaps over every trace
    local f
    for f in "$WORK"/stall.*.data; do
        [ -f "$f" ] && perf script -i "$f" -F tid,time,event,trace 2>/dev/null
    done | python3 -c '
import re, sys
last = {}        # tid -> time the last wait returned
gaps = []
for line in sys.stdin:
    m = re.match(r"\s*(\d+)\s+([\d.]+):\s+syscalls:sys_(enter|exit)_(\w+):", line)
    if not m:
        continue
    tid, t, kind = m.group(1), float(m.group(2)), m.group(3)
    if kind == "exit":
        last[tid] = t
    elif tid in last:
        gaps.append((t - last.pop(tid), t))
gaps.sort(reverse=True)
if not gaps:
    print("event-loop stall: no trace (perf missing or no tracepoints)")
else:
    print("longest event-loop stalls of sssd_be (ms): " +
          " ".join("%.1f" % (g * 1e3) for g, _ in gaps[:8]) +
          "  (%d loop turns traced)" % len(gaps))
'
}

restart_empty() { # stop, wipe the caches, start, trace the new back-end
    stall_stop
    stop_sssd
    rm -rf "$PREFIX/var/lib/sss/db/"* "$PREFIX/var/lib/sss/mc/"*
    start_sssd || exit 1
    for _ in $(seq 100); do [ -n "$(be_pid perf.test)" ] && break; sleep 0.05; done
    stall_start
    # the first request waits for the connection to the directory: not part of any figure
    "$BENCH" "$LIB" pwnam1 1 manygroups > /dev/null
}

b() { "$BENCH" "$LIB" "$@"; }
nomc() { SSS_NSS_USE_MEMCACHE=NO "$@"; }
expire_all() { "$PREFIX/sbin/sss_cache" -E; }

# In the NSS namespace: times N runs of a whole command inside one shell, prints the median
# in ms (the namespace set-up is not timed). ENV is exported once: each run times the
# command's own fork and exec only (an env(1) wrapper per run added its exec, ~0.5 ms).
ns_time() { # ns_time N ENV command...
    local n=$1 envs=$2; shift 2
    in_nss_ns bash -c '
        n=$1; envs=$2; shift 2; ts=()
        export $envs
        for ((i = 0; i < n; i++)); do
            t0=$EPOCHREALTIME; "$@" > /dev/null; t1=$EPOCHREALTIME
            ts+=( $(( (${t1/./} - ${t0/./}) )) )
        done
        printf "%s\n" "${ts[@]}" | sort -n | awk "{a[NR] = \$1} END {printf \"%.1f\", a[int((NR + 1) / 2)] / 1000}"
    ' ns-time "$n" "$envs" "$@"
}

restart_empty
echo "--- cold getpwnam (never seen): $RUNS batches of 1000 users"
for r in $(seq 0 $((RUNS - 1))); do b pwnam 1000 user $((r * 1000)); done
echo "--- refresh of expired entries (sss_cache -E, then getpwnam of 1000 cached users)"
for r in $(seq "$RUNS"); do expire_all; nomc b pwnam 1000 user 0; done
echo "--- warm getpwnam through the responder (memory cache off)"
for r in $(seq "$RUNS"); do nomc b pwnam1 20000 user000001; done
echo "--- memory-cache hit getpwnam"
for r in $(seq "$RUNS"); do b pwnam1 200000 user000001; done
echo "--- cold initgroups (users never seen, ~10 groups each)"
for r in $(seq 0 $((RUNS - 1))); do b initgr 1000 user $((3000 + r * 1000)); done
echo "--- first initgroups of already cached users"
for r in $(seq 0 $((RUNS - 1))); do
    b pwnam 1000 user $((6000 + r * 1000)) > /dev/null
    b initgr 1000 user $((6000 + r * 1000))
done
echo "--- warm initgroups through the responder (memory cache off), memory-cache hit"
for r in $(seq "$RUNS"); do nomc b initgr1 20000 user000001; done
for r in $(seq "$RUNS"); do b initgr1 200000 user000001; done
echo "--- throughput, memory cache off, 8 client processes (1000 warm users)"
for r in $(seq "$RUNS"); do nomc b tput 20000 user 0 8 1000; done
for r in $(seq "$RUNS"); do nomc b tputi 20000 user 3000 8 1000; done
echo "--- id of a cached user, memory cache off, whole command (median of 20)"
echo "id user000001 warm: $(ns_time 20 SSS_NSS_USE_MEMCACHE=NO id user000001) ms"

echo "--- big groups: cold (empty cache), expired (sss_cache -E), warm via responder"
echo "    and id of a user in $MANY groups, cold (empty cache; then warm, memory cache off)"
for r in $(seq "$RUNS"); do
    restart_empty
    b grnam1 1 group5k | sed 's/^/group5k cold:     /'
    b grnam1 1 biggroup | sed 's/^/biggroup cold:    /'
    echo "id manygroups cold: $(ns_time 1 X=1 id manygroups) ms"
    echo "id manygroups warm: $(ns_time 5 SSS_NSS_USE_MEMCACHE=NO id manygroups) ms"
    expire_all
    nomc b grnam1 1 group5k | sed 's/^/group5k expired:  /'
    nomc b grnam1 1 biggroup | sed 's/^/biggroup expired: /'
    nomc b grnam1 20 group5k | sed 's/^/group5k warm:     /'
    nomc b grnam1 20 biggroup | sed 's/^/biggroup warm:    /'
done

if [ "${BENCH_ALL:-1}" = 1 ]; then
    echo "--- all $USERS users once, empty cache, one client"
    restart_empty
    b pwnam "$USERS" user 0
    stall_stop
    echo "--- footprint after that"
    db=$PREFIX/var/lib/sss/db
    echo "cache on disk: $(du -sk "$db" | cut -f1) KB allocated, $(du -sk --apparent-size "$db" | cut -f1) KB apparent" \
         "($(du -sk "$db" | awk -v u="$USERS" '{printf "%.2f", $1 / u}') KB per user)"
    for p in $(all_suite_pids); do
        printf "  %-10s %6d KB\n" "$(ps -o comm= -p "$p")" "$(ps -o rss= -p "$p")"
    done
    ps -o rss= -p "$(all_suite_pids | tr '\n' ',' | sed 's/,$//')" |
        awk '{s += $1} END {printf "RSS of all processes: %.1f MB\n", s / 1024}'
fi
stall_stop
stall_report
