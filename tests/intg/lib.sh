# Shared helpers of the integration tests. Sourced; expects PREFIX (the --prefix the suite
# was installed into). Every test counts into PASS/FAIL and never stops at the first failure.

PASS=${PASS:-0}
FAIL=${FAIL:-0}
SBIN=$PREFIX/sbin
CONF_DIR=$PREFIX/etc/sssd
CONF=$CONF_DIR/sssd.conf
PIPES=$PREFIX/var/lib/sss/pipes
BUS_SOCK=$PIPES/private/sbus-master
BUS_ADDR=unix:path=$BUS_SOCK
LOGS=$PREFIX/var/log/sssd
PIDFILE=$PREFIX/var/run/sssd.pid

ok()   { PASS=$((PASS + 1)); echo "ok   - $*"; }
fail() { FAIL=$((FAIL + 1)); echo "FAIL - $*"; }
check() { # check "description" command...
    local what=$1; shift
    if "$@"; then ok "$what"; else fail "$what"; fi
}

now_ms() { date +%s%3N; }

# pam_both NAME EXPECTED_STATUS FORMAT INPUT SERVICE_SSSD SERVICE_OURS PAMTESTER_ARGS...
# The same pamtester run through SSSD 2.8's pam_sss.so (SERVICE_SSSD) and ours
# (SERVICE_OURS), fed printf FORMAT INPUT, as "${AS[@]}" when the caller set AS (e.g.
# setpriv): one check that both end with EXPECTED_STATUS and print the same (the service
# names aside). LAST_OUT: our module's output.
pam_both() {
    local name=$1 want=$2 fmt=$3 input=$4 svc_sssd=$5 svc_ours=$6 out_ours out_sssd rc_ours rc_sssd
    shift 6
    out_sssd=$(printf "$fmt" "$input" | LC_ALL=C ${AS[@]+"${AS[@]}"} pamtester "$svc_sssd" "$@" 2>&1)
    rc_sssd=$?
    out_ours=$(printf "$fmt" "$input" | LC_ALL=C ${AS[@]+"${AS[@]}"} pamtester "$svc_ours" "$@" 2>&1)
    rc_ours=$?
    LAST_OUT=$out_ours
    if [ "$rc_ours" = "$want" ] && [ "$rc_sssd" = "$want" ] \
            && [ "${out_ours//$svc_ours/X}" = "${out_sssd//$svc_sssd/X}" ]; then
        ok "$name: status $want, same output with both modules"
    else
        fail "$name: ours $rc_ours, SSSD's $rc_sssd, expected $want"
        echo "$out_sssd" | sed 's/^/        SSSD: /'
        echo "$out_ours" | sed 's/^/        ours: /'
    fi
}

write_conf() { # write_conf <<EOF ... EOF  (root-owned, 0600); a new setup: no old caches
    stop_sssd
    rm -rf "$PREFIX/var/lib/sss/db/"* "$PREFIX/var/lib/sss/mc/"*
    mkdir -p "$CONF_DIR"
    rm -rf "$CONF_DIR/conf.d"
    cat > "$CONF"
    chmod 0600 "$CONF"
    chown 0:0 "$CONF"
}

bus_names() {
    dbus-send --address="$BUS_ADDR" --print-reply --dest=org.freedesktop.DBus \
        /org/freedesktop/DBus org.freedesktop.DBus.ListNames 2>&1
}

has_name() { bus_names | grep -q "string \"$1\""; }

wait_name() { # wait_name NAME TIMEOUT_MS -> 0 when NAME is on the bus in time
    local deadline=$(( $(now_ms) + $2 ))
    while [ "$(now_ms)" -lt "$deadline" ]; do
        has_name "$1" && return 0
        sleep 0.02
    done
    return 1
}

name_owner() { # the unique name owning NAME, or nothing
    dbus-send --address="$BUS_ADDR" --print-reply --dest=org.freedesktop.DBus \
        /org/freedesktop/DBus org.freedesktop.DBus.GetNameOwner "string:$1" 2>/dev/null |
        sed -n 's/^ *string "\(:[^"]*\)"/\1/p'
}

wait_new_owner() { # wait_new_owner NAME OLD_OWNER TIMEOUT_MS -> 0 once another connection owns NAME
    local deadline=$(( $(now_ms) + $3 )) cur
    while [ "$(now_ms)" -lt "$deadline" ]; do
        cur=$(name_owner "$1")
        [ -n "$cur" ] && [ "$cur" != "$2" ] && return 0
        sleep 0.02
    done
    return 1
}

service_pid() { # the pid of a service process, by its command line
    pgrep -f "^$PREFIX/libexec/sssd/$1( |\$)" | head -n1
}

be_pid() { pgrep -f "^$PREFIX/libexec/sssd/sssd_be .*--domain $1\$" | head -n1; }

monitor_pid() { cat "$PIDFILE" 2>/dev/null; }

start_sssd() { # start the suite detached; returns sssd -D's status
    "$SBIN/sssd" -D -c "$CONF" "$@"
}

stop_sssd() {
    local pid
    pid=$(monitor_pid)
    [ -n "$pid" ] || return 0
    kill -TERM "$pid" 2>/dev/null || return 0
    for _ in $(seq 100); do
        kill -0 "$pid" 2>/dev/null || return 0
        sleep 0.05
    done
    kill -KILL "$pid" 2>/dev/null
    return 1
}

all_suite_pids() { pgrep -f "^$PREFIX/(sbin/sssd|libexec/sssd/)" ; }

summary() {
    echo "$PASS passed, $FAIL failed"
    [ "$FAIL" -eq 0 ]
}
