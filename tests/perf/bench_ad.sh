#!/bin/bash
# Active Directory benchmark (issue 16's figures; prints them, never fails on timing): ours
# and Debian's stock SSSD 2.8 with sssd-ad, side by side, against one private Samba AD DC
# (tests/lib/samba_ad.sh) that this script provisions, fills and joins. Both systems get the
# same sssd.conf (id_provider = ad, SID mapping, tokenGroups, auth through the DC's KDC) and
# run in their own namespaces (tests/perf/systems) inside the DC's network namespace;
# bench_ad_scenarios.sh takes the figures. `make perf` runs it (PERF_AD=1, the default) and
# docs/PERFORMANCE.md shows them; by hand:
#   bench_ad.sh PREFIX SSS_LOAD OUTDIR      (root; 77 without Samba's AD DC)
# OUTDIR gets SYS/*.json (one sss_load result per figure and run) and skipped.txt.
# Knobs: AD_RUNS (3), AD_COLD_N users for cold getpwnam (200), AD_ID_N users for cold `id`
# in 50 groups each (10), AD_LOGINS (50), AD_MANY groups of the big user (5000; 0: none),
# AD_SYSTEMS ("ours stock_sssd"), AD_SYSW (/tmp/bench_ad_systems: the systems' unpacked
# packages, kept between runs, and their run directories).
set -u
PREFIX=$(cd "$1" && pwd)
LOAD_TOOL=$(cd "$(dirname "$2")" && pwd)/$(basename "$2")
mkdir -p "$3" || exit 1
OUTDIR=$(cd "$3" && pwd)
TOP=$(cd "$(dirname "$0")/../.." && pwd)
HERE=$TOP/tests/perf
. "$TOP/tests/lib/samba_ad.sh"
. "$HERE/side_by_side.sh"
. "$HERE/ad_bench_conf.sh"
reason=$(samba_ad_skip_reason)
[ -z "$reason" ] || { echo "SKIP: $reason"; exit 77; }
[ -x "$LOAD_TOOL" ] || { echo "SKIP: no sss_load at $LOAD_TOOL"; exit 77; }
SYSTEMS=${AD_SYSTEMS:-ours stock_sssd}
# The systems' packages are fetched here, before the DC's namespace, which has no network.
export AD_SYSW=${AD_SYSW:-/tmp/bench_ad_systems} STOCK_SSSD_EXTRA_PACKAGES=sssd-ad
if [ -z "${SAMBA_AD_IN_NS:-}" ]; then
    for sys in $SYSTEMS; do
        PREFIX=$PREFIX bash "$HERE/systems/$sys.sh" available > /dev/null 2>&1 \
            && { PREFIX=$PREFIX bash "$HERE/systems/$sys.sh" prepare "$AD_SYSW" \
                 || echo "$sys: fetching its packages failed"; }
    done
fi
samba_ad_enter "$0" "$@"

export AD_RUNS=${AD_RUNS:-3} AD_COLD_N=${AD_COLD_N:-200} AD_ID_N=${AD_ID_N:-10}
export AD_LOGINS=${AD_LOGINS:-50} AD_MANY=${AD_MANY:-5000}
export AD_PASSWORD=AdLogin-Pass1
WORK=$(mktemp -d /tmp/bench_ad.XXXXXX)
chmod 0755 "$WORK"
trap 'samba_ad_stop; rm -rf "$WORK"' EXIT
now_ms() { date +%s%3N; }

