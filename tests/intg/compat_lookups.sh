# The lookups both compatibility tests make (test_sssd_client_compat.sh: SSSD's client
# against our daemons; test_stock_sssd_compat.sh: our client against SSSD's daemons), on
# contrib/demo/demo.ldif. Sourced after lib.sh. The test defines:
#   run_sssd_client COMMAND...   COMMAND through glibc with SSSD's libnss_sss.so.2
#   run_our_client COMMAND...    the same with ours
# and sets WORK (scratch directory, before sourcing), ROUND (label) and ENVV (an `env ...`
# prefix) per round. in_compat_ns (below) is what the tests that run our daemons use to
# give SSSD's client its compiled-in /var/lib/sss.

# in_compat_ns LIBDIR COMMAND...: COMMAND through glibc NSS with libnss_sss.so.2 from LIBDIR,
# nsswitch.conf "sss" only, and our $PREFIX/var/lib/sss visible at SSSD's compiled-in
# /var/lib/sss. Like nss_ns.sh's in_nss_ns, in a private mount namespace. When the host has
# no /var/lib/sss (the usual case: SSSD is not installed), a tmpfs covers /var/lib inside the
# namespace only and sss/ is made there; the host's /var/lib is untouched (and merely hidden
# from the getent/id run there, which never reads it).
in_compat_ns() {
    local lib=$1 dir rc
    shift
    dir=$(mktemp -d /tmp/sssd-compatns.XXXXXX)
    printf '%s\n' "passwd: sss" "group: sss" "initgroups: sss" "shadow: files" "hosts: files" \
        > "$dir/nsswitch.conf"
    unshare --mount --propagation private -- bash -c '
        conf=$1 sss=$2 lib=$3
        shift 3
        mount --bind "$conf" /etc/nsswitch.conf || exit 125
        if [ ! -d /var/lib/sss ]; then
            mount -t tmpfs -o mode=0755,size=64k compat-var-lib /var/lib || exit 125
            mkdir /var/lib/sss || exit 125
        fi
        mount --bind "$sss" /var/lib/sss || exit 125
        exec env LD_LIBRARY_PATH="$lib" "$@"
    ' compat-ns "$dir/nsswitch.conf" "$PREFIX/var/lib/sss" "$lib" "$@"
    rc=$?
    rm -rf "$dir"
    return $rc
}

# compare NAME EXPECTED_RC EXPECT_MODE EXPECTED -- COMMAND...
# Runs COMMAND with SSSD's client and with ours (timeout 20 s each). Checks SSSD's status,
# SSSD's output (EXPECT_MODE "exact": equal to EXPECTED plus newline; "grep": matches the
# regex EXPECTED; "any": not checked), and that status, stdout and stderr are byte for byte
# equal between the two clients.
COMPAT_N=0
compare() {
    local name=$1 erc=$2 mode=$3 expected=$4 rs ro
    shift 5
    COMPAT_N=$((COMPAT_N + 1))
    local s=$WORK/cmp$COMPAT_N.sssd o=$WORK/cmp$COMPAT_N.ours
    run_sssd_client timeout 20 "$@" >"$s.out" 2>"$s.err"; rs=$?
    run_our_client timeout 20 "$@" >"$o.out" 2>"$o.err"; ro=$?
    check "[$ROUND] $name: SSSD's client status $rs (want $erc)" test "$rs" -eq "$erc"
    case $mode in
    exact) check "[$ROUND] $name: SSSD's client answers $(head -c 200 "$s.out" | tr '\n' ' ')" \
               test "$(cat "$s.out")" = "$expected" ;;
    grep)  check "[$ROUND] $name: SSSD's client answer matches /$expected/" \
               grep -Eq "$expected" "$s.out" ;;
    esac
    if [ "$rs" -eq "$ro" ] && cmp -s "$s.out" "$o.out" && cmp -s "$s.err" "$o.err"; then
        ok "[$ROUND] $name: identical to our client (status $ro, $(wc -c <"$o.out") bytes)"
    else
        fail "[$ROUND] $name: differs from our client (status SSSD $rs, ours $ro)"
        diff <(echo "rc=$rs"; cat "$s.out" "$s.err") <(echo "rc=$ro"; cat "$o.out" "$o.err") |
            sed 's/^/#   /'
    fi
}

