#!/bin/bash
# The Kerberos figures of one system, run by bench_krb5.sh inside the system's namespace
# (tests/perf/systems/<sys>.sh run ... -- bench_krb5_scenarios.sh) with bench_krb5.sh's
# sssd.conf; every figure is sss_load JSON in $OUT:
#   krb5.login     auth + acct of one user through the system's pam_sss.so, online: a TGT
#                  from the KDC and a fresh ccache each time, one worker
#   krb5.login.w8  the same with 8 workers at once (the latency each one sees)
# Environment: OUT, LOAD_TOOL, RUN_NO, KRB5_LOGINS, KRB5_USER, KRB5_PASSWORD and what the
# runner exports (LOAD_CTL, LOAD_SYSTEM).
set -u
mkdir -p "$OUT"

L() { # LABEL WORKERS [sss_load options] WORKLOAD...: one figure, bounded in time
    local label=$1 workers=$2
    shift 2
    timeout 600 "$LOAD_TOOL" --label "$label" --run "$RUN_NO" -w "$workers" --no-header \
        --json "$OUT/$label.c$workers.r$RUN_NO.json" "$@"
}
echo "== $LOAD_SYSTEM: Kerberos figures, run $RUN_NO"
# pam-online restarts the system with an empty cache (the conf already has the pam service).
"$LOAD_CTL" pam-online || { echo "bench_krb5: \$LOAD_CTL pam-online failed" >&2; exit 1; }
# The warm-up logins take the first lookup of the user and the first KDC contact.
L krb5.login 1 --key "$KRB5_USER" --warmup 5 -n "$KRB5_LOGINS" pam sss-perf "$KRB5_PASSWORD"
L krb5.login.w8 8 --key "$KRB5_USER" --warmup 5 -n "$KRB5_LOGINS" pam sss-perf "$KRB5_PASSWORD"
exit 0
