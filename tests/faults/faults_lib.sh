# Reusable parts of the fault scenarios and of the integration tests that put faults between
# the suite and its directory servers. Sourced after tests/lib/slapd.sh (and, for the
# measurements, tests/intg/lib.sh). Every helper keeps its state under $FAULT_WORK (a
# directory the caller owns, removed with its work directory) and prints one line on
# stderr when it fails.
#
# Servers
#   fault_slapd_restart DIR          stop a slapd of tests/lib/slapd.sh and start it again on
#                                    the same port(s) with the same slapd.conf (and TLS)
#   fault_slapd_conf DIR LINE...     append database-section lines to its slapd.conf (limits,
#                                    sizelimit, ...) and restart it: e.g.
#                                    fault_slapd_conf DIR 'limits anonymous size=3'
#   fault_slapd_conf_reset DIR       drop every line fault_slapd_conf added, restart
#   fault_slapd_ldap DIR CMD ARGS... ldapadd/ldapdelete/ldapmodify as the root DN
# Proxies (tests/faults/fault_proxy.py: delays, byte trickle, resets, hang, refuse)
#   fault_proxy_start NAME HOST:PORT [proxy options...]
#                                    start a proxy to HOST:PORT on a free loopback port;
#                                    prints that port
#   fault_proxy_mode NAME hang|relay|refuse    SIGUSR1 / SIGUSR2 / SIGHUP
#   fault_proxy_stop NAME            SIGTERM; prints the proxy's counters line
# Measurements
#   loop_stall_start PID             trace the event loop of PID (one thread): the gaps
#                                    between an epoll_wait/poll returning and the next call
#                                    (perf's syscall tracepoints); no-op without perf
#   loop_stall_stop                  prints "MAX_MS N" (N = loop turns seen), or "none 0"
#   bus_ping_max DEST SECONDS [HZ]   pings sssd.service.Ping at DEST over the master bus for
#                                    SECONDS, HZ times a second (default 10); prints the
#                                    slowest answer in ms and how many pings failed
#   fault_crash_mark                 prints a mark in the monitor's log (its line count)
#   fault_crashes_since MARK [SIGS]  services the monitor saw die since MARK by a signal
#                                    other than SIGS (a regex of signal numbers, default
#                                    none: every signal counts) or exit with a status
#                                    other than 0: crashes (needs lib.sh's LOGS)

FAULT_WORK=${FAULT_WORK:-}
FAULT_PROXY_PY=${FAULT_PROXY_PY:-$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/fault_proxy.py}

_fault_need_work() {
    [ -n "$FAULT_WORK" ] && mkdir -p "$FAULT_WORK" && return 0
    echo "faults_lib: FAULT_WORK is not set" >&2
    return 1
}

# ---- slapd ------------------------------------------------------------------------------

fault_slapd_restart() { # DIR
    local dir=$1 uri turi urls port i
    uri=$(cat "$dir/uri" 2>/dev/null) || { echo "fault_slapd_restart: no $dir/uri" >&2; return 1; }
    turi=$(cat "$dir/ldaps_uri" 2>/dev/null)
    slapd_stop "$dir"
    urls="$uri/${turi:+ $turi/}"
    port=${uri##*:}
    "$SLAPD_BIN" -f "$dir/slapd.conf" -h "$urls" -n slapd-test >> "$dir/slapd.log" 2>&1
    for i in $(seq 200); do
        if [ -f "$dir/slapd.pid" ] && (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null \
                && { [ -z "$turi" ] || (exec 3<>"/dev/tcp/127.0.0.1/${turi##*:}") 2>/dev/null; }; then
            return 0
        fi
        sleep 0.05
    done
    echo "fault_slapd_restart: slapd did not come back on $uri: $(tail -n 2 "$dir/slapd.log" | tr '\n' ' ')" >&2
    return 1
}

# The lines go at the end of slapd.conf, which is the database section in slapd.sh's file.
fault_slapd_conf() { # DIR LINE...
    local dir=$1 line
    shift
    [ -f "$dir/slapd.conf.orig" ] || cp "$dir/slapd.conf" "$dir/slapd.conf.orig"
    for line in "$@"; do
        printf '%s\n' "$line" >> "$dir/slapd.conf"
    done
    fault_slapd_restart "$dir"
}

fault_slapd_conf_reset() { # DIR
    local dir=$1
    [ -f "$dir/slapd.conf.orig" ] && cp "$dir/slapd.conf.orig" "$dir/slapd.conf"
    fault_slapd_restart "$dir"
}

fault_slapd_ldap() { # DIR ldapadd|ldapdelete|ldapmodify ARGS...
    local dir=$1 cmd=$2 suffix
    shift 2
    suffix=$(sed -n 's/^suffix "\(.*\)"$/\1/p' "$dir/slapd.conf")
    "$cmd" -x -H "$(cat "$dir/uri")" -D "cn=admin,$suffix" -w "${SLAPD_ROOTPW:-secret}" "$@"
}

# ---- proxies ------------------------------------------------------------------------------

fault_proxy_start() { # NAME HOST:PORT [options...]
    local name=$1 target=$2 i port
    shift 2
    _fault_need_work || return 1
    rm -f "$FAULT_WORK/proxy.$name.port"
    python3 "$FAULT_PROXY_PY" --listen 127.0.0.1:0 --target "$target" \
        --port-file "$FAULT_WORK/proxy.$name.port" "$@" \
        > "$FAULT_WORK/proxy.$name.log" 2>&1 &
    echo $! > "$FAULT_WORK/proxy.$name.pid"
    for i in $(seq 200); do
        port=$(cat "$FAULT_WORK/proxy.$name.port" 2>/dev/null)
        if [ -n "$port" ]; then
            echo "$port"
            return 0
        fi
        kill -0 "$(cat "$FAULT_WORK/proxy.$name.pid")" 2>/dev/null || break
        sleep 0.05
    done
    echo "fault_proxy_start: proxy $name did not start: $(tail -n 2 "$FAULT_WORK/proxy.$name.log" | tr '\n' ' ')" >&2
    return 1
}

fault_proxy_mode() { # NAME hang|relay|refuse
    local pid sig
    pid=$(cat "$FAULT_WORK/proxy.$1.pid" 2>/dev/null) || return 1
    case $2 in
        hang) sig=USR1 ;;
        relay) sig=USR2 ;;
        refuse) sig=HUP ;;
        *) echo "fault_proxy_mode: unknown mode $2" >&2; return 1 ;;
    esac
    kill -"$sig" "$pid"
}

