#!/bin/bash
# access_provider = ad against a real Samba AD DC (tests/lib/samba_ad.sh): pam_sss's account
# check only (pamtester acct_mgmt, the KDC is never asked), the verdict read from the DC.
# GPOs are disabled here (ad_gpo_access_control = disabled): test_ad_gpo.sh covers them.
# Scenarios:
#   expiry       (ad_gpo_access_control = disabled) dave, disabled in AD (userAccountControl
#                0x2), is refused with SSSD's text; erin, whose accountExpires is in the past
#                (samba-tool user setexpiry), is refused as expired;
#   FOREST       an item for the forest beats a plain filter, a malformed DOM item is
#                skipped: carol (named by the forest's item) allowed, bob (plain) denied;
#                a filter with items for other domains only denies everyone (SSSD); a plain
#                filter with ':' inside (the in-chain matching rule) is used as a filter;
#   filter       ad_access_filter with a plain item that matches nobody, a DOM:ad.test item
#                allowing members of linuxadmins and a DOM item of another domain: the
#                domain's item wins, bob (member) allowed, carol (not) denied;
#   close        three account checks of alice in a row read her entry from the DC once
#                (pam_id_timeout = 8); disabled in AD, she is refused once it has passed;
#   offline      the DC stopped: the last online verdicts decide (bob allowed, carol and dave
#                denied), frank, never checked online, is denied;
#   status       sssctl domain-status ad.test shows the domain online and the DC active.
# Usage: test_ad_access.sh PREFIX   (root; 77 without Samba's AD DC packages or pamtester)
set -u
PREFIX=$(cd "$1" && pwd)
TOP=$(cd "$(dirname "$0")/../.." && pwd)
AD_TEST=test_ad_access
AD_NEEDS="pamtester"
. "$(dirname "$0")/ad_env.sh"
[ -f "$OUR_MOD" ] || { echo "FAIL: $OUR_MOD is not installed"; exit 1; }
for u in alice bob carol dave erin frank; do
    samba_ad_user "$u" "Pass-$u-1" || exit 1
done
samba_ad_tool user disable dave > /dev/null || exit 1
# --days=0: accountExpires = now, in the past by the time anyone asks.
samba_ad_tool user setexpiry erin --days=0 > /dev/null || exit 1
samba_ad_tool group add linuxadmins > /dev/null || exit 1
samba_ad_tool group addmembers linuxadmins bob,dave,erin,frank > /dev/null || exit 1
samba_ad_join || { echo "FAIL: adcli join"; exit 1; }
sleep 1

mkdir -p /etc/pam.d
printf '%s required %s\n' auth "$OUR_MOD" account "$OUR_MOD" > /etc/pam.d/adacc

