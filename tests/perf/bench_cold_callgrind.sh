#!/bin/bash
# Instructions (callgrind Ir) that sssd_be and sssd_nss execute per cold lookup: a count,
# not a timing, so it does not move with the machine's load (bench_wakeups.sh's CPU column
# swings 2x on a shared machine). A private slapd (gen_directory.py, 3,000 users) and our
# sssd with sssd_be and sssd_nss started under valgrind --tool=callgrind (their binaries in
# PREFIX are swapped for a wrapper for the run and put back on exit, so use a scratch
# install, never one in use); three warm-up lookups, the counters zeroed, then N lookups of
# users never seen, the counters dumped. Prints Ir per lookup per process.
# Usage: bench_cold_callgrind.sh PREFIX LABEL [N] [OP]   (root; N 200; OP pw: getent passwd,
#   id: id USER, initgroups and its groups; ig: getent initgroups USER alone; refresh: getent
#   passwd of users cached once and expired since, entry_cache_timeout 5; warm: getent
#   passwd of the three warm-up users over and over, answered from the cache). Output files in
#   ${CG_OUT:-/tmp/sssd-cg}/LABEL. CG_SHAPE: gen_directory.py's USERS GROUPS BIG MANY
#   ("3000 100 50 10"; make perf PERF_USERS=10000's shape: "10000 20000 10000 5000").
# For sssd_nss it also prints the instructions from the back-end's reply to the client's
# (cache_req_dp_done, inclusive): the part of its work a cold lookup waits for after the
# back-end answered, and its work before the call (before_call.*, per lookup: see below).
# CG_MASTER=1: the master (sbin/sssd, the bus) runs under callgrind too, for its per-hop
# routing work; callgrind_control cannot reach it once it has forked into the background,
# so its Ir is the whole run's (printed at the end): the per-lookup figure is the
# difference of two runs, N and 0, over N.
set -u
PREFIX=$1; LABEL=$2; N=${3:-200}; OP=${4:-pw}
TOP=$(cd "$(dirname "$0")/../.." && pwd)
OUT=${CG_OUT:-/tmp/sssd-cg}/$LABEL
rm -rf $OUT; mkdir -p $OUT
. $TOP/tests/intg/lib.sh
. $TOP/tests/intg/nss_ns.sh
. $TOP/tests/lib/slapd.sh
WORK=$(mktemp -d /tmp/sssd-cg-work.XXXXXX)
L=$PREFIX/libexec/sssd
M=$PREFIX/sbin/sssd
restore() {
    for b in sssd_nss sssd_be; do
        [ -f $L/$b.real ] && mv -f $L/$b.real $L/$b
    done
    [ -f $M.real ] && mv -f $M.real $M
}
cleanup() { stop_sssd; slapd_stop "$WORK/ldap" 2>/dev/null; restore; rm -rf $WORK; }
trap cleanup EXIT
python3 $TOP/tests/perf/gen_directory.py ${CG_SHAPE:-3000 100 50 10} dc=perf,dc=test rfc2307 \
    > $WORK/dir.ldif
mkdir -p $WORK/ldap
URI=$(SLAPD_LOGLEVEL=none slapd_start "$WORK/ldap" "$WORK/dir.ldif" dc=perf,dc=test) || exit 1
for b in sssd_nss sssd_be; do
    mv $L/$b $L/$b.real
    printf '#!/bin/sh\nexec valgrind --tool=callgrind --callgrind-out-file=%s/%s.%%p.out "$0.real" "$@"\n' $OUT $b > $L/$b
    chmod 755 $L/$b
done
if [ -n "${CG_MASTER:-}" ]; then
    # The master forks itself into the background: callgrind follows the fork (one file).
    mv $M $M.real
    printf '#!/bin/sh\nexec valgrind --tool=callgrind --callgrind-out-file=%s/sssd.%%p.out "$0.real" "$@"\n' $OUT > $M
    chmod 755 $M
