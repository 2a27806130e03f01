#!/bin/bash
# Installs, with apt-get, every Debian 12 package the build and the tests need.
set -euo pipefail
if [ "$(id -u)" -ne 0 ]; then
    echo "install-deps.sh: run as root (apt-get)" >&2
    exit 1
fi
export DEBIAN_FRONTEND=noninteractive
pkgs=(
    build-essential autoconf automake libtool pkg-config python3
    libdbus-1-dev libtalloc-dev libtevent-dev libldb-dev libldap2-dev libkrb5-dev
    libpam0g-dev libcrypt-dev libcmocka-dev systemtap-sdt-dev libsmbclient-dev smbclient
    dbus-bin dbus-daemon dbus-broker iproute2 util-linux procps
    slapd ldap-utils openssl pamtester sudo
    krb5-kdc krb5-admin-server krb5-user libsasl2-modules-gssapi-mit
    libssl-dev heimdal-kcm
    samba samba-ad-dc samba-ad-provision samba-dsdb-modules winbind adcli
    clang libclang-rt-14-dev valgrind
    systemtap bpftrace binutils
)
missing=()
for p in "${pkgs[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
    apt-get update -qq
    apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
