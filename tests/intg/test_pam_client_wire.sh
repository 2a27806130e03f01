#!/bin/bash
# Our pam_sss.so and SSSD 2.8's own (Debian's libpam-sss, downloaded and unpacked, never
# installed) side by side, through pamtester, against one recording sssd_pam stand-in: for
# every scenario both modules must send the same bytes (the client pid masked), in the same
# pattern of connections and sockets, and give the same pamtester output, exit status and
# pam_sss syslog lines. The stand-in answers with scripted replies, so every reply SSSD
# 2.8's module has a text for (each USER_INFO subtype, TEXT_MSG, SYSTEM_INFO, the PAM
# statuses) is shown to both. Also: no test password ever reaches syslog.
#
# Everything runs in a private mount namespace: tmpfs over /var/lib (SSSD's compiled-in
# /var/lib/sss/pipes, bind-mounted over our $PREFIX/var/lib/sss/pipes too), over /etc/pam.d
# (the service file naming each module by absolute path) and over /dev (a /dev/log of the
# test's own, with null, zero, random, urandom, tty, full and pts bound back). Nothing
# changes outside it.
#
# Where our module differs from SSSD 2.8 on purpose (malformed replies, use_authtok without
# a new password, a retried PAM_PRELIM_CHECK) the unit tests cover ours alone.
#
# Usage: test_pam_client_wire.sh PREFIX   (root; 77 when pamtester or SSSD's package is
# not available)
set -u
PREFIX=$(cd "$1" && pwd)
TOP=$(cd "$(dirname "$0")/../.." && pwd)
. "$(dirname "$0")/lib.sh"

OUR_MOD=$PREFIX/lib/security/pam_sss.so
[ -f "$OUR_MOD" ] || { echo "FAIL: $OUR_MOD is not installed"; exit 1; }
command -v pamtester > /dev/null || { echo "SKIP: pamtester is not installed"; exit 77; }
command -v setpriv > /dev/null || { echo "SKIP: setpriv is not installed"; exit 77; }

WORK=$(mktemp -d /tmp/sssd-pamwire.XXXXXX)
chmod 0755 "$WORK"      # apt's _apt user writes the download here
trap 'rm -rf "$WORK"' EXIT

mkdir -p "$WORK/debs"
if ! (cd "$WORK/debs" && apt-get download -q libpam-sss) > "$WORK/download.log" 2>&1; then
    echo "SKIP: cannot download Debian's libpam-sss (no mirror?):"
    tail -n 3 "$WORK/download.log" | sed 's/^/    /'
    exit 77
fi
dpkg -x "$WORK"/debs/libpam-sss_*.deb "$WORK/sssd" || { echo "FAIL: dpkg -x"; exit 1; }
SSSD_MOD=$(find "$WORK/sssd" -name pam_sss.so | head -n1)
[ -n "$SSSD_MOD" ] || { echo "FAIL: no pam_sss.so in libpam-sss"; exit 1; }
echo "SSSD's module: $(basename "$WORK"/debs/libpam-sss_*.deb) ($SSSD_MOD)"

# ---- the recording responder and the syslog receiver ----------------------------------
cat > "$WORK/responder.py" <<'PY'
# sssd_pam stand-in: GET_VERSION answers 3; every other request is logged as
# "<pub|priv> <conn> <cmd> <body hex>" and answered with REPLIES/<cmd hex> or
# REPLIES/default (hex of the body, or "ERR n" for a header status n), else status 0 with
# DOMAIN_NAME "demo".
import os, socket, struct, sys, threading, select
pipes, logf, rdir = sys.argv[1:4]
lock = threading.Lock()
count = [0]
DEFAULT = struct.pack('=ii', 0, 1) + struct.pack('=ii', 2, 5) + b'demo\0'

def listen(path, mode):
    try:
        os.unlink(path)
    except FileNotFoundError:
        pass
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.bind(path)
    os.chmod(path, mode)
    s.listen(16)
    return s

def recv_all(c, n):
    b = b''
    while len(b) < n:
        x = c.recv(n - len(b))
        if not x:
            raise EOFError
        b += x
    return b

