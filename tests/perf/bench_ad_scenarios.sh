#!/bin/bash
# The Active Directory figures of one system, run by bench_ad.sh inside the system's
# namespace (tests/perf/systems/<sys>.sh run ... -- bench_ad_scenarios.sh), which is itself
# inside the Samba AD DC's network namespace. The system runs with bench_ad.sh's sssd.conf
# (id_provider = ad, the pam service); every figure is sss_load JSON in $OUT:
#   ad.getpwnam.cold   getpwnam of AD_COLD_N never-seen users, one after the other
#   ad.id50.cold       `id` of AD_ID_N never-seen users, each in 50 groups no other user is in
#   ad.login           auth + acct of one user through the system's pam_sss.so, online
#   ad.id5k.cold       `id` of the user in AD_MANY groups (when AD_MANY > 0; first run only)
# Environment: OUT, LOAD_TOOL, RUN_NO, AD_COLD_N, AD_ID_N, AD_LOGINS, AD_MANY, AD_PASSWORD
# and what the runner exports (LOAD_NSS_MODULE, LOAD_CTL, LOAD_SYSTEM).
set -u
mkdir -p "$OUT"

L() { # LABEL [sss_load options] WORKLOAD...: one figure, bounded in time
    local label=$1
    shift
    timeout 600 "$LOAD_TOOL" --label "$label" --run "$RUN_NO" -w 1 --no-header \
        --json "$OUT/$label.c1.r$RUN_NO.json" "$@"
}
ctl() { "$LOAD_CTL" "$1" || { echo "bench_ad: \$LOAD_CTL $1 failed" >&2; exit 1; }; }
# The first lookup after a start waits for the DC connection and its GSSAPI bind.
prime() { "$LOAD_TOOL" --quiet -n 1 --key adprime nss "$LOAD_NSS_MODULE" getpwnam; }
# `id USER` that fails unless it lists at least N groups (as perf_suite.sh's ID_CHECK): a
# daemon that gives up part way must not pass for fast.
ID_CHECK='out=$(id "$0") || exit 1; n=$1; IFS=,; set -- $out; [ "$#" -ge "$n" ]'

echo "== $LOAD_SYSTEM: AD figures, run $RUN_NO"
# pam-online restarts the system with an empty cache (the conf already has the pam service).
ctl pam-online
prime
L ad.getpwnam.cold --pattern adu%04d --range 0:"$AD_COLD_N" --order seq -n "$AD_COLD_N" \
    nss "$LOAD_NSS_MODULE" getpwnam
L ad.id50.cold --pattern adid%02d --range 0:"$AD_ID_N" --order seq -n "$AD_ID_N" \
    cmd sh -c "$ID_CHECK" '{}' 50
L ad.login --key adlogin --warmup 1 -n "$AD_LOGINS" pam sss-perf "$AD_PASSWORD"
# The big user once (the first run): a system that needs minutes for it (or gives up) must
# not hold the whole benchmark for three runs.
if [ "$AD_MANY" -gt 0 ] && [ "$RUN_NO" = 1 ]; then
    ctl flush
    prime
    L ad.id5k.cold --key u5k -n 1 cmd sh -c "$ID_CHECK" '{}' "$AD_MANY"
fi
exit 0
