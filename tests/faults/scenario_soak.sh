#!/bin/bash
# Fault scenario 7: soak. Mixed load for SOAK_SECS (full run 1,800 s; short 40 s) through
# the real glibc path: cold lookups (users never asked), warm ones through the responder
# and through the memory cache, negative ones (names that do not exist), a group of 2,000
# members, `id` of users in 20 groups, and every 10 s an invalidation (sss_cache -E);
# the directory server is restarted every SOAK_RESTART_SECS (full 300 s; short 15 s).
# The cold lookups cycle through 2,000 users and the negative ones through 500 names, so
# the caches reach their working size within the first third of the run.
# Must hold: no wrong answer, no lookup failing for more than RESTART_GRACE_MS around a
# restart, no crash, and each service's resident memory and open descriptors flat: at the
# end no more than 20 % + 8 MB and 8 descriptors over what it had a third into the run
# (the caches filling up before that is growth, not a leak; start figures are printed too).
# Logins and sudo are in the mix where pamtester and Debian's sudo are installed: PAM
# logins through our pam_sss.so with the right password and with a wrong one, and sudo run
# by users through our libsss_sudo.so, of the command their group's rule allows and of one
# no rule gives them. A wrong password let in or a forbidden command run counts as a wrong
# answer. The scenario runs in a mount namespace of its own for that: a copy over
# /etc/pam.d with one more service, a private nsswitch.conf (`sudoers: sss`) and an overlay
# adding our client libraries where the setuid sudo loads them.
# Prints "RESULT soak/mixed pass|fail ..." once.
# Usage: scenario_soak.sh PREFIX   (as root; FAULT_SHORT=1: the short form)
set -u
PREFIX=$(cd "$1" && pwd)
TOP=$(cd "$(dirname "$0")/../.." && pwd)
if [ -z "${FAULT_SOAK_IN_NS:-}" ]; then
    exec unshare --mount --propagation private -- env FAULT_SOAK_IN_NS=1 bash "$0" "$@"
fi
SCENARIO=soak
. "$TOP/tests/faults/scenario_env.sh"

DOM=soak.test
S=dc=soak,dc=test
NUSERS=20000
if [ -n "${FAULT_SHORT:-}" ]; then SOAK_SECS=40; SOAK_RESTART_SECS=15
else SOAK_SECS=${SOAK_SECS:-1800}; SOAK_RESTART_SECS=${SOAK_RESTART_SECS:-300}; fi
PIDS=
MULTIARCH=/usr/lib/x86_64-linux-gnu
# Logins and sudo join the mix where their real programs are here.
LOGINS=1 SUDO=1
command -v pamtester > /dev/null && command -v slappasswd > /dev/null \
    && [ -f "$PREFIX/lib/security/pam_sss.so" ] || LOGINS=0
command -v sudo > /dev/null && [ -f /usr/libexec/sudo/sudoers.so ] && [ -d "$MULTIARCH" ] \
    && [ -f "$PREFIX/lib/libsss_sudo.so" ] || SUDO=0
[ $LOGINS = 1 ] || echo "  logins are not in the mix: pamtester, slappasswd or pam_sss.so missing"
[ $SUDO = 1 ] || echo "  sudo is not in the mix: sudo with SSSD support or libsss_sudo.so missing"
fault_on_exit '[ -n "$PIDS" ] && kill $PIDS 2>/dev/null; wait 2>/dev/null'

