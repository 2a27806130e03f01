#!/bin/bash
# Identity lookups end to end through the real glibc NSS path: a private slapd, our sssd,
# and getent/id in a private mount namespace (nss_ns.sh). Covers rfc2307 and rfc2307bis,
# nested groups, two domains with the same user name, offline answers from the cache,
# failover, memory-cache hits while sssd_nss is stopped, and sss_cache.
# Usage: test_nss_lookup.sh PREFIX   (run as root)
set -u
PREFIX=$(cd "$1" && pwd)
TOP=$(cd "$(dirname "$0")/../.." && pwd)
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/nss_ns.sh"
. "$TOP/tests/lib/slapd.sh"
. "$TOP/tests/lib/ldif.sh"

WORK=$(mktemp -d /tmp/sssd-nss.XXXXXX)
cleanup() {
    stop_sssd
    slapd_stop "$WORK/ldap1" 2>/dev/null
    slapd_stop "$WORK/ldap2" 2>/dev/null
    rm -rf "$WORK"
}
trap cleanup EXIT

# ---- directories: ldap.test (rfc2307, the demo data) and bis.test (rfc2307bis, nested) ----
mkdir -p "$WORK/ldap1" "$WORK/ldap2"
URI1=$(slapd_start "$WORK/ldap1" "$TOP/contrib/demo/demo.ldif" dc=demo,dc=test) || exit 1
S=dc=bis,dc=test
{
    ldif_base $S
    ldif_user $S alice 30001 40001 /home/bis/alice "Alice of Bis" /bin/sh
    ldif_user $S zoe 30002 40001 /home/zoe Zoe /bin/sh
    ldif_bis_group $S inner 40002 u:zoe
    ldif_bis_group $S outer 40003 u:alice g:inner
} > "$WORK/bis.ldif"
URI2=$(slapd_start "$WORK/ldap2" "$WORK/bis.ldif" dc=bis,dc=test) || exit 1
PORT1=${URI1##*:}

write_conf <<CONF
[sssd]
services = nss
domains = ldap.test, bis.test

[nss]
entry_negative_timeout = 2

[domain/ldap.test]
id_provider = ldap
# The first server is dead: failover to the second.
ldap_uri = ldap://127.0.0.1:1, $URI1
ldap_search_base = dc=demo,dc=test
ldap_network_timeout = 2
offline_timeout = 2
entry_cache_timeout = 3

[domain/bis.test]
id_provider = ldap
ldap_uri = $URI2
ldap_search_base = dc=bis,dc=test
ldap_schema = rfc2307bis
use_fully_qualified_names = true
CONF

start_sssd || { fail "sssd did not start"; summary; exit 1; }

# ---- passwd and group through glibc ----
out=$(in_nss_ns getent passwd alice)
check "getent passwd alice (failover to the second ldap_uri): $out" \
    test "$out" = "alice:*:10001:20003:Alice Archer:/home/alice:/bin/bash"
out=$(in_nss_ns getent passwd 10002)
check "getent passwd by uid: $out" test "$out" = "bob:*:10002:20003:Bob Baker:/home/bob:/bin/bash"
out=$(in_nss_ns getent group developers)
check "getent group developers: $out" test "$out" = "developers:*:20001:alice,bob,erin"
out=$(in_nss_ns getent group 20002)
check "getent group by gid: $out" test "$out" = "admins:*:20002:alice"
out=$(in_nss_ns id alice)
check "id alice: $out" grep -q "uid=10001(alice) gid=20003(staff) groups=20003(staff),.*20001(developers)" <<<"$out"
check "id alice lists admins" grep -q "20002(admins)" <<<"$out"
# staff was first seen through alice's initgroups (no member lists fetched then): a group
# lookup must fetch its members, not answer an empty list. By gid: "staff" is also a local
# group on Debian, and local names are not looked up in the directory
# (local_negative_timeout).
out=$(in_nss_ns env SSS_NSS_USE_MEMCACHE=NO getent group 20003)
check "a group first seen through initgroups lists its members: $out" \
    test "$out" = "staff:*:20003:alice,bob,carol,dave,erin"
in_nss_ns getent passwd nosuchuser >/dev/null; rc=$?
check "an unknown user is not found (getent status 2)" test "$rc" -eq 2

# ---- the second domain: fully qualified names, rfc2307bis, nesting ----
out=$(in_nss_ns getent passwd alice@bis.test)
check "same name in the second domain, fully qualified: $out" \
    test "$out" = "alice@bis.test:*:30001:40001:Alice of Bis:/home/bis/alice:/bin/sh"
out=$(in_nss_ns getent group outer@bis.test)
check "rfc2307bis nested group lists the nested member: $out" \
    grep -Eq "^outer@bis.test:\*:40003:(alice@bis.test,zoe@bis.test|zoe@bis.test,alice@bis.test)$" <<<"$out"
out=$(in_nss_ns id zoe@bis.test)
check "id of a nested member shows both groups: $out" \
    grep -q "40002(inner@bis.test)" <<<"$out"
check "... and the outer group" grep -q "40003(outer@bis.test)" <<<"$out"

# ---- a big group (formatted once, kept by sssd_nss): full and current after a change ----
{
    printf 'dn: cn=bigteam,ou=Groups,dc=demo,dc=test\nobjectClass: top\nobjectClass: posixGroup\n'
    printf 'cn: bigteam\ngidNumber: 20900\n'
    for i in $(seq 1 1200); do printf 'memberUid: m%04d\n' "$i"; done
} | ldapadd -x -H "$URI1" -D cn=admin,dc=demo,dc=test -w secret > /dev/null
check "ldapadd bigteam (1,200 members)" test $? -eq 0
big1=$(SSS_NSS_USE_MEMCACHE=NO in_nss_ns getent group bigteam)
big2=$(SSS_NSS_USE_MEMCACHE=NO in_nss_ns getent group 20900)
n=$(tr ',' '\n' <<<"${big1##*:}" | grep -c '^m[0-9]\{4\}$')
check "getent group bigteam lists 1,200 members ($n)" test "$n" -eq 1200
check "a second lookup (by gid) gives the same record" test "$big1" = "$big2"
ldapmodify -x -H "$URI1" -D cn=admin,dc=demo,dc=test -w secret > /dev/null <<LDIF
dn: cn=bigteam,ou=Groups,dc=demo,dc=test
changetype: modify
add: memberUid
memberUid: newbie
-
delete: memberUid
memberUid: m0001
LDIF
check "ldapmodify bigteam" test $? -eq 0
"$PREFIX/sbin/sss_cache" -g bigteam -c "$CONF"
big3=$(SSS_NSS_USE_MEMCACHE=NO in_nss_ns getent group bigteam)
n=$(tr ',' '\n' <<<"${big3##*:}" | grep -c '^m[0-9]\{4\}$')
check "after the change and sss_cache -g: newbie listed" grep -q ",newbie\(,\|$\)" <<<"$big3"
check "... m0001 gone, 1,199 others ($n)" test "$n" -eq 1199

# ---- memory cache: answers while sssd_nss is stopped ----
in_nss_ns getent passwd carol >/dev/null
nss=$(service_pid sssd_nss)
kill -STOP "$nss"
out=$(timeout 5 bash -c ". '$TOP/tests/intg/nss_ns.sh'; PREFIX='$PREFIX' LIBDIR='$PREFIX/lib' in_nss_ns getent passwd carol")
kill -CONT "$nss"
check "memory-cache hit while sssd_nss is stopped: $out" grep -q "^carol:\*:10003:" <<<"$out"

# ---- sss_cache: invalidation visible at once ----
if [ -x "$PREFIX/sbin/sss_cache" ]; then
    "$PREFIX/sbin/sss_cache" -E -c "$CONF"; rc=$?
    check "sss_cache -E succeeds" test "$rc" -eq 0
    nss=$(service_pid sssd_nss)
    kill -STOP "$nss"
    timeout 3 bash -c ". '$TOP/tests/intg/nss_ns.sh'; PREFIX='$PREFIX' LIBDIR='$PREFIX/lib' in_nss_ns getent passwd carol" >/dev/null; rc=$?
    kill -CONT "$nss"
    check "after sss_cache the memory cache no longer answers (status $rc)" test "$rc" -ne 0
fi

# ---- offline: slapd gone, answers from the cache (expired included) ----
in_nss_ns getent passwd dave >/dev/null
slapd_stop "$WORK/ldap1"
sleep 4     # entry_cache_timeout = 3: the entries are expired now
out=$(in_nss_ns getent passwd dave)
check "offline: an expired cached user is still served: $out" grep -q "^dave:\*:10004:" <<<"$out"
out=$(in_nss_ns id alice)
check "offline: id alice from the cache" grep -q "20001(developers)" <<<"$out"
# Back online without restarting anything: same port, fresh data.
sed 's/Dave Driver/Dave Renamed/' "$TOP/contrib/demo/demo.ldif" > "$WORK/demo2.ldif"
rm -rf "$WORK/ldap1"; mkdir -p "$WORK/ldap1"
SLAPD_PORT=$PORT1 slapd_start "$WORK/ldap1" "$WORK/demo2.ldif" dc=demo,dc=test >/dev/null
ok_online=1
for _ in $(seq 40); do
    out=$(in_nss_ns getent passwd dave)
    grep -q "Dave Renamed" <<<"$out" && { ok_online=0; break; }
    sleep 0.5
done
check "back online on its own: the refreshed entry is served ($out)" test "$ok_online" -eq 0

summary
