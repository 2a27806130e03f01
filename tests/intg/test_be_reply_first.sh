#!/bin/bash
# Reply first (issue 18, be_reply_first.c): sssd_be answers a cold getpwnam / getpwuid
# before it writes the user to the cache, then writes it. End to end with real parts (a
# private slapd with the demo data, our sssd, getent / id through glibc, sssctl reading the
# cache file): the answers are the directory's, sssd_be's log shows the reply went first,
# sssd_nss takes the carried entry (tagged with the generation of the commit to come),
# lookups of one cold user in parallel all answer it, a refresh of an expired user answers
# and stores the changed entry, and after all that the cache file holds every user answered
# first (sssctl user-show with sssd stopped) and serves them with the directory gone.
# Usage: test_be_reply_first.sh PREFIX   (run as root)
set -u
PREFIX=$(cd "$1" && pwd)
TOP=$(cd "$(dirname "$0")/../.." && pwd)
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/nss_ns.sh"
. "$TOP/tests/lib/slapd.sh"
. "$TOP/tests/lib/ldif.sh"

WORK=$(mktemp -d /tmp/sssd-replyfirst.XXXXXX)
cleanup() {
    stop_sssd
    slapd_stop "$WORK/ldap" 2>/dev/null
    rm -rf "$WORK"
}
trap cleanup EXIT

mkdir -p "$WORK/ldap"
URI=$(slapd_start "$WORK/ldap" "$TOP/contrib/demo/demo.ldif" dc=demo,dc=test) || exit 1

write_conf <<CONF
[sssd]
services = nss
domains = ldap.test

[nss]
debug_level = 0x3ff0

[domain/ldap.test]
debug_level = 0x3ff0
id_provider = ldap
ldap_uri = $URI
ldap_search_base = dc=demo,dc=test
entry_cache_timeout = 600
offline_timeout = 60
CONF
rm -f "$LOGS/sssd_be_ldap.test.log" "$LOGS/sssd_nss.log"

start_sssd || { fail "sssd did not start"; summary; exit 1; }

BELOG=$LOGS/sssd_be_ldap.test.log
count() { local n; n=$(grep -c "$1" "$2" 2>/dev/null); echo "${n:-0}"; }
first() { count "answered before its store, then stored" "$BELOG"; }
taken() { count "Entry carried by the reply .*: taken" "$LOGS/sssd_nss.log"; }
lookup() { SSS_NSS_USE_MEMCACHE=NO in_nss_ns "$@"; }
# cold LABEL EXPECTED -- COMMAND...: answers EXPECTED (grep -E), replied first, and
# sssd_nss answered from the carried entry (whether the commit had landed or not).
cold() {
    local label=$1 want=$2 before took out
    shift 3
    before=$(first)
    took=$(taken)
    out=$(lookup "$@")
    check "$label answers from the directory: $out" grep -Eq "$want" <<<"$out"
    check "$label: sssd_be answered before its cache write" test "$(first)" -gt "$before"
    check "$label: sssd_nss took the carried entry" test "$(taken)" -gt "$took"
}

cold "user by name" '^alice:\*:10001:20003:Alice Archer:/home/alice:/bin/bash$' \
    -- getent passwd alice
cold "user by uid" '^bob:\*:10002:20003:Bob Baker:/home/bob:/bin/bash$' -- getent passwd 10002

# One cold user asked by 8 clients at once: one operation, every answer right.
for i in 1 2 3 4 5 6 7 8; do
    lookup getent passwd carol > "$WORK/par.$i" &
done
wait
bad=0
for i in 1 2 3 4 5 6 7 8; do
    grep -Eq '^carol:\*:10003:20003:[^:]*:/home/carol:' "$WORK/par.$i" || bad=$((bad + 1))
done
check "8 parallel lookups of a cold user: $bad wrong answers" test "$bad" -eq 0

# id: getpwnam (replied first), then initgroups (stored first: the list must be cached
# before the responder reads it).
out=$(lookup id dave)
check "id dave after its getpwnam replied first: $out" \
    grep -Eq '^uid=10004\(dave\) gid=20003\(staff\) groups=.*20003\(staff\)' <<<"$out"

# Not found is not replied first and stays not found.
before=$(first)
lookup getent passwd nosuchuser > /dev/null; rc=$?
check "an unknown user: status $rc (2), nothing replied first" \
    test "$rc" -eq 2 -a "$(first)" -eq "$before"

# Refresh of an expired entry whose directory entry changed.
ldif_user dc=demo,dc=test zed 10090 20003 /home/zed "Zed" /bin/sh \
    | ldapadd -x -H "$URI" -D cn=admin,dc=demo,dc=test -w secret > /dev/null
check "ldapadd zed" test $? -eq 0
cold "a new user" '^zed:\*:10090:20003:[^:]*:/home/zed:/bin/sh$' -- getent passwd zed
ldapmodify -x -H "$URI" -D cn=admin,dc=demo,dc=test -w secret > /dev/null <<LDIF
dn: uid=zed,ou=People,dc=demo,dc=test
changetype: modify
replace: loginShell
loginShell: /bin/zsh
LDIF
check "ldapmodify zed" test $? -eq 0
"$PREFIX/sbin/sss_cache" -u zed -c "$CONF"
cold "refresh of the expired user" '^zed:\*:10090:20003:[^:]*:/home/zed:/bin/zsh$' \
    -- getent passwd zed
check "no store failed after an answer" eval '! grep -q "was answered but not cached" "$BELOG"'

# The cache file holds what was answered first: read with sssd and slapd stopped.
slapd_stop "$WORK/ldap"
stop_sssd
for u in alice:10001:/bin/bash bob:10002:/bin/bash carol:10003: zed:10090:/bin/zsh; do
    IFS=: read -r name uid shell <<<"$u"
    out=$("$PREFIX/sbin/sssctl" user-show "$name" 2>&1)
    check "the cache holds $name (uid $uid${shell:+, shell $shell})" eval \
        'grep -Eq "^UID / GID: +$uid /" <<<"$out" &&
         { test -z "$shell" || grep -Eq "^Shell: +$shell\$" <<<"$out"; }'
done
# And serves them with the directory gone (a new sssd: no responder cache left).
start_sssd || fail "sssd did not start again"
out=$(lookup getent passwd zed)
check "slapd stopped, new sssd: zed from the cache: $out" \
    grep -Eq '^zed:\*:10090:20003:[^:]*:/home/zed:/bin/zsh$' <<<"$out"
out=$(lookup getent passwd 10002)
check "slapd stopped, new sssd: uid 10002 from the cache: $out" grep -q '^bob:' <<<"$out"

summary
