#!/bin/bash
# Lookups by SID (libsss_nss_idmap) against our sssd_nss and sssd_be on a real Samba AD DC
# (tests/lib/samba_ad.sh), id_provider = ad with its default ldap_id_mapping = true.
# The client is SSSD 2.8's own libsss_nss_idmap.so.0 (Debian's libsss-nss-idmap0,
# downloaded and unpacked, never installed), and then ours, each loaded by
# tests/intg/sid_client.c; SSSD's library has /var/lib/sss compiled in: a private mount
# namespace shows our $PREFIX/var/lib/sss there. The expected values come from the DC
# (objectSid read with ldapsearch and decoded here) and from glibc (`id` through our
# libnss_sss), never from the daemon's own mapping code.
# Checks: getsidbyname of a user and a group, getsidbyuid/gid/id, getnamebysid and
# getidbysid back (also for a user no lookup touched before: the back-end searches by the
# id the SID maps to), getorigbygroupname, getorigbyname of a user (objectSIDString
# first) and of a group name (falls back to the group); an unknown RID of the domain and
# a SID of an unknown domain -> not found (ENOENT), the first one kept in the negative
# cache (asked again: no second back-end request); well-known SIDs (S-1-1-0, BUILTIN, NT
# AUTHORITY, ...) answered from SSSD's table, other SIDs that are no domain's and SIDs of a
# domain no ID map holds not found, the back-end asked for none of them; a malformed
# SID -> refused with EINVAL (which SSSD's library, and ours, report as ENOENT), and
# sssd_nss still answers. sssd_nss's kept ID map follows a slice the back-end records
# later (ldap_idmap_default_domain_sid naming another domain). Then id_provider = ldap
# with ldap_id_mapping = true on the same DC: the same answers. Last, id_provider = ad
# with ldap_id_mapping = false (POSIX attributes on the DC): the SIDs come
# from the entries' objectSid stored in the cache (objectSIDString) and lookups by SID
# search objectSid: getsidbyname = ldapsearch's objectSid, getnamebysid / getidbysid
# (id = uidNumber, = id -u), a group by SID (gid = gidNumber), a user never looked up
# found by SID (the back-end's search by SID), another spelling of a SID (a leading zero),
# an unknown SID not found, well-known SIDs from the table (no request by SID), a SID of
# another domain still asked; and id_provider = ldap with ldap_schema = ad and
# ldap_id_mapping = false: the same answers.
# Usage: test_ad_sid.sh PREFIX   (root; 77 without Samba's AD DC packages or the mirror)
set -u
PREFIX=$(cd "$1" && pwd)
TOP=$(cd "$(dirname "$0")/../.." && pwd)
if [ -z "${SAMBA_AD_IN_NS:-}" ]; then
    . "$TOP/tests/lib/samba_ad.sh"
    reason=$(samba_ad_skip_reason)
    [ -z "$reason" ] || { echo "SKIP: $reason"; exit 77; }
    ADSID_DEBS=$(mktemp -d /tmp/sssd-adsid-debs.XXXXXX)
    chmod 0755 "$ADSID_DEBS"     # apt's _apt user writes the downloads here
    if ! (cd "$ADSID_DEBS" && apt-get download -q libsss-nss-idmap0) \
            > "$ADSID_DEBS/apt.log" 2>&1; then
        echo "SKIP: cannot download SSSD's libsss-nss-idmap0 (no mirror?):"
        tail -n 5 "$ADSID_DEBS/apt.log" | sed 's/^/    /'
        rm -rf "$ADSID_DEBS"
        exit 77
    fi
    export ADSID_DEBS
fi
AD_TEST=test_ad_sid
AD_NEEDS="cc objdump"
. "$(dirname "$0")/ad_env.sh"
trap '_ad_env_exit; rm -rf "$ADSID_DEBS"' EXIT

dpkg-deb -x "$ADSID_DEBS"/libsss-nss-idmap0_*.deb "$WORK/stock" ||
    { echo "FAIL: dpkg-deb -x"; exit 1; }