fault_proxy_stop() { # NAME
    local pid i
    pid=$(cat "$FAULT_WORK/proxy.$1.pid" 2>/dev/null) || return 0
    kill -TERM "$pid" 2>/dev/null
    for i in $(seq 100); do
        kill -0 "$pid" 2>/dev/null || break
        sleep 0.05
    done
    kill -KILL "$pid" 2>/dev/null
    rm -f "$FAULT_WORK/proxy.$1.pid"
    grep '^connections' "$FAULT_WORK/proxy.$1.log" 2>/dev/null
    return 0
}

# ---- measurements ---------------------------------------------------------------------------

_FAULT_STALL_PID=
loop_stall_start() { # PID
    _fault_need_work || return 1
    _FAULT_STALL_PID=
    command -v perf > /dev/null || return 0
    rm -f "$FAULT_WORK/stall.data"
    perf record -q -k CLOCK_MONOTONIC -o "$FAULT_WORK/stall.data" \
        -e 'syscalls:sys_enter_epoll_wait,syscalls:sys_exit_epoll_wait' \
        -e 'syscalls:sys_enter_epoll_pwait,syscalls:sys_exit_epoll_pwait' \
        -e 'syscalls:sys_enter_poll,syscalls:sys_exit_poll' \
        -t "$1" > "$FAULT_WORK/stall.log" 2>&1 &
    _FAULT_STALL_PID=$!
    # perf attaches: its output file appears first, then it records (slow under load).
    for _ in $(seq 100); do
        [ -s "$FAULT_WORK/stall.data" ] && break
        sleep 0.05
    done
    sleep 0.5
}

loop_stall_stop() {
    local end
    if [ -z "$_FAULT_STALL_PID" ]; then
        echo "none 0"
        return 0
    fi
    # A loop still stuck when the trace ends counts up to now (perf uses CLOCK_MONOTONIC).
    end=$(python3 -c 'import time; print(time.monotonic())')
    kill -INT "$_FAULT_STALL_PID" 2>/dev/null
    # Often called in $(...): a subshell cannot wait for perf, so watch it end.
    for _ in $(seq 200); do
        kill -0 "$_FAULT_STALL_PID" 2>/dev/null || break
        sleep 0.05
    done
    wait "$_FAULT_STALL_PID" 2>/dev/null
    _FAULT_STALL_PID=
    perf script -i "$FAULT_WORK/stall.data" -F tid,time,event 2>/dev/null | python3 -c '
import re, sys
end = float(sys.argv[1])
last = None
worst = 0.0
turns = 0
for line in sys.stdin:
    m = re.match(r"\s*(\d+)\s+([\d.]+):\s+syscalls:sys_(enter|exit)_(\w+):", line)
    if not m:
        continue
    t, kind = float(m.group(2)), m.group(3)
    if kind == "exit":
        last = t
    elif last is not None:
        worst = max(worst, t - last)
        turns += 1
        last = None
if last is not None and end > last:
    worst = max(worst, end - last)
    turns += 1
print("%.1f %d" % (worst * 1e3, turns) if turns else "none 0")
' "$end" | tee "$FAULT_WORK/stall.result"
    if grep -q '^none' "$FAULT_WORK/stall.result"; then
        echo "loop_stall_stop: nothing traced: $(tail -n 3 "$FAULT_WORK/stall.log" | tr '\n' ' ')" >&2
    fi
}

bus_ping_max() { # DEST SECONDS [HZ]
    local dest=$1 secs=$2 hz=${3:-10}
    BUS_ADDR=$BUS_ADDR python3 - "$dest" "$secs" "$hz" <<'PY'
import os, subprocess, sys, time
dest, secs, hz = sys.argv[1], float(sys.argv[2]), float(sys.argv[3])
addr = os.environ["BUS_ADDR"]
worst, failed, n = 0.0, 0, 0
end = time.monotonic() + secs
while time.monotonic() < end:
    t0 = time.monotonic()
    r = subprocess.run(["dbus-send", "--address=" + addr, "--print-reply",
                        "--reply-timeout=30000", "--dest=" + dest, "/sssd",
                        "sssd.service.Ping"], stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL)
    dt = time.monotonic() - t0
    n += 1
    if r.returncode != 0:
        failed += 1
    worst = max(worst, dt)
    time.sleep(max(0.0, 1.0 / hz - dt))
print("%.1f %d %d" % (worst * 1e3, failed, n))
PY
}

fault_crash_mark() {
    wc -l < "$LOGS/sssd.log" 2>/dev/null || echo 0
}

fault_crashes_since() { # MARK [SIGS]
    tail -n +"$(( $1 + 1 ))" "$LOGS/sssd.log" 2>/dev/null |
        grep -E 'killed by signal [0-9]+$|exited with status [0-9]+$' |
        grep -vE "killed by signal (${2:-none})\$|exited with status 0\$" | wc -l
}
