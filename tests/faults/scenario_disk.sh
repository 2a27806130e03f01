#!/bin/bash
# Fault scenario 4: the disk under the caches.
#  disk/truncated, disk/scribbled: the domain's cache file cut to half, or its pages
#    overwritten, while the suite is stopped. Must hold: the suite starts, the file is set
#    aside (renamed .corrupt, a log line says so) instead of trusted, every lookup is right
#    (refetched from the directory), no crash. Time to recover: from the start to the first
#    right answer.
#  disk/full: the cache directory on a small tmpfs (the suite runs in a mount namespace of
#    its own) filled up to the last byte. Must hold: cached users are still answered right,
#    no wrong answer for new ones (an error is allowed), no crash, and once space is freed
#    new users are answered again. Time to recover: from freeing the space to the first
#    right cold answer.
#  disk/mc_scribbled: the memory-cache file overwritten with random bytes at random places
#    while readers in several processes hammer it through libnss_sss. Must hold: no reader
#    crashes, no wrong answer.
# Prints "RESULT disk/<case> pass|fail recover_ms=N wrong=N crashes=N ..." per case.
# Usage: scenario_disk.sh PREFIX   (as root; FAULT_SHORT=1: shorter runs)
set -u
PREFIX=$(cd "$1" && pwd)
TOP=$(cd "$(dirname "$0")/../.." && pwd)
SCENARIO=disk
. "$TOP/tests/faults/scenario_env.sh"
command -v unshare >/dev/null && command -v nsenter >/dev/null \
    || { echo "unshare/nsenter missing: skipped"; exit 77; }

DOM=disk.test
S=dc=disk,dc=test
NUSERS=400
WARM=40
DB=$PREFIX/var/lib/sss/db
CACHE=$DB/cache_$DOM.ldb
MC=$PREFIX/var/lib/sss/mc/passwd
SCRIBBLE_SECS=${FAULT_SHORT:+5}
SCRIBBLE_SECS=${SCRIBBLE_SECS:-20}
RECOVER_BOUND_MS=15000
fault_on_exit 'rm -f "$CACHE.corrupt"'

{
    ldif_base $S
    for i in $(seq 1 $NUSERS); do
        ldif_user $S "$(printf 'du%04d' "$i")" $((37000 + i)) 47000 "/home/du$i"
    done
} > "$WORK/data.ldif"
mkdir -p "$WORK/ldap"
URI=$(slapd_start "$WORK/ldap" "$WORK/data.ldif" $S) || exit 1
for i in $(seq 1 $NUSERS); do
    echo "$(printf 'du%04d' "$i") $((37000 + i)) 47000 /home/du$i"
done > "$WORK/expected"

rm -f "$LOGS/sssd.log" "$LOGS/sssd_nss.log" "$LOGS/sssd_be_$DOM.log"
write_conf <<CONF
[sssd]
services = nss
domains = $DOM

[domain/$DOM]
id_provider = ldap
ldap_uri = $URI
ldap_search_base = $S
ldap_network_timeout = 3
CONF

want() { local n; n=$(printf 'du%04d' "$1"); echo "$n:*:$((37000 + $1)):47000:$n:/home/du$1:"; }
# One lookup through the responder (memory cache off): ok, fail or wrong.
lookup() { # I
    local out
    out=$(SSS_NSS_USE_MEMCACHE=NO in_nss_ns timeout 60 getent passwd "$(printf 'du%04d' "$1")")
    if [ -z "$out" ]; then echo fail
    elif [ "$out" = "$(want "$1")" ]; then echo ok
    else echo "$out" >> "$WORK/wrong.txt"; echo wrong; fi
}
# Milliseconds until lookup I is right, or "none" within the bound.
until_right() { # I T0_MS
    local deadline=$(( $2 + 60000 ))
    while [ "$(now_ms)" -lt "$deadline" ]; do
        [ "$(lookup "$1")" = ok ] && { echo $(( $(now_ms) - $2 )); return; }
        sleep 0.1
    done
    echo none
}
started() { wait_name "sssd.domain_disk_2etest" 15000; }
warm_up() { local i; for i in $(seq 1 $WARM); do lookup "$i" >/dev/null; done; }

