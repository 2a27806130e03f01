#!/bin/bash
# Benchmark (issue 14): the whole command `sudo -n /bin/true` run by a user who has RULES
# sudo rules (default 100, one of them /bin/true), warm, with `sudoers: sss` against our
# star, against `sudoers: files` holding the same rules, and, when tests/perf/systems/
# stock_sssd.sh can run here, against Debian's stock SSSD 2.8 (sssd_sudo and libsss_sudo).
# Each run is `setpriv --reuid=alice ... sudo -n /bin/true` in a private mount namespace
# (sudoers source and client libraries as in tests/intg/test_sudo_real.sh); times come from
# bash's EPOCHREALTIME around each run (no fork for timing). Rounds alternate between the
# systems so that drift hits them alike. Prints median and mean per command and the ratio
# to files. Never fails on timing.
#
# Usage: bench_sudo.sh PREFIX [RUNS_PER_ROUND=100] [ROUNDS=3] [RULES=100]   (root)
set -u
PREFIX=$(cd "$1" && pwd)
RUNS=${2:-100}
ROUNDS=${3:-3}
RULES=${4:-100}
TOP=$(cd "$(dirname "$0")/../.." && pwd)
. "$TOP/tests/intg/lib.sh"
. "$TOP/tests/lib/slapd.sh"
. "$TOP/tests/lib/ldif.sh"

SUFFIX=dc=sudo,dc=test
MULTIARCH=/usr/lib/x86_64-linux-gnu
command -v sudo > /dev/null || { echo "bench_sudo: sudo is not installed"; exit 77; }
slapd_available || { echo "bench_sudo: slapd is not available"; exit 77; }

WORK=$(mktemp -d /tmp/sssd-bsudo.XXXXXX)
chmod 0755 "$WORK"
cleanup() {
    stop_sssd
    slapd_stop "$WORK/ldap" 2> /dev/null
    rm -rf "$WORK"
}
trap cleanup EXIT

# ---- the same rules in LDAP and in a sudoers file -------------------------------------------
{
    ldif_base "$SUFFIX"
    ldif_user "$SUFFIX" alice 10001 10001 /home/alice
    ldif_group "$SUFFIX" alice 10001
    printf 'dn: ou=SUDOers,%s\nobjectClass: organizationalUnit\nou: SUDOers\n\n' "$SUFFIX"
    for i in $(seq 1 "$RULES"); do
        cmd=/usr/local/bin/cmd$i
        [ "$i" = "$RULES" ] && cmd=/bin/true
        printf 'dn: cn=r%s,ou=SUDOers,%s\nobjectClass: top\nobjectClass: sudoRole\ncn: r%s\n' \
            "$i" "$SUFFIX" "$i"
        printf 'sudoUser: alice\nsudoHost: ALL\nsudoCommand: %s\nsudoRunAsUser: root\n' "$cmd"
        printf 'sudoOption: !authenticate\nsudoOrder: %s\n\n' "$i"
    done
} > "$WORK/sudo.ldif"
{
    echo "Defaults !lecture"
    for i in $(seq 1 "$RULES"); do
        cmd=/usr/local/bin/cmd$i
        [ "$i" = "$RULES" ] && cmd=/bin/true
        echo "alice ALL=(root) NOPASSWD: $cmd"
    done
} > "$WORK/sudoers"
chmod 0440 "$WORK/sudoers"
mkdir -p "$WORK/ldap"
URI=$(SLAPD_EXTRA_SCHEMA=$TOP/tests/lib/sudo.schema slapd_start "$WORK/ldap" "$WORK/sudo.ldif" \
      "$SUFFIX") || exit 1

# The loop every system runs: RUNS commands, one elapsed time in microseconds per line.
cat > "$WORK/loop.sh" <<'EOF'
runs=$1 out=$2
: > "$out"
for _ in $(seq "$runs"); do
    t0=$EPOCHREALTIME
    setpriv --reuid=10001 --regid=10001 --init-groups sudo -n /bin/true || exit 1
    t1=$EPOCHREALTIME
    echo $(( (${t1/./} - ${t0/./}) )) >> "$out"
done
EOF

# ---- ours and files --------------------------------------------------------------------------
. "$TOP/tests/lib/sudo_conf.sh"
sudo_conf "nss, sudo" "" ""
start_sssd || { echo "bench_sudo: sssd did not start"; exit 1; }
wait_name sssd.sudo 10000 || { echo "bench_sudo: no sssd_sudo"; exit 1; }

mkdir -p "$WORK/libs"
cp "$PREFIX/lib/libsss_sudo.so" "$PREFIX/lib/libnss_sss.so.2" "$WORK/libs/"
for src in sss files; do
    printf 'passwd: files sss\ngroup: files sss\nshadow: files\nhosts: files\nsudoers: %s\n' \
        "$src" > "$WORK/nsswitch.$src"
done

# run_ns SOURCE RUNS OUT: the loop with that sudoers source (our libraries in the overlay).
run_ns() {
    unshare --mount --propagation private -- bash -c '
        work=$1 src=$2 multiarch=$3
        mount -t overlay overlay -o "lowerdir=$work/libs:$multiarch" "$multiarch" || exit 125
        mount --bind "$work/nsswitch.$src" /etc/nsswitch.conf || exit 125
        mount --bind "$work/sudoers" /etc/sudoers || exit 125
        bash "$work/loop.sh" "$4" "$5"
    ' bench-ns "$WORK" "$1" "$MULTIARCH" "$2" "$3"
}

