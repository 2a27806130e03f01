#!/bin/bash
# GPO-based access control (access_provider = ad, ad_gpo_access_control) against a real
# Samba AD DC (tests/lib/samba_ad.sh), through pamtester's account check (pam_sss, services
# "login" and "sshd"). The host is joined and its computer object moved into OU=Linux; a
# GPO "lnx" linked there denies the interactive logon right to alice and to the group
# gpodeny (carol); the Default Domain Policy, linked to the domain, applies too.
# The policy files come from the DC's SYSVOL over SMB, read by gpo_child with the machine's
# Kerberos ticket, and are cached per GPO version; the test requires that fetch (it fails
# when the DC's SMB server refuses the joined host, and skips only when gpo_child was not
# built, i.e. without libsmbclient).
# Scenarios:
#   enforcing    (the default) login: alice denied (her SID), carol denied (her group's),
#                bob allowed; sshd (remote interactive right): alice allowed;
#   permissive   alice allowed, the log names user, service and GPO;
#   disabled     alice allowed;
#   allow list   SeInteractiveLogonRight = bob only (version bumped): dave, in no list,
#                denied, bob allowed;
#   security filtering  a GPO "filt" denying dave and carol the remote interactive
#                right: both denied on sshd; Apply Group Policy denied to gpodeny in its
#                DACL (samba-tool dsacl): carol allowed, dave still denied; denied to the
#                host (CLIENT$): dave allowed;
#   site         a GPO linked to the DC's site (Default-First-Site-Name) denies bob the
#                remote interactive right: bob denied on sshd, allowed on login;
#   map          ad_gpo_map_remote_interactive = -sshd, ad_gpo_map_interactive = +sshd:
#                alice denied on sshd;
#   stale link   a link to a GPO that does not exist: everyone denied, as in SSSD, unless
#                ad_gpo_ignore_unreadable = True;
#   unreadable   the GPO's SYSVOL folder unreadable (mode 000 on the DC) and no cache:
#                enforcing denies (nothing granted unchecked), permissive allows, logs it;
#   offline      the DC stopped: alice still denied, bob still allowed.
# Usage: test_ad_gpo.sh PREFIX   (root; 77 without Samba's AD DC packages or pamtester)
set -u
PREFIX=$(cd "$1" && pwd)
TOP=$(cd "$(dirname "$0")/../.." && pwd)
AD_TEST=test_ad_gpo
AD_NEEDS="pamtester"
. "$(dirname "$0")/ad_env.sh"
[ -f "$OUR_MOD" ] || { echo "FAIL: $OUR_MOD is not installed"; exit 1; }
for u in alice bob carol dave; do
    samba_ad_user "$u" "Pass-$u-1" || exit 1
done
samba_ad_tool group add gpodeny > /dev/null || exit 1
samba_ad_tool group addmembers gpodeny carol > /dev/null || exit 1
samba_ad_tool ou add "OU=Linux,$SAMBA_AD_BASE" > /dev/null || exit 1
samba_ad_join || { echo "FAIL: adcli join"; exit 1; }
ldapmodrdn -x -H ldap://$SAMBA_AD_DC_IP -D "Administrator@$SAMBA_AD_DOMAIN" \
    -w "$SAMBA_AD_ADMINPASS" -r -s "OU=Linux,$SAMBA_AD_BASE" \
    "CN=CLIENT,CN=Computers,$SAMBA_AD_BASE" "CN=CLIENT" > /dev/null \
    || { echo "FAIL: moving the computer object into OU=Linux"; exit 1; }
GUID=$(samba_ad_gpo_create lnx) && [ -n "$GUID" ] || { echo "FAIL: GPO create"; exit 1; }
samba_ad_gpo_link "$GUID" "OU=Linux,$SAMBA_AD_BASE" || { echo "FAIL: GPO link"; exit 1; }
ALICE=$(samba_ad_sid alice)
BOB=$(samba_ad_sid bob)
GPODENY=$(samba_ad_sid gpodeny)
samba_ad_gpo_rights "$GUID" "SeDenyInteractiveLogonRight = *$ALICE,*$GPODENY" \
    || { echo "FAIL: GPO rights"; exit 1; }

mkdir -p /etc/pam.d
for svc in login sshd; do
    printf '%s required %s\n' auth "$OUR_MOD" account "$OUR_MOD" > /etc/pam.d/$svc
done
CACHE=$PREFIX/var/lib/sss/gpo_cache/$SAMBA_AD_DOMAIN
SYSVOL=$SAMBA_AD_DIR/state/sysvol/$SAMBA_AD_DOMAIN/Policies

[ -x "$PREFIX/libexec/sssd/gpo_child" ] \
    || { echo "SKIP: gpo_child is not built (no libsmbclient)"; exit 77; }
# The DC's SMB server must serve the joined host (the machine's ticket, as sssd_be has).
KRB5CCNAME=FILE:$WORK/probe.cc kinit -k 'CLIENT$@AD.TEST' > /dev/null 2>&1
PROBE=$(KRB5CCNAME=FILE:$WORK/probe.cc "$PREFIX/libexec/sssd/gpo_child" \
        "smb://$SAMBA_AD_DC/SysVol/$SAMBA_AD_DOMAIN/Policies/$GUID/GPT.INI" 2>&1)
