#!/bin/bash
# sudo rules from LDAP through Debian's real sudo (1.9, built --with-sssd): a private slapd
# with the sudo schema (tests/lib/sudo.schema) holds users, a group and sudoRole entries;
# our sssd runs nss and sudo with sudo_provider = ldap. Every sudo command runs in a private
# mount namespace (in_sudo_ns) whose nsswitch.conf says `sudoers: sss` and whose
# /usr/lib/x86_64-linux-gnu is an overlay adding the client libraries (sudo is setuid, so
# the loader only looks there): ours, or SSSD 2.8's libsss_sudo.so (Debian's libsss-sudo,
# downloaded and unpacked, never installed) with /var/lib/sss/pipes bound to ours.
# Users run sudo as themselves through setpriv. Checks:
#   without sudo in [sssd] services nothing is searched for sudo (no sssd_sudo, no refresh);
#   sudo -l -U alice lists her rules, nothing else; alice's own sudo -l shows the defaults;
#   alice runs /bin/true as root and nothing else (not bob's %admins command, not the
#   expired rule (sudo_timed = true), not the rule for another host);
#   bob, through the %admins rule, runs /usr/bin/id as root;
#   ldap_sudo_include_regexp: rules with a wildcard sudoHost are fetched, sudo runs the one
#   matching this host and refuses the other; a sudoUser pattern gives nobody anything;
#   a rule added in LDAP applies after a smart refresh, with no restart;
#   a malformed sudoRole entry (no cn) is skipped with a log line, the rest works;
#   a rule deleted in LDAP stays until it expires, or until sss_cache -r expires it; the
#   rules refresh that finds it gone sets off one full refresh, which removes the other
#   rules deleted with it;
#   offline (slapd stopped, everything expired by sss_cache -E) the cached rules apply;
#   SSSD 2.8's libsss_sudo against our sssd_sudo gives sudo the same answers.
#
# Usage: test_sudo_real.sh PREFIX   (root; exits 77 without slapd or sudo)
set -u
PREFIX=$(cd "$1" && pwd)
TOP=$(cd "$(dirname "$0")/../.." && pwd)
SUDO_TEST=sudo
. "$(dirname "$0")/sudo_env.sh"

# ---- the directory ----------------------------------------------------------------------
rule() { sudo_rule "$@"; }
{
    ldif_base "$SUFFIX"
    ldif_user "$SUFFIX" alice 10001 10001 /home/alice
    ldif_user "$SUFFIX" bob 10002 10002 /home/bob
    ldif_group "$SUFFIX" alice 10001
    ldif_group "$SUFFIX" bob 10002
    ldif_group "$SUFFIX" admins 20001 bob
    printf 'dn: ou=SUDOers,%s\nobjectClass: organizationalUnit\nou: SUDOers\n\n' "$SUFFIX"
    printf 'dn: cn=defaults,ou=SUDOers,%s\nobjectClass: top\nobjectClass: sudoRole\n' "$SUFFIX"
    printf 'cn: defaults\nsudoOption: !lecture\nsudoOption: env_keep+=SUDO_TEST_MARK\n\n'
    rule alice_true alice /bin/true "sudoHost: ALL" "sudoOrder: 10"
    rule admins_id %admins /usr/bin/id "sudoHost: ALL"
    rule alice_expired alice /usr/bin/whoami "sudoHost: ALL" \
        "sudoNotAfter: 20000101000000Z"
    rule alice_otherhost alice /bin/ls "sudoHost: otherhost.invalid"
    rule alice_stale alice /usr/bin/printf "sudoHost: ALL"
    # Wildcard hosts (ldap_sudo_include_regexp): one matching this host, one not.
    rule alice_wild alice /usr/bin/uname "sudoHost: $(hostname | cut -c1)*"
    rule alice_wild_other alice /usr/bin/basename "sudoHost: zz-no-such-host-*"
    # A wildcard user: SSSD 2.8 gives a user only rules naming ALL, the user, #uid, %group
    # or +netgroup (sysdb_sudo_filter_userinfo), never one whose sudoUser is a pattern.
    rule wild_user 'ali*' /usr/bin/dirname "sudoHost: ALL"
    # Malformed: a sudoRole without cn (slapadd -s takes it; sssd must skip it).
    printf 'dn: description=broken,ou=SUDOers,%s\nobjectClass: top\nobjectClass: sudoRole\n' \
        "$SUFFIX"
    printf 'description: broken\nsudoUser: alice\nsudoCommand: /bin/date\nsudoHost: ALL\n\n'
} > "$WORK/sudo.ldif"
URI=$(sudo_slapd_start "$WORK/sudo.ldif") || exit 1

