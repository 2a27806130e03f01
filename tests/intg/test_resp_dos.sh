#!/bin/bash
# Hostile local clients of sssd_nss (issue 11, items 1 and 2), through the real glibc path:
# an unprivileged user (setpriv) trickles half-finished requests, opens thousands of idle
# connections and sends malformed requests in a loop, while root and another unprivileged
# user look a directory user up through the socket (SSS_NSS_USE_MEMCACHE=NO). What must
# hold: every lookup is answered; a trickle does not keep a connection beyond the request
# deadline; fd_limit is applied; sssd_nss does not spin (its CPU time over the attack is a
# fraction of the wall time) and its log does not explode (line count).
# sssd starts with the soft descriptor limit most daemons get (1024), so without fd_limit
# applied the attacker runs sssd_nss out of descriptors.
# Usage: test_resp_dos.sh PREFIX   (run as root)
set -u
PREFIX=$(cd "$1" && pwd)
TOP=$(cd "$(dirname "$0")/../.." && pwd)
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/nss_ns.sh"
. "$TOP/tests/lib/slapd.sh"

HOSTILE=$TOP/tests/intg/resp_hostile.py
PY=/usr/bin/python3
SOCK=$PIPES/nss
WORK=$(mktemp -d /tmp/sssd-dos.XXXXXX)
chmod 0755 "$WORK"
HOLD_PID=
cleanup() {
    [ -n "$HOLD_PID" ] && kill "$HOLD_PID" 2>/dev/null
    stop_sssd
    slapd_stop "$WORK/ldap" 2>/dev/null
    rm -rf "$WORK"
}
trap cleanup EXIT

slapd_available || { echo "SKIP: slapd is not available"; exit 77; }
[ -x "$PY" ] || { echo "SKIP: $PY is not available"; exit 77; }
cp "$HOSTILE" "$WORK/hostile.py" && chmod 0755 "$WORK/hostile.py"
mkdir -p "$WORK/u" && chown 65534 "$WORK/u"     # the attacker writes its notes here

# as_user UID CMD...: an unprivileged process with room for thousands of descriptors
as_user() {
    local uid=$1
    shift
    prlimit --nofile=8192:8192 -- setpriv --reuid="$uid" --regid="$uid" --clear-groups -- "$@"
}

mkdir -p "$WORK/ldap"
URI=$(slapd_start "$WORK/ldap" "$TOP/contrib/demo/demo.ldif" dc=demo,dc=test) || exit 1

write_conf <<CONF
[sssd]
services = nss
domains = demo.test

[nss]
fd_limit = 2048
client_idle_timeout = 60

[domain/demo.test]
id_provider = ldap
ldap_uri = $URI
ldap_search_base = dc=demo,dc=test
CONF
rm -f "$LOGS/sssd_nss.log"
# The soft limit a daemon typically starts with; fd_limit must raise it.
( ulimit -Sn 1024; start_sssd ) || { fail "sssd did not start"; summary; exit 1; }
wait_name sssd.nss 5000 || { fail "sssd_nss is not on the bus"; summary; exit 1; }
NSS_PID=$(service_pid sssd_nss)
lim=$(awk '/^Max open files/ { print $4 }' "/proc/$NSS_PID/limits")
check "fd_limit = 2048 is applied to sssd_nss (soft limit $lim)" test "$lim" = 2048

lookup() { # lookup [UID]: one socket lookup through glibc, bounded
    local who=() out
    [ -n "${1:-}" ] && who=(setpriv --reuid="$1" --regid="$1" --clear-groups --)
    out=$(SSS_NSS_USE_MEMCACHE=NO timeout 5 bash -c '. "$1"; shift; in_nss_ns "$@"' _ \
            "$TOP/tests/intg/nss_ns.sh" "${who[@]}" getent passwd alice 2>/dev/null)
    [ "$out" = "alice:*:10001:20003:Alice Archer:/home/alice:/bin/bash" ]
}
export PREFIX LIBDIR

