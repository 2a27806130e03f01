#!/bin/bash
# auto_private_groups = false | true | hybrid (issue 17, item 10), through glibc, with the
# behaviour sssd.conf(5) of SSSD 2.8 gives (and Red Hat's guide shows for true:
# "uid=121298(ad_user1) gid=121298(ad_user1) groups=121298(ad_user1),10000(Group1)"):
#   alice  uid 10001, gidNumber 20001 (the real group devs), in ops by memberUid
#   bob    uid 10002, gidNumber 10002, no group 10002 in the directory, in ops
#   carol  uid 10003, gidNumber 10003, and the real group carolgrp has gid 10003
#   false   gids as the directory says; bob's gid resolves to nothing; no private groups
#   true    every user's gid is its uid, its private group "name:*:uid:" is found by name
#           and by gid, and its gidNumber stays one of its groups (appended after the
#           groups the directory lists, as SSSD appends it)
#   hybrid  only bob (uid = gid, no group of that gid) has a private group
# Each mode starts from an empty cache; lookups are made in both orders (group first, user
# first) so the result does not depend on what the cache already held.
# Usage: test_auto_private_groups.sh PREFIX   (run as root)
set -u
PREFIX=$(cd "$1" && pwd)
TOP=$(cd "$(dirname "$0")/../.." && pwd)
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/nss_ns.sh"
. "$TOP/tests/lib/slapd.sh"
. "$TOP/tests/lib/ldif.sh"

WORK=$(mktemp -d /tmp/sssd-mpg.XXXXXX)
cleanup() {
    stop_sssd
    slapd_stop "$WORK/ldap" 2>/dev/null
    rm -rf "$WORK"
}
trap cleanup EXIT
slapd_available || { echo "SKIP: slapd is not available"; exit 77; }

S=dc=mpg,dc=test
mkdir -p "$WORK/ldap"
{
    ldif_base $S
    ldif_user $S alice 10001 20001 /home/alice "Alice" /bin/bash
    ldif_user $S bob 10002 10002 /home/bob "Bob" /bin/bash
    ldif_user $S carol 10003 10003 /home/carol "Carol" /bin/bash
    ldif_group $S devs 20001
    ldif_group $S ops 20003 alice bob carol
    ldif_group $S carolgrp 10003
} > "$WORK/mpg.ldif"
URI=$(slapd_start "$WORK/ldap" "$WORK/mpg.ldif" $S) || exit 1
export PREFIX LIBDIR

start_mode() { # start_mode MODE: sssd with auto_private_groups = MODE, empty caches
    stop_sssd
    write_conf <<CONF
[sssd]
services = nss
domains = mpg.test

[domain/mpg.test]
id_provider = ldap
ldap_uri = $URI
ldap_search_base = $S
auto_private_groups = $1
CONF
    start_sssd || { fail "[$1] sssd did not start"; return 1; }
    wait_name sssd.nss 5000
}

# expect MODE WHAT EXPECTED COMMAND...: the command's output (status 2: "") is EXPECTED
expect() {
    local mode=$1 what=$2 want=$3 out
    shift 3
    out=$(in_nss_ns "$@" 2>/dev/null)
    check "[$mode] $what: '$out'" test "$out" = "$want"
}

. "$(dirname "$0")/mpg_cases.sh"
mpg_cases

summary
