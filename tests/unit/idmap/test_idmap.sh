#!/bin/bash
# Runs test_idmap (cmocka) on the scenarios idmap_ref.py (an independent Python model of
# SSSD's SID -> id mapping) prints with the ids it expects. Exit 77 without python3.
set -u
here=$(cd "$(dirname "$0")" && pwd)
top_srcdir=${srcdir:-$here/../../..}
command -v python3 > /dev/null || { echo "python3 not installed: skipped"; exit 77; }
bin=${TEST_IDMAP_BIN:-./test_idmap}
[ -x "$bin" ] || { echo "$bin not built"; exit 99; }
cases=$(mktemp "${TMPDIR:-/tmp}/test_idmap.XXXXXX") || exit 99
trap 'rm -f "$cases"' EXIT
python3 "$top_srcdir/tests/unit/idmap/idmap_ref.py" > "$cases" || exit 99
"$bin" "$cases"
