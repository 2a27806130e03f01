#!/bin/bash
# Fault scenario 3, sudo: kill -9 of sssd_sudo, sssd_be and the monitor, each during two
# streams of Debian's real sudo run by alice (setpriv to her uid) through our
# libsss_sudo.so: one runs the command her LDAP rule allows (/bin/true), one a command no
# rule gives her (/usr/bin/id). The scenario runs in a mount namespace of its own whose
# nsswitch.conf says `sudoers: sss` and whose multiarch library directory is an overlay
# adding our libsss_sudo.so and libnss_sss.so.2 (sudo is setuid: the loader looks only
# there).
# Must hold: the forbidden command never runs as root (wrong_grant=0, all along, also while
# parts are down and coming back); no sudo hangs longer than KS_REQUEST_BOUND_MS; the allowed
# command runs again within RECOVER_BOUND_MS of each kill (from the kill to the first
# success started after it); no crash. Prints "RESULT kill9/sudo_<part> pass|fail ..." per
# kill.
# Usage: scenario_kill_sudo.sh PREFIX   (as root; FAULT_SHORT=1: shorter streams)
set -u
PREFIX=$(cd "$1" && pwd)
TOP=$(cd "$(dirname "$0")/../.." && pwd)
if [ -z "${FAULT_SUDO_IN_NS:-}" ]; then
    exec unshare --mount --propagation private -- env FAULT_SUDO_IN_NS=1 bash "$0" "$@"
fi
SCENARIO=killsudo
. "$TOP/tests/faults/scenario_env.sh"
MULTIARCH=/usr/lib/x86_64-linux-gnu
command -v sudo > /dev/null || { echo "sudo not installed: skipped"; exit 77; }
[ -f /usr/libexec/sudo/sudoers.so ] || { echo "this sudo has no SSSD support: skipped"; exit 77; }
[ -d "$MULTIARCH" ] || { echo "no $MULTIARCH: skipped"; exit 77; }
for f in lib/libsss_sudo.so lib/libnss_sss.so.2; do
    [ -f "$PREFIX/$f" ] || { echo "RESULT kill9/sudo fail ($PREFIX/$f missing)"; exit 1; }
done

DOM=killsudo.test
S=dc=killsudo,dc=test
SETTLE=${FAULT_SHORT:+2}
SETTLE=${SETTLE:-5}
KS_REQUEST_BOUND_MS=15000
RECOVER_BOUND_MS=15000
KS_LABEL=sudo
KS_BAD_NAME=wrong_grant
KS_PARTS="sssd_sudo sssd_be monitor"
KS_SOCKET=sudo
KS_BUS_NAMES="sssd.sudo sssd.domain_killsudo_2etest"
. "$TOP/tests/faults/kill_streams.sh"

{
    ldif_base $S
    ldif_user $S alice 39101 39101 /home/alice
    ldif_group $S alice 39101
    printf 'dn: ou=SUDOers,%s\nobjectClass: organizationalUnit\nou: SUDOers\n\n' "$S"
    printf 'dn: cn=alice_true,ou=SUDOers,%s\nobjectClass: top\nobjectClass: sudoRole\n' "$S"
    printf 'cn: alice_true\nsudoUser: alice\nsudoHost: ALL\nsudoCommand: /bin/true\n'
    printf 'sudoRunAsUser: root\nsudoOption: !authenticate\n\n'
} > "$WORK/data.ldif"
mkdir -p "$WORK/ldap"
URI=$(SLAPD_EXTRA_SCHEMA=$TOP/tests/lib/sudo.schema slapd_start "$WORK/ldap" "$WORK/data.ldif" $S) \
    || exit 1

write_conf <<CONF
[sssd]
services = nss, sudo
domains = $DOM

[domain/$DOM]
id_provider = ldap
ldap_uri = $URI
ldap_search_base = $S
ldap_schema = rfc2307
ldap_sudo_search_base = ou=SUDOers,$S
CONF

# The namespace: sudo finds our libraries and asks sss for its rules.
mkdir -p "$WORK/libs"
cp "$PREFIX/lib/libsss_sudo.so" "$PREFIX/lib/libnss_sss.so.2" "$WORK/libs/"
printf 'passwd: files sss\ngroup: files sss\nshadow: files\nhosts: files\nsudoers: sss\n' \
    > "$WORK/nsswitch.conf"
mount -t overlay overlay -o "lowerdir=$WORK/libs:$MULTIARCH" "$MULTIARCH" \
    || { echo "RESULT kill9/sudo fail (no overlay over $MULTIARCH)"; exit 1; }
mount --bind "$WORK/nsswitch.conf" /etc/nsswitch.conf \
    || { echo "RESULT kill9/sudo fail (no private nsswitch.conf)"; exit 1; }

start_sssd && ks_ready || { echo "RESULT kill9/sudo fail (sssd did not start)"; exit 1; }

# One sudo run as alice: good = the command her rule allows, bad = one no rule gives her.
ks_request() {
    local cmd t0 t1 r
    [ "$1" = good ] && cmd=/bin/true || cmd=/usr/bin/id
    t0=$(now_ms)
    if timeout 60 setpriv --reuid=39101 --regid=39101 --init-groups sudo -n "$cmd" \
            > /dev/null 2>&1; then r=through; else r=refused; fi
    t1=$(now_ms)
    echo "$t1 $((t1 - t0)) $r"
}
first=
for _ in $(seq 100); do
    first=$(ks_request good | cut -d' ' -f3)
    [ "$first" = through ] && break
    sleep 0.1
done
[ "$first" = through ] || { echo "RESULT kill9/sudo fail (alice's rule never applied)"; exit 1; }
[ "$(ks_request bad | cut -d' ' -f3)" = refused ] \
    || { echo "RESULT kill9/sudo fail (the forbidden command ran before any kill)"; exit 1; }
ks_run
exit $FAILED
