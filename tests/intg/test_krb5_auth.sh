#!/bin/bash
# auth_provider = krb5 against a real MIT KDC (tests/lib/krb5kdc.sh), through pamtester
# with our pam_sss.so; users from a private slapd (id_provider = ldap) whose LDAP passwords
# differ from the Kerberos ones. The KDC is reached through tests/faults/fault_proxy.py, so
# the test can make it hang or refuse.
#
# Scenarios: a login writes a ccache with a krbtgt (klist) owned by the user, mode 0600 in
# a 0700 directory (FILE: with XXXXXX, then DIR:, then the user's persistent KEYRING:);
# a directory another user made for the
# ccache is refused; a wrong password and the LDAP password
# are refused; a ccache name pre-created as a symlink by another user is neither followed
# nor replaced; a KDC that never answers: the login fails after krb5_auth_timeout while
# getent keeps being answered; the KDC refusing connections with cached credentials: the
# login succeeds offline and pam_sss says so; no password appears in any log.
#
# Runs in a private mount namespace: tmpfs over /etc/pam.d, a krb5.conf without the
# realm's KDCs bound over /etc/krb5.conf (only krb5_server may name them).
# Usage: test_krb5_auth.sh PREFIX   (root; 77 without slapd, pamtester or the MIT KDC)
set -u
PREFIX=$(cd "$1" && pwd)
TOP=$(cd "$(dirname "$0")/../.." && pwd)
if [ -z "${KRB5T_IN_NS:-}" ]; then
    exec unshare --mount --propagation private -- env KRB5T_IN_NS=1 bash "$0" "$@"
fi
. "$(dirname "$0")/krb5_env.sh"

# ---- FILE: ccache ------------------------------------------------------------------------
restart "" || { fail "sssd did not start"; tail -n 30 "$LOGS"/*.log; summary; exit; }
if login 0 Alice-Krb1 alice authenticate acct_mgmt; then ok "alice logs in with her Kerberos password"
else fail "alice's Kerberos login (rc $LAST_RC)"; echo "$LAST_OUT" | sed 's/^/        /'
    tail -n 20 "$LOGS/krb5_child.log" 2>/dev/null; fi
CC=$(ls -d "$WORK"/cc/alice/krb5cc_10001_* 2>/dev/null | head -n1)
check "  ... a ccache named from the template (${CC##*/})" test -n "$CC"
check "  ... owned by alice, mode 0600" test "$(stat -c '%u:%g %a' "$CC" 2>/dev/null)" = "10001:10001 600"
check "  ... in a directory of hers, mode 0700" \
    test "$(stat -c '%u %a' "$WORK/cc/alice" 2>/dev/null)" = "10001 700"
out=$(klist_of "FILE:$CC")
check "  ... holding a krbtgt for alice@$REALM (klist)" \
    grep -q "krbtgt/$REALM@$REALM" <<< "$out"
check "  ... default principal alice" grep -q "Default principal: alice@$REALM" <<< "$out"
check "wrong password refused" login 1 Alice-Bad2 alice
expect_line "  ... PAM_AUTH_ERR" "Authentication failure"
check "the LDAP password is not the Kerberos one: refused" login 1 Alice-Ldap1 alice
check "an unknown user" login 1 Nobody-1 nobody-here
check "bob logs in too" login 0 Bob-Krb3 bob
check "  ... his ccache is his" test "$(stat -c %u "$WORK"/cc/bob/krb5cc_10002_* 2>/dev/null)" = 10002
# The KDC sends a password expiry within a week: libkrb5 words a warning, which reaches the
# user as SSSD's krb5_child sends it (a TEXT_MSG, shown through the conversation).
krb5kdc_kadmin "$WORK/kdc" "modprinc -pwexpire tomorrow bob" > /dev/null 2>&1
check "bob, whose password expires tomorrow, logs in" login 0 Bob-Krb3 bob
expect_line "  ... and is told so" "[Yy]our password will expire"
krb5kdc_kadmin "$WORK/kdc" "modprinc -pwexpire never bob" > /dev/null 2>&1
check "  ... no such text once the expiry is gone" login 0 Bob-Krb3 bob
check "  ... (none shown)" bash -c "! grep -q 'password will expire' <<< \"\$1\"" _ "$LAST_OUT"
setpriv --reuid=10002 --regid=10002 --clear-groups mkdir -m 0777 "$WORK/cc/carol"
check "a ccache directory bob made for carol: her login fails" login 1 Carol-Krb4 carol
check "  ... nothing written in bob's directory" test -z "$(ls -A "$WORK/cc/carol")"
check "  ... the log says why" grep -q "belongs to uid 10002, not to uid 10003" \
    "$LOGS/krb5_child.log"

