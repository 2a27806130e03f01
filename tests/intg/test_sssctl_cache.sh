#!/bin/bash
# sssctl on what the suite caches, against a live star and a real slapd, text and --json:
# user-show / group-show (attributes, expiry, initgroups expiry, domain, memory cache) before
# and after lookups through glibc; cache-expire (sss_cache's options) seen by user-show;
# user-checks: NSS, initgroups and PAM auth + acct through the real libpam and our
# pam_sss.so (right and wrong password), in a mount namespace with its own /etc/pam.d;
# cache-remove (refused while sssd runs, --restart refills); logs-remove and logs-fetch.
# Usage: test_sssctl_cache.sh PREFIX   (run as root)
set -u
PREFIX=$(cd "$1" && pwd)
TOP=$(cd "$(dirname "$0")/../.." && pwd)
if [ -z "${SSSCTL_IN_NS:-}" ]; then
    exec unshare --mount --propagation private -- env SSSCTL_IN_NS=1 bash "$0" "$@"
fi
TEST_NAME=sssctl-cache
. "$TOP/tests/intg/slapd_env.sh"
command -v slappasswd >/dev/null || { echo "SKIP: slappasswd is not installed"; exit 77; }

SSSCTL=$SBIN/sssctl
DOM=cache.test
SUFFIX=dc=cache,dc=test
DB=$PREFIX/var/lib/sss/db

run() { # run ARGS... -> $rc, $out (stdout), $err (stderr); commands see our NSS module
    out=$(in_nss_ns "$SSSCTL" "$@" 2>"$WORK/err" <"${STDIN:-/dev/null}"); rc=$?
    err=$(cat "$WORK/err")
}
json_ok() { python3 -m json.tool >/dev/null 2>&1 <<<"$out"; }
jqv() { jq -r "$1" <<<"$out"; }
field() { sed -n "s/^$1:  *//p" <<<"$out"; }

{
    ldif_base "$SUFFIX"
    ldif_user "$SUFFIX" alice 10001 10001 /home/alice "Alice Liddell" /bin/bash
    printf 'userPassword: %s\n\n' "$(slappasswd -s Alice-Pass1)"
    ldif_user "$SUFFIX" bob 10002 10002 /home/bob
    ldif_group "$SUFFIX" alice 10001
    ldif_group "$SUFFIX" staff 20001 alice bob
    ldif_group "$SUFFIX" wheel 20002 alice
} | sed '/^homeDirectory: \/home\/alice$/{n;n;/^$/d}' > "$WORK/data.ldif"
# (the sed joins alice's userPassword line to her entry)
uri=$(slapd_start "$WORK/slapd" "$WORK/data.ldif" "$SUFFIX") || exit 1

write_conf <<CONF
[sssd]
services = nss, pam
domains = $DOM

[domain/$DOM]
id_provider = ldap
auth_provider = ldap
ldap_uri = $uri
ldap_search_base = $SUFFIX
ldap_schema = rfc2307
ldap_auth_disable_tls_never_use_in_production = true
entry_cache_timeout = 600
debug_level = 6
CONF
start_sssd
check "sssd starts" test $? -eq 0
check "the back-end is on the bus" wait_name sssd.domain_cache_2etest 5000
check "sssd_nss is on the bus" wait_name sssd.nss 5000

# ---- user-show / group-show ----
run user-show alice
check "user-show before any lookup: status 1, not in cache ($err)" \
    eval 'test "$rc" -eq 1 && grep -q "User alice is not present in cache" <<<"$err"'
check "getent passwd alice" eval 'in_nss_ns getent passwd alice >/dev/null'
check "id alice (initgroups)" eval 'in_nss_ns id alice >/dev/null'
check "getent group staff" eval 'in_nss_ns getent group staff >/dev/null'
now=$(date +%s)
run user-show alice
check "user-show alice: status 0" test "$rc" -eq 0
check "user-show: name and domain" \
    eval 'test "$(field Name)" = "alice@$DOM" && test "$(field Domain)" = "$DOM"'
check "user-show: uid / gid" test "$(field 'UID \/ GID')" = "10001 / 10001"
check "user-show: gecos, home, shell" \
    eval 'test "$(field GECOS)/$(field "Home directory")/$(field Shell)" = "Alice Liddell//home/alice//bin/bash"'
check "user-show: expiry in the future" grep -q "^Cache entry expiration: .*(in " <<<"$out"
check "user-show: initgroups list cached" grep -q "^Initgroups expiration: .*(in " <<<"$out"
check "user-show: in the memory cache" \
    grep -q "^In memory cache: *passwd yes, initgroups yes" <<<"$out"
echo "$out" | sed 's/^/     | /'
run user-show alice --json
check "user-show --json parses" json_ok
check "--json: uid, gid, domain" test "$(jqv '"\(.uid) \(.gid) \(.domain)"')" = "10001 10001 $DOM"
check "--json: expire ~ now + 600 ($(jqv .expire))" \
    eval 'e=$(jqv .expire); test "$e" -ge $((now + 590)) -a "$e" -le $((now + 620))'
check "--json: not expired" test "$(jqv .expired)" = false
check "--json: groups of the last initgroups" \
    test "$(jqv '.groups | map(split("@")[0]) | sort | join(",")')" = "staff,wheel"
check "--json: memory cache passwd and initgroups" \
    test "$(jqv '"\(.memory_cache.passwd) \(.memory_cache.initgroups)"')" = "true true"
