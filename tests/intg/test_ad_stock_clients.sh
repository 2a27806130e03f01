#!/bin/bash
# SSSD 2.8's own client libraries against our daemons on an Active Directory domain: Debian's
# libnss-sss and libpam-sss (downloaded and unpacked, never installed) talk to our sssd_nss,
# sssd_pam and sssd_be with id_provider = ad against a real Samba AD DC (tests/lib/samba_ad.sh).
# Every lookup runs through glibc once with SSSD's libnss_sss.so.2 and once with ours, and
# must give the same status and the same bytes; every pamtester run goes once through SSSD's
# pam_sss.so and once through ours, with the same status and output (lib.sh pam_both).
#
# Directory: alice (uidNumber/gidNumber set, but ids are mapped from her SID: the AD
# default), bob (no POSIX attributes at all), g_inner {alice, bob}, g_outer {g_inner}.
# Lookups: users by name, qualified name and id; groups by name and id, the nested one with
# its members; id (initgroups); unknown names. Logins: the right AD password (auth + account),
# a wrong one, an unknown user. Two rounds: socket only, and the default (memory cache first).
#
# SSSD's libraries have /var/lib/sss compiled in: compat_lookups.sh's in_compat_ns shows
# our $PREFIX/var/lib/sss there, in a mount namespace of each command's own.
# The packages are fetched before the test enters the DC's network namespace (only lo).
# Usage: test_ad_stock_clients.sh PREFIX   (root; 77 without Samba's AD DC packages,
# pamtester, or the two packages from the mirror)
set -u
PREFIX=$(cd "$1" && pwd)
TOP=$(cd "$(dirname "$0")/../.." && pwd)
if [ -z "${SAMBA_AD_IN_NS:-}" ]; then
    . "$TOP/tests/lib/samba_ad.sh"
    reason=$(samba_ad_skip_reason)
    [ -z "$reason" ] || { echo "SKIP: $reason"; exit 77; }
    ADSTOCK_DEBS=$(mktemp -d /tmp/sssd-adstock-debs.XXXXXX)
    chmod 0755 "$ADSTOCK_DEBS"     # apt's _apt user writes the downloads here
    if ! (cd "$ADSTOCK_DEBS" && apt-get download -q libnss-sss libpam-sss) \
            > "$ADSTOCK_DEBS/apt.log" 2>&1; then
        echo "SKIP: cannot download SSSD's libnss-sss and libpam-sss (no mirror?):"
        tail -n 5 "$ADSTOCK_DEBS/apt.log" | sed 's/^/    /'
        rm -rf "$ADSTOCK_DEBS"
        exit 77
    fi
    export ADSTOCK_DEBS
fi
AD_TEST=test_ad_stock_clients
AD_NEEDS="pamtester"
. "$(dirname "$0")/ad_env.sh"
trap '_ad_env_exit; rm -rf "$ADSTOCK_DEBS"' EXIT

for deb in "$ADSTOCK_DEBS"/libnss-sss_*.deb "$ADSTOCK_DEBS"/libpam-sss_*.deb; do
    dpkg-deb -x "$deb" "$WORK/stock" || { echo "FAIL: dpkg-deb -x $deb"; exit 1; }
done
SSSD_LIB=$(dirname "$(find "$WORK/stock" -name libnss_sss.so.2 | head -n1)")
SSSD_MOD=$(find "$WORK/stock" -name pam_sss.so | head -n1)
OUR_LIB=$PREFIX/lib
[ -f "$SSSD_LIB/libnss_sss.so.2" ] && [ -n "$SSSD_MOD" ] ||
    { echo "FAIL: no libnss_sss.so.2 or pam_sss.so in the packages"; exit 1; }
[ -f "$OUR_MOD" ] || { echo "FAIL: $OUR_MOD is not installed"; exit 1; }
echo "# SSSD's clients: $(cd "$ADSTOCK_DEBS" && ls ./*.deb | tr '\n' ' ')"

run_sssd_client() { in_compat_ns "$SSSD_LIB" "$@"; }
run_our_client() { in_compat_ns "$OUR_LIB" "$@"; }
. "$(dirname "$0")/compat_lookups.sh"

samba_ad_user alice Alice-Pass1 --uid-number=10001 --gid-number=10001 \
    --unix-home=/home/alice --login-shell=/bin/bash --nis-domain=ad || exit 1
samba_ad_user bob Bob-Pass1 || exit 1
samba_ad_tool group add g_inner > /dev/null || exit 1
samba_ad_tool group add g_outer > /dev/null || exit 1
samba_ad_tool group addmembers g_inner alice,bob > /dev/null || exit 1
samba_ad_tool group addmembers g_outer g_inner > /dev/null || exit 1
samba_ad_join || { echo "FAIL: adcli join"; exit 1; }