def reply_for(cmd):
    for name in ('%x' % cmd, 'default'):
        try:
            return open(os.path.join(rdir, name)).read().strip()
        except FileNotFoundError:
            pass
    return None

def serve(c, kind, cid):
    try:
        while True:
            ln, cmd, _, _ = struct.unpack('=4I', recv_all(c, 16))
            body = recv_all(c, ln - 16)
            if cmd == 1:
                c.sendall(struct.pack('=5I', 20, 1, 0, 0, 3))
                continue
            with lock:
                with open(logf, 'a') as f:
                    f.write('%s %d 0x%x %s\n' % (kind, cid, cmd, body.hex()))
            r = reply_for(cmd)
            if r is not None and r.startswith('ERR '):
                c.sendall(struct.pack('=4I', 16, cmd, int(r[4:]), 0))
                continue
            b = bytes.fromhex(r) if r is not None else DEFAULT
            c.sendall(struct.pack('=4I', 16 + len(b), cmd, 0, 0) + b)
    except (EOFError, OSError):
        pass
    finally:
        c.close()

os.makedirs(pipes + '/private', exist_ok=True)
os.chmod(pipes + '/private', 0o700)
ls = [listen(pipes + '/pam', 0o666), listen(pipes + '/private/pam', 0o600)]
open(pipes + '/.ready', 'w').close()
while True:
    r, _, _ = select.select(ls, [], [])
    for s in r:
        c, _ = s.accept()
        count[0] += 1
        threading.Thread(target=serve, args=(c, 'priv' if s is ls[1] else 'pub', count[0]),
                         daemon=True).start()
PY
cat > "$WORK/mkreply.py" <<'PY'
# mkreply.py STATUS [TYPE:HEX ...] -> the hex of a reply body
import struct, sys
items = sys.argv[2:]
b = struct.pack('=ii', int(sys.argv[1]), len(items))
for it in items:
    t, d = it.split(':', 1)
    d = bytes.fromhex(d)
    b += struct.pack('=ii', int(t), len(d)) + d
print(b.hex())
PY

# ---- inside the namespace --------------------------------------------------------------
cat > "$WORK/inner.sh" <<'INNER'
set -u
PREFIX=$1 TOP=$2 WORK=$3 OUR_MOD=$4 SSSD_MOD=$5
. "$TOP/tests/intg/lib.sh"
R=$WORK/replies
mkdir -p "$R" "$WORK/olddev"
mount --make-rprivate / || { fail "cannot make / private"; summary; exit; }
mount -t tmpfs -o mode=0755 tmpfs /var/lib
mkdir -p /var/lib/sss/pipes "$PREFIX/var/lib/sss/pipes"
chmod 0755 /var/lib/sss /var/lib/sss/pipes
mount --bind /var/lib/sss/pipes "$PREFIX/var/lib/sss/pipes"
mount -t tmpfs -o mode=0755 tmpfs /etc/pam.d
mount --rbind /dev "$WORK/olddev"
mount -t tmpfs -o mode=0755 tmpfs /dev
for n in null zero urandom random tty full; do
    touch "/dev/$n" && mount --bind "$WORK/olddev/$n" "/dev/$n"
done
mkdir -p /dev/pts /dev/shm && mount --rbind "$WORK/olddev/pts" /dev/pts
ln -s /proc/self/fd /dev/fd
ln -s /proc/self/fd/0 /dev/stdin; ln -s /proc/self/fd/1 /dev/stdout; ln -s /proc/self/fd/2 /dev/stderr
python3 "$TOP/tests/intg/syslog_sink.py" "$WORK/syslog" "$WORK/syslog.ready" & SYSLOGD=$!
# The first module line was lost under load when a run began before the sink was bound.
for _ in $(seq 500); do [ -e "$WORK/syslog.ready" ] && break; sleep 0.01; done
# Returns once every datagram sent to /dev/log before it is in $WORK/syslog: the sink
# handles them in order, so a marker sent last and seen in the file proves it (a fixed
# sleep lost the module's last line under load).
syslog_sync() {
    local mark="syslog-sync-$RANDOM$RANDOM"
    logger -u /dev/log -- "$mark" 2>/dev/null || { sleep 0.5; return; }
    for _ in $(seq 500); do
        grep -aqF -- "$mark" "$WORK/syslog" && return
        sleep 0.01
    done
}

