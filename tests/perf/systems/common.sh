# Shared part of the system runners (ours.sh, stock_sssd.sh, nslcd.sh): the command line,
# the private mount + pid namespace, package download and unpack, nsswitch.conf, readiness,
# and the LOAD_CTL wrapper. Sourced by a runner that first defines:
#   SYS           ours | stock_sssd | nslcd (also the name of its subdirectory of WORKDIR)
#   NSS_NAME      the NSS source name (sss, ldap): libnss_<NSS_NAME>.so.2, _nss_<NSS_NAME>_*
#   sys_available              exit status 0 when it can run here, prints why not otherwise
#   sys_prepare                fetch/unpack into $SYSW (idempotent)
#   sys_setup                  in the namespace: mounts and configuration; sets NSS_MODULE
#   sys_start / sys_stop       start (detached) / stop every process of the system
#   sys_wipe                   remove every cache (on-disk and memory cache); system stopped
#   sys_expire                 mark the cached entries expired
#   sys_pids                   print the pids of all the system's processes
#   sys_logs                   print the last lines of its logs (on failure)
# and, for the PAM scenarios (a runner without them has no PAM: its rows say n/a):
#   sys_conf                   (re)write its sssd.conf (write_sssd_conf honours PAM_MODE)
#   sys_pam_module             print the path of its pam_sss.so, or fail saying why not
# Interface of a runner (see the load tool's driver):
#   X.sh available | prepare WORKDIR | run WORKDIR SLAPD_URI BASEDN SCHEMA -- CMD ARGS...
# `run` exports LOAD_NSS_MODULE, LOAD_NSS_NAME, LOAD_SYSTEM and LOAD_CTL to CMD.

SYSTEMS_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
TOP=$(cd "$SYSTEMS_DIR/../../.." && pwd)
# Lookups that must answer during a flush wait at most this long for the system.
READY_TIMEOUT_S=${READY_TIMEOUT_S:-60}
# The name asked for to see whether the system answers: found or not, an answer is an answer.
READY_PROBE_NAME=load-ready-probe
STATE_VARS=()   # a runner's own variables that LOAD_CTL needs too

die() { echo "$SYS: $*" >&2; exit 1; }

# The multiarch library directory glibc searches (/usr/lib/x86_64-linux-gnu on Debian amd64).
multiarch_libdir() {
    local d
    for d in /usr/lib/*-linux-gnu*; do
        [ -e "$d/libc.so.6" ] && { echo "$d"; return 0; }
    done
    echo /usr/lib
}

# What every runner needs from the host: root, unshare with pid namespaces, overlayfs, python3.
host_available() {
    [ "$(id -u)" = 0 ] || { echo "needs root (mount namespaces)"; return 1; }
    command -v unshare > /dev/null || { echo "unshare is missing"; return 1; }
    command -v python3 > /dev/null || { echo "python3 is missing"; return 1; }
    grep -qw overlay /proc/filesystems || modprobe overlay 2> /dev/null \
        || { echo "the kernel has no overlayfs"; return 1; }
    return 0
}

# --- Debian packages, downloaded and unpacked, never installed --------------------------

# apt_closure PKG...: "name=version" of each package apt would have to add to the host for
# PKG... (what the host already has comes from its own /usr, the overlay's lower layer).
# A simulation: takes no dpkg lock and changes nothing.
apt_closure() {
    LC_ALL=C apt-get install -s --no-install-recommends "$@" 2> /dev/null |
        sed -n 's/^Inst \([^ ]*\) \(\[[^]]*\] \)\{0,1\}(\([^ ]*\) .*/\1=\3/p'
}

# packages_available PKG...: each has an installation candidate in the package lists.
packages_available() {
    local p cand
    command -v apt-get > /dev/null && command -v dpkg > /dev/null \
        || { echo "apt-get/dpkg are missing (needs a Debian-like host)"; return 1; }
    for p in "$@"; do
        cand=$(LC_ALL=C apt-cache policy "$p" 2> /dev/null | sed -n 's/^ *Candidate: //p')
        if [ -z "$cand" ] || [ "$cand" = "(none)" ]; then
            echo "package $p has no candidate (run apt-get update?)"
            return 1
        fi
    done
}

