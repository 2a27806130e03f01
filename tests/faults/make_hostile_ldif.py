#!/usr/bin/python3
# The directory of fault scenario 6 (tests/faults/scenario_data.sh), as LDIF on stdout:
# N sane users (hd000001 ... uid 200000 + i, gid 300000) among hostile entries, rfc2307bis
# groups (member DNs). Writes the sane users' passwd lines to EXPECTED and prints nothing
# else. Hostile entries: users sharing a sane user's uidNumber (dupuidN) or name (in
# another branch, with another uid), ids out of range or not numbers, 1 MB gecos and home
# values, a group loop (loopa <-> loopb), a group naming itself,
# and "big": every sane user plus BIG - N members that do not exist.
#   make_hostile_ldif.py SUFFIX N BIG EXPECTED
import sys

suffix, n, big, expected = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
out = sys.stdout
dc = suffix.split(",")[0].split("=")[1]


def entry(dn, *lines):
    out.write("dn: %s\n%s\n\n" % (dn, "\n".join(lines)))


def user(name, uid, gid=300000, ou="People", gecos=None, home=None):
    name_line = "uid: " + name
    lines = ["objectClass: top", "objectClass: account", "objectClass: posixAccount",
             name_line, "cn: %s" % name, "uidNumber: %s" % uid, "gidNumber: %s" % gid,
             "homeDirectory: %s" % (home or "/home/" + name)]
    if gecos is not None:
        lines.append("gecos: %s" % gecos)
    entry("uid=%s,ou=%s,%s" % (name, ou, suffix), *lines)


entry(suffix, "objectClass: top", "objectClass: dcObject", "objectClass: organization",
      "o: %s" % dc, "dc: %s" % dc)
for ou in ("People", "Groups", "Other"):
    entry("ou=%s,%s" % (ou, suffix), "objectClass: organizationalUnit", "ou: %s" % ou)

# The last 40 sane users get a duplicate below (by uid, then by name): only the others
# have one right answer.
with open(expected, "w") as exp:
    for i in range(1, n + 1):
        name = "hd%06d" % i
        user(name, 200000 + i)
        if i <= n - 41:
            exp.write("%s:*:%d:300000:%s:/home/%s:\n" % (name, 200000 + i, name, name))  # gecos: cn, as SSSD

# Duplicates: another name with a sane user's uid; a sane user's name elsewhere.
for i in range(1, 21):
    user("dupuid%d" % i, 200000 + n - i + 1)
    user("hd%06d" % (n - 20 - i), 900000 + i, ou="Other")
# Ids out of range or not numbers.
for k, bad in enumerate(["0", "-1", "4294967295", "99999999999", "abc", "12x", ""]):
    user("badid%d" % k, bad)
    user("badgid%d" % k, 400000 + k, gid=bad)
# Values of 1 MB.
for k in range(5):
    user("hugegecos%d" % k, 410000 + k, gecos="x" * (1 << 20))
    user("hugehome%d" % k, 420000 + k, home="/" + "h" * (1 << 20))
# Names that are not UTF-8: slapd itself refuses to store them (uid is a directoryString),
# so no real OpenLDAP serves them; tests/fuzz/fuzz_sdap_entry.c sends such bytes instead.

# Groups: a loop, a self-member, and the big one.
def group(cn, gid, members):
    lines = ["objectClass: top", "objectClass: posixGroup", "objectClass: extensibleObject",
             "cn: %s" % cn, "gidNumber: %d" % gid]
    lines += ["member: %s" % m for m in members]
    entry("cn=%s,ou=Groups,%s" % (cn, suffix), *lines)


g = "cn=%%s,ou=Groups,%s" % suffix
u = "uid=%%s,ou=People,%s" % suffix
group("loopa", 310001, [g % "loopb", u % "hd000001"])
group("loopb", 310002, [g % "loopa", u % "hd000002"])
group("selfish", 310003, [g % "selfish", u % "hd000003"])
members = [u % ("hd%06d" % i) for i in range(1, n + 1)]
members += [u % ("ghost%07d" % i) for i in range(max(0, big - n))]
group("big", 310000, members)
