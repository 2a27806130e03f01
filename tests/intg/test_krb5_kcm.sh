#!/bin/bash
# krb5_ccname_template = KCM: against a real KCM daemon: Heimdal's kcm (Debian package
# heimdal-kcm), which MIT's libkrb5 speaks to over its unix socket. Heimdal 7.8's kcm
# listens at the fixed /var/run/.heim_org.h5l.kcm-socket whatever --socket-path says (and
# MIT's kcm_socket defaults to that path), so the test puts a private tmpfs over /run in
# its mount namespace and starts kcm there: the socket, and the caches, are this test's.
#
# Scenarios: alice logs in through pamtester with our pam_sss.so (auth_provider = krb5,
# the KDC of tests/lib/krb5kdc.sh); klist as alice shows her krbtgt in her default KCM
# cache; bob sees no ticket of hers, neither in his default cache nor by her cache's name;
# a wrong password writes nothing; bob's own login lands in his cache, not hers;
# kdestroy -c KCM: as alice empties hers.
# Usage: test_krb5_kcm.sh PREFIX   (root; 77 without kcm, slapd, pamtester or the MIT KDC)
set -u
PREFIX=$(cd "$1" && pwd)
TOP=$(cd "$(dirname "$0")/../.." && pwd)
if [ -z "${KRB5T_IN_NS:-}" ]; then
    command -v /usr/sbin/kcm > /dev/null \
        || { echo "SKIP: no KCM daemon (/usr/sbin/kcm: apt-get install heimdal-kcm)"; exit 77; }
    exec unshare --mount --propagation private -- env KRB5T_IN_NS=1 bash "$0" "$@"
fi
KCM_PID=
EXTRA_CLEANUP='[ -n "$KCM_PID" ] && kill "$KCM_PID" 2>/dev/null'
. "$(dirname "$0")/krb5_env.sh"

RUN_DIR=$(readlink -f /var/run)
mount -t tmpfs -o mode=0755 tmpfs "$RUN_DIR" || { fail "tmpfs over $RUN_DIR"; summary; exit; }
SOCK=/var/run/.heim_org.h5l.kcm-socket
/usr/sbin/kcm > "$WORK/kcm.log" 2>&1 &
KCM_PID=$!
for _ in $(seq 100); do [ -S "$SOCK" ] && break; sleep 0.05; done
check "kcm listens at $SOCK" test -S "$SOCK"

as_user() { # UID COMMAND...
    local uid=$1
    shift
    setpriv --reuid="$uid" --regid="$uid" --clear-groups env KRB5_CONFIG="$KCONF" "$@"
}
restart "krb5_ccname_template = KCM:" || { fail "sssd did not start"; tail -n 30 "$LOGS"/*.log
    summary; exit; }
if login 0 Alice-Krb1 alice authenticate acct_mgmt; then ok "KCM: template: alice logs in"
else fail "KCM: template: alice logs in (rc $LAST_RC)"; echo "$LAST_OUT" | sed 's/^/        /'
    tail -n 15 "$LOGS/krb5_child.log"; fi
out=$(as_user 10001 klist -c KCM: 2>&1)
check "  ... klist as alice: her KCM cache holds the krbtgt" \
    grep -q "krbtgt/$REALM@$REALM" <<< "$out"
check "  ... for alice@$REALM" grep -q "Default principal: alice@$REALM" <<< "$out"
name=$(sed -n 's/^Ticket cache: //p' <<< "$out")
check "  ... in a cache of hers ($name)" test -n "$name"
check "  ... bob's default KCM cache has no ticket" \
    test -z "$(as_user 10002 klist -c KCM: 2>/dev/null | grep krbtgt)"
check "  ... nor can bob read hers by name" \
    test -z "$(as_user 10002 klist -c "$name" 2>/dev/null | grep krbtgt)"

check "bob's wrong password is refused" login 1 Bob-Bad9 bob
check "  ... and leaves him no ticket" \
    test -z "$(as_user 10002 klist -c KCM: 2>/dev/null | grep krbtgt)"
check "bob logs in" login 0 Bob-Krb3 bob
check "  ... his KCM cache holds his krbtgt" \
    grep -q "Default principal: bob@$REALM" <<< "$(as_user 10002 klist -c KCM: 2>&1)"
check "  ... alice's still holds hers" \
    grep -q "Default principal: alice@$REALM" <<< "$(as_user 10001 klist -c KCM: 2>&1)"
as_user 10001 kdestroy -c KCM: > "$WORK/kdestroy.out" 2>&1 || cat "$WORK/kdestroy.out"
as_user 10002 kdestroy -c KCM: > /dev/null 2>&1
check "kdestroy as alice empties hers" \
    test -z "$(as_user 10001 klist -c KCM: 2>/dev/null | grep krbtgt)"
summary
