#!/bin/bash
# The static probes and the shipped tracing scripts, against a live suite: each bpftrace
# script of PREFIX/share/sssd/systemtap is attached to the running sssd while known lookups
# run through glibc (in_nss_ns), then stopped with SIGINT, and the counts and arguments it
# printed are checked. Every SystemTap script, and a generated script naming every probe of
# systemtap/sssd_probes.d with every argument, must pass `stap -p2` against the installed
# binaries and tapset (a renamed probe or a lost argument fails here).
# Usage: test_tracing.sh PREFIX   (run as root). Exit 77 only when the suite was built
# without --enable-systemtap. TRACE_LOOKUPS=N sets the lookups per script (default 10).
set -u
PREFIX=$(cd "$1" && pwd)
TOP=$(cd "$(dirname "$0")/../.." && pwd)
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/nss_ns.sh"
. "$TOP/tests/lib/slapd.sh"

K=${TRACE_LOOKUPS:-10}
TRACEDIR=$PREFIX/share/sssd/systemtap
TAPSET=$PREFIX/share/systemtap/tapset
PROBES_D=$TOP/systemtap/sssd_probes.d
DOMAIN=trace.test

if ! readelf -n "$PREFIX/libexec/sssd/sssd_nss" 2>/dev/null | grep -q "Provider: sssd"; then
    echo "SKIP: $PREFIX/libexec/sssd/sssd_nss has no static probes (built without --enable-systemtap)"
    exit 77
fi

WORK=$(mktemp -d /tmp/sssd-trace.XXXXXX)
BT_PID=
cleanup() {
    [ -n "$BT_PID" ] && kill -INT "$BT_PID" 2>/dev/null
    stop_sssd
    slapd_stop "$WORK/ldap" 2>/dev/null
    [ -n "${TRACE_KEEP:-}" ] && echo "kept $WORK" || rm -rf "$WORK"
}
trap cleanup EXIT

# ---- tools: the test cannot run without them, and CI installs them ----
for tool in bpftrace stap readelf; do
    command -v "$tool" >/dev/null || { fail "$tool is not installed (tests/install-deps.sh)"; summary; exit 1; }
done
for f in sssd_star_probes.stp; do
    check "tapset installed: $TAPSET/$f" test -f "$TAPSET/$f"
done
check "the tapset names no unexpanded directory" bash -c "! grep -q '\\\${\\|@[a-z]*dir@' '$TAPSET/sssd_star_probes.stp'"
for s in dp_latency request_breakdown bus_routing ldap_ops sysdb_txn; do
    check "$s.bt installed, no placeholder left" \
        bash -c "test -x '$TRACEDIR/$s.bt' && ! grep -q '@[a-z]*dir@' '$TRACEDIR/$s.bt'"
done

