# A private Samba Active Directory DC for tests: provision, start, populate, join, stop.
# Sourced. Everything happens inside a network, mount and UTS namespace of the caller's
# (samba_ad_enter re-executes the calling script there): only `lo`, with the DC on a second
# loopback address (127.0.0.10), so the DC's fixed ports never clash with the host; /etc is
# an overlay whose upper layer lives in the work directory, so the DC and the clients get
# their own hosts, resolv.conf, krb5.conf, ldap.conf and krb5.keytab and the host's files
# stay untouched. Our daemons and getent run in the same namespace.
#
#   samba_ad_enter "$0" "$@"     re-exec the script in the namespace (returns inside it)
#   samba_ad_skip_reason         prints why the DC cannot run here (nothing: it can)
#   samba_ad_start DIR           provision AD.TEST in DIR, start the DC, wait for LDAP+KDC
#   samba_ad_tool ARGS...        samba-tool against the DC's database
#   samba_ad_user NAME PASS [samba-tool user add options]
#   samba_ad_join                adcli join of client.ad.test: /etc/krb5.keytab (overlay)
#   samba_ad_sid NAME            the objectSid of an account, as a string
#   samba_ad_stop                SIGTERM the DC, wait for it
# SAMBA_AD_IFACES (default lo) and SAMBA_AD_FORWARDER (none) let a second DC share the
# network namespace (tests/lib/samba_ad_trust.sh).
# Facts this relies on: /work/shared/TESTSERVERS.md (Samba AD DC).

SAMBA_AD_REALM=AD.TEST
SAMBA_AD_DOMAIN=ad.test
SAMBA_AD_NETBIOS=AD
SAMBA_AD_DC=dc1.ad.test
SAMBA_AD_DC_IP=127.0.0.10
SAMBA_AD_HOST=client.ad.test
SAMBA_AD_ADMINPASS=Admin-Pass-1
SAMBA_AD_BASE="DC=ad,DC=test"

