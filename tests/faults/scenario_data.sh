#!/bin/bash
# Fault scenario 6: hostile directory data at scale (tests/faults/make_hostile_ldif.py): N
# users among duplicates by uid and by name, ids out of range or not numbers, 1 MB values,
# a group loop, a group naming itself, and a group of BIG members
# of which only the N users exist (rfc2307bis). Full: N = 100,000, BIG = 500,000; short:
# 3,000 and 30,000.
# (Names that are not UTF-8: slapd refuses to store them; fuzz_sdap_entry covers them.)
# Must hold: every sane user asked (a random sample) answered right; the big group answered
# with exactly its N existing members; loops answered, not followed for ever; every hostile
# entry asked gets an answer or "not found" within the bound, never a crash; sssd_be's peak
# memory under MEM_BOUND_MB; log lines for the dropped values and the refused entries.
# Prints "RESULT data/<case> pass|fail ..." per case.
# Usage: scenario_data.sh PREFIX   (as root; FAULT_SHORT=1: the short form)
set -u
PREFIX=$(cd "$1" && pwd)
TOP=$(cd "$(dirname "$0")/../.." && pwd)
SCENARIO=data
. "$TOP/tests/faults/scenario_env.sh"

DOM=data.test
S=dc=data,dc=test
if [ -n "${FAULT_SHORT:-}" ]; then N=3000; BIG=30000; else N=100000; BIG=500000; fi
SAMPLE=200
MEM_BOUND_MB=1024
LOOKUP_BOUND_S=120

t0=$(now_ms)
python3 "$TOP/tests/faults/make_hostile_ldif.py" $S $N $BIG "$WORK/expected" > "$WORK/data.ldif" \
    || { echo "RESULT data/load fail (no LDIF)"; exit 1; }
mkdir -p "$WORK/ldap"
URI=$(slapd_start "$WORK/ldap" "$WORK/data.ldif" $S) \
    || { echo "RESULT data/load fail (slapd refused the data)"; exit 1; }
echo "  directory: $N users, big group of $BIG members, loaded in $(( ($(now_ms) - t0) / 1000 )) s"

rm -f "$LOGS/sssd.log" "$LOGS/sssd_nss.log" "$LOGS/sssd_be_$DOM.log"
write_conf <<CONF
[sssd]
services = nss
domains = $DOM

[domain/$DOM]
id_provider = ldap
ldap_uri = $URI
ldap_search_base = $S
ldap_schema = rfc2307bis
ldap_search_timeout = 60
ldap_enumeration_search_timeout = 120
CONF
start_sssd && wait_name "sssd.domain_data_2etest" 10000 \
    || { echo "RESULT data/start fail (sssd did not start)"; exit 1; }
BELOG=$LOGS/sssd_be_$DOM.log
mark=$(fault_crash_mark)
getent_ns() { SSS_NSS_USE_MEMCACHE=NO in_nss_ns timeout $LOOKUP_BOUND_S getent "$@"; }
be_hwm_mb() { awk '/^VmHWM/ { printf "%d", $2 / 1024 }' "/proc/$(be_pid $DOM)/status" 2>/dev/null; }

# ---- sane users, a random sample ----
wrong=0; missing=0
while read -r line; do
    name=${line%%:*}
    out=$(getent_ns passwd "$name")
    if [ -z "$out" ]; then missing=$((missing + 1))
    elif [ "$out" != "$line" ]; then wrong=$((wrong + 1)); echo "  wrong: $out (want $line)"; fi
done < <(shuf -n $SAMPLE --random-source=<(yes) "$WORK/expected")
ok=1; [ $wrong = 0 ] && [ $missing = 0 ] || ok=0
echo "RESULT data/sane_users $([ $ok = 1 ] && echo pass || echo fail) wrong=$wrong" \
     "crashes=$(fault_crashes_since "$mark") asked=$SAMPLE unanswered=$missing"
[ $ok = 1 ] || FAILED=1