# ---- what the bpftrace scripts rely on: bpftrace 0.17 reads arg0..arg5 only, and misreads
# arguments described as memory operands (src/util/probes.h keeps them in registers) ----
n=$(python3 - "$PROBES_D" <<'PY'
import re, sys
text = re.sub(r"/\*.*?\*/", "", open(sys.argv[1]).read(), flags=re.S)
print(" ".join(n for n, a in re.findall(r"probe\s+(\w+)\s*\(([^)]*)\)\s*;", text)
               if len(a.split(",")) > 6))
PY
)
check "no probe of sssd_probes.d has more than 6 arguments (${n:-none})" test -z "$n"
nbin=0
for b in "$PREFIX"/sbin/* "$PREFIX"/libexec/sssd/*; do
    readelf -n --wide "$b" 2>/dev/null | grep -q "Provider: sssd" || continue
    nbin=$((nbin + 1))
    # Arguments: SIZE@LOCATION; a register (%rax) or a constant ($5) is fine, anything with
    # parentheses (8(%rsp), sym(%rip)) is memory.
    mem=$(readelf -n --wide "$b" | awk '/Provider:/ { p = $NF } /Name:/ { n = $2 }
        /Arguments:/ && p == "sssd" && /\(/ { print n }' | sort -u | tr '\n' ' ')
    check "${b#"$PREFIX"/}: every probe argument is a register or a constant (${mem:-ok})" test -z "$mem"
done
check "the daemons carry the probes ($nbin binaries)" test "$nbin" -ge 5

# ---- stap -p2: a stand-in kernel build directory (DESIGN.md "Tracing") ----
# stap reads the release, .config (it needs CONFIG_UPROBES & co for process probes) and
# Module.symvers from there; pass 2 needs no headers.
KB=$WORK/kb
mkdir -p "$KB/include/config"
uname -r > "$KB/include/config/kernel.release"
touch "$KB/Module.symvers"
if [ -r /proc/config.gz ]; then
    zcat /proc/config.gz > "$KB/.config"
elif [ -r "/boot/config-$(uname -r)" ]; then
    cp "/boot/config-$(uname -r)" "$KB/.config"
else
    # Without the kernel's configuration: the options pass 2 checks. bpftrace attaching
    # below proves uprobes work on this kernel.
    printf 'CONFIG_TRACEPOINTS=y\nCONFIG_ARCH_SUPPORTS_UPROBES=y\nCONFIG_UPROBES=y\n' > "$KB/.config"
fi

stap_p2() { # stap_p2 SCRIPT OUT -> stap's status; OUT holds stdout and stderr
    stap -r "$KB" -p2 -I "$TAPSET" "$1" > "$2" 2>&1
}

# One probe for every probe of the contract, printing every argument by its name with the
# format its C type calls for: a missing alias, probe, argument or a wrong type fails pass 2.
gen_all_probes() {
    python3 - "$PROBES_D" <<'PY'
import re, sys
text = re.sub(r"/\*.*?\*/", "", open(sys.argv[1]).read(), flags=re.S)
for name, args in re.findall(r"probe\s+(\w+)\s*\(([^)]*)\)\s*;", text):
    fmt, names = [], []
    for a in (x.strip() for x in args.split(",")):
        var = re.findall(r"\w+", a)[-1]
        fmt.append("%s=%s" % (var, "%s" if "char" in a else "%d"))
        names.append(var)
    stage, rest = name.split("_", 1)
    print('probe sssd.%s.%s { printf("%s %s\\n", %s) }' % (stage, rest, name, " ".join(fmt), ", ".join(names)))
PY
}
gen_all_probes > "$WORK/all_probes.stp"
nprobes=$(grep -c '^probe ' "$WORK/all_probes.stp")
ndecl=$(grep -c '^ *probe [a-z_]*(' "$PROBES_D")
check "generated a check for each of the $ndecl probes of sssd_probes.d ($nprobes)" \
    test "$nprobes" -eq "$ndecl" -a "$nprobes" -gt 0
stap_p2 "$WORK/all_probes.stp" "$WORK/all_probes.out"; rc=$?
check "stap -p2: every probe and argument resolves through the tapset (status $rc)" test "$rc" -eq 0
check "... and no argument is unknown to the tapset" \
    bash -c "! grep -q 'never-assigned\\|unresolved' '$WORK/all_probes.out'"
[ "$rc" -eq 0 ] || grep -v "^WARNING: \(Kernel function\|cannot find module\)" "$WORK/all_probes.out" | head -20
# stap -L lists each alias with its variables and the $argN the binaries' marks really have:
# it must match the contract exactly (names, string or number, argument count).
python3 - "$PROBES_D" > "$WORK/expected_L" <<'PY'
import re, sys
text = re.sub(r"/\*.*?\*/", "", open(sys.argv[1]).read(), flags=re.S)
for name, args in re.findall(r"probe\s+(\w+)\s*\(([^)]*)\)\s*;", text):
    args = [a.strip() for a in args.split(",")]
    vars_ = ["%s:%s" % (re.findall(r"\w+", a)[-1], "string" if "char" in a else "long") for a in args]
    dollars = ["$arg%d:long" % (i + 1) for i in range(len(args))]
    stage, rest = name.split("_", 1)
    print(" ".join(["sssd.%s.%s" % (stage, rest)] + vars_ + dollars))
