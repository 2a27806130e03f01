#!/bin/bash
# The id type of the by-SID and original-data answers in a domain with
# auto_private_groups = true, on a real Samba AD DC (tests/lib/samba_ad.sh), id_provider = ad
# with SID mapping: SSSD 2.8's nss responder answers SSS_ID_TYPE_BOTH (3) for a user, whose
# uid is also the gid of its private group, and for that private group found by gid; a
# real group stays SSS_ID_TYPE_GID (2). The client is tests/intg/sid_client.c with our
# libsss_nss_idmap.so.0 (the type is the daemon's: the library passes it through).
# Checks: getorigbyname, getsidbyname, getsidbyuid, getsidbyid, getnamebysid, getidbysid of
# alice -> type 3; getsidbygid of her uid (her private group) -> type 3 and her SID;
# getsidbyname and getorigbyname of the group g_mpg -> type 2.
# Usage: test_ad_sid_mpg.sh PREFIX   (root; 77 without Samba's AD DC packages or cc)
set -u
PREFIX=$(cd "$1" && pwd)
TOP=$(cd "$(dirname "$0")/../.." && pwd)
AD_TEST=test_ad_sid_mpg
AD_NEEDS="cc"
. "$(dirname "$0")/ad_env.sh"

LIB=$PREFIX/lib/libsss_nss_idmap.so.0
[ -f "$LIB" ] || { echo "FAIL: $LIB is not installed"; exit 1; }
CLIENT=$WORK/sid_client
cc -O1 -o "$CLIENT" "$TOP/tests/intg/sid_client.c" -ldl || { echo "FAIL: sid_client"; exit 1; }
# The client in a mount namespace where /var/lib/sss is our prefix's (the library has
# SSSD's pipe path compiled in).
sid() {
    unshare --mount --propagation private -- bash -c '
        if [ ! -d /var/lib/sss ]; then
            mount -t tmpfs -o mode=0755,size=64k sid-var-lib /var/lib || exit 125
            mkdir /var/lib/sss || exit 125
        fi
        mount --bind "$1" /var/lib/sss || exit 125
        shift
        exec timeout 20 "$@"
    ' sid-ns "$PREFIX/var/lib/sss" "$CLIENT" "$LIB" "$@"
}

samba_ad_user alice Alice-Pass1 || exit 1
samba_ad_tool group add g_mpg > /dev/null || { echo "FAIL: group add"; exit 1; }
samba_ad_tool group addmembers g_mpg alice > /dev/null || { echo "FAIL: addmembers"; exit 1; }
samba_ad_join || { echo "FAIL: adcli join"; exit 1; }
ALICE_SID=$(samba_ad_sid alice)
G_SID=$(samba_ad_sid g_mpg)
[ -n "$ALICE_SID" ] && [ -n "$G_SID" ] || { echo "FAIL: no objectSid from the DC"; exit 1; }

ad_write_conf nss <<< "auto_private_groups = true"
start_sssd && wait_name sssd.domain_ad_2etest 10000 || fail "sssd did not start"
ALICE_UID=$(in_nss_ns id -u alice)
ALICE_GID=$(in_nss_ns id -g alice)
check "id alice: her private group is her primary group ($ALICE_UID, $ALICE_GID)" \
    test -n "$ALICE_UID" -a "$ALICE_UID" = "$ALICE_GID"

out=$(sid origbyname alice)
check "getorigbyname alice: type 3, BOTH ($(echo $out))" \
    test "$(sed -n 1,2p <<< "$out" | tr '\n' ' ')" = "rc=0 type=3 objectSIDString=$ALICE_SID "
out=$(sid sidbyname alice)
check "getsidbyname alice: type 3 ($out)" test "$out" = "rc=0 type=3 value=$ALICE_SID"
out=$(sid sidbyuid "$ALICE_UID")
check "getsidbyuid $ALICE_UID: type 3 ($out)" test "$out" = "rc=0 type=3 value=$ALICE_SID"
out=$(sid sidbyid "$ALICE_UID")
check "getsidbyid $ALICE_UID: type 3 ($out)" test "$out" = "rc=0 type=3 value=$ALICE_SID"
out=$(sid sidbygid "$ALICE_UID")
check "getsidbygid $ALICE_UID (her private group): type 3, her SID ($out)" \
    test "$out" = "rc=0 type=3 value=$ALICE_SID"
out=$(sid namebysid "$ALICE_SID")
check "getnamebysid alice's SID: type 3 ($out)" test "$out" = "rc=0 type=3 value=alice"
out=$(sid idbysid "$ALICE_SID")
check "getidbysid alice's SID: type 3, her uid ($out)" \
    test "$out" = "rc=0 type=3 value=$ALICE_UID"
out=$(sid sidbyname g_mpg)
check "getsidbyname g_mpg, a real group: type 2 ($out)" test "$out" = "rc=0 type=2 value=$G_SID"
out=$(sid origbyname g_mpg)
check "getorigbyname g_mpg: type 2 ($(echo $out))" \
    test "$(sed -n 1,2p <<< "$out" | tr '\n' ' ')" = "rc=0 type=2 objectSIDString=$G_SID "
summary
