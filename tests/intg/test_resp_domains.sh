#!/bin/bash
# Two domains on short names (issue 11, item 4): names resolve in domain order in the memory
# cache too, whatever was looked up by id before. Two slapd directories both have a user
# "alice" and a group "admins" (other ids); the second domain's are looked up by id first,
# then the names are looked up through glibc, which reads the memory cache before it asks
# sssd_nss. The first domain's entries must come back, from the socket and from the memory
# cache alone (sssd_nss stopped), and the second domain's by id still from the memory cache.
# Usage: test_resp_domains.sh PREFIX   (run as root)
set -u
PREFIX=$(cd "$1" && pwd)
TOP=$(cd "$(dirname "$0")/../.." && pwd)
TEST_NAME=doms
. "$TOP/tests/intg/slapd_env.sh"

NSS_PID=
intg_on_exit '[ -n "$NSS_PID" ] && kill -CONT "$NSS_PID" 2>/dev/null'

mkdir -p "$WORK/one" "$WORK/two"
{
    ldif_base dc=one,dc=test
    ldif_user dc=one,dc=test alice 10001 5000 /home/alice "Alice One" /bin/bash
    ldif_group dc=one,dc=test admins 5000 alice
} > "$WORK/one.ldif"
{
    ldif_base dc=two,dc=test
    ldif_user dc=two,dc=test alice 30001 5100 /home/alice2 "Alice Two" /bin/sh
    ldif_user dc=two,dc=test zoe 30002 5100 /home/zoe "Zoe Two" /bin/sh
    ldif_group dc=two,dc=test admins 5100 zoe
    ldif_group dc=two,dc=test ops 5200 zoe
} > "$WORK/two.ldif"
URI1=$(slapd_start "$WORK/one" "$WORK/one.ldif" dc=one,dc=test) || exit 1
URI2=$(slapd_start "$WORK/two" "$WORK/two.ldif" dc=two,dc=test) || exit 1

write_conf <<CONF
[sssd]
services = nss
domains = one.test, two.test

[domain/one.test]
id_provider = ldap
ldap_uri = $URI1
ldap_search_base = dc=one,dc=test

[domain/two.test]
id_provider = ldap
ldap_uri = $URI2
ldap_search_base = dc=two,dc=test
CONF
start_sssd || { fail "sssd did not start"; summary; exit 1; }
wait_name sssd.nss 5000

G1="admins:*:5000:alice"
G2="admins:*:5100:zoe"
P1="alice:*:10001:5000:Alice One:/home/alice:/bin/bash"
P2="alice:*:30001:5100:Alice Two:/home/alice2:/bin/sh"

# ---- the second domain's entries by id first ----
out=$(in_nss_ns getent group 5100)
check "getgrgid(5100) is the second domain's admins: $out" test "$out" = "$G2"
out=$(in_nss_ns getent passwd 30001)
check "getpwuid(30001) is the second domain's alice: $out" test "$out" = "$P2"

# ---- then the names: the first domain's, memory cache first as glibc does ----
out=$(in_nss_ns getent group admins)
check "getgrnam(admins) after that is the first domain's: $out" test "$out" = "$G1"
out=$(in_nss_ns getent passwd alice)
check "getpwnam(alice) after that is the first domain's: $out" test "$out" = "$P1"
out=$(in_nss_ns id -G alice)
check "initgroups(alice) is the first domain's alice (5000 only): $out" test "$out" = "5000"

# ---- the memory cache alone (sssd_nss stopped) ----
in_nss_ns getent group ops >/dev/null       # a name only the second domain has
NSS_PID=$(service_pid sssd_nss)
kill -STOP "$NSS_PID"
mc() { timeout 5 bash -c '. "$1"; shift; in_nss_ns "$@"' _ "$TOP/tests/intg/nss_ns.sh" "$@"; }
export PREFIX LIBDIR
out=$(mc getent group admins)
check "memory cache alone: getgrnam(admins) is the first domain's: $out" test "$out" = "$G1"
out=$(mc getent passwd alice)
check "memory cache alone: getpwnam(alice) is the first domain's: $out" test "$out" = "$P1"
out=$(mc getent group 5100)
check "memory cache alone: getgrgid(5100) still answers the second domain's: $out" \
    test "$out" = "$G2"
out=$(mc getent passwd 30001)
check "memory cache alone: getpwuid(30001) still answers: $out" test "$out" = "$P2"
out=$(mc getent group ops)
check "memory cache alone: a name only the second domain has: $out" \
    test "$out" = "ops:*:5200:zoe"
kill -CONT "$NSS_PID"; NSS_PID=

summary