PY
sort -o "$WORK/expected_L" "$WORK/expected_L"
stap -r "$KB" -I "$TAPSET" -L 'sssd.*.*' 2>/dev/null | sort > "$WORK/actual_L"
check "stap -L: every probe of the contract, with its arguments, in the installed binaries" \
    diff -u "$WORK/expected_L" "$WORK/actual_L"
# Stock SSSD installs /usr/share/systemtap/tapset/sssd.stp, and stap loads one tapset file per
# name: a tapset dir met first that holds an sssd.stp (a stand-in of SSSD's here) must not
# hide ours.
mkdir -p "$WORK/stock_tapset"
printf 'function sssd_stock_stand_in:long() { return 1 }\n' > "$WORK/stock_tapset/sssd.stp"
stap -r "$KB" -p2 -I "$WORK/stock_tapset" -I "$TAPSET" "$TRACEDIR/dp_latency.stp" \
    > "$WORK/shadow.p2" 2>&1; rc=$?
check "an sssd.stp tapset of stock SSSD beside ours does not hide ours (status $rc)" test "$rc" -eq 0
for s in dp_latency request_breakdown bus_routing ldap_ops sysdb_txn; do
    stap_p2 "$TRACEDIR/$s.stp" "$WORK/$s.p2"; rc=$?
    check "stap -p2 $s.stp resolves (status $rc)" test "$rc" -eq 0
    [ "$rc" -eq 0 ] || grep -i "error" "$WORK/$s.p2" | head -5
    check "... and it attaches to the installed binaries" grep -q "^process(\"$PREFIX/" "$WORK/$s.p2"
done

# ---- a directory with 5 x K users, a fresh set for each bpftrace script (cold lookups) ----
{
    printf 'dn: dc=trace,dc=test\nobjectClass: top\nobjectClass: dcObject\nobjectClass: organization\no: Trace\ndc: trace\n\n'
    printf 'dn: ou=People,dc=trace,dc=test\nobjectClass: organizationalUnit\nou: People\n\n'
    printf 'dn: ou=Groups,dc=trace,dc=test\nobjectClass: organizationalUnit\nou: Groups\n\n'
    printf 'dn: cn=tracers,ou=Groups,dc=trace,dc=test\nobjectClass: top\nobjectClass: posixGroup\ncn: tracers\ngidNumber: 60000\n\n'
    for s in 1 2 3 4 5; do
        for i in $(seq "$K"); do
            u=t${s}u$i
            printf 'dn: uid=%s,ou=People,dc=trace,dc=test\nobjectClass: top\nobjectClass: account\nobjectClass: posixAccount\nuid: %s\ncn: %s\nuidNumber: %d\ngidNumber: 60000\nhomeDirectory: /home/%s\nloginShell: /bin/sh\n\n' \
                "$u" "$u" "$u" $((50000 + s * 1000 + i)) "$u"
        done
    done
} > "$WORK/trace.ldif"
mkdir -p "$WORK/ldap"
URI=$(slapd_start "$WORK/ldap" "$WORK/trace.ldif" dc=trace,dc=test) || { fail "slapd did not start"; summary; exit 1; }

write_conf <<CONF
[sssd]
services = nss
domains = $DOMAIN

[domain/$DOMAIN]
id_provider = ldap
ldap_uri = $URI
ldap_search_base = dc=trace,dc=test
entry_cache_timeout = 600
CONF
start_sssd || { fail "sssd did not start"; summary; exit 1; }
mountpoint -q /sys/kernel/tracing || mount -t tracefs nodev /sys/kernel/tracing

