#!/bin/bash
# id_provider = ad finding its domain controllers in DNS (ad_server = _srv_, or no
# ad_server at all), against a real Samba AD DC whose internal DNS server serves ad.test
# (tests/lib/samba_ad.sh: the namespace's /etc/resolv.conf points at it). The SRV records
# are the DC's own (_ldap._tcp.ad.test and _ldap._tcp.Default-First-Site-Name._sites.ad.test,
# made by the provisioning) and records this test adds or removes with samba-tool dns.
# Scenarios:
#   - no ad_server: the back-end asks DNS for _ldap._tcp.ad.test and serves lookups;
#   - ad_server = _srv_, ad_site set: the site's records are asked first; sssctl
#     domain-status (text and --json) shows the DNS name asked, the site, the DC found;
#   - no ad_site, a second site (samba-tool sites create, subnet 127.0.0.0/8) holding the
#     client: the DC's LDAP ping (CLDAP) names it, its SRV records are asked first;
#   - two SRV targets, the preferred one (priority 0) dead: failover moves on to the DC;
#   - DNS names only a dead server: the domain is offline; once DNS names the DC again
#     (the dead record removed, the DC's put back), the next lookup asks DNS again and is
#     served: re-resolution after every server failed;
#   - _srv_ mixed with a named server: the named one (dead) is tried, then DNS's;
#   - a DNS server that never answers: the back-end answers on its bus meanwhile.
# Usage: test_ad_discovery.sh PREFIX   (root; 77 without Samba's AD DC packages)
set -u
PREFIX=$(cd "$1" && pwd)
TOP=$(cd "$(dirname "$0")/../.." && pwd)
AD_TEST=test_ad_discovery
AD_NEEDS="host"
. "$(dirname "$0")/ad_env.sh"
samba_ad_user alice Alice-Pass1 || exit 1
samba_ad_join || { echo "FAIL: adcli join"; exit 1; }
DC_REC="$SAMBA_AD_DC 389 0 100"     # the provisioned record: target port priority weight

