#!/bin/bash
# Netgroups across implementations, on the directory of netgr_data.sh:
#   1. SSSD 2.8's own libnss_sss.so.2 (Debian's libnss-sss, downloaded and unpacked, never
#      installed) against our daemons: `getent netgroup` prints exactly what glibc prints
#      with our library, and innetgr() from 16 threads is always right;
#   2. our libnss_sss.so.2 against SSSD 2.8's own daemons (tests/perf/systems/stock_sssd.sh
#      runs them in a private namespace): the same lines, the same innetgr() answers.
# SSSD's library has /var/lib/sss compiled in, ours $PREFIX/var/lib/sss: each run binds the
# serving side's directory over the other inside a private mount namespace; nothing
# changes outside it. A part whose packages cannot be had is skipped with the reason.
# Usage: test_netgroups_compat.sh PREFIX   (run as root)
set -u
PREFIX=$(cd "$1" && pwd)
TOP=$(cd "$(dirname "$0")/../.." && pwd)
TEST_NAME=netgrcompat
. "$TOP/tests/intg/slapd_env.sh"

OUR_LIB=$PREFIX/lib
RUNNER=$TOP/tests/perf/systems/stock_sssd.sh
chmod 0755 "$WORK"      # apt's _apt user writes the downloads here
command -v cc >/dev/null || { echo "SKIP: no C compiler for netgr_threads.c"; exit 77; }
cc -O1 -pthread -o "$WORK/netgr_threads" "$(dirname "$0")/netgr_threads.c" ||
    { fail "netgr_threads.c does not build"; summary; exit 1; }

S=dc=ngc,dc=test
. "$(dirname "$0")/netgr_data.sh"
mkdir -p "$WORK/ldap"
netgr_ldif > "$WORK/ng.ldif"
URI=$(slapd_start "$WORK/ldap" "$WORK/ng.ldif" $S) || exit 1

# in_ns LIBDIR SSS_DIR COMMAND...: COMMAND through glibc with nsswitch "netgroup: sss", the
# libnss_sss.so.2 of LIBDIR, and SSS_DIR visible at SSSD's /var/lib/sss and at ours.
in_ns() {
    local lib=$1 sss=$2 dir rc
    shift 2
    dir=$(mktemp -d /tmp/sssd-netgrns.XXXXXX)
    printf '%s\n' "passwd: files" "group: files" "netgroup: sss" "hosts: files" \
        > "$dir/nsswitch.conf"
    unshare --mount --propagation private -- bash -c '
        conf=$1 sss=$2 lib=$3 ours=$4
        shift 4
        mount --bind "$conf" /etc/nsswitch.conf || exit 125
        if [ ! -d /var/lib/sss ]; then
            mount -t tmpfs -o mode=0755,size=64k netgr-var-lib /var/lib || exit 125
            mkdir /var/lib/sss || exit 125
        fi
        [ "$sss" = /var/lib/sss ] || mount --bind "$sss" /var/lib/sss || exit 125
        [ "$sss" = "$ours" ] || mount --bind "$sss" "$ours" || exit 125
        exec env LD_LIBRARY_PATH="$lib" "$@"
    ' netgr-ns "$dir/nsswitch.conf" "$sss" "$lib" "$PREFIX/var/lib/sss" "$@"
    rc=$?
    rm -rf "$dir"
    return $rc
}

# compare TAG LIB_A LIB_B SSS_DIR: every netgroup's getent line through both libraries,
# equal to each other and to what glibc must print; innetgr() from 16 threads with LIB_A.
compare() {
    local tag=$1 a=$2 b=$3 sss=$4 ng out_a out_b rc_a rc_b
    for ng in ng_a ng_b ng_c ng_empty ng_missing; do
        out_a=$(in_ns "$a" "$sss" getent netgroup $ng); rc_a=$?
        out_b=$(in_ns "$b" "$sss" getent netgroup $ng); rc_b=$?
        check "[$tag] getent netgroup $ng: '$out_a' (status $rc_a) = '$out_b' (status $rc_b)" \
            test "$out_a" = "$out_b" -a "$rc_a" = "$rc_b" -a "$out_a" = "${NETGR_GETENT[$ng]}"
    done
    out_a=$(in_ns "$a" "$sss" "$WORK/netgr_threads" 16 40 "${NETGR_CHECKS[@]}" 2>&1)
    check "[$tag] innetgr() from 16 threads, 40 rounds: $out_a" test $? -eq 0
}

