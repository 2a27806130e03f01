#!/bin/bash
# Lookup of a user by e-mail address (ldap_user_email, default attribute mail; issue 17,
# item 10), as SSSD 2.8 does it, through glibc in a mount namespace: a getpwnam name that is
# no user's name is looked up as an address and answered with the user's own name; `id` by
# address works (initgroups), `getent group` by address does not; an address two users share
# is ambiguous, hence not found (SSSD's sysdb_search_user_by_upn_res: "several users share
# the same email address"); a name whose "@suffix" is no domain is first tried whole as a
# name; case rules follow case_sensitive; not found stays not found (negative cache).
# Usage: test_nss_email.sh PREFIX   (run as root)
set -u
PREFIX=$(cd "$1" && pwd)
TOP=$(cd "$(dirname "$0")/../.." && pwd)
TEST_NAME=email
. "$TOP/tests/intg/slapd_env.sh"

# ldif_user's entry with a mail value (slapadd -s: no objectClass needed for it).
user_with_mail() { # SUFFIX UID UIDNUMBER GIDNUMBER MAIL
    ldif_user "$1" "$2" "$3" "$4" "/home/$2" "$2" /bin/bash | sed '$d'
    printf 'mail: %s\n\n' "$5"
}

S=dc=mail,dc=test
mkdir -p "$WORK/ldap"
{
    ldif_base $S
    user_with_mail $S alice 10001 20001 alice@mail.example
    user_with_mail $S carol 10003 20001 shared@mail.example
    user_with_mail $S dave 10004 20001 shared@mail.example
    user_with_mail $S erin 10005 20001 Erin.Mixed@Mail.Example
    ldif_user $S "ops@legacy" 10006 20001 /home/ops "ops" /bin/bash
    ldif_group $S devs 20001 alice
    ldif_group $S extra 20002 alice erin
} > "$WORK/mail.ldif"
URI=$(slapd_start "$WORK/ldap" "$WORK/mail.ldif" $S) || exit 1

conf() { # case_sensitive value
    write_conf <<CONF
[sssd]
services = nss
domains = mail.test

[domain/mail.test]
id_provider = ldap
ldap_uri = $URI
ldap_search_base = $S
case_sensitive = $1
CONF
    start_sssd || { fail "sssd did not start"; summary; exit 1; }
    wait_name sssd.nss 5000
}
export PREFIX LIBDIR

# rc of getent passwd/group NAME (2: not found)
rc_of() { in_nss_ns getent "$1" "$2" >/dev/null; echo $?; }

conf true
out=$(in_nss_ns getent passwd alice@mail.example)
check "getent passwd by e-mail address answers the user's own name: $out" \
    test "$out" = "alice:*:10001:20001:alice:/home/alice:/bin/bash"
out=$(in_nss_ns getent passwd alice@mail.example)
check "... again, from the cache: $out" test "$out" = "alice:*:10001:20001:alice:/home/alice:/bin/bash"
out=$(in_nss_ns id alice@mail.example)
check "id by e-mail address (initgroups): $out" \
    test "$out" = "uid=10001(alice) gid=20001(devs) groups=20001(devs),20002(extra)"
check "case_sensitive = true: erin's address in lower case is not hers (as SSSD 2.8)" \
    test "$(rc_of passwd erin.mixed@mail.example)" -eq 2
out=$(in_nss_ns id -G Erin.Mixed@Mail.Example)
check "id -G by the address as stored: $out" test "$out" = "20001 20002"
check "getent group by e-mail address: not found" test "$(rc_of group alice@mail.example)" -eq 2
check "case_sensitive = true: ALICE@mail.example is not alice's address" \
    test "$(rc_of passwd ALICE@mail.example)" -eq 2
check "an address two users share is ambiguous: not found" \
    test "$(rc_of passwd shared@mail.example)" -eq 2
out=$(in_nss_ns getent passwd carol)
check "... while each of them is found by name: $out" \
    test "$out" = "carol:*:10003:20001:carol:/home/carol:/bin/bash"
check "... and the address is still ambiguous once both are cached" \
    test "$(rc_of passwd shared@mail.example)" -eq 2
check "an address nobody has: not found" test "$(rc_of passwd nobody@mail.example)" -eq 2
check "... and again (negative cache)" test "$(rc_of passwd nobody@mail.example)" -eq 2
out=$(in_nss_ns getent passwd "ops@legacy")
check "a name whose @suffix is no domain is tried whole as a name: $out" \
    test "$out" = "ops@legacy:*:10006:20001:ops:/home/ops:/bin/bash"
out=$(in_nss_ns getent passwd alice)
check "the lookup by name is unchanged: $out" \
    test "$out" = "alice:*:10001:20001:alice:/home/alice:/bin/bash"

conf false
out=$(in_nss_ns getent passwd ALICE@Mail.Example)
check "case_sensitive = false: the address in another case finds alice: $out" \
    test "$out" = "alice:*:10001:20001:alice:/home/alice:/bin/bash"
out=$(in_nss_ns id -G erin.mixed@mail.example)
check "... and id by erin's address in lower case: $out" test "$out" = "20001 20002"
check "... an address two users share is still ambiguous" \
    test "$(rc_of passwd SHARED@mail.example)" -eq 2

summary