fi
write_conf <<CONF
[sssd]
services = nss
domains = perf.test
[nss]
timeout = 120
[domain/perf.test]
timeout = 120
id_provider = ldap
ldap_uri = $URI
ldap_search_base = dc=perf,dc=test
ldap_schema = rfc2307
$([ "$OP" = refresh ] && echo "entry_cache_timeout = 5")
CONF
start_sssd || { echo "no start"; exit 1; }
sleep 2
# Warm-up: connection to slapd, first-request work.
for i in 2990 2991 2992; do SSS_NSS_USE_MEMCACHE=NO in_nss_ns getent passwd $(printf 'user%06d' $i) > /dev/null; done
# This prefix's processes only: other runs of this bench may be going on the machine.
nss=$(pgrep -f "valgrind.*$L/sssd_nss" | head -1); be=$(pgrep -f "valgrind.*$L/sssd_be" | head -1)
if [ "$OP" = refresh ]; then
    # Cached once, then let expire: the counted lookups refresh them.
    for i in $(seq 1 $N); do
        SSS_NSS_USE_MEMCACHE=NO in_nss_ns getent passwd $(printf 'user%06d' $i) > /dev/null
    done
    sleep 6
fi
callgrind_control -z $nss $be > /dev/null
for i in $(seq 1 $N); do
    u=$(printf 'user%06d' $i)
    if [ "$OP" = id ]; then
        SSS_NSS_USE_MEMCACHE=NO in_nss_ns id $u > /dev/null || echo "lookup $i failed"
    elif [ "$OP" = warm ]; then
        # The warm-up's users again: the responder's cache answers (no back-end call).
        SSS_NSS_USE_MEMCACHE=NO in_nss_ns getent passwd $(printf 'user%06d' $((2990 + i % 3))) \
            > /dev/null || echo "lookup $i failed"
    elif [ "$OP" = ig ]; then
        SSS_NSS_USE_MEMCACHE=NO in_nss_ns getent initgroups $u > /dev/null \
            || echo "lookup $i failed"
    else
        SSS_NSS_USE_MEMCACHE=NO in_nss_ns getent passwd $u > /dev/null || echo "lookup $i failed"
    fi
done

callgrind_control -d $nss $be > /dev/null
sleep 1
if [ -n "${CG_MASTER:-}" ]; then
    # The master's dump is written when it exits.
    stop_sssd; sleep 1
    f=$(ls -S $OUT/sssd.*.out | head -1)
    ir=$(callgrind_annotate "$f" 2>/dev/null | awk '/PROGRAM TOTALS/ {gsub(",","",$1); print $1}')
    echo "$LABEL master_whole_run N=$N Ir=$ir"
fi
[ "$N" -gt 0 ] || exit 0
# The first inclusive Ir of a function (regexp) in callgrind_annotate --inclusive output.
cg_incl() { awk -v re="$2" '$0 ~ re {gsub(",","",$1); print $1; exit}' "$1"; }
for f in $OUT/*.out.*; do
    ir=$(callgrind_annotate "$f" 2>/dev/null | awk '/PROGRAM TOTALS/ {gsub(",","",$1); print $1}')
    echo "$LABEL $(basename $f) Ir=$ir per_lookup=$(( ${ir:-0} / N ))"
    case $f in
    */sssd_nss.*)
        incl=$WORK/cg.incl
        callgrind_annotate --inclusive=yes "$f" > $incl 2>/dev/null
        ir=$(cg_incl $incl 'cache_req_dp\.c:cache_req_dp_done ')
        echo "$LABEL $(basename $f) after_be_reply_per_lookup=$(( ${ir:-0} / N ))"
        # Before the call: cache_req_try_domain, the cache read of the entry (a miss, or the
        # expired entry; with the cheap read after the reply) and the call's composition
        # (cache_req_dp_send); the process's ldb searches (a cold lookup's only one is that
        # read) and in them ldb's reload of its @ records (paid by every search after
        # another's commit).
        for part in 'cache_req\.c:cache_req_try_domain ' \
                    'cache_req_cache\.c:cache_req_cache_read ' \
                    '[?]:ldb_search ' '[?]:ldb_kv_cache_load ' \
                    'cache_req_dp\.c:cache_req_dp_send '; do
            ir=$(cg_incl $incl "$part")
            name=$(echo "$part" | sed 's/.*://; s/ $//')
            echo "$LABEL $(basename $f) before_call.$name=$(( ${ir:-0} / N ))"
        done
        ;;
    esac
done
