#!/bin/bash
# SSSD's account messages through the real path: pamtester with our pam_sss.so and SSSD
# 2.8's (Debian's libpam-sss, unpacked, never installed; ours alone when it cannot be
# fetched) against our sssd_pam and sssd_be and a private slapd. SSSD 2.8's pam_reply adds
# USER_INFO ACCOUNT_EXPIRED ("Permission denied. Server message: ..." in the conversation):
#
#   pam_account_expired_message  when the answer is PAM_ACCT_EXPIRED (here ldap_access_order
#                                = expire, shadowExpire in the past) and the PAM service is
#                                sshd or pam_verbosity >= 2; not for another service at the
#                                default verbosity
#   pam_account_locked_message   when the back-end says the account is locked: Active
#                                Directory's bind answer for a locked account
#                                (invalidCredentials, "data 775,"), made here by
#                                ldap_bind_proxy.py in front of slapd; the login is
#                                PAM_PERM_DENIED with the right password too, never a
#                                success
#
# Usage: test_pam_account_msgs.sh PREFIX   (root; 77 without slapd or pamtester)
set -u
PREFIX=$(cd "$1" && pwd)
TOP=$(cd "$(dirname "$0")/../.." && pwd)
PAM_TEST=pammsg
PAM_NEEDS="pamtester slappasswd python3"
. "$(dirname "$0")/pam_env.sh"
SUFFIX=dc=msg,dc=test
PROXY_PID=
PAM_ON_EXIT='[ -n "$PROXY_PID" ] && kill "$PROXY_PID" 2> /dev/null'

TAGS=(ours)
mkdir -p "$WORK/debs"
if (cd "$WORK/debs" && apt-get download -q libpam-sss) > "$WORK/download.log" 2>&1 \
        && dpkg -x "$WORK"/debs/libpam-sss_*.deb "$WORK/pamsss" 2> /dev/null; then
    SSSD_MOD=$(find "$WORK/pamsss" -name pam_sss.so | head -n1)
    [ -n "$SSSD_MOD" ] && TAGS+=(sssd)
