#!/bin/bash
# The back-end's member prefetch (src/providers/backend/be_prefetch.c) end to end: a private
# slapd, our sssd, getent/id through glibc in a private mount namespace (nss_ns.sh).
#   A. a cold initgroups of a user in 450 groups (rfc2307): the initgroups search reads
#      memberUid, so the groups are stored complete (no batch, no search per group), and
#      once slapd is gone every group still lists its full members from the cache;
#   B. `id` right after a cold login: its getgrgid requests find the groups complete in
#      the cache instead of searching each group;
#   C. rfc2307bis with nesting: the member lists a cold initgroups stores equal what a
#      normal group lookup stores; they come with the initgroups itself (its member graph,
#      sdap_initgroups_graph.c, since w14), so no prefetch batch runs for them (before,
#      the prefetch read them);
#   D. slapd stopped right after a big initgroups: lookups answer from the cache, nothing
#      hangs, the back-end survives, and members come back once slapd does.
# Usage: test_initgr_prefetch.sh PREFIX   (run as root)
set -u
PREFIX=$(cd "${1:-${PREFIX:?usage: test_initgr_prefetch.sh PREFIX}}" && pwd)
TOP=$(cd "$(dirname "$0")/../.." && pwd)
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/nss_ns.sh"
. "$TOP/tests/lib/slapd.sh"
. "$TOP/tests/lib/ldif.sh"

if ! slapd_available; then
    echo "slapd not installed: skipped"
    exit 77
fi

WORK=$(mktemp -d /tmp/sssd-prefetch.XXXXXX)
cleanup() {
    [ -n "${BT_PID:-}" ] && kill -INT "$BT_PID" 2>/dev/null
    stop_sssd
    slapd_stop "$WORK/ldap1" 2>/dev/null
    slapd_stop "$WORK/ldap2" 2>/dev/null
    rm -rf "$WORK"
}
trap cleanup EXIT

NG=450          # groups of "many" (and of "many2")
BELOG=$LOGS/sssd_be_pf.test.log
BISLOG=$LOGS/sssd_be_bis.test.log

# ---- rfc2307 directory: u1..u20, many, many2; g000..g449 (many + two of u*), h000..h449
# (many2 + one of u11..u20), prim (every user's primary group) ----
gen_rfc2307() {
    local i=0 u S=dc=pf,dc=test
    ldif_base $S
    for u in $(seq -f 'u%g' 1 20) many many2; do
        i=$((i + 1))
        ldif_user $S "$u" $((50000 + i)) 60000 "/home/$u"
    done
    ldif_group $S prim 60000 many u1
    for i in $(seq 0 $((NG - 1))); do
        ldif_group $S "$(printf g%03d "$i")" $((60001 + i)) many u$((i % 20 + 1)) u$(((i + 7) % 20 + 1))
        ldif_group $S "$(printf h%03d "$i")" $((61001 + i)) many2 u$((i % 10 + 11))
    done
}
# The getent line a group g<i> must give (members in the directory's order).
want_g() { printf 'g%03d:*:%d:many,u%d,u%d\n' "$1" $((60001 + $1)) $(($1 % 20 + 1)) $((($1 + 7) % 20 + 1)); }

