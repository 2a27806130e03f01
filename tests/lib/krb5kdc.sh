#!/bin/bash
# A private MIT Kerberos realm for tests: krb5kdc and kadmind (kpasswd included) on
# loopback ports, the database, stash, ACL, logs and both configuration files in one
# directory the test owns. Sourced:
#
#   . tests/lib/krb5kdc.sh
#   krb5kdc_available || exit 77
#   krb5kdc_start DIR REALM           # creates the realm, starts both daemons
#   krb5kdc_addprinc DIR NAME PASS [kadmin.local options, e.g. -policy short]
#   krb5kdc_kadmin DIR "QUERY"         # any kadmin.local query
#   krb5kdc_ktadd DIR KEYTAB PRINC     # a keytab with PRINC's (random) key
#   krb5kdc_stop DIR
#
# After start: DIR/krb5.conf is a client configuration for the realm (KRB5_CONFIG=it for
# kinit, klist, kpasswd), DIR/kdc_port, DIR/kadmin_port, DIR/kpasswd_port hold the ports
# (free ports, or KRB5KDC_PORT / KRB5KDC_KADMIN_PORT / KRB5KDC_KPASSWD_PORT). The master
# password is "masterkey". Creating a realm takes ~0.3 s. Failures print one line on
# stderr and return 1.

krb5kdc_available() {
    local t
    for t in krb5kdc kadmind kdb5_util kadmin.local kinit klist; do
        command -v "$t" > /dev/null 2>&1 || PATH=$PATH:/usr/sbin command -v "$t" > /dev/null 2>&1 \
            || return 1
    done
    return 0
}

krb5kdc_free_port() {
    python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'
}

krb5kdc_env() { # DIR: the environment of the realm's tools
    echo "KRB5_CONFIG=$1/krb5.conf KRB5_KDC_PROFILE=$1/kdc.conf"
}

krb5kdc_start() { # DIR REALM
    local dir=$1 realm=$2 kdc kadm kpw i
    export PATH=$PATH:/usr/sbin
    mkdir -p "$dir" || return 1
    kdc=${KRB5KDC_PORT:-$(krb5kdc_free_port)}
    kadm=${KRB5KDC_KADMIN_PORT:-$(krb5kdc_free_port)}
    kpw=${KRB5KDC_KPASSWD_PORT:-$(krb5kdc_free_port)}
    echo "$kdc" > "$dir/kdc_port"
    echo "$kadm" > "$dir/kadmin_port"
    echo "$kpw" > "$dir/kpasswd_port"
    echo "$realm" > "$dir/realm"
    cat > "$dir/kdc.conf" <<EOF
[kdcdefaults]
    kdc_listen = 127.0.0.1:$kdc
    kdc_tcp_listen = 127.0.0.1:$kdc
[realms]
    $realm = {
        database_name = $dir/principal
        key_stash_file = $dir/stash
        acl_file = $dir/kadm5.acl
        kadmind_listen = 127.0.0.1:$kadm
        kpasswd_listen = 127.0.0.1:$kpw
        max_life = 1d
        max_renewable_life = 7d
        supported_enctypes = aes256-cts-hmac-sha1-96:normal aes128-cts-hmac-sha1-96:normal
    }
[logging]
    kdc = FILE:$dir/krb5kdc.log
    admin_server = FILE:$dir/kadmind.log
EOF
    cat > "$dir/krb5.conf" <<EOF
[libdefaults]
    default_realm = $realm
    dns_lookup_kdc = false
    dns_lookup_realm = false
    rdns = false
    udp_preference_limit = 1
[realms]
    $realm = {
        kdc = 127.0.0.1:$kdc
        admin_server = 127.0.0.1:$kadm
        kpasswd_server = 127.0.0.1:$kpw
    }
EOF
    echo "*/admin@$realm *" > "$dir/kadm5.acl"
    if ! env $(krb5kdc_env "$dir") kdb5_util create -s -r "$realm" -P masterkey \
            -d "$dir/principal" > "$dir/create.log" 2>&1; then
        echo "krb5kdc: kdb5_util create failed: $(tail -n1 "$dir/create.log")" >&2
        return 1
    fi
    env $(krb5kdc_env "$dir") krb5kdc -n -P "$dir/krb5kdc.pid" -r "$realm" \
        > "$dir/krb5kdc.out" 2>&1 &
    echo $! > "$dir/krb5kdc.bgpid"
    env $(krb5kdc_env "$dir") kadmind -nofork -P "$dir/kadmind.pid" -r "$realm" \
        > "$dir/kadmind.out" 2>&1 &
    echo $! > "$dir/kadmind.bgpid"
    for i in $(seq 100); do
        if python3 - "$kdc" "$kpw" <<'PY' 2>/dev/null
import socket, sys
for p in sys.argv[1:]:
    socket.create_connection(("127.0.0.1", int(p)), 0.2).close()
PY
        then
            return 0
        fi
        sleep 0.05
    done
    echo "krb5kdc: the KDC or kpasswd did not start: $(tail -n2 "$dir"/*.out)" >&2
    return 1
}

krb5kdc_kadmin() { # DIR QUERY
    env $(krb5kdc_env "$1") kadmin.local -r "$(cat "$1/realm")" -q "$2" > "$1/kadmin.log" 2>&1 \
        && ! grep -qiE "error|not found|unknown" "$1/kadmin.log" \
        || { echo "krb5kdc: kadmin.local '$2' failed: $(tail -n1 "$1/kadmin.log")" >&2; return 1; }
}

krb5kdc_addprinc() { # DIR NAME PASS [options]
    krb5kdc_kadmin "$1" "addprinc -pw $3 ${4:-} $2"
}

krb5kdc_ktadd() { # DIR KEYTAB PRINC
    krb5kdc_kadmin "$1" "ktadd -k $2 $3"
}

krb5kdc_stop() { # DIR
    local f pid
    for f in krb5kdc kadmind; do
        pid=$(cat "$1/$f.bgpid" 2>/dev/null) || continue
        kill "$pid" 2>/dev/null
        for _ in $(seq 40); do kill -0 "$pid" 2>/dev/null || break; sleep 0.05; done
        kill -KILL "$pid" 2>/dev/null
        rm -f "$1/$f.bgpid"
    done
    return 0
}
