#!/bin/bash
# A cold `id` of the user in PERF_MANY groups (gen_directory.py's "manygroups", issue 18)
# and of an ordinary user (about 10 groups), from an empty cache, against slapd loaded with
# the perf directory in the schema given: the wall time of each `id`, the groups it listed,
# and the LDAP operations slapd's stats log shows for them (SRCH, BIND, EXT).
# Usage: bench_ig_many.sh PREFIX [SCHEMA]   (root; SCHEMA rfc2307 or rfc2307bis)
# Knobs: PERF_USERS 10000, PERF_GROUPS 20000, PERF_BIG 10000, PERF_MANY 5000, RUNS 1;
# BENCH_CALLGRIND=1 runs sssd_be under callgrind (its binary in PREFIX swapped for a wrapper
# for the run, put back on exit: a scratch install only), counters zeroed after the warm-up
# lookup and dumped after each `id`; files in BENCH_OUT (default /tmp/sssd-igmany-cg).
set -u
PREFIX=$(cd "${1:?usage: bench_ig_many.sh PREFIX [SCHEMA]}" && pwd)
SCHEMA=${2:-rfc2307bis}
TOP=$(cd "$(dirname "$0")/../.." && pwd)
. "$TOP/tests/intg/lib.sh"
. "$TOP/tests/intg/nss_ns.sh"
. "$TOP/tests/lib/slapd.sh"
USERS=${PERF_USERS:-10000}
NGROUPS=${PERF_GROUPS:-20000}
BIG=${PERF_BIG:-10000}
MANY=${PERF_MANY:-5000}
RUNS=${RUNS:-1}
BASEDN=dc=perf,dc=test

WORK=$(mktemp -d /tmp/sssd-igmany.XXXXXX)
SL_PID=
L=$PREFIX/libexec/sssd
CG_OUT=${BENCH_OUT:-/tmp/sssd-igmany-cg}
cleanup() {
    stop_sssd
    [ -f "$L/sssd_be.real" ] && mv -f "$L/sssd_be.real" "$L/sssd_be"
    [ -n "$SL_PID" ] && kill "$SL_PID" 2>/dev/null && wait "$SL_PID" 2>/dev/null
    rm -rf "$WORK"
}
trap cleanup EXIT

python3 "$TOP/tests/perf/gen_directory.py" "$USERS" "$NGROUPS" "$BIG" "$MANY" "$BASEDN" \
    "$SCHEMA" > "$WORK/dir.ldif" || exit 1
URI=$(slapd_start "$WORK/ldap" "$WORK/dir.ldif" "$BASEDN") || exit 1
slapd_stop "$WORK/ldap" || exit 1
# Again in the foreground with -d stats, so that the operations are logged.
"$SLAPD_BIN" -f "$WORK/ldap/slapd.conf" -h "$URI/" -n slapd-test -d stats > /dev/null \
    2> "$WORK/stats.log" &
SL_PID=$!
for _ in $(seq 100); do
    (exec 3<>"/dev/tcp/127.0.0.1/${URI##*:}") 2>/dev/null && break
    sleep 0.05
done

if [ "${BENCH_CALLGRIND:-0}" = 1 ]; then
    rm -rf "$CG_OUT"; mkdir -p "$CG_OUT"
    mv "$L/sssd_be" "$L/sssd_be.real"
    printf '#!/bin/sh\nexec valgrind --tool=callgrind --callgrind-out-file=%s/be.%%p.out %s\n' \
        "$CG_OUT" '"$0.real" "$@"' > "$L/sssd_be"
    chmod 755 "$L/sssd_be"
fi

write_conf <<CONF
[sssd]
services = nss
domains = perf.test

[domain/perf.test]
id_provider = ldap
ldap_uri = $URI
ldap_search_base = $BASEDN
ldap_schema = $SCHEMA
entry_cache_timeout = 600
CONF

ops_since() { # FROM_LINE: distinct conn/op pairs that are a search, bind or extended op
    tail -n +"$1" "$WORK/stats.log" | grep -E ' conn=[0-9]+ op=[0-9]+ (SRCH|BIND|EXT) ' \
        | sed -E 's/.* (conn=[0-9]+ op=[0-9]+) (SRCH|BIND|EXT) .*/\1 \2/' | sort -u | wc -l
}

# CPU time (ms, user + system) of a process so far.
cpu_ms() { # PID
    awk -v hz="$(getconf CLK_TCK)" '{print int(($14 + $15) * 1000 / hz)}' "/proc/$1/stat" \
        2>/dev/null || echo 0
}
cpu_all() { # "be nss slapd" CPU ms
    echo "$(cpu_ms "$(be_pid perf.test)") $(cpu_ms "$(service_pid sssd_nss)") $(cpu_ms "$SL_PID")"
}

cold() { # USER
    local from mid t0 t1 out n be0 nss0 sl0 be1 nss1 sl1
    stop_sssd
    rm -rf "$PREFIX/var/lib/sss/db/"* "$PREFIX/var/lib/sss/mc/"*
    start_sssd || { echo "sssd did not start"; exit 1; }
    # The back-end's connection: a lookup of nobody, not measured.
    in_nss_ns getent passwd perf-warmup-nobody > /dev/null
    [ "${BENCH_CALLGRIND:-0}" = 1 ] && callgrind_control -z > /dev/null 2>&1
    from=$(($(wc -l < "$WORK/stats.log") + 1))
    read -r be0 nss0 sl0 <<<"$(cpu_all)"
    t0=$(date +%s%N)
    out=$(in_nss_ns id "$1")
    t1=$(date +%s%N)
    read -r be1 nss1 sl1 <<<"$(cpu_all)"
    n=$(grep -o 'groups=.*' <<<"$out" | tr ',' '\n' | wc -l)
    if [ "${BENCH_CALLGRIND:-0}" = 1 ]; then
        callgrind_control -d "$1" > /dev/null 2>&1
        sleep 1
    fi
    mid=$(($(wc -l < "$WORK/stats.log") + 1))
    echo "cold id $1 ($SCHEMA): $(( (t1 - t0) / 1000000 )) ms, $n groups," \
         "$(ops_since "$from") LDAP operations; load: $(uptime | sed 's/.*average: //')"
    echo "    CPU ms: sssd_be $((be1 - be0)), sssd_nss $((nss1 - nss0)), slapd $((sl1 - sl0))"
    # What the back-end does after answering (the member prefetch), for SETTLE seconds.
    sleep "${SETTLE:-5}"
    echo "    then $(ops_since "$mid") LDAP operations in the ${SETTLE:-5} s after it"
    [ -n "${BENCH_FILTERS:-}" ] && tail -n +"$from" "$WORK/stats.log" \
        | grep -oE 'SRCH base=.*filter="[^"]{0,120}' | sed -E 's/\(uid=[^)]*\)/(uid=U)/g;
            s/\(member=[^)]*\)/(member=M)/g; s/\(cn=[^)]*\)/(cn=C)/g;
            s/\(gidNumber=[^)]*\)/(gidNumber=G)/g' | sort | uniq -c | sort -rn | head -20
}

for _ in $(seq "$RUNS"); do
    cold manygroups
    cold user000001
done