# /etc is the namespace's overlay: the two PAM services go straight into it.
mkdir -p /etc/pam.d
for tag in ours sssd; do
    [ "$tag" = ours ] && mod=$OUR_MOD || mod=$SSSD_MOD
    printf '%s required %s\n' auth "$mod" account "$mod" > "/etc/pam.d/adstock-$tag"
done
mkdir -p "$WORK/cc"
chmod 1777 "$WORK/cc"

rm -f "$LOGS"/*.log
ad_write_conf "nss, pam" <<CONF
krb5_ccachedir = $WORK/cc/%u
CONF
start_sssd || { fail "sssd did not start"; summary; exit; }
ad_wait_pam || fail "sssd_pam or the back-end did not come up"

# The library glibc loads really is SSSD's (and ours for the reference answers).
in_compat_ns "$SSSD_LIB" env LD_DEBUG=libs getent passwd alice > /dev/null 2> "$WORK/ld.sssd"
check "glibc loads SSSD's $SSSD_LIB/libnss_sss.so.2" \
    grep -q "calling init: $SSSD_LIB/libnss_sss.so.2" "$WORK/ld.sssd"

UID_ALICE=$(run_our_client getent passwd alice | cut -d: -f3)
UID_BOB=$(run_our_client getent passwd bob | cut -d: -f3)
GID_OUTER=$(run_our_client getent group g_outer | cut -d: -f3)
check "alice and bob resolve (uids $UID_ALICE, $UID_BOB) and g_outer (gid $GID_OUTER)" \
    test -n "$UID_ALICE" -a -n "$UID_BOB" -a -n "$GID_OUTER"

ad_lookups() {
    compare "getent passwd alice" 0 grep "^alice:\*:$UID_ALICE:[0-9]+:" -- \
        "${ENVV[@]}" getent passwd alice
    compare "getent passwd alice@ad.test" 0 grep "^alice(@ad.test)?:\*:$UID_ALICE:" -- \
        "${ENVV[@]}" getent passwd alice@ad.test
    compare "getent passwd bob (no POSIX attributes)" 0 grep "^bob:\*:$UID_BOB:" -- \
        "${ENVV[@]}" getent passwd bob
    compare "getent passwd by uid" 0 grep "^bob:\*:$UID_BOB:" -- \
        "${ENVV[@]}" getent passwd "$UID_BOB"
    compare "getent group g_inner" 0 grep "^g_inner:\*:[0-9]+:(alice,bob|bob,alice)$" -- \
        "${ENVV[@]}" getent group g_inner
    compare "getent group g_outer (nested members)" 0 grep "^g_outer:\*:$GID_OUTER:.*alice" -- \
        "${ENVV[@]}" getent group g_outer
    compare "getent group by gid" 0 grep "^g_outer:" -- \
        "${ENVV[@]}" getent group "$GID_OUTER"
    compare "id alice (initgroups, nested)" 0 grep "uid=$UID_ALICE\(alice\).*\(g_outer\)" -- \
        "${ENVV[@]}" id alice
    compare "getent initgroups bob" 0 grep "^bob +[0-9 ]*$GID_OUTER" -- \
        "${ENVV[@]}" getent initgroups bob
    compare "an unknown user" 2 exact "" -- "${ENVV[@]}" getent passwd nobody-here
    compare "an unknown gid" 2 exact "" -- "${ENVV[@]}" getent group 4294000000
}
ROUND=socket ENVV=(env SSS_NSS_USE_MEMCACHE=NO)
ad_lookups
ROUND=default ENVV=(env)
ad_lookups

# ---- logins: SSSD's pam_sss.so and ours, each in the namespace that shows our sockets ----
AS=(in_compat_ns "$OUR_LIB")
pam_both "alice, the right AD password (auth + account)" 0 '%s\n' Alice-Pass1 \
    adstock-sssd adstock-ours alice authenticate acct_mgmt
check "  ... both logins left a ccache" test "$(ls "$WORK"/cc/alice 2>/dev/null | wc -l)" -ge 2
pam_both "alice, a wrong password" 1 '%s\n' Alice-Wrong9 adstock-sssd adstock-ours \
    alice authenticate
check "  ... refused as an authentication failure" grep -q "Authentication failure" <<< "$LAST_OUT"
pam_both "an unknown user" 1 '%s\n' Nobody-1 adstock-sssd adstock-ours nobody-here authenticate
unset AS
summary
