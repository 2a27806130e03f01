#!/bin/bash
# UpdateInitgroups (issue 17, item 9), through glibc: when a refresh of a user's groups finds
# that they changed, the back-end tells sssd_nss, which drops the user's initgroups records
# (whatever name they were asked by) and the records of the groups joined or left from the
# memory cache; the back-end also expires those groups in its cache, since their member
# lists predate the change. libnss_sss then gets the new answers at once, not after the
# records' lifetime. A refresh that changed nothing leaves the memory cache alone.
# The refresh is SSSD's sss_nss_getgrouplist_timeout(..., SSS_NSS_EX_FLAG_NO_CACHE) request
# (root). Its answer stores alice's initgroups record again, so what this test can tell
# apart is the groups: before this change, their stale records (and entries) stayed.
# "Only the memory cache can answer" is checked with sssd_nss stopped (SIGSTOP).
# Usage: test_resp_update_initgroups.sh PREFIX   (run as root)
set -u
PREFIX=$(cd "$1" && pwd)
TOP=$(cd "$(dirname "$0")/../.." && pwd)
TEST_NAME=updinitgr
. "$TOP/tests/intg/slapd_env.sh"

NSS_PID=
intg_on_exit '[ -n "$NSS_PID" ] && kill -CONT "$NSS_PID" 2>/dev/null'

S=dc=ui,dc=test
mkdir -p "$WORK/ldap"
{
    ldif_base $S
    ldif_user $S alice 10001 20001 /home/alice "Alice" /bin/bash
    ldif_user $S bob 10002 20001 /home/bob "Bob" /bin/bash
    ldif_group $S devs 20001 alice bob
    ldif_group $S ops 20002 alice
    ldif_group $S qa 20003 bob
} > "$WORK/ui.ldif"
export SLAPD_SCHEMA_CHECK=1     # entries the test modifies
URI=$(slapd_start "$WORK/ldap" "$WORK/ui.ldif" $S) || exit 1
write_conf <<CONF
[sssd]
services = nss
domains = ui.test

[domain/ui.test]
id_provider = ldap
ldap_uri = $URI
ldap_search_base = $S
debug_level = 9
CONF
start_sssd || { fail "sssd did not start"; summary; exit 1; }
wait_name sssd.nss 5000
export PREFIX LIBDIR

mc_only() { # CMD...: with sssd_nss stopped, so only the memory cache can answer
    local rc
    NSS_PID=$(service_pid sssd_nss)
    kill -STOP "$NSS_PID"
    out=$(timeout 3 bash -c '. "$1"; shift; in_nss_ns "$@"' _ "$TOP/tests/intg/nss_ns.sh" "$@" 2>/dev/null)
    rc=$?
    kill -CONT "$NSS_PID"; NSS_PID=
    return $rc
}
sorted() { tr ' ' '\n' <<<"$1" | sort -n | xargs; }
ldap_admin() { ldapmodify -x -H "$URI" -D "cn=admin,$S" -w secret >/dev/null; }
cp "$TOP/tests/intg/resp_nss_client.py" "$WORK/client.py" && chmod 0755 "$WORK/client.py"
refresh() { # root's INITGR_EX with NO_CACHE for alice: the back-end is asked now
    out=$(python3 "$WORK/client.py" "$PIPES/nss" ex initgr alice 1)
    sleep 0.3   # the signal and the reply take the same way; this is only for the log
}
n_notices() { grep -c "UpdateInitgroups(alice@ui.test)" "$LOGS/sssd_be_ui.test.log" 2>/dev/null; }
notices0=$(n_notices)
in_nss_ns getent group qa >/dev/null
in_nss_ns getent group ops >/dev/null
in_nss_ns id alice >/dev/null
mc_only id -G alice
check "the memory cache answers alice's groups: $out" test "$out" = "20001 20002"
mc_only getent group qa
check "... and qa: $out" test "$out" = "qa:*:20003:bob"

ldap_admin <<LDIF
dn: cn=qa,ou=Groups,$S
changetype: modify
add: memberUid
memberUid: alice
LDIF
check "ldapmodify: alice joins qa" test $? -eq 0
refresh
check "the refresh is answered: $out" grep -q "^status=0 results=3" <<<"$out"
mc_only id -G alice
check "the memory cache has her new groups (the answer stored them): $out" \
    test "$(sorted "$out")" = "20001 20002 20003"
mc_only getent group qa; rc=$?
check "qa's record, the group she joined, is gone from the memory cache (status $rc: $out)" \
    test "$rc" -ne 0
mc_only getent group ops
check "... but not ops, whose membership did not change: $out" test "$out" = "ops:*:20002:alice"
out=$(in_nss_ns getent group qa)
check "getent group qa lists alice now (the group was expired in the cache): $out" \
    grep -Eq "^qa:\*:20003:(bob,alice|alice,bob)$" <<<"$out"
out=$(in_nss_ns id -G alice)
check "id -G alice now answers the new list: $out" test "$(sorted "$out")" = "20001 20002 20003"
tail -n 200 "$LOGS/sssd_be_ui.test.log" | grep -q "UpdateInitgroups(alice@ui.test): 1 groups joined or left"
check "the back-end logged the notice with the one changed group" test $? -eq 0

# No change: the next refresh leaves the group records in place.
in_nss_ns getent group qa >/dev/null
refresh
mc_only getent group qa
check "a refresh that changed nothing leaves qa's record: $out" \
    grep -Eq "^qa:\*:20003:(bob,alice|alice,bob)$" <<<"$out"
n=$(( $(n_notices) - notices0 ))
check "... and sends no notice (one so far: $n)" test "$n" -eq 1

# Leaving a group works the same way.
ldap_admin <<LDIF
dn: cn=ops,ou=Groups,$S
changetype: modify
delete: memberUid
memberUid: alice
LDIF
check "ldapmodify: alice leaves ops" test $? -eq 0
refresh
mc_only getent group 20002; rc=$?
check "after she left ops, ops's record is gone from the memory cache (status $rc: $out)" \
    test "$rc" -ne 0
out=$(in_nss_ns id -G alice)
check "id -G alice: $out" test "$(sorted "$out")" = "20001 20003"
out=$(in_nss_ns getent group ops)
check "getent group ops no longer lists her: $out" test "$out" = "ops:*:20002:"

summary
