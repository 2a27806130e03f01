# Shared set-up of the Kerberos integration tests (test_krb5_*.sh), sourced inside the
# test's private mount namespace with PREFIX and TOP set: a private realm KRB.TEST
# (tests/lib/krb5kdc.sh) with alice, bob and carol, a slapd holding them (LDAP passwords
# that differ from the Kerberos ones), the KDC behind tests/faults/fault_proxy.py
# (PROXY_PID: SIGUSR1 hang, SIGHUP refuse, SIGUSR2 heal), a krb5.conf without the realm's
# KDCs over /etc/krb5.conf (only krb5_server names them), and pam service "krb5test" with
# our pam_sss.so on a tmpfs over /etc/pam.d. Helpers: conf, restart, login, expect_line,
# klist_of; KRB5T_BEFORE_SLAPD (eval'ed) prepares slapd. Exits 77 when a tool is missing. KEEP_WORK=1 keeps $WORK for a post-mortem.
. "$TOP/tests/intg/lib.sh"
. "$TOP/tests/intg/nss_ns.sh"
. "$TOP/tests/lib/slapd.sh"
. "$TOP/tests/lib/krb5kdc.sh"

OUR_MOD=$PREFIX/lib/security/pam_sss.so
SUFFIX=dc=krb,dc=test
REALM=KRB.TEST
[ -f "$OUR_MOD" ] || { echo "FAIL: $OUR_MOD is not installed"; exit 1; }
[ -x "$PREFIX/libexec/sssd/krb5_child" ] || { echo "FAIL: krb5_child is not installed"; exit 1; }
slapd_available || { echo "SKIP: slapd is not available"; exit 77; }
krb5kdc_available || { echo "SKIP: the MIT KDC is not installed (krb5-kdc krb5-admin-server)"; exit 77; }
for t in pamtester slappasswd setpriv python3; do
    command -v $t > /dev/null || { echo "SKIP: $t is not installed"; exit 77; }
done

