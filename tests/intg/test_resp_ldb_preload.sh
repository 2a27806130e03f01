#!/bin/bash
# A responder loads libldb's modules right after it starts, not inside the first client's
# request. libldb dlopens every module of its module directory on a process's first
# ldb_init(); where Samba's DSDB modules are installed (as on the CI machine) that is 58
# modules pulling in about 220 shared objects, which a cold lookup used to pay for (40-100
# ms on a quiet machine) when sssd_nss opened the domain's cache on first use.
# Checked without timing: with no request made yet, the tdb back-end module of libldb is
# already mapped into sssd_nss, sssd_pam and sssd_sudo, and the first cold lookup then
# maps no further shared object into sssd_nss.
# Usage: test_resp_ldb_preload.sh PREFIX   (run as root)
set -u
PREFIX=$(cd "$1" && pwd)
TOP=$(cd "$(dirname "$0")/../.." && pwd)
TEST_NAME=ldbpreload
. "$TOP/tests/intg/slapd_env.sh"

S=dc=pl,dc=test
{
    ldif_base $S
    ldif_user $S alice 10001 20001 /home/alice "Alice" /bin/bash
    ldif_group $S devs 20001 alice
} > "$WORK/pl.ldif"
URI=$(slapd_start "$WORK/ldap" "$WORK/pl.ldif" $S) || exit 1
write_conf <<CONF
[sssd]
services = nss, pam, sudo
domains = pl.test
[nss]
debug_level = 0x3ff0
[domain/pl.test]
id_provider = ldap
ldap_uri = $URI
ldap_search_base = $S
CONF
rm -f "$LOGS"/*.log
start_sssd || { fail "sssd did not start"; summary; exit 1; }
for svc in nss pam sudo; do
    wait_name "sssd.$svc" 10000 || fail "sssd_$svc is not on the bus"
done

# The shared objects mapped into a process (one path a line, sorted).
mapped() { awk '$6 ~ /\.so/ { print $6 }' "/proc/$1/maps" | sort -u; }
# Waits (up to 10 s) until PID maps libldb's tdb module.
has_tdb_module() {
    for _ in $(seq 200); do
        mapped "$1" | grep -q '/ldb/tdb\.so$' && return 0
        sleep 0.05
    done
    return 1
}

for svc in nss pam sudo; do
    pid=$(service_pid "sssd_$svc")
    check "sssd_$svc maps libldb's tdb module before any request" has_tdb_module "$pid"
done
check "sssd_nss logged how long loading the modules took" \
    grep -q "libldb's modules loaded in [0-9]* us" "$LOGS/sssd_nss.log"

nss=$(service_pid sssd_nss)
mapped "$nss" > "$WORK/maps.before"
out=$(in_nss_ns getent passwd alice)
check "the first (cold) lookup is answered: $out" \
    test "$out" = "alice:*:10001:20001:Alice:/home/alice:/bin/bash"
mapped "$nss" > "$WORK/maps.after"
comm -13 "$WORK/maps.before" "$WORK/maps.after" > "$WORK/maps.new"
check "... and mapped no further shared object into sssd_nss ($(wc -l < "$WORK/maps.new"):\
 $(head -n 3 "$WORK/maps.new" | tr '\n' ' '))" test ! -s "$WORK/maps.new"
summary
