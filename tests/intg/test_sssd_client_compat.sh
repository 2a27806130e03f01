#!/bin/bash
# SSSD's own NSS client library against our responder. Debian's libnss-sss (SSSD 2.8) is
# fetched with `apt-get download` and unpacked into a temporary directory (nothing is
# installed on the machine); getent and id then run through glibc with that library, against
# our sssd with a private slapd (contrib/demo/demo.ldif), and every answer must equal, byte
# for byte, the answer our own libnss_sss.so.2 gives. Three rounds: the default (memory cache
# and socket), socket only (SSS_NSS_USE_MEMCACHE=NO), and memory cache only (sssd_nss
# stopped with SIGSTOP, so only our mc files can answer).
#
# SSSD's library has /var/lib/sss/pipes/nss and /var/lib/sss/mc compiled in; ours uses
# $PREFIX/var/lib/sss. Each command runs in a private mount namespace (see in_compat_ns)
# where $PREFIX/var/lib/sss is bind-mounted at /var/lib/sss; nothing changes outside it.
#
# Usage: test_sssd_client_compat.sh PREFIX   (run as root; exits 77 when the package cannot
# be downloaded)
set -u
PREFIX=$(cd "$1" && pwd)
TOP=$(cd "$(dirname "$0")/../.." && pwd)
. "$(dirname "$0")/lib.sh"
. "$TOP/tests/lib/slapd.sh"

OUR_LIB=$PREFIX/lib
WORK=$(mktemp -d /tmp/sssd-compat.XXXXXX)
chmod 0755 "$WORK"      # apt's _apt user writes the download here
cleanup() {
    local nss
    nss=$(service_pid sssd_nss)
    [ -n "$nss" ] && kill -CONT "$nss" 2>/dev/null
    stop_sssd
    slapd_stop "$WORK/ldap" 2>/dev/null
    rm -rf "$WORK"
}
trap cleanup EXIT

# ---- SSSD's client library, downloaded and unpacked, never installed ----
fetch_sssd_client() {
    mkdir -p "$WORK/deb" && chmod 0755 "$WORK/deb"
    ( cd "$WORK/deb" && apt-get download libnss-sss ) >"$WORK/apt.log" 2>&1 ||
        { apt-get update >>"$WORK/apt.log" 2>&1 &&
          ( cd "$WORK/deb" && apt-get download libnss-sss ) >>"$WORK/apt.log" 2>&1; } ||
        return 1
    dpkg-deb -x "$WORK"/deb/libnss-sss_*.deb "$WORK/pkg" || return 1
    SSSD_LIB=$(dirname "$(find "$WORK/pkg" -name libnss_sss.so.2 | head -n1)")
    [ -f "$SSSD_LIB/libnss_sss.so.2" ]
}
if ! fetch_sssd_client; then
    echo "SKIP: cannot download SSSD's libnss-sss (apt-get download libnss-sss failed; no mirror?):"
    sed 's/^/    /' "$WORK/apt.log" | tail -n 5
    exit 77
fi
echo "# SSSD client: $(basename "$WORK"/deb/libnss-sss_*.deb) -> $SSSD_LIB/libnss_sss.so.2"

run_sssd_client() { in_compat_ns "$SSSD_LIB" "$@"; }
run_our_client() { in_compat_ns "$OUR_LIB" "$@"; }
. "$(dirname "$0")/compat_lookups.sh"

# ---- the directory and the suite ----
slapd_available || { echo "SKIP: slapd is not available"; exit 77; }
mkdir -p "$WORK/ldap"
URI=$(slapd_start "$WORK/ldap" "$TOP/contrib/demo/demo.ldif" dc=demo,dc=test) || exit 1

write_conf <<CONF
[sssd]
services = nss
domains = ldap.test

[domain/ldap.test]
id_provider = ldap
ldap_uri = $URI
ldap_search_base = dc=demo,dc=test
CONF
start_sssd || { fail "sssd did not start"; summary; exit 1; }

# The library glibc loads really is SSSD's (and ours for the reference runs).
in_compat_ns "$SSSD_LIB" env LD_DEBUG=libs getent passwd alice >/dev/null 2>"$WORK/ld.sssd"
in_compat_ns "$OUR_LIB" env LD_DEBUG=libs getent passwd alice >/dev/null 2>"$WORK/ld.ours"
check "glibc loads SSSD's $SSSD_LIB/libnss_sss.so.2" \
    grep -q "calling init: $SSSD_LIB/libnss_sss.so.2" "$WORK/ld.sssd"
check "glibc loads our $OUR_LIB/libnss_sss.so.2 for the reference answers" \
    grep -q "calling init: $OUR_LIB/libnss_sss.so.2" "$WORK/ld.ours"

# ---- round 1: socket only ----
ROUND=socket ENVV=(env SSS_NSS_USE_MEMCACHE=NO)
lookups

# ---- round 2: the default (memory cache first, then the socket); fills the mc files ----
ROUND=default ENVV=(env)
lookups
for f in passwd group initgroups; do
    check "memory-cache file $f exists" test -s "$PREFIX/var/lib/sss/mc/$f"
done

# ---- round 3: memory cache only: sssd_nss stopped, the socket cannot answer ----
nss=$(service_pid sssd_nss)
if [ -z "$nss" ]; then
    fail "no sssd_nss process to stop"
else
    kill -STOP "$nss"
    ROUND=memcache ENVV=(env)
    lookups mc
    # And the socket really is dead meanwhile: socket-only lookups do not answer.
    in_compat_ns "$SSSD_LIB" timeout 3 env SSS_NSS_USE_MEMCACHE=NO getent passwd alice \
        >/dev/null 2>&1; rc=$?
    check "[memcache] with sssd_nss stopped, SSSD's client over the socket times out (status $rc)" \
        test "$rc" -eq 124
    kill -CONT "$nss"
fi

summary