SSSD_IDMAP=$(find "$WORK/stock" -name libsss_nss_idmap.so.0 | head -n1)
OUR_IDMAP=$PREFIX/lib/libsss_nss_idmap.so.0
[ -n "$SSSD_IDMAP" ] || { echo "FAIL: no libsss_nss_idmap.so.0 in the package"; exit 1; }
CLIENT=$WORK/sid_client
cc -O1 -o "$CLIENT" "$TOP/tests/intg/sid_client.c" -ldl || { echo "FAIL: sid_client"; exit 1; }

# sid LIB OP KEY: the client in a mount namespace where /var/lib/sss is our prefix's.
sid() {
    unshare --mount --propagation private -- bash -c '
        if [ ! -d /var/lib/sss ]; then
            mount -t tmpfs -o mode=0755,size=64k sid-var-lib /var/lib || exit 125
            mkdir /var/lib/sss || exit 125
        fi
        mount --bind "$1" /var/lib/sss || exit 125
        shift
        exec timeout 20 "$@"
    ' sid-ns "$PREFIX/var/lib/sss" "$CLIENT" "$@"
}

samba_ad_user alice Alice-Pass1 || exit 1
samba_ad_user bob Bob-Pass1 || exit 1
samba_ad_tool group add g_sid > /dev/null || { echo "FAIL: group add"; exit 1; }
samba_ad_tool group addmembers g_sid alice > /dev/null || { echo "FAIL: addmembers"; exit 1; }
# POSIX users and a group for the ldap_id_mapping = false domain (the last part).
samba_ad_user carol Carol-Pass1 --uid-number=10201 --gid-number=10301 \
    --unix-home=/home/carol --login-shell=/bin/bash --nis-domain=ad || exit 1
samba_ad_user dave Dave-Pass1 --uid-number=10202 --gid-number=10301 \
    --unix-home=/home/dave --login-shell=/bin/bash --nis-domain=ad || exit 1
samba_ad_tool group add g_posix --gid-number=10301 --nis-domain=ad > /dev/null ||
    { echo "FAIL: group add g_posix"; exit 1; }
samba_ad_tool group addmembers g_posix carol > /dev/null || { echo "FAIL: addmembers"; exit 1; }
samba_ad_join || { echo "FAIL: adcli join"; exit 1; }
ALICE_SID=$(samba_ad_sid alice)
BOB_SID=$(samba_ad_sid bob)
G_SID=$(samba_ad_sid g_sid)
DOM_SID=${ALICE_SID%-*}
echo "# from the DC: alice $ALICE_SID, bob $BOB_SID, g_sid $G_SID"
[ -n "$ALICE_SID" ] && [ -n "$G_SID" ] || { echo "FAIL: no objectSid from the DC"; exit 1; }

write_conf <<CONF
[sssd]
domains = ad.test
services = nss
[domain/ad.test]
id_provider = ad
debug_level = 0xfff0
[nss]
debug_level = 0xfff0
CONF
start_sssd && wait_name sssd.domain_ad_2etest 10000 || fail "sssd did not start"
BE_LOG=$LOGS/sssd_be_ad.test.log
ALICE_UID=$(in_nss_ns id -u alice)
G_GID=$(in_nss_ns getent group g_sid | cut -d: -f3)
echo "# from glibc: alice uid $ALICE_UID, g_sid gid $G_GID"
[ -n "$ALICE_UID" ] && [ -n "$G_GID" ] || fail "alice or g_sid not resolved through glibc"

# The ABI: every symbol of SSSD's library, under the same version, in ours.
syms() { objdump -T "$1" | awk '$NF ~ /^sss_nss_/ { print $(NF-1), $NF }' | sort; }
missing=$(comm -23 <(syms "$SSSD_IDMAP") <(syms "$OUR_IDMAP") | tr '\n' ' ')
check "our libsss_nss_idmap.so.0 exports SSSD 2.8's $(syms "$SSSD_IDMAP" | wc -l) symbols \
under SSSD's versions (missing: ${missing:-none})" test -z "$missing" -a -f "$OUR_IDMAP"