start() { # start sssd on the [domain/ad.test] lines given on stdin
    rm -f "$LOGS"/*.log
    ad_write_conf "nss, pam" <<CONF
access_provider = ad
offline_timeout = 600
$(cat)
CONF
    start_sssd && ad_wait_pam
}

acct() { # acct EXPECTED_RC USER: pamtester's account check only
    LAST_OUT=$(LC_ALL=C pamtester adacc "$2" acct_mgmt 2>&1)
    LAST_RC=$?
    [ "$LAST_RC" = "$1" ]
}
be_log() { cat "$LOGS"/sssd_*ad.test.log 2>/dev/null; }

# GPO-based access control (ad_gpo_access_control): tests/intg/test_ad_gpo.sh.

# ---- ad_access_filter: FOREST: beats a plain filter; a malformed item is skipped ---------
start <<CONF || { fail "sssd did not start"; summary; exit; }
ad_gpo_access_control = disabled
ad_access_filter = (sAMAccountName=bob)?DOM:ad.test:no_parentheses?FOREST:AD.TEST:(sAMAccountName=carol)
CONF
check "FOREST:AD.TEST filter: carol allowed" acct 0 carol
check "  ... bob, matched by the less specific plain filter only, denied" acct 1 bob

# ---- ad_access_filter with no item for this domain denies everyone (as SSSD) ------------
start <<< "ad_gpo_access_control = disabled
ad_access_filter = DOM:other.test:(sAMAccountName=bob)" || { fail "sssd did not start"; summary; exit; }
check "a filter for another domain only: bob denied" acct 1 bob
check "  ... the start-up log says every user is denied" \
    grep -q "ad_access_filter has no usable item.*every user is denied" <<< "$(be_log)"

# ---- a plain filter with ':' (LDAP_MATCHING_RULE_IN_CHAIN) is a filter --------------------
start <<CONF || { fail "sssd did not start"; summary; exit; }
ad_gpo_access_control = disabled
ad_access_filter = (memberOf:1.2.840.113556.1.4.1941:=CN=linuxadmins,CN=Users,$SAMBA_AD_BASE)
CONF
check "in-chain membership filter: bob allowed" acct 0 bob
check "  ... carol denied" acct 1 carol

# ---- logins close together: one read of the user's entry per pam_id_timeout ------------
start <<CONF || { fail "sssd did not start"; summary; exit; }
ad_gpo_access_control = disabled
[pam]
pam_id_timeout = 8
CONF
# The account checks that took the entry an earlier one read (the others searched it).
alice_memo() { grep -c "'CN=alice,CN=Users,.*': its entry as read less than pam_id_timeout" \
    <<< "$(be_log)"; }
for i in 1 2 3; do
    check "alice allowed (account check $i of 3 in a row)" acct 0 alice
done
check "  ... the second and third took the entry the first read ($(alice_memo))" \
    test "$(alice_memo)" = 2
# What the DC saw: base searches of her entry, one for her groups (sssd_pam's identity
# refresh, tokenGroups) and one for the three checks (before: one per check, 4).
alice_base() { grep -c "search [0-9]*: '(objectClass=\*)' under 'CN=alice,CN=Users," \
    <<< "$(be_log)"; }
check "  ... the DC was asked for her entry twice, not four times ($(alice_base))" \
    test "$(alice_base)" = 2
samba_ad_tool user disable alice > /dev/null || fail "samba-tool user disable alice"
sleep 9
acct 1 alice
check "disabled, alice is refused once pam_id_timeout has passed ($LAST_OUT)" \
    grep -q "Permission denied" <<< "$LAST_OUT"
check "  ... that check read her entry again ($(alice_memo))" test "$(alice_memo)" = 2

# ---- expiry and ad_access_filter --------------------------------------------------------
start <<CONF || { fail "sssd did not start"; summary; exit; }
ad_gpo_access_control = disabled
ad_access_filter = (sAMAccountName=nobody_at_all)?DOM:ad.test:(memberOf=CN=linuxadmins,CN=Users,$SAMBA_AD_BASE)?DOM:other.test:(sAMAccountName=nobody_at_all)
CONF
check "bob, a member of linuxadmins, allowed by the DOM:ad.test filter" acct 0 bob
acct 1 carol
check "carol, not a member, denied ($LAST_OUT)" grep -q "Permission denied" <<< "$LAST_OUT"
acct 1 dave
check "dave, disabled in AD, refused by the account check ($LAST_OUT)" \
    grep -q "Permission denied" <<< "$LAST_OUT"
check "  ... with SSSD's text (SYSTEM_INFO, in the back-end log)" \
    grep -q "The user account is disabled on the AD server" <<< "$(be_log)"
acct 1 erin
check "erin, whose accountExpires is past, refused as expired ($LAST_OUT)" \
    grep -q "User account has expired" <<< "$LAST_OUT"
check "  ... with SSSD's text (SYSTEM_INFO, in the back-end log)" \
    grep -q "The user account is expired on the AD server" <<< "$(be_log)"
DS_OUT=$("$SBIN/sssctl" domain-status ad.test 2>&1)
check "sssctl domain-status ad.test: online, the DC active ($(tr '\n' ' ' <<< "$DS_OUT"))" \
    eval 'grep -q "Online status: Online" <<< "$DS_OUT" && grep -q "Active server: .*$SAMBA_AD_DC" <<< "$DS_OUT"'
check "frank is known (looked up online)" eval 'in_nss_ns getent passwd frank > /dev/null'

# ---- offline: the last online verdicts ----------------------------------------------------
samba_ad_stop
check "DC stopped: bob still allowed (his last online verdict)" acct 0 bob
check "  ... carol still denied" acct 1 carol
check "  ... dave still denied" acct 1 dave
check "  ... frank, never checked online, denied" acct 1 frank
check "  ... the back-end decided offline" grep -q "offline: \[bob\] allowed by the last online" \
    <<< "$(be_log)"
summary
