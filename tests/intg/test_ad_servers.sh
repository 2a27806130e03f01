#!/bin/bash
# id_provider = ad with no server named anywhere: the DCs (LDAP) and the KDCs (Kerberos
# logins) come from DNS, against a real Samba AD DC (tests/lib/samba_ad.sh) whose internal
# DNS serves ad.test. The system krb5.conf of the namespace is rewritten, after the join,
# to name no KDC for the realm (dns_lookup_kdc = false): only the KDC list the back-end
# derives from discovery can lead libkrb5 (krb5_child's logins, the back-end's GSSAPI
# bind) to the DC.
# Scenarios:
#   - a domain section named otherwise than the AD domain, with only ad_domain set (no
#     ad_server, no ldap_uri): DNS discovery of _ldap._tcp.ad.test, lookups served;
#   - auth_provider = ad (the default) and no krb5_server: alice logs in with her AD
#     password and gets a TGT; the KDC list file names the DC DNS named;
#   - a dead SRV target preferred (priority 0) over the DC: both are in the KDC list, the
#     dead one first, and the login still succeeds: libkrb5 failed over to the next KDC;
#   - a site (Site2, subnet 127.0.0.0/8, its own SRV record naming the DC) and a second
#     DNS name of the domain-wide records: the site's DC is primary, the domain's other DC
#     backup, and sssctl domain-status says so.
# Usage: test_ad_servers.sh PREFIX   (root; 77 without Samba's AD DC packages, host or
# pamtester)
set -u
PREFIX=$(cd "$1" && pwd)
TOP=$(cd "$(dirname "$0")/../.." && pwd)
AD_TEST=test_ad_servers
AD_NEEDS="host pamtester"
. "$(dirname "$0")/ad_env.sh"
[ -f "$OUR_MOD" ] || { echo "FAIL: $OUR_MOD is not installed"; exit 1; }
samba_ad_user alice Alice-Pass1 || exit 1
samba_ad_join || { echo "FAIL: adcli join"; exit 1; }
DC_REC="$SAMBA_AD_DC 389 0 100"     # the provisioned record: target port priority weight
dns() { # dns add|delete NAME TYPE DATA
    samba_ad_tool dns "$1" $SAMBA_AD_DC_IP $SAMBA_AD_DOMAIN "$2" "$3" "$4" \
        -U Administrator --password="$SAMBA_AD_ADMINPASS" > /dev/null 2>&1
}
# DNS changes are made now, while krb5.conf still names the KDC (samba-tool may use it).
dns add dead A 127.0.0.11 || fail "dns add dead A"
dns add dc1alias A $SAMBA_AD_DC_IP || fail "dns add dc1alias A"

# The system's krb5.conf knows the realm but none of its KDCs.
sed -i -e "/^ *kdc = /d" -e "/^ *admin_server = /d" /etc/krb5.conf
check "the system krb5.conf names no KDC and asks DNS for none" \
    test -z "$(grep "^ *kdc = " /etc/krb5.conf)" -a -n "$(grep "dns_lookup_kdc = false" /etc/krb5.conf)"

mkdir -p /etc/pam.d
printf '%s required %s\n' auth "$OUR_MOD" account "$OUR_MOD" password "$OUR_MOD" \
    session "$OUR_MOD" > /etc/pam.d/adtest
mkdir -p "$WORK/cc"
chmod 1777 "$WORK/cc"
KDC_FILE=$PREFIX/var/lib/sss/krb5_kdc_corp.conf

conf() {
    rm -f "$LOGS"/*.log
    write_conf <<CONF
[sssd]
domains = corp
services = nss, pam
[nss]
debug_level = 0x3ff0
[domain/corp]
id_provider = ad
ad_domain = $SAMBA_AD_DOMAIN
krb5_ccachedir = $WORK/cc/%u
debug_level = 0xfff0
offline_timeout = 2
$1
CONF
    start_sssd && ad_wait_pam_corp
}
ad_wait_pam_corp() {
    for _ in $(seq 200); do
        [ -S "$PIPES/pam" ] && wait_name sssd.domain_corp 100 && return 0
        sleep 0.05
    done
    return 1
}
BE_LOG=$LOGS/sssd_be_corp.log
login() { # EXPECTED_RC PASSWORD USER
    LAST_OUT=$(printf '%s\n' "$2" | LC_ALL=C pamtester adtest "$3" authenticate 2>&1)
    LAST_RC=$?
    [ "$LAST_RC" = "$1" ]
}

# 1. Only ad_domain: discovery from the AD domain's name.
conf "" || fail "sssd did not start with only ad_domain"
out=$(in_nss_ns getent passwd alice)
check "only ad_domain (section corp): getent passwd alice ($out)" grep -q "^alice:" <<< "$out"
check "  ... the back-end asked DNS for _ldap._tcp.$SAMBA_AD_DOMAIN" \
    grep -q "SRV lookup of _ldap._tcp.$SAMBA_AD_DOMAIN" "$BE_LOG"
check "  ... and connected to the DC it names" \
    grep -q "served by ldap://$SAMBA_AD_DC:389" "$BE_LOG"

# 2. Logins go to the KDC discovery found.
t0=$(date +%s%N)
check "no krb5_server, no KDC in krb5.conf: alice logs in" login 0 Alice-Pass1 alice
t1=$(date +%s%N)
cc=$(ls "$WORK"/cc/*/* 2>/dev/null | head -n1)
check "  ... and has a TGT from the DC's KDC ($cc)" \
    grep -q "krbtgt/$SAMBA_AD_REALM@$SAMBA_AD_REALM" <<< "$(klist -c "FILE:$cc" 2>&1)"