t0=$(now_ms)
samba_ad_start "$WORK/dc" || { echo "the Samba AD DC did not start"; exit 1; }
samba_ad_user adlogin "$AD_PASSWORD" || exit 1
samba_ad_user adprime "$AD_PASSWORD" || exit 1
samba_ad_join || exit 1
# Users without passwords need nothing but an LDAP add; one LDIF, one connection.
{
    for i in $(seq 0 $((AD_COLD_N - 1))); do
        printf 'dn: CN=adu%04d,CN=Users,%s\nobjectClass: user\nsAMAccountName: adu%04d\n\n' \
            "$i" "$SAMBA_AD_BASE" "$i"
    done
    for i in $(seq 0 $((AD_ID_N - 1))); do
        u=$(printf adid%02d "$i")
        printf 'dn: CN=%s,CN=Users,%s\nobjectClass: user\nsAMAccountName: %s\n\n' \
            "$u" "$SAMBA_AD_BASE" "$u"
        for g in $(seq 1 50); do
            printf 'dn: CN=%s_g%02d,CN=Users,%s\nobjectClass: group\nsAMAccountName: %s_g%02d\n' \
                "$u" "$g" "$SAMBA_AD_BASE" "$u" "$g"
            printf 'member: CN=%s,CN=Users,%s\n\n' "$u" "$SAMBA_AD_BASE"
        done
    done
    if [ "$AD_MANY" -gt 0 ]; then
        printf 'dn: CN=u5k,CN=Users,%s\nobjectClass: user\nsAMAccountName: u5k\n\n' \
            "$SAMBA_AD_BASE"
        for g in $(seq 1 "$AD_MANY"); do
            printf 'dn: CN=bg%d,CN=Users,%s\nobjectClass: group\nsAMAccountName: bg%d\n' \
                "$g" "$SAMBA_AD_BASE" "$g"
            printf 'member: CN=u5k,CN=Users,%s\n\n' "$SAMBA_AD_BASE"
        done
    fi
} > "$WORK/fill.ldif"
ldapadd -x -c -H "ldap://$SAMBA_AD_DC_IP" -D "Administrator@$SAMBA_AD_DOMAIN" \
    -w "$SAMBA_AD_ADMINPASS" -f "$WORK/fill.ldif" > "$WORK/fill.log" 2>&1 \
    || { echo "filling the DC failed: $(grep -m3 -i 'error\|ldap_' "$WORK/fill.log")"; exit 1; }
echo "# DC provisioned, joined and filled ($AD_COLD_N + $AD_ID_N users, $((AD_ID_N * 50))" \
     "+ $AD_MANY groups) in $(( $(now_ms) - t0 )) ms"

# One configuration for both systems (ad_bench_conf.sh).
ad_bench_conf "$WORK/sssd.conf"
export PERF_SSSD_CONF=$WORK/sssd.conf
# The DC's CPU time so far (ms): samba and every process under it, their own time and that
# of the children they reaped (/proc/PID/stat). Taken around each system's runs, it is the
# DC's work for that system's figures (AD_LOGINS logins of each run and its lookups):
# a figure that holds on a loaded machine, where the latencies swing 2x.
dc_cpu_ms() {
    python3 - "$(cat "$SAMBA_AD_DIR/run/samba.pid" 2>/dev/null)" <<'PY'
import os, sys
hz = os.sysconf("SC_CLK_TCK")
procs = {}
for pid in filter(str.isdigit, os.listdir("/proc")):
    try:
        f = open("/proc/%s/stat" % pid).read().rsplit(")", 1)[1].split()
    except OSError:
        continue
    procs[pid] = (f[1], sum(int(x) for x in f[11:15]))
todo, total = [sys.argv[1]], 0
while todo:
    pid = todo.pop()
    if pid in procs:
        total += procs[pid][1]
        todo += [p for p, (ppid, _) in procs.items() if ppid == pid]
print(total * 1000 // hz)
PY
}
# The runner's URI/BASEDN are unused: PERF_SSSD_CONF replaces its conf. One system at a
# time, for the DC's CPU time of each.
: > "$WORK/skipped.all"
for sys in $SYSTEMS; do
    c0=$(dc_cpu_ms)
    side_by_side "$sys" "$AD_SYSW" "ldap://$SAMBA_AD_DC" "$SAMBA_AD_BASE" "$AD_RUNS" "$OUTDIR" \
        "$HERE/bench_ad_scenarios.sh"
    cat "$OUTDIR/skipped.txt" >> "$WORK/skipped.all"
    c1=$(dc_cpu_ms)
    echo "# $sys: the DC's CPU time during its $AD_RUNS runs: $((c1 - c0)) ms" \
         "($((AD_RUNS * (AD_LOGINS + 1))) logins, $((AD_RUNS * (AD_COLD_N + AD_ID_N + 1)))" \
         "cold lookups, the $AD_MANY-group user once); with AD_COLD_N=1 AD_ID_N=1" \
         "AD_MANY=0 it is the logins': $(awk -v c=$((c1 - c0)) -v n=$((AD_RUNS * (AD_LOGINS + 1))) \
         'BEGIN { printf "%.2f", c / n }') ms each"
done
cp "$WORK/skipped.all" "$OUTDIR/skipped.txt"
python3 "$HERE/perf_report.py" ad "$OUTDIR"
