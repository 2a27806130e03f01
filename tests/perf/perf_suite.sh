#!/bin/bash
# The scenario driver of the load framework: runs the identity scenarios with sss_load
# against one system (ours, stock SSSD, nslcd: tests/perf/systems/<sys>.sh), or, for
# `make perf`, everything: the directory, slapd, every available system, the bus and start-up
# benchmarks, and docs/PERFORMANCE.md. Prints figures; never fails on timing.
#
#   perf_suite.sh system SYS BUILDDIR WORKDIR SLAPD_URI BASEDN SCHEMA OUTDIR
#       one system against a running slapd loaded by gen_directory.py: each figure's JSON
#       goes to OUTDIR/SYS/, then one table for the system
#   perf_suite.sh all BUILDDIR PREFIX OUTDIR DOC
#       what `make perf` runs (as root)
#   perf_suite.sh _scenarios OUTDIR
#       internal: the scenarios, inside a runner's namespace (LOAD_NSS_MODULE, LOAD_CTL, ...)
#
# Knobs (environment; `make perf PERF_USERS=10000` passes them on):
#   PERF_USERS 100000, PERF_GROUPS 20000, PERF_BIG 50000, PERF_MANY 5000 (the directory);
#   PERF_SCHEMA rfc2307; PERF_RUNS 3 (each figure is the median of the runs, with min-max);
#   PERF_DURATION 3 (seconds per warm measurement); PERF_COLD_N (users per cold figure,
#   default min(1000, PERF_USERS / 10)); PERF_CONC "1 2 8 32"; PERF_SYSTEMS
#   "ours stock_sssd nslcd"; PERF_ALL 1 (all users once, empty cache, one client: one run);
#   PERF_BUS 1, PERF_STARTUP 1, PERF_AD 1 and PERF_KRB5 1 (the other benchmarks; AD_* knobs in
#   bench_ad.sh, KRB5_* in bench_krb5.sh);
#   PERF_OVERHEAD 0 (1: probes compiled in vs not, two extra builds, see perf_overhead.sh);
#   PERF_PAM 1 (the PAM logins, after every identity figure; PERF_PAM_ONLY 1: only them).
#
# Names: users user%06d (0..PERF_USERS-1), groups group5k (5,000 members) and biggroup
# (min(PERF_BIG, PERF_USERS) members), user manygroups (PERF_MANY groups).
set -u
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
TOP=$(cd "$HERE/../.." && pwd)

USERS=${PERF_USERS:-100000}
NGROUPS=${PERF_GROUPS:-20000}
BIG=${PERF_BIG:-50000}
MANY=${PERF_MANY:-5000}
SCHEMA=${PERF_SCHEMA:-rfc2307}
RUNS=${PERF_RUNS:-3}
DURATION=${PERF_DURATION:-3}
COLD_N=${PERF_COLD_N:-$(( USERS / 10 < 1000 ? USERS / 10 : 1000 ))}
CONC=${PERF_CONC:-1 2 8 32}
SYSTEMS=${PERF_SYSTEMS:-ours stock_sssd nslcd}
BASEDN=dc=perf,dc=test
# A name no directory holds: the warm-up of cold runs opens the client's connection with
# it without touching any user the run measures.
NOKEY=perf-warmup-nobody
export PERF_USERS=$USERS PERF_GROUPS=$NGROUPS PERF_BIG=$BIG PERF_MANY=$MANY \
    PERF_SCHEMA=$SCHEMA PERF_RUNS=$RUNS PERF_DURATION=$DURATION PERF_COLD_N=$COLD_N \
    PERF_CONC=$CONC

# --- inside a runner's namespace -------------------------------------------------------