mkdir -p "$WORK/ldap1" "$WORK/ldap2"
gen_rfc2307 > "$WORK/pf.ldif"
URI1=$(slapd_start "$WORK/ldap1" "$WORK/pf.ldif" dc=pf,dc=test) || exit 1
PORT1=${URI1##*:}

# ---- rfc2307bis directory: balice in bouter, bouter in btop; bzoe in binner in bouter ----
# balice is also in BFILL plain groups, so that its initgroups stores enough new groups to
# be prefetched (BE_PF_MIN_GROUPS).
BFILL=40
S=dc=bis,dc=test
{
    ldif_base $S
    ldif_user $S balice 70001 71001 /home/balice
    ldif_user $S bzoe 70002 71001 /home/bzoe
    ldif_user $S bbob 70003 71001 /home/bbob
    ldif_bis_group $S binner 71002 u:bzoe
    ldif_bis_group $S bouter 71003 u:balice g:binner
    ldif_bis_group $S btop 71004 g:bouter u:bbob
    for i in $(seq 0 $((BFILL - 1))); do
        ldif_bis_group $S "$(printf bfill%02d "$i")" $((71100 + i)) u:balice
    done
} > "$WORK/bis.ldif"
URI2=$(slapd_start "$WORK/ldap2" "$WORK/bis.ldif" dc=bis,dc=test) || exit 1
PORT2=${URI2##*:}

write_conf <<CONF
[sssd]
services = nss
domains = pf.test, bis.test

[domain/pf.test]
id_provider = ldap
ldap_uri = $URI1
ldap_search_base = dc=pf,dc=test
ldap_network_timeout = 2
offline_timeout = 2
entry_cache_timeout = 600
debug_level = 6

[domain/bis.test]
id_provider = ldap
ldap_uri = $URI2
ldap_search_base = dc=bis,dc=test
ldap_schema = rfc2307bis
offline_timeout = 2
entry_cache_timeout = 600
debug_level = 6
CONF
rm -f "$BELOG" "$BISLOG"     # the checks below count lines of these logs
start_sssd || { fail "sssd did not start"; summary; exit 1; }

# Searches of one group by gid (a getgrgid's own lookup) and prefetch batches, in a log.
single_searches() { grep -c "search [0-9]*: '(&(objectClass=posixGroup)(gidNumber=" "$1"; }
batch_searches() { grep -c "search [0-9]*: '(&(objectClass=posixGroup)(|(gidNumber=" "$1"; }
batches_done() { grep -c "member prefetch: batch of" "$1"; }
# Groups that went through finished batches.
batched_groups() { sed -n 's/.*member prefetch: batch of \([0-9]*\):.*/\1/p' "$1" | awk '{s += $1} END {print s + 0}'; }
wait_batched() { # LOG N: until N groups went through batches (10 s at most)
    for _ in $(seq 100); do
        [ "$(batched_groups "$1")" -ge "$2" ] && return 0
        sleep 0.1
    done
    return 1
}
slapd_restart() { # DIR LDIF SUFFIX PORT: a fresh server on the same port
    rm -rf "$1"; mkdir -p "$1"
    SLAPD_PORT=$4 slapd_start "$1" "$2" "$3" >/dev/null
}
online_again() { # wait until a lookup needing LDAP succeeds (the back-end probes on its own)
    for _ in $(seq 40); do
        in_nss_ns getent passwd "$1" >/dev/null && return 0
        sleep 0.5
    done
    return 1
}

# ---- B. `id` right after a cold login: getgrgid waits for the batch ----
s0=$(single_searches "$BELOG")
out=$(in_nss_ns id u1)
n=$(tr ',' '\n' <<<"${out#*groups=}" | grep -c .)
check "id u1 (cold) lists prim and its $((n - 1)) g groups: ${out:0:80}..." \
    test "$n" -eq $((NG / 10 + 1))
s1=$(single_searches "$BELOG")
j=$(grep -c "getAccountInfo group idnumber=.*(joined a request in flight)" "$BELOG")
# id looks up the primary group (prim) before the initgroups: that one search is its own.
# The rfc2307 initgroups search reads memberUid, so u1's groups are stored complete and
# every getgrgid after it finds them fresh in the cache (no batch to wait for either).
check "id u1: no search per group ($((s1 - s0))), $j request(s) waited for a batch" \
    test $((s1 - s0)) -le 1 -a "$j" -eq 0
out=$(in_nss_ns env SSS_NSS_USE_MEMCACHE=NO getent group g000)
check "a group stored by initgroups lists its members: $out" test "$out" = "$(want_g 0)"

# be_prefetch_batch probes while A runs, when bpftrace can attach (printed per batch:
# "batch GROUPS STORED RESULT"); bt_stop prints nothing when it could not.
BT_PID=
bt_start() {
    command -v bpftrace >/dev/null && readelf -n "$PREFIX/libexec/sssd/sssd_be" 2>/dev/null \
        | grep -q be_prefetch_batch || return 0
    mountpoint -q /sys/kernel/tracing || mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null
    bpftrace -e "BEGIN { printf(\"attached\\n\"); }
        usdt:$PREFIX/libexec/sssd/sssd_be:sssd:be_prefetch_batch
        { printf(\"batch %d %d %d\\n\", arg2, arg3, arg4); }" > "$WORK/bt.out" 2>&1 &
    BT_PID=$!
    for _ in $(seq 300); do
        grep -q attached "$WORK/bt.out" && return 0
        kill -0 "$BT_PID" 2>/dev/null || break
        sleep 0.1
    done
    kill -INT "$BT_PID" 2>/dev/null; wait "$BT_PID"; BT_PID=
}
bt_stop() {
    [ -n "$BT_PID" ] || return 0
    sleep 0.3
    kill -INT "$BT_PID"; wait "$BT_PID"; BT_PID=
    awk '$1 == "batch" { n++; g += $2; s += $3; if ($4 != 0) f++ } END { if (n) print n, g, s, f + 0 }' "$WORK/bt.out"
}

# ---- A. cold initgroups of a user in 450 groups ----
s0=$(single_searches "$BELOG")
b0=$(batch_searches "$BELOG")
g0=$(batched_groups "$BELOG")
bt_start
out=$(in_nss_ns getent initgroups many)
n=$(wc -w <<<"$out")
check "getent initgroups many: $((n - 1)) groups" test "$n" -eq $((NG + 2))
# rfc2307: the initgroups search brought every group complete (memberUid read with it):
# nothing is left for the member prefetch, which stays for the DN schemas (C below).
sleep 1
b1=$(batch_searches "$BELOG")
s1=$(single_searches "$BELOG")
g1=$(batched_groups "$BELOG")
check "no prefetch batch needed: the groups came complete ($((b1 - b0)) batches, $((g1 - g0)) groups)" \
    test "$b1" -eq "$b0"
check "and no search of a single group ($((s1 - s0)))" test "$s1" -eq "$s0"
bt=$(bt_stop)
if [ -n "$bt" ]; then
    read -r bn bg bs bf <<<"$bt"
    # Any batch here would be one the complete rfc2307 groups made needless.
    check "be_prefetch_batch probes: $bn batches, $bg groups, $bs stored, $bf failed" \
        test "$bn" -eq 0
else
    echo "(be_prefetch_batch probe not checked: no bpftrace, no probes or no uprobes)"
fi
slapd_stop "$WORK/ldap1"
# slapd is gone: every answer now comes from the cache, and must be complete.
keys=$(seq -f 'g%03g' 0 $((NG - 1)))
want=$(for i in $(seq 0 $((NG - 1))); do want_g "$i"; done)
got=$(in_nss_ns env SSS_NSS_USE_MEMCACHE=NO getent group $keys)
check "slapd stopped: all $NG groups of many list their full members from the cache" \
    test "$got" = "$want"
check "... never an empty member list" test -z "$(grep -E ':[0-9]+:$' <<<"$got")"
[ "$got" = "$want" ] || diff <(echo "$want") <(echo "$got") | head -5
out=$(in_nss_ns id many)
n=$(tr ',' '\n' <<<"${out#*groups=}" | grep -c .)
check "offline: id many lists its $((n)) groups from the cache" test "$n" -eq $((NG + 1))

# ---- D. slapd stopped right after a big initgroups ----
slapd_restart "$WORK/ldap1" "$WORK/pf.ldif" dc=pf,dc=test "$PORT1"
check "back online after slapd restarted" online_again u2
bepid=$(be_pid pf.test)
out=$(in_nss_ns getent initgroups many2)
slapd_stop "$WORK/ldap1"
t0=$(now_ms)
out=$(in_nss_ns timeout 60 id many2); rc=$?
t1=$(now_ms)
n=$(tr ',' '\n' <<<"${out#*groups=}" | grep -c .)
check "slapd stopped mid-prefetch: id many2 answers ($n groups, rc $rc, $((t1 - t0)) ms)" \
    test "$rc" -eq 0 -a "$n" -eq $((NG + 1))
out=$(in_nss_ns env SSS_NSS_USE_MEMCACHE=NO timeout 20 getent group h449); rc=$?
check "... getent group h449 answers from the cache: $out" \
    test "$rc" -eq 0 -a "${out%%:*}" = h449
check "... the back-end is still the same process" test "$(be_pid pf.test)" = "$bepid"
grep -q "member prefetch: .*dropped\|member prefetch: batch of .*failed" "$BELOG" \
    && echo "     the back-end dropped or failed prefetch work, as expected offline"
slapd_restart "$WORK/ldap1" "$WORK/pf.ldif" dc=pf,dc=test "$PORT1"
check "back online again" online_again u3
"$PREFIX/sbin/sss_cache" -E -c "$CONF" >/dev/null 2>&1
out=$(in_nss_ns env SSS_NSS_USE_MEMCACHE=NO getent group h449)
check "online: h449 lists its members again: $out" test "$out" = "h449:*:61450:many2,u20"

# ---- C. rfc2307bis with nesting: the initgroups' lists = a group lookup's lists ----
g0=$(batched_groups "$BISLOG")
out=$(in_nss_ns getent initgroups balice)
want=$(printf '%s\n' 71003 71004 $(seq 71100 $((71100 + BFILL - 1))) balice | sort | xargs)
check "getent initgroups balice: ${out:0:60}..." test "$(tr ' ' '\n' <<<"$out" | sort | xargs)" = "$want"
sorted_group() { # the getent line with its members sorted
    local line=$1
    echo "${line%:*}:$(tr ',' '\n' <<<"${line##*:}" | sort | paste -sd,)"
}
slapd_stop "$WORK/ldap2"
pre_outer=$(sorted_group "$(in_nss_ns env SSS_NSS_USE_MEMCACHE=NO getent group bouter)")
pre_top=$(sorted_group "$(in_nss_ns env SSS_NSS_USE_MEMCACHE=NO getent group btop)")
check "bouter from the cache (slapd stopped): $pre_outer" \
    test "$pre_outer" = "bouter:*:71003:balice,bzoe"
check "btop from the cache, flattened through two levels: $pre_top" \
    test "$pre_top" = "btop:*:71004:balice,bbob,bzoe"
# A batch would have run (and ended, slapd gone or not) by now: the reply came first.
check "no prefetch batch: the initgroups brought the groups complete ($(batched_groups \
    "$BISLOG") groups batched, $g0 before)" test "$(batched_groups "$BISLOG")" -eq "$g0"
slapd_restart "$WORK/ldap2" "$WORK/bis.ldif" dc=bis,dc=test "$PORT2"
check "bis back online" online_again bbob
"$PREFIX/sbin/sss_cache" -E -c "$CONF" >/dev/null 2>&1
n0=$(grep -c "search [0-9]*: '(&(objectClass=posixGroup)(cn=b" "$BISLOG")
post_outer=$(sorted_group "$(in_nss_ns env SSS_NSS_USE_MEMCACHE=NO getent group bouter)")
post_top=$(sorted_group "$(in_nss_ns env SSS_NSS_USE_MEMCACHE=NO getent group btop)")
n1=$(grep -c "search [0-9]*: '(&(objectClass=posixGroup)(cn=b" "$BISLOG")
check "after sss_cache -E both groups were looked up in LDAP again ($((n1 - n0)) searches)" \
    test $((n1 - n0)) -eq 2
check "a normal lookup of bouter gives the same list: $post_outer" test "$post_outer" = "$pre_outer"
check "a normal lookup of btop gives the same list: $post_top" test "$post_top" = "$pre_top"

summary
