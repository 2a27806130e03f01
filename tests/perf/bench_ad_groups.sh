#!/bin/bash
# Benchmark (prints figures, never fails on timing): a cold `id` of an AD user in N groups
# (default 5,000) through our id_provider = ad against a private Samba AD DC
# (tests/lib/samba_ad.sh), with tokenGroups (the AD default: the initgroups goes to the
# global catalog, be_id_gc.c), tokenGroups with ad_enable_gc = false (the domain's LDAP),
# and with the membership searches (ldap_use_tokengroups = false; BENCH_NT=0 skips it),
# then a warm `id` (timed alone; with the back-end requests it made, which should be
# none). Each cold run starts from an empty cache. BENCH_DEBUG=0x0400 adds the
# back-end's own initgroups time (from its log).
# Load-independent figures with each cold run: the LDAP searches the back-end sent for it
# (sssctl stats --json) and the CPU time the back-end, sssd_nss and the DC (every samba
# process) spent on it (/proc), with the load average; and the DC's busiest process: Samba
# serves a connection in one process, so that process's CPU is the DC's part of the wall
# time on an idle machine (the SID searches are shared with a second connection since
# w12, which since w13 searches the SIDs of the user's memberOf while the first computes
# tokenGroups, sdap_tokengroups.c; when Samba gives both connections one worker, the
# busiest process holds nearly all of the DC's CPU and nothing overlaps).
# BENCH_QUERIES=1 then prints the DC's CPU for the LDAP queries of each way to get the
# groups (queries() below). BENCH_AFTER=FILE is sourced once the runs are done, the DC still up (experiments).
# Not part of make perf yet (its AD system is still to come).
# Usage: bench_ad_groups.sh PREFIX [N]   (root; 77 without Samba's AD DC)
set -u
PREFIX=$(cd "$1" && pwd)
N=${2:-5000}
TOP=$(cd "$(dirname "$0")/../.." && pwd)
. "$TOP/tests/lib/samba_ad.sh"
reason=$(samba_ad_skip_reason)
[ -z "$reason" ] || { echo "SKIP: $reason"; exit 77; }
samba_ad_enter "$0" "$@"
. "$TOP/tests/intg/lib.sh"
. "$TOP/tests/intg/nss_ns.sh"

WORK=$(mktemp -d /tmp/bench_ad_groups.XXXXXX)
trap 'stop_sssd; samba_ad_stop; rm -rf "$WORK"' EXIT
samba_ad_start "$WORK/dc" || { echo "the Samba AD DC did not start"; exit 1; }
samba_ad_user u5k U5k-Pass1 || exit 1
samba_ad_join || exit 1
t0=$(now_ms)
for i in $(seq 1 "$N"); do
    printf 'dn: CN=bg%d,CN=Users,%s\nobjectClass: group\nsAMAccountName: bg%d\n' \
        "$i" "$SAMBA_AD_BASE" "$i"
    printf 'member: CN=u5k,CN=Users,%s\n\n' "$SAMBA_AD_BASE"
done > "$WORK/groups.ldif"
ldapadd -x -c -H ldap://$SAMBA_AD_DC_IP -D "Administrator@$SAMBA_AD_DOMAIN" \
    -w "$SAMBA_AD_ADMINPASS" -f "$WORK/groups.ldif" > "$WORK/add.log" 2>&1
echo "# $N groups added in $(( $(now_ms) - t0 )) ms"