# ---- sudo not a service: nothing at all is searched for sudo --------------------------------
. "$(dirname "$0")/nss_ns.sh"
sudo_conf "nss" "" "ldap_sudo_smart_refresh_interval = 1
debug_level = 6"
rm -f "$LOGS"/*.log
start_sssd || { echo "FAIL: sssd did not start"; exit 1; }
wait_name sssd.domain_LDAP 10000 || { echo "FAIL: sssd_be is not on the bus"; exit 1; }
alice_known() { in_nss_ns getent passwd alice > /dev/null; }
check "without sudo in services, alice is still resolved" alice_known
sleep 2.5   # past the smart refresh interval
check "without sudo in services, sssd_be searched nothing for sudo" \
    bash -c "! grep -q 'sudo rules' '$LOGS/sssd_be_LDAP.log'"
check "without sudo in services, no sssd_sudo runs" \
    bash -c "[ -z \"\$(pgrep -f '^$PREFIX/libexec/sssd/sssd_sudo')\" ]"
stop_sssd

sudo_conf "nss, sudo" "sudo_timed = true
debug_level = 6" "ldap_sudo_smart_refresh_interval = 2
ldap_sudo_include_regexp = true
entry_cache_sudo_timeout = 600
offline_timeout = 60
debug_level = 6"
rm -f "$LOGS"/*.log
sudo_suite_start

# ---- the namespace ------------------------------------------------------------------------
# SSSD 2.8's libsss_sudo.so goes into $WORK/stock below; our libnss_sss.so.2 beside it.
mkdir -p "$WORK/stock"
cp "$OUR_NSS_LIB" "$WORK/stock/libnss_sss.so.2"

# ---- rules through our library --------------------------------------------------------------
in_sudo_ns ours sudo -l -U alice > "$WORK/l_alice" 2>&1
check "sudo -l -U alice lists /bin/true as root" \
    grep -Eq '\(root\) NOPASSWD: /bin/true' "$WORK/l_alice"
# sudo asks the defaults for the invoking user: root is never looked up (as in SSSD), so
# the defaults show when alice lists her own rules (no password: she has NOPASSWD rules).
as_user ours alice 10001 sudo -n -l > "$WORK/l_alice_self" 2>&1
check "alice's sudo -l shows the defaults entry (!lecture)" grep -q '!lecture' "$WORK/l_alice_self"
check "alice's sudo -l lists /bin/true" grep -Eq '\(root\) NOPASSWD: /bin/true' "$WORK/l_alice_self"
check "sudo -l -U alice: nothing of bob's group, the expired rule or another host" \
    bash -c "! grep -Eq '/usr/bin/id|/usr/bin/whoami|/bin/ls|/bin/date' '$WORK/l_alice'"
[ "$FAIL" -eq 0 ] || sed 's/^/    /' "$WORK/l_alice"

check "alice runs /bin/true as root" as_user ours alice 10001 sudo -n /bin/true
check "with sudo in services, sssd_be logs its full refresh (what the check without sudo \
looks for)" grep -q 'full refresh of the sudo rules of LDAP' "$LOGS/sssd_be_LDAP.log"
out=$(as_user ours alice 10001 sudo -n /usr/bin/id -u 2>&1)
check "alice may not run /usr/bin/id ($out)" test "$out" != 0
out=$(as_user ours alice 10001 sudo -n /usr/bin/whoami 2>&1)
check "alice's expired rule is ignored with sudo_timed = true ($out)" test "$out" != root
out=$(as_user ours alice 10001 sudo -n /bin/ls / 2>&1)
check "the rule for another host is ignored" bash -c "! grep -q '^etc\$' <<< '$out'"
out=$(as_user ours alice 10001 sudo -n /usr/bin/uname 2>&1)
check "ldap_sudo_include_regexp: alice runs /usr/bin/uname through the sudoHost wildcard \
matching this host ($out)" test "$out" = Linux
"$SBIN/sss_cache" -r alice_wild_other > /dev/null 2>&1
check "ldap_sudo_include_regexp: the rule whose sudoHost wildcard names other hosts was \
fetched (sss_cache -r finds it)" test $? = 0
out=$(as_user ours alice 10001 sudo -n /usr/bin/basename /x/y 2>&1)
check "sudo itself refuses that rule on this host ($out)" test "$out" != y
out=$(as_user ours alice 10001 sudo -n /usr/bin/dirname /x/y 2>&1)
check "a sudoUser pattern (ali*) gives alice nothing, as in SSSD 2.8 ($out)" test "$out" != /x
out=$(as_user ours alice 10001 sudo -n /bin/date 2>&1)
check "the malformed entry gave alice nothing" bash -c "! grep -q '[0-9]:[0-9]' <<< '$out'"
check "the malformed entry was skipped with a log line" \
    grep -rq 'has no usable cn: skipped' "$LOGS"
out=$(as_user ours bob 10002 sudo -n /usr/bin/id -u 2>&1)
check "bob runs /usr/bin/id as root through %admins ($out)" test "$out" = 0

# ---- a rule added in LDAP applies after a smart refresh ------------------------------------
rule alice_echo alice /bin/echo "sudoHost: ALL" | sudo_ldap_add
ok_echo=1
for _ in $(seq 40); do
    out=$(as_user ours alice 10001 sudo -n /bin/echo smart 2>&1)
    [ "$out" = smart ] && { ok_echo=0; break; }
    sleep 0.5
done
check "a rule added in LDAP applies after a smart refresh" test "$ok_echo" = 0

# ---- sss_cache -R / -r ------------------------------------------------------------------------
# Rules live entry_cache_sudo_timeout (600 s here): a rule deleted in LDAP stays until then,
# or until sss_cache expires it; the next sudo then refreshes it and finds it gone.
# alice_stale goes too, but is not expired: only the full refresh that a deletion seen by
# a rules refresh sets off (as SSSD does) removes it before entry_cache_sudo_timeout.
ldapdelete -x -H "$URI" -D "cn=admin,$SUFFIX" -w secret "cn=alice_echo,ou=SUDOers,$SUFFIX" \
    "cn=alice_stale,ou=SUDOers,$SUFFIX" > "$WORK/del.log" 2>&1 \
    || fail "ldapdelete: $(cat "$WORK/del.log")"
out=$(as_user ours alice 10001 sudo -n /bin/echo cached 2>&1)
check "a rule deleted in LDAP still applies from the cache before it expires ($out)" \
    test "$out" = cached
out=$(as_user ours alice 10001 sudo -n /usr/bin/printf stale 2>&1)
check "another deleted rule still applies from the cache ($out)" test "$out" = stale
full_count() { grep -c 'full refresh of the sudo rules of LDAP: [0-9]* rules stored' \
    "$LOGS/sssd_be_LDAP.log"; }
fulls_before=$(full_count)
"$SBIN/sss_cache" -r alice_echo > "$WORK/sss_cache.log" 2>&1 \
    || fail "sss_cache -r alice_echo: $(cat "$WORK/sss_cache.log")"
out=$(as_user ours alice 10001 sudo -n /bin/echo cached 2>&1)
check "after sss_cache -r, the deleted rule is gone ($out)" test "$out" != cached
check "the expired rule was refreshed by a rules refresh (not a full one)" \
    grep -q 'asking LDAP for a rules refresh' "$LOGS/sssd_sudo.log"
check "after sss_cache -r, alice still runs /bin/true" as_user ours alice 10001 sudo -n /bin/true
stale_gone=1
for _ in $(seq 40); do
    out=$(as_user ours alice 10001 sudo -n /usr/bin/printf stale 2>&1)
    [ "$out" != stale ] && { stale_gone=0; break; }
    sleep 0.25
done
check "the deletion seen by the rules refresh set off a full refresh that removed the \
other deleted rule" test "$stale_gone" = 0
check "the back-end logs why it ran that full refresh" \
    grep -q 'sudo rules deleted in the directory: a full refresh now' "$LOGS/sssd_be_LDAP.log"
sleep 2     # anything else it would set off has had time to show
fulls_after=$(full_count)
check "exactly one full refresh followed the deletion ($fulls_before -> $fulls_after)" \
    test "$fulls_after" = $((fulls_before + 1))
"$SBIN/sss_cache" -r no_such_rule > /dev/null 2>&1
check "sss_cache -r of an unknown rule matches nothing (exit 2)" test $? = 2

# ---- SSSD 2.8's libsss_sudo against our sssd_sudo --------------------------------------------
stock_lib=
if mkdir -p "$WORK/deb" && chmod 0755 "$WORK/deb" \
        && (cd "$WORK/deb" && apt-get download -q libsss-sudo) > "$WORK/apt.log" 2>&1 \
        && dpkg -x "$WORK"/deb/libsss-sudo_*.deb "$WORK/deb/root"; then
    stock_lib=$(find "$WORK/deb/root" -name libsss_sudo.so | head -n1)
fi
if [ -n "$stock_lib" ]; then
    cp "$stock_lib" "$WORK/stock/libsss_sudo.so"
    in_sudo_ns ours sudo -l -U alice > "$WORK/l_alice_now" 2>&1
    in_sudo_ns stock sudo -l -U alice > "$WORK/l_alice_stock" 2>&1
    check "SSSD 2.8's libsss_sudo: sudo -l -U alice lists the same rules as ours" \
        diff "$WORK/l_alice_now" "$WORK/l_alice_stock"
    check "SSSD 2.8's libsss_sudo: alice runs /bin/true" as_user stock alice 10001 sudo -n /bin/true
    out=$(as_user stock alice 10001 sudo -n /usr/bin/id -u 2>&1)
    check "SSSD 2.8's libsss_sudo: alice may not run /usr/bin/id" test "$out" != 0
    out=$(as_user stock bob 10002 sudo -n /usr/bin/id -u 2>&1)
    check "SSSD 2.8's libsss_sudo: bob runs /usr/bin/id through %admins" test "$out" = 0
else
    echo "note: libsss-sudo could not be downloaded; the SSSD 2.8 library checks are skipped"
fi

# ---- offline: the cached rules apply ---------------------------------------------------------
slapd_stop "$WORK/ldap"
# Everything expired: the user, its groups and every rule must come from the cache.
"$SBIN/sss_cache" -E > "$WORK/sss_cache_E.log" 2>&1 || fail "sss_cache -E: $(cat "$WORK/sss_cache_E.log")"
check "offline, alice still runs /bin/true from the cached rules" \
    as_user ours alice 10001 sudo -n /bin/true
out=$(as_user ours alice 10001 sudo -n /usr/bin/id -u 2>&1)
check "offline, alice still may not run /usr/bin/id" test "$out" != 0
out=$(as_user ours bob 10002 sudo -n /usr/bin/id -u 2>&1)
check "offline, bob still runs /usr/bin/id through %admins ($out)" test "$out" = 0
check "sssd_sudo and sssd_be are still running" \
    bash -c "[ -n \"\$(pgrep -f '^$PREFIX/libexec/sssd/sssd_sudo')\" ] && [ -n \"\$(pgrep -f '^$PREFIX/libexec/sssd/sssd_be')\" ]"

summary
