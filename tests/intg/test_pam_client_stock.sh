#!/bin/bash
# Our pam_sss.so against SSSD 2.8's own daemons: Debian 12's stock SSSD (sssd_pam and an
# LDAP sssd_be; tests/perf/systems/stock_sssd.sh runs it in a private mount namespace)
# authenticates users of a private slapd (userPassword hashes, StartTLS with a throwaway CA,
# an ACL that lets users change their own password). pamtester runs every scenario twice,
# with a service naming our module by absolute path and one naming SSSD's own pam_sss.so
# (Debian's libpam-sss, unpacked): both must give the same status and the same output, and
# the status must be the expected one. Scenarios: the right password (auth and account,
# session), wrong and empty passwords, an unknown user (PAM_USER_UNKNOWN; PAM_IGNORE with
# ignore_unknown_user, shown by the stack going on), a user running pamtester (public
# socket), root resetting a password (SSSD's refusal), the user changing their password
# (chpass_provider = ldap, old password checked first) and the new one working, sssd
# stopped (PAM_AUTHINFO_UNAVAIL; PAM_IGNORE with ignore_authinfo_unavail). Finally no test password may appear in any syslog line
# our module wrote (a /dev/log of the test's own in the namespace).
#
# Our module has $PREFIX/var/lib/sss/pipes compiled in, SSSD's daemons /var/lib/sss/pipes:
# inside the namespace SSSD's directory is bind-mounted over ours.
#
# Usage: test_pam_client_stock.sh PREFIX   (as root; exits 77 when slapd, pamtester or
# SSSD's packages are not available)
set -u
PREFIX=$(cd "$1" && pwd)
TOP=$(cd "$(dirname "$0")/../.." && pwd)
. "$(dirname "$0")/lib.sh"
. "$TOP/tests/lib/slapd.sh"
. "$TOP/tests/lib/tls_certs.sh"

RUNNER=$TOP/tests/perf/systems/stock_sssd.sh
OUR_MOD=$PREFIX/lib/security/pam_sss.so
SUFFIX=dc=pam,dc=test
[ -f "$OUR_MOD" ] || { echo "FAIL: $OUR_MOD is not installed"; exit 1; }
slapd_available || { echo "SKIP: slapd is not available"; exit 77; }
tls_certs_available || { echo "SKIP: no openssl/certtool for the test CA"; exit 77; }
command -v pamtester > /dev/null || { echo "SKIP: pamtester is not installed"; exit 77; }
command -v slappasswd > /dev/null || { echo "SKIP: slappasswd is not installed"; exit 77; }
if ! why=$(bash "$RUNNER" available 2>&1); then
    echo "SKIP: stock SSSD cannot run here: $why"
    exit 77
fi

WORK=$(mktemp -d /tmp/sssd-pamstock.XXXXXX)
chmod 0755 "$WORK"      # apt's _apt user writes the downloads here
cleanup() {
    slapd_stop "$WORK/ldap" 2>/dev/null
    rm -rf "$WORK"
}
trap cleanup EXIT

if ! bash "$RUNNER" prepare "$WORK" > "$WORK/prepare.log" 2>&1 \
        || ! (mkdir -p "$WORK/debs" && cd "$WORK/debs" && apt-get download -q libpam-sss) \
             >> "$WORK/prepare.log" 2>&1; then
    echo "SKIP: cannot download and unpack SSSD's packages (no mirror?):"
    tail -n 5 "$WORK/prepare.log" | sed 's/^/    /'
    exit 77
fi
dpkg -x "$WORK"/debs/libpam-sss_*.deb "$WORK/pamsss" || { echo "FAIL: dpkg -x libpam-sss"; exit 1; }
SSSD_MOD=$(find "$WORK/pamsss" -name pam_sss.so | head -n1)
[ -n "$SSSD_MOD" ] || { echo "FAIL: no pam_sss.so in libpam-sss"; exit 1; }

