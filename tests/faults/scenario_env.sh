# What every fault scenario starts with. Sourced by tests/faults/scenario_*.sh after
#   PREFIX=$(cd "$1" && pwd); TOP=$(cd "$(dirname "$0")/../.." && pwd); SCENARIO=<name>
# it sources the integration and slapd libraries and faults_lib.sh, skips the scenario
# (exit 77) where slapd is not installed, and makes WORK (/tmp/sssd-fault-<name>.*),
# FAULT_WORK and FAILED=0. At exit: the commands given to fault_on_exit (last given, first
# run), then the suite stopped, every slapd the scenario started under $WORK (stopped ones
# continued first) stopped, and WORK removed.
. "$TOP/tests/intg/lib.sh"
. "$TOP/tests/intg/nss_ns.sh"
. "$TOP/tests/lib/slapd.sh"
. "$TOP/tests/lib/ldif.sh"
. "$TOP/tests/faults/faults_lib.sh"

slapd_available || { echo "slapd not installed: skipped"; exit 77; }

WORK=$(mktemp -d "/tmp/sssd-fault-$SCENARIO.XXXXXX")
FAULT_WORK=$WORK/faults
FAILED=0
_fault_exit_cmds=()

fault_on_exit() { _fault_exit_cmds=("$1" "${_fault_exit_cmds[@]}"); }

_fault_scenario_exit() {
    local cmd d
    for cmd in "${_fault_exit_cmds[@]}"; do
        eval "$cmd"
    done
    stop_sssd
    for d in "$WORK"/*/; do
        [ -f "$d/slapd.conf" ] || continue
        kill -CONT "$(slapd_pid "$d")" 2>/dev/null
        slapd_stop "$d" 2>/dev/null
    done
    [ -n "${KEEP_WORK:-}" ] && { echo "kept $WORK"; return; }
    rm -rf "$WORK"
}
trap _fault_scenario_exit EXIT
