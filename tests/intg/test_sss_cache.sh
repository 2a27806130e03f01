#!/bin/bash
# sss_cache as an administrator runs it: refused for non-root and bad command lines, quiet
# success where sssd was never configured, SSSD's "No cache object matched" status for
# unknown names; with sssd down it resets the memory cache files itself, with sssd up it
# sends the Invalidate* and Reset* signals (seen with dbus-monitor) and leaves the files
# to sssd_nss. No slapd needed: the domain's server is never reached.
# Whatever matched, the whole memory cache goes, as with SSSD's sss_cache.
# Usage: test_sss_cache.sh PREFIX   (run as root)
set -u
PREFIX=$(cd "$1" && pwd)
. "$(dirname "$0")/lib.sh"

SSS_CACHE=$SBIN/sss_cache
MC=$PREFIX/var/lib/sss/mc
DB=$PREFIX/var/lib/sss/db
DOM=cache.test
WORK=$(mktemp -d /tmp/sssd-intg-cache.XXXXXX)
MONPID=
cleanup() {
    [ -n "$MONPID" ] && kill "$MONPID" 2>/dev/null
    stop_sssd
    rm -rf "$WORK"
}
trap cleanup EXIT

write_conf <<CONF
[sssd]
services = nss
domains = $DOM

[nss]
debug_level = 6

[domain/$DOM]
id_provider = ldap
ldap_uri = ldap://127.0.0.1:3897
ldap_search_base = dc=cache,dc=test
CONF

run_cache() { # run_cache ARGS... -> $rc and $out (stdout + stderr)
    out=$("$SSS_CACHE" "$@" 2>&1); rc=$?
}

# A memory cache file as sssd_nss leaves it: header (b1, major 1, minor 1, status alive,
# seed, sizes, offsets, reserved, b2 = b1), then data.
make_mc_file() {
    python3 - "$1" <<'PY'
import struct, sys
b = 0xf0000010
hdr = struct.pack("=13I", b, 1, 1, 1, 42, 4000, 16, 64, 56, 4056, 4072, 0, b)
with open(sys.argv[1], "wb") as f:
    f.write(hdr + b"\0" * 4 + b"\xff" * 4136)
PY
    chmod 0664 "$1"
}

mc_status() { # "STATUS ok|torn": the header status of a file, and whether b1 == b2 is valid
    python3 - "$1" <<'PY'
import struct, sys
with open(sys.argv[1], "rb") as f:
    h = struct.unpack("=13I", f.read(52))
print("%d %s" % (h[3], "ok" if h[0] == h[12] and h[0] >> 24 == 0xf0 else "torn"))
PY
}

count_sig() { grep -c "member=$1\$" "$WORK/monitor.log" 2>/dev/null; }

stop_sssd
mkdir -p "$MC" "$DB"

# ---- the command line ----
run_cache
check "no object selected: status 1 ($rc)" test "$rc" -eq 1
check "and says so" grep -q "Please select at least one object to invalidate" <<<"$out"
run_cache -x
check "unknown option: status 1 ($rc)" test "$rc" -eq 1
run_cache -u joe extra -c "$CONF"
check "stray argument: status 1 ($rc)" test "$rc" -eq 1
run_cache -?
check "-? prints the usage, status 0 ($rc)" test "$rc" -eq 0
check "and the usage lists --everything" grep -q -- "--everything" <<<"$out"

# A non-root caller is refused before anything is read (the binary may sit in a directory
# nobody else can enter: copy it where nobody can run it).
cp "$SSS_CACHE" "$WORK/sss_cache"; chmod 0755 "$WORK" "$WORK/sss_cache"
out=$(setpriv --reuid=65534 --regid=65534 --clear-groups "$WORK/sss_cache" -E -c "$CONF" 2>&1)
rc=$?
check "non-root: status 1 ($rc)" test "$rc" -eq 1
check "non-root: '$out'" grep -q "must be run as root" <<<"$out"

# ---- sssd never configured: nothing to do, no failure (shadow-utils runs sss_cache -U) ----
for opt in -U -G -E; do
    run_cache $opt -c "$WORK/none.conf"
    check "sss_cache $opt without a configuration: status 0 ($rc)" test "$rc" -eq 0
done
run_cache -E -d "$DOM" -c "$WORK/none.conf"
check "-d without a configuration: status 2 ($rc)" test "$rc" -eq 2

# ---- sssd not running ----
rm -f "$MC/passwd" "$MC/group" "$MC/initgroups"
for f in passwd group initgroups; do make_mc_file "$MC/$f"; done
exec 7<"$MC/passwd" 8<"$MC/group"
run_cache -U -c "$CONF"
check "sssd down, -U: status 0 ($rc: $out)" test "$rc" -eq 0
check "the passwd memory cache is removed" test ! -e "$MC/passwd"
check "the initgroups memory cache is removed" test ! -e "$MC/initgroups"
# As SSSD's sss_cache: whatever matched, the whole memory cache goes (a group's record
# lists users; issue 17, item 4).
check "the group memory cache is removed too (-U)" test ! -e "$MC/group"
check "a client still holding passwd sees status 2 (recycled) under valid barriers" \
    test "$(mc_status /proc/$$/fd/7)" = "2 ok"
