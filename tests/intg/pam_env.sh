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