for lib in "$SSSD_IDMAP" "$OUR_IDMAP"; do
    who=$([ "$lib" = "$SSSD_IDMAP" ] && echo "SSSD's library" || echo "our library")
    if [ ! -f "$lib" ]; then
        fail "$who: $lib is not installed"
        continue
    fi
    out=$(sid "$lib" sidbyname alice)
    check "$who: getsidbyname alice ($out)" test "$out" = "rc=0 type=1 value=$ALICE_SID"
    out=$(sid "$lib" sidbyname alice@ad.test)
    check "$who: getsidbyname alice@ad.test ($out)" test "$out" = "rc=0 type=1 value=$ALICE_SID"
    out=$(sid "$lib" sidbyname g_sid)
    check "$who: getsidbyname g_sid ($out)" test "$out" = "rc=0 type=2 value=$G_SID"
    out=$(sid "$lib" sidbyuid "$ALICE_UID")
    check "$who: getsidbyuid $ALICE_UID ($out)" test "$out" = "rc=0 type=1 value=$ALICE_SID"
    out=$(sid "$lib" sidbygid "$G_GID")
    check "$who: getsidbygid $G_GID ($out)" test "$out" = "rc=0 type=2 value=$G_SID"
    out=$(sid "$lib" sidbyid "$G_GID")
    check "$who: getsidbyid $G_GID ($out)" test "$out" = "rc=0 type=2 value=$G_SID"
    out=$(sid "$lib" namebysid "$ALICE_SID")
    check "$who: getnamebysid alice's SID ($out)" test "$out" = "rc=0 type=1 value=alice"
    out=$(sid "$lib" namebysid "$G_SID")
    check "$who: getnamebysid g_sid's SID ($out)" test "$out" = "rc=0 type=2 value=g_sid"
    out=$(sid "$lib" idbysid "$ALICE_SID")
    check "$who: getidbysid alice's SID = id -u alice ($out)" \
        test "$out" = "rc=0 type=1 value=$ALICE_UID"
    out=$(sid "$lib" idbysid "$G_SID")
    check "$who: getidbysid g_sid's SID ($out)" test "$out" = "rc=0 type=2 value=$G_GID"
    out=$(sid "$lib" origbygroupname g_sid)
    check "$who: getorigbygroupname g_sid ($(echo $out))" \
        grep -qx "objectSIDString=$G_SID" <<< "$out"
    # getorigbyname: a user's objectSIDString comes first, as SSSD sends it; a group
    # name falls back to the group.
    out=$(sid "$lib" origbyname alice)
    check "$who: getorigbyname alice: objectSIDString first ($(echo $out))" \
        test "$(sed -n 1,2p <<< "$out" | tr '\n' ' ')" = "rc=0 type=1 objectSIDString=$ALICE_SID "
    out=$(sid "$lib" origbyname g_sid)
    check "$who: getorigbyname g_sid: the group ($(echo $out))" \
        test "$(sed -n 1,2p <<< "$out" | tr '\n' ' ')" = "rc=0 type=2 objectSIDString=$G_SID "
    out=$(sid "$lib" namebysid "S-1-5-21-1-2-3-1000")
    check "$who: a SID of an unknown domain: not found ($out)" test "$out" = "rc=2 type=-1 value="
    # SSSD's library turns every error status into ENOENT (nss_status_to_errno): the
    # daemon's refusal is seen in its log.
    n0=$(grep -c "GETNAMEBYSID: refused: not a SID string" "$LOGS/sssd_nss.log")
    out=$(sid "$lib" namebysid "S-1-5-21-x")
    n1=$(grep -c "GETNAMEBYSID: refused: not a SID string" "$LOGS/sssd_nss.log")
    check "$who: a malformed SID: an error ($out), sssd_nss refused it (EINVAL)" \
        test "$out" = "rc=2 type=-1 value=" -a "$n1" = $((n0 + 1))
    out=$(sid "$lib" sidbyname alice)
    check "$who: ... and sssd_nss still answers ($out)" test "$out" = "rc=0 type=1 value=$ALICE_SID"