check "a client holding group sees status 2 too" test "$(mc_status /proc/$$/fd/8)" = "2 ok"
exec 7<&- 8<&-

make_mc_file "$MC/group"
printf 'garbage' > "$MC/initgroups"
run_cache -E -c "$CONF"
check "a foreign file in the memory cache directory: status still 0 ($rc)" test "$rc" -eq 0
check "and it is named and left alone" grep -q "not a memory cache file: skipped" <<<"$out"
check "the group memory cache is removed (-E)" test ! -e "$MC/group"
rm -f "$MC/initgroups"

run_cache -u nosuchuser -c "$CONF"
check "a user not cached: status 2 ($rc)" test "$rc" -eq 2
check "a user not cached: '$out'" grep -qx "No cache object matched the specified search" <<<"$out"
run_cache -g nosuchgroup@$DOM -c "$CONF"
check "a qualified group not cached: status 2 ($rc)" test "$rc" -eq 2
run_cache -E -d no.such.domain -c "$CONF"
check "an unknown -d domain: status 2 ($rc)" test "$rc" -eq 2
check "an unknown -d domain is named: '$out'" grep -q "no.such.domain" <<<"$out"
run_cache -N -c "$CONF"
check "-N (all netgroups, none cached): status 0 ($rc)" test "$rc" -eq 0
check "-N: no 'not cached by this suite' note (netgroups are cached now)" \
    bash -c '! grep -q "not cached by this suite" <<<"$1"' _ "$out"
run_cache -n ng1 -c "$CONF"
check "-n NAME not cached: status 2 ($rc)" test "$rc" -eq 2

# ---- sssd running ----
rm -f "$LOGS/sssd_nss.log"
start_sssd
check "sssd -D starts" test $? -eq 0
check "sssd_nss is on the bus" wait_name sssd.nss 5000
check "sssd_nss made its memory cache files" test -e "$MC/passwd" -a -e "$MC/group"
dbus-monitor --address "$BUS_ADDR" > "$WORK/monitor.log" 2>&1 &
MONPID=$!
sleep 0.5

ino_before=$(stat -c %i "$MC/passwd" 2>/dev/null)
t0=$(now_ms)
run_cache -E -c "$CONF"
t1=$(now_ms)
check "sssd up, -E: status 0 in $((t1 - t0)) ms ($out)" test "$rc" -eq 0
sleep 0.5
for m in InvalidateAllUsers InvalidateAllGroups InvalidateAllInitgroups ResetUsers ResetGroups; do
    check "-E: $m went out on the bus" test "$(count_sig $m)" -eq 1
done
check "-E: signals come from /sssd on the right interfaces" \
    test "$(grep -c 'path=/sssd; interface=sssd.nss.MemoryCache; member=InvalidateAll' \
                 "$WORK/monitor.log")" -eq 3
# Level 6 logs each signal a responder receives: the delivery, not only the sending.
for m in InvalidateAllUsers InvalidateAllGroups InvalidateAllInitgroups ResetUsers ResetGroups; do
    check "-E: sssd_nss received $m" grep -q "$m" "$LOGS/sssd_nss.log"
done
check "the memory cache files were left to sssd_nss (passwd exists)" test -e "$MC/passwd"
echo "     passwd memory cache inode $ino_before -> $(stat -c %i "$MC/passwd" 2>/dev/null)"

run_cache -G -c "$CONF"
sleep 0.3
check "-G: status 0 ($rc)" test "$rc" -eq 0
check "-G: InvalidateAllGroups again" test "$(count_sig InvalidateAllGroups)" -eq 2
check "-G: the whole memory cache, as SSSD: InvalidateAllUsers too" \
    test "$(count_sig InvalidateAllUsers)" -eq 2
check "-G: ResetGroups again, ResetUsers not" \
    test "$(count_sig ResetGroups)" -eq 2 -a "$(count_sig ResetUsers)" -eq 1

run_cache -u nosuchuser -c "$CONF"
sleep 0.3
check "sssd up, a user not cached: status 2 ($rc)" test "$rc" -eq 2
check "sssd up, a user not cached: the message" \
    grep -qx "No cache object matched the specified search" <<<"$out"
check "nothing matched: no signal sent" test "$(count_sig InvalidateAllUsers)" -eq 2

out=$(setpriv --reuid=65534 --regid=65534 --clear-groups "$WORK/sss_cache" -E -c "$CONF" 2>&1)
rc=$?
check "sssd up, non-root: status 1 ($rc)" test "$rc" -eq 1
sleep 0.3
check "sssd up, non-root: no signal sent" test "$(count_sig InvalidateAllUsers)" -eq 2

check "sssd_nss is still on the bus" has_name sssd.nss
kill "$MONPID" 2>/dev/null; MONPID=

# ---- stopped again: the files sssd_nss left are reset by the tool ----
stop_sssd
run_cache -E -c "$CONF"
check "sssd stopped again, -E: status 0 ($rc: $out)" test "$rc" -eq 0
check "no memory cache file is left" \
    test ! -e "$MC/passwd" -a ! -e "$MC/group" -a ! -e "$MC/initgroups"

summary
