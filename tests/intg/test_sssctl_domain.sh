#!/bin/bash
# sssctl against a live star and a real slapd: refused for non-root (setpriv), domain-list
# and domain-status in text and --json (parsed by python3 -m json.tool, read with jq);
# the failover view (a dead primary "not working" with its error, the real server
# "active"); offline when slapd stops (since when, why, next probe) and online again
# after it comes back; debug-level reads and sets every process at once without a restart.
# Usage: test_sssctl_domain.sh PREFIX   (run as root)
set -u
PREFIX=$(cd "$1" && pwd)
TOP=$(cd "$(dirname "$0")/../.." && pwd)
TEST_NAME=sssctl-domain
. "$TOP/tests/intg/slapd_env.sh"

SSSCTL=$SBIN/sssctl
DOM=ldap.test
DEST=sssd.domain_ldap_2etest

run() { # run ARGS... -> $rc, $out (stdout), $err (stderr)
    out=$("$SSSCTL" "$@" 2>"$WORK/err"); rc=$?; err=$(cat "$WORK/err")
}
json_ok() { python3 -m json.tool >/dev/null 2>&1 <<<"$out"; }
jqv() { jq -r "$1" <<<"$out"; }

slapd_restart() { # the same server on the same port
    local uri port
    uri=$(cat "$WORK/slapd/uri"); port=${uri##*:}
    "$SLAPD_BIN" -f "$WORK/slapd/slapd.conf" -h "$uri/" -n slapd-test >> "$WORK/slapd/slapd.log" 2>&1
    for _ in $(seq 100); do
        [ -f "$WORK/slapd/slapd.pid" ] && (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && return 0
        sleep 0.05
    done
    return 1
}

uri=$(slapd_start "$WORK/slapd" "$TOP/tests/unit/backend/test_be.ldif" dc=test) || exit 1
dead="ldap://127.0.0.1:$(slapd_free_port)"     # nothing listens there

write_conf <<CONF
[sssd]
services = nss, pam
domains = $DOM

[domain/$DOM]
id_provider = ldap
ldap_uri = $dead, $uri
ldap_search_base = dc=test
ldap_schema = rfc2307bis
offline_timeout = 2
CONF

# ---- non-root ----
out=$(setpriv --reuid=65534 --regid=65534 --clear-groups "$SSSCTL" domain-list 2>&1); rc=$?
check "non-root: refused, status 1 ($rc)" test "$rc" -eq 1
check "non-root: says root is needed ($out)" grep -q "must be run as root" <<<"$out"
run frobnicate
check "unknown command: status 1 and a message" \
    eval 'test "$rc" -eq 1 && grep -q "unknown command" <<<"$err"'

# ---- the suite is down ----
run domain-list
check "domain-list with sssd down: status 0 ($rc)" test "$rc" -eq 0
check "lists the domain, not running" grep -q "^$DOM  *not running" <<<"$out"
run domain-status "$DOM"
check "domain-status with sssd down: status 1, says why ($err)" \
    eval 'test "$rc" -eq 1 && grep -q "is sssd running" <<<"$err"'

start_sssd
check "sssd starts" test $? -eq 0
check "the back-end is on the bus" wait_name "$DEST" 5000
check "sssd_nss is on the bus" wait_name sssd.nss 5000
check "sssd_pam is on the bus" wait_name sssd.pam 5000

# ---- domain-list ----
run domain-list
check "domain-list: status 0" test "$rc" -eq 0
check "domain-list: $DOM running, online" grep -q "^$DOM  *running  *online" <<<"$out"
check "domain-list: a summary line" grep -q "^1 domain, 1 online" <<<"$out"
run domain-list --json
check "domain-list --json parses" json_ok
check "domain-list --json: the domain, running, online" \
    test "$(jqv '.domains[0] | "\(.name) \(.running) \(.online)"')" = "$DOM true true"
run domain-status nosuch.test
check "domain-status of an unknown domain: status 1 ($err)" \
    eval 'test "$rc" -eq 1 && grep -q "not configured" <<<"$err"'

# ---- online, after a lookup that failed over from the dead primary ----
check "getent passwd alice" in_nss_ns getent passwd alice
run domain-status "$DOM"
check "domain-status: status 0" test "$rc" -eq 0
check "domain-status: Online" grep -q "^Online status: Online" <<<"$out"
check "domain-status: active server is slapd" grep -q "^Active server: $uri\$" <<<"$out"
check "domain-status: the dead primary is not working, with its error" \
    grep -Eq "^  $dead  +primary  +not working  +never  +[0-9]+ s ago  +[A-Za-z]" <<<"$out"
check "domain-status: slapd is active, contacted" \
    grep -Eq "^  $uri  +primary  +active  +[0-9]+ s ago  +never  +-" <<<"$out"
check "domain-status: a summary line" grep -q "^2 servers configured" <<<"$out"
echo "$out" | sed 's/^/     | /'
run domain-status "$DOM" --json
check "domain-status --json parses" json_ok
check "--json: online true, active server" \
    test "$(jqv '"\(.online) \(.active_server)"')" = "true $uri"
check "--json: two servers in order, states" \
    test "$(jqv '[.servers[] | "\(.uri)=\(.state)"] | join(" ")')" = "$dead=not working $uri=active"
check "--json: the dead one has an error and a failure time, no contact" \
    test "$(jqv '.servers[0] | "\(.last_error != null) \(.last_failure > 0) \(.last_contact)"')" = "true true null"
check "--json: since is a time in the past" \
    eval 'test "$(jqv .since)" -le "$(date +%s)"'
run domain-status "$DOM" --active-server
check "--active-server prints only that" \
    test "$out" = "Active server: $uri"
run domain-status "$DOM" --online --json
check "--online --json: only domain and the online keys" \
    test "$(jqv 'keys | join(",")')" = "domain,next_retry_seconds,online,reason,since"
run domain-status "$DOM" --bogus
check "an unknown option: status 1" test "$rc" -eq 1

# ---- offline when slapd goes away, online when it comes back ----
slapd_stop "$WORK/slapd"
in_nss_ns getent passwd carol >/dev/null 2>&1
run domain-status "$DOM" --json
check "slapd stopped: online false ($(jqv .reason))" test "$(jqv .online)" = false
check "slapd stopped: the reason names the servers" grep -q "no LDAP server" <<<"$(jqv .reason)"
check "slapd stopped: a next probe is scheduled" eval 'test "$(jqv .next_retry_seconds)" -ge 0'
check "slapd stopped: no active server" test "$(jqv .active_server)" = null
check "slapd stopped: both servers not working" \
    test "$(jqv '[.servers[].state] | unique | join(",")')" = "not working"
off_since=$(jqv .since)
run domain-status "$DOM"
check "text: Offline, with the next probe" \
    eval 'grep -q "^Online status: Offline" <<<"$out" && grep -q "next online probe in" <<<"$out"'
run domain-list
check "domain-list: offline" grep -q "^$DOM  *running  *offline" <<<"$out"

check "slapd restarted on its port" slapd_restart
online=false
for _ in $(seq 100); do
    in_nss_ns getent passwd dave >/dev/null 2>&1
    run domain-status "$DOM" --json
    [ "$(jqv .online)" = true ] && { online=true; break; }
    sleep 0.1
done
check "back online after slapd returned" test "$online" = true
check "online again: the reason says a server answered ($(jqv .reason))" \
    grep -q "server answered" <<<"$(jqv .reason)"
check "online again: since moved on" eval 'test "$(jqv .since)" -ge "$off_since"'
check "online again: slapd active" test "$(jqv .active_server)" = "$uri"

# ---- debug-level: every process at once, no restart ----
pids_before=$(all_suite_pids | sort | tr '\n' ' ')
run debug-level
check "debug-level reads: status 0" test "$rc" -eq 0
check "debug-level lists the monitor, nss, pam and the back-end" \
    eval 'for p in "sssd " sssd_nss sssd_pam "sssd_be\[$DOM\]"; do grep -q "^$p" <<<"$out" || exit 1; done'
run debug-level 0x3ff0
check "debug-level 0x3ff0: status 0" test "$rc" -eq 0
run debug-level --json
check "debug-level --json parses" json_ok
check "every process now has mask 0x3ff0 ($(jqv '[.processes[].debug_mask] | join(",")'))" \
    test "$(jqv '[.processes[].debug_mask] | unique | join(",")')" = "$((0x3ff0))"
check "four processes answered" test "$(jqv '.processes | length')" = 4
trace_lines() { grep -c "(0x0400)\|(0x2000)" "$LOGS/$1.log" 2>/dev/null; }
be0=$(trace_lines "sssd_be_$DOM"); nss0=$(trace_lines sssd_nss)
in_nss_ns getent passwd bob >/dev/null
check "the back-end now logs trace lines ($be0 -> $(trace_lines "sssd_be_$DOM"))" \
    test "$(trace_lines "sssd_be_$DOM")" -gt "$be0"
check "sssd_nss now logs trace lines ($nss0 -> $(trace_lines sssd_nss))" \
    test "$(trace_lines sssd_nss)" -gt "$nss0"
run debug-level 2 --nss --domain="$DOM" --json
check "debug-level 2 --nss --domain: two processes" test "$(jqv '.processes | length')" = 2
check "both now at level 2's mask" \
    test "$(jqv '[.processes[].debug_mask] | unique | join(",")')" = "$((0x0070))"
run debug-level --pam --json
check "sssd_pam kept 0x3ff0" test "$(jqv '.processes[0].debug_mask')" = "$((0x3ff0))"
run debug-level --sudo
check "a service that is not running: status 1, says so" \
    eval 'test "$rc" -eq 1 && grep -q "not running" <<<"$out"'
run debug-level banana
check "a bad level: status 1" test "$rc" -eq 1
check "no process was restarted" test "$(all_suite_pids | sort | tr '\n' ' ')" = "$pids_before"

summary