done

# bob: never looked up; by SID first (the back-end's by-id search), then glibc agrees.
out=$(sid "$SSSD_IDMAP" namebysid "$BOB_SID")
check "a cold user by SID: getnamebysid bob's SID ($out)" test "$out" = "rc=0 type=1 value=bob"
out=$(sid "$SSSD_IDMAP" idbysid "$BOB_SID")
bob_uid=$(in_nss_ns id -u bob)
check "  ... getidbysid = id -u bob ($out, $bob_uid)" test "$out" = "rc=0 type=1 value=$bob_uid"

# An unknown RID of the domain: not found, then answered from the negative cache.
unknown="$DOM_SID-99999"
n0=$(grep -c "getAccountInfo\|account request" "$BE_LOG")
out=$(sid "$SSSD_IDMAP" namebysid "$unknown")
check "an unknown RID of the domain: not found ($out)" test "$out" = "rc=2 type=-1 value="
n1=$(grep -c "getAccountInfo\|account request" "$BE_LOG")
out=$(sid "$SSSD_IDMAP" idbysid "$unknown")
check "  ... asked again: not found ($out)" test "$out" = "rc=2 type=-1 value="
n2=$(grep -c "getAccountInfo\|account request" "$BE_LOG")
check "  ... the back-end was asked the first time ($n0 -> $n1) only ($n1 -> $n2)" \
    test "$n1" -gt "$n0" -a "$n2" = "$n1"
# Well-known SIDs: answered from SSSD's table (a group, "name@domain" in SSSD's domain
# names, no id; getsidbyname and getorigbyname of such a name give the SID), as SSSD 2.8
# answers them; another SID that is no domain's, and a SID of a domain no ID map holds
# (another forest's): not found. The back-end is asked for none of them (its requests counted in
# its log), each asked twice.
BE_REQS="getAccountInfo\|account request"
n0=$(grep -c "$BE_REQS" "$BE_LOG")
for lib in "$SSSD_IDMAP" "$OUR_IDMAP"; do
    who=$([ "$lib" = "$SSSD_IDMAP" ] && echo "SSSD's library" || echo "our library")
    for pair in "S-1-1-0=Everyone@WORLD AUTHORITY" "S-1-5-11=Authenticated Users@NT AUTHORITY" \
            "S-1-5-18=LOCAL SYSTEM@NT AUTHORITY" "S-1-5-32-544=Administrators@BUILTIN" \
            "S-1-3-0=CREATOR OWNER@CREATOR AUTHORITY" "S-1-5-5-7-42=LOGON ID@NT AUTHORITY"; do
        out=$(sid "$lib" namebysid "${pair%%=*}")
        check "$who: getnamebysid ${pair%%=*}, well-known ($out)" \
            test "$out" = "rc=0 type=2 value=${pair#*=}"
    done
    out=$(sid "$lib" idbysid S-1-1-0)
    check "$who: getidbysid S-1-1-0: no id ($out)" test "$out" = "rc=2 type=-1 value="
    out=$(sid "$lib" sidbyname "Everyone@WORLD AUTHORITY")
    check "$who: getsidbyname Everyone@WORLD AUTHORITY ($out)" \
        test "$out" = "rc=0 type=2 value=S-1-1-0"
    out=$(sid "$lib" sidbyname "Administrators@BUILTIN")
    check "$who: getsidbyname Administrators@BUILTIN ($out)" \
        test "$out" = "rc=0 type=2 value=S-1-5-32-544"
    out=$(sid "$lib" origbyname "Everyone@WORLD AUTHORITY")
    check "$who: getorigbyname Everyone@WORLD AUTHORITY ($(echo $out))" \
        test "$(echo $out)" = "rc=0 type=2 objectSIDString=S-1-1-0"
    for s in S-1-5-32-999 S-1-5-80-1-2 "S-1-5-21-1-2-3-1000" "S-1-5-21-4-5-6-513"; do
        out=$(sid "$lib" namebysid "$s")
        check "$who: getnamebysid $s: not found ($out)" test "$out" = "rc=2 type=-1 value="
        out=$(sid "$lib" idbysid "$s")
        check "$who: getidbysid $s: not found ($out)" test "$out" = "rc=2 type=-1 value="
    done
