#!/bin/bash
# auth_provider = ad (the id_provider's default) against a real Samba AD DC
# (tests/lib/samba_ad.sh): pam_sss through pamtester, krb5_child asks the DC's KDC (the
# KDC list and realm the AD provider derives from ad_server and ad_domain).
# Scenarios: alice logs in with her AD password and gets a TGT in her ccache; a wrong
# password is refused; dave, whose account is disabled in AD (userAccountControl), is
# refused with his right password; an unknown user is refused; alice changes her password
# (chpass_provider = ad, kpasswd on the DC) and logs in with the new one only.
# Usage: test_ad_auth.sh PREFIX   (root; 77 without Samba's AD DC packages or pamtester)
set -u
PREFIX=$(cd "$1" && pwd)
TOP=$(cd "$(dirname "$0")/../.." && pwd)
AD_TEST=test_ad_auth
AD_NEEDS="pamtester"
. "$(dirname "$0")/ad_env.sh"
[ -f "$OUR_MOD" ] || { echo "FAIL: $OUR_MOD is not installed"; exit 1; }
samba_ad_user alice Alice-Pass1 || exit 1
samba_ad_user dave Dave-Pass1 || exit 1
samba_ad_tool user disable dave > /dev/null || exit 1
samba_ad_join || { echo "FAIL: adcli join"; exit 1; }

# /etc is the namespace's overlay: our PAM service goes straight into it.
mkdir -p /etc/pam.d
printf '%s required %s\n' auth "$OUR_MOD" account "$OUR_MOD" password "$OUR_MOD" \
    session "$OUR_MOD" > /etc/pam.d/adtest
mkdir -p "$WORK/cc"
chmod 1777 "$WORK/cc"

rm -f "$LOGS"/*.log
ad_write_conf "nss, pam" <<CONF
krb5_ccachedir = $WORK/cc/%u
CONF
start_sssd || { fail "sssd did not start"; summary; exit; }
ad_wait_pam || fail "sssd_pam or the back-end did not come up"

login() { # EXPECTED_RC PASSWORD USER
    LAST_OUT=$(printf '%s\n' "$2" | LC_ALL=C pamtester adtest "$3" authenticate 2>&1)
    LAST_RC=$?
    [ "$LAST_RC" = "$1" ]
}
check "alice logs in with her AD password" login 0 Alice-Pass1 alice
cc=$(ls "$WORK"/cc/*/* 2>/dev/null | head -n1)
check "  ... and has a TGT from the DC's KDC in her ccache ($cc)" \
    grep -q "krbtgt/AD.TEST@AD.TEST" <<< "$(klist -c "FILE:$cc" 2>&1)"
login 0 Alice-Wrong1 alice
check "a wrong password is refused ($LAST_OUT)" grep -q "Authentication failure" <<< "$LAST_OUT"
login 0 Dave-Pass1 dave
check "dave, disabled in AD, is refused with his right password ($LAST_OUT)" \
    grep -q "Permission denied" <<< "$LAST_OUT"
check "an unknown user is refused" eval '! login 0 Whatever-1 nobody_here'

# chpass_provider = ad: a change through the DC's kpasswd, as the user (pam_sss refuses
# root's), with her mapped uid and gid.
IFS=: read -r _ _ A_UID A_GID _ <<< "$(in_nss_ns getent passwd alice)"
AS_ALICE=(setpriv --reuid="$A_UID" --regid="$A_GID" --clear-groups)
out=$(printf 'Alice-Bad0\nAlice-Pass2\nAlice-Pass2\n' \
      | LC_ALL=C "${AS_ALICE[@]}" pamtester adtest alice chauthtok 2>&1)
check "a wrong current password stops alice's change ($out)" \
    grep -q "Authentication failure" <<< "$out"
out=$(printf 'Alice-Pass1\nAlice-Pass2\nAlice-Pass2\n' \
      | LC_ALL=C "${AS_ALICE[@]}" pamtester adtest alice chauthtok 2>&1)
check "alice (uid $A_UID) changes her AD password ($out)" \
    grep -q "authentication token altered successfully" <<< "$out"
check "  ... the new one logs her in" login 0 Alice-Pass2 alice
login 0 Alice-Pass1 alice
check "  ... the old one no longer ($LAST_OUT)" grep -q "Authentication failure" <<< "$LAST_OUT"
summary
