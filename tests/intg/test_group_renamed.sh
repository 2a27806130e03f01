#!/bin/bash
# Groups renamed or given another gid in the directory, end to end (issue 18: a group
# stored with its members modifies then adds under a unique gid index, and meets the other
# holder of its gid only when the index refuses the write): the cache must never keep the
# old name next to the new one. A private slapd (rfc2307) and our sssd; getent/id through glibc in a
# private mount namespace. A rename or a gid change is a delete and an add (this slapd's
# entries, loaded by slapadd, refuse modrdn and modify). After the changes and
# `sss_cache -E`:
#   A. an initgroups of alice (storing all her groups in one transaction): ga renamed
#      ga2 (same gid), gb deleted and its gid given to gnew, gc's gid moved and its old gid
#      given to gd (both in the same batch), gs unchanged keeps its members;
#   B. `getent group ga3` (a group lookup) after ga2 is renamed again;
# then slapd is stopped and the cache alone must answer: old names gone, every gid
# naming its new group.
# Usage: test_group_renamed.sh PREFIX   (run as root)
set -u
PREFIX=$(cd "${1:-${PREFIX:?usage: test_group_renamed.sh PREFIX}}" && pwd)
TOP=$(cd "$(dirname "$0")/../.." && pwd)
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/nss_ns.sh"
. "$TOP/tests/lib/slapd.sh"
. "$TOP/tests/lib/ldif.sh"

if ! slapd_available; then
    echo "slapd not installed: skipped"
    exit 77
fi

WORK=$(mktemp -d /tmp/sssd-grpren.XXXXXX)
cleanup() {
    stop_sssd
    slapd_stop "$WORK/ldap" 2>/dev/null
    rm -rf "$WORK"
}
trap cleanup EXIT

S=dc=ren,dc=test
{
    ldif_base $S
    ldif_user $S alice 30001 31000 /home/alice
    ldif_user $S bob 30002 31000 /home/bob
    ldif_group $S prim 31000 alice bob
    ldif_group $S ga 31001 alice bob
    ldif_group $S gb 31002 alice
    ldif_group $S gc 31003 alice
    ldif_group $S gs 31005 alice bob
} > "$WORK/ren.ldif"
mkdir -p "$WORK/ldap"
URI=$(slapd_start "$WORK/ldap" "$WORK/ren.ldif" $S) || exit 1
ADMIN=(-x -H "$URI" -D "cn=admin,$S" -w secret)

write_conf <<CONF
[sssd]
services = nss
domains = ren.test

[domain/ren.test]
id_provider = ldap
ldap_uri = $URI
ldap_search_base = $S
ldap_network_timeout = 2
offline_timeout = 2
entry_cache_timeout = 600
CONF
start_sssd || { fail "sssd did not start"; summary; exit 1; }

nss() { SSS_NSS_USE_MEMCACHE=NO in_nss_ns "$@"; }
groups_of() { nss id -Gn "$1" | tr ' ' '\n' | sort | tr '\n' ' '; }

out=$(groups_of alice)
check "cold id alice: $out" test "$out" = "ga gb gc gs prim "
out=$(nss getent group gs)
check "gs with its members: $out" test "$out" = "gs:*:31005:alice,bob"

# ---- A: the directory changes; one initgroups stores them all ----
ldapmodify "${ADMIN[@]}" > /dev/null <<LDIF
dn: cn=ga,ou=Groups,$S
changetype: delete

dn: cn=ga2,ou=Groups,$S
changetype: add
objectClass: top
objectClass: posixGroup
cn: ga2
gidNumber: 31001
memberUid: alice
memberUid: bob

dn: cn=gb,ou=Groups,$S
changetype: delete

dn: cn=gnew,ou=Groups,$S
changetype: add
objectClass: top
objectClass: posixGroup
cn: gnew
gidNumber: 31002
memberUid: alice

dn: cn=gc,ou=Groups,$S
changetype: delete

dn: cn=gc,ou=Groups,$S
changetype: add
objectClass: top
objectClass: posixGroup
cn: gc
gidNumber: 31004
memberUid: alice

dn: cn=gd,ou=Groups,$S
changetype: add
objectClass: top
objectClass: posixGroup
cn: gd
gidNumber: 31003
memberUid: alice
LDIF
check "ldapmodify: ga renamed, gb's gid to gnew, gc's gid moved, its old one to gd" \
    test $? -eq 0
"$PREFIX/sbin/sss_cache" -E -c "$CONF"
# The list alone (no getgrgid after it, whose group lookups would store the groups again).
out=$(nss getent initgroups alice | tr -s ' \t' '\n' | sed 1d | sort | tr '\n' ' ')
check "initgroups of alice after the changes: $out" \
    test "$out" = "31000 31001 31002 31003 31004 31005 "

# ---- B: a group lookup stores a renamed group ----
ldapmodify "${ADMIN[@]}" > /dev/null <<LDIF
dn: cn=ga2,ou=Groups,$S
changetype: delete

dn: cn=ga3,ou=Groups,$S
changetype: add
objectClass: top
objectClass: posixGroup
cn: ga3
gidNumber: 31001
memberUid: alice
memberUid: bob
LDIF
check "ldapmodify: ga2 renamed ga3" test $? -eq 0
"$PREFIX/sbin/sss_cache" -E -c "$CONF"
out=$(nss getent group ga3)
check "getent group ga3: $out" test "$out" = "ga3:*:31001:alice,bob"

# ---- the cache alone ----
slapd_stop "$WORK/ldap"
sleep 3     # offline_timeout = 2: the back-end knows it is offline
for name in ga ga2 gb; do
    out=$(nss getent group $name)
    check "offline: no group $name in the cache ('$out')" test -z "$out"
done
while read -r gid want; do
    out=$(nss getent group "$gid")
    check "offline: gid $gid is $want ('$out')" test "${out%%:*}" = "$want"
done <<EOF
31001 ga3
31002 gnew
31003 gd
31004 gc
31005 gs
EOF
out=$(nss getent group gs)
check "offline: gs kept its members: $out" test "$out" = "gs:*:31005:alice,bob"

summary