# ---- the big group: exactly its existing members ----
t1=$(now_ms)
members=$(getent_ns group big | cut -d: -f4 | tr ',' '\n' | grep -c .)
ms=$(( $(now_ms) - t1 ))
t1=$(now_ms)
members_warm=$(getent_ns group big | cut -d: -f4 | tr ',' '\n' | grep -c .)
ms_warm=$(( $(now_ms) - t1 ))
ok=1; [ "$members" = "$N" ] && [ "$members_warm" = "$N" ] || ok=0
echo "RESULT data/big_group $([ $ok = 1 ] && echo pass || echo fail) wrong=$([ $ok = 1 ] && echo 0 || echo 1)" \
     "crashes=$(fault_crashes_since "$mark") members=$members want=$N declared=$BIG cold_ms=$ms" \
     "warm_ms=$ms_warm be_peak_rss_mb=$(be_hwm_mb)"
[ $ok = 1 ] || FAILED=1

# ---- loops: answered with their direct and nested users, in bounded time ----
t1=$(now_ms)
la=$(getent_ns group loopa | cut -d: -f4)
lb=$(getent_ns group loopb | cut -d: -f4)
self=$(getent_ns group selfish | cut -d: -f4)
ids=$(in_nss_ns timeout $LOOKUP_BOUND_S id -Gn hd000001 2>/dev/null)
ms=$(( $(now_ms) - t1 ))
sorted() { tr ', ' '\n\n' <<< "$1" | grep . | sort | tr '\n' ' '; }
ok=1
[ "$(sorted "$la")" = "hd000001 hd000002 " ] && [ "$(sorted "$lb")" = "hd000001 hd000002 " ] \
    && [ "$(sorted "$self")" = "hd000003 " ] || ok=0
case " $ids " in *" loopa "*) ;; *) ok=0 ;; esac
echo "RESULT data/loops $([ $ok = 1 ] && echo pass || echo fail) wrong=$([ $ok = 1 ] && echo 0 || echo 1)" \
     "crashes=$(fault_crashes_since "$mark") loopa='$la' loopb='$lb' selfish='$self'" \
     "id_hd000001='$ids' seconds=$(( ms / 1000 ))"
[ $ok = 1 ] || FAILED=1

# ---- every hostile entry asked: an answer or not found, never a hang or a crash ----
hung=0; answered=0; refused=0; wrongdup=0
for name in dupuid{1..20} badid{0..6} badgid{0..6} hugegecos{0..4} hugehome{0..4}; do
    out=$(getent_ns passwd "$name"); rc=$?
    if [ $rc = 124 ]; then hung=$((hung + 1))
    elif [ -n "$out" ]; then answered=$((answered + 1))
    else refused=$((refused + 1)); fi
done
for i in $(seq 1 20); do
    # A uid two entries claim: either one of them, never a made-up line.
    uid=$((200000 + N - i + 1))
    out=$(getent_ns passwd "$uid")
    case ${out%%:*} in ""|dupuid*|hd*) ;; *) wrongdup=$((wrongdup + 1)) ;; esac
done
crashes=$(fault_crashes_since "$mark")
alive=1; [ -n "$(be_pid $DOM)" ] && [ -n "$(service_pid sssd_nss)" ] || alive=0
logged=0
grep -q "too long or holds NUL" "$BELOG" && logged=$((logged + 1))
grep -qiE "uidNumber|gidNumber" "$BELOG" && logged=$((logged + 1))
# badid0..6: 0, -1, 4294967295 ((uid_t)-1), too large, not numbers: none may be answered.
badids=0
for k in 0 1 2 3 4 5 6; do [ -n "$(getent_ns passwd badid$k)" ] && badids=$((badids + 1)); done
peak=$(be_hwm_mb)
ok=1
[ $hung = 0 ] && [ "$crashes" = 0 ] && [ $alive = 1 ] && [ $wrongdup = 0 ] && [ $logged = 2 ] \
    && [ $badids = 0 ] || ok=0
[ -n "$peak" ] && [ "$peak" -le $MEM_BOUND_MB ] || ok=0
echo "RESULT data/hostile_entries $([ $ok = 1 ] && echo pass || echo fail) wrong=$wrongdup" \
     "crashes=$crashes hung=$hung answered=$answered not_found=$refused services_up=$alive" \
     "bad_ids_answered=$badids" \
     "log_kinds=$logged/2 be_peak_rss_mb=$peak (bound $MEM_BOUND_MB MB)"
[ $ok = 1 ] || FAILED=1
exit $FAILED
