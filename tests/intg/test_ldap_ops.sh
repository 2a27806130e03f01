#!/bin/bash
# The LDAP operations a cold `id` costs the directory (issue 18): what slapd's stats log
# shows for the back-end's connections (SRCH, BIND, EXT; one per operation), counted from
# a fresh cache, with getent/id through glibc in a private mount namespace (nss_ns.sh).
#   A. rfc2307: a user in 3 groups (primary group included): at most 2 operations (the
#      user; then id's getgrgid of the primary gid runs the initgroups of the user getpwnam
#      just cached, one search for (|(memberUid=user)(gidNumber=gid)) that brings every
#      group complete, so initgroups and the other getgrgid cost nothing); it was 6 when
#      each of id's getgrgid calls searched its group again, 4 when initgroups searched the
#      user again, 3 when the primary group had a search of its own. The issue's target;
#   A2. the same for a user whose primary group does not list it (memberUid): 2
#      operations, and the group is stored but not added to the user's group list
#      (getent initgroups, from the cache, does not show it: what the memberUid search
#      alone gives, and SSSD);
#   A3. rfc2307 groups over BE_BIG_GROUP in an initgroups: their memberUid values only
#      counted (the log), the cache as a full parse left it (big groups stored without
#      members, the primary group's membership by the user's name among the values);
#   B. rfc2307bis: a user in nested groups: at most 4 operations (the issue's target; it
#      was 17, then 10): the user, then id's getgrgid of the primary gid runs the
#      initgroups of that user with the gid folded into its first hop, (|(member=<user
#      DN>)(gidNumber=gid)), and each later hop also resolves the member DNs the groups
#      found so far name ((|<hop filter>(&(objectClass=*)(|(uid=bzoe))))), so every group
#      comes back with the member list its own lookup would store
#      (sdap_initgroups_graph.c) and no getgrgid of id searches again;
#   C. the same for the shapes that must stay exact: a primary group not listing the
#      user, chains deeper than the nesting level, a loop, member DNs of another shape or
#      dangling, a primary group holding one of the user's groups; each group compared with
#      what its own lookup from a fresh cache stores, each group list with a fresh
#      initgroups alone;
#   D. rfc2307bis: a user in 600 groups (3,600 member values in all, past the 2,000 at which
#      the graph gave up: each of id's 600 getgrgid then ran its own lookup), ten of them in
#      a parent group, the primary group of 1,200 members (over SDAP_IG_GROUP_MAX: its own
#      lookup reads it): at most 30 operations (26 now; 635 before), and every full member list
#      from the cache;
#   E. D's directory, a login's initgroups (getpwnam, then initgroups, no getgrgid before):
#      it uses the member graph too, so its 601 groups come complete and the `getent group`
#      of each after it costs nothing: at most E_MAX operations in all (15 + 0 now; 15 + 26
#      before, the member prefetch of the groups it stored without members), and every
#      member list full;
# and, the correctness the savings must keep: afterwards, with slapd gone, `getent group`
# of every group `id` listed answers from the cache with its exact, full member list, the
# same a group lookup of a fresh cache stores (not only the members initgroups saw).
# Usage: test_ldap_ops.sh PREFIX   (run as root)
set -u
PREFIX=$(cd "${1:-${PREFIX:?usage: test_ldap_ops.sh PREFIX}}" && pwd)
TOP=$(cd "$(dirname "$0")/../.." && pwd)
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/nss_ns.sh"
. "$TOP/tests/lib/slapd.sh"
. "$TOP/tests/lib/ldif.sh"

if ! slapd_available; then
    echo "slapd not installed: skipped"
    exit 77
fi

WORK=$(mktemp -d /tmp/sssd-ldapops.XXXXXX)
SL_PID=
cleanup() {
    stop_sssd
    [ -n "$SL_PID" ] && kill "$SL_PID" 2>/dev/null && wait "$SL_PID" 2>/dev/null
    rm -rf "$WORK"
}
trap cleanup EXIT
# E, measured: 15 (the login) + 0. Before the login's initgroups used the member graph: 15 +
# 26 (the member prefetch of the 601 groups stored without members, which the group
# lookups wait for).
E_MAX=20

