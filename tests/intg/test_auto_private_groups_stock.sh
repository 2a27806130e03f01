#!/bin/bash
# The checks of test_auto_private_groups.sh (tests/intg/mpg_cases.sh) against SSSD 2.8's own
# daemons and client library (Debian 12's packages, unpacked, run by
# tests/perf/systems/stock_sssd.sh in a private namespace), on the same directory: what
# our suite prints for auto_private_groups = false | true | hybrid is what SSSD prints.
# Inside the namespace each mode appends auto_private_groups to the runner's [domain/perf]
# (the last section), wipes SSSD's caches and restarts it.
# Usage: test_auto_private_groups_stock.sh PREFIX   (as root; 77 when SSSD cannot be had)
set -u
PREFIX=$(cd "$1" && pwd)
TOP=$(cd "$(dirname "$0")/../.." && pwd)
. "$(dirname "$0")/lib.sh"
. "$TOP/tests/lib/slapd.sh"
. "$TOP/tests/lib/ldif.sh"

RUNNER=$TOP/tests/perf/systems/stock_sssd.sh
WORK=$(mktemp -d /tmp/sssd-mpgstock.XXXXXX)
chmod 0755 "$WORK"
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
    echo "SKIP: cannot download and unpack SSSD's packages:"
    tail -n 3 "$WORK/prepare.log" | sed 's/^/    /'
    exit 77
fi

S=dc=mpg,dc=test
mkdir -p "$WORK/ldap"
{
    ldif_base $S
    ldif_user $S alice 10001 20001 /home/alice "Alice" /bin/bash
    ldif_user $S bob 10002 10002 /home/bob "Bob" /bin/bash
    ldif_user $S carol 10003 10003 /home/carol "Carol" /bin/bash
    ldif_group $S devs 20001
    ldif_group $S ops 20003 alice bob carol
    ldif_group $S carolgrp 10003
} > "$WORK/mpg.ldif"
URI=$(slapd_start "$WORK/ldap" "$WORK/mpg.ldif" $S) || exit 1

cat > "$WORK/inner.sh" <<'INNER'
set -u
TOP=$1 WORK=$2 PREFIX=$3
. "$TOP/tests/intg/lib.sh"
cp /etc/sssd/sssd.conf "$WORK/base.conf"
start_mode() {
    local p
    for p in $(pgrep -f '^/usr/(sbin/sssd|libexec/sssd/)'); do kill -TERM "$p" 2>/dev/null; done
    for _ in $(seq 50); do pgrep -f '^/usr/(sbin/sssd|libexec/sssd/)' >/dev/null || break; sleep 0.1; done
    rm -f /var/lib/sss/db/* /var/lib/sss/mc/* /run/sssd.pid
    { cat "$WORK/base.conf"; echo "auto_private_groups = $1"; } > /etc/sssd/sssd.conf
    chmod 0600 /etc/sssd/sssd.conf
    /usr/sbin/sssd -D --logger=files || { fail "[$1] SSSD did not start"; return 1; }
    for _ in $(seq 100); do [ -S /var/lib/sss/pipes/nss ] && break; sleep 0.1; done
    sleep 0.5
}
expect() {
    local mode=$1 what=$2 want=$3 out
    shift 3
    out=$(SSS_NSS_USE_MEMCACHE=NO "$@" 2>/dev/null)
    check "[SSSD 2.8, $mode] $what: '$out'" test "$out" = "$want"
}
. "$TOP/tests/intg/mpg_cases.sh"
mpg_cases
summary
INNER
bash "$RUNNER" run "$WORK" "$URI" $S rfc2307 -- bash "$WORK/inner.sh" "$TOP" "$WORK" "$PREFIX" 2>&1 |
    tee "$WORK/inner.out"
rc=${PIPESTATUS[0]}
grep -Eq '^[0-9]+ passed, [0-9]+ failed$' "$WORK/inner.out" || { echo "stock SSSD did not run"; exit 1; }
exit "$rc"
