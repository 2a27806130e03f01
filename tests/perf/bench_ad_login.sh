#!/bin/bash
# Where an AD login's cost at the DC goes (issue 16), step by step, for ours and Debian's
# stock SSSD 2.8 side by side (tests/perf/systems), on one private Samba AD DC
# (tests/lib/samba_ad.sh) with bench_ad.sh's sssd.conf (ad_bench_conf.sh: auth_provider =
# ad, access_provider = ad, GPOs off). Steps (bench_ad_login_steps.sh, through pamtester):
#   start      the system restarted with empty caches, then getent passwd of the user (x10)
#   first      the first login after a start (auth + acct)
#   login      ADL_N logins (auth + acct), the first of them past pam_id_timeout
#   idle       as long as the logins took, doing nothing (the DC's background)
#   auth, acct ADL_N of each alone
# For each: the DC's CPU per operation (/proc of samba and its children: its KDC workers,
# its LDAP workers, and the rest, the DC's own periodic work such as samba_kcc), and in a
# second pass (ADL_OPS=1, the default) with the LDAP workers at log level 10, the LDAP
# searches and SASL binds the DC logged per operation. The systems run in their own pid
# namespaces: a sampler here, outside, reads the DC's counters when a step asks for them.
# Usage: bench_ad_login.sh PREFIX   (root; 77 without Samba's AD DC or pamtester)
# Knobs: ADL_N (100), ADL_SYSTEMS ("ours stock_sssd"), ADL_OPS (1), ADL_SETTLE (30 s of
# the DC's start-up work first), AD_SYSW as bench_ad.sh. /proc counts 10 ms ticks: the
# per-operation figures of one start or one login are coarse, those of 100 are not.
set -u
PREFIX=$(cd "$1" && pwd)
TOP=$(cd "$(dirname "$0")/../.." && pwd)
HERE=$TOP/tests/perf
. "$TOP/tests/lib/samba_ad.sh"
. "$HERE/side_by_side.sh"
. "$HERE/ad_bench_conf.sh"
reason=$(samba_ad_skip_reason)
[ -z "$reason" ] || { echo "SKIP: $reason"; exit 77; }
command -v pamtester > /dev/null || { echo "SKIP: no pamtester"; exit 77; }
SYSTEMS=${ADL_SYSTEMS:-ours stock_sssd}
export AD_SYSW=${AD_SYSW:-/tmp/bench_ad_systems} STOCK_SSSD_EXTRA_PACKAGES=sssd-ad
if [ -z "${SAMBA_AD_IN_NS:-}" ]; then
    for sys in $SYSTEMS; do
        PREFIX=$PREFIX bash "$HERE/systems/$sys.sh" available > /dev/null 2>&1 \
            && { PREFIX=$PREFIX bash "$HERE/systems/$sys.sh" prepare "$AD_SYSW" \
                 || echo "$sys: fetching its packages failed"; }
    done
fi
samba_ad_enter "$0" "$@"

