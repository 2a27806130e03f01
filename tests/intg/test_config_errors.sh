#!/bin/bash
# Broken configurations: each must end `sssd` with exit status 1 and one clear line on
# stderr that names the problem, before anything is started.
# Usage: test_config_errors.sh PREFIX   (run as root)
set -u
PREFIX=$(cd "$1" && pwd)
. "$(dirname "$0")/lib.sh"

WORK=$(mktemp -d /tmp/sssd-conf.XXXXXX)
trap 'rm -rf "$WORK"' EXIT

GOOD_DOMAIN='[domain/ldap.test]
id_provider = ldap
ldap_uri = ldap://127.0.0.1'

# expect_error NAME EXPECTED_SUBSTRING [setup-command]  (config text on stdin)
expect_error() {
    local name=$1 expect=$2 setup=${3:-}
    local conf=$WORK/$name.conf out rc lines
    cat > "$conf"
    chmod 0600 "$conf"
    chown 0:0 "$conf"
    [ -n "$setup" ] && eval "$setup"
    out=$("$SBIN/sssd" -i -c "$conf" 2>&1 </dev/null); rc=$?
    lines=$(printf '%s\n' "$out" | grep -c .)
    if [ "$rc" -eq 1 ] && [ "$lines" -eq 1 ] && grep -qiF -- "$expect" <<<"$out"; then
        ok "$name: $out"
    else
        fail "$name: status $rc, $lines line(s), wanted '$expect' in: $out"
    fi
    # Nothing may have been started.
    if [ -n "$(all_suite_pids)" ]; then
        fail "$name: processes left running"
        stop_sssd
    fi
}

expect_error missing-file "No such file" "rm -f \$conf" </dev/null

expect_error world-readable "0644" "chmod 0644 \$conf" <<EOF
[sssd]
domains = ldap.test
$GOOD_DOMAIN
EOF

expect_error not-root-owned "owner" "chown 65534 \$conf" <<EOF
[sssd]
domains = ldap.test
$GOOD_DOMAIN
EOF

expect_error no-sssd-section "[sssd]" <<EOF
$GOOD_DOMAIN
EOF

expect_error no-domains "domains" <<EOF
[sssd]
services = nss
$GOOD_DOMAIN
EOF

expect_error empty-domains "domains" <<EOF
[sssd]
domains =
$GOOD_DOMAIN
EOF

expect_error domain-without-section "other.test" <<EOF
[sssd]
domains = ldap.test, other.test
$GOOD_DOMAIN
EOF

expect_error bad-integer "reconnection_retries" <<EOF
[sssd]
domains = ldap.test
reconnection_retries = many
$GOOD_DOMAIN
EOF

expect_error bad-boolean "enumerate" <<EOF
[sssd]
domains = ldap.test
$GOOD_DOMAIN
enumerate = perhaps
EOF

expect_error bad-enum "ldap_schema" <<EOF
[sssd]
domains = ldap.test
$GOOD_DOMAIN
ldap_schema = rfc9999
EOF

expect_error unknown-id-provider "id_provider" <<EOF
[sssd]
domains = ldap.test
[domain/ldap.test]
id_provider = carrier-pigeon
EOF

expect_error missing-id-provider "id_provider" <<EOF
[sssd]
domains = ldap.test
[domain/ldap.test]
ldap_uri = ldap://127.0.0.1
EOF

expect_error unknown-service "frobnicator" <<EOF
[sssd]
services = nss, frobnicator
domains = ldap.test
$GOOD_DOMAIN
EOF

expect_error syntax-error ":2" <<EOF
[sssd]
this line has no equals sign
domains = ldap.test
$GOOD_DOMAIN
EOF