# bt_run SCRIPT SET: attach, K cold then K warm lookups of set SET's users, stop; output in
# $WORK/SCRIPT.out. Returns 1 when bpftrace did not attach or failed.
bt_run() {
    local script=$1 set=$2 out=$WORK/$1.out i
    bpftrace "$TRACEDIR/$script.bt" > "$out" 2> "$WORK/$script.err" &
    BT_PID=$!
    for _ in $(seq 300); do     # BEGIN prints once every probe is attached
        grep -q "Ctrl-C to stop" "$out" && break
        kill -0 "$BT_PID" 2>/dev/null || break
        sleep 0.1
    done
    if ! grep -q "Ctrl-C to stop" "$out"; then
        kill -INT "$BT_PID" 2>/dev/null; wait "$BT_PID"; BT_PID=
        grep -v RLIMIT_MEMLOCK "$WORK/$script.err" | head -5
        return 1
    fi
    for pass in cold warm; do
        for i in $(seq "$K"); do
            in_nss_ns getent passwd "t${set}u$i" > /dev/null || echo "lookup t${set}u$i failed ($pass)"
        done
    done
    sleep 0.5                   # let the last events reach bpftrace's buffers
    kill -INT "$BT_PID"; wait "$BT_PID"; BT_PID=
    grep -q -- "--- end ---" "$out"
}

count_of() { # count_of FILE 'MAPLINE-PREFIX' -> the N of "PREFIX: N", 0 if absent
    local v
    v=$(grep -F -- "$2: " "$1" | head -n1 | sed 's/.*: \([0-9]*\)$/\1/')
    echo "${v:-0}"
}

# ---- dp_latency.bt: exactly K dp requests for K cold + K warm lookups of distinct users ----
bt_run dp_latency 1; rc=$?
O=$WORK/dp_latency.out
check "dp_latency.bt attached, ran and printed its summary" test "$rc" -eq 0
n=$(count_of "$O" "@count[$DOMAIN, user]")
check "dp_latency: exactly $K data-provider requests for $DOMAIN/user ($n)" test "$n" -eq "$K"
check "dp_latency: all answered with dp_error 0" test "$(count_of "$O" "@dp_error[$DOMAIN, user, 0]")" -eq "$K"
ok_csv=0
for i in $(seq "$K"); do
    grep -Eq "^csv,[0-9]+:[0-9]+,$DOMAIN,user,[^,]*=t1u$i,[0-9]+,[0-9]+,0$" "$O" && ok_csv=$((ok_csv + 1))
done
check "dp_latency: one CSV line per user, its filter naming the user ($ok_csv of $K)" test "$ok_csv" -eq "$K"
check "dp_latency: latency statistics printed" grep -q "^@stats_us\[$DOMAIN, user\]: count $K," "$O"

# ---- request_breakdown.bt: one request followed across sssd_nss, sssd_be and LDAP ----
bt_run request_breakdown 2; rc=$?
O=$WORK/request_breakdown.out
check "request_breakdown.bt attached, ran and printed its summary" test "$rc" -eq 0
ok_req=0; late=0
for i in $(seq "$K"); do
    # Same rid at nss_request_start/done, be_request_start, ldap_search_send/done, and the
    # user's store: a "txn RID" line (its time may miss from the request's own line, as
    # sssd_be answers before it stores: reply first).
    line=$(grep -E "^req [0-9]+:[0-9]+ GETPWNAM t2u$i result=0 entries=1 domain=$DOMAIN " "$O" |
        grep -E "n_be=[1-9][0-9]* n_ldap=[1-9][0-9]* n_txn=[0-9]+ ldap_filter=.*uid=t2u$i\)" |
        grep -E "total_us=[1-9][0-9]* dp_us=[1-9][0-9]* bus_us=[1-9][0-9]* be_us=[1-9][0-9]* ldap_us=[1-9][0-9]* txn_us=[0-9]" |
        head -n1)
    [ -n "$line" ] || continue
    rid=$(awk '{print $2}' <<< "$line")
    grep -Eq "^txn $rid txn_us=[1-9][0-9]*( after_answer)?$" "$O" || continue
    ok_req=$((ok_req + 1))
    grep -q "^txn $rid .*after_answer$" "$O" && late=$((late + 1))
