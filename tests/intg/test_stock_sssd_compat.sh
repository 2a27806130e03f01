#!/bin/bash
# Our NSS client library against SSSD's own daemons: Debian 12's stock SSSD 2.8 (packages
# downloaded and unpacked, never installed; tests/perf/systems/stock_sssd.sh runs it in a
# private mount namespace) serves a private slapd (contrib/demo/demo.ldif), and getent and id
# run through glibc once with SSSD's libnss_sss.so.2 and once with ours. Every answer must be
# byte for byte the same. Three rounds: socket only (SSS_NSS_USE_MEMCACHE=NO), the default
# (memory cache, then socket), and memory cache only (SSSD's sssd_nss stopped with SIGSTOP,
# so our library answers from the mc files SSSD's responder wrote).
#
# Our library has $PREFIX/var/lib/sss compiled in, SSSD's daemons /var/lib/sss: inside the
# namespace SSSD's directory is bind-mounted over ours; nothing changes outside it.
# This is the mirror of test_sssd_client_compat.sh (SSSD's client against our daemons).
#
# Usage: test_stock_sssd_compat.sh PREFIX   (as root; exits 77 when SSSD's packages cannot
# be downloaded)
set -u
PREFIX=$(cd "$1" && pwd)
TOP=$(cd "$(dirname "$0")/../.." && pwd)
. "$(dirname "$0")/lib.sh"
. "$TOP/tests/lib/slapd.sh"

RUNNER=$TOP/tests/perf/systems/stock_sssd.sh
WORK=$(mktemp -d /tmp/sssd-stockcompat.XXXXXX)
chmod 0755 "$WORK"      # apt's _apt user writes the downloads here
cleanup() {
    slapd_stop "$WORK/ldap" 2>/dev/null
    rm -rf "$WORK"
}
trap cleanup EXIT

slapd_available || { echo "SKIP: slapd is not available"; exit 77; }
if ! why=$(bash "$RUNNER" available 2>&1); then
    echo "SKIP: stock SSSD cannot run here: $why"
    exit 77
fi
if ! bash "$RUNNER" prepare "$WORK" > "$WORK/prepare.log" 2>&1; then
    echo "SKIP: cannot download and unpack SSSD's packages (no mirror?):"
    tail -n 5 "$WORK/prepare.log" | sed 's/^/    /'
    exit 77
fi

mkdir -p "$WORK/ldap"
URI=$(slapd_start "$WORK/ldap" "$TOP/contrib/demo/demo.ldif" dc=demo,dc=test) || exit 1

# The comparisons, run inside the runner's namespace with SSSD started. Prints ok/FAIL lines
# and the "N passed, M failed" summary the suite counts.
cat > "$WORK/inner.sh" <<'INNER'
set -u
PREFIX=$1 TOP=$2 WORK=$3
. "$TOP/tests/intg/lib.sh"
OUR_LIB=$PREFIX/lib
mkdir -p "$PREFIX/var/lib/sss"
mount --bind /var/lib/sss "$PREFIX/var/lib/sss" || { fail "bind-mount SSSD's /var/lib/sss"; summary; exit; }

# run_with LIB COMMAND...: LIB "sssd" = glibc's own search (SSSD's library in /usr), else
# that directory first.
run_with() {
    local lib=$1
    shift
    if [ "$lib" = sssd ]; then
        "$@"
    else
        LD_LIBRARY_PATH=$lib "$@"
    fi
}
run_sssd_client() { run_with sssd "$@"; }
run_our_client() { run_with "$OUR_LIB" "$@"; }
. "$TOP/tests/intg/compat_lookups.sh"

# Which library glibc loads in each case.
run_with sssd env LD_DEBUG=libs getent passwd alice >/dev/null 2>"$WORK/ld.sssd"
run_with "$OUR_LIB" env LD_DEBUG=libs getent passwd alice >/dev/null 2>"$WORK/ld.ours"
# (merged /usr: glibc may name it by /lib/..., the same file)
loaded=$(sed -n 's/.*calling init: \(.*libnss_sss\.so\.2\)$/\1/p' "$WORK/ld.sssd" | head -n1)
check "glibc loads SSSD's $LOAD_NSS_MODULE (as ${loaded:-nothing})" \
    test -n "$loaded" -a "$(readlink -f "${loaded:-/nonexistent}")" = "$(readlink -f "$LOAD_NSS_MODULE")"
check "glibc loads our $OUR_LIB/libnss_sss.so.2" \
    grep -q "calling init: $OUR_LIB/libnss_sss.so.2" "$WORK/ld.ours"
check "the daemon answering is SSSD's own sssd_nss" pgrep -f "^/usr/libexec/sssd/sssd_nss" >/dev/null

ROUND=socket ENVV=(env SSS_NSS_USE_MEMCACHE=NO)
lookups
ROUND=default ENVV=(env)
lookups
for f in passwd group initgroups; do
    check "SSSD wrote its memory-cache file $f" test -s "/var/lib/sss/mc/$f"
done

nss=$(pgrep -f '^/usr/libexec/sssd/sssd_nss' | head -n1)
if [ -z "$nss" ]; then
    fail "no SSSD sssd_nss process to stop"
else
    kill -STOP "$nss"
    ROUND=memcache ENVV=(env)
    lookups mc
    LD_LIBRARY_PATH=$OUR_LIB timeout 3 env SSS_NSS_USE_MEMCACHE=NO getent passwd alice \
        >/dev/null 2>&1; rc=$?
    check "[memcache] with SSSD's sssd_nss stopped, our client over the socket times out (status $rc)" \
        test "$rc" -eq 124
    kill -CONT "$nss"
fi
summary
INNER

bash "$RUNNER" run "$WORK" "$URI" dc=demo,dc=test rfc2307 -- \
    bash "$WORK/inner.sh" "$PREFIX" "$TOP" "$WORK" 2>&1 | tee "$WORK/inner.out"
rc=${PIPESTATUS[0]}
if ! grep -Eq '^[0-9]+ passed, [0-9]+ failed$' "$WORK/inner.out"; then
    fail "stock SSSD did not run (runner status $rc)"
    summary
    exit 1
fi
exit "$rc"
