# What bench_bus.sh and bench_bus_ir.sh share: a scratch directory (tmp) removed at exit
# with every process started into pids killed first, and wait_for. Sourced.
tmp=$(mktemp -d "/tmp/$(basename "$0" .sh).XXXXXX")
pids=()
bench_cleanup() {
    local p
    for p in "${pids[@]}"; do
        kill "$p" 2>/dev/null || true
    done
    wait 2>/dev/null || true
    rm -rf "$tmp"
}
trap bench_cleanup EXIT

# wait_for FILE PATTERN [SECONDS]: until FILE has a line matching PATTERN (default 5 s;
# valgrind-run processes start slowly). On time-out prints FILE and returns 1.
wait_for() {
    local file=$1 pattern=$2 tries=$(( ${3:-5} * 10 )) i
    for i in $(seq "$tries"); do
        grep -q "$pattern" "$file" 2>/dev/null && return 0
        sleep 0.1
    done
    echo "$(basename "$0"): timed out waiting for $file:" >&2
    cat "$file" >&2 || true
    return 1
}
