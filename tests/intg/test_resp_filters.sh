#!/bin/bash
# filter_groups and filter_users as SSSD applies them (issue 17, item 3), through glibc: a
# filtered group is found neither by name nor by gid, and is left out of every user's
# initgroups (id), from the socket and from the memory cache; a filtered user is left out of
# member lists (filter_users_in_groups, default true). Checked against SSSD 2.8's own
# daemons on the same directory: "id alice" there prints 20001(devs),20003(ok2) only.
# Usage: test_resp_filters.sh PREFIX   (run as root)
set -u
PREFIX=$(cd "$1" && pwd)
TOP=$(cd "$(dirname "$0")/../.." && pwd)
TEST_NAME=filters
. "$TOP/tests/intg/slapd_env.sh"

NSS_PID=
intg_on_exit '[ -n "$NSS_PID" ] && kill -CONT "$NSS_PID" 2>/dev/null'

S=dc=flt,dc=test
mkdir -p "$WORK/ldap"
{
    ldif_base $S
    ldif_user $S alice 10001 20001 /home/alice "Alice" /bin/bash
    ldif_user $S bob 10002 20001 /home/bob "Bob" /bin/bash
    ldif_group $S devs 20001 alice bob
    ldif_group $S blocked 20002 alice bob
    ldif_group $S ok2 20003 alice
    ldif_group $S hidden 20004 alice
} > "$WORK/flt.ldif"
URI=$(slapd_start "$WORK/ldap" "$WORK/flt.ldif" $S) || exit 1
write_conf <<CONF
[sssd]
services = nss
domains = flt.test

[nss]
filter_groups = root, blocked
filter_users = root, bob

[domain/flt.test]
id_provider = ldap
ldap_uri = $URI
ldap_search_base = $S
filter_groups = hidden
CONF
start_sssd || { fail "sssd did not start"; summary; exit 1; }
wait_name sssd.nss 5000
export PREFIX LIBDIR

out=$(in_nss_ns id alice)
check "id alice leaves out the filtered groups (blocked by [nss], hidden by the domain): $out" \
    test "$out" = "uid=10001(alice) gid=20001(devs) groups=20001(devs),20003(ok2)"
out=$(in_nss_ns env SSS_NSS_USE_MEMCACHE=NO id -G alice)
check "... through the socket: $out" test "$out" = "20001 20003"
NSS_PID=$(service_pid sssd_nss)
kill -STOP "$NSS_PID"
out=$(timeout 3 bash -c '. "$1"; shift; in_nss_ns "$@"' _ "$TOP/tests/intg/nss_ns.sh" id -G alice)
kill -CONT "$NSS_PID"; NSS_PID=
check "... and from the memory cache alone: $out" test "$out" = "20001 20003"
for g in blocked 20002 hidden 20004; do
    in_nss_ns getent group "$g" >/dev/null; rc=$?
    check "getent group $g: not found (status $rc)" test "$rc" -eq 2
done
out=$(in_nss_ns getent group devs)
check "the filtered user is left out of member lists: $out" test "$out" = "devs:*:20001:alice"
in_nss_ns getent passwd bob >/dev/null; rc=$?
check "getent passwd bob (filtered): not found (status $rc)" test "$rc" -eq 2
out=$(in_nss_ns getent group ok2)
check "an ordinary group: $out" test "$out" = "ok2:*:20003:alice"

# A filtered name that turns up in the directory after start (a group "root" created, with
# alice in it) is filtered from the next refresh on; renamed to another name it comes back,
# renamed to root again it goes: the filtered gids follow the cache, not what it held when
# they were first resolved (issue 18: sssd_nss keeps them between lookups). Groups made by
# ldapadd: slapd renames only entries it stored itself (structuralObjectClass).
ldap_do() {
    "$@" -x -H "$URI" -D "cn=admin,$S" -w secret > "$WORK/ldap_do.log" 2>&1 \
        || { cat "$WORK/ldap_do.log"; false; }
}
ldif_group $S root 20005 alice | ldap_do ldapadd
check "ldapadd group root" test $? -eq 0
"$PREFIX/sbin/sss_cache" -E -c "$CONF"
out=$(in_nss_ns env SSS_NSS_USE_MEMCACHE=NO id -G alice)
check "a group root created later is left out of id -G alice: $out" test "$out" = "20001 20003"
out=$(in_nss_ns id -G alice)
check "... also through the memory cache: $out" test "$out" = "20001 20003"
in_nss_ns getent group 20005 >/dev/null; rc=$?
check "getent group 20005 (root, created later): not found (status $rc)" test "$rc" -eq 2
ldap_do ldapmodrdn -r "cn=root,ou=Groups,$S" cn=wasroot
check "ldapmodrdn root -> wasroot" test $? -eq 0
"$PREFIX/sbin/sss_cache" -E -c "$CONF"
out=$(in_nss_ns env SSS_NSS_USE_MEMCACHE=NO id -G alice | tr ' ' '\n' | sort | xargs)
check "renamed away from root, the group is back: $out" test "$out" = "20001 20003 20005"
ldap_do ldapmodrdn -r "cn=wasroot,ou=Groups,$S" cn=root
check "ldapmodrdn wasroot -> root" test $? -eq 0
"$PREFIX/sbin/sss_cache" -E -c "$CONF"
out=$(in_nss_ns env SSS_NSS_USE_MEMCACHE=NO id -G alice | tr ' ' '\n' | sort | xargs)
check "a group renamed to root is left out: $out" test "$out" = "20001 20003"

summary
