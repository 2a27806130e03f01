#!/bin/bash
# Debian 12's stock SSSD (2.8) for side-by-side benchmarks: its packages are downloaded with
# apt-get and unpacked with dpkg -x under WORKDIR, never installed. Its compiled-in paths
# (/usr/sbin/sssd, /usr/libexec/sssd, /etc/sssd, /var/lib/sss, /run/sssd.pid) exist only in
# a private mount namespace: /usr is an overlay with the unpacked tree above the host's,
# /etc, /var/lib and /var/log are overlays whose changes land under WORKDIR, /run is a tmpfs.
# libpam-sss gives its pam_sss.so for the PAM scenarios (sssd_pam is in sssd-common).
# Interface: see common.sh.
SYS=stock_sssd
NSS_NAME=sss
# STOCK_SSSD_EXTRA_PACKAGES: more providers (bench_ad.sh: sssd-ad).
PACKAGES="sssd-common sssd-ldap sssd-tools libnss-sss libpam-sss ${STOCK_SSSD_EXTRA_PACKAGES:-}"
. "$(dirname "${BASH_SOURCE[0]}")/common.sh"

SSSD_PIDFILE=/run/sssd.pid

sys_available() { packages_available $PACKAGES; }

sys_prepare() { debs_fetch "$SYSW" $PACKAGES; }

sys_setup() {
    local root=$SYSW/root
    [ -x "$root/usr/sbin/sssd" ] && [ -x "$root/usr/sbin/sss_cache" ] \
        || { echo "$SYS: not prepared (no sssd in $root)" >&2; return 1; }
    overlay_ro /usr "$root/usr" || return 1
    overlay_rw /etc etc || return 1
    # The package's empty /var/lib/sss tree (db, mc, pipes/private with their modes).
    overlay_rw /var/lib varlib "$root/var/lib" || return 1
    overlay_rw /var/log varlog "$root/var/log" || return 1
    mount -t tmpfs -o mode=0755 tmpfs /run || return 1
    # Whatever the host keeps in /etc/sssd stays out of this configuration.
    rm -rf /etc/sssd
    mkdir -p /etc/sssd/conf.d /var/log/sssd
    chmod 0711 /etc/sssd
    sys_conf || return 1
    NSS_MODULE=$(multiarch_libdir)/libnss_sss.so.2
    [ -f "$NSS_MODULE" ] || { echo "$SYS: no $NSS_MODULE in the namespace" >&2; return 1; }
}

sys_conf() { write_sssd_conf /etc/sssd/sssd.conf "enable_files_domain = false"; }

sys_pam_module() {
    local m
    m=$(multiarch_libdir)/security/pam_sss.so
    [ -f "$m" ] || { echo "no $m in the namespace (libpam-sss)"; return 1; }
    echo "$m"
}

# Debian's build logs to journald by default; files keep the (few) lines under WORKDIR.
sys_start() { /usr/sbin/sssd -D --logger=files; }

sys_pids() { pgrep -f '^/usr/(sbin/sssd|libexec/sssd/)'; }

sys_stop() {
    local pids
    pids=$(sys_pids)
    [ -n "$pids" ] || return 0
    # The monitor stops its children; TERM them all in case it is gone already.
    kill -TERM $(cat "$SSSD_PIDFILE" 2> /dev/null) 2> /dev/null
    sleep 0.1
    kill -TERM $pids 2> /dev/null
    wait_gone $pids
    rm -f "$SSSD_PIDFILE"
}

sys_wipe() { rm -rf /var/lib/sss/db/* /var/lib/sss/mc/*; }

sys_expire() { /usr/sbin/sss_cache -E; }

sys_logs() { tail -n 5 /var/log/sssd/*.log 2> /dev/null; }

systems_main "$@"
