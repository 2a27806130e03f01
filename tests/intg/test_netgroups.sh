#!/bin/bash
# NIS netgroups from LDAP through the real glibc path (issue 17, item 10): a private slapd
# with nisNetgroup entries (triples with empty fields, '-', spaces and a malformed one; a
# nested memberNisNetgroup by name and by DN; a loop A -> B -> A; a member that does not
# exist; an empty netgroup, found as SSSD finds it), our sssd, and in a mount namespace whose nsswitch.conf says
# "netgroup: sss": `getent netgroup`, and innetgr() from 16 threads at once
# (tests/intg/netgr_threads.c). Then the cache side: a missing netgroup is negatively
# cached until sss_cache -N; sss_cache -n NAME makes the next lookup see a change in the
# directory; with the server gone, the expired entry still answers (offline).
# SSSD 2.8 (its own daemons on this directory) prints the same `getent netgroup` lines.
# Usage: test_netgroups.sh PREFIX   (run as root)
set -u
PREFIX=$(cd "$1" && pwd)
TOP=$(cd "$(dirname "$0")/../.." && pwd)
TEST_NAME=netgr
. "$TOP/tests/intg/slapd_env.sh"

command -v cc >/dev/null || { echo "SKIP: no C compiler for netgr_threads.c"; exit 77; }
cc -O1 -pthread -o "$WORK/netgr_threads" "$(dirname "$0")/netgr_threads.c" ||
    { fail "netgr_threads.c does not build"; summary; exit 1; }

S=dc=ng,dc=test
. "$(dirname "$0")/netgr_data.sh"
mkdir -p "$WORK/ldap"
netgr_ldif > "$WORK/ng.ldif"
URI=$(slapd_start "$WORK/ldap" "$WORK/ng.ldif" $S) || exit 1
ldap_admin() { # ldap_admin ldapadd|ldapmodify (LDIF on stdin)
    "$1" -x -H "$URI" -D "cn=admin,$S" -w secret > /dev/null
}
write_conf <<CONF
[sssd]
services = nss
domains = ng.test

[domain/ng.test]
id_provider = ldap
ldap_uri = $URI
ldap_search_base = $S
ldap_network_timeout = 2
ldap_opt_timeout = 2
entry_negative_timeout = 600
CONF
start_sssd || { fail "sssd did not start"; summary; exit 1; }
wait_name sssd.nss 5000
export PREFIX LIBDIR

# getent prints the netgroup's name, then every triple, nested netgroups expanded by glibc:
# ng_a's own (the malformed one left out), then ng_b's (the loop back to ng_a and the
# missing member give nothing more); ng_b's member is a DN, read as its name.
for ng in ng_a ng_b ng_c ng_empty ng_missing; do
    out=$(in_nss_ns getent netgroup $ng); rc=$?
    if [ -n "${NETGR_GETENT[$ng]}" ]; then     # (ng_empty: the name alone)
        check "getent netgroup $ng: status $rc, '$out'" \
            test "$rc" -eq 0 -a "$out" = "${NETGR_GETENT[$ng]}"
    else
        check "getent netgroup $ng: not found (status $rc)" test "$rc" -eq 2 -a -z "$out"
    fi
done

checks=("${NETGR_CHECKS[@]}")
out=$(in_nss_ns "$WORK/netgr_threads" 1 1 "${checks[@]}" 2>&1); rc=$?
check "innetgr(), one thread: every answer right ($out)" test "$rc" -eq 0
out=$(in_nss_ns "$WORK/netgr_threads" 16 40 "${checks[@]}" 2>&1); rc=$?
check "innetgr() from 16 threads at once, 40 rounds each: every answer right ($out)" \
    test "$rc" -eq 0

# Negative cache: a netgroup added to the directory stays unknown until sss_cache -N.
ldap_admin ldapadd <<EOF
dn: cn=ng_nosuch,ou=Netgroups,$S
objectClass: top
objectClass: nisNetgroup
cn: ng_nosuch
nisNetgroupTriple: (host5,dave,dom5)
EOF
check "ldapadd ng_nosuch" test $? -eq 0
in_nss_ns getent netgroup ng_nosuch > /dev/null; rc=$?
check "a netgroup found missing is negatively cached (status $rc)" test "$rc" -eq 2
"$PREFIX/sbin/sss_cache" -N; rc=$?
check "sss_cache -N: status 0 ($rc)" test "$rc" -eq 0
out=$(in_nss_ns getent netgroup ng_nosuch)
check "after sss_cache -N it is looked up again: '$out'" \
    test "$out" = "ng_nosuch             (host5,dave,dom5)"

# sss_cache -n NAME: the next lookup reads the directory again. (Entries loaded with
# slapadd -s cannot be modified: ng_nosuch was added over LDAP.)
ldap_admin ldapmodify <<EOF
dn: cn=ng_nosuch,ou=Netgroups,$S
changetype: modify
replace: nisNetgroupTriple
nisNetgroupTriple: (host5,dave,dom5)
nisNetgroupTriple: (host6,erin,dom6)
EOF
check "ldapmodify ng_nosuch" test $? -eq 0
out=$(in_nss_ns getent netgroup ng_nosuch)
check "before sss_cache -n the cached ng_nosuch answers: '$out'" \
    test "$out" = "ng_nosuch             (host5,dave,dom5)"
"$PREFIX/sbin/sss_cache" -n ng_nosuch; rc=$?
check "sss_cache -n ng_nosuch: status 0 ($rc)" test "$rc" -eq 0
out=$(in_nss_ns getent netgroup ng_nosuch)
check "after sss_cache -n ng_nosuch the change is seen: '$out'" \
    test "$out" = "ng_nosuch             (host5,dave,dom5) (host6,erin,dom6)"
"$PREFIX/sbin/sss_cache" -n ng_never_looked_up; rc=$?
check "sss_cache -n of a netgroup not cached: status 2 ($rc)" test "$rc" -eq 2

# Offline: the server stops, every netgroup is expired, the cache still answers.
slapd_stop "$WORK/ldap"
"$PREFIX/sbin/sss_cache" -N > /dev/null
out=$(in_nss_ns getent netgroup ng_a)
check "offline, ng_a answers from the expired cache: '$out'" \
    test "$out" = "${NETGR_GETENT[ng_a]}"
out=$(in_nss_ns "$WORK/netgr_threads" 4 5 ng_a:host3:carol:dom3:1 ng_b:host9:x:y:0 2>&1)
check "offline, innetgr() still right ($out)" test $? -eq 0

summary
