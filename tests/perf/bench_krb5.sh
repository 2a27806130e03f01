#!/bin/bash
# Kerberos login benchmark, side by side (issue 13's "Kerberos login, online, p50" with stock
# SSSD 2.8 in the same run; prints the figures, never fails on timing): ours and Debian's
# stock SSSD with sssd-krb5 log in through their own pam_sss.so against one private MIT KDC
# (tests/lib/krb5kdc.sh) with identities from one private slapd (tests/lib/slapd.sh), both
# on loopback. Both systems get the same sssd.conf (id_provider = ldap, auth_provider = krb5,
# krb5_server naming the KDC, a fresh FILE: ccache per login, cache_credentials = false) and
# the same /etc/krb5.conf; each runs in its own namespace (tests/perf/systems) and
# bench_krb5_scenarios.sh takes the figures. `make perf` runs it (PERF_KRB5=1, the default)
# and docs/PERFORMANCE.md shows them; by hand:
#   bench_krb5.sh PREFIX SSS_LOAD OUTDIR      (root; 77 without the MIT KDC or slapd)
# OUTDIR gets SYS/*.json (one sss_load result per figure and run) and skipped.txt.
# Knobs: KRB5_RUNS (3), KRB5_LOGINS per figure (200), KRB5_SYSTEMS ("ours stock_sssd"),
# KRB5_SYSW (/tmp/bench_krb5_systems: the systems' unpacked packages and run directories).
# tests/perf/bench_krb5_login.sh is ours alone, with CPU per process, the 20-worker figure
# and sssd_be's loop stalls.
set -u
PREFIX=$(cd "$1" && pwd)
LOAD_TOOL=$(cd "$(dirname "$2")" && pwd)/$(basename "$2")
mkdir -p "$3" || exit 1
OUTDIR=$(cd "$3" && pwd)
TOP=$(cd "$(dirname "$0")/../.." && pwd)
HERE=$TOP/tests/perf
. "$TOP/tests/lib/slapd.sh"
. "$TOP/tests/lib/krb5kdc.sh"
. "$HERE/side_by_side.sh"
slapd_available || { echo "SKIP: slapd is not available"; exit 77; }
krb5kdc_available || { echo "SKIP: the MIT KDC is not installed"; exit 77; }
[ -x "$LOAD_TOOL" ] || { echo "SKIP: no sss_load at $LOAD_TOOL"; exit 77; }
SYSTEMS=${KRB5_SYSTEMS:-ours stock_sssd}
export KRB5_SYSW=${KRB5_SYSW:-/tmp/bench_krb5_systems}
export STOCK_SSSD_EXTRA_PACKAGES="sssd-krb5 sssd-krb5-common"
# A private mount namespace for the /etc/krb5.conf both systems read.
if [ -z "${BENCH_KRB5_IN_NS:-}" ]; then
    exec unshare --mount --propagation private -- env BENCH_KRB5_IN_NS=1 \
        bash "$0" "$PREFIX" "$LOAD_TOOL" "$OUTDIR"
fi

export KRB5_RUNS=${KRB5_RUNS:-3} KRB5_LOGINS=${KRB5_LOGINS:-200}
export KRB5_USER=alice KRB5_PASSWORD=Alice-Krb1
REALM=KRB.TEST
SUFFIX=dc=krb,dc=test
WORK=$(mktemp -d /tmp/bench_krb5.XXXXXX)
chmod 0755 "$WORK"
trap 'krb5kdc_stop "$WORK/kdc"; slapd_stop "$WORK/ldap" 2> /dev/null; rm -rf "$WORK"' EXIT

krb5kdc_start "$WORK/kdc" "$REALM" || { echo "the KDC did not start"; exit 1; }
krb5kdc_addprinc "$WORK/kdc" "$KRB5_USER" "$KRB5_PASSWORD" || exit 1
KDC_PORT=$(cat "$WORK/kdc/kdc_port")
{
    printf 'dn: %s\nobjectClass: dcObject\nobjectClass: organization\no: Krb\ndc: krb\n\n' \
        "$SUFFIX"
    printf 'dn: ou=People,%s\nobjectClass: organizationalUnit\nou: People\n\n' "$SUFFIX"
    # The LDAP password differs from the Kerberos one: a login that succeeds came from the KDC.
    printf 'dn: uid=%s,ou=People,%s\nobjectClass: account\nobjectClass: posixAccount\n' \
        "$KRB5_USER" "$SUFFIX"
    printf 'uid: %s\ncn: %s\nuidNumber: 10001\ngidNumber: 10001\n' "$KRB5_USER" "$KRB5_USER"
    printf 'homeDirectory: /home/%s\nloginShell: /bin/sh\nuserPassword: not-the-krb5-one\n\n' \
        "$KRB5_USER"
} > "$WORK/krb.ldif"
mkdir -p "$WORK/ldap"
URI=$(slapd_start "$WORK/ldap" "$WORK/krb.ldif" "$SUFFIX") || { echo "slapd did not start"; exit 1; }

# What a client of this realm has in /etc/krb5.conf: the realm, no DNS; the KDC comes from
# krb5_server (each system hands it to libkrb5 its own way: stock SSSD's locator plugin,
# our KDC list file).
cat > "$WORK/krb5.conf" <<EOF
[libdefaults]
    default_realm = $REALM
    dns_lookup_kdc = false
    dns_lookup_realm = false
    rdns = false
EOF
if [ -e /etc/krb5.conf ]; then
    mount --bind "$WORK/krb5.conf" /etc/krb5.conf || { echo "cannot bind /etc/krb5.conf"; exit 1; }
else
    mkdir -p "$WORK/etc-up" "$WORK/etc-work"
    cp "$WORK/krb5.conf" "$WORK/etc-up/krb5.conf"
    mount -t overlay overlay -o "lowerdir=/etc,upperdir=$WORK/etc-up,workdir=$WORK/etc-work" \
        /etc || { echo "cannot overlay /etc"; exit 1; }
fi
mkdir -p "$WORK/cc"
chmod 1777 "$WORK/cc"

cat > "$WORK/sssd.conf" <<EOF
[sssd]
services = nss, pam
domains = krb
[nss]
debug_level = 0
[pam]
debug_level = 0
[domain/krb]
debug_level = 0
id_provider = ldap
ldap_uri = $URI
ldap_search_base = $SUFFIX
ldap_schema = rfc2307
auth_provider = krb5
access_provider = permit
krb5_realm = $REALM
krb5_server = 127.0.0.1:$KDC_PORT
krb5_ccachedir = $WORK/cc
krb5_ccname_template = FILE:%d/krb5cc_%U_XXXXXX
cache_credentials = false
EOF
export PERF_SSSD_CONF=$WORK/sssd.conf
side_by_side "$SYSTEMS" "$KRB5_SYSW" "$URI" "$SUFFIX" "$KRB5_RUNS" "$OUTDIR" \
    "$HERE/bench_krb5_scenarios.sh"
python3 "$HERE/perf_report.py" krb5 "$OUTDIR"
