#!/bin/bash
# Smaller hardening of sssd_nss (issue 11, item 10), through glibc:
# - a gecos, home or shell from the directory holding ':' or a line break never reaches a
#   passwd line as such: getent passwd prints one line of seven fields (SSSD 2.8 passes them
#   through; glibc's getent then refuses the entry);
# - the built-in root guard compares names as the domain does: with case_sensitive = false
#   (and filter_users not naming root) "ROOT" and "Root" are root, and a directory user
#   spelt so is found neither by name nor by id, as with SSSD 2.8;
# - the memory-cache files are 0644.
# Usage: test_resp_fields.sh PREFIX   (run as root)
set -u
PREFIX=$(cd "$1" && pwd)
TOP=$(cd "$(dirname "$0")/../.." && pwd)
TEST_NAME=fields
. "$TOP/tests/intg/slapd_env.sh"


S=dc=exp,dc=test
b64() { printf '%b' "$1" | base64 -w0; }
raw_user() { # UID UIDNUMBER GECOS HOME SHELL (printf %b escapes; base64 in the LDIF)
    printf 'dn: uid=%s,ou=People,%s\nobjectClass: top\nobjectClass: account\nobjectClass: posixAccount\n' "$1" "$S"
    printf 'uid: %s\ncn: %s\nuidNumber: %s\ngidNumber: 20001\n' "$1" "$1" "$2"
    printf 'gecos:: %s\nhomeDirectory:: %s\nloginShell:: %s\n\n' "$(b64 "$3")" "$(b64 "$4")" "$(b64 "$5")"
}
mkdir -p "$WORK/ldap"
{
    ldif_base $S
    ldif_user $S alice 10001 20001 /home/alice "Alice" /bin/bash
    raw_user weird1 10010 'Line1\nLine2' '/home/we:ird' '/bin/sh\nroot::0:0::/:/bin/sh'
    raw_user weird2 10011 'Smith, Jane:Engineering' '/home/x\r' '/bin/bash'
    ldif_user $S ROOT 10020 20001 /root2 "Fake root" /bin/bash
    # (uid=Root would be the same DN as uid=ROOT)
    ldif_user $S ROOT 10021 20001 /root3 "Fake root 2" /bin/bash |
        sed 's/^dn: uid=ROOT,/dn: cn=fakeroot2,/; s/^uid: ROOT/uid: Root/'
    ldif_group $S devs 20001 alice weird1
} > "$WORK/exp.ldif"
URI=$(slapd_start "$WORK/ldap" "$WORK/exp.ldif" $S) || exit 1

write_conf <<CONF
[sssd]
services = nss
domains = exp.test

[nss]
filter_users = nobody
filter_groups = nogroup

[domain/exp.test]
id_provider = ldap
ldap_uri = $URI
ldap_search_base = $S
case_sensitive = false
CONF
start_sssd || { fail "sssd did not start"; summary; exit 1; }
wait_name sssd.nss 5000

# ---- fields ----
for u in weird1 10010 weird2; do
    out=$(in_nss_ns getent passwd "$u" 2>&1); rc=$?
    lines=$(printf '%s\n' "$out" | wc -l)
    fields=$(printf '%s\n' "$out" | awk -F: '{ print NF }' | head -n1)
    check "getent passwd $u: status $rc, one line of 7 fields ($lines lines, $fields fields): $out" \
        test "$rc" -eq 0 -a "$lines" -eq 1 -a "$fields" = 7
done
out=$(in_nss_ns getent passwd weird1)
check "the shell's injected line is not a line: $out" \
    test "$out" = "weird1:*:10010:20001:Line1 Line2:/home/we ird:/bin/sh root  0 0  / /bin/sh"
out=$(in_nss_ns getent passwd weird2)
check "gecos with a colon, home with a CR: $out" \
    test "$out" = "weird2:*:10011:20001:Smith, Jane Engineering:/home/x :/bin/bash"
out=$(in_nss_ns env SSS_NSS_USE_MEMCACHE=YES getent passwd weird1)
check "the memory cache holds the same fields: $out" \
    test "$out" = "weird1:*:10010:20001:Line1 Line2:/home/we ird:/bin/sh root  0 0  / /bin/sh"

# ---- root, case-insensitively ----
for n in ROOT Root root root@exp.test ROOT@exp.test; do
    in_nss_ns getent passwd "$n" >/dev/null; rc=$?
    check "getent passwd $n: not found (status $rc)" test "$rc" -eq 2
done
for id in 10020 10021; do
    out=$(in_nss_ns getent passwd "$id"); rc=$?
    check "getent passwd $id (a directory user spelt ROOT/Root): not found (status $rc) $out" \
        test "$rc" -eq 2
done
in_nss_ns getent group ROOT >/dev/null; rc=$?
check "getent group ROOT: not found (status $rc)" test "$rc" -eq 2
out=$(in_nss_ns getent passwd alice)
check "an ordinary user still answers: $out" grep -q "^alice:\*:10001:" <<<"$out"

# ---- memory-cache files ----
for f in passwd group initgroups; do
    m=$(stat -c %a "$PREFIX/var/lib/sss/mc/$f" 2>/dev/null)
    check "memory cache $f is mode 0644 ($m)" test "$m" = 644
done

summary