run user-show "alice@$DOM" --json
check "a qualified name finds the same user" test "$(jqv .name)" = "alice@$DOM"
run user-show bob --json
check "bob: not cached yet" test "$rc" -eq 1
run group-show staff --json
check "group-show --json parses" json_ok
check "group-show: gid and members" \
    test "$(jqv '"\(.gid) \(.members | map(split("@")[0]) | sort | join(","))"')" = "20001 alice,bob"
check "group-show: in the memory cache" test "$(jqv .memory_cache.group)" = true
run group-show staff
check "group-show text: members line" grep -q "^Members: *2: " <<<"$out"

# ---- cache-expire shares sss_cache's options ----
run cache-expire -u alice
check "cache-expire -u alice: status 0 ($err)" test "$rc" -eq 0
run user-show alice --json
check "alice is expired now" test "$(jqv .expired)" = true
check "and gone from the memory cache" test "$(jqv .memory_cache.passwd)" = false
run cache-expire -u nosuchuser
check "cache-expire of an unknown name: status 2 as sss_cache" test "$rc" -eq 2
run cache-expire -E --json
check "cache-expire -E --json parses, expired true" \
    eval 'json_ok && test "$(jqv .expired)" = true'
run group-show staff --json
check "staff is expired too" test "$(jqv .expired)" = true
in_nss_ns getent passwd alice >/dev/null
run user-show alice --json
check "a lookup refreshes alice" test "$(jqv .expired)" = false

# ---- user-checks through the real libpam and our pam_sss.so ----
mount -t tmpfs -o mode=0755 tmpfs /etc/pam.d || { echo "FAIL: tmpfs over /etc/pam.d"; exit 1; }
MOD=$PREFIX/lib/security/pam_sss.so
printf 'auth required %s\naccount required %s\n' "$MOD" "$MOD" > /etc/pam.d/sssctl-test
check "sssd_pam is on the bus" wait_name sssd.pam 5000
echo 'Alice-Pass1' > "$WORK/good"; echo 'Wrong-Pass' > "$WORK/bad"
STDIN=$WORK/good run user-checks alice -a auth -s sssctl-test
check "user-checks alice -a auth (right password): status 0 ($err)" test "$rc" -eq 0
check "  the NSS result" grep -q "^ - user id: 10001" <<<"$out"
check "  the groups" eval 'grep -q "^ - 20001 staff" <<<"$out" && grep -q "^ - 20002 wheel" <<<"$out"'
check "  PAM said Success" grep -q "^Summary: NSS ok, PAM auth succeeded" <<<"$out"
STDIN=$WORK/bad run user-checks alice -a auth -s sssctl-test --json
check "wrong password: status 1" test "$rc" -eq 1
check "wrong password --json parses" json_ok
check "wrong password: pam_authenticate failed with PAM_AUTH_ERR (7)" \
    test "$(jqv '"\(.pam.failed_step) \(.pam.status)"')" = "pam_authenticate 7"
check "wrong password: NSS still found alice" test "$(jqv .nss.uid)" = 10001
run user-checks alice -s sssctl-test --json
check "acct (the default action): status 0, PAM status 0" \
    eval 'test "$rc" -eq 0 && test "$(jqv .pam.status)" = 0 && test "$(jqv .pam.action)" = acct'
run user-checks nosuchuser -s sssctl-test --json
check "an unknown user: status 1, NSS not found" \
    eval 'test "$rc" -eq 1 && test "$(jqv .nss.found)" = false'
run user-checks alice -a bogus
check "an unknown action: status 1" test "$rc" -eq 1

# ---- logs ----
check "the back-end has a log" test -s "$LOGS/sssd_be_$DOM.log"
run logs-fetch "$WORK/logs.tgz" --json
check "logs-fetch: status 0, JSON" eval 'test "$rc" -eq 0 && json_ok'
check "logs-fetch: the archive holds the back-end's log" \
    eval 'tar -tzf "$WORK/logs.tgz" | grep -q "sssd_be_$DOM.log"'
ln -s /etc/hostname "$LOGS/not-a-log"
run logs-remove --json
check "logs-remove: status 0 ($err)" test "$rc" -eq 0
check "logs-remove: every log file is empty" \
    test -z "$(find "$LOGS" -maxdepth 1 -type f -name '*.log' -size +0c)"
check "logs-remove: a symbolic link is not followed" test -s /etc/hostname
rm -f "$LOGS/not-a-log"
in_nss_ns getent passwd bob >/dev/null
check "the processes keep logging into the emptied files" test -s "$LOGS/sssd_be_$DOM.log"

# ---- cache-remove ----
run cache-remove
check "cache-remove while sssd runs: refused, status 1 ($err)" \
    eval 'test "$rc" -eq 1 && grep -q "sssd is running" <<<"$err"'
check "  and the cache file is still there" test -f "$DB/cache_$DOM.ldb"
run cache-remove --restart --json
check "cache-remove --restart: status 0 ($err)" test "$rc" -eq 0
check "  --json parses, lists the cache file, restarted" \
    eval 'json_ok && jqv ".removed[]" | grep -qx "cache_$DOM.ldb" && test "$(jqv .restarted)" = true'
check "  the back-end is back" wait_name sssd.domain_cache_2etest 5000
run user-show alice
check "  alice is no longer cached" test "$rc" -eq 1
check "  the suite refills: getent passwd alice" eval 'in_nss_ns getent passwd alice >/dev/null'
run user-show alice --json
check "  alice is cached again" test "$(jqv .uid)" = 10001
stop_sssd
run cache-remove
check "cache-remove with sssd stopped: status 0" test "$rc" -eq 0
check "  no cache file left" test -z "$(ls "$DB" | grep '^cache_')"

summary
