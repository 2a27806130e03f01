#!/bin/bash
# What an administrator configures, seen through the real glibc NSS path (getent, id in a
# private mount namespace, nss_ns.sh) against two private slapds and our sssd:
# enumerate, filter_users / filter_groups / filter_users_in_groups, override_homedir,
# fallback_homedir, override_shell, default_shell, vetoed_shells + shell_fallback,
# use_fully_qualified_names with the default and a custom full_name_format,
# default_domain_suffix, case_sensitive = false, min_id / max_id, entry_negative_timeout,
# entry_cache_timeout, domain order, unknown domains.
# Usage: test_nss_options.sh PREFIX   (run as root)
set -u
PREFIX=$(cd "$1" && pwd)
TOP=$(cd "$(dirname "$0")/../.." && pwd)
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/nss_ns.sh"
. "$TOP/tests/lib/slapd.sh"
export LC_ALL=C

WORK=$(mktemp -d /tmp/sssd-nssopts.XXXXXX)
cleanup() {
    stop_sssd
    slapd_stop "$WORK/ldap1" 2>/dev/null
    slapd_stop "$WORK/ldap2" 2>/dev/null
    rm -rf "$WORK"
}
trap cleanup EXIT

# ---- the directories ----
# opts.test: people with and without home directory and shell, a filtered user (eve), a
# mixed-case uid (Hank), ids outside [min_id, max_id] (low, high), a filtered group (secret).
# two.test: frank (only here), alice again (another uid), Grace (mixed case).
person() { # person SUFFIX UID UIDNUMBER GIDNUMBER GECOS [HOME [SHELL]]
    echo "dn: uid=$2,ou=People,$1"
    echo "objectClass: top"
    echo "objectClass: account"
    echo "objectClass: posixAccount"
    echo "uid: $2"
    echo "cn: $5"
    echo "uidNumber: $3"
    echo "gidNumber: $4"
    echo "gecos: $5"
    [ -n "${6:-}" ] && echo "homeDirectory: $6"
    [ -n "${7:-}" ] && echo "loginShell: $7"
    echo
}
group() { # group SUFFIX CN GIDNUMBER MEMBERUID...
    local s=$1 cn=$2 gid=$3 m
    shift 3
    echo "dn: cn=$cn,ou=Groups,$s"
    echo "objectClass: top"
    echo "objectClass: posixGroup"
    echo "cn: $cn"
    echo "gidNumber: $gid"
    for m in "$@"; do echo "memberUid: $m"; done
    echo
}
base() { # base SUFFIX DC
    printf 'dn: %s\nobjectClass: top\nobjectClass: dcObject\nobjectClass: organization\n' "$1"
    printf 'o: %s\ndc: %s\n\n' "$2" "$2"
    printf 'dn: ou=People,%s\nobjectClass: organizationalUnit\nou: People\n\n' "$1"
    printf 'dn: ou=Groups,%s\nobjectClass: organizationalUnit\nou: Groups\n\n' "$1"
}
S1=dc=opts,dc=test
S2=dc=two,dc=test
{
    base $S1 opts
    person $S1 alice 50001 60001 "Alice Opts" /home/alice /bin/bash
    person $S1 bob 50002 60001 "Bob Opts" /home/bob /bin/csh
    person $S1 carol 50003 60001 "Carol Opts"          # no homeDirectory, no loginShell
    person $S1 dave 50004 60001 "Dave Opts" /home/dave /opt/weird/shell
    person $S1 eve 50005 60001 "Eve Opts" /home/eve /bin/bash
    person $S1 Hank 50006 60001 "Hank Opts" /home/hank /bin/bash
    person $S1 low 4000 60001 "Low Opts" /home/low /bin/bash
    person $S1 high 90001 60001 "High Opts" /home/high /bin/bash
    group $S1 team 60001 alice bob eve
    group $S1 secret 60002 alice
    group $S1 ops 60003 dave Hank
} > "$WORK/opts.ldif"
{
    base $S2 two
    person $S2 frank 70001 70001 "Frank Two" /home/frank /bin/bash
    person $S2 alice 70002 70001 "Alice Two" /home/alice2 /bin/bash
    person $S2 Grace 70003 70001 "Grace Two" /home/grace /bin/bash
    person $S2 badgid 70004 95000 "Bad Gid" /home/badgid /bin/bash   # primary gid > max_id
    group $S2 twogrp 70001 frank Grace
} > "$WORK/two.ldif"
mkdir -p "$WORK/ldap1" "$WORK/ldap2"
URI1=$(slapd_start "$WORK/ldap1" "$WORK/opts.ldif" $S1) || { fail "slapd 1"; summary; exit 1; }
URI2=$(slapd_start "$WORK/ldap2" "$WORK/two.ldif" $S2) || { fail "slapd 2"; summary; exit 1; }

