#!/bin/bash
# Access control, password policies and cached credentials through the real path: pamtester
# with our pam_sss.so and SSSD 2.8's (Debian's libpam-sss, unpacked, never installed)
# against our sssd_pam and sssd_be, a private slapd with StartTLS and the ppolicy overlay.
# Every scenario must give the expected PAM result with both modules, and the same output.
#
#   access_provider = simple   allow users/groups, deny users (deny wins), groups from the
#                              cached membership
#   access_provider = ldap     ldap_access_order = filter, expire, ppolicy
#                              (ldap_account_expire_policy = shadow; ldap_pwdlockout_dn), and
#                              pwd_expire_policy_reject
#   ldap_pwd_policy = shadow   expired -> a new password is required; expiry warning
#   ldap_pwd_policy = mit_kerberos   the same from krbPasswordExpiration (a two-attribute
#                              schema stands in for the Kerberos one)
#   ppolicy control            grace logins, expiry warning, "must change after reset"
#   [pam] options              pam_verbosity, pam_pwd_expiration_warning, pam_trusted_users,
#                              pam_public_domains, pam_id_timeout (groups refreshed at login);
#                              pam_sss's domains=
#   cached credentials         saved by an online login; slapd stopped: the right password
#                              passes with "cached credentials", a wrong or empty one never,
#                              nor one below cache_credentials_minimal_first_factor_length,
#                              a user without a cached hash gets PAM_AUTHINFO_UNAVAIL; after
#                              offline_failed_login_attempts failures even the right one is
#                              refused ("denied until"); no password in any debug-9 log
#
# Usage: test_pam_policy.sh PREFIX   (root; 77 when slapd, pamtester, the ppolicy module or
# libpam-sss are not available)
set -u
PREFIX=$(cd "$1" && pwd)
TOP=$(cd "$(dirname "$0")/../.." && pwd)
PAM_TEST=pampol
PAM_NEEDS="pamtester slappasswd python3"
PAM_TLS=1
. "$(dirname "$0")/pam_env.sh"
SUFFIX=dc=pol,dc=test
[ -e "$SLAPD_MODULE_DIR/ppolicy.so" ] || [ -e "$SLAPD_MODULE_DIR/ppolicy.la" ] \
    || { echo "SKIP: no slapd ppolicy module"; exit 77; }

mkdir -p "$WORK/debs"
if ! (cd "$WORK/debs" && apt-get download -q libpam-sss) > "$WORK/download.log" 2>&1; then
    echo "SKIP: cannot download Debian's libpam-sss (no mirror?)"
    exit 77
fi
dpkg -x "$WORK"/debs/libpam-sss_*.deb "$WORK/pamsss" || { echo "FAIL: dpkg -x"; exit 1; }
SSSD_MOD=$(find "$WORK/pamsss" -name pam_sss.so | head -n1)
[ -n "$SSSD_MOD" ] || { echo "FAIL: no pam_sss.so in libpam-sss"; exit 1; }

# ---- the directory -----------------------------------------------------------------------
NOW=$(date +%s)
TODAY=$((NOW / 86400))
gtime() { date -u -d "@$1" +%Y%m%d%H%M%SZ; }   # generalized time of an epoch second
pw() { echo "Pw-$1-42x"; }                      # each user's password
PASSWORDS=()
user_entry() { # UID UIDNUMBER [EXTRA_LDIF_LINES]
    PASSWORDS+=("$(pw "$1")")
    printf 'dn: uid=%s,ou=People,%s\nobjectClass: top\nobjectClass: account\n' "$1" "$SUFFIX"
    printf 'objectClass: posixAccount\nobjectClass: shadowAccount\nobjectClass: extensibleObject\n'
    printf 'uid: %s\ncn: %s\nuidNumber: %s\ngidNumber: %s\n' "$1" "$1" "$2" "$2"
    printf 'homeDirectory: /home/%s\nloginShell: /bin/sh\nuserPassword: %s\n' \
        "$1" "$(slappasswd -s "$(pw "$1")")"
    [ -n "${3:-}" ] && printf '%b\n' "$3"
    echo
}
# A stand-in for the two attributes of the Kerberos schema that ldap_pwd_policy reads.
cat > "$WORK/krb.schema" <<'EOF'
attributetype ( 2.16.840.1.113719.1.301.4.45.1 NAME 'krbLastPwdChange'
    EQUALITY generalizedTimeMatch ORDERING generalizedTimeOrderingMatch
    SYNTAX 1.3.6.1.4.1.1466.115.121.1.24 SINGLE-VALUE )
