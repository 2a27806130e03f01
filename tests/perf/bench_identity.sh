#!/bin/bash
# Benchmark of the identity path (the identity issue's table): a private slapd loaded with
# gen_directory.py's directory, our sssd on it, and bench_nss timing lookups in-process
# through libnss_sss.so.2. Prints figures; never fails on timing.
# Usage: bench_identity.sh PREFIX BENCH_NSS [USERS GROUPS BIG MANY]   (as root)
#   defaults: 100000 20000 50000 5000 (the issue's directory); try 10000 1000 5000 500 first.
set -u
PREFIX=$(cd "$1" && pwd)
BENCH=$2
USERS=${3:-100000}; GROUPS=${4:-20000}; BIG=${5:-50000}; MANY=${6:-5000}
TOP=$(cd "$(dirname "$0")/../.." && pwd)
. "$TOP/tests/intg/lib.sh"
. "$TOP/tests/intg/nss_ns.sh"
. "$TOP/tests/lib/slapd.sh"
LIB=$PREFIX/lib/libnss_sss.so.2
WORK=$(mktemp -d /tmp/sssd-bench.XXXXXX)
trap 'stop_sssd; slapd_stop "$WORK/ldap" 2>/dev/null; rm -rf "$WORK"' EXIT

echo "directory: $USERS users, $GROUPS groups, a group of $BIG, a user in $MANY groups"
t0=$(now_ms)
python3 "$TOP/tests/perf/gen_directory.py" "$USERS" "$GROUPS" "$BIG" "$MANY" > "$WORK/dir.ldif"
mkdir -p "$WORK/ldap"
URI=$(SLAPD_LOGLEVEL=none slapd_start "$WORK/ldap" "$WORK/dir.ldif" dc=perf,dc=test) || exit 1
echo "slapd loaded in $(( $(now_ms) - t0 )) ms at $URI"

stop_sssd
rm -rf "$PREFIX/var/lib/sss/db/"* "$PREFIX/var/lib/sss/mc/"*
write_conf <<CONF
[sssd]
services = nss
domains = perf.test
[nss]
[domain/perf.test]
id_provider = ldap
ldap_uri = $URI
ldap_search_base = dc=perf,dc=test
CONF
start_sssd || exit 1

b() { "$BENCH" "$LIB" "$@"; }
echo "--- cold (never seen), then warm through the responder, then memory-cache hits"
b pwnam 2000 user 0
SSS_NSS_USE_MEMCACHE=NO b pwnam1 20000 user000001
b pwnam1 200000 user000001
echo "--- initgroups: cold (users never seen), first initgroups of cached users, warm"
b initgr 1000 user 10000
b pwnam 1000 user 20000 > /dev/null
b initgr 1000 user 20000
SSS_NSS_USE_MEMCACHE=NO b initgr1 20000 user000001
b initgr1 200000 user000001
echo "--- big groups: cold, warm via responder"
b grnam1 1 biggroup
SSS_NSS_USE_MEMCACHE=NO b grnam1 20 biggroup
echo "--- id of a user in $MANY groups: cold, then warm with the memory cache off"
t0=$(date +%s%N); in_nss_ns id manygroups > /dev/null; t1=$(date +%s%N)
echo "id manygroups cold: $(( (t1 - t0) / 1000000 )) ms"
t0=$(date +%s%N); for _ in 1 2 3 4 5 6 7 8 9 10; do SSS_NSS_USE_MEMCACHE=NO in_nss_ns id user000001 > /dev/null; done; t1=$(date +%s%N)
echo "id user000001 warm, memory cache off (whole command incl. namespace set-up): $(( (t1 - t0) / 10000000 )) ms"
echo "--- footprint"
du -sh "$PREFIX/var/lib/sss/db" | sed 's/^/cache on disk: /'
ps -o rss= -p "$(all_suite_pids | tr '\n' ',' | sed 's/,$//')" | awk '{s += $1} END {printf "RSS of all processes: %.1f MB\n", s / 1024}'