# One measurement: L LABEL WORKERS [sss_load options] WORKLOAD...; JSON to $OUT.
L() {
    local label=$1 c=$2
    shift 2
    "$LOAD_TOOL" --label "$label" --run "$RUN_NO" -w "$c" --no-header \
        --json "$OUT/$label.c$c.r$RUN_NO.json" "$@"
}
# Lookups through the system's module, in-process: N LABEL WORKERS OP [options]
N() {
    local label=$1 c=$2 op=$3
    shift 3
    L "$label" "$c" "$@" nss "$LOAD_NSS_MODULE" "$op"
}
# Whole commands (through glibc and nsswitch.conf): C LABEL WORKERS [options] -- ARGV...
C() {
    local label=$1 c=$2 opts=()
    shift 2
    while [ "$1" != "--" ]; do opts+=("$1"); shift; done
    shift
    L "$label" "$c" "${opts[@]}" cmd "$@"
}
nomc() { SSS_NSS_USE_MEMCACHE=NO "$@"; }
# An unmeasured pass: makes entries warm (and fills the memory cache).
pass() { "$LOAD_TOOL" --quiet "$@"; }
ctl() { "$LOAD_CTL" "$1" || { echo "perf_suite: \$LOAD_CTL $1 failed" >&2; exit 1; }; }
# The first request after a start waits for the directory connection: not part of a figure.
prime() { pass -n 1 --key "$(printf 'user%06d' $((USERS - 1)))" nss "$LOAD_NSS_MODULE" getpwnam; }
slice() { echo "--pattern user%06d --range $(( $1 * COLD_N )):$(( ($1 + 1) * COLD_N ))"; }
has_conc() { [[ " $CONC " == *" $1 "* ]]; }

# `id USER` (names resolved, as the figure wants) that fails unless it lists at least N
# groups (the key, then N; counted in the shell, no extra process): a daemon that
# gives up on a user in thousands of groups (stock SSSD's watchdog kills its back-end in the
# middle, and `id` still exits 0 with the primary group alone) must not pass for fast.
# sh adds about 1 ms to a figure of hundreds.
ID_CHECK='out=$(id "$0") || exit 1; n=$1; IFS=,; set -- $out; [ "$#" -ge "$n" ]'

# Group figures from an empty cache: cold, then expired, then warm through the responder.
# The user in PERF_MANY groups comes last, after a flush of its own, so a system that
# cannot answer it takes none of the other figures down with it.
groups_run() {
    ctl flush
    prime
    N group5k.cold 1 getgrnam -n 1 --key group5k
    N biggroup.cold 1 getgrnam -n 1 --key biggroup
    ctl expire
    nomc N group5k.expired 1 getgrnam -n 1 --key group5k
    nomc N biggroup.expired 1 getgrnam -n 1 --key biggroup
    nomc N group5k.warm 1 getgrnam -n 20 --warmup 1 --key group5k
    nomc N biggroup.warm 1 getgrnam -n 5 --warmup 1 --key biggroup
    ctl flush
    prime
    C id_manygroups.cold 1 -n 1 --key manygroups -- sh -c "$ID_CHECK" '{}' "$MANY"
    nomc C id_manygroups.warm 1 -n 5 --warmup 1 --key manygroups -- \
        sh -c "$ID_CHECK" '{}' "$MANY"
}