RESPONDER=
start_responder() {
    rm -f /var/lib/sss/pipes/.ready
    python3 "$WORK/responder.py" /var/lib/sss/pipes "$WORK/requests" "$R" & RESPONDER=$!
    for _ in $(seq 100); do [ -f /var/lib/sss/pipes/.ready ] && return 0; sleep 0.05; done
    return 1
}
stop_responder() { [ -n "$RESPONDER" ] && kill "$RESPONDER" 2>/dev/null; wait "$RESPONDER" 2>/dev/null; RESPONDER=; }
start_responder || { fail "the recording responder did not start"; summary; exit; }
trap 'stop_responder; kill $SYSLOGD 2>/dev/null' EXIT

hexs() { printf '%s' "$1" | od -An -tx1 -v | tr -d ' \n'; }
u32() { python3 -c "import struct,sys; print(struct.pack('=I', int(sys.argv[1])).hex())" "$1"; }
i64() { python3 -c "import struct,sys; print(struct.pack('=q', int(sys.argv[1])).hex())" "$1"; }
reply() { python3 "$WORK/mkreply.py" "$@"; }
DOM="2:$(hexs demo)00"
AS_USER=(setpriv --reuid=1000 --regid=1000 --clear-groups)

# run_one TAG MODULE OPTS STACK INPUT CMD...: one pamtester run; prints its normalized
# trace (output, status, requests, pam_sss syslog lines); the raw syslog goes to syslog.TAG.
run_one() {
    local tag=$1 mod=$2 opts=$3 stack=$4 input=$5
    shift 5
    if [ -n "$stack" ]; then
        printf '%b\n' "${stack//MODULE/$mod}" > /etc/pam.d/pamwire
    else
        printf '%s required %s %s\n' auth "$mod" "$opts" account "$mod" "$opts" \
            password "$mod" "$opts" session "$mod" "$opts" > /etc/pam.d/pamwire
    fi
    : > "$WORK/requests"
    : > "$WORK/syslog"
    local out rc
    out=$(printf '%b' "$input" | TZ=UTC LC_ALL=C "$@" 2>&1)
    rc=$?
    syslog_sync
    echo "$out"
    echo "status=$rc"
    # connections numbered in order of appearance; the client pid item masked
    awk '{ if (!($2 in c)) c[$2] = ++n; print $1, "conn" c[$2], $3, $4 }' "$WORK/requests" |
        sed -E 's/(0900000004000000)[0-9a-f]{8}/\1........./'
    grep -a 'pam_sss(' "$WORK/syslog" | sed -E 's/^<([0-9]+)>[A-Z][a-z]{2} [ 0-9]{2} [0-9:]{8} /<\1> /'
    cat "$WORK/syslog" >> "$WORK/syslog.$tag"
}

# same NAME OPTS STACK INPUT CMD...: both modules, compared.
same() {
    local name=$1 opts=$2 stack=$3 input=$4 a b
    shift 4
    a=$(run_one sssd "$SSSD_MOD" "$opts" "$stack" "$input" "$@")
    b=$(run_one ours "$OUR_MOD" "$opts" "$stack" "$input" "$@")
    if [ "$a" = "$b" ]; then
        ok "$name: same as SSSD 2.8 ($(echo "$b" | sed -n 's/^status=//p' | head -n1), $(grep -c '^p[ur][bi]' <<< "$b") requests)"
    else
        fail "$name: differs from SSSD 2.8"
        diff <(echo "$a") <(echo "$b") | sed 's/^/        /' | head -n 40
    fi
    LAST=$b
}