export ADL_N=${ADL_N:-100} ADL_PASSWORD=AdLogin-Pass1
WORK=$(mktemp -d /tmp/bench_ad_login.XXXXXX)
chmod 0755 "$WORK"
trap 'samba_ad_stop; rm -rf "$WORK"' EXIT
samba_ad_start "$WORK/dc" || { echo "the Samba AD DC did not start"; exit 1; }
samba_ad_user adlogin "$ADL_PASSWORD" || exit 1
samba_ad_join || exit 1
# One configuration for both systems (ad_bench_conf.sh).
ad_bench_conf "$WORK/sssd.conf"
export PERF_SSSD_CONF=$WORK/sssd.conf
DC_PID=$(cat "$SAMBA_AD_DIR/run/samba.pid")
DC_LOG=/var/log/samba/log.%m
# The DC's counters: "KDC LDAP OTHER SEARCHES BINDS": the CPU time (ms) of samba and its
# children (their own and what they reaped, /proc/PID/stat) by worker title, other being
# the DC's own periodic work (samba_kcc, drepl); the LDAP searches and SASL binds its LDAP
# workers logged (log level 10, the ops pass only).
dc_sample() {
    python3 - "$DC_PID" <<'PY'
import os, sys
hz = os.sysconf("SC_CLK_TCK")
procs = {}
for pid in filter(str.isdigit, os.listdir("/proc")):
    try:
        f = open("/proc/%s/stat" % pid).read().rsplit(")", 1)[1].split()
        cmd = open("/proc/%s/cmdline" % pid).read()
    except OSError:
        continue
    procs[pid] = (f[1], sum(int(x) for x in f[11:15]), cmd)
todo, t = [sys.argv[1]], {"kdc": 0, "ldap": 0, "other": 0}
while todo:
    pid = todo.pop()
    if pid in procs:
        cmd = procs[pid][2]
        k = "kdc" if "task[kdc]" in cmd else "ldap" if "task[ldap]" in cmd else "other"
        t[k] += procs[pid][1]
        todo += [p for p, v in procs.items() if v[0] == pid]
print(*(t[k] * 1000 // hz for k in ("kdc", "ldap", "other")))
PY
    local s b
    s=$(grep -c 'LDAP Query: Duration' "$DC_LOG" 2>/dev/null)
    b=$(grep -c 'BindSASL dn:' "$DC_LOG" 2>/dev/null)
    echo "${s:-0} ${b:-0}"
}
# The sampler the steps ask (bench_ad_login_steps.sh: mark): one line per request.
export ADL_SYNC=$WORK/sync
mkdir -p "$ADL_SYNC"
chmod 0777 "$ADL_SYNC"
sampler() {
    while :; do
        if [ -e "$ADL_SYNC/req" ]; then
            echo "$(cat "$ADL_SYNC/req") $(dc_sample | tr '\n' ' ')" >> "$WORK/samples"
            rm -f "$ADL_SYNC/req"
            touch "$ADL_SYNC/ack"
        fi
        sleep 0.02
    done
}
ldap_log_level() {
    local p
    for p in $(pgrep -f 'task\[ldap\]'); do
        smbcontrol -s "$SAMBA_AD_DIR/etc/smb.conf" "$p" debug "$1" > /dev/null
    done
}
sampler &
SAMPLER_PID=$!
trap 'kill "$SAMPLER_PID" 2>/dev/null; samba_ad_stop; rm -rf "$WORK"' EXIT
# The DC's first minutes hold its start-up work (samba_kcc, replication set-up).
sleep "${ADL_SETTLE:-30}"
# side_by_side's runner wants a load tool; these steps drive pamtester and getent.
LOAD_TOOL=/bin/true
mkdir -p "$WORK/out"
passes=cpu
[ "${ADL_OPS:-1}" = 1 ] && passes="cpu ops"
for pass in $passes; do
    [ "$pass" = ops ] && ldap_log_level 10
    : > "$WORK/samples"
    for sys in $SYSTEMS; do
        side_by_side "$sys" "$AD_SYSW" "ldap://$SAMBA_AD_DC" "$SAMBA_AD_BASE" 1 \
            "$WORK/out" "$HERE/bench_ad_login_steps.sh" | grep -v '^=='
        cat "$WORK/out/skipped.txt"
    done
    # begin/end pairs: per operation of the step
    awk -v pass="$pass" '$4 == "begin" { for (i = 5; i <= 9; i++) b[i] = $i; next }
        $4 == "end" { n = $3
            if (pass == "cpu")
                printf "%-10s %-6s x%-4d DC CPU %.2f ms per op (KDC %.2f, LDAP %.2f, other %.2f)\n",
                    $1, $2, n, ($5 + $6 + $7 - b[5] - b[6] - b[7]) / n, ($5 - b[5]) / n,
                    ($6 - b[6]) / n, ($7 - b[7]) / n
            else
                printf "%-10s %-6s x%-4d LDAP searches %.2f, SASL binds %.2f per op\n",
                    $1, $2, n, ($8 - b[8]) / n, ($9 - b[9]) / n }' "$WORK/samples"
    [ "$pass" = ops ] && ldap_log_level 0
done
uptime
