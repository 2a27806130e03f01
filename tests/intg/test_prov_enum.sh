#!/bin/bash
# Enumeration against a directory that changes and misbehaves, through the real glibc path
# (getent passwd / getent group enumerate, id runs initgroups):
#   - a failed round (server stopped) removes nothing;
#   - a partial answer (slapd's size limit: 3 entries per search) removes nothing and does
#     not shorten a user's group list: the round fails, the cache keeps what it had
#     (issue 11, item 6);
#   - users and groups deleted from the directory (ldapdelete) leave the listing at the
#     next round, down to the last one: an empty, complete answer removes them all
#     (issue 17, item 7).
# Usage: test_prov_enum.sh PREFIX   (run as root)
set -u
PREFIX=$(cd "$1" && pwd)
TOP=$(cd "$(dirname "$0")/../.." && pwd)
TEST_NAME=prov-enum
. "$TOP/tests/intg/slapd_env.sh"
. "$TOP/tests/faults/faults_lib.sh"


DOM=enum.test
S=dc=enum,dc=test
BELOG=$LOGS/sssd_be_$DOM.log
FAULT_WORK=$WORK/faults

{
    ldif_base $S
    for i in 1 2 3 4 5 6; do
        ldif_user $S "eu$i" $((31000 + i)) 41000 "/home/eu$i"
    done
    ldif_bis_group $S eall 41001 u:eu1 u:eu2 u:eu3 u:eu4 u:eu5 u:eu6
    for g in a b c d e; do
        ldif_bis_group $S "e$g" $((41010 + $(printf '%d' "'$g") - 96)) u:eu1
    done
} > "$WORK/data.ldif"
mkdir -p "$WORK/ldap"
URI=$(slapd_start "$WORK/ldap" "$WORK/data.ldif" $S) || exit 1

rm -f "$BELOG"
write_conf <<CONF
[sssd]
services = nss
domains = $DOM

[nss]
memcache_timeout = 0

[domain/$DOM]
id_provider = ldap
ldap_uri = $URI
ldap_search_base = $S
ldap_schema = rfc2307bis
enumerate = true
ldap_enumeration_refresh_timeout = 1
offline_timeout = 1
ldap_network_timeout = 2
debug_level = 6
CONF

# Rounds end with one of these lines; a skipped round (offline) with "round skipped".
rounds() { grep -cE "Enumeration of $DOM (done|failed)|Enumeration of $DOM: cannot" "$BELOG" 2>/dev/null; }
wait_rounds() { # N TIMEOUT_S: until N more rounds ended
    local want=$(( $(rounds) + $1 )) deadline=$(( $(now_ms) + $2 * 1000 ))
    while [ "$(now_ms)" -lt "$deadline" ]; do
        [ "$(rounds)" -ge "$want" ] && return 0
        sleep 0.1
    done
    return 1
}
# sssd_nss shares an enumeration snapshot younger than NSS_ENUM_MIN_REBUILD_S (3 s) even
# when the cache changed: a listing right after a round may be that old.
listing_becomes() { # WHAT(users|groups) EXPECTED: within 10 s
    local deadline=$(( $(now_ms) + 10000 ))
    while [ "$(now_ms)" -lt "$deadline" ]; do
        [ "$("$1")" = "$2" ] && return 0
        sleep 0.5
    done
    return 1
}
users() { in_nss_ns getent passwd | cut -d: -f1 | sort | tr '\n' ' '; }
groups() { in_nss_ns getent group | cut -d: -f1 | sort | tr '\n' ' '; }
eall() { in_nss_ns getent group | grep '^eall:'; }
id_groups() { in_nss_ns id -G "$1" | tr ' ' '\n' | sort | tr '\n' ' '; }

start_sssd || { fail "sssd did not start"; summary; exit 1; }
check "a first enumeration round ends" wait_rounds 1 20
ALL_USERS="eu1 eu2 eu3 eu4 eu5 eu6 "
ALL_GROUPS="ea eall eb ec ed ee "
check "getent passwd lists the six users: $(users)" test "$(users)" = "$ALL_USERS"
check "getent group lists the six groups: $(groups)" test "$(groups)" = "$ALL_GROUPS"
EALL=$(eall)
check "eall lists its six members: $EALL" test "$EALL" = "eall:*:41001:eu1,eu2,eu3,eu4,eu5,eu6"
EU1_GROUPS=$(id_groups eu1)
check "id eu1 lists its five groups: $EU1_GROUPS" test "$(wc -w <<<"$EU1_GROUPS")" -ge 5

# ---- a failed round removes nothing ----
slapd_stop "$WORK/ldap"
sleep 3         # rounds fail or are skipped while the server is away
check "server stopped: every user still listed" test "$(users)" = "$ALL_USERS"
check "server stopped: every group still listed" test "$(groups)" = "$ALL_GROUPS"

# ---- a partial answer removes nothing and truncates nothing ----
fault_slapd_conf "$WORK/ldap" 'limits anonymous size=3' \
    || { fail "slapd did not restart with a size limit"; summary; exit 1; }
check "with a size limit of 3 (anonymous), ldapsearch gets a partial answer" \
    bash -c "ldapsearch -x -H '$URI' -b '$S' '(objectClass=posixAccount)' uid 2>&1 | grep -q 'Size limit exceeded'"
n0=$(grep -c "part of the answer only" "$BELOG")
check "two rounds end under the size limit" wait_rounds 2 30
check "the back-end logged the partial answers" test "$(grep -c "part of the answer only" "$BELOG")" -gt "$n0"
check "size limit: every user still listed ($(users))" test "$(users)" = "$ALL_USERS"
check "size limit: every group still listed ($(groups))" test "$(groups)" = "$ALL_GROUPS"
check "size limit: eall keeps its six members ($(eall))" test "$(eall)" = "$EALL"
check "no stale entry was removed" bash -c "! grep -q 'is no longer in the directory' '$BELOG'"
# An expired user's initgroups meets the limit (eu1 is in six groups): the lookup fails
# and the cached group list stays whole.
"$SBIN/sss_cache" -u eu1
out=$(id_groups eu1)
check "size limit: id eu1 still lists its groups ($out)" test "$out" = "$EU1_GROUPS"

# ---- deletions are seen at the next complete round, down to the last entry ----
fault_slapd_conf_reset "$WORK/ldap" || { fail "slapd did not restart"; summary; exit 1; }
fault_slapd_ldap "$WORK/ldap" ldapdelete "uid=eu6,ou=People,$S" "cn=ee,ou=Groups,$S"
check "a complete round ends after the first deletions" wait_rounds 2 30
check "eu6 left the listing" listing_becomes users "eu1 eu2 eu3 eu4 eu5 "
check "ee left the listing" listing_becomes groups "ea eall eb ec ed "
for i in 1 2 3 4 5; do
    fault_slapd_ldap "$WORK/ldap" ldapdelete "uid=eu$i,ou=People,$S"
done
for g in a b c d all; do
    fault_slapd_ldap "$WORK/ldap" ldapdelete "cn=e$g,ou=Groups,$S"
done
check "a complete round ends after the last deletions" wait_rounds 2 30
check "the directory holds no user: getent passwd lists none" listing_becomes users ""
check "the directory holds no group: getent group lists none" listing_becomes groups ""

summary