done
n1=$(grep -c "$BE_REQS" "$BE_LOG")
check "  ... well-known and foreign SIDs: no back-end request ($n0 -> $n1)" test "$n1" = "$n0"
out=$(sid "$SSSD_IDMAP" namebysid "$unknown")
n2=$(grep -c "$BE_REQS" "$BE_LOG")
check "  ... and sssd_nss still answers by SID ($out), from the negative cache ($n1 -> $n2)" \
    test "$out" = "rc=2 type=-1 value=" -a "$n2" = "$n1"
out=$(sid "$SSSD_IDMAP" namebysid "$BOB_SID")
check "  ... bob by SID ($out)" test "$out" = "rc=0 type=1 value=bob"

# sssd_nss keeps the ID maps between requests and follows the slices the cache records:
# with ldap_idmap_default_domain_sid naming another domain, the map first holds only that
# one, and alice's SID is of no domain it holds (not found, no back-end request); once a
# lookup made the back-end record the DC's domain, the next request by SID finds her.
write_conf <<CONF
[sssd]
domains = ad.test
services = nss
[domain/ad.test]
id_provider = ad
ldap_idmap_default_domain_sid = S-1-5-21-7-8-9
debug_level = 0xfff0
[nss]
debug_level = 0xfff0
CONF
start_sssd && wait_name sssd.domain_ad_2etest 10000 ||
    fail "sssd did not start (ldap_idmap_default_domain_sid)"
n0=$(grep -c "$BE_REQS" "$BE_LOG")
out=$(sid "$SSSD_IDMAP" namebysid "$ALICE_SID")
n1=$(grep -c "$BE_REQS" "$BE_LOG")
check "kept ID map: alice's SID before the back-end met her domain: not found ($out), \
no back-end request ($n0 -> $n1)" test "$out" = "rc=2 type=-1 value=" -a "$n1" = "$n0"
uid=$(in_nss_ns id -u alice)
out=$(sid "$SSSD_IDMAP" namebysid "$ALICE_SID")
check "  ... after id -u alice ($uid): getnamebysid finds her ($out)" \
    test "$out" = "rc=0 type=1 value=alice"
out=$(sid "$SSSD_IDMAP" idbysid "$ALICE_SID")
check "  ... getidbysid = id -u alice ($out)" test "$out" = "rc=0 type=1 value=$uid" -a -n "$uid"

# id_provider = ldap with ldap_id_mapping = true (objectSid read, ids mapped), on the same
# DC: the same answers through SSSD's library.
write_conf <<CONF
[sssd]
domains = corp
services = nss
[domain/corp]
id_provider = ldap
ldap_uri = ldap://$SAMBA_AD_DC
ldap_schema = ad
ldap_id_mapping = true
ldap_search_base = $SAMBA_AD_BASE
ldap_sasl_mech = GSSAPI
ldap_sasl_authid = CLIENT\$
krb5_realm = $SAMBA_AD_REALM
debug_level = 0xfff0
[nss]
debug_level = 0xfff0
CONF
start_sssd && wait_name sssd.domain_corp 10000 || fail "sssd did not start (id_provider = ldap)"
uid=$(in_nss_ns id -u alice)
out=$(sid "$SSSD_IDMAP" sidbyname alice)
check "id_provider = ldap, ldap_id_mapping: getsidbyname alice ($out)" \
    test "$out" = "rc=0 type=1 value=$ALICE_SID"