# User figures from an empty cache: each cold figure on its own slice of never-seen users.
users_run() {
    local c i=0 first=0 warm
    ctl flush
    prime
    for c in $CONC; do
        [ "$c" = 2 ] && first=$i
        N getpwnam.cold "$c" getpwnam -n "$COLD_N" $(slice $i) --warmup 1 --warmup-key "$NOKEY"
        i=$((i + 1))
    done
    for c in 1 8; do
        has_conc "$c" || continue
        N initgroups.cold "$c" initgroups -n "$COLD_N" $(slice $i) --warmup 1 \
            --warmup-key "$NOKEY"
        i=$((i + 1))
    done
    # users whose passwd entry is cached (by a cold getpwnam figure), groups never asked
    N initgroups.first 1 initgroups -n "$COLD_N" $(slice "$first") --warmup 1 \
        --warmup-key "$NOKEY"
    ctl expire
    nomc N getpwnam.expired 1 getpwnam -n "$COLD_N" $(slice 0) --warmup 1 --warmup-key "$NOKEY"

    # Warm figures on slice 0, refreshed just now: one pass of each kind first.
    warm="$(slice 0) --order random"
    nomc pass -n "$COLD_N" $(slice 0) nss "$LOAD_NSS_MODULE" initgroups
    pass -n "$COLD_N" $(slice 0) nss "$LOAD_NSS_MODULE" getpwnam
    pass -n "$COLD_N" $(slice 0) nss "$LOAD_NSS_MODULE" initgroups
    for c in $CONC; do
        nomc N getpwnam.warm "$c" getpwnam -d "$DURATION" $warm --warmup 100
    done
    for c in $CONC; do
        N getpwnam.mc "$c" getpwnam -d "$DURATION" $warm --warmup 100
    done
    for c in 1 8; do
        has_conc "$c" && nomc N initgroups.warm "$c" initgroups -d "$DURATION" $warm --warmup 100
    done
    N initgroups.mc 1 initgroups -d "$DURATION" $warm --warmup 100
    # `id` also asks for every group of the user by gid; the passes above only ran
    # initgroups, which leaves groups first seen there without members (expired). One pass
    # of `id` makes them warm, so that the warm `id` figures measure warm lookups.
    nomc pass -n "$COLD_N" $(slice 0) cmd id '{}'
    for c in 1 8; do
        has_conc "$c" || continue
        nomc C id.warm "$c" -d "$DURATION" $warm --warmup 2 -- id '{}'
        C getent_passwd.warm "$c" -d "$DURATION" $warm --warmup 2 -- getent passwd '{}'
    done
    C id.mc 1 -d "$DURATION" $warm --warmup 2 -- id '{}'
}

# All users once from an empty cache, one client; then the memory of the system's processes.
all_once() {
    local kb
    ctl flush
    prime
    N getpwnam.all_once 1 getpwnam -n "$USERS" --pattern user%06d --range "0:$USERS" \
        --warmup 1 --warmup-key "$NOKEY"
    kb=$(ps -o rss= -p "$("$LOAD_CTL" pids | paste -sd, -)" 2> /dev/null |
        awk '{s += $1} END {print s + 0}')
    echo "{\"label\": \"rss_after_all_once\", \"system\": \"$LOAD_SYSTEM\", \"run\": \"1\"," \
         "\"value\": $kb, \"unit\": \"KB\"}" > "$OUT/rss_after_all_once.r1.json"
    echo "RSS of all $LOAD_SYSTEM processes after that: $((kb / 1024)) MB"
    # Per process, with PSS: a page two processes map (a library, a cache file) counts
    # twice in the RSS sum and once in the PSS sum (bench_rss.sh shows the mappings).
    local p rss pss pss_kb=0
    for p in $("$LOAD_CTL" pids); do
        rss=$(ps -o rss= -p "$p" 2> /dev/null)
        pss=$(awk '/^Pss:/ {print $2}' "/proc/$p/smaps_rollup" 2> /dev/null)
        printf "  %-14s RSS %7d KB  PSS %7d KB\n" "$(ps -o comm= -p "$p" 2> /dev/null)" \
            "${rss:-0}" "${pss:-0}"
        pss_kb=$((pss_kb + ${pss:-0}))
    done
    echo "{\"label\": \"pss_after_all_once\", \"system\": \"$LOAD_SYSTEM\", \"run\": \"1\"," \
         "\"value\": $pss_kb, \"unit\": \"KB\"}" > "$OUT/pss_after_all_once.r1.json"
}

