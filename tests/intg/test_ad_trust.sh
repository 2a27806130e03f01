#!/bin/bash
# Users of a trusted AD forest (issue 16): two Samba AD DCs, AD.TEST (127.0.0.10, the
# client is joined there) and B.TEST (127.0.0.11), with a two-way forest trust
# (tests/lib/samba_ad_trust.sh). Samba 4.17 cannot host a child domain: a second forest
# is the only "other domain" a test can have.
# Fixture checks: the trust validates; the client's host keytab gets a cross-realm ticket
# for B's LDAP service and reads B's directory with GSSAPI, B's names resolve through A's
# DNS forwarding.
# Discovery: sssd_be (id_provider = ad, joined to AD.TEST) reads AD.TEST's trustedDomain
# objects and records them in its cache; sssctl domain-list lists b.test after ad.test,
# its SID (--json) the one B's accounts carry; after the trust is deleted on both DCs, the
# next refresh (subdomain_refresh_interval) removes it, and its users and groups from the
# cache and the memory cache.
# Lookups: B's users and groups by fully qualified name (user@b.test; also user@B and the
# down-level B\user, as SSSD's AD re_expression allows), always answered fully qualified,
# home /home/b.test/user (fallback_homedir with the trusted domain), by uid (also one never
# looked up by name), by SID (our libsss_nss_idmap); `id` lists B's groups (tokenGroups);
# ids from B's SID slice, computed here from objectSid with tests/unit/idmap/idmap_ref.py;
# the back-end reads them from B's DC, found through B's DNS SRV records, bound with GSSAPI
# as CLIENT$@AD.TEST (a cross-realm ticket). With B's DC down, B's users come from the
# cache and the joined domain stays online.
# ID map: the joined domain's users by uid on a fresh cache after b.test was recorded,
# after a restart, and in slice 0 with ldap_idmap_autorid_compat; a trusted user deleted
# on its DC leaves the cache when asked for by uid; with ldap_id_mapping = false trusted
# domains are listed but not looked up.
# Usage: test_ad_trust.sh PREFIX   (root; 77 without Samba's AD DC packages)
set -u
PREFIX=$(cd "$1" && pwd)
TOP=$(cd "$(dirname "$0")/../.." && pwd)
AD_TEST=test_ad_trust
AD_NEEDS="kvno"
# A binds its own address only and forwards B's names to B.
SAMBA_AD_IFACES=127.0.0.10
SAMBA_AD_FORWARDER=127.0.0.11
T0=$(date +%s.%N)
. "$(dirname "$0")/ad_env.sh"
. "$TOP/tests/lib/samba_ad_trust.sh"
trap 'samba_ad_trust_stop; _ad_env_exit' EXIT

samba_ad_trust_start "$WORK/b" || { fail "the second DC (B.TEST) did not start"; summary; exit; }
samba_ad_user alice Alice-Pass1 || exit 1
samba_ad_b samba_ad_user dave Dave-Pass1 || exit 1
samba_ad_b samba_ad_tool group add b_staff > /dev/null || exit 1
samba_ad_b samba_ad_tool group addmembers b_staff dave > /dev/null || exit 1
samba_ad_b samba_ad_user erin Erin-Pass1 || exit 1
samba_ad_join || { fail "adcli join"; summary; exit; }
T1=$(date +%s.%N)
samba_ad_trust_create || { fail "samba-tool domain trust create"; summary; exit; }
samba_ad_trust_client_files
T2=$(date +%s.%N)
echo "# fixture: two DCs, users and join $(echo "$T1 - $T0" | bc) s," \
    "trust $(echo "$T2 - $T1" | bc) s"
_pss() { # PSS (kB) of a DC: its master and every child
    local pids
    pids=$(pgrep -g "$(ps -o pgid= "$1" | tr -d ' ')" 2> /dev/null)
    for p in $pids; do grep -s '^Pss:' /proc/$p/smaps_rollup; done | awk '{s += $2} END {print s}'
}
echo "# memory: DC A $(_pss "$(cat "$WORK/dc/run/samba.pid")") kB PSS," \
    "DC B $(_pss "$(cat "$WORK/b/dc/run/samba.pid")") kB PSS"

out=$(samba_ad_tool domain trust validate $SAMBA_AD_B_DOMAIN \
    -U "Administrator%$SAMBA_AD_ADMINPASS" 2>&1)
