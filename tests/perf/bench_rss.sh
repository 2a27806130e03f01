#!/bin/bash
# Where the suite's memory goes after "all users once, empty cache, one client" (the
# rss_after_all_once figure of make perf): a private slapd loaded with gen_directory.py's
# directory, our suite from PREFIX with the perf sssd.conf, a getpwnam of every user once
# through libnss_sss.so.2 (bench_nss, memory cache on), then for each process its RSS, PSS
# and RSS split into anonymous, file and shared pages (/proc/PID/smaps_rollup), and its
# largest mappings by resident size (/proc/PID/smaps, mappings of one file or kind added up).
# make perf's figure is the RSS total: it counts a page shared by two processes (a library,
# the cache file's mdb map) twice; PSS counts it once.
# Usage: bench_rss.sh PREFIX BENCH_NSS [USERS [GROUPS]]   (as root; defaults 10000 2000)
# Environment: BENCH_RSS_MAPS (8): mappings shown per process; BENCH_SCHEMA (rfc2307).
set -u
PREFIX=$(cd "$1" && pwd)
BENCH=$(cd "$(dirname "$2")" && pwd)/$(basename "$2")
USERS=${3:-10000}
NGROUPS=${4:-2000}
MAPS=${BENCH_RSS_MAPS:-8}
SCHEMA=${BENCH_SCHEMA:-rfc2307}
TOP=$(cd "$(dirname "$0")/../.." && pwd)
. "$TOP/tests/intg/lib.sh"
. "$TOP/tests/lib/slapd.sh"
LIB=$PREFIX/lib/libnss_sss.so.2
WORK=$(mktemp -d /tmp/sssd-rss.XXXXXX)
cleanup() {
    stop_sssd
    slapd_stop "$WORK/ldap" 2> /dev/null
    rm -rf "$WORK"
}
trap cleanup EXIT

python3 "$TOP/tests/perf/gen_directory.py" "$USERS" "$NGROUPS" "$USERS" 100 dc=perf,dc=test \
    "$SCHEMA" > "$WORK/dir.ldif"
mkdir -p "$WORK/ldap"
URI=$(SLAPD_LOGLEVEL=none slapd_start "$WORK/ldap" "$WORK/dir.ldif" dc=perf,dc=test) || exit 1

# The sssd.conf of tests/perf/systems/common.sh (write_sssd_conf), as make perf runs us.
write_conf <<CONF
[sssd]
services = nss
domains = perf
[nss]
debug_level = 0
[domain/perf]
debug_level = 0
id_provider = ldap
ldap_uri = $URI
ldap_search_base = dc=perf,dc=test
ldap_schema = $SCHEMA
entry_cache_timeout = 5400
enumerate = false
cache_credentials = false
CONF

start_sssd || exit 1
for _ in $(seq 100); do [ -n "$(be_pid perf)" ] && break; sleep 0.05; done
# The first request waits for the directory connection, as make perf's prime does.
"$BENCH" "$LIB" pwnam1 1 "$(printf 'user%06d' $((USERS - 1)))" > /dev/null
"$BENCH" "$LIB" pwnam "$USERS" user 0 | sed 's/^/all users once: /'

# smaps_rollup in KB: Rss, Pss (each shared page divided among the processes mapping it:
# the process's real share), anonymous, file-backed (Rss - Anonymous: libraries, the cache's
# mdb map, memory-cache files) and shared (pages other processes map too).
rollup() {
    awk '/^Rss:/ {r = $2} /^Pss:/ {p = $2} /^Anonymous:/ {a = $2}
         /^Shared_Clean:|^Shared_Dirty:/ {sh += $2}
         END {printf "%d %d %d %d %d", r, p, a, r - a, sh}' "/proc/$1/smaps_rollup"
}
# The largest mappings by resident KB: heap, stack, anon, or the file's base name.
top_maps() {
    awk '/^[0-9a-f]+-[0-9a-f]+ / {
             name = (NF >= 6) ? $6 : "[anon]"
             sub(/.*\//, "", name)
         }
         /^Rss:/ {rss[name] += $2}
         END {for (n in rss) if (rss[n] > 0) printf "%d %s\n", rss[n], n}' "/proc/$1/smaps" |
        sort -rn | head -n "$MAPS" | awk '{printf "%s %d KB, ", $2, $1}' | sed 's/, $//'
}

echo "--- memory after that (KB)"
printf "  %-10s %8s %8s %8s %8s %8s\n" process rss pss anon file shared
tot=0; tpss=0; tanon=0
for p in $(all_suite_pids); do
    read -r r ps a f s <<< "$(rollup "$p")"
    printf "  %-10s %8d %8d %8d %8d %8d\n" "$(ps -o comm= -p "$p")" "$r" "$ps" "$a" "$f" "$s"
    tot=$((tot + r)); tpss=$((tpss + ps)); tanon=$((tanon + a))
done
printf "  %-10s %8d %8d %8d\n" total "$tot" "$tpss" "$tanon"
mb() { awk -v k="$1" 'BEGIN {printf "%.1f", k / 1024}'; }
echo "RSS of all processes: $(mb "$tot") MB (PSS $(mb "$tpss") MB, anonymous $(mb "$tanon") MB)"
echo "--- largest mappings by resident size"
for p in $(all_suite_pids); do
    echo "  $(ps -o comm= -p "$p"): $(top_maps "$p")"
done
