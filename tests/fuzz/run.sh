#!/bin/bash
# Builds every libFuzzer harness in tests/fuzz with clang (ASan + UBSan) and runs each for
# a bounded time. Usage: tests/fuzz/run.sh BUILD_DIR [SECONDS]
# BUILD_DIR is a configured build tree (for config.h and generated headers).
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
build=$(cd "$1" && pwd)
secs=${2:-30}
out=$build/fuzz
mkdir -p "$out"

cflags="-g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined
        -I$top/src -I$build -I$build/src -DSSSD_LOG_PATH=\"/tmp\"
        $(pkg-config --cflags talloc tevent dbus-1)"
libs="$(pkg-config --libs talloc tevent dbus-1)"
util="$top/src/util/debug.c $top/src/util/sss_errors.c $top/src/util/util_names.c $top/src/util/sss_hash.c"

# harness name -> the sources it needs besides itself
declare -A deps=(
    [fuzz_confdb]="$top/src/confdb/*.c"
    [fuzz_sbus_match]="$top/src/sbus/sbus_match.c"
    [fuzz_nss_reply]="$top/src/sss_client/nss/nss_parse.c"
    [fuzz_pam_reply]="$top/src/sss_client/pam/pam_reply.c"
    [fuzz_nss_packet]="$top/src/responder/common/resp_packet.c $top/src/responder/nss/nss_protocol.c"
    [fuzz_pam_request]="$top/src/responder/common/resp_packet.c $top/src/responder/pam/pam_req.c"
)

rc=0
for h in "${!deps[@]}"; do
    [ -f "$top/tests/fuzz/$h.c" ] || continue
    echo "=== building $h"
    # shellcheck disable=SC2086
    clang $cflags "$top/tests/fuzz/$h.c" ${deps[$h]} $util $libs -o "$out/$h"
    mkdir -p "$out/$h.corpus"
    echo "=== running $h for ${secs}s"
    if ! "$out/$h" -max_total_time="$secs" -print_final_stats=0 "$out/$h.corpus" \
            > "$out/$h.log" 2>&1; then
        echo "FUZZER FAILED: $h"; tail -n 40 "$out/$h.log"; rc=1
    else
        grep -E "^(#[0-9]+.*DONE|Done)" "$out/$h.log" | tail -n1 || true
    fi
done
exit $rc
