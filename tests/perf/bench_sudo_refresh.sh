#!/bin/bash
# Benchmark (issue 14): the full refresh of RULES sudo rules (default 10,000) by our sssd_be,
# and how long it holds the back-end's event loop. A private slapd holds the rules (each for
# its own user, sudoHost ALL) and 3,000 users; sssd starts with sudo, and the back-end's
# first full refresh is timed from its own log line (search, parse, sliced stores, removal
# of stale rules, bookkeeping), which also gives the longest single step the refresh took on
# the loop. From outside, a probe looks up users the cache does not hold (each one a
# getAccountInfo the same loop must serve) back to back while the refresh runs, and again
# when idle: the worst lookup during the refresh against the idle ones shows what a stall
# would cost a client. When tests/perf/systems/stock_sssd.sh can run here, Debian's stock
# SSSD 2.8 refreshes the same rules too, timed from its own log lines ("Issuing a full
# refresh of sudo rules" to "Successful full refresh of sudo rules", debug_level 6).
# Never fails on timing.
#
# Usage: bench_sudo_refresh.sh PREFIX [RULES=10000]   (root)
set -u
PREFIX=$(cd "$1" && pwd)
RULES=${2:-10000}
TOP=$(cd "$(dirname "$0")/../.." && pwd)
. "$TOP/tests/intg/lib.sh"
. "$TOP/tests/intg/nss_ns.sh"
. "$TOP/tests/lib/slapd.sh"
. "$TOP/tests/lib/ldif.sh"

SUFFIX=dc=sudo,dc=test
USERS=3000
slapd_available || { echo "bench_sudo_refresh: slapd is not available"; exit 77; }
WORK=$(mktemp -d /tmp/sssd-bsref.XXXXXX)
cleanup() {
    stop_sssd
    slapd_stop "$WORK/ldap" 2> /dev/null
    [ -n "${BENCH_KEEP:-}" ] || rm -rf "$WORK"
}
trap cleanup EXIT

{
    ldif_base "$SUFFIX"
    for i in $(seq 1 "$USERS"); do
        ldif_user "$SUFFIX" "u$i" $((20000 + i)) $((20000 + i)) "/home/u$i"
    done
    printf 'dn: ou=SUDOers,%s\nobjectClass: organizationalUnit\nou: SUDOers\n\n' "$SUFFIX"
    for i in $(seq 1 "$RULES"); do
        printf 'dn: cn=rule%s,ou=SUDOers,%s\nobjectClass: top\nobjectClass: sudoRole\n' \
            "$i" "$SUFFIX"
        printf 'cn: rule%s\nsudoUser: u%s\nsudoUser: %%g%s\nsudoHost: ALL\n' "$i" "$i" "$i"
        printf 'sudoCommand: /usr/local/bin/cmd%s\nsudoCommand: /usr/bin/id\n' "$i"
        printf 'sudoRunAsUser: root\nsudoOption: !authenticate\nsudoOrder: %s\n\n' "$i"
    done
} > "$WORK/big.ldif"
mkdir -p "$WORK/ldap"
URI=$(SLAPD_EXTRA_SCHEMA=$TOP/tests/lib/sudo.schema slapd_start "$WORK/ldap" "$WORK/big.ldif" \
      "$SUFFIX") || exit 1

