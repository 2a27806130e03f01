# LDIF for the tests' directories, printed on stdout. Source it; each function prints one
# entry (or the suffix with its two containers) followed by a blank line.
#   ldif_base SUFFIX                          dc=NAME,dc=...: the suffix, ou=People, ou=Groups
#   ldif_user SUFFIX UID UIDNUMBER GIDNUMBER HOME [CN [SHELL]]
#   ldif_bis_group SUFFIX CN GIDNUMBER [MEMBER...]   rfc2307bis: member DNs, where MEMBER is
#       u:NAME (uid=NAME,ou=People,SUFFIX) or g:NAME (cn=NAME,ou=Groups,SUFFIX)
#   ldif_group SUFFIX CN GIDNUMBER [UID...]          rfc2307: memberUid values

ldif_base() {
    local dc=${1%%,*}
    dc=${dc#dc=}
    printf 'dn: %s\nobjectClass: top\nobjectClass: dcObject\nobjectClass: organization\no: %s\ndc: %s\n\n' \
        "$1" "${dc^}" "$dc"
    printf 'dn: ou=People,%s\nobjectClass: organizationalUnit\nou: People\n\n' "$1"
    printf 'dn: ou=Groups,%s\nobjectClass: organizationalUnit\nou: Groups\n\n' "$1"
}

ldif_user() {
    printf 'dn: uid=%s,ou=People,%s\nobjectClass: top\nobjectClass: account\nobjectClass: posixAccount\nuid: %s\ncn: %s\nuidNumber: %s\ngidNumber: %s\nhomeDirectory: %s\n' \
        "$2" "$1" "$2" "${6:-$2}" "$3" "$4" "$5"
    [ -n "${7:-}" ] && printf 'loginShell: %s\n' "$7"
    printf '\n'
}

# The lines every group entry starts with: SUFFIX CN GIDNUMBER [OBJECTCLASS...]
ldif_group_head() {
    local suffix=$1 cn=$2 gid=$3 oc
    shift 3
    printf 'dn: cn=%s,ou=Groups,%s\nobjectClass: top\nobjectClass: posixGroup\n' "$cn" "$suffix"
    for oc in "$@"; do
        printf 'objectClass: %s\n' "$oc"
    done
    printf 'cn: %s\ngidNumber: %s\n' "$cn" "$gid"
}

ldif_bis_group() {
    local suffix=$1 m
    ldif_group_head "$1" "$2" "$3" extensibleObject
    shift 3
    for m in "$@"; do
        case $m in
            u:*) printf 'member: uid=%s,ou=People,%s\n' "${m#u:}" "$suffix" ;;
            g:*) printf 'member: cn=%s,ou=Groups,%s\n' "${m#g:}" "$suffix" ;;
            *) echo "ldif_bis_group: member '$m' is neither u:NAME nor g:NAME" >&2; return 1 ;;
        esac
    done
    printf '\n'
}

ldif_group() {
    local m
    ldif_group_head "$1" "$2" "$3"
    shift 3
    for m in "$@"; do
        printf 'memberUid: %s\n' "$m"
    done
    printf '\n'
}