out=$(sid "$SSSD_IDMAP" idbysid "$G_SID")
gid=$(in_nss_ns getent group g_sid | cut -d: -f3)
check "  ... getidbysid g_sid's SID = getent group's gid ($out, $gid)" \
    test "$out" = "rc=0 type=2 value=$gid" -a -n "$gid"
out=$(sid "$SSSD_IDMAP" namebysid "$BOB_SID")
check "  ... getnamebysid bob's SID ($out)" test "$out" = "rc=0 type=1 value=bob"
out=$(sid "$SSSD_IDMAP" sidbyuid "$uid")
check "  ... getsidbyuid $uid ($out)" test "$out" = "rc=0 type=1 value=$ALICE_SID"

# id_provider = ad, ldap_id_mapping = false: SIDs from the stored objectSid.
CAROL_SID=$(samba_ad_sid carol)
DAVE_SID=$(samba_ad_sid dave)
GP_SID=$(samba_ad_sid g_posix)
echo "# from the DC: carol $CAROL_SID, dave $DAVE_SID, g_posix $GP_SID"
write_conf <<CONF
[sssd]
domains = ad.test
services = nss
[domain/ad.test]
id_provider = ad
ldap_id_mapping = false
debug_level = 0xfff0
[nss]
debug_level = 0xfff0
CONF
start_sssd && wait_name sssd.domain_ad_2etest 10000 ||
    fail "sssd did not start (ldap_id_mapping = false)"
BE_LOG=$LOGS/sssd_be_ad.test.log
uid=$(in_nss_ns id -u carol)
check "ldap_id_mapping = false: id -u carol is its uidNumber ($uid)" test "$uid" = 10201
for lib in "$SSSD_IDMAP" "$OUR_IDMAP"; do
    who=$([ "$lib" = "$SSSD_IDMAP" ] && echo "SSSD's library" || echo "our library")
    out=$(sid "$lib" sidbyname carol)
    check "no id mapping, $who: getsidbyname carol = its objectSid ($out)" \
        test "$out" = "rc=0 type=1 value=$CAROL_SID" -a -n "$CAROL_SID"
    out=$(sid "$lib" sidbyuid 10201)
    check "no id mapping, $who: getsidbyuid 10201 ($out)" \
        test "$out" = "rc=0 type=1 value=$CAROL_SID"
    out=$(sid "$lib" namebysid "$CAROL_SID")
    check "no id mapping, $who: getnamebysid carol's SID ($out)" \
        test "$out" = "rc=0 type=1 value=carol"
    out=$(sid "$lib" idbysid "$CAROL_SID")
    check "no id mapping, $who: getidbysid carol's SID = uidNumber ($out)" \
        test "$out" = "rc=0 type=1 value=10201"
    out=$(sid "$lib" namebysid "$GP_SID")
    check "no id mapping, $who: getnamebysid g_posix's SID ($out)" \
        test "$out" = "rc=0 type=2 value=g_posix"
    out=$(sid "$lib" idbysid "$GP_SID")
    check "no id mapping, $who: getidbysid g_posix's SID = gidNumber ($out)" \
        test "$out" = "rc=0 type=2 value=10301"
    out=$(sid "$lib" sidbyname g_posix)
    check "no id mapping, $who: getsidbyname g_posix ($out)" \
        test "$out" = "rc=0 type=2 value=$GP_SID"
done
# Another spelling of carol's SID (a leading zero in the RID): the same object.
out=$(sid "$SSSD_IDMAP" namebysid "${CAROL_SID%-*}-0${CAROL_SID##*-}")
check "no id mapping: carol's SID written with a leading zero ($out)" \
    test "$out" = "rc=0 type=1 value=carol"
