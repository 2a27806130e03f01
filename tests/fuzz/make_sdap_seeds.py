#!/usr/bin/python3
# Writes seed inputs for fuzz_sdap_entry: the server's side of a search (message id 1),
# BER-encoded by hand (RFC 4511): entries of both schemas, AD entries with POSIX ids and a
# binary objectSid (a user, a group), a rootDSE, paged results, a
# ranged member attribute (AD) over three entries, a user's memberOf as extended DNs.
#   make_sdap_seeds.py DIR
import os
import sys


def tlv(tag, body):
    n = len(body)
    if n < 0x80:
        head = bytes([n])
    else:
        b = n.to_bytes((n.bit_length() + 7) // 8, "big")
        head = bytes([0x80 | len(b)]) + b
    return bytes([tag]) + head + body


def octets(s):
    return tlv(0x04, s.encode() if isinstance(s, str) else s)


def integer(v):
    return tlv(0x02, v.to_bytes(max(1, (v.bit_length() + 8) // 8), "big", signed=True))


def enum(v):
    return tlv(0x0A, bytes([v]))


def message(body, controls=b""):
    return tlv(0x30, integer(1) + body + controls)


def entry(dn, attrs):
    pal = b"".join(tlv(0x30, octets(a) + tlv(0x31, b"".join(octets(v) for v in vals)))
                   for a, vals in attrs)
    return message(tlv(0x64, octets(dn) + tlv(0x30, pal)))


def done(code=0, cookie=None):
    body = tlv(0x65, enum(code) + octets("") + octets(""))
    ctrls = b""
    if cookie is not None:
        value = tlv(0x30, integer(0) + octets(cookie))
        ctrls = tlv(0xA0, tlv(0x30, octets("1.2.840.113556.1.4.319") + octets(value)))
    return message(body, ctrls)


seeds = {
    "user2307": entry("uid=alice,ou=People,dc=f", [
        ("objectClass", ["posixAccount"]), ("uid", ["alice"]), ("uidNumber", ["10001"]),
        ("gidNumber", ["20001"]), ("homeDirectory", ["/home/alice"]),
        ("gecos", ["Alice"]), ("loginShell", ["/bin/bash"])]) + done(),
    "group2307": entry("cn=devs,ou=Groups,dc=f", [
        ("objectClass", ["posixGroup"]), ("cn", ["devs"]), ("gidNumber", ["20001"]),
        ("memberUid", ["alice", "bob", "bad name:x"])]) + done(),
    "groupbis": entry("cn=ops,ou=Groups,dc=f", [
        ("objectClass", ["posixGroup", "groupOfNames"]), ("cn", ["ops"]),
        ("gidNumber", ["20002"]),
        ("member", ["uid=alice,ou=People,dc=f", "cn=devs,ou=Groups,dc=f", "cn=x\\,y+uid=z,dc=f"])])
        + done(4),
    # AD without ID mapping: objectSid in binary (S-1-5-21-1-2-3-1106, -1108).
    "userad": entry("CN=carol,CN=Users,DC=f", [
        ("objectClass", ["user"]), ("sAMAccountName", ["carol"]), ("uidNumber", ["10201"]),
        ("gidNumber", ["10301"]),
        ("objectSid", [bytes.fromhex("010500000000000515000000010000000200000003000000"
                                     "52040000")])]) + done(),
    "groupad": entry("CN=g_posix,CN=Users,DC=f", [
        ("objectClass", ["group"]), ("sAMAccountName", ["g_posix"]), ("gidNumber", ["10301"]),
        ("objectSid", [bytes.fromhex("010500000000000515000000010000000200000003000000"
                                     "54040000")])]) + done(),
    "rootdse": entry("", [("namingContexts", ["dc=f", "cn=config"]),
                          ("defaultNamingContext", ["dc=f"])]) + done(),
    "paged": entry("uid=bob,ou=People,dc=f", [
        ("uid", ["bob", "Bob"]), ("uidNumber", ["4294967295"]), ("gidNumber", ["0"])])
        + done(0, b"\x00\x01cookie"),
    # AD's ranged member (MS-ADTS 3.1.1.3.1.3.3): a first range, its follow-up, the last.
    "ranged": entry("cn=big,ou=Groups,dc=f", [
        ("objectClass", ["group"]), ("cn", ["big"]),
        ("member;range=0-1", ["uid=a,dc=f", "uid=b,dc=f"])])
        + entry("cn=big,ou=Groups,dc=f", [("member;range=2-3", ["uid=c,dc=f", "uid=d,dc=f"])])
        + entry("cn=big,ou=Groups,dc=f", [("member;range=4-*", ["uid=e,dc=f"])]) + done(),
    # memberOf under AD's extended DN control (string form): with a SID, without, broken.
    "memberofxdn": entry("CN=u5k,CN=Users,DC=f", [
        ("memberOf", ["<GUID=0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0>;"
                      "<SID=S-1-5-21-1-2-3-1109>;CN=bg1,CN=Users,DC=f",
                      "<GUID=0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f1>;CN=dist,CN=Users,DC=f",
                      "<SID=S-1-5-21-x>;CN=bad,DC=f", "<SID=S-1-5-21-1-2-3-1110",
                      "CN=plain,CN=Users,DC=f"])]) + done(),
}
out = sys.argv[1]
os.makedirs(out, exist_ok=True)
for name, data in seeds.items():
    with open(os.path.join(out, name), "wb") as f:
        f.write(data)