# ---- the directory: users with password hashes, StartTLS, self-service passwords --------
mkdir -p "$WORK/tls" "$WORK/ldap"
tls_certs_make "$WORK/tls" > "$WORK/tls.log" 2>&1 || { echo "FAIL: test certificates"; exit 1; }
user_entry() { # UID UIDNUMBER PASSWORD
    printf 'dn: uid=%s,ou=People,%s\nobjectClass: top\nobjectClass: account\n' "$1" "$SUFFIX"
    # slapadd -s does not add structuralObjectClass, and slapd refuses to modify an entry
    # without it (the password change would fail with "Other error (80)").
    printf 'objectClass: posixAccount\nstructuralObjectClass: account\n'
    printf 'uid: %s\ncn: %s\nuidNumber: %s\ngidNumber: %s\n' \
        "$1" "$1" "$2" "$2"
    printf 'homeDirectory: /home/%s\nloginShell: /bin/sh\nuserPassword: %s\n\n' \
        "$1" "$(slappasswd -s "$3")"
}
{
    printf 'dn: %s\nobjectClass: top\nobjectClass: dcObject\nobjectClass: organization\n' "$SUFFIX"
    printf 'o: Pam\ndc: pam\n\n'
    printf 'dn: ou=People,%s\nobjectClass: organizationalUnit\nou: People\n\n' "$SUFFIX"
    user_entry alice 10001 'Alice-Pass1'
    user_entry bob 10002 'Bob-Pass2'
} > "$WORK/pam.ldif"
URI=$(SLAPD_TLS_CERT=$WORK/tls/server.crt SLAPD_TLS_KEY=$WORK/tls/server.key \
      SLAPD_TLS_CA=$WORK/tls/ca.crt slapd_start "$WORK/ldap" "$WORK/pam.ldif" "$SUFFIX") || exit 1
# tests/lib/slapd.sh lets everybody read everything and nobody write. Passwords need
# self-service: restart the same server with userPassword writable by its owner only.
slapd_stop "$WORK/ldap"
python3 - "$WORK/ldap/slapd.conf" <<'PY'
import sys
p = sys.argv[1]
s = open(p).read()
s = s.replace('access to * by * read',
              'access to attrs=userPassword by self write by anonymous auth by * none\n'
              'access to * by * read')