{
    ldif_base $S
    for i in $(seq 1 $NUSERS); do
        ldif_user $S "$(printf 'su%05d' "$i")" $((50000 + i)) 60000 "/home/su$i"
    done
    ldif_group $S soakbig 60001 $(for i in $(seq 1 2000); do printf 'su%05d ' "$i"; done)
    for g in $(seq 2 21); do
        ldif_group $S "soakg$g" $((60000 + g)) $(for i in $(seq 1 50); do printf 'su%05d ' "$i"; done)
    done
    # The login users: su00001-su00020 again, with a password (their own entries differ
    # from the bulk ones only by it, so they replace them below).
    if [ $LOGINS = 1 ]; then
        hash=$(slappasswd -s 'Soak-Pass1')
        for i in $(seq 1 20); do
            ldif_user $S "$(printf 'su%05d' "$i")" $((50000 + i)) 60000 "/home/su$i" |
                sed "/^homeDirectory/a userPassword: $hash"
        done > "$WORK/pwusers.ldif"
    fi
    if [ $SUDO = 1 ]; then
        printf 'dn: ou=SUDOers,%s\nobjectClass: organizationalUnit\nou: SUDOers\n\n' "$S"
        printf 'dn: cn=soakg2_true,ou=SUDOers,%s\nobjectClass: top\nobjectClass: sudoRole\n' "$S"
        printf 'cn: soakg2_true\nsudoUser: %%soakg2\nsudoHost: ALL\nsudoCommand: /bin/true\n'
        printf 'sudoRunAsUser: root\nsudoOption: !authenticate\n\n'
    fi
} > "$WORK/data.ldif"
if [ $LOGINS = 1 ]; then
    # The bulk entries of the login users give way to the ones with a password.
    awk -v RS= -v ORS='\n\n' '!/^dn: uid=su000(0[1-9]|1[0-9]|20),/' "$WORK/data.ldif" > "$WORK/d.tmp"
    cat "$WORK/d.tmp" "$WORK/pwusers.ldif" > "$WORK/data.ldif"
fi
mkdir -p "$WORK/ldap"
URI=$( [ $SUDO = 1 ] && export SLAPD_EXTRA_SCHEMA=$TOP/tests/lib/sudo.schema
       slapd_start "$WORK/ldap" "$WORK/data.ldif" $S) || exit 1
services=nss
[ $LOGINS = 1 ] && services="$services, pam"
[ $SUDO = 1 ] && services="$services, sudo"

write_conf <<CONF
[sssd]
services = $services
domains = $DOM

[nss]
memcache_timeout = 30

[domain/$DOM]
id_provider = ldap
ldap_uri = $URI
ldap_search_base = $S
ldap_network_timeout = 3
entry_cache_timeout = 20
# A restart refuses connections for a moment and the domain goes offline: with SSSD's
# default (60 s) every cold lookup until the next try fails; the soak is about what
# survives the cycles, so it tries again after 2 s.
offline_timeout = 2
auth_provider = ldap
ldap_auth_disable_tls_never_use_in_production = true
cache_credentials = true
ldap_sudo_search_base = ou=SUDOers,$S
CONF
if [ $LOGINS = 1 ]; then
    # The host's services stay (sudo opens its own PAM session), soakpam is added.
    cp -a /etc/pam.d "$WORK/pam.d"
    mount --bind "$WORK/pam.d" /etc/pam.d || { echo "RESULT soak/mixed fail (no private /etc/pam.d)"; exit 1; }
    printf 'auth required %s\naccount required %s\n' "$PREFIX/lib/security/pam_sss.so" \
        "$PREFIX/lib/security/pam_sss.so" > /etc/pam.d/soakpam
fi
if [ $SUDO = 1 ]; then
    mkdir -p "$WORK/libs"
    cp "$PREFIX/lib/libsss_sudo.so" "$PREFIX/lib/libnss_sss.so.2" "$WORK/libs/"
    printf 'passwd: files sss\ngroup: files sss\nshadow: files\nhosts: files\nsudoers: sss\n' \
        > "$WORK/nsswitch.conf"
    mount -t overlay overlay -o "lowerdir=$WORK/libs:$MULTIARCH" "$MULTIARCH" \
        && mount --bind "$WORK/nsswitch.conf" /etc/nsswitch.conf \
        || { echo "RESULT soak/mixed fail (no private library directory or nsswitch.conf)"; exit 1; }
fi
start_sssd && wait_name "sssd.domain_soak_2etest" 10000 || { echo "RESULT soak/mixed fail (sssd did not start)"; exit 1; }

