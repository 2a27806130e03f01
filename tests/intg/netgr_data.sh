# The netgroup directory of the netgroup tests (test_netgroups.sh, test_netgroups_compat.sh),
# and what glibc must make of it. Sourced after tests/lib/ldif.sh; S is the suffix.
#   netgr_ldif                 prints the LDIF: ou=Netgroups and ng_a, ng_b, ng_c, ng_empty
#   NETGR_GETENT[name]         `getent netgroup name` as glibc prints it ("" : status 2)
#   NETGR_CHECKS               innetgr() cases for netgr_threads.c
# ng_a has triples with '-', empty fields, spaces and a malformed one, and members ng_b
# (which loops back to ng_a, named by DN) and ng_missing (no such netgroup); ng_empty has
# neither triples nor members: SSSD 2.8 finds it (getent prints its name alone, status 0).
# glibc's getent prints an empty host as " ".

netgr_entry() { # netgr_entry CN [TRIPLE | m:MEMBER]...
    local cn=$1 v
    shift
    printf 'dn: cn=%s,ou=Netgroups,%s\nobjectClass: top\nobjectClass: nisNetgroup\ncn: %s\n' \
        "$cn" "$S" "$cn"
    for v in "$@"; do
        case $v in
            m:*) printf 'memberNisNetgroup: %s\n' "${v#m:}" ;;
            *) printf 'nisNetgroupTriple: %s\n' "$v" ;;
        esac
    done
    printf '\n'
}

netgr_ldif() {
    ldif_base "$S"
    printf 'dn: ou=Netgroups,%s\nobjectClass: organizationalUnit\nou: Netgroups\n\n' "$S"
    netgr_entry ng_a "(host1,alice,dom1)" "(-,bob,)" "( host2 , , )" "garbage" \
        m:ng_b m:ng_missing
    netgr_entry ng_b "(host3,carol,dom3)" "m:cn=ng_a,ou=Netgroups,$S"
    netgr_entry ng_c "(,,dom4)"
    netgr_entry ng_empty
}

declare -A NETGR_GETENT=(
    [ng_a]="ng_a                  (host1,alice,dom1) (-,bob,) (host2,,) (host3,carol,dom3)"
    [ng_b]="ng_b                  (host3,carol,dom3) (host1,alice,dom1) (-,bob,) (host2,,)"
    [ng_c]="ng_c                  ( ,,dom4)"
    [ng_empty]="ng_empty             "
    [ng_missing]=""
)

NETGR_CHECKS=(
    ng_a:host1:alice:dom1:1 ng_a:host3:carol:dom3:1 ng_a:host9:alice:dom1:0
    ng_a:h::x:0 ng_a::bob::1 ng_a:host2:zed:dom9:1
    ng_b:host1:alice:dom1:1 ng_b:host3:carol:dom3:1 ng_b:host3:carol:dom9:0
    ng_c:hostx:anyone:dom4:1 ng_c:hostx:anyone:dom5:0
    ng_missing:host1:alice:dom1:0 ng_nosuch:host1:alice:dom1:0
)
