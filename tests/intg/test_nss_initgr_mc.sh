#!/bin/bash
# The groups of an initgroups answer go to the memory cache (issue 18, `id` of a user in
# 5,000 groups): glibc's `id` asks initgroups, then getgrgid of every gid; each of those is
# now a memory-cache hit instead of a round trip to sssd_nss. Through glibc in a mount
# namespace against a private slapd:
#   A. after `getent initgroups alice` alone, with sssd_nss stopped (SIGSTOP: only the
#      memory cache can answer), getent group <gid> of each of alice's groups answers the
#      very record sssd_nss gives;
#   B. a cold `id alice` sends sssd_nss no getgrgid of alice's directory groups (its log);
#   C. a group named by filter_groups is in no record: not answered with sssd_nss stopped;
#   D. sss_cache -E drops the records as it drops every other;
#   E. a group whose cache entry has expired gets no record from an initgroups answered
#      from the (still valid) user entry: a getgrgid would have asked the back-end;
#   F. the groups' records are written after the reply, and without any further request
#      (sssd_nss's log: the reply, then the records);
#   G. right after a cold `id dave` (initgroups, then getgrgid of each gid, the first of
#      which may come before the records are written), dave's groups are all answered
#      with sssd_nss stopped.
# Usage: test_nss_initgr_mc.sh PREFIX   (run as root)
set -u
PREFIX=$(cd "$1" && pwd)
TOP=$(cd "$(dirname "$0")/../.." && pwd)
TEST_NAME=initgrmc
. "$TOP/tests/intg/slapd_env.sh"

NSS_PID=
intg_on_exit '[ -n "$NSS_PID" ] && kill -CONT "$NSS_PID" 2>/dev/null'

NG=60
S=dc=im,dc=test
mkdir -p "$WORK/ldap"
{
    ldif_base $S
    ldif_user $S alice 10001 20000 /home/alice "Alice" /bin/bash
    ldif_user $S bob 10002 20000 /home/bob "Bob" /bin/bash
    ldif_user $S carol 10003 20000 /home/carol "Carol" /bin/bash
    ldif_group $S prim 20000 bob
    for i in $(seq 1 "$NG"); do
        if [ $((i % 2)) -eq 0 ]; then
            ldif_group $S "$(printf g%02d "$i")" $((20000 + i)) alice bob carol
        else
            ldif_group $S "$(printf g%02d "$i")" $((20000 + i)) carol alice
        fi
    done
    ldif_group $S secret 20500 alice carol
    ldif_user $S dave 10004 20000 /home/dave "Dave" /bin/bash
    for i in 1 2 3; do
        ldif_group $S "dg$i" $((20600 + i)) dave
    done
} > "$WORK/im.ldif"
URI=$(slapd_start "$WORK/ldap" "$WORK/im.ldif" $S) || exit 1
write_conf <<CONF
[sssd]
services = nss
domains = im.test

[nss]
debug_level = 0x3ff0
filter_groups = secret

[domain/im.test]
id_provider = ldap
ldap_uri = $URI
ldap_search_base = $S
entry_cache_timeout = 600
CONF
NSSLOG=$LOGS/sssd_nss.log
rm -f "$NSSLOG"
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
getgrgid_count() { local n; n=$(grep -c "GETGRGID" "$NSSLOG" 2>/dev/null); echo "${n:-0}"; }
# wait_stored USER: until sssd_nss logged the records of USER's groups (at most 3 s).
wait_stored() {
    local i
    for i in $(seq 60); do
        grep -q "groups of $1 stored" "$NSSLOG" 2>/dev/null && return 0
        sleep 0.05
    done
    return 1
}

