#!/bin/bash
# Runs test_sdap (cmocka) against a private slapd holding test_sdap.ldif plus a generated
# rfc2307bis group of 5,000 members (and g_2k, of 2,000 of them), with size and
# administrative limits for two bind DNs and a default referral. Exports to the program:
#   SDAP_TEST_URI         ldap://127.0.0.1:<port> of the slapd
#   SDAP_TEST_DEAD_URI    two URIs on ports nobody listens on (failover tests)
#   SDAP_TEST_DEAD_URI2
#   SDAP_TEST_SLAPD_PID   so the program can SIGSTOP/SIGCONT the server (timeout test)
#   SDAP_TEST_PROXY_URI   the slapd behind tests/faults/fault_proxy.py, which the program
#   SDAP_TEST_PROXY_PID   makes refuse (SIGHUP) and relay again (SIGUSR2) (fail back test)
#   SDAP_TEST_LOSSY_URI   the slapd behind a fault_proxy.py resetting its first connection
# Exit 77 (automake SKIP) when slapd is not installed. SDAP_TEST_VALGRIND=1 runs the program
# under valgrind (definite leaks and memory errors fail the test).
set -u
here=$(cd "$(dirname "$0")" && pwd)
top_srcdir=${srcdir:-$here/../../..}
. "$top_srcdir/tests/lib/slapd.sh"

slapd_available || { echo "slapd not installed: skipped"; exit 77; }
bin=${TEST_SDAP_BIN:-./test_sdap}
[ -x "$bin" ] || { echo "$bin not built"; exit 99; }

tmp=$(mktemp -d "${TMPDIR:-/tmp}/test_sdap.XXXXXX") || exit 99
proxy_pids=
cleanup() {
    [ -n "$proxy_pids" ] && kill $proxy_pids 2>/dev/null && wait $proxy_pids 2>/dev/null
    slapd_stop "$tmp/slapd"
    rm -rf "$tmp"
}
trap cleanup EXIT

# The static data, then 5,000 users, one group holding them all, g_2k and g_sub.
cp "$here/test_sdap.ldif" "$tmp/data.ldif"
awk 'BEGIN {
    printf "\ndn: ou=big,ou=bis,dc=test\nobjectClass: organizationalUnit\nou: big\n";
    for (i = 1; i <= 5000; i++) {
        printf "\ndn: uid=big%05d,ou=big,ou=bis,dc=test\nobjectClass: account\n", i;
        printf "objectClass: posixAccount\nuid: big%05d\ncn: big%05d\n", i, i;
        printf "uidNumber: %d\ngidNumber: 40100\nhomeDirectory: /home/big%05d\n", 60000 + i, i;
    }
    printf "\ndn: cn=g_big,ou=groups,ou=bis,dc=test\nobjectClass: posixGroup\n";
    printf "objectClass: extensibleObject\ncn: g_big\ngidNumber: 40100\n";
    for (i = 1; i <= 5000; i++) printf "member: uid=big%05d,ou=big,ou=bis,dc=test\n", i;
    # g_2k: 2,000 of them, a user outside ou=bis, a nested group, and a DN naming twin in
    # the wrong OU (twin lives in ou=people2): it must not be taken from the uid=twin batch.
    printf "\ndn: cn=g_2k,ou=groups,ou=bis,dc=test\nobjectClass: posixGroup\n";
    printf "objectClass: extensibleObject\ncn: g_2k\ngidNumber: 40101\n";
    for (i = 1; i <= 2000; i++) printf "member: uid=big%05d,ou=big,ou=bis,dc=test\n", i;
    printf "member: uid=rawok,ou=raw,dc=test\n";
    printf "member: cn=g_sub,ou=groups,ou=bis,dc=test\n";
    printf "member: uid=twin,ou=people,ou=bis,dc=test\n";
    printf "\ndn: cn=g_sub,ou=groups,ou=bis,dc=test\nobjectClass: posixGroup\n";
    printf "objectClass: extensibleObject\ncn: g_sub\ngidNumber: 40102\n";
    printf "member: uid=big04999,ou=big,ou=bis,dc=test\n";
    # g_ghosts: 600 member DNs of entries that do not exist, one that does, and frank, a
    # user whose DN is shaped like a group'"'"'s (cn=, where the user and group bases are one).
    printf "\ndn: ou=mixed,ou=bis,dc=test\nobjectClass: organizationalUnit\nou: mixed\n";
    printf "\ndn: cn=frank,ou=mixed,ou=bis,dc=test\nobjectClass: account\n";
    printf "objectClass: posixAccount\nuid: frank\ncn: frank\nuidNumber: 40555\n";
    printf "gidNumber: 40103\nhomeDirectory: /home/frank\n";
    printf "\ndn: cn=g_ghosts,ou=groups,ou=bis,dc=test\nobjectClass: posixGroup\n";
    printf "objectClass: extensibleObject\ncn: g_ghosts\ngidNumber: 40103\n";
    for (i = 1; i <= 600; i++) printf "member: uid=ghost%05d,ou=big,ou=bis,dc=test\n", i;
    printf "member: uid=big00001,ou=big,ou=bis,dc=test\n";
    printf "member: cn=frank,ou=mixed,ou=bis,dc=test\n";
}' >> "$tmp/data.ldif"

