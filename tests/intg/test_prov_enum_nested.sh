#!/bin/bash
# Enumerated rfc2307bis groups list the same members as lookups by name (issue 17, item 8),
# through the real glibc path: the lines of `getent group` (the enumeration's cache, before
# any lookup by name) must equal those of `getent group NAME` after every entry was expired
# (each group then fetched by name), at ldap_group_nesting_level 2 (the default) and 1.
# Usage: test_prov_enum_nested.sh PREFIX   (run as root)
set -u
PREFIX=$(cd "$1" && pwd)
TOP=$(cd "$(dirname "$0")/../.." && pwd)
TEST_NAME=prov-nest
. "$TOP/tests/intg/slapd_env.sh"


DOM=nest.test
S=dc=nest,dc=test
BELOG=$LOGS/sssd_be_$DOM.log

# top > mid > low > deep, one user per level; a loop; a group holding itself and a DN
# that does not exist; an empty group.
{
    ldif_base $S
    for i in 1 2 3 4 5; do
        ldif_user $S "nu$i" $((32000 + i)) 42000 "/home/nu$i"
    done
    ldif_bis_group $S ntop 42001 u:nu1 g:nmid
    ldif_bis_group $S nmid 42002 u:nu2 g:nlow
    ldif_bis_group $S nlow 42003 u:nu3 g:ndeep
    ldif_bis_group $S ndeep 42004 u:nu4
    ldif_bis_group $S nloopa 42005 u:nu1 g:nloopb
    ldif_bis_group $S nloopb 42006 u:nu5 g:nloopa
    ldif_bis_group $S nodd 42007 u:nu5 g:nodd u:nosuchuser g:ntop
    ldif_bis_group $S nempty 42008
} > "$WORK/data.ldif"
mkdir -p "$WORK/ldap"
URI=$(slapd_start "$WORK/ldap" "$WORK/data.ldif" $S) || exit 1
GROUPS_ALL="ndeep nempty nloopa nloopb nlow nmid nodd ntop"

rounds() { grep -c "Enumeration of $DOM done" "$BELOG" 2>/dev/null; }
wait_round() {
    local deadline=$(( $(now_ms) + 20000 ))
    while [ "$(now_ms)" -lt "$deadline" ]; do
        [ "$(rounds)" -ge 1 ] && return 0
        sleep 0.1
    done
    return 1
}

run_level() { # LEVEL
    local level=$1 g enum byname
    rm -f "$BELOG"
    write_conf <<CONF
[sssd]
services = nss
domains = $DOM

[nss]
memcache_timeout = 0

[domain/$DOM]
id_provider = ldap
ldap_uri = $URI
ldap_search_base = $S
ldap_schema = rfc2307bis
ldap_group_nesting_level = $level
enumerate = true
ldap_enumeration_refresh_timeout = 600
debug_level = 6
CONF
    start_sssd || { fail "level $level: sssd did not start"; return; }
    check "level $level: the enumeration round ends" wait_round
    in_nss_ns getent group | sort > "$WORK/enum.$level"
    check "level $level: getent group lists the 8 groups" \
        test "$(cut -d: -f1 "$WORK/enum.$level" | tr '\n' ' ')" = "$GROUPS_ALL "
    # Expired before each lookup: a group lookup also stores the nested groups it read
    # completely, which would answer the next getent without a lookup of its own.
    for g in $GROUPS_ALL; do
        "$SBIN/sss_cache" -E
        in_nss_ns getent group "$g"
    done | sort > "$WORK/byname.$level"
    check "level $level: the groups were fetched again by name" \
        test "$(grep -c "getAccountInfo group name=" "$BELOG")" -ge 8
    for g in $GROUPS_ALL; do
        enum=$(grep "^$g:" "$WORK/enum.$level")
        byname=$(grep "^$g:" "$WORK/byname.$level")
        check "level $level: $g enumerated '$enum' = by name '$byname'" test "$enum" = "$byname"
    done
    stop_sssd
}

run_level 2
check "level 2: ntop holds nu1, nu2, nu3 (not nu4, three hops down)" \
    grep -qx "ntop:\*:42001:nu1,nu2,nu3" "$WORK/enum.2"
check "level 2: the loop ends: nloopa holds nu1 and nu5" \
    grep -qx "nloopa:\*:42005:nu1,nu5" "$WORK/enum.2"
run_level 1
check "level 1: ntop holds nu1, nu2" grep -qx "ntop:\*:42001:nu1,nu2" "$WORK/enum.1"

summary
