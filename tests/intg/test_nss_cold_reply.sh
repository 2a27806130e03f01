#!/bin/bash
# The cold lookup's round trip (issue 18): sssd_be's getAccountInfo reply carries the entry
# it just stored and sssd_nss answers from it (sysdb_reply.h) instead of reading it back
# from ldb. End to end with real parts: a private slapd (the demo data), our sssd, and
# getent/id through glibc in a private mount namespace. Checks that every kind of cold
# lookup (user by name and by uid, group by name and by gid, initgroups, a user that does
# not exist) answers exactly what the directory holds, and that sssd_nss's log shows the
# carried entry taken for each (so the answers came through the new path); that "not
# found" still negative-caches (no second back-end call); that the domain's filter_users
# still hides a user the back-end carried (and a member of a carried group); and that a
# refresh of an expired entry takes the new carried entry (a changed shell is served).
# Usage: test_nss_cold_reply.sh PREFIX   (run as root)
set -u
PREFIX=$(cd "$1" && pwd)
TOP=$(cd "$(dirname "$0")/../.." && pwd)
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/nss_ns.sh"
. "$TOP/tests/lib/slapd.sh"
. "$TOP/tests/lib/ldif.sh"

WORK=$(mktemp -d /tmp/sssd-coldreply.XXXXXX)
cleanup() {
    stop_sssd
    slapd_stop "$WORK/ldap" 2>/dev/null
    rm -rf "$WORK"
}
trap cleanup EXIT

mkdir -p "$WORK/ldap"
URI=$(slapd_start "$WORK/ldap" "$TOP/contrib/demo/demo.ldif" dc=demo,dc=test) || exit 1

write_conf <<CONF
[sssd]
services = nss
domains = ldap.test

[nss]
debug_level = 0x3ff0
entry_negative_timeout = 30
filter_users = erin

[domain/ldap.test]
id_provider = ldap
ldap_uri = $URI
ldap_search_base = dc=demo,dc=test
entry_cache_timeout = 600
CONF
rm -f "$LOGS/sssd_nss.log"

start_sssd || { fail "sssd did not start"; summary; exit 1; }

NSSLOG=$LOGS/sssd_nss.log
count() { local n; n=$(grep -c "$1" "$NSSLOG" 2>/dev/null); echo "${n:-0}"; }
taken() { count "Entry carried by the reply .*: taken"; }
carried() { count "Entry carried by the reply"; }
# cold LABEL EXPECTED -- COMMAND...: one cold lookup that must answer EXPECTED (a grep -E
# pattern) and take one more carried entry than before.
cold() {
    local label=$1 want=$2 before out
    shift 3
    before=$(taken)
    out=$(SSS_NSS_USE_MEMCACHE=NO in_nss_ns "$@")
    check "$label answers from the directory: $out" grep -Eq "$want" <<<"$out"
    check "$label: sssd_nss took the entry the back-end carried" test "$(taken)" -gt "$before"
}

cold "user by name" '^alice:\*:10001:20003:Alice Archer:/home/alice:/bin/bash$' \
    -- getent passwd alice
cold "user by uid" '^bob:\*:10002:20003:Bob Baker:/home/bob:/bin/bash$' -- getent passwd 10002
# (erin, a member, is in filter_users: not listed, carried or not)
cold "group by name" '^developers:\*:20001:alice,bob$' -- getent group developers
cold "group by gid" '^admins:\*:20002:alice$' -- getent group 20002
cold "initgroups (id carol)" 'uid=10003\(carol\) gid=20003\(staff\) groups=.*20003\(staff\)' \
    -- id carol

# Not found: the carried "no such entry" still puts the name in the negative cache.
before=$(carried)
SSS_NSS_USE_MEMCACHE=NO in_nss_ns getent passwd nosuchuser > /dev/null; rc=$?
check "an unknown user is not found (getent status 2)" test "$rc" -eq 2
check "... the back-end's reply carried its absence" test "$(carried)" -gt "$before"
before=$(carried)
SSS_NSS_USE_MEMCACHE=NO in_nss_ns getent passwd nosuchuser > /dev/null; rc=$?
check "asked again: not found (status $rc) from the negative cache, no back-end call" \
    test "$rc" -eq 2 -a "$(carried)" -eq "$before"

# filter_users: erin, asked by uid (so the back-end is asked and carries her), is hidden.
SSS_NSS_USE_MEMCACHE=NO in_nss_ns getent passwd 10005 > /dev/null; rc=$?
check "a filtered user carried by the back-end is still not answered (status $rc)" \
    test "$rc" -eq 2

# Refresh of an expired entry: the directory changed, the carried entry is the new one.
ldif_user dc=demo,dc=test zed 10090 20003 /home/zed "Zed" /bin/sh \
    | ldapadd -x -H "$URI" -D cn=admin,dc=demo,dc=test -w secret > /dev/null
check "ldapadd zed" test $? -eq 0
cold "a new user" '^zed:\*:10090:20003:[^:]*:/home/zed:/bin/sh$' -- getent passwd zed
ldapmodify -x -H "$URI" -D cn=admin,dc=demo,dc=test -w secret > /dev/null <<LDIF
dn: uid=zed,ou=People,dc=demo,dc=test
changetype: modify
replace: loginShell
loginShell: /bin/zsh
LDIF
check "ldapmodify zed" test $? -eq 0
"$PREFIX/sbin/sss_cache" -u zed -c "$CONF"
cold "refresh of the expired user" '^zed:\*:10090:20003:[^:]*:/home/zed:/bin/zsh$' \
    -- getent passwd zed

summary
