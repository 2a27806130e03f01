# What the sudo integration tests share: Debian's real sudo in a private mount namespace
# whose nsswitch.conf says `sudoers: sss` and whose multiarch library directory is an
# overlay adding the client libraries (sudo is setuid, so the loader looks only there), and
# a private slapd with sudoRole entries. Sourced after
#   PREFIX=$(cd "$1" && pwd); TOP=$(cd "$(dirname "$0")/../.." && pwd)
#   SUDO_TEST=<name>        (the work directory is /tmp/sssd-<name>.XXXXXX)
# it sources lib.sh, slapd.sh and ldif.sh, skips (77) without slapd or a sudo built with
# SSSD support, and makes WORK (removed at exit with the suite and the slapd stopped; a
# test that needs more at exit sets SUDO_ON_EXIT to a command run first).
#   sudo_rule CN USER COMMAND [LDIF_LINE...]   a sudoRole (runas root, !authenticate)
#   sudo_slapd_start LDIF [SCHEMA]             slapd with the sudo schema (or SCHEMA): URI
#   sudo_ldap_add                              ldapadd of stdin as the root DN
#   sudo_suite_start                           start_sssd, then sssd.sudo and the back-end
#                                              LDAP on the bus (exits on failure)
#   in_sudo_ns ours|stock CMD...   CMD in the namespace; stock: SSSD 2.8's libsss_sudo.so
#                                  from $WORK/stock (the test puts it there), with
#                                  /var/lib/sss/pipes bound to ours
#   as_user ours|stock USER UID CMD...         the same, run as that user (setpriv)

. "$TOP/tests/intg/lib.sh"
. "$TOP/tests/lib/slapd.sh"
. "$TOP/tests/lib/ldif.sh"

SUFFIX=${SUFFIX:-dc=sudo,dc=test}
MULTIARCH=/usr/lib/x86_64-linux-gnu
OUR_SUDO_LIB=$PREFIX/lib/libsss_sudo.so
OUR_NSS_LIB=$PREFIX/lib/libnss_sss.so.2
[ -f "$OUR_SUDO_LIB" ] || { echo "FAIL: $OUR_SUDO_LIB is not installed"; exit 1; }
slapd_available || { echo "SKIP: slapd is not available"; exit 77; }
command -v sudo > /dev/null || { echo "SKIP: sudo is not installed (tests/install-deps.sh)"; exit 77; }
sudo -V 2>/dev/null | grep -qi "sssd" || [ -f /usr/libexec/sudo/sudoers.so ] \
    || { echo "SKIP: this sudo has no SSSD support"; exit 77; }
[ -d "$MULTIARCH" ] || { echo "SKIP: no $MULTIARCH"; exit 77; }

WORK=$(mktemp -d "/tmp/sssd-$SUDO_TEST.XXXXXX")
chmod 0755 "$WORK"
SUDO_ON_EXIT=
_sudo_env_exit() {
    [ -n "$SUDO_ON_EXIT" ] && eval "$SUDO_ON_EXIT"
    stop_sssd
    slapd_stop "$WORK/ldap" 2>/dev/null
    rm -rf "$WORK"
}
trap _sudo_env_exit EXIT

sudo_rule() {
    local cn=$1 user=$2 cmd=$3 l
    shift 3
    printf 'dn: cn=%s,ou=SUDOers,%s\nobjectClass: top\nobjectClass: sudoRole\ncn: %s\n' \
        "$cn" "$SUFFIX" "$cn"
    printf 'sudoUser: %s\nsudoCommand: %s\nsudoRunAsUser: root\nsudoOption: !authenticate\n' \
        "$user" "$cmd"
    for l in "$@"; do printf '%s\n' "$l"; done
    printf '\n'
}

sudo_slapd_start() { # LDIF [SCHEMA]
    mkdir -p "$WORK/ldap"
    SLAPD_EXTRA_SCHEMA=${2:-$TOP/tests/lib/sudo.schema} slapd_start "$WORK/ldap" "$1" "$SUFFIX"
}

sudo_ldap_add() {
    ldapadd -x -H "$URI" -D "cn=admin,$SUFFIX" -w secret > "$WORK/add.log" 2>&1 \
        || fail "ldapadd: $(cat "$WORK/add.log")"
}

# sssd.conf for the one LDAP domain of the sudo tests (rfc2307, the rules under
# ou=SUDOers): SERVICES for [sssd], SUDO_LINES end the [sudo] section, DOMAIN_LINES the
# domain's.
. "$TOP/tests/lib/sudo_conf.sh"

sudo_suite_start() {
    start_sssd || { echo "FAIL: sssd did not start"; exit 1; }
    wait_name sssd.sudo 10000 || { echo "FAIL: sssd_sudo is not on the bus"; exit 1; }
    wait_name sssd.domain_LDAP 10000 || { echo "FAIL: sssd_be is not on the bus"; exit 1; }
}

# The namespace's files: our client libraries, and sudoers: sss.
mkdir -p "$WORK/ours"
cp "$OUR_SUDO_LIB" "$WORK/ours/libsss_sudo.so"
cp "$OUR_NSS_LIB" "$WORK/ours/libnss_sss.so.2"
printf 'passwd: files sss\ngroup: files sss\nshadow: files\nhosts: files\nsudoers: sss\n' \
    > "$WORK/nsswitch.conf"

in_sudo_ns() {
    local which=$1
    shift
    unshare --mount --propagation private -- bash -c '
        work=$1 which=$2 pipes=$3 multiarch=$4
        shift 4
        mount -t overlay overlay -o "lowerdir=$work/$which:$multiarch" "$multiarch" || exit 125
        mount --bind "$work/nsswitch.conf" /etc/nsswitch.conf || exit 125
        if [ "$which" = stock ]; then
            mount --bind "$pipes" /var/lib/sss/pipes || exit 125
        fi
        exec "$@"
    ' sudo-ns "$WORK" "$which" "$PIPES" "$MULTIARCH" "$@"
}

as_user() {
    local lib=$1 uid=$3
    shift 3
    in_sudo_ns "$lib" setpriv --reuid="$uid" --regid="$uid" --init-groups "$@"
}
