#!/bin/bash
# The global catalog of an AD domain (ad_enable_gc, default true) against a real Samba AD
# DC (tests/lib/samba_ad.sh), a one-domain forest whose DNS has the DC's _gc._tcp records
# (port 3268). The kernel's socket table (ss) is the evidence of a connection to 3268,
# independent of the daemon's log.
# Scenarios:
#   - defaults (no ad_server): once the domain's LDAP connection is up, the back-end asks
#     DNS for _gc._tcp records and connects to the DC on 3268; sssctl domain-status (text
#     and --json) lists it as a global catalog server found by DNS, active, and the DNS
#     name asked; the domain's own active server stays the DC on 389;
#   - DNS names only a dead GC: lookups are served (the domain's LDAP), the domain is
#     online, domain-status shows the GC server not working, nothing is connected to 3268;
#   - ad_server named: the GC is that DC on 3268, not from DNS;
#   - ad_enable_gc = false: no _gc._tcp query, no connection to 3268, no GC row;
#   - lookups through the GC (be_id_gc.c), with DNS naming a relay (fault_proxy.py) on
#     13268 in front of the DC's 3268, so that the GC can be killed alone: the bytes the
#     kernel counts on sssd_be's sockets (ss -i) show which port answered. getpwnam stays
#     on 389 (SSSD sends the joined domain's users to LDAP), a group and `id`'s
#     initgroups are read from the GC, and every answer equals the one ad_enable_gc =
#     false gives (the domain's LDAP only); a group by SID (secid=) is read from the GC,
#     a user by SID from 389; the relay killed under a running back-end,
#     then dead from the start: the answers come from 389, the same, the domain online;
#   - ldap_id_mapping = false: the GC serves only when the DC's schema has uidNumber and
#     gidNumber in the partial attribute set (asked here with ldapsearch): otherwise not a
#     byte of a lookup goes to it.
# Usage: test_ad_gc.sh PREFIX   (root; 77 without Samba's AD DC packages or host)
set -u
PREFIX=$(cd "$1" && pwd)
TOP=$(cd "$(dirname "$0")/../.." && pwd)
AD_TEST=test_ad_gc
AD_NEEDS="host ss"
. "$(dirname "$0")/ad_env.sh"
samba_ad_user alice Alice-Pass1 || exit 1
samba_ad_user bob Bob-Pass1 || exit 1
U="CN=Users,$SAMBA_AD_BASE"
{
    # alice < g_one < g_top (nested); bob < g_top, g_two
    printf 'dn: CN=g_one,%s\nobjectClass: group\nsAMAccountName: g_one\n' "$U"
    printf 'member: CN=alice,%s\n\n' "$U"
    printf 'dn: CN=g_top,%s\nobjectClass: group\nsAMAccountName: g_top\n' "$U"
    printf 'member: CN=g_one,%s\nmember: CN=bob,%s\n\n' "$U" "$U"
    printf 'dn: CN=g_two,%s\nobjectClass: group\nsAMAccountName: g_two\n' "$U"
    printf 'member: CN=bob,%s\n\n' "$U"
} > "$WORK/groups.ldif"
ldapadd -x -H ldap://$SAMBA_AD_DC_IP -D "Administrator@$SAMBA_AD_DOMAIN" \
    -w "$SAMBA_AD_ADMINPASS" -f "$WORK/groups.ldif" > "$WORK/add.log" 2>&1 ||
    { cat "$WORK/add.log"; echo "FAIL: ldapadd"; exit 1; }
