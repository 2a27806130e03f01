#!/bin/bash
# What the daemons leave unloaded (issue 18, memory): in an LDAP domain that binds without
# SASL, after a cold lookup, sssd_be and sssd_nss map libldb's mdb back-end and no other
# module of libldb's module directory (where Samba's DSDB modules are installed there are
# 55 others, 16 MB resident per process: sysdb_ldb_modules.c), and sssd_be maps no Cyrus
# SASL plugin (3 MB: sdap_sasl_plugins.c). Checked from /proc/PID/maps, without timing.
# Usage: test_lean_modules.sh PREFIX   (run as root)
set -u
PREFIX=$(cd "$1" && pwd)
TOP=$(cd "$(dirname "$0")/../.." && pwd)
TEST_NAME=leanmod
. "$TOP/tests/intg/slapd_env.sh"

S=dc=lm,dc=test
{
    ldif_base $S
    ldif_user $S alice 10001 20001 /home/alice "Alice" /bin/bash
    ldif_group $S devs 20001 alice
} > "$WORK/lm.ldif"
URI=$(slapd_start "$WORK/ldap" "$WORK/lm.ldif" $S) || exit 1
write_conf <<CONF
[sssd]
services = nss
domains = lm.test
[domain/lm.test]
id_provider = ldap
ldap_uri = $URI
ldap_search_base = $S
CONF
# Neither variable may come from the caller: each would bring the modules back.
unset LDB_MODULES_PATH SASL_PATH
start_sssd || { fail "sssd did not start"; summary; exit 1; }
wait_name sssd.nss 10000 || fail "sssd_nss is not on the bus"

out=$(in_nss_ns getent passwd alice)
check "a cold lookup is answered: $out" \
    test "$out" = "alice:*:10001:20001:Alice:/home/alice:/bin/bash"

# The shared objects mapped into a process (one path a line, sorted).
mapped() { awk '$6 ~ /\.so/ { print $6 }' "/proc/$1/maps" | sort -u; }
be=$(be_pid lm.test)
nss=$(service_pid sssd_nss)
for p in "sssd_be:$be" "sssd_nss:$nss"; do
    name=${p%%:*}; pid=${p#*:}
    mapped "$pid" > "$WORK/$name.maps"
    mdb=$(grep '/mdb\.so$' "$WORK/$name.maps" | head -n 1)
    check "$name maps libldb's mdb back-end (${mdb:-none})" test -n "$mdb"
    [ -n "$mdb" ] || continue
    others=$(grep "^$(dirname "$mdb")/" "$WORK/$name.maps" | grep -v '/[mt]db\.so$')
    check "$name maps no other module of $(dirname "$mdb") ($(echo "$others" | grep -c .):\
 $(echo "$others" | head -n 3 | xargs -r -n1 basename | tr '\n' ' '))" test -z "$others"
done
sasl=$(grep '/sasl2/' "$WORK/sssd_be.maps")
check "sssd_be maps no SASL plugin ($(echo "$sasl" | grep -c .):\
 $(echo "$sasl" | head -n 3 | xargs -r -n1 basename | tr '\n' ' '))" test -z "$sasl"
summary
