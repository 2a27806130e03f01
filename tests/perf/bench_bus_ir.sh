#!/bin/bash
# Instructions our master bus spends per routed message, counted by callgrind: a figure that
# does not swing with the machine's load the way bench_bus.sh's timings do (and needs no
# PMU, which VMs often lack). Runs bench_bus_master under valgrind --tool=callgrind, counting
# only inside the tevent loop (startup excluded), joins the bench_bus echo service, and
# drives CALLERS callers for SECONDS; prints user-space instructions (Ir) per message routed
# (a call or a reply) and where they go: reading and validating messages, the sender
# stamp, sending, and our own routing (rows for whichever functions the build has: the
# libdbus-based master of old, or the wire reader of sbus_wire.c). Kernel work (the socket
# syscalls, wake-ups) is not counted: bench_bus.sh's "bus CPU us/msg" has it.
#
# Usage: bench_bus_ir.sh [-b BUILDDIR] [-c CALLERS] [-s SECONDS] [-k CALLGRIND_OUT]
set -euo pipefail

builddir=.
callers=4
seconds=8
keep=
while getopts "b:c:s:k:" opt; do
    case $opt in
    b) builddir=$OPTARG ;;
    c) callers=$OPTARG ;;
    s) seconds=$OPTARG ;;
    k) keep=$OPTARG ;;
    *) sed -n '2,11p' "$0" >&2; exit 2 ;;
    esac
done
builddir=$(cd "$builddir" && pwd)
for prog in bench_bus bench_bus_master; do
    [ -x "$builddir/$prog" ] || { echo "bench_bus_ir.sh: $builddir/$prog not built" >&2; exit 2; }
done
command -v valgrind >/dev/null || { echo "bench_bus_ir.sh: valgrind missing" >&2; exit 2; }

. "$(dirname "$0")/bench_bus_lib.sh"

valgrind --tool=callgrind --collect-atstart=no --toggle-collect=_tevent_loop_once \
    --callgrind-out-file="$tmp/cg.out" "$builddir/bench_bus_master" "$tmp/bus" \
    >"$tmp/bus.out" 2>"$tmp/valgrind.err" &
master=$!
pids+=("$master")
wait_for "$tmp/bus.out" '^ready' 30
"$builddir/bench_bus" serve "unix:path=$tmp/bus" >"$tmp/svc.out" 2>&1 &
svc=$!
pids+=("$svc")
wait_for "$tmp/svc.out" '^ready' 30
"$builddir/bench_bus" call "unix:path=$tmp/bus" bus "$callers" "$seconds" 0 >"$tmp/call.json"
kill "$svc" "$master"
wait "$svc" "$master" 2>/dev/null || true
pids=()
[ -s "$tmp/cg.out" ] || { echo "bench_bus_ir.sh: callgrind wrote nothing" >&2; exit 1; }
[ -z "$keep" ] || cp "$tmp/cg.out" "$keep"

callgrind_annotate --inclusive=yes "$tmp/cg.out" >"$tmp/annotate.txt" 2>/dev/null
python3 - "$tmp/call.json" "$tmp/annotate.txt" "$callers" <<'EOF'
import json, re, sys
call = json.load(open(sys.argv[1]))
msgs = 2 * call["all_calls"]      # every call and its reply pass the bus
if msgs == 0:
    sys.exit("bench_bus_ir.sh: no call went through")
incl = {}
total = None
for line in open(sys.argv[2]):
    m = re.match(r"\s*([\d,]+) \([^)]*\)\s+(\S.*)$", line)
    if not m:
        continue
    ir = int(m.group(1).replace(",", ""))
    what = m.group(2)
    if what.startswith("PROGRAM TOTALS"):
        total = ir
        continue
    fn = re.sub(r"\s*\[.*\]$", "", what).split(":")[-1]
    incl[fn] = max(incl.get(fn, 0), ir)
rows = [
    ("libdbus: read, parse and validate (_dbus_message_loader_queue_messages)",
     "_dbus_message_loader_queue_messages"),
    ("  of which the body against its signature (_dbus_validate_body_with_reason)",
     "_dbus_validate_body_with_reason"),
    ("  of which signatures (_dbus_validate_signature_with_reason)",
     "_dbus_validate_signature_with_reason"),
    ("libdbus: dispatch, total (dbus_connection_dispatch)", "dbus_connection_dispatch"),
    ("  our filter, total (sbus_server_filter)", "sbus_server_filter"),
    ("    sender stamp (dbus_message_set_sender)", "dbus_message_set_sender"),
    ("    send (dbus_connection_send)", "dbus_connection_send"),
    ("libc mutexes, all callers (pthread_mutex_lock)", "pthread_mutex_lock@@GLIBC_2.2.5"),
    # the master's own wire path (src/sbus/sbus_wire*.c, sbus_server_io.c)
    ("a peer's socket, total (sbus_peer_handler)", "sbus_peer_handler"),
    ("  one message, total (sbus_server_message)", "sbus_server_message"),
    ("    validation, total (sbus_wire_parse)", "sbus_wire_parse"),
    ("      the body against its signature (sbus_wire_validate_values)",
     "sbus_wire_validate_values"),
    ("    our routing, total (sbus_server_route)", "sbus_server_route"),
    ("      sender stamp (sbus_wire_stamp_sender)", "sbus_wire_stamp_sender"),
    ("      writing, total (sbus_peer_write)", "sbus_peer_write"),
]
print("Master bus, user-space instructions per routed message (callgrind; %d callers, "
      "%d messages)" % (int(sys.argv[3]), msgs))
print("%-76s %10.0f" % ("total (the tevent loop, startup excluded)", total / msgs))
for label, fn in rows:
    if fn in incl:
        print("%-76s %10.0f" % (label, incl[fn] / msgs))
print(json.dumps({"benchmark": "bench_bus_ir", "callers": int(sys.argv[3]), "messages": msgs,
                  "ir_per_msg": round(total / msgs)}))
EOF
