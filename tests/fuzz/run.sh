#!/bin/bash
# Builds every libFuzzer harness in tests/fuzz with clang (ASan + UBSan) and runs each for
# a bounded time. Usage: tests/fuzz/run.sh BUILD_DIR [SECONDS]
# BUILD_DIR is a configured build tree (for config.h and generated headers).
# Each harness starts from the committed corpus tests/fuzz/corpus/<harness>/ (seeds, and
# every input that once failed, as a regression test) plus what earlier runs in BUILD_DIR
# found. BUILD_DIR/fuzz/summary.tsv gets one line per harness: name, CPU seconds used,
# inputs run, corpus size, result (ok or FAILED). `make fuzz-long` runs this with FUZZ_CPU=1
# for 600 CPU-seconds a harness.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
build=$(cd "$1" && pwd)
secs=${2:-30}
out=$build/fuzz
mkdir -p "$out"

cflags="-g -O1 -D_GNU_SOURCE -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined
        -I$top/src -I$build -I$build/src -DSSSD_LOG_PATH=\"/tmp\" -DSSSD_DB_PATH=\"/tmp\"
        -DSSSD_STATE_DIR=\"/tmp\" -DSSSD_LIBEXEC_PATH=\"/tmp\"
        $(pkg-config --cflags talloc tevent dbus-1)"
libs="$(pkg-config --libs talloc tevent dbus-1)"
# A systemtap build's probe semaphores, for sources with probes.
probes=""
[ -f "$build/systemtap/sssd_probes.o" ] && probes="$build/systemtap/sssd_probes.o"
util="$top/src/util/debug.c $top/src/util/sss_errors.c $top/src/util/util_names.c $top/src/util/sss_hash.c
      $top/src/util/sss_metrics.c $top/src/util/sss_srv.c $top/src/util/sss_offloop.c
      $top/src/util/sss_spawn.c $top/src/util/sss_csv.c $top/src/util/sss_hex.c -lpthread"

# harness name -> the sources it needs besides itself
declare -A deps=(
    [fuzz_confdb]="$top/src/confdb/*.c"
    [fuzz_sbus_match]="$top/src/sbus/sbus_match.c"
    [fuzz_sbus_wire]="$top/src/sbus/sbus_wire.c $top/src/sbus/sbus_wire_values.c"
    [fuzz_nss_reply]="$top/src/sss_client/nss/nss_parse.c"
    [fuzz_nss_netgr]="$top/src/sss_client/nss/nss_netgroup.c $top/src/sss_client/nss/nss_parse.c"
    [fuzz_pam_reply]="$top/src/sss_client/pam/pam_reply.c"
    [fuzz_sudo_reply]="-DSSSD_PIPE_PATH=\"/nonexistent\" $top/src/sss_client/sudo/sss_sudo_parse.c $top/src/sss_client/sudo/sss_sudo.c $top/src/sss_client/common.c -lpthread"
    [fuzz_nss_packet]="$top/src/responder/common/resp_packet.c $top/src/responder/nss/nss_protocol.c"
    [fuzz_nss_idmap_reply]="$top/src/sss_client/idmap/sss_nss_idmap.c $top/src/sss_client/nss/nss_parse.c"
    [fuzz_nss_sid]="$top/src/responder/nss/nss_protocol_sid.c $top/src/responder/common/resp_packet.c $top/src/lib/idmap/idmap.c $top/src/lib/idmap/idmap_wellknown.c $top/src/sss_client/murmurhash3.c"
    [fuzz_sbus_server]="$top/src/sbus/*.c $probes"
    [fuzz_pam_request]="$top/src/responder/common/resp_packet.c $top/src/responder/pam/pam_req.c"
    [fuzz_sdap_entry]="$top/src/providers/ldap/*.c $probes $top/src/confdb/*.c
        $top/src/providers/krb5/krb5_child_msg.c $top/src/providers/krb5/krb5_child_handler.c
        $top/src/providers/krb5/krb5_child_cfg.c $top/src/providers/krb5/krb5_child_pool.c
        $top/src/lib/idmap/idmap.c
        $top/src/sss_client/murmurhash3.c $top/src/providers/ad/ad_gpo_policy.c
        $top/src/providers/ad/ad_gpo_access.c $top/src/providers/ad/ad_gpo_list.c
        $top/src/providers/ad/ad_gpo_fetch.c
        $top/src/providers/ad/ad_gpo_sd.c -lldap -llber"
    [fuzz_krb5_child_msg]="$top/src/providers/krb5/krb5_child_msg.c $probes"
    [fuzz_srv_answer]=""
    [fuzz_cldap_reply]="$top/src/providers/ldap/sdap_connect_cldap.c"
    [fuzz_ad_gpo_inf]="$top/src/providers/ad/ad_gpo_policy.c"
    [fuzz_ad_gpo_sd]="$top/src/providers/ad/ad_gpo_sd.c $top/src/lib/idmap/idmap.c
        $top/src/sss_client/murmurhash3.c"
    [fuzz_sysdb_reply]="$top/src/db/*.c $probes $(pkg-config --cflags --libs ldb) -lcrypt"
    [fuzz_mdb_walk]="$top/src/db/sysdb_mdb_walk.c"
)

