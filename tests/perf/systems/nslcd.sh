#!/bin/bash
# nslcd (nss-pam-ldapd, Debian's nslcd + libnss-ldapd) for side-by-side benchmarks: the
# packages are downloaded with apt-get and unpacked with dpkg -x under WORKDIR, never
# installed. In a private mount namespace /usr is an overlay with the unpacked tree above the
# host's, /etc an overlay whose changes land under WORKDIR (for /etc/nslcd.conf), /run a
# tmpfs (for /run/nslcd/socket). nslcd keeps no entry cache: every lookup goes to LDAP, so
# "flush" restarts it and "expire" does nothing. Interface: see common.sh.
SYS=nslcd
NSS_NAME=ldap
PACKAGES="nslcd libnss-ldapd"
. "$(dirname "${BASH_SOURCE[0]}")/common.sh"

NSLCD_PIDFILE=/run/nslcd/nslcd.pid

sys_available() { packages_available $PACKAGES; }

sys_prepare() { debs_fetch "$SYSW" $PACKAGES; }

sys_setup() {
    local root=$SYSW/root
    [ -x "$root/usr/sbin/nslcd" ] \
        || { echo "$SYS: not prepared (no nslcd in $root)" >&2; return 1; }
    overlay_ro /usr "$root/usr" || return 1
    overlay_rw /etc etc || return 1
    mount -t tmpfs -o mode=0755 tmpfs /run || return 1
    mkdir -p /run/nslcd
    # No uid/gid lines: nslcd keeps running as root, like the SSSD-likes here. Groups: nslcd
    # reads memberUid and member (DNs) by default, so one file serves both schemas; the
    # schema only decides what the directory holds.
    {
        echo "uri $URI"
        echo "base $BASEDN"
        echo "log $RUN/nslcd.log notice"
    } > /etc/nslcd.conf
    chmod 0600 /etc/nslcd.conf
    NSS_MODULE=$(multiarch_libdir)/libnss_ldap.so.2
    [ -f "$NSS_MODULE" ] || { echo "$SYS: no $NSS_MODULE in the namespace" >&2; return 1; }
}

# nslcd forks into the background and writes its pid file.
sys_start() { /usr/sbin/nslcd; }

sys_pids() { pgrep -x nslcd; }

sys_stop() {
    local pids
    pids=$(sys_pids)
    [ -n "$pids" ] || return 0
    kill -TERM $pids 2> /dev/null
    wait_gone $pids
    rm -f "$NSLCD_PIDFILE" /run/nslcd/socket
}

sys_wipe() { :; }     # nothing is kept between runs of nslcd

sys_expire() { :; }   # no cache to expire

sys_logs() { tail -n 5 "$RUN/nslcd.log" 2> /dev/null; }

systems_main "$@"
