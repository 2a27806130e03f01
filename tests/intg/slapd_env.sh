# What an integration test against a private slapd starts with. Sourced after
#   PREFIX=$(cd "$1" && pwd); TOP=$(cd "$(dirname "$0")/../.." && pwd); TEST_NAME=<name>
# it sources lib.sh, nss_ns.sh, tests/lib/slapd.sh and ldif.sh, skips the test (exit 77)
# where slapd is not installed, and makes WORK (/tmp/sssd-<name>.*). At exit: the commands
# given to intg_on_exit (last given, first run), then the suite stopped, every slapd the
# test started under $WORK (stopped ones continued first) stopped, and WORK removed.
. "$TOP/tests/intg/lib.sh"
. "$TOP/tests/intg/nss_ns.sh"
. "$TOP/tests/lib/slapd.sh"
. "$TOP/tests/lib/ldif.sh"

slapd_available || { echo "SKIP: slapd is not available"; exit 77; }

WORK=$(mktemp -d "/tmp/sssd-$TEST_NAME.XXXXXX")
_intg_exit_cmds=()

intg_on_exit() { _intg_exit_cmds=("$1" "${_intg_exit_cmds[@]}"); }

_intg_slapd_exit() {
    local cmd d
    for cmd in "${_intg_exit_cmds[@]}"; do
        eval "$cmd"
    done
    stop_sssd
    for d in "$WORK"/*/; do
        [ -f "$d/slapd.conf" ] || continue
        kill -CONT "$(slapd_pid "$d")" 2>/dev/null
        slapd_stop "$d" 2>/dev/null
    done
    rm -rf "$WORK"
}
trap _intg_slapd_exit EXIT
