#!/bin/bash
# Tracing overhead: the cost of the static probes with no tracer attached. Builds the suite
# twice from one source tree, with --enable-systemtap ("probes") and without ("noprobes"),
# each installed in a prefix of its own; starts both against the same slapd and measures
# warm getpwnam through the responder (memory cache off, one worker) with sss_load, the two
# builds taking turns round after round so that drift of the machine hits both alike.
# Writes OUTDIR/overhead.json (medians, min-max, change in %) and prints the figure.
# Never fails on timing.
#
# Usage: perf_overhead.sh SRCDIR WORKDIR SLAPD_URI BASEDN SCHEMA SSS_LOAD OUTDIR   (as root)
#   WORKDIR keeps the two build directories: a second run only rebuilds what changed.
#   PERF_OVERHEAD_ROUNDS (7), PERF_DURATION (3 s per measurement), PERF_OVERHEAD_KEYS (1000)
set -u
[ $# -eq 7 ] || { sed -n '2,13p' "$0" >&2; exit 2; }
SRC=$(cd "$1" && pwd)
mkdir -p "$2" "$7" || exit 1
WORK=$(cd "$2" && pwd)
URI=$3 BASEDN=$4 SCHEMA=$5
LOAD=$(cd "$(dirname "$6")" && pwd)/$(basename "$6")
OUT=$(cd "$7" && pwd)
ROUNDS=${PERF_OVERHEAD_ROUNDS:-7}
DURATION=${PERF_DURATION:-3}
KEYS=${PERF_OVERHEAD_KEYS:-1000}
BUILDS="probes noprobes"

build() { # NAME CONFIGURE-FLAGS...: configure once, make, install into WORK/prefix-NAME
    local name=$1 dir=$WORK/build-$1
    shift
    mkdir -p "$dir"
    echo "building $name in $dir"
    (
        cd "$dir" || exit 1
        [ -f Makefile ] || "$SRC/configure" --prefix="$WORK/prefix-$name" --enable-werror "$@"
        make -j2 && make install
    ) > "$dir/build.log" 2>&1 || { echo "build $name failed: see $dir/build.log" >&2; return 1; }
}

# in_prefix NAME COMMAND...: runs COMMAND with tests/intg/lib.sh sourced for that prefix
in_prefix() {
    local name=$1
    shift
    (
        PREFIX=$WORK/prefix-$name
        . "$SRC/tests/intg/lib.sh"
        "$@"
    )
}

setup_and_start() {
    write_conf <<CONF
[sssd]
services = nss
domains = perf
[nss]
[domain/perf]
id_provider = ldap
ldap_uri = $URI
ldap_search_base = $BASEDN
ldap_schema = $SCHEMA
entry_cache_timeout = 5400
CONF
    start_sssd
}

stop_all() { for b in $BUILDS; do in_prefix "$b" stop_sssd; done; }

build probes --enable-systemtap || exit 1
build noprobes || exit 1
# the probes are really in one build and not in the other
if ! readelf -n "$WORK/prefix-probes/libexec/sssd/sssd_nss" 2> /dev/null | grep -q stapsdt; then
    echo "the probes build has no stapsdt notes in sssd_nss" >&2; exit 1
fi
if readelf -n "$WORK/prefix-noprobes/libexec/sssd/sssd_nss" 2> /dev/null | grep -q stapsdt; then
    echo "the noprobes build has stapsdt notes in sssd_nss" >&2; exit 1
fi

trap stop_all EXIT
for b in $BUILDS; do
    in_prefix "$b" setup_and_start || { echo "sssd ($b) did not start" >&2; exit 1; }
    # every measured user cached (and the connection to the directory made)
    SSS_NSS_USE_MEMCACHE=NO "$LOAD" --quiet -n "$KEYS" --pattern user%06d --range "0:$KEYS" \
        nss "$WORK/prefix-$b/lib/libnss_sss.so.2" getpwnam
done

rm -f "$OUT"/*.json
for r in $(seq "$ROUNDS"); do
    # alternate which build goes first
    order=$BUILDS
    [ $((r % 2)) = 0 ] && order=$(echo "$BUILDS" | awk '{print $2, $1}')
    for b in $order; do
        SSS_NSS_USE_MEMCACHE=NO "$LOAD" --label "overhead.$b" --run "$r" --no-header \
            -d "$DURATION" --warmup 100 --pattern user%06d --range "0:$KEYS" --order random \
            --json "$OUT/$b.r$r.json" nss "$WORK/prefix-$b/lib/libnss_sss.so.2" getpwnam
    done
done
stop_all
trap - EXIT

python3 - "$OUT" "$ROUNDS" "$DURATION" <<'PY'
import glob, json, os, statistics, sys
out, rounds, duration = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
res = {"rounds": rounds, "duration": duration}
for b in ("probes", "noprobes"):
    runs = [json.load(open(p)) for p in glob.glob(os.path.join(out, b + ".r*.json"))]
    for k, vals in (("p50", [r["latency_us"]["p50"] for r in runs]),
                    ("throughput", [r["throughput"] for r in runs])):
        res.setdefault(b, {})[k] = {"median": statistics.median(vals), "min": min(vals),
                                    "max": max(vals), "n": len(vals)}
pc = lambda k: 100.0 * (res["probes"][k]["median"] / res["noprobes"][k]["median"] - 1)
res["p50_change_pct"] = pc("p50")
res["throughput_change_pct"] = pc("throughput")
json.dump(res, open(os.path.join(out, "overhead.json"), "w"), indent=1)
for b in ("noprobes", "probes"):
    v = res[b]
    print("%-9s p50 %.2f us [%.2f-%.2f]  throughput %.0f/s [%.0f-%.0f]" % (
        b, v["p50"]["median"], v["p50"]["min"], v["p50"]["max"], v["throughput"]["median"],
        v["throughput"]["min"], v["throughput"]["max"]))
print("probes vs none: p50 %+.1f%%, throughput %+.1f%% (target: within 2%%)" % (
    res["p50_change_pct"], res["throughput_change_pct"]))
PY
