#!/bin/bash
# Everything CI runs, in order: dependencies, a warnings-as-errors build with probes, unit
# tests, integration tests against the installed suite, unit tests again under ASan+UBSan,
# and a short run of every fuzzer. Run as root from anywhere: sudo tests/run-all.sh
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
jobs=$(nproc)
passed=0
failed=0

# Adds the cmocka case counts of the test logs under the current build directory.
count_unit() {
    local p f
    p=$(find . -name '*.log' ! -name config.log ! -name test-suite.log -exec cat {} + 2>/dev/null | { grep -o '\[  PASSED  \] [0-9]*' || true; } | awk '{s += $4} END {print s + 0}')
    f=$(find . -name '*.log' ! -name config.log ! -name test-suite.log -exec cat {} + 2>/dev/null | { grep -o '\[  FAILED  \] [0-9]*' || true; } | awk '{s += $4} END {print s + 0}')
    passed=$((passed + p)); failed=$((failed + f))
    echo "    $p cmocka cases passed, $f failed"
}

# Each stage's start time, for the CI time budget.
stage() { echo "=== $* ($(date -u +%T))"; }

"$top/tests/install-deps.sh"
./autogen.sh > /dev/null

stage "build (warnings are errors, probes on)"
mkdir -p build/ci && cd build/ci
../../configure -q --prefix="$top/_prefix" --enable-werror --enable-systemtap
make -s -j"$jobs"

stage "unit tests"
make -s -j"$jobs" check || { cat test-suite.log; exit 1; }
count_unit

stage "integration tests"
make -s intgcheck 2>&1 | tee intg.out
p=$(grep -E '^[0-9]+ passed, [0-9]+ failed$' intg.out | awk '{s += $1} END {print s + 0}')
passed=$((passed + p))

stage "fault suite, short form (tests/faults, make faultcheck FAULT_SHORT=1)"
make -s faultcheck FAULT_SHORT=1 2>&1 | tee faults.out
passed=$((passed + $(grep -c '^RESULT [^ ]* pass' faults.out || true)))

stage "unit tests under AddressSanitizer and UBSan"
cd "$top" && mkdir -p build/asan && cd build/asan
san="-fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer"
../../configure -q --prefix="$top/_prefix_asan" --enable-werror CFLAGS="-g -O1 $san" LDFLAGS="$san"
# ldb loads its modules with RTLD_DEEPBIND, which ASan cannot run; ldb's own switch turns
# that off.
LDB_MODULES_DISABLE_DEEPBIND=1 ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
    make -s -j"$jobs" check \
    || { cat test-suite.log; exit 1; }
count_unit

stage "fuzzers"
"$top/tests/fuzz/run.sh" "$top/build/ci" "${FUZZ_SECONDS:-30}"

stage "all tests passed"
echo "total: $passed passed, $failed failed"
