# Two streams of requests through a real client while the suite's processes are killed
# with SIGKILL in turn: one stream whose requests must go through (once the killed part is
# back), one whose requests must never go through. Sourced by scenario_kill_pam.sh (logins
# with the right and a wrong password) and scenario_kill_sudo.sh (allowed and forbidden
# sudo commands), after scenario_env.sh.
#
# The scenario defines
#   ks_request good|bad   one request; prints "END_MS DURATION_MS through|refused"
# and sets
#   DOM           the domain (its sssd_be is the part "sssd_be")
#   KS_SOCKET     the responder's socket under $PIPES; KS_BUS_NAMES the bus names that must
#                 be owned before the suite counts as up
#   KS_LABEL      the cases' name: RESULT kill9/<KS_LABEL>_<part>
#   KS_BAD_NAME   the figure counting bad requests that went through (wrong_password_ok)
#   KS_PARTS      the parts killed in turn; the monitor last (the test starts the suite
#                 again, as systemd's Restart= would)
#   SETTLE, RECOVER_BOUND_MS, KS_REQUEST_BOUND_MS
# Then, once the suite is up: ks_run (both streams, each part killed in turn, and the
# whole-run case).

KS_STREAM_PIDS=
fault_on_exit '[ -n "$KS_STREAM_PIDS" ] && kill $KS_STREAM_PIDS 2>/dev/null; wait 2>/dev/null'

# The pid of a part: "monitor", "sssd_be" (the domain's) or a responder's name.
ks_part_pid() {
    case $1 in
        monitor) monitor_pid ;;
        sssd_be) be_pid "$DOM" ;;
        *) service_pid "$1" ;;
    esac
}

# 0 once the responder's socket is there and every name in KS_BUS_NAMES is owned.
ks_ready() {
    local _ n up
    for _ in $(seq 300); do
        up=1
        [ -S "$PIPES/$KS_SOCKET" ] || up=0
        for n in $KS_BUS_NAMES; do
            [ $up = 1 ] && { wait_name "$n" 100 || up=0; }
        done
        [ $up = 1 ] && return 0
        sleep 0.05
    done
    return 1
}

ks_streams_start() {
    local kind
    for kind in good bad; do
        ( while :; do ks_request $kind; sleep 0.05; done > "$WORK/s.$kind" ) &
        KS_STREAM_PIDS="$KS_STREAM_PIDS $!"
    done
}

# The kill of one part, the time to recover, and what went through meanwhile.
ks_kill_one() { # PART
    local part=$1 pid p t0 t1 back deadline rec=none mark crashes bad slow ok=1 gone
    sleep "$SETTLE"
    mark=$(fault_crash_mark)
    pid=$(ks_part_pid "$part")
    [ -n "$pid" ] || { echo "RESULT kill9/${KS_LABEL}_$part fail (nothing to kill)"; FAILED=1; return; }
    t0=$(now_ms)
    kill -KILL "$pid"
    if [ "$part" = monitor ]; then
        # Its services leave with the bus; then the suite is started again.
        for _ in $(seq 200); do
            gone=1
            for p in $KS_PARTS; do
                [ "$p" != monitor ] && [ -n "$(ks_part_pid "$p")" ] && gone=0
            done
            [ $gone = 1 ] && break
            sleep 0.05
        done
        rm -f "$PIDFILE"
        start_sssd && ks_ready \
            || { echo "RESULT kill9/${KS_LABEL}_$part fail (no restart)"; FAILED=1; return; }
    fi
    deadline=$(( t0 + 60000 ))
    while [ "$(now_ms)" -lt "$deadline" ]; do
        back=$(awk -v t="$t0" '$1 - $2 > t && $3 == "through" { print $1; exit }' "$WORK/s.good")
        [ -n "$back" ] && { rec=$(( back - t0 )); break; }
        sleep 0.1
    done
    sleep "$SETTLE"
    t1=$(now_ms)
    bad=$(awk -v a="$t0" -v b="$t1" '$1 >= a && $1 <= b && $3 == "through"' "$WORK/s.bad" | wc -l)
    slow=$(cat "$WORK/s.good" "$WORK/s.bad" | awk -v a="$t0" -v b="$t1" \
        '$1 >= a && $1 <= b && $2 > s { s = $2 } END { print s + 0 }')
    crashes=$(fault_crashes_since "$mark" 9)
    [ "$rec" != none ] && [ "$rec" -le "$RECOVER_BOUND_MS" ] || ok=0
    [ "$bad" = 0 ] && [ "$slow" -le "$KS_REQUEST_BOUND_MS" ] && [ "$crashes" = 0 ] || ok=0
    echo "RESULT kill9/${KS_LABEL}_$part $([ $ok = 1 ] && echo pass || echo fail) recover_ms=$rec" \
         "wrong=$bad $KS_BAD_NAME=$bad crashes=$crashes slowest_request_ms=$slow" \
         "(bounds: recover $RECOVER_BOUND_MS ms, a request $KS_REQUEST_BOUND_MS ms)"
    [ $ok = 1 ] || FAILED=1
}

# Stops the streams; the whole run: no bad request ever went through.
ks_streams_end() { # CRASH_MARK
    local bad_all n_bad n_good good_through
    kill $KS_STREAM_PIDS 2>/dev/null
    wait $KS_STREAM_PIDS 2>/dev/null
    KS_STREAM_PIDS=
    bad_all=$(awk '$3 == "through"' "$WORK/s.bad" | wc -l)
    n_bad=$(wc -l < "$WORK/s.bad")
    n_good=$(wc -l < "$WORK/s.good")
    good_through=$(awk '$3 == "through"' "$WORK/s.good" | wc -l)
    echo "RESULT kill9/${KS_LABEL}_all $([ "$bad_all" = 0 ] && echo pass || echo fail)" \
         "wrong=$bad_all $KS_BAD_NAME=$bad_all crashes=$(fault_crashes_since "$1" 9)" \
         "bad_requests=$n_bad good_requests=$n_good good_through=$good_through"
    [ "$bad_all" = 0 ] || FAILED=1
}

ks_run() {
    local part mark_all
    ks_streams_start
    mark_all=$(fault_crash_mark)
    for part in $KS_PARTS; do
        ks_kill_one "$part"
    done
    ks_streams_end "$mark_all"
}