samba_ad_join || { echo "FAIL: adcli join"; exit 1; }
GC_REC="$SAMBA_AD_DC 3268 0 100"
SITE=Default-First-Site-Name
dns() { # dns add|delete NAME TYPE DATA
    samba_ad_tool dns "$1" $SAMBA_AD_DC_IP $SAMBA_AD_DOMAIN "$2" "$3" "$4" \
        -U Administrator --password="$SAMBA_AD_ADMINPASS" > /dev/null 2>&1
}
conf() {
    rm -f "$LOGS"/*.log
    ad_write_conf -d nss 0xfff0 <<< "$1"
    start_sssd && wait_name sssd.domain_ad_2etest 10000
}
BE_LOG=$LOGS/sssd_be_ad.test.log
gc_conns() { ss -Htnp state established "( dport = :3268 )" 2>/dev/null | grep -c sssd_be; }
wait_log() { # PATTERN: up to 10 s
    for _ in $(seq 100); do grep -q "$1" "$BE_LOG" && return 0; sleep 0.1; done
    return 1
}

out=$(host -t SRV _gc._tcp.$SAMBA_AD_DOMAIN $SAMBA_AD_DC_IP 2>&1 | grep "has SRV record")
check "the DC's DNS serves _gc._tcp.$SAMBA_AD_DOMAIN ($out)" grep -q "3268 $SAMBA_AD_DC" <<< "$out"

# 1. Defaults: the GC from DNS, connected after the domain's connection.
conf "" || fail "sssd did not start (defaults)"
out=$(in_nss_ns getent passwd alice)
check "defaults: getent passwd alice ($out)" grep -q "^alice:" <<< "$out"
check "  ... the back-end connected to the global catalog" \
    wait_log "global catalog connected (ldap://$SAMBA_AD_DC:3268)"
check "  ... after asking DNS for _gc._tcp records" grep -q "SRV lookup of _gc._tcp." "$BE_LOG"
check "  ... and not before the domain's connection" test \
    "$(grep -n -m1 "served by ldap://$SAMBA_AD_DC:389" "$BE_LOG" | cut -d: -f1)" -lt \
    "$(grep -n -m1 "SRV lookup of _gc._tcp." "$BE_LOG" | cut -d: -f1)"
check "  ... the kernel shows sssd_be connected to port 3268" test "$(gc_conns)" -ge 1
echo "# the GC's cost on a cold start: $(grep -c "SRV lookup of _gc" "$BE_LOG") SRV quer(y/ies), \
$(( $(grep -c "LDAP ping (CLDAP)" "$BE_LOG") - 1 )) more CLDAP ping(s), 1 LDAP connection"
status=$("$PREFIX/sbin/sssctl" domain-status ad.test 2>&1)
echo "$status" | sed 's/^/#   /'
check "  ... domain-status: the GC server, found by DNS, active" \
    grep -Eq "ldap://$SAMBA_AD_DC:3268 +global catalog \(DNS\) +active" <<< "$status"
check "  ... the DNS name the GC's discovery asked" \
    grep -q "^DNS discovery: _gc._tcp.$SITE._sites.$SAMBA_AD_DOMAIN, site $SITE" <<< "$status"
check "  ... the domain's active server is still the DC on 389" \
    grep -q "^Active server: ldap://$SAMBA_AD_DC:389" <<< "$status"
json=$("$PREFIX/sbin/sssctl" domain-status ad.test --json 2>&1)
check "  ... --json: global_catalog true for 3268 only" python3 -c '
import json, sys
d = json.loads(sys.argv[1])
d = d[0] if isinstance(d, list) else d
gc = [s for s in d["servers"] if s["global_catalog"]]
assert [s["uri"] for s in gc] == ["ldap://" + sys.argv[2] + ":3268"], d
assert gc[0]["discovered"] and not gc[0]["backup"], gc
assert all(not s["global_catalog"] for s in d["servers"] if s["uri"].endswith(":389")), d
' "$json" "$SAMBA_AD_DC"

# 2. Only a dead GC in DNS: nothing changes for lookups.
dns add dead A 127.0.0.11 || fail "dns add dead A"
dns delete _gc._tcp SRV "$GC_REC" || fail "dns delete the DC's _gc record"
dns delete _gc._tcp.$SITE._sites SRV "$GC_REC" || fail "dns delete the site's _gc record"
dns add _gc._tcp SRV "dead.$SAMBA_AD_DOMAIN 3268 0 100" || fail "dns add a dead _gc record"
conf "" || fail "sssd did not start (dead GC)"
out=$(in_nss_ns getent passwd alice)
check "dead GC: getent passwd alice ($out)" grep -q "^alice:" <<< "$out"
check "  ... the GC was tried and found unreachable" \
    wait_log "no global catalog server reachable"
status=$("$PREFIX/sbin/sssctl" domain-status ad.test 2>&1)
echo "$status" | sed 's/^/#   /'
check "  ... the domain is online" grep -q "^Online status: Online" <<< "$status"
check "  ... domain-status shows the dead GC not working" \
    grep -Eq "ldap://dead.$SAMBA_AD_DOMAIN:3268 +global catalog \(DNS\) +not working" <<< "$status"
check "  ... nothing connected to port 3268" test "$(gc_conns)" = 0
out=$(in_nss_ns id alice)
check "  ... id alice still answers ($out)" grep -q "uid=" <<< "$out"
dns delete _gc._tcp SRV "dead.$SAMBA_AD_DOMAIN 3268 0 100" || fail "dns delete the dead record"
dns add _gc._tcp SRV "$GC_REC" || fail "dns add the DC's _gc record back"
dns add _gc._tcp.$SITE._sites SRV "$GC_REC" || fail "dns add the site's _gc record back"

# 3. A named DC: the GC is that DC on 3268.
conf "ad_server = $SAMBA_AD_DC" || fail "sssd did not start (ad_server named)"
out=$(in_nss_ns getent passwd alice)
check "ad_server named: getent passwd alice ($out)" grep -q "^alice:" <<< "$out"
check "  ... the GC is that DC on 3268" wait_log "global catalog connected (ldap://$SAMBA_AD_DC:3268)"
status=$("$PREFIX/sbin/sssctl" domain-status ad.test 2>&1)
check "  ... domain-status: not from DNS" \
    grep -Eq "ldap://$SAMBA_AD_DC:3268 +global catalog +active" <<< "$status"

# 4. ad_enable_gc = false: the GC is never touched.
conf "ad_enable_gc = false" || fail "sssd did not start (ad_enable_gc = false)"
out=$(in_nss_ns getent passwd alice)
check "ad_enable_gc = false: getent passwd alice ($out)" grep -q "^alice:" <<< "$out"
sleep 1
check "  ... no _gc._tcp query" test -z "$(grep "_gc._tcp" "$BE_LOG")"
check "  ... no connection to port 3268" test "$(gc_conns)" = 0
status=$("$PREFIX/sbin/sssctl" domain-status ad.test 2>&1)
check "  ... no global catalog row" test -z "$(grep "global catalog" <<< "$status")"

# 5. Lookups through the GC.
rx_bytes() { # PORT: bytes sssd_be received on its established connections to PORT
    ss -Htinp state established "( dport = :$1 )" 2>/dev/null |
        awk '/sssd_be/ { mine = 1; next }
             mine && match($0, /bytes_received:[0-9]+/) {
                 n += substr($0, RSTART + 15, RLENGTH - 15); mine = 0 }
             END { print n + 0 }'
}
sorted_lists() { # member lists and id's groups= in a fixed order (the cache's may vary)
    python3 -c '
import sys
for line in sys.stdin.read().splitlines():
    if line.startswith("uid="):
        head, _, groups = line.partition(" groups=")
        line = head + " groups=" + ",".join(sorted(groups.split(",")))
    elif line.count(":") == 3:
        head, _, members = line.rpartition(":")
        line = head + ":" + ",".join(sorted(members.split(",")))
    print(line)'
}
lookups() { # the answers compared: passwd, groups, id
    local u g
    {
        for u in alice bob; do in_nss_ns getent passwd $u; done
        for g in g_one g_top g_two; do in_nss_ns getent group $g; done
        for u in alice bob; do in_nss_ns id $u; done
    } | sorted_lists
}
# The reference: the domain's LDAP only.
conf "ad_enable_gc = false" || fail "sssd did not start (reference)"
ref=$(lookups)
echo "$ref" | sed 's/^/#   reference: /'
check "reference: g_top lists alice (nested) and bob" \
    grep -q "^g_top:.*:alice,bob$" <<< "$ref"

PROXY_PORT=13268
for r in "_gc._tcp" "_gc._tcp.$SITE._sites"; do
    dns delete "$r" SRV "$GC_REC" || fail "dns delete $r"
    dns add "$r" SRV "$SAMBA_AD_DC $PROXY_PORT 0 100" || fail "dns add $r (relay)"
done
python3 "$TOP/tests/faults/fault_proxy.py" --listen "$SAMBA_AD_DC_IP:$PROXY_PORT" \
    --target "$SAMBA_AD_DC_IP:3268" > "$WORK/proxy.out" 2>&1 &
PROXY_PID=$!
for _ in $(seq 50); do grep -q listening "$WORK/proxy.out" && break; sleep 0.1; done
check "the GC relay listens on $PROXY_PORT" grep -q "listening $PROXY_PORT" "$WORK/proxy.out"

conf "" || fail "sssd did not start (GC routing)"
out=$(in_nss_ns getent passwd alice)
check "GC: getent passwd alice ($out)" grep -q "^alice:" <<< "$out"
check "  ... the GC connected through the relay" \
    wait_log "global catalog connected (ldap://$SAMBA_AD_DC:$PROXY_PORT)"
gc0=$(rx_bytes $PROXY_PORT); ld0=$(rx_bytes 389)
out=$(in_nss_ns getent passwd bob)
gc1=$(rx_bytes $PROXY_PORT); ld1=$(rx_bytes 389)
check "  ... getpwnam bob read from 389 ($ld0 -> $ld1 bytes), not the GC ($gc0 -> $gc1)" \
    test "$ld1" -gt "$ld0" -a "$gc1" = "$gc0"
out=$(in_nss_ns getent group g_top)
gc2=$(rx_bytes $PROXY_PORT); ld2=$(rx_bytes 389)
check "  ... getent group g_top read from the GC ($gc1 -> $gc2 bytes), not 389 ($ld1 -> $ld2)" \
    test "$gc2" -gt "$gc1" -a "$ld2" = "$ld1"
out=$(in_nss_ns id alice)
gc3=$(rx_bytes $PROXY_PORT)
check "  ... id alice: the GC answered its initgroups ($gc2 -> $gc3 bytes)" test "$gc3" -gt "$gc2"
check "  ... the back-end says so" grep -q "initgroups alice: answered by the global catalog" \
    "$BE_LOG"
got=$(lookups)
check "  ... every answer equals the domain's LDAP's" test "$got" = "$ref"
[ "$got" = "$ref" ] || diff <(echo "$ref") <(echo "$got") | sed 's/^/#   /'
# Lookups by SID (getAccountInfo "secid=", SSSD's BE_REQ_BY_SECID), asked of the back-end
# directly: a group's goes to the GC first, a user's to the domain's LDAP (as by name).
secid() { # secid TYPE SID -> "dp_error error message"
    dbus-send --address="$BUS_ADDR" --print-reply --reply-timeout=20000 \
        --dest=sssd.domain_ad_2etest /sssd sssd.dataprovider.getAccountInfo uint32:0 \
        "uint32:$1" "string:secid=$2" string:ad.test string: uint32:0 uint64:77 2>&1 |
        awk '/^ *uint16 /{d=$2} /^ *uint32 /{e=$2} END {print d, e}'
}
gc0=$(rx_bytes $PROXY_PORT); ld0=$(rx_bytes 389)
out=$(secid 2 "$(samba_ad_sid g_two)")
gc1=$(rx_bytes $PROXY_PORT); ld1=$(rx_bytes 389)
check "  ... group by SID (secid=) answered ($out) from the GC ($gc0 -> $gc1 bytes), \
not 389 ($ld0 -> $ld1)" test "$out" = "0 0" -a "$gc1" -gt "$gc0" -a "$ld1" = "$ld0"
check "  ... the back-end says so" \
    grep -q "group S-1-5-21-[0-9-]*: answered by the global catalog" "$BE_LOG"
out=$(secid 1 "$(samba_ad_sid bob)")
gc2=$(rx_bytes $PROXY_PORT); ld2=$(rx_bytes 389)
check "  ... user by SID answered ($out) from 389 ($ld1 -> $ld2 bytes), not the GC \
($gc1 -> $gc2)" test "$out" = "0 0" -a "$ld2" -gt "$ld1" -a "$gc2" = "$gc1"

# The GC killed under a running back-end: new lookups fall back to 389.
conf "" || fail "sssd did not start (GC to be killed)"
out=$(in_nss_ns getent passwd alice)
wait_log "global catalog connected (ldap://$SAMBA_AD_DC:$PROXY_PORT)" ||
    fail "the GC did not connect again"
kill -TERM $PROXY_PID; wait $PROXY_PID 2>/dev/null
grep "^connections" "$WORK/proxy.out" | sed 's/^/#   relay: /'
check "GC killed: the relay had carried the GC's traffic" \
    grep -Eq "connections [1-9][0-9]* .*bytes_down [1-9]" "$WORK/proxy.out"
ld0=$(rx_bytes 389)
got=$(lookups)
ld1=$(rx_bytes 389)
check "  ... every answer equals the domain's LDAP's" test "$got" = "$ref"
[ "$got" = "$ref" ] || diff <(echo "$ref") <(echo "$got") | sed 's/^/#   /'
check "  ... read from 389 ($ld0 -> $ld1 bytes)" test "$ld1" -gt "$ld0"
status=$("$PREFIX/sbin/sssctl" domain-status ad.test 2>&1)
check "  ... the domain is online" grep -q "^Online status: Online" <<< "$status"

# Dead from the start.
conf "" || fail "sssd did not start (GC dead)"
got=$(lookups)
check "GC dead from the start: every answer equals the domain's LDAP's" test "$got" = "$ref"
[ "$got" = "$ref" ] || diff <(echo "$ref") <(echo "$got") | sed 's/^/#   /'
check "  ... the GC was tried and found unreachable" \
    wait_log "no global catalog server reachable"
status=$("$PREFIX/sbin/sssctl" domain-status ad.test 2>&1)
check "  ... the domain is online" grep -q "^Online status: Online" <<< "$status"

# 6. ldap_id_mapping = false: the schema decides (asked here, not through the daemon).
pas=$(ldapsearch -LLL -x -H ldap://$SAMBA_AD_DC_IP -D "Administrator@$SAMBA_AD_DOMAIN" \
    -w "$SAMBA_AD_ADMINPASS" -b "CN=Schema,CN=Configuration,$SAMBA_AD_BASE" \
    "(|(lDAPDisplayName=uidNumber)(lDAPDisplayName=gidNumber))" \
    isMemberOfPartialAttributeSet 2>/dev/null | grep -ci "^isMemberOfPartialAttributeSet: TRUE")
echo "# uidNumber and gidNumber in the GC's partial attribute set: $pas of 2"
for r in "_gc._tcp" "_gc._tcp.$SITE._sites"; do
    dns delete "$r" SRV "$SAMBA_AD_DC $PROXY_PORT 0 100" || fail "dns delete $r (relay)"
    dns add "$r" SRV "$GC_REC" || fail "dns add $r back"
done
conf "ldap_id_mapping = false" || fail "sssd did not start (ldap_id_mapping = false)"
out=$(in_nss_ns getent passwd alice)
check "ldap_id_mapping = false: the GC connected" \
    wait_log "global catalog connected (ldap://$SAMBA_AD_DC:3268)"
if [ "$pas" = 2 ]; then
    check "  ... the back-end found them in the GC" wait_log "holds uidNumber and gidNumber"
else
    check "  ... the back-end found them missing" wait_log "POSIX attributes are not in the global"
    gc0=$(rx_bytes 3268)
    in_nss_ns getent group g_top > /dev/null
    in_nss_ns id alice > /dev/null
    gc1=$(rx_bytes 3268)
    check "  ... group and initgroups lookups leave the GC alone ($gc0 -> $gc1 bytes)" \
        test "$gc1" = "$gc0"
fi
summary
