#!/bin/bash
# The back-end end to end: a private slapd, our sssd, and sssd.dataprovider.getAccountInfo
# called with stock dbus-send over the master bus, as a responder would. Checks the answers,
# the cache file, the per-request log line, the offline answer and SetOffline when slapd
# stops, SetOnline when it comes back on the same port, the unsupported-provider answer and
# a request for another domain.
# Usage: test_backend.sh PREFIX   (run as root; PREFIX may also come from the environment)
set -u
PREFIX=$(cd "${1:-${PREFIX:?usage: test_backend.sh PREFIX}}" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
top_srcdir=${srcdir:-$here/../..}
. "$here/lib.sh"
. "$top_srcdir/tests/lib/slapd.sh"

if ! slapd_available; then
    echo "slapd not installed: skipped"
    exit 77
fi

DOM=ldap.test
DEST=sssd.domain_ldap_2etest
PDOM=proxy.test
PDEST=sssd.domain_proxy_2etest
CACHE=$PREFIX/var/lib/sss/db/cache_$DOM.ldb
BELOG=$LOGS/sssd_be_$DOM.log
WORK=$(mktemp -d /tmp/sssd-intg-be.XXXXXX)
MONPID=
cleanup() {
    [ -n "$MONPID" ] && kill "$MONPID" 2>/dev/null
    stop_sssd
    slapd_stop "$WORK/slapd"
    rm -rf "$WORK"
}
trap cleanup EXIT

# getAccountInfo DEST TYPE FILTER [DOMAIN] [REQ_ID] -> "dp_error error message" on one line
account() {
    local out
    out=$(dbus-send --address="$BUS_ADDR" --print-reply --reply-timeout=20000 --dest="$1" \
          /sssd sssd.dataprovider.getAccountInfo uint32:0 "uint32:$2" "string:$3" \
          "string:${4:-$DOM}" string: uint32:0 "uint64:${5:-42}" 2>&1)
    awk '/^ *uint16 /{d=$2} /^ *uint32 /{e=$2} /^ *string /{sub(/^ *string /, ""); m=$0}
         END {print d, e, m}' <<<"$out"
}

seen_signal() { # seen_signal MEMBER: dbus-monitor saw MEMBER("$DOM")
    grep -A1 "member=$1" "$WORK/monitor.log" | grep -q "string \"$DOM\""
}

slapd_restart() { # same config, same port
    local uri port
    uri=$(cat "$WORK/slapd/uri"); port=${uri##*:}
    /usr/sbin/slapd -f "$WORK/slapd/slapd.conf" -h "$uri/" -n slapd-test >> "$WORK/slapd/slapd.log" 2>&1
    for _ in $(seq 100); do
        [ -f "$WORK/slapd/slapd.pid" ] && (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && return 0
        sleep 0.05
    done
    return 1
}

uri=$(slapd_start "$WORK/slapd" "$top_srcdir/tests/unit/backend/test_be.ldif" dc=test) || exit 1

stop_sssd
rm -f "$CACHE" "$BELOG"
write_conf <<CONF
[sssd]
services = nss
domains = $DOM, $PDOM

[domain/$DOM]
id_provider = ldap
ldap_uri = $uri
ldap_search_base = dc=test
ldap_schema = rfc2307bis
offline_timeout = 2
debug_level = 6

[domain/$PDOM]
id_provider = proxy
proxy_lib_name = files
debug_level = 6
CONF

start_sssd
check "sssd -D starts" test $? -eq 0
check "the back-end of $DOM is on the bus" wait_name "$DEST" 5000
check "the cache file of $DOM exists" test -f "$CACHE"
check "the cache directory is mode 0700" test "$(stat -c %a "$(dirname "$CACHE")")" = 700

dbus-monitor --address "$BUS_ADDR" "type='signal',interface='sssd.Responder.Domain'" \
    > "$WORK/monitor.log" 2>&1 &
MONPID=$!
sleep 0.3

# ---- online lookups ----
size0=$(stat -c %s "$CACHE")
t0=$(now_ms)
r=$(account "$DEST" 1 name=alice)
t1=$(now_ms)
check "user name=alice: dp_error 0 ($r, $((t1 - t0)) ms with dbus-send)" test "${r%% *}" = 0
# tdb preallocates: the file need not grow for a few entries, so look for the entry itself.
check "alice is in the cache file" grep -qa "name=alice,cn=users" "$CACHE"
echo "     cache file: $size0 -> $(stat -c %s "$CACHE") bytes"
check "the back-end logged the request with its req_id" \
    grep -q "RID#42.*getAccountInfo user name=alice: dp_error 0" "$BELOG"
r=$(account "$DEST" 1 idnumber=10002)
check "user idnumber=10002: dp_error 0 ($r)" test "${r%% *}" = 0
check "bob is in the cache file" grep -qa "name=bob,cn=users" "$CACHE"
r=$(account "$DEST" 2 name=g_all)
check "group name=g_all: dp_error 0 ($r)" test "${r%% *}" = 0
r=$(account "$DEST" 3 name=alice)
check "initgroups name=alice: dp_error 0 ($r)" test "${r%% *}" = 0
r=$(account "$DEST" 1 name=nosuchuser)
check "an unknown user: dp_error 0 (the cache says not found) ($r)" test "${r%% *}" = 0
r=$(account "$DEST" 1 bogus)
check "a malformed filter: dp_error 3, error 22 ($r)" test "${r%% *}" = 3 -a "$(cut -d' ' -f2 <<<"$r")" = 22
r=$(account "$DEST" 1 name=alice other.domain)
check "another domain: dp_error 3, error 22 ($r)" test "${r%% *}" = 3 -a "$(cut -d' ' -f2 <<<"$r")" = 22

# ---- an unsupported id provider says so ----
if wait_name "$PDEST" 3000; then
    r=$(account "$PDEST" 1 name=alice "$PDOM")
    check "id_provider proxy: dp_error 3, ENOTSUP, says so ($r)" \
        grep -q "^3 95 .*id_provider proxy is not supported by this build" <<<"$r"
    check "and the back-end said so at start" \
        grep -q "id_provider proxy is not supported" "$LOGS/sssd_be_$PDOM.log"
else
    fail "the back-end of $PDOM is not on the bus"
fi

# ---- offline ----
slapd_stop "$WORK/slapd"
t0=$(now_ms)
r=$(account "$DEST" 1 name=carol)
t1=$(now_ms)
check "slapd stopped: dp_error 1 (offline) in $((t1 - t0)) ms ($r)" test "${r%% *}" = 1
t0=$(now_ms)
r=$(account "$DEST" 2 name=g_dev)
t1=$(now_ms)
check "while offline: dp_error 1 at once ($((t1 - t0)) ms)" test "${r%% *}" = 1
sleep 0.3
check "dbus-monitor saw SetOffline($DOM)" seen_signal SetOffline

# ---- back online (offline_timeout = 2) ----
slapd_restart
check "slapd restarted on the same port" test $? -eq 0
t0=$(now_ms)
online=0
while [ $(( $(now_ms) - t0 )) -lt 6000 ]; do
    if seen_signal SetOnline; then
        online=1; break
    fi
    sleep 0.1
done
check "SetOnline($DOM) within offline_timeout + margin ($(( $(now_ms) - t0 )) ms)" test $online = 1
r=$(account "$DEST" 1 name=carol)
check "online again: dp_error 0 ($r)" test "${r%% *}" = 0
check "SetActive($DOM) followed SetOnline" \
    sh -c "sed -n '/member=SetOnline/,\$p' '$WORK/monitor.log' | grep -q 'member=SetActive'"

summary