scenarios() {
    OUT=$1
    mkdir -p "$OUT" || exit 1
    : "${LOAD_NSS_MODULE:?not inside a runner}" "${LOAD_CTL:?}" "${LOAD_TOOL:?}"
    echo "== $LOAD_SYSTEM: $LOAD_NSS_MODULE; $RUNS runs, cold figures over $COLD_N users," \
         "warm figures for ${DURATION}s, concurrency $CONC"
    printf "%-28s %4s %9s %6s %7s %10s %9s %9s %9s %9s %9s %9s\n" "label (us)" "wrk" \
        "ops" "fail" "wall_s" "ops/s" "p50" "p90" "p99" "p99.9" "max" "mean"
    if [ "${PERF_PAM_ONLY:-0}" != 1 ]; then
        for RUN_NO in $(seq "$RUNS"); do
            echo "-- run $RUN_NO"
            groups_run
            users_run
        done
        if [ "${PERF_ALL:-1}" = 1 ]; then
            RUN_NO=1
            all_once
        fi
    fi
    # Last: it restarts the system with another configuration.
    if [ "${PERF_PAM:-1}" = 1 ]; then
        pam_run
    fi
}

# PAM logins (pam_start, pam_authenticate, pam_acct_mgmt, pam_end in-process through the
# system's pam_sss.so, service sss-perf) as the first PAM_USERS users of gen_directory.py.
# `$LOAD_CTL pam-online` restarts the system with the pam service, cached credentials and
# LDAP authentication, caches wiped; `pam-offline` restarts it with its server unreachable,
# caches kept. A system without PAM, or whose first login fails, gets "n/a" (pam_na.txt in
# its OUTDIR) instead of figures.
PAM_USERS=64
PAM_PASSWORD=PerfPass-1
P() { # LABEL WORKERS [sss_load options]: a PAM figure, bounded in time
    local label=$1 c=$2
    shift 2
    timeout 300 "$LOAD_TOOL" --label "$label" --run "$RUN_NO" -w "$c" --no-header \
        --json "$OUT/$label.c$c.r$RUN_NO.json" "$@" pam sss-perf "$PAM_PASSWORD"
}
pam_pass() { timeout 300 "$LOAD_TOOL" --quiet "$@" pam sss-perf "$PAM_PASSWORD"; }
# The first error of a figure's JSON, or nothing when every operation succeeded.
json_failure() {
    python3 -c 'import json, sys
r = json.load(open(sys.argv[1]))
print(r["first_error"] or "failed") if r["failures"] else None' "$1" 2> /dev/null \
        || echo "no result"
}
pam_na() {
    echo "$1" > "$OUT/pam_na.txt"
    rm -f "$OUT"/pam.*.json
    echo "== $LOAD_SYSTEM: PAM figures n/a: $1"
}
# CPU time (ms) the system's own processes have used so far ($LOAD_CTL pids): the cost of a
# login in CPU rather than wall time, which a machine shared with other work blurs less.
sys_cpu_ms() {
    local p tot=0 t
    for p in $("$LOAD_CTL" pids 2> /dev/null); do
        t=$(awk '{ sub(/^.*\) /, ""); print $12 + $13 }' "/proc/$p/stat" 2> /dev/null) || continue
        tot=$((tot + ${t:-0}))
    done
    echo $((tot * 1000 / $(getconf CLK_TCK)))
}
# "LABEL: N logins, X ms of the system's CPU = Y us/login" from a figure's JSON and the CPU
# used around it (N counts the 2 warm-up logins of each worker too).
cpu_per_login() { # LABEL JSON CPU_MS
    python3 -c 'import json, sys
r = json.load(open(sys.argv[2])); n = r["ops"] + 2 * r["workers"]; ms = int(sys.argv[3])
print("%s: %d logins, %d ms of the system CPU = %d us/login" % (sys.argv[1], n, ms, ms * 1000 // max(n, 1)))' \
        "$1" "$2" "$3" 2> /dev/null
}
pam_run() {
    local why users="--pattern user%06d --range 0:$PAM_USERS"
    rm -f "$OUT/pam_na.txt"
    for RUN_NO in $(seq "$RUNS"); do
        echo "-- PAM run $RUN_NO"
        why=$("$LOAD_CTL" pam-online 2>&1) || { pam_na "$(echo "$why" | tail -n 1)"; return 0; }
        P pam.first 1 -n 1 --key "$(printf 'user%06d' $(( (RUN_NO - 1) % PAM_USERS )))"
        why=$(json_failure "$OUT/pam.first.c1.r$RUN_NO.json")
        [ -z "$why" ] || { pam_na "a login with the right password fails: $why"; return 0; }
        P pam.online 1 -d "$DURATION" $users --order random --warmup 2
        if has_conc 8; then
            local cpu0
            cpu0=$(sys_cpu_ms)
            P pam.online 8 -d "$DURATION" $users --order random --warmup 2
            cpu_per_login "-- pam.online c8 CPU" "$OUT/pam.online.c8.r$RUN_NO.json" \
                $(( $(sys_cpu_ms) - cpu0 ))
        fi
        # Every user once more online, so that each has a cached hash.
        pam_pass -n "$PAM_USERS" $users
        why=$("$LOAD_CTL" pam-offline 2>&1) || { pam_na "offline: $(echo "$why" | tail -n 1)"; return 0; }
        # The first login finds the server down and takes the domain offline.
        pam_pass -n 1 --key user000000 > /dev/null 2>&1
        P pam.offline 1 -d "$DURATION" $users --order random --warmup 2
    done
}

# --- one system, from outside ----------------------------------------------------------

system() { # SYS BUILDDIR WORKDIR URI BASEDN SCHEMA OUTDIR
    local sys=$1 builddir runner
    builddir=$(cd "$2" && pwd)
    runner=$HERE/systems/$sys.sh
    [ -f "$runner" ] || { echo "perf_suite: no runner $runner" >&2; return 1; }
    mkdir -p "$7/$sys"
    LOAD_TOOL=$builddir/sss_load bash "$runner" run "$3" "$4" "$5" "$6" -- \
        bash "$HERE/perf_suite.sh" _scenarios "$(cd "$7" && pwd)/$sys" || return 1
    python3 "$HERE/perf_report.py" table "$7" --system "$sys"
    python3 "$HERE/perf_report.py" json "$7" "$7/perf.json"
}

# --- make perf -------------------------------------------------------------------------

machine_json() { # DIR: what the report says about the run
    python3 - "$1/meta.json" <<'PY'
import json, os, platform, sys, time
cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo")
            if l.startswith("model name")), "?")
env = {k: v for k, v in os.environ.items() if k.startswith("PERF_")}
json.dump({"date": time.strftime("%Y-%m-%d %H:%M:%S %z"), "nproc": os.cpu_count(),
           "cpu": cpu, "kernel": platform.release(), "knobs": env,
           "loadavg": os.getloadavg(),
           "skipped": {}}, open(sys.argv[1], "w"), indent=1)
PY
}

