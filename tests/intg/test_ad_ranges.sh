#!/bin/bash
# Ranged attribute retrieval (MS-ADTS 3.1.1.3.1.3.3) against a real Samba AD DC
# (tests/lib/samba_ad.sh), through glibc in a mount namespace. A Windows DC sends at most
# 1,500 values of "member" and names them "member;range=0-1499"; the back-end must read
# the rest ("member;range=1500-*", ...) before it stores the group. Samba ranges only when
# the client asks for a range itself, so the back-end runs with the test hook
# SSS_TEST_LDAP_RANGE_WINDOW=N (sdap_entry_range.h): it asks "member;range=0-(N-1)" and
# then N values at a time, and Samba answers each request with a range, as Windows does.
#   1. a group of NBIG (5,000) users: `getent group` lists every one of them, and the
#      back-end's log shows the follow-ups it sent;
#   2. a group under the window ("member;range=0-*" at once) and a group whose size is a
#      multiple of the window (the last follow-up holds 0 values);
#   3. the same lists without the hook (Samba sends everything at once);
#   4. `id` of a member of the big group lists it (initgroups with the membership
#      searches, ldap_use_tokengroups = false, reads the group's ranged member too).
# Usage: test_ad_ranges.sh PREFIX   (root; 77 without Samba's AD DC packages)
set -u
PREFIX=$(cd "$1" && pwd)
TOP=$(cd "$(dirname "$0")/../.." && pwd)
AD_TEST=test_ad_ranges
. "$(dirname "$0")/ad_env.sh"
NBIG=5000
WINDOW=700

U="CN=Users,$SAMBA_AD_BASE"
{
    for i in $(seq 1 $NBIG); do
        printf 'dn: CN=rm%d,%s\nobjectClass: user\nsAMAccountName: rm%d\n\n' "$i" "$U" "$i"
    done
    printf 'dn: CN=rbig,%s\nobjectClass: group\nsAMAccountName: rbig\n' "$U"
    for i in $(seq 1 $NBIG); do printf 'member: CN=rm%d,%s\n' "$i" "$U"; done
    echo
    printf 'dn: CN=rsmall,%s\nobjectClass: group\nsAMAccountName: rsmall\n' "$U"
    for i in 1 2 3; do printf 'member: CN=rm%d,%s\n' "$i" "$U"; done
    echo
    printf 'dn: CN=rexact,%s\nobjectClass: group\nsAMAccountName: rexact\n' "$U"
    for i in $(seq 1 $((2 * WINDOW))); do printf 'member: CN=rm%d,%s\n' "$i" "$U"; done
    echo
} > "$WORK/add.ldif"
ldapadd -x -H ldap://$SAMBA_AD_DC_IP -D "Administrator@$SAMBA_AD_DOMAIN" \
    -w "$SAMBA_AD_ADMINPASS" -f "$WORK/add.ldif" > "$WORK/add.log" 2>&1 ||
    { tail -5 "$WORK/add.log"; echo "FAIL: ldapadd"; exit 1; }
samba_ad_join || { echo "FAIL: adcli join"; exit 1; }
# The DC itself ranges when asked: the hook's premise.
ranged=$(ldapsearch -LLL -x -H ldap://$SAMBA_AD_DC_IP -D "Administrator@$SAMBA_AD_DOMAIN" \
    -w "$SAMBA_AD_ADMINPASS" -b "CN=rbig,$U" -s base '(objectClass=*)' \
    "member;range=0-$((WINDOW - 1))" 2>/dev/null | grep -c "^member;range=0-$((WINDOW - 1)):")
check "Samba answers 'member;range=0-$((WINDOW - 1))' with $WINDOW values" \
    test "$ranged" -eq "$WINDOW"

conf() {
    rm -f "$LOGS"/*.log
    ad_write_conf nss <<< "ldap_use_tokengroups = false"
    start_sssd && wait_name sssd.domain_ad_2etest 10000
}
members() { # GROUP: its members, sorted, one a line
    in_nss_ns env SSS_NSS_USE_MEMCACHE=NO getent group "$1" | cut -d: -f4 | tr ',' '\n' |
        grep -v '^$' | sort
}
expect() { # N: rm1..rmN, sorted
    seq 1 "$1" | sed 's/^/rm/' | sort
}
same_list() { # GROUP N
    members "$1" > "$WORK/got"
    expect "$2" > "$WORK/want"
    cmp -s "$WORK/got" "$WORK/want"
}
followups() { grep -c "reading 'member;range=" "$LOGS/sssd_be_ad.test.log"; }

# ---- 1, 2. with the hook: Samba ranges every member request ----
export SSS_TEST_LDAP_RANGE_WINDOW=$WINDOW
conf || { fail "sssd did not start"; summary; exit; }
check "rbig lists all $NBIG members ($(members rbig | wc -l) listed)" same_list rbig $NBIG
n=$(followups)
check "the back-end read rbig in ranges ($n follow-ups, at least $((NBIG / WINDOW)))" \
    test "$n" -ge $((NBIG / WINDOW))
check "rsmall: rm1..rm3 (one range, at once)" same_list rsmall 3
check "rexact: $((2 * WINDOW)) members (a multiple of the window)" same_list rexact $((2 * WINDOW))
# ---- 4. initgroups of a member of the big group ----
id_has() { in_nss_ns id "$1" | grep -q "($2)"; }
check "id rm4321 lists rbig" id_has rm4321 rbig
stop_sssd
unset SSS_TEST_LDAP_RANGE_WINDOW

# ---- 3. without the hook: the same lists, no follow-up ----
conf || { fail "sssd did not restart"; summary; exit; }
check "no hook: rbig lists all $NBIG members" same_list rbig $NBIG
check "no hook: rexact lists $((2 * WINDOW))" same_list rexact $((2 * WINDOW))
check "no hook: no follow-up" test "$(followups)" -eq 0
stop_sssd
summary
