#!/bin/bash
# The star: one monitor, one master bus, five services. Checked through stock dbus-send and
# dbus-monitor, kill -9, SIGSTOP, SIGHUP and SIGTERM, as an administrator would.
# Usage: test_star.sh PREFIX   (run as root)
set -u
PREFIX=$(cd "$1" && pwd)
. "$(dirname "$0")/lib.sh"

DOM2=corp-2.example
DOM2_BUS=sssd.domain_corp_2d2_2eexample
NAMES="sssd.monitor sssd.nss sssd.pam sssd.sudo sssd.domain_ldap_2etest $DOM2_BUS"
WORK=$(mktemp -d /tmp/sssd-intg.XXXXXX)
MONPID=
cleanup() {
    [ -n "$MONPID" ] && kill "$MONPID" 2>/dev/null
    stop_sssd
    rm -rf "$WORK"
}
trap cleanup EXIT

write_conf <<CONF
[sssd]
services = nss, pam, sudo
domains = ldap.test, $DOM2

# Level 6 logs each signal a responder receives, which the checks below read.
[nss]
debug_level = 6
[pam]
debug_level = 6
[sudo]
debug_level = 6
# A short heartbeat, so a hung service is found quickly here.
timeout = 1

[domain/ldap.test]
id_provider = ldap
ldap_uri = ldap://127.0.0.1:3899
ldap_search_base = dc=ldap,dc=test

[domain/$DOM2]
id_provider = ldap
ldap_uri = ldap://127.0.0.1:3898
CONF

# ---- start-up ----
t0=$(now_ms)
start_sssd
rc=$?
t1=$(now_ms)
check "sssd -D returns 0 once the star is up" test "$rc" -eq 0
echo "     start-up (sssd -D until every service registered): $((t1 - t0)) ms"
grep -h "services registered" "$LOGS/sssd.log" | tail -n1 | sed 's/^/     /'

names=$(bus_names)
for n in $NAMES; do
    check "ListNames lists $n" grep -q "string \"$n\"" <<<"$names"
done

check "the master bus socket is mode 0600" test "$(stat -c %a "$BUS_SOCK")" = 600
check "the private pipes directory is mode 0700" test "$(stat -c %a "$PIPES/private")" = 700
# Exactly one D-Bus server socket: the master bus. The other listening sockets of the suite
# may only be the client-protocol pipes of PROTOCOL.md (nss, pam, private/pam, sudo).
# Only this suite's processes count (other suites may run on the machine at the same time).
suite_pids=$(all_suite_pids | paste -sd'|')
listening=$(ss -xlpn 2>/dev/null | grep -E "users:\(\(\"sssd(_[a-z]+)?\",pid=($suite_pids)," |
            awk '{print $5}' | sort -u)
bus_sockets=$(grep -c '/sbus' <<<"$listening")
others=$(grep -v -x -e "$BUS_SOCK" -e "$PIPES/nss" -e "$PIPES/pam" -e "$PIPES/private/pam" \
         -e "$PIPES/sudo" <<<"$listening" | tr '\n' ' ')
check "the master bus is listening" grep -qx "$BUS_SOCK" <<<"$listening"
check "exactly one D-Bus server socket ($bus_sockets) and no unexpected socket ($others)" \
    test "$bus_sockets" -eq 1 -a -z "$others"
check "pid file holds the monitor's pid" kill -0 "$(monitor_pid)"

# ---- a second instance is refused ----
out=$("$SBIN/sssd" -i -c "$CONF" 2>&1); rc=$?
check "a second sssd is refused with status 1" test "$rc" -eq 1
check "and says why: '$out'" grep -q "another instance is running" <<<"$out"

# ---- bus daemon methods through stock dbus-send ----
out=$(dbus-send --address="$BUS_ADDR" --print-reply --dest=org.freedesktop.DBus \
      /org/freedesktop/DBus org.freedesktop.DBus.GetNameOwner string:sssd.nss 2>&1)
check "GetNameOwner(sssd.nss) gives a unique name" grep -q 'string ":1\.' <<<"$out"
out=$(dbus-send --address="$BUS_ADDR" --print-reply --dest=sssd.nss /sssd sssd.service.Ping 2>&1)
check "sssd.service.Ping on sssd.nss answers" grep -q "method return" <<<"$out"
out=$(dbus-send --address="$BUS_ADDR" --print-reply --dest=sssd.nowhere /sssd sssd.service.Ping 2>&1)
check "a call to an unknown name fails with ServiceUnknown" grep -q "ServiceUnknown" <<<"$out"

# ---- dbus-monitor sees the signals that flow ----
# dbus-monitor takes "--address ADDRESS" (no "=").
dbus-monitor --address "$BUS_ADDR" > "$WORK/monitor.log" 2>&1 &
MONPID=$!
sleep 0.3

# A non-root client is refused by the master bus itself (EXTERNAL uid check), not only by
# the 0700 directory: open the path up for this one check.
chmod 0711 "$PIPES/private"; chmod 0666 "$BUS_SOCK"
out=$(setpriv --reuid=65534 --regid=65534 --clear-groups dbus-send --address="$BUS_ADDR" \
      --print-reply --dest=org.freedesktop.DBus /org/freedesktop/DBus \
      org.freedesktop.DBus.ListNames 2>&1); rc=$?
chmod 0700 "$PIPES/private"; chmod 0600 "$BUS_SOCK"
if [ "$rc" -ne 0 ] && ! grep -qi "permission denied" <<<"$out" && ! grep -q "string" <<<"$out"; then
    ok "a non-root client is refused by the bus: $out"
else
    fail "a non-root client: status $rc: $out"
fi
check "the bus still works for root afterwards" has_name sssd.nss

