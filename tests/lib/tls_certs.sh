#!/bin/bash
# Throwaway TLS material for tests: a CA and a server certificate for 127.0.0.1 and
# localhost signed by it, plus a second, unrelated CA (to test "wrong CA" failures).
# Uses openssl; falls back to certtool (gnutls-bin) when openssl is missing.
#
#   sourced:   . tests/lib/tls_certs.sh;  tls_certs_make DIR
#   executed:  tests/lib/tls_certs.sh DIR
#
# Creates in DIR:
#   ca.crt ca.key           the CA that signed the server certificate
#   server.crt server.key   CN=localhost, SAN DNS:localhost IP:127.0.0.1, 2 days
#   other-ca.crt other-ca.key   a second CA that signed nothing used here
# Keys are unencrypted and readable by the owner only (slapd runs as the same user in
# tests). Failures print one line on stderr and return 1.

tls_certs_available() {
    command -v openssl > /dev/null 2>&1 || command -v certtool > /dev/null 2>&1
}

_tls_certs_openssl() { # DIR
    local d=$1
    local q=(-batch)
    # CA: self-signed, basicConstraints CA:TRUE, keyCertSign.
    for ca in ca other-ca; do
        openssl req "${q[@]}" -x509 -newkey rsa:2048 -nodes -sha256 -days 2 \
            -subj "/O=sssd tests/CN=Throwaway test $ca" \
            -addext "basicConstraints=critical,CA:TRUE" \
            -addext "keyUsage=critical,keyCertSign,cRLSign" \
            -keyout "$d/$ca.key" -out "$d/$ca.crt" || return 1
    done
    openssl req "${q[@]}" -newkey rsa:2048 -nodes -sha256 -subj "/O=sssd tests/CN=localhost" \
        -keyout "$d/server.key" -out "$d/server.csr" || return 1
    cat > "$d/server.ext" <<EOF
basicConstraints=critical,CA:FALSE
keyUsage=critical,digitalSignature,keyEncipherment
extendedKeyUsage=serverAuth
subjectAltName=DNS:localhost,IP:127.0.0.1
EOF
    openssl x509 -req -sha256 -days 2 -in "$d/server.csr" -CA "$d/ca.crt" \
        -CAkey "$d/ca.key" -CAcreateserial -extfile "$d/server.ext" \
        -out "$d/server.crt" || return 1
    openssl verify -CAfile "$d/ca.crt" "$d/server.crt" > /dev/null || return 1
}

_tls_certs_certtool() { # DIR
    local d=$1 ca
    for ca in ca other-ca; do
        certtool --generate-privkey --rsa --bits 2048 --outfile "$d/$ca.key" || return 1
        cat > "$d/$ca.tmpl" <<EOF
organization = "sssd tests"
cn = "Throwaway test $ca"
expiration_days = 2
ca
cert_signing_key
crl_signing_key
EOF
        certtool --generate-self-signed --load-privkey "$d/$ca.key" \
            --template "$d/$ca.tmpl" --outfile "$d/$ca.crt" || return 1
    done
    certtool --generate-privkey --rsa --bits 2048 --outfile "$d/server.key" || return 1
    cat > "$d/server.tmpl" <<EOF
organization = "sssd tests"
cn = "localhost"
dns_name = "localhost"
ip_address = "127.0.0.1"
expiration_days = 2
tls_www_server
signing_key
encryption_key
EOF
    certtool --generate-certificate --load-privkey "$d/server.key" \
        --load-ca-certificate "$d/ca.crt" --load-ca-privkey "$d/ca.key" \
        --template "$d/server.tmpl" --outfile "$d/server.crt" || return 1
}

# tls_certs_make DIR
tls_certs_make() {
    local d=$1 log
    if [ -z "$d" ]; then
        echo "tls_certs_make: usage: tls_certs_make DIR" >&2; return 1
    fi
    mkdir -p "$d" || return 1
    log="$d/tls_certs.log"
    if command -v openssl > /dev/null 2>&1; then
        ( umask 077; _tls_certs_openssl "$d" ) > "$log" 2>&1
    elif command -v certtool > /dev/null 2>&1; then
        ( umask 077; _tls_certs_certtool "$d" ) > "$log" 2>&1
    else
        echo "tls_certs_make: neither openssl nor certtool is installed" >&2; return 1
    fi
    if [ $? -ne 0 ] || [ ! -s "$d/server.crt" ] || [ ! -s "$d/other-ca.crt" ]; then
        echo "tls_certs_make: failed: $(tail -n 3 "$log" | tr '\n' ' ')" >&2
        return 1
    fi
    chmod 644 "$d"/*.crt
    return 0
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
    [ $# -eq 1 ] || { echo "usage: $0 DIR" >&2; exit 2; }
    tls_certs_make "$1"
fi