# Per-harness ASAN_OPTIONS. libldap and liblber are built without frame pointers, so the
# fast unwinder stops in liblber and lsan.supp could not match the libldap frame.
declare -A asan=(
    [fuzz_sdap_entry]="fast_unwind_on_malloc=0"
)

export LSAN_OPTIONS="suppressions=$top/tests/fuzz/lsan.supp${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
summary=$out/summary.tsv
# FUZZ_ONLY="h1 h2": only those harnesses; their lines in summary.tsv are replaced, the
# others' kept.
if [ -n "${FUZZ_ONLY:-}" ]; then
    touch "$summary"
    for h in $FUZZ_ONLY; do
        awk -v h="$h" '$1 != h' "$summary" > "$summary.tmp" && mv "$summary.tmp" "$summary"
    done
else
    : > "$summary"
fi
# fuzz_one HARNESS: builds and runs one harness; its output goes to $out/HARNESS.report and
# its line to summary.tsv; fails when the harness found something (or did not build).
fuzz_one() {
    local h=$1 result=ok cpu=0 left runs
    local -a seeds=()
    echo "=== building $h"
    # shellcheck disable=SC2086
    clang $cflags "$top/tests/fuzz/$h.c" ${deps[$h]} $util $libs -o "$out/$h" || return 1
    mkdir -p "$out/$h.corpus"
    [ -d "$top/tests/fuzz/corpus/$h" ] && seeds=("$top/tests/fuzz/corpus/$h")
    echo "=== running $h for ${secs}s${FUZZ_CPU:+ of CPU time}"
    # CPU seconds the harness really had (user + system): on a loaded machine a wall-clock
    # bound gives less. FUZZ_CPU=1 (make fuzz-long) runs again, resuming from the corpus,
    # until the CPU time reaches SECONDS, so the figure reported is CPU time.
    : > "$out/$h.log"
    while :; do
        left=$(( secs - cpu ))
        [ "$left" -lt 1 ] && left=1
        TIMEFORMAT='%U %S'
        if ! { time ASAN_OPTIONS="${asan[$h]:-}${ASAN_OPTIONS:+:$ASAN_OPTIONS}" "$out/$h" -max_total_time="$left" \
                -print_final_stats=1 "$out/$h.corpus" "${seeds[@]}" >> "$out/$h.log" 2>&1; } 2> "$out/$h.cpu"; then
            echo "FUZZER FAILED: $h"; tail -n 40 "$out/$h.log"; result=FAILED
        fi
        cpu=$(( cpu + $(awk '{ printf "%d", $1 + $2 + 0.5 }' "$out/$h.cpu") ))
        [ -z "${FUZZ_CPU:-}" ] || [ "$result" != ok ] || [ "$cpu" -ge "$secs" ] && break
    done
    [ "$result" = ok ] && { grep -E "^(#[0-9]+.*DONE|Done)" "$out/$h.log" | tail -n1 || true; }
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$out/$h.log" | awk '{ n += $1 } END { print n + 0 }')
    printf '%s\t%s\t%s\t%s\t%s\n' "$h" "$cpu" "$runs" \
        "$(find "$out/$h.corpus" -type f | wc -l)" "$result" >> "$summary"
    [ "$result" = ok ]
}

# The harnesses run FUZZ_JOBS at a time (default: one per core; each is one process), each
# one's output shown whole when it ends.
jobs_max=${FUZZ_JOBS:-$(nproc)}
declare -A pids=()
rc=0
reap() { # waits for one harness to end and shows its report
    local h p= st=0
    wait -n -p p || st=$?
    for h in "${!pids[@]}"; do
        [ "${pids[$h]}" = "$p" ] || continue
        [ "$st" = 0 ] || rc=1
        cat "$out/$h.report"
        unset "pids[$h]"
        return
    done
}
for h in $(printf '%s\n' "${!deps[@]}" | sort); do
    [ -z "${FUZZ_ONLY:-}" ] || [[ " $FUZZ_ONLY " == *" $h "* ]] || continue
    [ -f "$top/tests/fuzz/$h.c" ] || continue
    while [ "${#pids[@]}" -ge "$jobs_max" ]; do reap; done
    fuzz_one "$h" > "$out/$h.report" 2>&1 &
    pids[$h]=$!
done
while [ "${#pids[@]}" -gt 0 ]; do reap; done
sort -o "$summary" "$summary"
exit $rc
