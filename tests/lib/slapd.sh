#!/bin/bash
# A private slapd for tests: a temporary directory holding slapd.conf, an mdb database and
# the pid file; the server listens on 127.0.0.1:<free port> only. Usable two ways:
#
#   sourced:   . tests/lib/slapd.sh
#              uri=$(slapd_start DIR LDIF [SUFFIX])   # loads LDIF with slapadd, starts slapd
#              slapd_pid DIR;  slapd_stop DIR
#   executed:  tests/lib/slapd.sh start DIR LDIF [SUFFIX]   -> prints the URI
#              tests/lib/slapd.sh stop DIR
#
# SLAPD_PORT, when set, is the port to listen on instead of a free one.
# TLS (optional): SLAPD_TLS_CERT and SLAPD_TLS_KEY (PEM files, e.g. from tests/lib/tls_certs.sh),
# and optionally SLAPD_TLS_CA, add TLSCertificateFile & co to slapd.conf: the ldap://
# listener then offers StartTLS, and a second listener speaks ldaps:// on another free port
# (SLAPD_TLS_PORT to choose it). slapd_start still prints the ldap:// URI; the ldaps:// one is
# in DIR/ldaps_uri (slapd_ldaps_uri DIR prints it). Without these variables nothing changes.
# SUFFIX defaults to dc=test. The root DN is cn=admin,<SUFFIX> with password "secret"
# (override with SLAPD_ROOTPW). SLAPD_ACL replaces the default "access to * by * read" (e.g.
# to let users change their own userPassword: "access to attrs=userPassword by self write by
# anonymous auth by * none" followed by "access to * by * read"); SLAPD_EXTRA_DB_CONF adds
# database directives (overlays such as "overlay ppolicy"), SLAPD_MODULES more modules to
# load (space-separated names, e.g. "ppolicy"). Schemas: core, cosine, nis, inetorgperson, and the files
# listed (space-separated, absolute paths) in SLAPD_EXTRA_SCHEMA. The LDIF is
# loaded with `slapadd -s` (no schema checking), so tests can load deliberately broken
# entries (a posixAccount without uidNumber, ...); attribute syntaxes are still checked.
# rfc2307bis groups (posixGroup with `member` DNs): Debian's nis.schema makes posixGroup
# STRUCTURAL, so such groups add the AUXILIARY class extensibleObject, which allows any
# attribute: objectClass: posixGroup + objectClass: extensibleObject + member: <DN>.
# Needs root (or a user that may run slapd); no AppArmor profile applies to /usr/sbin/slapd
# on these machines, and the Debian profile, when present, allows /tmp anyway.
# Failures print one line on stderr and return 1.

SLAPD_BIN=${SLAPD_BIN:-/usr/sbin/slapd}
SLAPADD_BIN=${SLAPADD_BIN:-/usr/sbin/slapadd}
SLAPD_SCHEMA_DIR=${SLAPD_SCHEMA_DIR:-/etc/ldap/schema}
SLAPD_MODULE_DIR=${SLAPD_MODULE_DIR:-/usr/lib/ldap}

# Prints a TCP port nobody listens on right now (bind to port 0 and ask the kernel).
slapd_free_port() {
    python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'
}

slapd_available() {
    [ -x "$SLAPD_BIN" ] && [ -x "$SLAPADD_BIN" ] && [ -f "$SLAPD_SCHEMA_DIR/nis.schema" ]
}

_slapd_write_conf() { # DIR SUFFIX
    local dir=$1 suffix=$2 modline="" extra="" f
    for f in ${SLAPD_EXTRA_SCHEMA:-}; do
        extra="$extra
include $f"
    done
    if [ -e "$SLAPD_MODULE_DIR/back_mdb.so" ] || [ -e "$SLAPD_MODULE_DIR/back_mdb.la" ]; then
        modline="modulepath $SLAPD_MODULE_DIR
moduleload back_mdb"
    fi
    for f in ${SLAPD_MODULES:-}; do
        modline="$modline
moduleload $f"
    done
    if [ -n "${SLAPD_TLS_CERT:-}" ]; then
        extra="$extra
TLSCertificateFile $SLAPD_TLS_CERT
TLSCertificateKeyFile $SLAPD_TLS_KEY"
        if [ -n "${SLAPD_TLS_CA:-}" ]; then
            extra="$extra
TLSCACertificateFile $SLAPD_TLS_CA"
        fi
    fi
    cat > "$dir/slapd.conf" <<EOF
include $SLAPD_SCHEMA_DIR/core.schema
include $SLAPD_SCHEMA_DIR/cosine.schema
include $SLAPD_SCHEMA_DIR/nis.schema
include $SLAPD_SCHEMA_DIR/inetorgperson.schema
$extra
pidfile $dir/slapd.pid
argsfile $dir/slapd.args
$modline
sizelimit unlimited
timelimit unlimited
loglevel ${SLAPD_LOGLEVEL:-none}
database mdb
maxsize 268435456
suffix "$suffix"
rootdn "cn=admin,$suffix"
rootpw ${SLAPD_ROOTPW:-secret}
directory $dir/db
index objectClass eq
index uid,uidNumber,gidNumber,memberUid,member,cn eq
${SLAPD_EXTRA_DB_CONF:-}
${SLAPD_ACL:-access to * by * read}
EOF
}

