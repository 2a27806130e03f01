#!/bin/bash
# ldap_sudorule_* attribute maps (issue 14) with Debian's real sudo in a mount namespace (as
# test_sudo_real.sh). The private slapd loads no sudo schema at all, only a renamed one
# written here: object class corpSudoRule with corpRuleName, corpSudoUser, corpSudoHost,
# corpSudoCommand, corpSudoOption, corpSudoRunAsUser, corpSudoNotAfter and corpSudoOrder.
# With every ldap_sudorule_* option naming those:
#   sudo -l -U alice lists her rule; alice runs /bin/true as root and nothing else (the
#   expired rule is ignored with sudo_timed, the other host's rule is not fetched);
#   a rule expired by sss_cache -r is fetched again by its mapped name (rules refresh);
#   a rule added in LDAP applies after a smart refresh.
# Without the map nothing is found (the same directory, the default names).
#
# Usage: test_sudo_attr_map.sh PREFIX   (root; exits 77 without slapd or sudo)
set -u
PREFIX=$(cd "$1" && pwd)
TOP=$(cd "$(dirname "$0")/../.." && pwd)
SUDO_TEST=sudo-map
. "$(dirname "$0")/sudo_env.sh"

# A private arc for the test's own schema (never seen outside this slapd).
ia5() { # ia5 N NAME
    printf "attributetype ( 1.3.6.1.4.1.99999.77.1.%s NAME '%s'\n" "$1" "$2"
    printf '    EQUALITY caseExactIA5Match SUBSTR caseExactIA5SubstringsMatch\n'
    printf '    SYNTAX 1.3.6.1.4.1.1466.115.121.1.26 )\n'
}
{
    ia5 1 corpRuleName
    ia5 2 corpSudoUser
    ia5 3 corpSudoHost
    ia5 4 corpSudoCommand
    ia5 5 corpSudoOption
    ia5 6 corpSudoRunAsUser
    ia5 7 corpSudoOrder
    printf "attributetype ( 1.3.6.1.4.1.99999.77.1.8 NAME 'corpSudoNotAfter'\n"
    printf '    EQUALITY generalizedTimeMatch ORDERING generalizedTimeOrderingMatch\n'
    printf '    SYNTAX 1.3.6.1.4.1.1466.115.121.1.24 )\n'
    printf "objectclass ( 1.3.6.1.4.1.99999.77.2.1 NAME 'corpSudoRule' SUP top STRUCTURAL\n"
    printf '    MUST corpRuleName MAY ( corpSudoUser $ corpSudoHost $ corpSudoCommand $\n'
    printf '    corpSudoOption $ corpSudoRunAsUser $ corpSudoOrder $ corpSudoNotAfter ) )\n'
} > "$WORK/corp.schema"

rule() { # NAME USER COMMAND HOST [extra ldif lines...]
    local n=$1 u=$2 c=$3 h=$4
    shift 4
    printf 'dn: corpRuleName=%s,ou=SUDOers,%s\nobjectClass: corpSudoRule\n' "$n" "$SUFFIX"
    printf 'corpRuleName: %s\ncorpSudoUser: %s\ncorpSudoCommand: %s\ncorpSudoHost: %s\n' \
        "$n" "$u" "$c" "$h"
    printf 'corpSudoRunAsUser: root\ncorpSudoOption: !authenticate\n'
    for l in "$@"; do printf '%s\n' "$l"; done
    printf '\n'
}
{
    ldif_base "$SUFFIX"
    ldif_user "$SUFFIX" alice 10001 10001 /home/alice
    ldif_group "$SUFFIX" alice 10001
    printf 'dn: ou=SUDOers,%s\nobjectClass: organizationalUnit\nou: SUDOers\n\n' "$SUFFIX"
    rule alice_true alice /bin/true ALL "corpSudoOrder: 1"
    rule alice_expired alice /usr/bin/whoami ALL "corpSudoNotAfter: 20000101000000Z"
    rule alice_otherhost alice /bin/ls otherhost.invalid
} > "$WORK/sudo.ldif"
URI=$(sudo_slapd_start "$WORK/sudo.ldif" "$WORK/corp.schema") || exit 1

as_alice() { as_user ours alice 10001 "$@" 2>&1; }

conf() { # conf MAP_LINES
    sudo_conf "nss, sudo" "sudo_timed = true" "ldap_sudo_smart_refresh_interval = 1
entry_cache_sudo_timeout = 600
debug_level = 6
$1"
    rm -f "$LOGS"/*.log
    sudo_suite_start
}

# ---- the default names find nothing in this directory ----------------------------------------
conf ""
out=$(as_alice sudo -n /bin/true)
check "without the map alice has no rule here ($out)" test -n "$out"

# ---- with the map ----------------------------------------------------------------------------
conf "ldap_sudorule_object_class = corpSudoRule
ldap_sudorule_name = corpRuleName
ldap_sudorule_user = corpSudoUser
ldap_sudorule_host = corpSudoHost
ldap_sudorule_command = corpSudoCommand
ldap_sudorule_option = corpSudoOption
ldap_sudorule_runasuser = corpSudoRunAsUser
ldap_sudorule_notafter = corpSudoNotAfter
ldap_sudorule_order = corpSudoOrder"
as_alice sudo -n -l > "$WORK/l_alice"
check "sudo -l lists alice's mapped rule" grep -Eq '\(root\) NOPASSWD: /bin/true' "$WORK/l_alice"
check "... and nothing else (not the expired one, not the other host's)" \
    bash -c "! grep -Eq 'whoami|/bin/ls' '$WORK/l_alice'"
check "alice runs /bin/true as root through the mapped rule" as_alice sudo -n /bin/true
out=$(as_alice sudo -n /usr/bin/whoami)
check "the rule past its mapped sudoNotAfter is ignored with sudo_timed ($out)" \
    test "$out" != root
check "the mapped host filter left the other host's rule out of the search" \
    grep -q '(corpSudoHost=ALL)' "$LOGS/sssd_be_LDAP.log"
"$SBIN/sss_cache" -r alice_true > /dev/null 2>&1 || fail "sss_cache -r alice_true"
check "after sss_cache -r, alice still runs /bin/true (fetched again by corpRuleName)" \
    as_alice sudo -n /bin/true
check "... through a rules refresh by the mapped name" \
    grep -q '(corpRuleName=alice_true)' "$LOGS/sssd_be_LDAP.log"
rule alice_echo alice /bin/echo ALL | sudo_ldap_add
ok_echo=1
for _ in $(seq 40); do
    [ "$(as_alice sudo -n /bin/echo smart)" = smart ] && { ok_echo=0; break; }
    sleep 0.5
done
check "a mapped rule added in LDAP applies after a smart refresh" test "$ok_echo" = 0

summary
