#!/bin/bash
# sssctl analyze against the files logger output of a live star with a real slapd: a cold
# lookup (getent passwd alice) is found by "request list" and followed by "request show"
# through sssd_nss, the master bus (sssd), the back-end, the master again and sssd_nss, in
# time order, with stage durations that add up to the request's; a warm lookup stays in sssd_nss; text and --json; garbage
# lines in a log are skipped; an unknown id is an error; --logdir reads a copy elsewhere.
# Usage: test_sssctl_analyze.sh PREFIX   (run as root)
set -u
PREFIX=$(cd "$1" && pwd)
TOP=$(cd "$(dirname "$0")/../.." && pwd)
TEST_NAME=sssctl-analyze
. "$TOP/tests/intg/slapd_env.sh"

SSSCTL=$SBIN/sssctl
DOM=ldap.test

run() { out=$("$SSSCTL" "$@" 2>"$WORK/err"); rc=$?; err=$(cat "$WORK/err"); }
json_ok() { python3 -m json.tool >/dev/null 2>&1 <<<"$out"; }
jqv() { jq -r "$1" <<<"$out"; }

uri=$(slapd_start "$WORK/slapd" "$TOP/tests/unit/backend/test_be.ldif" dc=test) || exit 1
write_conf <<CONF
[sssd]
services = nss
domains = $DOM
debug_level = 6

[nss]
debug_level = 6

[domain/$DOM]
id_provider = ldap
ldap_uri = $uri
ldap_search_base = dc=test
ldap_schema = rfc2307bis
debug_level = 6
CONF
rm -f "$LOGS"/*.log
start_sssd
check "sssd starts" test $? -eq 0
check "the back-end is on the bus" wait_name sssd.domain_ldap_2etest 5000
check "sssd_nss is on the bus" wait_name sssd.nss 5000

check "a cold lookup: getent passwd alice" eval 'in_nss_ns getent passwd alice >/dev/null'
check "a warm lookup, memory cache off: getent passwd alice" \
    eval 'in_nss_ns env SSS_NSS_USE_MEMCACHE=NO getent passwd alice >/dev/null'
printf 'garbage line\n(2026-13-99 broken\n' >> "$LOGS/sssd_nss.log"

run analyze request list --json
check "request list --json: status 0, parses" eval 'test "$rc" -eq 0 && json_ok'
cold=$(jqv '[.requests[] | select(.summary | test("GETPWNAM alice: found in .*\\(dp\\)"))][0].id')
warm=$(jqv '[.requests[] | select(.summary | test("GETPWNAM alice: found in .*\\(cache\\)"))][0].id')
check "the cold lookup is listed ($cold)" test -n "$cold" -a "$cold" != null
check "the warm lookup is listed ($warm)" test -n "$warm" -a "$warm" != null
check "the cold one went through sssd_nss, the master and the back-end" \
    test "$(jqv ".requests[] | select(.id == \"$cold\") | .processes")" = "sssd_nss, sssd, sssd_be_$DOM"
check "the warm one stayed in sssd_nss" \
    test "$(jqv ".requests[] | select(.id == \"$warm\") | .processes")" = "sssd_nss"
run analyze request list
check "request list text: a row for the cold lookup and a summary line" \
    eval 'grep -q "^$cold .*GETPWNAM alice" <<<"$out" && grep -q "^[0-9]* requests* in $LOGS" <<<"$out"'

run analyze request show "$cold" --json
check "request show --json: status 0, parses" eval 'test "$rc" -eq 0 && json_ok'
check "stages: sssd_nss, the master, the back-end, the master, sssd_nss" \
    test "$(jqv '[.stages[].process] | join(" ")')" = "sssd_nss sssd sssd_be_$DOM sssd sssd_nss"
check "the master routed the call and its reply, under the request's id" \
    eval 'jqv ".lines[] | select(.process == \"sssd\") | .message" | grep -q "^Bus call sssd.dataprovider.getAccountInfo from sssd.nss to sssd.domain_ldap_2etest" &&
          jqv ".lines[] | select(.process == \"sssd\") | .message" | grep -q "^Bus reply from sssd.domain_ldap_2etest to sssd.nss"'
check "stage durations add up to the request's" \
    test "$(jqv '[.stages[].duration_usec] | add')" = "$(jqv .duration_usec)"
check "lines in time order" \
    test "$(jqv '[.lines[].offset_usec] | . == sort')" = true
check "the back-end stage has the LDAP search and the per-request line" \
    eval 'jqv ".lines[] | select(.process == \"sssd_be_$DOM\") | .message" | grep -q "search 1:.*uid=alice" &&
          jqv ".lines[] | select(.process == \"sssd_be_$DOM\") | .message" | grep -q "getAccountInfo user name=alice: dp_error 0"'
check "it starts with the client's packet and ends with the answer" \
    test "$(jqv '.lines[0].function + " " + .lines[-1].function')" = "resp_client_dispatch resp_client_write"
run analyze request show "$cold"
check "request show text: the stage table" \
    eval 'grep -Eq "^2  +sssd  +\+[0-9.]+ ms  +[0-9.]+ ms" <<<"$out" &&
          grep -Eq "^3  +sssd_be_$DOM  +\+[0-9.]+ ms  +[0-9.]+ ms" <<<"$out"'
echo "$out" | head -8 | sed 's/^/     | /'

run analyze request show 12345
check "an unknown id: status 1, says so" \
    eval 'test "$rc" -eq 1 && grep -q "no log line of request 12345" <<<"$err"'
run analyze request show bogus
check "a malformed id: status 1" test "$rc" -eq 1
mkdir -p "$WORK/copy" && cp "$LOGS"/*.log "$WORK/copy/"
run analyze --logdir "$WORK/copy" request show "$cold" --json
check "--logdir reads a copy of the logs" test "$(jqv '.stages | length')" = 5

summary
