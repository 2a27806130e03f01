#!/bin/bash
# System calls that sssd_be makes per cold lookup, by name: a count, not a timing, so it does
# not move with the machine's load. A private slapd (gen_directory.py, 3,000 users) and our
# sssd; three warm-up lookups, then strace -c follows sssd_be through N lookups of users
# never seen. Prints the calls per lookup of each syscall and in total.
# Usage: bench_cold_syscalls.sh PREFIX LABEL [N] [OP]   (root; N 200; OP pw: getent passwd,
#   id: id USER, initgroups and its groups). Raw strace output in ${SC_OUT:-/tmp/sssd-sc}/LABEL.
set -u
PREFIX=$1; LABEL=$2; N=${3:-200}; OP=${4:-pw}
TOP=$(cd "$(dirname "$0")/../.." && pwd)
OUT=${SC_OUT:-/tmp/sssd-sc}/$LABEL
rm -rf $OUT; mkdir -p $OUT
. $TOP/tests/intg/lib.sh
. $TOP/tests/intg/nss_ns.sh
. $TOP/tests/lib/slapd.sh
WORK=$(mktemp -d /tmp/sssd-sc-work.XXXXXX)
STRACE=
cleanup() {
    [ -n "$STRACE" ] && kill $STRACE 2>/dev/null
    stop_sssd; slapd_stop "$WORK/ldap" 2>/dev/null; rm -rf $WORK
}
trap cleanup EXIT
python3 $TOP/tests/perf/gen_directory.py 3000 100 50 10 dc=perf,dc=test rfc2307 > $WORK/dir.ldif
mkdir -p $WORK/ldap
URI=$(SLAPD_LOGLEVEL=none slapd_start "$WORK/ldap" "$WORK/dir.ldif" dc=perf,dc=test) || exit 1
write_conf <<CONF
[sssd]
services = nss
domains = perf.test
[domain/perf.test]
id_provider = ldap
ldap_uri = $URI
ldap_search_base = dc=perf,dc=test
ldap_schema = rfc2307
CONF
start_sssd || { echo "no start"; exit 1; }
sleep 1
for i in 2990 2991 2992; do
    SSS_NSS_USE_MEMCACHE=NO in_nss_ns getent passwd $(printf 'user%06d' $i) > /dev/null
done
be=$(pgrep -f "$PREFIX/libexec/sssd/sssd_be" | head -1)
# SC_RAW=1: every call with its stack instead of the summary (for a look at one lookup).
if [ -n "${SC_RAW:-}" ]; then mode="-tt -s 300 -k"; else mode=-c; fi
strace $mode -q -o $OUT/strace.txt -p $be &
STRACE=$!
sleep 1
for i in $(seq 1 $N); do
    u=$(printf 'user%06d' $i)
    if [ "$OP" = id ]; then
        SSS_NSS_USE_MEMCACHE=NO in_nss_ns id $u > /dev/null || echo "lookup $i failed"
    else
        SSS_NSS_USE_MEMCACHE=NO in_nss_ns getent passwd $u > /dev/null || echo "lookup $i failed"
    fi
done
kill -INT $STRACE; wait $STRACE 2>/dev/null; STRACE=
awk -v n=$N -v l=$LABEL '$1 ~ /^[0-9.]+$/ && NF >= 5 {
        calls = $4; name = $NF; if (name == "total") next
        printf "%s %-16s %6.2f per lookup\n", l, name, calls / n; tot += calls }
     END { printf "%s %-16s %6.2f per lookup\n", l, "TOTAL", tot / n }' $OUT/strace.txt