# ---- 1. SSSD's client library against our daemons ----
fetch_sssd_client() {
    mkdir -p "$WORK/deb" && chmod 0755 "$WORK/deb"
    ( cd "$WORK/deb" && apt-get download libnss-sss ) >"$WORK/apt.log" 2>&1 || return 1
    dpkg-deb -x "$WORK"/deb/libnss-sss_*.deb "$WORK/pkg" || return 1
    SSSD_LIB=$(dirname "$(find "$WORK/pkg" -name libnss_sss.so.2 | head -n1)")
    [ -f "$SSSD_LIB/libnss_sss.so.2" ]
}
if fetch_sssd_client; then
    echo "# SSSD client: $(basename "$WORK"/deb/libnss-sss_*.deb)"
    write_conf <<CONF
[sssd]
services = nss
domains = ngc.test

[domain/ngc.test]
id_provider = ldap
ldap_uri = $URI
ldap_search_base = $S
CONF
    start_sssd || { fail "sssd did not start"; summary; exit 1; }
    wait_name sssd.nss 5000
    in_ns "$SSSD_LIB" "$PREFIX/var/lib/sss" env LD_DEBUG=libs getent netgroup ng_a \
        > /dev/null 2> "$WORK/ld.sssd"
    check "glibc loads SSSD's libnss_sss.so.2" \
        grep -q "calling init: $SSSD_LIB/libnss_sss.so.2" "$WORK/ld.sssd"
    compare "SSSD client, our daemons" "$SSSD_LIB" "$OUR_LIB" "$PREFIX/var/lib/sss"
    stop_sssd
else
    echo "# SKIP part 1: apt-get download libnss-sss failed:"
    tail -n 3 "$WORK/apt.log" | sed 's/^/#     /'
fi

# ---- 2. our client library against SSSD's daemons ----
if why=$(bash "$RUNNER" available 2>&1) &&
        bash "$RUNNER" prepare "$WORK" > "$WORK/prepare.log" 2>&1; then
    cat > "$WORK/inner.sh" <<'INNER'
set -u
PREFIX=$1 TOP=$2 WORK=$3 S=$4
. "$TOP/tests/intg/lib.sh"
. "$TOP/tests/lib/ldif.sh"
. "$TOP/tests/intg/netgr_data.sh"
eval "$(sed -n '/^in_ns() {/,/^}/p; /^compare() {/,/^}/p' "$TOP/tests/intg/test_netgroups_compat.sh")"
check "the daemon answering is SSSD's own sssd_nss" bash -c 'pgrep -f "^/usr/libexec/sssd/sssd_nss" > /dev/null'
SSSD_MOD=$(dirname "$LOAD_NSS_MODULE")
compare "our client, SSSD's daemons" "$PREFIX/lib" "$SSSD_MOD" /var/lib/sss
summary
INNER
    bash "$RUNNER" run "$WORK" "$URI" $S rfc2307 -- \
        bash "$WORK/inner.sh" "$PREFIX" "$TOP" "$WORK" $S 2>&1 | tee "$WORK/inner.out"
    if ! grep -Eq '^[0-9]+ passed, [0-9]+ failed$' "$WORK/inner.out"; then
        fail "stock SSSD did not run"
    else
        PASS=$((PASS + $(sed -nE 's/^([0-9]+) passed, [0-9]+ failed$/\1/p' "$WORK/inner.out")))
        FAIL=$((FAIL + $(sed -nE 's/^[0-9]+ passed, ([0-9]+) failed$/\1/p' "$WORK/inner.out")))
    fi
else
    echo "# SKIP part 2: stock SSSD cannot run here: ${why:-$(tail -n 3 "$WORK/prepare.log")}"
fi
[ $((PASS + FAIL)) -gt 0 ] || { echo "SKIP: neither SSSD's client nor its daemons available"; exit 77; }
summary
