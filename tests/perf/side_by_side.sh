# Sourced by the side-by-side benchmarks (bench_ad.sh, bench_krb5.sh): runs a scenario script
# in each system's namespace (tests/perf/systems/<sys>.sh) for a number of runs, with the
# sssd.conf named by PERF_SSSD_CONF. Uses PREFIX, LOAD_TOOL and HERE (tests/perf).
# side_by_side SYSTEMS SYSW URI BASEDN RUNS OUTDIR SCENARIOS: OUTDIR/SYS gets each system's
# JSON (the scenario script writes it to $OUT), OUTDIR/skipped.txt a line for each system
# that could not run or stopped part way.
side_by_side() {
    local systems=$1 sysw=$2 uri=$3 basedn=$4 runs=$5 outdir=$6 scenarios=$7 sys run why
    : > "$outdir/skipped.txt"
    for sys in $systems; do
        rm -rf "${outdir:?}/$sys"
        if ! why=$(PREFIX=$PREFIX bash "$HERE/systems/$sys.sh" available 2>&1); then
            echo "== $sys skipped: $why"
            echo "$sys: $why" >> "$outdir/skipped.txt"
            continue
        fi
        for run in $(seq "$runs"); do
            PREFIX=$PREFIX OUT=$outdir/$sys LOAD_TOOL=$LOAD_TOOL RUN_NO=$run \
                bash "$HERE/systems/$sys.sh" run "$sysw" "$uri" "$basedn" rfc2307 \
                -- bash "$scenarios" \
                || { echo "$sys: run $run failed" | tee -a "$outdir/skipped.txt"; break; }
        done
    done
}