fi
[ ${#TAGS[@]} = 2 ] || echo "note: SSSD's pam_sss.so not available: our module only"

# ---- the directory -----------------------------------------------------------------------
pw() { echo "Msg-$1-Pass3"; }
{
    printf 'dn: %s\nobjectClass: top\nobjectClass: dcObject\nobjectClass: organization\n' "$SUFFIX"
    printf 'o: Msg\ndc: msg\n\n'
    printf 'dn: ou=People,%s\nobjectClass: organizationalUnit\nou: People\n\n' "$SUFFIX"
    n=10001
    for u in alice dave lena; do
        printf 'dn: uid=%s,ou=People,%s\nobjectClass: top\nobjectClass: account\n' "$u" "$SUFFIX"
        printf 'objectClass: posixAccount\nobjectClass: shadowAccount\n'
        printf 'uid: %s\ncn: %s\nuidNumber: %s\ngidNumber: %s\n' "$u" "$u" $n $n
        printf 'homeDirectory: /home/%s\nloginShell: /bin/sh\nuserPassword: %s\n' \
            "$u" "$(slappasswd -s "$(pw "$u")")"
        [ "$u" = dave ] && printf 'shadowExpire: 1\n'
        echo
        n=$((n + 1))
    done
} > "$WORK/msg.ldif"
mkdir -p "$WORK/ldap"
URI=$(slapd_start "$WORK/ldap" "$WORK/msg.ldif" "$SUFFIX") || { echo "FAIL: slapd"; exit 1; }

# lena's binds go through a proxy that answers as AD does for a locked account.
python3 "$TOP/tests/intg/ldap_bind_proxy.py" --listen 127.0.0.1:0 --target "${URI#ldap://}" \
    --dn "uid=lena,ou=People,$SUFFIX" --port-file "$WORK/proxy.port" \
    > "$WORK/proxy.log" 2>&1 &
PROXY_PID=$!
for _ in $(seq 100); do [ -s "$WORK/proxy.port" ] && break; sleep 0.05; done
[ -s "$WORK/proxy.port" ] || { echo "FAIL: the proxy did not start"; exit 1; }
PROXY_URI=ldap://127.0.0.1:$(cat "$WORK/proxy.port")

restart() { # EXTRA_PAM_LINES
    stop_sssd
    write_conf <<CONF
[sssd]
services = nss, pam
domains = msg
[pam]
$1
[domain/msg]
id_provider = ldap
auth_provider = ldap
access_provider = ldap
ldap_access_order = expire
ldap_account_expire_policy = shadow
ldap_uri = $PROXY_URI
ldap_search_base = $SUFFIX
ldap_schema = rfc2307
ldap_auth_disable_tls_never_use_in_production = true
CONF
    start_sssd || return 1
    for _ in $(seq 200); do
        [ -S "$PIPES/private/pam" ] && wait_name sssd.domain_msg 100 && return 0
        sleep 0.05
    done
    return 1
}

mount -t tmpfs -o mode=0755 tmpfs /etc/pam.d || { echo "FAIL: tmpfs over /etc/pam.d"; exit 1; }
for tag in "${TAGS[@]}"; do
    [ "$tag" = ours ] && mod=$OUR_MOD || mod=$SSSD_MOD
    for svc in "pammsg-$tag" "sshd-$tag"; do
        printf '%s required %s\n' auth "$mod" account "$mod" > "/etc/pam.d/$svc"
    done
done
mkdir -p /var/lib/sss/pipes "$PIPES"
mount --bind "$PIPES" /var/lib/sss/pipes || { echo "FAIL: bind $PIPES"; exit 1; }

# every NAME WANT SERVICE USER OPS...: the same status and output with each module.
# SERVICE "sshd" is run as the PAM service name "sshd" (a copy per module, swapped in).
every() {
    local name=$1 want=$2 svc=$3 user=$4 tag rc out first="" ok=1
    shift 4
    for tag in "${TAGS[@]}"; do
        if [ "$svc" = sshd ]; then
            cp "/etc/pam.d/sshd-$tag" /etc/pam.d/sshd
            out=$(printf '%s\n' "${INPUT-$(pw "$user")}" | LC_ALL=C pamtester sshd "$user" "$@" 2>&1)
        else
            out=$(printf '%s\n' "${INPUT-$(pw "$user")}" | LC_ALL=C pamtester "$svc-$tag" \
                "$user" "$@" 2>&1)
        fi
        rc=$?
        out=${out//$svc-$tag/X}
        [ "$rc" = "$want" ] || ok=0
        if [ -z "$first" ]; then first=$out; LAST_OUT=$out
        elif [ "$out" != "$first" ]; then ok=0; fi
        [ $ok = 1 ] || { echo "        $tag ($rc): $out"; }
    done
    if [ $ok = 1 ]; then ok "$name: status $want${TAGS[1]:+, same output with both modules}"
    else fail "$name (expected $want)"; fi
}
has() { # NAME PATTERN
    if grep -q -- "$2" <<< "$LAST_OUT"; then ok "$1"; else
        fail "$1 (no '$2')"; echo "$LAST_OUT" | sed 's/^/        /'; fi
}
hasnt() { # NAME PATTERN
    if grep -q -- "$2" <<< "$LAST_OUT"; then
        fail "$1 ('$2' shown)"; echo "$LAST_OUT" | sed 's/^/        /'; else ok "$1"; fi
}
EXPMSG="Your account expired: call extension 4242"
LOCKMSG="Your account is locked: call extension 4343"

# ---- pam_account_expired_message ----------------------------------------------------------
restart "pam_account_expired_message = $EXPMSG
pam_account_locked_message = $LOCKMSG" || { fail "sssd did not start"; summary; exit; }
every "alice (not expired) passes" 0 pammsg alice authenticate acct_mgmt
every "dave (shadowExpire in the past), another service, pam_verbosity 1" 1 pammsg dave acct_mgmt
has "  ... PAM_ACCT_EXPIRED" "User account has expired"
hasnt "  ... without the expiry message" "extension 4242"
every "dave through sshd" 1 sshd dave acct_mgmt
has "  ... the expiry message" "Permission denied. Server message: $EXPMSG"
restart "pam_verbosity = 2
pam_account_expired_message = $EXPMSG" || fail "restart (pam_verbosity = 2)"
every "dave, another service, pam_verbosity 2" 1 pammsg dave acct_mgmt
has "  ... the expiry message" "Permission denied. Server message: $EXPMSG"
restart "pam_verbosity = 2" || fail "restart (no message set)"
every "dave, pam_verbosity 2, no pam_account_expired_message" 1 pammsg dave acct_mgmt
has "  ... 'Permission denied.' alone" "Permission denied. *$"
hasnt "  ... no server message" "Server message"

# ---- pam_account_locked_message -------------------------------------------------------------
restart "pam_account_locked_message = $LOCKMSG" || fail "restart (locked)"
every "lena (locked, AD's 'data 775'), right password: denied" 1 pammsg lena authenticate
has "  ... PAM_PERM_DENIED" "Permission denied"
has "  ... with the locked message" "Permission denied. Server message: $LOCKMSG"
INPUT="wrong-$(pw lena)" every "lena, wrong password: denied too" 1 pammsg lena authenticate
has "  ... with the locked message" "$LOCKMSG"
every "alice through the same proxy: not locked" 0 pammsg alice authenticate
hasnt "  ... no locked message" "$LOCKMSG"
summary