rm -f "$LOGS"/*.log     # the checks read the logs of this run only
WORK=$(mktemp -d /tmp/sssd-krb5.XXXXXX)
chmod 0755 "$WORK"
PROXY_PID=
cleanup() {
    stop_sssd
    [ -n "${EXTRA_CLEANUP:-}" ] && eval "$EXTRA_CLEANUP"
    [ -n "$PROXY_PID" ] && kill "$PROXY_PID" 2>/dev/null
    krb5kdc_stop "$WORK/kdc"
    slapd_stop "$WORK/ldap" 2>/dev/null
    [ -n "${KEEP_WORK:-}" ] || rm -rf "$WORK"
}
trap cleanup EXIT

PASSWORDS=(Alice-Krb1 Alice-Ldap1 Alice-Bad2 Bob-Krb3 Carol-Krb4)
# ---- the realm and the directory ---------------------------------------------------------
krb5kdc_start "$WORK/kdc" "$REALM" || { echo "FAIL: KDC"; exit 1; }
krb5kdc_addprinc "$WORK/kdc" alice Alice-Krb1 || exit 1
krb5kdc_addprinc "$WORK/kdc" bob Bob-Krb3 || exit 1
krb5kdc_addprinc "$WORK/kdc" carol Carol-Krb4 || exit 1
KDC_PORT=$(cat "$WORK/kdc/kdc_port")
KCONF=$WORK/kdc/krb5.conf

user_entry() { # UID UIDNUMBER PASSWORD
    printf 'dn: uid=%s,ou=People,%s\nobjectClass: top\nobjectClass: account\n' "$1" "$SUFFIX"
    printf 'objectClass: posixAccount\nstructuralObjectClass: account\n'
    printf 'uid: %s\ncn: %s\nuidNumber: %s\ngidNumber: %s\n' "$1" "$1" "$2" "$2"
    printf 'homeDirectory: /home/%s\nloginShell: /bin/sh\nuserPassword: %s\n\n' \
        "$1" "$(slappasswd -s "$3")"
}
{
    printf 'dn: %s\nobjectClass: top\nobjectClass: dcObject\nobjectClass: organization\n' "$SUFFIX"
    printf 'o: Krb\ndc: krb\n\n'
    printf 'dn: ou=People,%s\nobjectClass: organizationalUnit\nou: People\n\n' "$SUFFIX"
    user_entry alice 10001 'Alice-Ldap1'
    user_entry bob 10002 'Bob-Ldap3'
    user_entry carol 10003 'Carol-Ldap4'
} > "$WORK/krb.ldif"
mkdir -p "$WORK/ldap"
# A test may prepare slapd first (SASL set-up: keytab, directives, ACL).
[ -n "${KRB5T_BEFORE_SLAPD:-}" ] && eval "$KRB5T_BEFORE_SLAPD"
URI=$(slapd_start "$WORK/ldap" "$WORK/krb.ldif" "$SUFFIX") || { echo "FAIL: slapd"; exit 1; }

# The KDC behind a proxy the test can make hang (SIGUSR1), refuse (SIGHUP), heal (SIGUSR2).
python3 "$TOP/tests/faults/fault_proxy.py" --listen 127.0.0.1:0 --target "127.0.0.1:$KDC_PORT" \
    --port-file "$WORK/proxy_port" > "$WORK/proxy.log" 2>&1 &
PROXY_PID=$!
for _ in $(seq 100); do [ -s "$WORK/proxy_port" ] && break; sleep 0.05; done
PROXY_PORT=$(cat "$WORK/proxy_port")
# proxy_refuse: SIGHUP, then wait until connects are really refused (the proxy acts on
# the signal in its own time, and a login right after it could still reach the KDC).
proxy_refuse() {
    local _
    kill -HUP "$PROXY_PID"
    for _ in $(seq 100); do
        (exec 3<> "/dev/tcp/127.0.0.1/$PROXY_PORT") 2>/dev/null || return 0
        sleep 0.05
    done
    return 1
}

# ---- the namespace's /etc ------------------------------------------------------------------
cat > "$WORK/etc-krb5.conf" <<EOF
[libdefaults]
    default_realm = $REALM
    dns_lookup_kdc = false
    dns_lookup_realm = false
    rdns = false
    udp_preference_limit = 1
EOF
if [ -e /etc/krb5.conf ]; then
    mount --bind "$WORK/etc-krb5.conf" /etc/krb5.conf || { echo "FAIL: bind krb5.conf"; exit 1; }
else
    mkdir -p "$WORK/etc-up" "$WORK/etc-work"
    cp "$WORK/etc-krb5.conf" "$WORK/etc-up/krb5.conf"
    mount -t overlay overlay -o "lowerdir=/etc,upperdir=$WORK/etc-up,workdir=$WORK/etc-work" /etc \
        || { echo "FAIL: overlay over /etc"; exit 1; }
fi
mount -t tmpfs -o mode=0755 tmpfs /etc/pam.d || { echo "FAIL: tmpfs over /etc/pam.d"; exit 1; }
printf '%s required %s\n' auth "$OUR_MOD" account "$OUR_MOD" password "$OUR_MOD" \
    session "$OUR_MOD" > /etc/pam.d/krb5test
unset KRB5_CONFIG KRB5CCNAME

mkdir -p "$WORK/cc" "$WORK/sticky"
chmod 1777 "$WORK/cc" "$WORK/sticky"

conf() { # EXTRA_DOMAIN_LINES
    write_conf <<CONF
[sssd]
services = nss, pam
domains = krbtest
debug_level = ${KRB5T_DEBUG:-9}
[nss]
debug_level = ${KRB5T_DEBUG:-9}
[pam]
debug_level = ${KRB5T_DEBUG:-9}
${PAM_EXTRA:-}
[domain/krbtest]
debug_level = ${KRB5T_DEBUG:-9}
id_provider = ldap
auth_provider = krb5
ldap_uri = $URI
ldap_search_base = $SUFFIX
ldap_schema = rfc2307
krb5_realm = $REALM
krb5_server = 127.0.0.1:$PROXY_PORT
krb5_kpasswd = 127.0.0.1:$(cat "$WORK/kdc/kpasswd_port")
krb5_ccachedir = $WORK/cc/%u
krb5_auth_timeout = 3
$1
CONF
}
restart() { # EXTRA_DOMAIN_LINES
    stop_sssd
    conf "$1"
    start_sssd || return 1
    for _ in $(seq 200); do
        [ -S "$PIPES/private/pam" ] && [ -S "$PIPES/pam" ] && wait_name sssd.domain_krbtest 100 \
            && return 0
        sleep 0.05
    done
    return 1
}
login() { # EXPECTED_RC PASSWORD USER [OPS...]   (as root)
    local want=$1 pw=$2 user=$3
    shift 3
    LAST_OUT=$(printf '%s\n' "$pw" | LC_ALL=C pamtester krb5test "$user" "${@:-authenticate}" 2>&1)
    LAST_RC=$?
    [ "$LAST_RC" = "$want" ]
}
expect_line() { # NAME PATTERN
    if grep -q -- "$2" <<< "$LAST_OUT"; then ok "$1"; else
        fail "$1 (no '$2')"; echo "$LAST_OUT" | sed 's/^/        /'; fi
}
klist_of() { # CCNAME -> klist's output (as root, with the realm's krb5.conf)
    KRB5_CONFIG=$KCONF klist -c "$1" 2>&1
}