if grep -q "Version=" <<< "$PROBE"; then
    ok "gpo_child reads the GPO's GPT.INI from SYSVOL with the machine's ticket"
else
    fail "gpo_child reads the GPO's GPT.INI from SYSVOL with the machine's ticket ($PROBE)"
    summary; exit
fi

seed_cache() { # every access fetches anew: no file of an earlier test is used
    rm -rf "$CACHE"
}

start() { # start sssd on the [domain/ad.test] lines given on stdin
    rm -f "$LOGS"/*.log
    ad_write_conf "nss, pam" <<CONF
access_provider = ad
ad_gpo_cache_timeout = 0
offline_timeout = 600
$(cat)
CONF
    start_sssd && ad_wait_pam
}
acct() { # acct EXPECTED_RC SERVICE USER
    LAST_OUT=$(LC_ALL=C pamtester "$2" "$3" acct_mgmt 2>&1)
    LAST_RC=$?
    [ "$LAST_RC" = "$1" ]
}
be_log() { cat "$LOGS"/sssd_*ad.test.log 2>/dev/null; }

# ---- enforcing ----------------------------------------------------------------------------
seed_cache
start < /dev/null || { fail "sssd did not start"; summary; exit; }
acct 1 login alice
check "enforcing, login: alice, in SeDenyInteractiveLogonRight, denied ($LAST_OUT)" \
    grep -q "Permission denied" <<< "$LAST_OUT"
check "  ... the log names the service, the right and the GPO" \
    grep -q "GPO: 'CN=alice,.*denied: service 'login', right Interactive.*in the deny list, GPO 'lnx'" \
    <<< "$(be_log)"
check "  ... carol, a member of gpodeny (in the deny list), denied" acct 1 login carol
check "  ... bob allowed" acct 0 login bob
check "enforcing, sshd (remote interactive right): alice allowed" acct 0 sshd alice
check "  ... the GPO's file was fetched over SMB and cached under its version" \
    cmp -s "$CACHE/$GUID/GptTmpl.inf" "$SYSVOL/$GUID/Machine/Microsoft/Windows NT/SecEdit/GptTmpl.inf"

# ---- permissive, disabled -------------------------------------------------------------------
start <<< "ad_gpo_access_control = permissive" || { fail "sssd did not start"; summary; exit; }
check "permissive: alice allowed" acct 0 login alice
check "  ... the log says what enforcing would have denied (user, service, GPO)" \
    grep -q "CN=alice,.*would have been denied GPO-based logon access.*service 'login'.*GPO 'lnx'" \
    <<< "$(be_log)"
start <<< "ad_gpo_access_control = disabled" || { fail "sssd did not start"; summary; exit; }
check "disabled: alice allowed" acct 0 login alice

# ---- services mapped otherwise --------------------------------------------------------------
start <<CONF || { fail "sssd did not start"; summary; exit; }
ad_gpo_map_remote_interactive = -sshd
ad_gpo_map_interactive = +sshd
CONF
check "sshd mapped to the interactive right: alice denied on sshd" acct 1 sshd alice

# ---- security filtering (the GPO's DACL, Apply Group Policy) ---------------------------------
ou_gplink() { # prints OU=Linux's gPLink
    ldapsearch -LLL -o ldif-wrap=no -x -H ldap://$SAMBA_AD_DC_IP -D "Administrator@$SAMBA_AD_DOMAIN" \
        -w "$SAMBA_AD_ADMINPASS" -b "OU=Linux,$SAMBA_AD_BASE" -s base gPLink | sed -n 's/^gPLink: //p'
}
set_gplink() {
    ldapmodify -x -H ldap://$SAMBA_AD_DC_IP -D "Administrator@$SAMBA_AD_DOMAIN" \
        -w "$SAMBA_AD_ADMINPASS" > /dev/null <<LDIF
dn: OU=Linux,$SAMBA_AD_BASE
changetype: modify
replace: gPLink
gPLink: $1
LDIF
}
deny_apply() { # deny_apply GUID SID: an ACE denying SID the Apply Group Policy right
    samba_ad_tool dsacl set --objectdn="CN=$1,CN=Policies,CN=System,$SAMBA_AD_BASE" \
        --sddl="(OD;;CR;edacfd8f-ffb3-11d1-b41d-00a0c968f939;;$2)" > /dev/null
}
OLD_LINK=$(ou_gplink)
DAVE=$(samba_ad_sid dave)
CAROL=$(samba_ad_sid carol)
HOST_SID=$(samba_ad_sid 'CLIENT$')
FILT=$(samba_ad_gpo_create filt) && [ -n "$FILT" ] || fail "GPO create (filt)"
samba_ad_gpo_link "$FILT" "OU=Linux,$SAMBA_AD_BASE" || fail "GPO link (filt)"
samba_ad_gpo_rights "$FILT" "SeDenyRemoteInteractiveLogonRight = *$DAVE,*$CAROL" \
    || fail "GPO rights (filt)"
seed_cache
start < /dev/null || { fail "sssd did not start"; summary; exit; }
check "security filtering: GPO filt (default DACL) denies dave on sshd" acct 1 sshd dave
check "  ... and carol" acct 1 sshd carol
deny_apply "$FILT" "$GPODENY" || fail "dsacl (gpodeny)"
check "  ... Apply Group Policy denied to gpodeny: carol, a member, allowed on sshd" \
    acct 0 sshd carol
check "  ... the log says filt does not apply to carol" \
    grep -q "GPO 'filt' .* does not apply to 'CN=carol,.*security filtering" <<< "$(be_log)"
check "  ... dave still denied on sshd" acct 1 sshd dave
deny_apply "$FILT" "$HOST_SID" || fail "dsacl (host)"
check "  ... Apply Group Policy denied to the host (CLIENT\$): dave allowed on sshd" \
    acct 0 sshd dave
check "  ... lnx still applies: alice denied on login" acct 1 login alice
set_gplink "$OLD_LINK" || fail "restoring OU=Linux's gPLink"

# ---- a GPO linked to the site ------------------------------------------------------------
SITE_GUID=$(samba_ad_gpo_create sitewide) && [ -n "$SITE_GUID" ] || fail "GPO create (site)"
samba_ad_gpo_link "$SITE_GUID" "CN=Default-First-Site-Name,CN=Sites,CN=Configuration,$SAMBA_AD_BASE" \
    || fail "GPO link (site)"
samba_ad_gpo_rights "$SITE_GUID" "SeDenyRemoteInteractiveLogonRight = *$BOB" \
    || fail "GPO rights (site)"
seed_cache
start < /dev/null || { fail "sssd did not start"; summary; exit; }
check "site GPO (the site the DC names in its LDAP ping): bob denied on sshd" acct 1 sshd bob
check "  ... the log names the site's GPO" \
    grep -q "CN=bob,.*service 'sshd', right Remote Interactive.*GPO 'sitewide'" <<< "$(be_log)"
check "  ... bob allowed on login" acct 0 login bob

# ---- an allow list ----------------------------------------------------------------------------
samba_ad_gpo_rights "$GUID" "SeInteractiveLogonRight = *$BOB" || fail "GPO rights (allow)"
seed_cache
start < /dev/null || { fail "sssd did not start"; summary; exit; }
check "allow list (bob only, new version): dave denied" acct 1 login dave
check "  ... bob allowed" acct 0 login bob
check "  ... alice, no longer in a deny list but not allowed, denied" acct 1 login alice
check "  ... the log says not in the allow list" \
    grep -q "CN=dave,.*not in the allow list, GPO 'lnx'" <<< "$(be_log)"
samba_ad_gpo_rights "$GUID" "SeDenyInteractiveLogonRight = *$ALICE" || fail "GPO rights"
seed_cache

# ---- a link to a GPO that cannot be read ---------------------------------------------------
OLD_LINK=$(ou_gplink)
samba_ad_gpo_link "{00000000-0000-0000-0000-000000000000}" "OU=Linux,$SAMBA_AD_BASE" \
    || fail "GPO link (missing GPO)"
start < /dev/null || { fail "sssd did not start"; summary; exit; }
check "a linked GPO that cannot be read: bob denied (ad_gpo_ignore_unreadable = False)" \
    acct 1 login bob
check "  ... the log names it" \
    grep -q "linked CN={00000000-0000-0000-0000-000000000000},.*cannot be read" <<< "$(be_log)"
start <<< "ad_gpo_ignore_unreadable = True" || { fail "sssd did not start"; summary; exit; }
check "  ... with ad_gpo_ignore_unreadable = True: bob allowed, alice still denied" \
    eval 'acct 0 login bob && acct 1 login alice'
set_gplink "$OLD_LINK" || fail "restoring OU=Linux's gPLink"

# ---- a policy that cannot be read --------------------------------------------------------------
chmod 000 "$SYSVOL/$GUID"
rm -rf "$CACHE"
start < /dev/null || { fail "sssd did not start"; summary; exit; }
check "no SYSVOL, no cache, enforcing: bob denied (nothing granted unchecked)" \
    acct 1 login bob
check "  ... the log says SYSVOL could not be read" \
    grep -q "GptTmpl.inf could not be read from SYSVOL" <<< "$(be_log)"
start <<< "ad_gpo_access_control = permissive" || { fail "sssd did not start"; summary; exit; }
check "  ... permissive: bob allowed, logged" acct 0 login bob
check "  ... the log says it could not be evaluated" \
    grep -q "could not be evaluated for 'CN=bob,.*allowed (permissive)" <<< "$(be_log)"
chmod 0755 "$SYSVOL/$GUID"
seed_cache

# ---- offline ----------------------------------------------------------------------------------
start < /dev/null || { fail "sssd did not start"; summary; exit; }
acct 1 login alice
acct 0 login bob
samba_ad_stop
check "DC stopped: alice still denied" acct 1 login alice
check "  ... bob still allowed" acct 0 login bob
summary
