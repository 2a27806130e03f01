#!/usr/bin/env python3
"""Writes the benchmark directory as LDIF on stdout.

Shape (the identity issue's): USERS users, GROUPS groups, each user in about 10 groups,
one group of BIG members ("biggroup", gid 500000, also every user's primary gid), one group
of 5,000 members ("group5k", gid 499999; fewer when there are fewer users), one user
("manygroups") in MANY groups.
SCHEMA "rfc2307" (default): memberUid names. "rfc2307bis": `member` DNs (posixGroup plus
extensibleObject, see tests/lib/slapd.sh).
Usage: gen_directory.py [USERS] [GROUPS] [BIG] [MANY] [SUFFIX] [SCHEMA]
"""
import random
import sys

users = int(sys.argv[1]) if len(sys.argv) > 1 else 100000
groups = int(sys.argv[2]) if len(sys.argv) > 2 else 20000
big = int(sys.argv[3]) if len(sys.argv) > 3 else 50000
many = int(sys.argv[4]) if len(sys.argv) > 4 else 5000
suffix = sys.argv[5] if len(sys.argv) > 5 else "dc=perf,dc=test"
schema = sys.argv[6] if len(sys.argv) > 6 else "rfc2307"
bis = schema == "rfc2307bis"
PAM_USERS = 64
PAM_PASSWORD = "PerfPass-1"
rng = random.Random(2307)   # the same directory every time
out = sys.stdout.write


def member(name):
    if bis:
        return f"member: uid={name},ou=People,{suffix}\n"
    return f"memberUid: {name}\n"


def group(cn, gid, names):
    extra = "objectClass: extensibleObject\n" if bis else ""
    out(f"dn: cn={cn},ou=Groups,{suffix}\nobjectClass: top\nobjectClass: posixGroup\n{extra}"
        f"cn: {cn}\ngidNumber: {gid}\n")
    out("".join(member(m) for m in names))
    out("\n")


out(f"dn: {suffix}\nobjectClass: top\nobjectClass: dcObject\nobjectClass: organization\n"
    f"o: Perf\ndc: {suffix.split(',')[0].split('=')[1]}\n\n")
for ou in ("People", "Groups"):
    out(f"dn: ou={ou},{suffix}\nobjectClass: organizationalUnit\nou: {ou}\n\n")

for i in range(users):
    name = f"user{i:06d}"
    out(f"dn: uid={name},ou=People,{suffix}\nobjectClass: top\nobjectClass: account\n"
        f"objectClass: posixAccount\nuid: {name}\ncn: User {i}\nuidNumber: {100000 + i}\n"
        f"gidNumber: 500000\nhomeDirectory: /home/{name}\nloginShell: /bin/bash\n"
        + (f"userPassword: {PAM_PASSWORD}\n" if i < PAM_USERS else "") + "\n")
out(f"dn: uid=manygroups,ou=People,{suffix}\nobjectClass: top\nobjectClass: account\n"
    f"objectClass: posixAccount\nuid: manygroups\ncn: Many Groups\nuidNumber: 99999\n"
    f"gidNumber: 500000\nhomeDirectory: /home/manygroups\nloginShell: /bin/bash\n\n")

# Each user joins ~10 random groups; the first MANY groups also hold "manygroups".
members = [[] for _ in range(groups)]
for i in range(users):
    for g in rng.sample(range(groups), min(10, groups)):
        members[g].append(f"user{i:06d}")
for g in range(min(many, groups)):
    members[g].append("manygroups")
for g in range(groups):
    group(f"group{g:05d}", 500001 + g, members[g])
group("biggroup", 500000, (f"user{i:06d}" for i in range(min(big, users))))
group("group5k", 499999, (f"user{i:06d}" for i in range(users - min(5000, users), users)))
