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
#   B. rfc2307bis: a user in nested groups: at most 10 operations (it was 17): the user,
#      getgrgid(bprim) and its member DNs, the three nesting hops of initgroups, then
#      getgrgid(borg) with its members level by level (the users and groups of a level in
#      one search), which also stores bdept and bteam complete, so their getgrgid costs
#      nothing. The issue's target is 4: the DN-schema initgroups still stores groups
#      without members;
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
    check "$what: cold id $user answers: $out" grep -q 'groups=' <<<"$out"
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
cold_id rfc2307bis "$WORK/b" balice 10 "$WORK/b.want"

summary