export SLAPD_EXTRA_SCHEMA="$here/test_sdap.schema"
uri=$(slapd_start "$tmp/slapd" "$tmp/data.ldif" "dc=test") || exit 99
# Limits for the partial-answer tests, in the database section (slapd.sh writes none):
# cn=limited gets 3 entries per search, cn=unchecked an administrative limit of 2
# candidates; a search outside the naming context is answered with a referral. slapd is
# restarted on the same port with them.
slapd_stop "$tmp/slapd"
printf '%s\n' 'limits dn.exact="cn=limited,dc=test" size=3' \
    'limits dn.exact="cn=unchecked,dc=test" size.unchecked=2' >> "$tmp/slapd/slapd.conf"
sed -i "1i referral ldap://127.0.0.1:9/" "$tmp/slapd/slapd.conf"
"$SLAPD_BIN" -f "$tmp/slapd/slapd.conf" -h "$uri/" -n slapd-test >> "$tmp/slapd/slapd.log" 2>&1
for _ in $(seq 100); do
    [ -f "$tmp/slapd/slapd.pid" ] && (exec 3<>"/dev/tcp/127.0.0.1/${uri##*:}") 2>/dev/null && break
    sleep 0.05
done
[ -f "$tmp/slapd/slapd.pid" ] || { echo "slapd did not restart with the limits"; exit 99; }
export SDAP_TEST_URI=$uri
export SDAP_TEST_DEAD_URI="ldap://127.0.0.1:$(slapd_free_port)"
export SDAP_TEST_DEAD_URI2="ldap://127.0.0.1:$(slapd_free_port)"
export SDAP_TEST_SLAPD_PID=$(slapd_pid "$tmp/slapd")
# start_proxy NAME [fault_proxy.py options]: prints its port, its pid goes in proxy_pids.
start_proxy() {
    local name=$1
    shift
    python3 "$top_srcdir/tests/faults/fault_proxy.py" --listen 127.0.0.1:0 \
        --target "127.0.0.1:${uri##*:}" --port-file "$tmp/$name.port" "$@" \
        > "$tmp/$name.log" 2>&1 &
    echo $! > "$tmp/$name.pid"
    for _ in $(seq 200); do
        [ -s "$tmp/$name.port" ] && return 0
        sleep 0.05
    done
    echo "fault_proxy.py did not start: $(cat "$tmp/$name.log")"
    return 1
}
start_proxy proxy || exit 99
# The first connection is reset after 10 bytes of the answer, the next ones are not.
start_proxy lossy --reset-first 1 --reset-after 10 || exit 99
proxy_pids="$(cat "$tmp/proxy.pid") $(cat "$tmp/lossy.pid")"
export SDAP_TEST_PROXY_URI="ldap://127.0.0.1:$(cat "$tmp/proxy.port")"
export SDAP_TEST_PROXY_PID=$(cat "$tmp/proxy.pid")
export SDAP_TEST_LOSSY_URI="ldap://127.0.0.1:$(cat "$tmp/lossy.port")"

if [ "${SDAP_TEST_VALGRIND:-0}" = 1 ]; then
    valgrind --quiet --error-exitcode=1 --leak-check=full --errors-for-leak-kinds=definite \
        --show-leak-kinds=definite "$bin"
else
    "$bin"
fi
