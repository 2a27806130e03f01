#!/bin/bash
# id_provider = ad against a real Samba AD DC (tests/lib/samba_ad.sh), through glibc's
# getent and id with our libnss_sss: the back-end binds with SASL/GSSAPI as the machine
# account adcli's join created (CLIENT$@AD.TEST, from /etc/krb5.keytab), reads the AD schema
# and maps ids from objectSid exactly as SSSD does: every uid and gid expected here is
# computed by this test from the entry's objectSid with tests/unit/idmap/idmap_ref.py, a
# Python model of SSSD's algorithm independent of the daemon's code.
#
# Directory: alice (uidNumber 10001, gidNumber 10001), bob (no POSIX attributes), groups
# g_inner {alice, bob} and g_outer {g_inner} (gidNumber 20002).
# carol is in g_d1 < g_d2 < g_d3 < g_d4 (nested deeper than ldap_group_nesting_level).
# Scenarios: ldap_id_mapping default (true): passwd entries of both users, by name and by
# uid; primary group from primaryGroupID (Domain Users); groups by name and gid; g_outer
# lists the nested members; `id` shows the nested memberships; carol's come from
# tokenGroups, all four levels. AD's defaults (sssd-ad(5)): bob, without a home, gets
# fallback_homedir /home/ad.test/bob; names match in any case (case_sensitive = false) and
# come back lowercased; written values win; ad_enable_gc = false is accepted.
# id_provider = ldap with ldap_uri = _srv_ finds the DC through DNS SRV records.
# ldap_use_tokengroups = false: the membership searches stop
# at the nesting level. ldap_id_mapping = false: uidNumber/gidNumber, and bob (no POSIX
# attributes) does not exist.
# Usage: test_ad_id.sh PREFIX   (root; 77 without Samba's AD DC packages)
set -u
PREFIX=$(cd "$1" && pwd)
TOP=$(cd "$(dirname "$0")/../.." && pwd)
AD_TEST=test_ad_id
AD_NEEDS=""
. "$(dirname "$0")/ad_env.sh"
samba_ad_user alice Alice-Pass1 --uid-number=10001 --gid-number=10001 \
    --unix-home=/home/alice --login-shell=/bin/bash --nis-domain=ad || exit 1
samba_ad_user bob Bob-Pass1 || exit 1
samba_ad_tool group add g_inner > /dev/null || exit 1
samba_ad_tool group add g_outer --gid-number=20002 --nis-domain=ad > /dev/null || exit 1
samba_ad_tool group addmembers g_inner alice,bob > /dev/null || exit 1
samba_ad_tool group addmembers g_outer g_inner > /dev/null || exit 1
# carol is in g_d1, in g_d2, in g_d3, in g_d4: deeper than ldap_group_nesting_level (2).
samba_ad_user carol Carol-Pass1 || exit 1
for i in 1 2 3 4; do
    samba_ad_tool group add g_d$i > /dev/null || exit 1
done
samba_ad_tool group addmembers g_d1 carol > /dev/null || exit 1
for i in 1 2 3; do
    samba_ad_tool group addmembers g_d$((i + 1)) g_d$i > /dev/null || exit 1
done
samba_ad_join || { echo "FAIL: adcli join"; exit 1; }

# The ids SSSD gives each SID, computed here (first domain seen: its hashed slice).
map_ids() { # SID... -> one id per line
    python3 - "$@" <<PY
import sys
sys.path.insert(0, "$TOP/tests/unit/idmap")
from idmap_ref import Model
m = Model(200000, 2000200000, 200000, False, 10)
dom = sys.argv[1].rpartition("-")[0]
m.add("ad.test", dom, -1)
for sid in sys.argv[1:]:
    print(m.map(sid))
PY
}
SID_ALICE=$(samba_ad_sid alice)
SID_BOB=$(samba_ad_sid bob)
SID_INNER=$(samba_ad_sid g_inner)
SID_OUTER=$(samba_ad_sid g_outer)
DOM_SID=${SID_ALICE%-*}
read -r UID_ALICE UID_BOB GID_INNER GID_OUTER GID_DU GID_D4 <<< "$(map_ids "$SID_ALICE" \
    "$SID_BOB" "$SID_INNER" "$SID_OUTER" "$DOM_SID-513" "$(samba_ad_sid g_d4)" | tr '\n' ' ')"
