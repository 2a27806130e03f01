# Runs commands through the real glibc NSS path against the suite installed in PREFIX,
# without changing the machine: a private mount namespace binds its own nsswitch.conf over
# /etc/nsswitch.conf, and glibc finds our libnss_sss.so.2 through LD_LIBRARY_PATH (getent
# and id are not setuid, so the loader honours it). Sourced after lib.sh.
#   in_nss_ns getent passwd alice
#   in_nss_ns id alice
# NSS_NS_SOURCES overrides the sources ("sss" alone by default: nothing from /etc/passwd
# can answer for the directory).

in_nss_ns() {
    local dir conf
    dir=$(mktemp -d /tmp/sssd-nsns.XXXXXX)
    conf=$dir/nsswitch.conf
    {
        echo "passwd: ${NSS_NS_SOURCES:-sss}"
        echo "group: ${NSS_NS_SOURCES:-sss}"
        echo "initgroups: ${NSS_NS_SOURCES:-sss}"
        echo "netgroup: ${NSS_NS_SOURCES:-sss}"
        echo "shadow: files"
        echo "hosts: files"
    } > "$conf"
    unshare --mount --propagation private -- bash -c '
        mount --bind "$1" /etc/nsswitch.conf || exit 125
        # The mount holds the file: remove it now, so a caller killed mid-lookup (a stream
        # stopped by its test, a timeout) leaves nothing in /tmp.
        rm -rf "${1%/*}"
        shift
        exec env LD_LIBRARY_PATH="$LIBDIR${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" "$@"
    ' nss-ns "$conf" "$@"
    local rc=$?
    rm -rf "$dir"
    return $rc
}

LIBDIR=${LIBDIR:-$PREFIX/lib}
export LIBDIR
