#!/bin/bash
# sudo_threshold and ldap_sudo_random_offset (issue 14), with Debian's real sudo in a mount
# namespace (as test_sudo_real.sh) and a private slapd with the sudo schema.
#
# sudo_threshold = 3: after sss_cache -R every cached rule is expired.
#   carol has 5 rules (more than the threshold): sssd_sudo asks the back-end for a full
#   refresh (SSSD's "ALL" query) instead of her 5 rules by name; her answer is the same
#   rules, plus a rule added in LDAP meanwhile (only a full refresh can bring a new one).
#   alice has 1 rule: a rules refresh of that name; a rule added for her meanwhile stays
#   unseen until a full or smart refresh, as in SSSD.
# ldap_sudo_random_offset = 4 with both refresh intervals at 1 s: every run is put off by
#   its own draw in [0, 4] (the back-end logs each draw); the draws are not all the same;
#   no run starts before its interval plus its draw; and two starts of the suite draw
#   different sequences (an unseeded random() drew the same on every host).
# No check bounds how fast anything is.
#
# Usage: test_sudo_refresh_opts.sh PREFIX   (root; exits 77 without slapd or sudo)
set -u
PREFIX=$(cd "$1" && pwd)
TOP=$(cd "$(dirname "$0")/../.." && pwd)
SUDO_TEST=sudo-opts
. "$(dirname "$0")/sudo_env.sh"
command -v python3 > /dev/null || { echo "SKIP: no python3"; exit 77; }

rule() { sudo_rule "$1" "$2" "$3" "sudoHost: ALL"; }
{
    ldif_base "$SUFFIX"
    ldif_user "$SUFFIX" alice 10001 10001 /home/alice
    ldif_user "$SUFFIX" carol 10003 10003 /home/carol
    ldif_group "$SUFFIX" alice 10001
    ldif_group "$SUFFIX" carol 10003
    printf 'dn: ou=SUDOers,%s\nobjectClass: organizationalUnit\nou: SUDOers\n\n' "$SUFFIX"
    rule alice_1 alice /bin/true
    for i in 1 2 3 4 5; do rule "carol_$i" carol "/bin/echo carol$i"; done
} > "$WORK/sudo.ldif"
URI=$(sudo_slapd_start "$WORK/sudo.ldif") || exit 1
list() { in_sudo_ns ours sudo -l -U "$1" 2>&1 | grep -E '^ +\(root\)'; }