samba_ad_skip_reason() {
    local t
    for t in samba samba-tool adcli kinit ldapsearch unshare nsenter ip; do
        command -v "$t" > /dev/null 2>&1 || { echo "no $t"; return; }
    done
    [ -d /usr/share/samba/setup ] || { echo "no samba-ad-provision (/usr/share/samba/setup)"; return; }
    ls /usr/lib/*/sasl2/libgssapiv2.so* > /dev/null 2>&1 \
        || { echo "no Cyrus SASL GSSAPI module (libsasl2-modules-gssapi-mit)"; return; }
    [ "$(id -u)" = 0 ] || echo "not root"
}

# Re-executes the calling script in new net+mount+uts namespaces with /etc overlaid; the
# caller continues after this line, inside. SAMBA_AD_ETC is the overlay's work directory.
samba_ad_enter() {
    local script=$1; shift
    if [ -n "${SAMBA_AD_IN_NS:-}" ]; then
        return 0
    fi
    SAMBA_AD_ETC=$(mktemp -d /tmp/samba-ad-etc.XXXXXX)
    exec unshare --net --mount --uts --propagation private -- \
        env SAMBA_AD_IN_NS=1 SAMBA_AD_ETC="$SAMBA_AD_ETC" bash -c '
        set -e
        ip link set lo up
        ip addr add 127.0.0.10/8 dev lo
        mkdir -p "$SAMBA_AD_ETC/up" "$SAMBA_AD_ETC/work"
        mount -t overlay overlay \
            -o "lowerdir=/etc,upperdir=$SAMBA_AD_ETC/up,workdir=$SAMBA_AD_ETC/work" /etc
        # Samba keeps state and logs in fixed places whatever smb.conf says (messaging
        # sockets and smbXsrv databases in /run/samba, logs in /var/log/samba, ...): each
        # DC gets empty private ones, so nothing lands on the host and two DCs of two
        # tests never share them.
        for d in /run/samba /var/lib/samba /var/log/samba /var/cache/samba; do
            [ -d "$d" ] || continue
            mkdir -p "$SAMBA_AD_ETC/state$d"
            mount --bind "$SAMBA_AD_ETC/state$d" "$d"
        done
        hostname client.ad.test
        set +e
        bash "$@"
        rc=$?
        umount -l /etc
        rm -rf "$SAMBA_AD_ETC"
        exit $rc
    ' samba-ad-ns "$script" "$@"
}

# Replaces a file of the overlaid /etc: removed first, so a symlink (resolv.conf) is not
# followed out of the overlay.
samba_ad_etc_write() {
    [ -n "${SAMBA_AD_IN_NS:-}" ] || { echo "samba_ad: not in the namespace" >&2; return 1; }
    rm -f "/etc/$1"
    cat > "/etc/$1"
}

samba_ad_client_files() {
    samba_ad_etc_write hosts <<EOF
127.0.0.1 localhost
$SAMBA_AD_DC_IP $SAMBA_AD_DC dc1
127.0.0.1 $SAMBA_AD_HOST client
EOF
    samba_ad_etc_write resolv.conf <<EOF
nameserver $SAMBA_AD_DC_IP
search $SAMBA_AD_DOMAIN
EOF
    samba_ad_etc_write krb5.conf <<EOF
[libdefaults]
    default_realm = $SAMBA_AD_REALM
    dns_lookup_kdc = false
    dns_lookup_realm = false
    rdns = false
    udp_preference_limit = 0
[realms]
    $SAMBA_AD_REALM = {
        kdc = $SAMBA_AD_DC
        admin_server = $SAMBA_AD_DC
    }
[domain_realm]
    .$SAMBA_AD_DOMAIN = $SAMBA_AD_REALM
    $SAMBA_AD_DOMAIN = $SAMBA_AD_REALM
EOF
    mkdir -p /etc/ldap
    samba_ad_etc_write ldap/ldap.conf <<EOF
SASL_NOCANON on
EOF
    rm -f /etc/krb5.keytab
}

samba_ad_tool() {
    samba-tool "$@" -s "$SAMBA_AD_DIR/etc/smb.conf"
}

samba_ad_start() { # samba_ad_start DIR
    local dir=$1 i
    [ -n "${SAMBA_AD_IN_NS:-}" ] || { echo "samba_ad: not in the namespace" >&2; return 1; }
    SAMBA_AD_DIR=$dir
    mkdir -p "$dir"
    samba_ad_client_files
    # The provisioning copies the host's resolver as "dns forwarder"; it reads smb.conf
    # from the targetdir it writes.
    samba-tool domain provision --realm=$SAMBA_AD_REALM --domain=$SAMBA_AD_NETBIOS \
        --server-role=dc --dns-backend=SAMBA_INTERNAL --use-rfc2307 \
        --host-name="${SAMBA_AD_DC%%.*}" --targetdir="$dir" --host-ip=$SAMBA_AD_DC_IP \
        --adminpass="$SAMBA_AD_ADMINPASS" --option="interfaces = ${SAMBA_AD_IFACES:-lo}" \
        --option="bind interfaces only = yes" \
        > "$dir/provision.log" 2>&1 || { tail -20 "$dir/provision.log" >&2; return 1; }
    mkdir -p "$dir/run" "$dir/log" "$dir/cache"
    # No "winbindd socket directory" here: smbd's libwbclient only knows the built-in one
    # (/run/samba/winbindd, private to this namespace), and without winbindd smbd cannot
    # map the session's SIDs to ids: every SMB session setup then fails with
    # NT_STATUS_INTERNAL_ERROR after a successful authentication.
    sed -i -e '/dns forwarder/d' -e "/^\[global\]/a\\
	pid directory = $dir/run\\
	lock directory = $dir/run\\
	ncalrpc dir = $dir/run/ncalrpc\\
	cache directory = $dir/cache\\
	log file = $dir/log/%m.log\\
	ldap server require strong auth = no\\
	dns update command = /bin/true" "$dir/etc/smb.conf"
    # A second DC (samba_ad_trust.sh) answers the names of its own domain: forwarded there.
    if [ -n "${SAMBA_AD_FORWARDER:-}" ]; then
        sed -i "/^\[global\]/a\\
	dns forwarder = $SAMBA_AD_FORWARDER" "$dir/etc/smb.conf"
    fi
    samba -s "$dir/etc/smb.conf" -D || return 1
    for i in $(seq 1 150); do
        if ldapsearch -x -LLL -H ldap://$SAMBA_AD_DC_IP -s base -b "" defaultNamingContext \
                > /dev/null 2>&1 \
            && echo "$SAMBA_AD_ADMINPASS" | KRB5CCNAME=FILE:$dir/admin.cc \
                kinit Administrator@$SAMBA_AD_REALM > /dev/null 2>&1; then
            break
        fi
        sleep 0.2
    done
    [ "$i" -lt 150 ] || { echo "samba_ad: the DC did not answer" >&2; return 1; }
    samba_ad_tool domain passwordsettings set --complexity=off --history-length=0 \
        --min-pwd-age=0 --max-pwd-age=0 > /dev/null || return 1
}

samba_ad_user() { # samba_ad_user NAME PASS [options]
    local name=$1 pass=$2; shift 2
    samba_ad_tool user add "$name" "$pass" --use-username-as-cn "$@" > /dev/null
}

samba_ad_join() {
    echo "$SAMBA_AD_ADMINPASS" | adcli join --domain=$SAMBA_AD_DOMAIN \
        --domain-controller=$SAMBA_AD_DC --login-user=Administrator --stdin-password \
        --host-fqdn=$SAMBA_AD_HOST --user-principal=host/$SAMBA_AD_HOST@$SAMBA_AD_REALM \
        > "$SAMBA_AD_DIR/join.log" 2>&1 || { cat "$SAMBA_AD_DIR/join.log" >&2; return 1; }
}

samba_ad_sid() { # the objectSid of sAMAccountName NAME, "S-1-5-21-...", decoded here
    ldapsearch -LLL -x -H ldap://$SAMBA_AD_DC_IP -D "Administrator@$SAMBA_AD_DOMAIN" \
        -w "$SAMBA_AD_ADMINPASS" -b "$SAMBA_AD_BASE" "(sAMAccountName=$1)" objectSid 2>/dev/null |
        sed -n 's/^objectSid:: //p' | python3 -c '
import base64, struct, sys
for line in sys.stdin:
    b = base64.b64decode(line.strip())
    auth = int.from_bytes(b[2:8], "big")
    subs = struct.unpack("<%dI" % b[1], b[8:8 + 4 * b[1]])
    print("S-%d-%d" % (b[0], auth) + "".join("-%d" % s for s in subs))'
}

samba_ad_stop() {
    local pid i
    [ -n "${SAMBA_AD_DIR:-}" ] || return 0
    pid=$(cat "$SAMBA_AD_DIR/run/samba.pid" 2>/dev/null)
    [ -n "$pid" ] || return 0
    kill -TERM "$pid" 2>/dev/null
    for i in $(seq 1 50); do
        kill -0 "$pid" 2>/dev/null || return 0
        sleep 0.1
    done
    kill -KILL "$pid" 2>/dev/null
}

# ---- GPOs (tests/intg/test_ad_gpo.sh) ---------------------------------------------------
# Over LDAP and the DC's sysvol folder, as samba-tool gpo create/setlink would write them
# (the files are then served by the DC's SMB server, from which the tests fetch them).
#   samba_ad_gpo_create NAME           creates a GPO (container, sysvol folder), prints {GUID}
#   samba_ad_gpo_link GUID DN [OPT]    links it first on DN (an OU or the domain), OPT 0
#                                      (default), 1 disabled, 2 enforced
#   samba_ad_gpo_rights GUID TEXT      writes TEXT (the [Privilege Rights] lines) as the
#                                      GPO's GptTmpl.inf (UTF-16LE with BOM), names the
#                                      Security CSE and bumps the version (GPT.INI and LDAP)
_samba_ad_ldapmodify() {
    ldapmodify -x -H ldap://$SAMBA_AD_DC_IP -D "Administrator@$SAMBA_AD_DOMAIN" \
        -w "$SAMBA_AD_ADMINPASS" "$@" > /dev/null
}

samba_ad_gpo_create() {
    local guid dn
    guid="{$(python3 -c 'import uuid; print(str(uuid.uuid4()).upper())')}"
    dn="CN=$guid,CN=Policies,CN=System,$SAMBA_AD_BASE"
    mkdir -p "$SAMBA_AD_DIR/state/sysvol/$SAMBA_AD_DOMAIN/Policies/$guid/Machine" \
        "$SAMBA_AD_DIR/state/sysvol/$SAMBA_AD_DOMAIN/Policies/$guid/User"
    printf '[General]\r\nVersion=0\r\n' \
        > "$SAMBA_AD_DIR/state/sysvol/$SAMBA_AD_DOMAIN/Policies/$guid/GPT.INI"
    _samba_ad_ldapmodify -a <<LDIF || return 1
dn: $dn
objectClass: groupPolicyContainer
displayName: $1
gPCFileSysPath: \\\\$SAMBA_AD_DOMAIN\\SysVol\\$SAMBA_AD_DOMAIN\\Policies\\$guid
flags: 0
versionNumber: 0
gPCFunctionalityVersion: 2

dn: CN=User,$dn
objectClass: container

dn: CN=Machine,$dn
objectClass: container
LDIF
    echo "$guid"
}

samba_ad_gpo_link() {
    local guid=$1 dn=$2 opt=${3:-0} old
    old=$(ldapsearch -LLL -o ldif-wrap=no -x -H ldap://$SAMBA_AD_DC_IP \
        -D "Administrator@$SAMBA_AD_DOMAIN" -w "$SAMBA_AD_ADMINPASS" -b "$dn" -s base gPLink |
        sed -n 's/^gPLink: //p')
    _samba_ad_ldapmodify <<LDIF
dn: $dn
changetype: modify
replace: gPLink
gPLink: [LDAP://CN=$guid,CN=Policies,CN=System,$SAMBA_AD_BASE;$opt]$old
LDIF
}

samba_ad_gpo_rights() {
    local guid=$1 text=$2 gdir ver
    gdir="$SAMBA_AD_DIR/state/sysvol/$SAMBA_AD_DOMAIN/Policies/$guid"
    [ -d "$gdir" ] || { echo "samba_ad: no sysvol folder for $guid" >&2; return 1; }
    mkdir -p "$gdir/Machine/Microsoft/Windows NT/SecEdit"
    printf '[Unicode]\r\nUnicode=yes\r\n[Version]\r\nsignature="$CHICAGO$"\r\nRevision=1\r\n[Privilege Rights]\r\n%s\r\n' \
        "$text" | python3 -c 'import sys; sys.stdout.buffer.write(b"\xff\xfe" + sys.stdin.read().encode("utf-16-le"))' \
        > "$gdir/Machine/Microsoft/Windows NT/SecEdit/GptTmpl.inf"
    chmod -R a+rX "$gdir"
    ver=$(sed -n 's/^Version=\([0-9]*\).*/\1/p' "$gdir/GPT.INI" 2>/dev/null)
    ver=$(( ${ver:-0} + 1 ))
    printf '[General]\r\nVersion=%d\r\n' "$ver" > "$gdir/GPT.INI"
    _samba_ad_ldapmodify <<LDIF
dn: CN=$guid,CN=Policies,CN=System,$SAMBA_AD_BASE
changetype: modify
replace: gPCMachineExtensionNames
gPCMachineExtensionNames: [{827D319E-6EAC-11D2-A4EA-00C04F79F83A}{803E14A0-B4FB-11D0-A0D0-00A0C90F574B}]
-
replace: versionNumber
versionNumber: $ver
LDIF
}
