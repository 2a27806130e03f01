#!/bin/bash
# sss_cache and the memory cache (issue 17, item 4), through glibc: after sss_cache -u NAME
# (or -g NAME) nothing that can mention the entry is answered from the memory cache any
# more: the groups listing the user, the user's initgroups, the user itself. As SSSD's
# sss_cache does, the whole memory cache goes. Checked with sssd_nss stopped (SIGSTOP): a
# lookup the memory cache cannot answer then waits for the socket and times out.
# Usage: test_resp_sss_cache.sh PREFIX   (run as root)
set -u
PREFIX=$(cd "$1" && pwd)
TOP=$(cd "$(dirname "$0")/../.." && pwd)
TEST_NAME=rcache
. "$TOP/tests/intg/slapd_env.sh"

NSS_PID=
intg_on_exit '[ -n "$NSS_PID" ] && kill -CONT "$NSS_PID" 2>/dev/null'

S=dc=sc,dc=test
mkdir -p "$WORK/ldap"
{
    ldif_base $S
    ldif_user $S alice 10001 20001 /home/alice "Alice" /bin/bash
    ldif_user $S bob 10002 20001 /home/bob "Bob" /bin/bash
    ldif_group $S devs 20001 alice bob
    ldif_group $S ops 20002 alice
} > "$WORK/sc.ldif"
URI=$(slapd_start "$WORK/ldap" "$WORK/sc.ldif" $S) || exit 1
write_conf <<CONF
[sssd]
services = nss
domains = sc.test

[domain/sc.test]
id_provider = ldap
ldap_uri = $URI
ldap_search_base = $S
CONF
start_sssd || { fail "sssd did not start"; summary; exit 1; }
wait_name sssd.nss 5000
export PREFIX LIBDIR

# mc_only CMD...: the command with sssd_nss stopped: only the memory cache can answer.
mc_only() {
    local rc
    NSS_PID=$(service_pid sssd_nss)
    kill -STOP "$NSS_PID"
    out=$(timeout 3 bash -c '. "$1"; shift; in_nss_ns "$@"' _ "$TOP/tests/intg/nss_ns.sh" "$@" 2>/dev/null)
    rc=$?
    kill -CONT "$NSS_PID"; NSS_PID=
    return $rc
}
warm() {
    in_nss_ns getent group devs >/dev/null
    in_nss_ns getent group ops >/dev/null
    in_nss_ns id alice >/dev/null
    in_nss_ns getent passwd bob >/dev/null
}

warm
mc_only getent group devs
check "the memory cache answers getgrnam(devs) before: $out" test "$out" = "devs:*:20001:alice,bob"
mc_only id -G alice
check "... and alice's initgroups: $out" test "$out" = "20001 20002"

"$SBIN/sss_cache" -u alice -c "$CONF"; rc=$?
check "sss_cache -u alice: status 0 ($rc)" test "$rc" -eq 0
mc_only getent group devs; rc=$?
check "after it, devs (which lists alice) is not answered from the memory cache (status $rc: $out)" \
    test "$rc" -ne 0
mc_only getent group 20002; rc=$?
check "... nor ops by gid (status $rc: $out)" test "$rc" -ne 0
mc_only id -G alice; rc=$?
check "... nor alice's initgroups (status $rc: $out)" test "$rc" -ne 0
mc_only getent passwd alice; rc=$?
check "... nor alice (status $rc: $out)" test "$rc" -ne 0
out=$(in_nss_ns getent group devs)
check "sssd_nss answers devs again: $out" test "$out" = "devs:*:20001:alice,bob"

warm
"$SBIN/sss_cache" -g ops -c "$CONF"; rc=$?
check "sss_cache -g ops: status 0 ($rc)" test "$rc" -eq 0
mc_only id -G alice; rc=$?
check "after it, the initgroups of ops's member are not answered from the memory cache (status $rc)" \
    test "$rc" -ne 0
mc_only getent passwd bob; rc=$?
check "... and, as with SSSD, nothing else either: bob (status $rc: $out)" test "$rc" -ne 0
mc_only getent group devs; rc=$?
check "... devs (status $rc: $out)" test "$rc" -ne 0

summary
