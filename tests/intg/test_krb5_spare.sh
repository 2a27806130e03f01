#!/bin/bash
# krb5_child started off the event loop, and ahead of time (krb5_child_pool.c), against a
# real MIT KDC (tests/intg/krb5_env.sh) through pamtester and our pam_sss.so.
#
# Scenarios: before any login one spare krb5_child waits, sssd_be's child, holding no
# socket and no request, with libkrb5's pre-authentication plugins already loaded; a login
# takes it (it answers and exits) and a new spare replaces it; the ccache is still the
# user's; a spare killed from outside costs nothing (the next login still gets its TGT);
# a spare older than an edit of krb5.conf is dropped, not used; sssd_be's event-loop
# thread itself never forks during logins (strace of that thread alone), which is what
# kept lookups waiting while 20 logins started.
#
# Usage: test_krb5_spare.sh PREFIX   (root; 77 without slapd, pamtester, strace or the KDC)
set -u
PREFIX=$(cd "$1" && pwd)
TOP=$(cd "$(dirname "$0")/../.." && pwd)
if [ -z "${KRB5T_IN_NS:-}" ]; then
    exec unshare --mount --propagation private -- env KRB5T_IN_NS=1 bash "$0" "$@"
fi
. "$(dirname "$0")/krb5_env.sh"
command -v strace > /dev/null || { echo "SKIP: strace is not installed"; exit 77; }

children() { pgrep -f "^$PREFIX/libexec/sssd/krb5_child" | tr '\n' ' '; }
# The spare: sssd_be's child, as root, no socket (no KDC talked to), stdin a pipe.
is_spare() { # PID BE_PID
    [ "$(ps -o ppid= -p "$1" | tr -d ' ')" = "$2" ] \
        && [ "$(stat -c %u "/proc/$1")" = 0 ] \
        && ! ls -l "/proc/$1/fd" 2>/dev/null | grep -q 'socket:' \
        && ls -l "/proc/$1/fd/0" 2>/dev/null | grep -q 'pipe:'
}
wait_spare() { # BE_PID [NOT_PID]: prints the spare's pid once there is one
    local p _
    for _ in $(seq 100); do
        for p in $(children); do
            [ "$p" != "${2:-}" ] && is_spare "$p" "$1" && { echo "$p"; return 0; }
        done
        sleep 0.05
    done
    return 1
}

restart "" || { fail "sssd did not start"; tail -n 30 "$LOGS"/*.log; summary; exit; }
BE=$(be_pid krbtest)
S0=$(wait_spare "$BE")
check "before any login, a spare krb5_child waits (${S0:-none}: sssd_be's, root, no socket)" \
    test -n "$S0"
check "  ... one, not more" test "$(children | wc -w)" = 1
check "  ... it holds no request (its log has none)" \
    test -z "$(grep -s "^.*\[$S0\].*command" "$LOGS/krb5_child.log")"
# What the first AS-REQ would load (the pre-authentication plugins, libcrypto with SPAKE's)
# is loaded while it waits, not during a login.
SPAKE=$(ls /usr/lib/*/krb5/plugins/preauth/spake.so /usr/lib*/krb5/plugins/preauth/spake.so \
    2>/dev/null | head -n1)
if [ -n "$SPAKE" ]; then
    for _ in $(seq 40); do grep -q spake.so "/proc/$S0/maps" 2>/dev/null && break; sleep 0.05; done
    check "  ... with libkrb5's pre-authentication plugins loaded already (spake.so)" \
        grep -q spake.so "/proc/$S0/maps"
else
    echo "SKIP: no spake.so preauth plugin here: the warm-up check is not made"
fi

if login 0 Alice-Krb1 alice authenticate acct_mgmt; then ok "alice logs in"
else fail "alice's login (rc $LAST_RC)"; echo "$LAST_OUT" | sed 's/^/        /'; fi
for _ in $(seq 100); do kill -0 "${S0:-0}" 2>/dev/null || break; sleep 0.02; done
check "  ... the spare did the login and is gone" eval 'test -n "$S0" && ! kill -0 "$S0" 2>/dev/null'
S1=$(wait_spare "$BE" "$S0")
check "  ... a new spare replaces it (${S1:-none})" test -n "$S1"
CC=$(ls -d "$WORK"/cc/alice/krb5cc_10001_* 2>/dev/null | head -n1)
check "  ... her ccache is hers, 0600 (${CC##*/})" \
    test "$(stat -c '%u:%g %a' "$CC" 2>/dev/null)" = "10001:10001 600"
check "  ... with a krbtgt" grep -q "krbtgt/$REALM@$REALM" <<< "$(klist_of "FILE:$CC")"

kill -KILL "$S1"
sleep 0.2
rm -f "$WORK"/cc/alice/krb5cc_10001_*
if login 0 Alice-Krb1 alice authenticate; then ok "a spare killed from outside: the next login works"
else fail "login after the spare was killed (rc $LAST_RC)"; echo "$LAST_OUT" | sed 's/^/        /'; fi
check "  ... and got a ccache" test -n "$(ls "$WORK"/cc/alice/ 2>/dev/null)"
S2=$(wait_spare "$BE" "$S1")
check "  ... a spare again (${S2:-none})" test -n "$S2"
login 1 Alice-Bad2 alice authenticate
check "a wrong password is still refused" test "$LAST_RC" = 1

# libkrb5 keeps what it read at its start (the default realm for one): a spare older than
# an edit of krb5.conf is dropped, not used.
S3=$(wait_spare "$BE" "$S2")
sleep 0.1
touch /etc/krb5.conf
if login 0 Alice-Krb1 alice authenticate; then ok "krb5.conf edited after the spare started: login works"
else fail "login after krb5.conf was edited (rc $LAST_RC)"; fi
# Dropped: killed, then reaped by sssd_be's 20 ms reaper (a zombie meanwhile).
for _ in $(seq 100); do kill -0 "${S3:-0}" 2>/dev/null || break; sleep 0.02; done
check "  ... not by that spare (${S3:-none}): it was dropped" \
    eval 'test -n "$S3" && ! kill -0 "$S3" 2>/dev/null && ! grep -q "\[$S3\].*command" "$LOGS/krb5_child.log"'

# The loop thread (tid = pid) must never fork: fork() there copies the page tables of all
# of sssd_be on the loop, for every login. strace -p without -f traces that thread alone
# (and does not follow a vfork'ed child, which can wedge a tracer).
strace -qq -e trace=clone,clone3,fork,vfork -o "$WORK/clone.trace" -p "$BE" &
ST=$!
sleep 1
for i in 1 2 3; do login 0 Alice-Krb1 alice authenticate || fail "login $i under strace"; done
kill -TERM "$ST"
wait "$ST" 2> /dev/null
check "three logins while the loop thread is traced" test "$(ls "$WORK"/cc/alice | wc -l)" -ge 4
loop=$(grep -cE '^(clone|clone3|fork|vfork)\(' "$WORK/clone.trace")
check "  ... it started none of their children itself (fork/clone calls: $loop)" test "$loop" = 0
[ "$loop" = 0 ] || head -n 5 "$WORK/clone.trace" | sed 's/^/        /'

leaked=0
for f in "$LOGS"/*.log; do
    grep -q -e Alice-Krb1 -e Alice-Bad2 "$f" && { fail "a password in ${f##*/}"; leaked=1; }
done
[ "$leaked" = 0 ] && ok "no password appears in any log"
summary