# ---- sudo_threshold --------------------------------------------------------------------------
sudo_conf "nss, sudo" "sudo_threshold = 3
debug_level = 6" "ldap_sudo_smart_refresh_interval = 0
entry_cache_sudo_timeout = 600
debug_level = 6"
rm -f "$LOGS"/*.log
sudo_suite_start

list carol > "$WORK/carol_1"
check "carol's five rules are listed" test "$(wc -l < "$WORK/carol_1")" = 5
list alice > "$WORK/alice_1"
check "alice's one rule is listed" test "$(wc -l < "$WORK/alice_1")" = 1
asked() { grep -c "asking LDAP for a $1 refresh" "$LOGS/sssd_sudo.log"; }

rule carol_6 carol "/bin/echo carol6" | sudo_ldap_add
"$SBIN/sss_cache" -R > /dev/null 2>&1 || fail "sss_cache -R"
full0=$(asked full)
rules0=$(asked rules)
list carol > "$WORK/carol_2"
check "5 expired rules > sudo_threshold 3: sssd_sudo asked for a full refresh" \
    test "$(asked full)" = $((full0 + 1))
check "... and not for her rules by name" test "$(asked rules)" = "$rules0"
grep -v carol6 "$WORK/carol_2" > "$WORK/carol_2_old"
check "carol's answer through the full refresh holds the same five rules" \
    diff "$WORK/carol_1" "$WORK/carol_2_old"
check "... and the rule added in LDAP meanwhile (only a full refresh brings it)" \
    grep -q '/bin/echo carol6' "$WORK/carol_2"

rule alice_2 alice /bin/false | sudo_ldap_add
"$SBIN/sss_cache" -R > /dev/null 2>&1 || fail "sss_cache -R"
full0=$(asked full)
rules0=$(asked rules)
list alice > "$WORK/alice_2"
check "1 expired rule <= sudo_threshold: sssd_sudo asked for a rules refresh" \
    test "$(asked rules)" = $((rules0 + 1))
check "... and not for a full one" test "$(asked full)" = "$full0"
check "alice's answer is her one rule (the new one waits for a full or smart refresh, as \
in SSSD)" diff "$WORK/alice_1" "$WORK/alice_2"
stop_sssd

# ---- ldap_sudo_random_offset -----------------------------------------------------------------
offset_conf() {
    sudo_conf "nss, sudo" "" "ldap_sudo_full_refresh_interval = 1
ldap_sudo_smart_refresh_interval = 1
ldap_sudo_random_offset = 4
debug_level = 6"
}
# run_offsets OUT: start the suite, let the refreshes run until 8 draws are logged.
run_offsets() {
    offset_conf
    rm -f "$LOGS"/*.log
    start_sssd || { fail "sssd did not start"; return 1; }
    for _ in $(seq 120); do
        [ "$(grep -c 'sudo refresh of LDAP in' "$LOGS/sssd_be_LDAP.log" 2>/dev/null)" -ge 8 ] \
            && break
        sleep 0.25
    done
    stop_sssd
    cp "$LOGS/sssd_be_LDAP.log" "$1"
}
run_offsets "$WORK/be_a.log"
run_offsets "$WORK/be_b.log"

# Prints "draws" (the random parts in order), then checks bounds and the start times.
analyse='
import re, sys, datetime
ts = lambda l: datetime.datetime.strptime(l[1:27], "%Y-%m-%d %H:%M:%S.%f")
nxt = re.compile(r"Next (full|smart) sudo refresh of LDAP in (\d+) s \((\d+) \+ random offset (\d+) of at most (\d+)\)")
start = re.compile(r"\] (full|smart) refresh of the sudo rules of LDAP: \(&")
skip = re.compile(r"(Full|Smart) sudo refresh of LDAP skipped")
draws, bad, early, pending = [], [], [], {}
for l in open(sys.argv[1]):
    m = nxt.search(l)
    if m:
        kind, total, base, extra, most = m.group(1), *map(int, m.group(2, 3, 4, 5))
        draws.append(extra)
        if not (0 <= extra <= most == 4) or total != base + extra:
            bad.append(l.strip())
        pending[kind] = (ts(l), total)
        continue
    m = start.search(l) or skip.search(l)
    if m and m.group(1).lower() in pending:
        t0, total = pending.pop(m.group(1).lower())
        if (ts(l) - t0).total_seconds() < total - 0.05:
            early.append(l.strip())
print(" ".join(map(str, draws)))
print(len(bad), len(early))
'
draws_a=$(python3 -c "$analyse" "$WORK/be_a.log" | sed -n 1p)
read -r bad_a early_a < <(python3 -c "$analyse" "$WORK/be_a.log" | sed -n 2p)
draws_b=$(python3 -c "$analyse" "$WORK/be_b.log" | sed -n 1p)
read -r bad_b early_b < <(python3 -c "$analyse" "$WORK/be_b.log" | sed -n 2p)
n_a=$(wc -w <<< "$draws_a")
check "every run was put off by a logged draw: $n_a draws ($draws_a)" test "$n_a" -ge 8
check "every draw is within [0, ldap_sudo_random_offset] and adds to the interval" \
    test "$bad_a$bad_b" = 00
check "the draws are not all the same" \
    test "$(tr ' ' '\n' <<< "$draws_a" | sort -u | wc -l)" -ge 2
check "no refresh started before its interval plus its draw" test "$early_a$early_b" = 00
first_a=$(cut -d' ' -f1-8 <<< "$draws_a")
first_b=$(cut -d' ' -f1-8 <<< "$draws_b")
check "two starts draw different sequences ($first_a / $first_b)" \
    test "$first_a" != "$first_b"

summary
