# A second Samba AD forest (B.TEST, DC dc2.b.test on 127.0.0.11) with a two-way forest
# trust to the first one (tests/lib/samba_ad.sh, AD.TEST on 127.0.0.10). Sourced after
# samba_ad.sh, inside its namespace. Samba 4.17 cannot host a child domain, so a trusted
# forest is the only "other domain" a test can have.
# Both DCs share the network namespace; each has its own mount namespace (B's is nested in
# A's: /etc overlaid once more, private /run/samba and friends), so each has its own
# hosts, resolv.conf and krb5.conf. Each DC binds its own address only (the first one must
# be started with SAMBA_AD_IFACES=127.0.0.10) and forwards the DNS names it does not own
# to the other (SAMBA_AD_FORWARDER=127.0.0.11 for the first).
#
#   samba_ad_trust_start DIR     provision and start B.TEST in DIR, wait for LDAP+KDC
#   samba_ad_b CMD...            run CMD in B's mount namespace with B's samba_ad.sh
#                                variables (samba_ad_b samba_ad_user dave Pass-1 ...)
#   samba_ad_trust_create [OPT]  forest trust, both directions, created on both DCs
#   samba_ad_trust_client_files  the client's krb5.conf learns B.TEST
#   samba_ad_trust_stop          SIGTERM B's DC, wait for it
SAMBA_AD_B_IP=127.0.0.11
SAMBA_AD_B_REALM=B.TEST
SAMBA_AD_B_DOMAIN=b.test
SAMBA_AD_B_DC=dc2.b.test
SAMBA_AD_B_BASE="DC=b,DC=test"
SAMBA_AD_B_ADMINPASS=Admin-Pass-2
_SAMBA_AD_LIB=$(dirname "${BASH_SOURCE[0]}")/samba_ad.sh

# The variables of samba_ad.sh, for B (in the shell that calls samba_ad.sh's functions).
_samba_ad_b_vars() {
    SAMBA_AD_REALM=$SAMBA_AD_B_REALM
    SAMBA_AD_DOMAIN=$SAMBA_AD_B_DOMAIN
    SAMBA_AD_NETBIOS=B
    SAMBA_AD_DC=$SAMBA_AD_B_DC
    SAMBA_AD_DC_IP=$SAMBA_AD_B_IP
    SAMBA_AD_HOST=client.b.test
    SAMBA_AD_ADMINPASS=$SAMBA_AD_B_ADMINPASS
    SAMBA_AD_BASE=$SAMBA_AD_B_BASE
    SAMBA_AD_IFACES=$SAMBA_AD_B_IP
    SAMBA_AD_FORWARDER=${SAMBA_AD_DC_IP_A:-127.0.0.10}
}

samba_ad_trust_start() { # samba_ad_trust_start DIR
    local dir=$1
    [ -n "${SAMBA_AD_IN_NS:-}" ] || { echo "samba_ad_trust: not in the namespace" >&2; return 1; }
    SAMBA_AD_B_DIR=$dir
    mkdir -p "$dir/etc-up" "$dir/etc-work"
    ip addr add $SAMBA_AD_B_IP/8 dev lo 2> /dev/null
    # B's DC is left running in the nested mount namespace when this shell ends.
    unshare --mount --uts --propagation private -- \
        env SAMBA_AD_B_DIR="$dir" _SAMBA_AD_LIB="$_SAMBA_AD_LIB" \
        bash -c '
        set -e
        mount -t overlay overlay \
            -o "lowerdir=/etc,upperdir=$SAMBA_AD_B_DIR/etc-up,workdir=$SAMBA_AD_B_DIR/etc-work" /etc
        for d in /run/samba /var/lib/samba /var/log/samba /var/cache/samba; do
            [ -d "$d" ] || continue
            mkdir -p "$SAMBA_AD_B_DIR/state$d"
            mount --bind "$SAMBA_AD_B_DIR/state$d" "$d"
        done
        hostname dc2.b.test
        set +e
        . "$_SAMBA_AD_LIB"
        . "${_SAMBA_AD_LIB%/*}/samba_ad_trust.sh"
        _samba_ad_b_vars
        samba_ad_start "$SAMBA_AD_B_DIR/dc"
    ' || return 1
}

samba_ad_b() { # samba_ad_b CMD...: CMD in B's mount namespace, with B's variables
    local pid
    pid=$(cat "$SAMBA_AD_B_DIR/dc/run/samba.pid" 2> /dev/null)
    [ -n "$pid" ] || { echo "samba_ad_trust: B's DC is not running" >&2; return 1; }
    nsenter --mount --uts --target "$pid" -- \
        env SAMBA_AD_B_DIR="$SAMBA_AD_B_DIR" _SAMBA_AD_LIB="$_SAMBA_AD_LIB" bash -c '
        . "$_SAMBA_AD_LIB"
        . "${_SAMBA_AD_LIB%/*}/samba_ad_trust.sh"
        _samba_ad_b_vars
        SAMBA_AD_DIR=$SAMBA_AD_B_DIR/dc
        "$@"' samba-ad-b "$@"
}

# From A's side: the trusted domain objects are written on both DCs, then validated
# (arguments: more samba-tool options, e.g. --skip-validation).
samba_ad_trust_create() {
    samba_ad_tool domain trust create $SAMBA_AD_B_DOMAIN --type=forest --direction=both "$@" \
        --create-location=both -U "Administrator@$SAMBA_AD_B_REALM" \
        --password="$SAMBA_AD_B_ADMINPASS" --ipaddress=$SAMBA_AD_B_IP \
        --local-dc-username=Administrator --local-dc-password="$SAMBA_AD_ADMINPASS" \
        > "$SAMBA_AD_DIR/trust.log" 2>&1 || { tail -20 "$SAMBA_AD_DIR/trust.log" >&2; return 1; }
}

# The client (A's /etc) gets B's realm: its KDC is found through A's DNS, which forwards
# b.test to B's DC.
samba_ad_trust_client_files() {
    cat >> /etc/krb5.conf <<EOF
[realms]
    $SAMBA_AD_B_REALM = {
        kdc = $SAMBA_AD_B_DC
    }
[domain_realm]
    .$SAMBA_AD_B_DOMAIN = $SAMBA_AD_B_REALM
    $SAMBA_AD_B_DOMAIN = $SAMBA_AD_B_REALM
EOF
}

samba_ad_trust_stop() {
    local pid i
    [ -n "${SAMBA_AD_B_DIR:-}" ] || return 0
    pid=$(cat "$SAMBA_AD_B_DIR/dc/run/samba.pid" 2> /dev/null)
    [ -n "$pid" ] || return 0
    kill -TERM "$pid" 2> /dev/null
    for i in $(seq 1 50); do
        kill -0 "$pid" 2> /dev/null || return 0
        sleep 0.1
    done
    kill -KILL "$pid" 2> /dev/null
}
