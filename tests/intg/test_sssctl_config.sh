#!/bin/bash
# sssctl config-check on good and broken files, text and --json: a typo (a warning naming
# the closest known option, exit 0), bad values (every one reported with file:line, exit 1),
# wrong mode and wrong owner (refused as sssd would), a broken conf.d snippet, a missing
# file; and the non-root refusal. Needs no running sssd and no slapd.
# Usage: test_sssctl_config.sh PREFIX   (run as root)
set -u
PREFIX=$(cd "$1" && pwd)
. "$(dirname "$0")/lib.sh"

SSSCTL=$SBIN/sssctl
WORK=$(mktemp -d /tmp/sssd-sssctl-config.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
C=$WORK/sssd.conf

run() { out=$("$SSSCTL" "$@" 2>"$WORK/err"); rc=$?; err=$(cat "$WORK/err"); }
json_ok() { python3 -m json.tool >/dev/null 2>&1 <<<"$out"; }
jqv() { jq -r "$1" <<<"$out"; }
conf() { cat > "$C"; chmod 0600 "$C"; chown 0:0 "$C"; }

conf <<CONF
[sssd]
services = nss, pam
domains = good.test

[domain/good.test]
id_provider = ldap
ldap_uri = ldap://127.0.0.1
ldap_search_base = dc=good,dc=test
CONF
run config-check -c "$C"
check "a good file: status 0 ($rc)" test "$rc" -eq 0
check "a good file: valid, no issues" \
    eval 'grep -q "^Issues identified by validators: 0" <<<"$out" && grep -q ": valid$" <<<"$out"'
run config-check --json -c "$C"
check "--json parses" json_ok
check "--json: valid true, no errors, no warnings" \
    test "$(jqv '"\(.valid) \(.errors | length) \(.warnings | length)"')" = "true 0 0"

# ---- a typo: a warning with the closest option, still valid ----
conf <<CONF
[sssd]
services = nss
domains = good.test

[nss]
entry_negative_timout = 5

[domain/good.test]
id_provider = ldap
ldap_uri = ldap://127.0.0.1
ldap_search_base = dc=good,dc=test
CONF
run config-check -c "$C"
check "a typo: status 0 (sssd ignores it)" test "$rc" -eq 0
check "a typo: warned with file:line and the closest option" \
    grep -q "^\[warning\] $C:6: .*entry_negative_timout.*did you mean 'entry_negative_timeout'" <<<"$out"

# ---- bad values: every one, with its line ----
conf <<CONF
[sssd]
services = nss
domains = good.test

[nss]
memcache_timeout = -5

[domain/good.test]
id_provider = ldap
ldap_uri = ldap://127.0.0.1
ldap_search_base = dc=good,dc=test
cache_credentials = maybe
ldap_schema = rfc2308
CONF
run config-check -c "$C"
check "bad values: status 1" test "$rc" -eq 1
check "bad values: line 6 (memcache_timeout)" grep -q "^\[error\] $C:6: .*memcache_timeout" <<<"$out"
check "bad values: line 12 (cache_credentials)" grep -q "^\[error\] $C:12: .*cache_credentials" <<<"$out"
check "bad values: line 13 (ldap_schema)" grep -q "^\[error\] $C:13: .*ldap_schema" <<<"$out"
check "bad values: says sssd would refuse" grep -q "invalid: sssd would refuse to start" <<<"$out"
run config-check -c "$C" --json
check "bad values --json parses" json_ok
check "bad values --json: three errors, valid false" \
    test "$(jqv '"\(.valid) \(.errors | length)"')" = "false 3"

# ---- wrong mode, wrong owner ----
conf <<CONF
[sssd]
services = nss
domains = good.test

[domain/good.test]
id_provider = ldap
ldap_uri = ldap://127.0.0.1
ldap_search_base = dc=good,dc=test
CONF
chmod 0644 "$C"
run config-check -c "$C"
check "mode 0644: status 1, says why" \
    eval 'test "$rc" -eq 1 && grep -q "^\[error\] $C: .*mode 0644" <<<"$out"'
chmod 0600 "$C"; chown 65534 "$C"
run config-check -c "$C"
check "owned by uid 65534: status 1, says why" \
    eval 'test "$rc" -eq 1 && grep -q "^\[error\] $C: .*owner uid 65534" <<<"$out"'
chown 0 "$C"

# ---- a broken snippet ----
mkdir -p "$WORK/conf.d"
printf '[domain/good.test]\nenumerate = sometimes\n' > "$WORK/conf.d/10-bad.conf"
chmod 0600 "$WORK/conf.d/10-bad.conf"
run config-check -c "$C"
check "a broken snippet: status 1, its file:line" \
    eval 'test "$rc" -eq 1 && grep -q "^\[error\] $WORK/conf.d/10-bad.conf:2: .*enumerate" <<<"$out"'
check "the snippet is listed" grep -qx "$WORK/conf.d/10-bad.conf" <<<"$out"
rm -rf "$WORK/conf.d"

# ---- no file, no root ----
run config-check -c "$WORK/none.conf" --json
check "a missing file: status 1, says so" \
    eval 'test "$rc" -eq 1 && json_ok && jqv ".errors[0]" | grep -q "does not exist"'
out=$(setpriv --reuid=65534 --regid=65534 --clear-groups "$SSSCTL" config-check -c "$C" 2>&1); rc=$?
check "non-root: refused ($out)" eval 'test "$rc" -eq 1 && grep -q "must be run as root" <<<"$out"'

summary
