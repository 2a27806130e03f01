#!/usr/bin/env python3
"""Seeds for fuzz_mdb_walk: a two-level LMDB tree (512-byte pages: a branch root over
three leaves) in the input form of fuzz_mdb_walk.c, looked up with keys present, absent
between two leaves, before all and after all. Usage: make_mdb_walk_seeds.py DIR"""
import os
import struct
import sys

PSIZE = 512


def page(pgno, flags, nodes):
    """nodes: (head6, key) in key order; head6 is lo, hi, flags (data size or child)."""
    body = bytearray(PSIZE)
    upper = PSIZE
    ptrs = []
    for head, key in nodes:
        node = head + struct.pack('<H', len(key)) + key
        upper -= len(node) + (len(node) & 1)
        body[upper:upper + len(node)] = node
        ptrs.append(upper)
    lower = 16 + 2 * len(ptrs)
    struct.pack_into('<QHHHH', body, 0, pgno, 0, flags, lower, upper)
    for i, off in enumerate(ptrs):
        struct.pack_into('<H', body, 16 + 2 * i, off)
    return bytes(body)


def leaf(pgno, keys):
    return page(pgno, 0x02, [(struct.pack('<HHH', 0, 0, 0), k) for k in keys])


def branch(pgno, children):
    return page(pgno, 0x01, [(struct.pack('<HHH', c & 0xffff, c >> 16, 0), k)
                             for c, k in children])


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    leaves = [[b'DN=@BASEINFO\0', b'DN=@INDEX:@IDXDN:NAME=a,CN=USERS\0'],
              [b'DN=@INDEX:@IDXDN:NAME=m,CN=USERS\0', b'DN=@INDEX:@IDXDN:NAME=n,CN=USERS\0'],
              [b'GUID=0123456789abcdef\0', b'GUID=1123456789abcdef\0']]
    pages = [b'\0' * PSIZE, b'\0' * PSIZE,
             branch(2, [(3, b''), (4, leaves[1][0]), (5, leaves[2][0])])]
    pages += [leaf(3 + i, keys) for i, keys in enumerate(leaves)]
    tree = b''.join(pages)
    keys = [leaves[0][1], leaves[1][1], leaves[2][0], b'DN=@INDEX:@IDXDN:NAME=b,CN=USERS\0',
            b'A', b'Z' * 40]
    for i, key in enumerate(keys):
        with open(os.path.join(out, 'seed%d' % i), 'wb') as f:
            f.write(bytes([0, 2, 2, len(key)]) + key + tree)


main()
