#!/bin/bash
# Starts the suite on a demo directory and shows real lookups. Everything lives in the
# checkout: a private slapd with contrib/demo/demo.ldif on a loopback port, our sssd in the
# prefix ./_demo, and getent/id run in a private mount namespace whose nsswitch.conf asks
# "sss" (the machine's own /etc/nsswitch.conf is not touched). Then a PAM login: pamtester
# with our pam_sss.so authenticates alice (password Demo-Alice1, StartTLS to the demo slapd
# with a throwaway CA) in a namespace whose /etc/pam.d is a private tmpfs.
#   sudo ./contrib/demo.sh         build, start, show
#   sudo ./contrib/demo.sh stop    stop sssd and slapd
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
prefix=$top/_demo
conf=$prefix/etc/sssd/sssd.conf
bus=unix:path=$prefix/var/lib/sss/pipes/private/sbus-master
ldapdir=$prefix/slapd

if [ "$(id -u)" -ne 0 ]; then
    echo "demo.sh: run as root (the suite, its bus and slapd run as root)" >&2
    exit 1
fi
. "$top/tests/lib/slapd.sh"
. "$top/tests/lib/tls_certs.sh"
stop_all() {
    local pid
    pid=$(cat "$prefix/var/run/sssd.pid" 2>/dev/null || true)
    if [ -n "$pid" ] && kill "$pid" 2>/dev/null; then
        echo "stopped sssd (pid $pid)"
    fi
    if [ -f "$ldapdir/slapd.pid" ]; then
        slapd_stop "$ldapdir" && echo "stopped the demo slapd"
    fi
    return 0
}
if [ "${1:-}" = stop ]; then
    stop_all
    exit 0
fi

"$top/tests/install-deps.sh"
cd "$top"
[ -x configure ] || ./autogen.sh > /dev/null
mkdir -p build/demo && cd build/demo
[ -f Makefile ] || ../../configure -q --prefix="$prefix"
echo "building into $prefix ..."
make -s -j"$(nproc)" > /dev/null
make -s install > /dev/null
stop_all > /dev/null

rm -rf "$ldapdir"; mkdir -p "$ldapdir"
# Passwords only cross the network encrypted: a throwaway CA and StartTLS.
tls_certs_make "$prefix/tls" > /dev/null
uri=$(SLAPD_TLS_CERT=$prefix/tls/server.crt SLAPD_TLS_KEY=$prefix/tls/server.key \
      SLAPD_TLS_CA=$prefix/tls/ca.crt \
      slapd_start "$ldapdir" "$top/contrib/demo/demo.ldif" dc=demo,dc=test)
echo "demo directory: $uri (dc=demo,dc=test, from contrib/demo/demo.ldif)"

mkdir -p "$prefix/etc/sssd"
cat > "$conf" <<EOF
[sssd]
services = nss, pam, sudo
domains = demo.test

[nss]
[pam]
[sudo]

[domain/demo.test]
id_provider = ldap
ldap_uri = $uri
ldap_search_base = dc=demo,dc=test
ldap_id_use_start_tls = true
ldap_tls_cacert = $prefix/tls/ca.crt
EOF
chmod 0600 "$conf"

"$prefix/sbin/sssd" -c "$conf" -D
pid=$(cat "$prefix/var/run/sssd.pid")
echo "sssd is running (pid $pid), configuration $conf"
echo

PREFIX=$prefix
. "$top/tests/intg/nss_ns.sh"
run() { echo "\$ $*"; in_nss_ns "$@" || echo "(exit status $?)"; echo; }
run getent passwd alice
run getent passwd 10002
run getent group developers
run id alice
run getent group staff

# A PAM login through our pam_sss.so and sssd_pam, with a PAM service of the demo's own in
# a namespace (a tmpfs over /etc/pam.d: the machine's PAM configuration is not touched).
if command -v pamtester > /dev/null; then
    echo "\$ echo Demo-Alice1 | pamtester demo-login alice authenticate acct_mgmt"
    unshare --mount --propagation private -- bash -c '
        mount -t tmpfs -o mode=0755 tmpfs /etc/pam.d || exit 125
        for t in auth account password session; do
            echo "$t required $1/lib/security/pam_sss.so"
        done > /etc/pam.d/demo-login
        echo Demo-Alice1 | pamtester demo-login alice authenticate acct_mgmt
    ' demo-pam "$prefix" || echo "(exit status $?)"
    echo
else
    echo "(pamtester is not installed: no PAM login shown)"
    echo
fi

echo "\$ dbus-send --address=$bus --print-reply --dest=org.freedesktop.DBus /org/freedesktop/DBus org.freedesktop.DBus.ListNames"
dbus-send --address="$bus" --print-reply --dest=org.freedesktop.DBus /org/freedesktop/DBus \
    org.freedesktop.DBus.ListNames | sed -n 's/^ *string "\(sssd[^"]*\)"/    \1/p'
echo
echo "Logs: $prefix/var/log/sssd/    Stop: sudo $0 stop"
