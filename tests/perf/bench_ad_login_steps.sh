#!/bin/bash
# One system's steps for bench_ad_login.sh, inside the system's namespace (its own pid
# namespace: the DC's processes are not visible here). Around each step it asks
# bench_ad_login.sh's sampler, outside, for the DC's counters: it writes "LABEL COUNT
# begin|end" to $ADL_SYNC/req and waits for $ADL_SYNC/ack (/tmp is shared).
# Environment: ADL_N, ADL_PASSWORD, ADL_SYNC, LOAD_CTL, LOAD_SYSTEM (the runner's).
set -u
N=$ADL_N
ctl() { "$LOAD_CTL" "$1" || { echo "bench_ad_login: \$LOAD_CTL $1 failed" >&2; exit 1; }; }
mark() { # LABEL COUNT begin|end
    local _
    echo "$LOAD_SYSTEM $*" > "$ADL_SYNC/req.tmp"
    mv "$ADL_SYNC/req.tmp" "$ADL_SYNC/req"
    for _ in $(seq 600); do
        [ -e "$ADL_SYNC/ack" ] && { rm -f "$ADL_SYNC/ack"; return 0; }
        sleep 0.05
    done
    echo "bench_ad_login: the sampler did not answer" >&2
    exit 1
}
login() { printf '%s\n' "$ADL_PASSWORD" | pamtester sss-perf adlogin authenticate acct_mgmt; }
auth() { printf '%s\n' "$ADL_PASSWORD" | pamtester sss-perf adlogin authenticate; }
acct() { pamtester sss-perf adlogin acct_mgmt; }
start() { ctl pam-online && getent passwd adlogin; }
idle() { sleep "$IDLE_S"; }
IDLE_S=1
step() { # LABEL COUNT CMD...
    local label=$1 n=$2 fails=0 t0 t1
    shift 2
    mark "$label" "$n" begin
    t0=$(date +%s%3N)
    for _ in $(seq "$n"); do "$@" > /dev/null 2>&1 || fails=$((fails + 1)); done
    t1=$(date +%s%3N)
    mark "$label" "$n" end
    [ "$fails" = 0 ] || echo "bench_ad_login: $LOAD_SYSTEM $label: $fails of $n failed"
    [ "$label" = login ] && IDLE_S=$(awk -v ms=$((t1 - t0)) 'BEGIN { printf "%.3f", ms / 1000 }')
    return 0
}
# A start's work is a few tens of ms, under the 10 ms tick of /proc: ten of them.
step start 10 start
step first 1 login
sleep 6     # past pam_id_timeout: the logins below refresh the user as real ones do
step login "$N" login
step idle 1 idle
step auth "$N" auth
step acct "$N" acct
exit 0
