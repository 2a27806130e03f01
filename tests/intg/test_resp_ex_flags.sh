#!/bin/bash
# The cache flags of the _EX requests (issue 11, item 8): SSS_NSS_EX_FLAG_NO_CACHE and
# SSS_NSS_EX_FLAG_INVALIDATE_CACHE are honoured for root only; another user's requests are
# answered as if the flags were not set. Counted on the wire side of the back-end: its log
# (debug_level 6) has one "search" line per LDAP search.
# Usage: test_resp_ex_flags.sh PREFIX   (run as root)
set -u
PREFIX=$(cd "$1" && pwd)
TOP=$(cd "$(dirname "$0")/../.." && pwd)
TEST_NAME=exflags
. "$TOP/tests/intg/slapd_env.sh"

PY=/usr/bin/python3
CLIENT=$TOP/tests/intg/resp_nss_client.py
SOCK=$PIPES/nss
DOM=demo.test
BELOG=$LOGS/sssd_be_$DOM.log
chmod 0755 "$WORK"
cp "$CLIENT" "$WORK/client.py" && chmod 0755 "$WORK/client.py"

mkdir -p "$WORK/ldap"
URI=$(slapd_start "$WORK/ldap" "$TOP/contrib/demo/demo.ldif" dc=demo,dc=test) || exit 1
write_conf <<CONF
[sssd]
services = nss
domains = $DOM

[domain/$DOM]
id_provider = ldap
ldap_uri = $URI
ldap_search_base = dc=demo,dc=test
debug_level = 6
CONF
rm -f "$BELOG"
start_sssd || { fail "sssd did not start"; summary; exit 1; }
wait_name sssd.nss 5000

searches() { grep -c "search [0-9]*: '" "$BELOG" 2>/dev/null; }
ex() { # ex UID CMD KEY FLAGS REPEAT -> the client's output
    local uid=$1
    shift
    if [ "$uid" = 0 ]; then
        "$PY" "$WORK/client.py" "$SOCK" ex "$@"
    else
        setpriv --reuid="$uid" --regid="$uid" --clear-groups -- "$PY" "$WORK/client.py" "$SOCK" ex "$@"
    fi
}

out=$(in_nss_ns getent passwd alice)
check "alice is cached: $out" grep -q "^alice:" <<<"$out"
out=$(in_nss_ns id alice)
check "and her groups: $out" grep -q "groups=" <<<"$out"
n0=$(searches)

out=$(ex 65534 pwnam alice 0x1 4)
n1=$(searches)
check "uid 65534, GETPWNAM_EX with NO_CACHE x4: answered ($(sort -u <<<"$out"))" \
    test "$(grep -c '^status=0 results=1' <<<"$out")" -eq 4
check "... and no LDAP search ($((n1 - n0)) made)" test "$n1" -eq "$n0"
out=$(ex 65534 pwuid 10001 0x2 4)
n2=$(searches)
check "uid 65534, GETPWUID_EX with INVALIDATE_CACHE x4: answered" \
    test "$(grep -c '^status=0 results=1' <<<"$out")" -eq 4
out=$(ex 65534 initgr alice 0x2 2)
check "uid 65534, INITGR_EX with INVALIDATE_CACHE: answered ($(sort -u <<<"$out"))" \
    test "$(grep -c '^status=0' <<<"$out")" -eq 2
n2=$(searches)
check "... and no LDAP search ($((n2 - n1)) made)" test "$n2" -eq "$n1"

out=$(ex 0 pwnam alice 0x1 3)
n3=$(searches)
check "root, GETPWNAM_EX with NO_CACHE x3: answered" \
    test "$(grep -c '^status=0 results=1' <<<"$out")" -eq 3
check "... each one an LDAP search ($((n3 - n2)) made)" test $((n3 - n2)) -ge 3

summary