skip_note() { # DIR SYS REASON
    python3 - "$1/meta.json" "$2" "$3" <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))
m["skipped"][sys.argv[2]] = sys.argv[3]
json.dump(m, open(sys.argv[1], "w"), indent=1)
PY
}

all() { # BUILDDIR PREFIX OUTDIR DOC
    local builddir prefix out doc work uri sys why
    builddir=$(cd "$1" && pwd)
    prefix=$(cd "$2" && pwd)
    mkdir -p "$3" || exit 1
    out=$(cd "$3" && pwd)
    doc=$4
    [ "$(id -u)" = 0 ] || { echo "make perf needs root (namespaces, slapd)" >&2; exit 1; }
    rm -rf "${out:?}"/*
    work=$(mktemp -d /tmp/sssd-perf.XXXXXX)
    # shellcheck disable=SC2064
    trap "slapd_stop '$work/ldap' 2> /dev/null; rm -rf '$work'" EXIT
    . "$TOP/tests/lib/slapd.sh"
    machine_json "$out"

    echo "== directory: $USERS users, $NGROUPS groups, biggroup of $BIG, group5k," \
         "manygroups in $MANY groups; $SCHEMA"
    python3 "$HERE/gen_directory.py" "$USERS" "$NGROUPS" "$BIG" "$MANY" "$BASEDN" "$SCHEMA" \
        > "$work/dir.ldif" || exit 1
    mkdir -p "$work/ldap"
    uri=$(slapd_start "$work/ldap" "$work/dir.ldif" "$BASEDN") || exit 1
    rm -f "$work/dir.ldif"
    echo "slapd at $uri"

    for sys in $SYSTEMS; do
        if [ ! -f "$HERE/systems/$sys.sh" ]; then
            skip_note "$out" "$sys" "no runner tests/perf/systems/$sys.sh"
            continue
        fi
        if ! why=$(PREFIX=$prefix bash "$HERE/systems/$sys.sh" available 2>&1); then
            echo "== $sys skipped: $why"
            skip_note "$out" "$sys" "$why"
            continue
        fi
        PREFIX=$prefix system "$sys" "$builddir" "$work/sys" "$uri" "$BASEDN" "$SCHEMA" \
            "$out" || skip_note "$out" "$sys" "the run failed (see the make output)"
    done

    if [ "${PERF_OVERHEAD:-0}" = 1 ]; then
        echo "== tracing overhead: probes compiled in vs not"
        bash "$HERE/perf_overhead.sh" "$TOP" "$work/overhead" "$uri" "$BASEDN" "$SCHEMA" \
            "$builddir/sss_load" "$out/overhead" || skip_note "$out" overhead "failed"
    fi
    slapd_stop "$work/ldap"

    if [ "${PERF_AD:-1}" = 1 ]; then
        echo "== Active Directory benchmark (bench_ad.sh)"
        bash "$HERE/bench_ad.sh" "$prefix" "$builddir/sss_load" "$out/ad"
        case $? in
            0) ;;
            77) skip_note "$out" ad "no Samba AD DC here (bench_ad.sh skipped)" ;;
            *) skip_note "$out" ad "bench_ad.sh failed" ;;
        esac
    fi
    if [ "${PERF_KRB5:-1}" = 1 ]; then
        echo "== Kerberos login benchmark (bench_krb5.sh)"
        bash "$HERE/bench_krb5.sh" "$prefix" "$builddir/sss_load" "$out/krb5"
        case $? in
            0) ;;
            77) skip_note "$out" krb5 "no MIT KDC here (bench_krb5.sh skipped)" ;;
            *) skip_note "$out" krb5 "bench_krb5.sh failed" ;;
        esac
    fi
    if [ "${PERF_BUS:-1}" = 1 ] && [ -f "$HERE/bench_bus.sh" ]; then
        echo "== bus benchmark"
        bash "$HERE/bench_bus.sh" -b "$builddir" -j "$out/bus.json" \
            || skip_note "$out" bus "bench_bus.sh failed"
    fi
    if [ "${PERF_STARTUP:-1}" = 1 ]; then
        echo "== start-up benchmark"
        bash "$HERE/bench_startup.sh" "$prefix" 5 10 | tee "$out/startup.txt"
    fi
    python3 "$HERE/perf_report.py" json "$out" "$out/perf.json"
    python3 "$HERE/perf_report.py" markdown "$out" "$doc" && echo "wrote $doc and $out/perf.json"
}

case "${1:-}" in
    _scenarios) shift; scenarios "$@" ;;
    system) shift; [ $# -eq 7 ] || { sed -n '7,14p' "$0" >&2; exit 2; }; system "$@" ;;
    all) shift; [ $# -eq 4 ] || { sed -n '7,14p' "$0" >&2; exit 2; }; all "$@" ;;
    *) sed -n '2,27p' "$0" >&2; exit 2 ;;
esac
