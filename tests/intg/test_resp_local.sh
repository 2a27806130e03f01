#!/bin/bash
# local_negative_timeout (issue 17, item 6): names and ids of the local files (/etc/passwd,
# /etc/group, read as glibc's files source reads them) are never looked up in the
# directory: no LDAP search is made for them (counted in the back-end's log, one "search"
# line per LDAP search), and the sss source does not answer them. sssd runs in a private
# mount namespace whose /etc/passwd and /etc/group are the machine's plus a few test
# accounts (also present in the directory, to show they are not fetched from it).
# Usage: test_resp_local.sh PREFIX   (run as root)
set -u
PREFIX=$(cd "$1" && pwd)
TOP=$(cd "$(dirname "$0")/../.." && pwd)
TEST_NAME=local
. "$TOP/tests/intg/slapd_env.sh"

DOM=ldap.test
BELOG=$LOGS/sssd_be_$DOM.log
chmod 0755 "$WORK"

S=dc=loc,dc=test
mkdir -p "$WORK/ldap"
{
    ldif_base $S
    ldif_user $S alice 10001 20001 /home/alice "Alice" /bin/bash
    ldif_user $S localonly 30001 20001 /home/lo "Directory localonly" /bin/bash
    ldif_user $S daemon 30002 20001 /home/d "Directory daemon" /bin/bash
    ldif_user $S newlocal 30004 20001 /home/n "Directory newlocal" /bin/bash
    ldif_group $S localgrp 30003 alice
    ldif_group $S devs 20001 alice
} > "$WORK/loc.ldif"
URI=$(slapd_start "$WORK/ldap" "$WORK/loc.ldif" $S) || exit 1
{
    cat /etc/passwd
    echo "# a comment, then an empty line and NIS compat entries"
    echo
    echo "+alice::::::"
    echo "-@netgroup"
    echo "localonly:x:4711:4711:Local only:/home/localonly:/bin/sh"
} > "$WORK/passwd"
{ cat /etc/group; echo "localgrp:x:4712:"; } > "$WORK/group"
grep -q '^daemon:' "$WORK/passwd" || { echo "SKIP: this machine has no local daemon account"; exit 77; }

conf() { # conf LOCAL_NEGATIVE_TIMEOUT
    write_conf <<CONF
[sssd]
services = nss
domains = $DOM

[nss]
local_negative_timeout = $1

[domain/$DOM]
id_provider = ldap
ldap_uri = $URI
ldap_search_base = $S
debug_level = 6
CONF
    rm -f "$BELOG"
}
# sssd sees the test's account files; nothing changes outside its namespace.
start_local() {
    unshare --mount --propagation private -- bash -c '
        mount --bind "$1" /etc/passwd && mount --bind "$2" /etc/group || exit 125
        exec "$3" -D -c "$4"' _ "$WORK/passwd" "$WORK/group" "$SBIN/sssd" "$CONF"
}
searches() { grep -c "search [0-9]*: '" "$BELOG" 2>/dev/null || echo 0; }
nomc() { in_nss_ns env SSS_NSS_USE_MEMCACHE=NO "$@"; }

conf 14400
start_local || { fail "sssd did not start"; summary; exit 1; }
wait_name sssd.nss 5000
out=$(nomc getent passwd alice)
check "a directory user is answered: $out" grep -q "^alice:\*:10001:" <<<"$out"
n0=$(searches)
for key in localonly daemon root 4711 1; do
    nomc getent passwd "$key" >/dev/null; rc=$?
    check "getent passwd $key (local): not answered by sss (status $rc)" test "$rc" -eq 2
done
for key in localgrp 4712 daemon; do
    nomc getent group "$key" >/dev/null; rc=$?
    check "getent group $key (local): not answered by sss (status $rc)" test "$rc" -eq 2
done
nomc id localonly >/dev/null 2>&1
n1=$(searches)
check "no LDAP search for any of them ($((n1 - n0)) made)" test "$n1" -eq "$n0"
out=$(nomc getent passwd localonly@$DOM)
check "written name@domain, the directory's is answered: $out" \
    grep -q "^localonly:\*:30001:" <<<"$out"
out=$(nomc getent passwd newlocal)
check "a name the files do not have yet is the directory's: $out" \
    grep -q "^newlocal:\*:30004:" <<<"$out"
echo "newlocal:x:4800:4800::/home/newlocal:/bin/sh" >> "$WORK/passwd"
sleep 1.5
n2=$(searches)
nomc getent passwd newlocal >/dev/null; rc=$?
check "once added to /etc/passwd it is local (status $rc)" test "$rc" -eq 2
nomc getent passwd 4800 >/dev/null; rc=$?
check "... its uid too (status $rc)" test "$rc" -eq 2
check "... without a search ($(( $(searches) - n2 )) made)" test "$(searches)" -eq "$n2"

# local_negative_timeout = 0: local names are the directory's again
conf 0
start_local || { fail "sssd did not start"; summary; exit 1; }
wait_name sssd.nss 5000
out=$(nomc getent passwd localonly)
check "local_negative_timeout = 0: the directory's localonly is answered: $out" \
    grep -q "^localonly:\*:30001:" <<<"$out"

summary