# ---- kill -9 of every service: restarted, name back within 5 s, calls fail fast meanwhile ----
for svc in nss pam sudo be:ldap.test be:$DOM2; do
    case $svc in
        be:ldap.test) name=sssd.domain_ldap_2etest; pidf() { be_pid ldap.test; } ;;
        be:*)         name=$DOM2_BUS;               pidf() { be_pid "$DOM2"; } ;;
        *)            name=sssd.$svc;               pidf() { service_pid "sssd_$svc"; } ;;
    esac
    # First death: restarted at once, by a new process under a new unique name.
    pid=$(pidf); owner=$(name_owner "$name")
    if [ -z "$pid" ] || [ -z "$owner" ]; then
        fail "$name: no process ($pid) or no owner ($owner) to kill"
        continue
    fi
    kill -9 "$pid"
    t0=$(now_ms)
    if wait_new_owner "$name" "$owner" 5000 && [ "$(pidf)" != "$pid" ]; then
        ok "$name back on the bus $(( $(now_ms) - t0 )) ms after kill -9 (pid $pid -> $(pidf))"
    else
        fail "$name not back within 5 s of kill -9"
    fi
    # Let the new process register, then kill it again: a quick failure, restarted after a
    # 1 s back-off, the window in which calls to it must fail at once.
    sleep 0.3
    pid=$(pidf); owner=$(name_owner "$name")
    kill -9 "$pid"
    # Wait until the bus has seen it go (the name has no owner), then call it.
    for _ in $(seq 100); do [ -z "$(name_owner "$name")" ] && break; sleep 0.01; done
    t0=$(now_ms)
    out=$(dbus-send --address="$BUS_ADDR" --print-reply --reply-timeout=20000 --dest="$name" \
          /sssd sssd.service.Ping 2>&1)
    t1=$(now_ms)
    if grep -q ServiceUnknown <<<"$out" && [ $((t1 - t0)) -lt 1000 ]; then
        ok "a call to $name while it is gone fails with ServiceUnknown in $((t1 - t0)) ms"
    else
        fail "a call to $name while gone: '$out' after $((t1 - t0)) ms"
    fi
    if wait_new_owner "$name" "$owner" 5000; then
        ok "$name back on the bus after its second kill -9 ($(( $(now_ms) - t0 )) ms)"
    else
        fail "$name not back within 5 s of its second kill -9"
    fi
done
sleep 0.5
check "NameOwnerChanged for sssd.nss went out" grep -q 'string "sssd.nss"' "$WORK/monitor.log"
check "a service's signal was seen by dbus-monitor (SetActive from a restarted back-end)" \
    grep -q "interface=sssd.Responder.Domain; member=SetActive" "$WORK/monitor.log"
# The responders that listen for SetActive got it; the log lines prove the delivery.
for r in nss pam sudo; do
    check "sssd_$r received SetActive" grep -q "Domain ldap.test is now active" "$LOGS/sssd_$r.log"
done

# ---- a hung service is found by the heartbeat and replaced ----
old=$(service_pid sssd_sudo)
kill -STOP "$old"
t0=$(now_ms)
deadline=$(( t0 + 15000 ))
new=$old
while [ "$(now_ms)" -lt "$deadline" ]; do
    new=$(service_pid sssd_sudo)
    [ -n "$new" ] && [ "$new" != "$old" ] && has_name sssd.sudo && break
    sleep 0.1
done
if [ -n "$new" ] && [ "$new" != "$old" ]; then
    ok "a stopped (hung) sssd_sudo was killed and restarted in $(( $(now_ms) - t0 )) ms"
else
    fail "a hung sssd_sudo was not replaced within 15 s"
    kill -CONT "$old" 2>/dev/null
fi

# ---- SIGHUP: logs rotate, services are told ----
mv "$LOGS/sssd_nss.log" "$LOGS/sssd_nss.log.1"
kill -HUP "$(monitor_pid)"
sleep 0.5
check "SIGHUP: RotateLogs signal on the bus" grep -q "member=RotateLogs" "$WORK/monitor.log"
check "SIGHUP: ClearMemcache signal on the bus" grep -q "member=ClearMemcache" "$WORK/monitor.log"
check "SIGHUP: sssd_nss reopened its log file" test -f "$LOGS/sssd_nss.log"

# ---- idle CPU ----
cpu_ticks() { local t=0 p; for p in $(all_suite_pids); do
    t=$(( t + $(awk '{print $14 + $15}' "/proc/$p/stat" 2>/dev/null || echo 0) )); done; echo $t; }
c0=$(cpu_ticks); s0=$(now_ms)
sleep 10
c1=$(cpu_ticks); s1=$(now_ms)
hz=$(getconf CLK_TCK)
pct=$(awk -v c=$((c1 - c0)) -v hz="$hz" -v ms=$((s1 - s0)) 'BEGIN { printf "%.3f", 100 * c / hz / (ms / 1000) }')
echo "     idle star: $((c1 - c0)) ticks in $((s1 - s0)) ms = ${pct}% of one CPU (all processes)"
check "an idle star uses under 0.5% CPU (${pct}%)" awk -v p="$pct" 'BEGIN { exit !(p < 0.5) }'

# ---- SIGTERM: everything stops and cleans up ----
kill "$MONPID" 2>/dev/null; MONPID=
mon=$(monitor_pid)
kill -TERM "$mon"
for _ in $(seq 100); do kill -0 "$mon" 2>/dev/null || break; sleep 0.05; done
check "SIGTERM stops the monitor" bash -c "! kill -0 $mon 2>/dev/null"
check "no service process is left" test -z "$(all_suite_pids)"
check "the master bus socket is removed" test ! -e "$BUS_SOCK"
check "the pid file is removed" test ! -e "$PIDFILE"

summary