# ---- DIR: ccache -------------------------------------------------------------------------
restart "krb5_ccname_template = DIR:$WORK/cc/dir_%u" || fail "restart with DIR:"
check "DIR: template: alice logs in" login 0 Alice-Krb1 alice
check "  ... the directory is hers, 0700" \
    test "$(stat -c '%u %a' "$WORK/cc/dir_alice" 2>/dev/null)" = "10001 700"
check "  ... klist -c DIR: shows the krbtgt" \
    grep -q "krbtgt/$REALM@$REALM" <<< "$(klist_of "DIR:$WORK/cc/dir_alice")"
check "  ... every file in it is hers, 0600" test -z \
    "$(find "$WORK/cc/dir_alice" -type f ! \( -user 10001 -perm 0600 \) 2>/dev/null)"

# ---- KEYRING: ccache ---------------------------------------------------------------------
# The user's persistent keyring (KEYRING:persistent:%U, SSSD's advice): reachable from any
# of her sessions. Emptied afterwards (kdestroy as alice); the kernel drops the empty
# keyring after persistent_keyring_expiry.
if [ ! -e /proc/sys/kernel/keys/persistent_keyring_expiry ]; then
    echo "SKIP: KEYRING: this kernel has no persistent keyrings (CONFIG_PERSISTENT_KEYRINGS)"
else
    restart "krb5_ccname_template = KEYRING:persistent:%U" || fail "restart with KEYRING:"
    as_alice() { setpriv --reuid=10001 --regid=10001 --clear-groups env KRB5_CONFIG="$KCONF" "$@"; }
    EXTRA_CLEANUP='as_alice kdestroy -A > /dev/null 2>&1'
    as_alice kdestroy -A > /dev/null 2>&1
    check "KEYRING:persistent:%U template: alice logs in" login 0 Alice-Krb1 alice
    out=$(as_alice klist -c KEYRING:persistent:10001 2>&1)
    check "  ... klist as alice: her persistent keyring holds the krbtgt" \
        grep -q "krbtgt/$REALM@$REALM" <<< "$out"
    check "  ... for alice@$REALM" grep -q "Default principal: alice@$REALM" <<< "$out"
    check "  ... bob cannot read it" test -z \
        "$(setpriv --reuid=10002 --regid=10002 --clear-groups env KRB5_CONFIG="$KCONF" \
           klist -c KEYRING:persistent:10001 2>/dev/null | grep krbtgt)"
    as_alice kdestroy -A > /dev/null 2>&1
fi
# KCM: ccaches: test_krb5_kcm.sh (a KCM daemon of its own on a private /run).

# ---- a symlink planted by another user ---------------------------------------------------
echo "bob's precious file" > "$WORK/sticky/victim"
chown 10002:10002 "$WORK/sticky/victim"
setpriv --reuid=10002 --regid=10002 --clear-groups ln -s "$WORK/sticky/victim" \
    "$WORK/sticky/krb5cc_10001"
restart "krb5_ccname_template = FILE:$WORK/sticky/krb5cc_%U" || fail "restart with a fixed name"
check "a symlink planted by bob at alice's ccache name: the login fails" login 1 Alice-Krb1 alice
check "  ... the link's target is untouched" \
    test "$(cat "$WORK/sticky/victim")" = "bob's precious file"