# ---- helpers ----
# Group lines with their member list sorted (the directory's value order is not ours).
norm_group() { awk -F: 'BEGIN{OFS=":"} NF { n = split($4, m, ","); s = "";
    for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (m[j] < m[i]) { t = m[i]; m[i] = m[j]; m[j] = t }
    for (i = 1; i <= n; i++) s = s (i > 1 ? "," : "") m[i]; $4 = s; print }'; }

expect() { # expect "EXPECTED" getent|id ARGS...: exactly one line, exactly EXPECTED
    local want=$1 out rc
    shift
    out=$(in_nss_ns "$@" 2>&1); rc=$?
    [ "$1" = getent ] && [ "$2" = group ] && out=$(norm_group <<<"$out")
    if [ "$rc" -eq 0 ] && [ "$out" = "$want" ]; then
        ok "$* -> $out"
    else
        fail "$* -> [$out] (status $rc), expected [$want]"
    fi
}

expect_missing() { # expect_missing getent ARGS...: not found (getent status 2, no output)
    local out rc
    out=$(in_nss_ns "$@" 2>&1); rc=$?
    if [ "$rc" -eq 2 ] && [ -z "$out" ]; then
        ok "$* -> not found"
    else
        fail "$* -> [$out] (status $rc), expected not found (status 2)"
    fi
}

