# The sssd.conf of the AD benchmarks (bench_ad.sh, bench_ad_login.sh), sourced after
# tests/lib/samba_ad.sh: one place, so that both measure the same configuration.
# ad_bench_conf FILE writes what an administrator writes for SSSD against the DC: the AD
# providers for identity, auth and access, with GPOs off (their evaluation is not what is
# measured) and dynamic DNS updates off (no nsupdate in the DC's namespace).
ad_bench_conf() {
    cat > "$1" <<CONF
[sssd]
services = nss, pam
domains = $SAMBA_AD_DOMAIN
[nss]
[pam]
[domain/$SAMBA_AD_DOMAIN]
id_provider = ad
auth_provider = ad
access_provider = ad
ad_domain = $SAMBA_AD_DOMAIN
ad_server = $SAMBA_AD_DC
ad_hostname = $SAMBA_AD_HOST
ad_gpo_access_control = disabled
dyndns_update = false
cache_credentials = false
debug_level = 0
CONF
}
