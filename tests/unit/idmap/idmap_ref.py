#!/usr/bin/env python3
"""Reference model of SSSD's SID -> id mapping, written from the published algorithm
(sssd-ad(5), sssd-ldap(5) "ID MAPPING"; MurmurHash3 x86_32 by Austin Appleby), for
test_idmap: it prints scenarios with the ids it expects, which the C test replays against
src/lib/idmap. Independent of the C code on purpose: the two must agree.

Output lines:
  opts LOWER UPPER SIZE AUTORID HELPERS   a new mapping context
  dom NAME SID REQ RESULT                 add a domain in slice REQ (-1: hash); RESULT the
                                          slice, or ERR
  map SID RESULT                          the id of SID, or ERR
  unmap ID RESULT                         the SID of ID, or ERR
"""
import random
import sys

SEED = 0xDEADBEEF
M = 0xFFFFFFFF


def murmur3_32(data, seed):
    c1, c2 = 0xCC9E2D51, 0x1B873593
    h = seed
    n = len(data) // 4 * 4
    for i in range(0, n, 4):
        k = int.from_bytes(data[i:i + 4], "little")
        k = (k * c1) & M
        k = ((k << 15) | (k >> 17)) & M
        k = (k * c2) & M
        h ^= k
        h = ((h << 13) | (h >> 19)) & M
        h = (h * 5 + 0xE6546B64) & M
    k = 0
    tail = data[n:]
    if len(tail) >= 3:
        k ^= tail[2] << 16
    if len(tail) >= 2:
        k ^= tail[1] << 8
    if len(tail) >= 1:
        k ^= tail[0]
        k = (k * c1) & M
        k = ((k << 15) | (k >> 17)) & M
        k = (k * c2) & M
        h ^= k
    h ^= len(data)
    h ^= h >> 16
    h = (h * 0x85EBCA6B) & M
    h ^= h >> 13
    h = (h * 0xC2B2AE35) & M
    h ^= h >> 16
    return h


class Model:
    def __init__(self, lower, upper, size, autorid, helpers):
        self.lower, self.upper, self.size = lower, upper, size
        self.autorid, self.nhelpers = autorid, helpers
        self.nslices = (upper - lower) // size
        self.taken = []          # (min, max, domsid, first_rid), registered slices
        self.doms = {}           # sid -> {"name", "helpers": {first_rid: min}, "auto"}

    def free(self, lo):
        hi = lo + self.size - 1
        return all(hi < a or lo > b for a, b, _, _ in self.taken)

    def pick(self, name):
        start = 0 if self.autorid else murmur3_32(name.encode(), SEED) % self.nslices
        s = start
        while True:
            lo = self.lower + s * self.size
            if self.free(lo):
                return lo
            s = (s + 1) % self.nslices
            if s == start:
                return None

    def add(self, name, sid, req):
        if any(d["name"].lower() == name.lower() or k.lower() == sid.lower()
               for k, d in self.doms.items()):
            return None
        if req == -1:
            lo = self.pick(sid)
            if lo is None:
                return None
        else:
            if req >= self.nslices:
                return None
            lo = self.lower + req * self.size
            if not self.free(lo):
                return None
        self.taken.append((lo, lo + self.size - 1, sid, 0))
        dom = {"name": name, "helpers": {}, "auto": self.nhelpers > 0}
        for k in range(1, self.nhelpers + 1):
            hlo = self.pick("%s-%d" % (sid, k * self.size))
            if hlo is None:
                dom["helpers"], dom["auto"] = {}, False
                break
            dom["helpers"][k * self.size] = hlo
        self.doms[sid] = dom
        return (lo - self.lower) // self.size

    def map(self, sid):
        if sid.startswith("S-1-5-32-"):
            return None
        dom_sid, _, rid = sid.rpartition("-")
        rid = int(rid)
        if dom_sid not in self.doms:
            return None
        for lo, hi, s, first in self.taken:
            if s == dom_sid and first <= rid <= first + (hi - lo):
                return lo + rid - first
        dom = self.doms[dom_sid]
        if not dom["auto"]:
            return None
        first = rid // self.size * self.size
        lo = dom["helpers"].get(first)
        if lo is None:
            lo = self.pick("%s-%d" % (dom_sid, first))
            if lo is None:
                return None
        elif not self.free(lo):
            return None
        self.taken.append((lo, lo + self.size - 1, dom_sid, first))
        return lo + rid - first

    def unmap(self, uid):
        for lo, hi, s, first in self.taken:
            if lo <= uid <= hi:
                return "%s-%d" % (s, first + uid - lo)
        for s, dom in self.doms.items():
            for first, lo in dom["helpers"].items():
                if lo <= uid <= lo + self.size - 1 and self.free(lo):
                    self.taken.append((lo, lo + self.size - 1, s, first))
                    return "%s-%d" % (s, first + uid - lo)
        return None