ALICE="alice:*:10001:20003:Alice Archer:/home/alice:/bin/bash"
BOB="bob:*:10002:20003:Bob Baker:/home/bob:/bin/bash"
DEVS="developers:*:20001:alice,bob,erin"
ADMINS="admins:*:20002:alice"
ID_ALICE="^uid=10001\(alice\) gid=20003\(staff\) groups=20003\(staff\),.*20001\(developers\)"

# nss_direct (tests/intg/nss_direct.c): the module's functions called without glibc.
NSS_DIRECT=$WORK/nss_direct
cc -O1 -o "$NSS_DIRECT" "$(dirname "${BASH_SOURCE[0]}")/nss_direct.c" -ldl ||
    fail "tests/intg/nss_direct.c does not build"

lookups() { # the lookups of one round; $1 = "mc" leaves out the ones only the socket can answer
    compare "getent passwd alice" 0 exact "$ALICE" -- "${ENVV[@]}" getent passwd alice
    compare "getent passwd by uid" 0 exact "$BOB" -- "${ENVV[@]}" getent passwd 10002
    compare "getent group developers" 0 exact "$DEVS" -- "${ENVV[@]}" getent group developers
    compare "getent group by gid" 0 exact "$ADMINS" -- "${ENVV[@]}" getent group 20002
    compare "id alice (initgroups)" 0 grep "$ID_ALICE" -- "${ENVV[@]}" id alice
    compare "id alice lists admins" 0 grep "20002\(admins\)" -- "${ENVV[@]}" id alice
    compare "getent initgroups alice" 0 grep "^alice +[0-9 ]*20001" -- \
        "${ENVV[@]}" getent initgroups alice
    # The module called directly: *start, *size, the array and errno must be SSSD's,
    # whatever room the caller gave (plenty, none, a too-small array, a limit).
    compare "initgroups_dyn, room for all" 0 grep "^status=1 errno=0 start=4 size=10 " -- \
        "${ENVV[@]}" "$NSS_DIRECT" initgroups alice 1 10 0
    compare "initgroups_dyn, a full array grows by what it adds" 0 grep "^status=1 " -- \
        "${ENVV[@]}" "$NSS_DIRECT" initgroups alice 1 1 0
    compare "initgroups_dyn, an empty array" 0 grep "^status=1 " -- \
        "${ENVV[@]}" "$NSS_DIRECT" initgroups alice 0 0 0
    compare "initgroups_dyn, a too-small array" 0 grep "^status=1 " -- \
        "${ENVV[@]}" "$NSS_DIRECT" initgroups alice 1 2 0
    compare "initgroups_dyn, limit 2" 0 grep "^status=1 .* start=2 size=2 " -- \
        "${ENVV[@]}" "$NSS_DIRECT" initgroups alice 1 1 2
    compare "initgroups_dyn, limit already reached" 0 grep "^status=1 " -- \
        "${ENVV[@]}" "$NSS_DIRECT" initgroups alice 3 3 3
    compare "getpwnam_r called directly" 0 exact "status=1 errno=0" -- \
        "${ENVV[@]}" "$NSS_DIRECT" getpwnam alice
    if [ "${1:-}" != mc ]; then
        compare "initgroups_dyn of an unknown user" 0 any "" -- \
            "${ENVV[@]}" "$NSS_DIRECT" initgroups nosuchuser 1 1 0
        compare "getpwnam_r of an unknown user" 0 any "" -- \
            "${ENVV[@]}" "$NSS_DIRECT" getpwnam nosuchuser
        compare "getpwuid_r of an unknown uid" 0 any "" -- \
            "${ENVV[@]}" "$NSS_DIRECT" getpwuid 19999
        compare "getgrnam_r of an unknown group" 0 any "" -- \
            "${ENVV[@]}" "$NSS_DIRECT" getgrnam nosuchgroup
        compare "getgrgid_r of an unknown gid" 0 any "" -- \
            "${ENVV[@]}" "$NSS_DIRECT" getgrgid 29999
        compare "unknown user (status 2)" 2 exact "" -- "${ENVV[@]}" getent passwd nosuchuser
        compare "unknown uid (status 2)" 2 exact "" -- "${ENVV[@]}" getent passwd 19999
        compare "unknown group (status 2)" 2 exact "" -- "${ENVV[@]}" getent group nosuchgroup
    fi
}
