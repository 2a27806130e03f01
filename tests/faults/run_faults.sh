#!/bin/bash
# The fault suite (tests/faults/, `make faultcheck`, as root): runs each scenario script
# against the suite installed in PREFIX, prints per scenario and case pass or fail, the
# measured time to recover, wrong answers and crashes, and writes the report
# (tests/faults/faults_report.py) to REPORT (docs/RELIABILITY.md for the full run; "-" for
# none). Exit 1 when a case failed; a scenario that cannot run here (exit 77: no slapd) is
# reported as skipped. FAULT_SHORT=1 (exported to the scenarios): the short form CI runs.
# Usage: run_faults.sh PREFIX REPORT SCENARIO_SCRIPT...
set -u
PREFIX=$1
REPORT=$2
shift 2
here=$(cd "$(dirname "$0")" && pwd)
results=$(mktemp /tmp/sssd-faults.XXXXXX)
failed=0
for s in "$@"; do
    echo "=== $s"
    t0=$(date +%s)
    bash "$s" "$PREFIX" 2>&1 | tee -a "$results" | grep -E "^(RESULT|  )|skipped"
    rc=${PIPESTATUS[0]}
    echo "    ($(( $(date +%s) - t0 )) s)"
    if [ "$rc" = 77 ]; then
        echo "RESULT $(basename "$s" .sh) skipped" >> "$results"
    elif [ "$rc" != 0 ]; then
        failed=1
        grep -q "^RESULT .* fail" "$results" || echo "RESULT $(basename "$s" .sh) fail (exit $rc)" >> "$results"
    fi
done
printf 'RUN date="%s" load="%s" cpus="%s"\n' "$(date '+%Y-%m-%d %H:%M:%S %z')" \
    "$(cut -d' ' -f1-3 /proc/loadavg | sed 's/ /, /g')" "$(nproc)" >> "$results"
echo
echo "fault suite:"
printf '  %-20s %-7s %s\n' case result "figures"
grep '^RESULT' "$results" | while read -r _ name result rest; do
    printf '  %-20s %-7s %s\n' "$name" "$result" "$rest"
done
if [ "$REPORT" != - ]; then
    python3 "$here/faults_report.py" "$results" "$([ -n "${FAULT_SHORT:-}" ] && echo short || echo full)" \
        > "$REPORT.tmp" && mv "$REPORT.tmp" "$REPORT" && echo "report: $REPORT"
fi
# FAULT_RESULTS=FILE keeps the raw results, so the report can be written again later (say,
# once a `make fuzz-long` has refreshed fuzz/summary.tsv) with faults_report.py.
[ -n "${FAULT_RESULTS:-}" ] && cp "$results" "$FAULT_RESULTS"
rm -f "$results"
exit $failed