echo "# domain $DOM_SID: alice $UID_ALICE, bob $UID_BOB, g_inner $GID_INNER, g_outer $GID_OUTER, Domain Users $GID_DU"

conf() {
    rm -f "$LOGS"/*.log     # the checks read the logs of this configuration only
    ad_write_conf nss <<< "$1"
    start_sssd && wait_name sssd.domain_ad_2etest 10000   # the name, escaped
}
BE_LOG=$LOGS/sssd_be_ad.test.log

conf "" || { fail "sssd did not start"; summary; exit; }
out=$(in_nss_ns getent passwd alice)
check "getent passwd alice: uid and gid mapped from objectSid and primaryGroupID ($out)" \
    grep -q "^alice:\*:$UID_ALICE:$GID_DU:" <<< "$out"
check "  ... the back-end bound with GSSAPI as the machine account" \
    grep -q "SASL bind (GSSAPI as CLIENT\\\$@AD.TEST)" "$BE_LOG"
out=$(in_nss_ns getent passwd bob)
check "bob, without POSIX attributes, resolves with his mapped uid ($out)" \
    grep -q "^bob:\*:$UID_BOB:$GID_DU:" <<< "$out"
check "  ... with no unixHomeDirectory, the AD default fallback_homedir: /home/ad.test/bob" \
    grep -q "^bob:.*:/home/ad.test/bob:" <<< "$out"
out=$(in_nss_ns getent passwd "$UID_BOB")
check "getent passwd $UID_BOB (by uid) gives bob ($out)" grep -q "^bob:" <<< "$out"
# case_sensitive defaults to false for AD: any case finds the entry, answered lowercased
# as SSSD does; alice keeps her own home.
out=$(in_nss_ns getent passwd ALICE)
check "getent passwd ALICE answers alice's entry, lowercased ($out)" \
    grep -q "^alice:\*:$UID_ALICE:$GID_DU:.*:/home/alice:" <<< "$out"
out=$(in_nss_ns id Bob)
check "id Bob: bob's ids and nested groups ($out)" \
    grep -q "uid=$UID_BOB(bob) gid=$GID_DU.*$GID_OUTER(g_outer)" <<< "$out"
out=$(in_nss_ns getent group G_Inner)
check "getent group G_Inner answers g_inner ($out)" \
    grep -Eq "^g_inner:\*:$GID_INNER:(alice,bob|bob,alice)$" <<< "$out"
out=$(in_nss_ns getent group g_inner)
check "getent group g_inner: mapped gid, both members ($out)" \
    grep -Eq "^g_inner:\*:$GID_INNER:(alice,bob|bob,alice)$" <<< "$out"
out=$(in_nss_ns getent group "$GID_OUTER")
check "getent group $GID_OUTER (by gid): g_outer lists the nested users ($out)" \
    grep -Eq "^g_outer:\*:$GID_OUTER:(alice,bob|bob,alice)$" <<< "$out"
out=$(in_nss_ns id bob)
check "id bob: primary group and nested memberships ($out)" \
    grep -q "uid=$UID_BOB(bob) gid=$GID_DU" <<< "$out"
for g in "$GID_INNER(g_inner)" "$GID_OUTER(g_outer)"; do
    check "  ... with $g" grep -qF "$g" <<< "$out"
done
out=$(in_nss_ns id carol)
for g in "(g_d1)" "(g_d2)" "(g_d3)" "$GID_D4(g_d4)"; do
    check "id carol: nested $g, deeper than the nesting level: from tokenGroups ($out)" \
        grep -qF "$g" <<< "$out"
done
check "  ... read from one base search (the back-end's log)" \
    grep -q "user 'carol': [0-9]* group SID(s) in tokenGroups" "$BE_LOG"
# The domain's ID-mapping slice is kept in the cache, as SSSD keeps it: a restart puts it
# back before any lookup, so ids stay put even where a hash collision moved a domain.
stop_sssd
: > "$BE_LOG"
start_sssd && wait_name sssd.domain_ad_2etest 10000 || fail "restart with the cache kept"
check "after a restart the back-end takes the slice from the cache (its log)" \
    grep -q "ID mapping: domain .*($DOM_SID) in slice [0-9]* (recorded)" "$BE_LOG"
out=$(in_nss_ns getent passwd alice)
check "  ... and alice keeps her uid ($out)" grep -q "^alice:\*:$UID_ALICE:" <<< "$out"
out=$(in_nss_ns getent passwd nobody_here)
check "an unknown name is not found" test -z "$out"

# A fresh cache and a lookup by id first: no SID was seen yet, the domain's SID comes from
# the search base.
conf "" || fail "restart (fresh cache)"
out=$(in_nss_ns getent passwd "$UID_ALICE")
check "fresh start, getent passwd $UID_ALICE (by uid, first lookup) gives alice ($out)" \
    grep -q "^alice:\*:$UID_ALICE:" <<< "$out"
out=$(in_nss_ns getent group "$GID_D4")
check "  ... getent group $GID_D4 gives g_d4 ($out)" grep -q "^g_d4:\*:$GID_D4:" <<< "$out"

# Written values win over the AD defaults; ad_enable_gc = false (a common line) is taken.
conf "case_sensitive = true
fallback_homedir = /srv/%u
ad_enable_gc = false" || fail "restart (case_sensitive = true, ad_enable_gc)"
out=$(in_nss_ns getent passwd bob)
check "fallback_homedir = /srv/%u wins over the AD default ($out)" \
    grep -q "^bob:.*:/srv/bob:" <<< "$out"
out=$(in_nss_ns getent passwd ALICE)
check "  ... case_sensitive = true: ALICE is not alice ($out)" test -z "$out"
check "  ... ad_enable_gc is accepted without a warning (the GC is connected when true)" \
    eval '! grep -q "option .ad_enable_gc." "$LOGS/sssd.log"'

conf "ldap_use_tokengroups = false" || fail "restart (ldap_use_tokengroups = false)"
out=$(in_nss_ns id carol)
check "ldap_use_tokengroups = false: membership searches, nesting level 2 stops below g_d4" \
    test -n "$(grep "g_d3" <<< "$out")" -a -z "$(grep "g_d4" <<< "$out")"

# id_provider = ldap with ldap_uri = _srv_ (sssd-ldap(5) service discovery): no
# dns_discovery_domain, so the SRV records asked are those of the host name's domain
# (client.ad.test: _ldap._tcp.ad.test), not of the domain's name (corp); they name the DC.
rm -f "$LOGS"/*.log
write_conf <<CONF
[sssd]
domains = corp
services = nss
[domain/corp]
id_provider = ldap
ldap_uri = _srv_
ldap_schema = ad
ldap_id_mapping = true
ldap_search_base = $SAMBA_AD_BASE
ldap_sasl_mech = GSSAPI
ldap_sasl_authid = CLIENT\$
krb5_realm = $SAMBA_AD_REALM
debug_level = 0x3ff0
CONF
start_sssd && wait_name sssd.domain_corp 10000 || fail "restart (id_provider = ldap, ldap_uri = _srv_)"
out=$(in_nss_ns getent passwd alice)
check "id_provider = ldap, ldap_uri = _srv_: alice through the DC DNS names ($out)" \
    grep -q "^alice:\*:$UID_ALICE:$GID_DU:" <<< "$out"
check "  ... the DNS name asked is the host name's domain (the back-end's log)" \
    grep -q "_ldap._tcp.$SAMBA_AD_DOMAIN" "$LOGS/sssd_be_corp.log"

conf "ldap_id_mapping = false" || fail "restart (ldap_id_mapping = false)"
out=$(in_nss_ns getent passwd alice)
check "ldap_id_mapping = false: alice from uidNumber/gidNumber ($out)" \
    grep -q "^alice:\*:10001:10001:" <<< "$out"
out=$(in_nss_ns getent passwd bob)
check "  ... bob (no uidNumber) does not exist ($out)" test -z "$out"
out=$(in_nss_ns getent group g_outer)
check "  ... g_outer has its gidNumber ($out)" grep -q "^g_outer:\*:20002:" <<< "$out"
summary
