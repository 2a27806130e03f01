#!/bin/bash
# krb5_child's string-to-key (krb5_child_s2k*.c) against a real MIT KDC: the AES keys
# are derived with OpenSSL from the enctype, salt and count the KDC gives in that very AS
# exchange, and every other enctype is left to libk5crypto. carol's principal is made
# again for each case (kadmin.local delprinc/addprinc -e ENCTYPE:SALTTYPE, preauth
# required), and each login goes through pamtester with our pam_sss.so:
#   - a random salt (aes256-cts:special), a salt without the realm (aes128-cts:norealm),
#     RFC 8009's aes256-cts-hmac-sha384-192 (its own salt and 32,768 rounds): she logs in,
#     krb5_child's log says the key came from OpenSSL, and the KDC logs no failed
#     pre-authentication (a key with a wrong salt would be one, and counts towards a
#     lockout);
#   - an rc4-hmac-only and a camellia-only principal: she logs in, the key from
#     libk5crypto;
#   - a wrong password: refused (PAM_AUTH_ERR) with exactly one failed pre-authentication
#     in the KDC's log.
# Usage: test_krb5_s2k.sh PREFIX   (root; 77 without slapd, pamtester or the MIT KDC)
set -u
PREFIX=$(cd "$1" && pwd)
TOP=$(cd "$(dirname "$0")/../.." && pwd)
if [ -z "${KRB5T_IN_NS:-}" ]; then
    exec unshare --mount --propagation private -- env KRB5T_IN_NS=1 bash "$0" "$@"
fi
. "$(dirname "$0")/krb5_env.sh"

KDC_LOG=$WORK/kdc/krb5kdc.log
CHILD_LOG=$LOGS/krb5_child.log
# Lines of a log written since mark_logs.
mark_logs() {
    KDC_MARK=$(wc -l < "$KDC_LOG" 2>/dev/null || echo 0)
    CHILD_MARK=$(wc -l < "$CHILD_LOG" 2>/dev/null || echo 0)
}
kdc_since() { tail -n +"$((KDC_MARK + 1))" "$KDC_LOG" 2>/dev/null; }
child_since() { tail -n +"$((CHILD_MARK + 1))" "$CHILD_LOG" 2>/dev/null; }
# sssd_be is restarted too: it would otherwise pre-authenticate with the salt of carol's
# previous key (krb5_salt_hints.c), which the KDC refuses once (test_krb5_preauth_hint.sh
# covers that); here every login must start from the KDC's own answer.
carol_as() { # ENCTYPE:SALTTYPE -> carol's principal made again with only that key
    krb5kdc_kadmin "$WORK/kdc" "delprinc -force carol" \
        && krb5kdc_addprinc "$WORK/kdc" carol Carol-Krb4 "-e $1 +requires_preauth" \
        && restart ""
}
# KDC log lines are written when the request is done; give it a moment after the login.
preauth_failures() {
    sleep 0.2
    kdc_since | grep -c "PREAUTH_FAILED: carol@$REALM"
}

restart "" || { fail "sssd did not start"; tail -n 30 "$LOGS"/*.log; summary; exit; }

# ---- AES keys: derived with OpenSSL, with the KDC's salt ----------------------------------
for spec in "aes256-cts-hmac-sha1-96:special 18" "aes128-cts-hmac-sha1-96:norealm 17" \
        "aes256-cts-hmac-sha384-192:normal 20"; do
    set -- $spec
    carol_as "$1" || { fail "kadmin.local: carol as $1"; continue; }
    mark_logs
    if login 0 Carol-Krb4 carol authenticate acct_mgmt; then ok "carol ($1) logs in"
    else fail "carol ($1) logs in (rc $LAST_RC)"; echo "$LAST_OUT" | sed 's/^/        /'
        child_since | tail -n 15; fi
    check "  ... her key came from OpenSSL (enctype $2)" \
        grep -q "string-to-key of enctype $2 with OpenSSL" <<< "$(child_since)"
    check "  ... and never from libk5crypto" \
        bash -c '! grep -q "by libk5crypto" <<< "$1"' _ "$(child_since)"
    n=$(preauth_failures)
    check "  ... the KDC logged no failed pre-authentication ($n)" test "$n" = 0
    check "  ... a krbtgt in her ccache" grep -q "krbtgt/$REALM@$REALM" \
        <<< "$(klist_of "FILE:$(ls -t "$WORK"/cc/carol/krb5cc_10003_* 2>/dev/null | head -n1)")"
done

# ---- a wrong password: one failed pre-authentication, no more --------------------------
carol_as aes256-cts-hmac-sha1-96:special || fail "kadmin.local: carol again"
mark_logs
check "a wrong password is refused" login 1 Carol-Bad5 carol
expect_line "  ... PAM_AUTH_ERR" "Authentication failure"
n=$(preauth_failures)
check "  ... with exactly one failed pre-authentication at the KDC ($n)" test "$n" = 1
check "  ... the right one still works after it" login 0 Carol-Krb4 carol

# ---- enctypes not derived here: libk5crypto's string-to-key ------------------------------
for spec in "arcfour-hmac:normal 23" "camellia256-cts-cmac:normal 26"; do
    set -- $spec
    carol_as "$1" || { fail "kadmin.local: carol as $1"; continue; }
    mark_logs
    if login 0 Carol-Krb4 carol authenticate acct_mgmt; then ok "carol ($1 only) logs in"
    else fail "carol ($1 only) logs in (rc $LAST_RC)"; echo "$LAST_OUT" | sed 's/^/        /'
        child_since | tail -n 15; fi
    check "  ... her key came from libk5crypto (enctype $2)" \
        grep -q "string-to-key of enctype $2 by libk5crypto" <<< "$(child_since)"
    n=$(preauth_failures)
    check "  ... the KDC logged no failed pre-authentication ($n)" test "$n" = 0
done
check "no password appears in any log" \
    bash -c '! grep -rqE "Carol-Krb4|Carol-Bad5" "$1"' _ "$LOGS"
summary