attributetype ( 2.16.840.1.113719.1.301.4.6.1 NAME 'krbPasswordExpiration'
    EQUALITY generalizedTimeMatch ORDERING generalizedTimeOrderingMatch
    SYNTAX 1.3.6.1.4.1.1466.115.121.1.24 SINGLE-VALUE )
EOF
{
    printf 'dn: %s\nobjectClass: top\nobjectClass: dcObject\nobjectClass: organization\n' "$SUFFIX"
    printf 'o: Pol\ndc: pol\n\n'
    for ou in People Groups Policies; do
        printf 'dn: ou=%s,%s\nobjectClass: organizationalUnit\nou: %s\n\n' "$ou" "$SUFFIX" "$ou"
    done
    # The default policy: 30-day passwords, warned 5 days ahead, 3 grace logins, no lockout.
    printf 'dn: cn=default,ou=Policies,%s\nobjectClass: applicationProcess\n' "$SUFFIX"
    printf 'objectClass: pwdPolicy\ncn: default\npwdAttribute: userPassword\n'
    printf 'pwdMaxAge: 2592000\npwdExpireWarning: 432000\npwdGraceAuthNLimit: 3\n'
    printf 'pwdMustChange: TRUE\npwdLockout: FALSE\n\n'
    # What ldap_pwdlockout_dn points at: lockout on.
    printf 'dn: cn=lockout,ou=Policies,%s\nobjectClass: applicationProcess\n' "$SUFFIX"
    printf 'objectClass: pwdPolicy\ncn: lockout\npwdAttribute: userPassword\npwdLockout: TRUE\n\n'
    printf 'dn: cn=staff,ou=Groups,%s\nobjectClass: posixGroup\nstructuralObjectClass: posixGroup\ncn: staff\n' "$SUFFIX"
    printf 'gidNumber: 20000\nmemberUid: alice\nmemberUid: carol\n\n'
    user_entry alice 10001 'description: login-ok'
    user_entry bob 10002
    user_entry carol 10003 'description: login-ok'
    user_entry dave 10004 "description: login-ok\nshadowExpire: 1"
    user_entry erin 10005 "shadowLastChange: $((TODAY - 10))\nshadowMax: 5\nshadowWarning: 3"
    user_entry frank 10006 "shadowLastChange: $((TODAY - 8))\nshadowMax: 10\nshadowWarning: 5"
    user_entry gina 10007 "pwdChangedTime: $(gtime $((NOW - 40 * 86400)))"
    user_entry hank 10008 "pwdChangedTime: $(gtime $((NOW - 28 * 86400)))"
    user_entry ivan 10009 "pwdReset: TRUE"
    user_entry jack 10010 "description: login-ok\npwdAccountLockedTime: 000001010000Z"
    user_entry kim 10011 "krbLastPwdChange: $(gtime $((NOW - 90 * 86400)))\nkrbPasswordExpiration: $(gtime $((NOW - 86400)))"
    user_entry lou 10012 "krbLastPwdChange: $(gtime $((NOW - 20 * 86400)))\nkrbPasswordExpiration: $(gtime $((NOW + 2 * 86400 + 3600)))"
} > "$WORK/pol.ldif"
mkdir -p "$WORK/tls" "$WORK/ldap"
tls_certs_make "$WORK/tls" > "$WORK/tls.log" 2>&1 || { echo "FAIL: test certificates"; exit 1; }
export SLAPD_MODULES=ppolicy
export SLAPD_EXTRA_SCHEMA=$WORK/krb.schema
export SLAPD_EXTRA_DB_CONF="overlay ppolicy
ppolicy_default cn=default,ou=Policies,$SUFFIX"
export SLAPD_ACL="access to attrs=userPassword by self write by anonymous auth by * none
access to * by * read"
URI=$(SLAPD_TLS_CERT=$WORK/tls/server.crt SLAPD_TLS_KEY=$WORK/tls/server.key \
      SLAPD_TLS_CA=$WORK/tls/ca.crt slapd_start "$WORK/ldap" "$WORK/pol.ldif" "$SUFFIX") \
    || { echo "FAIL: slapd"; cat "$WORK"/ldap/*.log 2>/dev/null | tail; exit 1; }
LDAPTLS_CACERT=$WORK/tls/ca.crt ldapwhoami -x -H "$URI" -ZZ -D "uid=alice,ou=People,$SUFFIX" \
    -w "$(pw alice)" > /dev/null 2>&1 || { echo "FAIL: alice cannot bind to the test slapd"; exit 1; }

conf() { pam_ldap_conf pol "$@"; }          # EXTRA_DOMAIN_LINES [EXTRA_PAM_LINES]
restart() { pam_ldap_restart pol "$@"; }    # EXTRA_DOMAIN_LINES [EXTRA_PAM_LINES]

# ---- PAM services in the namespace ---------------------------------------------------------
mount -t tmpfs -o mode=0755 tmpfs /etc/pam.d || { echo "FAIL: tmpfs over /etc/pam.d"; exit 1; }
for tag in ours sssd; do
    [ "$tag" = ours ] && mod=$OUR_MOD || mod=$SSSD_MOD
    printf '%s required %s\n' auth "$mod" account "$mod" password "$mod" session "$mod" \
        > "/etc/pam.d/pampol-$tag"
    printf '%s required %s domains=other\n' auth "$mod" account "$mod" > "/etc/pam.d/pamother-$tag"
    printf '%s required %s domains=other,pol\n' auth "$mod" account "$mod" > "/etc/pam.d/pamlist-$tag"
done
AS=()
mkdir -p /var/lib/sss/pipes "$PIPES"
mount --bind "$PIPES" /var/lib/sss/pipes || { echo "FAIL: bind $PIPES"; exit 1; }

both() { # NAME EXPECTED_STATUS USER OPS...   (the user's own password is typed)
    local name=$1 want=$2 user=$3
    shift 3
    pam_both "$name" "$want" '%s\n' "${INPUT-$(pw "$user")}" "${SVC:-pampol}-sssd" \
        "${SVC:-pampol}-ours" "$user" "$@"
}
expect_line() { # NAME PATTERN
    if grep -q -- "$2" <<< "$LAST_OUT"; then ok "$1"; else
        fail "$1 (no '$2')"; echo "$LAST_OUT" | sed 's/^/        /'; fi
}
ours() { # USER OPS...   (ours only: for counted failures)
    local user=$1
    shift
    LAST_OUT=$(printf '%s\n' "${INPUT-$(pw "$user")}" | LC_ALL=C pamtester pampol-ours "$user" "$@" 2>&1)
}
no_line() { # NAME PATTERN
    if grep -q -- "$2" <<< "$LAST_OUT"; then
        fail "$1 ('$2' shown)"; echo "$LAST_OUT" | sed 's/^/        /'; else ok "$1"; fi
}
staff() { # add|delete USER: memberUid of group staff, as the directory's admin
    printf 'dn: cn=staff,ou=Groups,%s\nchangetype: modify\n%s: memberUid\nmemberUid: %s\n' \
        "$SUFFIX" "$1" "$2" | LDAPTLS_CACERT=$WORK/tls/ca.crt ldapmodify -x -H "$URI" -ZZ \
        -D "cn=admin,$SUFFIX" -w secret > /dev/null 2>&1
}
DENIED="Permission denied"
EXPIRED="User account has expired"
NEWTOK="Authentication token is no longer valid; new one required"

# ---- access_provider = simple ----
restart "access_provider = simple
simple_allow_users = bob
simple_allow_groups = staff
simple_deny_users = carol" || { fail "sssd did not start"; summary; exit; }
both "simple: alice (group staff allowed)" 0 alice authenticate acct_mgmt
both "simple: bob (user allowed)" 0 bob authenticate acct_mgmt
both "simple: carol (in staff, but denied by name: deny wins)" 1 carol authenticate acct_mgmt
expect_line "  ... PAM_PERM_DENIED" "$DENIED"
both "simple: dave (in no list)" 1 dave acct_mgmt
expect_line "  ... PAM_PERM_DENIED" "$DENIED"
restart "access_provider = simple
simple_deny_groups = staff" || fail "restart (simple_deny_groups)"
both "simple_deny_groups: alice (staff) denied" 1 alice acct_mgmt
both "simple_deny_groups: bob allowed" 0 bob acct_mgmt

# ---- access_provider = ldap ----
restart "access_provider = ldap
ldap_access_order = filter, expire, ppolicy
ldap_access_filter = (description=login-ok)
ldap_account_expire_policy = shadow
ldap_pwdlockout_dn = cn=lockout,ou=Policies,$SUFFIX" || fail "restart (access ldap)"
both "ldap filter: alice matches" 0 alice authenticate acct_mgmt
both "ldap filter: bob does not" 1 bob acct_mgmt
expect_line "  ... PAM_PERM_DENIED" "$DENIED"
both "ldap expire (shadow): dave's account expired" 1 dave acct_mgmt
expect_line "  ... PAM_ACCT_EXPIRED" "$EXPIRED"
both "ldap ppolicy: jack locked (pwdAccountLockedTime)" 1 jack acct_mgmt
expect_line "  ... PAM_PERM_DENIED" "$DENIED"
restart "access_provider = ldap
ldap_access_order = pwd_expire_policy_reject
ldap_pwd_policy = shadow" || fail "restart (pwd_expire_policy_reject)"
both "pwd_expire_policy_reject: erin's shadow password expired" 1 erin acct_mgmt
expect_line "  ... PAM_PERM_DENIED" "$DENIED"
both "pwd_expire_policy_reject: frank's not yet" 0 frank acct_mgmt

# ---- ldap_pwd_policy ----
restart "ldap_pwd_policy = shadow" || fail "restart (shadow)"
both "shadow: erin's password expired: a new one is required" 1 erin authenticate acct_mgmt
expect_line "  ... PAM_NEW_AUTHTOK_REQD" "$NEWTOK"
both "shadow: frank logs in, warned" 0 frank authenticate acct_mgmt
expect_line "  ... with the expiry warning" "Your password will expire in 2 day"
both "shadow: alice (no shadow attributes) logs in" 0 alice authenticate acct_mgmt
INPUT="$(pw frank)x" both "shadow: a wrong password is still wrong" 1 frank authenticate
restart "ldap_pwd_policy = mit_kerberos" || fail "restart (mit_kerberos)"
both "mit_kerberos: kim's password expired" 1 kim authenticate acct_mgmt
expect_line "  ... PAM_NEW_AUTHTOK_REQD" "$NEWTOK"
both "mit_kerberos: lou logs in, warned" 0 lou authenticate acct_mgmt
expect_line "  ... with the expiry warning" "Your password will expire in 2 day"

# ---- ppolicy (always asked for on the bind) ----
restart "" || fail "restart (ppolicy)"
both "ppolicy: gina's password expired, a grace login" 0 gina authenticate acct_mgmt
expect_line "  ... says how many are left" "grace login(s) remaining"
both "ppolicy: hank is warned of the expiry" 0 hank authenticate acct_mgmt
expect_line "  ... with the expiry warning" "Your password will expire in"
both "ppolicy: ivan's password was reset: must change it" 1 ivan authenticate acct_mgmt
expect_line "  ... PAM_NEW_AUTHTOK_REQD" "$NEWTOK"
INPUT="$(pw ivan)x" both "ppolicy: a wrong password for ivan is still wrong" 1 ivan authenticate

# ---- [pam] options and pam_sss's domains= ----
restart "ldap_pwd_policy = shadow" "pam_verbosity = 0" || fail "restart (pam_verbosity)"
both "pam_verbosity = 0: frank logs in" 0 frank authenticate acct_mgmt
no_line "  ... and is not shown the expiry warning" "will expire"
restart "" "pam_pwd_expiration_warning = 1" || fail "restart (pam_pwd_expiration_warning)"
both "pam_pwd_expiration_warning = 1: hank logs in" 0 hank authenticate acct_mgmt
no_line "  ... not warned of an expiry 2 days away" "will expire"
restart "" "pam_trusted_users = 0" || fail "restart (pam_trusted_users)"
AS=(setpriv --reuid=10001 --regid=10001 --clear-groups)
both "pam_trusted_users = 0: alice (untrusted) cannot use the non-public domain" 1 alice authenticate
expect_line "  ... PAM_USER_UNKNOWN" "User not known"
AS=()
both "  ... root (trusted) can" 0 alice authenticate
restart "" "pam_trusted_users = 0
pam_public_domains = pol" || fail "restart (pam_public_domains)"
AS=(setpriv --reuid=10001 --regid=10001 --clear-groups)
both "pam_public_domains = pol: alice (untrusted) can" 0 alice authenticate
AS=()
SVC=pamother both "domains=other: alice of domain pol is unknown" 1 alice authenticate
expect_line "  ... PAM_USER_UNKNOWN" "User not known"
SVC=pamlist both "domains=other,pol: alice is found" 0 alice authenticate acct_mgmt
# The user's groups are refreshed at login when older than pam_id_timeout.
restart "access_provider = simple
simple_allow_groups = staff" "pam_id_timeout = 600" || fail "restart (pam_id_timeout = 600)"
both "pam_id_timeout = 600: alice (staff) allowed" 0 alice acct_mgmt
staff delete alice || fail "ldapmodify (alice out of staff)"
both "  ... out of staff in the directory, but her groups are fresh enough: allowed" 0 alice acct_mgmt
staff add alice || fail "ldapmodify (alice back in staff)"
restart "access_provider = simple
simple_allow_groups = staff" "pam_id_timeout = 1" || fail "restart (pam_id_timeout = 1)"
both "pam_id_timeout = 1: alice (staff) allowed" 0 alice acct_mgmt
staff delete alice || fail "ldapmodify (alice out of staff)"
sleep 2
both "  ... out of staff, 2 s later: her groups are refreshed at login: denied" 1 alice acct_mgmt
expect_line "  ... PAM_PERM_DENIED" "$DENIED"
staff add alice || fail "ldapmodify (alice back in staff)"

# ---- cached credentials ----
restart "cache_credentials = true
cache_credentials_minimal_first_factor_length = 11
offline_timeout = 600" "offline_credentials_expiration = 2
offline_failed_login_attempts = 3
offline_failed_login_delay = 5" || fail "restart (cache_credentials)"
both "online login of alice (her credentials get cached)" 0 alice authenticate acct_mgmt
both "carol is known (an account check, no password)" 0 carol acct_mgmt
both "online login of bob (his 10-character password is too short to be cached)" 0 \
    bob authenticate acct_mgmt
# The hash is stored just after the answer: wait for the back-end to say it did.
for u in alice bob; do
    for _ in $(seq 200); do
        grep -q "cached credentials of \[$u\] updated" "$LOGS/sssd_be_pol.log" && break
        sleep 0.05
    done
    check "  ... the cached credentials of $u were updated" \
        grep -q "cached credentials of \[$u\] updated" "$LOGS/sssd_be_pol.log"
done
slapd_stop "$WORK/ldap"
both "slapd stopped: alice, right password, from the cache" 0 alice authenticate acct_mgmt
expect_line "  ... and is told so" "Authenticated with cached credentials"
INPUT="$(pw alice)x" both "offline: a wrong password fails" 1 alice authenticate
expect_line "  ... PAM_AUTH_ERR" "Authentication failure"
INPUT="" both "offline: an empty password fails" 1 alice authenticate
expect_line "  ... PAM_AUTH_ERR" "Authentication failure"
both "offline: right again (resets the failure count)" 0 alice authenticate
both "offline: bob's password was below cache_credentials_minimal_first_factor_length" 1 \
    bob authenticate
expect_line "  ... PAM_AUTHINFO_UNAVAIL" "Authentication service cannot retrieve authentication info"
both "offline: carol never logged in online: no cached hash" 1 carol authenticate
expect_line "  ... PAM_AUTHINFO_UNAVAIL" "Authentication service cannot retrieve authentication info"
INPUT="$(pw alice)y" both "offline: wrong (failures 1 and 2)" 1 alice authenticate
INPUT="$(pw alice)z" ours alice authenticate
expect_line "offline: wrong (failure 3)" "Authentication failure"
both "offline: after 3 failures the right password waits offline_failed_login_delay" 1 \
    alice authenticate
expect_line "  ... PAM_PERM_DENIED" "$DENIED"
expect_line "  ... and the user is told until when" "Authentication is denied until"

# ---- no password in any log ----
stop_sssd
n=$(cat "$LOGS"/*.log | wc -l)
check "the logs were written at debug_level 9 ($n lines)" test "$n" -gt 500
leaked=0
for p in "${PASSWORDS[@]}"; do
    if grep -rlF -- "$p" "$LOGS" > /dev/null 2>&1; then
        fail "password $p appears in $(grep -rlF -- "$p" "$LOGS" | tr '\n' ' ')"
        leaked=1
    fi
done
[ "$leaked" = 0 ] && ok "no password used appears in any log"
summary