# slapd in the foreground with -d stats: its stats lines on stderr, in $1/stats.log (the
# Debian slapd sends loglevel output to syslog only). Loaded by slapd_start, then run again
# on the same port by hand so that the test holds its pid.
slapd_stats() { # DIR LDIF SUFFIX -> sets URI (not in a subshell: SL_PID must stay set)
    local port
    URI=$(slapd_start "$1" "$2" "$3") || return 1
    slapd_stop "$1" || return 1
    port=${URI##*:}
    "$SLAPD_BIN" -f "$1/slapd.conf" -h "$URI/" -n slapd-test -d stats > /dev/null \
        2> "$1/stats.log" &
    SL_PID=$!
    for _ in $(seq 100); do
        (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && return 0
        sleep 0.05
    done
    return 1
}
slapd_stats_stop() {
    [ -n "$SL_PID" ] || return 0
    kill "$SL_PID" 2>/dev/null
    wait "$SL_PID" 2>/dev/null
    SL_PID=
}
# Operations in a stats log from line $2 on: one per distinct conn/op pair that is a
# search, bind or extended operation (a SRCH shows as "SRCH base=" and "SRCH attr=").
ops_since() { # LOG FROM_LINE
    tail -n +"$2" "$1" | grep -E ' conn=[0-9]+ op=[0-9]+ (SRCH|BIND|EXT) ' \
        | sed -E 's/.* (conn=[0-9]+ op=[0-9]+) (SRCH|BIND|EXT) .*/\1 \2/' | sort -u | wc -l
}
ops_list() { # LOG FROM_LINE: the operations, for the log of a failure
    tail -n +"$2" "$1" | grep -E ' conn=[0-9]+ op=[0-9]+ (SRCH base=|BIND|EXT)' \
        | sed -E 's/^[^ ]+ //' | sed 's/^/      /'
}
# The member list of each group line sorted: the order is not part of the answer.
member_sort() {
    local n p g m
    while IFS=: read -r n p g m; do
        echo "$n:$p:$g:$(tr ',' '\n' <<<"$m" | sort | paste -sd,)"
    done
}
# getent group of every group of `id` output $1, one line each, sorted.
groups_of() { # ID_OUTPUT
    local g
    for g in $(grep -o 'groups=.*' <<<"$1" | tr ',' '\n' | sed -E 's/.*\((.*)\)/\1/'); do
        in_nss_ns getent group "$g"
    done | member_sort | sort
}

# Counts the operations of a cold `id USER` against a fresh suite on the stats slapd of
# DIR, checks them against MAX, then checks the member lists of every group `id` listed.
cold_id() { # WHAT DIR USER MAX EXPECTED_GROUPS_FILE
    local what=$1 dir=$2 user=$3 max=$4 want=$5 from n out
    rm -rf "$PREFIX/var/lib/sss/db/"* "$PREFIX/var/lib/sss/mc/"*
    from=$(($(wc -l < "$dir/stats.log") + 1))
    start_sssd || { fail "$what: sssd did not start"; return; }
    out=$(in_nss_ns id "$user")
    check "$what: cold id $user answers: ${out:0:160}" grep -q 'groups=' <<<"$out"
    n=$(ops_since "$dir/stats.log" "$from")
    echo "    $what: $n LDAP operation(s) for a cold id $user (max $max):"
    ops_list "$dir/stats.log" "$from"
    check "$what: a cold id costs at most $max LDAP operations (it took $n)" test "$n" -le "$max"
    # The groups as the cache holds them now, slapd gone: exact and complete.
    slapd_stats_stop
    groups_of "$out" > "$WORK/got"
    if diff -u "$want" "$WORK/got" > "$WORK/diff"; then
        ok "$what: every group of id $user lists its full members from the cache"
    else
        fail "$what: member lists from the cache differ:"; sed 's/^/      /' "$WORK/diff"
    fi
    stop_sssd
}

# ---- A. rfc2307: alice (primary group staff) is in staff, dev, ops; each group also has
# members alice's initgroups search does not name. ----
S=dc=ops,dc=test
{
    ldif_base $S
    ldif_user $S alice 10001 20001 /home/alice
    ldif_user $S bob 10002 20001 /home/bob
    ldif_user $S carol 10003 20002 /home/carol
    ldif_group $S staff 20001 bob alice
    ldif_group $S dev 20002 alice carol bob
    ldif_user $S dave 10004 20004 /home/dave
    ldif_group $S ops 20003 carol alice dave
    ldif_group $S other 20004 bob
} > "$WORK/a.ldif"
printf '%s\n' 'dev:*:20002:alice,bob,carol' 'ops:*:20003:alice,carol,dave' \
    'staff:*:20001:alice,bob' | sort > "$WORK/a.want"
printf '%s\n' 'ops:*:20003:alice,carol,dave' 'other:*:20004:bob' | sort > "$WORK/a2.want"
mkdir -p "$WORK/a"
slapd_stats "$WORK/a" "$WORK/a.ldif" $S || { fail "slapd A did not start"; summary; exit 1; }
write_conf <<CONF
[sssd]
services = nss
domains = ops.test

[domain/ops.test]
id_provider = ldap
ldap_uri = $URI
ldap_search_base = $S
entry_cache_timeout = 600
debug_level = 6
CONF
cold_id rfc2307 "$WORK/a" alice 2 "$WORK/a.want"

# A2: dave's primary group (other) does not list dave.
mkdir -p "$WORK/a2"
slapd_stats "$WORK/a2" "$WORK/a.ldif" $S || { fail "slapd A2 did not start"; summary; exit 1; }
sed -i "s|^ldap_uri = .*|ldap_uri = $URI|" "$CONF"
cold_id "rfc2307, implicit primary group" "$WORK/a2" dave 2 "$WORK/a2.want"
start_sssd || fail "sssd did not start again"
out=$(in_nss_ns getent initgroups dave)
check "dave's group list from the cache is ops alone, without the primary group: '$out'" \
    test "$(tr -s ' ' '\n' <<<"$out" | tail -n +2 | sort | paste -sd,)" = 20003
stop_sssd

# ---- A3. rfc2307, groups over the back-end's BE_BIG_GROUP (1,000 members) in an
# initgroups: erin's primary group eprim holds 1,200 memberUid values, not erin; eteam holds
# 1,200, erin and fred (fred's primary group); esmall holds erin. The initgroups search
# only counts a big list (sdap_entry_count.c): the log says so, and the cache ends as the
# full parse left it: eprim stored but not in erin's list, eteam in erin's and in fred's
# (its needle: fred among the values), the big groups without members (their getent group
# searches the directory, esmall's does not) and then listing all of them. ----
S=dc=big,dc=test
{
    ldif_base $S
    ldif_user $S erin 10101 20101 /home/erin
    ldif_user $S fred 10102 20102 /home/fred
    ldif_group $S eprim 20101 $(seq -f 'm%04g' 1 1200)
    ldif_group $S eteam 20102 $(seq -f 'm%04g' 1 1200) erin fred
    ldif_group $S esmall 20103 erin
} > "$WORK/e.ldif"
mkdir -p "$WORK/e"
slapd_stats "$WORK/e" "$WORK/e.ldif" $S || { fail "slapd A3 did not start"; summary; exit 1; }
write_conf <<CONF
[sssd]
services = nss
domains = big.test

[domain/big.test]
id_provider = ldap
ldap_uri = $URI
ldap_search_base = $S
entry_cache_timeout = 600
debug_level = 6
CONF
rm -f "$LOGS"/sssd_be_big.test.log
start_sssd || fail "A3: sssd did not start"
out=$(in_nss_ns getent initgroups erin)
check "A3: getent initgroups erin lists eteam and esmall: '$out'" \
    test "$(tr -s ' ' '\n' <<<"$out" | tail -n +2 | sort | paste -sd,)" = 20102,20103
check "A3: the back-end counted eteam's 1,202 memberUid values instead of reading them" \
    grep -q "'cn=eteam,ou=Groups,$S': 1202 values of memberUid counted, not read" \
    "$LOGS"/sssd_be_big.test.log
from=$(($(wc -l < "$WORK/e/stats.log") + 1))
out=$(in_nss_ns getent group esmall)
n=$(ops_since "$WORK/e/stats.log" "$from")
check "A3: esmall came complete with the initgroups: no search for it ($n), '$out'" \
    test "$n" -eq 0 -a "$out" = "esmall:*:20103:erin"
from=$(($(wc -l < "$WORK/e/stats.log") + 1))
out=$(in_nss_ns getent group eteam)
n=$(ops_since "$WORK/e/stats.log" "$from")
m=$(tr ',' '\n' <<<"${out##*:}" | grep -c -x 'm[0-9]\{4\}\|erin\|fred')
check "A3: eteam was stored without members: its own lookup searched ($n)" test "$n" -ge 1
check "A3: ... and lists all 1,202 ($m)" test "$m" -eq 1202
stop_sssd
for u in erin fred; do
    rm -rf "$PREFIX/var/lib/sss/db/"* "$PREFIX/var/lib/sss/mc/"*
    start_sssd || fail "A3: sssd did not start again"
    in_nss_ns id "$u" > /dev/null
    out=$(in_nss_ns getent initgroups "$u")
    out=$(tr -s ' ' '\n' <<<"$out" | tail -n +2 | sort | paste -sd,)
    want=20102,20103
    [ "$u" = fred ] && want=20102
    check "A3: after a cold id $u, its group list from the cache is $want: '$out'" \
        test "$out" = "$want"
    stop_sssd
done
check "A3: eprim's 1,200 values were counted too, erin not among them" \
    grep -q "'cn=eprim,ou=Groups,$S': 1200 values of memberUid counted, not read" \
    "$LOGS"/sssd_be_big.test.log
slapd_stats_stop

# ---- B. rfc2307bis: balice in bprim (primary) and bteam; bteam in bdept; bdept in borg;
# bzoe (not looked up) in bteam and borg, so the lists hold users and groups. ----
S=dc=bis,dc=test
{
    ldif_base $S
    ldif_user $S balice 30001 40001 /home/balice
    ldif_user $S bzoe 30002 40001 /home/bzoe
    ldif_bis_group $S bprim 40001 u:balice u:bzoe
    ldif_bis_group $S bteam 40002 u:balice u:bzoe
    ldif_bis_group $S bdept 40003 g:bteam
    ldif_bis_group $S borg 40004 g:bdept u:bzoe
    ldif_bis_group $S bother 40005 u:bzoe
} > "$WORK/b.ldif"
# Nested members are flattened in getent group, as SSSD does.
printf '%s\n' 'bprim:*:40001:balice,bzoe' 'bteam:*:40002:balice,bzoe' \
    'bdept:*:40003:balice,bzoe' 'borg:*:40004:balice,bzoe' | sort > "$WORK/b.want"
mkdir -p "$WORK/b"
slapd_stats "$WORK/b" "$WORK/b.ldif" $S || { fail "slapd B did not start"; summary; exit 1; }
write_conf <<CONF
[sssd]
services = nss
domains = bis.test

[domain/bis.test]
id_provider = ldap
ldap_uri = $URI
ldap_search_base = $S
ldap_schema = rfc2307bis
entry_cache_timeout = 600
debug_level = 6
CONF
cold_id rfc2307bis "$WORK/b" balice 4 "$WORK/b.want"

# ---- C. rfc2307bis, the shapes the fold and the completion must get right, checked
# against what each group's own lookup from a fresh cache stores (ldap_group_nesting_level
# 2): cuser's primary group cprim does not list it (stored complete, not in its list);
# chains below the groups cuser is in, deeper than the nesting level (cdeeper not
# expanded); a loop (cteam > csub > cloop > cteam), so csub is also above cuser; a member
# DN whose RDN is cn (read by base lookup), a dangling member DN; chyper above the nesting
# level (not cuser's). cflip's primary group cfprim does not list it but holds its group
# cteam2: a nested membership (in its list). ----
S=dc=nest,dc=test
{
    ldif_base $S
    ldif_user $S cuser 60001 61001 /home/cuser
    ldif_user $S cother 60002 61001 /home/cother
    ldif_user $S cx 60003 61003 /home/cx
    ldif_user $S cy 60004 61003 /home/cy
    ldif_user $S cz 60005 61003 /home/cz
    ldif_user $S cw 60006 61003 /home/cw
    ldif_user $S cflip 60008 61011 /home/cflip
    printf '%s\n' "dn: cn=C Odd,ou=People,$S" objectClass:\ top objectClass:\ account \
        objectClass:\ posixAccount uid:\ codd cn:\ C\ Odd uidNumber:\ 60007 \
        gidNumber:\ 61003 homeDirectory:\ /home/codd ''
    ldif_bis_group $S cprim 61001 u:cother
    ldif_bis_group $S cteam 61002 u:cuser g:csub
    ldif_bis_group $S csub 61003 u:cx g:cdeep g:cloop
    ldif_bis_group $S cdeep 61004 u:cy g:cdeeper
    ldif_bis_group $S cdeeper 61005 u:cz
    ldif_bis_group $S ctop 61006 g:cteam g:cside | sed '$d'
    printf 'member: cn=C Odd,ou=People,%s\nmember: uid=ghost,ou=People,%s\n\n' $S $S
    ldif_bis_group $S cside 61007 u:cw
    ldif_bis_group $S cbig 61008 g:ctop
    ldif_bis_group $S chyper 61009 g:cbig
    ldif_bis_group $S cloop 61010 g:cteam
    ldif_bis_group $S cfprim 61011 g:cteam2
    ldif_bis_group $S cteam2 61012 u:cflip
} > "$WORK/c.ldif"
mkdir -p "$WORK/c"
slapd_stats "$WORK/c" "$WORK/c.ldif" $S || { fail "slapd C did not start"; summary; exit 1; }
sed -i -e "s|^ldap_uri = .*|ldap_uri = $URI|" -e "s|^ldap_search_base = .*|ldap_search_base = $S|" \
    -e "s|^domains = .*|domains = nest.test|" -e "s|^\[domain/.*|[domain/nest.test]|" "$CONF"
# The reference: each group looked up alone from a fresh cache; each user's group list
# from a fresh initgroups alone (no getpwnam, no getgrgid before it).
fresh() { # COMMAND...
    stop_sssd
    rm -rf "$PREFIX/var/lib/sss/db/"* "$PREFIX/var/lib/sss/mc/"*
    start_sssd || return 1
    in_nss_ns "$@"
    stop_sssd
}
for u in cuser cflip; do
    fresh getent initgroups $u | tr -s ' ' '\n' | tail -n +2 | sort > "$WORK/c.$u.initgr"
    out=$(fresh id $u)
    for g in $(grep -o 'groups=.*' <<<"$out" | tr ',' '\n' | sed -E 's/.*\((.*)\)/\1/'); do
        fresh getent group "$g"
    done | member_sort | sort > "$WORK/c.$u.want"
done
check "C: a fresh group lookup expands cteam to the nesting level: $(grep ^cteam: "$WORK/c.cuser.want")" \
    grep -qx 'cteam:\*:61002:cuser,cx,cy' "$WORK/c.cuser.want"
check "C: cuser's groups are cteam and those above it within the level, not chyper" \
    test "$(paste -sd, "$WORK/c.cuser.initgr")" = 61002,61003,61006,61008,61010
check "C: cflip's groups hold cfprim (through cteam2)" \
    test "$(paste -sd, "$WORK/c.cflip.initgr")" = 61011,61012
slapd_stats_stop
# cuser: the user, three hops (two carrying member DNs), two levels below (cdeep's, then
# cdeeper's members: csub is a group of cuser, two levels up from cdeeper); cflip: the user
# and three hops, every member known on the way.
for u in cuser:6 cflip:4; do
    max=${u#*:} u=${u%:*}
    mkdir -p "$WORK/c$u"
    slapd_stats "$WORK/c$u" "$WORK/c.ldif" $S || { fail "slapd C did not start again"; summary; exit 1; }
    sed -i "s|^ldap_uri = .*|ldap_uri = $URI|" "$CONF"
    cold_id "rfc2307bis, shapes ($u)" "$WORK/c$u" $u "$max" "$WORK/c.$u.want"
    start_sssd || fail "sssd did not start again"
    out=$(in_nss_ns getent initgroups $u | tr -s ' ' '\n' | tail -n +2 | sort | paste -sd,)
    check "C: $u's group list from the cache is the one a fresh initgroups gives: $out" \
        test "$out" = "$(paste -sd, "$WORK/c.$u.initgr")"
    stop_sssd
done

# ---- D. rfc2307bis, many groups: dmany in dg000..dg599 (each also holding three of the
# du users), dg000..dg009 in dparent (with du0000); dmany's primary group dprim holds the
# 1,200 du users and not dmany. ----
S=dc=many,dc=test
python3 - "$S" "$WORK/d.ldif" "$WORK/d.want" <<'PY'
import sys
s, ldif, want = sys.argv[1:]
out, exp = [], []
def user(name, uid):
    out.append(f"dn: uid={name},ou=People,{s}\nobjectClass: top\nobjectClass: account\n"
               f"objectClass: posixAccount\nuid: {name}\ncn: {name}\nuidNumber: {uid}\n"
               f"gidNumber: 71000\nhomeDirectory: /home/{name}\n")
def group(cn, gid, users, groups=(), flat=None):
    out.append(f"dn: cn={cn},ou=Groups,{s}\nobjectClass: top\nobjectClass: posixGroup\n"
               f"objectClass: extensibleObject\ncn: {cn}\ngidNumber: {gid}\n"
               + "".join(f"member: uid={u},ou=People,{s}\n" for u in users)
               + "".join(f"member: cn={g},ou=Groups,{s}\n" for g in groups))
    exp.append(f"{cn}:*:{gid}:" + ",".join(sorted(set(flat if flat is not None else users))))
out.append(f"dn: {s}\nobjectClass: top\nobjectClass: dcObject\nobjectClass: organization\n"
           f"o: Many\ndc: many\n")
out += [f"dn: ou={ou},{s}\nobjectClass: organizationalUnit\nou: {ou}\n"
        for ou in ("People", "Groups")]
du = [f"du{i:04d}" for i in range(1200)]
user("dmany", 70000)
for i, u in enumerate(du):
    user(u, 70001 + i)
group("dprim", 71000, du)
members = {}
for i in range(600):
    members[i] = ["dmany"] + [du[(3 * i + k) % 1200] for k in range(3)]
    group(f"dg{i:03d}", 71001 + i, members[i])
group("dparent", 71999, ["du0000"], [f"dg{i:03d}" for i in range(10)],
      ["du0000"] + [u for i in range(10) for u in members[i]])
open(ldif, "w").write("\n".join(out) + "\n")
open(want, "w").write("\n".join(sorted(exp)) + "\n")
PY
mkdir -p "$WORK/d"
slapd_stats "$WORK/d" "$WORK/d.ldif" $S || { fail "slapd D did not start"; summary; exit 1; }
write_conf <<CONF
[sssd]
services = nss
domains = many.test

[domain/many.test]
id_provider = ldap
ldap_uri = $URI
ldap_search_base = $S
ldap_schema = rfc2307bis
entry_cache_timeout = 600
CONF
cold_id "rfc2307bis, 600 groups" "$WORK/d" dmany 30 "$WORK/d.want"

# ---- E. rfc2307bis, D's directory: a login's initgroups (getpwnam, then initgroups; no
# getgrgid of the primary gid before it), then `getent group` of each group listed. ----
mkdir -p "$WORK/e"
slapd_stats "$WORK/e" "$WORK/d.ldif" $S || { fail "slapd E did not start"; summary; exit 1; }
sed -i "s|^ldap_uri = .*|ldap_uri = $URI|" "$CONF"
rm -rf "$PREFIX/var/lib/sss/db/"* "$PREFIX/var/lib/sss/mc/"*
from=$(($(wc -l < "$WORK/e/stats.log") + 1))
start_sssd || { fail "E: sssd did not start"; summary; exit 1; }
in_nss_ns getent passwd dmany > /dev/null
out=$(in_nss_ns getent initgroups dmany)
n_login=$(ops_since "$WORK/e/stats.log" "$from")
from=$(($(wc -l < "$WORK/e/stats.log") + 1))
for g in $(tr -s ' ' '\n' <<<"$out" | tail -n +2); do
    in_nss_ns getent group "$g"
done | member_sort | sort > "$WORK/e.got"
n_groups=$(ops_since "$WORK/e/stats.log" "$from")
echo "    E: $n_login LDAP operation(s) for the login's getpwnam and initgroups," \
    "$n_groups for the getent group of its $(wc -l < "$WORK/e.got") groups after"
check "E: the login's initgroups lists dmany's 600 groups and dparent ($(wc -l < "$WORK/e.got"))" \
    test "$(wc -l < "$WORK/e.got")" -eq 601
grep -v '^dprim:' "$WORK/d.want" > "$WORK/e.want"
if diff -u "$WORK/e.want" "$WORK/e.got" > "$WORK/diff"; then
    ok "E: every group of the login lists its full members"
else
    fail "E: member lists differ:"; sed 's/^/      /' "$WORK/diff" | head -20
fi
n=$((n_login + n_groups))
check "E: the login and the lookups after it cost at most $E_MAX operations ($n)" \
    test $n -le $E_MAX
stop_sssd
slapd_stats_stop

summary
