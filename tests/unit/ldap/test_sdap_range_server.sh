#!/bin/bash
# Runs test_sdap_range_server (cmocka) against range_server.py, a loopback LDAP server that
# ranges member as a Windows DC does, unasked, or as a broken or hostile server does: one
# server a mode, their URIs exported as SDAP_RANGE_<MODE>_URI (WINDOWS, REPEAT, ENDLESS,
# SHORT, GONE). Exit 77 without python3.
set -u
here=$(cd "$(dirname "$0")" && pwd)
top_srcdir=${srcdir:-$here/../../..}
command -v python3 > /dev/null || { echo "python3 not installed: skipped"; exit 77; }
bin=${TEST_SDAP_RANGE_SERVER_BIN:-./test_sdap_range_server}
[ -x "$bin" ] || { echo "$bin not built"; exit 99; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/test_sdap_range.XXXXXX") || exit 99
pids=
cleanup() {
    [ -n "$pids" ] && kill $pids 2>/dev/null && wait $pids 2>/dev/null
    rm -rf "$tmp"
}
trap cleanup EXIT
for mode in windows repeat endless short gone; do
    python3 "$here/range_server.py" --mode $mode --values 3500 --window 1500 \
        --port-file "$tmp/$mode.port" > "$tmp/$mode.log" 2>&1 &
    pids="$pids $!"
done
for mode in windows repeat endless short gone; do
    for _ in $(seq 200); do
        [ -s "$tmp/$mode.port" ] && break
        sleep 0.05
    done
    [ -s "$tmp/$mode.port" ] || { echo "range_server.py ($mode) did not start"; exit 99; }
    export "SDAP_RANGE_${mode^^}_URI=ldap://127.0.0.1:$(cat "$tmp/$mode.port")"
done
"$bin"