expect_error unterminated-section ":1" <<EOF
[sssd
domains = ldap.test
$GOOD_DOMAIN
EOF

expect_error option-before-section "domains" <<EOF
domains = ldap.test
[sssd]
$GOOD_DOMAIN
EOF

expect_error bad-snippet-mode "conf.d" "mkdir -p \$WORK/conf.d && printf '[nss]\n' > \$WORK/conf.d/10-x.conf && chmod 0644 \$WORK/conf.d/10-x.conf" <<EOF
[sssd]
domains = ldap.test
$GOOD_DOMAIN
EOF
rm -rf "$WORK/conf.d"

# A warning is not an error: an unknown option starts fine and is named in the log.
write_conf <<EOF
[sssd]
domains = ldap.test
services = nss
[nss]
[domain/ldap.test]
id_provider = ldap
ldap_ur = ldap://127.0.0.1
EOF
: > "$LOGS/sssd.log" 2>/dev/null || true
out=$("$SBIN/sssd" -D -c "$CONF" 2>&1); rc=$?
check "an unknown option is only a warning (status $rc)" test "$rc" -eq 0
check "the warning names the option and the closest one" \
    grep -q "ldap_ur'.*ldap_uri" "$LOGS/sssd.log"
stop_sssd

# --genconf (and --genconf-section, which SSSD's unit files use): check and exit, start
# nothing; a broken file fails with its one line.
write_conf <<EOF
[sssd]
domains = ldap.test
services = nss
[domain/ldap.test]
id_provider = ldap
ldap_ur = ldap://127.0.0.1
EOF
out=$("$SBIN/sssd" --genconf -c "$CONF" 2>&1); rc=$?
check "--genconf on a good file: status 0 ($rc)" test "$rc" -eq 0
check "--genconf prints the file's warnings ($out)" grep -q "ldap_ur" <<<"$out"
check "--genconf starts nothing (no pid file, no bus)" \
    bash -c "! test -e '$PIDFILE' && ! test -e '$BUS_SOCK' && ! pgrep -f '^$PREFIX/libexec/sssd/'"
out=$("$SBIN/sssd" --genconf-section=nss -c "$CONF" 2>&1); rc=$?
check "--genconf-section=nss: status 0 ($rc)" test "$rc" -eq 0
printf 'this is not ini\n' >> "$CONF"
out=$("$SBIN/sssd" --genconf -c "$CONF" 2>&1); rc=$?
check "--genconf on a broken file: status 1 ($rc)" test "$rc" -eq 1
check "... with the file and line ($out)" grep -q "sssd.conf:7:" <<<"$out"
out=$("$SBIN/sssd" --genconf -i -c "$CONF" 2>&1); rc=$?
check "--genconf with -i is refused ($rc)" test "$rc" -eq 1

# sssd-ad(5) options SSSD accepts and this suite does not act on: typed as in SSSD, and
# accepted with a warning that says why (here through --genconf, which starts nothing).
write_conf <<EOF
[sssd]
domains = ad.test
[domain/ad.test]
id_provider = ad
ad_enable_gc = maybe
EOF
out=$("$SBIN/sssd" --genconf -c "$CONF" 2>&1); rc=$?
check "ad_enable_gc = maybe is refused as not a boolean (status $rc: $out)" \
    bash -c "test $rc -eq 1 && grep -q \"sssd.conf:5: invalid value 'maybe' for option 'ad_enable_gc'\" <<<\"\$1\"" _ "$out"
write_conf <<EOF
[sssd]
domains = ad.test
[domain/ad.test]
id_provider = ad
ad_domain = ad.test
ad_enable_gc = false
ad_gpo_map_service = +vsftpd
EOF
out=$("$SBIN/sssd" --genconf -c "$CONF" 2>&1); rc=$?
check "ad_enable_gc and ad_gpo_map_service are accepted (status $rc)" test "$rc" -eq 0
check "... ad_enable_gc without a warning (it decides whether the global catalog is used)" \
    eval '! grep -q "option .ad_enable_gc" <<<"$out"'
check "... ad_gpo_map_service without one (GPOs are evaluated: ad_gpo_access.c)" \
    eval '! grep -q "option .ad_gpo_map_service" <<<"$out"'

# An option set twice keeps its last value, as in SSSD, with a warning naming both lines;
# a section that appears twice is merged. Here the first domains line names a domain that
# has no section: had it been kept, sssd would refuse to start.
write_conf <<EOF
[sssd]
domains = missing.test
services = nss
[nss]
memcache_timeout = 10
[sssd]
domains = ldap.test
[domain/ldap.test]
id_provider = ldap
EOF
: > "$LOGS/sssd.log" 2>/dev/null || true
out=$("$SBIN/sssd" -D -c "$CONF" 2>&1); rc=$?
check "an option set twice starts with the later value (status $rc: $out)" test "$rc" -eq 0
check "the warning names both lines of the option set twice" \
    grep -q "sssd.conf:7: option 'domains' in section \\[sssd\\] is already set on line 2" "$LOGS/sssd.log"
check "the warning names both lines of the repeated section" \
    grep -q "sssd.conf:6: section \\[sssd\\] appears again (first on line 1)" "$LOGS/sssd.log"
check "the domain of the later line runs" wait_name sssd.domain_ldap_2etest 5000
stop_sssd

summary
