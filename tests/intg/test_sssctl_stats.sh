#!/bin/bash
# sssctl stats against a live star and a real slapd: a known number of lookups is counted
# exactly (requests per command, latency histogram count, cache hits, calls to the
# back-end), a negative-cache hit, the back-end's requests and per-server LDAP connections,
# LDAP operations by server and result class and the calls the master bus routed (exact
# for a cold lookup, none for warm ones), an offline transition and a search left without
# answer when slapd freezes, a restart of a killed responder; --json parses;
# --prometheus is valid text exposition (HELP and TYPE once per family before its samples,
# counter names ending in _total, cumulative buckets with +Inf equal to _count).
# Usage: test_sssctl_stats.sh PREFIX   (run as root)
set -u
PREFIX=$(cd "$1" && pwd)
TOP=$(cd "$(dirname "$0")/../.." && pwd)
TEST_NAME=sssctl-stats
. "$TOP/tests/intg/slapd_env.sh"

SSSCTL=$SBIN/sssctl
DOM=ldap.test

run() { out=$("$SSSCTL" "$@" 2>"$WORK/err"); rc=$?; err=$(cat "$WORK/err"); }
json_ok() { python3 -m json.tool >/dev/null 2>&1 <<<"$out"; }
# metric NAME LABEL_FILTER: the value of one sample of the last `stats --json` (0 if absent)
metric() {
    jq -r --arg n "$1" "[.metrics[].samples[] | select(.name == \$n) | select($2) | .value] | add // 0" <<<"$out"
}
lookup() { in_nss_ns env SSS_NSS_USE_MEMCACHE=NO getent passwd "$1" >/dev/null 2>&1; }
NSS='.labels.process == "sssd_nss"'
PWNAM="$NSS and .labels.command == \"0x0011\""
BUSDP='.labels.process == "sssd" and .labels.destination == "sssd.domain_ldap_2etest" and .labels.interface == "sssd.dataprovider"'

uri=$(slapd_start "$WORK/slapd" "$TOP/tests/unit/backend/test_be.ldif" dc=test) || exit 1
write_conf <<CONF
[sssd]
services = nss, pam
domains = $DOM

[domain/$DOM]
id_provider = ldap
ldap_uri = $uri
ldap_search_base = dc=test
ldap_schema = rfc2307bis
offline_timeout = 60
ldap_search_timeout = 2
ldap_network_timeout = 2
ldap_opt_timeout = 2
CONF
start_sssd
check "sssd starts" test $? -eq 0
check "the back-end is on the bus" wait_name sssd.domain_ldap_2etest 5000
check "sssd_nss is on the bus" wait_name sssd.nss 5000
check "sssd_pam is on the bus" wait_name sssd.pam 5000

run stats --json
check "stats --json: status 0, parses" eval 'test "$rc" -eq 0 && json_ok'
check "four processes answered" test "$(jq '[.processes[] | select(.answered)] | length' <<<"$out")" = 4
req0=$(metric sssd_requests_total "$PWNAM")
cnt0=$(metric sssd_request_duration_seconds_count "$PWNAM")
hit0=$(metric sssd_cache_lookups_total "$NSS and .labels.result == \"hit\"")
dp0=$(metric sssd_dp_calls_total "$NSS")
LDAPQ='.labels.process == "sssd_be_ldap.test" and .labels.operation == "search"'
ldap_search() { metric sssd_ldap_operations_total "$LDAPQ and .labels.server == \"$uri\" and .labels.result == \"$1\""; }
bus0=$(metric sssd_bus_calls_total "$BUSDP")
srch0=$(ldap_search success)

check "a cold lookup of alice" lookup alice
run stats --json
dp1=$(metric sssd_dp_calls_total "$NSS")
bus1=$(metric sssd_bus_calls_total "$BUSDP")
srch1=$(ldap_search success)
check "the cold lookup called the back-end once ($dp0 -> $dp1)" test $((dp1 - dp0)) -eq 1
check "the master routed one call to the back-end's sssd.dataprovider ($bus0 -> $bus1)" \
    test $((bus1 - bus0)) -eq 1
check "the back-end sent one LDAP search to $uri, successful ($srch0 -> $srch1)" \
    test $((srch1 - srch0)) -eq 1
for _ in 1 2 3 4; do lookup alice; done
run stats --json
req1=$(metric sssd_requests_total "$PWNAM")
cnt1=$(metric sssd_request_duration_seconds_count "$PWNAM")
hit1=$(metric sssd_cache_lookups_total "$NSS and .labels.result == \"hit\"")
dp2=$(metric sssd_dp_calls_total "$NSS")
check "5 lookups: sssd_requests_total{command=0x0011} +5 ($req0 -> $req1)" test $((req1 - req0)) -eq 5
check "5 lookups: the latency histogram counted 5 ($cnt0 -> $cnt1)" test $((cnt1 - cnt0)) -eq 5
check "the 4 warm lookups were cache hits ($hit0 -> $hit1)" test $((hit1 - hit0)) -ge 4
check "and called no back-end ($dp1 -> $dp2)" test "$dp2" -eq "$dp1"
check "no bus call routed for them" test "$(metric sssd_bus_calls_total "$BUSDP")" -eq "$bus1"
check "no LDAP search for them" test "$(ldap_search success)" -eq "$srch1"
check "the back-end counted requests" \
    test "$(metric sssd_be_requests_total '.labels.process == "sssd_be_ldap.test"')" -ge 1