want() { local n; n=$(printf 'su%05d' "$1"); echo "$n:*:$((50000 + $1)):60000:$n:/home/su$1:"; }
# One lookup: "END_MS ok|fail|wrong KIND".
one() { # KIND I [env...]
    local kind=$1 i=$2 out r
    shift 2
    out=$( [ $# -gt 0 ] && export "$@"; in_nss_ns timeout 30 getent passwd "$(printf 'su%05d' "$i")" 2>/dev/null)
    if [ -z "$out" ]; then r=fail
    elif [ "$out" = "$(want "$i")" ]; then r=ok
    else r=wrong; echo "$out" >> "$WORK/wrong.txt"; fi
    echo "$(now_ms) $r $kind"
}
for i in $(seq 1 100); do one warm "$i" > /dev/null; done
in_nss_ns getent group soakbig > /dev/null

# Resident memory (KB) and open descriptors of the monitor, the back-end and sssd_nss.
usage() {
    local p n
    for n in monitor be nss $([ $LOGINS = 1 ] && echo pam) $([ $SUDO = 1 ] && echo sudo); do
        case $n in monitor) p=$(monitor_pid) ;; be) p=$(be_pid $DOM) ;; nss) p=$(service_pid sssd_nss) ;;
                   pam) p=$(service_pid sssd_pam) ;; sudo) p=$(service_pid sssd_sudo) ;; esac
        printf '%s %s %s\n' "$n" "$(awk '/^VmRSS/ { print $2 }' "/proc/$p/status" 2>/dev/null || echo 0)" \
            "$(ls "/proc/$p/fd" 2>/dev/null | wc -l)"
    done
}
usage > "$WORK/usage.start"
mark=$(fault_crash_mark)
end=$(( $(now_ms) + SOAK_SECS * 1000 ))

stream() { # KIND: until the end, one lookup after the other
    local kind=$1 i=100 r
    while [ "$(now_ms)" -lt "$end" ]; do
        case $kind in
            cold) i=$((i + 1)); [ $i -gt 2100 ] && i=101; one cold $i ;;
            warm) one warm $(( RANDOM % 100 + 1 )) SSS_NSS_USE_MEMCACHE=NO ;;
            mc) one mc $(( RANDOM % 100 + 1 )) ;;
            neg) r=$(in_nss_ns timeout 30 getent passwd "nosuch$((RANDOM % 500))"); echo "$(now_ms) $([ -z "$r" ] && echo ok || echo wrong) neg" ;;
            group) r=$(in_nss_ns timeout 60 getent group soakbig | cut -d: -f4 | tr ',' '\n' | grep -c .)
                   echo "$(now_ms) $([ "$r" = 2000 ] && echo ok || { [ "$r" = 0 ] && echo fail || echo wrong; }) group" ;;
            id) r=$(in_nss_ns timeout 60 id -G su00007 | wc -w)
                echo "$(now_ms) $([ "$r" = 22 ] && echo ok || { [ "$r" -le 1 ] && echo fail || echo wrong; }) id" ;;
            login) printf 'Soak-Pass1\n' | timeout 60 pamtester soakpam "$(printf 'su%05d' $(( RANDOM % 20 + 1 )))" \
                       authenticate acct_mgmt > /dev/null 2>&1 && r=ok || r=fail
                   echo "$(now_ms) $r login" ;;
            badlogin) printf 'Wrong-Pass2\n' | timeout 60 pamtester soakpam "$(printf 'su%05d' $(( RANDOM % 20 + 1 )))" \
                          authenticate acct_mgmt > /dev/null 2>&1 && r=wrong || r=ok
                      [ $r = wrong ] && echo "a wrong password was let in" >> "$WORK/wrong.txt"
                      echo "$(now_ms) $r badlogin" ;;
            sudo) i=$(( RANDOM % 50 + 1 ))
                  timeout 60 setpriv --reuid=$((50000 + i)) --regid=60000 --init-groups sudo -n /bin/true \
                      > /dev/null 2>&1 && r=ok || r=fail
                  echo "$(now_ms) $r sudo" ;;
            badsudo) i=$(( RANDOM % 50 + 1 ))
                     timeout 60 setpriv --reuid=$((50000 + i)) --regid=60000 --init-groups sudo -n /usr/bin/id \
                         > /dev/null 2>&1 && r=wrong || r=ok
                     [ $r = wrong ] && echo "a command no rule allows ran as root" >> "$WORK/wrong.txt"
                     echo "$(now_ms) $r badsudo" ;;
        esac
    done > "$WORK/s.$kind"
}
kinds="cold warm mc neg group id"
[ $LOGINS = 1 ] && kinds="$kinds login badlogin"
[ $SUDO = 1 ] && kinds="$kinds sudo badsudo"
for k in $kinds; do stream $k & PIDS="$PIDS $!"; done
restarts=0; invalidations=0; restart_at=()
next_restart=$(( $(now_ms) + SOAK_RESTART_SECS * 1000 )); next_inval=$(( $(now_ms) + 10000 ))
mid=$(( $(now_ms) + SOAK_SECS * 1000 / 3 ))
while [ "$(now_ms)" -lt "$end" ]; do
    if [ ! -s "$WORK/usage.mid" ] && [ "$(now_ms)" -ge "$mid" ]; then
        usage > "$WORK/usage.mid"
    fi
    if [ "$(now_ms)" -ge "$next_restart" ]; then
        restart_at+=("$(now_ms)")
        fault_slapd_restart "$WORK/ldap" && restarts=$((restarts + 1))
        next_restart=$(( $(now_ms) + SOAK_RESTART_SECS * 1000 ))
    fi
    if [ "$(now_ms)" -ge "$next_inval" ]; then
        "$SBIN/sss_cache" -E && invalidations=$((invalidations + 1))
        next_inval=$(( $(now_ms) + 10000 ))
    fi
    sleep 0.5
