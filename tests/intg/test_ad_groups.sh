#!/bin/bash
# The groups a cold `id` of an AD user brings (id_provider = ad, tokenGroups): the
# initgroups reads the members of the user's groups with them (sdap_tokengroups.c), so the
# back-end stores each group complete and id's getgrgid calls are answered from the cache.
# Against a real Samba AD DC (tests/lib/samba_ad.sh), through glibc in a mount namespace:
#   1. the reference: from a fresh cache, `getent group` of each of dana's groups (the group
#      lookup path: member DNs resolved, nested groups flattened down to
#      ldap_group_nesting_level = 2), and the nested lists checked by hand below;
#   2. a fresh cache, a cold `id dana` (in 40 flat groups and 4 nested ones): at most
#      MAX_SEARCHES LDAP searches (sssctl stats --json); it was one group search plus its
#      member lookups per group when each getgrgid went to the directory;
#      then a warm id right after: no request to the back-end, no search (the bench's
#      "slow warm id" was its own sssctl and ps calls timed with it);
#   3. the DC stopped: `getent group` of every group `id` listed answers from the cache
#      with exactly the reference's member list (not an empty one);
#   4. ldap_group_nesting_level = 1: the same comparison (reference, then after a cold id
#      every list from the cache without a search).
#   6. tokenGroups through the GC (the default): a cold `id gil` (NGIL + 5 groups: 7 SID
#      searches of 50) lists them all, and not dl_gil, a distribution group: in gil's
#      memberOf, never in a tokenGroups (the domain's LDAP searches the SIDs of gil's
#      memberOf while the GC computes tokenGroups: what is found there must be in
#      tokenGroups too). Its SID searches are shared with the domain's LDAP connection
#      (sdap_tokengroups.c: Samba serves a connection in one process, one core): the
#      back-end log says how many the other connection answered, and the domain's LDAP
#      server counted (sssctl stats, by server) at least as many searches. Before: all 7
#      on the GC.
#   8. the domain's LDAP behind a relay (tests/faults/fault_proxy.py) that records what
#      the back-end sends, with a SASL layer of integrity only (ldap_sasl_maxssf = 1) so
#      the requests can be read (tests/intg/ldap_sid_searches.py): the SID searches sent
#      there during a cold `id gil` carry no paged results control (each names 50 SIDs at
#      most; the control cost Samba ~4.7 ms of CPU per search). Before: all of them did.
#      And gil's memberOf was read there, once, with AD's extended DN control (its
#      values name the groups' SIDs, searched while the GC computes tokenGroups). Before:
#      no such request.
#   9. ldap_use_tokengroups = false (and no GC), through the same relay: the searches of
#      a bounded number of entries carry no paged results control: the nested hops' (by
#      DN, 50 a search) and the member prefetch's (the groups by SID, 100 a search). It
#      costs Samba ~4.6 ms of CPU a search whatever its size. Before: all of them did.
#   7. the domain's LDAP behind a relay (tests/faults/fault_proxy.py) that
#      hangs once both connections are up: the SID searches sent there time out
#      (ldap_search_timeout) and are sent again on the GC: `id gil` still lists them all.
#   5. ldap_use_tokengroups = false (the membership searches): gil, in NGIL flat groups and
#      k_low, gets them all with k_mid and k_top (nesting level 2) and not k_top2, with at
#      most MAX_NT_SEARCHES searches for the nested hops (back-end log): they follow the
#      groups' memberOf. They searched (member=<group DN>) for every group found, 50 a
#      search: ceil(NGIL / 50) searches for nothing at the first hop (a user in 5,000
#      groups: 100 searches of about a second each on Samba, and `id` gave up after 30 s
#      with no group). The whole cold `id gil` costs at most MAX_NT_ID_SEARCHES searches:
#      the member prefetch that stores gil's groups reads their member DNs together, each
#      once a batch (sdap_member_lists.c). Before: 316 (gil's DN read once per group).
# Usage: test_ad_groups.sh PREFIX   (root; 77 without Samba's AD DC packages)
set -u
PREFIX=$(cd "$1" && pwd)
TOP=$(cd "$(dirname "$0")/../.." && pwd)
AD_TEST=test_ad_groups
AD_NEEDS="jq"
. "$(dirname "$0")/ad_env.sh"
SSSCTL=$SBIN/sssctl
NFLAT=40
NGIL=300
# Measured: 2 (the parents of k_low, then of k_mid). Before memberOf: 8 (7 for the 301
# groups of the first hop, 1 for k_mid's parents).
MAX_NT_SEARCHES=3
# Measured: 13. Before the member prefetch read the member DNs of its batch together: 316
# (each group's members resolved on its own: gil's DN read once per group).
MAX_NT_ID_SEARCHES=30
# Measured: 9 (the user, the primary group, the user again, tokenGroups, 1 SID batch, the
# member DNs level by level). Before the groups came complete: 97 (a group search and its
# member lookups for each of id's 45 getgrgid calls on top).
MAX_SEARCHES=30

