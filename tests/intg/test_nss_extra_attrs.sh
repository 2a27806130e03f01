#!/bin/bash
# ldap_user_extra_attrs (issue 17, item 10): the back-end fetches the listed attributes and
# stores them under the given names; sssd_nss returns them, with the fixed original
# attributes (mail, originalDN), through the extended call libsss_nss_idmap makes
# (GETORIGBYNAME 0x0115; GETORIGBYUSERNAME 0x011A), as SSSD 2.8 does: only the attributes
# [nss] user_attributes names, every value of each, any caller. Checked twice: with our raw
# wire client (tests/intg/resp_nss_client.py), and with SSSD 2.8's own libsss_nss_idmap.so
# (Debian's libsss-nss-idmap0, downloaded and unpacked, never installed) calling
# sss_nss_getorigbyname() against our sssd_nss in a mount namespace where our
# /var/lib/sss is bound over SSSD's compiled-in one (skipped when the package cannot be had).
# Usage: test_nss_extra_attrs.sh PREFIX   (run as root)
set -u
PREFIX=$(cd "$1" && pwd)
TOP=$(cd "$(dirname "$0")/../.." && pwd)
TEST_NAME=extra
. "$TOP/tests/intg/slapd_env.sh"
chmod 0755 "$WORK"      # apt's _apt user writes the download here
CLIENT=$TOP/tests/intg/resp_nss_client.py

S=dc=extra,dc=test
mkdir -p "$WORK/ldap"
{
    ldif_base $S
    ldif_user $S alice 10001 20001 /home/alice "Alice" /bin/bash | sed '$d'
    printf 'mail: alice@mail.example\ntelephoneNumber: +1 555 0100\n'
    printf 'telephoneNumber: +1 555 0101\ndepartmentNumber: ops\n\n'
    ldif_user $S bob 10002 20001 /home/bob "Bob" /bin/bash
    ldif_group $S devs 20001 alice bob
} > "$WORK/extra.ldif"
URI=$(slapd_start "$WORK/ldap" "$WORK/extra.ldif" $S) || exit 1
write_conf <<CONF
[sssd]
services = nss
domains = extra.test

[nss]
user_attributes = +phone, +missing

[domain/extra.test]
id_provider = ldap
ldap_uri = $URI
ldap_search_base = $S
ldap_user_extra_attrs = phone:telephoneNumber, dept:departmentNumber
CONF
start_sssd || { fail "sssd did not start"; summary; exit 1; }
wait_name sssd.nss 5000
SOCK=$PREFIX/var/lib/sss/pipes/nss
DN="uid=alice,ou=People,$S"
WANT="status=0 results=1 type=1
mail=alice@mail.example
originalDN=$DN
phone=+1 555 0100
phone=+1 555 0101"

out=$(python3 "$CLIENT" "$SOCK" orig alice 2>&1)
check "GETORIGBYNAME alice: the fixed attributes, then both phone values (dept, not in user_attributes, is left out): $(echo "$out" | tr '\n' '|')" \
    test "$out" = "$WANT"
out=$(python3 "$CLIENT" "$SOCK" orig alice byusername 2>&1)
check "GETORIGBYUSERNAME alice: the same" test "$out" = "$WANT"
out=$(setpriv --reuid=65534 --regid=65534 --clear-groups /usr/bin/python3 "$CLIENT" "$SOCK" orig alice 2>&1)
check "... asked by an unprivileged caller: the same (SSSD does not restrict it)" \
    test "$out" = "$WANT"
out=$(python3 "$CLIENT" "$SOCK" orig bob 2>&1)
check "a user without extra attributes: its originalDN only: $(echo "$out" | tr '\n' '|')" \
    test "$out" = "status=0 results=1 type=1
originalDN=uid=bob,ou=People,$S"
out=$(python3 "$CLIENT" "$SOCK" orig nobody 2>&1)
check "an unknown name: no result ($out)" test "$out" = "status=0 results=0"
out=$(python3 "$CLIENT" "$SOCK" orig alice@mail.example 2>&1 | head -n 2 | tail -n 1)
check "by e-mail address, the user it belongs to: $out" test "$out" = "mail=alice@mail.example"

# ---- SSSD 2.8's libsss_nss_idmap against our sssd_nss ----
fetch_idmap() {
    mkdir -p "$WORK/deb" && chmod 0755 "$WORK/deb"
    ( cd "$WORK/deb" && apt-get download libsss-nss-idmap0 ) > "$WORK/apt.log" 2>&1 || return 1
    dpkg-deb -x "$WORK"/deb/libsss-nss-idmap0_*.deb "$WORK/pkg" || return 1
    IDMAP_LIB=$(find "$WORK/pkg" -name 'libsss_nss_idmap.so.0*' -type f | head -n1)
    [ -n "$IDMAP_LIB" ]
}
cat > "$WORK/idmap.py" <<'PY'
import ctypes, sys
class KV(ctypes.Structure):
    _fields_ = [("key", ctypes.c_char_p), ("value", ctypes.c_char_p)]
lib = ctypes.CDLL(sys.argv[1])
kv = ctypes.POINTER(KV)()
typ = ctypes.c_int(0)
ret = lib.sss_nss_getorigbyname(sys.argv[2].encode(), ctypes.byref(kv), ctypes.byref(typ))
if ret != 0:
    print("ret=%d" % ret)
    sys.exit(0)
print("ret=0 type=%d" % typ.value)
i = 0
while kv[i].key is not None:
    print("%s=%s" % (kv[i].key.decode(), kv[i].value.decode()))
    i += 1
lib.sss_nss_free_kv(kv)
PY
in_sssd_ns() { # our /var/lib/sss at SSSD's compiled-in path, for SSSD's client library
    unshare --mount --propagation private -- bash -c '
        if [ ! -d /var/lib/sss ]; then
            mount -t tmpfs -o mode=0755,size=64k extra-var-lib /var/lib || exit 125
            mkdir /var/lib/sss || exit 125
        fi
        mount --bind "$1" /var/lib/sss || exit 125
        shift
        exec "$@"
    ' extra-ns "$PREFIX/var/lib/sss" "$@"
}
if fetch_idmap; then
    echo "# SSSD client: $(basename "$WORK"/deb/libsss-nss-idmap0_*.deb)"
    out=$(in_sssd_ns python3 "$WORK/idmap.py" "$IDMAP_LIB" alice 2>&1)
    check "SSSD's sss_nss_getorigbyname(alice) reads our reply: $(echo "$out" | tr '\n' '|')" \
        test "$out" = "ret=0 type=1
mail=alice@mail.example
originalDN=$DN
phone=+1 555 0100
phone=+1 555 0101"
    out=$(in_sssd_ns python3 "$WORK/idmap.py" "$IDMAP_LIB" nobody 2>&1)
    check "SSSD's sss_nss_getorigbyname(nobody): ENOENT ($out)" test "$out" = "ret=2"
else
    echo "# SKIP SSSD's libsss_nss_idmap: cannot download libsss-nss-idmap0:"
    tail -n 3 "$WORK/apt.log" | sed 's/^/#     /'
fi

summary