. "$TOP/tests/lib/sudo_conf.sh"
sudo_conf "nss, sudo" "" "debug_level = 6"
rm -f "$LOGS"/*.log

# The probe: lookups of uncached users back to back, one latency (us) per line, until the
# file STOP exists or the users run out.
cat > "$WORK/probe.sh" <<'EOF'
first=$1 out=$2 stop=$3
: > "$out"
i=$first
while [ ! -e "$stop" ] && [ "$i" -le 3000 ]; do
    t0=$EPOCHREALTIME
    getent passwd "u$i" > /dev/null
    t1=$EPOCHREALTIME
    echo $(( ${t1/./} - ${t0/./} )) >> "$out"
    i=$((i + 1))
done
EOF
start_sssd || { echo "bench_sudo_refresh: sssd did not start"; exit 1; }
wait_name sssd.domain_LDAP 10000 || { echo "bench_sudo_refresh: no back-end"; exit 1; }
in_nss_ns bash "$WORK/probe.sh" 1 "$WORK/during" "$WORK/stop" &
probe=$!
line=
for _ in $(seq 600); do
    line=$(grep -h 'full refresh of the sudo rules of LDAP: [0-9]* rules stored' "$LOGS/sssd_be_LDAP.log" 2> /dev/null | head -n1)
    [ -n "$line" ] && break
    sleep 0.1
done
touch "$WORK/stop"
wait "$probe"
rm -f "$WORK/stop"
[ -n "$line" ] || { echo "bench_sudo_refresh: no full refresh within 60 s"; tail -5 "$LOGS/sssd_be_LDAP.log"; exit 1; }
in_nss_ns bash "$WORK/probe.sh" 2001 "$WORK/idle" "$WORK/stop" &
sleep 3
touch "$WORK/stop"
wait

# ---- stock SSSD 2.8 -------------------------------------------------------------------------
stop_sssd
RUNNER=$TOP/tests/perf/systems/stock_sssd.sh
stock_line=
if bash "$RUNNER" available > /dev/null 2>&1 \
        && bash "$RUNNER" prepare "$WORK/stock" > "$WORK/stock_prepare.log" 2>&1; then
    cat > "$WORK/stock_inner.sh" <<EOF
set -u
sed -i 's/^services = nss.*/services = nss, sudo/' /etc/sssd/sssd.conf
printf '[sudo]\n' >> /etc/sssd/sssd.conf
sed -i 's/^\[domain\/perf\]/[domain\/perf]\nldap_sudo_search_base = ou=SUDOers,$SUFFIX\nldap_sudo_random_offset = 0\\ndebug_microseconds = true/' /etc/sssd/sssd.conf
sed -i 's/^debug_level = 0/debug_level = 6/' /etc/sssd/sssd.conf
"\$LOAD_CTL" stop > /dev/null 2>&1; "\$LOAD_CTL" wipe > /dev/null 2>&1
rm -f /var/log/sssd/*.log
"\$LOAD_CTL" start > /dev/null 2>&1 || exit 1
for _ in \$(seq 6000); do
    grep -h 'Successful full refresh of sudo rules' /var/log/sssd/sssd_perf.log 2>/dev/null \
        | head -n1 | grep -q . && break
    sleep 0.1
done
grep -h 'Issuing a full refresh of sudo rules\|Successful full refresh of sudo rules' \
    /var/log/sssd/sssd_perf.log > "$WORK/stock_lines" 2>/dev/null
EOF
    bash "$RUNNER" run "$WORK/stock" "$URI" "$SUFFIX" rfc2307 -- bash "$WORK/stock_inner.sh" \
        > "$WORK/stock_run.log" 2>&1
    if [ -s "$WORK/stock_lines" ]; then
        stock_line=$(python3 - "$WORK/stock_lines" <<'PY'
import re, sys, datetime
# SSSD writes "(2026-11-24 22:14:17:536530)" with debug_microseconds, else no fraction;
# the hour is space-padded ("(2026-11-25  0:35:02:736485)" after midnight).
t = []
for line in open(sys.argv[1]):
    m = re.match(r'\((\d+-\d+-\d+) +(\d+:\d+:\d+)(?:[.:](\d+))?\)', line)
    if m:
        when = datetime.datetime.strptime(m.group(1) + ' ' + m.group(2), '%Y-%m-%d %H:%M:%S')
        when += datetime.timedelta(microseconds=int((m.group(3) or '0').ljust(6, '0')[:6]))
        t.append((when, 'Successful' in line))
# The refresh that succeeded: the last one issued before the first success. Earlier
# attempts that never succeeded are counted and reported.
end = next((a for a, ok in t if ok), None)
starts = [a for a, ok in t if not ok and (end is None or a <= end)]
if end and starts:
    print('%d ms (attempts issued before it succeeded: %d, the first %d ms before the success)'
          % ((end - starts[-1]).total_seconds() * 1000, len(starts),
             (end - starts[0]).total_seconds() * 1000))
PY
)
    fi
    [ -n "$stock_line" ] || { echo "note: no stock full refresh measured:"; tail -3 "$WORK/stock_run.log"; }
else
    echo "note: stock SSSD cannot run here: no stock figure"
fi

stats() { # FILE -> "count median max" (ms)
    sort -n "$1" | awk '{ v[NR] = $1 } END {
        if (NR == 0) { print "0 - -"; exit }
        printf "%d %.2f %.2f", NR, v[int((NR + 1) / 2)] / 1000, v[NR] / 1000 }'
}
echo "full refresh of $RULES sudo rules (ours):"
echo "  $(sed 's/.*full refresh of the sudo rules of LDAP: //' <<< "$line")"
read -r n med max <<< "$(stats "$WORK/during")"
echo "  uncached lookups during the refresh: $n, median $med ms, worst $max ms"
read -r n med max <<< "$(stats "$WORK/idle")"
echo "  uncached lookups when idle:          $n, median $med ms, worst $max ms"
[ -n "$stock_line" ] && echo "full refresh of $RULES sudo rules (SSSD 2.8, from its log): $stock_line"