check "samba-tool domain trust validate b.test: WERR_OK" grep -q "WERR_OK" <<< "$out"
out=$(getent hosts $SAMBA_AD_B_DC)
check "B's DC name resolves through A's DNS forwarder ($out)" grep -q "^$SAMBA_AD_B_IP " <<< "$out"
export KRB5CCNAME=FILE:$WORK/host.cc
kinit -k "CLIENT\$@$SAMBA_AD_REALM" > /dev/null 2>&1
out=$(kvno "ldap/$SAMBA_AD_B_DC@$SAMBA_AD_B_REALM" 2>&1)
check "the host keytab's TGT gives a cross-realm ticket for B's LDAP ($out)" \
    grep -q "kvno = " <<< "$out"
out=$(ldapsearch -LLL -Y GSSAPI -H "ldap://$SAMBA_AD_B_DC" -b "$SAMBA_AD_B_BASE" \
    "(sAMAccountName=dave)" sAMAccountName 2>/dev/null)
check "GSSAPI read of B's LDAP as CLIENT\$@AD.TEST finds dave" \
    grep -q "^sAMAccountName: dave" <<< "$out"
out=$(ldapsearch -LLL -Y GSSAPI -H "ldap://$SAMBA_AD_DC" -b "CN=System,$SAMBA_AD_BASE" \
    "(objectClass=trustedDomain)" trustPartner flatName trustDirection 2>/dev/null)
check "A's trustedDomain object names b.test ($(tr '\n' ' ' <<< "$out"))" \
    grep -qi "^trustPartner: b.test" <<< "$out"
unset KRB5CCNAME

