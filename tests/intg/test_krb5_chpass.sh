#!/bin/bash
# auth_provider = krb5, second part (set-up: krb5_env.sh): krb5_validate against a spoofed
# KDC, password changes through kpasswd, expired passwords, background renewals and
# krb5_store_password_if_offline.
#
# Scenarios: a second KDC for the same realm that knows alice's password but not the host
# key logs her in without krb5_validate, and is refused with it (the real KDC still works
# with it); a password change as the user (pamtester chauthtok): a wrong current password
# stops it, a new one the KDC's policy refuses shows the KDC's text, a good one works and
# kinit takes it; a password the KDC marked expired makes the login ask for a new one, the
# change goes through and the new password logs in; krb5_renew_interval renews the TGT in
# the user's ccache (klist's times move); with krb5_store_password_if_offline an offline
# login gets its TGT once the KDC answers again.
# Usage: test_krb5_chpass.sh PREFIX   (root; 77 without slapd, pamtester or the MIT KDC)
set -u
PREFIX=$(cd "$1" && pwd)
TOP=$(cd "$(dirname "$0")/../.." && pwd)
if [ -z "${KRB5T_IN_NS:-}" ]; then
    exec unshare --mount --propagation private -- env KRB5T_IN_NS=1 bash "$0" "$@"
fi
. "$(dirname "$0")/krb5_env.sh"
PASSWORDS+=(Carol-Short Carol-Krb4-Longer Bob-Krb3-New Alice-Spoof0)
NEWTOK="Authentication token is no longer valid; new one required"

wait_log() { # FROM_LINE PATTERN [TRIES of 0.1 s]
    local i
    for i in $(seq "${3:-200}"); do
        tail -n +"$1" "$LOGS/sssd_be_krbtest.log" | grep -q -- "$2" && return 0
        sleep 0.1
    done
    return 1
}
be_lines() { wc -l < "$LOGS/sssd_be_krbtest.log"; }

# ---- krb5_validate against a spoofed KDC -------------------------------------------------
krb5kdc_kadmin "$WORK/kdc" "addprinc -randkey host/client.krb.test" || exit 1
krb5kdc_ktadd "$WORK/kdc" "$WORK/host.keytab" host/client.krb.test || exit 1
krb5kdc_start "$WORK/spoof" "$REALM" || { echo "FAIL: the spoofed KDC"; exit 1; }
EXTRA_CLEANUP='krb5kdc_stop "$WORK/spoof"'
krb5kdc_addprinc "$WORK/spoof" alice Alice-Krb1 || exit 1
krb5kdc_kadmin "$WORK/spoof" "addprinc -randkey host/client.krb.test" || exit 1
SPOOF="krb5_server = 127.0.0.1:$(cat "$WORK/spoof/kdc_port")"

restart "$SPOOF" || { fail "sssd did not start"; summary; exit; }
check "a spoofed KDC, krb5_validate = false: alice gets in (the attack works)" \
    login 0 Alice-Krb1 alice
restart "$SPOOF
krb5_validate = true
krb5_keytab = $WORK/host.keytab" || fail "restart (validate, spoofed)"
check "the same with krb5_validate = true: refused" login 1 Alice-Krb1 alice
check "  ... and the child's log says the TGT was not validated" \
    grep -q "TGT validation with the host keytab" "$LOGS/krb5_child.log"
restart "krb5_validate = true
krb5_keytab = $WORK/host.keytab" || fail "restart (validate, real)"
check "the real KDC with krb5_validate = true: alice gets in" login 0 Alice-Krb1 alice
check "  ... validated" grep -q "TGT of \[alice@$REALM\] validated" "$LOGS/krb5_child.log"
restart "krb5_validate = true
krb5_keytab = $WORK/no-such.keytab" || fail "restart (validate, no keytab)"
check "krb5_validate = true without the keytab: refused" login 1 Alice-Krb1 alice

# ---- password change through kpasswd -----------------------------------------------------
krb5kdc_kadmin "$WORK/kdc" "addpol -minlength 14 longpw" || exit 1
krb5kdc_kadmin "$WORK/kdc" "modprinc -policy longpw carol" || exit 1
restart "" || fail "restart (chpass)"
AS_CAROL=(setpriv --reuid=10003 --regid=10003 --clear-groups)
out=$(printf 'Carol-Bad0\nCarol-Krb4-Longer\nCarol-Krb4-Longer\n' \
      | LC_ALL=C "${AS_CAROL[@]}" pamtester krb5test carol chauthtok 2>&1)
check "a wrong current password stops the change" grep -q "Authentication failure" <<< "$out"
LAST_OUT=$(printf 'Carol-Krb4\nCarol-Short\nCarol-Short\n' \
           | LC_ALL=C "${AS_CAROL[@]}" pamtester krb5test carol chauthtok 2>&1)
expect_line "a password the KDC's policy refuses: the change fails" \
    "Authentication token manipulation error"
expect_line "  ... and the KDC's text is shown" "Password change failed. Server message:"
expect_line "  ... saying what is wrong" "too short"
LAST_OUT=$(printf 'Carol-Krb4\nCarol-Krb4-Longer\nCarol-Krb4-Longer\n' \
           | LC_ALL=C "${AS_CAROL[@]}" pamtester krb5test carol chauthtok 2>&1)