done
wait $PIDS 2>/dev/null
PIDS=
sleep 2
usage > "$WORK/usage.end"

# Failures count only outside a grace window after each restart (ldap_network_timeout and
# a reconnect); wrong answers count everywhere.
RESTART_GRACE_MS=8000
total=$(cat "$WORK"/s.* | wc -l)
wrong=$(cat "$WORK"/s.* | awk '$2 == "wrong"' | wc -l)
fails_outside=$(cat "$WORK"/s.* | awk -v r="${restart_at[*]:-}" -v g=$RESTART_GRACE_MS '
    BEGIN { n = split(r, at, " ") }
    $2 == "fail" { inside = 0; for (k = 1; k <= n; k++) if ($1 >= at[k] && $1 <= at[k] + g) inside = 1
                   if (!inside) c++ }
    END { print c + 0 }')
crashes=$(fault_crashes_since "$mark")
[ -s "$WORK/usage.mid" ] || cp "$WORK/usage.start" "$WORK/usage.mid"
growth=$(paste "$WORK/usage.start" "$WORK/usage.mid" "$WORK/usage.end" | awk '{
    rss0 = $2; rssm = $5; fdm = $6; rss1 = $8; fd1 = $9
    bad = (rss1 > rssm * 1.2 + 8192 || fd1 > fdm + 8)
    printf "%s_rss_kb=%d->%d->%d %s_fds=%d->%d%s ", $1, rss0, rssm, rss1, $1, fdm, fd1,
           bad ? "(GREW)" : "" }')
ok=1
[ "$wrong" = 0 ] && [ "$fails_outside" = 0 ] && [ "$crashes" = 0 ] && [ "$total" -gt 0 ] || ok=0
case $growth in *GREW*) ok=0 ;; esac
[ -s "$WORK/wrong.txt" ] && head -3 "$WORK/wrong.txt" | sed 's/^/  wrong answer: /'
echo "RESULT soak/mixed $([ $ok = 1 ] && echo pass || echo fail) wrong=$wrong crashes=$crashes" \
     "seconds=$SOAK_SECS lookups=$total failed_outside_restarts=$fails_outside" \
     "slapd_restarts=$restarts invalidations=$invalidations" \
     "logins=$(cat "$WORK"/s.login "$WORK"/s.badlogin 2>/dev/null | wc -l)" \
     "sudo_runs=$(cat "$WORK"/s.sudo "$WORK"/s.badsudo 2>/dev/null | wc -l) $growth"
[ $ok = 1 ] || exit 1
exit 0
