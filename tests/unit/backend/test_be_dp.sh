#!/bin/bash
# Runs test_be_dp (cmocka) against a private slapd holding test_be.ldif plus a generated
# rfc2307bis group of 2,000 members (g_big, gid 20100). Exports to the program:
#   BE_TEST_URI        ldap://127.0.0.1:<port> of the slapd
#   BE_TEST_DEAD_URI   a URI on a port nobody listens on
#   BE_TEST_CTL        "<this script> ctl <slapd dir>": the program runs "$BE_TEST_CTL stop"
#                      and "$BE_TEST_CTL restart" to stop slapd and start it again on the
#                      same port (offline -> online tests)
#   BE_TEST_LOSSY_URI  the slapd behind tests/faults/fault_proxy.py, which resets its first
#                      two connections mid-answer (a lossy link)
# Exit 77 (automake SKIP) when slapd is not installed. BE_TEST_VALGRIND=1 runs the program
# under valgrind (definite leaks and memory errors fail the test).
set -u
here=$(cd "$(dirname "$0")" && pwd)
self="$here/$(basename "$0")"
top_srcdir=${srcdir:-$here/../../..}
. "$top_srcdir/tests/lib/slapd.sh"

# ctl DIR stop|restart: used by the program.
if [ "${1:-}" = ctl ]; then
    dir=$2
    case "$3" in
        stop) slapd_stop "$dir" ;;
        restart)
            uri=$(cat "$dir/uri") || exit 1
            port=${uri##*:}
            rm -f "$dir/slapd.pid"
            "$SLAPD_BIN" -f "$dir/slapd.conf" -h "$uri/" -n slapd-test >> "$dir/slapd.log" 2>&1
            for _ in $(seq 100); do
                if [ -f "$dir/slapd.pid" ] && (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
                    exit 0
                fi
                sleep 0.05
            done
            echo "slapd did not restart on $uri" >&2
            exit 1 ;;
        *) exit 2 ;;
    esac
    exit $?
fi

slapd_available || { echo "slapd not installed: skipped"; exit 77; }
bin=${TEST_BE_DP_BIN:-./test_be_dp}
[ -x "$bin" ] || { echo "$bin not built"; exit 99; }

tmp=$(mktemp -d "${TMPDIR:-/tmp}/test_be_dp.XXXXXX") || exit 99
proxy_pid=
cleanup() {
    [ -n "$proxy_pid" ] && kill "$proxy_pid" 2>/dev/null && wait "$proxy_pid" 2>/dev/null
    slapd_stop "$tmp/slapd"
    rm -rf "$tmp"
}
trap cleanup EXIT

cp "$here/test_be.ldif" "$tmp/data.ldif"
{
    printf '\ndn: ou=big,dc=test\nobjectClass: organizationalUnit\nou: big\n'
    for i in $(seq -w 1 2000); do
        printf '\ndn: uid=big%s,ou=big,dc=test\nobjectClass: account\nobjectClass: posixAccount\n' "$i"
        printf 'uid: big%s\ncn: big%s\nuidNumber: %d\ngidNumber: 20100\nhomeDirectory: /home/big%s\n' \
            "$i" "$i" $((30000 + 10#$i)) "$i"
    done
    printf '\ndn: cn=g_big,ou=groups,dc=test\nobjectClass: posixGroup\nobjectClass: extensibleObject\n'
    printf 'cn: g_big\ngidNumber: 20100\n'
    for i in $(seq -w 1 2000); do
        printf 'member: uid=big%s,ou=big,dc=test\n' "$i"
    done
} >> "$tmp/data.ldif"

uri=$(slapd_start "$tmp/slapd" "$tmp/data.ldif" "dc=test") || exit 99
export BE_TEST_URI=$uri
export BE_TEST_DEAD_URI="ldap://127.0.0.1:$(slapd_free_port)"
export BE_TEST_CTL="$self ctl $tmp/slapd"
python3 "$top_srcdir/tests/faults/fault_proxy.py" --listen 127.0.0.1:0 --target "127.0.0.1:${uri##*:}" \
    --port-file "$tmp/lossy.port" --reset-first 2 --reset-after 10 > "$tmp/lossy.log" 2>&1 &
proxy_pid=$!
for _ in $(seq 200); do
    [ -s "$tmp/lossy.port" ] && break
    sleep 0.05
done
[ -s "$tmp/lossy.port" ] || { echo "fault_proxy.py did not start: $(cat "$tmp/lossy.log")"; exit 99; }
export BE_TEST_LOSSY_URI="ldap://127.0.0.1:$(cat "$tmp/lossy.port")"

if [ "${BE_TEST_VALGRIND:-0}" = 1 ]; then
    valgrind --quiet --error-exitcode=1 --leak-check=full --errors-for-leak-kinds=definite \
        --show-leak-kinds=definite "$bin"
else
    "$bin"
fi