conf() {
    rm -f "$LOGS"/*.log
    ad_write_conf -d nss 0xfff0 <<CONF
offline_timeout = 2
$1
CONF
    start_sssd && wait_name sssd.domain_ad_2etest 10000
}
BE_LOG=$LOGS/sssd_be_ad.test.log
dns() { # dns add|delete NAME TYPE DATA
    samba_ad_tool dns "$1" $SAMBA_AD_DC_IP $SAMBA_AD_DOMAIN "$2" "$3" "$4" \
        -U Administrator --password="$SAMBA_AD_ADMINPASS" > /dev/null 2>&1
}
srv_of() { host -t SRV "$1" $SAMBA_AD_DC_IP 2>&1 | grep "has SRV record" | sort; }

out=$(srv_of _ldap._tcp.$SAMBA_AD_DOMAIN)
check "the DC's DNS serves _ldap._tcp.$SAMBA_AD_DOMAIN ($out)" grep -q "$SAMBA_AD_DC" <<< "$out"

# 1. No ad_server: DNS discovery, as SSSD does.
conf "" || fail "sssd did not start without ad_server"
out=$(in_nss_ns getent passwd alice)
check "no ad_server: getent passwd alice ($out)" grep -q "^alice:" <<< "$out"
check "  ... the back-end asked DNS for _ldap._tcp.ad.test" \
    grep -q "SRV lookup of _ldap._tcp.ad.test" "$BE_LOG"
check "  ... and connected to the DC it names" \
    grep -q "served by ldap://$SAMBA_AD_DC:389" "$BE_LOG"
# The figure: from the query to the answer installed (the log's timestamps), and the DNS
# queries a cold start added (one per placeholder and name asked) and the LDAP pings.
echo "# discovery: $(grep -E "SRV lookup of|DNS names [0-9]+ server" "$BE_LOG" |
    sed -n 's/^(\([0-9-]* [0-9:.]*\)).*/\1/p' | python3 -c '
import sys, datetime
t = [datetime.datetime.fromisoformat(l.strip()) for l in sys.stdin]
print("%.1f ms" % ((t[-1] - t[0]).total_seconds() * 1000) if len(t) >= 2 else "n/a")'), \
$(grep -c "SRV lookup of _ldap" "$BE_LOG") SRV quer(y/ies) and $(grep -c "LDAP ping (CLDAP)" "$BE_LOG") \
CLDAP ping(s) on a cold start"

# 2. ad_server = _srv_ with ad_site: the site's records first, then the domain's.
conf "ad_server = _srv_
ad_site = Default-First-Site-Name" || fail "sssd did not start (ad_server = _srv_, ad_site)"
out=$(in_nss_ns getent passwd alice)
check "ad_server = _srv_, ad_site: getent passwd alice ($out)" grep -q "^alice:" <<< "$out"
check "  ... the site's SRV records were asked first" \
    test "$(grep -o "SRV lookup of _ldap[^ ]*" "$BE_LOG" | head -n2 | tr '\n' ' ')" = \
    "SRV lookup of _ldap._tcp.Default-First-Site-Name._sites.ad.test SRV lookup of _ldap._tcp.ad.test "
# sssctl domain-status shows the discovery: the name asked, the site, the DC DNS named.
status=$("$PREFIX/sbin/sssctl" domain-status ad.test 2>&1)
echo "$status" | sed 's/^/#   /'
check "domain-status: the DNS discovery entry with its site" grep -q \
    "^DNS discovery: _ldap._tcp.Default-First-Site-Name._sites.ad.test, site Default-First-Site-Name: records valid for [0-9]* s more" \
    <<< "$status"
check "  ... the DC DNS named, active, as a server found by DNS" \
    grep -Eq "ldap://$SAMBA_AD_DC:389 +primary \(DNS\) +active" <<< "$status"
check "  ... no server row for the discovery entry itself" \
    test -z "$(grep "ldap://_srv_" <<< "$status")"
json=$("$PREFIX/sbin/sssctl" domain-status ad.test --json 2>&1)
check "  ... --json: dns_discovery with the site, the server marked discovered" python3 -c '
import json, sys
d = json.loads(sys.argv[1])
d = d[0] if isinstance(d, list) else d
dd = d["dns_discovery"][0]
assert dd["site"] == "Default-First-Site-Name", dd
assert any(s["discovered"] and s["uri"].startswith("ldap://dc1.") for s in d["servers"]), d
' "$json"

# 2b. The site from the DC: a second site whose subnet holds the client (127.0.0.0/8), with
# its own SRV record; no ad_site: the LDAP ping (CLDAP) to the first DC DNS named tells the
# client's site, and that site's records are asked before the domain's.
samba_ad_tool sites create Site2 > /dev/null 2>&1 || fail "samba-tool sites create Site2"
samba_ad_tool sites subnet create 127.0.0.0/8 Site2 > /dev/null 2>&1 \
    || fail "samba-tool sites subnet create"
dns add _ldap._tcp.Site2._sites SRV "$DC_REC" || fail "dns add the Site2 SRV record"
conf "ad_server = _srv_" || fail "sssd did not start (site from the DC)"
out=$(in_nss_ns getent passwd alice)
check "site from the DC: getent passwd alice ($out)" grep -q "^alice:" <<< "$out"
check "  ... the DC's LDAP ping named the client's site Site2" \
    grep -q "site Site2 (from the DC's LDAP ping" "$BE_LOG"
check "  ... then Site2's SRV records were asked, before the domain's" \
    test "$(grep -o "SRV lookup of _ldap[^ ]*" "$BE_LOG" | tail -n2 | tr '\n' ' ')" = \
    "SRV lookup of _ldap._tcp.Site2._sites.ad.test SRV lookup of _ldap._tcp.ad.test "
check "  ... and found the DC there" grep -q "DNS names 1 server(s) for Site2._sites.ad.test" \
    "$BE_LOG"
status=$("$PREFIX/sbin/sssctl" domain-status ad.test 2>&1)
check "  ... domain-status shows the site" \
    grep -q "^DNS discovery: _ldap._tcp.Site2._sites.ad.test, site Site2:" <<< "$status"

# 3. Two targets, the preferred one dead: failover moves on. Site2 keeps no SRV record
# of its own, so the domain's records are all primary (with one, they would be backups).
dns delete _ldap._tcp.Site2._sites SRV "$DC_REC" || fail "dns delete the Site2 SRV record"
dns add dead A 127.0.0.11 || fail "dns add dead A"
dns delete _ldap._tcp SRV "$DC_REC" || fail "dns delete the DC's SRV record"
dns add _ldap._tcp SRV "$SAMBA_AD_DC 389 10 100" || fail "dns add the DC (priority 10)"
dns add _ldap._tcp SRV "dead.$SAMBA_AD_DOMAIN 389 0 100" || fail "dns add dead (priority 0)"
out=$(srv_of _ldap._tcp.$SAMBA_AD_DOMAIN)
echo "# SRV records now: $(tr '\n' ';' <<< "$out")"
conf "ad_server = _srv_" || fail "sssd did not start (two SRV targets)"
out=$(in_nss_ns getent passwd alice)
check "one of two SRV targets dead: getent passwd alice ($out)" grep -q "^alice:" <<< "$out"
check "  ... the dead target (priority 0) was tried first and marked bad" \
    grep -q "server ldap://dead.$SAMBA_AD_DOMAIN:389 marked bad" "$BE_LOG"
check "  ... then the DC served" grep -q "served by ldap://$SAMBA_AD_DC:389" "$BE_LOG"

# 4. Only the dead target: offline. DNS fixed: the next lookup re-resolves and is served.
dns delete _ldap._tcp SRV "$SAMBA_AD_DC 389 10 100" || fail "dns delete the DC"
conf "ad_server = _srv_" || fail "sssd did not start (dead target only)"
out=$(in_nss_ns getent passwd alice)
check "DNS names only a dead server: alice not found ($out)" test -z "$out"
dns add _ldap._tcp SRV "$DC_REC" || fail "dns add the DC back"
dns delete _ldap._tcp SRV "dead.$SAMBA_AD_DOMAIN 389 0 100" || fail "dns delete dead"
found=""
for i in $(seq 1 20); do
    sleep 1
    out=$(in_nss_ns getent passwd alice)
    if grep -q "^alice:" <<< "$out"; then found=$i; break; fi
done
check "DNS fixed: alice found again after re-resolution (${found:-never} s)" test -n "$found"
check "  ... DNS was asked again" \
    test "$(grep -c "SRV lookup of _ldap._tcp.ad.test" "$BE_LOG")" -ge 2

# 5. _srv_ after a named (dead) server: the named one first, then DNS's.
conf "ad_server = dead.$SAMBA_AD_DOMAIN, _srv_" || fail "sssd did not start (named + _srv_)"
out=$(in_nss_ns getent passwd alice)
check "ad_server = dead, _srv_: getent passwd alice ($out)" grep -q "^alice:" <<< "$out"
check "  ... the named server first (marked bad), then the DC from DNS" \
    grep -q "server ldap://dead.$SAMBA_AD_DOMAIN marked bad" "$BE_LOG"
check "  ... served by the discovered DC" grep -q "served by ldap://$SAMBA_AD_DC:389" "$BE_LOG"

# 6. A DNS server that never answers: the lookup waits in its helper thread and the
# back-end keeps serving its bus meanwhile: sssctl domain-status answers before the lookup
# gives up (ldap_network_timeout = 30: a generous bound, not a speed target).
python3 -c '
import socket, sys, time
u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); u.bind(("127.0.0.12", 53))
t = socket.socket(); t.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
t.bind(("127.0.0.12", 53)); t.listen(8)
print("ready", flush=True)
time.sleep(120)' > "$WORK/blackhole.log" 2>&1 &
HOLE_PID=$!
for i in $(seq 1 50); do grep -q ready "$WORK/blackhole.log" && break; sleep 0.1; done
echo "nameserver 127.0.0.12" | samba_ad_etc_write resolv.conf
conf "ad_server = _srv_
ldap_network_timeout = 30" || fail "sssd did not start (DNS never answers)"
in_nss_ns getent passwd alice > /dev/null &
GETENT_PID=$!
for i in $(seq 1 100); do grep -q "SRV lookup of" "$BE_LOG" && break; sleep 0.1; done
status=$(timeout 25 "$PREFIX/sbin/sssctl" domain-status ad.test 2>&1)
check "DNS silent: the back-end answers domain-status during the lookup ($(head -n1 <<< "$status"))" \
    test -n "$status" -a -z "$(grep "no DNS answer in time" "$BE_LOG")"
wait $GETENT_PID
check "  ... the lookup then gives up (logged)" grep -q "no DNS answer in time" "$BE_LOG"
kill $HOLE_PID 2>/dev/null
wait $HOLE_PID 2>/dev/null
summary
