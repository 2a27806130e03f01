#!/bin/bash
# Our suite, installed in the prefix named by SSSD_PREFIX or PREFIX (make install), for
# side-by-side benchmarks. In a private mount namespace the prefix's etc/ and var/ are
# replaced by fresh directories under WORKDIR (so a run neither sees nor touches caches or
# sockets of other tests using the same prefix), /usr is an overlay that adds the prefix's
# libnss_sss.so.2 to glibc's library directory (getent, id and initgroups reach it through
# nsswitch.conf), and /run is a tmpfs as for the other systems. Started and stopped with
# tests/intg/lib.sh.
# Interface: see common.sh.
SYS=ours
NSS_NAME=sss
. "$(dirname "${BASH_SOURCE[0]}")/common.sh"

# SSSD_PREFIX names the prefix; PREFIX (as tests/intg use it) is accepted when it is unset.
PREFIX=${SSSD_PREFIX:-${PREFIX:-}}
[ -n "$PREFIX" ] && [ -d "$PREFIX" ] && PREFIX=$(cd "$PREFIX" && pwd)
. "$TOP/tests/intg/lib.sh"
STATE_VARS=(PREFIX)

sys_available() {
    [ -n "$PREFIX" ] \
        || { echo "SSSD_PREFIX (or PREFIX) is not set: the suite's install prefix"; return 1; }
    local f
    for f in sbin/sssd sbin/sss_cache lib/libnss_sss.so.2 libexec/sssd/sssd_be \
             libexec/sssd/sssd_nss; do
        [ -e "$PREFIX/$f" ] || { echo "$PREFIX/$f is missing (make install?)"; return 1; }
    done
    [ -d "$PREFIX/etc" ] && [ -d "$PREFIX/var" ] \
        || { echo "$PREFIX/etc or $PREFIX/var is missing (make install?)"; return 1; }
}

sys_prepare() { :; }   # built and installed by make install; nothing to fetch

# copy_dirs SRC DEST: DEST gets SRC's directories (with their modes), not its files.
copy_dirs() {
    local mode path
    (cd "$1" && find . -type d -printf '%m %p\n') | while read -r mode path; do
        mkdir -p "$2/$path" && chmod "$mode" "$2/$path"
    done
}

sys_setup() {
    local libdir
    copy_dirs "$PREFIX/var" "$RUN/var" || return 1
    mkdir -p "$RUN/etc/sssd"
    mount --bind "$RUN/var" "$PREFIX/var" || return 1
    mount --bind "$RUN/etc" "$PREFIX/etc" || return 1
    libdir=$(multiarch_libdir)
    mkdir -p "$RUN/usr/${libdir#/usr/}"
    ln -sf "$PREFIX/lib/libnss_sss.so.2" "$RUN/usr/${libdir#/usr/}/libnss_sss.so.2"
    overlay_ro /usr "$RUN/usr" || return 1
    mount -t tmpfs -o mode=0755 tmpfs /run || return 1
    sys_conf || return 1
    NSS_MODULE=$PREFIX/lib/libnss_sss.so.2
}

sys_conf() { write_sssd_conf "$CONF"; }

# Our pam_sss.so (make install), when the suite has a PAM responder to answer it.
sys_pam_module() {
    [ -x "$PREFIX/libexec/sssd/sssd_pam" ] || { echo "no sssd_pam in $PREFIX"; return 1; }
    [ -f "$PREFIX/lib/security/pam_sss.so" ] \
        || { echo "no $PREFIX/lib/security/pam_sss.so"; return 1; }
    echo "$PREFIX/lib/security/pam_sss.so"
}

sys_start() { start_sssd; }

sys_pids() { all_suite_pids; }

sys_stop() {
    local pids
    pids=$(sys_pids)
    [ -n "$pids" ] || return 0
    stop_sssd
    # The monitor stops its services; make sure none is left behind.
    pids=$(sys_pids)
    [ -z "$pids" ] || { kill -TERM $pids 2> /dev/null; wait_gone $pids; }
    rm -f "$PIDFILE"
}

sys_wipe() { rm -rf "$PREFIX/var/lib/sss/db/"* "$PREFIX/var/lib/sss/mc/"*; }

sys_expire() { "$PREFIX/sbin/sss_cache" -E; }

sys_logs() { tail -n 5 "$LOGS"/*.log 2> /dev/null; }

systems_main "$@"