check "a lookup before the attack" lookup
cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$NSS_PID/stat"; }
log_lines() { wc -l < "$LOGS/sssd_nss.log" 2>/dev/null || echo 0; }
c0=$(cpu_ticks); l0=$(log_lines); t0=$(now_ms)

# ---- a trickle of bytes does not hold a connection (request deadline 10 s) ----
out=$(as_user 65534 "$PY" "$WORK/hostile.py" "$SOCK" trickle 40 14)
echo "     trickle: $out"
closed=$(sed -n 's/.*closed=\([0-9]*\).*/\1/p' <<<"$out")
last=$(sed -n 's/.*last=\([0-9.-]*\).*/\1/p' <<<"$out")
check "40 trickling connections are all closed ($closed)" test "${closed:-0}" -eq 40
check "... within the 10 s request deadline, not extended by the trickle (last at ${last} s)" \
    awk -v l="${last:--1}" 'BEGIN { exit !(l >= 0 && l <= 12.5) }'

# ---- thousands of idle connections from one unprivileged user ----
as_user 65534 "$PY" "$WORK/hostile.py" "$SOCK" hold 3000 20 "$WORK/u/ready" > "$WORK/hold.out" &
HOLD_PID=$!
for _ in $(seq 300); do [ -s "$WORK/u/ready" ] && break; sleep 0.1; done
check "the attacker opened its connections ($(cat "$WORK/u/ready" 2>/dev/null))" test -s "$WORK/u/ready"
fails=0; worst=0
for i in $(seq 10); do
    for who in "" 65533; do
        s=$(now_ms)
        if ! lookup $who; then fails=$((fails + 1)); break 2; fi
        d=$(( $(now_ms) - s )); [ "$d" -gt "$worst" ] && worst=$d
    done
done
check "20 lookups (root and uid 65533) answered during the attack ($fails failed, slowest ${worst} ms)" \
    test "$fails" -eq 0
wait "$HOLD_PID"; HOLD_PID=
echo "     hold: $(cat "$WORK/hold.out")"
shed=$(sed -n 's/.*closed=\([0-9]*\).*/\1/p' "$WORK/hold.out")
check "the attacker lost connections, not the others (it had $shed of its own closed)" \
    test "${shed:-0}" -gt 0

# ---- malformed requests in a loop ----
lg0=$(log_lines)
out=$(as_user 65534 "$PY" "$WORK/hostile.py" "$SOCK" garbage 5)
lg1=$(log_lines)
echo "     garbage: $out"
sent=$(sed -n 's/.*sent=\([0-9]*\).*/\1/p' <<<"$out")
closed=$(sed -n 's/.* closed=\([0-9]*\).*/\1/p' <<<"$out")
replies=$(sed -n 's/.*replies=\([0-9]*\).*/\1/p' <<<"$out")
check "malformed requests close the connection ($closed of $sent, $replies answered)" \
    test "${replies:-1}" -eq 0 -a "${closed:-0}" -gt 0 -a "${closed:-0}" -eq "${sent:--1}"
check "$sent malformed requests in 5 s logged $((lg1 - lg0)) lines (rate-limited: at most 100)" \
    test $((lg1 - lg0)) -le 100
check "a lookup after the garbage" lookup

# ---- the whole attack: CPU and log ----
sleep 1
c1=$(cpu_ticks); l1=$(log_lines); t1=$(now_ms)
hz=$(getconf CLK_TCK)
cpu_ms=$(( (c1 - c0) * 1000 / hz )); wall_ms=$(( t1 - t0 ))
echo "     sssd_nss: ${cpu_ms} ms of CPU in ${wall_ms} ms; $((l1 - l0)) log lines"
check "sssd_nss did not spin: ${cpu_ms} ms CPU in ${wall_ms} ms (bound: a quarter)" \
    test $((cpu_ms * 4)) -lt "$wall_ms"
check "the log did not explode: $((l1 - l0)) lines over the attack (bound 600)" \
    test $((l1 - l0)) -le 600
grep -q "suppressed" "$LOGS/sssd_nss.log" && echo "     (the log says how many lines it held back)"

summary