# slapd_start DIR LDIF [SUFFIX]: prints ldap://127.0.0.1:PORT once the server answers.
slapd_start() {
    local dir=$1 ldif=$2 suffix=${3:-dc=test} port uri i try urls tport="" turi=""
    if [ -z "$dir" ] || [ ! -f "$ldif" ]; then
        echo "slapd_start: usage: slapd_start DIR LDIF [SUFFIX]" >&2; return 1
    fi
    slapd_available || { echo "slapd_start: slapd is not installed" >&2; return 1; }
    if [ -n "${SLAPD_TLS_CERT:-}" ] && { [ ! -r "$SLAPD_TLS_CERT" ] \
            || [ ! -r "${SLAPD_TLS_KEY:-}" ]; }; then
        echo "slapd_start: SLAPD_TLS_CERT and SLAPD_TLS_KEY must be readable files" >&2
        return 1
    fi
    mkdir -p "$dir/db" || return 1
    _slapd_write_conf "$dir" "$suffix"
    # -s (no schema checking) lets tests load deliberately broken entries; such entries
    # also get no structuralObjectClass, and slapd then refuses to modify them (error 80):
    # SLAPD_SCHEMA_CHECK=1 loads with checking, for tests that change entries (passwords).
    local check=-s
    [ -n "${SLAPD_SCHEMA_CHECK:-}" ] && check=
    if ! "$SLAPADD_BIN" -q $check -f "$dir/slapd.conf" -l "$ldif" > "$dir/slapadd.log" 2>&1; then
        echo "slapd_start: slapadd failed: $(tail -n 3 "$dir/slapadd.log" | tr '\n' ' ')" >&2
        return 1
    fi
    for try in 1 2 3 4 5; do
        # SLAPD_PORT restarts a server where it was (to test coming back online).
        port=${SLAPD_PORT:-$(slapd_free_port)} || return 1
        uri="ldap://127.0.0.1:$port"
        urls="$uri/"
        if [ -n "${SLAPD_TLS_CERT:-}" ]; then
            tport=${SLAPD_TLS_PORT:-$(slapd_free_port)} || return 1
            turi="ldaps://127.0.0.1:$tport"
            urls="$urls $turi/"
        fi
        rm -f "$dir/slapd.pid"
        "$SLAPD_BIN" -f "$dir/slapd.conf" -h "$urls" -n slapd-test > "$dir/slapd.log" 2>&1
        # slapd forks; wait up to 5 s until it answers (a lost port race exits quickly).
        for i in $(seq 100); do
            if [ -f "$dir/slapd.pid" ] && (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null \
                    && { [ -z "$tport" ] \
                         || (exec 3<>"/dev/tcp/127.0.0.1/$tport") 2>/dev/null; }; then
                echo "$uri" > "$dir/uri"
                if [ -n "$turi" ]; then echo "$turi" > "$dir/ldaps_uri"; fi
                echo "$uri"
                return 0
            fi
            if [ $i -gt 10 ] && [ ! -f "$dir/slapd.pid" ]; then
                break
            fi
            sleep 0.05
        done
        slapd_stop "$dir" 2>/dev/null
    done
    echo "slapd_start: slapd did not start: $(tail -n 3 "$dir/slapd.log" | tr '\n' ' ')" >&2
    return 1
}

slapd_pid() { cat "$1/slapd.pid" 2>/dev/null; }

# The ldaps:// URI of a server started with SLAPD_TLS_CERT set (nothing otherwise).
slapd_ldaps_uri() { cat "$1/ldaps_uri" 2>/dev/null; }

# slapd_stop DIR: TERM, wait up to 5 s, then KILL. Returns 0 when no server is left.
slapd_stop() {
    local dir=$1 pid i
    pid=$(slapd_pid "$dir")
    [ -n "$pid" ] || return 0
    kill -CONT "$pid" 2>/dev/null   # in case a test left it stopped
    kill -TERM "$pid" 2>/dev/null || { rm -f "$dir/slapd.pid"; return 0; }
    for i in $(seq 100); do
        kill -0 "$pid" 2>/dev/null || { rm -f "$dir/slapd.pid"; return 0; }
        sleep 0.05
    done
    kill -KILL "$pid" 2>/dev/null
    rm -f "$dir/slapd.pid"
    return 0
}

# Executed rather than sourced: a tiny command line.
if [ "${BASH_SOURCE[0]}" = "$0" ]; then
    case "${1:-}" in
        start) shift; slapd_start "$@" ;;
        stop) shift; slapd_stop "$@" ;;
        pid) shift; slapd_pid "$@" ;;
        ldaps_uri) shift; slapd_ldaps_uri "$@" ;;
        port) slapd_free_port ;;
        *) echo "usage: $0 start DIR LDIF [SUFFIX] | stop DIR | pid DIR | ldaps_uri DIR | port" >&2; exit 2 ;;
    esac
fi
