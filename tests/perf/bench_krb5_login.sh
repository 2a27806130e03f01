#!/bin/bash
# Kerberos login figures (issue 13): auth + acct through our pam_sss.so with
# auth_provider = krb5 against a private MIT KDC on loopback (the set-up of
# tests/intg/krb5_env.sh: private realm, slapd, namespace), driven by sss_load's pam
# workload (pam_start/authenticate/acct_mgmt/end in-process):
#   - one worker: the login latency (p50, p99)
#   - 20 workers at once: the same, and the longest event-loop stalls of sssd_be while
#     they run (perf's epoll tracepoints, as bench_identity.sh measures them)
# Every login gets a TGT and writes a fresh ccache (FILE:%d/krb5cc_%U_XXXXXX), so each one
# is one krb5_child, one AS-REQ (two with preauth) and one string-to-key (AES: OpenSSL's
# PBKDF2, krb5_child_s2k.c, since 2026-11-25; libk5crypto's before: ~1.8 ms more of the
# child's work, BENCH_SPLIT's 'child: AS-REQ .. ccache'). The krb5_child CPU figure
# includes what a spare does before its login (libkrb5 and OpenSSL set-up).
# Usage: bench_krb5_login.sh PREFIX [SSS_LOAD]   (root)
#   BENCH_N (default 200) logins per figure; BENCH_STALL=0 skips the stall trace;
#   BENCH_DIRECT=0 reaches the KDC through tests/faults/fault_proxy.py as the tests do.
#   Each figure also gives the CPU time per login of sssd_be, of the krb5_child processes
#   (sssd_be's reaped children), of sssd_pam and of the KDC (/proc/PID/stat; 10 ms ticks,
#   so meaningful over ~100 logins and more).
#   BENCH_PREAUTH=1: alice's principal requires pre-authentication (+requires_preauth, as
#   realms usually are, and AD always): without a salt hint a login is two AS exchanges,
#   with the hint of her previous login one (krb5_child_asreq.c); the KDC's log then
#   gives the AS_REQ lines per login.
#   BENCH_SPLIT=1: where a 1-worker login's time goes, from the daemons' own timestamps
#   (debug_level 0x3ff0 for that run): sssd_be's request to krb5_child's first line (the
#   lookup, fork, exec, ld.so, libkrb5 start), the child's work (AS-REQ, string-to-key,
#   ccache), and the child's answer to the PAM reply. Figures with logging on.
set -u
PREFIX=$(cd "$1" && pwd)
TOP=$(cd "$(dirname "$0")/../.." && pwd)
LOAD_TOOL=${2:-$(dirname "$0")/../../build/ci/sss_load}
LOAD_TOOL=$(cd "$(dirname "$LOAD_TOOL")" && pwd)/$(basename "$LOAD_TOOL")
if [ -z "${KRB5T_IN_NS:-}" ]; then
    exec unshare --mount --propagation private -- env KRB5T_IN_NS=1 bash "$0" "$PREFIX" "$LOAD_TOOL"
fi
[ -x "$LOAD_TOOL" ] || { echo "SKIP: no sss_load at $LOAD_TOOL"; exit 77; }
. "$TOP/tests/intg/krb5_env.sh"
N=${BENCH_N:-200}
# The KDC directly: the fault proxy the tests put in front of it (a Python relay, one per
# connection) is not part of a login. BENCH_DIRECT=0 keeps it (as the figures before
# 2026-11-25 were taken).
[ "${BENCH_DIRECT:-1}" = 1 ] && PROXY_PORT=$KDC_PORT
export KRB5T_DEBUG=${KRB5T_DEBUG:-2}    # the default logging: figures without debug output
[ "${BENCH_SPLIT:-0}" = 1 ] && KRB5T_DEBUG=0x3ff0

if [ "${BENCH_PREAUTH:-0}" = 1 ]; then
    krb5kdc_kadmin "$WORK/kdc" "modprinc +requires_preauth alice" || exit 1
fi
restart "" || { echo "FAIL: sssd did not start"; exit 1; }
login 0 Alice-Krb1 alice || { echo "FAIL: the first login: $LAST_OUT"; exit 1; }

stall_pid=
if [ "${BENCH_STALL:-1}" = 1 ] && command -v perf > /dev/null; then
    perf record -q -o "$WORK/stall.data" \
        -e 'syscalls:sys_enter_epoll_wait,syscalls:sys_exit_epoll_wait' \
        -e 'syscalls:sys_enter_epoll_pwait,syscalls:sys_exit_epoll_pwait' \
        -p "$(be_pid krbtest)" > "$WORK/stall.log" 2>&1 &
    stall_pid=$!
fi