# ---- a damaged cache file, found at start ----
damaged_case() { # NAME "how to damage $CACHE"
    local name=$1 damage=$2 mark t0 rec w=0 bad=0 crashes ok=1 aside=0 logged=0
    start_sssd && started || { echo "RESULT disk/$name fail (sssd did not start)"; FAILED=1; return; }
    warm_up
    stop_sssd
    [ -s "$CACHE" ] || { echo "RESULT disk/$name fail (no cache file to damage)"; FAILED=1; return; }
    eval "$damage"
    rm -f "$CACHE.corrupt" "$WORK/wrong.txt"
    mark=$(fault_crash_mark)
    t0=$(now_ms)
    start_sssd && started || { echo "RESULT disk/$name fail (sssd did not start on the damaged cache)"; FAILED=1; return; }
    rec=$(until_right 1 "$t0")
    for i in $(seq 1 $WARM); do
        case $(lookup "$i") in wrong) w=$((w + 1)) ;; fail) bad=$((bad + 1)) ;; esac
    done
    crashes=$(fault_crashes_since "$mark")
    [ -f "$CACHE.corrupt" ] && aside=1
    grep -q "is damaged" "$LOGS/sssd.log" 2>/dev/null && logged=1
    [ "$rec" != none ] && [ "$rec" -le "$RECOVER_BOUND_MS" ] || ok=0
    [ "$w" = 0 ] && [ "$bad" = 0 ] && [ "$crashes" = 0 ] && [ "$aside" = 1 ] && [ "$logged" = 1 ] || ok=0
    echo "RESULT disk/$name $([ $ok = 1 ] && echo pass || echo fail) recover_ms=$rec wrong=$w" \
         "crashes=$crashes unanswered=$bad set_aside=$aside logged=$logged (bound $RECOVER_BOUND_MS ms)"
    [ $ok = 1 ] || FAILED=1
    stop_sssd
}
damaged_case truncated 'truncate -s $(( $(stat -c %s "$CACHE") / 2 )) "$CACHE"'
damaged_case scribbled 'python3 -c "
import os, random, sys
p = sys.argv[1]; n = os.path.getsize(p); f = open(p, \"r+b\")
for ofs in range(8192, n, 4096):
    f.seek(ofs); f.write(random.Random(ofs).randbytes(4096))
" "$CACHE"'
rm -f "$CACHE.corrupt"

# ---- disk full under the cache ----
cp "$CONF" "$WORK/sssd.conf"
write_conf < "$WORK/sssd.conf"  # a new setup: no old caches
mark=$(fault_crash_mark)
unshare --mount --propagation private sh -c \
    "mount -t tmpfs -o size=4m,mode=0700 sssd-fault-db '$DB' && exec '$SBIN/sssd' -D -c '$CONF'" \
    && started || { echo "RESULT disk/full fail (sssd did not start on a tmpfs)"; exit 1; }
warm_up
MPID=$(monitor_pid)
# Fill it: the writer stops at ENOSPC.
nsenter -t "$MPID" -m -- sh -c "cat /dev/zero > '$DB/filler' 2>/dev/null; df -k '$DB' | tail -1" \
    > "$WORK/df.txt"
w=0; cached_bad=0; cold_ok=0; cold_fail=0
for i in $(seq 1 $WARM); do
    case $(lookup "$i") in wrong) w=$((w + 1)) ;; fail) cached_bad=$((cached_bad + 1)) ;; esac
done
for i in $(seq $((WARM + 1)) $((WARM + 40))); do
    case $(lookup "$i") in wrong) w=$((w + 1)) ;; fail) cold_fail=$((cold_fail + 1)) ;; ok) cold_ok=$((cold_ok + 1)) ;; esac