done
echo "# request_breakdown: $late of $K stores ended after their answer (reply first)"
# bus_us > 0 for each: the outbound leg starts at the master's route_recv when call_send is late.
check "request_breakdown: each cold lookup followed by its rid over the bus, to the back-end, LDAP (filter names the user) and the cache ($ok_req of $K)" \
    test "$ok_req" -eq "$K"
n=$(count_of "$O" "@count[GETPWNAM]")
check "request_breakdown: at least $K GETPWNAM requests counted ($n)" test "$n" -ge "$K"
check "request_breakdown: per-stage averages printed, bus time seen" grep -q "^@avg_bus_us\[GETPWNAM\]: [1-9]" "$O"
check "request_breakdown: slowest requests printed" grep -Eq "^@slowest_us\[[0-9]+, [0-9]+, GETPWNAM, t2u[0-9]+\]: [0-9]+" "$O"

# ---- bus_routing.bt: the master routes getAccountInfo calls and their returns ----
bt_run bus_routing 3; rc=$?
O=$WORK/bus_routing.out
check "bus_routing.bt attached, ran and printed its summary" test "$rc" -eq 0
calls=$(grep -E '^@count\[call, [^]]*getAccountInfo\]: ' "$O" | sed 's/.*: //' | head -n1)
rets=$(grep -E '^@count\[return, [^]]*getAccountInfo\]: ' "$O" | sed 's/.*: //' | head -n1)
check "bus_routing: $K getAccountInfo calls routed (${calls:-none})" test "${calls:-0}" -ge "$K"
check "bus_routing: their returns matched to them by serial (${rets:-none})" test "${rets:-0}" -ge "$K"
check "bus_routing: routing time statistics printed" grep -Eq '^@stats_ns\[call, [^]]*getAccountInfo\]: count' "$O"

# ---- ldap_ops.bt: one search per cold lookup, its filter naming the user ----
bt_run ldap_ops 4; rc=$?
O=$WORK/ldap_ops.out
check "ldap_ops.bt attached, ran and printed its summary" test "$rc" -eq 0
ok_s=0
for i in $(seq "$K"); do
    grep -Eq "^search [0-9]+:[0-9]+ msgid=[0-9]+ base=[^ ]*dc=trace,dc=test scope=2 entries=1 result=0 us=[0-9]+ filter=.*uid=t4u$i\)" "$O" &&
        ok_s=$((ok_s + 1))
done
check "ldap_ops: a subtree search with 1 entry and result 0 for each user ($ok_s of $K)" test "$ok_s" -eq "$K"
n=$(grep -E '^@result\[[^]]*dc=trace,dc=test, 2, 0\]: ' "$O" | sed 's/.*: //' | awk '{s += $1} END {print s + 0}')
check "ldap_ops: result code 0 counted at least $K times ($n)" test "$n" -ge "$K"

# ---- sysdb_txn.bt: the back-end commits what it stores ----
bt_run sysdb_txn 5; rc=$?
O=$WORK/sysdb_txn.out
check "sysdb_txn.bt attached, ran and printed its summary" test "$rc" -eq 0
n=$(count_of "$O" "@commit[$DOMAIN]")
check "sysdb_txn: at least $K commits for $DOMAIN ($n)" test "$n" -ge "$K"
n=$(count_of "$O" "@in_request[$DOMAIN]")
check "sysdb_txn: at least $K transactions carry a request id ($n)" test "$n" -ge "$K"
check "sysdb_txn: time held printed" grep -q "^@held_us\[$DOMAIN\]: count" "$O"

for s in dp_latency request_breakdown bus_routing ldap_ops sysdb_txn; do
    if [ "$FAIL" -ne 0 ] && [ -f "$WORK/$s.out" ]; then
        echo "--- $s.out (tail)"; grep -v '^$' "$WORK/$s.out" | tail -n 15
    fi
done
summary
