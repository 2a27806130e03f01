#!/bin/bash
# Enumeration bounds (issue 11, item 7): with enumerate = true, a GET*ENT reply holds at most
# 256 records whatever count the client asks (a hostile client asked for 4 billion), and
# the snapshot behind getent passwd is built once and shared by the clients that enumerate
# while the cache is unchanged, instead of once per client. Through glibc (getent) and a
# raw wire client (tests/intg/resp_nss_client.py) for the count.
# Usage: test_resp_enum.sh PREFIX   (run as root)
set -u
PREFIX=$(cd "$1" && pwd)
TOP=$(cd "$(dirname "$0")/../.." && pwd)
TEST_NAME=enum
. "$TOP/tests/intg/slapd_env.sh"

N=3000
PY=/usr/bin/python3
CLIENT=$TOP/tests/intg/resp_nss_client.py

S=dc=en,dc=test
mkdir -p "$WORK/ldap"
{
    ldif_base $S
    for i in $(seq 1 $N); do
        ldif_user $S "$(printf 'u%05d' "$i")" $((20000 + i)) 30000 "/home/u$i"
    done
    ldif_group $S all 30000
} > "$WORK/en.ldif"
URI=$(slapd_start "$WORK/ldap" "$WORK/en.ldif" $S) || exit 1
write_conf <<CONF
[sssd]
services = nss
domains = en.test

[nss]
debug_level = 6

[domain/en.test]
id_provider = ldap
ldap_uri = $URI
ldap_search_base = $S
enumerate = true
CONF
rm -f "$LOGS/sssd_nss.log"
start_sssd || { fail "sssd did not start"; summary; exit 1; }
wait_name sssd.nss 5000

# The back-end's first enumeration fills the cache (bounded wait).
n=0
for _ in $(seq 120); do
    n=$(in_nss_ns getent passwd | wc -l)
    [ "$n" -eq "$N" ] && break
    sleep 0.5
done
check "getent passwd lists all $N users ($n)" test "$n" -eq "$N"

out=$("$PY" "$CLIENT" "$PIPES/nss" getent pw 4294967295)
max=$(sed -n 's/.*results=\([0-9]*\).*/\1/p' <<<"$out" | sort -n | tail -n1)
total=$(sed -n 's/.*results=\([0-9]*\).*/\1/p' <<<"$out" | awk '{ s += $1 } END { print s }')
replies=$(grep -c results= <<<"$out")
check "GETPWENT(4294967295): at most 256 records a reply (largest $max, $replies replies)" \
    test "${max:-0}" -le 256 -a "${max:-0}" -gt 0
check "... and all $N users over the replies ($total)" test "${total:-0}" -eq "$N"

# Five clients enumerate at once, the cache unchanged: one snapshot for all.
b0=$(grep -c "Enumeration of users: " "$LOGS/sssd_nss.log")
for i in 1 2 3 4 5; do
    in_nss_ns getent passwd > "$WORK/pw.$i" &
done
wait
b1=$(grep -c "Enumeration of users: " "$LOGS/sssd_nss.log")
same=1
for i in 2 3 4 5; do cmp -s "$WORK/pw.1" "$WORK/pw.$i" || same=0; done
check "5 concurrent enumerations got the same $(wc -l < "$WORK/pw.1") users" test "$same" -eq 1
check "... from one shared snapshot ($((b1 - b0)) built)" test $((b1 - b0)) -le 1

summary