done
alive_full=1
[ -n "$(be_pid $DOM)" ] && [ -n "$(service_pid sssd_nss)" ] || alive_full=0
nospace_logged=0
grep -qiE "no space|disk full|ENOSPC" "$LOGS/sssd_be_$DOM.log" 2>/dev/null && nospace_logged=1
t0=$(now_ms)
nsenter -t "$MPID" -m -- rm -f "$DB/filler"
rec=$(until_right $((WARM + 100)) "$t0")
for i in $(seq $((WARM + 101)) $((WARM + 120))); do
    case $(lookup "$i") in wrong) w=$((w + 1)) ;; fail) cold_fail=$((cold_fail + 1)) ;; esac
done
crashes=$(fault_crashes_since "$mark")
ok=1
[ "$w" = 0 ] && [ "$cached_bad" = 0 ] && [ "$crashes" = 0 ] && [ "$alive_full" = 1 ] || ok=0
[ "$rec" != none ] && [ "$rec" -le "$RECOVER_BOUND_MS" ] || ok=0
echo "RESULT disk/full $([ $ok = 1 ] && echo pass || echo fail) recover_ms=$rec wrong=$w" \
     "crashes=$crashes cached_unanswered=$cached_bad cold_answered_while_full=$cold_ok" \
     "cold_refused_while_full=$cold_fail services_up_while_full=$alive_full" \
     "logged_no_space=$nospace_logged (df: $(awk '{print $3 "k used of " $2 "k"}' "$WORK/df.txt"))"
[ $ok = 1 ] || FAILED=1
stop_sssd

# ---- the memory-cache file scribbled over while clients read it ----
write_conf < "$WORK/sssd.conf"
start_sssd && started || { echo "RESULT disk/mc_scribbled fail (sssd did not start)"; exit 1; }
for i in $(seq 1 $WARM); do in_nss_ns getent passwd "$(printf 'du%04d' "$i")" >/dev/null; done
head -n $WARM "$WORK/expected" > "$WORK/warm"
mark=$(fault_crash_mark)
pids=
for r in 1 2 3 4; do
    python3 "$TOP/tests/faults/mc_reader.py" "$PREFIX/lib/libnss_sss.so.2" "$SCRIBBLE_SECS" \
        "$WORK/warm" > "$WORK/reader.$r" 2>&1 &
    pids="$pids $!"
done
python3 - "$MC" "$SCRIBBLE_SECS" <<'PY' > "$WORK/scribbles"
import os, random, sys, time
path, secs = sys.argv[1], float(sys.argv[2])
n = 0
end = time.monotonic() + secs
fd = os.open(path, os.O_WRONLY)
size = os.fstat(fd).st_size
while time.monotonic() < end:
    os.pwrite(fd, random.randbytes(random.randint(1, 64)), random.randrange(size))
    n += 1
    time.sleep(0.0005)
print(n)
PY
reader_crashes=0
for p in $pids; do
    wait "$p"; rc=$?
    [ "$rc" -ge 128 ] && reader_crashes=$((reader_crashes + 1))
done
read -r rok rmiss rwrong <<< "$(cat "$WORK"/reader.* | sed -n 's/^ok=\([0-9]*\) miss=\([0-9]*\) wrong=\([0-9]*\)$/\1 \2 \3/p' \
    | awk '{ a += $1; b += $2; c += $3 } END { print a + 0, b + 0, c + 0 }')"
grep -h "^WRONG" "$WORK"/reader.* | head -3 | sed 's/^/  /'
crashes=$(fault_crashes_since "$mark")
ok=1
[ "$reader_crashes" = 0 ] && [ "$rwrong" = 0 ] && [ "$crashes" = 0 ] && [ "$rok" -gt 0 ] || ok=0
echo "RESULT disk/mc_scribbled $([ $ok = 1 ] && echo pass || echo fail) wrong=$rwrong" \
     "crashes=$((crashes + reader_crashes)) reader_crashes=$reader_crashes lookups_ok=$rok" \
     "lookups_missed=$rmiss scribbles=$(cat "$WORK/scribbles") seconds=$SCRIBBLE_SECS readers=4"
[ $ok = 1 ] || FAILED=1
exit $FAILED