searches() { # LDAP searches the back-end sent so far
    "$PREFIX/sbin/sssctl" stats --json 2>/dev/null | jq -r '[.metrics[].samples[]
        | select(.name == "sssd_ldap_operations_total")
        | select(.labels.process == "sssd_be_ad.test" and .labels.operation == "search")
        | .value] | add // 0'
}
be_requests() { # account requests the back-end received so far
    "$PREFIX/sbin/sssctl" stats --json 2>/dev/null | jq -r '[.metrics[].samples[]
        | select(.name == "sssd_be_requests_total")
        | select(.labels.process == "sssd_be_ad.test") | .value] | add // 0'
}
cpu_ms() { # PID: user+system CPU time so far, ms (after the command's name: it may hold
           # spaces, as the DC's workers' do)
    sed 's/.*) //' "/proc/$1/stat" |
        awk -v hz="$(getconf CLK_TCK)" '{ print int(($12 + $13) * 1000 / hz) }'
}
dc_procs() { # the DC's processes (the samba master and all its descendants: its workers
             # run under tfork helpers), one "PID CPU-ms-so-far" line each, sorted
    local p
    for p in $(ps -e -o pid=,ppid= | awk -v r="$(cat "$SAMBA_AD_DIR/run/samba.pid")" '
            { parent[$1] = $2 }
            END { for (x in parent) { y = x
                      while (y != r && (y in parent) && y > 1) { y = parent[y] }
                      if (y == r) { print x } } }'); do
        echo "$p $(cpu_ms "$p" 2>/dev/null)"
    done | sort
}
dc_cpu_ms() { # the DC's CPU so far, ms
    dc_procs | awk '{ n += $2 } END { print n + 0 }'
}
dc_busiest() { # BEFORE AFTER (dc_procs files): the most CPU one DC process spent between
    join "$1" "$2" | awk '{ d = $3 - $2; if (d > m) m = d } END { print m + 0 }'
}
run() { # LABEL EXTRA_DOMAIN_LINES
    rm -f "$LOGS"/*.log
    write_conf <<CONF
[sssd]
domains = ad.test
services = nss
[domain/ad.test]
id_provider = ad
ad_server = $SAMBA_AD_DC
debug_level = ${BENCH_DEBUG:-0}
$2
CONF
    start_sssd && wait_name sssd.domain_ad_2etest 10000 || { echo "sssd did not start"; return; }
    # The connection and its GSSAPI bind first, so the figure is the lookup's.
    in_nss_ns getent passwd u5k > /dev/null
    local t1 t2 t3 t4 n s0 s1 s2 r1 r2 be nss b0 b1 n0 n1 d0 d1
    be=$(be_pid ad.test)
    nss=$(service_pid sssd_nss)
    s0=$(searches)
    b0=$(cpu_ms "$be"); n0=$(cpu_ms "$nss"); dc_procs > "$WORK/dc0"
    t1=$(now_ms)
    n=$(in_nss_ns id u5k | tr ',' '\n' | grep -c '(bg')
    t2=$(now_ms)
    b1=$(cpu_ms "$be"); n1=$(cpu_ms "$nss"); dc_procs > "$WORK/dc1"
    d0=$(awk '{ n += $2 } END { print n + 0 }' "$WORK/dc0")
    d1=$(awk '{ n += $2 } END { print n + 0 }' "$WORK/dc1")
    s1=$(searches); r1=$(be_requests)
    # The warm id timed alone: the figures above (sssctl, ps over every process) took
    # 250 ms to seconds under load, and were counted as the warm id's time until w11.
    t3=$(now_ms)
    in_nss_ns id u5k > /dev/null
    t4=$(now_ms)
    s2=$(searches); r2=$(be_requests)
    echo "$1: cold id u5k $((t2 - t1)) ms ($n bg groups), warm $((t4 - t3)) ms," \
        "load $(cut -d' ' -f1 /proc/loadavg)"
    echo "    cold id: $((s1 - s0)) LDAP searches; CPU ms: sssd_be $((b1 - b0))," \
        "sssd_nss $((n1 - n0)), DC $((d1 - d0)) (busiest process $(dc_busiest "$WORK/dc0" \
        "$WORK/dc1"))"
    echo "    warm id: $((r2 - r1)) back-end request(s), $((s2 - s1)) LDAP searches"
    # With BENCH_DEBUG=0x0400 the back-end logs each request's duration.
    grep -o "getAccountInfo initgroups name=u5k: .*" "$LOGS/sssd_be_ad.test.log" 2>/dev/null |
        sed "s/^/    back-end: /"
    stop_sssd
}
run "tokenGroups (GC)" ""
run "tokenGroups, ad_enable_gc = false" "ad_enable_gc = false"
[ "${BENCH_NT:-1}" = 0 ] || run "membership searches" "ldap_use_tokengroups = false"

# BENCH_QUERIES=1: what the DC spends (CPU of every samba process, and wall) on each way
# of getting u5k's groups, asked with ldapsearch (simple bind; a connection per search):
# the parts of our tokenGroups path and the alternatives of issue 16. Each ldapsearch
# pays a connection and a bind (~5.5 ms of the DC's CPU): the line "connections alone"
# gives what the batches' lines hold of it (most of them; the back-end's own searches
# share one connection). The batches here are not paged, as the back-end's are not since
# w13 (the control cost Samba ~4.7 ms per search).
queries() {
    local U="CN=u5k,CN=Users,$SAMBA_AD_BASE" A="objectClass sAMAccountName objectSid
        member gidNumber" rep
    LS() { ldapsearch -x -H ldap://$SAMBA_AD_DC_IP -D "Administrator@$SAMBA_AD_DOMAIN" \
               -w "$SAMBA_AD_ADMINPASS" -LLL -o ldif-wrap=no "$@"; }
    # One ldapsearch per filter: ldapsearch -f mangles lines this long (every search
    # returned the whole directory).
    batches() { # ATTRS...
        local f
        while read -r f; do
            LS -b "$SAMBA_AD_BASE" "$f" "$@"
        done < "$WORK/f50"
    }
    q() { # LABEL COMMAND ARGS... (LS or batches)
        local l=$1 d0 d1 t0 t1; shift
        d0=$(dc_cpu_ms); t0=$(now_ms)
        "$@" > "$WORK/q.out" 2>&1
        t1=$(now_ms); d1=$(dc_cpu_ms)
        echo "    $l: DC CPU $((d1 - d0)) ms, wall $((t1 - t0)) ms," \
            "$(grep -c '^dn:' "$WORK/q.out") entries"
    }
    empties() { # as many connections as batches, each with an empty base search
        local f
        while read -r f; do
            LS -b "$U" -s base 1.1
        done < "$WORK/f50"
    }
    # tokenGroups' binary SIDs as S-1-... strings, then the OR filters of 50 we send.
    LS -b "$U" -s base tokenGroups | sed -n 's/^tokenGroups:: //p' | python3 -c '
import base64, struct, sys
for line in sys.stdin:
    b = base64.b64decode(line.strip())
    auth = int.from_bytes(b[2:8], "big")
    subs = struct.unpack("<%dI" % b[1], b[8:8 + 4 * b[1]])
    print("S-%d-%d-%s" % (b[0], auth, "-".join(map(str, subs))))' |
        grep -v '^S-1-5-32-' > "$WORK/sids"
    awk '{ f = f "(objectSid=" $1 ")" } NR % 50 == 0 { print "(&(objectClass=group)(|" f "))"; f = "" }
         END { if (f != "") print "(&(objectClass=group)(|" f "))" }' "$WORK/sids" > "$WORK/f50"
    echo "DC cost of u5k's groups ($(wc -l < "$WORK/sids") SIDs), load $(cut -d' ' -f1 /proc/loadavg)"
    for rep in 1 2; do
        q "tokenGroups (base search of the user)" LS -b "$U" -s base tokenGroups
        # shellcheck disable=SC2086
        q "$(wc -l < "$WORK/f50") searches of 50 SIDs, with member" batches $A
        q "$(wc -l < "$WORK/f50") searches of 50 SIDs, name and SID only" batches \
            sAMAccountName objectSid
        q "$(wc -l < "$WORK/f50") connections alone (an empty base search each)" empties
        # shellcheck disable=SC2086
        q "in-chain (member:1.2.840.113556.1.4.1941:=user)" LS -E pr=1000/noprompt \
            -b "$SAMBA_AD_BASE" "(member:1.2.840.113556.1.4.1941:=$U)" $A
        # shellcheck disable=SC2086
        q "direct (&(objectClass=group)(member=user))" LS -E pr=1000/noprompt \
            -b "$SAMBA_AD_BASE" "(&(objectClass=group)(member=$U))" $A
        q "every group, name and SID only" LS -E pr=1000/noprompt -b "$SAMBA_AD_BASE" \
            "(objectClass=group)" sAMAccountName objectSid
        q "the user's memberOf (base)" LS -b "$U" -s base memberOf
    done
}
[ "${BENCH_QUERIES:-0}" = 0 ] || queries
[ -z "${BENCH_AFTER:-}" ] || . "$BENCH_AFTER"