# debs_fetch DEST PKG...: downloads the closure into DEST/debs and unpacks it into DEST/root
# with dpkg -x. /lib, /bin and /sbin of the packages are folded into usr/ (merged-/usr hosts
# see them there). DEST/.prepared records the package set: a second call does nothing.
debs_fetch() {
    local dest=$1 want closure d deb
    shift
    want="$*"
    if [ -f "$dest/.prepared" ] && [ "$(cat "$dest/.prepared")" = "$want" ] \
            && [ -d "$dest/root/usr" ]; then
        return 0
    fi
    closure=$(apt_closure "$@")
    [ -n "$closure" ] || {
        # Nothing to add means the host has them all; still unpack the named packages so
        # that the namespace never depends on what the host happens to have installed.
        closure="$*"
    }
    mkdir -p "$dest/debs" || return 1
    # apt-get download writes into the current directory; _apt cannot enter a root-owned
    # WORKDIR, so apt falls back to downloading as root (a warning, not an error).
    (cd "$dest/debs" && apt-get download -q $closure) > "$dest/download.log" 2>&1 || {
        echo "$SYS: apt-get download failed: $(tail -n 3 "$dest/download.log")" >&2
        return 1
    }
    rm -rf "$dest/root"
    mkdir -p "$dest/root/usr"
    for deb in "$dest"/debs/*.deb; do
        dpkg -x "$deb" "$dest/root" || { echo "$SYS: dpkg -x $deb failed" >&2; return 1; }
    done
    for d in bin sbin lib lib64; do
        if [ -d "$dest/root/$d" ] && [ ! -L "$dest/root/$d" ]; then
            mkdir -p "$dest/root/usr/$d"
            cp -a "$dest/root/$d/." "$dest/root/usr/$d/" && rm -rf "$dest/root/$d"
        fi
    done
    echo "$want" > "$dest/.prepared"
}

# --- mounts inside the namespace -----------------------------------------------------------

# The mount points strictly below DIR, from the current mount table.
submounts() {
    awk -v d="$1/" 'index($5, d) == 1 { print $5 }' /proc/self/mountinfo
}

# overlay_over DIR OPTIONS: mounts an overlay on DIR and puts back what was mounted below DIR
# (an overlay shows the lower directories without their submounts).
overlay_over() {
    local dir=$1 opts=$2 keep=$RUN/keep m i=0
    local -a subs=()
    mapfile -t subs < <(submounts "$dir")
    for m in "${subs[@]}"; do
        i=$((i + 1))
        if [ -d "$m" ]; then mkdir -p "$keep/$i"; else mkdir -p "$keep"; touch "$keep/$i"; fi
        mount --bind "$m" "$keep/$i" || return 1
    done
    mount -t overlay overlay -o "$opts" "$dir" || return 1
    i=0
    for m in "${subs[@]}"; do
        i=$((i + 1))
        mount --bind "$keep/$i" "$m" 2> /dev/null || echo "$SYS: could not restore $m" >&2
    done
}

# overlay_ro DIR LOWER: DIR shows LOWER's files above its own, read-only.
overlay_ro() { overlay_over "$1" "lowerdir=$2:$1"; }

# overlay_rw DIR NAME [LOWER]: DIR becomes writable (showing LOWER's files too, when given),
# every change lands in $RUN/NAME.up (so under WORKDIR) and vanishes with the namespace.
overlay_rw() {
    mkdir -p "$RUN/$2.up" "$RUN/$2.work"
    overlay_over "$1" "lowerdir=${3:+$3:}$1,upperdir=$RUN/$2.up,workdir=$RUN/$2.work"
}

# WORKDIR must stay reachable as itself: not under a tree the runners overlay.
check_workdir() {
    case "$1/" in
        /usr/*|/etc/*|/var/lib/*|/var/log/*|/run/*|/var/run/*)
            die "WORKDIR $1 is under a directory the namespace replaces; use e.g. /tmp" ;;
    esac
}

# nsswitch.conf for passwd, group and initgroups through files then the system's module,
# bound over /etc/nsswitch.conf (a file of its own under RUN).
bind_nsswitch() {
    {
        echo "passwd: files $NSS_NAME"
        echo "group: files $NSS_NAME"
        echo "initgroups: files $NSS_NAME"
        echo "shadow: files"
        echo "hosts: files"
    } > "$RUN/nsswitch.conf"
    mount --bind "$RUN/nsswitch.conf" /etc/nsswitch.conf
}

# The sssd.conf both SSSD-likes get, so their caches behave alike. PAM_MODE (set by
# `$LOAD_CTL pam-online` / `pam-offline` only) adds the pam service, cached credentials and
# LDAP authentication (without TLS: a loopback slapd for benchmarks only); offline, the
# domain's server is a closed loopback port, so every login is answered from the cache.
# PERF_SSSD_CONF names a ready sssd.conf both SSSD-likes get instead (bench_ad.sh: an AD
# domain, with the pam service already in it).
write_sssd_conf() { # FILE [EXTRA [sssd] LINES]
    local uri=$URI
    if [ -n "${PERF_SSSD_CONF:-}" ]; then
        install -m 0600 -o 0 -g 0 "$PERF_SSSD_CONF" "$1"
        return
    fi
    [ "${PAM_MODE:-}" = offline ] && uri=ldap://127.0.0.1:9
    {
        echo "[sssd]"
        echo "services = nss${PAM_MODE:+, pam}"
        echo "domains = perf"
        [ -n "${2:-}" ] && echo "$2"
        echo "[nss]"
        echo "debug_level = 0"
        if [ -n "${PAM_MODE:-}" ]; then
            echo "[pam]"
            echo "debug_level = 0"
        fi
        echo "[domain/perf]"
        echo "debug_level = 0"
        echo "id_provider = ldap"
        echo "ldap_uri = $uri"
        echo "ldap_search_base = $BASEDN"
        echo "ldap_schema = $SCHEMA"
        echo "entry_cache_timeout = 5400"
        echo "enumerate = false"
        if [ -n "${PAM_MODE:-}" ]; then
            echo "cache_credentials = true"
            echo "auth_provider = ldap"
            echo "access_provider = permit"
            echo "ldap_auth_disable_tls_never_use_in_production = true"
        else
            echo "cache_credentials = false"
        fi
    } > "$1"
    chmod 0600 "$1"
    chown 0:0 "$1"
}

# The PAM service the scenarios log in through (PAM_SERVICE, auth and account by the
# system's pam_sss.so), in a private /etc/pam.d bound over the host's inside the namespace.
# It holds that service and a deny-all "other", nothing of the host's: libpam reads "other"
# on every pam_start, and Debian's (common-auth and friends) loads pam_unix, pam_winbind,
# pam_systemd and pam_cap with their libraries each time, 1.5 ms per login that is neither
# system's work (a login measured 6.0 ms with them, 4.4 ms without).
PAM_SERVICE=sss-perf
pam_service_setup() {
    local module kind
    module=$(sys_pam_module) || return 1
    if [ ! -f "$RUN/pam.d/$PAM_SERVICE" ]; then
        mkdir -p "$RUN/pam.d"
        for kind in auth account password session; do
            echo "$kind required pam_deny.so"
        done > "$RUN/pam.d/other"
        mount --bind "$RUN/pam.d" /etc/pam.d || return 1
    fi
    printf 'auth required %s\naccount required %s\n' "$module" "$module" \
        > "$RUN/pam.d/$PAM_SERVICE"
}

# pam_mode online|offline: the system restarted with the PAM configuration; online also
# wipes the caches (the next login is the first after a start), offline keeps them (the
# hashes cached by the online logins).
pam_mode() {
    declare -F sys_conf > /dev/null && declare -F sys_pam_module > /dev/null \
        || { echo "$SYS has no PAM service in these benchmarks"; return 1; }
    pam_service_setup || return 1
    sys_stop
    [ "$1" = online ] && sys_wipe
    PAM_MODE=$1 sys_conf || return 1
    sys_start || { sys_logs; return 1; }
    # Offline, a lookup may answer "unavailable" for the probe name: the first login says more.
    [ "$1" = offline ] || wait_ready
}

# --- readiness -------------------------------------------------------------------------------

# nss_answers: 0 when the module, called directly, gives an answer (found or not found)
# rather than "unavailable" or "try again" for a getpwnam.
nss_answers() {
    python3 - "$NSS_MODULE" "$NSS_NAME" "$READY_PROBE_NAME" <<'PY'
import ctypes, sys
lib = ctypes.CDLL(sys.argv[1])
fn = getattr(lib, "_nss_%s_getpwnam_r" % sys.argv[2])
pw = ctypes.create_string_buffer(256)
buf = ctypes.create_string_buffer(4096)
err = ctypes.c_int(0)
fn.restype = ctypes.c_int
status = fn(sys.argv[3].encode(), pw, buf, ctypes.c_size_t(len(buf)), ctypes.byref(err))
sys.exit(0 if status in (0, 1) else 1)   # NSS_STATUS_NOTFOUND, NSS_STATUS_SUCCESS
PY
}

wait_ready() {
    local deadline=$(( $(date +%s) + READY_TIMEOUT_S ))
    while [ "$(date +%s)" -lt "$deadline" ]; do
        nss_answers && return 0
        sleep 0.1
    done
    echo "$SYS: no answer through $NSS_MODULE within ${READY_TIMEOUT_S}s" >&2
    sys_logs >&2
    return 1
}

# wait_gone PID...: up to 5 s for the processes to exit, then KILL.
wait_gone() {
    local p i
    for i in $(seq 100); do
        for p in "$@"; do kill -0 "$p" 2> /dev/null && break; p=; done
        [ -z "$p" ] && return 0
        sleep 0.05
    done
    kill -KILL "$@" 2> /dev/null
    return 0
}

# --- the command line ----------------------------------------------------------------------

usage() {
    echo "usage: $0 available | prepare WORKDIR |" \
         "run WORKDIR SLAPD_URI BASEDN SCHEMA -- CMD ARGS..." >&2
    exit 2
}

# The state the LOAD_CTL wrapper needs, kept in $SYSW/state (sourced back).
save_state() {
    declare -p URI BASEDN SCHEMA RUN NSS_MODULE > "$SYSW/state"
    if [ ${#STATE_VARS[@]} -gt 0 ]; then declare -p "${STATE_VARS[@]}" >> "$SYSW/state"; fi
    cat > "$SYSW/ctl" <<EOF
#!/bin/bash
exec bash $(printf '%q' "$SYSTEMS_DIR/$SYS.sh") _ctl $(printf '%q' "$WORKDIR") "\$@"
EOF
    chmod 0755 "$SYSW/ctl"
}

# Inside the namespace (pid 1 of a new pid namespace: when it exits, every process of the
# system dies with it).
in_namespace() {
    local rc
    shift # --
    # Nothing mounted here may leak to the host, whatever the host's propagation.
    mount --make-rprivate / || die "cannot make / private"
    RUN=$SYSW/run
    rm -rf "$RUN"
    mkdir -p "$RUN" || die "cannot create $RUN"
    sys_setup || die "setting up the namespace failed"
    bind_nsswitch || die "cannot bind nsswitch.conf"
    save_state
    trap 'sys_stop > /dev/null 2>&1' EXIT
    sys_start || { sys_logs >&2; die "could not start"; }
    wait_ready || die "does not answer"
    export LOAD_NSS_MODULE=$NSS_MODULE LOAD_NSS_NAME=$NSS_NAME LOAD_SYSTEM=$SYS \
        LOAD_CTL=$SYSW/ctl
    "$@"
    rc=$?
    sys_stop
    trap - EXIT
    return $rc
}

ctl() { # ACTION, inside the namespace, through $LOAD_CTL
    [ -f "$SYSW/state" ] || die "no running system in $SYSW"
    . "$SYSW/state"
    case "${1:-}" in
        flush) sys_stop && sys_wipe && sys_start && wait_ready ;;
        expire) sys_expire ;;
        pids) sys_pids ;;
        stop) sys_stop ;;
        start) sys_start && wait_ready ;;
        pam-online) pam_mode online ;;
        pam-offline) pam_mode offline ;;
        *) echo "usage: \$LOAD_CTL flush | expire | pids | stop | start | pam-online |" \
                "pam-offline" >&2; return 2 ;;
    esac
}

# unshare ignores TERM and INT while its child runs; killing unshare itself makes
# --kill-child SIGKILL the namespace's pid 1, and with it every process of the namespace.
# So a TERM, INT or HUP to this script ends the whole run.
run_namespace() {
    local upid rc
    # Started in the background for the trap; <&0 keeps stdin (not /dev/null) for CMD.
    unshare --mount --propagation private --pid --fork --mount-proc --kill-child -- \
        bash "$SYSTEMS_DIR/$SYS.sh" _inns "$WORKDIR" "$@" <&0 &
    upid=$!
    trap 'kill -KILL $upid 2> /dev/null' TERM INT HUP
    while :; do
        wait "$upid" 2> /dev/null   # (no "Killed" job notice)
        rc=$?
        kill -0 "$upid" 2> /dev/null || break
    done
    trap - TERM INT HUP
    return $rc
}

systems_main() {
    local cmd=${1:-}
    [ $# -gt 0 ] && shift
    case "$cmd" in
        available)
            host_available && sys_available ;;
        prepare)
            [ $# -eq 1 ] || usage
            mkdir -p "$1" || exit 1
            WORKDIR=$(cd "$1" && pwd); SYSW=$WORKDIR/$SYS
            mkdir -p "$SYSW"
            sys_prepare ;;
        run)
            [ $# -ge 6 ] && [ "$5" = "--" ] || usage
            case "$4" in
                rfc2307|rfc2307bis) ;;
                *) die "SCHEMA must be rfc2307 or rfc2307bis" ;;
            esac
            mkdir -p "$1" || exit 1
            WORKDIR=$(cd "$1" && pwd); SYSW=$WORKDIR/$SYS
            check_workdir "$WORKDIR"
            host_available > /dev/null && sys_available > /dev/null \
                || die "$(host_available; sys_available)"
            mkdir -p "$SYSW"
            sys_prepare || exit 1
            shift
            run_namespace "$@" ;;
        _inns)
            WORKDIR=$1; SYSW=$WORKDIR/$SYS
            URI=$2; BASEDN=$3; SCHEMA=$4
            shift 4
            in_namespace "$@" ;;
        _ctl)
            WORKDIR=$1; SYSW=$WORKDIR/$SYS
            shift
            ctl "$@" ;;
        *) usage ;;
    esac
}
