#!/bin/bash
# Enumeration of a large directory keeps the back-end responsive (issue 11, item 7, the
# back-end's part): tests/perf/gen_directory.py's directory (USERS users, USERS/10 groups,
# about ten groups per user, a group of all users and one of 5,000), enumerate = true:
# rfc2307bis with 20,000 users (member DNs: the member graph is the work), rfc2307 with
# 100,000 (the stores and the stale-entry scan are). During the first round the back-end is pinged over
# the bus and its event loop traced with perf (tests/faults/faults_lib.sh): the slowest ping
# and the longest loop stall must stay under 1 s (a generous bound, not a speed target:
# parsing, member graphs, stores and the removal of stale entries are sliced). The round must
# store every user and group. Figures are printed.
# Usage: test_prov_enum_loop.sh PREFIX [SCHEMA:USERS...]   (run as root)
set -u
PREFIX=$(cd "$1" && pwd)
shift
RUNS=${*:-rfc2307bis:20000 rfc2307:100000}
TOP=$(cd "$(dirname "$0")/../.." && pwd)
TEST_NAME=prov-enumloop
. "$TOP/tests/intg/slapd_env.sh"
. "$TOP/tests/faults/faults_lib.sh"


DOM=big.test
DEST=sssd.domain_big_2etest
S=dc=big,dc=test
BELOG=$LOGS/sssd_be_$DOM.log
FAULT_WORK=$WORK/faults
intg_on_exit 'loop_stall_stop > /dev/null 2>&1'

round_done() { grep -qE "Enumeration of $DOM (done|failed)" "$BELOG" 2>/dev/null; }

run_schema() { # SCHEMA USERS
    local schema=$1 USERS=$2 t0 pid ping stall n_users n_groups ping_ms failed pings stall_ms turns
    slapd_stop "$WORK/ldap" 2>/dev/null
    rm -rf "$WORK/ldap"
    mkdir -p "$WORK/ldap"
    python3 "$TOP/tests/perf/gen_directory.py" "$USERS" $((USERS / 10)) "$USERS" 500 $S \
        "$schema" > "$WORK/dir.ldif"
    URI=$(slapd_start "$WORK/ldap" "$WORK/dir.ldif" $S) || { fail "$schema: slapd"; return; }
    rm -f "$BELOG"
    write_conf <<CONF
[sssd]
services = nss
domains = $DOM

[domain/$DOM]
id_provider = ldap
ldap_uri = $URI
ldap_search_base = $S
ldap_schema = $schema
enumerate = true
ldap_enumeration_refresh_timeout = 3600
debug_level = 6
CONF
    start_sssd || { fail "$schema: sssd did not start"; return; }
    wait_name "$DEST" 10000 || { fail "$schema: the back-end is not on the bus"; return; }
    pid=$(be_pid $DOM)
    loop_stall_start "$pid"
    t0=$(now_ms)
    : > "$WORK/pings"
    while ! round_done && [ $(( $(now_ms) - t0 )) -lt 300000 ]; do
        bus_ping_max "$DEST" 1 20 >> "$WORK/pings"
    done
    stall=$(loop_stall_stop)
    check "$schema: the enumeration round ended ($(( $(now_ms) - t0 )) ms)" \
        grep -q "Enumeration of $DOM done" "$BELOG"
    ping=$(sort -n -k1 "$WORK/pings" | tail -n 1)
    read -r ping_ms failed pings <<<"$ping"
    failed=$(awk '{f += $2; n += $3} END {print f + 0, n + 0}' "$WORK/pings")
    read -r stall_ms turns <<<"$stall"
    echo "     $schema: slowest ping $ping_ms ms (failed/sent: $failed), longest loop" \
         "stall $stall_ms ms over $turns turns;" \
         "$(grep -o "Enumeration of $DOM done.*" "$BELOG")"
    check "$schema: every ping answered" test "${failed%% *}" = 0
    check "$schema: slowest ping under 1 s ($ping_ms ms)" \
        python3 -c "import sys; sys.exit(0 if float('${ping_ms:-99999}') < 1000 else 1)"
    if [ "$stall_ms" != none ]; then
        check "$schema: longest event-loop stall under 1 s ($stall_ms ms)" \
            python3 -c "import sys; sys.exit(0 if float('$stall_ms') < 1000 else 1)"
    fi
    n_users=$(in_nss_ns getent passwd | wc -l)
    n_groups=$(in_nss_ns getent group | wc -l)
    check "$schema: getent passwd lists every user ($n_users)" \
        test "$n_users" -eq "$(grep -c '^objectClass: posixAccount' "$WORK/dir.ldif")"
    check "$schema: getent group lists every group ($n_groups)" \
        test "$n_groups" -eq "$(grep -c '^objectClass: posixGroup' "$WORK/dir.ldif")"
    stop_sssd
}

for run in $RUNS; do
    run_schema "${run%%:*}" "${run##*:}"
done
summary