# ---- discovery of the trusted domains ------------------------------------------------
SSSCTL=$PREFIX/sbin/sssctl
BE_LOG=$LOGS/sssd_be_ad.test.log
SID_DAVE=$(samba_ad_b samba_ad_sid dave)
B_SID=${SID_DAVE%-*}
wait_log() { # wait_log PATTERN SECONDS: PATTERN in the back-end's log in time
    for _ in $(seq $(($2 * 10))); do
        grep -q "$1" "$BE_LOG" 2> /dev/null && return 0
        sleep 0.1
    done
    return 1
}
rm -f "$LOGS"/*.log     # the checks read the logs of this run only
ad_write_conf nss <<< "subdomain_refresh_interval = 2"
start_sssd && wait_name sssd.domain_ad_2etest 10000 || fail "sssd did not start"
check "the back-end recorded one trusted domain (its log)" \
    wait_log "ad.test: 1 trusted domain(s) recorded" 15
check "  ... b.test, flat name B, B's domain SID $B_SID" \
    grep -q "trusted domain b.test (B, $B_SID), trustDirection 3" "$BE_LOG"
out=$("$SSSCTL" domain-list 2>&1)
LISTED=$out
check "sssctl domain-list lists b.test right after ad.test ($(tr '\n' '|' <<< "$out"))" \
    eval 'grep -A1 "^ad\.test " <<< "$out" | grep -q "^b\.test  *via ad\.test  *trusted (B)"'
check "  ... and counts it" grep -q ", 1 trusted domain$" <<< "$out"
out=$("$SSSCTL" domain-list --json 2>&1)
check "sssctl domain-list --json: b.test's SID is B's ($(jq -c '.domains[0].trusted_domains' \
    <<< "$out" 2> /dev/null))" \
    test "$(jq -r '.domains[0].trusted_domains[0].sid' <<< "$out" 2> /dev/null)" = "$B_SID"

# ---- users and groups of the trusted domain ------------------------------------------
# The ids SSSD gives each SID (tests/unit/idmap/idmap_ref.py, independent of the daemon):
# each domain in the slice its SID hashes to.
map_ids() { # SID... -> one id per line
    python3 - "$@" <<PY
import sys
sys.path.insert(0, "$TOP/tests/unit/idmap")
from idmap_ref import Model
m = Model(200000, 2000200000, 200000, False, 10)
m.add("ad.test", "$A_SID", -1)
m.add("b.test", "$B_SID", -1)
for sid in sys.argv[1:]:
    print(m.map(sid))
PY
}
SID_ALICE=$(samba_ad_sid alice)
A_SID=${SID_ALICE%-*}
SID_STAFF=$(samba_ad_b samba_ad_sid b_staff)
SID_ERIN=$(samba_ad_b samba_ad_sid erin)
read -r UID_DAVE GID_B_DU GID_STAFF UID_ALICE UID_ERIN <<< "$(map_ids "$SID_DAVE" \
    "$B_SID-513" "$SID_STAFF" "$SID_ALICE" "$SID_ERIN" | tr '\n' ' ')"
echo "# B.TEST $B_SID: dave $UID_DAVE, Domain Users $GID_B_DU, b_staff $GID_STAFF"
# The trusted domain's slice must not hide the joined domain's: its ids map back only once
# its own SID (its search base's) is in the map too, on a fresh cache (nothing looked up by
# name yet) and after a restart, which puts the recorded slices back first.
GID_A_DU=$(map_ids "$A_SID-513")
out=$(in_nss_ns getent passwd "$UID_ALICE")
check "fresh cache, no lookup by name yet: getent passwd $UID_ALICE gives alice ($out)" \
    grep -q "^alice:\*:$UID_ALICE:$GID_A_DU:" <<< "$out"
stop_sssd
start_sssd && wait_name sssd.domain_ad_2etest 10000 || fail "sssd did not restart"
"$PREFIX/sbin/sss_cache" -E > /dev/null 2>&1 || fail "sss_cache -E"
out=$(in_nss_ns getent group "$GID_A_DU")
check "after a restart: getent group $GID_A_DU gives ad.test's Domain Users ($out)" \
    grep -qi "^domain users:\*:$GID_A_DU:" <<< "$out"
out=$(in_nss_ns getent passwd dave@b.test)
check "getent passwd dave@b.test: fully qualified, uid and gid from B's slice ($out)" \
    grep -q "^dave@b.test:\*:$UID_DAVE:$GID_B_DU:" <<< "$out"
check "  ... home /home/b.test/dave: the AD fallback_homedir /home/%d/%u with b.test and dave" \
    test "$(cut -d: -f6 <<< "$out")" = /home/b.test/dave
check "  ... read from B's DC, found through DNS SRV of b.test (the back-end's log)" \
    grep -q "trusted domain b.test: its DCs from DNS (ldap://_srv_.b.test)" "$BE_LOG"
bound_to_b() {
    grep -Eq 'SASL bind \(GSSAPI as CLIENT\$@AD\.TEST\) to ldap://[^ ]*\.b\.test[^ ]* done' \
        "$BE_LOG"
}
check "  ... bound with GSSAPI as the joined host's account, CLIENT\$@AD.TEST" bound_to_b
out=$(in_nss_ns getent passwd alice dave@b.test)
check "the joined domain's users stay short, the trusted one's qualified ($out)" \
    eval 'grep -q "^alice:\*:$UID_ALICE:" <<< "$out" && grep -q "^dave@b.test:" <<< "$out"'
out=$(in_nss_ns getent passwd "$UID_DAVE")
check "getent passwd $UID_DAVE (by uid) gives dave@b.test ($out)" \
    grep -q "^dave@b.test:\*:$UID_DAVE:" <<< "$out"
out=$(in_nss_ns getent group b_staff@b.test)
check "getent group b_staff@b.test: B's gid, member dave@b.test ($out)" \
    grep -q "^b_staff@b.test:\*:$GID_STAFF:dave@b.test$" <<< "$out"
# SSSD's AD default re_expression: the flat name after '@', and the down-level form.
out=$(in_nss_ns getent passwd dave@B 'B\dave' 'b.test\dave')
check "getent passwd dave@B, B\\dave, b.test\\dave: dave@b.test each time \
($(tr '\n' '|' <<< "$out"))" test "$(grep -c "^dave@b.test:\*:$UID_DAVE:" <<< "$out")" = 3
out=$(in_nss_ns getent group 'B\b_staff')
check "getent group B\\b_staff: b_staff@b.test ($out)" grep -q "^b_staff@b.test:\*:$GID_STAFF:" \
    <<< "$out"
out=$(in_nss_ns getent passwd nobody@b.test)
check "an unknown user of b.test is not found, asked to B's DC ($out)" \
    eval 'test -z "$out" && grep -q "nobody@b.test: an object of trusted domain b.test" \
        "$BE_LOG"'
out=$(in_nss_ns getent passwd "$UID_ERIN")
check "getent passwd $UID_ERIN, erin's uid, never looked up by name: erin@b.test ($out)" \
    grep -q "^erin@b.test:\*:$UID_ERIN:$GID_B_DU:" <<< "$out"
check "  ... routed by the slice of B's SID (the back-end's log)" \
    grep -q "id $UID_ERIN: in trusted domain b.test's slice" "$BE_LOG"
# A trusted user gone from its DC, asked for by uid again: not found, and out of the cache.
samba_ad_b samba_ad_tool user delete erin > /dev/null || fail "samba-tool user delete erin"
"$PREFIX/sbin/sss_cache" -E > /dev/null 2>&1 || fail "sss_cache -E"
out=$(in_nss_ns getent passwd "$UID_ERIN")
show=$("$SSSCTL" user-show erin@b.test 2>&1)
check "erin deleted on B's DC, the cache expired: getent passwd $UID_ERIN finds nothing \
($out), sssctl user-show erin@b.test neither" \
    eval '[ -z "$out" ] && grep -q "is not present in cache" <<< "$show"'
out=$(in_nss_ns id dave@b.test)
check "id dave@b.test: uid, primary group of B, qualified ($out)" \
    grep -q "^uid=$UID_DAVE(dave@b.test) gid=$GID_B_DU(domain users@b.test)" <<< "$out"
check "  ... and b_staff@b.test, one of B's groups" grep -qF "$GID_STAFF(b_staff@b.test)" \
    <<< "$out"
CLIENT=$WORK/sid_client
cc -O1 -o "$CLIENT" "$TOP/tests/intg/sid_client.c" -ldl || fail "cc sid_client"
out=$("$CLIENT" "$PREFIX/lib/libsss_nss_idmap.so.0" namebysid "$SID_DAVE" 2>&1)
check "getnamebysid(dave's objectSid) (our libsss_nss_idmap): dave@b.test ($out)" \
    grep -q "^rc=0 .*value=dave@b.test$" <<< "$out"
out=$("$CLIENT" "$PREFIX/lib/libsss_nss_idmap.so.0" sidbyname b_staff@b.test 2>&1)
check "getsidbyname(b_staff@b.test): its objectSid ($out)" \
    grep -q "^rc=0 .*value=$SID_STAFF$" <<< "$out"

"$SSSCTL" user-show dave@b.test > "$WORK/show_before" 2>&1
SHOWN=$?
samba_ad_tool domain trust delete $SAMBA_AD_B_DOMAIN --delete-location=both \
    -U "Administrator@$SAMBA_AD_B_REALM" --password="$SAMBA_AD_B_ADMINPASS" \
    --ipaddress=$SAMBA_AD_B_IP --local-dc-username=Administrator \
    --local-dc-password="$SAMBA_AD_ADMINPASS" > "$WORK/trust_delete.log" 2>&1 \
    || fail "samba-tool domain trust delete ($(tail -3 "$WORK/trust_delete.log"))"
check "the trust deleted: the next refresh records none (its log)" \
    wait_log "ad.test: 0 trusted domain(s) recorded" 15
out=$("$SSSCTL" domain-list 2>&1)
check "  ... and sssctl domain-list, which listed it, no longer does ($(tr '\n' '|' <<< "$out"))" \
    eval 'grep -q "^b\.test" <<< "$LISTED" && ! grep -q "^b\.test" <<< "$out"'
check "  ... its users and groups left the cache with it (the back-end's log)" \
    grep -q "trusted domain b.test is gone: [1-9][0-9]* cached user(s) and group(s)" "$BE_LOG"
# The memory cache held dave@b.test and b_staff@b.test (looked up above): libnss_sss would
# answer them from there, without asking sssd_nss, until they expire.
gone_from_nss() {
    for _ in $(seq 30); do
        [ -z "$(in_nss_ns getent passwd dave@b.test)" ] \
            && [ -z "$(in_nss_ns getent group b_staff@b.test)" ] && return 0
        sleep 0.1
    done
    return 1
}
check "  ... getent passwd dave@b.test and group b_staff@b.test: not found any more" \
    gone_from_nss
out=$("$SSSCTL" user-show dave@b.test 2>&1)
check "  ... sssctl user-show dave@b.test: cached before, not now ($out)" \
    eval 'test $SHOWN = 0 && grep -q "is not present in cache" <<< "$out"'

# ---- the trusted domain's DCs down: the joined domain stays online -------------------
n_rec=$(grep -c "ad.test: 1 trusted domain(s) recorded" "$BE_LOG")
# (Samba then fails the validation with WERR_ACCOUNT_DISABLED: the trust is there.)
samba_ad_trust_create --skip-validation || fail "samba-tool domain trust create (again)"
for _ in $(seq 150); do
    [ "$(grep -c "ad.test: 1 trusted domain(s) recorded" "$BE_LOG")" -gt "$n_rec" ] && break
    sleep 0.1
done
# sss_cache -E: sssd_nss's negative cache holds dave@b.test, not found after the removal.
"$PREFIX/sbin/sss_cache" -E > /dev/null 2>&1 || fail "sss_cache -E"
out=$(in_nss_ns getent passwd dave@b.test)
check "the trust created again: dave@b.test resolves again ($out)" \
    grep -q "^dave@b.test:\*:$UID_DAVE:" <<< "$out"
samba_ad_trust_stop
"$PREFIX/sbin/sss_cache" -E > /dev/null 2>&1 || fail "sss_cache -E"
out=$(in_nss_ns getent passwd dave@b.test)
check "B's DC stopped, the cache expired: dave@b.test is answered from the cache ($out)" \
    grep -q "^dave@b.test:\*:$UID_DAVE:" <<< "$out"
check "  ... after the back-end found no DC of b.test (its log)" \
    grep -q "dave@b.test: no DC of the trusted domain is reachable" "$BE_LOG"
out=$("$SSSCTL" domain-list 2>&1)
unreachable() { grep -q "dave@b.test: no DC of the trusted domain is reachable" "$BE_LOG"; }
check "  ... and ad.test, whose back-end found b.test unreachable, stays online \
($(tr '\n' '|' <<< "$out"))" eval 'unreachable && grep -q "^ad\.test  *running  *online" <<< "$out"'
n_ok=$(grep -c "getAccountInfo user name=alice: dp_error 0," "$BE_LOG")
out=$(in_nss_ns getent passwd alice)
check "  ... alice (expired) is read from A's DC again, successfully ($out)" \
    eval 'unreachable && grep -q "^alice:\*:$UID_ALICE:" <<< "$out" \
          && [ "$(grep -c "getAccountInfo user name=alice: dp_error 0," "$BE_LOG")" -gt $n_ok ]'

# ---- ldap_idmap_autorid_compat: the joined domain keeps slice 0 ----------------------
# SSSD maps the primary domain first: with autorid its SID takes slice 0, the trusted one
# the next. A fresh cache (write_conf), the trust recorded first, then alice by uid.
AUTORID_ALICE=$(python3 - <<PY
import sys
sys.path.insert(0, "$TOP/tests/unit/idmap")
from idmap_ref import Model
m = Model(200000, 2000200000, 200000, True, 10)
m.add("ad.test", "$A_SID", -1)
m.add("b.test", "$B_SID", -1)
print(m.map("$SID_ALICE"))
PY
)
n_rec=$(grep -c "ad.test: 1 trusted domain(s) recorded" "$BE_LOG")
ad_write_conf nss <<< "ldap_idmap_autorid_compat = true"
start_sssd && wait_name sssd.domain_ad_2etest 10000 || fail "sssd did not restart"
for _ in $(seq 150); do
    [ "$(grep -c "ad.test: 1 trusted domain(s) recorded" "$BE_LOG")" -gt "$n_rec" ] && break
    sleep 0.1
done
sleep 1     # the discovery's read of ad.test's SID, then b.test's slice
out=$(in_nss_ns getent passwd "$AUTORID_ALICE")
check "autorid, b.test recorded first: alice by uid $AUTORID_ALICE, in slice 0 ($out)" \
    grep -q "^alice:\*:$AUTORID_ALICE:" <<< "$out"

# ---- ldap_id_mapping = false: trusted domains listed, not served ----------------------
# Their POSIX ids would share the joined domain's cache file, whose unique id indexes make
# equal ids of two forests evict each other: the back-end does not route to them then.
ad_write_conf nss <<< "ldap_id_mapping = false"
start_sssd && wait_name sssd.domain_ad_2etest 10000 || fail "sssd did not restart"
check "ldap_id_mapping = false: the back-end says once it will not look up b.test's users" \
    wait_log "ad.test: ldap_id_mapping = false: the users and groups of its 1 trusted" 15
routed() { grep -c "dave@b.test: an object of trusted domain b.test, asked to its DCs" "$BE_LOG"; }
asked() { grep -c "getAccountInfo user name=dave@b.test:" "$BE_LOG"; }
n_routed=$(routed)
n_asked=$(asked)
"$PREFIX/sbin/sss_cache" -E > /dev/null 2>&1 || fail "sss_cache -E"
out=$(in_nss_ns getent passwd dave@b.test)
check "  ... getent passwd dave@b.test reaches the back-end, not b.test's DCs ($out)" \
    eval '[ "$(asked)" -gt "$n_asked" ] && [ "$(routed)" = "$n_routed" ]'
out=$("$SSSCTL" domain-list 2>&1)
check "  ... sssctl domain-list still lists b.test ($(tr '\n' '|' <<< "$out"))" \
    grep -q "^b\.test  *via ad\.test  *trusted (B)" <<< "$out"
summary