expect_line "a good new password: changed" "authentication token altered successfully"
check "  ... kinit takes the new password" bash -c \
    "echo Carol-Krb4-Longer | KRB5_CONFIG=$KCONF kinit -c MEMORY:x carol > /dev/null 2>&1"
check "  ... and no longer the old one" bash -c \
    "! (echo Carol-Krb4 | KRB5_CONFIG=$KCONF kinit -c MEMORY:x carol > /dev/null 2>&1)"
check "  ... the login takes the new one" login 0 Carol-Krb4-Longer carol

# ---- an expired password -----------------------------------------------------------------
krb5kdc_kadmin "$WORK/kdc" "modprinc +needchange bob" || exit 1
check "bob's password is expired: the login asks for a new one" \
    login 1 Bob-Krb3 bob authenticate acct_mgmt
expect_line "  ... PAM_NEW_AUTHTOK_REQD" "$NEWTOK"
LAST_OUT=$(printf 'Bob-Krb3\nBob-Krb3-New\nBob-Krb3-New\n' \
           | LC_ALL=C setpriv --reuid=10002 --regid=10002 --clear-groups \
             pamtester krb5test bob chauthtok 2>&1)
expect_line "  ... bob changes it" "authentication token altered successfully"
check "  ... and logs in with the new one" login 0 Bob-Krb3-New bob authenticate acct_mgmt

# ---- renewals ----------------------------------------------------------------------------
restart "krb5_lifetime = 10s
krb5_renewable_lifetime = 1h
krb5_renew_interval = 2" || fail "restart (renewals)"
rm -rf "$WORK/cc/alice"
n0=$(be_lines)
check "a login with a 10 s renewable TGT" login 0 Alice-Krb1 alice
CC=$(ls -d "$WORK"/cc/alice/krb5cc_10001_* 2>/dev/null | head -n1)
before=$(klist_of "FILE:$CC" | grep "krbtgt/")
check "  ... renewed in the background (the back-end's log)" wait_log "$n0" "TGT renewed"
after=$(klist_of "FILE:$CC" | grep "krbtgt/")
check "  ... klist's times moved ($before -> $after)" test -n "$after" -a "$before" != "$after"
check "  ... still renewable" grep -q "renew until" <<< "$(klist_of "FILE:$CC")"
check "  ... still alice's, 0600" test "$(stat -c '%u %a' "$CC")" = "10001 600"

# ---- krb5_store_password_if_offline ------------------------------------------------------
PAM_EXTRA="offline_credentials_expiration = 2" restart "cache_credentials = true
krb5_store_password_if_offline = true
krb5_renew_interval = 2
offline_timeout = 2" || fail "restart (store_password_if_offline)"
n0=$(be_lines)
check "online login (caches the hash)" login 0 Alice-Krb1 alice
wait_log "$n0" "cached credentials of \[alice\] updated" || fail "  ... the hash was not cached"
rm -rf "$WORK/cc/alice"
proxy_refuse || fail "the proxy does not refuse"
n0=$(be_lines)
check "the KDC refuses: alice logs in offline" login 0 Alice-Krb1 alice
expect_line "  ... told so" "Authenticated with cached credentials"
check "  ... no ccache yet" test -z "$(ls "$WORK/cc/alice" 2>/dev/null)"
check "  ... the kept password is in a kernel key of sssd_be, not in its memory" \
    grep -q "\[alice\]: password kept in key " "$LOGS/sssd_be_krbtest.log"
# libdbus's buffers of the request that brought the password in still hold it (the sbus
# layer does not wipe them); every other copy would be sssd_be's own.
scan=$(python3 "$TOP/tests/intg/mem_scan.py" --skip-dbus "$(be_pid krbtest)" Alice-Krb1 2>&1)
check "  ... no copy of its own in sssd_be's memory, D-Bus buffers aside (/proc/PID/mem: ${scan%%$'\n'*})" \
    test "${scan%%$'\n'*}" = 0
[ "${scan%%$'\n'*}" = 0 ] || echo "$scan" | sed 's/^/        /'
kill -USR2 "$PROXY_PID"
check "the KDC is back: the kept password gets her TGT" wait_log "$n0" "TGT obtained in"
CC=$(ls -d "$WORK"/cc/alice/krb5cc_10001_* 2>/dev/null | head -n1)
check "  ... into her ccache (klist)" grep -q "krbtgt/$REALM@$REALM" <<< "$(klist_of "FILE:$CC")"
check "  ... hers, 0600" test "$(stat -c '%u %a' "$CC" 2>/dev/null)" = "10001 600"

# ---- no password in any log ----
stop_sssd
leaked=0
for pw in "${PASSWORDS[@]}"; do
    if grep -rlF -- "$pw" "$LOGS" > /dev/null 2>&1; then
        fail "password $pw appears in $(grep -rlF -- "$pw" "$LOGS" | tr '\n' ' ')"
        leaked=1
    fi
done
[ "$leaked" = 0 ] && ok "no password appears in any log"
summary