check "one LDAP connection to slapd, by server" \
    test "$(metric sssd_ldap_connections_total ".labels.server == \"$uri\" and .labels.result == \"ok\"")" -ge 1

neg0=$(metric sssd_negcache_hits_total "$NSS")
lookup nosuchuser; lookup nosuchuser
run stats --json
neg1=$(metric sssd_negcache_hits_total "$NSS")
check "an unknown user asked twice: a negative-cache hit ($neg0 -> $neg1)" test $((neg1 - neg0)) -ge 1
check "and one bus call, one LDAP search (with no entry: success)" \
    eval 'test "$(metric sssd_bus_calls_total "$BUSDP")" -eq $((bus1 + 1)) &&
          test "$(ldap_search success)" -eq $((srch1 + 1))'
check "no search failed so far" \
    test "$(metric sssd_ldap_operations_total "$LDAPQ and .labels.result != \"success\"")" -eq 0

# ---- Prometheus text exposition ----
run stats --prometheus
check "stats --prometheus: status 0" test "$rc" -eq 0
printf '%s\n' "$out" > "$WORK/metrics.prom"
check "the exposition is valid" python3 - "$WORK/metrics.prom" <<'PY'
import re, sys
text = open(sys.argv[1]).read().splitlines()
sample = re.compile(r'^([a-zA-Z_:][a-zA-Z0-9_:]*)\{((?:[a-zA-Z_][a-zA-Z0-9_]*="[^"\n]*",?)*)\} (\S+)$')
help_, type_, fam = {}, {}, None
hist = {}
for line in text:
    if line.startswith("# HELP "):
        n = line.split()[2]; assert n not in help_, "HELP twice: " + n; help_[n] = 1; fam = n
        continue
    if line.startswith("# TYPE "):
        _, _, n, t = line.split(); assert n not in type_, "TYPE twice: " + n
        assert t in ("counter", "histogram"), t; type_[n] = t
        if t == "counter": assert n.endswith("_total"), "counter without _total: " + n
        if t == "histogram": assert n.endswith("_seconds"), "histogram without _seconds: " + n
        continue
    m = sample.match(line); assert m, "bad sample line: " + line
    name, labels, value = m.groups(); float(value)
    assert 'process="' in labels, "no process label: " + line
    base = re.sub(r'_(bucket|sum|count)$', '', name) if type_.get(fam) == "histogram" else name
    assert base == fam, "sample %s outside its family %s" % (name, fam)
    if name.endswith("_bucket"):
        key = (base, re.sub(r',?le="[^"]*"', '', labels))
        le = re.search(r'le="([^"]*)"', labels).group(1)
        hist.setdefault(key, []).append((le, int(value)))
    if name.endswith("_count") and type_.get(fam) == "histogram":
        b = hist[(base, labels)]
        vals = [v for _, v in b]
        assert vals == sorted(vals), "buckets not cumulative: %s" % (b,)
        assert b[-1][0] == "+Inf" and b[-1][1] == int(value), "+Inf != _count"
assert len(type_) >= 5, "too few families: %s" % sorted(type_)
print("     %d families, %d histograms checked" % (len(type_), len(hist)))
PY
check "the families of the issue are there" \
    eval '( for f in sssd_requests_total sssd_request_duration_seconds sssd_cache_lookups_total sssd_negcache_hits_total sssd_dp_calls_total sssd_be_requests_total sssd_ldap_connections_total sssd_ldap_operations_total sssd_bus_calls_total sssd_offline_transitions_total; do grep -q "^# TYPE $f " "$WORK/metrics.prom" || exit 1; done )'

run stats
check "stats for people: a table and a summary line" \
    eval 'grep -q "^sssd_request_duration_seconds .*command=\"0x0011\".*mean [0-9.]* ms" <<<"$out" && grep -q "^[0-9]* metrics from 4 processes" <<<"$out"'
run stats --nss --json
check "stats --nss: one process" test "$(jq '.processes | length' <<<"$out")" = 1

# ---- offline transition, restart ----
# A frozen slapd: the connection stays up, the search gets no answer within
# ldap_search_timeout.
kill -STOP "$(slapd_pid "$WORK/slapd")"
lookup carol
run stats --domain="$DOM" --json
check "slapd frozen: one transition to offline" \
    test "$(metric sssd_offline_transitions_total '.labels.to == "offline"')" -eq 1
check "and one search without answer, counted for $uri" \
    test "$(ldap_search no_answer)" -eq 1
kill -CONT "$(slapd_pid "$WORK/slapd")"
old=$(service_pid sssd_nss)
kill -9 "$old"
restarted=false
for _ in $(seq 100); do
    new=$(service_pid sssd_nss)
    [ -n "$new" ] && [ "$new" != "$old" ] && has_name sssd.nss && { restarted=true; break; }
    sleep 0.1
done
check "the monitor restarted sssd_nss" test "$restarted" = true
run stats --monitor --json
check "sssd_service_restarts_total{service=nss} is 1" \
    test "$(metric sssd_service_restarts_total '.labels.service == "nss"')" -eq 1

summary
