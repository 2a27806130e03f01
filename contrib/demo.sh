#!/bin/bash
# Starts the suite on a demo configuration in a private prefix (./_demo) and shows the star
# through stock D-Bus tools. Nothing outside the checkout changes (except Debian packages
# installed by tests/install-deps.sh).
#   sudo ./contrib/demo.sh         build, start, show
#   sudo ./contrib/demo.sh stop    stop the demo suite
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
prefix=$top/_demo
conf=$prefix/etc/sssd/sssd.conf
bus=unix:path=$prefix/var/lib/sss/pipes/private/sbus-master

if [ "$(id -u)" -ne 0 ]; then
    echo "demo.sh: run as root (the suite and its bus are root's)" >&2
    exit 1
fi
if [ "${1:-}" = stop ]; then
    pid=$(cat "$prefix/var/run/sssd.pid" 2>/dev/null || true)
    [ -n "$pid" ] && kill "$pid" && echo "stopped sssd (pid $pid)"
    exit 0
fi

"$top/tests/install-deps.sh"
cd "$top"
[ -x configure ] || ./autogen.sh > /dev/null
mkdir -p build/demo && cd build/demo
[ -f Makefile ] || ../../configure -q --prefix="$prefix"
make -s -j"$(nproc)" > /dev/null
make -s install > /dev/null

mkdir -p "$prefix/etc/sssd"
cat > "$conf" <<EOF
[sssd]
services = nss, pam, sudo
domains = ldap.test, corp.example

[nss]
[pam]
[sudo]

[domain/ldap.test]
id_provider = ldap
ldap_uri = ldap://127.0.0.1:3899
ldap_search_base = dc=ldap,dc=test

[domain/corp.example]
id_provider = ldap
ldap_uri = ldap://127.0.0.1:3898
EOF
chmod 0600 "$conf"

"$prefix/sbin/sssd" -c "$conf" -D 2>/dev/null && true
pid=$(cat "$prefix/var/run/sssd.pid")
echo "sssd is running (pid $pid), configuration $conf"
grep -h "services registered" "$prefix/var/log/sssd/sssd.log" | tail -n1
echo
echo "\$ dbus-send --address=$bus --print-reply --dest=org.freedesktop.DBus /org/freedesktop/DBus org.freedesktop.DBus.ListNames"
dbus-send --address="$bus" --print-reply --dest=org.freedesktop.DBus /org/freedesktop/DBus \
    org.freedesktop.DBus.ListNames
echo
echo "\$ dbus-send --address=$bus --print-reply --dest=sssd.domain_ldap_2etest /sssd sssd.service.Ping"
dbus-send --address="$bus" --print-reply --dest=sssd.domain_ldap_2etest /sssd sssd.service.Ping
echo
echo "Signals on the bus while sssd_be for ldap.test is killed and restarted, and on SIGHUP:"
dbus-monitor --address "$bus" "type='signal'" > "$prefix/monitor.out" 2>&1 &
mon=$!
sleep 0.3
kill -9 "$(pgrep -f "^$prefix/libexec/sssd/sssd_be .*--domain ldap.test\$")"
sleep 0.5
kill -HUP "$pid"
sleep 0.5
kill "$mon"
grep '^signal' "$prefix/monitor.out" | grep -v NameAcquired | sed -E 's/ time=[0-9.]+//; s/serial=[0-9]+ //'
echo
echo "Processes:"
ps -o pid,ppid,rss,args --ppid "$pid" -p "$pid"
echo
echo "Logs: $prefix/var/log/sssd/   Stop: sudo $0 stop"