# ---- A ----
out=$(in_nss_ns getent initgroups alice)
check "initgroups of alice lists her $NG groups and not secret" \
    test "$(wc -w <<<"${out#alice}")" -eq "$NG"
# The groups' records follow the reply (F): wait for them rather than race them.
check "the records of alice's groups are written with no further request" wait_stored alice
# ---- F ----
# The lines of alice's initgroups: the lookup's end, its reply, the groups' records.
read -r l_found l_answered l_stored < <(awk '
    /INITGR alice: found/ && !f { f = NR }
    f && /: answered, / && !a { a = NR }
    /groups of alice stored/ && !m { m = NR }
    END { print f + 0, a + 0, m + 0 }' "$NSSLOG")
check "the groups' records are written after the reply (lines $l_found $l_answered $l_stored)" \
    test "$l_found" -gt 0 -a "$l_answered" -gt "$l_found" -a "$l_stored" -gt "$l_answered"
# The records sssd_nss itself gives, for comparison (read after the checks below).
all_mc=true
for i in 2 17 30 59 60; do
    mc_only getent group $((20000 + i)) || { all_mc=false; break; }
    mc_out[$i]=$out
done
check "with sssd_nss stopped, alice's groups are answered from the memory cache" $all_mc
same=true
for i in 2 17 30 59 60; do
    direct=$(in_nss_ns env SSS_NSS_USE_MEMCACHE=NO getent group $((20000 + i)))
    [ "${mc_out[$i]:-}" = "$direct" ] || { same=false; echo "# $i: mc '${mc_out[$i]:-}' sssd_nss '$direct'"; }
done
check "... with the very records sssd_nss gives (g60: ${mc_out[60]:-})" $same
check "... members complete: g60 is alice,bob,carol" test "${mc_out[60]:-}" = "g60:*:20060:alice,bob,carol"

# ---- B ----
before=$(getgrgid_count)
out=$(in_nss_ns id carol)
check "id carol lists $NG groups and her primary group" \
    test "$(tr ',' '\n' <<<"$out" | grep -c 'g[0-9][0-9]')" -eq "$NG"
sleep 0.3     # the log is written as requests end
after=$(getgrgid_count)
# glibc asks getgrgid of the primary group (prim, 20000, not one of carol's groups) and of
# nothing else.
check "a cold id carol sent sssd_nss at most 1 getgrgid ($((after - before)))" \
    test $((after - before)) -le 1

# ---- G ----
out=$(in_nss_ns id dave)
check "id dave lists dg1, dg2 and dg3 ($out)" \
    test "$(tr ',' '\n' <<<"$out" | grep -c 'dg[1-3]')" -eq 3
all_mc=true
for i in 1 2 3; do
    mc_only getent group $((20600 + i)) || { all_mc=false; echo "# dg$i: not in the cache"; }
done
check "right after id dave, with sssd_nss stopped, dg1-dg3 come from the memory cache" $all_mc

# ---- C ----
mc_only getent group 20500; rc=$?
check "the filtered group secret is not in the memory cache (status $rc: $out)" test "$rc" -ne 0
out=$(in_nss_ns getent group 20500); rc=$?
check "... and sssd_nss does not answer it either (status $rc)" test "$rc" -ne 0

# ---- D ----
"$SBIN/sss_cache" -E -c "$CONF"; rc=$?
check "sss_cache -E: status 0 ($rc)" test "$rc" -eq 0
mc_only getent group 20017; rc=$?
check "after it, g17 is not answered from the memory cache (status $rc: $out)" test "$rc" -ne 0

# ---- E: the groups expire, the user does not ----
stop_sssd
write_conf <<CONF
[sssd]
services = nss
domains = im.test

[nss]
debug_level = 0x3ff0

[domain/im.test]
id_provider = ldap
ldap_uri = $URI
ldap_search_base = $S
entry_cache_user_timeout = 600
entry_cache_group_timeout = 1
CONF
start_sssd || { fail "sssd did not start again"; summary; exit 1; }
wait_name sssd.nss 5000
out=$(in_nss_ns env SSS_NSS_USE_MEMCACHE=NO getent initgroups bob)
check "initgroups of bob: prim and $((NG / 2)) groups" test "$(wc -w <<<"${out#bob}")" -eq $((NG / 2 + 1))
sleep 2.2
out=$(in_nss_ns env SSS_NSS_USE_MEMCACHE=NO getent initgroups bob)
check "initgroups of bob again, from the cache: prim and $((NG / 2)) groups" \
    test "$(wc -w <<<"${out#bob}")" -eq $((NG / 2 + 1))
# The groups' records would follow the reply within 2 ms (F): give them time to come.
sleep 0.3
mc_only getent group 20002; rc=$?
check "an expired group gets no record from it (status $rc: $out)" test "$rc" -ne 0

summary