def out(*words):
    print(" ".join(str(w) for w in words))


def res(v):
    return "ERR" if v is None else v


def rand_dom(rng):
    return "S-1-5-21-%d-%d-%d" % tuple(rng.randrange(1 << 32) for _ in range(3))


def scenario(rng, opts, ndoms, rids, extra=()):
    m = Model(*opts)
    out("opts", *[int(o) for o in opts])
    sids = []
    for i in range(ndoms):
        sid = rand_dom(rng)
        out("dom", "d%d" % i, sid, -1, res(m.add("d%d" % i, sid, -1)))
        sids.append(sid)
    for sid in sids:
        for rid in rids:
            s = "%s-%d" % (sid, rid)
            out("map", s, res(m.map(s)))
    for line in extra:
        line(m, sids)
    return m, sids


def main():
    rng = random.Random(int(sys.argv[1]) if len(sys.argv) > 1 else 2816)
    # SSSD's defaults, ordinary RIDs.
    scenario(rng, (200000, 2000200000, 200000, False, 10), 6, [500, 512, 513, 1103, 199999])
    # The SID of a real Samba DC's domain and its first accounts.
    m = Model(200000, 2000200000, 200000, False, 10)
    out("opts", 200000, 2000200000, 200000, 0, 10)
    sid = "S-1-5-21-2813596298-666119165-1432146648"
    out("dom", "ad.test", sid, -1, res(m.add("ad.test", sid, -1)))
    for rid in (500, 513, 1103, 1104, 1106):
        out("map", "%s-%d" % (sid, rid), res(m.map("%s-%d" % (sid, rid))))
    out("map", "S-1-5-32-544", "ERR")
    out("map", "S-1-5-21-1-2-3-1000", "ERR")
    # ldap_idmap_default_domain_sid: slice 0, then hashed domains around it.
    m = Model(200000, 2000200000, 200000, False, 10)
    out("opts", 200000, 2000200000, 200000, 0, 10)
    first = rand_dom(rng)
    out("dom", "default", first, 0, res(m.add("default", first, 0)))
    out("map", first + "-1000", res(m.map(first + "-1000")))
    out("dom", "again", first, -1, "ERR")
    # autorid compatibility: the first free slice from 0.
    scenario(rng, (10000, 10000 + 50 * 20000, 20000, True, 2), 3, [1, 19999, 20000, 65000])
    # A small space: collisions move domains to the next slice; secondary slices from the
    # helper table and beyond it; ids back to SIDs.
    for _ in range(4):
        m, sids = scenario(rng, (100000, 100000 + 24 * 1000, 1000, False, 2), 5,
                           [7, 999, 1000, 1500, 2999, 4500])
        for uid in range(100000, 100000 + 24 * 1000, 997):
            out("unmap", uid, res(m.unmap(uid)))
    # A helper slice taken by a later domain: SSSD refuses the RIDs of that secondary
    # slice (the helper is not picked again), while other secondary slices still work.
    opts = (300000, 300000 + 40 * 5000, 5000, False, 3)
    while True:
        m = Model(*opts)
        d0 = rand_dom(rng)
        m.add("d0", d0, -1)
        d1 = rand_dom(rng)
        if m.pick(d1) == m.doms[d0]["helpers"][5000]:
            break
    out("opts", *[int(o) for o in opts])
    # d0 is in the model already: its slice is the first one taken.
    out("dom", "d0", d0, -1, (m.taken[0][0] - opts[0]) // opts[2])
    out("dom", "d1", d1, -1, res(m.add("d1", d1, -1)))
    for rid in (4999, 5000, 9999, 10000, 27000):
        out("map", "%s-%d" % (d0, rid), res(m.map("%s-%d" % (d0, rid))))
    for uid in range(opts[0], opts[1], 1999):
        out("unmap", uid, res(m.unmap(uid)))
    # No helper table: no secondary slices at all.
    scenario(rng, (200000, 2000200000, 200000, False, 0), 2, [5, 200000, 250000])
    # More domains than slices.
    scenario(rng, (1000, 1000 + 3 * 100, 100, False, 0), 4, [1])
    # A range that does not divide evenly: the top part is never used.
    scenario(rng, (5000, 5000 + 3 * 1000 + 500, 1000, False, 1), 3, [0, 999, 1000])


if __name__ == "__main__":
    main()
