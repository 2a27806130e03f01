# What the PAM integration tests share, sourced after
#   PREFIX=$(cd "$1" && pwd); TOP=$(cd "$(dirname "$0")/../.." && pwd)
#   PAM_TEST=<name>     (the work directory is /tmp/sssd-<name>.XXXXXX)
#   PAM_NEEDS="..."     (commands the test needs, e.g. pamtester slappasswd)
#   PAM_TLS=1           (when it needs a test CA: tests/lib/tls_certs.sh)
# It re-runs the test in a mount namespace of its own (its /etc/pam.d changes stay there),
# sources lib.sh and slapd.sh, skips (77) without slapd, the commands or the CA tools, and
# makes WORK, removed at exit with the suite and the slapd in $WORK/ldap stopped (a test
# that needs more at exit sets PAM_ON_EXIT to a command run first). OUR_MOD: our
# pam_sss.so.
if [ -z "${PAM_TEST_IN_NS:-}" ]; then
    exec unshare --mount --propagation private -- env PAM_TEST_IN_NS=1 bash "$0" "$@"
fi
. "$TOP/tests/intg/lib.sh"
. "$TOP/tests/lib/slapd.sh"
[ -n "${PAM_TLS:-}" ] && . "$TOP/tests/lib/tls_certs.sh"

OUR_MOD=$PREFIX/lib/security/pam_sss.so
[ -f "$OUR_MOD" ] || { echo "FAIL: $OUR_MOD is not installed"; exit 1; }
slapd_available || { echo "SKIP: slapd is not available"; exit 77; }
if [ -n "${PAM_TLS:-}" ]; then
    tls_certs_available || { echo "SKIP: no openssl/certtool for the test CA"; exit 77; }
fi
for _pam_tool in ${PAM_NEEDS:-}; do
    command -v "$_pam_tool" > /dev/null || { echo "SKIP: $_pam_tool is not installed"; exit 77; }
done

WORK=$(mktemp -d "/tmp/sssd-$PAM_TEST.XXXXXX")
chmod 0755 "$WORK"      # apt's _apt user writes downloads here; users read their files
PAM_ON_EXIT=
_pam_env_exit() {
    [ -n "$PAM_ON_EXIT" ] && eval "$PAM_ON_EXIT"
    stop_sssd
    slapd_stop "$WORK/ldap" 2>/dev/null
    rm -rf "$WORK"
}
trap _pam_env_exit EXIT

# sssd.conf for one LDAP domain DOM (id, auth and chpass = ldap at $URI/$SUFFIX, rfc2307,
# StartTLS with the test CA of PAM_TLS=1), debug level 9 everywhere; EXTRA_DOMAIN_LINES
# close the domain's section, EXTRA_PAM_LINES the [pam] section.
pam_ldap_conf() { # DOM EXTRA_DOMAIN_LINES [EXTRA_PAM_LINES]
    write_conf <<CONF
[sssd]
services = nss, pam
domains = $1
debug_level = 9
[nss]
debug_level = 9
[pam]
debug_level = 9
${3:-}
[domain/$1]
debug_level = 9
id_provider = ldap
auth_provider = ldap
chpass_provider = ldap
ldap_uri = $URI
ldap_search_base = $SUFFIX
ldap_schema = rfc2307
ldap_id_use_start_tls = true
ldap_tls_cacert = $WORK/tls/ca.crt
ldap_tls_reqcert = demand
$2
CONF
}

# The suite restarted on pam_ldap_conf; back once sssd_pam's sockets exist and DOM's
# back-end is on the bus.
pam_ldap_restart() { # DOM EXTRA_DOMAIN_LINES [EXTRA_PAM_LINES]
    stop_sssd
    pam_ldap_conf "$@"
    start_sssd || return 1
    for _ in $(seq 200); do
        [ -S "$PIPES/private/pam" ] && [ -S "$PIPES/pam" ] && wait_name "sssd.domain_$1" 100 \
            && return 0
        sleep 0.05
    done
    return 1
}