# dave: never looked up; found by SID (the back-end searches objectSid), glibc agrees.
n0=$(grep -c "secid=" "$BE_LOG")
out=$(sid "$SSSD_IDMAP" namebysid "$DAVE_SID")
n1=$(grep -c "secid=" "$BE_LOG")
check "no id mapping: a cold user by SID: getnamebysid dave's SID ($out), \
the back-end asked by SID ($n0 -> $n1)" test "$out" = "rc=0 type=1 value=dave" -a "$n1" -gt "$n0"
out=$(sid "$SSSD_IDMAP" idbysid "$DAVE_SID")
check "  ... getidbysid = id -u dave ($out, $(in_nss_ns id -u dave))" \
    test "$out" = "rc=0 type=1 value=10202" -a "$(in_nss_ns id -u dave)" = 10202
n0=$(grep -c "secid=" "$BE_LOG")
out=$(sid "$SSSD_IDMAP" namebysid "${CAROL_SID%-*}-99998")
check "no id mapping: an unknown SID of the domain: not found ($out)" \
    test "$out" = "rc=2 type=-1 value="
n1=$(grep -c "secid=" "$BE_LOG")
out=$(sid "$SSSD_IDMAP" idbysid "${CAROL_SID%-*}-99998")
n2=$(grep -c "secid=" "$BE_LOG")
check "  ... asked again: not found ($out), the back-end asked the first time ($n0 -> $n1) \
only ($n1 -> $n2)" test "$out" = "rc=2 type=-1 value=" -a "$n1" -gt "$n0" -a "$n2" = "$n1"

# Without ID mapping too: well-known SIDs from the table, no back-end request; a SID of
# another domain is still asked (no map says which domains are ours).
n0=$(grep -c "secid=" "$BE_LOG")
out=$(sid "$SSSD_IDMAP" namebysid S-1-5-32-545)
check "no id mapping: getnamebysid S-1-5-32-545, well-known ($out)" \
    test "$out" = "rc=0 type=2 value=Users@BUILTIN"
out=$(sid "$SSSD_IDMAP" namebysid S-1-5-32-999)
check "no id mapping: getnamebysid S-1-5-32-999: not found ($out)" \
    test "$out" = "rc=2 type=-1 value="
n1=$(grep -c "secid=" "$BE_LOG")
check "  ... no back-end request by SID ($n0 -> $n1)" test "$n1" = "$n0"
out=$(sid "$SSSD_IDMAP" namebysid "S-1-5-21-4-5-6-1000")
n2=$(grep -c "secid=" "$BE_LOG")
check "no id mapping: a SID of another domain: not found ($out), asked ($n1 -> $n2)" \
    test "$out" = "rc=2 type=-1 value=" -a "$n2" -gt "$n1"

# id_provider = ldap, ldap_schema = ad, ldap_id_mapping = false (ldap_user_objectsid and
# ldap_group_objectsid from the schema's defaults): the same answers.
write_conf <<CONF
[sssd]
domains = corp
services = nss
[domain/corp]
id_provider = ldap
ldap_uri = ldap://$SAMBA_AD_DC
ldap_schema = ad
ldap_id_mapping = false
ldap_search_base = $SAMBA_AD_BASE
ldap_sasl_mech = GSSAPI
ldap_sasl_authid = CLIENT\$
krb5_realm = $SAMBA_AD_REALM
debug_level = 0xfff0
[nss]
debug_level = 0xfff0
CONF
start_sssd && wait_name sssd.domain_corp 10000 ||
    fail "sssd did not start (id_provider = ldap, ldap_id_mapping = false)"
out=$(sid "$SSSD_IDMAP" namebysid "$DAVE_SID")
check "id_provider = ldap, no id mapping: getnamebysid dave's SID, cold ($out)" \
    test "$out" = "rc=0 type=1 value=dave"
out=$(sid "$SSSD_IDMAP" idbysid "$GP_SID")
check "  ... getidbysid g_posix's SID = gidNumber ($out)" test "$out" = "rc=0 type=2 value=10301"
out=$(sid "$SSSD_IDMAP" sidbyname carol)
check "  ... getsidbyname carol ($out)" test "$out" = "rc=0 type=1 value=$CAROL_SID"
summary