open(p, 'w').write(s)
PY
"$SLAPD_BIN" -f "$WORK/ldap/slapd.conf" -h "$URI/" -n slapd-test > "$WORK/ldap/slapd2.log" 2>&1
port=${URI##*:}
for _ in $(seq 100); do
    (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && break
    sleep 0.05
done
LDAPTLS_CACERT=$WORK/tls/ca.crt ldapwhoami -x -H "$URI" -ZZ -D "uid=alice,ou=People,$SUFFIX" \
    -w 'Alice-Pass1' > "$WORK/whoami.log" 2>&1 \
    || { echo "FAIL: alice cannot bind to the test slapd: $(cat "$WORK/whoami.log")"; exit 1; }

# ---- inside SSSD's namespace ----------------------------------------------------------------
cat > "$WORK/inner.sh" <<'INNER'
set -u
PREFIX=$1 TOP=$2 WORK=$3 OUR_MOD=$4 SSSD_MOD=$5 URI=$6 SUFFIX=$7
. "$TOP/tests/intg/lib.sh"

# SSSD with the PAM responder and LDAP authentication (the runner started it with NSS only).
cat > /etc/sssd/sssd.conf <<EOF
[sssd]
services = nss, pam
domains = pamtest
[nss]
[pam]
[domain/pamtest]
id_provider = ldap
auth_provider = ldap
chpass_provider = ldap
ldap_uri = $URI
ldap_search_base = $SUFFIX
ldap_schema = rfc2307
ldap_tls_cacert = $WORK/tls/ca.crt
ldap_tls_reqcert = demand
cache_credentials = false
debug_level = ${PAMSTOCK_DEBUG:-0}
EOF
chmod 0600 /etc/sssd/sssd.conf
restart_sssd() {
    "$LOAD_CTL" stop > /dev/null 2>&1
    rm -rf /var/lib/sss/db/* /var/lib/sss/mc/*
    "$LOAD_CTL" start > "$WORK/start.log" 2>&1 || return 1
    for _ in $(seq 200); do
        [ -S /var/lib/sss/pipes/private/pam ] && [ -S /var/lib/sss/pipes/pam ] && return 0
        sleep 0.05
    done
    return 1
}
restart_sssd || { fail "stock SSSD did not start with services = nss, pam"; cat "$WORK/start.log"; summary; exit; }
check "the answering daemon is SSSD's own sssd_pam" pgrep -f '^/usr/libexec/sssd/sssd_pam' > /dev/null
check "SSSD's sockets are root:root 0666 and 0600" test \
    "$(stat -c '%u:%g %a' /var/lib/sss/pipes/pam) $(stat -c '%u:%g %a' /var/lib/sss/pipes/private/pam)" \
    = "0:0 666 0:0 600"

# Our module finds SSSD's sockets at its own compiled-in path.
mkdir -p "$PREFIX/var/lib/sss"
mount --bind /var/lib/sss "$PREFIX/var/lib/sss" || { fail "bind-mount SSSD's /var/lib/sss"; summary; exit; }

# A /dev/log of our own: tmpfs over /dev, the usual nodes bound back.
mkdir -p "$WORK/olddev"
mount --rbind /dev "$WORK/olddev"
mount -t tmpfs -o mode=0755 tmpfs /dev
for n in null zero urandom random tty full; do
    touch "/dev/$n" && mount --bind "$WORK/olddev/$n" "/dev/$n"
done
mkdir -p /dev/pts /dev/shm && mount --rbind "$WORK/olddev/pts" /dev/pts
ln -s /proc/self/fd /dev/fd
python3 "$TOP/tests/intg/syslog_sink.py" "$WORK/syslog" "$WORK/syslog.ready" & SYSLOGD=$!
# The first module line was lost under load when a run began before the sink was bound.
for _ in $(seq 500); do [ -e "$WORK/syslog.ready" ] && break; sleep 0.01; done
trap 'kill $SYSLOGD 2>/dev/null' EXIT

# Services: pamstock-ours and pamstock-sssd name the modules by absolute path.
services() { # OPTS
    local tag mod
    for tag in ours sssd; do
        [ "$tag" = ours ] && mod=$OUR_MOD || mod=$SSSD_MOD
        printf '%s required %s %s\n' auth "$mod" "$1" account "$mod" "$1" \
            password "$mod" "$1" session "$mod" "$1" > "/etc/pam.d/pamstock-$tag"
    done
}
# For the ignore_* options: PAM_IGNORE lets the stack go on to pam_permit, anything else
# but success stops it.
services_ignore() { # OPTS
    local tag mod
    for tag in ours sssd; do
        [ "$tag" = ours ] && mod=$OUR_MOD || mod=$SSSD_MOD
        printf 'auth [success=done ignore=ignore default=die] %s %s\nauth required pam_permit.so\n' \
            "$mod" "$1" > "/etc/pam.d/pamstock-$tag"
    done
}

AS=()   # a prefix such as setpriv, for runs as a user
# both NAME EXPECTED_STATUS INPUT PAMTESTER_ARGS... (service and user first)
both() {
    local name=$1 want=$2 input=$3 svc=$4
    shift 4
    pam_both "$name" "$want" '%b' "$input" "$svc-sssd" "$svc-ours" "$@"
}
# pamtester's status is 0 or 1; the PAM result is in its last line.
expect_line() { # NAME PATTERN
    if grep -q -- "$2" <<< "$LAST_OUT"; then
        ok "$1"
    else
        fail "$1 (no '$2')"
        echo "$LAST_OUT" | sed 's/^/        /'
    fi
}
run_ours() { # INPUT PAMTESTER_ARGS... -> LAST_OUT, status
    local input=$1
    shift
    LAST_OUT=$(printf '%b' "$input" | LC_ALL=C "${AS[@]}" pamtester "$@" 2>&1)
}

services ""
both "right password, auth + account" 0 'Alice-Pass1\n' pamstock alice authenticate acct_mgmt
both "session open and close" 0 '' pamstock alice open_session close_session
both "wrong password" 1 'Alice-Pass2\n' pamstock alice authenticate
run_ours 'Alice-Pass2\n' pamstock-ours alice authenticate
expect_line "wrong password is PAM_AUTH_ERR" "Authentication failure"
both "empty password" 1 '\n' pamstock alice authenticate
run_ours '\n' pamstock-ours alice authenticate
expect_line "empty password is PAM_AUTH_ERR" "Authentication failure"
both "unknown user" 1 'whatever\n' pamstock nobody-here authenticate
run_ours 'whatever\n' pamstock-ours nobody-here authenticate
expect_line "unknown user is PAM_USER_UNKNOWN" "User not known to the underlying authentication module"
services_ignore ignore_unknown_user
both "unknown user with ignore_unknown_user: PAM_IGNORE, the stack goes on" 0 'whatever\n' pamstock nobody-here authenticate
both "known user with ignore_unknown_user, wrong password: still refused" 1 'nope\n' pamstock alice authenticate
services ""

AS=(setpriv --reuid=10001 --regid=10001 --clear-groups)
both "as the user (public socket), right password" 0 'Alice-Pass1\n' pamstock alice authenticate acct_mgmt
both "as the user (public socket), wrong password" 1 'Alice-Pass9\n' pamstock alice authenticate
AS=()

both "root resets a password" 1 '' pamstock alice chauthtok
run_ours '' pamstock-ours alice chauthtok
expect_line "root's reset is refused with SSSD's message" "Password reset by root is not supported."

# bob changes his password with our module, then back with SSSD's.
AS=(setpriv --reuid=10002 --regid=10002 --clear-groups)
run_ours 'Bob-Pass2\nBob-Pass3\nBob-Pass3\n' pamstock-ours bob chauthtok
expect_line "bob changes his password with our module" "authentication token altered successfully"
run_ours 'Bob-Pass3\n' pamstock-ours bob authenticate
expect_line "the new password works" "successfully authenticated"
run_ours 'Bob-Pass2\n' pamstock-ours bob authenticate
expect_line "the old password does not" "Authentication failure"
run_ours 'Wrong-Old1\nBob-Pass4\nBob-Pass4\n' pamstock-ours bob chauthtok
expect_line "a wrong current password stops the change" "Authentication failure"
LAST_OUT=$(printf 'Bob-Pass3\nBob-Pass2\nBob-Pass2\n' | LC_ALL=C "${AS[@]}" pamtester pamstock-sssd bob chauthtok 2>&1)
expect_line "and back with SSSD's module" "authentication token altered successfully"
both "the password SSSD's module set works with both" 0 'Bob-Pass2\n' pamstock bob authenticate
AS=()

"$LOAD_CTL" stop > /dev/null 2>&1
both "sssd stopped" 1 'Alice-Pass1\n' pamstock alice authenticate
run_ours 'Alice-Pass1\n' pamstock-ours alice authenticate
expect_line "sssd stopped is PAM_AUTHINFO_UNAVAIL" "Authentication service cannot retrieve authentication info"
services_ignore ignore_authinfo_unavail
both "sssd stopped, ignore_authinfo_unavail: PAM_IGNORE, the stack goes on" 0 'Alice-Pass1\n' pamstock alice authenticate
services_ignore ""
both "sssd stopped, without it: the stack stops" 1 'Alice-Pass1\n' pamstock alice authenticate

sleep 0.2
n=$(grep -ac 'pam_sss(pamstock-ours' "$WORK/syslog")
check "our module's syslog lines were captured ($n)" test "$n" -gt 5
check "the grep sees their text (user=alice is there)" grep -aq 'pam_sss(pamstock-ours:auth).*user=alice' "$WORK/syslog"
leaked=0
for pw in Alice-Pass1 Alice-Pass2 Alice-Pass9 Bob-Pass2 Bob-Pass3 Bob-Pass4 Wrong-Old1; do
    if grep -a 'pam_sss(pamstock-ours' "$WORK/syslog" | grep -qF -- "$pw"; then
        fail "password $pw appears in our module's syslog lines"
        leaked=1
    fi
done
[ "$leaked" = 0 ] && ok "no test password in our module's syslog lines"
summary
INNER

bash "$RUNNER" run "$WORK" "$URI" "$SUFFIX" rfc2307 -- \
    bash "$WORK/inner.sh" "$PREFIX" "$TOP" "$WORK" "$OUR_MOD" "$SSSD_MOD" "$URI" "$SUFFIX" \
    2>&1 | tee "$WORK/inner.out"
rc=${PIPESTATUS[0]}
if ! grep -Eq '^[0-9]+ passed, [0-9]+ failed$' "$WORK/inner.out"; then
    echo "FAIL: stock SSSD did not run (runner status $rc)"
    tail -n 20 "$WORK"/stock_sssd/run/varlog.up/sssd/*.log 2>/dev/null
    exit 1
fi
exit "$rc"
