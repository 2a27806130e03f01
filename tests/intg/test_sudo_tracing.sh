#!/bin/bash
# The sudo path's static probes (sudo_request_start/done in sssd_sudo, sudo_refresh_start/
# done in sssd_be) and the shipped sudo_trace scripts, against a live suite with Debian's
# real sudo in a mount namespace (as test_sudo_real.sh) and a private slapd.
# sudo_trace.bt is attached, then: sudo -l -U alice (a GET_SUDORULES answered from the
# cache, 2 rules); sss_cache -R and again (2 expired rules > sudo_threshold 1: a full
# refresh); sss_cache -r alice_true and again (a rules refresh of that one rule). The lines
# it printed must name those requests and refreshes with their results and rule counts.
# sudo_trace.stp must pass `stap -p2` against the installed binaries and tapset.
# Usage: test_sudo_tracing.sh PREFIX   (root). Exit 77 when built without --enable-systemtap
# or without slapd or sudo.
set -u
PREFIX=$(cd "$1" && pwd)
TOP=$(cd "$(dirname "$0")/../.." && pwd)
SUDO_TEST=sudo-trace
. "$(dirname "$0")/sudo_env.sh"

TRACEDIR=$PREFIX/share/sssd/systemtap
TAPSET=$PREFIX/share/systemtap/tapset
if ! readelf -n "$PREFIX/libexec/sssd/sssd_nss" 2>/dev/null | grep -q "Provider: sssd"; then
    echo "SKIP: $PREFIX/libexec/sssd/sssd_nss has no static probes (built without --enable-systemtap)"
    exit 77
fi
for tool in bpftrace stap; do
    command -v "$tool" > /dev/null || { fail "$tool is not installed (tests/install-deps.sh)"; summary; exit 1; }
done

BT_PID=
SUDO_ON_EXIT='[ -n "$BT_PID" ] && kill -INT "$BT_PID" 2>/dev/null'

# ---- stap -p2 of sudo_trace.stp (a stand-in kernel build directory, as test_tracing.sh) ----
KB=$WORK/kb
mkdir -p "$KB/include/config"
uname -r > "$KB/include/config/kernel.release"
touch "$KB/Module.symvers"
if [ -r "/boot/config-$(uname -r)" ]; then
    cp "/boot/config-$(uname -r)" "$KB/.config"
else
    printf 'CONFIG_TRACEPOINTS=y\nCONFIG_ARCH_SUPPORTS_UPROBES=y\nCONFIG_UPROBES=y\n' > "$KB/.config"
fi
stap -r "$KB" -p2 -I "$TAPSET" "$TRACEDIR/sudo_trace.stp" > "$WORK/stap.p2" 2>&1; rc=$?
check "stap -p2 sudo_trace.stp resolves through the installed tapset (status $rc)" test "$rc" -eq 0
[ "$rc" -eq 0 ] || grep -i error "$WORK/stap.p2" | head -5
check "... and attaches to the installed sssd_sudo and sssd_be" \
    bash -c "grep -q '^process(\"$PREFIX/libexec/sssd/sssd_sudo\")' '$WORK/stap.p2' && \
             grep -q '^process(\"$PREFIX/libexec/sssd/sssd_be\")' '$WORK/stap.p2'"
check "sudo_trace.bt installed, no placeholder left" \
    bash -c "test -x '$TRACEDIR/sudo_trace.bt' && ! grep -q '@[a-z]*dir@' '$TRACEDIR/sudo_trace.bt'"