# CPU time (ms) of a process, and of its reaped children, from /proc/PID/stat: figures
# that hold on a loaded machine, where the wall-clock ones swing 2x.
cpu_ms() { # PID -> "SELF CHILDREN"
    awk -v hz="$(getconf CLK_TCK)" '{ sub(/^.*\) /, ""); printf "%d %d\n", ($12 + $13) * 1000 / hz,
        ($14 + $15) * 1000 / hz }' "/proc/$1/stat" 2>/dev/null || echo "0 0"
}
cpu_snap() {
    local be pam kdc
    be=$(cpu_ms "$(be_pid krbtest)")
    pam=$(cpu_ms "$(pgrep -f "^$PREFIX/libexec/sssd/sssd_pam" | head -n1)")
    kdc=$(cpu_ms "$(cat "$WORK/kdc/krb5kdc.pid" 2>/dev/null)")
    echo "$be ${pam% *} ${kdc% *}"
}
figure() { # LABEL WORKERS
    local c0 c1
    c0=$(cpu_snap)
    "$LOAD_TOOL" --label "$1" -w "$2" -n "$N" --warmup 5 --key alice --no-header \
        pam krb5test Alice-Krb1
    c1=$(cpu_snap)
    # sssd_be reaps the krb5_child processes: theirs is its children's time.
    echo "$c0 $c1" | awk -v n=$((N + 5)) '{ printf "  CPU per login (ms): sssd_be %.2f, krb5_child %.2f, sssd_pam %.2f, krb5kdc %.2f\n",
        ($5 - $1) / n, ($6 - $2) / n, ($7 - $3) / n, ($8 - $4) / n }'
}
echo "== Kerberos login (auth + acct), online, $N logins"
figure krb5_login_1 1
sleep 1
[ -n "$stall_pid" ] && { kill -INT "$stall_pid"; wait "$stall_pid"; }
# The stall trace covers the 1-worker run; the 20-worker run gets its own.
if [ -n "$stall_pid" ]; then
    mv "$WORK/stall.data" "$WORK/stall1.data"
    perf record -q -o "$WORK/stall.data" \
        -e 'syscalls:sys_enter_epoll_wait,syscalls:sys_exit_epoll_wait' \
        -e 'syscalls:sys_enter_epoll_pwait,syscalls:sys_exit_epoll_pwait' \
        -e 'sched:sched_stat_runtime' \
        -p "$(be_pid krbtest)" > "$WORK/stall.log" 2>&1 &
    stall_pid=$!
    sleep 0.5
fi
figure krb5_login_20 20
if [ -n "$stall_pid" ]; then
    kill -INT "$stall_pid"
    wait "$stall_pid"
    perf script -i "$WORK/stall.data" -F tid,time,event,trace 2>/dev/null | python3 -c '
import re, sys
# Wall gaps between a loop turn'"'"'s epoll return and the next epoll call, and the CPU
# time sssd_be itself used in each (sched_stat_runtime): on a loaded machine the wall gap
# includes preemption, the CPU figure is what the loop itself spent.
last = {}
run = {}
gaps = []
for line in sys.stdin:
    m = re.match(r"\s*(\d+)\s+([\d.]+):\s+(\S+):\s*(.*)", line)
    if not m:
        continue
    tid, t, ev, rest = m.group(1), float(m.group(2)), m.group(3), m.group(4)
    if ev == "sched:sched_stat_runtime":
        r = re.search(r"runtime=(\d+)", rest)
        if r and tid in last:
            run[tid] = run.get(tid, 0) + int(r.group(1))
        continue
    k = re.match(r"syscalls:sys_(enter|exit)_", ev)
    if not k:
        continue
    if k.group(1) == "exit":
        last[tid] = t
        run[tid] = 0
    elif tid in last:
        gaps.append((t - last.pop(tid), run.pop(tid, 0) / 1e9))
if not gaps:
    print("event-loop stall: no trace")
else:
    wall = sorted((g for g, _ in gaps), reverse=True)
    cpu = sorted((c for _, c in gaps), reverse=True)
    print("sssd_be loop turns during 20 parallel logins: %d" % len(gaps))
    print("  longest wall gaps (ms): " + " ".join("%.2f" % (g * 1e3) for g in wall[:8]))
    print("  most CPU in one turn (ms): " + " ".join("%.2f" % (c * 1e3) for c in cpu[:8]))'
fi
n=$(ls "$WORK"/cc/alice | wc -l)
echo "ccaches written: $n"
# Every AS_REQ the KDC answered for alice, by outcome (NEEDED_PREAUTH: an exchange that
# only fetched the salt).
echo "KDC AS_REQ lines for alice: $(grep "AS_REQ" "$WORK/kdc/krb5kdc.log" \
    | grep " alice@$REALM for krbtgt/" | sed -n 's/^.*) [0-9a-f.:]*: \([A-Z_]*\): .*$/\1/p' \
    | sort | uniq -c | tr -s ' ' | tr '\n' ' ')"
[ "${BENCH_SPLIT:-0}" = 1 ] && python3 - "$LOGS" "$N" <<'SPLIT'
import statistics as st
import sys
from datetime import datetime
logs, n = sys.argv[1], int(sys.argv[2])
ts = lambda line: datetime.strptime(line[1:27], "%Y-%m-%d %H:%M:%S.%f").timestamp()
be = [l for l in open(logs + "/sssd_be_krbtest.log") if "PAM 0xf1 for [alice" in l]
ch = [l for l in open(logs + "/krb5_child.log") if "command 1 for [alice" in l]
start = [ts(l) for l in be if "be_pam_send" in l]
end = [ts(l) for l in be if "pam_status" in l]
cs = [ts(l) for l in ch if "], uid " in l]
ce = [ts(l) for l in ch if "]: status " in l]
# The 1-worker run (after the first login and the 5 warm-up ones): one at a time, in order.
rows = list(zip(start, cs, ce, end))[6:6 + n]
parts = (("sssd_be request -> child running", 0, 1), ("child: AS-REQ .. ccache", 1, 2),
         ("child done -> PAM reply", 2, 3), ("the whole step in sssd_be", 0, 3))
print("where a login goes (1 worker, %d logins, ms):" % len(rows))
for name, a, b in parts:
    v = [(r[b] - r[a]) * 1e3 for r in rows]
    print("  %-34s p50 %6.2f  min %6.2f  max %6.2f" % (name, st.median(v), min(v), max(v)))
SPLIT
exit 0
