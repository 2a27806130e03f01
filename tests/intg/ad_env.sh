# What the AD integration tests share, sourced after
#   PREFIX=$(cd "$1" && pwd); TOP=$(cd "$(dirname "$0")/../.." && pwd)
#   AD_TEST=<name>   (the work directory is /tmp/<name>.XXXXXX)
#   AD_NEEDS="..."   (commands the test needs beyond the DC's packages, e.g. pamtester)
# It skips (77) without Samba's AD DC packages or those commands, re-runs the test inside
# the DC's network, mount and UTS namespaces (tests/lib/samba_ad.sh), sources lib.sh and
# nss_ns.sh, makes WORK (kept with KEEP_WORK=1), stops the suite and the DC at exit, and
# starts the DC (its files under $WORK/dc). OUR_MOD: our pam_sss.so.
. "$TOP/tests/lib/samba_ad.sh"
reason=$(samba_ad_skip_reason)
[ -z "$reason" ] || { echo "SKIP: $reason"; exit 77; }
for _ad_tool in ${AD_NEEDS:-}; do
    command -v "$_ad_tool" > /dev/null || { echo "SKIP: $_ad_tool is not installed"; exit 77; }
done
samba_ad_enter "$0" "$@"
. "$TOP/tests/intg/lib.sh"
. "$TOP/tests/intg/nss_ns.sh"
OUR_MOD=$PREFIX/lib/security/pam_sss.so

WORK=$(mktemp -d "/tmp/$AD_TEST.XXXXXX")
chmod 0755 "$WORK"
_ad_env_exit() {
    stop_sssd
    samba_ad_stop
    [ -n "${KEEP_WORK:-}" ] || rm -rf "$WORK"
}
trap _ad_env_exit EXIT

# ad_write_conf [-d] SERVICES [DEBUG] < DOMAIN_LINES: the sssd.conf of an AD test, through
# write_conf: [sssd] with domains = ad.test and services = SERVICES ("nss" or "nss, pam"),
# a section per service, and [domain/ad.test] with id_provider = ad, ad_server = the DC
# (-d: none, the DC is discovered through DNS), debug_level = DEBUG (0x3ff0; also the
# services'), then the test's own options from stdin.
ad_write_conf() {
    local server="ad_server = $SAMBA_AD_DC" svc
    if [ "$1" = -d ]; then
        server=
        shift
    fi
    local services=$1 debug=${2:-0x3ff0} text
    text=$(printf '[sssd]\ndomains = ad.test\nservices = %s\n' "$services"
        for svc in ${services//,/ }; do
            printf '[%s]\ndebug_level = %s\n' "$svc" "$debug"
        done
        printf '[domain/ad.test]\nid_provider = ad\n'
        [ -z "$server" ] || printf '%s\n' "$server"
        printf 'debug_level = %s\n' "$debug"
        cat)
    # write_conf in this shell: it stops the suite, whose state lives here.
    write_conf <<< "$text"
}

# After start_sssd: waits (10 s at most) until sssd_pam's socket exists and the ad.test
# back-end is on the bus.
ad_wait_pam() {
    for _ in $(seq 200); do
        [ -S "$PIPES/pam" ] && wait_name sssd.domain_ad_2etest 100 && return 0
        sleep 0.05
    done
    return 1
}

samba_ad_start "$WORK/dc" || { echo "FAIL: the Samba AD DC did not start"; exit 1; }