# ---- the directory and the suite ------------------------------------------------------------
rule() { # CN USER COMMAND
    printf 'dn: cn=%s,ou=SUDOers,%s\nobjectClass: top\nobjectClass: sudoRole\ncn: %s\n' \
        "$1" "$SUFFIX" "$1"
    printf 'sudoUser: %s\nsudoCommand: %s\nsudoRunAsUser: root\nsudoHost: ALL\n\n' "$2" "$3"
}
{
    ldif_base "$SUFFIX"
    ldif_user "$SUFFIX" alice 10001 10001 /home/alice
    ldif_group "$SUFFIX" alice 10001
    printf 'dn: ou=SUDOers,%s\nobjectClass: organizationalUnit\nou: SUDOers\n\n' "$SUFFIX"
    printf 'dn: cn=defaults,ou=SUDOers,%s\nobjectClass: top\nobjectClass: sudoRole\n' "$SUFFIX"
    printf 'cn: defaults\nsudoOption: !lecture\n\n'
    rule alice_true alice /bin/true
    rule alice_id alice /usr/bin/id
} > "$WORK/sudo.ldif"
URI=$(sudo_slapd_start "$WORK/sudo.ldif") || exit 1
sudo_conf "nss, sudo" "sudo_threshold = 1" "ldap_sudo_smart_refresh_interval = 0
entry_cache_sudo_timeout = 600"
sudo_suite_start

sudo_list() { in_sudo_ns ours sudo -l -U alice > "$WORK/list.out" 2>&1; }
sudo_list     # the start-up full refresh done and alice cached before tracing

# ---- bpftrace sudo_trace.bt ------------------------------------------------------------------
mountpoint -q /sys/kernel/tracing || mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null
OUT=$WORK/trace.out
bpftrace "$TRACEDIR/sudo_trace.bt" > "$OUT" 2> "$WORK/trace.err" &
BT_PID=$!
for _ in $(seq 300); do     # BEGIN prints once every probe is attached
    grep -q "Ctrl-C to stop" "$OUT" && break
    kill -0 "$BT_PID" 2>/dev/null || break
    sleep 0.1
done
check "sudo_trace.bt attached" grep -q "Ctrl-C to stop" "$OUT"
sudo_list
"$SBIN/sss_cache" -R > /dev/null 2>&1 || fail "sss_cache -R"
sudo_list
"$SBIN/sss_cache" -r alice_true > /dev/null 2>&1 || fail "sss_cache -r alice_true"
sudo_list
sleep 0.5                   # let the last events reach bpftrace's buffers
# bpftrace 0.17 can miss a SIGINT that lands while it sets up its poll loop (seen once under
# load: it slept on with the signal handled): ask again each second, for 30 s at most.
for _ in $(seq 30); do
    kill -INT "$BT_PID" 2>/dev/null || break
    for _ in $(seq 10); do
        kill -0 "$BT_PID" 2>/dev/null || break 2
        sleep 0.1
    done
done
kill -KILL "$BT_PID" 2>/dev/null
wait "$BT_PID"; BT_PID=
check "sudo_trace.bt printed its summary on exit" grep -q -- "--- end ---" "$OUT"

req='^sudo_request rid=[0-9]*:[0-9]* cmd=GET_SUDORULES user=alice uid=10001 result=0 rules=2 domain=LDAP us=[0-9]'
check "three GET_SUDORULES of alice, each answered with her 2 rules by LDAP, timed" \
    test "$(grep -c "$req" "$OUT")" = 3
check "a full refresh (2 expired rules > sudo_threshold 1): 3 rules stored, none removed" \
    grep -q '^sudo_refresh rid=[0-9:]* domain=LDAP kind=full result=0 stored=3 removed=0 us=[0-9]' "$OUT"
check "a rules refresh of alice_true: 1 rule stored, none removed" \
    grep -q '^sudo_refresh rid=[0-9:]* domain=LDAP kind=rules result=0 stored=1 removed=0 us=[0-9]' "$OUT"
check "no other refresh ran (no smart interval)" test "$(grep -c '^sudo_refresh' "$OUT")" = 2
# The refresh a request set off carries the request's id: the responder's id travels with
# the data-provider call (a full one joins the full task's refresh, which has its own).
rid=$(grep '^sudo_refresh .*kind=rules' "$OUT" | sed 's/.*rid=\([0-9:]*\) .*/\1/')
check "the rules refresh carries the id of the sudo request that asked for it ($rid)" \
    grep -q "^sudo_request rid=$rid " "$OUT"
[ "$FAIL" -eq 0 ] || { sed 's/^/    /' "$OUT"; head -5 "$WORK/trace.err"; }

summary