restart() { # restart <<EOF sssd.conf EOF: new configuration, empty caches
    write_conf
    start_sssd || { fail "sssd did not start"; cat "$LOGS"/*.log 2>/dev/null | tail -20; }
}

wait_enum() { # wait_enum PW GR: poll getent passwd / group (no key) until they are PW / GR, 20 s max
    local deadline=$(( $(now_ms) + 20000 ))
    while :; do
        pw=$(in_nss_ns getent passwd | sort)
        gr=$(in_nss_ns getent group | norm_group | sort)
        [ "$pw" = "$1" ] && [ "$gr" = "$2" ] && return 0
        [ "$(now_ms)" -ge "$deadline" ] && return 1
        sleep 0.5
    done
}

ldap_admin() { # ldap_admin ldapadd|ldapmodify URI SUFFIX  (LDIF on stdin)
    "$1" -x -H "$2" -D "cn=admin,$3" -w secret >/dev/null
}

# ======== 1: enumerate, filters, homes, shells, min_id/max_id, domain order, timeouts ====
restart <<CONF
[sssd]
services = nss
domains = opts.test, two.test

[nss]
filter_users = root, eve
filter_groups = root, secret
vetoed_shells = /bin/csh
shell_fallback = /bin/sh
default_shell = /bin/ksh
fallback_homedir = /home/fallback/%u
entry_negative_timeout = 3

[domain/opts.test]
id_provider = ldap
ldap_uri = $URI1
ldap_search_base = $S1
enumerate = true
min_id = 50000
max_id = 69999
entry_cache_timeout = 4

[domain/two.test]
id_provider = ldap
ldap_uri = $URI2
ldap_search_base = $S2
override_homedir = /home/%d/%u
max_id = 79999
CONF

# enumerate = true: the back-end's first round fills the cache; wait for it (bounded).
ENUM_PW="Hank:*:50006:60001:Hank Opts:/home/hank:/bin/bash
alice:*:50001:60001:Alice Opts:/home/alice:/bin/bash
bob:*:50002:60001:Bob Opts:/home/bob:/bin/sh
carol:*:50003:60001:Carol Opts:/home/fallback/carol:/bin/ksh
dave:*:50004:60001:Dave Opts:/home/dave:/sbin/nologin"
ENUM_GR="ops:*:60003:Hank,dave
team:*:60001:alice,bob"
wait_enum "$ENUM_PW" "$ENUM_GR"
check "enumerate = true: getent passwd lists the directory's users (filtered and out-of-range ones left out): [$pw]" \
    test "$pw" = "$ENUM_PW"
check "enumerate = true: getent group lists the directory's groups (secret filtered, eve not a member): [$gr]" \
    test "$gr" = "$ENUM_GR"

# Home directories and shells.
expect "alice:*:50001:60001:Alice Opts:/home/alice:/bin/bash" getent passwd alice
expect "bob:*:50002:60001:Bob Opts:/home/bob:/bin/sh" getent passwd bob            # vetoed -> shell_fallback
expect "carol:*:50003:60001:Carol Opts:/home/fallback/carol:/bin/ksh" getent passwd carol  # fallback_homedir, default_shell
expect "dave:*:50004:60001:Dave Opts:/home/dave:/sbin/nologin" getent passwd 50004  # not in /etc/shells
# filter_users / filter_groups (filter_users_in_groups = true by default).
expect_missing getent passwd eve
expect_missing getent passwd 50005
expect_missing getent group secret
expect_missing getent group 60002
expect_missing getent passwd root
expect "team:*:60001:alice,bob" getent group team
expect "team:*:60001:alice,bob" getent group 60001
out=$(in_nss_ns id alice)
# As in SSSD (2.8, checked with its own daemons), initgroups leaves a filtered group out.
check "id alice: the filtered group is left out: $out" \
    test "$out" = "uid=50001(alice) gid=60001(team) groups=60001(team)"
# min_id / max_id: out of range is not found, by name or by id.
expect_missing getent passwd low
expect_missing getent passwd 4000
expect_missing getent passwd high
expect_missing getent passwd 90001
# SSSD also drops a user whose primary gid is out of range (non-MPG domain).
expect_missing getent passwd badgid
expect_missing getent passwd 70004
# Domain order: the first domain answers alice; frank only exists in the second.
expect "frank:*:70001:70001:Frank Two:/home/two.test/frank:/bin/bash" getent passwd frank
expect "frank:*:70001:70001:Frank Two:/home/two.test/frank:/bin/bash" getent passwd 70001
expect "alice:*:70002:70001:Alice Two:/home/two.test/alice:/bin/bash" getent passwd alice@two.test
expect "alice:*:50001:60001:Alice Opts:/home/alice:/bin/bash" getent passwd alice@opts.test
expect "twogrp:*:70001:Grace,frank" getent group twogrp
# Unknown domains.
expect_missing getent passwd alice@nosuch.test
expect_missing getent passwd frank@nosuch.test
expect_missing getent group team@nosuch.test
# Enumeration stays with the enumerating domain: frank, now cached, is not listed.
pw=$(in_nss_ns getent passwd | sort)
check "a cached user of a domain without enumerate is not enumerated" test "$pw" = "$ENUM_PW"

# entry_negative_timeout = 3: a user added after a negative lookup shows up only later.
expect_missing getent passwd newbie
t_neg=$(now_ms)
ldap_admin ldapadd "$URI1" $S1 <<EOF
dn: uid=newbie,ou=People,$S1
objectClass: top
objectClass: account
objectClass: posixAccount
uid: newbie
cn: New Bie
uidNumber: 50010
gidNumber: 60001
gecos: New Bie
homeDirectory: /home/newbie
loginShell: /bin/bash
EOF
check "ldapadd newbie" test $? -eq 0
expect_missing getent passwd newbie
found=""
while [ "$(( $(now_ms) - t_neg ))" -lt 10000 ]; do
    out=$(in_nss_ns getent passwd newbie)
    [ -n "$out" ] && { found=$(( $(now_ms) - t_neg )); break; }
    sleep 0.25
done
check "after entry_negative_timeout the new user is found: [$out]" \
    test "$out" = "newbie:*:50010:60001:New Bie:/home/newbie:/bin/bash"
# The negative cache counts whole seconds (as SSSD's does): 3 s is more than 2 s here.
check "... but not before the negative entry expired (after ${found:-?} ms)" \
    test "${found:-0}" -ge 1500

# entry_cache_timeout = 4: a changed gecos is served once the entry expired. (newbie: the
# entries loaded with slapadd -s lack structuralObjectClass, so slapd refuses to modify them.)
expect "newbie:*:50010:60001:New Bie:/home/newbie:/bin/bash" getent passwd newbie
t_mod=$(now_ms)
ldap_admin ldapmodify "$URI1" $S1 <<EOF
dn: uid=newbie,ou=People,$S1
changetype: modify
replace: gecos
gecos: New Name
EOF
check "ldapmodify newbie" test $? -eq 0
expect "newbie:*:50010:60001:New Bie:/home/newbie:/bin/bash" getent passwd newbie
out=""
changed=""
while [ "$(( $(now_ms) - t_mod ))" -lt 12000 ]; do
    out=$(in_nss_ns getent passwd newbie)
    grep -q "New Name" <<<"$out" && { changed=$(( $(now_ms) - t_mod )); break; }
    sleep 0.25
done
check "after entry_cache_timeout the new gecos is served (after ${changed:-?} ms): [$out]" \
    test "$out" = "newbie:*:50010:60001:New Name:/home/newbie:/bin/bash"

# ======== 2: fully qualified names, full_name_format, override_*, filter_users_in_groups = false
restart <<CONF
[sssd]
services = nss
domains = opts.test, two.test

[nss]
filter_users = root, eve
filter_users_in_groups = false
override_homedir = /home/%d/%u
override_shell = /bin/zsh

[domain/opts.test]
id_provider = ldap
ldap_uri = $URI1
ldap_search_base = $S1
use_fully_qualified_names = true

[domain/two.test]
id_provider = ldap
ldap_uri = $URI2
ldap_search_base = $S2
use_fully_qualified_names = true
full_name_format = %2\$s\\%1\$s
enumerate = true
CONF
# Enumeration with the custom format and the overrides (opts.test does not enumerate).
ENUM_PW='two.test\Grace:*:70003:70001:Grace Two:/home/two.test/Grace:/bin/zsh
two.test\alice:*:70002:70001:Alice Two:/home/two.test/alice:/bin/zsh
two.test\badgid:*:70004:95000:Bad Gid:/home/two.test/badgid:/bin/zsh
two.test\frank:*:70001:70001:Frank Two:/home/two.test/frank:/bin/zsh'
ENUM_GR='two.test\twogrp:*:70001:two.test\Grace,two.test\frank'
wait_enum "$ENUM_PW" "$ENUM_GR"
check "enumerate with a custom full_name_format: getent passwd: [$pw]" test "$pw" = "$ENUM_PW"
check "... getent group: [$gr]" test "$gr" = "$ENUM_GR"
expect_missing getent passwd alice          # every domain wants qualified names
expect_missing getent passwd frank
expect "alice@opts.test:*:50001:60001:Alice Opts:/home/opts.test/alice:/bin/zsh" getent passwd alice@opts.test
expect "alice@opts.test:*:50001:60001:Alice Opts:/home/opts.test/alice:/bin/zsh" getent passwd 50001
expect "two.test\\alice:*:70002:70001:Alice Two:/home/two.test/alice:/bin/zsh" getent passwd alice@two.test
expect "two.test\\frank:*:70001:70001:Frank Two:/home/two.test/frank:/bin/zsh" getent passwd 70001
expect "carol@opts.test:*:50003:60001:Carol Opts:/home/opts.test/carol:/bin/zsh" getent passwd carol@opts.test
expect_missing getent passwd eve@opts.test
expect "team@opts.test:*:60001:alice@opts.test,bob@opts.test,eve@opts.test" getent group team@opts.test
expect "two.test\\twogrp:*:70001:two.test\\Grace,two.test\\frank" getent group twogrp@two.test
expect_missing getent passwd alice@nosuch.test
out=$(in_nss_ns id alice@opts.test)
check "id alice@opts.test: $out" \
    test "$out" = "uid=50001(alice@opts.test) gid=60001(team@opts.test) groups=60001(team@opts.test),60002(secret@opts.test)"

# ======== 3: default_domain_suffix, case_sensitive = false in the suffix domain ========
restart <<CONF
[sssd]
services = nss
domains = opts.test, two.test
default_domain_suffix = two.test

[domain/opts.test]
id_provider = ldap
ldap_uri = $URI1
ldap_search_base = $S1

[domain/two.test]
id_provider = ldap
ldap_uri = $URI2
ldap_search_base = $S2
case_sensitive = false
CONF
expect "frank@two.test:*:70001:70001:Frank Two:/home/frank:/bin/bash" getent passwd frank
expect "alice@two.test:*:70002:70001:Alice Two:/home/alice2:/bin/bash" getent passwd alice
expect "alice@opts.test:*:50001:60001:Alice Opts:/home/alice:/bin/bash" getent passwd alice@opts.test
expect "frank@two.test:*:70001:70001:Frank Two:/home/frank:/bin/bash" getent passwd FRANK
expect "grace@two.test:*:70003:70001:Grace Two:/home/grace:/bin/bash" getent passwd GRACE
expect "grace@two.test:*:70003:70001:Grace Two:/home/grace:/bin/bash" getent passwd grace@TWO.TEST
expect "twogrp@two.test:*:70001:frank@two.test,grace@two.test" getent group TwoGrp
expect_missing getent passwd ALICE@opts.test   # opts.test stays case sensitive
expect_missing getent passwd carol             # only in opts.test: the suffix names two.test
expect_missing getent passwd alice@nosuch.test
out=$(in_nss_ns getent passwd)
check "without enumerate getent passwd lists nothing from sss: [$out]" test -z "$out"
out=$(in_nss_ns getent group)
check "without enumerate getent group lists nothing from sss: [$out]" test -z "$out"

# ======== 4: case_sensitive = false (and preserving), short names, a domain's filter ========
restart <<CONF
[sssd]
services = nss
domains = opts.test, two.test

[domain/opts.test]
id_provider = ldap
ldap_uri = $URI1
ldap_search_base = $S1
case_sensitive = false
enumerate = true
filter_users = Carol

[domain/two.test]
id_provider = ldap
ldap_uri = $URI2
# no ldap_search_base: read from the rootDSE of slapd 2 (its one naming context, \$S2)
case_sensitive = preserving
CONF
# Enumerated names are lowercased too; carol is filtered by the domain's own list.
ENUM_PW='alice:*:50001:60001:Alice Opts:/home/alice:/bin/bash
bob:*:50002:60001:Bob Opts:/home/bob:/bin/csh
dave:*:50004:60001:Dave Opts:/home/dave:/opt/weird/shell
eve:*:50005:60001:Eve Opts:/home/eve:/bin/bash
hank:*:50006:60001:Hank Opts:/home/hank:/bin/bash
high:*:90001:60001:High Opts:/home/high:/bin/bash
low:*:4000:60001:Low Opts:/home/low:/bin/bash
newbie:*:50010:60001:New Name:/home/newbie:/bin/bash'
ENUM_GR='ops:*:60003:dave,hank
secret:*:60002:alice
team:*:60001:alice,bob,eve'
wait_enum "$ENUM_PW" "$ENUM_GR"
check "case_sensitive = false: enumeration lowercases names: [$pw]" test "$pw" = "$ENUM_PW"
check "... and group members: [$gr]" test "$gr" = "$ENUM_GR"
expect "alice:*:50001:60001:Alice Opts:/home/alice:/bin/bash" getent passwd ALICE
expect "hank:*:50006:60001:Hank Opts:/home/hank:/bin/bash" getent passwd Hank
expect "hank:*:50006:60001:Hank Opts:/home/hank:/bin/bash" getent passwd 50006
expect "ops:*:60003:dave,hank" getent group OPS
expect "team:*:60001:alice,bob,eve" getent group Team
out=$(in_nss_ns id HANK)
check "id HANK: $out" test "$out" = "uid=50006(hank) gid=60001(team) groups=60001(team),60003(ops)"
expect_missing getent passwd CAROL          # [domain/opts.test] filter_users = Carol
expect_missing getent passwd carol
# case_sensitive = preserving: found whatever the case, the name as stored.
expect "Grace:*:70003:70001:Grace Two:/home/grace:/bin/bash" getent passwd GRACE
expect "Grace:*:70003:70001:Grace Two:/home/grace:/bin/bash" getent passwd grace
expect "twogrp:*:70001:Grace,frank" getent group TWOGRP

summary