# ---- stock SSSD 2.8, through its runner -------------------------------------------------------
RUNNER=$TOP/tests/perf/systems/stock_sssd.sh
stock=no
if why=$(bash "$RUNNER" available 2>&1) && bash "$RUNNER" prepare "$WORK/stock" \
        > "$WORK/stock_prepare.log" 2>&1 \
        && (mkdir -p "$WORK/sdeb" && chmod 0755 "$WORK/sdeb" && cd "$WORK/sdeb" \
            && apt-get download -q libsss-sudo) > "$WORK/stock_sudo.log" 2>&1 \
        && dpkg -x "$WORK"/sdeb/libsss-sudo_*.deb "$WORK/sdeb/root"; then
    stock=yes
    mkdir -p "$WORK/stocklibs"
    cp "$(find "$WORK/sdeb/root" -name libsss_sudo.so | head -n1)" "$WORK/stocklibs/"
    # Inside the runner's namespace: sudo added to SSSD's services, SSSD restarted, its
    # libsss_sudo where sudo loads it, then the loop.
    cat > "$WORK/stock_inner.sh" <<EOF
set -u
sed -i 's/^services = nss.*/services = nss, sudo/' /etc/sssd/sssd.conf
printf '[sudo]\n' >> /etc/sssd/sssd.conf
sed -i 's/^\[domain\/perf\]/[domain\/perf]\nldap_sudo_search_base = ou=SUDOers,$SUFFIX/' /etc/sssd/sssd.conf
"\$LOAD_CTL" stop > /dev/null 2>&1; "\$LOAD_CTL" wipe > /dev/null 2>&1
"\$LOAD_CTL" start > /dev/null 2>&1 || exit 1
mount -t overlay overlay -o "lowerdir=$WORK/stocklibs:$MULTIARCH" "$MULTIARCH" || exit 1
mount --bind "$WORK/nsswitch.sss" /etc/nsswitch.conf || exit 1
# Wait for the first full refresh, then warm up.
for _ in \$(seq 100); do
    setpriv --reuid=10001 --regid=10001 --init-groups sudo -n /bin/true 2>/dev/null && break
    sleep 0.2
done
for r in \$(seq $ROUNDS); do
    bash "$WORK/loop.sh" $RUNS "$WORK/t_stock_\$r" || exit 1
done
EOF
else
    echo "note: stock SSSD cannot run here (${why:-download failed}): no stock column"
fi

# Warm-up: the first full refresh, the user cached, sudo's libraries in the page cache.
for _ in $(seq 100); do
    run_ns sss 1 "$WORK/warm" 2> /dev/null && break
    sleep 0.2
done
run_ns sss 5 "$WORK/warm" && run_ns files 5 "$WORK/warm" \
    || { echo "bench_sudo: sudo -n /bin/true fails"; exit 1; }

for r in $(seq "$ROUNDS"); do
    run_ns sss "$RUNS" "$WORK/t_sss_$r" || { echo "bench_sudo: sss round failed"; exit 1; }
    run_ns files "$RUNS" "$WORK/t_files_$r" || { echo "bench_sudo: files round failed"; exit 1; }
done
if [ "$stock" = yes ]; then
    stop_sssd
    bash "$RUNNER" run "$WORK/stock" "$URI" "$SUFFIX" rfc2307 -- bash "$WORK/stock_inner.sh" \
        > "$WORK/stock_run.log" 2>&1 || { echo "note: the stock run failed:"; tail -5 "$WORK/stock_run.log"; stock=no; }
fi

stats() { # FILES... -> "median mean" in ms
    cat "$@" | sort -n | awk '{ v[NR] = $1; s += $1 } END {
        printf "%.2f %.2f", v[int((NR + 1) / 2)] / 1000, s / NR / 1000 }'
}
read -r f_med f_mean <<< "$(stats "$WORK"/t_files_*)"
read -r s_med s_mean <<< "$(stats "$WORK"/t_sss_*)"
echo "sudo -n /bin/true, $RULES rules, warm, $((RUNS * ROUNDS)) runs each (ms per command):"
printf '  %-28s median %7s  mean %7s\n' "sudoers: files" "$f_med" "$f_mean"
printf '  %-28s median %7s  mean %7s  ratio to files (median) %s\n' "sudoers: sss (ours)" \
    "$s_med" "$s_mean" "$(awk -v a="$s_med" -v b="$f_med" 'BEGIN { printf "%.3f", a / b }')"
if [ "$stock" = yes ] && ls "$WORK"/t_stock_* > /dev/null 2>&1; then
    read -r k_med k_mean <<< "$(stats "$WORK"/t_stock_*)"
    printf '  %-28s median %7s  mean %7s  ratio to files (median) %s\n' "sudoers: sss (SSSD 2.8)" \
        "$k_med" "$k_mean" "$(awk -v a="$k_med" -v b="$f_med" 'BEGIN { printf "%.3f", a / b }')"
fi