clear_replies() { rm -f "$R"/*; }

# ---- authentication and the other operations -----------------------------------------
clear_replies
same "auth, account, sessions, setcred" "" "" 'secret123\n' \
    pamtester pamwire alice authenticate acct_mgmt open_session close_session setcred
grep -q '^priv conn1 0xf1 .*7365637265743132330c' <<< "$LAST" && ok "the password went to the private socket" || fail "no password on the private socket"
reply 7 "$DOM" > "$R/f1"
same "wrong password" "" "" 'Wr0ngPass!\n' pamtester pamwire alice authenticate
same "empty password" "" "" '\n' pamtester pamwire alice authenticate
same "as a user: the public socket" "" "" 'Wr0ngPass!\n' "${AS_USER[@]}" pamtester pamwire alice authenticate
grep -q '^pub ' <<< "$LAST" && ok "a user's request used the public socket" || fail "a user's request did not use the public socket"
reply 10 > "$R/f1"
same "unknown user" "" "" 'x\n' pamtester pamwire nobody authenticate
same "unknown user, quiet" "quiet" "" 'x\n' pamtester pamwire nobody authenticate
same "unknown user, ignore_unknown_user" "ignore_unknown_user" "" 'x\n' pamtester pamwire nobody authenticate
reply 9 > "$R/f1"
same "authinfo unavailable, ignore_authinfo_unavail" "ignore_authinfo_unavail" "" 'x\n' pamtester pamwire alice authenticate
reply 7 "$DOM" > "$R/f1"
same "domains= and retry=2" "domains=demo,other retry=2" "" 'a\nb\nc\n' pamtester pamwire alice authenticate
same "root is not sssd's" "" "" 'x\n' pamtester pamwire root authenticate
clear_replies
same "forward_pass then use_first_pass" "" "auth optional MODULE forward_pass\nauth required MODULE use_first_pass" 'secret123\n' pamtester pamwire alice authenticate
same "use_first_pass with nothing on the stack" "use_first_pass" "" '' pamtester pamwire alice authenticate
reply 12 "$DOM" > "$R/f1"
same "expired password: auth then account" "" "" 'secret123\n' pamtester pamwire alice authenticate acct_mgmt
clear_replies
for st in 6 13 4; do
    reply "$st" "$DOM" > "$R/f3"
    same "account status $st" "" "" '' pamtester pamwire alice acct_mgmt
done
echo "ERR 5" > "$R/f1"
same "an error status in the header" "" "" 'secret123\n' pamtester pamwire alice authenticate

# ---- every text SSSD 2.8 shows -----------------------------------------------------------
clear_replies
ui() { reply 0 "$DOM" "6:$(u32 "$1")${2:-}" > "$R/f1"; }
ui 1 "$(i64 1700000000)"; same "USER_INFO offline auth, expiry" "" "" 'x\n' pamtester pamwire alice authenticate
ui 1 "$(i64 0)";          same "USER_INFO offline auth, no expiry" "" "" 'x\n' pamtester pamwire alice authenticate
ui 2 "$(i64 1700000000)"; same "USER_INFO offline auth delayed" "" "" 'x\n' pamtester pamwire alice authenticate
ui 3;                     same "USER_INFO offline chpass" "" "" 'x\n' pamtester pamwire alice authenticate
ui 4;                     same "USER_INFO OTP chpass" "" "" 'x\n' pamtester pamwire alice authenticate
ui 5 "$(u32 6)$(hexs 'too ol')"; same "USER_INFO chpass error with message" "" "" 'x\n' pamtester pamwire alice authenticate
ui 5 "$(u32 0)";          same "USER_INFO chpass error" "" "" 'x\n' pamtester pamwire alice authenticate
ui 6 "$(u32 2)";          same "USER_INFO grace logins" "" "" 'x\n' pamtester pamwire alice authenticate
for s in 200000 7200 90 30; do
    ui 7 "$(u32 $s)";     same "USER_INFO expiry warning ${s}s" "" "" 'x\n' pamtester pamwire alice authenticate
done
ui 8 "$(u32 4)$(hexs gone)"; same "USER_INFO account expired with message" "" "" 'x\n' pamtester pamwire alice authenticate
ui 8 "$(u32 0)";          same "USER_INFO account expired" "" "" 'x\n' pamtester pamwire alice authenticate
ui 9;                     same "USER_INFO PIN locked" "" "" 'x\n' pamtester pamwire alice authenticate
ui 10;                    same "USER_INFO of a later SSSD (nothing shown)" "" "" 'x\n' pamtester pamwire alice authenticate
reply 0 "$DOM" "7:$(hexs 'Hello from sssd')00" "1:$(hexs 'for the log')00" \
    "3:$(hexs 'PAMV=1')00" "4:$(hexs 'ENVV=2')00" "5:$(hexs 'ALLV=3')00" "99:00" > "$R/f4"
same "TEXT_MSG, SYSTEM_INFO, environment, an unknown item" "" "" '' pamtester pamwire alice open_session

# ---- password change ------------------------------------------------------------------------
clear_replies
same "change as the user" "" "" 'secret123\nn3wPass-1\nn3wPass-1\n' "${AS_USER[@]}" pamtester pamwire alice chauthtok
same "change as the user, passwords do not match" "" "" 'secret123\nn3wPass-1\nn3wPass-2\n' "${AS_USER[@]}" pamtester pamwire alice chauthtok
same "change with use_authtok after forward_pass" "" "password optional MODULE forward_pass\npassword required MODULE use_authtok" 'secret123\nsecret123\nn3wPass-1\nn3wPass-1\n' "${AS_USER[@]}" pamtester pamwire alice chauthtok
reply 7 "$DOM" > "$R/f7"
same "change as the user, wrong current password" "" "" 'Wr0ngPass!\n' "${AS_USER[@]}" pamtester pamwire alice chauthtok
reply 6 "$DOM" > "$R/f7"
same "root resets a password: refused with SSSD's message" "" "" '' pamtester pamwire alice chauthtok
grep -q 'Password reset by root is not supported.' <<< "$LAST" && ok "the reset message is shown" || fail "no reset message"
rm -f "$R/f7"
same "root resets a password the server allows" "" "" 'n3wPass-1\nn3wPass-1\n' pamtester pamwire alice chauthtok

# ---- sockets ------------------------------------------------------------------------------------
clear_replies
chmod 0666 /var/lib/sss/pipes/private/pam
same "private socket with mode 0666" "" "" 'secret123\n' pamtester pamwire alice authenticate
chmod 0600 /var/lib/sss/pipes/private/pam
chown 1:1 /var/lib/sss/pipes/pam
same "public socket not owned by root" "" "" 'secret123\n' "${AS_USER[@]}" pamtester pamwire alice authenticate
chown 0:0 /var/lib/sss/pipes/pam
stop_responder
same "sssd gone, its sockets left behind" "" "" 'secret123\n' pamtester pamwire alice authenticate
rm -f /var/lib/sss/pipes/pam /var/lib/sss/pipes/private/pam
same "no sssd sockets" "" "" 'secret123\n' pamtester pamwire alice authenticate
same "no sssd sockets, ignore_authinfo_unavail" "ignore_authinfo_unavail" "" 'secret123\n' pamtester pamwire alice authenticate
start_responder || fail "the responder did not restart"

# ---- no password in any log line -----------------------------------------------------------
n=$(grep -ac 'pam_sss(' "$WORK/syslog.ours")
check "our module's syslog lines were captured ($n pam_sss lines)" test "$n" -gt 20
check "the grep sees their text (user=alice is there)" grep -aq 'pam_sss(pamwire:auth).*user=alice' "$WORK/syslog.ours"
leaked=0
for pw in secret123 'Wr0ngPass!' n3wPass-1 n3wPass-2; do
    if grep -aF -- "$pw" "$WORK/syslog.ours" > /dev/null; then
        fail "password '$pw' appears in our module's syslog lines"
        leaked=1
    fi
done
[ "$leaked" = 0 ] && ok "no test password in any syslog line of our module"
summary
INNER

unshare --mount --propagation private -- \
    bash "$WORK/inner.sh" "$PREFIX" "$TOP" "$WORK" "$OUR_MOD" "$SSSD_MOD" 2>&1 | tee "$WORK/inner.out"
rc=${PIPESTATUS[0]}
if ! grep -Eq '^[0-9]+ passed, [0-9]+ failed$' "$WORK/inner.out"; then
    echo "FAIL: the comparison did not run (status $rc)"
    exit 1
fi
exit "$rc"
