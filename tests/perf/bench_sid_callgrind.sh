#!/bin/bash
# Instructions (callgrind Ir) sssd_nss executes per libsss_nss_idmap request on a real Samba
# AD DC (tests/lib/samba_ad.sh), id_provider = ad with ID mapping: a count, not a timing.
# sssd_nss runs under valgrind --tool=callgrind (its binary in PREFIX is swapped for a
# wrapper for the run and put back on exit: use a scratch install, never one in use). For
# each operation: three warm-up requests, the counters zeroed, N requests (each by a new
# tests/intg/sid_client process through PREFIX's libsss_nss_idmap), the counters dumped.
# Operations: getnamebysid and getidbysid of a user's SID, getsidbyuid, getorigbyname,
# getnamebysid of a well-known SID (S-1-5-32-544) and of another forest's SID.
# Usage: bench_sid_callgrind.sh PREFIX LABEL [N]   (root; N 100; 77 without Samba's AD DC)
# Output files in ${CG_OUT:-/tmp/sssd-cg-sid}/LABEL.
set -u
PREFIX=$(cd "$1" && pwd)
LABEL=$2
N=${3:-100}
TOP=$(cd "$(dirname "$0")/../.." && pwd)
OUT=${CG_OUT:-/tmp/sssd-cg-sid}/$LABEL
AD_TEST=bench_sid_callgrind
AD_NEEDS="cc valgrind callgrind_control callgrind_annotate"
. "$TOP/tests/intg/ad_env.sh"
L=$PREFIX/libexec/sssd
restore() { [ -f "$L/sssd_nss.real" ] && mv -f "$L/sssd_nss.real" "$L/sssd_nss"; }
trap 'restore; _ad_env_exit' EXIT
rm -rf "$OUT"
mkdir -p "$OUT"

CLIENT=$WORK/sid_client
cc -O1 -o "$CLIENT" "$TOP/tests/intg/sid_client.c" -ldl || { echo "FAIL: sid_client"; exit 1; }
LIB=$PREFIX/lib/libsss_nss_idmap.so.0
samba_ad_user alice Alice-Pass1 || exit 1
samba_ad_join || { echo "FAIL: adcli join"; exit 1; }
ALICE_SID=$(samba_ad_sid alice)

mv "$L/sssd_nss" "$L/sssd_nss.real"
WRAP='#!/bin/sh\nexec valgrind --tool=callgrind --callgrind-out-file=%s/%s.%%p.out'
printf "$WRAP"' "$0.real" "$@"\n' "$OUT" sssd_nss > "$L/sssd_nss"
chmod 755 "$L/sssd_nss"
ad_write_conf nss 0 <<CONF
CONF
start_sssd && wait_name sssd.domain_ad_2etest 10000 || { echo "FAIL: sssd did not start"; exit 1; }
for _ in $(seq 100); do [ -S "$PIPES/nss" ] && break; sleep 0.1; done
uid=$(SSS_NSS_USE_MEMCACHE=NO in_nss_ns id -u alice)
[ -n "$uid" ] || { echo "FAIL: alice not resolved"; exit 1; }
nss=$(pgrep -f "valgrind.*$L/sssd_nss" | head -1)

# bench NAME OP KEY: N requests of OP KEY, the Ir of sssd_nss per request.
bench() {
    local name=$1 op=$2 key=$3 f ir
    for _ in 1 2 3; do "$CLIENT" "$LIB" "$op" "$key" > /dev/null; done
    echo "# $name: $("$CLIENT" "$LIB" "$op" "$key" | head -n 1)"
    callgrind_control -z "$nss" > /dev/null 2>&1
    for _ in $(seq "$N"); do "$CLIENT" "$LIB" "$op" "$key" > /dev/null; done
    callgrind_control --dump="$name" "$nss" > /dev/null 2>&1
    sleep 1
    f=$(ls -t "$OUT"/sssd_nss.*.out.* 2>/dev/null | head -n 1)
    ir=$(callgrind_annotate "$f" 2>/dev/null | awk '/PROGRAM TOTALS/ {gsub(",","",$1); print $1}')
    echo "$LABEL $name Ir/request=$(( ${ir:-0} / N ))"
}
# The answers from the stored objectSid first: what the heap holds after the other ones
# moves their count by ~3%.
bench sidbyuid sidbyuid "$uid"
bench origbyname origbyname alice
bench namebysid namebysid "$ALICE_SID"
bench idbysid idbysid "$ALICE_SID"
bench wellknown namebysid S-1-5-32-544
bench foreign namebysid S-1-5-21-1-2-3-1000
