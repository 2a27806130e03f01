#!/usr/bin/env python3
"""Writes the seed corpus of fuzz_sysdb_reply (tests/fuzz/corpus/fuzz_sysdb_reply/).

Each seed: a kind byte (0 user by name, 1 by uid, 2 group by name, 3 by gid, 4 initgroups),
four bytes of id (little-endian), then an entry in the read cache's flat form as
src/db/sysdb_flat.c and sysdb_initgr.c write it on x86_64 (pointers as offsets from the
blob's start, 0 for NULL; lists an aligned offset array ending in 0, then their strings).
Usage: make_sysdb_reply_seeds.py [DIR]
"""
import os
import struct
import sys

USER_HDR = 88       # struct sysdb_user: 7 pointers, 2 uint32, upn, extra, 2 time_t
GROUP_HDR = 56      # struct sysdb_group: name, gid (padded), 3 pointers, 2 time_t


def align8(n):
    return (n + 7) & ~7


class Flat:
    """The blob being written: a header of hdr zero bytes, then strings and lists."""

    def __init__(self, hdr):
        self.buf = bytearray(hdr)

    def string(self, s):
        if s is None:
            return 0
        off = len(self.buf)
        self.buf += s.encode() + b"\0"
        return off

    def strlist(self, items):
        self.buf += bytes(align8(len(self.buf)) - len(self.buf))
        off = len(self.buf)
        self.buf += bytes(8 * (len(items) + 1))
        for i, s in enumerate(items):
            struct.pack_into("<Q", self.buf, off + 8 * i, self.string(s))
        return off


def user(name, uid, gid, gecos=None, home=None, shell=None, dn=None, email=None, extra=()):
    f = Flat(USER_HDR)
    offs = [f.string(s) for s in (name, gecos, home, shell, dn, email)]
    lst = f.strlist(list(extra))
    struct.pack_into("<QIIQQQQQQQqq", f.buf, 0, offs[0], uid, gid, offs[1], offs[2],
                     offs[3], offs[4], 0, offs[5], lst, 1700000000, 1700005400)
    return bytes(f.buf)


def group(name, gid, members=(), nested=(), dn=None):
    f = Flat(GROUP_HDR)
    mem = f.strlist(list(members))
    nest = f.strlist(list(nested))
    name_off = f.string(name)
    dn_off = f.string(dn)
    struct.pack_into("<QIIQQQqq", f.buf, 0, name_off, gid, 0, mem, nest, dn_off,
                     1700000000, 1700005400)
    return bytes(f.buf)


def initgr(ublob, gids, have_list=1):
    head = struct.pack("<QQqQ", len(ublob), len(gids), 1700005400, have_list)
    body = head + b"".join(struct.pack("<I", g) for g in gids)
    body += bytes(align8(len(body)) - len(body))
    return body + ublob


def seed(kind, ident, blob):
    return bytes([kind]) + struct.pack("<I", ident) + blob


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "corpus", "fuzz_sysdb_reply")
    os.makedirs(out, exist_ok=True)
    alice = user("alice@fuzz.dom", 10001, 10001, "Alice", "/home/alice", "/bin/bash",
                 "uid=alice,ou=people,dc=fuzz", "alice@fuzz.dom",
                 ["mobile", "555", "title", "boss"])
    seeds = {
        "user_name": seed(0, 0, alice),
        "user_uid": seed(1, 10001, alice),
        "user_minimal": seed(0, 0, user("ALICE", 10001, 10001)),
        "user_none": seed(0, 0, b""),
        "group_name": seed(2, 0, group("alice@fuzz.dom", 20001, ["alice@fuzz.dom", "bob"],
                                       ["staff@fuzz.dom"], "cn=alice,ou=groups,dc=fuzz")),
        "group_gid": seed(3, 20001, group("staff", 20001)),
        "initgr": seed(4, 0, initgr(alice, [20001, 20002, 20003])),
        "initgr_nolist": seed(4, 0, initgr(user("alice", 10001, 10001), [], 0)),
        "initgr_odd": seed(4, 0, initgr(user("alice", 10001, 10001), [1])),
    }
    for name, data in seeds.items():
        with open(os.path.join(out, name), "wb") as f:
            f.write(data)


if __name__ == "__main__":
    main()
