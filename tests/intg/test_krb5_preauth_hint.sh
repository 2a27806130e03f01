#!/bin/bash
# Optimistic pre-authentication (krb5_child_asreq.c, krb5_salt_hints.c) against a real MIT
# KDC whose principals require pre-authentication, through pamtester and our pam_sss.so.
# The KDC logs every AS_REQ with its outcome (NEEDED_PREAUTH, ISSUE, PREAUTH_FAILED):
#   - the first login of alice: two AS exchanges (NEEDED_PREAUTH, then ISSUE); the next
#     ones: one (ISSUE alone: the salt of the last login was used at once);
#   - a wrong password: refused, with one failed pre-authentication at the KDC, not two
#     (the retry without the hint does not offer the refused key again); the right one
#     still takes one exchange after it;
#   - alice's keys re-salted (kadmin cpw -e ...:special, a random salt): the stale hint
#     costs one refused attempt and the login still succeeds; the login after it takes one
#     exchange again (the KDC's new salt learned);
#   - a stale hint and a wrong password: refused;
#   - an rc4-only principal (no AES salt to keep): logs in every time, two exchanges;
#   - no password in any log.
# Usage: test_krb5_preauth_hint.sh PREFIX   (root; 77 without slapd, pamtester or the MIT KDC)
set -u
PREFIX=$(cd "$1" && pwd)
TOP=$(cd "$(dirname "$0")/../.." && pwd)
if [ -z "${KRB5T_IN_NS:-}" ]; then
    exec unshare --mount --propagation private -- env KRB5T_IN_NS=1 bash "$0" "$@"
fi
. "$(dirname "$0")/krb5_env.sh"

KDC_LOG=$WORK/kdc/krb5kdc.log
mark_kdc() { KDC_MARK=$(wc -l < "$KDC_LOG" 2>/dev/null || echo 0); }
# The KDC's AS_REQ lines of PRINCIPAL since mark_kdc with OUTCOME (it logs a request when
# it is done: give it a moment after the login).
as_reqs() { # PRINCIPAL OUTCOME
    sleep 0.2
    tail -n +"$((KDC_MARK + 1))" "$KDC_LOG" 2>/dev/null | grep "AS_REQ" | grep " $2: " \
        | grep -c " $1@$REALM for krbtgt/"
}
# One login and the KDC's account of it: "NEEDED ISSUED FAILED".
login_counted() { # EXPECTED_RC PASSWORD USER
    mark_kdc
    login "$1" "$2" "$3" authenticate
    LOGIN_RC=$?
    COUNTS="$(as_reqs "$3" NEEDED_PREAUTH) $(as_reqs "$3" ISSUE) $(as_reqs "$3" PREAUTH_FAILED)"
    return $LOGIN_RC
}

krb5kdc_kadmin "$WORK/kdc" "modprinc +requires_preauth alice" || { fail "kadmin modprinc"; summary; exit; }
restart "" || { fail "sssd did not start"; tail -n 30 "$LOGS"/*.log; summary; exit; }

# ---- the salt of the last login: one AS exchange ----------------------------------------
check "alice's first login" login_counted 0 Alice-Krb1 alice
check "  ... two AS exchanges: NEEDED_PREAUTH, then ISSUE ($COUNTS)" test "$COUNTS" = "1 1 0"
for i in 2 3; do
    check "alice's login $i" login_counted 0 Alice-Krb1 alice
    check "  ... one AS exchange, pre-authenticated at once ($COUNTS)" test "$COUNTS" = "0 1 0"
done
check "  ... krb5_child says why" grep -q "one AS exchange: the salt hint was right" \
    "$LOGS/krb5_child.log"

# ---- a wrong password: one failed pre-authentication, not two ---------------------------
check "a wrong password is refused" login_counted 1 Alice-Bad2 alice
expect_line "  ... PAM_AUTH_ERR" "Authentication failure"
check "  ... one failed pre-authentication at the KDC ($COUNTS)" test "$COUNTS" = "1 0 1"
check "the right password after it" login_counted 0 Alice-Krb1 alice
check "  ... still one AS exchange ($COUNTS)" test "$COUNTS" = "0 1 0"

# ---- keys re-salted: a stale hint costs one retry, never the login ----------------------
krb5kdc_kadmin "$WORK/kdc" \
    "cpw -pw Alice-Krb1 -e aes256-cts-hmac-sha1-96:special,aes128-cts-hmac-sha1-96:special alice" \
    || fail "kadmin cpw (random salt)"
check "alice logs in after her keys got a new salt" login_counted 0 Alice-Krb1 alice
check "  ... the stale hint refused once, then the KDC's salt ($COUNTS)" test "$COUNTS" = "1 1 1"
check "the login after it" login_counted 0 Alice-Krb1 alice
check "  ... one AS exchange again: the new salt was learned ($COUNTS)" test "$COUNTS" = "0 1 0"
krb5kdc_kadmin "$WORK/kdc" "cpw -pw Alice-Krb1 -e aes256-cts-hmac-sha1-96:normal alice" \
    || fail "kadmin cpw (normal salt)"
check "a stale hint and a wrong password: refused" login_counted 1 Alice-Bad2 alice
check "  ... the right password then logs in" login_counted 0 Alice-Krb1 alice

# ---- no AES key: nothing to keep, logins as before ---------------------------------------
krb5kdc_kadmin "$WORK/kdc" "delprinc -force bob" \
    && krb5kdc_addprinc "$WORK/kdc" bob Bob-Krb3 "-e arcfour-hmac:normal +requires_preauth" \
    || fail "kadmin: bob with rc4 only"
for i in 1 2; do
    check "bob (rc4 only) login $i" login_counted 0 Bob-Krb3 bob
    check "  ... two AS exchanges ($COUNTS)" test "$COUNTS" = "1 1 0"
done
check "no password appears in any log" \
    bash -c '! grep -rqE "Alice-Krb1|Alice-Bad2|Bob-Krb3" "$1"' _ "$LOGS"
summary
