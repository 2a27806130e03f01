#!/bin/bash
# Where the back-end reads the global catalog's partial attribute set (PAS) with
# ldap_id_mapping = false (sdap_connect_gc.c): in the schema partition the DC's rootDSE
# names (schemaNamingContext), as SSSD does, and not under the domain's search base: with
# ldap_search_base set to a subtree of the domain (CN=Users,...) the old guess
# CN=Schema,CN=Configuration,<search base> does not exist and the GC was never used.
# Against a real Samba AD DC (tests/lib/samba_ad.sh). The PAS is asked here with
# ldapsearch on the DC (not through the daemon); the GC's use is seen in the bytes the
# kernel counts on sssd_be's connections to port 3268 (ss -i).
# Scenarios, all with ldap_id_mapping = false:
#   1. uidNumber/gidNumber not in the PAS (as provisioned), search base CN=Users: the GC
#      is connected but left alone for group lookups;
#   2. both put in the PAS (schema updates allowed, DC restarted), search base CN=Users:
#      the back-end finds them there and a group lookup reads the GC;
#   3. the same with the search base from the rootDSE (no ldap_search_base).
# Usage: test_ad_gc_schema.sh PREFIX   (root; 77 without Samba's AD DC packages)
set -u
PREFIX=$(cd "$1" && pwd)
TOP=$(cd "$(dirname "$0")/../.." && pwd)
AD_TEST=test_ad_gc_schema
AD_NEEDS="ss"
. "$(dirname "$0")/ad_env.sh"
samba_ad_user alice Alice-Pass1 --uid-number=10001 --gid-number=10001 \
    --unix-home=/home/alice --login-shell=/bin/bash --nis-domain=ad || exit 1
samba_ad_tool group add g_posix --gid-number=10001 --nis-domain=ad > /dev/null ||
    { echo "FAIL: group add"; exit 1; }
samba_ad_tool group addmembers g_posix alice > /dev/null || { echo "FAIL: addmembers"; exit 1; }
samba_ad_join || { echo "FAIL: adcli join"; exit 1; }

ADMIN=(-x -H ldap://$SAMBA_AD_DC_IP -D "Administrator@$SAMBA_AD_DOMAIN" -w "$SAMBA_AD_ADMINPASS")
SCHEMA=$(ldapsearch -LLL -x -H ldap://$SAMBA_AD_DC_IP -s base -b "" schemaNamingContext |
    sed -n 's/^schemaNamingContext: //p')
echo "# the DC's schemaNamingContext: $SCHEMA"
pas_count() { # how many of uidNumber, gidNumber the schema puts in the PAS
    ldapsearch -LLL "${ADMIN[@]}" -b "$SCHEMA" \
        "(|(lDAPDisplayName=uidNumber)(lDAPDisplayName=gidNumber))" \
        isMemberOfPartialAttributeSet 2>/dev/null | grep -ci "^isMemberOfPartialAttributeSet: TRUE"
}
BE_LOG=$LOGS/sssd_be_ad.test.log
conf() {
    rm -f "$LOGS"/*.log
    ad_write_conf -d nss 0xfff0 <<CONF
ldap_id_mapping = false
$1
CONF
    start_sssd && wait_name sssd.domain_ad_2etest 10000
}
wait_log() { # PATTERN: up to 10 s
    for _ in $(seq 100); do grep -q "$1" "$BE_LOG" && return 0; sleep 0.1; done
    return 1
}
rx_gc() { # bytes sssd_be received on its established connections to 3268
    ss -Htinp state established "( dport = :3268 )" 2>/dev/null |
        awk '/sssd_be/ { mine = 1; next }
             mine && match($0, /bytes_received:[0-9]+/) {
                 n += substr($0, RSTART + 15, RLENGTH - 15); mine = 0 }
             END { print n + 0 }'
}
SUBTREE="ldap_search_base = CN=Users,$SAMBA_AD_BASE"

# 1. As provisioned: not in the PAS.
pas=$(pas_count)
check "provisioned: uidNumber and gidNumber are not in the PAS ($pas of 2)" test "$pas" = 0
conf "$SUBTREE" || fail "sssd did not start (1)"
out=$(in_nss_ns getent passwd alice)
check "1. getent passwd alice ($out)" grep -q "^alice:\*:10001:10001:" <<< "$out"
check "  ... the GC connected" wait_log "global catalog connected (ldap://$SAMBA_AD_DC:3268)"
check "  ... the back-end found them missing from the PAS" \
    wait_log "POSIX attributes are not in the global catalog"
gc0=$(rx_gc)
out=$(in_nss_ns getent group g_posix)
gc1=$(rx_gc)
check "  ... getent group g_posix ($out)" grep -q "^g_posix:\*:10001:alice$" <<< "$out"
check "  ... and the GC was left alone ($gc0 -> $gc1 bytes)" test "$gc1" = "$gc0"

# 2. Both put in the PAS (a schema change: allowed by smb.conf, the DC restarted).
sed -i '/^\[global\]/a\
	dsdb:schema update allowed = true' "$SAMBA_AD_DIR/etc/smb.conf"
stop_sssd
samba_ad_stop
samba -s "$SAMBA_AD_DIR/etc/smb.conf" -D || { echo "FAIL: the DC did not restart"; exit 1; }
for _ in $(seq 150); do
    ldapsearch -LLL "${ADMIN[@]}" -s base -b "" dn > /dev/null 2>&1 && break
    sleep 0.2
done
for a in UidNumber GidNumber; do
    printf 'dn: CN=%s,%s\nchangetype: modify\nreplace: isMemberOfPartialAttributeSet\n%s\n\n' \
        "$a" "$SCHEMA" "isMemberOfPartialAttributeSet: TRUE"
done | ldapmodify "${ADMIN[@]}" > "$WORK/pas.log" 2>&1 || { cat "$WORK/pas.log"; fail "ldapmodify"; }
pas=$(pas_count)
check "uidNumber and gidNumber put in the PAS ($pas of 2)" test "$pas" = 2
conf "$SUBTREE" || fail "sssd did not start (2)"
out=$(in_nss_ns getent passwd alice)
check "2. search base CN=Users: getent passwd alice ($out)" grep -q "^alice:\*:10001:10001:" <<< "$out"
check "  ... the GC connected" wait_log "global catalog connected (ldap://$SAMBA_AD_DC:3268)"
check "  ... the schema read where the rootDSE says" \
    wait_log "partial attribute set from the schema at $SCHEMA\$"
check "  ... the back-end found them in the PAS" wait_log "holds uidNumber and gidNumber"
gc0=$(rx_gc)
out=$(in_nss_ns getent group g_posix)
gc1=$(rx_gc)
check "  ... getent group g_posix ($out)" grep -q "^g_posix:\*:10001:alice$" <<< "$out"
check "  ... read from the GC ($gc0 -> $gc1 bytes)" test "$gc1" -gt "$gc0"

# 3. The search base from the rootDSE: the same.
conf "" || fail "sssd did not start (3)"
out=$(in_nss_ns getent passwd alice)
check "3. search base from the rootDSE: getent passwd alice ($out)" \
    grep -q "^alice:\*:10001:10001:" <<< "$out"
check "  ... the back-end found them in the PAS" wait_log "holds uidNumber and gidNumber"
summary