check "  ... the KDC list names the DC DNS named" grep -q "kdc = $SAMBA_AD_DC\$" "$KDC_FILE"
echo "# login with discovered KDCs: $(( (t1 - t0) / 1000000 )) ms (pamtester, warm back-end)"
login 0 Alice-Wrong1 alice
check "  ... a wrong password is refused ($LAST_OUT)" \
    grep -q "Authentication failure" <<< "$LAST_OUT"

# 3. A dead KDC first: libkrb5 goes on to the next one.
dns delete _ldap._tcp SRV "$DC_REC" || fail "dns delete the DC's SRV record"
dns add _ldap._tcp SRV "$SAMBA_AD_DC 389 10 100" || fail "dns add the DC (priority 10)"
dns add _ldap._tcp SRV "dead.$SAMBA_AD_DOMAIN 389 0 100" || fail "dns add dead (priority 0)"
conf "" || fail "sssd did not start (a dead SRV target)"
out=$(in_nss_ns getent passwd alice)
check "a dead SRV target first: getent passwd alice ($out)" grep -q "^alice:" <<< "$out"
kdcs=$(grep "kdc = " "$KDC_FILE" | tr -s ' ' | tr '\n' ';')
check "  ... the KDC list: the dead target, then the DC ($kdcs)" \
    test "$kdcs" = " kdc = dead.$SAMBA_AD_DOMAIN; kdc = $SAMBA_AD_DC;"
rm -rf "$WORK"/cc/*
check "  ... alice logs in: the dead KDC was skipped" login 0 Alice-Pass1 alice
dns delete _ldap._tcp SRV "dead.$SAMBA_AD_DOMAIN 389 0 100" || fail "dns delete dead"
dns delete _ldap._tcp SRV "$SAMBA_AD_DC 389 10 100" || fail "dns delete the DC (10)"
dns add _ldap._tcp SRV "$DC_REC" || fail "dns add the DC back"

# 4. A site's DCs primary, the domain's others backup.
samba_ad_tool sites create Site2 > /dev/null 2>&1 || fail "samba-tool sites create Site2"
samba_ad_tool sites subnet create 127.0.0.0/8 Site2 > /dev/null 2>&1 \
    || fail "samba-tool sites subnet create"
dns add _ldap._tcp.Site2._sites SRV "$DC_REC" || fail "dns add the Site2 SRV record"
dns add _ldap._tcp SRV "dc1alias.$SAMBA_AD_DOMAIN 389 0 100" || fail "dns add dc1alias"
conf "" || fail "sssd did not start (sites)"
out=$(in_nss_ns getent passwd alice)
check "a site: getent passwd alice ($out)" grep -q "^alice:" <<< "$out"
status=$("$PREFIX/sbin/sssctl" domain-status corp 2>&1)
echo "$status" | sed 's/^/#   /'
check "  ... domain-status: the site's DC primary" \
    grep -Eq "ldap://$SAMBA_AD_DC:389 +primary \(DNS\)" <<< "$status"
check "  ... the domain's other DC backup" \
    grep -Eq "ldap://dc1alias.$SAMBA_AD_DOMAIN:389 +backup \(DNS\)" <<< "$status"
check "  ... the DC is named once (site and domain records de-duplicated)" \
    test "$(grep -c "ldap://$SAMBA_AD_DC:389 .*(DNS)" <<< "$status")" = 1
kdcs=$(grep "kdc = " "$KDC_FILE" | tr -s ' ' | tr '\n' ';')
check "  ... the KDC list: the site's DC, then the backup ($kdcs)" \
    test "$kdcs" = " kdc = $SAMBA_AD_DC; kdc = dc1alias.$SAMBA_AD_DOMAIN;"
echo "# cold start with a site: $(grep -c "SRV lookup of" "$BE_LOG") SRV quer(y/ies), \
$(grep -c "LDAP ping (CLDAP)" "$BE_LOG") CLDAP ping(s), $(grep -c "from DNS discovery" "$BE_LOG") \
KDC list write(s): the KDCs cost no DNS or LDAP operation of their own"

# Figures (not asserted): login time, KDCs from discovery vs krb5_server set.
logins() { # N: the median of N logins, in ms
    for _ in $(seq "$1"); do
        rm -rf "$WORK"/cc/*
        t0=$(date +%s%N)
        login 0 Alice-Pass1 alice || echo "# login failed: $LAST_OUT" >&2
        echo $(( ($(date +%s%N) - t0) / 1000 ))
    done | sort -n | awk '{a[NR]=$1} END {printf "%.1f", a[int((NR+1)/2)]/1000}'
}
logins 2 > /dev/null
disc=$(logins 15)
conf "ad_server = $SAMBA_AD_DC
krb5_server = $SAMBA_AD_DC" || fail "sssd did not start (krb5_server set)"
in_nss_ns getent passwd alice > /dev/null
logins 2 > /dev/null
named=$(logins 15)
echo "# login (pamtester, median of 15, warm): KDCs from discovery $disc ms, krb5_server set $named ms"
summary