check "  ... the link is still bob's link" test -L "$WORK/sticky/krb5cc_10001"
check "  ... no temporary file left behind" \
    test -z "$(ls "$WORK/sticky" | grep -v -e '^victim$' -e '^krb5cc_10001$')"
check "  ... the log says why" grep -q "cannot put the ccache" "$LOGS/krb5_child.log"

# ---- a KDC that never answers ------------------------------------------------------------
restart "" || fail "restart"
in_nss_ns getent passwd bob > /dev/null   # bob in the cache: later lookups need no directory
kill -USR1 "$PROXY_PID"
t0=$(now_ms)
( login 1 Alice-Krb1 alice; echo "$LAST_RC" > "$WORK/hang.rc"; echo "$LAST_OUT" > "$WORK/hang.out"
  echo $(( $(now_ms) - t0 )) > "$WORK/hang.ms" ) &
WAITER=$!
sleep 0.5
# The login's child is the one talking to the KDC (a socket); a spare waiting for the
# next login (krb5_child_pool.c) has none.
busy=
for p in $(pgrep -f "^$PREFIX/libexec/sssd/krb5_child"); do
    ls -l "/proc/$p/fd" 2>/dev/null | grep -q 'socket:' && busy="$busy $p"
done
out=$(in_nss_ns timeout 10 getent passwd carol)
check "while the KDC hangs, lookups are answered (carol: ${out%%:*})" \
    test "${out%%:*}" = carol
check "  ... and the login is still waiting" kill -0 "$WAITER"
wait "$WAITER"
check "the login fails (rc $(cat "$WORK/hang.rc"))" test "$(cat "$WORK/hang.rc")" = 1
ms=$(cat "$WORK/hang.ms")
check "  ... once krb5_auth_timeout (3 s) ran out (${ms} ms, bound 9000)" test "$ms" -lt 9000
LAST_OUT=$(cat "$WORK/hang.out")
expect_line "  ... PAM_AUTHINFO_UNAVAIL (no cached credentials)" \
    "Authentication service cannot retrieve authentication info"
all_gone() { # PIDS...: none of them is alive (and there was one), within 2 s (the reaper)
    local _ p
    [ $# -gt 0 ] || return 1
    for _ in $(seq 100); do
        for p in "$@"; do kill -0 "$p" 2>/dev/null && break; done
        kill -0 "$p" 2>/dev/null || return 0
        sleep 0.02
    done
    return 1
}
check "  ... the child was killed, not left behind (${busy# })" all_gone $busy
check "  ... no child but the spare is left" \
    test "$(pgrep -f "^$PREFIX/libexec/sssd/krb5_child" | wc -l)" -le 1
kill -USR2 "$PROXY_PID"

# ---- offline with cached credentials -----------------------------------------------------
# An expiry date, so pam_sss shows the offline notice at the default verbosity.
PAM_EXTRA="offline_credentials_expiration = 2" restart "cache_credentials = true" || fail "restart with cache_credentials"
n0=$(wc -l < "$LOGS/sssd_be_krbtest.log")
check "online login (caches the hash)" login 0 Alice-Krb1 alice
for _ in $(seq 200); do
    tail -n +"$n0" "$LOGS/sssd_be_krbtest.log" | grep -q "cached credentials of \[alice\] updated" \
        && break
    sleep 0.05
done
proxy_refuse || fail "the proxy does not refuse"
check "the KDC refuses connections: alice logs in with the cached hash" login 0 Alice-Krb1 alice
expect_line "  ... pam_sss tells her it was offline" "Authenticated with cached credentials"
check "  ... a wrong password is still refused" login 1 Alice-Bad2 alice
check "  ... bob, never cached, cannot log in" login 1 Bob-Krb3 bob
kill -USR2 "$PROXY_PID"

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