samba_ad_user dana Dana-Pass1 || exit 1
samba_ad_user erin Erin-Pass1 || exit 1
samba_ad_user fay Fay-Pass1 || exit 1
samba_ad_user gil Gil-Pass1 || exit 1
U="CN=Users,$SAMBA_AD_BASE"
{
    # A contact: neither a user nor a group, skipped as a member.
    printf 'dn: CN=ct1,%s\nobjectClass: contact\n\n' "$U"
    for i in $(seq -w 1 $NFLAT); do
        printf 'dn: CN=gm%s,%s\nobjectClass: group\nsAMAccountName: gm%s\n' "$i" "$U" "$i"
        printf 'member: CN=dana,%s\n' "$U"
        [ $((10#$i % 2)) -eq 0 ] && printf 'member: CN=erin,%s\n' "$U"
        [ $((10#$i % 3)) -eq 0 ] && printf 'member: CN=fay,%s\n' "$U"
        [ "$i" = 01 ] && printf 'member: CN=ct1,%s\n' "$U"
        echo
    done
    # dana < n_low < n_mid < n_top < n_top2: nested deeper than the nesting level (2).
    printf 'dn: CN=n_low,%s\nobjectClass: group\nsAMAccountName: n_low\n' "$U"
    printf 'member: CN=dana,%s\nmember: CN=fay,%s\n\n' "$U" "$U"
    printf 'dn: CN=n_mid,%s\nobjectClass: group\nsAMAccountName: n_mid\n' "$U"
    printf 'member: CN=n_low,%s\nmember: CN=erin,%s\n\n' "$U" "$U"
    printf 'dn: CN=n_top,%s\nobjectClass: group\nsAMAccountName: n_top\n' "$U"
    printf 'member: CN=n_mid,%s\n\n' "$U"
    printf 'dn: CN=n_top2,%s\nobjectClass: group\nsAMAccountName: n_top2\n' "$U"
    printf 'member: CN=n_top,%s\nmember: CN=fay,%s\n\n' "$U" "$U"
    for i in $(seq -w 1 $NGIL); do
        printf 'dn: CN=gl%s,%s\nobjectClass: group\nsAMAccountName: gl%s\n' "$i" "$U" "$i"
        printf 'member: CN=gil,%s\n\n' "$U"
    done
    # A distribution group (groupType 2: global, not security): in gil's memberOf, never in
    # a tokenGroups.
    printf 'dn: CN=dl_gil,%s\nobjectClass: group\nsAMAccountName: dl_gil\ngroupType: 2\n' "$U"
    printf 'member: CN=gil,%s\n\n' "$U"
    # gil < k_low < k_mid < k_top < k_top2 (gil's own chain: the lists above stay as they are)
    printf 'dn: CN=k_low,%s\nobjectClass: group\nsAMAccountName: k_low\n' "$U"
    printf 'member: CN=gil,%s\n\n' "$U"
    for p in low:mid mid:top top:top2; do
        printf 'dn: CN=k_%s,%s\nobjectClass: group\nsAMAccountName: k_%s\n' "${p#*:}" "$U" "${p#*:}"
        printf 'member: CN=k_%s,%s\n\n' "${p%:*}" "$U"
    done
} > "$WORK/groups.ldif"
ldapadd -x -H ldap://$SAMBA_AD_DC_IP -D "Administrator@$SAMBA_AD_DOMAIN" \
    -w "$SAMBA_AD_ADMINPASS" -f "$WORK/groups.ldif" > "$WORK/add.log" 2>&1 ||
    { cat "$WORK/add.log"; echo "FAIL: ldapadd"; exit 1; }
samba_ad_join || { echo "FAIL: adcli join"; exit 1; }

conf() {
    rm -f "$LOGS"/*.log
    write_conf <<CONF
[sssd]
domains = ad.test
services = nss
[domain/ad.test]
id_provider = ad
ad_server = $SAMBA_AD_DC
entry_cache_timeout = 600
debug_level = 0x3ff0
${1:-}
CONF
    start_sssd && wait_name sssd.domain_ad_2etest 10000
}
searches() { # [gc|dom]: LDAP searches the back-end sent so far (to the GC's port, or not)
    "$SSSCTL" stats --json 2>/dev/null | jq -r --arg on "${1:-}" '[.metrics[].samples[]
        | select(.name == "sssd_ldap_operations_total")
        | select(.labels.process == "sssd_be_ad.test" and .labels.operation == "search")
        | select($on == "" or ((.labels.server | test(":3268$")) == ($on == "gc")))
        | .value] | add // 0'
}
be_requests() { # account requests the back-end received so far
    "$SSSCTL" stats --json 2>/dev/null | jq -r '[.metrics[].samples[]
        | select(.name == "sssd_be_requests_total")
        | select(.labels.process == "sssd_be_ad.test") | .value] | add // 0'
}
# One line per group: name:gid:sorted members (the order is not part of the answer).
group_line() { # GID
    local n p g m
    in_nss_ns env SSS_NSS_USE_MEMCACHE=NO getent group "$1" | while IFS=: read -r n p g m; do
        echo "$n:$g:$(tr ',' '\n' <<<"$m" | sort | paste -sd,)"
    done
}
gids_of() { grep -o 'groups=.*' <<<"$1" | tr ',' '\n' | sed -E 's/^(groups=)?([0-9]+).*/\2/'; }

# ---- 1. the reference: each group looked up on its own, fresh cache ----
conf || { fail "sssd did not start"; summary; exit; }
ref_id=$(in_nss_ns id dana)
check "id dana lists the $NFLAT flat groups and the 4 nested ones ($(wc -c <<<"$ref_id") bytes)" \
    test "$(gids_of "$ref_id" | wc -l)" -ge $((NFLAT + 5))
gids=$(gids_of "$ref_id")
stop_sssd
conf || { fail "sssd did not restart"; summary; exit; }
for g in $gids; do group_line "$g"; done | sort > "$WORK/ref"
check "the reference holds every group ($(wc -l < "$WORK/ref"))" \
    test "$(wc -l < "$WORK/ref")" -eq "$(wc -w <<<"$gids")"
# The nesting, by hand: users down to two levels of nested groups below the group.
want() { grep -q "^$1:[0-9]*:$2\$" "$WORK/ref"; }
check "n_low: dana,fay" want n_low dana,fay
check "n_mid: its own erin and n_low's dana,fay" want n_mid dana,erin,fay
check "n_top: n_mid's and n_low's users" want n_top dana,erin,fay
check "n_top2: fay, n_mid's erin; n_low is below the nesting level" want n_top2 erin,fay
check "gm01: dana (the contact is no member)" want gm01 dana
check "gm06: dana,erin,fay" want gm06 dana,erin,fay
stop_sssd

# ---- 4 (first: the DC stays up). ldap_group_nesting_level = 1 ----
N1="ldap_group_nesting_level = 1"
conf "$N1" || { fail "sssd did not restart ($N1)"; summary; exit; }
for g in $gids; do group_line "$g"; done | sort > "$WORK/ref1"
stop_sssd
want1() { grep -q "^$1:[0-9]*:$2\$" "$WORK/ref1"; }
check "$N1: n_mid: erin, n_low's dana,fay" want1 n_mid dana,erin,fay
check "$N1: n_top: n_mid's erin; n_low is below the level" want1 n_top erin
check "$N1: n_top2: fay; n_mid is below the level" want1 n_top2 fay
conf "$N1" || { fail "sssd did not restart ($N1)"; summary; exit; }
out=$(in_nss_ns id dana)
s0=$(searches)
for g in $gids; do group_line "$g"; done | sort > "$WORK/got1"
s1=$(searches)
check "$N1: after a cold id, every group from the cache: no search ($((s1 - s0)))" \
    test "$s1" -eq "$s0"
if diff -u "$WORK/ref1" "$WORK/got1" > "$WORK/diff1"; then
    ok "$N1: every group of id dana lists the reference's members"
else
    fail "$N1: member lists differ from the reference:"
    sed 's/^/      /' "$WORK/diff1" | head -40
fi
stop_sssd

# ---- 5 (the DC stays up). ldap_use_tokengroups = false: the membership searches ----
NT="ldap_use_tokengroups = false"
conf "$NT" || { fail "sssd did not restart ($NT)"; summary; exit; }
in_nss_ns getent passwd Administrator > /dev/null     # connection and bind first
s0=$(searches)
out=$(in_nss_ns id gil)
s1=$(searches)
names=$(grep -o 'groups=.*' <<<"$out" | grep -o '([^)]*)' | tr -d '()')
check "$NT: id gil lists its $NGIL flat groups ($(grep -c '^gl' <<<"$names"))" \
    test "$(grep -c '^gl' <<<"$names")" -eq $NGIL
check "$NT: ... k_low and, nested, k_mid and k_top" \
    test "$(grep -cx 'k_low\|k_mid\|k_top' <<<"$names")" -eq 3
check "$NT: ... not k_top2 (below the nesting level)" \
    test "$(grep -cx 'k_top2' <<<"$names")" -eq 0
# The hops' searches: their filters name gil's groups (the first hop names gil itself; the
# member prefetch that follows searches by name, not by these).
n=$(grep -c "search [0-9]*: '(&(objectClass=group)(|(\(member\|distinguishedName\)=CN=\(gl\|k_\)" \
    "$LOGS/sssd_be_ad.test.log")
echo "    initgroups gil: $n searches for the nested hops (max $MAX_NT_SEARCHES)"
check "$NT: the nested hops of gil's initgroups cost at most $MAX_NT_SEARCHES searches ($n)" \
    test "$n" -le $MAX_NT_SEARCHES
echo "    cold id gil: $((s1 - s0)) LDAP searches (max $MAX_NT_ID_SEARCHES)"
check "$NT: a cold id gil costs at most $MAX_NT_ID_SEARCHES searches ($((s1 - s0)))" \
    test $((s1 - s0)) -le $MAX_NT_ID_SEARCHES
check "$NT: ... its groups' members read together by the member prefetch (back-end log)" \
    grep -q "member prefetch: [0-9]* of [0-9]* group(s) listed together" \
    "$LOGS/sssd_be_ad.test.log"
# What the prefetch stored, as a group lookup gives it (nested users flattened).
for g in gl001 k_low k_mid k_top; do
    line=$(group_line "$g")
    check "$NT: ... getent group $g lists gil: $line" grep -q "^$g:[0-9]*:gil\$" <<<"$line"
done
stop_sssd

# ---- 6 (the DC stays up). tokenGroups on the GC: SID searches on both connections ----
conf || { fail "sssd did not restart (GC)"; summary; exit; }
in_nss_ns getent passwd Administrator > /dev/null     # both connections and binds first
d0=$(searches dom)
out=$(in_nss_ns id gil)
d1=$(searches dom)
names=$(grep -o 'groups=.*' <<<"$out" | grep -o '([^)]*)' | tr -d '()')
check "GC: id gil lists its $NGIL flat groups ($(grep -c '^gl' <<<"$names")) and k_low" \
    test "$(grep -c '^gl' <<<"$names")" -eq $NGIL -a "$(grep -cx 'k_low' <<<"$names")" -eq 1
check "GC: ... not dl_gil (in its memberOf, not in its tokenGroups)" \
    test "$(grep -cx 'dl_gil' <<<"$names")" -eq 0
# "(tokenGroups; D SID search(es) from memberOf while it was computed, S after; P answered
# on the other connection)": D depends on which answer came first (memberOf, mostly).
N='\([0-9]*\)'
read -r during after peer < <(grep -o "user 'gil' is in [0-9]* group(s) (tokenGroups; .*" \
    "$LOGS/sssd_be_ad.test.log" |
    sed -n "s/.*; $N SID search(es) from memberOf while .*, $N after; $N answered .*/\1 \2 \3/p")
split="$peer of $((${during:-0} + ${after:-0}))"
echo "    cold id gil: ${during:-?} SID searches from memberOf during tokenGroups," \
    "${after:-?} after; $split on the domain's LDAP; it counted $((d1 - d0))"
check "GC: gil's SID searches: half on the domain's LDAP (${peer:+$split})" \
    test -n "$peer" -a "${peer:-0}" -ge $(( (${split#* of } - 1) / 2 )) -a "${peer:-0}" -ge 1
check "GC: ... which counted at least as many searches ($((d1 - d0)) >= ${peer:-?})" \
    test $((d1 - d0)) -ge "${peer:-1}"
stop_sssd

# ---- 8 (the DC stays up). the SID searches are not paged ----
RELAY_PORT=13389
python3 "$TOP/tests/faults/fault_proxy.py" --listen "$SAMBA_AD_DC_IP:$RELAY_PORT" \
    --target "$SAMBA_AD_DC_IP:389" --dump-up "$WORK/up" > "$WORK/relay8.out" 2>&1 &
RELAY_PID=$!
for _ in $(seq 50); do grep -q listening "$WORK/relay8.out" && break; sleep 0.1; done
conf "ldap_uri = ldap://$SAMBA_AD_DC:$RELAY_PORT
ldap_sasl_maxssf = 1" ||
    { kill -TERM $RELAY_PID; fail "sssd did not restart (relay, dump)"; summary; exit; }
in_nss_ns getent passwd gil > /dev/null
for _ in $(seq 100); do
    grep -q "global catalog connected" "$LOGS/sssd_be_ad.test.log" && break; sleep 0.1
done
python3 "$TOP/tests/intg/ldap_sid_searches.py" mark "$WORK/up" "$WORK/mark8"
out=$(in_nss_ns id gil)
read -r sid_searches paged xdn _ _ < <(python3 "$TOP/tests/intg/ldap_sid_searches.py" count \
    "$WORK/up" "$WORK/mark8")
names=$(grep -o 'groups=.*' <<<"$out" | grep -o '([^)]*)' | tr -d '()')
check "dump: id gil lists its $NGIL flat groups ($(grep -c '^gl' <<<"$names")) and k_low" \
    test "$(grep -c '^gl' <<<"$names")" -eq $NGIL -a "$(grep -cx 'k_low' <<<"$names")" -eq 1
check "dump: the domain's LDAP got SID searches (${sid_searches:-?})" \
    test "${sid_searches:-0}" -ge 1
check "  ... none of them with the paged results control (${paged:-?})" \
    test -n "${paged:-}" -a "${paged:-1}" -eq 0
check "  ... and gil's memberOf, read with the extended DN control (${xdn:-?} request)" \
    test "${xdn:-0}" -eq 1
stop_sssd
kill -TERM $RELAY_PID; wait $RELAY_PID 2>/dev/null

# ---- 9 (the DC stays up). ldap_use_tokengroups = false: the bounded searches unpaged ----
python3 "$TOP/tests/faults/fault_proxy.py" --listen "$SAMBA_AD_DC_IP:$RELAY_PORT" \
    --target "$SAMBA_AD_DC_IP:389" --dump-up "$WORK/up9" > "$WORK/relay9.out" 2>&1 &
RELAY_PID=$!
for _ in $(seq 50); do grep -q listening "$WORK/relay9.out" && break; sleep 0.1; done
conf "ldap_uri = ldap://$SAMBA_AD_DC:$RELAY_PORT
ldap_sasl_maxssf = 1
ad_enable_gc = false
$NT" || { kill -TERM $RELAY_PID; fail "sssd did not restart (relay, $NT)"; summary; exit; }
in_nss_ns getent passwd gil > /dev/null
python3 "$TOP/tests/intg/ldap_sid_searches.py" mark "$WORK/up9" "$WORK/mark9"
out=$(in_nss_ns id gil)
read -r sid_searches paged _ dn_searches dn_paged < <(python3 \
    "$TOP/tests/intg/ldap_sid_searches.py" count "$WORK/up9" "$WORK/mark9")
names=$(grep -o 'groups=.*' <<<"$out" | grep -o '([^)]*)' | tr -d '()')
check "$NT, dump: id gil lists its $NGIL flat groups and k_low, k_mid, k_top" \
    test "$(grep -c '^gl' <<<"$names")" -eq $NGIL \
    -a "$(grep -cx 'k_low\|k_mid\|k_top' <<<"$names")" -eq 3
check "$NT, dump: the nested hops searched gil's groups by DN (${dn_searches:-?})" \
    test "${dn_searches:-0}" -ge 1
check "  ... none of them with the paged results control (${dn_paged:-?})" \
    test -n "${dn_paged:-}" -a "${dn_paged:-1}" -eq 0
check "$NT, dump: the groups' prefetch searched them by SID (${sid_searches:-?})" \
    test "${sid_searches:-0}" -ge 1
check "  ... none of them with the paged results control (${paged:-?})" \
    test -n "${paged:-}" -a "${paged:-1}" -eq 0
stop_sssd
kill -TERM $RELAY_PID; wait $RELAY_PID 2>/dev/null

# ---- 7 (the DC stays up). the other connection hung: its SID searches go to the GC ----
RELAY_PORT=13389
python3 "$TOP/tests/faults/fault_proxy.py" --listen "$SAMBA_AD_DC_IP:$RELAY_PORT" \
    --target "$SAMBA_AD_DC_IP:389" > "$WORK/relay.out" 2>&1 &
RELAY_PID=$!
for _ in $(seq 50); do grep -q listening "$WORK/relay.out" && break; sleep 0.1; done
conf "ldap_uri = ldap://$SAMBA_AD_DC:$RELAY_PORT
ldap_search_timeout = 2" ||
    { kill -TERM $RELAY_PID; fail "sssd did not restart (relay)"; summary; exit; }
in_nss_ns getent passwd gil > /dev/null
for _ in $(seq 100); do
    grep -q "global catalog connected" "$LOGS/sssd_be_ad.test.log" && break; sleep 0.1
done
kill -USR1 $RELAY_PID          # the domain's LDAP hangs from now on
out=$(in_nss_ns id gil)
names=$(grep -o 'groups=.*' <<<"$out" | grep -o '([^)]*)' | tr -d '()')
check "peer hung: id gil lists its $NGIL flat groups ($(grep -c '^gl' <<<"$names")) and k_low" \
    test "$(grep -c '^gl' <<<"$names")" -eq $NGIL -a "$(grep -cx 'k_low' <<<"$names")" -eq 1
check "  ... its SID searches sent to the hung connection were sent again on the GC" \
    grep -q "user 'gil': a SID search on the other connection failed" \
    "$LOGS/sssd_be_ad.test.log"
stop_sssd
kill -TERM $RELAY_PID; wait $RELAY_PID 2>/dev/null

# ---- 2. a cold id, counted ----
conf || { fail "sssd did not restart"; summary; exit; }
in_nss_ns getent passwd Administrator > /dev/null     # connection and bind first
s0=$(searches)
out=$(in_nss_ns id dana)
s1=$(searches)
check "cold id dana: the same groups as the reference" \
    test "$(gids_of "$out" | sort)" = "$(sort <<<"$gids")"
echo "    cold id dana: $((s1 - s0)) LDAP searches (max $MAX_SEARCHES)"
check "a cold id of dana costs at most $MAX_SEARCHES searches ($((s1 - s0)))" \
    test $((s1 - s0)) -le $MAX_SEARCHES
check "  ... the initgroups brought the groups with their members (back-end log)" \
    grep -q "user 'dana': $((NFLAT + 5)) of $((NFLAT + 5)) group(s) with their members" \
    "$LOGS/sssd_be_ad.test.log"
# The warm id right after: the memory cache and the sysdb answer it; the back-end is not
# asked (its request counter), nor the DC (the searches).
r0=$(be_requests); s0=$(searches)
# The counter counts (the cold id's requests): a zero below is not a missing metric.
check "the back-end's request counter counts ($r0 so far)" test "$r0" -gt 0
warm=$(in_nss_ns id dana)
r1=$(be_requests); s1=$(searches)
check "warm id dana: the same answer as the cold one" test "$warm" = "$out"
check "warm id dana: no request to the back-end ($((r1 - r0))), no search ($((s1 - s0)))" \
    test $((r1 - r0)) -eq 0 -a $((s1 - s0)) -eq 0

# ---- 3. the DC gone: the cache holds every list, complete ----
samba_ad_stop
for g in $gids; do group_line "$g"; done | sort > "$WORK/got"
if diff -u "$WORK/ref" "$WORK/got" > "$WORK/diff"; then
    ok "DC stopped: every group of id dana lists its full members from the cache"
else
    fail "DC stopped: member lists from the cache differ from the reference:"
    sed 's/^/      /' "$WORK/diff" | head -40
fi
summary
